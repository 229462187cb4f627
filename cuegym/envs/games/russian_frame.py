"""The Russian games' frame: Russian pyramid, Americanka and Moscow pyramid, one code path.

A whole frame under the task's referee (:mod:`cuegym.rules.russian_pyramid`,
:mod:`~cuegym.rules.americanka`, :mod:`~cuegym.rules.moscow_pyramid`, read from the registry):
strokes (from hand in the house or the temporary house), Moscow's removals (MP-09) and the
lag (RU-GEN-06..10: for the break with ``lag_break``, at 70:70 and on a stalemate in Russian
pyramid). The reward of a decision, for each player, is the change in (own score -
opponent's score) x ``reward_scale``. The masks, observation and built-in opponents are the
pyramid tables' (:mod:`cuegym.envs.games.pyramid`). Phases and action: docs/envs.md.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cuegym.envs import functional as F
from cuegym.envs.games.pyramid import from_observation, ghost_action, legal_masks, observe, random_action
from cuegym.envs.registry import game
from cuegym.physics.racks import pyramid_rack, triangle
from cuegym.rules import americanka as am
from cuegym.rules import moscow_pyramid as mp
from cuegym.rules import russian as ru
from cuegym.rules import russian_pyramid as rp
from cuegym.rules.base import FRAME_OVER, IN_HAND_HOUSE, IN_HAND_REAR, LAG, NORMAL, REMOVE_BALL, Clauses, declare

__all__ = ["from_observation", "ghost_action", "init", "legal_masks", "observe", "rack", "random_action", "step"]


def init(env: F.FuncEnv, key, opts: F.Options) -> F.EnvState:
    """A new frame: the :func:`rack` drawn from ``key``, the breaker drawn by lot with the
    ball in hand in the house; with ``lag_break`` a lag first (RU-GEN-06), player 0 first."""
    k_first, k_layout = jax.random.split(key)
    xy, on = rack(env, k_layout)
    breaker = jax.random.bernoulli(k_first).astype(jnp.int32)
    # RU-GEN-06: with lag_break the lag decides the breaker; player 0 lags first
    first = jnp.where(opts.lag_break, 0, breaker).astype(jnp.int32)
    phase = jnp.where(opts.lag_break, LAG, IN_HAND_HOUSE).astype(jnp.int32)
    referee = game(env.task).referee
    return F.new_episode(xy, on, referee.initial_state(0)._replace(to_play=first, striker=first, phase=phase))


def rack(env: F.FuncEnv, key):
    """The frame's opening layout: (xy (N, 2), on (N,)); the ball in hand is off the table.

    Russian pyramid racks in the RP-04 order; Americanka and Moscow pyramid leave the order
    open (AM-05, MP-04), so the 15 racked balls are shuffled with ``key`` (AMB-27).
    Americanka's racked balls are 1..15 (indices 0..14); ball 16 is in hand (AM-05/06)."""
    spec = env.spec
    n = env.n_balls
    ids = jnp.arange(n)
    hand = game(env.task).hand_ball
    if env.task == rp.GAME:
        rack = pyramid_rack(spec)
        xy = jnp.asarray([[0.0, 0.0]] + [list(rack[str(k)]) for k in range(1, 16)])
    else:
        pts = jnp.asarray(triangle(spec.spots()["rear"], spec.ball_radius, 5))
        racked = jnp.asarray([k for k in range(n) if k != hand])
        order = jax.random.permutation(key, 15)
        xy = jnp.zeros((n, 2)).at[racked[order]].set(pts)
    return xy, ids != hand


