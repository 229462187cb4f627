"""Ball–cushion impulse after I. Han, "Dynamics in carom and three cushion billiards",
J. Mech. Sci. Technol. 19(4), 976–984 (2005).

One instantaneous impulse at the nose's contact point, above the ball's equator at the angle
θ with sin θ = (h − R) / R: restitution e along the inclined contact normal (the paper's
eqs. 17 and 20: normal impulse (1 + e) m c, c = v⊥ cos θ the approach speed along that
normal), Coulomb friction capped at the impulse that stops the contact's slip (eqs. 18–20,
with A = 7 / (2 m) of eq. 16), and the ball's horizontal velocity and its spin updated from
the impulse (eqs. 21–23). The paper's ball stays on the bed, so the vertical part of the
impulse goes into the slate. A ball in the air (outside the paper's scope) takes the same
impulse along the normal from its own height, vertical part included.

Model, constants and what it leaves out: docs/physics.md ("Cushions").
"""

from __future__ import annotations

import jax.numpy as jnp

from cuegym.physics.vec import dot

_Z = (0.0, 0.0, 1.0)


def nose_angle(z, table):
    """(sin θ, cos θ) of the angle above the ball's centre at which the cushion nose touches
    a ball whose centre is ``z`` [m] above its resting height (the paper's contact geometry,
    sin θ = (h − R − z) / R); kept within ±asin(0.95) so the impulse stays finite."""
    sin_a = jnp.clip((table.cushion_height - table.radius - z) * (1.0 / table.radius), -0.95, 0.95)
    return sin_a, jnp.sqrt(1.0 - sin_a * sin_a)


def contact_frame(normal_xy, sin_a, cos_a, radius):
    """The horizontal unit normal n (3,) (cushion -> ball), the inclined unit normal N (3,)
    (contact point -> centre) and the lever r_c (3,) [m] from the centre to the contact."""
    n = jnp.concatenate([normal_xy, jnp.zeros(1)])
    big_n = cos_a * n - sin_a * jnp.asarray(_Z)
    return n, big_n, -radius * big_n


def coulomb_impulse(v, w, big_n, r_c, j_n, j_cap, mass):
    """(3,) the impulse [N s] on the ball at the contact: ``j_n`` along ``big_n`` and friction
    against the contact's slip v + w x r_c, ``j_cap`` (μ j_n) or, if less, the impulse that
    stops the slip (its rate is 1/m + R²/I = 7 / (2 m) per unit impulse: eqs. 16, 18–20)."""
    slip = v + jnp.cross(w, r_c)
    slip_t = slip - dot(slip, big_n) * big_n
    s = jnp.sqrt(dot(slip_t, slip_t))
    s_hat = slip_t * (1.0 / jnp.where(s > 0, s, 1.0))
    j_t = jnp.minimum(j_cap, s * ((2.0 / 7.0) * mass))
    return j_n * big_n - j_t * s_hat


def rebound(v, w, normal_xy, z, grounded, table):
    """Velocity (3,) [m/s] and spin (3,) [rad/s] of a ball with velocity ``v`` and spin ``w``
    just after it meets a cushion nose or jaw whose unit normal ``normal_xy`` (2,) points from
    the cushion to the ball; ``z`` [m] the centre's height above its resting height,
    ``grounded`` () bool whether the ball is on the bed."""
    m, R = table.mass, table.radius
    sin_a, cos_a = nose_angle(z, table)
    n, big_n, r_c = contact_frame(normal_xy, sin_a, cos_a, R)
    # c of eq. 17: on the bed the paper's approach along N is the horizontal one times cos θ
    approach = jnp.where(grounded, -dot(v, n) * cos_a, -dot(v, big_n))
    # constants folded before they meet a variable (see mathavan_2010._derivatives)
    j_n = ((1.0 + table.e_cushion) * m) * jnp.maximum(approach, 0.0)
    j_cap = (table.mu_cushion * (1.0 + table.e_cushion) * m) * jnp.maximum(approach, 0.0)
    impulse = coulomb_impulse(v, w, big_n, r_c, j_n, j_cap, m)
    dv = impulse * (1.0 / m)
    dv = dv.at[2].set(jnp.where(grounded, 0.0, dv[2]))  # eq. 23: the slate takes the vertical part
    inertia = 0.4 * m * R * R
    return v + dv, w + jnp.cross(r_c, impulse) * (1.0 / inertia)
