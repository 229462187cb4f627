"""Safeties for the ghost-ball heuristics (pure JAX): the stroke played when no pot is on,
and, for Americanka, the speeds that keep every stroke a legal safety.

In Americanka a stroke that pockets nothing must be a legal safety (AM-10 a ball crosses
the centre line and reaches the opposite short cushion, AM-11 two balls cross it, AM-12 a
ball rebounds from one cushion to a second), else it is a foul (AM-13, RU-GEN-47).
:func:`safety` with ``two_cushions`` aims at AM-12 and :func:`miss_speed` gives each pot a
speed whose miss still meets it. Both the built-in ghost (:func:`cuegym.envs.games.pyramid.ghost_action`)
and the ghost-ball agent (:mod:`cuegym.agents.geometry`, which re-exports these names) use
them. Shapes: N balls, P = 6 pockets, S strikers (= N), J targets (= N).
"""

from __future__ import annotations

import jax.numpy as jnp

from cuegym.envs.ghost import Pots, pot_speed, segment_gap
from cuegym.physics import get_table
from cuegym.rules import russian as ru

# Americanka's legal safety (AM-12): the closed form of :func:`carry_speed` leaves out the
# cushion's friction, the balls' (throw) and any slide still left at the hit, so every
# distance counts this much more
CARRY_MARGIN = 1.25
# m/s: an Americanka pot raised to its miss_speed stops here. 6 m/s, not pot_speed's own 4:
# built-in ghost against itself at noise 1, 4,864 strokes, 229 -> 69 illegal safeties (AM-13)
# and 1,278 -> 1,306 balls counted (docs/envs.md)
MAX_POT_SPEED = 6.0
MAX_SAFETY_SPEED = 6.0  # m/s, inside the action space's 10 m/s: faster strokes scatter the pack
POCKET_CLEARANCE = 0.2  # m: a cushion point nearer a pocket centre than this may be the jaws
MIN_HEAD_ON = 0.3  # cos of the incidence (about 73 deg): a thinner one grazes the cushion


def safety(spec, xy, on, strikers, targets, two_cushions: bool = False):
    """A legal-contact stroke when no pot is on: a full-ball hit on an object ball the
    struck ball can reach in a straight line. Returns (s, j () int32, phi [rad], speed [m/s]).

    ``two_cushions`` False (Russian and Moscow pyramid, snooker, golf): the nearest such
    pair (any nearest if none is clear), at the speed that sends the object ball on to a
    cushion (:func:`pot_speed` of both straight paths). True (Americanka, where a stroke that
    pockets nothing must be a legal safety, AM-10..13): the pair whose object ball needs the
    least cue speed (:func:`carry_speed`) to reach a cushion and roll back to a second one
    (AM-12) on its straight path and mirror reflection (:func:`cushion_legs`); a pair less
    than R/2 apart is avoided, since a straight hit on a close ball fouls when the struck
    ball follows (RU-GEN-35) or the object ball is frozen to a cushion (press stroke,
    RU-GEN-43), and so is an object path that meets another ball first, a pocket's jaws (a
    jaw is not a cushion), or grazes or starts on the cushion."""
    n = xy.shape[0]
    r = spec.ball_radius
    d, dirn, others, clear, pair = straight_hits(spec, xy, on, strikers, targets)
    first, second, hits, head_on = cushion_legs(spec, xy[None, :, :], dirn)  # (S, J), hits (S, J, 2, 2)
    if two_cushions:
        # the object ball's first leg, clear of the other balls, to a cushion away from the pockets
        gap_obj = segment_gap(xy[None, :, None, :], hits[:, :, None, 0, :], xy[None, None, :, :])
        open_leg = jnp.all(~others | (gap_obj >= 2 * r), -1)
        near_pocket = jnp.sum((hits[:, :, :, None, :] - pockets(spec)) ** 2, -1)  # (S, J, 2, P)
        off_jaws = jnp.all(near_pocket > POCKET_CLEARANCE**2, (-2, -1))
        # a ball frozen to a cushion, or one that only grazes it, rolls along the cushion
        # instead of rebounding from it
        rebounds = (first >= 2 * r) & (head_on >= MIN_HEAD_ON)
        close = d - 2 * r <= 0.5 * r  # RU-GEN-35 / RU-GEN-43 (AMB-12, AMB-13): within R/2
        need = carry_speed(spec, d - 2 * r, first, second, 1.0, head_on)
        cost = need + 100.0 * ~clear + 100.0 * close + 10.0 * ~(open_leg & off_jaws & rebounds)
        cost = jnp.where(pair, cost, jnp.inf)
    else:
        cost = jnp.where(pair, d + jnp.where(clear, 0.0, 100.0), jnp.inf)
    best = jnp.argmin(cost.reshape(-1))
    s, j = best // n, best % n
    u = dirn[s, j]
    if two_cushions:
        speed = jnp.clip(need[s, j], 1.5, MAX_SAFETY_SPEED)
    else:  # how far the object ball runs along the line of centres to the cushion noses
        speed = pot_speed(d[s, j], jnp.clip(first[s, j], 0.0, spec.length), 1.0)
    phi = jnp.mod(jnp.arctan2(u[1], u[0]), 2 * jnp.pi)
    return s.astype(jnp.int32), j.astype(jnp.int32), phi, speed


