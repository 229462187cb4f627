"""Ball state: positions, velocities, spins and motion states of every ball on a table.

Shapes: N balls; ``r``, ``v``, ``w`` are (N, 3) float64 in the table frame (x, y, z), where
``r[:, 2]`` is the height of the ball's centre above its resting height (0 on the bed) and
``w`` the angular velocity [rad/s]. ``state`` (N,) int32 is one of the motion states below,
``pocket`` (N,) int32 the pocket id of a pocketed ball (-1 otherwise).
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from cuegym.physics.vec import dot

STATIONARY, SPINNING, SLIDING, ROLLING, AIRBORNE, POCKETED, OFF_TABLE = range(7)
STATE_NAMES = ("stationary", "spinning", "sliding", "rolling", "airborne", "pocketed", "off_table")


class BallState(NamedTuple):
    r: jnp.ndarray  # (N, 3) m
    v: jnp.ndarray  # (N, 3) m/s
    w: jnp.ndarray  # (N, 3) rad/s
    state: jnp.ndarray  # (N,) int32
    pocket: jnp.ndarray  # (N,) int32

    @property
    def on_table(self):
        """(N,) bool: the ball is still in play on the bed (or in the air above it)."""
        return self.state < POCKETED

    @property
    def moving(self):
        """(N,) bool: the ball is moving or spinning (RU-GEN-34: spinning counts)."""
        return (self.state != STATIONARY) & (self.state < POCKETED)


def at_rest(xy, on_table=None) -> BallState:
    """Balls at rest at ``xy`` ((N, 2) metres); ``on_table`` (N,) bool marks balls present
    (absent balls are given the off-table state and never interact)."""
    xy = jnp.asarray(xy, dtype=jnp.float64)
    n = xy.shape[0]
    present = jnp.ones(n, bool) if on_table is None else jnp.asarray(on_table, bool)
    r = jnp.concatenate([xy, jnp.zeros((n, 1))], axis=1)
    return BallState(
        r=r,
        v=jnp.zeros((n, 3)),
        w=jnp.zeros((n, 3)),
        state=jnp.where(present, STATIONARY, OFF_TABLE).astype(jnp.int32),
        pocket=jnp.full((n,), -1, jnp.int32),
    )


def kinetic_energy(balls: BallState, mass, radius):
    """Total translational plus rotational kinetic energy of balls in play [J]."""
    inertia = 0.4 * mass * radius**2
    e = 0.5 * mass * dot(balls.v, balls.v) + 0.5 * inertia * dot(balls.w, balls.w)
    return jnp.sum(jnp.where(balls.on_table, e, 0.0), -1)
