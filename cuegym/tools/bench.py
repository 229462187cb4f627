"""Physics throughput benchmark: shots per second of the JAX simulator against batch size.

``cuegym bench --table T --rack full|random --batch B --shots N [--mode lanes|batches]
[--json]`` (or ``python -m cuegym.tools.bench ...``) builds N seeded random shots and runs them on
B tables at once: by default through :func:`cuegym.physics.simulate_many` (``lanes``: each of
the B lanes takes the next shot as soon as its own ends), or through
:func:`cuegym.physics.simulate_batch` in consecutive batches of B (``batches``: each batch
waits for its slowest shot). It reports (DESIGN.md §8):

* shots/s, timed after a warm-up call: the warm-up uses the same shapes with zero-speed
  shots (nothing moves, the event loop exits at once), so its time is compile time and the
  timed batches are not run twice;
* events per shot (mean, median, p99, max; also over the shots that were not truncated),
  the fraction truncated at ``--max-events``;
* lane efficiency: useful events over lane-iterations spent. With refilling lanes that is
  ``sum(events) / (B * iterations)`` (lanes idle only in the tail, when no shot is left to
  take); with fixed batches a vmapped ``while_loop`` runs until its slowest lane ends, so a
  batch costs ``B * max(events)`` lane-iterations, reported per batch and in aggregate, with
  and without the truncated shots;
* the same first ``--single`` shots one at a time through the unbatched
  :func:`cuegym.physics.simulate` in the same process, so the batching gain is a ratio
  measured side by side.

Layouts: ``full`` is the cue ball (index 0) at a random spot of the house (y below the
head line; inside the D on tables that have one) plus the table's full rack (pyramid rack,
or the snooker rack on tables with a D); ``random`` is 16 balls (22 on snooker tables) at
random non-overlapping spots. Shots: phi uniform in [0, 2 pi), speed uniform in
[0.5, 6] m/s, a and b uniform in [-0.4, 0.4], theta 0, always on ball 0.

``experiments/bench_physics.py`` runs the full matrix of tables and batch sizes.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import resource
import sys
import time

import numpy as np

SPEED_RANGE = (0.5, 6.0)
TIP_RANGE = 0.4
BREAK_SPEED = 7.0


# ----------------------------------------------------------------------------- machine


def machine_info() -> dict:
    """Where the benchmark ran: platform, CPUs, JAX version and backend."""
    import jax

    try:
        import jaxlib

        jaxlib_version = jaxlib.__version__
    except Exception:  # pragma: no cover
        jaxlib_version = None
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        affinity = None
    devices = jax.devices()
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "cpu_count": os.cpu_count(),
        "cpu_affinity": affinity,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "jax": jax.__version__,
        "jaxlib": jaxlib_version,
        "backend": jax.default_backend(),
        "devices": [str(d) for d in devices],
        "x64": bool(jax.config.jax_enable_x64),
        # other work on the machine skews timings: load averages (1, 5, 15 min) when recorded
        "loadavg": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def peak_rss_mb(children: bool = False) -> float:
    """Peak resident set size of this process (or of its finished children) [MiB]."""
    who = resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF
    kb = resource.getrusage(who).ru_maxrss  # KiB on Linux, bytes on macOS
    return kb / (1024.0 * 1024.0) if sys.platform == "darwin" else kb / 1024.0


def cache_dir_in_use():
    """JAX's persistent compilation cache folder when it is on (compile times then may be
    cache loads), else None."""
    import jax

    return jax.config.jax_compilation_cache_dir or None


def timestamp() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


# ----------------------------------------------------------------------------- layouts


def has_d(spec) -> bool:
    """Snooker-type table (it has a D): snooker rack, 22 balls."""
    return spec.d_radius > 0


def full_rack(spec) -> np.ndarray:
    """The object balls of the table's full rack, (K, 2) metres, in rack order."""
    from cuegym.physics.racks import pyramid_rack, snooker_rack

    if has_d(spec):
        rack = snooker_rack(spec)
        return np.array([rack[k] for k in rack], float)
    rack = pyramid_rack(spec)
    return np.array([rack[str(n)] for n in range(1, 16)], float)


