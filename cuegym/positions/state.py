"""Referee state, declarations and rulings as JSON (position files, shot files, the CLI).

A position file's ``state`` holds the game's referee state by name; missing
fields take the game's start values::

    "state": {"to_play": 0, "phase": "normal", "scores": [2, 0], "debt": [0, 1],
              "owned": {"3": 0, "7": 0}, "foul_run": 0, "quiet": 0, "striker": 0, "strokes": 9}

``owned`` lists the pocketed balls credited to each player (Americanka, Moscow pyramid), in
the order they were credited (the latest is given back first for a foul, AMB-30); there a
score is the number of balls owned. Russian pyramid scores points and adds
``last_pocketed`` and ``sudden_death``. Bad values raise
:class:`~cuegym.positions.PositionError` naming the field and what is allowed; fields that
disagree are refused by :mod:`cuegym.positions.consistency`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from cuegym.physics import POCKETS
from cuegym.positions import PositionError, rounded
from cuegym.rules.base import INJECT_NAMES, PHASE_NAMES, PLAYERS, GameState, clause_ids, declare, new_state

STATE_FIELDS = ("to_play", "phase", "scores", "debt", "owned", "last_pocketed", "sudden_death", "foul_run",
                "quiet", "striker", "strokes", "winner")


class Prepared(NamedTuple):
    """A stroke checked against its position: what a family's ``judge_position`` needs."""

    game: object  # the referee module
    state: object  # the referee state (GameState, SnookerState, GolfState)
    decl: object  # Declaration
    balls: object  # BallState the stroke starts from (ball in hand placed)
    xy: np.ndarray  # (N, 2) [m]
    on: np.ndarray  # (N,) bool


def _player(value, field):
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < PLAYERS:
        raise PositionError(field, f"must be a player number 0 or 1, got {value!r}")
    return value


def _count(value, field, lo=0):
    if not isinstance(value, int) or isinstance(value, bool) or value < lo:
        raise PositionError(field, f"must be an integer >= {lo}, got {value!r}")
    return value


def _pair(value, field, lo=None):
    if not isinstance(value, (list, tuple)) or len(value) != PLAYERS:
        raise PositionError(field, f"must be a list of {PLAYERS} integers (one per player), got {value!r}")
    out = []
    for k, v in enumerate(value):
        if not isinstance(v, int) or isinstance(v, bool) or (lo is not None and v < lo):
            what = f"an integer >= {lo}" if lo is not None else "an integer"
            raise PositionError(f"{field}[{k}]", f"must be {what}, got {v!r}")
        out.append(v)
    return out


def state_from_dict(data, ids: tuple[str, ...], on_table) -> GameState:
    """A :class:`GameState` from a position's ``state`` (a dict or None). ``ids`` are the
    game's ball ids in array order, ``on_table`` (N,) bool the balls in the position."""
    n = len(ids)
    data = dict(data or {})
    for key in data:
        if key not in STATE_FIELDS:
            raise PositionError(f"state.{key}", f"unknown field; a referee state has: {', '.join(STATE_FIELDS)}")
    state = new_state(n, to_play=_player(data.get("to_play", 0), "state.to_play"))
    phase = data.get("phase", PHASE_NAMES[int(state.phase)])
    if phase not in PHASE_NAMES:
        raise PositionError("state.phase", f"unknown phase {phase!r}; one of {', '.join(PHASE_NAMES)}")
    owner = np.full(n, -1, np.int32)
    owned_at = np.full(n, -1, np.int32)
    owned = data.get("owned", {})
    if not isinstance(owned, Mapping):
        raise PositionError("state.owned", "must be an object {ball id: player}")
    for k, (ball, player) in enumerate(owned.items()):
        if ball not in ids:
            raise PositionError(f"state.owned.{ball}", f"unknown ball; one of {', '.join(ids)}")
        i = ids.index(ball)
        if on_table[i]:
            raise PositionError(f"state.owned.{ball}", "this ball is on the table, so it cannot be credited to a player")
        owner[i] = _player(player, f"state.owned.{ball}")
        owned_at[i] = k
    last = data.get("last_pocketed")
    if last is not None and last not in ids:
        raise PositionError("state.last_pocketed", f"unknown ball {last!r}; one of {', '.join(ids)} or null")
    winner = data.get("winner")
    if winner is not None:
        _player(winner, "state.winner")
    sudden = data.get("sudden_death", False)
    if not isinstance(sudden, bool):
        raise PositionError("state.sudden_death", f"must be true or false, got {sudden!r}")
    i32 = lambda x: jnp.asarray(x, jnp.int32)  # noqa: E731
    return state._replace(
        phase=i32(PHASE_NAMES.index(phase)),
        scores=i32(_pair(data.get("scores", [0, 0]), "state.scores")),
        debt=i32(_pair(data.get("debt", [0, 0]), "state.debt", lo=0)),
        owner=i32(owner),
        owned_at=i32(owned_at),
        credits=i32(len(owned)),
        last_pocketed=i32(ids.index(last) if last is not None else -1),
        sudden_death=jnp.asarray(sudden),
        foul_run=i32(_count(data.get("foul_run", 0), "state.foul_run")),
        quiet=i32(_count(data.get("quiet", 0), "state.quiet")),
        striker=i32(_player(data.get("striker", int(state.to_play)), "state.striker")),
        strokes=i32(_count(data.get("strokes", 0), "state.strokes")),
        winner=i32(-1 if winner is None else winner),
    )


