"""stable-baselines3 on the shot menu: ``MenuMasks`` (``make_sb3_env(id, mode="menu")``)
against the menu env's own legality, and a tiny ``experiments/train.py --action menu`` run
through both adapters (MaskablePPO, sb3-contrib) and with plain PPO.

PotShot-v0 on pool-9ft at noise 1, batches of 1: the programs tests/agents/test_menu_actions.py
compiles (persistent-cache hits)."""

import dataclasses
import importlib.util
import json
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3")  # installed by scripts/test.sh: CI runs these
sb3_contrib = pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

import cuegym  # noqa: E402, F401  (registers the ids)
from cuegym.agents import menu as M  # noqa: E402
from cuegym.envs import wrappers as W  # noqa: E402

K = M.size()
POT = "cuegym/PotShot-v0"
OPTIONS = {"table": "pool-9ft", "noise": 1.0}
_spec = importlib.util.spec_from_file_location(
    "cuegym_experiment_train_menu", Path(__file__).resolve().parents[2] / "experiments" / "train.py")
T = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = T  # dataclasses look their module up while the class is built
_spec.loader.exec_module(T)
TINY = T.Config(env=POT, algo="maskable_ppo", action="menu", steps=128, seed=0, num_envs=1, eval_every=64,
                eval_episodes=16, n_steps=64, batch_size=64, net=(16, 16), **OPTIONS)


def test_masks_follow_the_env_and_a_masked_index_is_never_played():
    """``action_masks()`` is the menu env's own legal mask; every index is accepted, a legal one
    plays itself, a masked one the ghost's candidate (the last), which the env's legality
    then accepts; the flat observation lies in its space."""
    env = W.make_sb3_env(POT, mode="menu", **OPTIONS)
    assert env.action_space == gym.spaces.Discrete(K)
    played = {False: 0, True: 0}
    for seed in range(6):
        obs, _ = env.reset(seed=seed)
        assert env.observation_space.contains(obs)
        legal = env.get_wrapper_attr("action_masks")()
        assert legal.dtype == bool and legal.shape == (K,) and legal[K - 1]
        np.testing.assert_array_equal(obs[env.slices["menu_legal"]] > 0.5, legal)
        pick = seed % 2 == 1 or legal.sum() == 1  # alternate a masked and a legal non-ghost index
        k = int(np.flatnonzero(~legal)[seed]) if pick else int(np.flatnonzero(legal)[0])
        obs, reward, terminated, _, info = env.step(np.int64(k))
        assert info["fallback"] == (not legal[k])
        assert info["candidate"] == (k if legal[k] else K - 1)
        assert legal[info["candidate"]] and terminated and reward in (0.0, 1.0)
        assert env.observation_space.contains(obs)
        played[info["fallback"]] += 1
    assert played[True] >= 3 and played[False] >= 3


def test_bad_indices_and_modes_name_the_field():
    env = W.make_sb3_env(POT, mode="menu", **OPTIONS)
    with pytest.raises(RuntimeError, match="reset"):
        env.get_wrapper_attr("action_masks")()
    env.reset(seed=0)
    for bad, text in ((K, r"action: a menu index in \[0, 65\)"), (-1, "action"), (1.5, "action: a menu index"),
                      (np.asarray([0, 1]), "action: a menu index")):
        with pytest.raises(ValueError, match=text):
            env.step(bad)
    with pytest.raises(ValueError, match="shot_high"):
        W.make_sb3_env(POT, mode="menu", shot_high=T.DEFAULT_SHOT_HIGH)
    with pytest.raises(ValueError, match="env: MenuMasks"):
        W.MenuMasks(gym.make(POT, **OPTIONS))
    assert W.menu_index(3, np.eye(K, dtype=bool)[3]) == (3, False)
    assert W.menu_index(np.float32(4.0), np.eye(K, dtype=bool)[3]) == (K - 1, True)


def test_configuration_errors_name_the_field():
    with pytest.raises(ValueError, match="algo: 'sac'"):
        dataclasses.replace(TINY, algo="sac").check()
    with pytest.raises(ValueError, match="algo: 'maskable_ppo'"):
        dataclasses.replace(TINY, action="dict").check()
    with pytest.raises(ValueError, match="wrapper"):
        dataclasses.replace(TINY, wrapper="residual").check()
    with pytest.raises(ValueError, match="action: one of"):
        dataclasses.replace(TINY, action="joystick").check()
    args = T.build_parser().parse_args(["--action", "menu", "--algo", "maskable_ppo"])
    assert T.config_from_args(args).menu


def _weights(cls, folder):
    return [p.detach().clone() for p in cls.load(folder / "model.zip", device="cpu").policy.parameters()]


