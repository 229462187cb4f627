"""Instantaneous collisions: ball–ball and ball–cushion (nose or jaw) impulses.

* Ball–ball: normal impulse with restitution e, Coulomb friction at the contact capped at
  sticking, with Alciatore's speed-dependent coefficient (TP A-14; "Pool and billiards
  physics principles", Am. J. Phys. 2010): the source of cut- and spin-induced throw.
* Low-speed and pressing contacts: the remedy of S. Luding and S. McNamara (Granular Matter
  1, 1998) for inelastic collapse, keyed on approach speed (``SUSTAINED_SPEED``,
  ``CREEP_SPEED``), so a cluster's series of contacts ends.
* Resting contact as elastic microcollisions (Mirtich and Canny 1995): :mod:`cuegym.physics.resting`.
* Ball–cushion: the table's cushion model (:mod:`cuegym.physics.cushion`, one module per
  paper); a grounded ball driven into a cushion below ``HELD_SPEED`` is held on it (no Zeno
  series of bounces).

Models, constants, what they leave out: docs/physics.md ("Contacts", "Clusters ...").
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cuegym.physics import cushion as cushion_models
from cuegym.physics.balls import AIRBORNE, ROLLING, SLIDING, BallState
from cuegym.physics.motion import rolling_spin, settle, slip_velocity
from cuegym.physics.resting import (
    CONTACT_DEPTH,
    held_by_cluster,
    held_neighbour,
    held_neighbour_of,
    moving_neighbour,
    pushed_neighbour,
    supported,
)
from cuegym.physics.vec import dot

SUSTAINED_SPEED = 0.005  # m/s
CREEP_SPEED = 0.01  # m/s
HOP_SPEED = 0.1  # m/s: smaller vertical speeds do not lift a ball off the bed
HELD_SPEED = 0.01  # m/s: slower horizontal approaches hold a grounded ball on the cushion
GROUP_GAP = 1e-6  # m: balls this close count as touching in a pressing group (the audits' 1 um)


def _unit(x):
    n = jnp.sqrt(dot(x, x))[..., None]
    return x * (1.0 / jnp.where(n > 0, n, 1.0)), n[..., 0]


def throw_friction(slip_speed):
    """Ball–ball friction coefficient against slip speed [m/s] (Alciatore TP A-14)."""
    return 0.00995 + 0.108 * jnp.exp(-1.088 * slip_speed)


def _roll_out(v, w, radius):
    """Sliding ball brought to rolling by cloth friction: v -> v - (2/7) u."""
    u = slip_velocity(v, w, radius)
    v_xy = v[:2] - (2.0 / 7.0) * u
    w_xy = rolling_spin(v_xy, radius)
    return v.at[:2].set(v_xy), w.at[:2].set(w_xy)


def sustained_contact(balls: BallState, i, j):
    """() bool: balls ``i`` and ``j`` (touching) approach slower than
    :data:`SUSTAINED_SPEED`, so their contact is a sustained one (rules 2-6 of
    docs/physics.md, "Clusters, sustained contact and event storms") rather than a
    collision."""
    n, _ = _unit(balls.r[j] - balls.r[i])  # from i to j
    return dot(balls.v[i] - balls.v[j], n) < SUSTAINED_SPEED


def collide(balls: BallState, i, j, table, throw=True) -> BallState:
    """:func:`ball_ball` where the contact is not sustained (:func:`sustained_contact` is
    False): the collision's impulse alone, on the two balls, the same bytes. No neighbour
    takes part, so it skips the cluster searches that are most of :func:`ball_ball`'s cost
    (the event loop runs it on the contacts that are collisions: about three in four on a
    full rack)."""
    n, _ = _unit(balls.r[j] - balls.r[i])  # from i to j
    vi, vj, wi, wj = _impulse(balls.v[i], balls.v[j], balls.w[i], balls.w[j], n, jnp.zeros((), bool), table,
                                  throw)
    balls = balls._replace(
        v=balls.v.at[i].set(vi).at[j].set(vj),
        w=balls.w.at[i].set(wi).at[j].set(wj),
    )
    return _settle_changed(balls, table, _pair_mask(balls, i, j))


def _pair_mask(balls: BallState, i, j):
    ids = jnp.arange(balls.r.shape[0])
    return (ids == i) | (ids == j)


def _settle_changed(balls: BallState, table, changed):
    """``balls`` with the motion states of the balls marked ``changed`` (N,) set from their
    new velocities (ball by ball)."""
    settled = settle(balls, table, HOP_SPEED)
    return balls._replace(v=jnp.where(changed[:, None], settled.v, balls.v),
                          state=jnp.where(changed, settled.state, balls.state))


def _impulse(vi, vj, wi, wj, n, sustained, table, throw):
    """Velocities and spins ((3,) each, [m/s], [rad/s]) of balls i and j after the
    contact's impulse along ``n`` (3,), the unit vector from i to j: restitution
    ``table.e_ball`` (1 where ``sustained``), and throw friction capped at sticking unless
    sustained or not ``throw``."""
    m, R = table.mass, table.radius
    inertia = 0.4 * m * R * R
    approach = dot(vi - vj, n)
    e = jnp.where(sustained, 1.0, table.e_ball)
    jn = jnp.maximum(0.5 * m * (1.0 + e) * approach, 0.0)
    slip = (vi - vj) + R * jnp.cross(wi + wj, n)
    slip_t = slip - dot(slip, n) * n
    s_hat, s = _unit(slip_t)
    mu = jnp.where(throw & ~sustained, throw_friction(s), 0.0)
    jt = jnp.minimum(mu * jn, s * (m / 7.0))
    p_i = -jn * n - jt * s_hat  # impulse on i
    # multiply by reciprocals: XLA may turn "/ scalar" into "* (1/scalar)" in one program and
    # not another, and the results must be the same bytes at every batch size
    inv_m = 1.0 / m
    vi = vi + p_i * inv_m
    vj = vj - p_i * inv_m
    dw = jnp.cross(R * n, -jt * s_hat) * (1.0 / inertia)  # same for both balls
    return vi, vj, wi + dw, wj + dw


def ball_ball(balls: BallState, i, j, table, throw=True) -> BallState:
    """Resolve the contact of balls ``i`` and ``j`` (already touching)."""
    R = table.radius
    n, _ = _unit(balls.r[j] - balls.r[i])  # from i to j
    vi, vj, wi, wj = balls.v[i], balls.v[j], balls.w[i], balls.w[j]
    sustained = sustained_contact(balls, i, j)
    grounded_i = balls.state[i] != AIRBORNE
    grounded_j = balls.state[j] != AIRBORNE
    rvi, rwi = _roll_out(vi, wi, R)
    rvj, rwj = _roll_out(vj, wj, R)
    vi = jnp.where(sustained & grounded_i, rvi, vi)
    wi = jnp.where(sustained & grounded_i, rwi, wi)
    vj = jnp.where(sustained & grounded_j, rvj, vj)
    wj = jnp.where(sustained & grounded_j, rwj, wj)
    rolled = (vi, wi, vj, wj)
    vi, vj, wi, wj = _impulse(vi, vj, wi, wj, n, sustained, table, throw)
    # a ball on the bed and a ball in the air above it in sustained contact (resting.py)
    on_bed = sustained & (grounded_i != grounded_j)
    lower = jnp.where(grounded_i, i, j)
    # each ball held at rest by a neighbour at rest on the side the other pushes it towards
    held_i = held_by_cluster(balls, i, -n[:2], R)
    held_j = held_by_cluster(balls, j, n[:2], R)
    held = jnp.where(grounded_i, held_i, held_j)
    # the balls moving on with the pair's grounded balls (a ball in the air has no links, so
    # with one in the pair these are the lower ball's group)
    group = pressing_group(balls, i, j, R)
    # a lower ball in a pressing group takes the push with the group, as one body (rule 2):
    # the group first moves on at its mean velocity, then takes the push with its mass
    rolled_all = jax.vmap(lambda v, w: _roll_out(v, w, R))(balls.v, balls.w)
    carried = group & on_bed & ~held
    size = 1.0 + jnp.sum(carried)
    v_low = group_mean(jnp.where(grounded_i, rolled[0], rolled[2]), rolled_all[0], carried) * (1.0 / size)
    w_low = jnp.concatenate([rolling_spin(v_low[:2], R), balls.w[lower, 2:]])
    low_i = lambda low, own: jnp.where(grounded_i, low, own)  # noqa: E731
    low_j = lambda low, own: jnp.where(grounded_i, own, low)  # noqa: E731
    rolled = (low_i(v_low, rolled[0]), low_i(w_low, rolled[1]), low_j(v_low, rolled[2]), low_j(w_low, rolled[3]))
    # rule 6's mover (both balls on the bed): the ball driven into the one held at rest
    mover_i = held_j
    mover, held_ball = jnp.where(mover_i, i, j), jnp.where(mover_i, j, i)
    rv_m, rw_m, n_m = jnp.where(mover_i, rvi, rvj), jnp.where(mover_i, rwi, rwj), jnp.where(mover_i, n, -n)
    # a mover in a pressing group moves on with it as one body (rule 2): the group's mean
    # velocity is what the held ball stops
    both_grounded = grounded_i & grounded_j
    against_held = sustained & both_grounded & (held_i != held_j)
    held_group = group & against_held
    rv_m = group_mean(rv_m, rolled_all[0], held_group) * (1.0 / (1.0 + jnp.sum(held_group)))
    along = _along(rv_m[:2], n_m[:2])
    push_low = jnp.where(grounded_i, -n[:2], n[:2])  # the way the push drives the lower ball
    # the held ball a push drives a ball on the bed into: the lower ball's (rule 5) or the
    # second of the mover and the group it moves with (rule 6); the two cases exclude each
    # other, so one search serves both
    ids = jnp.arange(balls.r.shape[0])
    body = jnp.where(on_bed, ids == lower, (ids == mover) | held_group)
    against = (*held_neighbour_of(balls, body, jnp.where(on_bed, push_low, along), R,
                                  exclude=~on_bed & (ids == held_ball)), jnp.zeros(()))
    # a free ball on the bed that the push drives the lower ball into shares the push (rule 5)
    nb_h, nb, nb_found = pushed_neighbour(balls, carried | (ids == lower), push_low, R)
    # a ball held at rest that the push drives the group into (through any of its balls)
    # constrains it as one the lower ball touches does
    nb_held = held_by_cluster(balls, nb, nb_h, R)
    against = _held_first(against, on_bed & nb_found & nb_held, nb_h)
    # a moving neighbour that the push drives into a ball held at rest (a line of touching
    # balls ending at a held one) does not give along the line either: the group moves
    # along it at the neighbour's own speed along the line (docs/physics.md, rule 5).
    # Sharing the push instead, the neighbour would lose its part at the held ball (rule 6)
    # at every microcollision, and the train would collapse
    _, nb_backed = held_neighbour(balls, nb, nb_h, R, exclude=lower)
    nb_blocked = nb_found & ~nb_held & nb_backed
    against = _held_first(against, on_bed & nb_blocked, nb_h, jnp.maximum(dot(balls.v[nb, :2], nb_h), 0.0))
    # a cushion nose or throat wall that the lower ball, or a ball moving with it, touches
    # on the side the push drives them towards holds the body as a held ball does (rule 5);
    # held through the lower ball alone, the group's others took the push into the cushion
    # and met it again at every microcollision
    in_span, gap = table.nose_gaps(balls.r[:, :2])  # (N, S)
    into_nose = dot(jnp.broadcast_to(push_low, table.seg_n.shape), table.seg_n)
    body_nose = (carried | (ids == lower))[:, None] & in_span & (gap <= CONTACT_DEPTH)
    on_nose = jnp.any(body_nose, 0) & (into_nose < 0)
    nose = jnp.argmin(jnp.where(on_nose, into_nose, jnp.inf))
    against = _held_first(against, on_bed & jnp.any(on_nose), -table.seg_n[nose])
    # (a neighbour it already drives into at a real speed meets it in a contact of its own)
    nb_found = nb_found & ~nb_held & ~nb_blocked & (dot(v_low[:2] - balls.v[nb, :2], nb_h) < SUSTAINED_SPEED)
    svi, swi, svj, swj, dv_nb, shared = supported(*rolled, n, grounded_i, held, R, 1.0 / size, against,
                                                  (nb_h, balls.v[nb], nb_found))
    shared = shared & on_bed
    v_carried = jnp.where(grounded_i, svi, svj)
    vi = jnp.where(on_bed, svi, vi)
    wi = jnp.where(on_bed, swi, wi)
    vj = jnp.where(on_bed, svj, vj)
    wj = jnp.where(on_bed, swj, wj)
    # pressing contact: after the roll-out both balls roll, and rolling resistance (along
    # each ball's own velocity) keeps pushing them together: they move on together
    v_hat_i, _ = _unit(rvi.at[2].set(0.0))
    v_hat_j, _ = _unit(rvj.at[2].set(0.0))
    # rolling resistance is -mu_r g v_hat: the pair closes when (a_i - a_j).n > 0, that is
    # when (v_hat_i - v_hat_j).n < 0
    closing = dot(v_hat_i - v_hat_j, n) < 0
    pressing = sustained & both_grounded & closing & ~(dot(vi - vj, n) > SUSTAINED_SPEED)
    creeping = (
        sustained
        & both_grounded
        & (dot(balls.v[i, :2], balls.v[i, :2]) < CREEP_SPEED**2)
        & (dot(balls.v[j, :2], balls.v[j, :2]) < CREEP_SPEED**2)
    )
    # the balls moving on with the pair: every ball joined to it through touching balls
    # that roll or slide together (the pair alone unless it is part of a chain)
    # (a grounded ball driven slowly into a ball held at rest rolls on along it: rule 6)
    extra = group & pressing & ~creeping & ~against_held
    v_mean = group_mean(rvi + rvj, rolled_all[0], extra) * (1.0 / (2.0 + jnp.sum(extra)))
    w_mean_i = jnp.concatenate([rolling_spin(v_mean[:2], R), balls.w[i, 2:]])
    w_mean_j = jnp.concatenate([rolling_spin(v_mean[:2], R), balls.w[j, 2:]])
    vi = jnp.where(pressing, v_mean, vi)
    vj = jnp.where(pressing, v_mean, vj)
    wi = jnp.where(pressing, w_mean_i, wi)
    wj = jnp.where(pressing, w_mean_j, wj)
    rest = lambda w: w * jnp.array([0.0, 0.0, 1.0])  # noqa: E731
    vi = jnp.where(creeping, 0.0, vi)
    vj = jnp.where(creeping, 0.0, vj)
    wi = jnp.where(creeping, rest(balls.w[i]), wi)
    wj = jnp.where(creeping, rest(balls.w[j]), wj)
    # a moving ball the mover touches, that it would drive into along the held ball: its
    # velocity along them bounds the mover's as a held ball's does (rule 6)
    moving = moving_neighbour(balls, mover, along, R, group | (ids == held_ball))
    v_m, w_m = _along_held(rv_m, rw_m, n_m, along, against, R, moving)
    vi = jnp.where(against_held, jnp.where(held_i, balls.v[i], v_m), vi)
    wi = jnp.where(against_held, jnp.where(held_i, balls.w[i], w_m), wi)
    vj = jnp.where(against_held, jnp.where(held_j, balls.v[j], v_m), vj)
    wj = jnp.where(against_held, jnp.where(held_j, balls.w[j], w_m), wj)
    # the balls beyond the pair that move on: a pressing group, or the group carrying a push
    moved = extra | carried | held_group
    v_group = jnp.where(against_held, v_m, jnp.where(pressing, v_mean, v_carried))
    w_group = jnp.concatenate([jnp.broadcast_to(rolling_spin(v_group[:2], R), (balls.w.shape[0], 2)),
                               balls.w[:, 2:]], -1)
    balls = balls._replace(
        v=jnp.where(moved[:, None], v_group, balls.v),
        w=jnp.where(moved[:, None], w_group, balls.w),
    )
    pushed_nb = shared & (ids == nb)
    w_nb = balls.w[nb].at[:2].add(rolling_spin(dv_nb[:2], R))
    balls = balls._replace(
        v=jnp.where(pushed_nb[:, None], balls.v[nb] + dv_nb, balls.v),
        w=jnp.where(pushed_nb[:, None], w_nb, balls.w),
    )
    balls = balls._replace(
        v=balls.v.at[i].set(vi).at[j].set(vj),
        w=balls.w.at[i].set(wi).at[j].set(wj),
    )
    # motion states from the new velocities, for the pair and the balls moved
    return _settle_changed(balls, table, moved | pushed_nb | _pair_mask(balls, i, j))


def _along(v_xy, n_xy):
    """(2,) the velocity ``v_xy`` without its part into the unit vector ``n_xy`` (2,)."""
    return v_xy - jnp.maximum(dot(v_xy, n_xy), 0.0) * n_xy


def _along_held(v, w, n, along, second, R, moving):
    """Velocity and spin ((3,) each, [m/s], [rad/s]) of a ball rolling at ``v`` with spin
    ``w`` once driven into a ball held at rest along ``n`` (3,), the unit vector between their
    centres; ``along`` (2,) its velocity without the part into that ball (:func:`_along`);
    ``second`` ((2,), () bool) the next held ball it touches and ``along`` drives it into
    (``resting.held_neighbour``); ``R`` radius [m].

    The held ball takes the approach, as a cushion would: the ball keeps the velocity's part
    along the held ball and rolls with it. That is the limit of the series the impulses
    would give: each leaves the ball's spin still rolling it inward, and the cloth turns 2/7
    of the lost approach back into it, a contact each time (docs/physics.md, rule 6). If
    that velocity drives it into a second held ball, it takes the velocity nearest its own
    that drives into neither (along the second, or none: wedged, it stops); taken a contact
    at a time, the two would trade it back and forth in a geometric series.

    ``moving`` ((2,) unit vector h, () speed along h [m/s], () bool), where no held ball is
    second (``resting.moving_neighbour``): a touching ball on the bed that ``along`` drives
    the ball into relative to its own motion. The ball takes the velocity nearest ``along``
    that drives into neither the held ball nor, relative, the moving one: the nearest point
    of the two half-planes (the wedge's apex when both bound it). Taken a contact at a time,
    a ball rolling across a line of balls bent by a fraction of a degree, the held ball at
    one end and a ball pressed into it at the other, trades the bend's part of its velocity
    between the two at one instant, without end. Where the apex would be faster than
    ``along`` (it could only be through a nearly straight line's ill-conditioned solve), the
    held ball's bound alone is kept: no energy is made."""
    n2, wedged, _ = second
    along2 = _along(v[:2], n2)
    out = jnp.where(wedged, jnp.where(dot(along2, n[:2]) <= 0.0, along2, 0.0), along)
    h, speed, found = moving
    out = jnp.where(found & ~wedged, _nearest_in_wedge(along, n[:2], h, speed), out)
    return v.at[:2].set(out), jnp.concatenate([rolling_spin(out, R), w[2:]])


def _nearest_in_wedge(a, n1, n2, c2):
    """(2,) the velocity nearest ``a`` (2,) [m/s] with ``v . n1 <= 0`` and ``v . n2 <= c2``
    (unit vectors n1, n2 (2,); ``a . n1 <= 0`` already), or ``a`` itself where the nearest
    would be faster than ``a``."""
    v2 = a - jnp.maximum(dot(a, n2) - c2, 0.0) * n2  # the moving ball's bound alone
    det = n1[0] * n2[1] - n1[1] * n2[0]
    safe = jnp.where(jnp.abs(det) > 0, det, 1.0)
    apex = jnp.stack([-c2 * n1[1], c2 * n1[0]]) * (1.0 / safe)  # v . n1 = 0, v . n2 = c2
    # the apex solves both bounds; ``a`` meets the first, so v2 is nearest where it meets it
    out = jnp.where(dot(v2, n1) <= 0.0, v2, jnp.where(jnp.abs(det) > 0, apex, a))
    return jnp.where(dot(out, out) <= dot(a, a), out, a)


def _held_first(against, found, h, speed=0.0):
    """The held side that constrains a push, ((2,) unit vector, () bool, () its speed along
    the vector [m/s]): ``against`` if it is engaged already, else ``h`` and ``speed`` where
    ``found``."""
    take = found & ~against[1]
    return jnp.where(take, h, against[0]), against[1] | take, jnp.where(take, speed, against[2])


def pressing_group(balls: BallState, i, j, R):
    """(N,) bool: the balls other than ``i`` and ``j`` joined to them through chains of
    touching balls (gap at most :data:`GROUP_GAP`) on the bed that move together (relative
    speed at most :data:`SUSTAINED_SPEED`); ``R`` ball radius [m].

    A pressing pair in such a chain passes its push on at the same instant: taken a pair at
    a time, the mean velocities converge geometrically, an event each, and a chain of five
    reaches the event cap (docs/physics.md, "Clusters, sustained contact and event storms").
    """
    n = balls.r.shape[0]
    on_bed = (balls.state == SLIDING) | (balls.state == ROLLING)
    d = balls.r[:, None, :2] - balls.r[None, :, :2]
    touching = dot(d, d) <= (2.0 * R + GROUP_GAP) ** 2
    dv = balls.v[:, None, :2] - balls.v[None, :, :2]
    together = dot(dv, dv) <= SUSTAINED_SPEED**2
    ids = jnp.arange(n)
    link = touching & together & on_bed[:, None] & on_bed[None, :]
    member = (ids == i) | (ids == j)
    for _ in range(n - 2):  # a chain from the pair has at most n - 2 further links
        member = member | jnp.any(link & member[None, :], axis=1)
    return member & (ids != i) & (ids != j)


def group_mean(pair_sum, v, extra):
    """(3,) the pair's velocity sum ``pair_sum`` plus the velocities ``v`` (N, 3) of the
    balls marked ``extra`` (N,), added one ball at a time in index order: a fixed order of
    additions, the same bytes at every batch size (a reduction may be reordered)."""
    total = pair_sum
    for k in range(v.shape[0]):
        total = jnp.where(extra[k], total + v[k], total)
    return total


def cushion(balls: BallState, i, normal_xy, table) -> BallState:
    """Resolve ball ``i`` hitting a cushion nose or jaw whose unit normal ``normal_xy`` (2,)
    points from the cushion towards the ball's centre, by the table's cushion model
    (:mod:`cuegym.physics.cushion`)."""
    R = table.radius
    v, w = balls.v[i], balls.w[i]
    n = jnp.concatenate([normal_xy, jnp.zeros(1)])
    grounded = balls.state[i] != AIRBORNE
    approach = -dot(v, n)
    v, w = cushion_models.rebound(v, w, normal_xy, balls.r[i, 2], grounded, table)
    held_on = grounded & (approach < HELD_SPEED)
    v, w = _hold(v, w, n, R, held_on)
    # held on the cushion and driven along it into a ball held at rest (rule 6's wedge, the
    # cushion as one side): the velocity nearest that drives into neither
    h, into_held = held_neighbour(balls, i, v[:2], R)
    v_w = _along(v[:2], h)
    v_w = jnp.where(dot(v_w, normal_xy) >= 0.0, v_w, 0.0)
    wedged = held_on & into_held
    v = jnp.where(wedged, v.at[:2].set(v_w), v)
    w = jnp.where(wedged, jnp.concatenate([rolling_spin(v_w, R), w[2:]]), w)
    balls = balls._replace(v=balls.v.at[i].set(v), w=balls.w.at[i].set(w))
    settled = settle(balls, table, HOP_SPEED)
    return balls._replace(v=balls.v.at[i].set(settled.v[i]), state=balls.state.at[i].set(settled.state[i]))


def _hold(v, w, n, R, held):
    """A ball held on the cushion (module docstring): velocity (3,) [m/s] and spin (3,)
    [rad/s] without their parts into or out of the cushion, whose horizontal unit normal
    ``n`` (3,) points to the ball; unchanged where ``held`` is false."""
    v_held = v - dot(v, n) * n
    # cloth slip from spin: w x (-R z) = R (-w_y, w_x, 0); its part along n (> 0: away from
    # the cushion) makes friction push the ball back in, so the cushion takes it out
    q = R * jnp.stack([-w[1], w[0]])
    q_n = jnp.maximum(q[0] * n[0] + q[1] * n[1], 0.0)
    q = q - q_n * n[:2]
    w_held = jnp.stack([q[1] / R, -q[0] / R, w[2]])
    return jnp.where(held, v_held, v), jnp.where(held, w_held, w)
