"""Smoke test of the physics benchmark (cuegym.tools.bench): it runs and its JSON is sane."""

import json

import pytest

from cuegym.tools import bench, bench_shots


def _run(capsys, *extra):
    code = bench.main(["--table", "pyramid-12ft", "--rack", "full", "--batch", "4", "--shots", "8",
                       "--max-events", "60", "--json", *extra])
    assert code == 0
    return json.loads(capsys.readouterr().out)


def test_bench_json(capsys):
    """Refilling lanes (simulate_many, the default): 4 lanes take the 8 shots."""
    r = _run(capsys, "--single", "0")
    for key in ("platform", "cpu_count", "jax", "backend"):
        assert r["machine"][key]
    assert r["timestamp"]
    c, b = r["config"], r["batched"]
    assert c["batch"] == 4 and c["shots_run"] == 8 and c["n_balls"] == 16
    assert b["mode"] == "lanes" and b["shots_per_s"] > 0 and b["compile_s"] > 0
    ev = b["events"]
    assert 1 <= ev["min"] <= ev["median"] <= ev["p99"] <= ev["max"] <= 61
    assert ev["min"] <= ev["mean"] <= ev["max"]
    assert 0.0 <= b["truncated_frac"] <= 1.0
    # every lane-iteration handles one event of one shot (a restart is the strike event),
    # so the loop runs at least sum(events) / lanes iterations and at least the longest shot
    events = ev["mean"] * ev["n"]
    assert b["iterations"] >= max(events / 4, ev["max"]) and b["lane_iterations"] == 4 * b["iterations"]
    assert 0.0 < b["lane_efficiency"] <= 1.0
    assert r["single"] is None and r["peak_rss_mb"] > 0


@pytest.mark.slow
def test_bench_single(capsys):
    """Fixed batches (simulate_batch) and the one-at-a-time comparison."""
    r = _run(capsys, "--single", "2", "--mode", "batches")
    b = r["batched"]
    assert b["mode"] == "batches" and b["n_batches"] == 2
    assert 0.0 < b["lane_efficiency"] <= 1.0 and 0.0 < b["lane_efficiency_batch_mean"] <= 1.0
    s = r["single"]
    assert s["shots"] == 2 and s["shots_per_s"] > 0 and s["events"]["min"] >= 1
    assert s["counts_match_batched"] == 1.0  # the same shots take the same events batched or alone
    assert r["batching_gain"] > 0


@pytest.mark.slow
def test_layouts_and_breaks():
    from cuegym.physics import get_spec

    for name, n in (("pyramid-12ft", 16), ("snooker-12ft", 22)):
        spec = get_spec(name)
        balls = bench_shots.make_layouts(spec, "full", 3, seed=1)
        assert balls.r.shape == (3, n, 3)
        assert (balls.r[:, 0, 1] < spec.head_line).all()  # cue ball in the house / D
        rnd = bench_shots.make_layouts(spec, "random", 2, seed=1)
        assert rnd.r.shape == (2, n, 3)
        xy, shot = bench_shots.break_layout(spec)
        assert xy.shape == (n, 2) and float(shot.speed) == bench_shots.BREAK_SPEED
    # prefix-stable: the first shots do not depend on how many are drawn
    assert float(bench_shots.random_shots(3).phi[1]) == float(bench_shots.random_shots(10).phi[1])
