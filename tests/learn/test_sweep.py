"""experiments/sweep.py: two short trials on a local Ray write their outputs and the results
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

import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
# tests/learn/test_train_jax.py's tiny run: 8 tables, 2 decisions each, 64 env steps
TINY = ["--env", "cuegym/PotShot-v0", "--table", "pool-9ft", "--noise", "1", "--action", "menu",
        "--num-envs", "8", "--num-steps", "2", "--minibatches", "2", "--epochs", "1",
        "--max-steps", "64", "--minutes", "5", "--eval-episodes", "32"]


def script():
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
        rows = script().main([*TINY, "--trials", "2", "--grace", "64", "--cpus-per-trial", "1",
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
    mod = script()
    monkeypatch.setattr(mod, "import_ray", lambda: pytest.fail("Ray was imported"))
    with pytest.raises(SystemExit):
        mod.main(flags)
    assert named in capsys.readouterr().err


def test_the_trials_jax_settings_follow_their_gpu_share(monkeypatch):
    mod = script()
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
        script().import_ray()


def test_the_action_choices_are_the_envs():
    from cuegym.learn import gymnax_env

    assert script().ACTIONS == gymnax_env.ACTIONS
