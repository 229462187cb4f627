"""Many shots over refilling lanes: the throughput path of the event loop.

Under ``vmap`` a batch of shots runs until its slowest shot rests; here each lane takes the
next shot as soon as its own ends, and the long shots of the tail move into programs of
fewer lanes (:func:`simulate_many`). A shot run this way is the same bytes as
:func:`cuegym.physics.simulate` of it. docs/physics.md ("Performance") has the figures.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.physics.balls import POCKETED, STATIONARY, BallState
from cuegym.physics.simulate import (
    DEFAULT_LOG_CAPACITY,
    DEFAULT_MAX_EVENTS,
    _event,
    _finish,
    _Pending,
    _restart,
    _running,
)
from cuegym.physics.strike import Shot
from cuegym.physics.vec import pick_lanes


class _Lanes(NamedTuple):
    """The lanes of :func:`simulate_many` between two compiled calls (L lanes, S shots).

    state: :class:`_Pending` (L, ...) each lane's table (the event loop's state, the
    candidates its next event re-solves first); shot (L,) int32 the shot each lane
    holds (>= S: idle); next () int32 the next shot to hand out; out: (final, log,
    summary) with a leading axis S, the results handed in so far; iterations () int32 the
    loop iterations run at this lane count.
    """

    state: _Pending
    shot: jnp.ndarray
    next: jnp.ndarray
    out: tuple
    iterations: jnp.ndarray


def _take(tree, idx, n_shots):
    return jax.tree_util.tree_map(lambda x: x[jnp.minimum(idx, n_shots - 1)], tree)


@partial(jax.jit, static_argnames=("table", "lanes", "log_capacity"))
def _lanes_start(table, balls: BallState, shots: Shot, lanes: int, log_capacity: int) -> _Lanes:
    """``lanes`` lanes holding shots 0 .. lanes - 1 (struck, the struck ball's candidates
    pending), nothing handed in."""
    n_shots = shots.phi.shape[0]
    restart = jax.vmap(lambda b, sh: _restart(table, b, sh, log_capacity))
    shot = jnp.arange(lanes, dtype=jnp.int32)
    state = restart(_take(balls, shot, n_shots), _take(shots, shot, n_shots))
    # strong types: the loop's carry comes out of _lanes_run strongly typed, and a weak-typed
    # first stage would be a second signature, compiled again at the same lane count
    state = jax.tree_util.tree_map(lambda x: jax.lax.convert_element_type(x, x.dtype), state)
    out = jax.tree_util.tree_map(lambda x: jnp.zeros((n_shots,) + x.shape[1:], x.dtype),
                                 jax.eval_shape(jax.vmap(_finish), state.loop))
    return _Lanes(state, shot, jnp.asarray(lanes, jnp.int32), out, jnp.asarray(0, jnp.int32))


@partial(jax.jit, static_argnames=("table", "max_events", "log_capacity", "throw"), donate_argnames=("lanes",))
def _lanes_run(table, balls: BallState, shots: Shot, lanes: _Lanes, floor, max_events: int, log_capacity: int,
               throw: bool) -> _Lanes:
    """Run the lanes until every shot is handed out and at most ``floor`` () lanes are still
    live (``floor`` 0: to the end). The lane count is the leading axis of ``lanes.state``."""
    n_shots = shots.phi.shape[0]
    restart = jax.vmap(lambda b, sh: _restart(table, b, sh, log_capacity))
    # each iteration re-solves a lane's pending candidates, then advances it to its next event
    event = jax.vmap(lambda p: _event(table, p, throw))
    finish = jax.vmap(_finish)
    running = jax.vmap(lambda p: _running(p.loop, max_events))

    def cond(c: _Lanes):
        live = jnp.sum(c.shot < n_shots)
        return (live > 0) & ((c.next < n_shots) | (live > floor))

    def body(c: _Lanes):
        s, shot, nxt, out = c.state, c.shot, c.next, c.out
        live = shot < n_shots
        done = live & ~running(s)
        # a finished lane hands in its result and takes the next shot, in shot order
        slot = jnp.where(done, shot, n_shots)  # n_shots: out of range, dropped
        out = jax.tree_util.tree_map(lambda o, r: o.at[slot].set(r, mode="drop"), out, finish(s.loop))
        new = jnp.where(done, nxt + jnp.cumsum(done, dtype=jnp.int32) - 1, shot)
        nxt = nxt + jnp.sum(done, dtype=jnp.int32)
        fresh = restart(_take(balls, new, n_shots), _take(shots, new, n_shots))
        # a lane that takes a new shot starts it with its struck ball's candidates pending
        s2 = pick_lanes(done, fresh, event(s))
        return _Lanes(pick_lanes(live, s2, s), new, nxt, out, c.iterations + 1)

    return jax.lax.while_loop(cond, body, lanes)


@jax.jit
def _gather_lanes(state: _Pending, shot, idx, idle, n_shots):
    """Lanes ``idx`` (L',) of ``state``; ``idle`` (L',) marks the padding lanes (shot S)."""
    moved = jax.tree_util.tree_map(lambda x: x[idx], state)
    return moved, jnp.where(idle, n_shots, shot[idx]).astype(jnp.int32)


def _compact(lanes: _Lanes, size: int, n_shots: int) -> _Lanes:
    """The live lanes of ``lanes`` moved into ``size`` lanes (the rest idle), on the host's
    word: which lanes are live is read back between two compiled calls. A lane's table moves
    whole, so its shot goes on bit for bit."""
    live = np.flatnonzero(np.asarray(lanes.shot) < n_shots)
    if live.size > size:
        raise AssertionError(f"{live.size} live lanes do not fit in {size}")
    idx = np.concatenate([live, np.full(size - live.size, live[0] if live.size else 0)]).astype(np.int32)
    idle = np.arange(size) >= live.size
    state, shot = _gather_lanes(lanes.state, lanes.shot, idx, idle, jnp.asarray(n_shots, jnp.int32))
    return _Lanes(state, shot, lanes.next, lanes.out, jnp.asarray(0, jnp.int32))


def lane_schedule(lanes: int, tail_lanes: int) -> list[int]:
    """Lane counts of :func:`simulate_many`'s stages: ``lanes``, then a quarter of it at each
    step while that is at least ``tail_lanes`` (1024, 16 -> [1024, 256, 64, 16])."""
    sizes = [lanes]
    while sizes[-1] // 4 >= max(tail_lanes, 1):
        sizes.append(sizes[-1] // 4)
    return sizes


def simulate_lanes(table, balls: BallState, shots: Shot, lanes: int, max_events: int, log_capacity: int,
                   throw: bool, tail_lanes: int = 16):
    """:func:`simulate_many` without the input check; returns (its result, [(lane count,
    loop iterations) per stage])."""
    n_shots = shots.phi.shape[0]
    sizes = lane_schedule(lanes, tail_lanes)
    c = _lanes_start(table, balls, shots, sizes[0], log_capacity)
    stages = []
    for k, size in enumerate(sizes):
        if k:
            c = _compact(c, size, n_shots)
        floor = sizes[k + 1] if k + 1 < len(sizes) else 0
        # keywords as the bench's warm-up passes them: jit caches positional and keyword calls apart
        c = _lanes_run(table, balls, shots, c, jnp.asarray(floor, jnp.int32), max_events=max_events,
                       log_capacity=log_capacity, throw=throw)
        stages.append((size, c.iterations))
    return c.out, [(size, int(it)) for size, it in stages]


def simulate_many(table, balls: BallState, shots: Shot, lanes: int = 256, max_events: int = DEFAULT_MAX_EVENTS,
                  log_capacity: int = DEFAULT_LOG_CAPACITY, throw: bool = True, tail_lanes: int = 16):
    """Simulate S shots on ``lanes`` tables at once, each lane taking the next shot as soon
    as its own ends: the throughput path for large numbers of shots.

    Under ``vmap`` a ``while_loop`` runs until its slowest table rests, so in
    :func:`simulate_batch` a batch costs its longest shot times the batch size (event
    counts are heavy-tailed: a median of ~10 events, a 99th percentile near 250 on a full
    rack). Here the loop runs over lanes, and a lane whose shot has ended hands in its
    result and restarts on the next shot in the same iteration. A restart re-solves one
    ball's candidates (the struck ball: every other ball is at rest), the same work as an
    event. Once every shot is handed out, lanes fall idle as their shots end, and the long
    shots of the tail would keep all ``lanes`` lanes iterating; so when no more than a
    quarter of the lanes are live, the live ones move into a program of a quarter the
    lanes, and so on down to ``tail_lanes`` (:func:`lane_schedule`; one compile per lane
    count).

    Args:
      table: a compiled :class:`~cuegym.physics.tables.Table` (static).
      balls: :class:`BallState` (S, N, ...): layouts at rest (positions, as position files
        and racks give them); moving or airborne balls raise ``ValueError``.
      shots: :class:`~cuegym.physics.strike.Shot` (S,).
      lanes: tables simulated at once (static; one compile per value).
      max_events, log_capacity, throw: as :func:`simulate`.
      tail_lanes: the smallest lane count the tail is moved into (``lanes`` or more: no
        compaction).

    Returns:
      (final BallState, EventLog, ShotSummary), each with a leading axis of S in shot order;
      shot ``k``'s result is the same bytes as ``simulate`` of shot ``k`` alone.
    """
    for name, value in (("lanes", lanes), ("tail_lanes", tail_lanes)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name}: a positive integer, got {value!r}")
    if isinstance(balls.v, jax.core.Tracer):
        raise ValueError("balls: simulate_many runs compiled stages from the host; call it outside jit "
                         "(simulate_batch is the traceable batch)")
    v, w, state = (jax.device_get(x) for x in (balls.v, balls.w, balls.state))
    still = (v == 0).all(axis=(-2, -1)) & (w == 0).all(axis=(-2, -1)) & ((state == STATIONARY) | (state >= POCKETED)).all(-1)
    if not still.all():
        bad = int(np.flatnonzero(~still)[0])
        raise ValueError(f"balls: layout {bad} has a moving or airborne ball; simulate_many takes layouts at rest "
                         "(use simulate_batch for balls in motion)")
    return simulate_lanes(table, balls, shots, lanes, max_events, log_capacity, throw, tail_lanes)[0]
