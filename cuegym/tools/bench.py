"""Physics throughput benchmark: shots per second of the JAX simulator against batch size.

``cuegym bench --table T --rack full|random --batch B --shots N [--mode lanes|batches]
[--json]`` (or ``python -m cuegym.tools.bench ...``) builds N seeded random shots
(:mod:`cuegym.tools.bench_shots`) and runs them on B tables at once
(:mod:`cuegym.tools.bench_measure`): ``lanes`` (each lane takes the next shot as soon as its
own ends) or ``batches`` (each batch waits for its slowest shot). It reports shots/s after a
warm-up, events per shot, the fraction truncated, lane efficiency and the same shots one at a
time for the batching gain (:mod:`cuegym.tools.bench_report`; docs/guide.md, "Performance").
``experiments/bench_physics.py`` runs the matrix (:mod:`cuegym.tools.bench_suite`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from cuegym._io import write_atomic
from cuegym.tools.bench_measure import bench, break_bench, compile_only
from cuegym.tools.bench_report import machine_info, peak_rss_mb, report_text, timestamp


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
        text = json.dumps(r, indent=2) if args.json else report_text(r)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        write_atomic(args.out, json.dumps(r, indent=2))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
