"""The candidates of the event loop: when each pair of balls next touches, and when each ball
next meets the table's fixed geometry (cushion noses, jaws, throat walls, drop lines).

An event re-solves only the two balls it changed. Quadratics (lines) are solved for every
ball; quartics (pairs, jaws) only where a screen cannot rule a contact out before the
balls' next events of their own (``screen``). docs/physics.md ("Performance", "Screened
candidates").
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from cuegym.physics import events as ev
from cuegym.physics.balls import AIRBORNE, OFF_TABLE, POCKETED, STATIONARY, BallState
from cuegym.physics.collisions import cushion
from cuegym.physics.cushion.han_2005 import nose_angle
from cuegym.physics.resting import CONTACT_DEPTH
from cuegym.physics.roots import INF, first_descending_root_quadratic
from cuegym.physics.screen import clear_of_contact, first_contacts
from cuegym.physics.vec import dot, norm

# the quartics a screen leaves (screen.first_contacts) are solved 1/16 of a batch's pair
# quartics at a time, and 1/64 of its jaw quartics (a jaw is rarely left: about 1 in 3,000)
PAIR_CHUNKS = 16
JAW_CHUNKS = 64


class Geo(NamedTuple):
    """Each ball's next contact with the fixed geometry: absolute time ``t`` (N,) [s] (+inf:
    none before its next transition), event ``kind`` (N,), cushion or pocket id ``other``
    (N,), and contact ``normal`` (N, 2)."""

    t: jnp.ndarray
    kind: jnp.ndarray
    other: jnp.ndarray
    normal: jnp.ndarray


def own_events(trans_dt, geo: Geo, now):
    """(N,) [s] from ``now``: each ball's next event of its own, its transition (``trans_dt``
    (N,), from now) or its geometry entry (``geo``, absolute times). Only the ball's own
    motion changes these, and each of them re-solves its candidates: the window its pairs
    are screened over (:func:`pair_rows`)."""
    return jnp.minimum(trans_dt, geo.t - now)


def pair_rows(balls: BallState, acc, trans_dt, idx, table, own):
    """(K, N) time from now until each ball of ``idx`` (K,; repeats allowed) first touches
    each other ball (+inf: never).

    ``own`` (N,) [s]: each ball's next event of its own from now (a transition, a cushion,
    jaw or pocket). A pair that cannot touch before the first of its two balls' own events
    is not solved (+inf): that event re-solves the pair before its time could come
    (``screen``; docs/physics.md, "Screened candidates"). The rows are one broadcast
    rather than a ``vmap``, so the solver's batching rule is traced once, for the lanes."""
    row = lambda x: x[idx][:, None]  # noqa: E731  (K, 1, ...): ball idx[k] against all
    p = balls.r[None] - row(balls.r)
    v = balls.v[None] - row(balls.v)
    a = acc[None] - row(acc)
    d = 2.0 * table.radius
    d2 = d**2
    c4 = 0.25 * dot(a, a)
    c3 = dot(v, a)
    c2 = dot(v, v) + dot(p, a)
    c1 = 2.0 * dot(p, v)
    c0 = dot(p, p) - d2
    horizon = jnp.minimum(trans_dt[None], row(trans_dt))
    # a pair in contact collides again once closed by CONTACT_DEPTH: |p|^2 - d^2 = -(2 d e - e^2)
    depth = (2.0 * d - CONTACT_DEPTH) * CONTACT_DEPTH
    in_play = balls.state < POCKETED
    moving = balls.state != STATIONARY
    valid = in_play[None] & row(in_play) & (moving[None] | row(moving)) & (jnp.arange(p.shape[1])[None] != idx[:, None])
    c = (c0, c1, c2, c3, c4)
    # a row repeated in idx (j == i: an event of one ball) is solved once, then copied
    first = jnp.argmax(idx[:, None] == idx[None, :], axis=1)
    repeat = (first != jnp.arange(idx.shape[0]))[:, None]
    screened = ~valid | repeat | clear_of_contact(c, _window(jnp.minimum(own[None], row(own)), horizon))
    return first_contacts(c, horizon, depth, screened, PAIR_CHUNKS)[first]