def _bed_limits(spec, margin=0.005):
    from cuegym.physics.tables import compile_table

    off = float(compile_table(spec).contact_offset) + margin
    return off, spec.width - off, off, spec.length - off


def cue_in_house(rng: np.random.Generator, spec, others: np.ndarray, max_tries: int = 1000) -> np.ndarray:
    """A random cue-ball spot in the house (y < head line), or inside the D where there is
    one, not touching any ball of ``others`` ((K, 2))."""
    x0, x1, y0, _ = _bed_limits(spec)
    R = spec.ball_radius
    for _ in range(max_tries):
        if has_d(spec):
            rho = spec.d_radius * math.sqrt(rng.uniform())
            ang = rng.uniform(math.pi, 2 * math.pi)  # the half of the circle towards the head
            p = np.array([spec.width / 2 + rho * math.cos(ang), spec.head_line + rho * math.sin(ang)])
        else:
            p = np.array([rng.uniform(x0, x1), rng.uniform(y0, spec.head_line)])
        if not (x0 <= p[0] <= x1 and y0 <= p[1] <= spec.head_line):
            continue
        if others.size == 0 or np.min(np.hypot(*(others - p).T)) >= 2 * R + 1e-4:
            return p
    raise RuntimeError(f"no free cue-ball spot in the house of {spec.name}")


def make_layouts(spec, rack: str, n: int, seed: int = 0):
    """``n`` starting layouts as a batched BallState (arrays (n, N, ...)); cue ball index 0."""
    import jax
    import jax.numpy as jnp

    from cuegym.physics import at_rest
    from cuegym.physics.racks import random_positions

    if rack == "full":
        objects = full_rack(spec)
        rng = np.random.default_rng([seed, 1])
        xy = np.stack([np.concatenate([cue_in_house(rng, spec, objects)[None], objects]) for _ in range(n)])
        return jax.vmap(at_rest)(jnp.asarray(xy))
    if rack == "random":
        n_balls = 22 if has_d(spec) else 16
        base = jax.random.PRNGKey(seed)
        keys = jax.vmap(lambda i: jax.random.fold_in(base, i))(jnp.arange(n))  # prefix-stable
        pts, ok = jax.vmap(lambda k: random_positions(k, spec, n_balls))(keys)
        return jax.vmap(at_rest)(pts, ok)
    raise ValueError(f"unknown rack {rack!r}: full or random")


def random_shots(n: int, seed: int = 0):
    """``n`` random shots on ball 0 as a batched Shot (arrays (n,)); shot k does not
    depend on ``n``, so runs of different sizes share their first shots."""
    import jax.numpy as jnp

    from cuegym.physics import Shot

    # one row per shot, so the first k shots are the same whatever n is
    u = np.random.default_rng([seed, 2]).uniform(size=(n, 4))
    f = lambda x: jnp.asarray(x, jnp.float64)  # noqa: E731
    return Shot(
        cue_ball=jnp.zeros(n, jnp.int32),
        phi=f(2 * math.pi * u[:, 0]),
        speed=f(SPEED_RANGE[0] + (SPEED_RANGE[1] - SPEED_RANGE[0]) * u[:, 1]),
        a=f(TIP_RANGE * (2 * u[:, 2] - 1)),
        b=f(TIP_RANGE * (2 * u[:, 3] - 1)),
        theta=f(np.zeros(n)),
    )


def break_layout(spec, speed: float = BREAK_SPEED):
    """The break of the table's game: (xy (N, 2), Shot) with the cue ball at index 0.

    Pyramid rack: the cue ball in the house, 0.25 m right of the long string and 0.1 m
    short of the house line, struck at the apex ball's centre. Snooker rack: the apex red
    is screened by the pink (they touch on the long string, so no straight path from the D
    reaches it first), so the break-off is played instead: the cue ball in the D, 0.05 m
    short of the baulk line, struck straight up the table to take the corner red of the
    back row thinly (cue-ball path 1.5 R outside that red's centre).
    """
    from cuegym.physics import make_shot

    objects = full_rack(spec)
    R = spec.ball_radius
    if has_d(spec):
        corner = objects[6:][np.lexsort((objects[6:, 1], objects[6:, 0]))[-1]]  # reds follow the 6 colours
        cue = np.array([corner[0] + 1.5 * R, spec.head_line - 0.05])
        phi = math.pi / 2
    else:
        apex = objects[np.argmin(objects[:, 1])]
        cue = np.array([spec.width / 2 + 0.25, spec.head_line - 0.1])
        phi = math.atan2(apex[1] - cue[1], apex[0] - cue[0])
    return np.concatenate([cue[None], objects]), make_shot(0, phi, speed)


