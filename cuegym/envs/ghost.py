"""The ghost-ball pot table (pure JAX): for every ball that may be struck, object ball and
pocket, the ghost-ball aim, how easy the pot is and the speed to play it. The built-in
"ghost" opponent (each game module's ``ghost_action``, :mod:`cuegym.envs.games`) plays the
best entry; the agents (:mod:`cuegym.agents`) rank every entry. Shapes: N balls, P = 6
pockets, S strikers (= N), J targets (= N).

The ghost ball of object ball j and pocket p is j's centre moved 2R back from the pocket
(R the ball radius); aiming the struck ball's centre at it sends j, to first order (no
throw), towards the pocket.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax.numpy as jnp

from cuegym.physics import get_table

MAX_CUT = math.radians(70.0)  # cuts thinner than this are not tried
MAX_APPROACH = math.radians(60.0)  # object-ball path vs the pocket's axis


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


class PocketLines(NamedTuple):
    """Each object ball j's straight line to each pocket p: ``d2`` (J, P) [m] the distance,
    ``u`` (J, P, 2) the unit direction, ``approach`` (J, P) its cos against the pocket's axis
    (the drop line's normal into the pocket), ``ghost`` (J, P, 2) [m] the ghost ball."""

    d2: jnp.ndarray
    u: jnp.ndarray
    approach: jnp.ndarray
    ghost: jnp.ndarray


def pocket_lines(table_name: str, radius: float, xy) -> PocketLines:
    """:class:`PocketLines` of the balls at ``xy`` (N, 2) [m] on ``table_name`` with balls of
    ``radius`` [m]."""
    table = get_table(table_name)
    pockets = jnp.asarray(table.pocket_xy)
    into = jnp.asarray(table.drop_n)
    to_pocket = pockets[None, :, :] - xy[:, None, :]  # (J, P, 2)
    d2 = jnp.sqrt(jnp.sum(to_pocket**2, -1))
    u = to_pocket / jnp.maximum(d2, 1e-12)[..., None]
    approach = jnp.sum(u * into[None], -1)
    return PocketLines(d2, u, approach, xy[:, None, :] - 2 * radius * u)


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


def object_clearance(table_name: str, radius: float, xy, on, striker):
    """(J, P) bool: object ball j's straight path to pocket p passes at least 2R from every
    ball on but j and ``striker`` () int, the layout ``xy`` (N, 2) [m], ``on`` (N,) bool.
    The striker's place does not enter, so one result serves every spot a ball in hand
    may take (:func:`pots`' ``object_clear``)."""
    table = get_table(table_name)
    n = xy.shape[0]
    ids = jnp.arange(n)
    pockets = jnp.asarray(table.pocket_xy)
    gap2 = segment_gap(xy[:, None, None, :], pockets[None, :, None, :], xy[None, None, :, :])  # (J, P, N)
    others = on[None, None, :] & (ids[None, None, :] != striker) & (ids[None, None, :] != ids[:, None, None])
    return jnp.all(~others | (gap2 >= 2 * radius), -1)


def pots(table_name: str, radius: float, xy, on, strikers, targets, only=None, object_clear=None) -> Pots:
    """:class:`Pots` of the layout ``xy`` (N, 2) [m], ``on`` (N,) bool; ``strikers`` (N,)
    bool the balls that may be struck, ``targets`` (N,) bool the object balls that may be
    aimed at. ``only`` () int: the pots of that striker alone (S = 1), e.g. the ball in
    hand, for 1/N of the work. ``object_clear`` (J, P) bool, with ``only``: the object
    paths' clearance (:func:`object_clearance` for striker ``only``) found once for many
    places of the striker; the results are the same as without it."""
    table = get_table(table_name)
    n = xy.shape[0]
    ids = jnp.arange(n)
    r = radius
    pockets = jnp.asarray(table.pocket_xy)
    d2, u, approach, ghost = pocket_lines(table_name, r, xy)
    s_ids = ids if only is None else jnp.reshape(jnp.asarray(only, ids.dtype), (1,))
    sx = xy[s_ids]  # (S, 2) the strikers' places
    v = ghost[None] - sx[:, None, None, :]  # (S, J, P, 2)
    d1 = jnp.sqrt(jnp.sum(v**2, -1))
    aim = v / jnp.maximum(d1, 1e-12)[..., None]
    cos_cut = jnp.sum(aim * u[None], -1)
    gap1 = segment_gap(sx[:, None, None, None, :], ghost[None, :, :, None, :], xy[None, None, None, :, :])
    s_i, j_i, k_i = s_ids[:, None, None, None], ids[None, :, None, None], ids[None, None, None, :]
    others = on[None, None, None, :] & (k_i != s_i) & (k_i != j_i)
    if object_clear is None:
        gap2 = segment_gap(xy[None, :, None, None, :], pockets[None, None, :, None, :], xy[None, None, None, :, :])
        clear = jnp.all(~others | ((gap1 >= 2 * r) & (gap2 >= 2 * r)), -1)
    else:  # all(a | (b & c)) = all(a | b) & all(a | c); the striker's row is not ok (s = j)
        clear = jnp.all(~others | (gap1 >= 2 * r), -1) & object_clear[None]
    ok = (strikers[s_ids][:, None, None] & targets[None, :, None] & (s_i[..., 0] != j_i[..., 0])
          & (cos_cut > math.cos(MAX_CUT)) & (approach[None] > math.cos(MAX_APPROACH)) & clear & (d1 > 1e-9))
    score = jnp.where(ok, cos_cut * approach[None] ** 2 / (0.5 + d1 + d2[None]), -jnp.inf)
    phi = jnp.mod(jnp.arctan2(v[..., 1], v[..., 0]), 2 * jnp.pi)
    return Pots(phi, pot_speed(d1, d2[None], cos_cut), cos_cut, d1, jnp.broadcast_to(d2[None], d1.shape),
                jnp.broadcast_to(approach[None], d1.shape), ok, score)
