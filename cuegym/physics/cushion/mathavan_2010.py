"""Ball–cushion impact after S. Mathavan, M. R. Jackson and R. M. Parkin, "A theoretical
analysis of billiard ball dynamics under cushion impacts", Proc. IMechE Part C 224(9),
1863–1873 (2010).

The impact is integrated over the normal impulse P at the cushion's contact point I, with
friction sliding at I (μ_w) and at the table's contact C (μ_s, the cloth's sliding friction),
each along its own slip direction (the paper's slip velocities at I and C and its equations
of the centroid velocity and spin against P). The compression phase runs until the approach
speed into the cushion is zero, recording the work W_c of the normal force at I; the
restitution phase runs until that work reaches e² W_c (the energy-based restitution). The
authors' measurements gave e = 0.98 and μ_w = 0.14 for snooker equipment. The integration
takes ``STEPS`` equal impulse steps per unit of the approach momentum and lands each phase's
last step exactly on its end. A ball in the air (outside the model, whose ball stays on the
bed) takes Han 2005's impulse. docs/physics.md ("Cushions").
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from cuegym.physics.cushion import han_2005
from cuegym.physics.vec import dot

STEPS = 50  # impulse steps over the approach momentum m v⊥
STILL = 1e-9  # m/s: a slip slower than this is none (rounding of a rolling ball's)
MAX_STEPS = 8 * STEPS  # a bound on both phases together: each takes under 2 STEPS (docs)


class _Coefficients(NamedTuple):
    """The model's constants, folded once per table: rates per unit P [1/kg, 1/(kg m)]."""

    sin_t: float
    cos_t: float
    R: float
    mu_w: float
    vx: tuple  # d vx / dP = (cos_p, cos_q load) . vx
    vy: tuple  # d vy / dP = (1, sin_p, sin_q load) . vy
    wx: tuple  # d wx / dP = (sin_p, sin_q load) . wx
    wy: tuple  # d wy / dP = (cos_p, cos_q load) . wy
    wz: float  # d wz / dP = cos_p wz


def _coefficients(sin_t, cos_t, R, m, mu_s, mu_w) -> _Coefficients:
    inv_m, k = 1.0 / m, 5.0 / (2.0 * m * R)
    return _Coefficients(sin_t, cos_t, R, mu_w, (-inv_m * mu_w, -inv_m * mu_s),
                         (-inv_m * cos_t, inv_m * mu_w * sin_t, -inv_m * mu_s), (-k * mu_w, -k * mu_s),
                         (-k * mu_w * sin_t, k * mu_s), k * mu_w * cos_t)


def _slips(u, c: _Coefficients):
    """(cos_p, sin_p, cos_q load, sin_q load): the directions of the slips at the cushion's
    contact I and the table's C, and the normal force at C per unit P (``load``), of the
    state ``u`` = (vx, vy, wx, wy, wz) in the cushion frame (y into the cushion, z up)."""
    vx, vy, wx, wy, wz = u
    cos_p, sin_p = _direction(vx + wy * (c.R * c.sin_t) - wz * (c.R * c.cos_t), wx * c.R - vy * c.sin_t)
    cos_q, sin_q = _direction(vx - wy * c.R, vy + wx * c.R)
    load = c.sin_t + sin_p * (c.mu_w * c.cos_t)
    return cos_p, sin_p, cos_q * load, sin_q * load


def _vy_rate(f, c: _Coefficients):
    """() d vy / dP [1/kg] for the slips ``f`` (:func:`_slips`)."""
    return c.vy[0] + f[1] * c.vy[1] + f[3] * c.vy[2]


def _advance(u, f, s, c: _Coefficients):
    """(5,) the state ``u`` after an impulse step ``s`` [N s] at the slips ``f``.

    Every product multiplies the variables first and a folded constant last (x * y * c,
    never (x * c) * y), and a variable divisor divides (x / y, not x * (1 / y)): XLA may
    rewrite the other forms in one program and not another (found by
    ``tests/physics/test_determinism.py``), and a shot must give the same bytes alone and in a
    batch."""
    cos_p, sin_p, cql, sql = f[0] * s, f[1] * s, f[2] * s, f[3] * s
    return u + jnp.stack([
        cos_p * c.vx[0] + cql * c.vx[1],
        s * c.vy[0] + sin_p * c.vy[1] + sql * c.vy[2],
        sin_p * c.wx[0] + sql * c.wx[1],
        cos_p * c.wy[0] + cql * c.wy[1],
        cos_p * c.wz,
    ])


