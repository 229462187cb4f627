"""The event loop: strike, then always advance to the earliest next event.

The candidates are ball–ball contacts (an (N, N) table of absolute times), each ball's
earliest cushion, jaw, throat-wall or drop-line crossing, and each ball's next change of
motion state. After an event only the balls involved change trajectory, so only their rows
are recomputed: an event costs two rows of root solving, not N. Ties break in a fixed order
(ball contacts, cushions, transitions; lower indices first), so results are deterministic.
The loop ends when every ball rests or is off the bed, or at ``max_events`` (``truncated``).
Pure JAX: jit- and vmap-able over tables, balls and shots; docs/physics.md has the design
and its performance.
"""

from __future__ import annotations

from functools import lru_cache, partial
from typing import NamedTuple

import jax
import jax.numpy as jnp

from cuegym.physics import candidates as C
from cuegym.physics import events as ev
from cuegym.physics.balls import AIRBORNE, BallState
from cuegym.physics.collisions import HOP_SPEED, ball_ball, collide, sustained_contact
from cuegym.physics.compact import broadcast_lanes, where_active
from cuegym.physics.motion import apply_transition, evolve, linear_acceleration, transition_times
from cuegym.physics.strike import Shot, strike
from cuegym.physics.summary import ShotSummary, in_penalty_zone, start_summary, sweep_lines
from cuegym.physics.vec import norm, pick_lanes

INF = jnp.inf
# A ball in the air balanced on a ball at rest rides it as an inverted pendulum: its offset
# grows as cosh(t / tau), tau = sqrt(2 R / g), 0.19 s per decade, on a train of
# microcollisions about 0.29 ms apart (resting.CONTACT_DEPTH). From an offset of 1e-10 rad it
# rides 2 s (12,700 events), from one at the rounding of the positions (1e-14) 4.5 s (21,000).
# A ball in the air sliding off a ball, its train of microcollisions having lost its
# amplitude in a line's contacts, takes an event every microsecond or so: 62,000 for a slide
# of 70 ms (the fuzzer's snooker 15/5342). The cap holds those, and cuts only an exactly
# balanced stack (an equilibrium that never ends) or a storm. docs/physics.md ("The ride").
DEFAULT_MAX_EVENTS = 100_000
DEFAULT_LOG_CAPACITY = 400
# under vmap a batch's ball collisions run on 1/4 of its lanes at a time, its sustained ball
# contacts on 1/8, its cushion, jaw and pocket contacts on 1/16 (compact.where_active): on a
# full rack about a third of events are ball contacts (a quarter of those sustained) and an
# eighth cushion, jaw or pocket contacts
COLLISION_EVENT_CHUNKS = 4
SUSTAINED_EVENT_CHUNKS = 8
GEOMETRY_EVENT_CHUNKS = 16


class _Zone(NamedTuple):
    """The close-ball penalty zone being watched (``ShotSummary.follow``): apex (2,) [m],
    unit line of centres u (2,), and whether the struck ball is still on its first path
    after the first contact."""

    apex: jnp.ndarray
    u: jnp.ndarray
    open: jnp.ndarray


class _Loop(NamedTuple):
    t: jnp.ndarray
    balls: BallState
    pair_t: jnp.ndarray
    geo: C.Geo
    log: ev.EventLog
    summary: ShotSummary
    zone: _Zone
    n: jnp.ndarray
    pushed: jnp.ndarray  # (N,) bool: moved on with a pressing group, candidates not yet re-solved


class _Pending(NamedTuple):
    """The loop state with the candidates of balls ``i`` and ``j`` (() int32; j == i for one
    ball) still to re-solve: the carry of a loop that re-solves at the top of each event
    instead of the bottom. A stroke from rest starts as one (:func:`_restart`), so its
    program holds the root solvers once, in the loop, with no second copy to solve the
    start (the same operations in the same order)."""

    loop: _Loop
    i: jnp.ndarray
    j: jnp.ndarray




