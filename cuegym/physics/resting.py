"""Resting contact between balls as a train of elastic microcollisions.

A pair touching and accelerating into each other (a ball in the air falling onto a ball it
touches, a sliding ball curving into a neighbour at rest) has no contact distance to cross
between events. As in impulse-based simulation (B. Mirtich and J. Canny, "Impulse-based
simulation of rigid bodies", 1995) its contact force is a train of microcollisions: the pair
collides again once closed by :data:`CONTACT_DEPTH` (``roots.first_descending_root_quartic``'s
``depth``), at the approach speed sqrt(2 depth a), which the elastic sustained-contact impulse
reverses; it overlaps by no more than the depth. The train must keep its energy, or it
collapses (Luding and McNamara 1998): :func:`supported` gives the impulse of a ball in the
air on a ball on the bed, which the slate holds up and the cloth keeps rolling.
docs/physics.md ("Clusters, sustained contact and event storms").
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cuegym.physics.balls import AIRBORNE, SPINNING, STATIONARY, BallState
from cuegym.physics.motion import rolling_spin
from cuegym.physics.vec import dot

# m: 0.1 um, well inside the audits' 1 um; the approach speed of a microcollision is then
# sqrt(2 depth a): at most 1.4 mm/s under gravity, below SUSTAINED_SPEED, so it is elastic
CONTACT_DEPTH = 1e-7
# m/s: a ball moving away from a held ball it touches more slowly than this is taken as held
# against it (its speed along the held ball is lost); a faster one is pushed freely
HELD_AWAY_SPEED = 0.005


def supported(vi, wi, vj, wj, n, grounded_i, held, R, share=1.0, against=None, neighbour=None):
    """Velocities and spins ((3,) each, [m/s], [rad/s]) of balls i and j after a sustained
    contact between a ball on the bed and a ball in the air above it, along ``n`` (3,) from
    i to j; ``grounded_i`` () bool: i is the one on the bed; ``held`` () bool: that ball
    does not move (:func:`held_by_cluster`); ``R`` ball radius [m]; ``share`` () 1 / the
    number of balls moving as one with the ball on the bed (a pressing group,
    ``collisions.pressing_group``), whose velocity is the group's. Frictionless and elastic,
    like rule 1.

    The ball in the air presses the other into the slate, which holds it up, and a force
    that acts for as long as a sustained contact does moves a ball on the cloth as a rolling
    ball: static cloth friction (2/7 of the push) keeps it from slipping. So along n the
    ball on the bed has the inverse mass (5/7)(1 - n_z^2)/m instead of 1/m (0 where held),
    and takes the impulse's horizontal part at 5/7 of a free ball's response, with the
    rolling spin. The impulse that reverses the normal approach u, J = 2 m u / (1 + k),
    k = (5/7)(1 - n_z^2) or 0, keeps the kinetic energy (the slate's and the cloth's
    reactions do no work). The free impulse would leave the slate to absorb the downward
    part and the cloth to slow the pushed ball while it slides: the pair would part more
    slowly than it met, and a ball in the air resting on a ball would settle onto it through
    an endless series of ever smaller contacts.

    ``against`` (optional): ((2,) unit vector, () bool, () speed along the vector [m/s]),
    from :func:`held_neighbour` (speed 0): the ball on the bed is driven into a touching ball
    held at rest along that vector (or one moving at that speed along it that cannot give, a line
    ending at a held ball: ``collisions.ball_ball``; velocities along h are then taken
    relative to it). It then moves only along that ball, so it takes the push's part across
    the vector, and k counts
    only that part (5/7 of |n_xy|^2 - (n_xy . h)^2): the held ball's reaction does no work
    and the impulse still keeps the energy; the bed ball first loses its velocity along h
    (into the held ball, or away from it below :data:`HELD_AWAY_SPEED`; one moving away faster
    is pushed freely), or the held ball's reaction would do work. Pushed into it and stopped
    by rule 6 instead, the bed ball would lose its share of every microcollision and the
    train would collapse.

    ``neighbour`` (optional, where ``against`` is not engaged): ((2,) unit vector h, (3,)
    velocity, () bool) from :func:`pushed_neighbour`: a touching ball on the bed that the
    push drives the bed ball into. If the bed ball pushed alone would move into it, the two
    take the push's part along h as one body (5/7 of 1/(g + 1) per unit impulse, for a
    group of g), the part across h the bed ball alone (its group's 5/7 of 1/g), and k counts
    both parts. They first take their mass-weighted mean speed along h (which can only lose
    energy), so the contact between them does no work and the impulse keeps the energy.
    Pushed alone, the bed ball would meet the neighbour at once and be sent back into the
    ball in the air: a three-body storm of contacts a fraction of a microsecond apart.

    Returns (vi, wi, vj, wj, the neighbour's velocity change (3,) [m/s], () bool whether it
    is pushed): zeros and False without ``neighbour``.
    """
    if against is not None:
        # the held ball's reaction does no work only on a motion across h: a bed ball first
        # loses its velocity along h (into the held ball as in rule 6, or slowly away from
        # it); one moving away faster is pushed freely
        h, engaged, speed = against
        v_low = jnp.where(grounded_i, vi, vj)
        into_h = dot(v_low[:2], h) - speed
        engaged = engaged & (into_h > -HELD_AWAY_SPEED)
        v_low = v_low.at[:2].add(-into_h * h)
        vi = jnp.where(engaged & grounded_i, v_low, vi)
        vj = jnp.where(engaged & ~grounded_i, v_low, vj)
        against = (h, engaged, speed)
    approach = dot(vi - vj, n)
    # the bed ball's response to a push, per a free ball's; a group of g balls moving as
    # one has g times the mass
    rolls = jnp.where(held, 0.0, 5.0 / 7.0) * share
    k_bed = rolls * (1.0 - n[2] * n[2])
    push_xy = n[:2]
    if against is not None:
        across = n[:2] - (n[0] * h[0] + n[1] * h[1]) * h
        push_xy = jnp.where(engaged, across, push_xy)
        k_bed = jnp.where(engaged, rolls * (n[0] * across[0] + n[1] * across[1]), k_bed)
    j = jnp.maximum(2.0 * approach / (1.0 + k_bed), 0.0)  # impulse / m
    dv_bed = rolls * j * push_xy  # the bed ball's velocity change per sign
    dv_nb = jnp.zeros(3)
    shared = jnp.zeros((), bool)
    if neighbour is not None:
        h2, v_nb, found = neighbour
        sign = jnp.where(grounded_i, -1.0, 1.0)
        p_h = sign * (n[0] * h2[0] + n[1] * h2[1])  # > 0: the push drives the bed ball into it
        v_low = jnp.where(grounded_i, vi, vj)
        low_h, nb_h = dot(v_low[:2], h2), dot(v_nb[:2], h2)
        shared = found & ~held & (low_h - nb_h + sign * dot(dv_bed, h2) > 0.0)
        if against is not None:
            shared = shared & ~against[1]
        # first moving as one along h: the mass-weighted mean speed along h (no energy gained)
        g = 1.0 / share
        mean_h = (g * low_h + nb_h) * (1.0 / (g + 1.0))
        v_low = v_low.at[:2].add((mean_h - low_h) * h2)
        vi = jnp.where(shared & grounded_i, v_low, vi)
        vj = jnp.where(shared & ~grounded_i, v_low, vj)
        rolls_h = (5.0 / 7.0) / (g + 1.0)  # the bed ball's group and the neighbour
        across = n[:2] - (n[0] * h2[0] + n[1] * h2[1]) * h2
        along = (n[0] * h2[0] + n[1] * h2[1]) * h2
        k_shared = rolls * dot(across, across) + rolls_h * dot(along, along)
        j_shared = jnp.maximum(2.0 * dot(vi - vj, n) / (1.0 + k_shared), 0.0)
        j = jnp.where(shared, j_shared, j)
        dv_bed = jnp.where(shared, j_shared * (rolls * across + rolls_h * along), dv_bed)
        dv_nb_xy = (mean_h - nb_h) * h2 + j_shared * rolls_h * p_h * h2
        dv_nb = jnp.where(shared, jnp.concatenate([dv_nb_xy, jnp.zeros(1)]), 0.0)

    def on_bed(v, w, sign):
        v_xy = v[:2] + sign * dv_bed
        return jnp.concatenate([v_xy, jnp.zeros(1)]), jnp.concatenate([rolling_spin(v_xy, R), w[2:]])

    def in_air(v, w, sign):
        return v + sign * j * n, w

    vi_b, wi_b = on_bed(vi, wi, -1.0)
    vi_a, wi_a = in_air(vi, wi, -1.0)
    vj_b, wj_b = on_bed(vj, wj, 1.0)
    vj_a, wj_a = in_air(vj, wj, 1.0)
    pick = lambda bed, air, grounded: jnp.where(grounded, bed, air)  # noqa: E731
    out = (pick(vi_b, vi_a, grounded_i), pick(wi_b, wi_a, grounded_i),
           pick(vj_b, vj_a, ~grounded_i), pick(wj_b, wj_a, ~grounded_i))
    return (*out, dv_nb, shared)


def held_by_cluster(balls: BallState, k, push_xy, R):
    """() bool: ball ``k`` is at rest on the bed and touches (within :data:`CONTACT_DEPTH`)
    another ball at rest on the bed on the side ``push_xy`` (2,) pushes it towards; ``R``
    ball radius [m].

    A ball in the air resting on such a ball would push it into its neighbour, whose
    creeping contact (rule 3) stops both again: the push would only drain the train of
    microcollisions. The ball is taken as held, and the ball in the air rebounds from it as
    from a fixed ball, which keeps its energy since the held ball is at rest.
    """
    at_rest = (balls.state == STATIONARY) | (balls.state == SPINNING)
    d = balls.r[:, :2] - balls.r[k, :2]
    near = dot(d, d) <= (2.0 * R + CONTACT_DEPTH) ** 2
    toward = (d[:, 0] * push_xy[0] + d[:, 1] * push_xy[1]) > 0
    others = jnp.arange(balls.r.shape[0]) != k
    return at_rest[k] & jnp.any(at_rest & near & toward & others)


def _touching(balls: BallState, k, R):
    """((N, 2), (N,) bool): the horizontal unit vectors from ball ``k`` to every ball (zero
    to itself), and which balls touch it (centres within 2R + :data:`CONTACT_DEPTH`);
    ``R`` ball radius [m]."""
    d = balls.r[:, :2] - balls.r[k, :2]
    dist2 = dot(d, d)
    h = d * (1.0 / jnp.sqrt(jnp.where(dist2 > 0, dist2, 1.0)))[:, None]
    return h, dist2 <= (2.0 * R + CONTACT_DEPTH) ** 2


def _touching_pairs(balls: BallState, R):
    """((N, N, 2), (N, N, 2), (N, N) bool): for every pair [q, m] the horizontal vector from
    ball q to ball m [m], its unit vector (zero from a ball to itself), and whether they touch
    (centres within 2R + :data:`CONTACT_DEPTH`); ``R`` ball radius [m]. :func:`_touching`
    for every ball at once."""
    d = balls.r[None, :, :2] - balls.r[:, None, :2]
    dist2 = dot(d, d)
    h = d * (1.0 / jnp.sqrt(jnp.where(dist2 > 0, dist2, 1.0)))[..., None]
    return d, h, dist2 <= (2.0 * R + CONTACT_DEPTH) ** 2


def held_neighbour(balls: BallState, k, push_xy, R, exclude=-1):
    """((2,), () bool): the horizontal unit vector from ball ``k`` to a touching ball (within
    :data:`CONTACT_DEPTH`) that is held at rest (:func:`held_by_cluster`) in the direction
    ``push_xy`` (2,) drives ``k`` into it, the most nearly head-on one, other than ball
    ``exclude``; and whether there is one. ``R`` ball radius [m]."""
    h, near = _touching(balls, k, R)
    into = h[:, 0] * push_xy[0] + h[:, 1] * push_xy[1]
    ids = jnp.arange(h.shape[0])
    backed = jax.vmap(lambda m, hm: held_by_cluster(balls, m, hm, R))(ids, h)
    candidate = near & (into > 0) & backed & (ids != k) & (ids != exclude)
    best = jnp.argmax(jnp.where(candidate, into, -jnp.inf))
    return h[best], jnp.any(candidate)


def held_neighbour_of(balls: BallState, body, push_xy, R, exclude):
    """((2,), () bool): as :func:`held_neighbour`, from any ball of ``body`` (N,) bool (a ball
    and the balls moving as one with it) to a touching ball outside it and ``exclude`` (N,)
    bool, held at rest in the direction ``push_xy`` (2,) drives the body into it; the most
    nearly head-on such pair. ``R`` ball radius [m].

    A group rolling along a held ball that one of its balls touches can be driven into a
    second held ball by another of its balls: both bound the group's velocity at once
    (``collisions._along_held``). Taken one at a time, two held balls on nearly opposite
    sides trade the group's velocity back and forth at one instant, the part each takes
    shrinking by the square of the angle between them per exchange, without end."""
    d, h, near = _touching_pairs(balls, R)
    into = h[..., 0] * push_xy[0] + h[..., 1] * push_xy[1]
    at_rest = (balls.state == STATIONARY) | (balls.state == SPINNING)
    n = balls.r.shape[0]
    # held_by_cluster(m, h[q, m]) for every pair: m at rest touches a ball p at rest on the
    # side h[q, m] pushes it towards
    rest_link = near & at_rest[:, None] & at_rest[None, :] & ~jnp.eye(n, dtype=bool)  # [m, p]
    toward = (d[None, :, :, 0] * h[:, :, None, 0] + d[None, :, :, 1] * h[:, :, None, 1]) > 0  # [q, m, p]
    backed = jnp.any(rest_link[None] & toward, axis=2)
    candidate = near & (into > 0) & backed & body[:, None] & ~(body | exclude)[None, :]
    best = jnp.argmax(jnp.where(candidate, into, -jnp.inf).reshape(-1))
    return h.reshape(n * n, 2)[best], jnp.any(candidate)


def pushed_neighbour(balls: BallState, body, push_xy, R):
    """((2,), () int, () bool): the horizontal unit vector from a ball of ``body`` (N,) bool
    (the ball on the bed and the balls moving as one with it) to a touching ball (within
    :data:`CONTACT_DEPTH`) on the bed outside it that the push ``push_xy`` (2,) drives the
    body into, the most nearly head-on such pair; that ball's index; and whether there is
    one. ``R`` ball radius [m]."""
    n = balls.r.shape[0]
    _, h, near = _touching_pairs(balls, R)
    into = h[..., 0] * push_xy[0] + h[..., 1] * push_xy[1]
    on_bed = balls.state < AIRBORNE
    candidate = near & (into > 0) & body[:, None] & (on_bed & ~body)[None, :]
    best = jnp.argmax(jnp.where(candidate, into, -jnp.inf).reshape(-1))
    return h.reshape(n * n, 2)[best], (best % n).astype(jnp.int32), jnp.any(candidate)


def moving_neighbour(balls: BallState, k, v_k, R, exclude):
    """((2,), () [m/s], () bool): the horizontal unit vector from ball ``k`` to a touching
    ball on the bed (within :data:`CONTACT_DEPTH`), not one of ``exclude`` (N,) bool, that
    the velocity ``v_k`` (2,) drives ``k`` into relative to that ball's own velocity, the
    fastest such approach; that ball's speed along the vector; and whether there is one.
    ``R`` ball radius [m]."""
    h, near = _touching(balls, k, R)
    speed = h[:, 0] * balls.v[:, 0] + h[:, 1] * balls.v[:, 1]
    approach = h[:, 0] * v_k[0] + h[:, 1] * v_k[1] - speed
    ids = jnp.arange(h.shape[0])
    candidate = near & (balls.state < AIRBORNE) & (approach > 0) & (ids != k) & ~exclude
    best = jnp.argmax(jnp.where(candidate, approach, -jnp.inf))
    return h[best], speed[best], jnp.any(candidate)
