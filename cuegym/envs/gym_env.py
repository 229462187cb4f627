"""Gymnasium front of the functional environments: a single env and a native vector env.

Both run the same jitted, vmapped program (:func:`cuegym.envs.functional.batched`): the single
env is a batch of one, so a sub-env of a vector env and the single env with the same seed
give the same bytes (DESIGN.md §7). Seeds: sub-env ``i`` of a vector env seeded ``s`` and
the single env seeded ``s + i`` draw from the same key stream. The program is wrapped
(:func:`flat_program`) so that a step is one compiled call with three arrays in and one
out: the actions and lane controls as one array (the "command"), the options as one, and
the batch's "rows", each table's state and key packed as words (:mod:`cuegym.envs.packing`)
behind what the host reads of it (the "record", below). The host work of a step stays
small next to the compiled step (``experiments/bench_env.py`` measures it).

Gymnasium's own ``FunctionalJaxVectorEnv`` (1.x) autoresets with ``state.at[idx].set``,
which needs the state to be one array; our state is a pytree, so the vector env here does
the next-step autoreset inside the jitted step instead.

Opponents (``opponent=``): ``None`` — the agent plays every turn, ``info["to_play"]`` says
whose turn is next and the reward is the acting player's. ``"random"``, ``"ghost"`` or a
callable — the agent is always player 0; after the agent's decision the env plays the other
players' decisions (player 1's; in golf players 1..5: strokes, lag strokes, Moscow removals,
golf set-ups) inside ``step`` until it is player 0's turn again or the frame ends, and the
reward is player 0's total over all of them; ``info["opponent_strokes"]`` counts the other
players' decisions played. The built-in opponents run inside the compiled step
(:func:`cuegym.envs.functional.opponent_action`) from the env's own key stream, so they are
deterministic per seed. A callable is called from Python between compiled steps with the
observation (another player to play) and returns an action: ``f(obs) -> action`` for the
single env; in the vector env ``f(obs_batch) -> action_batch`` over all sub-envs (only those
where a player other than 0 is to play use it). When another player opens a frame (it
breaks; in golf, the first player drawn by lot; in a lag player 0 always plays first), its
decisions are played inside ``reset()`` (or the autoreset step) and their reward for player
0 is added to the frame's first step, so an episode's return is player 0's final score
difference × ``reward_scale`` (golf: minus his strokes × ``reward_scale``).
A frame that the opponent wins before player 0 has played is discarded and a new one dealt.
At most :data:`MAX_OPPONENT_CALLS` compiled steps are run per ``step``/``reset``; since a
frame truncates at ``max_shots`` decisions, the cap is only reached if more than that many
frames are dealt and discarded, and the step then returns with another player to play.
"""

from __future__ import annotations

import functools
import math
import struct

from typing import NamedTuple

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from cuegym.envs import functional as F
from cuegym.envs import render as R
from cuegym.envs.packing import Packing
from cuegym.physics import POCKETS, get_table
from cuegym.rules.catalogue import ID as CLAUSE_ID
from cuegym.rules import golf as gf
from cuegym.rules.golf import GOLF_PHASE_NAMES, MAX_PLAYERS
from cuegym.rules.snooker import SNOOKER_PHASE_NAMES

PHASE_NAMES = GOLF_PHASE_NAMES
"""Phase names by code, every game's (the Russian games use codes 0..5, snooker 0 and 4..7,
golf 0, 1, 5 and 8)."""

INT_FIELDS = ("cue_ball", "ball", "pocket", "choice")
MAX_OPPONENT_CALLS = 1000
# "human" opens a window (cuegym.envs.render.Viewer): offered only where a display exists, so
# that asking for it on a headless machine fails at construction with a clear message
RENDER_MODES = ["rgb_array", "human"] if R._has_display() else ["rgb_array"]
RENDER_WIDTH = 480  # px


def action_space(env: F.FuncEnv) -> spaces.Dict:
    n = env.n_balls
    spec = env.spec
    return spaces.Dict({
        "shot": spaces.Box(F.SHOT_LOW.astype(np.float32), F.SHOT_HIGH.astype(np.float32), dtype=np.float32),
        "place": spaces.Box(np.zeros(2, np.float32), np.array([spec.width, spec.length], np.float32), dtype=np.float32),
        "cue_ball": spaces.Discrete(n),
        "ball": spaces.Discrete(n),
        "pocket": spaces.Discrete(len(POCKETS)),
        "choice": spaces.Discrete(n),
    })


