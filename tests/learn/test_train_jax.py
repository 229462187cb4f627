"""experiments/train_jax.py and cuegym.learn.train: the outputs, the checkpoint read back as
the same policy, the same seed giving the same weights, and bad flags refused; and
experiments/sweep.py: two short trials on a local Ray write their outputs and the results
table, Ray's processes end with the sweep, and bad flags are refused before Ray starts."""

import csv
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import jax
import numpy as np
import pytest
from flax import serialization

from cuegym.learn import ppo, train

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
SPEC = {"env": "cuegym/PotShot-v0", "action": "menu", "observation": "flat", "opponent": None,
        "options": {"table": "pool-9ft", "noise": 1.0}}
CFG = ppo.Config(num_envs=8, num_steps=2, minibatches=2, epochs=1)


def script():
    spec = importlib.util.spec_from_file_location("cuegym_experiment_train_jax", EXPERIMENTS / "train_jax.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = {}
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        folder = tmp_path_factory.mktemp(name)
        out[name] = (folder, train.run(SPEC, CFG, minutes=5.0, seed=seed, out=folder, max_steps=64,
                                       eval_episodes=32, log=lambda *_: None,
                                       measure_env_speed=name == "a"))
    return out


def test_outputs_are_written_and_well_formed(runs):
    folder, result = runs["a"]
    on_disk = json.loads((folder / "result.json").read_text())
    for key in ("policy_success", "ghost_success", "policy_success_95", "ghost_success_95", "steps", "steps_per_s",
                "env_steps_per_s", "episodes"):
        assert key in on_disk
    assert on_disk["steps"] >= 64 and on_disk["episodes"] == 32
    for name in ("policy", "ghost"):
        lo, hi = on_disk[f"{name}_success_95"]
        assert 0 <= lo <= on_disk[f"{name}_success"] <= hi <= 1
    assert on_disk["env_steps_per_s"] > 0 and on_disk["steps_per_s"] > 0
    assert (folder / "learning_curve.png").stat().st_size > 1000
    assert (folder / train.CHECKPOINT).exists() and (folder / train.CONFIG).exists()


def test_checkpoint_reads_back_as_the_same_policy(runs):
    folder, _ = runs["a"]
    env, params, net, weights = train.load(folder)
    saved = serialization.msgpack_restore((folder / train.CHECKPOINT).read_bytes())
    flat_a = jax.tree_util.tree_leaves(saved)
    flat_b = jax.tree_util.tree_leaves(weights)
    assert all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(flat_a, flat_b))
    obs, _ = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.PRNGKey(9), 4), params)
    logits, value = net.apply(weights, obs)
    assert logits.shape == (4, env.num_actions) and value.shape == (4,)


def test_same_seed_same_weights_other_seed_other_weights(runs):
    read = lambda name: (runs[name][0] / train.CHECKPOINT).read_bytes()  # noqa: E731
    assert read("a") == read("b")
    assert read("a") != read("c")
    assert runs["a"][1]["policy_success"] == runs["b"][1]["policy_success"]


def test_the_script_refuses_bad_flags(capsys):
    mod = script()
    with pytest.raises(SystemExit):
        mod.main(["--action", "joystick"])
    assert "action" in capsys.readouterr().err


@pytest.mark.parametrize("flags, named", [
    (["--env", "cuegym/PotShot-v0", "--opponent", "self"], "opponent"),  # a one-player drill
    (["--env", "cuegym/RussianPyramid-v0", "--opponent", "self", "--rollout", "vmap"], "opponent"),
    (["--env", "cuegym/RussianPyramid-v0", "--devices", "2"], "devices"),  # the pool runs on one device
    (["--env", "cuegym/RussianPyramid-v0", "--num-envs", "8", "--pool-batch", "9"], "pool_batch"),
])
def test_the_pool_rollouts_bad_flags_are_refused_naming_the_flag(flags, named, capsys, tmp_path):
    with pytest.raises(SystemExit):
        script().main([*flags, "--out", str(tmp_path)])
    assert named in capsys.readouterr().err


def test_config_refuses_a_batch_the_minibatches_do_not_divide():
    with pytest.raises(ValueError, match="minibatches"):
        ppo.Config(num_envs=6, num_steps=1, minibatches=4)


# ----------------------------------------------------------------------------- the learned agent


