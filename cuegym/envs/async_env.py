"""The asynchronous vector env: EnvPool's interface over the pool of :mod:`cuegym.envs.pool`.

``send`` hands actions to some tables, ``recv`` returns the first ``batch_size`` tables
whose strokes have ended and been judged while the others keep simulating; ``step`` is
both. Each table is sub-env ``i`` of the sync vector env (``gymnasium.make_vec``) with the
same seed, bit for bit, whatever ``num_envs``, ``batch_size`` or the order tables come
back in. docs/envs.md, "Asynchronous pool", has the interface and its errors.
"""

from __future__ import annotations

import gymnasium as gym
import jax
import numpy as np

from cuegym import compile_log
from cuegym.envs import functional as F
from cuegym.envs.command import pack_action
from cuegym.envs.devices import home, padded, resolve
from cuegym.envs.env_spaces import action_space, observation_space
from cuegym.envs.pool import pool_program, spread_pool_program
from cuegym.envs.record import field, numpy_obs, record_layout
from cuegym.envs.registry import game
from cuegym.envs.tables import cold_compile_s
from cuegym.physics import get_table


def make_async(env_id: str, num_envs: int, batch_size: int | None = None, seed: int | None = None,
               opponent: str | None = None, devices=None, **options) -> AsyncCueEnv:
    """An :class:`AsyncCueEnv` of ``num_envs`` tables of the game ``env_id`` (a Gymnasium
    id such as ``"cuegym/RussianPyramid-v0"``, or a task name), handing out ``batch_size``
    at a time (None: ``num_envs``, every table each step, as EnvPool's sync mode). The
    options are the game's (``noise``, ``max_shots``, ``table``, ``snooker_rules``, ...);
    ``opponent`` None, ``"random"`` or ``"ghost"``; ``devices`` as :class:`AsyncCueEnv`'s."""
    try:
        task = game(env_id).name
    except (KeyError, ValueError):
        task = None
    if task is None:
        raise ValueError(f"env_id: unknown {env_id!r}; a cuegym id such as 'cuegym/RussianPyramid-v0'")
    return AsyncCueEnv(task, num_envs, batch_size, seed, opponent, devices=devices, **options)


def _count(name: str, value, low: int, high: int | None = None) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < low or (high and value > high):
        top = f"..{high}" if high else " or more"
        raise ValueError(f"{name}: an integer {low}{top}, got {value!r}")
    return int(value)


