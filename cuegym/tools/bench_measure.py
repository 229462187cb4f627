"""Timed runs of the physics benchmark: a batch of seeded shots through refilling lanes
(:func:`cuegym.physics.simulate_many`), consecutive fixed batches
(:func:`cuegym.physics.simulate_batch`) or one at a time (:func:`cuegym.physics.simulate`),
the break shot, and compile-only runs with the persistent compilation cache.

Each timing follows a warm-up call of the same shapes with zero-speed shots (nothing moves,
the event loop exits at once), so the warm-up's time is compile time and the timed shots are
not run twice (docs/guide.md, "Performance").
"""

from __future__ import annotations

import math
import os
import time

import numpy as np

from cuegym.tools.bench_report import (
    cache_dir_in_use,
    distribution,
    lane_stats,
    machine_info,
    peak_rss_mb,
    refill_stats,
    timestamp,
)
from cuegym.tools.bench_shots import BREAK_SPEED, break_layout, make_layouts, random_shots


def _slice(tree, i, j):
    import jax

    return jax.tree_util.tree_map(lambda x: x[i:j], tree)


def run_batched(table, balls, shots, batch: int, max_events: int, log_capacity: int) -> dict:
    """Time ``simulate_batch`` over consecutive batches; returns timings and counts."""
    import jax
    import jax.numpy as jnp

    from cuegym.physics import simulate_batch

    n = int(shots.phi.shape[0])
    kw = dict(max_events=max_events, log_capacity=log_capacity)
    parts = [(_slice(balls, i, i + batch), _slice(shots, i, i + batch)) for i in range(0, n, batch)]
    jax.block_until_ready(parts)
    # warm-up / compile: same shapes, zero-speed shots, so the event loop exits at once
    still = parts[0][1]._replace(speed=jnp.zeros_like(parts[0][1].speed))
    t0 = time.perf_counter()
    jax.block_until_ready(simulate_batch(table, parts[0][0], still, **kw))
    compile_s = time.perf_counter() - t0
    times, counts, trunc = [], [], []
    for b, s in parts:
        t0 = time.perf_counter()
        _, log, _ = simulate_batch(table, b, s, **kw)
        c = np.asarray(log.count)  # blocks
        times.append(time.perf_counter() - t0)
        counts.append(c)
        trunc.append(np.asarray(log.truncated))
    return {
        "compile_s": compile_s,
        "times": np.array(times),
        "counts": np.concatenate(counts),
        "truncated": np.concatenate(trunc),
    }


def run_lanes(table, balls, shots, lanes: int, max_events: int, log_capacity: int, tail_lanes: int = 16) -> dict:
    """Time :func:`cuegym.physics.simulate_many` (``lanes`` tables that each take the next
    shot when theirs ends, the tail moved down to ``tail_lanes``) over all the shots in one
    call; returns timings, counts and the (lane count, iterations) of each stage."""
    import jax
    import jax.numpy as jnp

    from cuegym.physics.refill import simulate_lanes

    kw = dict(max_events=max_events, log_capacity=log_capacity, throw=True)
    still = shots._replace(speed=jnp.zeros_like(shots.speed))
    t0 = time.perf_counter()
    # nothing moves: every stage's program (and the compaction's) compiles and runs no event
    jax.block_until_ready(simulate_lanes(table, balls, still, lanes, tail_lanes=tail_lanes, **kw))
    compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    (_, log, _), stages = simulate_lanes(table, balls, shots, lanes, tail_lanes=tail_lanes, **kw)
    counts = np.asarray(log.count)  # blocks
    total = time.perf_counter() - t0
    return {"compile_s": compile_s, "times": np.array([total]), "counts": counts,
            "truncated": np.asarray(log.truncated), "stages": stages}