def observation_space(env: F.FuncEnv) -> spaces.Dict:
    n = env.n_balls
    spec = env.spec
    hi = np.broadcast_to(np.array([spec.width, spec.length, 1.0], np.float32), (n, 3))
    cap = F.COUNT_CAP
    if env.task == F.GOLF:
        p = env.players
        return spaces.Dict({
            "balls": spaces.Box(np.zeros((n, 3), np.float32), hi.copy(), dtype=np.float32),
            "phase": spaces.Discrete(len(GOLF_PHASE_NAMES)),
            "to_play": spaces.Discrete(p),
            "scores": spaces.Box(0.0, float(np.iinfo(np.int32).max), (p,), np.float32),  # strokes
            "legal_ball": spaces.MultiBinary(n),
            "legal_cue_ball": spaces.MultiBinary(n),
            "legal_choice": spaces.MultiBinary(n),
            "target_pocket": spaces.Box(-1, len(POCKETS) - 1, (p,), np.int32),
            "opening": spaces.Discrete(2),
            "num_players": spaces.Discrete(MAX_PLAYERS + 1),
        })
    if env.task in F.SNOOKER_GAMES:
        return spaces.Dict({
            "balls": spaces.Box(np.zeros((n, 3), np.float32), hi.copy(), dtype=np.float32),
            "phase": spaces.Discrete(len(SNOOKER_PHASE_NAMES)),
            "to_play": spaces.Discrete(2),
            "scores": spaces.Box(-1000.0, 1000.0, (2,), np.float32),
            "legal_ball": spaces.MultiBinary(n),
            "legal_cue_ball": spaces.MultiBinary(n),
            "legal_choice": spaces.MultiBinary(n),
            "ball_on": spaces.MultiBinary(n),
            "free_ball": spaces.Discrete(2),
            "breaking": spaces.Discrete(2),
            "remaining": spaces.Box(0, cap, (2,), np.int32),
        })
    return spaces.Dict({
        "balls": spaces.Box(np.zeros((n, 3), np.float32), hi.copy(), dtype=np.float32),
        "phase": spaces.Discrete(6),
        "to_play": spaces.Discrete(2),
        "scores": spaces.Box(-1000.0, 1000.0, (2,), np.float32),
        "legal_ball": spaces.MultiBinary(n),
        "legal_cue_ball": spaces.MultiBinary(n),
        "legal_choice": spaces.MultiBinary(n),
        "owner": spaces.Box(-1, 1, (n,), np.int8),
        "debt": spaces.Box(0, cap, (2,), np.int32),
        "foul_run": spaces.Box(0, cap, (), np.int32),
        "sudden_death": spaces.Discrete(2),
    })


ACTION_KEYS = frozenset(("shot", "place", *INT_FIELDS))
FLOAT_FIELDS = (("shot", (5,)), ("place", (2,)))

# ----------------------------------------------------------------------------- command
# What the host sends a compiled step: one float64 array (B, COMMAND_WIDTH), a row per
# table, instead of nine arrays (each argument of a compiled call costs microseconds on
# its own). Columns: the action (shot 0..4, place 5..6, cue_ball, ball, pocket, choice
# 7..10; every integer field holds a small integer, exact in float64) and the lane's
# controls of :func:`cuegym.envs.functional.batched`'s step: ``done`` (reset the lane instead),
# ``active`` (step it), ``opponent`` (the code of a built-in policy playing it, 0 none).
ACTION_WIDTH = 11
COMMAND_WIDTH = 14
DONE, ACTIVE, OPPONENT = 11, 12, 13
AGENT_LANE = (0.0, 1.0, 0.0)  # done, active, opponent: the agent's decision on a lane that is not done


def pack_action(action, batch: int | None = None, n_balls: int | None = None,
                width: int = ACTION_WIDTH) -> np.ndarray:
    """A Dict action as the first :data:`ACTION_WIDTH` columns of a new float64 array
    lead + (``width``,) (lead () or (batch,); the other columns are left for the caller);
    a missing field reads as zeros. Raises ValueError naming the field for a non-dict, an
    unknown key, a wrong shape, NaN or inf, a non-integer value of an integer field and an
    integer field outside its range (``n_balls`` given for the ball indices; pockets 0..5)."""
    if not isinstance(action, dict):
        raise ValueError("action: a dict with keys shot, place, cue_ball, ball, pocket, choice; "
                         f"got {type(action).__name__}")
    if not ACTION_KEYS.issuperset(action):
        raise ValueError(f"action: unknown keys {sorted(set(action) - ACTION_KEYS)}; "
                         "allowed: shot, place, cue_ball, ball, pocket, choice")
    lead = () if batch is None else (batch,)
    out = np.empty(lead + (width,))
    at = 0
    for key, shape in FLOAT_FIELDS:
        cols = slice(at, at + shape[0])
        at = cols.stop
        if key not in action:
            out[..., cols] = 0.0
            continue
        x = np.asarray(action[key], np.float64)
        if x.shape != lead + shape:
            raise ValueError(f"action.{key}: shape {x.shape}, expected {lead + shape}")
        # one reduction in the common case: a finite sum means finite values (a sum can
        # also overflow, so the exact test decides when it is not finite)
        if not math.isfinite(x.sum()) and not np.isfinite(x).all():
            raise ValueError(f"action.{key}: NaN or inf in {x.tolist()}")
        out[..., cols] = x
    for col, key in enumerate(INT_FIELDS, at):
        hi = len(POCKETS) if key == "pocket" else n_balls
        x = action.get(key, 0) if batch is None else action[key] if key in action else np.zeros(lead, np.int64)
        if batch is None and hi is not None and isinstance(x, (int, np.integer)):
            # the common single-env case (a Discrete sample is an np.int64): plain Python
            # comparisons instead of four NumPy calls
            x = int(x)
            if not 0 <= x < hi:
                raise ValueError(f"action.{key}: {x} outside 0..{hi - 1}")
            out[col] = x
            continue
        x = np.asarray(x)
        if x.shape != lead:
            raise ValueError(f"action.{key}: shape {x.shape}, expected {lead}")
        if not (x.dtype.kind in "iub" or np.all(np.mod(x, 1) == 0)):  # booleans read as 0 / 1, as before
            raise ValueError(f"action.{key}: integers expected, got {x.tolist()}")
        if hi is not None and np.any((x < 0) | (x >= hi)):
            raise ValueError(f"action.{key}: {x.tolist()} outside 0..{hi - 1}")
        out[..., col] = x.astype(np.int32)  # as the program reads it (int32), exact in float64
    return out


def agent_command(action, n_balls: int) -> np.ndarray:
    """The single env's command (1, :data:`COMMAND_WIDTH`): ``action``, checked as
    :func:`pack_action` does (the same errors), on a lane the agent steps
    (:data:`AGENT_LANE`)."""
    command, check = deferred_agent_command(action, n_balls)
    if check is not None:
        check()
    return command