def update_summary(s: ShotSummary, kind, i, other, t, balls) -> ShotSummary:
    """The shot summary ``s`` after one event of ``kind`` (an ``events`` code) between
    ``i`` and ``other`` at time ``t`` [s]; ``balls`` is the balls' state after it."""
    struck = s.struck
    first = (kind == ev.BALL) & (s.first_contact < 0) & ((i == struck) | (other == struck))
    first_ball = jnp.where(i == struck, other, i)
    contacted = s.first_contact >= 0
    is_cushion = kind == ev.CUSHION
    is_rail = is_cushion | (kind == ev.JAW)
    n_pocketed = jnp.sum(s.pocket_order >= 0)
    is_ball = kind == ev.BALL
    o = jnp.maximum(other, 0)
    touched = s.touched.at[i].set(s.touched[i] | is_ball)
    touched = touched.at[o].set(touched[o] | is_ball)
    new_pair = is_ball & ~jnp.isfinite(s.contact_t[i, o])
    contact_t = s.contact_t.at[i, o].set(jnp.where(new_pair, t, s.contact_t[i, o]))
    contact_t = contact_t.at[o, i].set(jnp.where(new_pair, t, contact_t[o, i]))
    contact_last = s.contact_last_t.at[i, o].set(jnp.where(is_ball, t, s.contact_last_t[i, o]))
    contact_last = contact_last.at[o, i].set(jnp.where(is_ball, t, contact_last[o, i]))
    c = jnp.clip(other, 0, s.cushion_first_t.shape[1] - 1)
    cushion_first = s.cushion_first_t.at[i, c].set(jnp.where(is_cushion, jnp.minimum(s.cushion_first_t[i, c], t), s.cushion_first_t[i, c]))
    cushion_last = s.cushion_last_t.at[i, c].set(jnp.where(is_cushion, t, s.cushion_last_t[i, c]))
    return s._replace(
        first_contact=jnp.where(first, first_ball, s.first_contact).astype(jnp.int32),
        first_contact_t=jnp.where(first, t, s.first_contact_t),
        cushions_before=s.cushions_before.at[i].add((is_cushion & ~contacted).astype(jnp.int32)),
        cushions_after=s.cushions_after.at[i].add((is_cushion & contacted).astype(jnp.int32)),
        jaws=s.jaws.at[i].add((kind == ev.JAW).astype(jnp.int32)),
        first_cushion_t=s.first_cushion_t.at[i].set(jnp.where(is_rail, jnp.minimum(s.first_cushion_t[i], t), s.first_cushion_t[i])),
        pocket=s.pocket.at[i].set(jnp.where(kind == ev.POCKET, other, s.pocket[i])),
        pocket_order=s.pocket_order.at[i].set(jnp.where(kind == ev.POCKET, n_pocketed, s.pocket_order[i]).astype(jnp.int32)),
        pocket_t=s.pocket_t.at[i].set(jnp.where(kind == ev.POCKET, t, s.pocket_t[i])),
        off_table=s.off_table.at[i].set(s.off_table[i] | (kind == ev.OFF_TABLE_EV)),
        off_table_t=s.off_table_t.at[i].set(jnp.where(kind == ev.OFF_TABLE_EV, t, s.off_table_t[i])),
        airborne=s.airborne | (balls.state == AIRBORNE),
        touched=touched,
        contact_t=contact_t,
        contact_last_t=contact_last,
        cushion_first_t=cushion_first,
        cushion_last_t=cushion_last,
    )


def _watch_zone(zone: _Zone, before: ShotSummary, after: ShotSummary, kind, i, other, balls, radius) -> _Zone:
    """Open the close-ball penalty zone at the struck ball's first contact; close it at the
    struck ball's next contact with anything (RU-GEN-35(b))."""
    c = after.struck
    opened = (before.first_contact < 0) & (after.first_contact >= 0)
    d = balls.r[after.first_contact, :2] - balls.r[c, :2]
    u = d * (1.0 / jnp.maximum(norm(d), 1e-12))
    involved = (i == c) | ((kind == ev.BALL) & (other == c))
    contact = (kind == ev.BALL) | (kind == ev.CUSHION) | (kind == ev.JAW) | (kind == ev.POCKET) | (kind == ev.OFF_TABLE_EV)
    closes = zone.open & involved & contact
    return _Zone(
        apex=jnp.where(opened, balls.r[c, :2], zone.apex),
        u=jnp.where(opened, u, zone.u),
        open=opened | (zone.open & ~closes),
    )