class AsyncCueEnv:
    """``num_envs`` tables, ``batch_size`` handed out by each :meth:`recv` (EnvPool's
    interface: ``async_reset``, ``send``, ``recv``, ``step``, ``reset``). The tables not
    returned keep simulating. A table's episode that ends is dealt again at the next
    action sent to it (the action ignored), as the sync vector env's next-step autoreset.

    ``recv`` returns ``(obs, reward, terminated, truncated, info)``: ``obs`` a dict of
    (batch_size, ...) arrays in ``single_observation_space``'s dtypes, ``reward`` (B,)
    float64 (the agent's, player 0, with an opponent; without one, the player who acted),
    ``info`` (B,) arrays ``env_id``, ``to_play``, ``acted``, ``foul``, ``clipped``,
    ``projected``, ``opponent_strokes`` and ``potted`` (B, N) bool.

    ``devices`` (:func:`cuegym.envs.devices.resolve`; None: all local devices) each run a
    pool of their own block of ``num_envs / D`` tables and hand out ``batch_size / D`` of
    them at each ``recv`` (D must divide both): the first tables ready on each device,
    device by device. Each table's bytes are those of one device."""

    def __init__(self, task: str, num_envs: int, batch_size: int | None = None, seed: int | None = None,
                 opponent: str | None = None, devices=None, **options):
        self.num_envs = _count("num_envs", num_envs, 1)
        self.batch_size = self.num_envs if batch_size is None else _count("batch_size", batch_size, 1, self.num_envs)
        self.devices = resolve(devices)
        d = len(self.devices)
        for name, value in (("num_envs", self.num_envs), ("batch_size", self.batch_size)):
            if value % d:
                raise ValueError(f"{name}: a multiple of the {d} devices (each runs a pool of its own), got {value}; "
                                 f"pass devices= with fewer, or {name}={padded(value, d)}")
        if callable(opponent) or opponent not in F.OPPONENT_CODES:
            raise ValueError(f"opponent: None, \"random\" or \"ghost\" (the pool plays them inside its compiled loop; "
                             f"a callable opponent needs gymnasium.make_vec), got {opponent!r}")
        self.func = F.FuncEnv(task=task, **options)
        get_table(self.func.table)  # compiled outside any trace
        self.opponent = opponent
        self.seed = int(np.random.default_rng().integers(0, 2**31 - 1)) if seed is None else _count("seed", seed, 0)
        self.single_observation_space = observation_space(self.func)
        self.single_action_space = action_space(self.func)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.batch_size)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.batch_size)
        if d == 1:
            self.program = pool_program(self.func.task, self.func.table, self.num_envs, self.batch_size,
                                        self.func.snooker_rules)
        else:
            self.program = spread_pool_program(self.func.task, self.func.table, self.num_envs, self.batch_size,
                                               self.devices, self.func.snooker_rules)
        self.opts = jax.device_put(F.options(self.func), home(self.devices, devices is not None, lanes=False))
        self.lay = record_layout(self.func.n_balls, self.func.players)
        self.pool = None
        self.waiting = np.zeros(self.num_envs, bool)  # handed out by recv, no action sent since
        self.last_ids = None
        self._first = {"reset": True, "send": True, "recv": True}

    def _call(self, name: str, *args):
        fn = getattr(self.program, name)
        if not self._first[name]:
            return fn(*args)
        self._first[name] = False
        what = f"the asynchronous {name} of {self.func.task} on {self.func.table}, {self.num_envs} tables"
        with compile_log.first_call(what, cold_compile_s(self.func.n_balls)):
            return fn(*args)

    @property
    def running(self) -> int:
        """Tables with the pool (sent or dealt, not yet handed out)."""
        return 0 if self.pool is None else int(self.num_envs - self.waiting.sum())

    def async_reset(self) -> None:
        """Deal every table a new frame (the opponent plays its opening decisions); the next
        :meth:`recv` returns the first ``batch_size`` ready."""
        keys = jax.vmap(jax.random.PRNGKey)(np.arange(self.num_envs) + self.seed)
        code = np.full(self.num_envs, F.OPPONENT_CODES[self.opponent], np.int32)
        self.pool = self._call("reset", keys, code, self.opts)
        self.waiting[:] = False
        self.last_ids = None

    def reset(self):
        """:meth:`async_reset` then :meth:`recv`; returns (obs, info) of the first ``batch_size`` tables."""
        self.async_reset()
        obs, _, _, _, info = self.recv()
        return obs, info

    def send(self, action: dict, env_id=None) -> None:
        """Actions (a dict of batched arrays, one row per id) for the tables ``env_id`` (None:
        those the last :meth:`recv` returned), each one that recv handed out and no action
        has been sent to since. Raises ValueError naming the field and changes no table."""
        if self.pool is None:
            raise RuntimeError("call async_reset() or reset() before send()")
        ids = self._ids(env_id)
        if not isinstance(action, dict):
            raise ValueError(f"action: a dict of batched arrays, one row per env_id; got {type(action).__name__}")
        for key, value in action.items():
            rows = np.shape(value)[0] if np.ndim(value) else None
            if rows != len(ids):
                raise ValueError(f"action.{key}: {rows} rows for {len(ids)} env_id; one row per table")
        command = pack_action(action, len(ids), self.func.n_balls)
        d = len(self.devices)
        n, b = self.num_envs // d, self.batch_size // d
        block = ids // n
        mine = [np.flatnonzero(block == k) for k in range(d)]  # device k's rows of this send, in order
        calls = max(-(-len(m) // b) for m in mine)
        for c in range(calls):  # each compiled send takes b rows a device, padded with index n
            cols = np.zeros((d * b, command.shape[1]))
            local = np.full(d * b, n, np.int32)
            for k, m in enumerate(mine):
                part = m[c * b:(c + 1) * b]
                cols[k * b:k * b + len(part)] = command[part]
                local[k * b:k * b + len(part)] = ids[part] - k * n
            self.pool = self._call("send", self.pool, cols, local)
        self.waiting[ids] = False

    def _ids(self, env_id) -> np.ndarray:
        if env_id is None:
            if self.last_ids is None:
                raise ValueError("env_id: None means the tables the last recv() returned; call recv() first")
            env_id = self.last_ids
        ids = np.asarray(env_id)
        if ids.ndim != 1 or ids.size == 0 or not (ids.dtype.kind in "iu" or np.all(np.mod(ids, 1) == 0)):
            raise ValueError(f"env_id: a non-empty 1-D array of integers, got {np.asarray(env_id).tolist()!r}")
        ids = ids.astype(np.int64)
        bad = ids[(ids < 0) | (ids >= self.num_envs)]
        if bad.size:
            raise ValueError(f"env_id: {bad.tolist()} outside 0..{self.num_envs - 1}")
        if np.unique(ids).size != ids.size:
            raise ValueError(f"env_id: repeated ids in {ids.tolist()}; one action per table")
        busy = ids[~self.waiting[ids]]
        if busy.size:
            raise ValueError(f"env_id: tables {busy.tolist()} are not waiting for an action (still running, or not "
                             "yet returned by recv())")
        return ids

    def recv(self):
        """``(obs, reward, terminated, truncated, info)`` of the first ``batch_size`` tables
        whose decisions have been judged (``info["env_id"]`` says which)."""
        if self.pool is None:
            raise RuntimeError("call async_reset() or reset() before recv()")
        d = len(self.devices)
        running = (~self.waiting).reshape(d, -1).sum(1)
        if np.any(running < self.batch_size // d):
            need = f"batch_size {self.batch_size}" if d == 1 else \
                f"batch_size / {d} = {self.batch_size // d} on device {int(np.argmin(running))}"
            raise RuntimeError(f"recv: {int(running.min())} tables are running, fewer than {need}; "
                               "send() actions to the tables recv() returned first")
        self.pool, out = self._call("recv", self.pool, self.opts)
        out = jax.device_get(out._replace(obs=None))  # the host reads the record
        ids = np.asarray(out.env_id, np.int64)
        self.waiting[ids] = True
        self.last_ids = ids
        rec = np.asarray(out.record)
        info = {"env_id": ids.astype(np.int32), "to_play": field(rec, "to_play", self.lay),
                "acted": np.asarray(out.agent.acted), "foul": np.asarray(out.agent.foul),
                "clipped": np.asarray(out.agent.clipped), "projected": np.asarray(out.agent.projected),
                "potted": np.asarray(out.agent.potted), "opponent_strokes": np.asarray(out.strokes, np.int64)}
        obs = numpy_obs(rec, self.single_observation_space)
        return obs, np.asarray(out.reward, np.float64), np.asarray(out.terminated), np.asarray(out.truncated), info

    def step(self, action: dict, env_id=None):
        """:meth:`send` then :meth:`recv`."""
        self.send(action, env_id)
        return self.recv()

    def close(self) -> None:
        self.pool = None