def deferred_agent_command(action, n_balls: int) -> tuple[np.ndarray, object]:
    """:func:`agent_command` with the check of a usual action's values left to the caller:
    returns (command, check), ``check`` None when the action is already checked, else a
    function that raises :func:`pack_action`'s ValueError for a value out of its range
    (NaN or inf, an integer field outside its range). The single env sends the command
    first and checks while the compiled step runs: the check then costs no wall time, and
    a failed one puts the previous rows back before raising, so the state is as before."""
    row = _usual_row(action, n_balls)
    if row is None:
        out = pack_action(action, None, n_balls, COMMAND_WIDTH)
        out[ACTION_WIDTH:] = AGENT_LANE
        return out[None], None

    def check():
        if not _usual_values(row, n_balls):
            pack_action(action, None, n_balls, COMMAND_WIDTH)  # raises, naming the field

    return np.array([row], np.float64), check


def _usual_row(action, n_balls: int) -> list | None:
    """The command row of an action in the usual form (every key; ``shot`` and ``place``
    float arrays of their shapes; the integer fields ints or NumPy integers) as Python
    numbers, its values not checked (:func:`_usual_values`): two ``tolist`` and plain
    tests, where the general path makes a dozen NumPy calls (each costs microseconds,
    several times more right after a compiled step has run). None for any other action:
    the general path packs it or raises its error."""
    if type(action) is not dict or len(action) != len(ACTION_KEYS):
        return None
    shot, place = action.get("shot"), action.get("place")
    if not (type(shot) is np.ndarray and shot.shape == (5,) and shot.dtype.kind == "f"
            and type(place) is np.ndarray and place.shape == (2,) and place.dtype.kind == "f"):
        return None
    row = shot.tolist() + place.tolist()  # exact: every float dtype converts to a Python float exactly
    for key in INT_FIELDS:
        x = action.get(key)
        if not isinstance(x, (int, np.integer)):
            return None
        row.append(int(x))  # then Python comparisons, not NumPy scalar ones
    row.extend(AGENT_LANE)
    return row


def _usual_values(row: list, n_balls: int) -> bool:
    """Whether a :func:`_usual_row` holds valid values: finite floats (a sum overflowing
    reads as not: the general path then decides) and each integer field in its range."""
    if not math.isfinite(sum(row[:ACTION_WIDTH - len(INT_FIELDS)])):
        return False
    his = (n_balls, n_balls, len(POCKETS), n_balls)  # INT_FIELDS: cue_ball, ball, pocket, choice
    return all(0 <= x < hi for x, hi in zip(row[ACTION_WIDTH - len(INT_FIELDS):ACTION_WIDTH], his))


def action_fields(columns):
    """The action in ``columns`` (lead + (>= ACTION_WIDTH,), NumPy or traced) as the dict
    :func:`cuegym.envs.functional.step` takes: ``shot`` (lead + (5,)) and ``place`` (lead +
    (2,)) float64, the integer fields (lead) int32."""
    xp = np if isinstance(columns, np.ndarray) else jnp
    ints = {key: columns[..., col].astype(xp.int32) for col, key in enumerate(INT_FIELDS, 7)}
    return {"shot": columns[..., 0:5], "place": columns[..., 5:7], **ints}


def check_action(action, batch: int | None = None, n_balls: int | None = None, one: bool = False) -> dict:
    """:func:`pack_action` as a dict of arrays (:func:`action_fields`): lead () or
    (batch,), or (1,) for a single action with ``one`` (a batch of one, as the program
    takes it). Raises ValueError as :func:`pack_action`."""
    cols = pack_action(action, batch, n_balls)
    return action_fields(cols[None] if one and batch is None else cols)


# ----------------------------------------------------------------------------- host record
# What the fronts read after a compiled call (the observation, the rewards, the flags of the
# decision) is gathered by the program into one int32 array, the "record" (B, K) of a batch
# of B tables. Each NumPy operation on the host costs a few microseconds, more right after
# the program has run (its data has left the caches); reading the 26 observation and state
# arrays one by one (``jax.device_get``, then a NumPy scalar per info field) cost as much as
# the compiled step of a small table, and a lag env spent about 40 % of its step outside
# the program. The record is one transfer, and the single env decodes it with one
# ``tolist`` for the integers and one copy per dtype (:func:`_decode`).
#
# Columns (``record_layout`` for N balls and P players: 2, golf 6), every value exact:
# ``rewards`` the rewards (P,) float64 as 2P int32 words (bit patterns; first, so each row
# stays 8-byte aligned), ``ints`` the RECORD_FLAGS (as 0 / 1), RECORD_SCALARS and
# RECORD_PER_PLAYER (P wide each), ``floats`` the observation's balls (N, 3) and scores
# (P,) as float32 bit patterns,
# ``masks`` the observation's MASKS (4 x N int8, four to a word), and a zero column when K
# would be odd. With P = 2 this is the layout the record had before golf, byte for byte.
# The clause mask and the potted mask (``EnvState.potted``: the balls the decision pocketed
# that count for the striker, the referee's ``Ruling.counted``) are read from the packed
# state that follows the record in the same row (:func:`flat_program`,
# :meth:`_Tables.agent_decision`): both are bool leaves, one byte a ball or clause, so the
# host finds the set bytes with ``bytes.find`` and the record itself needs no column.

RECORD_FLAGS = ("terminated", "truncated", "foul", "clipped", "projected", "truncated_shot", "cue_replaced")  # bool
RECORD_SCALARS = ("to_play", "phase", "winner", "acted", "lag_winner", "foul_run", "sudden_death")  # int32
RECORD_PER_PLAYER = ("scores", "debt")  # int32, P wide
RECORD_BOOLS = frozenset(RECORD_FLAGS)
MASKS = ("legal_ball", "legal_cue_ball", "legal_choice", "owner")
SLOTS = {"snooker": {"owner": "ball_on", "foul_run": "free_ball", "sudden_death": "breaking", "debt": "remaining"},
         "golf": {"owner": None, "foul_run": "opening", "sudden_death": "num_players", "debt": "target_pocket"}}