def test_tiny_menu_training_writes_outputs_and_both_adapters_agree(tmp_path):
    """MaskablePPO on the menu through the native adapter (masks from the vector env's
    observation) and DummyVecEnv over ``MenuMasks`` (its ``action_masks``): the same outputs,
    the same weights; no masked index is ever played; the model loads and acts legally."""
    runs = {}
    for vec in ("native", "dummy"):
        runs[vec] = T.train(dataclasses.replace(TINY, vec=vec, out=str(tmp_path / vec)))
    rec = json.loads((tmp_path / "native" / "evaluations.json").read_text())
    assert rec == json.loads(json.dumps(runs["native"]))
    assert rec["config"]["action"] == "menu" and rec["config"]["algo"] == "maskable_ppo"
    assert [e["steps"] for e in rec["evaluations"]] == [0, 64, 128]
    assert rec["baseline"]["policy"] == "uniform legal candidate"
    for e in rec["evaluations"] + [rec["baseline"]]:
        assert e["episodes"] == 16 and e["fallback_rate"] == 0.0  # masked: never the fallback
        assert e["mean_reward"] == pytest.approx(e["success_rate"])
    assert (tmp_path / "native" / "model.zip").exists()

    def numbers(r):
        return [(e["steps"], e["success_rate"], e["mean_reward"]) for e in r["evaluations"]]

    assert numbers(runs["native"]) == numbers(runs["dummy"])
    cls = sb3_contrib.MaskablePPO
    assert all(torch.equal(a, b) for a, b in zip(_weights(cls, tmp_path / "native"), _weights(cls, tmp_path / "dummy")))
    model = cls.load(tmp_path / "native" / "model.zip", device="cpu")
    env = W.make_sb3_env(POT, mode="menu", **OPTIONS)
    obs, _ = env.reset(seed=7)
    legal = env.get_wrapper_attr("action_masks")()
    action, _ = model.predict(obs, deterministic=True, action_masks=legal)
    assert legal[int(action)]
    assert not env.step(action)[4]["fallback"]


def test_plain_ppo_trains_on_the_menu_through_the_fallback(tmp_path):
    rec = T.train(dataclasses.replace(TINY, algo="ppo", steps=64, eval_every=64, out=str(tmp_path)))
    assert rec["train"]["steps"] == 64 and (tmp_path / "model.zip").exists()
    assert all(0.0 <= e["fallback_rate"] <= 1.0 for e in rec["evaluations"])
    assert sb3.PPO.load(tmp_path / "model.zip", device="cpu").action_space == gym.spaces.Discrete(K)


def _main_job():
    """experiments/main_job.py as a module (experiments/ is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "cuegym_experiment_main_job", Path(__file__).resolve().parents[2] / "experiments" / "main_job.py")
    job = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(job)
    return job


def test_main_job_takes_menu_steps_and_names_the_menu_curve():
    job = _main_job()
    with pytest.raises(SystemExit):
        job.main(["--menu-steps", "0"])
    row = {"policy": "SB3 PPO on the shot menu (MaskablePPO), 8192 steps", "shots": 300, "pots": 259, "rate": 0.863,
           "ci95": [0.82, 0.898], "median_decision_s": None}
    md = job.markdown({"table": "pool-9ft", "noise": 1.0, "eval_seed": job.EVAL_SEED, "wall_s": 1.0, "rows": [row],
                       "learning_curve": "results/main/train/learning_curve.png"})
    assert "| SB3 PPO on the shot menu (MaskablePPO), 8192 steps | 300 | 0.863 | 0.820–0.898 |" in md
    assert "results/main/train_menu/learning_curve.png" in md


def test_main_job_frame_section_flags_and_table(capsys):
    """The frame section's flags refuse negative values naming the flag, and its table
    shows the self-play run's speed and each pair's win rate with its interval."""
    job = _main_job()
    for flag in ("--frame-minutes", "--ghost-frames", "--search-frames"):
        with pytest.raises(SystemExit):
            job.main([flag, "-1"])
        assert flag in capsys.readouterr().err
    frame = {"game": job.FRAME_GAME, "selfplay": {"steps": 1792, "steps_per_s": 271.6, "compile_s": 96.5},
             "rows": [{"pair": ["pretrained", "ghost"], "frames": 4, "win_rate": 0.75, "ci95": [0.301, 0.954],
                       "median_frame_s_per_decision": [0.005, 0.004]}]}
    md = job.markdown({"table": "pool-9ft", "noise": 1.0, "eval_seed": job.EVAL_SEED, "wall_s": 1.0, "rows": [],
                       "learning_curve": "results/main/train/learning_curve.png", "frames": frame})
    assert "RussianPyramid-v0: self-play over the pool, 1792 steps at 271.6 steps/s" in md
    assert "| pretrained v ghost | 4 | 0.750 | 0.301–0.954 | 0.005 / 0.004 |" in md
