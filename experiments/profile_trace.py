"""Where the batched event loop's time goes, op by op, from a trace of one real run.

    python experiments/profile_trace.py [--table pyramid-12ft] [--lanes 1024] [--shots 4096]
                                        [--top 40] [--out results/profile_trace.json]

``profile_event.py`` times an event's parts jitted alone; they do not fuse as they do inside
the loop. This runs ``refill.simulate_lanes`` (the ``cuegym bench`` layouts and shots) under
``jax.profiler``, takes XLA:CPU's time per executed op from the trace, and names each op by
its output shape and the JAX operation it came from (from XLA's dump of the optimised
program). Ops inside the loops over chunks (root solving, contacts) are counted where they
run. Leaf ops only: loops and conditionals are the sum of their bodies. Writes JSON (the top
ops, time by output shape) and prints both. docs/physics.md ("What an event costs").
"""

from __future__ import annotations

import argparse
import collections
import glob
import gzip
import json
import os
import re
import sys
import tempfile
import time


def _dump_flags(folder: str) -> None:
    """XLA must dump its optimised programs: set before JAX starts its backend."""
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               f" --xla_dump_to={folder} --xla_dump_hlo_as_text --xla_dump_hlo_pass_re=NONE")
    os.environ["CUEGYM_CACHE_DIR"] = "off"  # a cached program is not compiled, so not dumped


def op_table(hlo_text: str) -> dict:
    """{op name: (output shape, JAX operation path)} from an optimised HLO module's text."""
    ops = {}
    for m in re.finditer(r"^\s*(?:ROOT )?%([\w.\-]+) = (\S+)(.*)$", hlo_text, re.M):
        name = re.search(r'op_name="([^"]*)"', m.group(3))
        ops[m.group(1)] = (re.sub(r"\{[^}]*\}", "", m.group(2)), name.group(1) if name else "")
    return ops


def leaf_times(trace_file: str, module: str) -> tuple[collections.Counter, collections.Counter]:
    """({op: µs}, {op: calls}) of the execution of ``module`` that took longest."""
    with gzip.open(trace_file) as f:
        events = json.load(f)
    events = events["traceEvents"] if isinstance(events, dict) else events
    ours = [e for e in events if e.get("ph") == "X" and e.get("args", {}).get("hlo_module") == module]
    runs = collections.Counter()
    for e in ours:
        runs[e["args"]["run_id"]] += e["dur"]
    run = runs.most_common(1)[0][0]
    times, calls = collections.Counter(), collections.Counter()
    for e in ours:
        op = e["args"]["hlo_op"]
        if e["args"]["run_id"] != run or re.fullmatch(r"(while|conditional|call)(\.\d+)?", op):
            continue
        times[op] += e["dur"]
        calls[op] += 1
    return times, calls


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", default="pyramid-12ft")
    ap.add_argument("--lanes", type=int, default=1024)
    ap.add_argument("--shots", type=int, default=4096)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.lanes < 16 or args.shots < args.lanes or args.top < 1:
        ap.error("--lanes at least 16, --shots at least --lanes, --top positive")
    work = tempfile.mkdtemp(prefix="cuegym_trace_")
    _dump_flags(os.path.join(work, "hlo"))

    import jax

    import cuegym  # noqa: F401  (its XLA settings before JAX starts)
    from cuegym._io import write_atomic
    from cuegym.physics import get_spec, get_table
    from cuegym.physics.refill import simulate_lanes
    from cuegym.tools.bench_report import machine_info, timestamp
    from cuegym.tools.bench_shots import make_layouts, random_shots

    table = get_table(args.table)
    balls = make_layouts(get_spec(args.table), "full", args.shots, 0)
    shots = random_shots(args.shots, 0)

    def run():
        return jax.block_until_ready(simulate_lanes(table, balls, shots, args.lanes, 100_000, 8, True, 16))

    run()  # compiled (and dumped) outside the trace
    t0 = time.perf_counter()
    with jax.profiler.trace(os.path.join(work, "trace"), create_perfetto_trace=True):
        run()
    wall = time.perf_counter() - t0
    trace_file = sorted(glob.glob(os.path.join(work, "trace", "**", "perfetto_trace.json.gz"), recursive=True))[-1]
    # the stage at full width: the module whose ball arrays have the lane count
    lanes_shape = re.compile(rf"f64\[{args.lanes},\d+,3\]")
    modules = sorted(glob.glob(os.path.join(work, "hlo", "*jit__lanes_run.cpu_after_optimizations.txt")))
    hlo = next(text for text in map(_read, modules) if lanes_shape.search(text))
    ops = op_table(hlo)
    times, calls = leaf_times(trace_file, "jit__lanes_run")
    total = sum(times.values())
    by_shape = collections.Counter()
    for op, us in times.items():
        by_shape[ops.get(op, ("?", ""))[0]] += us
    top = [{"op": op, "ms": round(us / 1e3, 2), "share": round(us / total, 4), "calls": calls[op],
            "shape": ops.get(op, ("?", ""))[0], "jax": ops.get(op, ("", ""))[1].replace("jit(_lanes_run)/", "")}
           for op, us in times.most_common(args.top)]
    shapes = [{"shape": s, "ms": round(us / 1e3, 2), "share": round(us / total, 4)}
              for s, us in by_shape.most_common(args.top)]
    out = {"table": args.table, "lanes": args.lanes, "shots": args.shots, "wall_s_traced": round(wall, 2),
           "ops_ms_at_full_width": round(total / 1e3, 1), "top_ops": top, "by_shape": shapes,
           "machine": machine_info(), "timestamp": timestamp()}
    print(f"{args.table}, {args.lanes} lanes, {args.shots} shots: {total / 1e3:.0f} ms in ops at full width "
          f"(traced run {wall:.1f} s)")
    for row in top:
        print(f"  {row['ms']:8.1f} ms {100 * row['share']:5.1f} %  {row['shape']:26s} {row['jax'][-70:]}")
    print("by output shape:")
    for row in shapes[:15]:
        print(f"  {row['ms']:8.1f} ms {100 * row['share']:5.1f} %  {row['shape']}")
    if args.out:
        write_atomic(args.out, json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
