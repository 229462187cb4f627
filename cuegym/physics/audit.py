"""Invariant audits of simulated shots, from the final state or by replaying the event log.

The replay rebuilds every ball's state at each logged event and at points between events
(each ball moved on in closed form from its last event, as ``trace`` does) and measures the
worst pair overlap, the furthest a ball in play got outside the playable region (cushion
noses, jaws, pocket throats, bed), the largest rise of total energy from one event to the
next, and non-finite numbers. Pure JAX, jit- and vmap-able: the fuzzer
(``experiments/fuzz_physics.py``) and the regression tests (``tests/physics``) share it.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from cuegym.physics import events as ev
from cuegym.physics.balls import POCKETED, BallState
from cuegym.physics.motion import evolve
from cuegym.physics.vec import dot

SUBSTEPS = (0.25, 0.5, 0.75)  # fractions of each interval between events also checked


class Audit(NamedTuple):
    """Worst values over a shot (scalars, float64 unless said): ``overlap`` [m] deepest
    interpenetration of two balls in play (<= 0: none); ``escape`` [m] furthest a ball in
    play was outside the playable region or below the bed (<= 0: none); ``energy_rise`` [J]
    largest increase of total (kinetic + potential) energy between consecutive events;
    ``energy_rel`` the same relative to the energy before; ``nan`` bool a non-finite number
    anywhere; ``worst_event`` () int32 index of the event with the deepest overlap."""

    overlap: jnp.ndarray
    escape: jnp.ndarray
    energy_rise: jnp.ndarray
    energy_rel: jnp.ndarray
    nan: jnp.ndarray
    worst_event: jnp.ndarray


def escape_distance(table, xy):
    """(...) how far [m] centres ``xy`` (..., 2) lie inside the region a ball in play cannot
    reach (<= 0: outside it): the band within ``contact_offset`` of a cushion nose or throat
    wall (behind it included) along the segment's span, a jaw's reach, or past a drop line."""
    off = table.contact_offset
    in_span, gap = table.nose_gaps(xy)  # (..., S)
    band = jnp.max(jnp.where(in_span, -gap, -jnp.inf), -1)
    to_jaw = xy[..., None, :] - table.jaw_c
    jaw = jnp.max(table.jaw_r + off - jnp.sqrt(dot(to_jaw, to_jaw)), -1)
    past_drop = jnp.max(dot(xy[..., None, :] - table.drop_q, table.drop_n), -1)
    return jnp.maximum(jnp.maximum(band, jaw), past_drop)


def overlap_depth(r, in_play, radius):
    """() deepest overlap [m] of two balls of ``r`` (N, 3) both ``in_play`` (N,) (3-D: a flying
    ball may pass over another); -inf with fewer than two balls in play."""
    d = r[:, None] - r[None]
    dist = jnp.sqrt(dot(d, d))
    n = r.shape[0]
    pair = in_play[:, None] & in_play[None] & ~jnp.eye(n, dtype=bool)
    return jnp.max(jnp.where(pair, 2.0 * radius - dist, -jnp.inf))


def energy(balls: BallState, table):
    """() kinetic plus potential energy [J] of the balls in play."""
    inertia = 0.4 * table.mass * table.radius**2
    e = 0.5 * table.mass * dot(balls.v, balls.v) + 0.5 * inertia * dot(balls.w, balls.w)
    e = e + table.mass * table.gravity * balls.r[:, 2]
    return jnp.sum(jnp.where(balls.state < POCKETED, e, 0.0))


def _static_checks(balls: BallState, table):
    """(overlap, escape, nan) of one table state."""
    in_play = balls.state < POCKETED
    esc = jnp.where(in_play, jnp.maximum(escape_distance(table, balls.r[:, :2]), -balls.r[:, 2]), -jnp.inf)
    nan = ~(jnp.all(jnp.isfinite(balls.r)) & jnp.all(jnp.isfinite(balls.v)) & jnp.all(jnp.isfinite(balls.w)))
    return overlap_depth(balls.r, in_play, table.radius), jnp.max(esc), nan


def audit_final(table, final: BallState) -> Audit:
    """The static checks (overlap, escape, nan) of a final state; energy fields are 0."""
    o, e, nan = _static_checks(final, table)
    z = jnp.zeros(())
    return Audit(o, e, z, z, nan, jnp.asarray(-1, jnp.int32))


def audit_log(table, balls: BallState, log: ev.EventLog) -> Audit:
    """Replay ``log`` (which must hold every event: no overflow) from the starting ``balls``
    (N, ...) and audit each event and :data:`SUBSTEPS` of each interval. One shot; vmap for
    a batch. The first logged event is the strike: energy rises are counted after it."""
    n_events = jnp.minimum(log.count, log.capacity)
    n = balls.r.shape[0]
    idx = jnp.arange(n)

    def at(base, base_t, t):
        return evolve(base, table, jnp.maximum(t - base_t, 0.0))

    def body(k, c):
        base, base_t, t_prev, e_prev, worst = c
        t = log.t[k]
        o_w, e_w, nan_w = worst[0], worst[1], worst[4]
        for f in SUBSTEPS:  # between the previous event and this one, before it applies
            o, e, nan = _static_checks(at(base, base_t, t_prev + f * (t - t_prev)), table)
            o_w, e_w, nan_w = jnp.maximum(o_w, o), jnp.maximum(e_w, e), nan_w | nan
        # apply event k: the involved balls take their logged states
        kind, i, j = log.kind[k], log.ball[k], log.other[k]
        for slot, who, use in ((0, i, True), (1, j, ev.carries_other(kind, j))):
            hit = (idx == who) & use
            base = BallState(
                r=jnp.where(hit[:, None], log.r[k, slot], base.r),
                v=jnp.where(hit[:, None], log.v[k, slot], base.v),
                w=jnp.where(hit[:, None], log.w[k, slot], base.w),
                state=jnp.where(hit, log.state[k, slot], base.state),
                pocket=base.pocket,
            )
            base_t = jnp.where(hit, t, base_t)
        now = at(base, base_t, t)
        o, e, nan = _static_checks(now, table)
        en = energy(now, table)
        # a contact that moved a pressing group on is complete only after its pushed events
        nxt = jnp.minimum(k + 1, log.capacity - 1)
        complete = ~((k + 1 < n_events) & (log.kind[nxt] == ev.PUSHED))
        rise = jnp.where((k > 0) & complete, en - e_prev, -jnp.inf)
        rel = jnp.where((k > 0) & complete, rise / jnp.maximum(e_prev, 1e-300), -jnp.inf)
        en = jnp.where(complete, en, e_prev)
        worst_ev = jnp.where(o > worst[0], k, worst[5]).astype(jnp.int32)
        worst = (jnp.maximum(o_w, o), jnp.maximum(e_w, e), jnp.maximum(worst[2], rise), jnp.maximum(worst[3], rel),
                 nan_w | nan | ~jnp.isfinite(en) | ~jnp.isfinite(t), worst_ev)
        return base, base_t, t, en, worst

    ninf = jnp.asarray(-jnp.inf)
    worst = (ninf, ninf, ninf, ninf, jnp.asarray(False), jnp.asarray(-1, jnp.int32))
    start = (balls, jnp.zeros(n), jnp.asarray(0.0), energy(balls, table), worst)
    _, _, _, _, worst = jax.lax.fori_loop(0, n_events, body, start)
    return Audit(*worst)