def _window(first_event, horizon):
    """[s] the window a candidate is screened over: up to ``first_event`` (the earliest
    event that re-solves it), padded so that a contact within rounding of that event is
    still solved, and never past the solver's own window (``horizon``, +inf read as 1e3 s,
    as ``roots.first_descending_root_quartic`` reads it)."""
    padded = first_event * (1.0 + 1e-6) + 1e-9
    return jnp.minimum(padded, jnp.where(jnp.isfinite(horizon), horizon, 1e3))


def geometry(balls: BallState, acc, trans_dt, table):
    """Each ball's earliest contact with the table's fixed geometry.

    Returns (dt (N,), kind (N,) event kind, other (N,) cushion or pocket id, normal (N, 2)).
    """
    r, v, a = balls.r[:, :2], balls.v[:, :2], acc[:, :2]
    off = table.contact_offset
    horizon = trans_dt[:, None]
    # cushion noses and throat walls: signed distance minus contact offset, a quadratic
    n = table.seg_n[None]
    rel = r[:, None] - table.seg_a[None]
    c0 = dot(rel, n) - off
    c1 = dot(v[:, None], n)
    c2 = 0.5 * dot(a[:, None], n)
    t_seg = first_descending_root_quadratic(c0, c1, c2, horizon)
    ts = jnp.where(jnp.isfinite(t_seg), t_seg, 0.0)[..., None]
    at = r[:, None] + v[:, None] * ts + 0.5 * a[:, None] * ts * ts
    span = table.seg_b - table.seg_a
    frac = dot(at - table.seg_a[None], span[None]) * (1.0 / dot(span, span))[None]
    # a ball behind a wall's line is not "touching and approaching" it (the root at 0), but a
    # curved path can cross the line beside the wall and come back onto its front (t > 0)
    t_seg = jnp.where((frac >= 0) & (frac <= 1) & ((c0 > -off) | (t_seg > 0)), t_seg, INF)
    # jaw circles: squared distance minus (jaw radius + offset)^2, a quartic
    p = r[:, None] - table.jaw_c[None]
    vv = jnp.broadcast_to(v[:, None], p.shape)
    aa = jnp.broadcast_to(a[:, None], p.shape)
    reach = (table.jaw_r + off)[None] ** 2
    # drop lines: the centre crossing into the pocket
    dn = table.drop_n[None]
    relq = r[:, None] - table.drop_q[None]
    t_drop = first_descending_root_quadratic(
        -dot(relq, dn), -dot(v[:, None], dn), -0.5 * dot(a[:, None], dn), horizon
    )
    c_jaw = (dot(p, p) - reach, 2.0 * dot(p, vv), dot(vv, vv) + dot(p, aa), dot(vv, aa), 0.25 * dot(aa, aa))
    # a jaw met after a nose, wall or drop line (or the transition) is never the earliest
    moving = (balls.state < POCKETED) & (balls.state != STATIONARY)  # in play and moving
    sooner = jnp.minimum(jnp.min(t_seg, -1), jnp.min(t_drop, -1))[:, None]
    screened = ~moving[:, None] | clear_of_contact(c_jaw, _window(sooner, horizon))
    t_jaw = first_contacts(c_jaw, horizon, 0.0, screened, JAW_CHUNKS)
    all_t = jnp.concatenate([t_seg, t_jaw, t_drop], -1)  # (N, S + J + P)
    k = jnp.argmin(all_t, -1)
    dt = jnp.take_along_axis(all_t, k[:, None], -1)[:, 0]
    S, J = t_seg.shape[-1], t_jaw.shape[-1]
    is_seg, is_jaw = k < S, (k >= S) & (k < S + J)
    seg = jnp.clip(k, 0, S - 1)
    jaw = jnp.clip(k - S, 0, J - 1)
    pocket = jnp.clip(k - S - J, 0, t_drop.shape[-1] - 1)
    # contact normal at the event time
    tt = jnp.where(jnp.isfinite(dt), dt, 0.0)[:, None]
    pos = r + v * tt + 0.5 * a * tt * tt
    to_ball = pos - table.jaw_c[jaw]
    jaw_normal = to_ball * (1.0 / jnp.maximum(norm(to_ball), 1e-12))[:, None]
    normal = jnp.where(is_seg[:, None], table.seg_n[seg], jaw_normal)
    seg_cushion = table.seg_cushion[seg]
    kind = jnp.where(is_seg, jnp.where(seg_cushion >= 0, ev.CUSHION, ev.JAW), jnp.where(is_jaw, ev.JAW, ev.POCKET))
    other = jnp.where(
        is_seg, jnp.where(seg_cushion >= 0, seg_cushion, table.seg_pocket[seg]), jnp.where(is_jaw, table.jaw_pocket[jaw], pocket)
    )
    # an airborne ball whose bottom clears the nose, or that meets the nose so low on its body
    # that it is not pressing into it along the contact normal, rides over and leaves the table
    flying = balls.state == AIRBORNE
    z = balls.r[:, 2] + balls.v[:, 2] * tt[:, 0] - 0.5 * table.gravity * tt[:, 0] ** 2 * flying
    vz = balls.v[:, 2] - table.gravity * tt[:, 0] * flying
    sin_a, cos_a = nose_angle(z, table)
    v_at = v + a * tt
    pressing = cos_a * dot(v_at, normal) - sin_a * vz < 0
    over = flying & (kind != ev.POCKET) & ((z >= table.cushion_height) | ~pressing)
    kind = jnp.where(over, ev.OFF_TABLE_EV, kind)
    dt = jnp.where(moving, dt, INF)
    return dt, kind.astype(jnp.int32), other.astype(jnp.int32), normal


