"""The shot menu: K candidate strokes of a position, each a whole legal decision, with
features a network can rank them by (pure JAX, traceable, one table).

Why: a learner that must find a pot's aim in a continuous space meets a window of under a
degree, shifted off the ghost-ball aim by throw; it fails (docs/training.md). The menu turns
the decision into a choice among strokes that already aim right, so learning is about which
pot, at which pace and tip, and when to play safe. Candidates: the ``POTS`` best ghost-ball
pots of :func:`cuegym.agents.baselines.ghost_plans` (every legal striker, ball on, pocket
and, from hand, placement) at each of ``STYLES``, their aim corrected for throw
(:func:`throw_corrected_aim`); in the refereed games, thin safeties on the nearest object
balls (:mod:`cuegym.agents.menu_safety`); then the ghost agent's own decision (its safety
when no pot is on). Empty slots repeat the ghost's decision and are masked. Shapes:
K = POTS x |STYLES| + 2 PAIRS + 1 candidates, F = ``NUM_FEATURES``. Specification: docs/training.md, "The shot menu".
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.agents import geometry as G
from cuegym.agents import menu_safety as S
from cuegym.agents.baselines import Plans, ball_in_hand, ghost_decision, ghost_plans, ghost_plans_batch, refereed
from cuegym.envs import functional as F
from cuegym.envs.registry import GAMES
from cuegym.physics import get_table
from cuegym.physics.balls import SLIDING, at_rest
from cuegym.physics.collisions import HOP_SPEED, ball_ball
from cuegym.physics.motion import apply_transition, evolve, linear_acceleration, transition_times
from cuegym.physics.strike import make_shot, strike

POTS = 8  # ghost-ball pots on the menu, best first
# (factor of the ghost's pace, tip offset b [ball radii]): the ghost's draw stroke, then
# slower ones at draw, stun and follow. Slower pots drop more often under the execution
# noise: a pocket takes a slow ball over a wider window (docs/training.md, "The shot menu")
STYLES = ((1.0, -0.3), (0.8, -0.3), (0.65, 0.0), (0.5, 0.0), (0.4, 0.0), (0.5, -0.3), (0.5, 0.3))
THROW_ITERATIONS = 2  # fixed-point steps of the throw correction
FEATURES = ("legal", "ghost", "pot", "cos_cut", "sin_cut", "cue_path", "object_path", "approach", "window",
            "clearance", "points", "pace", "speed", "arrival", "tip", "throw", "from_hand", "spot_x", "spot_y")
NUM_FEATURES = len(FEATURES)
CLEARANCE_CAP = 4.0  # clearance is reported in ball diameters, capped


def size(styles=STYLES, pots: int = POTS, pairs: int = S.PAIRS) -> int:
    """K, the number of candidates."""
    return pots * len(styles) + 2 * pairs + 1


class Menu(NamedTuple):
    """The candidates of one position: ``actions`` the env action dict, each field with a
    leading K; ``features`` (K, F) float32 (:data:`FEATURES`, scaled to about unit range);
    ``legal`` (K,) bool (False: an empty slot, a copy of the ghost's decision)."""

    actions: dict
    features: jnp.ndarray
    legal: jnp.ndarray


def _time_to(v, a, d):
    """The time [s] a motion s(t) = v t + a t^2 / 2 takes to cover ``d`` [m] (v > 0), and
    whether it does before it stops."""
    disc = v * v + 2.0 * a * d
    t = 2.0 * d / jnp.maximum(v + jnp.sqrt(jnp.maximum(disc, 0.0)), 1e-12)
    return t, disc >= 0


def travel(table, balls, distance):
    """Ball 0 of ``balls`` (a one-ball :class:`cuegym.physics.balls.BallState` on the bed,
    moving in a straight line: no side spin, so its slip stays along its path) once it has
    gone ``distance`` [m]: sliding with constant deceleration, then rolling after its
    transition (the closed forms of :mod:`cuegym.physics.motion`), the time of each phase
    from its quadratic. Returns (ball state there, reaches () bool: it gets there before
    it stops)."""
    speed = jnp.sqrt(jnp.sum(balls.v[0, :2] ** 2))
    u = balls.v[0, :2] / jnp.maximum(speed, 1e-12)
    t_slide = transition_times(balls, table)[0]
    slid = evolve(balls, table, t_slide)
    rolled = apply_transition(slid, 0, table, HOP_SPEED)[0]
    slide_len = jnp.dot(slid.r[0, :2] - balls.r[0, :2], u)
    sliding = (balls.state[0] == SLIDING) & (distance <= slide_len)
    t1, ok1 = _time_to(speed, jnp.dot(linear_acceleration(balls, table)[0, :2], u), distance)
    v2 = jnp.sqrt(jnp.sum(rolled.v[0, :2] ** 2))
    start2 = jnp.where(balls.state[0] == SLIDING, slide_len, 0.0)
    base2 = jax.tree_util.tree_map(lambda x, y: jnp.where(balls.state[0] == SLIDING, x, y), rolled, balls)
    t2, ok2 = _time_to(jnp.where(balls.state[0] == SLIDING, v2, speed),
                       jnp.dot(linear_acceleration(base2, table)[0, :2], u), distance - start2)
    end = jax.tree_util.tree_map(lambda x, y: jnp.where(sliding, x, y), evolve(balls, table, t1),
                                 evolve(base2, table, t2))
    reaches = (speed > 0) & jnp.where(sliding, ok1, ok2)
    return end, reaches


def contact_state(table, cue_xy, phi, speed, b, distance):
    """The cue ball's motion when it has rolled ``distance`` [m] from ``cue_xy`` (2,) along
    ``phi`` [rad], struck at ``speed`` [m/s] with tip ``b`` (no side, level cue: the path is
    straight), by :func:`travel`. Returns (v (3,), w (3,), reaches () bool)."""
    balls, _ = strike(at_rest(cue_xy[None]), make_shot(0, phi, speed, 0.0, b, 0.0), table)
    end, reaches = travel(table, balls, distance)
    return end.v[0], end.w[0], reaches


def throw_corrected_aim(table, radius, cue_xy, object_xy, u, speed, b):
    """The aim [rad] that sends the object ball along ``u`` (2,) (unit, towards the pocket)
    once throw is counted: the ghost ball is turned about the object ball by the throw the
    collision model gives (:func:`cuegym.physics.collisions.ball_ball`, Alciatore's friction)
    for the cue ball's state at contact (:func:`contact_state`, found once for the
    uncorrected aim: a turn of a degree or two barely changes the path's length),
    ``THROW_ITERATIONS`` times. Returns (phi () [rad], throw () [rad] the correction,
    reaches () bool: the cue ball gets to the ghost ball, the object ball as struck by
    the corrected aim (a one-ball BallState))."""
    ghost0 = object_xy - 2 * radius * u
    path0 = ghost0 - cue_xy
    phi0 = jnp.arctan2(path0[1], path0[0])
    v, w, reaches = contact_state(table, cue_xy, phi0, speed, b, jnp.sqrt(jnp.sum(path0**2)))
    speed_in = jnp.sqrt(jnp.sum(v[:2] ** 2))
    spin = w  # spin about the vertical and the path's axes keep their values when the path turns

    def hit(aim_u):
        ghost = object_xy - 2 * radius * aim_u
        path = ghost - cue_xy
        along = path / jnp.maximum(jnp.sqrt(jnp.sum(path**2)), 1e-12)
        turn = jnp.arctan2(along[1], along[0]) - phi0
        c, s = jnp.cos(turn), jnp.sin(turn)
        rot = lambda x: jnp.stack([c * x[0] - s * x[1], s * x[0] + c * x[1], x[2]])  # noqa: E731
        balls = at_rest(jnp.stack([ghost, object_xy]))
        vel = jnp.concatenate([along * speed_in, v[2:]])
        balls = balls._replace(v=balls.v.at[0].set(vel), w=balls.w.at[0].set(rot(spin)),
                               state=balls.state.at[0].set(SLIDING))
        return ball_ball(balls, 0, 1, table), jnp.arctan2(path[1], path[0])

    def one(aim_u, _):
        after, _ = hit(aim_u)
        out = after.v[1, :2]
        err = jnp.mod(jnp.arctan2(out[1], out[0]) - jnp.arctan2(u[1], u[0]) + jnp.pi, 2 * jnp.pi) - jnp.pi
        err = jnp.where(reaches & (jnp.sum(out**2) > 0), err, 0.0)
        c, s = jnp.cos(-err), jnp.sin(-err)
        return jnp.stack([c * aim_u[0] - s * aim_u[1], s * aim_u[0] + c * aim_u[1]]), None

    aim_u, _ = jax.lax.scan(one, u, None, length=THROW_ITERATIONS)
    after, phi = hit(aim_u)
    throw = jnp.arctan2(u[0] * aim_u[1] - u[1] * aim_u[0], jnp.dot(u, aim_u))
    struck = jax.tree_util.tree_map(lambda x: x[1:2], after)
    return jnp.mod(phi, 2 * jnp.pi), throw, reaches, struck


def _points(env: F.FuncEnv, j):
    """The points a pot of object ball ``j`` scores, over the most any ball scores: the
    referee's ``VALUES`` where its balls have values (Russian pyramid, the snookers), else
    1 for every ball."""
    values = getattr(GAMES[env.task].referee, "VALUES", None)
    if values is None:
        return jnp.ones(jnp.shape(j), jnp.float32)
    values = np.asarray(values, np.float32)
    return jnp.asarray(values / values.max())[j]


def pocket_window(table, radius, object_xy, p):
    """The directions [rad] in which a ball of ``radius`` [m] at ``object_xy`` (2,) passes
    between the two jaws of pocket ``p`` (each jaw a circle, ``table.jaw_c`` / ``jaw_r``:
    a path clears it when its centre line passes at least radius + jaw radius from the
    jaw's centre). Returns (centre () [rad] the middle of the gap, width () [rad], 0 when
    the jaws overlap from there)."""
    mine = table.jaw_pocket == p
    order = jnp.argsort(~mine)  # the pocket's two jaws first (stable)
    c, rj = table.jaw_c[order[:2]], table.jaw_r[order[:2]]
    to_pocket = table.pocket_xy[p] - object_xy
    base = jnp.arctan2(to_pocket[1], to_pocket[0])
    rel = c - object_xy
    dist = jnp.sqrt(jnp.sum(rel**2, -1))
    angle = jnp.mod(jnp.arctan2(rel[:, 1], rel[:, 0]) - base + jnp.pi, 2 * jnp.pi) - jnp.pi
    half = jnp.arcsin(jnp.clip((radius + rj) / jnp.maximum(dist, 1e-9), 0.0, 1.0))
    lo_first = angle[0] <= angle[1]
    lo = jnp.where(lo_first, angle[0] + half[0], angle[1] + half[1])
    hi = jnp.where(lo_first, angle[1] - half[1], angle[0] - half[0])
    return base + 0.5 * (lo + hi), jnp.maximum(hi - lo, 0.0)


def _clearance(xy, on, cue, obj, ghost, pocket, radius):
    """The nearest approach [ball diameters] of any other ball on the table to the cue
    ball's path (cue → ghost) or the object ball's (object → pocket), capped."""
    n = xy.shape[0]
    ids = jnp.arange(n)
    others = on & (ids != cue) & (ids != obj)
    gap = jnp.minimum(G.segment_gap(xy[cue], ghost, xy), G.segment_gap(xy[obj], pocket, xy))
    near = jnp.min(jnp.where(others, gap, jnp.inf))
    return jnp.minimum(near / (2 * radius), CLEARANCE_CAP)


def menu(env: F.FuncEnv, state: F.EnvState, styles=STYLES, pots: int = POTS, pairs: int = S.PAIRS,
         plans: Plans | None = None) -> Menu:
    """(traceable) The :class:`Menu` of ``state`` for the player to act. ``plans``: its
    ``ghost_plans(env, state, pots)`` if already found (:func:`menu_batch`)."""
    spec = env.spec
    table = get_table(env.table)
    r = spec.ball_radius
    scale = spec.length
    plans = ghost_plans(env, state, pots) if plans is None else plans
    ghost, found_pot = ghost_decision(env, state, plans)  # its pot is the first plan
    pockets = jnp.asarray(table.pocket_xy)
    factor = jnp.asarray([s[0] for s in styles])
    tip = jnp.asarray([s[1] for s in styles])

    def candidate(k, style):
        s, j, p = plans.s[k], plans.j[k], plans.p[k]
        found = jnp.isfinite(plans.score[k])
        xy = state.xy.at[s].set(plans.spot[k])
        on = state.on.at[s].set(True)
        to_pocket = pockets[p] - xy[j]
        d2 = jnp.sqrt(jnp.sum(to_pocket**2))
        centre, window = pocket_window(table, r, xy[j], p)
        # the object ball is sent through the middle of the jaws' gap (the pocket's centre
        # when they close it: a pot the pocket may still take off a jaw)
        u = jnp.where(window > 0, jnp.stack([jnp.cos(centre), jnp.sin(centre)]), to_pocket / jnp.maximum(d2, 1e-12))
        approach = jnp.dot(u, jnp.asarray(table.drop_n)[p])
        speed = plans.speed[k] * factor[style]
        phi, throw, reaches, struck = throw_corrected_aim(table, r, xy[s], xy[j], u, speed, tip[style])
        dropped, sinks = travel(table, struck, d2)
        arrival = jnp.where(sinks, jnp.sqrt(jnp.sum(dropped.v[0, :2] ** 2)), 0.0)
        ghost_xy, d1, _, cos_cut, sin_cut = G.contact_geometry(xy[s], xy[j], u, r)
        moved = jnp.any(plans.spot[k] != state.xy[s])
        action = {
            "shot": jnp.stack([phi, speed, 0.0, tip[style], 0.0]),
            "place": plans.spot[k],
            "cue_ball": s.astype(jnp.int32),
            "ball": j.astype(jnp.int32),
            "pocket": p.astype(jnp.int32),
            "choice": ghost["choice"],
        }
        feats = jnp.stack([
            found, 0.0, found, cos_cut, sin_cut, d1 / scale, d2 / scale, approach,
            window / math.radians(10.0),
            _clearance(xy, on, s, j, ghost_xy, pockets[p], r) / CLEARANCE_CAP,
            _points(env, j), factor[style], speed / 5.0, arrival / 2.0, tip[style], throw / math.radians(5.0),
            moved, plans.spot[k][0] / scale, plans.spot[k][1] / scale,
        ]).astype(jnp.float32)
        return action, feats, found & reaches & sinks

    ks = jnp.repeat(jnp.arange(pots), len(styles))
    st = jnp.tile(jnp.arange(len(styles)), pots)
    actions, feats, legal = jax.vmap(candidate)(ks, st)
    s_actions, s_feats, s_legal = _safety_candidates(env, state, ghost, actions, pairs)
    actions = {k: jnp.concatenate([v, s_actions[k].astype(v.dtype)], 0) for k, v in actions.items()}
    feats = jnp.concatenate([feats, s_feats], 0)
    legal = jnp.concatenate([legal, s_legal], 0)
    as_ghost = {k: jnp.broadcast_to(jnp.asarray(v), actions[k].shape[1:]).astype(actions[k].dtype)
                for k, v in ghost.items()}
    actions = {k: jnp.where(_expand(legal, v), v, as_ghost[k][None]) for k, v in actions.items()}
    ghost_feats = _ghost_features(env, ghost, found_pot, scale)
    feats = jnp.where(legal[:, None], feats, ghost_feats[None] * jnp.asarray(
        [0.0] + [1.0] * (NUM_FEATURES - 1), jnp.float32)[None])
    actions = {k: jnp.concatenate([v, as_ghost[k][None]], 0) for k, v in actions.items()}
    feats = jnp.concatenate([feats, ghost_feats[None]], 0)
    legal = jnp.concatenate([legal, jnp.ones(1, bool)])
    return Menu(actions, feats, legal)


def menu_batch(env: F.FuncEnv, states: F.EnvState, styles=STYLES, pots: int = POTS, pairs: int = S.PAIRS,
               chunk: int | None = None) -> Menu:
    """(traceable) ``vmap(menu)`` of B tables (``states`` with a leading axis B), the same
    values, each field with a leading B: the plans by
    :func:`cuegym.agents.baselines.ghost_plans_batch`, where the tables not in hand skip
    the pot tables of every spot for the ball in hand (``chunk`` its chunk size)."""
    plans = ghost_plans_batch(env, states, pots, chunk)
    return jax.vmap(lambda s, p: menu(env, s, styles, pots, pairs, plans=p))(states, plans)


def _safety_candidates(env, state, ghost, like, pairs):
    """The 2 x ``pairs`` thin safeties (:func:`cuegym.agents.menu_safety.thin_safeties`) as
    (actions, features (2 pairs, F), legal): in the refereed games only (a drill's stroke is
    a pot or nothing); ``like`` the pots' actions, for the fields' dtypes."""
    n = 2 * pairs
    if not refereed(env):
        blank = {k: jnp.zeros((n,) + v.shape[1:], v.dtype) for k, v in like.items()}
        return blank, jnp.zeros((n, NUM_FEATURES), jnp.float32), jnp.zeros(n, bool)
    spec = env.spec
    scale = spec.length
    sf = S.thin_safeties(env, state, pairs)
    zeros = jnp.zeros(n)
    actions = {
        "shot": jnp.stack([sf.phi, sf.speed, zeros, zeros, zeros], -1),
        "place": sf.spot,
        "cue_ball": sf.s,
        "ball": sf.j,
        "pocket": jax.vmap(lambda p: G.nearest_pocket(env.table, p))(sf.object_end),
        "choice": jnp.broadcast_to(ghost["choice"], (n,) + jnp.shape(ghost["choice"])),
    }
    on = jnp.where(ball_in_hand(state.game.phase), state.on.at[sf.s[0]].set(True), state.on)
    xy = state.xy.at[sf.s].set(sf.spot)
    clearance = jax.vmap(lambda s, j, g, e: _clearance(xy, on, s, j, g, e, spec.ball_radius))(
        sf.s, sf.j, sf.ghost, sf.object_end)
    moved = jnp.any(sf.spot != state.xy[sf.s], -1)
    feats = jnp.stack([
        sf.found, zeros, zeros, sf.cos_cut, sf.sin_cut, sf.d1 / scale, sf.d2 / scale, zeros, zeros,
        clearance / CLEARANCE_CAP, zeros, zeros, sf.speed / 5.0, zeros, zeros, zeros, moved,
        sf.spot[:, 0] / scale, sf.spot[:, 1] / scale,
    ], -1).astype(jnp.float32)
    return actions, feats, sf.found


def _expand(mask, like):
    return mask.reshape(mask.shape + (1,) * (like.ndim - 1))


def _ghost_features(env, ghost, found, scale):
    """(F,) the features of the ghost agent's decision: whether it is a pot (``found``),
    its stroke's pace and tip, its object ball's points; the geometry slots 0."""
    shot = ghost["shot"]
    spot = ghost["place"]
    return jnp.stack([
        1.0, 1.0, found, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, _points(env, ghost["ball"]), 1.0, shot[1] / 5.0,
        0.0, shot[3], 0.0, 0.0, spot[0] / scale, spot[1] / scale,
    ]).astype(jnp.float32)


def choose(m: Menu, k):
    """The action dict of candidate ``k`` () int of the menu ``m``."""
    return {name: v[k] for name, v in m.actions.items()}


__all__ = [
    "FEATURES",
    "NUM_FEATURES",
    "POTS",
    "STYLES",
    "Menu",
    "choose",
    "contact_state",
    "menu",
    "menu_batch",
    "pocket_window",
    "size",
    "throw_corrected_aim",
]