def straight_hits(spec, xy, on, strikers, targets):
    """Full-ball hits of each striker on each object ball of the layout ``xy`` (N, 2) [m],
    ``on`` (N,): (d (S, J) [m] centre distances, dirn (S, J, 2) unit directions, others
    (S, J, K) bool the balls on the table other than the pair, clear (S, J) bool the straight
    path to the contact passes every other ball, pair (S, J) bool a striker and a target,
    distinct and apart)."""
    ids = jnp.arange(xy.shape[0])
    r = spec.ball_radius
    v = xy[None, :, :] - xy[:, None, :]  # (S, J, 2)
    d = jnp.sqrt(jnp.sum(v**2, -1))
    dirn = v / jnp.maximum(d, 1e-12)[..., None]
    contact = xy[None, :, :] - 2 * r * dirn
    gap = segment_gap(xy[:, None, None, :], contact[:, :, None, :], xy[None, None, :, :])  # (S, J, K)
    k_i = ids[None, None, :]
    others = on[None, None, :] & (k_i != ids[:, None, None]) & (k_i != ids[None, :, None])
    clear = jnp.all(~others | (gap >= 2 * r), -1)
    pair = strikers[:, None] & targets[None, :] & (ids[:, None] != ids[None, :]) & (d > 2 * r * (1 - 1e-9))
    return d, dirn, others, clear, pair


def cushion_legs(spec, p, u):
    """The straight path of a ball centred at ``p`` (..., 2) [m] heading ``u`` (..., 2)
    (unit) inside the rectangle of the cushion noses (offset by the contact distance): the
    first leg [m] to the cushion met, the second leg [m] after a mirror reflection there to
    the next cushion (another one, AM-12), the two points met (..., 2, 2) and the cosine of
    the incidence at the first (1: head-on). Pockets are ignored."""
    off = ru.contact_offset(spec)
    lo = jnp.asarray([off, off])
    hi = jnp.asarray([spec.width - off, spec.length - off])

    def run(q, w):  # distance along w to each wall line, (..., 2); a wall behind is "far"
        t = jnp.where(w > 0, (hi - q) / jnp.maximum(w, 1e-9), (lo - q) / jnp.minimum(w, -1e-9))
        return jnp.clip(t, 0.0, 1e3)

    t = run(p, u)
    first = jnp.min(t, -1)
    hit = p + first[..., None] * u
    wall = jnp.argmin(t, -1)  # 0: a long cushion (x), 1: a short one (y)
    u2 = jnp.where(jnp.arange(2) == wall[..., None], -u, u)
    second = jnp.min(run(hit, u2), -1)
    head_on = jnp.abs(jnp.take_along_axis(u, wall[..., None], -1)[..., 0])
    return first, second, jnp.stack([hit, hit + second[..., None] * u2], -2), head_on