def set_rows(pair_t, i, row_i, j, row_j):
    """``pair_t`` (N, N) with row and column ``i`` set to ``row_i`` (N,), then row and
    column ``j`` set to ``row_j`` (N,) (``j`` may equal ``i``).

    One elementwise select over the matrix: under ``vmap`` a column written through a
    transpose costs two copies of the batch's matrices (the rows come from the compacted
    solve, already in memory, so the select recomputes no root)."""
    ids = jnp.arange(pair_t.shape[0])
    row, col = ids[:, None], ids[None, :]
    out = jnp.where(col == i, row_i[:, None], pair_t)
    out = jnp.where(row == i, row_i[None, :], out)
    out = jnp.where(col == j, row_j[:, None], out)
    return jnp.where(row == j, row_j[None, :], out)


def geometry_of(balls: BallState, acc, trans_dt, idx, now, table, geo: Geo) -> Geo:
    """``geo`` with the entries of balls ``idx`` ((K,) ints, repeats allowed) recomputed from
    their current motion at time ``now``."""
    take = lambda x: x[idx]  # noqa: E731
    sub = BallState(*(take(x) for x in balls))
    dt, kind, other, normal = geometry(sub, take(acc), take(trans_dt), table)
    # one ball at a time: a scalar index lowers to a dynamic-update-slice, an index vector
    # under vmap to a scatter (half again the cost of the geometry itself on CPU)
    for k in range(idx.shape[0]):
        geo = Geo(
            t=geo.t.at[idx[k]].set(now + dt[k]),
            kind=geo.kind.at[idx[k]].set(kind[k]),
            other=geo.other.at[idx[k]].set(other[k]),
            normal=geo.normal.at[idx[k]].set(normal[k]),
        )
    return geo


def apply_geometry(balls: BallState, i, geo: Geo, table) -> BallState:
    """``balls`` after ball ``i`` meets the geometry entry ``geo`` holds for it: a cushion,
    jaw or throat-wall impulse, a pocket (the ball moves to the pocket and rests), or a flight
    off the table."""
    hit = cushion(balls, i, geo.normal[i], table)
    other = geo.other[i]
    pocketed = balls._replace(
        r=balls.r.at[i].set(jnp.concatenate([table.pocket_xy[other], jnp.zeros(1)])),
        v=balls.v.at[i].set(0.0),
        w=balls.w.at[i].set(0.0),
        state=balls.state.at[i].set(POCKETED),
        pocket=balls.pocket.at[i].set(other),
    )
    gone = balls._replace(v=balls.v.at[i].set(0.0), w=balls.w.at[i].set(0.0), state=balls.state.at[i].set(OFF_TABLE))
    k = geo.kind[i]
    pick = lambda x, y, z: jnp.where(k == ev.POCKET, y, jnp.where(k == ev.OFF_TABLE_EV, z, x))  # noqa: E731
    return jax.tree_util.tree_map(pick, hit, pocketed, gone)
