"""Ghost-ball geometry on one layout (pure JAX): which pots are on, how easy, how to play them.

The ghost ball of object ball j and pocket p is j's centre moved 2R back from the pocket
(R the ball radius); aiming the struck ball's centre at it sends j, to first order, towards
the pocket (no throw). The heuristic and its constants are the built-in ghost opponent's
(:func:`cuegym.functional.ghost_action`, docs/envs.md); here it is spread out so that the
agents can rank every pot, place a ball in hand and value a finishing position.
Shapes: N balls, P = 6 pockets, S strikers (= N), J targets (= N).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax.numpy as jnp

from cuegym import functional as F
from cuegym.physics import get_table
from cuegym.rules import russian as ru
from cuegym.rules.base import IN_HAND_REAR

# Pots tried: the built-in ghost's limits (cuegym.functional).
MAX_CUT = F.GHOST_MAX_CUT
MAX_APPROACH = F.GHOST_MAX_APPROACH
DRAW = F.GHOST_DRAW
MIN_HAND_DISTANCE = 0.3  # m: a ball in hand goes at least this far behind the ghost ball


class Pots(NamedTuple):
    """Every (striker s, target j, pocket p), each (S, J, P): ``phi`` [rad] the aim at the
    ghost ball, ``speed`` [m/s] the ghost's cue speed, ``cos_cut``, ``d1`` [m] struck ball
    to ghost, ``d2`` [m] object ball to pocket, ``approach`` cos of the object-ball path
    against the pocket's axis, ``ok`` bool (tried: cut and approach within limits, both
    paths clear of every other ball by 2R), ``score`` cos(cut) cos(approach)^2 / (0.5 m +
    d1 + d2), -inf where not ok."""

    phi: jnp.ndarray
    speed: jnp.ndarray
    cos_cut: jnp.ndarray
    d1: jnp.ndarray
    d2: jnp.ndarray
    approach: jnp.ndarray
    ok: jnp.ndarray
    score: jnp.ndarray


def segment_gap(a, b, p):
    """Distance [m] from points ``p`` to the segments ``a``→``b`` (broadcast, last axis 2)."""
    ab = b - a
    t = jnp.clip(jnp.sum((p - a) * ab, -1) / jnp.maximum(jnp.sum(ab * ab, -1), 1e-18), 0.0, 1.0)
    q = a + t[..., None] * ab
    return jnp.sqrt(jnp.sum((p - q) ** 2, -1))


def pot_speed(d1, d2, cos_cut):
    """The ghost's cue speed [m/s] for a cue path ``d1`` and an object path ``d2`` [m]: the
    object ball leaves with about cos(cut) of the cue ball's speed, so its path counts
    1/cos(cut) times (cos floored at 0.3)."""
    return jnp.clip(1.2 + 0.5 * (d1 + d2 / jnp.maximum(cos_cut, 0.3)), 1.5, 4.0)


def pots(table_name: str, radius: float, xy, on, strikers, targets) -> Pots:
    """:class:`Pots` of the layout ``xy`` (N, 2) [m], ``on`` (N,) bool; ``strikers`` (N,)
    bool the balls that may be struck, ``targets`` (N,) bool the object balls that may be
    aimed at."""
    table = get_table(table_name)
    n = xy.shape[0]
    ids = jnp.arange(n)
    r = radius
    pockets = jnp.asarray(table.pocket_xy)
    into = jnp.asarray(table.drop_n)
    to_pocket = pockets[None, :, :] - xy[:, None, :]  # (J, P, 2)
    d2 = jnp.sqrt(jnp.sum(to_pocket**2, -1))
    u = to_pocket / jnp.maximum(d2, 1e-12)[..., None]
    approach = jnp.sum(u * into[None], -1)
    ghost = xy[:, None, :] - 2 * r * u
    v = ghost[None] - xy[:, None, None, :]  # (S, J, P, 2)
    d1 = jnp.sqrt(jnp.sum(v**2, -1))
    aim = v / jnp.maximum(d1, 1e-12)[..., None]
    cos_cut = jnp.sum(aim * u[None], -1)
    gap1 = segment_gap(xy[:, None, None, None, :], ghost[None, :, :, None, :], xy[None, None, None, :, :])
    gap2 = segment_gap(xy[None, :, None, None, :], pockets[None, None, :, None, :], xy[None, None, None, :, :])
    s_i, j_i, k_i = ids[:, None, None, None], ids[None, :, None, None], ids[None, None, None, :]
    others = on[None, None, None, :] & (k_i != s_i) & (k_i != j_i)
    clear = jnp.all(~others | ((gap1 >= 2 * r) & (gap2 >= 2 * r)), -1)
    ok = (strikers[:, None, None] & targets[None, :, None] & (s_i[..., 0] != j_i[..., 0])
          & (cos_cut > math.cos(MAX_CUT)) & (approach[None] > math.cos(MAX_APPROACH)) & clear & (d1 > 1e-9))
    score = jnp.where(ok, cos_cut * approach[None] ** 2 / (0.5 + d1 + d2[None]), -jnp.inf)
    phi = jnp.mod(jnp.arctan2(v[..., 1], v[..., 0]), 2 * jnp.pi)
    return Pots(phi, pot_speed(d1, d2[None], cos_cut), cos_cut, d1, jnp.broadcast_to(d2[None], d1.shape),
                jnp.broadcast_to(approach[None], d1.shape), ok, score)


def best_pot_score(table_name: str, radius: float, xy, on, strikers, targets):
    """() the best :class:`Pots` score of a layout, 0 when no pot is on: the position
    value of a layout for the player to strike."""
    return jnp.maximum(jnp.max(pots(table_name, radius, xy, on, strikers, targets).score), 0.0)


def safety(spec, xy, on, strikers, targets):
    """A legal-contact stroke when no pot is on: a full-ball hit on the nearest object ball
    the struck ball can reach in a straight line (any nearest if none), at the speed that
    sends that ball on to a cushion (:func:`pot_speed` of both straight paths). Returns
    (s, j () int32, phi [rad], speed [m/s])."""
    n = xy.shape[0]
    ids = jnp.arange(n)
    r = spec.ball_radius
    off = ru.contact_offset(spec)
    v = xy[None, :, :] - xy[:, None, :]  # (S, J, 2)
    d = jnp.sqrt(jnp.sum(v**2, -1))
    dirn = v / jnp.maximum(d, 1e-12)[..., None]
    contact = xy[None, :, :] - 2 * r * dirn
    gap = segment_gap(xy[:, None, None, :], contact[:, :, None, :], xy[None, None, :, :])  # (S, J, K)
    k_i = ids[None, None, :]
    others = on[None, None, :] & (k_i != ids[:, None, None]) & (k_i != ids[None, :, None])
    clear = jnp.all(~others | (gap >= 2 * r), -1)
    pair = strikers[:, None] & targets[None, :] & (ids[:, None] != ids[None, :]) & (d > 2 * r * (1 - 1e-9))
    cost = jnp.where(pair, d + jnp.where(clear, 0.0, 100.0), jnp.inf)
    best = jnp.argmin(cost.reshape(-1))
    s, j = best // n, best % n
    # how far the object ball runs along the line of centres to the cushion noses
    u = dirn[s, j]
    lo = jnp.asarray([off, off])
    hi = jnp.asarray([spec.width - off, spec.length - off])
    run = jnp.where(u > 0, (hi - xy[j]) / jnp.maximum(u, 1e-9), (lo - xy[j]) / jnp.minimum(u, -1e-9))
    run = jnp.clip(jnp.min(run), 0.0, spec.length)
    speed = pot_speed(d[s, j], run, 1.0)
    phi = jnp.mod(jnp.arctan2(u[1], u[0]), 2 * jnp.pi)
    return s.astype(jnp.int32), j.astype(jnp.int32), phi, speed


def hand_region(spec, phase):
    """(low (2,), high (2,)) [m] of the in-hand region of ``phase``: the house, or the
    temporary house at the rear end (RU-GEN-14/20)."""
    off = ru.contact_offset(spec)
    eps = 1e-6
    rear = phase == IN_HAND_REAR
    lo = jnp.stack([jnp.asarray(off), jnp.where(rear, spec.length - spec.head_line + eps, off)])
    hi = jnp.stack([jnp.asarray(spec.width - off), jnp.where(rear, spec.length - off, spec.head_line - eps)])
    return lo, hi


def hand_spots(table_name: str, spec, phase, xy, targets):
    """Candidate places (M, 2) [m] for a ball in hand, M = 6 N + 1: for every target and
    pocket the point of the in-hand region on the straight line pocket → ghost ball,
    extended back, nearest the ghost ball but at least ``MIN_HAND_DISTANCE`` from it (the
    pot is then straight), and the built-in ghost's spot last; a line that misses the
    region gives the ghost's spot."""
    table = get_table(table_name)
    r = spec.ball_radius
    lo, hi = hand_region(spec, phase)
    pockets = jnp.asarray(table.pocket_xy)
    to_pocket = pockets[None, :, :] - xy[:, None, :]
    u = to_pocket / jnp.maximum(jnp.sqrt(jnp.sum(to_pocket**2, -1)), 1e-12)[..., None]
    ghost = xy[:, None, :] - 2 * r * u  # (J, P, 2); spots at ghost - t u, t >= 0
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
    table = get_table(table_name)
    pockets = jnp.asarray(table.pocket_xy)
    into = jnp.asarray(table.drop_n)
    to_pocket = pockets[None, :, :] - xy[:, None, :]
    d2 = jnp.sqrt(jnp.sum(to_pocket**2, -1))
    approach = jnp.sum(to_pocket / jnp.maximum(d2, 1e-12)[..., None] * into[None], -1)
    ease = jnp.max(jnp.where(approach > 0, approach**2, 0.0) / (0.5 + d2), -1)
    return jnp.argmax(jnp.where(candidates, ease, -jnp.inf)).astype(jnp.int32)


def nearest_pocket(table_name: str, point):
    """() int32: the pocket nearest ``point`` (2,)."""
    pockets = jnp.asarray(get_table(table_name).pocket_xy)
    return jnp.argmin(jnp.sum((pockets - point) ** 2, -1)).astype(jnp.int32)


def first_true(mask):
    """() int32: the first True entry of ``mask`` (0 if none)."""
    return jnp.argmax(mask).astype(jnp.int32)

