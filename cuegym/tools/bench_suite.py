"""The physics benchmark matrix of ``experiments/bench_physics.py``: every table and batch
size, each run in a fresh process (``python -m cuegym.tools.bench``) so compile times and
peak memory are per run, written as JSON and markdown.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from cuegym.physics.simulate import DEFAULT_MAX_EVENTS
from cuegym.tools.bench_report import machine_info, peak_rss_mb, timestamp, write_report

# ----------------------------------------------------------------------------- suite

SUITE_TABLES = ("pyramid-12ft", "snooker-12ft")
# The simulator's own cap: since sustained, pressing and creeping contacts have explicit
# rules no random full-rack shot comes near it (an earlier cap of 100 hid event storms).
SUITE_MAX_EVENTS = DEFAULT_MAX_EVENTS
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
    p = argparse.ArgumentParser(prog="bench_physics", description="The physics benchmark matrix (docs/guide.md, Performance).")
    p.add_argument("--quick", action="store_true", help="batch 1 and 64 only, fewer shots")
    p.add_argument("--out", default="results/bench_physics.json")
    p.add_argument("--max-events", type=int, default=SUITE_MAX_EVENTS,
                   help=f"event cap for the throughput runs (default {SUITE_MAX_EVENTS}; breaks use the simulator's)")
    p.add_argument("--log-capacity", type=int, default=8)
    args = p.parse_args(argv)
    suite = run_suite(args.quick, args.max_events, args.log_capacity, log=lambda m: print(m, file=sys.stderr, flush=True))
    write_report(suite, suite_markdown(suite), args.out)
    return 0
