"""The lag drill: one lag stroke (RU-GEN-07/08) on an empty table.

The ball is played from the left half of the house to the rear cushion and back; the reward
is :func:`lag_score` of where it stops, or 0 when the stroke loses by RU-GEN-08 (did not
touch the rear cushion, crossed the long string, fell in a pocket, left the table), judged
by :func:`cuegym.rules.russian.judge_lag`. The masks, observation and built-in opponents are
the pyramid tables' (:mod:`cuegym.envs.games.pyramid`).
"""

from __future__ import annotations

import jax.numpy as jnp

from cuegym.envs import functional as F
from cuegym.envs.games.pyramid import from_observation, ghost_action, legal_masks, observe, random_action
from cuegym.envs.registry import game
from cuegym.physics.balls import POCKETED
from cuegym.rules import russian as ru
from cuegym.rules.base import FRAME_OVER, IN_HAND_HOUSE, IN_HAND_REAR, LAG, NORMAL, Clauses, new_state

__all__ = ["from_observation", "ghost_action", "init", "lag_score", "legal_masks", "observe", "random_action", "step"]


def init(env: F.FuncEnv, key, opts: F.Options) -> F.EnvState:
    """A new episode: the lag ball in hand (off the table), phase lag, player 0 to play."""
    n = env.n_balls
    return F.new_episode(jnp.zeros((n, 2)), jnp.zeros(n, bool), new_state(n, phase=LAG))


def lag_score(spec, y):
    """The Lag task's shaped score of a ball stopped at ``y`` [m]: 1 frozen to the head
    cushion, 0 frozen to the rear one, linear in between."""
    off = ru.contact_offset(spec)
    return jnp.clip(1.0 - (y - off) / (spec.length - 2 * off), 0.0, 1.0)


def step(env: F.FuncEnv, state: F.EnvState, action, key, opts: F.Options) -> F.EnvState:
    """Play the lag stroke: the ball placed from ``action["place"]`` (projected into the
    player's half of the house, :func:`cuegym.envs.functional.project_lag`) and struck with
    ``action["shot"]``."""
    spec = env.spec
    n = env.n_balls
    ids = jnp.arange(n)
    hand = game(env.task).hand_ball
    g = state.game
    phase = g.phase
    xy, on = state.xy, state.on
    in_hand = (phase == IN_HAND_HOUSE) | (phase == IN_HAND_REAR)
    lag = phase == LAG
    over = phase == FRAME_OVER
    stroke = (phase == NORMAL) | in_hand | lag
    shot, clipped = F.sanitize_shot(jnp.asarray(action["shot"], jnp.float64))
    place = jnp.asarray(action["place"], jnp.float64)
    named = jnp.asarray(0, jnp.int32)
    cue = jnp.where(lag, 0, jnp.where(in_hand, hand, named)).astype(jnp.int32)
    p_lag, proj_lag = F.project_lag(spec, g.to_play, place)
    xy_s = jnp.where(lag, jnp.zeros((n, 2)).at[0].set(p_lag), xy)
    on_s = jnp.where(lag, ids == 0, on)
    projected = jnp.asarray(False) | (lag & proj_lag)
    final, log, summ, played = F.strike(env, key, cue, shot, stroke, xy_s, on_s, opts)

    # RU-GEN-08 losing conditions judged by the referee; RU-GEN-07: nearer the head
    # cushion is better, shaped by lag_score.
    _, lost = ru.judge_lag(spec, summ, final, summ, final)
    reward = jnp.where(lost[0], 0.0, lag_score(spec, final.r[0, 1]))
    rewards = jnp.stack([reward, 0.0])
    new_game = g._replace(phase=jnp.asarray(FRAME_OVER, jnp.int32))
    clauses = Clauses().add("RU-GEN-07").add("RU-GEN-08", lost[0]).mask
    shots = state.shots + 1
    terminated = new_game.phase == FRAME_OVER
    truncated = ~terminated & (shots >= opts.max_shots)
    z = jnp.asarray(False)
    nxt = F.EnvState(final.r[:, :2], final.state < POCKETED, new_game, shots, rewards, terminated, truncated, clipped,
                     projected, z, log.truncated, g.to_play, z, clauses, state.lag, jnp.asarray(-1, jnp.int32),
                     xy_s, on_s, played, jnp.zeros(n, bool))  # a lag stroke pockets nothing that counts
    # stepping a finished episode changes nothing (and pockets nothing)
    frozen = state._replace(rewards=jnp.zeros(2), terminated=jnp.asarray(True), truncated=z, potted=jnp.zeros(n, bool))
    return F.pick(over, frozen, nxt)