# ----------------------------------------------------------------------------- statistics


def _dist(x) -> dict | None:
    x = np.asarray(x, float)
    if x.size == 0:
        return None
    return {
        "mean": float(np.mean(x)),
        "median": float(np.median(x)),
        "p99": float(np.percentile(x, 99)),
        "max": float(np.max(x)),
        "min": float(np.min(x)),
        "n": int(x.size),
    }


def lane_stats(counts: np.ndarray, batch: int, truncated: np.ndarray | None = None) -> dict:
    """Lane efficiency of a vmapped while_loop from per-shot event counts.

    ``counts`` (shots,) in run order, split into consecutive batches of ``batch``.
    """
    counts = np.asarray(counts, float)
    batches = [counts[i : i + batch] for i in range(0, counts.size, batch)]
    per_batch = [float(c.mean() / c.max()) for c in batches if c.max() > 0]
    out = {
        "lane_efficiency": float(counts.sum() / sum(c.size * c.max() for c in batches)),
        "lane_efficiency_batch_mean": float(np.mean(per_batch)),
        "lane_iterations": int(sum(c.size * c.max() for c in batches)),
        "max_events_per_batch": _dist([c.max() for c in batches]),
    }
    if truncated is not None:
        ok = ~np.asarray(truncated, bool)
        masks = [ok[i : i + batch] for i in range(0, ok.size, batch)]
        useful = sum(c[m].sum() for c, m in zip(batches, masks))
        spent = sum(m.sum() * c[m].max() for c, m in zip(batches, masks) if m.any())
        # what the batches would cost if the truncated shots were not in them
        out["lane_efficiency_untruncated"] = float(useful / spent) if spent else None
    return out


def refill_stats(counts: np.ndarray, stages: list[tuple[int, int]]) -> dict:
    """Lane efficiency of :func:`simulate_many`: useful events over the lane-iterations
    spent, ``sum(lanes * iterations)`` over its stages ((lane count, iterations) pairs: the
    tail runs on fewer lanes). A restart costs one iteration, like the strike it logs."""
    lanes = stages[0][0]
    spent = sum(size * it for size, it in stages)
    iterations = sum(it for _, it in stages)
    return {"lane_efficiency": float(np.sum(counts) / spent), "lane_iterations": int(spent), "iterations": iterations,
            "stages": [{"lanes": size, "iterations": it} for size, it in stages],
            "tail_iterations": int(iterations - math.ceil(np.sum(counts) / lanes))}


# ----------------------------------------------------------------------------- runs


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

    from cuegym.physics.simulate import simulate_lanes

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
        (jax.tree_util.tree_map(lambda x: x[k], balls), jax.tree_util.tree_map(lambda x: x[k], shots)) for k in range(n)
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
        "batch_s": _dist(res["times"]),
        "events": _dist(counts),
        "events_untruncated": _dist(counts[~trunc]),
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
            "events": _dist(sc),
            "truncated_frac": float(sres["truncated"].mean()),
            "us_per_event": 1e6 * stot / float(sc.sum()),
            "shot_ms": _dist(1e3 * sres["times"]),
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


# ----------------------------------------------------------------------------- cache


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

        fn = getattr(_cache, "enable_compilation_cache")
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


# ----------------------------------------------------------------------------- suite

