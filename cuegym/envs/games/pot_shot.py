"""The pot-shot drill: a cue ball and one object ball at random, one stroke, no referee.

The object ball, a pocket, a cut angle and a distance are drawn (the ranges are the traced
options ``distance`` and ``cut``); the reward is 1 when the object ball drops and the cue
ball stays on the table after hitting it first, else 0. The masks, observation and built-in
opponents are the pyramid tables' (:mod:`cuegym.envs.games.pyramid`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cuegym.envs import functional as F
from cuegym.envs.games.pyramid import from_observation, ghost_action, legal_masks, observe, random_action
from cuegym.envs.registry import game
from cuegym.physics import get_table
from cuegym.physics.balls import POCKETED
from cuegym.rules import russian as ru
from cuegym.rules.base import FRAME_OVER, IN_HAND_HOUSE, IN_HAND_REAR, LAG, NORMAL, new_state
from cuegym.rules.catalogue import NUM_CLAUSES

__all__ = ["from_observation", "ghost_action", "init", "layout", "legal_masks", "observe", "random_action", "step"]


def init(env: F.FuncEnv, key, opts: F.Options) -> F.EnvState:
    """A new episode: the two balls of :func:`layout` drawn from ``key``, phase normal."""
    n = env.n_balls
    _, k_layout = jax.random.split(key)
    xy = layout(env, k_layout, opts)
    on = jnp.ones(n, bool)
    return F.new_episode(xy, on, new_state(n, phase=NORMAL))


def layout(env: F.FuncEnv, key, opts: F.Options):
    """Cue ball and object ball for a pot: the object ball, a pocket, a cut angle and a
    distance are drawn; the cue ball sits behind the ghost ball. Of 64 draws the first
    that fits the bed and sends the object ball close to the pocket's axis is used (a
    fixed number keeps shapes static; if none fits, a fixed layout on the long string)."""
    spec = env.spec
    r = spec.ball_radius
    off = ru.contact_offset(spec)
    table = get_table(env.table)
    pockets = jnp.asarray(table.pocket_xy)
    into = jnp.asarray(table.drop_n)  # (6, 2) unit normals of the drop lines, into the pockets
    k = jax.random.split(key, 5)
    m = 64
    obj = jax.random.uniform(k[0], (m, 2), minval=jnp.array([off + 0.05, off + 0.05]),
                             maxval=jnp.array([spec.width - off - 0.05, spec.length - off - 0.05]))
    which = jax.random.randint(k[1], (m,), 0, pockets.shape[0])
    target = pockets[which]
    cut = jnp.deg2rad(jax.random.uniform(k[2], (m,), minval=opts.cut[0], maxval=opts.cut[1]))
    cut = cut * jnp.where(jax.random.bernoulli(k[3], shape=(m,)), 1.0, -1.0)
    dist = jax.random.uniform(k[4], (m,), minval=opts.distance[0], maxval=opts.distance[1])
    u = target - obj
    u = u / jnp.sqrt(jnp.sum(u * u, -1, keepdims=True))
    ghost = obj - 2 * r * u
    c, s = jnp.cos(cut), jnp.sin(cut)
    aim = jnp.stack([c * u[:, 0] - s * u[:, 1], s * u[:, 0] + c * u[:, 1]], -1)
    cue = ghost - (dist[:, None] + 2 * r) * aim
    inside = (cue[:, 0] > off) & (cue[:, 0] < spec.width - off) & (cue[:, 1] > off) & (cue[:, 1] < spec.length - off)
    # only pots the pocket accepts: a Russian corner's 72.5 mm mouth takes a 68 mm ball only
    # near its axis. Measured on pyramid-12ft (object ball 0.3-1.0 m from the pocket, struck
    # straight at 2-4.5 m/s): a corner takes every path within 5° of its axis and rattles
    # out from 6°; a middle pocket (ids ML, MR are 1 and 4) takes all up to 10°. Cones of
    # 4° and 8° leave a margin
    middle = (which == 1) | (which == 4)
    cone = jnp.where(middle, jnp.cos(jnp.deg2rad(8.0)), jnp.cos(jnp.deg2rad(4.0)))
    facing = jnp.sum(u * into[which], -1) > cone
    inside = inside & facing
    first = jnp.argmax(inside)
    fallback = jnp.asarray([[spec.width / 2, spec.length / 2 - 0.3], [spec.width / 2, spec.length / 2]])
    pick = jnp.stack([cue[first], obj[first]])
    return jnp.where(jnp.any(inside), pick, fallback)


def step(env: F.FuncEnv, state: F.EnvState, action, key, opts: F.Options) -> F.EnvState:
    """Play the episode's one stroke at the cue ball (0) with ``action["shot"]``."""
    n = env.n_balls
    ids = jnp.arange(n)
    hand = game(env.task).hand_ball
    g = state.game
    phase = g.phase
    xy, on = state.xy, state.on
    in_hand = (phase == IN_HAND_HOUSE) | (phase == IN_HAND_REAR)
    lag = phase == LAG
    over = (phase == FRAME_OVER) | state.terminated  # one shot per episode: then it is over
    stroke = (phase == NORMAL) | in_hand | lag
    shot, clipped = F.sanitize_shot(jnp.asarray(action["shot"], jnp.float64))
    named = jnp.asarray(0, jnp.int32)
    cue = jnp.where(lag, 0, jnp.where(in_hand, hand, named)).astype(jnp.int32)
    final, log, summ, played = F.strike(env, key, cue, shot, stroke, xy, on, opts)
    potted = (summ.pocket[1] >= 0) & (summ.first_contact == 1) & (final.state[0] < POCKETED)
    rewards = jnp.zeros(2).at[0].set(jnp.where(potted, 1.0, 0.0))
    new_game = g._replace(strokes=g.strokes + 1)
    shots = state.shots + 1
    terminated = jnp.asarray(True)
    truncated = ~terminated & (shots >= opts.max_shots)
    z = jnp.asarray(False)
    nxt = F.EnvState(final.r[:, :2], final.state < POCKETED, new_game, shots, rewards, terminated, truncated, clipped,
                     z, z, log.truncated, g.to_play, z, jnp.zeros(NUM_CLAUSES, bool), state.lag,
                     jnp.asarray(-1, jnp.int32), xy, on, played, (ids == 1) & potted)
    # stepping a finished episode changes nothing (and pockets nothing)
    frozen = state._replace(rewards=jnp.zeros(2), terminated=jnp.asarray(True), truncated=z, potted=jnp.zeros(n, bool))
    return F.pick(over, frozen, nxt)