"""The record's columns are named for the Russian games' observation; a game family with
other observation keys of the same shapes and dtypes stores them in those columns: family
-> {column: observation key}; None leaves the column zero (golf has no per-ball owner)."""
SLOT_COLUMNS = ("owner", "foul_run", "sudden_death", "debt")


def _slots(keys) -> dict:
    """Column -> observation key (or None) for an observation with ``keys`` (a space's or a
    dict's): the family is told by a key of its own."""
    table = SLOTS["snooker"] if "ball_on" in keys else SLOTS["golf"] if "target_pocket" in keys else {}
    return {k: table.get(k, k) for k in SLOT_COLUMNS}


@functools.lru_cache(maxsize=None)
def record_layout(n_balls: int, players: int = 2) -> dict:
    """The record's column blocks for N balls and P players (the rewards' length):
    ``rewards``, ``ints``, ``floats``, ``masks`` -> slice, ``cols`` -> {ints field name ->
    column within the ints block: an int, or a slice for a per-player field}, ``width`` -> K."""
    cols, at = {}, 0
    for name in RECORD_FLAGS + RECORD_SCALARS:
        cols[name], at = at, at + 1
    for name in RECORD_PER_PLAYER:
        cols[name], at = slice(at, at + players), at + players
    rewards = slice(0, 2 * players)  # float64 as two words each
    ints = slice(rewards.stop, rewards.stop + at)
    floats = slice(ints.stop, ints.stop + 3 * n_balls + players)
    masks = slice(floats.stop, floats.stop + n_balls)  # 4 x N int8, four to a word
    return {"rewards": rewards, "ints": ints, "cols": cols, "floats": floats, "masks": masks,
            "width": masks.stop + masks.stop % 2}


def _space_layout(space: spaces.Dict) -> dict:
    """:func:`record_layout` of an env with observation space ``space``."""
    return record_layout(space["balls"].shape[0], space["scores"].shape[0])


def _game_scores(g):
    """(P,) int32 the referee's scores: points or balls won, golf's strokes."""
    return g.strokes if isinstance(g, gf.GolfState) else g.scores


def _record(state: F.EnvState, obs: dict) -> jnp.ndarray:
    """(traced) The record (B, K) int32 of a batch from its state and observation.

    Built from a few blocks, each of one dtype stacked, then cast or bit-cast once: XLA:CPU
    runs a cast feeding a many-operand concatenate as a kernel of its own, and thirty such
    kernels cost more than the host reads they replace. The clauses (C,) stay out (their
    cast to int32 cost a small table's reset 40 us): the single env reads them from the
    state, the vector env not at all."""
    g = state.game
    b, n = obs["balls"].shape[:2]
    players = state.rewards.shape[1]
    zero = {"owner": jnp.zeros((b, n), jnp.int8)}  # the only column a family leaves empty so far
    obs = {**obs, **{col: obs[key] if key is not None else zero[col] for col, key in _slots(obs).items()}}
    scores = _game_scores(g)
    src = {"terminated": state.terminated, "truncated": state.truncated, "foul": state.foul,
           "clipped": state.clipped, "projected": state.projected, "truncated_shot": state.truncated_shot,
           "cue_replaced": state.cue_replaced, "to_play": obs["to_play"], "phase": obs["phase"], "winner": g.winner,
           "acted": state.acted, "lag_winner": state.lag_winner, "foul_run": obs["foul_run"],
           "sudden_death": obs["sudden_death"], "scores": scores, "debt": obs["debt"]}
    checks = [(k, src[k], jnp.bool_) for k in RECORD_FLAGS]
    checks += [(k, src[k], jnp.int32) for k in RECORD_SCALARS + RECORD_PER_PLAYER]
    checks += [("rewards", state.rewards, jnp.float64), ("observation balls", obs["balls"], jnp.float32),
               ("observation scores", obs["scores"], jnp.float32)]
    checks += [(k, obs[k], jnp.int8) for k in MASKS]
    for name, x, dtype in checks:  # checked while tracing: each block holds its values exactly
        if x.dtype != dtype:
            raise TypeError(f"host record: {name} is {x.dtype}, expected {jnp.dtype(dtype)}")
    for name in ("scores", "debt", "observation scores"):
        x = src[name] if name in src else obs["scores"]
        if x.shape != (b, players):
            raise TypeError(f"host record: {name} has shape {x.shape[1:]}, expected ({players},) like the rewards")
    bits = functools.partial(jax.lax.bitcast_convert_type, new_dtype=jnp.int32)  # float64 -> 2 words, 4 int8 -> 1
    blocks = [
        bits(state.rewards).reshape(b, 2 * players),
        jnp.stack([src[k] for k in RECORD_FLAGS], 1).astype(jnp.int32),
        jnp.stack([src[k] for k in RECORD_SCALARS], 1),
        scores,
        obs["debt"],
        bits(jnp.concatenate([obs["balls"].reshape(b, 3 * n), obs["scores"]], 1)),
        bits(jnp.stack([obs[k] for k in MASKS], 1).reshape(b, n, 4)),
    ]
    pad = record_layout(n, players)["width"] - sum(x.shape[1] for x in blocks)
    if pad:
        blocks.append(jnp.zeros((b, pad), jnp.int32))
    return jnp.concatenate(blocks, 1)


class FlatProgram(NamedTuple):
    """The compiled calls of the host fronts for one (task, table); see :func:`flat_program`."""

    reset: object
    step: object
    packing: Packing  # one table's (state, key)
    options: Packing  # the options (:class:`cuegym.envs.functional.Options`)
    record_width: int  # K: the record's columns, the packed tables' first