SUITE_TABLES = ("pyramid-12ft", "snooker-12ft")
# The simulator's own cap: since sustained, pressing and creeping contacts have explicit
# rules no random full-rack shot comes near it (an earlier cap of 100 hid event storms).
SUITE_MAX_EVENTS = 1500
# lanes refill, so each configuration runs several shots per lane (the last shots set a tail)
SUITE_SHOTS = {1: 64, 64: 1024, 1024: 4096, 4096: 8192}
SUITE_QUICK_SHOTS = {1: 32, 64: 256}
SUITE_SINGLE, SUITE_QUICK_SINGLE = 64, 32


def _child(args: list[str], env_extra: dict | None = None, timeout: float = 900) -> tuple[dict, float]:
    """Run ``python -m cuegym.tools.bench ARGS --json --out TMP`` in a fresh process."""
    import subprocess
    import tempfile

    env = dict(os.environ)
    for k in ("JAX_COMPILATION_CACHE_DIR", "CUEGYM_CACHE_DIR"):
        env.pop(k, None)
    env.update(env_extra or {})
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "cuegym.tools.bench", *args, "--json", "--out", out], env=env, check=True,
                       timeout=timeout, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        with open(out) as f:
            return json.load(f), wall


def run_suite(quick: bool = False, max_events: int = SUITE_MAX_EVENTS, log_capacity: int = 8,
              tables=SUITE_TABLES, log=print) -> dict:
    """The benchmark matrix of ``experiments/bench_physics.py``; each run in a fresh process
    (so compile times and peak memory are per run)."""
    import shutil
    import tempfile

    t_suite = time.perf_counter()
    shots_for = SUITE_QUICK_SHOTS if quick else SUITE_SHOTS
    n_single = SUITE_QUICK_SINGLE if quick else SUITE_SINGLE
    runs, breaks = [], []
    for table in tables:
        for batch, shots in shots_for.items():
            args = ["--table", table, "--rack", "full", "--batch", str(batch), "--shots", str(shots),
                    "--max-events", str(max_events), "--log-capacity", str(log_capacity),
                    "--single", str(n_single if batch == 1 else 0)]
            log(f"[bench] {table} batch {batch} x {shots} shots ...")
            r, wall = _child(args)
            r["process_s"] = wall
            runs.append(r)
            log(f"[bench]   {r['batched']['shots_per_s']:.1f} shots/s, process {wall:.0f} s")
        log(f"[bench] {table} break ...")
        r, wall = _child(["--table", table, "--break-shot", "--log-capacity", str(log_capacity)])
        r["process_s"] = wall
        breaks.append(r)
    # compile time of a fresh process with the persistent cache: empty (nothing to load: a
    # full compile, plus writing the entry), then the same cache again (a load). Compiling
    # without any cache is what every run above reports as compile_s.
    compile_runs = []
    probe = ["--table", tables[0], "--batch", "64", "--max-events", str(max_events), "--log-capacity",
             str(log_capacity), "--compile-only"]
    cache = tempfile.mkdtemp(prefix="cuegym-bench-cache-")
    try:
        for label, extra in (("cache empty (compile + write)", ["--cache-dir", cache]),
                             ("cache warm (load)", ["--cache-dir", cache])):
            log(f"[bench] compile probe: {label} ...")
            r, wall = _child(probe + extra)
            r["label"], r["wall_s"] = label, wall
            compile_runs.append(r)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return {
        "kind": "cuegym.bench.suite",
        "timestamp": timestamp(),
        "machine": machine_info(),
        "settings": {
            "quick": quick,
            "rack": "full",
            "tables": list(tables),
            "shots_per_batch_size": {str(k): v for k, v in shots_for.items()},
            "single_shots": n_single,
            "max_events": max_events,
            "log_capacity": log_capacity,
            "seed": 0,
        },
        "runs": runs,
        "breaks": breaks,
        "compile": compile_runs,
        "peak_rss_mb_children": peak_rss_mb(children=True),
        "wall_s": time.perf_counter() - t_suite,
    }


