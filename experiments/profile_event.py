"""What one event of the physics loop costs, part by part, per lane of a vmapped batch.

    python experiments/profile_event.py [--table pyramid-12ft] [--lanes 1024] [--events 6]
                                        [--reps 20] [--out results/profile_event.json]

Full rack plus a cue ball in the house, random shots (the ``cuegym bench`` layouts): the
lanes are started and moved ``--events`` events into their shots, then each part of an event
(``simulate._event``: the re-solve of two balls' candidates, then the advance to the next
event and its application) is jitted alone over the same lanes and timed over ``--reps``
calls. Parts are timed apart, so they add up to more than the fused event. Writes JSON (µs
per lane for each part, the machine, the root solver's iteration mode) and prints a table.
docs/physics.md ("Performance", "What an event costs").
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import jax
import jax.numpy as jnp

import cuegym.physics.simulate  # noqa: F401  (the module, not the function the package exports)
from cuegym._io import write_atomic
from cuegym.physics import candidates as Cd
from cuegym.physics import events as ev
from cuegym.physics import get_spec, get_table, roots
from cuegym.physics.collisions import HOP_SPEED, ball_ball, collide
from cuegym.physics.motion import apply_transition, evolve, linear_acceleration, transition_times
from cuegym.physics.summary import sweep_lines
from cuegym.tools.bench_report import machine_info, timestamp
from cuegym.tools.bench_shots import make_layouts, random_shots

S = sys.modules["cuegym.physics.simulate"]


def lanes_in_play(table_name: str, lanes: int, events: int, seed: int = 0):
    """(simulate._Pending) ``lanes`` shots started and run ``events`` events on."""
    table = get_table(table_name)
    balls = make_layouts(get_spec(table_name), "full", lanes, seed)
    shots = random_shots(lanes, seed)
    loop = jax.jit(jax.vmap(lambda b, s: S._start(table, b, s, 8)))(balls, shots)
    p = S._Pending(loop, jnp.zeros(lanes, jnp.int32), jnp.zeros(lanes, jnp.int32))
    step = jax.jit(jax.vmap(lambda q: S._event(table, q, True)))
    for _ in range(events):
        p = step(p)
    return jax.block_until_ready(p)


def parts(table, p):
    """{name: (function, args)}: each part of an event, vmapped over the lanes of ``p``."""
    s, i, j = p.loop, p.i, p.j
    V = jax.vmap

    def acc_trans(b):
        return linear_acceleration(b, table), transition_times(b, table)

    def pair_rows(b, i, j, g, t):
        a, tr = acc_trans(b)
        own = Cd.own_events(tr, g, t)
        return Cd.pair_rows(b, a, tr, jnp.stack([i, j]), table, own)

    def geometry(b, i, j, g, t):
        a, tr = acc_trans(b)
        return Cd.geometry_of(b, a, tr, jnp.stack([i, j]), t, table, g)

    def sweep(sm, b, t):
        a, _ = acc_trans(b)
        return sweep_lines(sm, b.r, b.v, a, t + 1e-3, 1e-3, table.centre_line, table.head_line)

    kind = jnp.asarray(ev.BALL)
    return {
        "event (re-solve + advance)": (V(lambda q: S._event(table, q, True)), (p,)),
        "re-solve: two balls' candidates": (V(lambda s, i, j: S._resolve(table, s, i, j)), (s, i, j)),
        "  pair rows (2 x N quartics, screened)": (V(pair_rows), (s.balls, i, j, s.geo, s.t)),
        "  geometry (2 balls: noses, jaws, drops)": (V(geometry), (s.balls, i, j, s.geo, s.t)),
        "advance: next event, applied": (V(lambda s: S._advance(table, s, True)), (s,)),
        "  ball_ball (rules 1-6)": (V(lambda b, i, j: ball_ball(b, i, j, table, True)), (s.balls, i, j)),
        "  collide (a collision: no cluster rules)": (V(lambda b, i, j: collide(b, i, j, table, True)), (s.balls, i, j)),
        "  cushion, jaw or pocket": (V(lambda b, i, g: Cd.apply_geometry(b, i, g, table)), (s.balls, i, s.geo)),
        "  motion transition": (V(lambda b, i: apply_transition(b, i, table, HOP_SPEED)), (s.balls, i)),
        "  accelerations, transition times": (V(acc_trans), (s.balls,)),
        "  evolve every ball": (V(lambda b, t: evolve(b, table, t)), (s.balls, jnp.full(s.t.shape, 1e-3))),
        "  shot summary": (V(lambda sm, i, j, t, b: S.update_summary(sm, kind, i, j, t, b)), (s.summary, i, j, s.t, s.balls)),
        "  line sweeps": (V(sweep), (s.summary, s.balls, s.t)),
        "  event log": (V(lambda lg, i, j, t, b: ev.record(lg, kind, t, i, j, b)), (s.log, i, j, s.t, s.balls)),
    }


def time_part(fn, args, lanes: int, reps: int) -> float:
    """µs per lane of one call of jitted ``fn(*args)`` (compiled and run once first)."""
    g = jax.jit(fn)
    jax.block_until_ready(g(*args))
    t = time.perf_counter()
    for _ in range(reps):
        out = g(*args)
    jax.block_until_ready(out)
    return 1e6 * (time.perf_counter() - t) / reps / lanes


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", default="pyramid-12ft")
    ap.add_argument("--lanes", type=int, default=1024)
    ap.add_argument("--events", type=int, default=6, help="events run into the shots before timing")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.lanes < 1 or args.events < 0 or args.reps < 1:
        ap.error("--lanes and --reps must be positive, --events not negative")
    table = get_table(args.table)
    p = lanes_in_play(args.table, args.lanes, args.events)
    moving = int(jnp.sum(jax.vmap(S._moving)(p.loop)))
    rows = {name: round(time_part(fn, a, args.lanes, args.reps), 2) for name, (fn, a) in parts(table, p).items()}
    out = {"table": args.table, "lanes": args.lanes, "events_before": args.events, "moving_lanes": moving,
           "roots_iteration": roots.iteration_mode(), "us_per_lane": rows, "machine": machine_info(),
           "timestamp": timestamp()}
    print(f"{args.table}, {args.lanes} lanes ({moving} moving), roots {out['roots_iteration']}: µs per lane")
    for name, us in rows.items():
        print(f"  {name:44s} {us:7.2f}")
    if args.out:
        write_atomic(args.out, json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
