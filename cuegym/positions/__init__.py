"""Position and shot files: load, validate, and build the next position (docs/rules.md
"From files and the command line").

A position file says where the balls are on which table, and optionally the ``game`` (a
task of :func:`cuegym.envs.registry.position_games`) and its referee ``state``::

    {"game": "russian-pyramid", "table": "pyramid-12ft",
     "balls": {"cue": [0.88, 0.40], "7": [0.60, 2.90]}, "state": {"to_play": 0}}

With a ``game`` the ball ids are the game's (:data:`GAMES`) in canonical array order and
absent balls are off the table; without one, ids are free and follow the file's order. A
shot file holds the stroke and the declarations (:data:`SHOT_FIELDS`). Every malformed input
raises one :class:`PositionError` naming the field and what is allowed; nothing is moved
silently except within :data:`TOLERANCE` (2 micrometres: touching racks, written positions).
:mod:`cuegym.positions.judging` rules on a stroke with the game's referee.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from cuegym.envs.registry import PYRAMID_BALLS, SNOOKER_BALLS, position_games  # noqa: F401 (re-exported)
from cuegym.physics import POCKETED, POCKETS, TABLE_SPECS, BallState, at_rest, get_spec, make_shot
from cuegym.physics.strike import SHOT_LIMITS
from cuegym.physics.tables import compile_table

GAMES: dict[str, tuple[str, ...]] = {name: g.balls for name, g in position_games().items()}
"""Known games and their ball ids, in the canonical (array) order."""

POSITION_FIELDS = ("game", "table", "balls", "state")
SHOT_FIELDS = ("cue_ball", "phi", "speed", "a", "b", "theta", "call", "nominate", "place", "choice", "inject")
SHOT_UNITS = {"phi": "rad", "speed": "m/s", "a": "ball radii", "b": "ball radii", "theta": "rad"}
EXAMPLES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
"""Example positions and shots shipped with the package (listed in the README.md there)."""
TOLERANCE = 2e-6  # m, see the module docstring
DIGITS = 6  # decimals written to files and command-line output (1e-6 m, 1e-6 s)


class PositionError(ValueError):
    """A malformed position or shot. ``field`` is the offending field (``balls.7``,
    ``shot.speed``, or ``""`` for the file as a whole), ``source`` the file, if any."""

    def __init__(self, field: str, message: str, source: str | None = None):
        self.field = field
        self.detail = message
        self.source = source
        text = f"{field}: {message}" if field else message
        super().__init__(f"{source}: {text}" if source else text)

    def with_source(self, source: str) -> PositionError:
        return PositionError(self.field, self.detail, source)

    def __reduce__(self):
        return PositionError, (self.field, self.detail, self.source)


# ----------------------------------------------------------------------------- helpers


def _allowed(names, limit: int = 24) -> str:
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def _number(value, field: str, what: str = "a number") -> float:
    # bool is an int in Python, but true/false in a file is not a number
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PositionError(field, f"must be {what}, got {json.dumps(value)}")
    x = float(value)
    if not math.isfinite(x):
        raise PositionError(field, f"must be a finite number, got {value}")
    return x


def _point(value, field: str) -> tuple[float, float]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise PositionError(field, f"must be [x, y], a list of 2 numbers in metres, got {json.dumps(value)}")
    return _number(value[0], field, "a number (metres)"), _number(value[1], field, "a number (metres)")


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise PositionError(str(key), "appears twice in the same object; each key may appear once")
        seen[key] = value
    return seen


def parse_json(text: str, source: str | None = None, what: str = ""):
    """JSON text to Python objects; syntax errors and duplicate keys are PositionErrors
    (``source``: the file name, ``what``: the field name used for inline text)."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except PositionError as e:
        raise (e.with_source(source) if source else e) from None
    except json.JSONDecodeError as e:
        field = "" if source else what
        raise PositionError(field, f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})", source) from None


