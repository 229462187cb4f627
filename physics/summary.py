"""What a referee needs from a shot, accumulated while the shot is simulated.

Kept online in the event loop (not re-read from the log) so that it stays exact when the
log's capacity is smaller than the number of events. Shapes for N balls:

* ``struck`` () int32: the ball the cue struck; ``miscue`` () bool.
* ``first_contact`` () int32: the first ball the struck ball touched (-1: none), at
  ``first_contact_t`` [s] (+inf: none).
* ``cushions_before`` / ``cushions_after`` (N,) int32: cushion-nose contacts of each ball
  before / after the first contact; ``jaws`` (N,) int32 jaw and pocket-throat contacts;
  ``first_cushion_t`` (N,) time of each ball's first cushion or jaw contact (+inf: none).
* ``pocket`` (N,) int32 pocket id (-1), ``pocket_order`` (N,) int32 0, 1, ... in the order
  balls fell (-1), ``pocket_t`` (N,) [s].
* ``off_table`` (N,) bool, ``off_table_t`` (N,) [s]; ``airborne`` (N,) bool (left the bed
  at some time).
* ``touched`` (N,) bool: the ball took part in a ball–ball contact.
* ``crossed_centre`` / ``crossed_head_line`` (N,) bool: the centre crossed the halfway line
  / the house (baulk) line during the shot; ``max_y`` / ``min_y`` (N,) extreme y reached.
* ``near_ball`` () int32: the object ball nearest the struck ball at the strike, with
  ``near_gap`` [m] between their surfaces and ``near_cut`` [rad], the angle between the cue's
  heading and the line of centres (the close-ball rules RU-GEN-35, SN-55, POOL-GEN-40).
* ``end_t`` () [s]: when the last ball stopped (RU-GEN-34).
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from .vec import dot
from .balls import POCKETED


class ShotSummary(NamedTuple):
    struck: jnp.ndarray
    miscue: jnp.ndarray
    first_contact: jnp.ndarray
    first_contact_t: jnp.ndarray
    cushions_before: jnp.ndarray
    cushions_after: jnp.ndarray
    jaws: jnp.ndarray
    first_cushion_t: jnp.ndarray
    pocket: jnp.ndarray
    pocket_order: jnp.ndarray
    pocket_t: jnp.ndarray
    off_table: jnp.ndarray
    off_table_t: jnp.ndarray
    airborne: jnp.ndarray
    touched: jnp.ndarray
    crossed_centre: jnp.ndarray
    crossed_head_line: jnp.ndarray
    max_y: jnp.ndarray
    min_y: jnp.ndarray
    near_ball: jnp.ndarray
    near_gap: jnp.ndarray
    near_cut: jnp.ndarray
    end_t: jnp.ndarray

    @property
    def num_pocketed(self):
        return jnp.sum(self.pocket_order >= 0)


def start_summary(balls, struck, phi, miscue, radius) -> ShotSummary:
    n = balls.r.shape[0]
    d = balls.r[:, :2] - balls.r[struck, :2]
    dist = jnp.sqrt(dot(d, d))
    candidates = (jnp.arange(n) != struck) & (balls.state < POCKETED)
    gap = jnp.where(candidates, dist - 2 * radius, jnp.inf)
    near = jnp.argmin(gap)
    heading = jnp.array([jnp.cos(phi), jnp.sin(phi)])
    along = dot(d[near], heading)
    across = d[near, 0] * heading[1] - d[near, 1] * heading[0]
    y = balls.r[:, 1]
    return ShotSummary(
        struck=jnp.asarray(struck, jnp.int32),
        miscue=jnp.asarray(miscue),
        first_contact=jnp.asarray(-1, jnp.int32),
        first_contact_t=jnp.asarray(jnp.inf),
        cushions_before=jnp.zeros(n, jnp.int32),
        cushions_after=jnp.zeros(n, jnp.int32),
        jaws=jnp.zeros(n, jnp.int32),
        first_cushion_t=jnp.full(n, jnp.inf),
        pocket=jnp.full(n, -1, jnp.int32),
        pocket_order=jnp.full(n, -1, jnp.int32),
        pocket_t=jnp.full(n, jnp.inf),
        off_table=jnp.zeros(n, bool),
        off_table_t=jnp.full(n, jnp.inf),
        airborne=balls.state == 4,
        touched=jnp.zeros(n, bool),
        crossed_centre=jnp.zeros(n, bool),
        crossed_head_line=jnp.zeros(n, bool),
        max_y=y,
        min_y=y,
        near_ball=jnp.where(jnp.isfinite(gap[near]), near, -1).astype(jnp.int32),
        near_gap=gap[near],
        near_cut=jnp.arctan2(jnp.abs(across), along),  # arctan2, not arccos: see roots.py
        end_t=jnp.asarray(0.0),
    )


def sweep_lines(summ: ShotSummary, y0, vy, ay, dt, centre_line, head_line) -> ShotSummary:
    """Update line crossings and extreme y for every ball moving on y0 + vy t + ay t^2 / 2
    over [0, dt] ((N,) arrays)."""
    y1 = y0 + vy * dt + 0.5 * ay * dt * dt
    t_star = jnp.where(ay != 0, -vy / jnp.where(ay == 0, 1.0, ay), -1.0)
    inside = (t_star > 0) & (t_star < dt)
    y_star = jnp.where(inside, y0 + vy * t_star + 0.5 * ay * t_star * t_star, y0)
    lo = jnp.minimum(jnp.minimum(y0, y1), y_star)
    hi = jnp.maximum(jnp.maximum(y0, y1), y_star)
    return summ._replace(
        crossed_centre=summ.crossed_centre | ((lo < centre_line) & (hi > centre_line)),
        crossed_head_line=summ.crossed_head_line | ((lo < head_line) & (hi > head_line)),
        max_y=jnp.maximum(summ.max_y, hi),
        min_y=jnp.minimum(summ.min_y, lo),
    )
