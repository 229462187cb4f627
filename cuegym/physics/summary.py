"""What a referee needs from a shot, accumulated while the shot is simulated.

Kept online in the event loop (not re-read from the log) so that it stays exact when the
log's capacity is smaller than the number of events: first contact, cushion and jaw
contacts before and after it, pockets and their order, balls off the table or airborne,
pair contact times, lines crossed, the close-ball geometry at the strike and the end time.
Every field, with its shape and unit, is listed in :class:`ShotSummary` and in
docs/physics.md ("Shot summary").
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from cuegym.physics.balls import POCKETED
from cuegym.physics.vec import dot


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
    contact_t: jnp.ndarray
    contact_last_t: jnp.ndarray
    cushion_first_t: jnp.ndarray
    cushion_last_t: jnp.ndarray
    crossed_centre: jnp.ndarray
    crossed_head_line: jnp.ndarray
    cross_t: jnp.ndarray
    max_y: jnp.ndarray
    min_y: jnp.ndarray
    max_x: jnp.ndarray
    min_x: jnp.ndarray
    near_ball: jnp.ndarray
    near_gap: jnp.ndarray
    near_cut: jnp.ndarray
    follow: jnp.ndarray
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
    x, y = balls.r[:, 0], balls.r[:, 1]
    n_cushions = 6
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
        contact_t=jnp.full((n, n), jnp.inf),
        contact_last_t=jnp.full((n, n), -jnp.inf),
        cushion_first_t=jnp.full((n, n_cushions), jnp.inf),
        cushion_last_t=jnp.full((n, n_cushions), -jnp.inf),
        crossed_centre=jnp.zeros(n, bool),
        crossed_head_line=jnp.zeros(n, bool),
        cross_t=jnp.full(n, jnp.inf),
        max_y=y,
        min_y=y,
        max_x=x,
        min_x=x,
        near_ball=jnp.where(jnp.isfinite(gap[near]), near, -1).astype(jnp.int32),
        near_gap=gap[near],
        near_cut=jnp.arctan2(jnp.abs(across), along),  # arctan2, not arccos: see roots.py
        follow=jnp.asarray(False),
        end_t=jnp.asarray(0.0),
    )


def _extent(p0, vp, ap, dt):
    """Lowest and highest value of p0 + vp t + ap t^2 / 2 over [0, dt] ((N,) arrays)."""
    p1 = p0 + vp * dt + 0.5 * ap * dt * dt
    t_star = jnp.where(ap != 0, -vp / jnp.where(ap == 0, 1.0, ap), -1.0)
    inside = (t_star > 0) & (t_star < dt)
    p_star = jnp.where(inside, p0 + vp * t_star + 0.5 * ap * t_star * t_star, p0)
    return jnp.minimum(jnp.minimum(p0, p1), p_star), jnp.maximum(jnp.maximum(p0, p1), p_star)


def sweep_lines(summ: ShotSummary, r, v, acc, t_end, dt, centre_line, head_line) -> ShotSummary:
    """Update line crossings and extreme coordinates for every ball moving on
    r + v t + acc t^2 / 2 ((N, 3) arrays) over the interval [t_end - dt, t_end]."""
    lo_y, hi_y = _extent(r[:, 1], v[:, 1], acc[:, 1], dt)
    lo_x, hi_x = _extent(r[:, 0], v[:, 0], acc[:, 0], dt)
    crossed = (lo_y < centre_line) & (hi_y > centre_line)
    return summ._replace(
        crossed_centre=summ.crossed_centre | crossed,
        crossed_head_line=summ.crossed_head_line | ((lo_y < head_line) & (hi_y > head_line)),
        cross_t=jnp.where(crossed & ~jnp.isfinite(summ.cross_t), t_end, summ.cross_t),
        max_y=jnp.maximum(summ.max_y, hi_y),
        min_y=jnp.minimum(summ.min_y, lo_y),
        max_x=jnp.maximum(summ.max_x, hi_x),
        min_x=jnp.minimum(summ.min_x, lo_x),
    )


def in_penalty_zone(p, apex, u, radius):
    """Whether point ``p`` (2,) lies in the close-ball penalty zone: the wedge of half-angle
    45° around the unit line of centres ``u`` (2,) with its apex at ``apex`` (2,), less the
    disc of radius R/2 around the apex (AMB-12(c)). No trigonometry: cos² 45° = 1/2."""
    d = p - apex
    along = d[0] * u[0] + d[1] * u[1]
    dist2 = d[0] * d[0] + d[1] * d[1]
    return (along > 0) & (along * along >= 0.5 * dist2) & (dist2 > 0.25 * radius * radius)
