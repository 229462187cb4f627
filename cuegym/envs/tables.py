"""The batch of tables behind both Gymnasium envs: its rows on the device and the opponent loop.

:class:`HostTables` holds B tables as the rows of :func:`cuegym.envs.host_program.flat_program`
(each table's record and packed state), steps and resets them in one compiled call, and
plays the other players' decisions after the agent's when the env has an opponent
(docs/envs.md, "Opponents"): a built-in one inside the compiled step, a callable from
Python between compiled steps. The state is unpacked only for the rare reader
(rendering, replays, tests).
"""

from __future__ import annotations

import jax
import numpy as np

from cuegym import compile_log
from cuegym.envs import functional as F
from cuegym.envs.command import ACTIVE, COMMAND_WIDTH, DONE, OPPONENT, pack_action
from cuegym.envs.devices import home, resolve
from cuegym.envs.env_spaces import observation_space
from cuegym.envs.host_program import host_program, spread_program
from cuegym.envs.record import field, numpy_obs, record_layout
from cuegym.rules.catalogue import ID as CLAUSE_ID

MAX_OPPONENT_CALLS = 1000
"""Compiled steps run at most per ``step`` / ``reset`` for the other players: a frame
truncates at ``max_shots`` decisions, so only a long run of frames dealt and discarded
reaches it; the step then returns with another player to play."""


def _opponent_code(opponent, single: bool = True) -> int:
    if opponent is None or callable(opponent):
        return 0
    if opponent in F.OPPONENT_CODES:
        return F.OPPONENT_CODES[opponent]
    # "pretrained" never reaches here: cuegym.entry turns it into the learned agent's callable
    extra = ", \"pretrained\" (gymnasium.make: the shipped learned agent)" if single else ""
    raise ValueError(f"opponent: None, \"random\", \"ghost\"{extra} or a callable f(obs) -> action; got {opponent!r}")


