"""What a benchmark reports beside its timings: the machine, the statistics of events per
shot and of lane efficiency, and the JSON + markdown report files.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import resource
import sys

import numpy as np

from cuegym._io import write_atomic


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


def distribution(x) -> dict | None:
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
        "max_events_per_batch": distribution([c.max() for c in batches]),
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


def write_report(result: dict, md: str, out: str) -> None:
    """Write a benchmark's JSON to ``out`` and its markdown beside it (``.md``), and print
    the markdown."""
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    write_atomic(out, json.dumps(result, indent=2))
    write_atomic(os.path.splitext(out)[0] + ".md", md + "\n")
    print(md)


def report_text(r: dict) -> str:
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