def state_to_dict(state: GameState, ids: tuple[str, ...]) -> dict:
    """The inverse of :func:`state_from_dict` (plain JSON types)."""
    owner = np.asarray(state.owner)
    owned_at = np.asarray(state.owned_at)
    owned = {ids[i]: int(owner[i]) for i in sorted(np.nonzero(owner >= 0)[0], key=lambda i: owned_at[i])}
    last = int(state.last_pocketed)
    winner = int(state.winner)
    return {
        "to_play": int(state.to_play),
        "phase": PHASE_NAMES[int(state.phase)],
        "scores": [int(x) for x in np.asarray(state.scores)],
        "debt": [int(x) for x in np.asarray(state.debt)],
        "owned": owned,
        "last_pocketed": ids[last] if last >= 0 else None,
        "sudden_death": bool(state.sudden_death),
        "foul_run": int(state.foul_run),
        "quiet": int(state.quiet),
        "striker": int(state.striker),
        "strokes": int(state.strokes),
        "winner": winner if winner >= 0 else None,
    }


def declaration_from_shot(shot, ids: tuple[str, ...]):
    """The referee's :class:`Declaration` from a validated shot (``ShotSpec``)."""
    call = shot.call or {}
    ball = call.get("ball")
    pocket = call.get("pocket")
    inject = shot.inject or {}
    choice = shot.choice
    if choice is not None and choice not in ids:
        raise PositionError("shot.choice", f"unknown ball {choice!r}; one of {', '.join(ids)} or null")
    return declare(
        struck=ids.index(shot.cue_ball),
        call_ball=ids.index(ball) if ball is not None else -1,
        call_pocket=POCKETS.index(pocket) if pocket is not None else -1,
        choice=ids.index(choice) if choice is not None else -1,
        inject=inject.get("events", ()),
        inject_ball=ids.index(inject["ball"]) if inject.get("ball") is not None else -1,
        inject_pocket=POCKETS.index(inject["pocket"]) if inject.get("pocket") is not None else -1,
    )


def parse_inject(value, ids: tuple[str, ...]):
    """Validate a shot's ``inject`` field: ``{"events": [name, ...], "ball": id, "pocket":
    name}`` (HUMAN events injected by tooling, catalogue §0.8)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise PositionError("shot.inject", "must be an object {\"events\": [...], \"ball\": id, \"pocket\": name} or null")
    for key in value:
        if key not in ("events", "ball", "pocket"):
            raise PositionError(f"shot.inject.{key}", "unknown field; inject has: events, ball, pocket")
    events = value.get("events", [])
    if not isinstance(events, list):
        raise PositionError("shot.inject.events", f"must be a list of event names: {', '.join(INJECT_NAMES)}")
    for k, name in enumerate(events):
        if name not in INJECT_NAMES:
            raise PositionError(f"shot.inject.events[{k}]", f"unknown event {name!r}; one of {', '.join(INJECT_NAMES)}")
    ball = value.get("ball")
    if ball is not None and ball not in ids:
        raise PositionError("shot.inject.ball", f"unknown ball {ball!r}; one of {', '.join(ids)}")
    pocket = value.get("pocket")
    if pocket is not None and pocket not in POCKETS:
        raise PositionError("shot.inject.pocket", f"unknown pocket {pocket!r}; one of {', '.join(POCKETS)}")
    return dict(value)


def ruling_to_dict(ruling, ids: tuple[str, ...]) -> dict:
    """A ruling in the CLI's JSON form."""
    respotted = np.asarray(ruling.respotted)
    xy = np.asarray(ruling.xy)
    winner = int(ruling.winner)
    fouler = int(ruling.fouler)
    return {
        "foul": bool(ruling.foul),
        "fouler": fouler if fouler >= 0 else None,
        "clauses": clause_ids(ruling.clauses),
        "points": [int(x) for x in np.asarray(ruling.points)],
        "scores": [int(x) for x in np.asarray(ruling.scores)],
        "counted": [ids[i] for i in np.nonzero(np.asarray(ruling.counted))[0]],
        "respotted": {ids[i]: [rounded(xy[i, 0]), rounded(xy[i, 1])] for i in np.nonzero(respotted)[0]},
        "to_play": int(ruling.to_play),
        "phase": PHASE_NAMES[int(ruling.phase)],
        "replay": bool(ruling.replay),
        "warning": bool(ruling.warning),
        "frame_over": bool(ruling.frame_over),
        "winner": winner if winner >= 0 else None,
        "debt": [int(x) for x in np.asarray(ruling.debt)],
    }


def open_choice(state, phase: int, phase_names, choice_names, choice) -> int:
    """The index of ``choice`` in ``choice_names`` when ``state`` is in ``phase`` and bit k of
    ``state.choices`` opens ``choice_names[k]``; PositionError naming ``state.phase`` (no
    choice to make) or ``shot.choice`` (not an open option) otherwise."""
    if int(state.phase) != phase:
        raise PositionError("state.phase", f"no choice to make in phase {phase_names[int(state.phase)]!r}")
    open_ = [name for k, name in enumerate(choice_names) if int(state.choices) >> k & 1]
    if choice not in open_:
        raise PositionError("shot.choice", f"{choice!r} is not open; one of {', '.join(open_)}")
    return choice_names.index(choice)
