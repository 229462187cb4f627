"""The command: what the host sends a compiled step, one float64 array (B, :data:`COMMAND_WIDTH`).

A row per table instead of nine arrays (each argument of a compiled call costs the host
microseconds on its own). Columns: the action (shot 0..4, place 5..6, cue_ball, ball,
pocket, choice 7..10; every integer field holds a small integer, exact in float64) and the
lane's controls of :func:`cuegym.envs.functional.batched`'s step: ``done`` (reset the lane
instead), ``active`` (step it), ``opponent`` (the code of a built-in policy playing it, 0
none). Bad actions raise ValueError naming the field (:func:`pack_action`).
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from cuegym.physics import POCKETS

INT_FIELDS = ("cue_ball", "ball", "pocket", "choice")
ACTION_KEYS = frozenset(("shot", "place", *INT_FIELDS))
FLOAT_FIELDS = (("shot", (5,)), ("place", (2,)))

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
        if not (x.dtype.kind in "iub" or np.all(np.mod(x, 1) == 0)):  # booleans read as 0 / 1
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


def action_columns(act: dict):
    """(lead + (ACTION_WIDTH,)) float64: the action dict ``act`` (as :func:`action_fields`
    returns it, traced or not) in the command's columns, its inverse."""
    xp = np if all(isinstance(v, np.ndarray) for v in act.values()) else jnp
    ints = [xp.asarray(act[key]).astype(xp.float64)[..., None] for key in INT_FIELDS]
    return xp.concatenate([xp.asarray(act["shot"], xp.float64), xp.asarray(act["place"], xp.float64), *ints], -1)


def check_action(action, batch: int | None = None, n_balls: int | None = None, one: bool = False) -> dict:
    """:func:`pack_action` as a dict of arrays (:func:`action_fields`): lead () or
    (batch,), or (1,) for a single action with ``one`` (a batch of one, as the program
    takes it). Raises ValueError as :func:`pack_action`."""
    cols = pack_action(action, batch, n_balls)
    return action_fields(cols[None] if one and batch is None else cols)