def step(env: F.FuncEnv, state: F.EnvState, action, key, opts: F.Options) -> F.EnvState:
    """Play one decision: a stroke, a lag stroke or a removal (docs/envs.md, "Action")."""
    spec = env.spec
    task = env.task
    n = env.n_balls
    ids = jnp.arange(n)
    hand = game(task).hand_ball
    ref = game(task).referee
    g = state.game
    phase = g.phase
    xy, on = state.xy, state.on
    in_hand = (phase == IN_HAND_HOUSE) | (phase == IN_HAND_REAR)
    lag = phase == LAG
    remove = phase == REMOVE_BALL
    over = phase == FRAME_OVER
    stroke = (phase == NORMAL) | in_hand | lag
    shot, clipped = F.sanitize_shot(jnp.asarray(action["shot"], jnp.float64))
    place = jnp.asarray(action["place"], jnp.float64)
    choice = jnp.asarray(action["choice"], jnp.int32)

    # The ball struck: Americanka's choice (AM-04), else the cue ball; from hand the ball
    # in hand; in a lag the lag ball (index 0 on the empty lag table).
    if task == am.GAME:
        asked = jnp.clip(jnp.asarray(action["cue_ball"], jnp.int32), 0, n - 1)
        ok = on[asked]
        named = jnp.where(ok, asked, jnp.argmax(on)).astype(jnp.int32)
        cue_replaced = (phase == NORMAL) & ~ok
    else:
        named = jnp.asarray(0, jnp.int32)
        cue_replaced = jnp.asarray(False)
    cue = jnp.where(lag, 0, jnp.where(in_hand, hand, named)).astype(jnp.int32)

    # The layout the stroke starts from: the ball in hand placed; a lag ball alone.
    p_hand, proj_hand = F.project_place(spec, phase, xy, on, hand, place)
    xy_s = jnp.where(in_hand, xy.at[hand].set(p_hand), xy)
    on_s = jnp.where(in_hand, on.at[hand].set(True), on)
    projected = in_hand & proj_hand
    p_lag, proj_lag = F.project_lag(spec, g.to_play, place)
    xy_s = jnp.where(lag, jnp.zeros((n, 2)).at[0].set(p_lag), xy_s)
    on_s = jnp.where(lag, ids == 0, on_s)
    projected = projected | (lag & proj_lag)
    final, log, summ, played = F.strike(env, key, cue, shot, stroke, xy_s, on_s, opts)
    memo = state.lag

    # A stroke: the referee.
    decl = declare(struck=cue, call_ball=jnp.asarray(action["ball"], jnp.int32),
                   call_pocket=jnp.asarray(action["pocket"], jnp.int32), choice=choice)
    ruling, after = ref.judge(spec, g, decl, summ, xy_s, on_s, final)
    # a lag called by the referee (70:70, stalemate): player 0 plays the first lag stroke
    zero = jnp.asarray(0, jnp.int32)
    after = F.pick(after.phase == LAG, after._replace(to_play=zero, striker=zero), after)
    new_game, new_xy, new_on, clauses, foul = after, ruling.xy, ruling.on, ruling.clauses, ruling.foul

    if task == mp.GAME:  # remove_ball: the named object ball is taken off (MP-09)
        r_rm, g_rm = mp.choose(spec, g, xy, on, choice)
        new_game = F.pick(remove, g_rm, new_game)
        new_xy = jnp.where(remove, r_rm.xy, new_xy)
        new_on = jnp.where(remove, r_rm.on, new_on)
        clauses = jnp.where(remove, r_rm.clauses, clauses)

    # The lag (RU-GEN-07..10): the first stroke is kept; the second is judged with it.
    first = lag & (g.to_play == 0)
    summ_a, final_a = F.lag_replay(memo, summ, final)
    winner, lost = ru.judge_lag(spec, summ_a, final_a, summ, final)
    decided = winner >= 0
    one = jnp.asarray(1, jnp.int32)
    resolved = ru.after_lag(spec, g, xy, on, jnp.maximum(winner, 0), True, hand)
    g_lag = F.pick(first, g._replace(to_play=one, striker=one),
                   F.pick(decided, resolved, g._replace(to_play=zero, striker=zero)))
    c = Clauses()
    c.add("RU-GEN-06", ~first & decided & (g.strokes == 0)).add("RU-GEN-07", ~first)
    c.add("RU-GEN-08", ~first & (lost[0] | lost[1])).add("RU-GEN-09", ~first & ~decided)
    c.add("RU-GEN-10", ~first & decided)
    new_game = F.pick(lag, g_lag, new_game)
    new_xy = jnp.where(lag, xy, new_xy)
    new_on = jnp.where(lag, on, new_on)
    clauses = jnp.where(lag, c.mask, clauses)
    foul = foul & ~lag & ~remove
    counted = ruling.counted & ~lag & ~remove  # a removal takes a ball off, it pockets none
    lag_winner = jnp.where(lag & ~first, winner, -1).astype(jnp.int32)
    memo = F.pick(first, F.lag_memo(summ, final), memo)
    diff = (new_game.scores - g.scores).astype(jnp.float64) * opts.reward_scale
    rewards = jnp.stack([diff[0] - diff[1], diff[1] - diff[0]])

    shots = state.shots + 1
    terminated = new_game.phase == FRAME_OVER
    truncated = ~terminated & (shots >= opts.max_shots)
    nxt = F.EnvState(new_xy, new_on, new_game, shots, rewards, terminated, truncated, clipped, projected, foul,
                     log.truncated, g.to_play, cue_replaced & stroke & ~lag, clauses, memo, lag_winner, xy_s, on_s,
                     played, counted)
    # stepping a finished frame changes nothing (and pockets nothing)
    frozen = state._replace(rewards=jnp.zeros(2), terminated=jnp.asarray(True), truncated=jnp.asarray(False),
                            potted=jnp.zeros(n, bool))
    return F.pick(over, frozen, nxt)