def test_policy_agent_plays_the_gymnasium_env_and_as_an_opponent(runs):
    import gymnasium as gym

    from cuegym.learn.agent import PolicyAgent

    folder, _ = runs["a"]
    agent = PolicyAgent(folder)
    env = gym.make("cuegym/PotShot-v0", table="pool-9ft", noise=1.0)
    obs, _ = env.reset(seed=11)
    action = agent.act(obs, jax.random.PRNGKey(0))
    assert env.action_space.contains(action)
    assert 0 <= agent.last_info["candidate"] < train.M.size()
    again = agent.act(obs, jax.random.PRNGKey(5))  # greedy: the key does not matter
    assert all(np.array_equal(np.asarray(action[k]), np.asarray(again[k])) for k in action)
    env.step(action)
    # its probabilities rank the same menu the env offers
    ranked = agent.scores(obs)
    assert ranked["probs"].shape == (train.M.size(),) and bool(ranked["legal"][-1])
    assert abs(float(np.sum(ranked["probs"])) - 1.0) < 1e-5
    assert callable(agent.as_opponent(seed=1))


def test_policy_agent_refuses_a_folder_without_a_policy(tmp_path):
    from cuegym.learn.agent import PolicyAgent

    with pytest.raises(ValueError, match="path"):
        PolicyAgent(tmp_path)


def test_evaluate_builds_the_policy_agent_and_checks_its_game(runs):
    spec = importlib.util.spec_from_file_location("cuegym_experiment_evaluate", EXPERIMENTS / "evaluate.py")
    ev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ev)
    folder, _ = runs["a"]
    with pytest.raises(ValueError, match="policy"):
        ev.make_agent("policy", "cuegym/PotShot-v0", 1.0, {}, None)
    with pytest.raises(ValueError, match="policy"):
        ev.make_agent("policy", "cuegym/RussianPyramid-v0", 1.0, {}, str(folder))
    row = ev.evaluate("policy", "pool-9ft", 1.0, 4, 1_000_000, {}, str(folder))
    assert row["shots"] == 4 and 0 <= row["rate"] <= 1


def test_suggest_ranks_the_policys_candidates(runs):
    from cuegym.positions import PositionError
    from cuegym.tools import coach

    folder, _ = runs["a"]
    budget = dict(candidates=16, samples=4, rounds=1)  # tests/tools/test_coach.py's: the same replay program
    pot7 = Path(coach.__file__).resolve().parents[1] / "examples" / "pot-7.json"
    out = coach.suggest(str(pot7), top=2, noise=1.0, seed=0, budget=budget, policy=folder)
    assert 1 <= len(out) <= 2
    assert all(s.target["ball"] == "7" for s in out)  # the only object ball
    assert all(0.0 <= s.probability <= 1.0 for s in out)
    snooker = Path(coach.__file__).resolve().parents[1] / "examples" / "snooker-break.json"
    with pytest.raises(PositionError, match="game"):
        coach.suggest(str(snooker), top=1, budget=budget, policy=folder)


def test_a_checkpoint_for_another_observation_or_network_refuses_to_load(runs, tmp_path):
    """A config whose env now observes other parts (here egocentric features the run never
    saw) names both layouts; weights of another network's shapes name the weight."""
    import shutil

    folder, _ = runs["a"]
    other = tmp_path / "other"
    shutil.copytree(folder, other)
    cfg = json.loads((other / train.CONFIG).read_text())
    cfg["spec"]["observation"] = "egocentric"
    (other / train.CONFIG).write_text(json.dumps(cfg))
    with pytest.raises(ValueError, match=r"checkpoint: .*egocentric"):
        train.load(other)
    cfg["spec"]["observation"] = "flat"
    cfg["hidden"] = 32  # the saved weights are 64 wide
    (other / train.CONFIG).write_text(json.dumps(cfg))
    with pytest.raises(ValueError, match=r"checkpoint: .*saved \(.*64.*\), expected"):
        train.load(other)


# experiments/sweep.py, Ray Tune over train_jax.py's hyperparameters. Its tests live here, after
# the runs above, so that its trials load the training program those runs compiled (the same
# program whatever the learning rate and entropy weight) on the same pytest worker.

# the tiny run above: 8 tables, 2 decisions each, 64 env steps
TINY = ["--env", "cuegym/PotShot-v0", "--table", "pool-9ft", "--noise", "1", "--action", "menu",
        "--num-envs", "8", "--num-steps", "2", "--minibatches", "2", "--epochs", "1",
        "--max-steps", "64", "--minutes", "5", "--eval-episodes", "32"]