def _struck(table, balls: BallState, shot: Shot, log_capacity: int):
    """The cue strike: (struck BallState, EventLog holding the strike, ShotSummary, _Zone)."""
    struck_balls, miscue = strike(balls, shot, table)
    log = ev.empty_log(log_capacity)
    log = ev.record(log, jnp.asarray(ev.STRIKE, jnp.int32), 0.0, shot.cue_ball, jnp.asarray(-1, jnp.int32), struck_balls)
    flying = struck_balls.state[shot.cue_ball] == AIRBORNE
    lifted = ev.record(log, jnp.asarray(ev.AIRBORNE_EV, jnp.int32), 0.0, shot.cue_ball, jnp.asarray(-1, jnp.int32), struck_balls)
    log = jax.tree_util.tree_map(lambda a, b: jnp.where(flying, a, b), lifted, log)
    # after the strike: same positions, and a ball the cue lifted counts as airborne
    summary = start_summary(struck_balls, shot.cue_ball, shot.phi, miscue, table.radius)
    zone = _Zone(jnp.zeros(2), jnp.zeros(2), jnp.asarray(False))
    return struck_balls, log, summary, zone


def _start(table, balls: BallState, shot: Shot, log_capacity: int) -> _Loop:
    """The loop state right after the strike, every candidate solved (balls in any motion)."""
    n_balls = balls.r.shape[0]
    struck_balls, log, summary, zone = _struck(table, balls, shot, log_capacity)
    acc = linear_acceleration(struck_balls, table)
    trans_dt = transition_times(struck_balls, table)
    geo = C.Geo(*C.geometry(struck_balls, acc, trans_dt, table))
    own = C.own_events(trans_dt, geo, 0.0)
    rows = C.pair_rows(struck_balls, acc, trans_dt, jnp.arange(n_balls), table, own)
    pair_t = jnp.minimum(rows, rows.T)
    return _Loop(jnp.asarray(0.0), struck_balls, pair_t, geo, log, summary, zone, jnp.asarray(0, jnp.int32),
                 jnp.zeros(n_balls, bool))


def _restart(table, balls: BallState, shot: Shot, log_capacity: int) -> _Pending:
    """The loop state right after the strike on a layout at rest, with no candidate solved
    yet, pending the struck ball's (twice: ``i == j``), which :func:`_resolve` solves.

    On a layout at rest only the struck ball moves after the strike, so its pair row and
    geometry entry are the only finite candidates: resolving them gives exactly the state
    :func:`_start` builds, at the cost of one event instead of N pair rows.
    """
    n_balls = balls.r.shape[0]
    struck_balls, log, summary, zone = _struck(table, balls, shot, log_capacity)
    geo = C.Geo(jnp.full(n_balls, INF), jnp.zeros(n_balls, jnp.int32), jnp.zeros(n_balls, jnp.int32),
               jnp.zeros((n_balls, 2)))
    s = _Loop(jnp.asarray(0.0), struck_balls, jnp.full((n_balls, n_balls), INF), geo, log, summary, zone,
              jnp.asarray(0, jnp.int32), jnp.zeros(n_balls, bool))
    cue = jnp.asarray(shot.cue_ball, jnp.int32)
    return _Pending(s, cue, cue)


def _moving(s: _Loop):
    return jnp.any(s.balls.moving)


def _running(s: _Loop, max_events: int):
    """() bool: a ball still moves and fewer than ``max_events`` events have run."""
    return _moving(s) & (s.n < max_events)


def _event(table, p: _Pending, throw: bool, live=True) -> _Pending:
    """``p``'s pending candidates re-solved, then the loop moved to its next event and the
    event applied (its balls' candidates pending): one iteration of a loop that re-solves
    at the top."""
    return _Pending(*_advance(table, _resolve(table, *p), throw, live))


