"""PPO whose rollout runs through the asynchronous pool (:mod:`cuegym.envs.pool`): each
iteration hands out the first B of N tables to finish, acts on them and sends, T times,
so no table waits for the slowest stroke; then GAE over each table's own decisions.

Why not the vmapped gymnax step: under ``vmap`` every step waits for the slowest table's
stroke and for the opponent's turns (frames trained at 34-70 steps/s). Decisions reach the
learner in the order tables finish, as in CleanRL's EnvPool async PPO; here the sequences
are kept per (table, seat), so self-play (``code`` 0: the policy plays every seat) books
each decision from its actor's side. docs/training.md, "PPO over the pool".
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from cuegym.envs import functional as F
from cuegym.envs.command import action_columns
from cuegym.envs.pool import pool_program
from cuegym.learn import ppo
from cuegym.learn.networks import network

NONE, NEXT, END = 0, 1, 2  # what follows a seat's decision within the window
OPPONENT_CODES = {"self": F.OPPONENT_CODES[None], "random": F.OPPONENT_CODES["random"],
                  "ghost": F.OPPONENT_CODES["ghost"]}


class Rows(NamedTuple):
    """Decisions handed out by the pool, leading axis M: ``table``, ``seat`` (M,) int32 the
    table and the player to act; ``obs`` (M, D), ``action``, ``logp``, ``value`` (M,) the
    policy's; ``decision`` (M,) bool a decision the pool plays (a row of an ended episode is
    not: the pool deals a new frame instead); ``reward`` (M, P) float32 every player's
    reward over the env step that ended at this row (the decision before it on the table);
    ``done`` (M,) bool that step ended the episode; ``acc`` (M,) float32 reward already
    booked to this decision (a row carried over from an earlier window); ``won`` (M,) bool
    an ended episode that seat 0 won."""

    table: jnp.ndarray
    seat: jnp.ndarray
    obs: jnp.ndarray
    action: object
    logp: jnp.ndarray
    value: jnp.ndarray
    decision: jnp.ndarray
    reward: jnp.ndarray
    done: jnp.ndarray
    acc: jnp.ndarray
    won: jnp.ndarray


class PoolTrainState(NamedTuple):
    """``params``, ``opt`` the learner's; ``pool`` the tables (their next hand-out not taken
    yet); ``pending`` (N x P rows) each seat's last decision without a successor yet
    (trained in a later window); ``key``; ``steps`` () env steps handed out; ``entropy``
    the bonus's weight."""

    params: dict
    opt: object
    pool: object
    pending: Rows
    key: jnp.ndarray
    steps: jnp.ndarray
    entropy: jnp.ndarray


def _program(env, cfg: ppo.Config):
    return pool_program(env.func.task, env.func.table, cfg.num_envs, cfg.pool_batch, env.func.snooker_rules)


def _observe(env, pool, env_id):
    """(obs (B, D), the gymnax states (with their menus), seat (B,), winner (B,)) of tables
    ``env_id`` (B,)."""
    table = jax.tree_util.tree_map(lambda x: x[env_id], pool.tables.state)
    obs, state = env.view_batch(table)
    return obs, state, table.game.to_play.astype(jnp.int32), table.game.winner


def _empty(obs, action, tables: int, players: int) -> Rows:
    """N x P pending rows, none live: :func:`carry_over` of one row (``obs`` (1, D),
    ``action`` with a leading 1) that waits for nothing."""
    f = jnp.zeros(1, jnp.float32)
    b = jnp.zeros(1, bool)
    i = jnp.zeros(1, jnp.int32)
    row = Rows(i, i, obs, action, f, f, b, jnp.zeros((1, players), jnp.float32), b, f, b)
    return carry_over(row, b, f, tables, players)


def init(env, env_params, cfg: ppo.Config, key, opponent: str) -> PoolTrainState:
    """A new learner and ``cfg.num_envs`` tables dealt from ``key`` (``opponent`` one of
    :data:`OPPONENT_CODES`); the first hand-out is the first iteration's (so the pool's
    ``recv`` and the menu compile once, inside the iteration)."""
    prog = _program(env, cfg)
    k_net, k_env, key = jax.random.split(key, 3)
    code = jnp.full(cfg.num_envs, OPPONENT_CODES[opponent], jnp.int32)
    pool = prog.reset(jax.random.split(k_env, cfg.num_envs), code, env_params.opts)
    net = network(env.action, cfg.hidden)
    obs = jnp.zeros((1, env.obs_size), jnp.float32)  # flax reads the shape alone
    params = net.init(k_net, obs)
    action = ppo.distribution(env, net.apply(params, obs)).sample(seed=k_net)
    pending = _empty(obs, action, cfg.num_envs, env.func.players)
    return PoolTrainState(params, ppo.optimiser(cfg).init(params), pool, pending, key,
                          jnp.asarray(0, jnp.int32), jnp.asarray(float(cfg.entropy)))