def sweep_script():
    spec = importlib.util.spec_from_file_location("cuegym_experiment_sweep", EXPERIMENTS / "sweep.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def processes_naming(text: str) -> list[int]:
    """The ids of the processes whose command line holds ``text``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


@pytest.mark.slow
def test_two_trials_write_their_outputs_and_the_table(tmp_path, monkeypatch):
    import ray.tune  # noqa: F401  (the sweep extra, installed by scripts/test.sh: a failure here, not a skip)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)  # a local Ray of its own, never a running cluster
    ray_dir = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths stay under 107 bytes
    out = tmp_path / "sweep"
    try:
        # --grace at --max-steps: ASHA stops no trial, so both write their outputs; one trial
        # at a time, so the second loads the training program the first compiled (the same
        # program whatever the learning rate and entropy weight)
        rows = sweep_script().main([*TINY, "--trials", "2", "--grace", "64", "--cpus-per-trial", "1",
                              "--max-concurrent", "1", "--seed", "0", "--out", str(out), "--ray-dir", ray_dir])
        deadline = time.monotonic() + 20
        while processes_naming(ray_dir) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert processes_naming(ray_dir) == []
    finally:
        shutil.rmtree(ray_dir, ignore_errors=True)

    with open(out / "results.csv") as f:
        table = list(csv.DictReader(f))
    trials = json.loads((out / "results.json").read_text())["trials"]
    assert len(table) == len(trials) == len(rows) == 2
    for row in trials:
        assert row["error"] is None and row["stopped_early"] is False
        assert 3e-4 <= row["lr"] <= 3e-3 and row["entropy"] in (0.003, 0.01, 0.03)
        assert row["num_envs"] == 8 and row["num_steps"] == 2 and row["steps"] >= 64
        for key in ("success", "policy_success", "ghost_success"):
            assert 0.0 <= row[key] <= 1.0
        folder = out / row["trial"]
        assert json.loads((folder / "result.json").read_text())["policy_success"] == row["policy_success"]
        assert (folder / "checkpoint.msgpack").stat().st_size > 0
    draws = {(r["lr"], r["entropy"], r["num_envs"], r["num_steps"]) for r in trials}
    assert len(draws) == 2
    assert {r["trial"] for r in table} == {r["trial"] for r in trials}


@pytest.mark.parametrize("flags, named", [
    (["--trials", "0"], "--trials"),
    (["--lr", "1e-3,1e-4"], "--lr"),
    (["--lr", "0,1e-3"], "--lr"),
    (["--lr", "fast"], "--lr"),
    (["--gpus-per-trial", "-0.5"], "--gpus-per-trial"),
    (["--gpus-per-trial", "1.5"], "--gpus-per-trial"),
    (["--num-envs", "6", "--num-steps", "1", "--minibatches", "4"], "--minibatches"),
    (["--max-concurrent", "0"], "--max-concurrent"),
    (["--action", "joystick"], "--action"),
])
def test_bad_flags_are_refused_before_ray_starts(flags, named, capsys, monkeypatch):
    mod = sweep_script()
    monkeypatch.setattr(mod, "import_ray", lambda: pytest.fail("Ray was imported"))
    with pytest.raises(SystemExit):
        mod.main(flags)
    assert named in capsys.readouterr().err


def test_the_trials_jax_settings_follow_their_gpu_share(monkeypatch):
    mod = sweep_script()
    for name in mod.PASSED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CUEGYM_CACHE_DIR", "/some/cache")
    env = lambda g: mod.worker_env(mod.parse(["--gpus-per-trial", str(g)]))  # noqa: E731
    assert env(0) == {"CUEGYM_CACHE_DIR": "/some/cache", "JAX_PLATFORMS": "cpu"}
    assert env(0.25) == {"CUEGYM_CACHE_DIR": "/some/cache", "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
                         "XLA_PYTHON_CLIENT_MEM_FRACTION": "0.225"}
    assert env(2) == {"CUEGYM_CACHE_DIR": "/some/cache"}
    monkeypatch.setenv("XLA_CLIENT_MEM_FRACTION", ".2")  # the user's, under JAX's newer name: JAX refuses both
    assert env(0.25)["XLA_CLIENT_MEM_FRACTION"] == ".2" and "XLA_PYTHON_CLIENT_MEM_FRACTION" not in env(0.25)


def test_without_ray_the_message_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(SystemExit, match=r"pip install 'cuegym\[sweep\]'"):
        sweep_script().import_ray()


def test_the_action_choices_are_the_envs():
    from cuegym.learn import gymnax_env

    assert sweep_script().ACTIONS == gymnax_env.ACTIONS