def _advance(table, s: _Loop, throw: bool, live=True):
    """Move every ball to the next event and apply it (the event is logged and summarised).

    A ball contact may move a pressing group on (``collisions.pressing_group``): each ball
    of it beyond the pair then takes a ``pushed`` event at the same instant, two balls to an
    event (``ball`` and ``other``), before any other, which logs their new motion and has
    their candidates re-solved.

    ``live`` () bool: False leaves the log's event rows as they are (a stopped lane of a
    batched loop, whose other results the loop discards).

    Returns (the loop state at the event, with the candidates of the balls involved not yet
    re-solved, and those balls i, j (j == i for a single-ball event)).
    """
    n_balls = s.balls.r.shape[0]
    b = s.balls
    acc = linear_acceleration(b, table)
    trans_dt = transition_times(b, table)
    geo = s.geo
    flat = jnp.argmin(s.pair_t)
    pi, pj = flat // n_balls, flat % n_balls
    t_pair = s.pair_t[pi, pj]
    gi = jnp.argmin(geo.t)
    ti = jnp.argmin(trans_dt)
    t_geo = geo.t[gi]
    t_trans = s.t + trans_dt[ti]
    t_next = jnp.minimum(t_pair, jnp.minimum(t_geo, t_trans))
    which = jnp.where(t_pair <= t_next, 0, jnp.where(t_geo <= t_next, 1, 2))
    dt = jnp.maximum(t_next - s.t, 0.0)
    summ = sweep_lines(s.summary, b.r, b.v, acc, t_next, dt, table.centre_line, table.head_line)
    c = summ.struck
    half = 0.5 * dt
    mid = b.r[c, :2] + b.v[c, :2] * half + 0.5 * acc[c, :2] * half * half
    end = b.r[c, :2] + b.v[c, :2] * dt + 0.5 * acc[c, :2] * dt * dt
    zone = s.zone
    entered = zone.open & (in_penalty_zone(mid, zone.apex, zone.u, table.radius) | in_penalty_zone(end, zone.apex, zone.u, table.radius))
    summ = summ._replace(follow=summ.follow | entered)
    b = evolved = evolve(b, table, dt)

    # the costliest branches, so under vmap only the lanes whose event it is run them (a
    # lane at rest has no event: its candidates are all +inf; a lane on a pushed balls'
    # turn keeps its balls as they are)
    turn = jnp.any(s.pushed)
    moving = _moving(s) & live & ~turn
    contact = (which == 0) & moving
    sustained = sustained_contact(b, pi, pj)
    collision = where_active(lambda b, i, j: collide(b, i, j, table, throw), COLLISION_EVENT_CHUNKS)
    pressing = where_active(lambda b, i, j: ball_ball(b, i, j, table, throw), SUSTAINED_EVENT_CHUNKS)
    after_pair = pressing(contact & sustained, collision(contact & ~sustained, b, pi, pj), pi, pj)
    fixed = where_active(lambda b, i, g: C.apply_geometry(b, i, g, table), GEOMETRY_EVENT_CHUNKS)
    after_geo = fixed((which == 1) & moving, b, gi, geo)
    after_trans, trans_kind = apply_transition(b, ti, table, HOP_SPEED)
    pick = lambda x, y, z: jnp.where(which == 0, x, jnp.where(which == 1, y, z))  # noqa: E731
    b = jax.tree_util.tree_map(pick, after_pair, after_geo, after_trans)
    i = pick(pi, gi, ti).astype(jnp.int32)
    j = jnp.where(which == 0, pj, i).astype(jnp.int32)
    kind = pick(jnp.asarray(ev.BALL), geo.kind[gi], trans_kind).astype(jnp.int32)
    other = jnp.where(which == 0, pj, jnp.where(which == 1, geo.other[gi], -1)).astype(jnp.int32)

    before = summ
    summ = update_summary(summ, kind, i, other, t_next, b)
    zone = _watch_zone(zone, before, summ, kind, i, other, b, table.radius)
    ids = jnp.arange(n_balls)
    changed = jnp.any(b.v != evolved.v, -1) | jnp.any(b.w != evolved.w, -1) | (b.state != evolved.state)
    pushed = (which == 0) & changed & (ids != i) & (ids != j)
    # pushed balls' turn, two at a time (an event re-solves two balls' candidates): nothing
    # moves, their motion is logged and their candidates re-solved
    k = jnp.argmax(s.pushed).astype(jnp.int32)
    rest = s.pushed & (ids != k)
    k2 = jnp.where(jnp.any(rest), jnp.argmax(rest), k).astype(jnp.int32)
    keep = lambda x, y: jnp.where(turn, x, y)  # noqa: E731
    t_next = keep(s.t, t_next)
    b = jax.tree_util.tree_map(keep, s.balls, b)
    summ = jax.tree_util.tree_map(keep, s.summary, summ)
    zone = jax.tree_util.tree_map(keep, s.zone, zone)
    kind, i, j = keep(ev.PUSHED, kind), keep(k, i), keep(k2, j)
    other = keep(jnp.where(k2 != k, k2, -1), other)
    pushed = jnp.where(turn, rest & (ids != k2), pushed)
    log = ev.record(s.log, kind, t_next, i, other, b, live)
    return _Loop(t_next, b, s.pair_t, geo, log, summ, zone, s.n + 1, pushed), i, j


