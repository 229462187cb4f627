"""The host fronts' compiled calls: :func:`cuegym.envs.functional.batched` behind packed arrays.

A step is one compiled call with three arrays in and one out: the rows of the batch (each
table's record, :mod:`cuegym.envs.record`, then its state and key packed as int32 words,
:mod:`cuegym.envs.packing`), the command (:mod:`cuegym.envs.command`) and the packed
options. Each argument and result of a compiled call costs the host microseconds to pass,
wrap and free, and a state is about forty leaves: packed, the host work of a step stays
small next to the compiled step (docs/envs.md, "Host transport").
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from cuegym._exported import exported_jit
from cuegym.envs import functional as F
from cuegym.envs.command import ACTIVE, DONE, INT_FIELDS, OPPONENT, action_fields
from cuegym.envs.devices import over_tables
from cuegym.envs.packing import Packing
from cuegym.envs.record import record, record_layout
from cuegym.envs.registry import BUILTIN, game
from cuegym.physics import get_spec


class FlatProgram(NamedTuple):
    """The compiled calls of the host fronts for one (task, table, snooker rules); see
    :func:`flat_program`."""

    reset: object
    step: object
    packing: Packing  # one table's (state, key)
    options: Packing  # the options (:class:`cuegym.envs.functional.Options`)
    record_width: int  # K: the record's columns, the packed tables' first
    traced: tuple  # (reset, step) as Python functions, for programs built around them (spread_program)


@F.cached_by_rules
def flat_program(task: str, table: str, rules=None) -> FlatProgram:
    """:func:`cuegym.envs.functional.batched` behind packed arguments and results, the calls
    the fronts make: ``reset(rows, opts) -> rows`` and ``step(rows, command, opts) ->
    rows``. ``rows`` (B, K + W) int32 is the batch: row i is table i's record (K columns,
    :func:`cuegym.envs.record.record`: what the host reads after a call) followed by its
    state and key packed by ``packing`` (W words); a reset reads only the keys. ``opts`` is
    the options packed by ``options``; ``command`` (B, COMMAND_WIDTH) float64 the actions
    and each lane's done, active, opponent (:mod:`cuegym.envs.command`). Each is one
    compiled call: the functional program unchanged, with the packing's bit casts and the
    record's around it; ``rules`` the snooker rule options
    (:attr:`cuegym.envs.functional.FuncEnv.snooker_rules`). For the built-in games both are
    kept traced on disk (:func:`cuegym._exported.exported_jit`), so that a new process skips
    their tracing; a game added with :func:`cuegym.envs.registry.register` is traced in every
    process, its code being outside what the key covers."""
    func = F.FuncEnv(task=task, table=table, snooker_rules=rules)
    inner = F.program(task, table, rules)  # one device's: spread_program spreads it
    opts = F.options(func)
    key = jax.eval_shape(lambda: jax.random.PRNGKey(0))
    state = jax.eval_shape(inner.reset, jax.ShapeDtypeStruct((1,) + key.shape, key.dtype), opts)[0]
    per_table = jax.tree_util.tree_map(lambda x: jax.ShapeDtypeStruct(x.shape[1:], x.dtype), state)
    packing, options = Packing((per_table, key)), Packing(opts)
    k = record_layout(func.n_balls, func.players)["width"]

    def rows_of(state, obs, keys):
        return jnp.concatenate([record(state, obs), packing.pack((state, keys), jnp)], 1)

    def reset(rows, opts):
        _, keys = packing.unpack(rows[:, k:])
        state, obs, keys = inner.reset(keys, options.unpack(opts))
        return rows_of(state, obs, keys)

    def step(rows, command, opts):
        state, keys = packing.unpack(rows[:, k:])
        done, active = command[:, DONE] != 0, command[:, ACTIVE] != 0
        opponent = command[:, OPPONENT].astype(jnp.int32)
        state, obs, keys = inner.step(state, action_fields(command), keys, done, active, opponent,
                                      options.unpack(opts))
        return rows_of(state, obs, keys)

    traced = (reset, step)
    if task in BUILTIN:
        static = (repr(game(task)), repr(get_spec(table)), repr(func.snooker_rules))
        reset = exported_jit(reset, f"reset-{task}-{table}", static)
        step = exported_jit(step, f"step-{task}-{table}", static)
    else:
        reset, step = jax.jit(reset), jax.jit(step)
    return FlatProgram(reset, step, packing, options, k, traced)


@F.cached_by_rules
def spread_program(task: str, table: str, devices: tuple, num: int, rules=None) -> FlatProgram:
    """:func:`flat_program`'s calls on ``num`` tables spread over ``devices`` (a tuple of
    ``jax.Device``, :func:`cuegym.envs.devices.resolve`): each device steps its block of
    rows (:func:`cuegym.envs.devices.over_tables`). With one device, :func:`flat_program`
    itself."""
    flat = flat_program(task, table, rules)
    if len(devices) == 1:
        return flat
    reset, step = flat.traced
    return flat._replace(reset=over_tables(reset, devices, (True, False), num),
                         step=over_tables(step, devices, (True, True, False), num))


@F.cached_by_rules
def host_program(task: str, table: str, rules=None) -> F.Program:
    """The calls of :func:`flat_program` on trees, for code holding a state of its own (a
    test loading a position): ``reset(keys, opts) -> (state, record, keys)`` and
    ``step(state, action, keys, done, active, opponent, opts) -> (state, record, keys)``
    with the arguments of :func:`cuegym.envs.functional.batched` (``action`` a dict as
    :func:`cuegym.envs.command.check_action` gives), the observation replaced by the record
    (B, K), all returned as NumPy arrays. It packs and unpacks on the host around the same compiled
    calls (no program of its own): for the rare call, not a training loop."""
    flat = flat_program(task, table, rules)
    k = flat.record_width

    def rows(state, keys):
        words = flat.packing.pack((state, keys))
        return np.concatenate([np.zeros((words.shape[0], k), np.int32), words], 1)

    def split(out):
        out = np.asarray(out)
        state, keys = flat.packing.unpack(out[:, k:], copy=True)
        return state, np.array(out[:, :k]), keys

    def reset(keys, opts):
        keys = np.asarray(keys)
        zero, _ = flat.packing.unpack(flat.packing.zeros(keys.shape[:1]))
        return split(flat.reset(rows(zero, keys), flat.options.pack(opts)))

    def step(state, action, keys, done, active, opponent, opts):
        b = len(done)
        fields = [action["shot"], action["place"], *(action[f] for f in INT_FIELDS), done, active, opponent]
        command = np.concatenate([np.asarray(x, np.float64).reshape(b, -1) for x in fields], 1)
        return split(flat.step(rows(state, keys), command, flat.options.pack(opts)))

    return F.Program(reset, step)
