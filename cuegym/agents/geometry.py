"""Ghost-ball geometry on one layout (pure JAX): which pots are on, how easy, how to play them.

The ghost ball of object ball j and pocket p is j's centre moved 2R back from the pocket
(R the ball radius); aiming the struck ball's centre at it sends j, to first order, towards
the pocket (no throw). The heuristic and its constants are the built-in ghost opponent's
(:func:`cuegym.envs.functional.ghost_action`, docs/envs.md); here it is spread out so that the
agents can rank every pot, place a ball in hand and value a finishing position. The
safeties (:func:`safety`, Americanka's :func:`miss_speed`) live in :mod:`cuegym.envs.ghost_safety`,
shared with the built-in ghost, and are re-exported here.
Shapes: N balls, P = 6 pockets, S strikers (= N), J targets (= N).
"""

from __future__ import annotations

import jax.numpy as jnp

from cuegym.envs import functional as F
from cuegym.envs import ghost
from cuegym.envs.ghost import Pots, object_clearance, pocket_lines, pot_speed, pots, segment_gap
from cuegym.envs.ghost_safety import (
    CARRY_MARGIN,
    MAX_POT_SPEED,
    MAX_SAFETY_SPEED,
    MIN_HEAD_ON,
    POCKET_CLEARANCE,
    americanka_pot_speed,
    carry_speed,
    cushion_legs,
    miss_speed,
    safety,
    straight_hits,
)
from cuegym.physics import get_table

# the agents' geometry API: the ghost heuristic's pieces shared with the built-in ghost
# (cuegym.envs.ghost, cuegym.envs.ghost_safety) and those of this module
__all__ = [
    "CARRY_MARGIN", "DRAW", "MAX_APPROACH", "MAX_CUT", "MAX_POT_SPEED", "MAX_SAFETY_SPEED", "MIN_HAND_DISTANCE",
    "MIN_HEAD_ON", "POCKET_CLEARANCE", "Pots", "americanka_pot_speed", "best_pot_score", "carry_speed",
    "contact_geometry", "cushion_legs", "first_true", "hand_spots", "miss_speed", "nearest_pocket", "object_clearance",
    "pocket_lines", "pot_speed", "pots", "removal_choice", "safety", "segment_gap", "straight_hits",
]

# Pots tried and the draw: the built-in ghost's (cuegym.envs.ghost, cuegym.envs.functional).
MAX_CUT = ghost.MAX_CUT
MAX_APPROACH = ghost.MAX_APPROACH
DRAW = F.GHOST_DRAW
MIN_HAND_DISTANCE = 0.3  # m: a ball in hand goes at least this far behind the ghost ball


def best_pot_score(table_name: str, radius: float, xy, on, strikers, targets):
    """() the best :class:`Pots` score of a layout, 0 when no pot is on: the position
    value of a layout for the player to strike."""
    return jnp.maximum(jnp.max(pots(table_name, radius, xy, on, strikers, targets).score), 0.0)


def hand_spots(table_name: str, spec, phase, xy, targets):
    """Candidate places (M, 2) [m] for a ball in hand, M = 6 N + 1: for every target and
    pocket the point of the in-hand region on the straight line pocket → ghost ball,
    extended back, nearest the ghost ball but at least ``MIN_HAND_DISTANCE`` from it (the
    pot is then straight), and the built-in ghost's spot last; a line that misses the
    region gives the ghost's spot."""
    lo, hi = F.in_hand_region(spec, phase)
    _, u, _, ghost = pocket_lines(table_name, spec.ball_radius, xy)  # (J, P, 2); spots at ghost - t u, t >= 0
    safe_u = jnp.where(jnp.abs(u) < 1e-12, 1e-12, u)
    t_a = (ghost - hi) / safe_u
    t_b = (ghost - lo) / safe_u
    t_in = jnp.max(jnp.minimum(t_a, t_b), -1)
    t_out = jnp.min(jnp.maximum(t_a, t_b), -1)
    t = jnp.maximum(t_in, MIN_HAND_DISTANCE)
    fits = (t <= t_out) & targets[:, None]
    spot = F.ghost_spot(spec, phase)
    spots = jnp.where(fits[..., None], ghost - t[..., None] * u, spot)
    return jnp.concatenate([spots.reshape(-1, 2), spot[None]], 0)


def removal_choice(table_name: str, xy, on, candidates):
    """Moscow pyramid's remove_ball (MP-09): the candidate object ball (``candidates`` (N,)
    bool) easiest to pot for the striker, who plays next from hand: the best cos(approach)^2
    / (0.5 m + distance to the pocket) over the pockets. Returns () int32."""
    d2, _, approach, _ = pocket_lines(table_name, 0.0, xy)
    ease = jnp.max(jnp.where(approach > 0, approach**2, 0.0) / (0.5 + d2), -1)
    return jnp.argmax(jnp.where(candidates, ease, -jnp.inf)).astype(jnp.int32)


def nearest_pocket(table_name: str, point):
    """() int32: the pocket nearest ``point`` (2,)."""
    pockets = jnp.asarray(get_table(table_name).pocket_xy)
    return jnp.argmin(jnp.sum((pockets - point) ** 2, -1)).astype(jnp.int32)


def first_true(mask):
    """() int32: the first True entry of ``mask`` (0 if none)."""
    return jnp.argmax(mask).astype(jnp.int32)



def contact_geometry(striker_xy, object_xy, line, radius):
    """The contact that sends the object ball at ``object_xy`` (2,) along ``line`` (2,) (unit:
    the line of centres at contact) when struck by a ball from ``striker_xy`` (2,) in a
    straight line, both of ``radius`` [m]: (ghost (2,) the striker's centre at contact,
    d1 () [m] its path there, aim (2,) unit, cos_cut (), sin_cut () of the cut)."""
    ghost = object_xy - 2 * radius * line
    path = ghost - striker_xy
    d1 = jnp.sqrt(jnp.sum(path**2))
    aim = path / jnp.maximum(d1, 1e-12)
    return ghost, d1, aim, jnp.dot(aim, line), aim[0] * line[1] - aim[1] * line[0]