def _resolve(table, s: _Loop, i, j) -> _Loop:
    """Re-solve the candidates of balls ``i`` and ``j`` (the only ones whose motion changed)
    from their motion at ``s.t``: two pair rows and two geometry entries, the costly part of
    an event (quartic roots)."""
    b = s.balls
    acc = linear_acceleration(b, table)
    trans_dt = transition_times(b, table)
    geo = C.geometry_of(b, acc, trans_dt, jnp.stack([i, j]), s.t, table, s.geo)
    own = C.own_events(trans_dt, geo, s.t)
    # both rows in one solve: one copy of the quartic solver in the program
    rows = C.pair_rows(b, acc, trans_dt, jnp.stack([i, j]), table, own)
    pair_t = C.set_rows(s.pair_t, i, s.t + rows[0], j, s.t + rows[1])
    return s._replace(pair_t=pair_t, geo=geo)


def _finish(s: _Loop):
    """(final BallState, EventLog, ShotSummary) of a finished or capped loop."""
    log = s.log._replace(truncated=_moving(s))
    return s.balls, log, s.summary._replace(end_t=s.t)


def simulate_one(table, balls: BallState, shot: Shot, max_events: int = DEFAULT_MAX_EVENTS,
                  log_capacity: int = DEFAULT_LOG_CAPACITY, throw: bool = True, at_rest: bool = False):
    """Strike ``shot`` on ``balls`` and run until everything rests (unjitted core).

    Args:
      table: a compiled :class:`~cuegym.physics.tables.Table` (static: one compile per table).
      balls: :class:`BallState` with N balls (absent balls in the off-table state).
      shot: :class:`~cuegym.physics.strike.Shot` (scalars).
      max_events: event cap; reaching it with balls moving sets ``log.truncated``.
      log_capacity: events kept in the log (the summary is exact regardless).
      throw: ball–ball friction on (cut- and spin-induced throw) or off.
      at_rest: (static) the caller guarantees that every ball of ``balls`` rests
        (stationary, pocketed or off the table), as at every stroke of a game. The start
        then solves the struck ball's candidates alone, inside the loop: the same bytes,
        with one copy of the root solvers in the program instead of two (a shorter
        compile). On a layout with a moving ball the result would be wrong.

    Returns:
      (final BallState, EventLog, ShotSummary).
    """
    if at_rest:
        return _finish(_settle(table, max_events, throw, True)(_restart(table, balls, shot, log_capacity)).loop)
    state = _start(table, balls, shot, log_capacity)
    return _finish(_settle(table, max_events, throw)(state))


