"""experiments/train.py: a tiny PPO run on cuegym/PotShot-v0 writes well-formed outputs, the
saved model loads back, and training is repeatable: the same seed gives the same weights
and evaluation numbers, another seed other weights, and the native JAX vector env adapter
feeds the learner exactly what DummyVecEnv over single envs does.

Everything runs in this process on the default table with batches of 1 (training) and 64
(evaluation): the programs the env tests compile (persistent-cache hits), traced once here.
"""

import dataclasses
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3")  # installed by scripts/test.sh: CI runs these

import torch  # noqa: E402

from cuegym.envs.wrappers import make_sb3_env  # noqa: E402

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
POT = "cuegym/PotShot-v0"
STEPS, EVAL_EVERY, EPISODES = 256, 128, 64


def load(name):
    """An experiments/ script as a module (they are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(f"cuegym_experiment_{name}", EXPERIMENTS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while the class is built
    spec.loader.exec_module(mod)
    return mod


T = load("train")
TINY = T.Config(env=POT, algo="ppo", steps=STEPS, seed=0, num_envs=1, eval_every=EVAL_EVERY, eval_episodes=EPISODES,
                n_steps=64, batch_size=64, net=(16, 16))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """name -> (record, out folder): ``a`` and ``b`` the same configuration, ``dummy`` the
    same through DummyVecEnv, ``seed1`` another seed."""
    cases = {"a": TINY, "b": TINY, "dummy": dataclasses.replace(TINY, vec="dummy"),
             "seed1": dataclasses.replace(TINY, seed=1)}
    out = {}
    for name, cfg in cases.items():
        folder = tmp_path_factory.mktemp(name)
        out[name] = (T.train(dataclasses.replace(cfg, out=str(folder))), folder)
    return out


def weights(folder):
    model = sb3.PPO.load(folder / "model.zip", device="cpu")
    return [p.detach().clone() for p in model.policy.parameters()]


def numbers(record):
    return [(e["steps"], e["mean_reward"], e["std_reward"], e["success_rate"], e["episodes"])
            for e in record["evaluations"]]


def test_outputs_are_written_and_well_formed(runs):
    record, folder = runs["a"]
    on_disk = json.loads((folder / "evaluations.json").read_text())
    assert on_disk == json.loads(json.dumps(record))
    cfg = on_disk["config"]
    assert (cfg["env"], cfg["algo"], cfg["seed"], cfg["steps"], cfg["vec"]) == (POT, "ppo", 0, STEPS, "native")
    # PPO collects rollouts of n_steps x num_envs = 64 steps: 256 is exactly 4 of them
    assert on_disk["train"]["steps"] == STEPS and on_disk["train"]["wall_s"] > 0
    steps = [e["steps"] for e in on_disk["evaluations"]]
    assert steps == [0, 128, 256]
    walls = [e["wall_s"] for e in on_disk["evaluations"]]
    assert walls == sorted(walls)
    for e in on_disk["evaluations"] + [on_disk["baseline"]]:
        assert e["episodes"] == EPISODES
        # PotShot pays 1 for a pot and 0 otherwise, so the mean return is the pot rate
        assert 0.0 <= e["success_rate"] <= 1.0 and e["mean_reward"] == pytest.approx(e["success_rate"])
    assert on_disk["baseline"]["policy"] == "uniform random action"
    png = folder / "learning_curve.png"
    plots = load("plots")
    if plots.have_matplotlib():
        assert on_disk["plot"] == "learning_curve.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert on_disk["plot"] is None and not png.exists() and "matplotlib" in on_disk["plot_note"]


def test_saved_model_loads_and_acts_in_the_box(runs):
    _, folder = runs["a"]
    model = sb3.PPO.load(folder / "model.zip", device="cpu")
    env = make_sb3_env(POT, shot_high=TINY.shot_high)
    obs, _ = env.reset(seed=3)
    action, _ = model.predict(obs, deterministic=True)
    assert action.shape == env.action_space.shape == (5,)
    assert env.action_space.contains(action.astype(np.float32))
    _, reward, terminated, _, _ = env.step(action)
    assert terminated and reward in (0.0, 1.0)


def test_same_seed_same_run_other_seed_other_weights(runs):
    a, b, other = runs["a"], runs["b"], runs["seed1"]
    assert numbers(a[0]) == numbers(b[0]) and a[0]["baseline"] == b[0]["baseline"]
    wa, wb, wo = weights(a[1]), weights(b[1]), weights(other[1])
    assert all(torch.equal(x, y) for x, y in zip(wa, wb))
    assert not all(torch.equal(x, y) for x, y in zip(wa, wo)), "another seed must train other weights"


def test_native_adapter_matches_dummy_vec_env(runs):
    """Table i of the native vector env and DummyVecEnv's env i draw from the same key stream
    (seed + i): the learner sees the same transitions, so the weights agree bit for bit."""
    native, dummy = runs["a"], runs["dummy"]
    assert dummy[0]["config"]["vec"] == "dummy"
    assert numbers(native[0]) == numbers(dummy[0])
    assert all(torch.equal(x, y) for x, y in zip(weights(native[1]), weights(dummy[1])))


def test_bad_configuration_names_the_field():
    with pytest.raises(ValueError, match="algo"):
        dataclasses.replace(TINY, algo="dqn").check()
    with pytest.raises(ValueError, match="vec"):
        dataclasses.replace(TINY, env="cuegym/RussianPyramid-v0", vec="native").check()
    with pytest.raises(ValueError, match="steps"):
        dataclasses.replace(TINY, steps=0).check()
    with pytest.raises(ValueError, match="distance"):
        dataclasses.replace(TINY, env="cuegym/Lag-v0", distance=(0.2, 0.5)).check()


def test_residual_learner_through_both_adapters(tmp_path):
    """``--wrapper residual``: the native adapter's lanes correct the ghost-ball agent's stroke
    as ``make_residual_env`` does for one table, so both adapters train the same weights, and
    the untrained policy starts at the ghost's pot rate (pool-9ft)."""
    runs = {}
    for vec in ("native", "dummy"):
        cfg = dataclasses.replace(TINY, wrapper="residual", vec=vec, table="pool-9ft", out=str(tmp_path / vec))
        runs[vec] = (T.train(cfg), tmp_path / vec)
    assert numbers(runs["native"][0]) == numbers(runs["dummy"][0])
    assert all(torch.equal(x, y) for x, y in zip(weights(runs["native"][1]), weights(runs["dummy"][1])))
    assert runs["native"][0]["config"]["wrapper"] == "residual"
    # an untrained policy acts near zero, so the residual learner starts where the ghost is:
    # its step-0 evaluation pots (nearly) what the ghost-ball agent pots on the same episodes
    # (single env seeded eval_seed + k deals the layout of evaluation table k)
    import gymnasium as gym
    import jax

    from cuegym.agents import GhostBallAgent

    env, ghost = gym.make(POT, table="pool-9ft"), GhostBallAgent(POT, table="pool-9ft")
    pots = 0
    for k in range(EPISODES):
        obs, _ = env.reset(seed=TINY.eval_seed + k)
        pots += env.step(ghost.act(obs, jax.random.PRNGKey(k)))[1]
    start = round(runs["native"][0]["evaluations"][0]["success_rate"] * EPISODES)
    assert pots >= 32 and abs(start - pots) <= 3, (start, pots)  # 51 against 50 here
