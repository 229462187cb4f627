"""Fuzz the physics: many seeded hard layouts and strokes, every result checked.

    python experiments/fuzz_physics.py --shots N --out FILE [--seed S] [--lanes L] [--breaks K]
    python experiments/fuzz_physics.py --shots N --out FILE --replay CHECK   # its worst case again
    python experiments/fuzz_physics.py --shots N --out FILE --shot TABLE:KIND:CHUNK:INDEX   # any shot
    python experiments/fuzz_physics.py ... --part K/N --out PART_K   # N processes, one part each
    python experiments/fuzz_physics.py --shots 1 --merge PART_0 PART_1 ... --out FILE

Layouts and strokes: ``experiments/fuzz_layouts.py``, on pyramid-12ft, snooker-12ft and
pool-9ft, plus K seeded breaks on each of the pyramid and snooker racks. All shots run
through ``simulate_many`` (refilling lanes); every final state is checked (overlap, escape,
NaN, truncation, rest, ball accounting), and every ``--sample``-th shot is played again with
a full event log and replayed (``cuegym.physics.audit``: overlap, escape and energy at each
event and between events). The JSON report, rewritten after every chunk, holds counts per
check, per table and layout and stroke kind, shots/s, and the worst case of each check with
what replays it (seed, table, chunk, index, the arrays). docs/physics.md ("Fuzzing").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from functools import partial

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jax
import jax.numpy as jnp
from fuzz_layouts import LAYOUTS, STROKES, Geometry, batch

from cuegym.physics import (
    OFF_TABLE,
    POCKETED,
    STATIONARY,
    BallState,
    Shot,
    get_table,
    simulate_batch,
    simulate_many,
)
from cuegym.physics.audit import audit_final, audit_log
from cuegym.physics.simulate import DEFAULT_MAX_EVENTS

TABLES = {"pyramid-12ft": 16, "snooker-12ft": 22, "pool-9ft": 16}  # ball slots
LAYOUT_SHARE = {"random": 0.25, "cluster": 0.25, "frozen": 0.2, "jaws": 0.15, "rack": 0.15}
OVERLAP_TOL = 1e-6  # m
ESCAPE_TOL = 1e-6  # m
ENERGY_TOL = (1e-9, 1e-12)  # a rise counts when over both: relative to the energy before, and in J
SAMPLE_LOG = 1500  # events logged per sampled shot; a longer one is played again alone with all of them
MAX_LISTED = 500  # violating shots listed in the report ("violating"), each with what replays it
CHECKS = ("overlap", "escape", "nan", "truncated", "not_at_rest", "unaccounted",
          "event_overlap", "event_escape", "energy_rise", "event_nan")


def chunk_inputs(seed, table_name, chunk, size, kind):
    """Layouts and shots of one chunk: (xy (S, N, 2), ok (S, N), layout names (S,), stroke
    kind (S,), shot dict). ``kind`` 'mixed' (every layout kind, shuffled) or 'break'."""
    g = Geometry(get_table(table_name))
    n = TABLES[table_name]
    t_id = list(TABLES).index(table_name)
    rng = np.random.default_rng([seed, t_id, chunk, 1 if kind == "break" else 0])
    parts = [(k, size if kind == "break" else int(round(size * LAYOUT_SHARE[k])))
             for k in (("break",) if kind == "break" else LAYOUTS)]
    parts[-1] = (parts[-1][0], size - sum(p for _, p in parts[:-1]))
    out = [batch(rng, g, k, p, n) + (np.full(p, k),) for k, p in parts if p > 0]
    xy, ok, stroke, shot, names = (np.concatenate([o[i] for o in out]) if i != 3 else
                                   {f: np.concatenate([o[3][f] for o in out]) for f in out[0][3]} for i in range(5))
    perm = rng.permutation(size)
    return xy[perm], ok[perm], names[perm], stroke[perm], {f: v[perm] for f, v in shot.items()}


def to_jax(xy, ok, shot):
    S, N = ok.shape
    r = np.concatenate([xy, np.zeros((S, N, 1))], -1)
    balls = BallState(jnp.asarray(r), jnp.zeros((S, N, 3)), jnp.zeros((S, N, 3)),
                      jnp.asarray(np.where(ok, STATIONARY, OFF_TABLE), jnp.int32), jnp.full((S, N), -1, jnp.int32))
    f = lambda k: jnp.asarray(shot[k], jnp.float64)  # noqa: E731
    return balls, Shot(jnp.zeros(S, jnp.int32), f("phi"), f("speed"), f("a"), f("b"), f("theta"))


def final_checks(table, ok, final, log, summ):
    """(S, ...) per-check values of the final states: metric arrays (larger = worse) for
    overlap, escape [m]; booleans for the rest."""
    aud = _audit_final(table, final)
    st, pocket = np.asarray(final.state), np.asarray(final.pocket)
    trunc = np.asarray(log.truncated)
    in_play = st < POCKETED
    off_flag, pocket_s = np.asarray(summ.off_table), np.asarray(summ.pocket)
    bad = (st < 0) | (st > OFF_TABLE)
    bad |= ~ok & ((st != OFF_TABLE) | off_flag | (pocket_s >= 0))  # absent balls stay absent
    bad |= ok & (st == OFF_TABLE) & ~off_flag  # a ball left the table without an event
    bad |= (st == POCKETED) & ((pocket < 0) | (pocket > 5) | (pocket_s != pocket))
    bad |= (st != POCKETED) & (pocket_s >= 0)
    counted = np.sum(in_play & ok, 1) + np.sum(st == POCKETED, 1) + np.sum(ok & (st == OFF_TABLE), 1)
    return {
        "overlap": np.asarray(aud.overlap), "escape": np.asarray(aud.escape), "nan": np.asarray(aud.nan),
        "truncated": trunc, "not_at_rest": ~trunc & np.any(in_play & (st != STATIONARY), 1),
        "unaccounted": np.any(bad, 1) | (counted != ok.sum(1)),
    }


class Report:
    """Counts and worst cases, written as JSON."""

    def __init__(self, args, command):
        self.d = {"command": command, "seed": args.seed, "lanes": args.lanes, "max_events": args.max_events,
                  "sample_every": args.sample, "thresholds": {"overlap_m": OVERLAP_TOL, "escape_m": ESCAPE_TOL,
                                                              "energy_rel_and_J": list(ENERGY_TOL)},
                  "shots": 0, "sampled": 0, "sim_s": 0.0, "elapsed_s": 0.0,
                  "violations": dict.fromkeys(CHECKS, 0), "worst": {}, "violating": [], "by_group": {}, "by_stroke": {},
                  "events": {}, "events_hist": {}}
        self.counts = {}

    def add(self, table_name, groups, stroke, values, violate, replay, counts, sampled):
        """One chunk: ``groups`` (S,) 'table/layout' keys, ``stroke`` (S,) stroke kinds, per-check
        ``values`` (larger = worse) and ``violate`` booleans over all shots or, for the event
        checks, over the ``sampled`` indices; ``replay(i)`` the replay record of shot i."""
        d = self.d
        d["shots"] += len(groups)
        d["sampled"] += len(sampled)
        self.counts.setdefault(table_name, []).append(counts)
        for key in np.unique(groups):
            grp = d["by_group"].setdefault(str(key), {"shots": 0, "sampled": 0, "violations": dict.fromkeys(CHECKS, 0)})
            grp["shots"] += int((groups == key).sum())
            grp["sampled"] += int((groups[sampled] == key).sum())
        for s_i, s_name in enumerate(STROKES):
            grp = d["by_stroke"].setdefault(s_name, {"shots": 0, "violations": dict.fromkeys(CHECKS, 0)})
            grp["shots"] += int((stroke == s_i).sum())
        for c in CHECKS:
            v, bad = values[c], violate[c]
            idx = sampled if c.startswith("event") or c == "energy_rise" else np.arange(len(groups))
            d["violations"][c] += int(bad.sum())
            for i in idx[bad]:
                d["by_group"][str(groups[i])]["violations"][c] += 1
                d["by_stroke"][STROKES[int(stroke[i])]]["violations"][c] += 1
                if len(d["violating"]) < MAX_LISTED:  # each replayable with --shot
                    r = replay(int(i))
                    d["violating"].append({"check": c, "shot": f'{r["table"]}:{r["chunk_kind"]}:{r["chunk"]}:{r["index"]}',
                                           "layout": r["layout"], "stroke": r["stroke"], "events": r["events"]})
            if len(v) == 0:
                continue
            k = int(np.argmax(bad)) if v.dtype == bool else int(np.argmax(v))
            value = bool(bad[k]) if v.dtype == bool else float(v[k])
            prev = d["worst"].get(c)
            if prev is None or (value > prev["value"] if v.dtype != bool else value and not prev["value"]):
                d["worst"][c] = {"value": value, "violation": bool(bad[k]), **replay(int(idx[k]))}

    def write(self, path, elapsed, sim_s):
        d = self.d
        d["elapsed_s"], d["sim_s"] = round(elapsed, 1), round(sim_s, 1)
        d["shots_per_s"] = round(d["shots"] / max(elapsed, 1e-9), 1)
        d["sim_shots_per_s"] = round(d["shots"] / max(sim_s, 1e-9), 1)
        for t, cs in self.counts.items():
            d["events_hist"][t] = np.bincount(np.concatenate(cs)).tolist()  # shots by event count
        d["events"] = {t: _event_stats(h) for t, h in d["events_hist"].items()}
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(d, f, indent=1)
        os.replace(tmp, path)


def _event_stats(hist):
    """{median, p99, max} of event counts from ``hist`` (shots by event count)."""
    h = np.asarray(hist)
    c = np.cumsum(h)
    at = lambda q: int(np.searchsorted(c, q * c[-1]))  # noqa: E731  (lower percentile)
    return {"median": at(0.5), "p99": at(0.99), "max": int(np.flatnonzero(h)[-1])}


def merge(paths, out):
    """One report from the reports of the parts of a run (``--part K/N``): counts added,
    the worst of each check kept, event counts pooled; wall time the longest part's."""
    parts = []
    for path in paths:
        with open(path) as f:
            parts.append(json.load(f))
    d = dict(parts[0])
    d["command"] = [p["command"] for p in parts]
    for key in ("shots", "sampled", "sim_s", "sample_s"):
        d[key] = round(sum(p.get(key, 0) for p in parts), 1)
    d["elapsed_s"] = max(p["elapsed_s"] for p in parts)
    d["violations"] = {c: sum(p["violations"][c] for p in parts) for c in CHECKS}
    d["violating"] = [v for p in parts for v in p["violating"]][:MAX_LISTED]
    d["worst"] = {}
    for p in parts:
        for c, w in p["worst"].items():
            prev = d["worst"].get(c)
            if prev is None or (w["violation"], w["value"]) > (prev["violation"], prev["value"]):
                d["worst"][c] = w
    for field in ("by_group", "by_stroke"):
        d[field] = {}
        for p in parts:
            for key, grp in p[field].items():
                acc = d[field].setdefault(key, {**{k: 0 for k in grp if k != "violations"},
                                                "violations": dict.fromkeys(CHECKS, 0)})
                for k, v in grp.items():
                    if k == "violations":
                        for c in CHECKS:
                            acc["violations"][c] += v[c]
                    else:
                        acc[k] += v
    d["events_hist"] = {}
    for p in parts:
        for t, h in p["events_hist"].items():
            acc = d["events_hist"].setdefault(t, [])
            acc.extend([0] * (len(h) - len(acc)))
            d["events_hist"][t] = [a + (h[i] if i < len(h) else 0) for i, a in enumerate(acc)]
    d["events"] = {t: _event_stats(h) for t, h in d["events_hist"].items()}
    d["shots_per_s"] = round(d["shots"] / max(d["elapsed_s"], 1e-9), 1)
    d["sim_shots_per_s"] = round(d["shots"] / max(d["sim_s"], 1e-9), 1)
    with open(out, "w") as f:
        json.dump(d, f, indent=1)
    print(json.dumps({k: d[k] for k in ("shots", "sampled", "elapsed_s", "violations", "events")}))
    return 0