@functools.lru_cache(maxsize=None)
def flat_program(task: str, table: str) -> FlatProgram:
    """:func:`cuegym.envs.functional.batched` behind packed arguments and results, the calls
    the fronts make: ``reset(rows, opts) -> rows`` and ``step(rows, command, opts) ->
    rows``. ``rows`` (B, K + W) int32 is the batch: row i is table i's record (K columns,
    :func:`_record`: what the host reads after a call) followed by its state and key
    packed by ``packing`` (W words, :class:`cuegym.envs.packing.Packing`); a reset reads only
    the keys. ``opts`` is the options packed by ``options``; ``command`` (B,
    :data:`COMMAND_WIDTH`) float64 the actions and each lane's done, active, opponent.
    Each is one compiled call: the functional program unchanged, with the packing's bit
    casts and the record's around it. Three arguments and one result a step, instead of
    about a hundred leaves in and out: each costs the host microseconds to pass, wrap and
    free (module :mod:`cuegym.envs.packing`), and the host reads the record and the agent's
    clauses from the one array."""
    func = F.FuncEnv(task=task, table=table)
    inner = F.batched(func)
    opts = F.options(func)
    key = jax.eval_shape(lambda: jax.random.PRNGKey(0))
    state = jax.eval_shape(inner.reset, jax.ShapeDtypeStruct((1,) + key.shape, key.dtype), opts)[0]
    per_table = jax.tree_util.tree_map(lambda x: jax.ShapeDtypeStruct(x.shape[1:], x.dtype), state)
    packing, options = Packing((per_table, key)), Packing(opts)
    k = record_layout(func.n_balls, func.players)["width"]

    def rows_of(state, obs, keys):
        return jnp.concatenate([_record(state, obs), packing.pack((state, keys), jnp)], 1)

    @jax.jit
    def reset(rows, opts):
        _, keys = packing.unpack(rows[:, k:])
        state, obs, keys = inner.reset(keys, options.unpack(opts))
        return rows_of(state, obs, keys)

    @jax.jit
    def step(rows, command, opts):
        state, keys = packing.unpack(rows[:, k:])
        done, active = command[:, DONE] != 0, command[:, ACTIVE] != 0
        opponent = command[:, OPPONENT].astype(jnp.int32)
        state, obs, keys = inner.step(state, action_fields(command), keys, done, active, opponent,
                                      options.unpack(opts))
        return rows_of(state, obs, keys)

    return FlatProgram(reset, step, packing, options, k)


@functools.lru_cache(maxsize=None)
def host_program(task: str, table: str) -> F.Program:
    """The calls of :func:`flat_program` on trees, for code holding a state of its own (a
    test loading a position): ``reset(keys, opts) -> (state, record, keys)`` and
    ``step(state, action, keys, done, active, opponent, opts) -> (state, record, keys)``
    with the arguments of :func:`cuegym.envs.functional.batched` (``action`` a dict as
    :func:`check_action` gives), the observation replaced by the record (B, K), all
    returned as NumPy arrays. It packs and unpacks on the host around the same compiled
    calls (no program of its own): for the rare call, not a training loop."""
    flat = flat_program(task, table)
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


def _field(rec: np.ndarray, name: str, lay: dict) -> np.ndarray:
    """Field ``name`` of every table of a record (B, K) of layout ``lay``
    (:func:`record_layout`), (B, ...) in the state's dtype: ``rewards`` (B, P) float64, a
    flag bool, any other ints field int32."""
    if name == "rewards":
        return np.ascontiguousarray(rec[:, lay["rewards"]]).view(np.float64)
    col = rec[:, lay["ints"]][:, lay["cols"][name]]
    return col != 0 if name in RECORD_BOOLS else col


def _numpy_obs(rec: np.ndarray, space: spaces.Dict, index=None) -> dict:
    """The observation in a record (B, K) as fresh, writable NumPy arrays in the space's
    dtypes: table ``index`` of the batch (a single env's observation; a Discrete entry
    reads as an np.int64), or the whole batch when ``index`` is None."""
    if index is not None:
        return _decode(rec[index], space)[1]
    n = space["balls"].shape[0]
    lay = _space_layout(space)
    ints = rec[:, lay["ints"]]
    floats = rec[:, lay["floats"]].view(np.float32)
    masks = np.ascontiguousarray(rec[:, lay["masks"]]).view(np.int8).reshape(-1, 4, n)
    parts = {"balls": floats[:, :3 * n].reshape(-1, n, 3), "scores": floats[:, 3 * n:],
             **{k: ints[:, lay["cols"][k]] for k in ("phase", "to_play", "debt", "foul_run", "sudden_death")},
             **{k: masks[:, i] for i, k in enumerate(MASKS)}}
    parts.update({key: parts[col] for col, key in _slots(space.spaces).items() if key is not None})
    return {k: np.array(parts[k], sub.dtype) for k, sub in space.spaces.items()}  # copies, C-contiguous


