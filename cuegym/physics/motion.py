"""Ball motion between events: closed-form sliding, rolling, spinning and flight.

Model: W. Leckie and M. Greenspan, "An event-based pool physics simulator" (2005), and D. G.
Alciatore's technical proofs TP A-4 and A-5. Sliding friction brings the cue ball to rolling
after t = 2 |u0| / (7 mu_s g) (a centre-ball hit then rolls at 5/7 of its speed); rolling
resistance stops it after |v| / (mu_r g); vertical-axis spin decays at 5 mu_sp g / (2 R);
airborne balls fly freely. Every state has a constant acceleration, so positions between
events are parabolas and contact times are polynomial roots (:mod:`cuegym.physics.roots`).
"""

from __future__ import annotations

import jax.numpy as jnp

from cuegym.physics.balls import AIRBORNE, OFF_TABLE, POCKETED, ROLLING, SLIDING, SPINNING, STATIONARY, BallState
from cuegym.physics.vec import dot

_EPS_V = 1e-9  # m/s: below this a speed is zero
_EPS_W = 1e-7  # rad/s


def _norm2(x):
    return jnp.sqrt(dot(x, x))


def _unit(x):
    n = _norm2(x)
    return x * (1.0 / jnp.where(n > 0, n, 1.0))[..., None], n


def slip_velocity(v, w, radius):
    """(…, 2) velocity of the ball's contact point with the cloth."""
    return jnp.stack([v[..., 0] - radius * w[..., 1], v[..., 1] + radius * w[..., 0]], -1)


def linear_acceleration(balls: BallState, table):
    """(N, 3) constant acceleration of each ball in its current motion state [m/s^2]."""
    g = table.gravity
    u_hat, _ = _unit(slip_velocity(balls.v, balls.w, table.radius))
    v_hat, _ = _unit(balls.v[:, :2])
    s = balls.state[:, None]
    a_xy = jnp.where(s == SLIDING, -table.mu_slide * g * u_hat, 0.0)
    a_xy = jnp.where(s == ROLLING, -table.mu_roll * g * v_hat, a_xy)
    a_z = jnp.where(balls.state == AIRBORNE, -g, 0.0)
    return jnp.concatenate([a_xy, a_z[:, None]], -1)


def rolling_spin(v, radius):
    """(…, 2) horizontal spin components that make the contact point still (u = 0)."""
    inv_r = 1.0 / radius
    return jnp.stack([-v[..., 1] * inv_r, v[..., 0] * inv_r], -1)


def spin_decay_rate(table):
    return 5.0 * table.mu_spin * table.gravity / (2.0 * table.radius)


def evolve(balls: BallState, table, dt) -> BallState:
    """Every ball moved ``dt`` seconds along its current motion (no events inside dt).

    ``dt``: scalar, or (N,) for a different time per ball (used by ``trace``).
    """
    g, R = table.gravity, table.radius
    dt_w = jnp.asarray(dt)
    dt = dt_w[:, None] if dt_w.ndim == 1 else dt_w
    a = linear_acceleration(balls, table)
    s = balls.state
    r = balls.r + balls.v * dt + 0.5 * a * dt * dt
    v = balls.v + a * dt
    u_hat, _ = _unit(slip_velocity(balls.v, balls.w, R))
    k = 5.0 * table.mu_slide * g / (2.0 * R)
    w_slide = balls.w[:, :2] + k * jnp.stack([-u_hat[:, 1], u_hat[:, 0]], -1) * dt
    w_xy = jnp.where((s == SLIDING)[:, None], w_slide, balls.w[:, :2])
    w_xy = jnp.where((s == ROLLING)[:, None], rolling_spin(v, R), w_xy)
    on_bed = (s == SLIDING) | (s == ROLLING) | (s == SPINNING)
    wz = balls.w[:, 2]
    wz_decayed = jnp.sign(wz) * jnp.maximum(jnp.abs(wz) - spin_decay_rate(table) * dt_w, 0.0)
    wz = jnp.where(on_bed, wz_decayed, wz)
    w = jnp.concatenate([w_xy, wz[:, None]], -1)
    moving = (s == SLIDING) | (s == ROLLING) | (s == AIRBORNE)
    return balls._replace(
        r=jnp.where(moving[:, None], r, balls.r),
        v=jnp.where(moving[:, None], v, balls.v),
        w=jnp.where(s[:, None] < POCKETED, w, balls.w),
    )


def transition_times(balls: BallState, table):
    """(N,) seconds until each ball's next change of motion state (+inf if none)."""
    g, R = table.gravity, table.radius
    _, u = _unit(slip_velocity(balls.v, balls.w, R))
    speed = _norm2(balls.v[:, :2])
    s = balls.state
    # reciprocals of the table's scalars, multiplied in: see the note in collisions.ball_ball
    t_slide = u * (2.0 / (7.0 * table.mu_slide * g))
    t_roll = speed * (1.0 / (table.mu_roll * g))
    t_spin = jnp.abs(balls.w[:, 2]) * (1.0 / spin_decay_rate(table))
    z, vz = balls.r[:, 2], balls.v[:, 2]
    t_land = (vz + jnp.sqrt(jnp.maximum(vz * vz + 2.0 * g * jnp.maximum(z, 0.0), 0.0))) * (1.0 / g)
    t = jnp.full(s.shape, jnp.inf)
    t = jnp.where(s == SLIDING, t_slide, t)
    t = jnp.where(s == ROLLING, t_roll, t)
    t = jnp.where(s == SPINNING, t_spin, t)
    t = jnp.where(s == AIRBORNE, t_land, t)
    return t