def rollout(env, env_params, cfg: ppo.Config, ts: PoolTrainState):
    """(traceable) ``cfg.num_steps`` hand-outs of ``cfg.pool_batch`` tables: the pool hands
    out the next tables to finish, the policy samples for each, the pool plays the actions.
    Returns (pool, key, rows (T, B, ...))."""
    prog = _program(env, cfg)
    net = network(env.action, cfg.hidden)

    def act(carry, _):
        pool, key = carry
        key, k_pick = jax.random.split(key)
        pool, handed = prog.recv(pool, env_params.opts)
        obs, state, seat, winner = _observe(env, pool, handed.env_id)
        out = net.apply(ts.params, obs)
        dist = ppo.distribution(env, out)
        action = dist.sample(seed=k_pick)
        decided, _ = jax.vmap(env.resolve)(state, action)
        pool = prog.send(pool, action_columns(decided), handed.env_id)
        done = handed.terminated | handed.truncated
        row = Rows(handed.env_id, seat, obs, action, dist.log_prob(action), out[-1], ~done,
                   handed.rewards.astype(jnp.float32), done, jnp.zeros(done.shape, jnp.float32), done & (winner == 0))
        return (pool, key), row

    (pool, key), rows = jax.lax.scan(act, (ts.pool, ts.key), None, cfg.num_steps)
    return pool, key, rows


def targets(rows: Rows, pending: Rows, tables: int, players: int, gamma: float, lam: float):
    """(traceable) GAE over each (table, seat)'s own decisions. ``rows`` (T, B, ...) in the
    order handed out (the tables of one hand-out distinct), ``pending`` (N x P rows) the
    decisions before them still without a successor.

    A decision's reward is every reward its seat took from the env steps after it, up to
    the seat's next decision on the table or the episode's end (its own stroke's and the
    others'); its successor's value bootstraps it, and nothing past an end. Returns
    (advantages, trained, still pending, reward so far), each (N x P + T x B,): the pending
    rows first, then ``rows`` flattened."""
    zeros = jnp.zeros((tables, players), jnp.float32)
    carry = (zeros, jnp.full((tables, players), NONE, jnp.int32), zeros, zeros)

    def decide(carry, r: Rows):
        # the rows' (table, seat) pairs are distinct, so the scatters do not collide
        acc, status, next_v, next_a = carry
        i, s = r.table, r.seat
        after = status[i, s]
        follows = (after == NEXT).astype(jnp.float32)
        got = acc[i, s] + r.acc
        adv = got + gamma * next_v[i, s] * follows - r.value + gamma * lam * next_a[i, s] * follows
        at = (jnp.where(r.decision, i, tables), s)  # rows that are not decisions are dropped
        # a decision still waiting for its own successor has no advantage yet: the one
        # before it bootstraps from its value alone, as a rollout's last step does
        known = jnp.where(after != NONE, adv, 0.0)
        carry = (acc.at[at].set(0.0, mode="drop"), status.at[at].set(NEXT, mode="drop"),
                 next_v.at[at].set(r.value, mode="drop"), next_a.at[at].set(known, mode="drop"))
        return carry, (adv, r.decision & (after != NONE), r.decision & (after == NONE), got)

    def back(carry, r: Rows):
        carry, out = decide(carry, r)
        acc, status, next_v, next_a = carry
        # then the env step that ended at this row, from the decision before it: an end
        # cuts every seat's sequence there
        end = r.done[:, None]
        acc = acc.at[r.table].set(jnp.where(end, r.reward, acc[r.table] + r.reward))
        status = status.at[r.table].set(jnp.where(end, END, status[r.table]))
        return (acc, status, next_v, next_a), out

    carry, outs = jax.lax.scan(back, carry, rows, reverse=True)
    _, first = decide(carry, pending)
    return tuple(jnp.concatenate([a, b.reshape(-1)]) for a, b in zip(first, outs))


