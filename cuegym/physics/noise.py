"""Execution noise on a shot, as in the Computational Pool tournaments.

Independent Gaussians on each shot parameter; ``level`` multiplies the tournament sigmas
(phi 0.125 degrees, speed 0.075 m/s, tip offsets 0.5 mm, theta 0.1 degrees): 0 is exact,
1 the 2011 championship's low noise, 5 its high noise (M. Smith, M. Greenspan et al.,
Computational Pool tournament reports; docs/physics.md). Tip offsets are in ball radii, so
their sigma is 0.5 mm divided by the ball radius.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from cuegym.physics.strike import Shot

SIGMA_PHI = math.radians(0.125)
SIGMA_SPEED = 0.075
SIGMA_TIP = 0.0005  # metres
SIGMA_THETA = math.radians(0.1)


def perturb(key, shot: Shot, level, radius) -> Shot:
    """``shot`` with Gaussian execution noise drawn from ``key`` (no global RNG).

    ``radius``: ball radius [m], to turn the tip sigma into ball radii. Speed stays >= 0 and
    theta >= 0 (reflected), tip offsets are not clipped (a large draw can miscue).
    """
    k = jax.random.split(key, 5)
    z = lambda kk: jax.random.normal(kk, jnp.shape(shot.phi), dtype=jnp.float64)  # noqa: E731
    level = jnp.asarray(level, jnp.float64)
    tip = SIGMA_TIP / radius
    return shot._replace(
        phi=shot.phi + level * SIGMA_PHI * z(k[0]),
        speed=jnp.abs(shot.speed + level * SIGMA_SPEED * z(k[1])),
        a=shot.a + level * tip * z(k[2]),
        b=shot.b + level * tip * z(k[3]),
        theta=jnp.abs(shot.theta + level * SIGMA_THETA * z(k[4])),
    )