def _direction(x, y):
    """(cos, sin) of the slip (x, y)'s direction [m/s], (0, 0) below ``STILL`` [m/s]: no
    sliding friction there. A rolling ball's slip at the table is zero up to rounding, and
    the direction of rounding noise would throw it sideways (an angle of 0, as atan2(0, 0)
    gives, would throw a ball rolling square into the cushion, and its mirror image, the
    same way)."""
    s = jnp.sqrt(x * x + y * y)
    safe = jnp.where(s > STILL, s, 1.0)
    return jnp.where(s > STILL, x / safe, 0.0), jnp.where(s > STILL, y / safe, 0.0)


def _last_step(vy, d_vy, remaining):
    """() the impulse [N s] over which ∫|vy| dP (trapezoid, vy <= 0 growing at ``d_vy`` per
    unit P) is ``remaining`` [N m s / kg]: the root of -d_vy s² / 2 - vy s = remaining."""
    b = -vy
    den = b + jnp.sqrt(jnp.maximum(b * b - d_vy * remaining * 2.0, 0.0))
    return remaining / jnp.where(den > 0, den, 1.0) * 2.0


def integrate(u0, sin_t, cos_t, e, R, m, mu_s, mu_w):
    """(5,) the state (vx, vy, wx, wy, wz) after the impact of the state ``u0`` (vy > 0 into
    the cushion) in the cushion frame."""
    c = _coefficients(sin_t, cos_t, R, m, mu_s, mu_w)
    dp = jnp.maximum(u0[1], 0.0) * (m * (1.0 / STEPS))
    # the work at I is cos θ ∫|vy| dP; the phases compare works, so ∫|vy| dP serves, and no
    # inexact constant enters the step's arithmetic (see _advance)

    def step(carry):
        u, phase, work, target, n = carry
        f = _slips(u, c)
        d_vy = _vy_rate(f, c)
        vy = u[1]
        # compression: the step that brings vy to zero, if this one would pass it
        crossing = (phase == 0) & (vy + d_vy * dp <= 0.0)
        s = jnp.where(crossing, vy / jnp.where(d_vy < 0, -d_vy, 1.0), dp)
        # restitution: the step that completes the target work, if this one would pass it
        vy_next = vy + d_vy * s
        w_step = s * (jnp.abs(vy) + jnp.abs(vy_next)) * 0.5
        ending = (phase == 1) & (work + w_step >= target)
        s = jnp.where(ending, _last_step(vy, d_vy, target - work), s)
        u_next = _advance(u, f, s, c)
        w_step = s * (jnp.abs(vy) + jnp.abs(u_next[1])) * 0.5
        work = work + w_step
        target = jnp.where(crossing, (e * e) * work, target)
        work = jnp.where(crossing, 0.0, work)
        u_next = u_next.at[1].set(jnp.where(crossing, 0.0, u_next[1]))
        phase = phase + crossing.astype(jnp.int32) + 2 * ending.astype(jnp.int32)
        return u_next, phase, work, target, n + 1

    def going(carry):
        return (carry[1] < 2) & (carry[4] < MAX_STEPS)

    zero = jnp.zeros((), u0.dtype)
    start = (u0, jnp.where(u0[1] > 0, 0, 2).astype(jnp.int32), zero, zero, jnp.zeros((), jnp.int32))
    return jax.lax.while_loop(going, step, start)[0]


def rebound(v, w, normal_xy, z, grounded, table):
    """Velocity (3,) [m/s] and spin (3,) [rad/s] of a ball with velocity ``v`` and spin ``w``
    just after it meets a cushion nose or jaw whose unit normal ``normal_xy`` (2,) points from
    the cushion to the ball; ``z`` [m] the centre's height above its resting height,
    ``grounded`` () bool whether the ball is on the bed (else Han 2005's impulse)."""
    sin_t, cos_t = han_2005.nose_angle(0.0, table)  # the table's constants: the ball is on the bed
    y_hat = -normal_xy  # into the cushion
    x_hat = jnp.stack([y_hat[1], -y_hat[0]])  # y x z: (x, y, z) right-handed, z up
    u0 = jnp.stack([dot(v[:2], x_hat), dot(v[:2], y_hat), dot(w[:2], x_hat), dot(w[:2], y_hat), w[2]])
    u = integrate(u0, sin_t, cos_t, table.e_cushion, table.radius, table.mass, table.mu_slide, table.mu_cushion)
    v_xy = u[0] * x_hat + u[1] * y_hat
    w_xy = u[2] * x_hat + u[3] * y_hat
    v_new = jnp.concatenate([v_xy, v[2:]])
    w_new = jnp.concatenate([w_xy, u[4:]])
    v_air, w_air = han_2005.rebound(v, w, normal_xy, z, grounded, table)
    return jnp.where(grounded, v_new, v_air), jnp.where(grounded, w_new, w_air)
