"""Baseline agents: :class:`RandomAgent` (uniform legal decisions) and
:class:`GhostBallAgent` (ghost-ball geometry, no simulation).

Both run one small jitted program per task and table (no physics inside), on the state
rebuilt from the observation (:func:`cuegym.agents.base.state_from_observation`).

Golf (:mod:`cuegym.envs.games.golf`): the only pot tried is the player's own ball into the
round's pocket (GF-19/20), from hand over the house; the opening stroke (GF-09) is the
full-ball hit that carries the own ball to the rear cushion; ``house_choice`` (GF-23) takes
the set-up whose layout leaves the easier pot.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from cuegym.agents import geometry as G
from cuegym.agents.base import Agent, state_from_observation
from cuegym.envs import functional as F
from cuegym.envs.games import golf as fg
from cuegym.envs.games import snooker_frame as fs
from cuegym.envs.registry import game
from cuegym.physics import compact
from cuegym.rules import americanka as am
from cuegym.rules import golf as gf
from cuegym.rules import pool
from cuegym.rules import russian as ru
from cuegym.rules import snooker as sn
from cuegym.rules.base import IN_HAND_HOUSE, IN_HAND_REAR, LAG, REMOVE_BALL


class Plans(NamedTuple):
    """The K best ghost-ball pots of a position, best first, each (K,): ``spot`` (K, 2) [m]
    where the ball in hand goes (the current place of the struck ball otherwise), ``s``,
    ``j``, ``p`` striker, object ball, pocket, ``phi`` [rad], ``speed`` [m/s], ``score``
    (-inf: fewer than K pots are on)."""

    spot: jnp.ndarray
    s: jnp.ndarray
    j: jnp.ndarray
    p: jnp.ndarray
    phi: jnp.ndarray
    speed: jnp.ndarray
    score: jnp.ndarray


D_SPOTS = 24  # the snooker agents try every 12th point of the D's grid from hand
LAG_TASK = "lag"  # the lag drill (cuegym/Lag-v0): its one stroke is a lag, as a game's lag phase


def ball_in_hand(phase):
    """(traceable) Whether ``phase`` (any game's code) has the struck ball in hand."""
    return (phase == IN_HAND_HOUSE) | (phase == IN_HAND_REAR) | (phase == sn.IN_HAND_D)


def family(env: F.FuncEnv) -> str:
    """The env's game family (:data:`cuegym.envs.registry.FAMILIES`)."""
    return game(env.task).family


def refereed(env: F.FuncEnv) -> bool:
    """A game with a referee (a frame, or a round of golf), not a one-stroke drill."""
    return game(env.task).referee is not None


def hand_spot(env: F.FuncEnv, state: F.EnvState, place=None):
    """(2,) [m]: ``place`` (default: the built-in ghost's spot for the phase) moved to the
    nearest legal spot for the ball in hand (the house, the temporary house, the D)."""
    spec, phase = env.spec, state.game.phase
    if family(env) == "golf":
        place = fg.ghost_spot(spec) if place is None else place
        return fg.project_house(spec, state.xy, state.on, place)[0]
    if family(env) == "snooker":
        place = fs.ghost_spot(spec) if place is None else place
        return fs.project_d(spec, state.xy, state.on, place)[0]
    place = F.ghost_spot(spec, phase) if place is None else place
    if family(env) == "russian":
        return F.project_place(spec, phase, state.xy, state.on, game(env.task).hand_ball, place)[0]
    return place


def target_balls(env: F.FuncEnv, state: F.EnvState, xy):
    """(N,) bool: the object balls a stroke may aim at: those on the table; from hand, only
    those outside the in-hand region (RU-GEN-19/44); PotShot's object ball; in snooker the
    balls on (:func:`cuegym.envs.games.snooker_frame.balls_on`); in golf the player's own ball
    (GF-21), from hand only outside the house (POOL-GEN-16/17)."""
    ids = jnp.arange(env.n_balls)
    hand = game(env.task).hand_ball
    on = state.on
    phase = state.game.phase
    if family(env) == "snooker":
        return fs.balls_on(state)
    if family(env) == "golf":
        own = on & gf.legal_targets(state.game)
        return jnp.where(ball_in_hand(phase), own & ~pool.in_house(env.spec, xy), own)
    if family(env) == "drill":
        return on & (ids != 0)
    outside = ~ru.in_region(env.spec, phase, xy)
    return jnp.where(ball_in_hand(phase), on & (ids != hand) & outside, on)


def pot_table(env: F.FuncEnv, state: F.EnvState, xy, on, strikers, targets, only=None,
              object_clear=None) -> G.Pots:
    """(traceable) :func:`cuegym.agents.geometry.pots` of the layout ``xy``, ``on`` (its
    ``only`` and ``object_clear`` passed on); in golf only the round's pocket is kept (a
    pot elsewhere is a foul, GF-20); in Americanka each pot is played at least at
    :func:`cuegym.agents.geometry.miss_speed` (up to ``MAX_POT_SPEED``), so that a miss is
    still a legal safety (AM-12)."""
    pts = G.pots(env.table, env.spec.ball_radius, xy, on, strikers, targets, only, object_clear)
    if env.task == am.GAME:  # a missed pot must still be a legal safety (AM-12, AM-13, RU-GEN-47)
        pts = pts._replace(speed=G.americanka_pot_speed(env.spec, xy, pts))
    if family(env) == "golf":
        mine = jnp.arange(pts.score.shape[-1]) == gf.target_pocket(state.game)
        pts = pts._replace(score=jnp.where(mine, pts.score, -jnp.inf))
    return pts


def _top(score, k):
    flat = score.reshape(-1)
    k = min(k, flat.shape[0])
    return jax.lax.top_k(flat, k)


def plans_from_position(env: F.FuncEnv, state: F.EnvState, k: int) -> Plans:
    """(traceable) The ``k`` best pots of ``state`` with every ball where it lies (the
    struck ball not in hand)."""
    n = env.n_balls
    xy, on = state.xy, state.on
    strikers = F.legal_masks(env, state)["cue_ball"]
    pts = pot_table(env, state, xy, on, strikers, target_balls(env, state, xy))
    score, idx = _top(pts.score, k)
    s, j, p = idx // (n * 6), (idx // 6) % n, idx % 6
    return Plans(xy[s], s, j, p, pts.phi.reshape(-1)[idx], pts.speed.reshape(-1)[idx], score)


def plans_from_hand(env: F.FuncEnv, state: F.EnvState, k: int) -> Plans:
    """(traceable) The ``k`` best pots of ``state`` with the ball in hand, over the M legal
    spots it is tried at (the D's grid in snooker, :func:`cuegym.agents.geometry.hand_spots`
    otherwise): M pot tables of the ball in hand alone, (M, 1, J, P)."""
    spec = env.spec
    n = env.n_balls
    hand = game(env.task).hand_ball
    strikers = F.legal_masks(env, state)["cue_ball"]
    xy, on = state.xy, state.on
    phase = state.game.phase
    if family(env) == "snooker":
        grid = fs.d_grid(spec)
        spots = jnp.concatenate([grid[:: grid.shape[0] // D_SPOTS], fs.ghost_spot(spec)[None]], 0)
        legal = jax.vmap(lambda q: sn.placement_ok(spec, xy, on, q))(spots)
    elif family(env) == "golf":
        spots = G.hand_spots(env.table, spec, IN_HAND_HOUSE, xy, target_balls(env, state, xy))
        legal = jax.vmap(lambda q: gf.placement_ok(spec, xy, on, q, IN_HAND_HOUSE))(spots)
    else:
        spots = G.hand_spots(env.table, spec, phase, xy, target_balls(env, state, xy))
        legal = jax.vmap(lambda q: ru.placement_ok(spec, phase, xy, on, hand, q))(spots)
    # the object balls' paths to the pockets do not move with the ball in hand: once per table
    object_clear = G.object_clearance(env.table, spec.ball_radius, xy, on, hand)

    def at(q):  # from hand only the ball in hand is struck: its pots alone
        xy2, on2 = xy.at[hand].set(q), on.at[hand].set(True)
        return pot_table(env, state, xy2, on2, strikers, target_balls(env, state, xy2), only=hand,
                         object_clear=object_clear)

    pts = jax.vmap(at)(spots)  # (M, 1, J, P)
    score, idx = _top(jnp.where(legal[:, None, None, None], pts.score, -jnp.inf), k)
    m, rest = idx // (n * 6), idx % (n * 6)
    j, p = rest // 6, rest % 6
    s = jnp.full_like(j, hand)
    return Plans(spots[m], s, j, p, pts.phi.reshape(-1)[idx], pts.speed.reshape(-1)[idx], score)


def ghost_plans(env: F.FuncEnv, state: F.EnvState, k: int) -> Plans:
    """(traceable) The ``k`` best pots of ``state`` by :class:`cuegym.agents.geometry.Pots`
    score: :func:`plans_from_hand` when the struck ball is in hand (every spot of
    :func:`cuegym.agents.geometry.hand_spots` where it may legally go is tried), else
    :func:`plans_from_position`. Under ``vmap`` both run for every table: a batch takes
    :func:`ghost_plans_batch`."""
    if not refereed(env):
        return plans_from_position(env, state, k)
    return jax.lax.cond(ball_in_hand(state.game.phase), lambda _: plans_from_hand(env, state, k),
                        lambda _: plans_from_position(env, state, k), None)


def ghost_plans_batch(env: F.FuncEnv, states: F.EnvState, k: int, chunk: int | None = None) -> Plans:
    """(traceable) :func:`ghost_plans` of B tables (``states`` with a leading axis B), the
    same values, each field with a leading B: :func:`plans_from_position` for every table,
    :func:`plans_from_hand` (about 10 times its cost with 16 balls) only for those in hand,
    ``chunk`` at a time (default B / 8, at least 8) in a loop that turns as many times as
    they fill chunks (:func:`cuegym.physics.compact.apply_to_active`)."""
    plans = jax.vmap(lambda s: plans_from_position(env, s, k))(states)
    if not refereed(env):
        return plans
    size = states.game.phase.shape[0]
    chunk = compact.chunk_size(size, 8, least=8) if chunk is None else max(1, min(int(chunk), size))
    return compact.apply_to_active(jax.vmap(lambda s: plans_from_hand(env, s, k)), ball_in_hand(states.game.phase),
                                   (states,), plans, chunk)


def ghost_decision(env: F.FuncEnv, state: F.EnvState, plans: Plans | None = None):
    """(traceable) The ghost-ball agent's action dict for ``state`` and whether a pot was
    found (() bool). The best plan (:func:`ghost_plans`) with draw, else a safety
    (:func:`cuegym.agents.geometry.safety`); Russian pyramid calls the plan's ball and
    pocket; from hand the plan's spot (the built-in ghost's spot for a safety), projected to
    a legal one; remove_ball: :func:`cuegym.agents.geometry.removal_choice`; the penalty
    ball of an Americanka or Moscow stroke: the lowest-numbered one allowed; the lag: the
    built-in ghost's lag stroke. Golf: the pot of the own ball into the round's pocket, the
    safety on the own ball otherwise and on the opening stroke (GF-09: the own ball must
    reach the rear cushion, which a pot does not), ``pocket`` the round's pocket,
    ``house_choice``: :func:`golf_choice`."""
    spec = env.spec
    hand = game(env.task).hand_ball
    plans = ghost_plans(env, state, 1) if plans is None else plans
    masks = F.legal_masks(env, state)
    phase = state.game.phase
    in_hand = ball_in_hand(phase)
    found = jnp.isfinite(plans.score[0])
    if family(env) == "golf":
        found = found & ~state.game.opening
    # the safety, with a ball in hand at the built-in ghost's spot
    spot = hand_spot(env, state)
    xy = jnp.where(in_hand, state.xy.at[hand].set(spot), state.xy)
    on = jnp.where(in_hand, state.on.at[hand].set(True), state.on)
    s0, j0, phi0, speed0 = G.safety(spec, xy, on, masks["cue_ball"], target_balls(env, state, xy) & on,
                                    two_cushions=env.task == am.GAME)
    place = hand_spot(env, state, jnp.where(found, plans.spot[0], spot))
    j = jnp.where(found, plans.j[0], j0)
    shot = jnp.stack([jnp.where(found, plans.phi[0], phi0), jnp.where(found, plans.speed[0], speed0), 0.0,
                      jnp.where(found, G.DRAW, 0.0), 0.0])
    if family(env) == "golf":
        choice = golf_choice(env, state)
    else:
        choice = jnp.where(phase == REMOVE_BALL, G.removal_choice(env.table, state.xy, state.on, masks["choice"]),
                           G.first_true(masks["choice"]))
    action = {
        "shot": shot,
        "place": place,
        "cue_ball": jnp.where(found, plans.s[0], s0).astype(jnp.int32),
        "ball": j.astype(jnp.int32),
        "pocket": jnp.where(found, plans.p[0], G.nearest_pocket(env.table, state.xy[j])).astype(jnp.int32),
        "choice": choice.astype(jnp.int32),
    }
    if family(env) == "golf":  # no call in golf: the round's pocket, for the record
        action["pocket"] = gf.target_pocket(state.game).astype(jnp.int32)
    elif refereed(env) or env.task == LAG_TASK:
        lag = F.ghost_action(env, state)
        is_lag = phase == LAG
        action["shot"] = jnp.where(is_lag, lag["shot"], action["shot"])
        action["place"] = jnp.where(is_lag, lag["place"], action["place"])
    return action, found


def golf_choice(env: F.FuncEnv, state: F.EnvState):
    """(traceable) Golf's ``house_choice`` (GF-23): each open set-up is made by the referee
    (:func:`cuegym.rules.golf.choose`) and the one whose layout leaves the better ghost-ball
    pot (:func:`ghost_plans`: from hand over the house for ``rear_spot``, from the front spot
    for ``front_spot``) is taken; ``rear_spot`` (always open) on a tie or with no pot.
    Returns () int32."""
    g = state.game

    def best(choice):
        ruling, after = gf.choose(env.spec, g, state.xy, state.on, jnp.asarray(choice, jnp.int32))
        return ghost_plans(env, state._replace(xy=ruling.xy, on=ruling.on, game=after), 1).score[0]

    front = gf.legal_choices(g)[gf.FRONT_SPOT] & (best(gf.FRONT_SPOT) > best(gf.REAR_SPOT))
    return jnp.where(front, gf.FRONT_SPOT, gf.REAR_SPOT).astype(jnp.int32)


@functools.lru_cache(maxsize=None)
def _ghost_program(env: F.FuncEnv):
    return jax.jit(lambda obs: ghost_decision(env, state_from_observation(env, obs)))


@functools.lru_cache(maxsize=None)
def _random_program(env: F.FuncEnv):
    return jax.jit(lambda obs, key: F.random_action(env, state_from_observation(env, obs), key))


class RandomAgent(Agent):
    """Uniformly random legal decisions (:func:`cuegym.envs.functional.random_action`): the shot
    uniform over its limits, the placement uniform over the phase's region, the integer
    fields uniform over the observation's legal masks."""

    def _decide(self, obs, key):
        return _random_program(self.env)(obs, key), {}


class GhostBallAgent(Agent):
    """Ghost-ball geometry only (:func:`ghost_decision`): the easiest pot first, at the
    speed its two straight paths need, with draw; legal calls, nominations and placements;
    a full-ball safety when nothing is on. Deterministic: the key is not used.
    ``last_info["found"]``: whether a pot was on."""

    def _decide(self, obs, key):
        action, found = _ghost_program(self.env)(obs)
        return action, {"found": bool(found)}