def carry_speed(spec, d1, first, second, cos_cut=1.0, head_on=1.0):
    """The cue speed [m/s] (centre hit) for the struck ball to roll ``d1`` [m] to the
    contact and for the object ball, sent off at ``cos_cut`` of its speed, to roll a
    ``first`` leg [m] to a cushion and a ``second`` leg [m] after it (AM-12): closed form with
    the table's rolling resistance a = mu_roll g (v^2 = 2 a s per leg), the cushion met at
    ``head_on`` = cos(incidence) keeping the tangential part of the velocity and (5 e - 2)/7
    of the normal part (e = ``e_cushion``), a ball struck without spin rolling on at 5/7 of its speed
    (the struck ball after the strike, the object ball after the hit), the object ball
    leaving with (1 + e_ball)/2 of the struck ball's speed, and the strike's ball/cue speed
    ratio 2 / (1 + m/M) (the impulse model of cuegym.physics.strike, b = 0). Distances are
    lengthened by ``CARRY_MARGIN`` for what the model leaves out. Broadcasts."""
    a = spec.mu_roll * get_table(spec.name).gravity  # the simulation's own g
    roll = 5.0 / 7.0
    # the cushion reverses the normal part at e_cushion, but the ball's topspin still turns
    # forward: once rolling again the normal part keeps (5 e - 2) / 7 (rolling ball, no
    # cushion friction); ``head_on`` the cosine of the incidence
    keep = (5 * spec.e_cushion - 2) / 7
    keep2 = 1 - head_on**2 + (keep * head_on) ** 2
    v_obj = jnp.sqrt(2 * a * CARRY_MARGIN * (first + second / keep2))
    v_hit = v_obj / (roll * (1 + spec.e_ball) / 2 * jnp.maximum(cos_cut, 0.3))
    v_struck = jnp.sqrt(v_hit**2 + 2 * a * CARRY_MARGIN * jnp.maximum(d1, 0.0)) / roll
    return v_struck * (1.0 + spec.ball_mass / spec.cue_mass) / 2.0


def miss_speed(spec, xy, pots_: Pots):
    """(S, J, P) the cue speed [m/s] (:func:`carry_speed`) of each pot such that a miss is
    still a legal safety in Americanka (AM-12, RU-GEN-47): the object ball, bounced straight
    back off the cushion by the pocket (the worst case), rolls back past its start to the
    cushion behind it. The pot's own legs: d1 cue path, d2 object path, cos(cut)."""
    back = xy[:, None, :] - pockets(spec)[None]  # (J, P, 2): pocket -> object ball
    u = back / jnp.maximum(jnp.sqrt(jnp.sum(back**2, -1)), 1e-12)[..., None]
    behind, _, _, _ = cushion_legs(spec, jnp.broadcast_to(xy[:, None, :], u.shape), u)  # (J, P)
    return carry_speed(spec, pots_.d1, pots_.d2, pots_.d2 + behind[None], pots_.cos_cut)


def americanka_pot_speed(spec, xy, pots_: Pots):
    """(S, J, P) [m/s] the Americanka speed of each pot: its :func:`pot_speed` raised to
    :func:`miss_speed`, so that a miss is still a legal safety (AM-12, AM-13, RU-GEN-47),
    up to ``MAX_POT_SPEED``."""
    return jnp.clip(miss_speed(spec, xy, pots_), pots_.speed, MAX_POT_SPEED)


def pockets(spec):
    """(P, 2) [m] the pocket centres of the table of ``spec``."""
    return jnp.asarray(get_table(spec.name).pocket_xy)