def settle(balls: BallState, table, hop_speed) -> BallState:
    """Motion state implied by velocities, for balls just changed by an impulse.

    A ball on the bed whose vertical velocity exceeds ``hop_speed`` [m/s] takes off; one
    below it stays on the bed (the slate absorbs the vertical part). Airborne balls keep
    flying. Otherwise sliding if the contact point slips, else rolling, spinning or still.
    """
    R = table.radius
    s = balls.state
    in_play = s < POCKETED
    grounded = in_play & (s != AIRBORNE)
    takes_off = grounded & (balls.v[:, 2] > hop_speed)
    vz = jnp.where(grounded & ~takes_off, 0.0, balls.v[:, 2])
    v = balls.v.at[:, 2].set(vz)
    _, u = _unit(slip_velocity(v, balls.w, R))
    speed = _norm2(v[:, :2])
    new = jnp.where(jnp.abs(balls.w[:, 2]) > _EPS_W, SPINNING, STATIONARY)
    new = jnp.where(speed > _EPS_V, ROLLING, new)
    new = jnp.where(u > _EPS_V, SLIDING, new)
    new = jnp.where(takes_off | (s == AIRBORNE), AIRBORNE, new)
    new = jnp.where(in_play, new, s)
    # a ball taken as at rest does not move: a speed below _EPS_V left in it would still
    # count in its contacts' approach speeds
    at_rest = in_play & ((new == STATIONARY) | (new == SPINNING))
    v = v.at[:, :2].set(jnp.where(at_rest[:, None], 0.0, v[:, :2]))
    return balls._replace(v=v, state=new.astype(jnp.int32))


def apply_transition(balls: BallState, i, table, hop_speed):
    """Change ball ``i``'s motion state at its transition time; returns (balls, kind).

    kind: the event kind code (see ``events.py``) of what happened.
    """
    from cuegym.physics.events import LAND, ROLLING_EV, SPINNING_EV, STOP

    R = table.radius
    s = balls.state[i]
    v, w, r = balls.v[i], balls.w[i], balls.r[i]
    # sliding -> rolling: snap the spin to the rolling spin (u = 0 exactly)
    w_roll = jnp.concatenate([rolling_spin(v[:2], R), w[2:]])
    # rolling -> spinning / stationary; spinning -> stationary
    v_stop = jnp.zeros(3)
    w_stop = jnp.zeros(3).at[2].set(jnp.where(s == ROLLING, w[2], 0.0))
    # airborne -> landing: bounce with the slate's restitution, or stay on the bed
    vz_bounce = -table.e_table * v[2]
    bounces = vz_bounce > hop_speed
    v_land = v.at[2].set(jnp.where(bounces, vz_bounce, 0.0))
    r_land = r.at[2].set(0.0)

    is_slide, is_roll, is_spin, is_air = s == SLIDING, s == ROLLING, s == SPINNING, s == AIRBORNE
    new_v = jnp.where(is_roll | is_spin, v_stop, jnp.where(is_air, v_land, v))
    new_w = jnp.where(is_slide, w_roll, jnp.where(is_roll | is_spin, w_stop, w))
    new_r = jnp.where(is_air, r_land, r)
    speed = jnp.sqrt(dot(new_v[:2], new_v[:2]))
    spinning = jnp.abs(new_w[2]) > _EPS_W
    rest = jnp.where(spinning, SPINNING, STATIONARY)
    new_s = jnp.where(is_slide, jnp.where(speed > _EPS_V, ROLLING, rest), s)
    new_s = jnp.where(is_roll, rest, new_s)
    new_s = jnp.where(is_spin, STATIONARY, new_s)
    u_land = jnp.sqrt(dot(slip_velocity(new_v, new_w, R), slip_velocity(new_v, new_w, R)))
    grounded_state = jnp.where(u_land > _EPS_V, SLIDING, jnp.where(speed > _EPS_V, ROLLING, rest))
    new_s = jnp.where(is_air, jnp.where(bounces, AIRBORNE, grounded_state), new_s)
    kind = jnp.where(is_slide, ROLLING_EV, STOP)
    kind = jnp.where(is_roll & spinning, SPINNING_EV, kind)
    kind = jnp.where(is_air, LAND, kind)
    balls = balls._replace(
        r=balls.r.at[i].set(new_r),
        v=balls.v.at[i].set(new_v),
        w=balls.w.at[i].set(new_w),
        state=balls.state.at[i].set(new_s.astype(jnp.int32)),
    )
    return balls, kind


__all__ = [
    "OFF_TABLE",
    "STATIONARY",
    "apply_transition",
    "evolve",
    "linear_acceleration",
    "rolling_spin",
    "settle",
    "slip_velocity",
    "transition_times",
]