def run_single(table, balls, shots, n: int, max_events: int, log_capacity: int) -> dict:
    """Time the first ``n`` shots one at a time through the unbatched ``simulate``."""
    import jax
    import jax.numpy as jnp

    from cuegym.physics import simulate

    kw = dict(max_events=max_events, log_capacity=log_capacity)
    items = [
        (jax.tree_util.tree_map(lambda x, k=k: x[k], balls), jax.tree_util.tree_map(lambda x, k=k: x[k], shots))
        for k in range(n)
    ]
    jax.block_until_ready(items)
    b0, s0 = items[0]
    t0 = time.perf_counter()
    jax.block_until_ready(simulate(table, b0, s0._replace(speed=jnp.zeros_like(s0.speed)), **kw))
    compile_s = time.perf_counter() - t0
    times, counts, trunc = [], [], []
    for b, s in items:
        t0 = time.perf_counter()
        _, log, _ = simulate(table, b, s, **kw)
        c = int(log.count)
        times.append(time.perf_counter() - t0)
        counts.append(c)
        trunc.append(bool(log.truncated))
    return {"compile_s": compile_s, "times": np.array(times), "counts": np.array(counts), "truncated": np.array(trunc)}


def bench(table_name: str, rack: str = "full", batch: int = 64, shots: int = 256, seed: int = 0,
          max_events: int | None = None, log_capacity: int = 8, single: int = 64, mode: str = "lanes",
          tail_lanes: int = 16) -> dict:
    """Run the benchmark and return its JSON-able result (see the module docstring)."""
    from cuegym.physics import get_spec, get_table
    from cuegym.physics.simulate import DEFAULT_MAX_EVENTS

    if batch < 1 or shots < 1:
        raise ValueError("--batch and --shots must be positive")
    max_events = DEFAULT_MAX_EVENTS if max_events is None else max_events
    spec, table = get_spec(table_name), get_table(table_name)
    n_run = batch * math.ceil(shots / batch)  # whole batches only
    t0 = time.perf_counter()
    balls = make_layouts(spec, rack, n_run, seed)
    shot_set = random_shots(n_run, seed)
    setup_s = time.perf_counter() - t0

    if mode not in ("lanes", "batches"):
        raise ValueError(f"mode: lanes or batches, got {mode!r}")
    if mode == "lanes":
        res = run_lanes(table, balls, shot_set, batch, max_events, log_capacity, tail_lanes)
    else:
        res = run_batched(table, balls, shot_set, batch, max_events, log_capacity)
    total = float(res["times"].sum())
    counts, trunc = res["counts"], res["truncated"]
    batched = {
        "mode": mode,
        "shots_per_s": n_run / total,
        "total_s": total,
        "compile_s": res["compile_s"],
        "n_batches": int(res["times"].size),
        "batch_s": distribution(res["times"]),
        "events": distribution(counts),
        "events_untruncated": distribution(counts[~trunc]),
        "truncated_frac": float(trunc.mean()),
        "useful_events_per_s": float(counts.sum() / total),
        **(lane_stats(counts, batch, trunc) if mode == "batches" else refill_stats(counts, res["stages"])),
    }
    batched["us_per_lane_iteration"] = 1e6 * total / batched["lane_iterations"]

    single_out = None
    n_single = min(single, n_run)
    if n_single > 0:
        sres = run_single(table, balls, shot_set, n_single, max_events, log_capacity)
        stot = float(sres["times"].sum())
        sc = sres["counts"]
        single_out = {
            "shots": n_single,
            "shots_per_s": n_single / stot,
            "total_s": stot,
            "compile_s": sres["compile_s"],
            "events": distribution(sc),
            "truncated_frac": float(sres["truncated"].mean()),
            "us_per_event": 1e6 * stot / float(sc.sum()),
            "shot_ms": distribution(1e3 * sres["times"]),
            # the same shots, batched and alone, should take the same number of events
            "counts_match_batched": float(np.mean(sc == counts[:n_single])),
        }
    return {
        "kind": "cuegym.bench",
        "timestamp": timestamp(),
        "machine": machine_info(),
        "config": {
            "table": table_name,
            "rack": rack,
            "batch": batch,
            "shots": shots,
            "shots_run": n_run,
            "n_balls": int(balls.r.shape[1]),
            "seed": seed,
            "max_events": max_events,
            "log_capacity": log_capacity,
            "tail_lanes": tail_lanes if mode == "lanes" else None,
            "setup_s": setup_s,
            "compilation_cache": cache_dir_in_use(),
        },
        "batched": batched,
        "single": single_out,
        "batching_gain": (batched["shots_per_s"] / single_out["shots_per_s"]) if single_out else None,
        "peak_rss_mb": peak_rss_mb(),
    }