def _flat(rows: Rows) -> Rows:
    return jax.tree_util.tree_map(lambda x: x.reshape((-1,) + x.shape[2:]), rows)


def carry_over(rows: Rows, still, got, tables: int, players: int) -> Rows:
    """The new pending rows: each row marked ``still`` (a seat's last decision in the
    window, no end after it) in its (table, seat) slot, with the reward ``got`` so far."""
    slot = jnp.where(still, rows.table * players + rows.seat, tables * players)
    m = tables * players
    put = lambda x: jnp.zeros((m,) + x.shape[1:], x.dtype).at[slot].set(x, mode="drop")  # noqa: E731
    return Rows(jnp.repeat(jnp.arange(tables, dtype=jnp.int32), players),
                jnp.tile(jnp.arange(players, dtype=jnp.int32), tables), put(rows.obs),
                jax.tree_util.tree_map(put, rows.action), put(rows.logp), put(rows.value), put(still),
                jnp.zeros((m, players), jnp.float32), jnp.zeros(m, bool), put(got), jnp.zeros(m, bool))


def iteration(env, env_params, cfg: ppo.Config, ts: PoolTrainState):
    """(traceable) One PPO iteration over the pool: :func:`rollout`, :func:`targets`, the
    update over every decision with a target (:func:`cuegym.learn.ppo.update`). Returns
    (state, metrics: the mean reward of the seat to act over the steps handed out, episodes
    ended, decisions, seat 0's share of the episodes won, the losses, the share of rows
    trained)."""
    tables, players = cfg.num_envs, env.func.players
    pool, key, rows = rollout(env, env_params, cfg, ts)
    adv, trained, still, got = targets(rows, ts.pending, tables, players, cfg.gamma, cfg.lam)
    flat = _flat(rows)
    every = jax.tree_util.tree_map(lambda a, b: jnp.concatenate([a, b]), ts.pending, flat)
    data = (every.obs, every.action, every.logp, adv, adv + every.value)
    params, opt, key, losses = ppo.update(env, cfg, ts.params, ts.opt, key, data, ts.entropy,
                                          weight=trained.astype(jnp.float32))
    pending = carry_over(every, still, got, tables, players)
    ended = jnp.sum(flat.done)
    decided = jnp.sum(flat.decision)
    own = jnp.take_along_axis(flat.reward, flat.seat[:, None], 1)[:, 0]
    metrics = {"reward": jnp.mean(own), "episodes": ended, "decisions": decided,
               "success": jnp.sum(flat.won) / jnp.maximum(ended, 1), "trained": jnp.mean(trained),
               "loss": jnp.mean(losses[0]), "value_loss": jnp.mean(losses[1]), "entropy": jnp.mean(losses[2])}
    steps = ts.steps + cfg.num_steps * cfg.pool_batch
    return PoolTrainState(params, opt, pool, pending, key, steps, ts.entropy), metrics


def env_speed(env, env_params, cfg: ppo.Config, opponent: str, iterations: int = 20) -> float:
    """The pool's own env steps per second at the trainer's sizes: uniformly random legal
    actions (:func:`cuegym.envs.functional.random_action`) through the same pool program,
    compiled first, then timed over ``iterations`` hand-outs (the figure the trainer's
    steps/s is compared with)."""
    import time

    prog = _program(env, cfg)
    code = jnp.full(cfg.num_envs, OPPONENT_CODES[opponent], jnp.int32)

    @jax.jit
    def step(pool, key):
        pool, handed = prog.recv(pool, env_params.opts)
        table = jax.tree_util.tree_map(lambda x: x[handed.env_id], pool.tables.state)
        keys = jax.random.split(key, handed.env_id.shape[0])
        act = jax.vmap(lambda s, k: F.random_action(env.func, s, k))(table, keys)
        return prog.send(pool, action_columns(act), handed.env_id)

    pool = prog.reset(jax.random.split(jax.random.PRNGKey(7), cfg.num_envs), code, env_params.opts)
    keys = jax.random.split(jax.random.PRNGKey(1), iterations + 1)
    pool = jax.block_until_ready(step(pool, keys[0]))
    t = time.perf_counter()
    for k in keys[1:]:
        pool = step(pool, k)
    jax.block_until_ready(pool)
    return cfg.pool_batch * iterations / (time.perf_counter() - t)
