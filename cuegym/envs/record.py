"""The host record: what the host reads of a batch after a compiled call, one int32 array.

The program gathers each table's observation, rewards and decision flags into one row of
``record_layout(N, P)["width"]`` words (:func:`record`), so a step is one transfer and the
single env decodes its row with one ``struct`` unpack and a view per entry
(:class:`RowDecoder`). Columns, every value exact: ``rewards`` (P,) float64 as 2P words
(first, so each row stays 8-byte aligned), ``ints`` the :data:`RECORD_FLAGS` (0 / 1),
:data:`RECORD_SCALARS` and :data:`RECORD_PER_PLAYER` (P wide each), ``floats`` the
observation's balls (N, 3) and scores (P,) as float32 bit patterns, ``masks`` the
observation's :data:`MASKS` (4 x N int8, four to a word), and a zero column when the width
would be odd. The clause and potted masks are not columns: the host reads them from the
packed state that follows the record in the same row (:class:`cuegym.envs.tables.HostTables`).
docs/envs.md, "Host transport", says why.
"""

from __future__ import annotations

import functools
import struct

import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces

from cuegym.envs import functional as F
from cuegym.envs.env_spaces import PHASE_NAMES
from cuegym.envs.registry import GAMES

RECORD_FLAGS = ("terminated", "truncated", "foul", "clipped", "projected", "truncated_shot", "cue_replaced")  # bool
RECORD_SCALARS = ("to_play", "phase", "winner", "acted", "lag_winner", "foul_run", "sudden_death")  # int32
RECORD_PER_PLAYER = ("scores", "debt")  # int32, P wide
RECORD_BOOLS = frozenset(RECORD_FLAGS)
MASKS = ("legal_ball", "legal_cue_ball", "legal_choice", "owner")
SLOTS = {"snooker": {"owner": "ball_on", "foul_run": "free_ball", "sudden_death": "breaking", "debt": "remaining"},
         "golf": {"owner": None, "foul_run": "opening", "sudden_death": "num_players", "debt": "target_pocket"}}
"""The record's columns are named for the Russian games' observation; a game family with
other observation keys of the same shapes and dtypes stores them in those columns: family
-> {column: observation key}; None leaves the column zero (golf has no per-ball owner). A
family not listed (drill, russian) stores each key in the column of its name."""
SLOT_COLUMNS = ("owner", "foul_run", "sudden_death", "debt")


def _slots(keys) -> dict:
    """Column -> observation key (or None) for an observation with ``keys`` (a space's or a
    dict's): the family is that of the registry's games whose ``obs_keys`` these are."""
    return _family_slots(frozenset(keys))


@functools.lru_cache(maxsize=None)
def _family_slots(keys: frozenset) -> dict:
    family = next((g.family for g in GAMES.values() if keys.issuperset(g.obs_keys)), None)
    if family is None:
        raise ValueError(f"host record: no game has the observation keys {sorted(keys)}")
    table = SLOTS.get(family, {})
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
    return g.scores


def record(state: F.EnvState, obs: dict) -> jnp.ndarray:
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


def field(rec: np.ndarray, name: str, lay: dict) -> np.ndarray:
    """Field ``name`` of every table of a record (B, K) of layout ``lay``
    (:func:`record_layout`), (B, ...) in the state's dtype: ``rewards`` (B, P) float64, a
    flag bool, any other ints field int32."""
    if name == "rewards":
        return np.ascontiguousarray(rec[:, lay["rewards"]]).view(np.float64)
    col = rec[:, lay["ints"]][:, lay["cols"][name]]
    return col != 0 if name in RECORD_BOOLS else col


def numpy_obs(rec: np.ndarray, space: spaces.Dict, index=None) -> dict:
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


class RowDecoder:
    """Decodes one table's row (the record first: :func:`record_layout`) given as a fresh
    ``bytearray`` (:func:`host_row`) into its ints block as Python ints (one
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


def host_row(rows) -> bytearray:
    """A single env's rows (1, K + W) (a device array, or NumPy) as a new bytearray: on the
    CPU backend one copy out of the buffer the program wrote (the buffer protocol waits for
    the result); elsewhere the transfer to the host, then that copy."""
    try:
        return bytearray(memoryview(rows))
    except (BufferError, TypeError, ValueError, RuntimeError):  # an accelerator's buffer has no host view
        return bytearray(np.ascontiguousarray(rows))


def _decode(row: np.ndarray, space: spaces.Dict) -> tuple[tuple, dict]:
    """:class:`RowDecoder` of ``space`` applied to one record row (K,) or wider, NumPy
    int32 (a one-off: the envs keep theirs)."""
    return RowDecoder(space)(bytearray(np.ascontiguousarray(row, np.int32)))[:2]


INT_COLS = record_layout(1)["cols"]  # the flags' and scalars' columns: the same for every N and P


def step_info(mine: tuple, decision: tuple[list, tuple], vals: tuple, scores: np.ndarray, opponent_strokes: int,
              rewards: np.ndarray) -> dict:
    """A step's ``info``, one dict: the agent's decision from ``mine`` (the ints block, as
    Python ints, of its record row) and ``decision`` (the ids of its clauses and the balls
    it potted, :meth:`cuegym.envs.tables.HostTables.agent_decision`); the frame after it
    from ``vals`` (the same for the frame's row) and ``scores`` (P,) int32; the opponents'
    strokes; ``rewards`` (P,)."""
    c = INT_COLS
    return {
        "acted": mine[c["acted"]], "foul": bool(mine[c["foul"]]), "clipped": bool(mine[c["clipped"]]),
        "projected": bool(mine[c["projected"]]), "truncated_shot": bool(mine[c["truncated_shot"]]),
        "cue_replaced": bool(mine[c["cue_replaced"]]), "clauses": decision[0], "potted": decision[1],
        "lag_winner": mine[c["lag_winner"]], **frame_info(vals, scores), "opponent_strokes": opponent_strokes,
        "rewards": rewards,
    }


def frame_info(vals: tuple, scores: np.ndarray) -> dict:
    """The frame in the ints block ``vals`` (Python ints) of a record row, with its
    ``scores`` (P,) int32: the ``info`` keys of a reset, and of a step after the decision's."""
    c = INT_COLS
    return {"to_play": vals[c["to_play"]], "scores": scores, "phase": PHASE_NAMES[vals[c["phase"]]],
            "winner": vals[c["winner"]]}
