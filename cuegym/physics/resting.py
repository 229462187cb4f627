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

from cuegym.physics.balls import SPINNING, STATIONARY, BallState
from cuegym.physics.motion import rolling_spin
from cuegym.physics.vec import dot

# m: 0.1 um, well inside the audits' 1 um; the approach speed of a microcollision is then
# sqrt(2 depth a): at most 1.4 mm/s under gravity, below SUSTAINED_SPEED, so it is elastic
CONTACT_DEPTH = 1e-7


def supported(vi, wi, vj, wj, n, grounded_i, held, R, share=1.0, against=None):
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

    ``against`` (optional): ((2,) unit vector, () bool) from :func:`held_neighbour`: the
    ball on the bed is driven into a touching ball held at rest along that vector. It then
    moves only along that ball, so it takes the push's part across the vector, and k counts
    only that part (5/7 of |n_xy|^2 - (n_xy . h)^2): the held ball's reaction does no work
    and the impulse still keeps the energy. Pushed into it and stopped by rule 6 instead, the
    bed ball would lose its share of every microcollision and the train would collapse.
    """
    approach = dot(vi - vj, n)
    # the bed ball's response to a push, per a free ball's; a group of g balls moving as
    # one has g times the mass
    rolls = jnp.where(held, 0.0, 5.0 / 7.0) * share
    k_bed = rolls * (1.0 - n[2] * n[2])
    push_xy = n[:2]
    if against is not None:
        h, engaged = against
        across = n[:2] - (n[0] * h[0] + n[1] * h[1]) * h
        push_xy = jnp.where(engaged, across, push_xy)
        k_bed = jnp.where(engaged, rolls * (n[0] * across[0] + n[1] * across[1]), k_bed)
    j = jnp.maximum(2.0 * approach / (1.0 + k_bed), 0.0)  # impulse / m

    def on_bed(v, w, sign):
        v_xy = v[:2] + sign * rolls * j * push_xy
        return jnp.concatenate([v_xy, jnp.zeros(1)]), jnp.concatenate([rolling_spin(v_xy, R), w[2:]])

    def in_air(v, w, sign):
        return v + sign * j * n, w

    vi_b, wi_b = on_bed(vi, wi, -1.0)
    vi_a, wi_a = in_air(vi, wi, -1.0)
    vj_b, wj_b = on_bed(vj, wj, 1.0)
    vj_a, wj_a = in_air(vj, wj, 1.0)
    pick = lambda bed, air, grounded: jnp.where(grounded, bed, air)  # noqa: E731
    return (pick(vi_b, vi_a, grounded_i), pick(wi_b, wi_a, grounded_i),
            pick(vj_b, vj_a, ~grounded_i), pick(wj_b, wj_a, ~grounded_i))


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


def held_neighbour(balls: BallState, k, push_xy, R, exclude=-1):
    """((2,), () bool): the horizontal unit vector from ball ``k`` to a touching ball (within
    :data:`CONTACT_DEPTH`) that is held at rest (:func:`held_by_cluster`) in the direction
    ``push_xy`` (2,) drives ``k`` into it, the most nearly head-on one, other than ball
    ``exclude``; and whether there is one. ``R`` ball radius [m]."""
    d = balls.r[:, :2] - balls.r[k, :2]
    dist2 = dot(d, d)
    h = d * (1.0 / jnp.sqrt(jnp.where(dist2 > 0, dist2, 1.0)))[:, None]
    into = h[:, 0] * push_xy[0] + h[:, 1] * push_xy[1]
    backed = jax.vmap(lambda m, hm: held_by_cluster(balls, m, hm, R))(jnp.arange(d.shape[0]), h)
    near = dist2 <= (2.0 * R + CONTACT_DEPTH) ** 2
    ids = jnp.arange(d.shape[0])
    candidate = near & (into > 0) & backed & (ids != k) & (ids != exclude)
    best = jnp.argmax(jnp.where(candidate, into, -jnp.inf))
    return h[best], jnp.any(candidate)
