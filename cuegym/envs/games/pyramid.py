"""The pyramid-table tasks' shared decisions: legal masks, observation, random and ghost actions.

Pot-shot, lag and the Russian games (Russian pyramid, Americanka, Moscow pyramid) share one
referee state (:class:`cuegym.rules.base.GameState`), one observation and one ghost-ball
heuristic; each game module (:mod:`cuegym.envs.games.pot_shot`, :mod:`~cuegym.envs.games.lag`,
:mod:`~cuegym.envs.games.russian_frame`) exposes these functions as its own. What differs by
task (the ball in hand, who may be struck or called, Americanka's safeties) is read from the
registry and the task name. Shapes: N balls.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cuegym.envs import functional as F
from cuegym.envs import ghost, ghost_safety
from cuegym.envs.registry import game
from cuegym.rules import americanka as am
from cuegym.rules import moscow_pyramid as mp
from cuegym.rules import russian as ru
from cuegym.rules import russian_pyramid as rp
from cuegym.rules.base import IN_HAND_HOUSE, IN_HAND_REAR, LAG, NORMAL, REMOVE_BALL, GameState


def legal_masks(env: F.FuncEnv, state: F.EnvState):
    """What the action's integer fields may name now, each (N,) bool:

    * ``cue_ball``: the balls a stroke may strike. Russian and Moscow pyramid, the tasks:
      the cue ball 0 (on the table or in hand). Americanka: every ball on the table in
      phase normal (AM-04), the ball in hand (16) from hand. In a lag: the lag ball, 0.
      None when no stroke is due (remove_ball, frame_over).
    * ``ball``: the balls that may be called (Russian pyramid, RP-09: object balls on the
      table; pot-shot: the object ball). None in games without a call and outside strokes.
    * ``choice``: Moscow remove_ball: the object balls on the table (MP-09); an Americanka
      or Moscow stroke: the striker's balls, one of which he gives back if the stroke
      fouls (AM-16, MP-13); otherwise none.
    """
    n = env.n_balls
    ids = jnp.arange(n)
    g = state.game
    phase = g.phase
    on = state.on
    in_hand = (phase == IN_HAND_HOUSE) | (phase == IN_HAND_REAR)
    stroke = (phase == NORMAL) | in_hand
    lag = phase == LAG
    hand = game(env.task).hand_ball
    if env.task == am.GAME:
        cue = jnp.where(in_hand, ids == hand, (phase == NORMAL) & on)
    else:
        cue = (ids == 0) & stroke
    cue = jnp.where(lag, ids == 0, cue)
    if env.task in (rp.GAME, "pot-shot"):
        ball = on & (ids != 0) & stroke
    else:
        ball = jnp.zeros(n, bool)
    if env.task in (am.GAME, mp.GAME):
        choice = jnp.where(stroke, g.owner == g.to_play, False)
        choice = jnp.where(phase == REMOVE_BALL, on & (ids != 0), choice)
    else:
        choice = jnp.zeros(n, bool)
    return {"cue_ball": cue, "ball": ball, "choice": choice}


def observe(env: F.FuncEnv, state: F.EnvState) -> dict:
    """The observation dict (N balls):

    * ``balls`` (N, 3) float32: x, y [m], on-table flag (balls off the table read 0, 0, 0);
    * ``phase`` () int32 (:data:`cuegym.rules.base.PHASE_NAMES`), ``to_play`` () int32;
    * ``scores`` (2,) float32: points (Russian pyramid) or balls won, net (AM, MP);
    * ``legal_ball``, ``legal_cue_ball``, ``legal_choice`` (N,) int8: :func:`legal_masks`;
    * ``owner`` (N,) int8: the player each pocketed ball is credited to (-1 none; AM, MP);
    * ``debt`` (2,) int32: penalty balls owed (AM-17, MP-14), capped at 1000;
    * ``foul_run`` () int32: fouls in a row (Russian pyramid: with nothing moved, the
      stalemate count of RP-20), capped at 1000;
    * ``sudden_death`` () int32: 1 after 70:70 in Russian pyramid (RP-19).
    """
    g = state.game
    return {
        **F.table_observation(state, legal_masks(env, state), g.scores),
        "owner": g.owner.astype(jnp.int8),
        "debt": jnp.clip(g.debt, 0, F.COUNT_CAP).astype(jnp.int32),
        "foul_run": jnp.clip(g.foul_run, 0, F.COUNT_CAP).astype(jnp.int32),
        "sudden_death": g.sudden_death.astype(jnp.int32),
    }


def random_action(env: F.FuncEnv, state: F.EnvState, key) -> dict:
    """A uniformly random legal action drawn from ``key``: the shot uniform over its limits,
    the placement uniform over the region of the phase (house, temporary house, own half of
    the house in a lag; the step still moves it off a ball), the integer fields uniform over
    their legal masks (:func:`legal_masks`; all values when a mask is empty)."""
    spec = env.spec
    n = env.n_balls
    k = jax.random.split(key, 6)
    masks = legal_masks(env, state)
    phase = state.game.phase
    lo_h, hi_h = F.in_hand_region(spec, phase)
    lo_l, hi_l = F.lag_region(spec, state.game.to_play)
    lo = jnp.where(phase == LAG, lo_l, lo_h)
    hi = jnp.where(phase == LAG, hi_l, hi_h)
    return {
        "shot": jax.random.uniform(k[0], (5,), jnp.float64, jnp.asarray(F.SHOT_LOW), jnp.asarray(F.SHOT_HIGH)),
        "place": jax.random.uniform(k[1], (2,), jnp.float64, lo, hi),
        "cue_ball": F.categorical(k[2], masks["cue_ball"]),
        "ball": F.categorical(k[3], masks["ball"] | ~jnp.any(masks["ball"]) & (jnp.arange(n) != 0)),
        "pocket": jax.random.randint(k[4], (), 0, 6).astype(jnp.int32),
        "choice": F.categorical(k[5], masks["choice"]),
    }


def ghost_action(env: F.FuncEnv, state: F.EnvState) -> dict:
    """The built-in ghost-ball heuristic (deterministic; the step adds execution noise;
    the constants ``GHOST_*`` of :mod:`cuegym.envs.functional`).

    * Stroke: for every ball it may strike (:func:`legal_masks`), object ball on the table
      (from hand, only balls outside the house: RU-GEN-19/44) and pocket, the ghost ball is
      the object ball's centre moved 2R back from the pocket; the cue ball is aimed at it.
      Combinations are kept if the cut is under ``GHOST_MAX_CUT``, the object ball's path
      is within ``GHOST_MAX_APPROACH`` of the pocket's axis and both straight paths (cue
      ball to ghost, object ball to pocket) pass no other ball by less than 2R; the best
      by cos(cut) × cos(approach)² / (0.5 m + both path lengths) is played at speed
      1.2 + 0.5 × (cue path + object path / cos(cut)) m/s, clipped to [1.5, 4.0], struck
      below centre (``GHOST_DRAW``) so the cue ball does not follow the object ball in.
      Russian pyramid calls that ball and pocket. With nothing kept: a full
      hit at 2.5 m/s on the nearest object ball. A ball in hand goes to :func:`cuegym.envs.functional.ghost_spot`.
    * Americanka, where a stroke that pots nothing must be a legal safety (AM-10..13,
      RU-GEN-47): each pot is played at least at :func:`cuegym.envs.ghost_safety.miss_speed` (a
      miss still carries the object ball to two cushions, AM-12), up to 6 m/s; with nothing
      kept, :func:`cuegym.envs.ghost_safety.safety` with ``two_cushions`` (struck at centre).
    * Remove_ball (Moscow): the object ball nearest a pocket.
    * Lag: from the middle of its half of the house, straight up the table at
      :func:`cuegym.envs.functional.ghost_lag_speed` with natural roll.
    """
    spec = env.spec
    n = env.n_balls
    ids = jnp.arange(n)
    r = spec.ball_radius
    g = state.game
    phase = g.phase
    hand = game(env.task).hand_ball
    in_hand = (phase == IN_HAND_HOUSE) | (phase == IN_HAND_REAR)
    masks = legal_masks(env, state)
    spot = F.ghost_spot(spec, phase)
    if game(env.task).family == "russian":
        spot, _ = F.project_place(spec, phase, state.xy, state.on, hand, spot)
    xy = jnp.where(in_hand, state.xy.at[hand].set(spot), state.xy)
    on = jnp.where(in_hand, state.on.at[hand].set(True), state.on)
    strikers = masks["cue_ball"]
    targets = on & ~jnp.where(in_hand, ru.in_region(spec, phase, xy), False)
    pot = ghost.pots(env.table, r, xy, on, strikers, targets)  # (S, J, P) every pot, ranked by score
    flat = pot.score.reshape(-1)
    best = jnp.argmax(flat)
    s, j, p = best // (n * 6), (best // 6) % n, best % 6
    found = jnp.isfinite(flat[best])
    speed = pot.speed[s, j, p]
    phi = pot.phi[s, j, p]
    if env.task == am.GAME:
        # a stroke that pots nothing must be a legal safety (AM-10..13, RU-GEN-47): a pot is
        # played fast enough that its miss still carries the object ball to two cushions
        # (AM-12), and with nothing kept the safety aims at AM-12 too, avoiding balls closer
        # than R/2 (RU-GEN-35/43), struck at centre as its closed-form speed assumes
        speed = ghost_safety.americanka_pot_speed(spec, xy, pot)[s, j, p]
        s0, j0, phi0, speed0 = ghost_safety.safety(spec, xy, on, strikers, targets, two_cushions=True)
        draw = jnp.where(found, F.GHOST_DRAW, 0.0)
    else:
        # nothing kept: a full hit on the object ball nearest the first ball that may be struck
        s0 = jnp.argmax(strikers)
        dd = jnp.where(targets & (ids != s0), jnp.sum((xy - xy[s0]) ** 2, -1), jnp.inf)
        j0 = jnp.argmin(dd)
        phi0 = jnp.arctan2(xy[j0, 1] - xy[s0, 1], xy[j0, 0] - xy[s0, 0])
        speed0, draw = 2.5, F.GHOST_DRAW
    s = jnp.where(found, s, s0)
    j = jnp.where(found, j, j0)
    phi = jnp.where(found, phi, phi0)
    speed = jnp.where(found, speed, speed0)
    shot = jnp.stack([jnp.mod(phi, 2 * jnp.pi), speed, 0.0, draw, 0.0])
    # remove_ball: the object ball nearest a pocket
    near = jnp.where(on & (ids != 0), jnp.min(pot.d2[0], -1), jnp.inf)  # d2 (J, P): any striker's row
    choice = jnp.where(phase == REMOVE_BALL, jnp.argmin(near), j)
    # the lag
    lag = phase == LAG
    lag_place, lag_shot = F.ghost_lag(spec, g.to_play)
    return {
        "shot": jnp.where(lag, lag_shot, shot),
        "place": jnp.where(lag, lag_place, spot),
        "cue_ball": s.astype(jnp.int32),
        "ball": j.astype(jnp.int32),
        "pocket": p.astype(jnp.int32),
        "choice": choice.astype(jnp.int32),
    }


def from_observation(env: F.FuncEnv, obs: dict) -> F.EnvState:
    """(traceable) The pyramid tables' state from an observation (the arrays of
    :func:`cuegym.agents.base.observation_arrays`): its layout and game state. What the
    observation does not carry is filled with the nearest reading: the order in which balls
    were won (the latest is given back first, AMB-30) as the ball numbers, the dead-position
    and last-ball counters at their start values, and a layout with every object ball on
    the table, the ball in hand in the house and 0:0 as the break. Dtypes are those of
    :func:`cuegym.envs.functional.init`, so the state fits the env's compiled programs."""
    base = F.init(env, jax.random.PRNGKey(0))
    n = env.n_balls
    ids = jnp.arange(n)
    balls = jnp.asarray(obs["balls"], jnp.float64)
    on = balls[:, 2] > 0.5
    phase = jnp.asarray(obs["phase"], jnp.int32)
    to_play = jnp.asarray(obs["to_play"], jnp.int32)
    owner = jnp.asarray(obs["owner"], jnp.int32)
    scores = jnp.rint(jnp.asarray(obs["scores"], jnp.float64)).astype(jnp.int32)
    owned = owner >= 0
    hand = game(env.task).hand_ball
    objects = ids != hand
    # the break: every object ball on the table, the ball in hand in the house, 0:0
    fresh = (phase == IN_HAND_HOUSE) & jnp.all(on | ~objects) & jnp.all(scores == 0)
    referee_state = GameState(
        to_play=to_play,
        phase=phase,
        scores=scores,
        debt=jnp.asarray(obs["debt"], jnp.int32),
        owner=owner,
        owned_at=jnp.where(owned, ids, -1),
        credits=jnp.sum(owned),
        foul_run=jnp.asarray(obs["foul_run"], jnp.int32),
        quiet=0,
        last_pocketed=-1,
        sudden_death=jnp.asarray(obs["sudden_death"]) > 0,
        # while the opponent removes a ball (MP-09) the striker's stroke is being completed
        striker=jnp.where(phase == REMOVE_BALL, 1 - to_play, to_play),
        winner=-1,
        strokes=jnp.where(fresh, 0, 1),
    )
    referee_state = jax.tree_util.tree_map(lambda b, v: jnp.asarray(v).astype(b.dtype), base.game, referee_state)
    return base._replace(xy=balls[:, :2], on=on, game=referee_state, last_xy=balls[:, :2], last_on=on)
