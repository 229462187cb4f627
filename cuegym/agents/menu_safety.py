"""Thin safeties for the shot menu (pure JAX, traceable, one table).

The ghost agent's own safety is a full-ball hit on the nearest object ball. A player
usually has better: a thin contact, which sends the object ball off at a wide angle and
leaves the struck ball running on to a cushion, far from the object ball and tight on the
rail. For the ``pairs`` nearest (striker, object ball) pairs the striker can reach in a
straight line, this module builds that stroke on either side of the object ball. Which of
them helps, in which game, is the learner's to find; the referee still rules on each.
Specification: docs/training.md, "The shot menu".
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp

from cuegym.agents import geometry as G
from cuegym.agents.baselines import ball_in_hand, hand_spot, target_balls
from cuegym.envs import functional as F
from cuegym.envs.registry import game
from cuegym.physics import get_table
from cuegym.rules import americanka as am

PAIRS = 4  # (striker, object ball) pairs, nearest first; each played on both sides
THIN_CUT = math.radians(60.0)  # the cut of a thin contact: the object ball takes cos = 1/2
MIN_SAFETY_SPEED = 0.5  # m/s


class Safeties(NamedTuple):
    """The 2 x ``pairs`` thin safeties (pair k's two sides at 2k and 2k + 1): striker ``s``
    and object ball ``j`` () int32; ``phi`` [rad] and cue ``speed`` [m/s] of a centre-ball
    stroke; ``cos_cut``, ``sin_cut`` of the cut at contact; ``d1`` [m] the striker's path to
    the contact, ``d2`` [m] the object ball's to its cushion; ``ghost`` (2,) the striker's
    centre at contact, ``object_end`` (2,) where the object ball meets its cushion; ``spot``
    (2,) the ball in hand's spot (the striker's place otherwise); ``found`` () bool."""

    s: jnp.ndarray
    j: jnp.ndarray
    phi: jnp.ndarray
    speed: jnp.ndarray
    cos_cut: jnp.ndarray
    sin_cut: jnp.ndarray
    d1: jnp.ndarray
    d2: jnp.ndarray
    ghost: jnp.ndarray
    object_end: jnp.ndarray
    spot: jnp.ndarray
    found: jnp.ndarray


def nearest_clear_pairs(spec, xy, on, strikers, targets, pairs: int):
    """The ``pairs`` (striker, object ball) pairs nearest each other whose straight path to a
    full contact is clear of the other balls: (s, j (pairs,) int32, found (pairs,) bool)."""
    n = xy.shape[0]
    d, _, _, clear, pair = G.straight_hits(spec, xy, on, strikers, targets)
    ok = pair & (d > 2 * spec.ball_radius) & clear
    neg, best = jax.lax.top_k(jnp.where(ok, -d, -jnp.inf).reshape(-1), pairs)
    return (best // n).astype(jnp.int32), (best % n).astype(jnp.int32), jnp.isfinite(neg)


def thin_safeties(env: F.FuncEnv, state: F.EnvState, pairs: int = PAIRS) -> Safeties:
    """(traceable) The thin safeties of ``state`` for the player to act (:class:`Safeties`).

    The line of centres at contact is the striker-to-object direction turned by
    ``THIN_CUT`` to either side; a side whose striker meets another ball on its way to the
    contact or on from it to its cushion is left out. Pace, from the closed forms of a rolling ball (deceleration mu_roll g, v^2 = 2 a s):
    at contact the struck ball needs the speed that, keeping sin(cut) of it along the
    tangent and getting 2/7 of cos(cut) of it back along the line of centres from its
    forward spin (throw left out), rolls it to a ball's width short of its cushion; then the
    cue speed that brings the striker there rolling (5/7 of its speed after the strike; the
    strike's ball/cue ratio 2 / (1 + m/M)). In Americanka, where a stroke that pockets
    nothing must send a ball on from one cushion to a second (AM-12), at least the speed
    :func:`cuegym.agents.geometry.carry_speed` gives the object ball for that. Within
    [``MIN_SAFETY_SPEED``, ``G.MAX_SAFETY_SPEED``]. From hand, the ball in hand is placed
    on the built-in ghost's spot, as the ghost agent's own safety."""
    spec = env.spec
    r = spec.ball_radius
    hand = game(env.task).hand_ball
    in_hand = ball_in_hand(state.game.phase)
    spot = hand_spot(env, state)
    xy = jnp.where(in_hand, state.xy.at[hand].set(spot), state.xy)
    on = jnp.where(in_hand, state.on.at[hand].set(True), state.on)
    strikers = F.legal_masks(env, state)["cue_ball"]
    s, j, found = nearest_clear_pairs(spec, xy, on, strikers, target_balls(env, state, xy) & on, pairs)
    two_cushions = env.task == am.GAME
    a = spec.mu_roll * get_table(spec.name).gravity
    roll = 5.0 / 7.0
    roll_on = 2.0 / 7.0

    def side(s, j, turn):
        to_obj = xy[j] - xy[s]
        u = to_obj / jnp.maximum(jnp.sqrt(jnp.sum(to_obj**2)), 1e-12)
        c, sn = math.cos(THIN_CUT), math.sin(THIN_CUT) * turn
        n_c = jnp.stack([c * u[0] - sn * u[1], sn * u[0] + c * u[1]])  # line of centres
        ghost, d1, aim, cos_cut, sin_cut = G.contact_geometry(xy[s], xy[j], n_c, r)
        # a rolling ball leaves a cut with sin(cut) of its speed along the tangent and, once
        # its forward spin has rolled it out, 2/7 of cos(cut) of it along the line of centres
        after = (aim - cos_cut * n_c) + roll_on * cos_cut * n_c
        keep = jnp.sqrt(jnp.sum(after**2))
        cue_leg = G.cushion_legs(spec, ghost, after / jnp.maximum(keep, 1e-12))[0]
        d2, second, _, head_on = G.cushion_legs(spec, xy[j], n_c)
        reach = lambda dist: jnp.sqrt(2 * a * jnp.maximum(dist, 0.0))  # noqa: E731
        # the struck ball is to stop a ball's width short of its cushion
        v_hit = reach(cue_leg - 2 * r) / jnp.maximum(keep, 0.3)
        v_struck = jnp.sqrt(v_hit**2 + reach(d1) ** 2) / roll
        speed = v_struck * (1.0 + spec.ball_mass / spec.cue_mass) / 2.0
        if two_cushions:  # and the object ball to go on to a second cushion (AM-12)
            speed = jnp.maximum(speed, G.carry_speed(spec, d1, d2, second, cos_cut, head_on))
        others = on & (jnp.arange(xy.shape[0]) != s) & (jnp.arange(xy.shape[0]) != j)
        rest = ghost + (cue_leg - 2 * r) * after / jnp.maximum(keep, 1e-12)  # where the striker is to stop
        clear = jnp.all(~others | ((G.segment_gap(xy[s], ghost, xy) >= 2 * r)
                                   & (G.segment_gap(ghost, rest, xy) >= 2 * r)))
        speed = jnp.clip(speed, MIN_SAFETY_SPEED, G.MAX_SAFETY_SPEED)
        phi = jnp.mod(jnp.arctan2(aim[1], aim[0]), 2 * jnp.pi)
        return phi, speed, cos_cut, sin_cut, d1, d2, ghost, xy[j] + d2 * n_c, clear

    turns = jnp.tile(jnp.asarray([1.0, -1.0]), pairs)
    s2, j2, found2 = (jnp.repeat(x, 2) for x in (s, j, found))
    phi, speed, cos_cut, sin_cut, d1, d2, ghost, end, clear = jax.vmap(side)(s2, j2, turns)
    spots = jnp.where(in_hand, spot[None], state.xy[s2])
    return Safeties(s2, j2, phi, speed, cos_cut, sin_cut, d1, d2, ghost, end, spots, found2 & clear)


__all__ = ["PAIRS", "THIN_CUT", "Safeties", "nearest_clear_pairs", "thin_safeties"]