def plan(args):
    """The chunks in run order: (table, kind, chunk index, size); tables round-robin, the
    break chunks first."""
    out = []
    for t in ("pyramid-12ft", "snooker-12ft"):
        for c in range(-(-args.breaks // args.chunk)):
            out.append((t, "break", c, min(args.chunk, args.breaks - c * args.chunk)))
    per_table = args.shots // len(TABLES)
    n_chunks = -(-per_table // args.chunk)
    for c in range(n_chunks):
        for t in TABLES:
            extra = args.shots - per_table * len(TABLES) if t == "pyramid-12ft" else 0
            size = min(args.chunk, per_table - c * args.chunk) + (extra if c == n_chunks - 1 else 0)
            out.append((t, "mixed", c, size))
    return [p for p in out if p[3] > 0]


@partial(jax.jit, static_argnums=0)
def _audit(table, balls, log):
    return jax.vmap(lambda b, lg: audit_log(table, b, lg))(balls, log)


@partial(jax.jit, static_argnums=0)
def _audit_final(table, final):
    return jax.vmap(lambda b: audit_final(table, b))(final)


def run_chunk(args, report, table_name, kind, chunk, size):
    table = get_table(table_name)
    xy, ok, names, stroke, shot = chunk_inputs(args.seed, table_name, chunk, size, kind)
    balls, shots = to_jax(xy, ok, shot)
    t0 = time.perf_counter()
    final, log, summ = simulate_many(table, balls, shots, lanes=args.lanes, max_events=args.max_events, log_capacity=1)
    counts = np.asarray(log.count)
    sim_s = time.perf_counter() - t0
    values = final_checks(table, ok, final, log, summ)
    sampled = np.arange(0, size, args.sample)
    s_balls, s_shots = jax.tree_util.tree_map(lambda x: x[sampled], (balls, shots))
    t1 = time.perf_counter()
    capacity = min(args.max_events, SAMPLE_LOG) + 2
    _, s_log, _ = simulate_many(table, s_balls, s_shots, lanes=64, tail_lanes=64, max_events=args.max_events,
                                log_capacity=capacity)
    aud = _audit(table, s_balls, s_log)
    for k in np.flatnonzero(np.asarray(s_log.overflow)):  # a long shot (a ride): all its events, alone
        one = jax.tree_util.tree_map(lambda x, k=k: x[k : k + 1], (s_balls, s_shots))
        full = -(-(int(s_log.count[k]) + 2) // 4096) * 4096  # a few capacities, so a few programs
        _, k_log, _ = simulate_batch(table, *one, max_events=args.max_events, log_capacity=full)
        aud = jax.tree_util.tree_map(lambda a, b, k=k: a.at[k].set(b[0]), aud, _audit(table, one[0], k_log))
    sample_s = time.perf_counter() - t1
    report.d["sample_s"] = round(report.d.get("sample_s", 0.0) + sample_s, 1)
    ev_vals = {"event_overlap": np.asarray(aud.overlap), "event_escape": np.asarray(aud.escape),
               "energy_rise": np.asarray(aud.energy_rel), "event_nan": np.asarray(aud.nan)}
    values.update(ev_vals)
    rise = np.asarray(aud.energy_rise)
    violate = {c: v > (OVERLAP_TOL if c.endswith("overlap") else ESCAPE_TOL) if c.endswith(("overlap", "escape")) else v
               for c, v in values.items() if c != "energy_rise"}
    violate["energy_rise"] = (ev_vals["energy_rise"] > ENERGY_TOL[0]) & (rise > ENERGY_TOL[1])
    worst_ev = np.asarray(aud.worst_event)

    def replay(i):
        j = np.flatnonzero(sampled == i)
        return {"table": table_name, "seed": args.seed, "chunk": chunk, "chunk_kind": kind, "index": i,
                "layout": str(names[i]), "stroke": STROKES[int(stroke[i])], "events": int(counts[i]),
                "xy": xy[i].tolist(), "present": ok[i].tolist(), "shot": {k: float(v[i]) for k, v in shot.items()},
                "cue_ball": 0, **({"worst_event": int(worst_ev[j[0]]), "energy_rise_J": float(rise[j[0]])} if j.size else {})}

    groups = np.char.add(f"{table_name}/", names.astype(str))
    report.add(table_name, groups, stroke, values, violate, replay, counts, sampled)
    return sim_s + sample_s


def replay(report_path, check=None, shot_at=None):
    """Play a shot of the run that wrote the report at ``report_path`` again, alone with a full
    log, and audit it: the worst case of ``check`` (checking that the seeded generator gives
    the stored arrays), or the shot at ``shot_at`` 'TABLE:KIND:CHUNK:INDEX' of that run's
    plan (e.g. 'snooker-12ft:mixed:2:14417')."""
    with open(report_path) as f:
        d = json.load(f)
    command = d["command"] if isinstance(d["command"], str) else d["command"][0]  # a merged report: its first part's
    args = build_parser().parse_args(command.split()[2:])
    if shot_at is None:
        w = d["worst"][check]
    else:
        table_name, kind, chunk, index = shot_at.split(":")
        w = {"table": table_name, "chunk_kind": kind, "chunk": int(chunk), "index": int(index), "seed": args.seed}
    size = next(n for t, k, c, n in plan(args) if (t, k, c) == (w["table"], w["chunk_kind"], w["chunk"]))
    xy, ok, names, stroke, shot = chunk_inputs(w["seed"], w["table"], w["chunk"], size, w["chunk_kind"])
    i = w["index"]
    table = get_table(w["table"])
    balls, shots = to_jax(xy[i : i + 1], ok[i : i + 1], {k: v[i : i + 1] for k, v in shot.items()})
    _, log, _ = simulate_batch(table, balls, shots, max_events=args.max_events, log_capacity=args.max_events + 2)
    aud = _audit(table, balls, log)
    out = {"table": w["table"], "chunk": w["chunk"], "index": i, "layout": str(names[i]), "stroke": STROKES[int(stroke[i])]}
    if shot_at is None:
        same = np.array_equal(xy[i], w["xy"]) and np.array_equal(ok[i], w["present"]) and all(
            shot[k][i] == v for k, v in w["shot"].items())
        out = {"check": check, "value": w["value"], "regenerated_same_arrays": bool(same), **out}
    print(json.dumps({**out, "events": int(log.count[0]), "truncated": bool(log.truncated[0]),
                      **{f: float(np.asarray(getattr(aud, f))[0]) for f in ("overlap", "escape", "energy_rise")}}))
    return 0


def build_parser():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shots", type=int, required=True, help="fuzzed shots over the three tables (breaks apart)")
    p.add_argument("--out", required=True, help="the JSON report (with --replay: the report to read)")
    p.add_argument("--replay", default=None, metavar="CHECK", help="play the report's worst case of CHECK again")
    p.add_argument("--shot", default=None, metavar="TABLE:KIND:CHUNK:INDEX",
                   help="play this shot of the report's run again (KIND: mixed or break)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lanes", type=int, default=1024)
    p.add_argument("--breaks", type=int, default=10_000, help="seeded breaks on each of the pyramid and snooker racks")
    p.add_argument("--chunk", type=int, default=16384, help="shots per simulate_many call")
    p.add_argument("--sample", type=int, default=64, help="every k-th shot is replayed from a full event log")
    p.add_argument("--max-events", type=int, default=DEFAULT_MAX_EVENTS)
    p.add_argument("--part", default=None, metavar="K/N",
                   help="play only every N-th chunk of the plan, from the K-th (0-based): N processes share a run")
    p.add_argument("--merge", nargs="+", default=None, metavar="REPORT",
                   help="write --out as the reports of a run's parts merged")
    p.add_argument("--cache-dir", default=os.environ.get("CUEGYM_CACHE_DIR"))
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.cache_dir:
        jax.config.update("jax_compilation_cache_dir", args.cache_dir)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    if args.replay or args.shot:
        return replay(args.out, args.replay, args.shot)
    if args.merge:
        return merge(args.merge, args.out)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    report = Report(args, "python experiments/fuzz_physics.py " + " ".join(argv if argv is not None else sys.argv[1:]))
    start, sim_s = time.perf_counter(), 0.0
    chunks = plan(args)
    if args.part:
        k, n = (int(x) for x in args.part.split("/"))
        if not 0 <= k < n:
            raise SystemExit(f"--part K/N: K must be in [0, N), got {args.part}")
        chunks = chunks[k::n]
    for t, kind, c, size in chunks:
        sim_s += run_chunk(args, report, t, kind, c, size)
        report.write(args.out, time.perf_counter() - start, sim_s)
        v = {k: n for k, n in report.d["violations"].items() if n}
        print(f"{time.perf_counter() - start:7.0f} s  {report.d['shots']:8d} shots  {t} {kind} {c}: "
              f"{report.d['shots_per_s']} shots/s  violations {v or 'none'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