def read_json(source, what: str = "") -> tuple[Any, str | None]:
    """Read ``source``: a mapping (returned as is), inline JSON text (starting with ``{``),
    or a path to a JSON file. Returns (data, file name or None). ``what`` names inline
    text in error messages (``position``, ``shot``)."""
    if isinstance(source, Mapping):
        return source, None
    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    if not isinstance(source, str):
        raise PositionError(what, f"expected a file name, JSON text or a dict, got {type(source).__name__}")
    if source.lstrip().startswith("{"):
        return parse_json(source, what=what), None
    try:
        with open(source, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise PositionError("", "no such file (give a JSON file, or inline JSON text starting with '{')", source) from None
    except IsADirectoryError:
        raise PositionError("", "is a folder, not a JSON file", source) from None
    except (OSError, UnicodeDecodeError) as e:
        raise PositionError("", f"cannot be read ({e})", source) from None
    return parse_json(text, source), source


@functools.lru_cache(maxsize=None)
def _bed(table: str):
    """(contact offset, jaw centres (J, 2), jaw radii (J,)) of a table, as numpy."""
    t = compile_table(get_spec(table))
    return float(t.contact_offset), np.asarray(t.jaw_c), np.asarray(t.jaw_r)


def check_layout(table: str, balls: Mapping[str, tuple[float, float]], tol: float = TOLERANCE) -> None:
    """Raise :class:`PositionError` (field ``balls.<id>``) for a ball off the bed, on a pocket
    jaw, or overlapping another ball by more than ``tol`` metres.

    The layout tests (bed = centre at least the
    cushion-contact distance from every nose line), with the tolerance applied throughout.
    """
    spec = get_spec(table)
    off, jaw_c, jaw_r = _bed(table)
    lo_x, hi_x, lo_y, hi_y = off, spec.width - off, off, spec.length - off
    for name, (x, y) in balls.items():
        if not (lo_x - tol <= x <= hi_x + tol and lo_y - tol <= y <= hi_y + tol):
            raise PositionError(
                f"balls.{name}",
                f"({x:.6f}, {y:.6f}) is outside the bed of {table}: a ball's centre needs x in "
                f"[{lo_x:.6f}, {hi_x:.6f}] and y in [{lo_y:.6f}, {hi_y:.6f}] m",
            )
        gap = np.hypot(jaw_c[:, 0] - x, jaw_c[:, 1] - y) - jaw_r - off
        k = int(np.argmin(gap))
        if gap[k] < -tol:
            raise PositionError(
                f"balls.{name}",
                f"({x:.6f}, {y:.6f}) overlaps a jaw of pocket {POCKETS[k // 2]} by {-gap[k] * 1000:.3f} mm",
            )
    names = list(balls)
    xy = np.array([balls[n] for n in names], float).reshape(-1, 2)
    diameter = 2 * spec.ball_radius
    for i in range(len(names)):
        d = np.hypot(*(xy[i + 1 :] - xy[i]).T)
        bad = np.nonzero(d < diameter - tol)[0]
        if bad.size:
            j = i + 1 + int(bad[0])
            raise PositionError(
                f"balls.{names[j]}",
                f"overlaps ball {names[i]!r}: centres {d[bad[0]] * 1000:.3f} mm apart, at least "
                f"{diameter * 1000:.3f} mm (one ball diameter) required",
            )


# ----------------------------------------------------------------------------- positions


@dataclasses.dataclass(frozen=True)
class Position:
    """A validated position.

    ``ids`` is the array order of the balls (the game's canonical order, or the file's order
    without a game); ``balls`` maps the ids of the balls on the table to their (x, y) [m].
    """

    table: str
    balls: dict[str, tuple[float, float]]
    game: str | None = None
    state: dict | None = None
    ids: tuple[str, ...] = ()

    @property
    def spec(self):
        return get_spec(self.table)

    def index(self, ball_id: str) -> int:
        """The array index of ``ball_id``."""
        return self.ids.index(ball_id)

    def xy(self) -> np.ndarray:
        """(N, 2) centres in ``ids`` order; balls off the table get (0, 0) (never read)."""
        return np.array([self.balls.get(i, (0.0, 0.0)) for i in self.ids], float).reshape(-1, 2)

    def on_table(self) -> np.ndarray:
        """(N,) bool in ``ids`` order."""
        return np.array([i in self.balls for i in self.ids], bool)

    def ball_state(self) -> BallState:
        """The balls at rest, for :func:`cuegym.physics.simulate`."""
        return at_rest(self.xy(), self.on_table())

    def to_dict(self) -> dict:
        """The position in file form (numbers unrounded)."""
        out: dict = {}
        if self.game is not None:
            out["game"] = self.game
        out["table"] = self.table
        out["balls"] = {i: [float(x), float(y)] for i, (x, y) in self.balls.items()}
        if self.state is not None:
            out["state"] = self.state
        return out


def parse_position(data) -> Position:
    """Validate a position given as a dict (parsed JSON); see the module docstring."""
    if not isinstance(data, Mapping):
        raise PositionError("position", f"must be a JSON object with fields {', '.join(POSITION_FIELDS)}")
    for key in data:
        if key not in POSITION_FIELDS:
            raise PositionError(str(key), f"unknown field; a position has: {', '.join(POSITION_FIELDS)}")
    if "table" not in data:
        raise PositionError("table", f"required; one of {_allowed(TABLE_SPECS)}")
    table = data["table"]
    if not isinstance(table, str) or table not in TABLE_SPECS:
        raise PositionError("table", f"unknown table {json.dumps(table)}; one of {_allowed(TABLE_SPECS)}")
    game = data.get("game")
    if game is not None and (not isinstance(game, str) or game not in GAMES):
        raise PositionError("game", f"unknown game {json.dumps(game)}; one of {_allowed(GAMES)} (or leave it out)")
    state = data.get("state")
    if state is not None:
        if game is None:
            raise PositionError("state", "a referee state needs a game; add \"game\" or remove \"state\"")
        if not isinstance(state, Mapping):
            raise PositionError("state", f"must be a JSON object (the referee state by name), got {json.dumps(state)}")
    if "balls" not in data:
        raise PositionError("balls", "required: an object {ball id: [x, y]} in metres")
    raw = data["balls"]
    if not isinstance(raw, Mapping):
        raise PositionError("balls", f"must be an object {{ball id: [x, y]}}, got {json.dumps(raw)}")
    allowed = GAMES.get(game)
    balls: dict[str, tuple[float, float]] = {}
    for key, value in raw.items():
        if not isinstance(key, str):
            raise PositionError(f"balls.{key}", "a ball id must be a string")
        if allowed is not None and key not in allowed:
            raise PositionError(f"balls.{key}", f"unknown ball for {game}; its balls are {_allowed(allowed)}")
        if not key.strip():
            raise PositionError(f"balls.{key}", "a ball id must be a non-empty string")
        balls[key] = _point(value, f"balls.{key}")
    check_layout(table, balls)
    if allowed is not None:
        balls = {i: balls[i] for i in allowed if i in balls}  # canonical order
        ids = allowed
    else:
        ids = tuple(balls)
    return Position(table=table, balls=balls, game=game, state=dict(state) if state is not None else None, ids=ids)


def load_position(source) -> Position:
    """Load and validate a position from a file path, inline JSON text or a dict."""
    data, name = read_json(source, "position")
    try:
        return parse_position(data)
    except PositionError as e:
        raise (e.with_source(name) if name else e) from None


# ----------------------------------------------------------------------------- shots


@dataclasses.dataclass(frozen=True)
class ShotSpec:
    """A validated shot: the stroke (``phi``, ``speed``, ``a``, ``b``, ``theta``, see
    :mod:`cuegym.physics.strike`) on ball ``cue_ball``, and the declarations ``call``,
    ``nominate``, ``place``, ``choice``, carried through for the referees.

    ``decision``: the phase name when the shot is a decision and no stroke (only ``choice``
    is meaningful, :func:`decision_phase`); None for a stroke."""

    cue_ball: str | None
    speed: float
    phi: float = 0.0
    a: float = 0.0
    b: float = 0.0
    theta: float = 0.0
    call: Any = None
    nominate: Any = None
    place: Any = None
    choice: Any = None
    inject: Any = None
    decision: str | None = None

    def to_physics(self, position: Position):
        """The :class:`cuegym.physics.Shot` for this stroke in ``position``."""
        if self.decision is not None:
            raise ValueError(f"a decision in phase {self.decision!r} strikes nothing")
        return make_shot(position.index(self.cue_ball), self.phi, self.speed, self.a, self.b, self.theta)

    def to_dict(self) -> dict:
        """The shot as a file gives it: a decision only its ``choice``."""
        if self.decision is not None:
            return {"choice": self.choice}
        return {f: getattr(self, f) for f in SHOT_FIELDS}


def _limits(name: str) -> tuple[float, float]:
    lo, hi = SHOT_LIMITS[name]
    return float(lo), float(hi)


def decision_phase(position: Position) -> str | None:
    """The phase name when ``position`` awaits a decision and no stroke (Moscow pyramid's
    ``remove_ball``, snooker's ``foul_choice``, golf's ``house_choice``: the judged game's
    :data:`cuegym.positions.judging.CHOICE_PHASES`), else None."""
    if position.game is None:
        return None
    from cuegym.positions import judging  # judging imports this module

    if not judging.judged(position.game) or not judging.awaits_choice(position):
        return None
    return position.state["phase"]


def _parse_decision(data: Mapping, phase: str) -> ShotSpec:
    """A decision's shot: only ``choice`` (its meaning is the game's; the referee checks
    it). Any stroke field or declaration given (not null) is refused, naming it and the
    phase, rather than ignored: nothing is struck in a decision phase."""
    for key, value in data.items():
        if key != "choice" and value is not None:
            raise PositionError(f"shot.{key}", f"not taken in phase {phase!r}: a decision strikes nothing, so the "
                                               "shot gives only \"choice\"")
    return ShotSpec(cue_ball=None, speed=0.0, choice=data.get("choice"), decision=phase)


def parse_shot(data, position: Position) -> ShotSpec:
    """Validate a shot (a dict) against ``position``; fields are named ``shot.<field>``.
    In a decision phase (:func:`decision_phase`) the shot gives only ``choice``."""
    if not isinstance(data, Mapping):
        raise PositionError("shot", f"must be a JSON object with fields {', '.join(SHOT_FIELDS)}")
    for key in data:
        if key not in SHOT_FIELDS:
            raise PositionError(f"shot.{key}", f"unknown field; a shot has: {', '.join(SHOT_FIELDS)}")
    phase = decision_phase(position)
    if phase is not None:
        return _parse_decision(data, phase)
    on_table = list(position.balls)
    cue_ball = data.get("cue_ball")
    if cue_ball is None:
        if "cue" not in position.ids:
            raise PositionError("shot.cue_ball", f"required (this position has no ball \"cue\"); one of {_allowed(on_table)}")
        cue_ball = "cue"
    if not isinstance(cue_ball, str):
        raise PositionError("shot.cue_ball", f"must be a ball id (a string), got {json.dumps(cue_ball)}")
    in_hand = data.get("place") is not None and cue_ball in position.ids  # placed by the shot
    if cue_ball not in position.balls and not in_hand:
        what = "is not on the table" if cue_ball in position.ids else "is not a ball of this position"
        raise PositionError("shot.cue_ball", f"ball {cue_ball!r} {what}; balls on the table: {_allowed(on_table)}")
    values = {}
    for name in ("phi", "speed", "a", "b", "theta"):
        lo, hi = _limits(name)
        unit = SHOT_UNITS[name]
        if name not in data or data[name] is None:
            if name == "speed":
                raise PositionError("shot.speed", f"required: the cue speed in m/s, from {lo:g} to {hi:g}")
            values[name] = 0.0
            continue
        x = _number(data[name], f"shot.{name}", f"a number ({unit})")
        if not lo <= x <= hi:
            raise PositionError(f"shot.{name}", f"must be in [{lo:.6g}, {hi:.6g}] {unit}, got {x:g}")
        values[name] = x
    call = data.get("call")
    if call is not None:
        if not isinstance(call, Mapping):
            raise PositionError("shot.call", f"must be an object {{\"ball\": id, \"pocket\": name}} or null, got {json.dumps(call)}")
        for key, value in call.items():
            if key == "ball":
                if not isinstance(value, str) or value not in position.ids:
                    raise PositionError("shot.call.ball", f"unknown ball {json.dumps(value)}; one of {_allowed(position.ids)}")
            elif key == "pocket" and (not isinstance(value, str) or value not in POCKETS):
                raise PositionError("shot.call.pocket", f"unknown pocket {json.dumps(value)}; one of {', '.join(POCKETS)}")
    place = data.get("place")
    if place is not None:
        _point(place, "shot.place")
    choice = data.get("choice")  # its meaning is the game's; the referee validates it
    inject = data.get("inject")
    if inject is not None and not isinstance(inject, Mapping):
        raise PositionError("shot.inject", "must be an object {\"events\": [...], \"ball\": id, \"pocket\": name} or null")
    return ShotSpec(
        cue_ball=cue_ball,
        call=call,
        nominate=data.get("nominate"),
        place=place,
        choice=choice,
        inject=inject,
        **values,
    )


def load_shot(source, position: Position) -> ShotSpec:
    """Load and validate a shot from a file path, inline JSON text or a dict."""
    data, name = read_json(source, "shot")
    try:
        return parse_shot(data, position)
    except PositionError as e:
        raise (e.with_source(name) if name else e) from None


# ----------------------------------------------------------------------------- after a shot


def rounded(x, digits: int = DIGITS) -> float:
    """``x`` rounded to ``digits`` decimals, as a plain float without a negative zero."""
    return round(float(x), digits) + 0.0


def next_position(position: Position, final: BallState, digits: int = DIGITS) -> dict:
    """The position after a shot, in file form: the same table, game and state, and the
    balls still on the table at their final centres (rounded to ``digits`` decimals).
    Pocketed balls and balls that left the table are omitted."""
    r = np.asarray(final.r)
    state = np.asarray(final.state)
    out: dict = {}
    if position.game is not None:
        out["game"] = position.game
    out["table"] = position.table
    out["balls"] = {
        i: [rounded(r[k, 0], digits), rounded(r[k, 1], digits)]
        for k, i in enumerate(position.ids)
        if i in position.balls and state[k] < POCKETED
    }
    if position.state is not None:
        out["state"] = position.state
    return out


_FLAT_LIST = re.compile(r"\[([^\[\]{}]*)\]")


def _one_line(match) -> str:
    # newlines never occur inside JSON strings, so only indentation is touched
    inner = re.sub(r"^\n\s*|\n\s*$", "", match.group(1))
    return "[" + re.sub(r"\n\s*", " ", inner) + "]"


def dumps(obj) -> str:
    """JSON text indented by 2, with each list of plain values ([x, y], ball ids) on one line."""
    return _FLAT_LIST.sub(_one_line, json.dumps(obj, indent=2))
