"""The cue strike: from shot parameters (phi, speed, a, b, theta) to the cue ball's motion.

Parameters and impulse model as in W. Leckie and M. Greenspan, "An event-based pool physics
simulator", Advances in Computer Games 11 (2005), so the Computational Pool tournaments'
execution noise applies: ``phi`` the cue heading [rad, counter-clockwise from +x], ``speed``
[m/s], ``a`` / ``b`` the tip offset right / up [ball radii], ``theta`` the cue elevation
[rad]. Squirt from the cue's end mass (R. Shepard, 2001; Alciatore TP A-31). An elevated
strike bounces off the slate (jump shots); a tip offset past ``miscue_limit`` is a miscue,
struck at the limit and flagged for the referees. Formulas: docs/physics.md ("Contacts").
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from cuegym.physics.balls import BallState
from cuegym.physics.collisions import HOP_SPEED
from cuegym.physics.motion import settle
from cuegym.physics.vec import dot


class Shot(NamedTuple):
    """One stroke. Scalars (or batched arrays) of float64, ``cue_ball`` int32."""

    cue_ball: jnp.ndarray
    phi: jnp.ndarray
    speed: jnp.ndarray
    a: jnp.ndarray
    b: jnp.ndarray
    theta: jnp.ndarray


def make_shot(cue_ball=0, phi=0.0, speed=1.0, a=0.0, b=0.0, theta=0.0) -> Shot:
    f = lambda x: jnp.asarray(x, jnp.float64)  # noqa: E731
    return Shot(jnp.asarray(cue_ball, jnp.int32), f(phi), f(speed), f(a), f(b), f(theta))


SHOT_LIMITS = {
    "phi": (-2 * jnp.pi, 4 * jnp.pi),
    "speed": (0.0, 10.0),
    "a": (-1.0, 1.0),
    "b": (-1.0, 1.0),
    "theta": (0.0, jnp.pi * 70 / 180),
}


def squirt_angle(a, mass, endmass):
    """Cue-ball deflection [rad] for side offset ``a`` (ball radii), positive for a > 0."""
    a = jnp.clip(a, -0.99, 0.99)
    root = jnp.sqrt(1.0 - a * a)
    # arctan2, not arctan: XLA's vectorised arctan rounds differently at different batch
    # sizes, which would break "the same shot gives the same bytes alone or in a batch"
    return jnp.arctan2(2.5 * a * root, 1.0 + mass / endmass + 2.5 * root * root)


def strike(balls: BallState, shot: Shot, table):
    """The cue ball after the strike; returns (balls, miscue flag)."""
    m, R, M = table.mass, table.radius, table.cue_mass
    inertia = 0.4 * m * R * R
    offset = jnp.sqrt(shot.a**2 + shot.b**2)
    miscue = offset > table.miscue_limit
    shrink = jnp.where(miscue, table.miscue_limit / jnp.where(offset > 0, offset, 1.0), 1.0)
    a, b = shot.a * shrink, shot.b * shrink
    c = jnp.sqrt(jnp.maximum(1.0 - a * a - b * b, 0.0))
    cp, sp = jnp.cos(shot.phi), jnp.sin(shot.phi)
    ct, st = jnp.cos(shot.theta), jnp.sin(shot.theta)
    d = jnp.array([ct * cp, ct * sp, -st])  # cue axis, pointing through the ball
    right = jnp.array([sp, -cp, 0.0])  # the striker's right
    up = jnp.cross(right, d)  # perpendicular to the cue, upwards
    p = R * (a * right + b * up - c * d)
    pxd = jnp.cross(p, d)
    impulse = 2.0 * shot.speed / (1.0 / m + 1.0 / M + dot(pxd, pxd) / inertia)
    v = impulse * d / m
    w = impulse * pxd / inertia
    # squirt: rotate the horizontal velocity away from the side struck (right side struck,
    # a > 0, sends the ball to the striker's left: counter-clockwise)
    alpha = squirt_angle(a, m, table.cue_endmass)
    ca, sa = jnp.cos(alpha), jnp.sin(alpha)
    v = jnp.array([ca * v[0] - sa * v[1], sa * v[0] + ca * v[1], v[2]])
    # the slate returns the downward part of an elevated strike
    v = v.at[2].set(jnp.where(v[2] < 0, -table.e_table * v[2], v[2]))
    i = shot.cue_ball
    balls = balls._replace(v=balls.v.at[i].set(v), w=balls.w.at[i].set(w))
    settled = settle(balls, table, HOP_SPEED)
    balls = balls._replace(
        v=balls.v.at[i].set(settled.v[i]), state=balls.state.at[i].set(settled.state[i])
    )
    return balls, miscue