class _RowDecoder:
    """Decodes one table's row (the record first: :func:`record_layout`) given as a fresh
    ``bytearray`` (:func:`_host_row`) into its ints block as Python ints (one
    ``struct`` unpack, for ``info``), its observation and its rewards: each array entry is
    an ``np.ndarray`` view of that bytearray in the space's dtype (writable, aligned and
    C-contiguous; no two overlap, and a new bytearray per call means no two calls share
    memory), each Discrete entry an np.int64. Where each entry lies is worked out once,
    here: a decode is then one unpack and a view per entry, where a NumPy view of the
    device buffer, a copy, a ``tolist`` and the slices cost the single env's step twice as
    much host time (microseconds that count: a lag stroke's compiled step is under a
    millisecond)."""

    def __init__(self, space: spaces.Dict):
        n = space["balls"].shape[0]
        lay = _space_layout(space)
        i0, f0, m0 = lay["ints"].start, lay["floats"].start, lay["masks"].start
        players = space["scores"].shape[0]
        self.width = lay["width"]
        self.ints = struct.Struct(f"<{lay['ints'].stop - i0}i")  # the ints block, little-endian int32
        self.ints_at = 4 * i0  # its first byte
        self.players = players
        cols = lay["cols"]
        self.scores_at = 4 * (i0 + cols["scores"].start)
        column_of = {key: col for col, key in _slots(space.spaces).items() if key is not None}
        # (key, dtype or None for a Discrete, first byte (Discrete: column in the ints block),
        #  shape, dtype to cast to or None)
        self.plan = []
        for key, sub in space.spaces.items():
            col = column_of.get(key, key)
            if isinstance(sub, spaces.Discrete):
                self.plan.append((key, None, cols[col], None, None))
                continue
            if col == "balls":
                view, first, shape = np.float32, 4 * f0, (n, 3)
            elif col == "scores":
                view, first, shape = np.float32, 4 * (f0 + 3 * n), (players,)
            elif col in MASKS:  # 4 x N int8 from the masks block's first byte
                view, first, shape = np.int8, 4 * m0 + MASKS.index(col) * n, (n,)
            else:  # an int32 column of the ints block (a per-player field: a slice)
                c = cols[col]
                view, first, shape = (np.int32, 4 * (i0 + c.start), (c.stop - c.start,)) if isinstance(c, slice) \
                    else (np.int32, 4 * (i0 + c), ())
            cast = None if np.dtype(sub.dtype) == np.dtype(view) else sub.dtype
            self.plan.append((key, np.dtype(view), first, shape, cast))

    def ints_of(self, row: bytes | bytearray) -> tuple:
        """The ints block of ``row`` as Python ints."""
        return self.ints.unpack_from(row, self.ints_at)

    def scores(self, row: bytearray) -> np.ndarray:
        """The scores (P,) int32 of the ints block: a view of ``row`` that no observation
        entry overlaps (the observation's scores are the float32 copy)."""
        return np.ndarray((self.players,), np.int32, row, self.scores_at)

    def __call__(self, row: bytearray) -> tuple[tuple, dict, np.ndarray]:
        """(ints block as Python ints, observation, rewards (P,) float64: a view of the
        same bytearray, apart from the observation's)."""
        vals = self.ints.unpack_from(row, self.ints_at)
        obs = {}
        for key, dtype, first, shape, cast in self.plan:
            if dtype is None:
                obs[key] = np.int64(vals[first])
                continue
            x = np.ndarray(shape, dtype, row, first)  # a view of the bytearray
            obs[key] = x if cast is None else x.astype(cast)
        return vals, obs, np.ndarray((self.players,), np.float64, row, 0)  # the rewards lead the record


def _host_row(rows) -> bytearray:
    """A single env's rows (1, K + W) (a device array, or NumPy) as a new bytearray: on the
    CPU backend one copy out of the buffer the program wrote (the buffer protocol waits for
    the result); elsewhere the transfer to the host, then that copy."""
    try:
        return bytearray(memoryview(rows))
    except (BufferError, TypeError, ValueError, RuntimeError):  # an accelerator's buffer has no host view
        return bytearray(np.ascontiguousarray(rows))


def _decode(row: np.ndarray, space: spaces.Dict) -> tuple[tuple, dict]:
    """:class:`_RowDecoder` of ``space`` applied to one record row (K,) or wider, NumPy
    int32 (a one-off: the envs keep theirs)."""
    return _RowDecoder(space)(bytearray(np.ascontiguousarray(row, np.int32)))[:2]


def _opponent_code(opponent) -> int:
    if opponent is None or callable(opponent):
        return 0
    if opponent in F.OPPONENT_CODES:
        return F.OPPONENT_CODES[opponent]
    raise ValueError(f"opponent: None, \"random\", \"ghost\" or a callable f(obs) -> action; got {opponent!r}")