@lru_cache(maxsize=None)
def _settle(table, max_events: int, throw: bool, pending: bool = False):
    """The event loop from a started :class:`_Loop` (``pending``: a :class:`_Pending`) to
    rest or the cap, as a function of the loop state, with its own batching rule
    (``jax.custom_batching.custom_vmap``).

    Under ``vmap`` JAX batches a ``while_loop`` by re-batching its body until it knows which
    parts of the carry are batched, and each of those passes re-batches the root solvers'
    inner loops. The rule below states the answer instead (every lane batched): the loop
    runs while any lane moves, and each iteration advances every lane and keeps the result
    where the lane was still moving, which is what JAX's own rule computes, in the same
    operations (same bytes, tests/physics/test_determinism.py). Measured side by side on a
    quiet machine (a 64-table pyramid batch): tracing 1.8–2.1 s -> 1.4–1.5 s; compile and
    run times unchanged within their spread.
    """

    def running(s):
        # re-solving changes neither the balls nor the count: a pending state is judged as is
        return _running(s.loop if pending else s, max_events)

    def body(s, live=True):
        return _event(table, s, throw, live) if pending else _resolve(table, *_advance(table, s, throw, live))

    def log_of(s):
        return s.loop.log if pending else s.log

    def with_log(s, log):
        return s._replace(loop=s.loop._replace(log=log)) if pending else s._replace(log=log)

    def step_lanes(c):
        # every lane advances and a stopped lane keeps its state, except the log's event
        # rows: a stopped lane writes its own row back (events.record's ``live``), so the
        # rows are updated in place. Selected whole, every row of every lane would be
        # copied at every event: with a log of 8,000 events that made a loop 4.5 times slower
        run = running_v(c)
        new = jax.vmap(body)(c, run)
        out = pick_lanes(run, with_log(new, None), with_log(c, None))
        rows, old = log_of(new), log_of(c)
        log = rows._replace(**{f: jnp.where(run, getattr(rows, f), getattr(old, f)) for f in ("count", "overflow")})
        return with_log(out, log)

    @jax.custom_batching.custom_vmap
    def settle(s: _Loop) -> _Loop:
        return jax.lax.while_loop(running, body, s)

    running_v = jax.vmap(running)

    @settle.def_vmap
    def settle_lanes(axis_size, in_batched, s: _Loop):
        (batched,) = in_batched
        s = broadcast_lanes(axis_size, s, batched)
        out = jax.lax.while_loop(lambda c: jnp.any(running_v(c)), step_lanes, s)
        return out, jax.tree_util.tree_map(lambda _: True, out)

    return settle


@partial(jax.jit, static_argnames=("table", "max_events", "log_capacity", "throw"))
def simulate_batch(table, balls: BallState, shots: Shot, max_events: int = DEFAULT_MAX_EVENTS,
                   log_capacity: int = DEFAULT_LOG_CAPACITY, throw: bool = True):
    """``simulate`` over a leading batch axis of ``balls`` ((B, N, ...)) and ``shots`` ((B,)).

    Returns the same triple as :func:`simulate` with a leading batch axis on every array.
    """
    fn = lambda b, s: simulate_one(table, b, s, max_events, log_capacity, throw)  # noqa: E731
    return jax.vmap(fn)(balls, shots)


@partial(jax.jit, static_argnames=("table", "max_events", "log_capacity", "throw"))
def simulate(table, balls: BallState, shot: Shot, max_events: int = DEFAULT_MAX_EVENTS,
             log_capacity: int = DEFAULT_LOG_CAPACITY, throw: bool = True):
    """Strike ``shot`` on ``balls`` and run until everything rests.

    Args:
      table: a compiled :class:`~cuegym.physics.tables.Table` (static: one compile per table).
      balls: :class:`BallState` with N balls (absent balls in the off-table state).
      shot: :class:`~cuegym.physics.strike.Shot` (scalars).
      max_events: event cap; reaching it with balls moving sets ``log.truncated``.
      log_capacity: events kept in the log (the summary is exact regardless).
      throw: ball–ball friction on (cut- and spin-induced throw) or off.

    Returns:
      (final BallState, EventLog, ShotSummary).

    A single shot runs as a batch of one through the same vmapped program as
    :func:`simulate_batch`: XLA fuses an unbatched program differently (floating-point
    contraction and reduction order), and the batched and single results must be the same
    bytes (docs/determinism.md).
    """
    add_axis = lambda x: jnp.asarray(x)[None]  # noqa: E731
    out = simulate_batch(table, jax.tree_util.tree_map(add_axis, balls), jax.tree_util.tree_map(add_axis, shot),
                         max_events=max_events, log_capacity=log_capacity, throw=throw)
    return jax.tree_util.tree_map(lambda x: x[0], out)
