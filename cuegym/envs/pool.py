"""The asynchronous pool of tables in the functional core: each table's stroke runs in its own lane.

A vmapped step waits for its slowest stroke; here every table holds a lane of the event
loop (:mod:`cuegym.physics.lanes`) and a status. :func:`send` queues actions, :func:`recv`
runs the lanes event by event; a lane whose stroke has ended is judged by the game's own
step (:func:`cuegym.envs.functional.physics_hook` splits it at the physics), the built-in
opponent's decisions are planned into the same lane, and the first ``batch`` tables whose
agent is to play again are handed out while the others run on. Each table follows sub-env
``i`` of the sync vector env bit for bit (same keys, same rewards, same autoreset):
docs/envs.md, "Asynchronous pool".
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from cuegym.envs import functional as F
from cuegym.envs.command import action_fields
from cuegym.envs.devices import TABLE_AXIS, over_tables
from cuegym.envs.record import record
from cuegym.envs.tables import MAX_OPPONENT_CALLS
from cuegym.physics import lanes
from cuegym.physics.balls import at_rest
from cuegym.physics.compact import active_indices
from cuegym.physics.vec import pick_lanes

# a table's status
WAITING, RUNNING, LANDED, READY = 0, 1, 2, 3
# what a LANDED table holds: a stroke whose lane has stopped, a reset, or the agent's queued action
STROKE, RESET, QUEUED = 0, 1, 2
LOG_CAPACITY = 2  # as functional.strike: the pool reads only the log's truncated flag


class Tables(NamedTuple):
    """The pool's tables, every leaf with a leading axis N. ``state`` the game
    (:class:`cuegym.envs.functional.EnvState`), ``keys`` (N, 2) each table's key stream,
    ``lane`` its stroke (:data:`cuegym.physics.lanes.Lane`), ``status`` and ``op`` (int32,
    the codes above), ``act`` the decision being played (dict as
    :func:`cuegym.envs.functional.step` takes), ``k_op`` (N, 2) its key, ``agent_turn``
    (the stroke is the agent's), ``first`` (the op is the env step's first: a reset or the
    agent's action), ``code`` the opponent (:data:`cuegym.envs.functional.OPPONENT_CODES`),
    ``opening`` (no agent decision yet in this frame), ``pending`` (N, P) the opening's
    rewards, ``total`` (N, P) this env step's, ``calls`` the decisions after the agent's,
    ``strokes`` the opponent's, ``was_reset``, ``done`` (the last hand-out ended the
    episode), ``agent`` the agent decision's flags (:class:`Decision`), ``stamp`` when the
    table became READY."""

    state: F.EnvState
    keys: jnp.ndarray
    lane: lanes.Lane
    status: jnp.ndarray
    op: jnp.ndarray
    act: dict
    k_op: jnp.ndarray
    agent_turn: jnp.ndarray
    first: jnp.ndarray
    code: jnp.ndarray
    opening: jnp.ndarray
    pending: jnp.ndarray
    total: jnp.ndarray
    calls: jnp.ndarray
    strokes: jnp.ndarray
    was_reset: jnp.ndarray
    done: jnp.ndarray
    agent: Decision
    stamp: jnp.ndarray


class Decision(NamedTuple):
    """The agent's last decision as the sync vector env's ``info`` reports it: ``acted``
    () int32, ``foul``, ``clipped``, ``projected`` () bool, ``potted`` (N_balls,) bool."""

    acted: jnp.ndarray
    foul: jnp.ndarray
    clipped: jnp.ndarray
    projected: jnp.ndarray
    potted: jnp.ndarray


class Pool(NamedTuple):
    """The pool: ``tables`` (:class:`Tables`), ``clock`` () int64 the loop's iterations so
    far and ``busy`` () int64 the lane-iterations that moved a stroke (lane efficiency:
    ``busy / (clock * N)``)."""

    tables: Tables
    clock: jnp.ndarray
    busy: jnp.ndarray


class Batch(NamedTuple):
    """What :func:`recv` hands out, B = ``batch`` rows: ``env_id`` (B,) int32, ``obs`` the
    observation dict (B, ...), ``record`` (B, K) the host record
    (:func:`cuegym.envs.record.record`: the observation and the frame's flags, what the
    host front reads), ``reward`` (B,) float64 (the agent's; without an opponent, the player
    who acted), ``terminated``, ``truncated`` (B,) bool, ``agent`` (:class:`Decision`),
    ``strokes`` (B,) int32 the opponent's decisions played, ``rewards`` (B, P) float64 every
    player's reward over the same env step (a self-play trainer books each seat's)."""

    env_id: jnp.ndarray
    obs: dict
    record: jnp.ndarray
    reward: jnp.ndarray
    terminated: jnp.ndarray
    truncated: jnp.ndarray
    agent: Decision
    strokes: jnp.ndarray
    rewards: jnp.ndarray


class _Planned(Exception):  # control flow: carries the stroke out of the trace
    def __init__(self, balls, shot):
        super().__init__("stroke planned")
        self.balls, self.shot = balls, shot


def plan(env: F.FuncEnv, state: F.EnvState, act: dict, k_step, opts: F.Options) -> lanes.Lane:
    """The lane of the stroke ``act`` plays on ``state`` (one table): the game's step traced
    up to its physics call, whose layout and stroke (after noise from ``k_step``) start the
    lane. A decision without a stroke starts a lane that has already stopped."""
    def capture(table, balls, shot):
        raise _Planned(balls, shot)

    try:
        with F.physics_hook(capture):
            F.step(env, state, act, k_step, opts)
    except _Planned as p:
        return lanes.start(F.get_table(env.table), p.balls, p.shot, LOG_CAPACITY)
    raise RuntimeError(f"{env.task}: the game's step made no call to functional.strike")


def judge(env: F.FuncEnv, state: F.EnvState, act: dict, k_step, lane: lanes.Lane, opts: F.Options) -> F.EnvState:
    """The game's step of ``act`` on ``state`` with its stroke's physics read from the
    stopped ``lane`` (the same bytes as the step simulating it)."""
    out = lanes.result(lane)
    with F.physics_hook(lambda table, balls, shot: out):
        return F.step(env, state, act, k_step, opts)


def _split(key):
    pair = jax.random.split(key)
    return pair[0], pair[1]


def _decision(state: F.EnvState) -> Decision:
    return Decision(state.acted, state.foul, state.clipped, state.projected, state.potted)


def land(t: Tables, judged: F.EnvState, fresh: F.EnvState) -> tuple[Tables, jnp.ndarray]:
    """One LANDED table (no batch axis): apply what it holds (the stroke's ruling
    ``judged``, the new frame ``fresh``, or nothing for a queued action: the caller computes
    the first two, :func:`outcomes`), book the rewards as the sync env's opponent loop does
    (:class:`cuegym.envs.tables.HostTables`), then choose its next decision: the agent's
    queued stroke or the opponent's (returned ``play`` () bool, its key in ``k_op``:
    :func:`launch` plans it), a new deal of a frame that ended before the agent played
    (LANDED again), or none (READY)."""
    stroke, reset, queued = t.op == STROKE, t.op == RESET, t.op == QUEUED
    state = F.pick(stroke, judged, F.pick(reset, fresh, t.state))
    r = jnp.where(stroke, state.rewards, 0.0)
    agent_stroke, opp_stroke = stroke & t.agent_turn, stroke & ~t.agent_turn
    deal = reset & t.first  # the env step's reset (a done table sent to, or async_reset)
    opening = jnp.where(deal, t.code != 0, t.opening)
    total = jnp.where(agent_stroke, r + t.pending, t.total + jnp.where(opp_stroke & ~opening, r, 0.0))
    pending = jnp.where(agent_stroke | reset, 0.0, t.pending + jnp.where(opp_stroke & opening, r, 0.0))
    opening = opening & ~agent_stroke
    agent = F.pick(agent_stroke | deal, _decision(state), t.agent)
    strokes = t.strokes + opp_stroke
    calls = t.calls + (opp_stroke | (reset & ~t.first))

    ended = state.terminated | state.truncated
    redo = ~queued & opening & ended
    need = ~queued & ~ended & (state.game.to_play != 0) & (t.code != 0)
    more = (redo | need) & (calls < MAX_OPPONENT_CALLS)
    begin = queued | more
    keys, k_new = _split(t.keys)  # every decision and every deal takes the next key, as in the sync step
    play = queued | (more & ~redo)
    status = jnp.where(play, RUNNING, jnp.where(begin, LANDED, READY)).astype(jnp.int32)
    op = jnp.where(play, STROKE, jnp.where(begin, RESET, t.op)).astype(jnp.int32)
    t = t._replace(state=state, keys=jnp.where(begin, keys, t.keys), status=status, op=op,
                   k_op=jnp.where(begin, k_new, t.k_op), agent_turn=jnp.where(play, queued, t.agent_turn),
                   first=t.first & ~begin, opening=opening, pending=pending, total=total, calls=calls,
                   strokes=strokes, agent=agent)
    return t, play


def outcomes(env: F.FuncEnv, t: Tables, opts: F.Options) -> tuple[F.EnvState, F.EnvState]:
    """A group of LANDED tables (leading axis G): (the ruling of each table's stopped
    stroke, a new frame dealt from its key), each computed only when some table of the group
    needs it (otherwise the tables' own states stand in). A table that holds no stroke is
    judged, if at all, on its own layout at rest rather than its lane's last stroke, so the
    work the referee's loops do stays that of a real stroke."""
    stroke, reset = t.op == STROKE, t.op == RESET
    k3 = jax.vmap(lambda k: jax.random.split(k, 3))(t.k_op)
    init_v = jax.vmap(lambda k: F.init(env, k, opts))
    fresh = jax.lax.cond(jnp.any(reset), init_v, lambda k: t.state, k3[:, 1])
    # a table waiting for its deal holds no frame yet: the new one stands in
    base = pick_lanes(reset, fresh, t.state)
    still = jax.vmap(lanes.with_balls)(t.lane, jax.vmap(at_rest)(base.xy, base.on))
    state, lane = pick_lanes(stroke, (t.state, t.lane), (base, still))
    judge_v = jax.vmap(lambda s, a, k, ln: judge(env, s, a, k, ln, opts))
    judged = jax.lax.cond(jnp.any(stroke), judge_v, lambda s, a, k, ln: s, state, t.act, k3[:, 0], lane)
    return judged, fresh


def launch(env: F.FuncEnv, t: Tables, play, ghost: dict, opts: F.Options) -> Tables:
    """Start the decision :func:`land` chose on one table (where ``play``): the agent's
    queued action, or the opponent's (``ghost`` the ghost's action on this table, computed
    by the caller only when some table needs it), planned into the table's lane."""
    k3 = jax.random.split(t.k_op, 3)
    mine = t.agent_turn  # land set it: the stroke to start is the agent's
    rnd = F.random_action(env, t.state, k3[2])
    act = {}
    for name, value in rnd.items():  # as functional.opponent_action, the ghost's supplied
        given = jnp.asarray(t.act[name]).astype(value.dtype)
        act[name] = jnp.where(mine, given, jnp.where(t.code == 1, value, jnp.where(t.code == 2, ghost[name], given)))
    lane = plan(env, t.state, act, k3[0], opts)
    return t._replace(lane=F.pick(play, lane, t.lane), act=F.pick(play, act, t.act))


def _gather(tree, idx):
    return jax.tree_util.tree_map(lambda x: x[idx], tree)


def _scatter(tree, idx, part):
    """``tree`` with rows ``idx`` replaced by ``part`` (indices N or more are dropped)."""
    return jax.tree_util.tree_map(lambda x, y: x.at[idx].set(y, mode="drop"), tree, part)


class PoolProgram(NamedTuple):
    """The jitted pool functions of one (task, table, N, batch, snooker rules); see
    :func:`pool_program`."""

    reset: object
    send: object
    recv: object


@F.cached_by_rules
def pool_program(task: str, table: str, num: int, batch: int, rules=None) -> PoolProgram:
    """Jitted functions over a pool of ``num`` tables handing out ``batch`` at a time:

    * ``reset(keys (N, 2), code (N,) int32, opts) -> Pool``: every table dealt a new frame
      (the first ``recv`` hands them out, after the opponent's opening decisions);
    * ``send(pool, command (batch, ACTION_WIDTH+) float64, env_id (batch,) int32) -> Pool``:
      the actions of tables ``env_id`` (ids N or more: padding, ignored), each WAITING; a
      table whose episode ended is dealt a new frame instead (the action ignored);
    * ``recv(pool, opts) -> (Pool, Batch)``: runs until ``batch`` tables are READY (the
      caller makes sure enough are sent) and hands out the first ``batch`` in the order
      they became ready.

    ``rules``: the snooker rule options (:attr:`cuegym.envs.functional.FuncEnv.snooker_rules`).
    """
    env = F.FuncEnv(task=task, table=table, snooker_rules=rules)
    tbl = F.get_table(table)
    group = batch  # tables settled together: one settle a recv when no opponent plays
    launch_v = jax.vmap(lambda t, p, g, o: launch(env, t, p, g, o), in_axes=(0, 0, 0, None))
    ghost_v = jax.vmap(lambda s: F.ghost_action(env, s))

    def settle(t: Tables, opts) -> Tables:
        """:func:`land` then :func:`launch` a group of LANDED tables. The referee, the deal,
        the ghost's aim and the planning of strokes each run only when some table of the
        group needs them: a group of queued actions plans strokes and judges none, a group
        of stopped strokes without an opponent judges and plans none."""
        judged, fresh = outcomes(env, t, opts)
        t, play = jax.vmap(land)(t, judged, fresh)
        wants = jnp.any(play & ~t.agent_turn & (t.code == 2))
        shapes = jax.eval_shape(ghost_v, t.state)
        ghost = jax.lax.cond(wants, ghost_v, lambda s: jax.tree_util.tree_map(
            lambda x: jnp.zeros(x.shape, x.dtype), shapes), t.state)
        return jax.lax.cond(jnp.any(play), lambda u: launch_v(u, play, ghost, opts), lambda u: u, t)

    def empty(keys, code, opts):
        # zeros of the right shapes: every table is dealt by its first RESET before anything reads them
        def one(k):
            s = F.init(env, k, opts)
            a = F.random_action(env, s, k)
            return s, a, plan(env, s, a, k, opts)

        zeros = lambda x: jnp.zeros((num,) + x.shape, x.dtype)  # noqa: E731
        state, act, lane = jax.tree_util.tree_map(zeros, jax.eval_shape(one, keys[0]))
        z = jnp.zeros(num, bool)
        zi = jnp.zeros(num, jnp.int32)
        fp = jnp.zeros((num, env.players))
        dec = _decision(state)
        return Tables(state, keys, lane, zi, zi, act, keys, z, z, code, z, fp, fp, zi, zi, z, z, dec,
                      jnp.zeros(num, jnp.int64))

    @jax.jit
    def reset(keys, code, opts):
        t = empty(keys, code.astype(jnp.int32), opts)
        nxt, sub = jax.vmap(_split)(keys)
        on = jnp.ones(num, bool)
        t = t._replace(keys=nxt, k_op=sub, status=jnp.full(num, LANDED, jnp.int32), op=jnp.full(num, RESET, jnp.int32),
                       first=on, was_reset=on)
        return Pool(t, jnp.asarray(0, jnp.int64), jnp.asarray(0, jnp.int64))

    @jax.jit
    def send(pool, command, env_id):
        t = pool.tables
        idx = env_id.astype(jnp.int32)
        part = _gather(t, jnp.minimum(idx, num - 1))
        nxt, sub = jax.vmap(_split)(part.keys)
        done = part.done
        act = action_fields(command)
        act = jax.tree_util.tree_map(lambda a, b: jnp.where(done.reshape(done.shape + (1,) * (a.ndim - 1)), b, a.astype(b.dtype)),
                                     act, part.act)
        zf = jnp.zeros_like(part.total)
        zi = jnp.zeros_like(part.calls)
        part = part._replace(keys=jnp.where(done[:, None], nxt, part.keys), k_op=jnp.where(done[:, None], sub, part.k_op),
                             status=jnp.full_like(part.status, LANDED), op=jnp.where(done, RESET, QUEUED).astype(jnp.int32),
                             act=act, first=jnp.ones_like(done), total=zf, calls=zi, strokes=zi, was_reset=done)
        return pool._replace(tables=_scatter(t, idx, part))

    @jax.jit
    def recv(pool, opts):
        def settle_some(p: Pool) -> Pool:
            t = p.tables
            landed = t.status == LANDED
            idx, _ = active_indices(landed, group)  # ids >= num: padding, dropped
            part = settle(_gather(t, jnp.minimum(idx, num - 1)), opts)
            part = part._replace(stamp=jnp.where(part.status == READY, p.clock, part.stamp))
            return p._replace(tables=_scatter(t, idx, part))

        def cond(p):
            s = p.tables.status
            return (jnp.sum(s == READY) < batch) & jnp.any((s == RUNNING) | (s == LANDED))

        def body(p):
            t = p.tables
            s = t.status
            n_landed, n_ready = jnp.sum(s == LANDED), jnp.sum(s == READY)
            moving = (s == RUNNING) & jax.vmap(lambda ln: lanes.running(ln, F.MAX_EVENTS))(t.lane)
            due = (n_landed >= group) | ((n_landed > 0) & ((n_landed + n_ready >= batch) | ~jnp.any(moving)))
            p = jax.lax.cond(due, settle_some, lambda q: q, p)
            t = p.tables
            moving = (t.status == RUNNING) & jax.vmap(lambda ln: lanes.running(ln, F.MAX_EVENTS))(t.lane)
            stopped = (t.status == RUNNING) & ~moving
            lane = pick_lanes(moving, jax.vmap(lambda ln: lanes.event(tbl, ln))(t.lane), t.lane)
            status = jnp.where(stopped, LANDED, t.status).astype(jnp.int32)
            return Pool(t._replace(lane=lane, status=status), p.clock + 1, p.busy + jnp.sum(moving))

        pool = jax.lax.while_loop(cond, body, pool)
        t = pool.tables
        ready = t.status == READY
        rank = jnp.where(ready, t.stamp * num + jnp.arange(num), jnp.iinfo(jnp.int64).max)
        idx = jnp.argsort(rank)[:batch].astype(jnp.int32)
        part = _gather(t, idx)
        obs = jax.vmap(functools.partial(F.observe, env))(part.state)
        player = jnp.where(part.code != 0, 0, part.agent.acted)
        reward = jnp.take_along_axis(part.total, player[:, None], 1)[:, 0]
        ended = part.state.terminated | part.state.truncated
        out = Batch(idx, obs, record(part.state, obs), reward, part.state.terminated & ~part.was_reset,
                    part.state.truncated & ~part.was_reset, part.agent, part.strokes, part.total)
        part = part._replace(status=jnp.full_like(part.status, WAITING), done=ended & ~part.was_reset)
        return pool._replace(tables=_scatter(t, idx, part)), out

    return PoolProgram(reset, send, recv)


@F.cached_by_rules
def spread_pool_program(task: str, table: str, num: int, batch: int, devices: tuple, rules=None) -> PoolProgram:
    """:func:`pool_program` over ``devices`` (a tuple of ``jax.Device``, D of them, D
    dividing ``num`` and ``batch``): each device runs a pool of its own block of
    ``num / D`` tables and hands out ``batch / D`` of them at each ``recv``, so no device
    waits for another's strokes. The arguments and results are :func:`pool_program`'s
    with the table axis spread (tables ``d * num / D`` onwards on device d), the pool's
    ``clock`` and ``busy`` one per device (D,), and ``send``'s rows D blocks of
    ``batch / D``, block d holding device d's tables by their index within the block
    (``num / D`` or more: padding). ``recv``'s ``env_id`` are the global indices."""
    d = len(devices)
    n = num // d
    local = pool_program(task, table, n, batch // d, rules)

    def per_device(pool: Pool) -> Pool:
        return pool._replace(clock=pool.clock[None], busy=pool.busy[None])

    def one(pool: Pool) -> Pool:
        return pool._replace(clock=pool.clock[0], busy=pool.busy[0])

    def reset(keys, code, opts):
        return per_device(local.reset(keys, code, opts))

    def send(pool, command, env_id):
        return per_device(local.send(one(pool), command, env_id))

    def recv(pool, opts):
        pool, out = local.recv(one(pool), opts)
        first = jax.lax.axis_index(TABLE_AXIS).astype(jnp.int32) * n
        return per_device(pool), out._replace(env_id=out.env_id + first)

    return PoolProgram(over_tables(reset, devices, (True, True, False)),
                       over_tables(send, devices, (True, True, True)),
                       over_tables(recv, devices, (True, False)))