class _Tables:
    """The batch of B tables behind both envs: its rows on the device (``rows``, (B, K +
    W): each table's record and packed state, :func:`flat_program`) and the opponent
    loop. ``obs`` is the rows of the last compiled call on the host (a read-only view on
    the CPU backend, made when first read): the record columns come first, so the record's
    readers (:func:`_field`, :func:`_numpy_obs`) take it as it is; the single env reads a
    bytes copy of its one row instead (:func:`_host_row`). ``state`` and ``keys`` read
    (and assign) the packed state as trees, for the rare reader (rendering, replays,
    tests): the step loop never unpacks it."""

    def __init__(self, func: F.FuncEnv, num: int, opponent, single: bool):
        self.func = func
        self.num = num
        self.single = single
        self.opponent = opponent
        self.code = _opponent_code(opponent)
        self.flat = flat_program(func.task, func.table)
        self.program = host_program(func.task, func.table)  # the same calls on trees (tests load positions)
        self.opts = jax.device_put(F.options(func))  # as a tree, for self.program
        self.flat_opts = jax.device_put(self.flat.options.pack(F.options(func)))  # on the device once
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
        self.rows = jax.device_put(np.concatenate([record, self.flat.packing.pack((state, keys))], 1))

    # the compiled calls

    def seed(self, seed: int):
        self.keys = jax.vmap(jax.random.PRNGKey)(np.arange(self.num) + seed)

    def _fetch(self, rows):
        """Keep ``rows``, the result of a compiled call (its host view ``obs`` is made when
        read), and return them."""
        self.rows = rows
        self._host = None
        return rows

    def reset(self):
        self._fetch(self.flat.reset(self.rows, self.flat_opts))
        self.dealt = True
        self.done = self._no_lanes
        if self.opponent is None:
            return None  # no opponent strokes
        self.pending = np.zeros((self.num, self.func.players))
        opening = np.ones(self.num, bool)
        rec = self.obs
        ended = _field(rec, "terminated", self.lay) | _field(rec, "truncated", self.lay)
        none = np.zeros((self.num, self.func.players))
        _, count = self._opponent_loop(opening, ended, _field(rec, "to_play", self.lay), none)
        return count

    def step(self, command: np.ndarray, check=None):
        """The agent's decision on every lane (done lanes reset instead), then the
        opponent's: ``command`` (B, COMMAND_WIDTH) the actions (:func:`pack_action`) with
        the lane columns set (done = ``self.done``, active, no opponent; a new array, not
        written after); ``check`` (or None) the deferred check of the actions' values
        (:func:`deferred_agent_command`), run after the agent's call is sent and before
        anything reads its result: if it raises, the rows are put back and the error
        raised. Returns (per-player rewards (B, P) of the step, the rows after
        the agent's decision on the host, opponent strokes (B,)); (None, None, None) for a
        single env without opponent, whose step is the agent's alone (its rows are
        ``self.rows``, the rewards theirs): it never has a done lane, the single env resets
        through :meth:`reset`. The device rows after the agent's decision are kept as
        ``agent_out`` either way."""
        done = self.done
        before = self.rows, self.agent_out
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
        total = np.where(done[:, None], 0.0, _field(agent, "rewards", self.lay))
        count = np.zeros(self.num, np.int64)
        if self.opponent is not None:
            total = total + np.where(done[:, None], 0.0, self.pending)
            # paid now (a lane resetting starts a new frame at 0)
            self.pending = np.zeros((self.num, self.func.players))
            ended = (_field(agent, "terminated", self.lay) | _field(agent, "truncated", self.lay)) & ~done
            total, count = self._opponent_loop(done.copy(), ended, _field(agent, "to_play", self.lay), total)
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
            term, trunc = _field(rec, "terminated", self.lay), _field(rec, "truncated", self.lay)
            to_play = _field(rec, "to_play", self.lay)
            played = need & ~redo
            r = np.where(played[:, None], _field(rec, "rewards", self.lay), 0.0)
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
                return pack_action(self.opponent(_numpy_obs(self.obs, self.obs_space, 0)), None, n, COMMAND_WIDTH)[None]
            return pack_action(self.opponent(_numpy_obs(self.obs, self.obs_space)), self.num, n, COMMAND_WIDTH)
        return np.zeros((self.num, COMMAND_WIDTH))


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


_COL = record_layout(1)["cols"]  # the flags' and scalars' columns: the same for every N and P


def _step_info(mine: tuple, decision: tuple[list, tuple], vals: tuple, scores: np.ndarray, opponent_strokes: int,
               rewards: np.ndarray) -> dict:
    """A step's ``info``, one dict: the agent's decision from ``mine`` (the ints block, as
    Python ints, of its record row) and ``decision`` (the ids of its clauses and the balls
    it potted, :meth:`_Tables.agent_decision`); the frame after it from ``vals`` (the same
    for the frame's row) and ``scores`` (P,) int32; the opponents' strokes; ``rewards`` (P,)."""
    c = _COL
    return {
        "acted": mine[c["acted"]], "foul": bool(mine[c["foul"]]), "clipped": bool(mine[c["clipped"]]),
        "projected": bool(mine[c["projected"]]), "truncated_shot": bool(mine[c["truncated_shot"]]),
        "cue_replaced": bool(mine[c["cue_replaced"]]), "clauses": decision[0], "potted": decision[1],
        "lag_winner": mine[c["lag_winner"]], **_frame_info(vals, scores), "opponent_strokes": opponent_strokes,
        "rewards": rewards,
    }


def _frame_info(vals: tuple, scores: np.ndarray) -> dict:
    """The frame in the ints block ``vals`` (Python ints) of a record row, with its
    ``scores`` (P,) int32: the ``info`` keys of a reset, and of a step after the decision's."""
    c = _COL
    return {"to_play": vals[c["to_play"]], "scores": scores, "phase": PHASE_NAMES[vals[c["phase"]]],
            "winner": vals[c["winner"]]}