def break_bench(table_name: str, max_events: int | None = None, log_capacity: int = 8, repeats: int = 5,
                speed: float = BREAK_SPEED) -> dict:
    """The table's break shot one at a time: events, truncation and wall time."""
    import jax

    from cuegym.physics import at_rest, get_spec, get_table, simulate
    from cuegym.physics.simulate import DEFAULT_MAX_EVENTS

    max_events = DEFAULT_MAX_EVENTS if max_events is None else max_events
    spec, table = get_spec(table_name), get_table(table_name)
    xy, shot = break_layout(spec, speed)
    balls = at_rest(xy)
    kw = dict(max_events=max_events, log_capacity=log_capacity)
    t0 = time.perf_counter()
    out = jax.block_until_ready(simulate(table, balls, shot, **kw))
    first_s = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = jax.block_until_ready(simulate(table, balls, shot, **kw))
        times.append(time.perf_counter() - t0)
    final, log, summ = out
    events = int(log.count)
    t = float(np.median(times))
    return {
        "table": table_name,
        "cue_xy": [float(v) for v in xy[0]],
        "phi": float(shot.phi),
        "speed": speed,
        "n_balls": int(xy.shape[0]),
        "max_events": max_events,
        "events": events,
        "truncated": bool(log.truncated),
        "pocketed": int(np.sum(np.asarray(summ.pocket_order) >= 0)),
        "end_t": float(summ.end_t),
        "time_ms": 1e3 * t,
        "time_ms_min": 1e3 * float(np.min(times)),
        "us_per_event": 1e6 * t / max(events, 1),
        "first_call_s": first_s,
    }


def enable_cache(cache_dir: str) -> dict:
    """Turn on JAX's persistent compilation cache in ``cache_dir``.

    Uses ``cuegym._cache.enable_compilation_cache`` when it exists, else sets the JAX
    options directly (cache every compilation, however short). Returns what was used.
    """
    import jax

    os.environ["CUEGYM_CACHE_DIR"] = cache_dir
    how = "jax.config"
    try:
        from cuegym import _cache  # type: ignore[attr-defined]

        fn = _cache.enable_compilation_cache
    except (ImportError, AttributeError):
        fn = None
    if fn is not None:
        try:
            fn(cache_dir)
        except TypeError:
            fn()
        how = "cuegym._cache.enable_compilation_cache"
    if jax.config.jax_compilation_cache_dir != cache_dir:
        jax.config.update("jax_compilation_cache_dir", cache_dir)
    if how == "jax.config":
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    return {
        "how": how,
        "dir": jax.config.jax_compilation_cache_dir,
        "min_compile_time_secs": jax.config.jax_persistent_cache_min_compile_time_secs,
    }


def compile_only(table_name: str, rack: str, batch: int, max_events: int | None, log_capacity: int,
                 cache_dir: str | None, t_start: float) -> dict:
    """First call of ``simulate_batch`` in this (fresh) process, for compile-time probes."""
    import jax
    import jax.numpy as jnp

    cache = enable_cache(cache_dir) if cache_dir else None
    from cuegym.physics import get_spec, get_table, simulate_batch
    from cuegym.physics.simulate import DEFAULT_MAX_EVENTS

    import_s = time.perf_counter() - t_start
    max_events = DEFAULT_MAX_EVENTS if max_events is None else max_events
    spec, table = get_spec(table_name), get_table(table_name)
    balls = make_layouts(spec, rack, batch, 0)
    shots = random_shots(batch, 0)
    shots = shots._replace(speed=jnp.zeros_like(shots.speed))
    jax.block_until_ready((balls, shots))
    t0 = time.perf_counter()
    jax.block_until_ready(simulate_batch(table, balls, shots, max_events=max_events, log_capacity=log_capacity))
    first = time.perf_counter() - t0
    return {
        "kind": "cuegym.bench.compile",
        "timestamp": timestamp(),
        "table": table_name,
        "batch": batch,
        "cache": cache,
        "import_s": import_s,
        "first_call_s": first,
        "process_s": time.perf_counter() - t_start,
        "peak_rss_mb": peak_rss_mb(),
    }
