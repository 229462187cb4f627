"""Positions at fixed frame times, rebuilt from the event log and the closed-form motion.

A ball's trajectory only changes at events that involve it, and the log stores each
involved ball's full state right after the event, so the state of every ball at any time
is its state after its last event, moved on analytically (``motion.evolve``). This runs
outside ``jit`` (it is for drawing, replays and tests) and needs the whole shot in the log
(``log.overflow`` false).
"""

from __future__ import annotations

import jax
import numpy as np

from cuegym.physics import events as ev
from cuegym.physics.balls import BallState
from cuegym.physics.motion import evolve

_evolve = jax.jit(evolve, static_argnames="table")


def _walk(balls: BallState, log):
    if bool(log.overflow):
        raise ValueError("the event log overflowed; simulate with a larger log_capacity to trace")
    base = {f: np.array(getattr(balls, f)) for f in BallState._fields}
    base_t = np.zeros(base["r"].shape[0])
    count = int(log.count)
    kinds, ball, other = np.asarray(log.kind), np.asarray(log.ball), np.asarray(log.other)
    lr, lv, lw, ls = (np.asarray(x) for x in (log.r, log.v, log.w, log.state))
    for k in range(count):
        involved = [(int(ball[k]), 0)]
        if ev.carries_other(kinds[k], other[k]):
            involved.append((int(other[k]), 1))
        for idx, slot in involved:
            base["r"][idx], base["v"][idx], base["w"][idx] = lr[k, slot], lv[k, slot], lw[k, slot]
            base["state"][idx] = ls[k, slot]
            base_t[idx] = log.t[k]
            if kinds[k] == ev.POCKET:
                base["pocket"][idx] = other[k]
        yield k, (BallState(**{f: base[f].copy() for f in BallState._fields}), base_t.copy())


def positions_at(table, balls: BallState, log, times) -> np.ndarray:
    """(T, N, 3) ball centres at ``times`` (seconds from the strike, ascending)."""
    times = np.asarray(times, float)
    out = np.zeros((len(times), balls.r.shape[0], 3))
    snaps = list(_walk(balls, log))
    k = -1
    for ti, t in enumerate(times):
        while k + 1 < len(snaps) and float(log.t[snaps[k + 1][0]]) <= t:
            k += 1
        if k < 0:
            state, base_t = balls, np.zeros(balls.r.shape[0])
        else:
            state, base_t = snaps[k][1]
        moved = _evolve(state, table=table, dt=np.maximum(t - base_t, 0.0))
        out[ti] = np.asarray(moved.r)
    return out


def trace(table, balls: BallState, log, dt: float = 1 / 60) -> tuple[np.ndarray, np.ndarray]:
    """Frames every ``dt`` seconds from the strike to the last event.

    Returns (times (T,), positions (T, N, 3)).
    """
    end = float(log.t[int(log.count) - 1]) if int(log.count) else 0.0
    times = np.arange(0.0, end + dt, dt)
    return times, positions_at(table, balls, log, times)


def states_at_events(table, balls: BallState, log) -> list[BallState]:
    """The whole table's state right after each logged event (for energy checks)."""
    out = []
    for k, (state, base_t) in _walk(balls, log):
        out.append(_evolve(state, table=table, dt=np.maximum(float(log.t[k]) - base_t, 0.0)))
    return out