class CueEnv(gym.Env):
    """A cue-sports table as a Gymnasium env (see :mod:`cuegym.envs.functional` for the tasks and
    docs/envs.md for the spaces).

    Options: ``table``, ``noise`` (multiple of the tournament sigmas, default 1.0),
    ``max_shots`` (truncation), ``reward_scale``, ``lag_break``, the pot-shot ranges
    ``distance`` [m] and ``cut`` [degrees], ``num_players`` (golf: 2..6, default 2),
    ``opponent`` (module docstring) and
    ``render_mode``: ``"rgb_array"`` — :meth:`render` returns the current layout with the
    last stroke's ball paths (re-simulated from the stroke as played, after noise) as an
    (H, 480, 3) uint8 image, head cushion at the bottom (:func:`cuegym.envs.render.draw_table`);
    ``"human"`` — the same image in a window, updated after every reset and step (needs a
    display and matplotlib). ``info``: ``to_play``, ``acted``, ``rewards`` (P,) per player
    (P = 2; golf 6), ``scores`` (P,), ``phase``, ``winner``, ``foul``, ``clipped``, ``projected``,
    ``truncated_shot``, ``cue_replaced``, ``clauses`` (catalogue ids applied to the agent's
    decision), ``potted`` (the balls the agent's decision pocketed that count for the
    striker: a tuple of ints, ascending), ``lag_winner``, ``opponent_strokes``.
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 2}

    def __init__(self, task: str = "russian-pyramid", render_mode: str | None = None, opponent=None, **options):
        if render_mode is not None and render_mode not in RENDER_MODES:
            extra = "" if "human" in RENDER_MODES else " ('human' needs a display: none here)"
            raise ValueError(f"render_mode: None or one of {RENDER_MODES}{extra}; got {render_mode!r}")
        self.func = F.FuncEnv(task=task, **options)
        get_table(self.func.table)  # compile the table outside any trace
        self.action_space = action_space(self.func)
        self.observation_space = observation_space(self.func)
        self.render_mode = render_mode
        self._tables = _Tables(self.func, 1, opponent, single=True)
        self._decode = _RowDecoder(self.observation_space)
        self._viewer = None
        self._picture = (None, None)  # (state drawn, image): render() twice draws once

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        t = self._tables
        if seed is not None or t.rows is None:
            t.seed(seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1)))
        count = t.reset()
        row = _host_row(t.rows)
        vals, obs, _ = self._decode(row)
        info = {**_frame_info(vals, self._decode.scores(row)),
                "opponent_strokes": 0 if count is None else int(count[0])}
        if self.render_mode == "human":
            self.render()
        return obs, info

    def step(self, action):
        t = self._tables
        if not t.dealt:
            raise RuntimeError("call reset() before step()")
        total, _, count = t.step(*deferred_agent_command(action, self.func.n_balls))
        row = _host_row(t.rows)  # the frame after the opponents' decisions, if any
        vals, obs, rewards = self._decode(row)
        mine, mine_vals = row, vals  # the agent's decision: without opponents, the frame's row
        if total is not None:  # opponents played after the agent: its decision is in the rows it left
            rewards = total[0].copy()
            mine = _host_row(t.agent_out)
            mine_vals = self._decode.ints_of(mine)
        info = _step_info(mine_vals, t.agent_decision(0, mine), vals, self._decode.scores(row),
                          0 if count is None else int(count[0]), rewards)
        player = 0 if t.opponent is not None else info["acted"]
        if self.render_mode == "human":
            self.render()
        return obs, float(rewards[player]), bool(vals[_COL["terminated"]]), bool(vals[_COL["truncated"]]), info

    def render(self):
        """The table now (``rgb_array``: returned; ``human``: shown); None without a mode."""
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: make the env with render_mode='rgb_array' or 'human'")
            return None
        state = self._tables.state
        if state is None:
            raise RuntimeError("call reset() before render()")
        if self._picture[0] is not state:
            self._picture = (state, self._draw(state))
        image = self._picture[1]
        if self.render_mode == "human":
            if self._viewer is None:
                self._viewer = R.Viewer(f"cuegym {self.func.task}")
            self._viewer.show(image)
            return None
        return image.copy()

    def _draw(self, state):
        xy, on, last_xy, last_on, shot, shots = (x[0] for x in jax.device_get(
            (state.xy, state.on, state.last_xy, state.last_on, state.last_shot, state.shots)))
        paths = None
        if shots > 0 and shot[2] > 0:  # a stroke was played (a removal strikes nothing)
            paths = R.stroke_paths(self.func.table, last_xy, last_on, shot)
        return R.draw_table(self.func.table, xy, on, paths, RENDER_WIDTH)

    def close(self):
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None
        super().close()


class CueVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` tables stepped in one jitted call, with next-step autoreset. Options and
    ``opponent`` as :class:`CueEnv` (a callable opponent takes and returns batches).
    ``info`` of a step: (B,) arrays ``to_play``, ``acted``, ``foul``, ``clipped``,
    ``projected``, ``opponent_strokes``, and ``potted`` (B, N) bool: row i the balls
    sub-env i's agent decision potted (:class:`CueEnv`'s tuple as a mask; none on a
    sub-env that reset instead)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, task: str = "russian-pyramid", num_envs: int = 1, render_mode: str | None = None, opponent=None,
                 **options):
        if render_mode is not None:
            raise ValueError(f"render_mode: the vector env does not render (None), got {render_mode!r}; "
                             "render a single env made with gymnasium.make")
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs: an integer >= 1, got {num_envs!r}")
        self.func = F.FuncEnv(task=task, **options)
        get_table(self.func.table)
        self.num_envs = num_envs
        self.single_action_space = action_space(self.func)
        self.single_observation_space = observation_space(self.func)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.render_mode = render_mode
        self._tables = _Tables(self.func, num_envs, opponent, single=False)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        t = self._tables
        if seed is not None or t.rows is None:
            t.seed(seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1)))
        count = t.reset()
        if count is None:  # no opponent
            count = np.zeros(self.num_envs, np.int64)
        return _numpy_obs(t.obs, self.single_observation_space), {"opponent_strokes": count}

    def step(self, actions):
        t = self._tables
        command = pack_action(actions, self.num_envs, self.func.n_balls, COMMAND_WIDTH)
        was_done = t.done
        command[:, DONE], command[:, ACTIVE], command[:, OPPONENT] = was_done, 1.0, 0.0
        total, agent, count = t.step(command)
        h = t.obs
        acted = _field(agent, "acted", t.lay)
        player = np.zeros(self.num_envs, np.int64) if t.opponent is not None else acted
        rewards = total[np.arange(self.num_envs), player].astype(np.float64)
        terminated = _field(h, "terminated", t.lay) & ~was_done
        truncated = _field(h, "truncated", t.lay) & ~was_done
        t.done = terminated | truncated
        info = {"to_play": _field(h, "to_play", t.lay), "acted": acted, "foul": _field(agent, "foul", t.lay),
                "clipped": _field(agent, "clipped", t.lay), "projected": _field(agent, "projected", t.lay),
                "potted": t.agent_potted, "opponent_strokes": count}
        return _numpy_obs(t.obs, self.single_observation_space), rewards, terminated, truncated, info