class HostTables:
    """The batch of B tables behind both envs: its rows on the device (``rows``, (B, K +
    W): each table's record and packed state, :func:`flat_program`) and the opponent
    loop. ``obs`` is the rows of the last compiled call on the host (a read-only view on
    the CPU backend, made when first read): the record columns come first, so the record's
    readers (:func:`cuegym.envs.record.field`, :func:`cuegym.envs.record.numpy_obs`) take
    it as it is; the single env reads a bytes copy of its one row instead
    (:func:`cuegym.envs.record.host_row`). ``state`` and ``keys`` read (and assign) the
    packed state as trees, for the rare reader (rendering, replays, tests): the step loop
    never unpacks it.

    ``devices`` (:func:`cuegym.envs.devices.resolve`; None: all local devices, the first
    for a single env) hold the rows, each device a block of tables. With the default on a
    machine of one device, the rows go where JAX puts them by default."""

    def __init__(self, func: F.FuncEnv, num: int, opponent, single: bool, devices=None):
        self.func = func
        self.num = num
        self.single = single
        self.opponent = opponent
        self.code = _opponent_code(opponent, single)
        self.devices = resolve(devices)[:1] if single and devices is None else resolve(devices)
        if single and len(self.devices) != 1:
            raise ValueError(f"devices: a single env runs on one device, got {len(self.devices)}")
        self._named = devices is not None
        self.flat = spread_program(func.task, func.table, self.devices, num, func.snooker_rules)
        # the same calls on trees (tests load positions)
        self.program = host_program(func.task, func.table, func.snooker_rules)
        self.opts = jax.device_put(F.options(func))  # as a tree, for self.program
        self.flat_opts = self._put(self.flat.options.pack(F.options(func)), lanes=False)  # on the device once
        self.obs_space = observation_space(func)
        self.rows = None  # on the device; the state zeros until ``dealt``
        self.dealt = False  # a reset has run (or a state was assigned)
        self._host = None  # ``obs``: host rows of the last call, made when first read
        self.agent_out = None  # the rows (on the device) after the agent's last decision
        self._trees = (None, None)  # (rows, their (state, keys) on the host): the last unpacked
        ids = self.flat.packing.treedef.unflatten(range(len(self.flat.packing.slots)))
        self._clauses_leaf = ids[0].clauses
        self._clause_bytes = self._leaf_bytes(self._clauses_leaf)
        self._potted_leaf = ids[0].potted
        self._potted_bytes = self._leaf_bytes(self._potted_leaf)
        self._no_lanes = _frozen(np.zeros(num, bool))
        self.done = self._no_lanes
        self.lay = record_layout(func.n_balls, func.players)
        self.pending = np.zeros((num, func.players))  # opponents' opening rewards, paid on the frame's first step
        self._first = {"reset": True, "step": True}  # the first call of each compiles (or loads) its program

    def _put(self, x, lanes: bool = True):
        """``x`` on the devices (:func:`cuegym.envs.devices.home`). With a number of tables
        that the devices do not divide, the rows are copied to each (the program pads its
        blocks, :func:`cuegym.envs.devices.over_tables`)."""
        split = lanes and self.num % len(self.devices) == 0
        return jax.device_put(x, home(self.devices, self._named, split))

    # the packed state as trees (host copies; assigning packs them for the next call)

    @property
    def state(self):
        """The batch's :class:`cuegym.envs.functional.EnvState` (leaves (B, ...) NumPy copies);
        None before the first reset."""
        return self._unpacked()[0] if self.dealt else None

    @state.setter
    def state(self, state):
        self._pack(state, self.keys)
        self.dealt = True

    @property
    def keys(self):
        """The lanes' keys (B, 2) uint32 (NumPy); None before seeding."""
        return None if self.rows is None else self._unpacked()[1]

    @keys.setter
    def keys(self, keys):
        if self.rows is None:
            state, _ = self.flat.packing.unpack(self.flat.packing.zeros((self.num,)))
        else:
            state = self._unpacked()[0]
        self._pack(state, keys)

    def _leaf_bytes(self, index: int) -> slice:
        """The bytes of a one-byte leaf (bool) in a host row."""
        group, first, stop, _ = self.flat.packing.slots[index]
        dtype, word, _, _ = self.flat.packing.groups[group]
        if dtype.itemsize != 1:
            raise TypeError(f"leaf {index}: {dtype}, not one byte a value")
        at = 4 * (self.flat.record_width + word)
        return slice(at + first, at + stop)

    @property
    def obs(self) -> np.ndarray:
        """(B, K + W) int32: the rows of the last compiled call on the host (NumPy; on the
        CPU backend a read-only view of the buffer the program wrote), made when first read."""
        if self._host is None:
            self._host = np.asarray(self.rows)
        return self._host

    @obs.setter
    def obs(self, rows: np.ndarray):
        self._host = rows

    @property
    def agent_clauses(self):
        """(B, C) bool: the clauses applied to the agent's last decision (NumPy); None
        before the first step."""
        if self.agent_out is None:
            return None
        return self.flat.packing.leaf(np.asarray(self.agent_out)[:, self.flat.record_width:], self._clauses_leaf)

    @property
    def agent_potted(self):
        """(B, N) bool: the balls each lane's last agent decision pocketed that count for
        the striker (``EnvState.potted``; NumPy); None before the first step."""
        if self.agent_out is None:
            return None
        return self.flat.packing.leaf(np.asarray(self.agent_out)[:, self.flat.record_width:], self._potted_leaf)

    def agent_decision(self, lane: int = 0, row: bytes | bytearray | None = None) -> tuple[list, tuple]:
        """Lane ``lane``'s last agent decision: (the catalogue ids of the clauses applied to
        it, in catalogue order; the indices of the balls it potted, ascending, as Python
        ints). Read from the bytes of its host row (``row`` when the caller has them): a
        bool is one byte of the packing, 0 or 1, so a ``find`` per set byte instead of NumPy
        calls (usually a handful of clauses and no ball or one)."""
        if row is None:
            row = np.asarray(self.agent_out)[lane].tobytes()
        return ([CLAUSE_ID[k] for k in _set_bytes(row, self._clause_bytes)],
                tuple(_set_bytes(row, self._potted_bytes)))

    def _unpacked(self):
        if self._trees[0] is not self.rows:
            words = np.asarray(self.rows)[:, self.flat.record_width:]
            self._trees = (self.rows, self.flat.packing.unpack(words, copy=True))
        return self._trees[1]

    def _pack(self, state, keys):
        """New rows holding ``state`` and ``keys`` (the record columns kept)."""
        k = self.flat.record_width
        record = np.zeros((self.num, k), np.int32) if self.rows is None else np.asarray(self.rows)[:, :k]
        self.rows = self._put(np.concatenate([record, self.flat.packing.pack((state, keys))], 1))

    # the compiled calls

    def seed(self, seed: int):
        self.keys = jax.vmap(jax.random.PRNGKey)(np.arange(self.num) + seed)

    def _fetch(self, rows):
        """Keep ``rows``, the result of a compiled call (its host view ``obs`` is made when
        read), and return them."""
        self.rows = rows
        self._host = None
        return rows

    def _announced(self, call: str):
        """The ``cuegym`` logger's note around the first ``call`` ("reset" or "step"), which
        compiles its program or loads it from the persistent cache (:mod:`cuegym.compile_log`)."""
        self._first[call] = False
        what = f"the {call} of {self.func.task} on {self.func.table}, {self.num} table{'s' if self.num > 1 else ''}"
        return compile_log.first_call(what, cold_compile_s(self.func.n_balls))

    def reset(self):
        if self._first["reset"]:
            with self._announced("reset"):
                self._fetch(self.flat.reset(self.rows, self.flat_opts))
        else:
            self._fetch(self.flat.reset(self.rows, self.flat_opts))
        self.dealt = True
        self.done = self._no_lanes
        if self.opponent is None:
            return None  # no opponent strokes
        self.pending = np.zeros((self.num, self.func.players))
        opening = np.ones(self.num, bool)
        rec = self.obs
        ended = field(rec, "terminated", self.lay) | field(rec, "truncated", self.lay)
        none = np.zeros((self.num, self.func.players))
        _, count = self._opponent_loop(opening, ended, field(rec, "to_play", self.lay), none)
        return count

    def step(self, command: np.ndarray, check=None):
        """The agent's decision on every lane (done lanes reset instead), then the
        opponent's: ``command`` (B, COMMAND_WIDTH) the actions
        (:func:`cuegym.envs.command.pack_action`) with the lane columns set (done =
        ``self.done``, active, no opponent; a new array, not written after); ``check`` (or
        None) the deferred check of the actions' values
        (:func:`cuegym.envs.command.deferred_agent_command`), run after the agent's call is
        sent and before anything reads its result: if it raises, the rows are put back and
        the error raised. Returns (per-player rewards (B, P) of the step, the rows after the
        agent's decision on the host, opponent strokes (B,)); (None, None, None) for a
        single env without opponent, whose step is the agent's alone (its rows are
        ``self.rows``, the rewards theirs): it never has a done lane, the single env resets
        through :meth:`reset`. The device rows after the agent's decision are kept as
        ``agent_out`` either way."""
        done = self.done
        before = self.rows, self.agent_out
        if self._first["step"]:
            with self._announced("step"):
                self.agent_out = self._fetch(self.flat.step(self.rows, command, self.flat_opts))
        else:
            self.agent_out = self._fetch(self.flat.step(self.rows, command, self.flat_opts))
        if check is not None:  # while the step runs (the call returned at dispatch)
            try:
                check()
            except ValueError:
                self.rows, self.agent_out = before  # the step never happened
                self._host = None
                raise
        del before  # the previous rows are freed now, while the step runs
        if self.single and self.opponent is None:  # nothing else to play, and no lane was done
            return None, None, None
        agent = self.obs
        total = np.where(done[:, None], 0.0, field(agent, "rewards", self.lay))
        count = np.zeros(self.num, np.int64)
        if self.opponent is not None:
            total = total + np.where(done[:, None], 0.0, self.pending)
            # paid now (a lane resetting starts a new frame at 0)
            self.pending = np.zeros((self.num, self.func.players))
            ended = (field(agent, "terminated", self.lay) | field(agent, "truncated", self.lay)) & ~done
            total, count = self._opponent_loop(done.copy(), ended, field(agent, "to_play", self.lay), total)
        return total, agent, count

    def _opponent_loop(self, opening, ended, to_play, total):
        """Play the other players' decisions until player 0 is to play or the frame ends. Lanes in
        ``opening`` have not seen player 0 play yet: their rewards are deferred (pending)
        and a frame ending there is dealt again."""
        count = np.zeros(self.num, np.int64)
        for _ in range(MAX_OPPONENT_CALLS):
            redo = opening & ended
            need = (~ended & (to_play != 0)) | redo
            if not need.any():
                break
            command = self._opponent_actions()
            command[:, DONE], command[:, ACTIVE] = redo, need
            command[:, OPPONENT] = np.where(need & ~redo, self.code, 0)
            self._fetch(self.flat.step(self.rows, command, self.flat_opts))
            rec = self.obs
            term, trunc = field(rec, "terminated", self.lay), field(rec, "truncated", self.lay)
            to_play = field(rec, "to_play", self.lay)
            played = need & ~redo
            r = np.where(played[:, None], field(rec, "rewards", self.lay), 0.0)
            self.pending = np.where(redo[:, None], 0.0, self.pending) + np.where(opening[:, None], r, 0.0)
            total = total + np.where(opening[:, None], 0.0, r)
            count += played
            ended = np.where(need, term | trunc, ended)
        return total, count

    def _opponent_actions(self) -> np.ndarray:
        """(B, COMMAND_WIDTH): the callable opponent's actions (zeros for a built-in one,
        which the program replaces), the lane columns left to set."""
        n = self.func.n_balls
        if callable(self.opponent):
            if self.single:
                return pack_action(self.opponent(numpy_obs(self.obs, self.obs_space, 0)), None, n, COMMAND_WIDTH)[None]
            return pack_action(self.opponent(numpy_obs(self.obs, self.obs_space)), self.num, n, COMMAND_WIDTH)
        return np.zeros((self.num, COMMAND_WIDTH))



def cold_compile_s(n_balls: int) -> float:
    """Roughly how long [s] a step's program takes to compile with an empty cache on a
    2-core machine, by the balls on the table (the event loop grows with them); the figures
    per id are in the guide's "Performance" (docs/guide.md)."""
    return 10.0 if n_balls <= 2 else 15.0 if n_balls <= 16 else 20.0


def _frozen(x: np.ndarray) -> np.ndarray:
    x.setflags(write=False)
    return x


def _set_bytes(row: bytes | bytearray, leaf: slice) -> list:
    """The positions within ``leaf`` (a packed bool leaf's bytes in ``row``) of the bytes
    that are 1, ascending (searched in place: no slice of the row is copied)."""
    first, stop = leaf.start, leaf.stop
    at, k = [], row.find(1, first, stop)
    while k >= 0:
        at.append(k - first)
        k = row.find(1, k + 1, stop)
    return at
