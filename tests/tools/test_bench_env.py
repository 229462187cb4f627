"""Smoke test of the environment benchmark (cuegym.tools.bench_env): its quick path runs two calls
at each size and writes sane JSON and markdown; and the single env's host path (the record the
benchmark made it read) hands out fresh, writable observation arrays."""

import json
import math

import numpy as np

from cuegym.tools import bench_env

ENV_ID = "cuegym/Lag-v0"  # one ball: the cheapest strokes
# the vector env of 1 runs the single env's program, and the vector env and functional step
# of 64 are the programs tests/envs/test_api.py compiles for Lag-v0 (the functional step of
# 64 also tests/agents' lag search): in a test run they load from the persistent cache, and
# only the functional step of 1 is this test's own. 1 and 64 are also the quick path's
# default sizes (bench_env.QUICK_SIZES)
SIZES = (1, 64)


def _finite_positive(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0


def test_quick_bench_json_and_markdown(tmp_path, capsys):
    out = tmp_path / "bench_env.json"
    code = bench_env.main(["--quick", "--ids", ENV_ID, "--sizes", *map(str, SIZES), "--steps", "2", "--budget", "5",
                           "--out", str(out)])
    assert code == 0
    r = json.loads(out.read_text())
    assert r["kind"] == "cuegym.bench_env" and r["timestamp"]
    for key in ("platform", "cpu_count", "jax", "backend"):
        assert r["machine"][key]
    assert r["settings"]["ids"] == [ENV_ID] and r["settings"]["sizes"] == list(SIZES)
    assert _finite_positive(r["wall_s"]) and _finite_positive(r["peak_rss_mb"])
    runs = {(x["id"], x["mode"], x["envs"]): x for x in r["runs"]}
    assert set(runs) == {(ENV_ID, "single", 1), *((ENV_ID, mode, b) for mode in ("vector", "functional") for b in SIZES)}
    for (_, mode, envs), x in runs.items():
        assert x["calls"] == 2 and x["env_steps"] == 2 * envs, (mode, envs)
        for key in ("wall_s", "steps_per_s", "ms_per_call"):
            assert _finite_positive(x[key]), (mode, envs, key)
        assert math.isfinite(x["compile_s"]) and x["compile_s"] >= 0
    single = runs[(ENV_ID, "single", 1)]
    for key in ("step_ms", "timed_step_ms", "step_jit_ms", "reset_jit_ms"):
        assert _finite_positive(single[key]), key
    # the program is timed inside env.step on the same calls; the share outside compares
    # those calls' program with other (plain) calls' env.step, a difference of two means
    # that two calls leave noisy, but it is a share: finite and under 1
    assert single["step_jit_ms"] <= single["timed_step_ms"]
    assert math.isclose(single["timer_ms"], single["timed_step_ms"] - single["step_ms"])
    for key in ("outside_jit_frac_step", "outside_jit_frac_with_resets"):
        assert math.isfinite(single[key]) and single[key] < 1.0, key
    assert single["resets"] == 2  # a lag episode is one stroke
    assert isinstance(single["meets_target"], bool)
    for envs in SIZES:
        v = runs[(ENV_ID, "vector", envs)]
        assert math.isfinite(v["outside_jit_frac"]) and v["outside_jit_frac"] < 1.0
        assert _finite_positive(v["jit_ms_per_call"])
    md = (tmp_path / "bench_env.md").read_text()
    assert ENV_ID in md and "outside % of env.step" in md
    assert md.strip() in capsys.readouterr().out


def test_single_env_observations_are_fresh_writable_arrays():
    """The single env decodes one host record per call: every observation array is its own
    writable, C-contiguous copy (two steps never share memory), in the space's dtypes."""
    import gymnasium as gym

    env = gym.make(ENV_ID)
    env.action_space.seed(0)
    first, _ = env.reset(seed=0)
    second, _, _, _, info = env.step(env.action_space.sample())
    assert env.observation_space.contains(first) and env.observation_space.contains(second)
    for k, v in second.items():
        sub = env.observation_space[k]
        if isinstance(v, np.ndarray):
            assert v.flags.writeable and v.flags.c_contiguous and v.dtype == sub.dtype, k
            assert not np.shares_memory(v, first[k]), k
        else:
            assert isinstance(v, np.int64), k  # a Discrete entry
    before = {k: np.array(v, copy=True) for k, v in second.items()}
    second["balls"][:] = -1.0  # writing one entry touches no other
    assert all(np.array_equal(second[k], before[k]) for k in second if k != "balls")
    assert isinstance(info["scores"], np.ndarray) and info["scores"].dtype == np.int32 and info["scores"].flags.writeable
    assert isinstance(info["rewards"], np.ndarray) and info["rewards"].dtype == np.float64
    assert isinstance(info["clauses"], list) and isinstance(info["phase"], str)


def test_first_step_report_writes_cold_warm_ratio_and_memory(tmp_path, monkeypatch):
    """The --first-step path: each id measured cold then warm on one new cache folder (both
    given the same folder), the ratio of their first steps, and JSON plus markdown written.
    The fresh-process measurement itself is replaced by a recorder here (a real one compiles
    an env from nothing: the benchmark's run, not the suite's)."""
    from cuegym.tools import bench_first

    calls = []

    def fake_first_step(env_id, cache_dir, timeout_s=900.0):
        calls.append((env_id, cache_dir))
        cold = len([c for c in calls if c[0] == env_id]) == 1
        return {"import_s": 1.0, "reset_s": 6.0 if cold else 1.0, "step_s": 4.0 if cold else 1.0,
                "first_step_s": 10.0 if cold else 2.0, "rss_bytes": 300 * 2**20, "cache": "on"}

    monkeypatch.setattr(bench_first, "first_step", fake_first_step)
    out = tmp_path / "first_step.json"
    assert bench_env.main(["--first-step", "--ids", ENV_ID, "--out", str(out)]) == 0
    assert [c[0] for c in calls] == [ENV_ID, ENV_ID] and calls[0][1] == calls[1][1]
    r = json.loads(out.read_text())
    assert r["benchmark"] == "first_step" and r["machine"]["cpu_count"]
    row = r["ids"][ENV_ID]
    assert row["cold"]["first_step_s"] == 10.0 and row["warm"]["first_step_s"] == 2.0
    assert row["warm_over_cold"] == 0.2
    md = (tmp_path / "first_step.md").read_text()
    assert "| Lag-v0 | 10.0 | 2.0 | 0.20 | 300 |" in md