def suite_markdown(suite: dict) -> str:
    """Markdown tables of a :func:`run_suite` result."""
    st = suite["settings"]
    singles = {r["config"]["table"]: r["single"] for r in suite["runs"] if r.get("single")}
    lines = [
        f"Physics throughput, full rack, random shots, event cap {st['max_events']}, log capacity "
        f"{st['log_capacity']} ({suite['machine']['cpu_count']} CPUs, JAX {suite['machine']['jax']} "
        f"{suite['machine']['backend']}, {suite['timestamp']})",
        "",
        "| table | balls | batch | shots | shots/s | gain vs 1-at-a-time | compile s | events mean / median / p99 / max "
        "| events mean (not truncated) | truncated % | lane eff. % (w/o truncated) | us / lane-iter | peak RSS MiB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in suite["runs"]:
        c, b = r["config"], r["batched"]
        s = singles.get(c["table"])
        e, eu = b["events"], b["events_untruncated"]
        leu = b.get("lane_efficiency_untruncated")
        if r.get("single"):
            sg = r["single"]
            lines.append(
                f"| {c['table']} | {c['n_balls']} | 1 (unbatched `simulate`) | {sg['shots']} | {sg['shots_per_s']:.1f} "
                f"| 1.00 | {sg['compile_s']:.1f} | {sg['events']['mean']:.1f} / {sg['events']['median']:.0f} / "
                f"{sg['events']['p99']:.0f} / {sg['events']['max']:.0f} | | {100 * sg['truncated_frac']:.1f} | "
                f"| {sg['us_per_event']:.0f} (per event) | {r['peak_rss_mb']:.0f} |"
            )
        gain = f"{b['shots_per_s'] / s['shots_per_s']:.2f}" if s else ""
        lines.append(
            f"| {c['table']} | {c['n_balls']} | {c['batch']} | {c['shots_run']} | {b['shots_per_s']:.1f} | {gain} "
            f"| {b['compile_s']:.1f} | {e['mean']:.1f} / {e['median']:.0f} / {e['p99']:.0f} / {e['max']:.0f} "
            f"| {eu['mean']:.1f} | {100 * b['truncated_frac']:.1f} "
            f"| {100 * b['lane_efficiency']:.1f} ({'' if leu is None else f'{100 * leu:.1f}'}) "
            f"| {b['us_per_lane_iteration']:.0f} | {r['peak_rss_mb']:.0f} |"
        )
    lines += ["", "| break | balls | events | truncated | pocketed | time ms | us / event | first call s |",
              "|---|---|---|---|---|---|---|---|"]
    for r in suite["breaks"]:
        lines.append(
            f"| {r['table']} (cap {r['max_events']}) | {r['n_balls']} | {r['events']} | {r['truncated']} | "
            f"{r['pocketed']} | {r['time_ms']:.1f} | {r['us_per_event']:.0f} | {r['first_call_s']:.1f} |"
        )
    lines += ["", "| compile, fresh process (batch 64) | import s | first call s | process s | peak RSS MiB |",
              "|---|---|---|---|---|"]
    for r in suite["compile"]:
        lines.append(f"| {r['table']}, {r['label']} | {r['import_s']:.1f} | {r['first_call_s']:.2f} | "
                     f"{r['wall_s']:.1f} | {r['peak_rss_mb']:.0f} |")
    lines += ["", f"Whole run: {suite['wall_s']:.0f} s."]
    return "\n".join(lines)


def suite_main(argv=None) -> int:
    """``experiments/bench_physics.py [--quick] [--out FILE] [--max-events N]``."""
    p = argparse.ArgumentParser(prog="bench_physics", description="The physics benchmark matrix (DESIGN.md §8).")
    p.add_argument("--quick", action="store_true", help="batch 1 and 64 only, fewer shots")
    p.add_argument("--out", default="results/bench_physics.json")
    p.add_argument("--max-events", type=int, default=SUITE_MAX_EVENTS,
                   help=f"event cap for the throughput runs (default {SUITE_MAX_EVENTS}; breaks use the simulator's)")
    p.add_argument("--log-capacity", type=int, default=8)
    args = p.parse_args(argv)
    suite = run_suite(args.quick, args.max_events, args.log_capacity, log=lambda m: print(m, file=sys.stderr, flush=True))
    write_report(suite, suite_markdown(suite), args.out)
    return 0


def write_report(result: dict, md: str, out: str) -> None:
    """Write a benchmark's JSON to ``out`` and its markdown beside it (``.md``), and print
    the markdown."""
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
    with open(os.path.splitext(out)[0] + ".md", "w") as f:
        f.write(md + "\n")
    print(md)


# ----------------------------------------------------------------------------- CLI


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cuegym bench", description="Physics throughput benchmark (shots/s vs batch size).")
    p.add_argument("--table", default="pyramid-12ft", help="table name (cuegym.physics.TABLE_SPECS)")
    p.add_argument("--rack", choices=("full", "random"), default="full")
    p.add_argument("--batch", type=int, default=64,
                   help="tables simulated at once: lanes of simulate_many, or shots per simulate_batch call")
    p.add_argument("--mode", choices=("lanes", "batches"), default="lanes",
                   help="lanes: simulate_many, each lane takes the next shot when its own ends (default); "
                        "batches: consecutive simulate_batch calls, each waiting for its slowest shot")
    p.add_argument("--tail-lanes", type=int, default=16,
                   help="lanes: the smallest lane count the tail of long shots is moved into (--batch or more: none)")
    p.add_argument("--shots", type=int, default=256, help="shots in all (rounded up to whole batches)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-events", type=int, default=None, help="event cap (default: the simulator's)")
    p.add_argument("--log-capacity", type=int, default=8, help="event-log slots kept per shot")
    p.add_argument("--single", type=int, default=64, help="shots also run one at a time (0: none)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--out", default=None, help="also write the JSON result to this file")
    p.add_argument("--break-shot", action="store_true", help="time the table's break shot instead")
    p.add_argument("--compile-only", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--cache-dir", default=None, help=argparse.SUPPRESS)
    return p


def _report(r: dict) -> str:
    c, b, s = r["config"], r["batched"], r["single"]
    lines = [
        f"{c['table']} rack={c['rack']} balls={c['n_balls']} batch={c['batch']} shots={c['shots_run']} "
        f"max_events={c['max_events']}",
        f"  batched: {b['shots_per_s']:.1f} shots/s ({b['total_s']:.2f} s, compile {b['compile_s']:.1f} s"
        + (", persistent cache on)" if c["compilation_cache"] else ")"),
        f"  events/shot: mean {b['events']['mean']:.1f} median {b['events']['median']:.0f} "
        f"p99 {b['events']['p99']:.0f} max {b['events']['max']:.0f}; truncated {100 * b['truncated_frac']:.1f} %",
        f"  lane efficiency ({b['mode']}): {100 * b['lane_efficiency']:.1f} %, "
        f"{b['us_per_lane_iteration']:.0f} us per lane-iteration",
    ]
    if s:
        lines.append(
            f"  one at a time ({s['shots']} shots): {s['shots_per_s']:.1f} shots/s, {s['us_per_event']:.0f} us/event; "
            f"batching gain x{r['batching_gain']:.2f}"
        )
    lines.append(f"  peak RSS {r['peak_rss_mb']:.0f} MiB")
    return "\n".join(lines)


def main(argv=None) -> int:
    t_start = time.perf_counter()
    args = build_parser().parse_args(argv)
    if args.compile_only:
        r = compile_only(args.table, args.rack, args.batch, args.max_events, args.log_capacity, args.cache_dir, t_start)
        text = json.dumps(r, indent=2)
    elif args.break_shot:
        r = break_bench(args.table, args.max_events, args.log_capacity)
        r.update(kind="cuegym.bench.break", timestamp=timestamp(), machine=machine_info(), peak_rss_mb=peak_rss_mb())
        text = json.dumps(r, indent=2) if args.json else (
            f"{r['table']} break: {r['events']} events{' (truncated)' if r['truncated'] else ''}, "
            f"{r['time_ms']:.1f} ms, {r['us_per_event']:.0f} us/event, {r['pocketed']} pocketed"
        )
    else:
        r = bench(args.table, args.rack, args.batch, args.shots, args.seed, args.max_events, args.log_capacity, args.single,
                  args.mode, args.tail_lanes)
        text = json.dumps(r, indent=2) if args.json else _report(r)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(r, f, indent=2)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
