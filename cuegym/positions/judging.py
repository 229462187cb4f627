"""Judging position files: a position's game goes, by its registry ``family``
(:attr:`cuegym.envs.registry.GameDef.family`), to the family module that reads its referee
state, checks a shot against it and rules on the stroke (:data:`FAMILY`).

Every ``game`` a position file accepts (:func:`cuegym.envs.registry.position_games`) is
judged here; any other game (a drill such as ``pot-shot``) is refused with a PositionError
naming ``game``. :func:`summary_from_events` builds a ShotSummary from a short list of
events, for rule scenarios a physical shot would make awkward to set up.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from cuegym.envs.registry import GAMES, position_games
from cuegym.physics import CUSHIONS, POCKETS, get_spec
from cuegym.physics import events as ev
from cuegym.physics.simulate import update_summary
from cuegym.physics.summary import start_summary
from cuegym.positions import Position, PositionError, golf_play, russian_play, snooker_play
from cuegym.positions.state import Prepared

FAMILY = {"russian": russian_play, "snooker": snooker_play, "golf": golf_play}
"""Registry family -> the module judging its position files (``read_state``,
``prepare``, ``judge_position``, ``choose_position``)."""
CHOICE_PHASES = {"russian": "remove_ball", "snooker": "foul_choice", "golf": "house_choice"}
"""Each family's phase in which a shot file gives only ``choice`` (nothing is struck)."""


def judged_games() -> tuple[str, ...]:
    """The task names whose position files are judged: position games of a known family."""
    return tuple(name for name, g in position_games().items() if g.family in FAMILY)


def judged(game: str | None) -> bool:
    """True when ``game`` (a position's ``game``) is judged by a referee."""
    return game in judged_games()


def files_for(game: str | None):
    """The family module judging ``game``'s position files. PositionError naming ``game``
    for a game no referee judges (a drill, an unknown name, none)."""
    if not judged(game):
        what = "a drill task" if game in GAMES else "not a game"
        raise PositionError("game", f"{game!r} is {what}, not judged by a referee; "
                                    f"one of {', '.join(judged_games())}")
    return FAMILY[GAMES[game].family]


def referee(position: Position):
    """The :mod:`cuegym.rules` module judging ``position``'s game."""
    files_for(position.game)
    return GAMES[position.game].referee


def read_state(position: Position):
    """The referee state of ``position`` (GameState, SnookerState or GolfState)."""
    return files_for(position.game).read_state(position)


def awaits_choice(position: Position) -> bool:
    """True when the position's phase takes a ``choice`` and no stroke (Moscow pyramid's
    ``remove_ball``, snooker's ``foul_choice``, golf's ``house_choice``)."""
    files_for(position.game)
    state = position.state or {}
    return state.get("phase") == CHOICE_PHASES[GAMES[position.game].family]


def prepare(position: Position, shot) -> Prepared:
    """Check ``shot`` against the position's referee state (see the family's ``prepare``)."""
    return files_for(position.game).prepare(position, shot)


def judge_position(position: Position, prepared: Prepared, summary, final) -> tuple[dict, dict]:
    """Rule on a stroke: ``(ruling, next position)`` as JSON-ready dicts."""
    return files_for(position.game).judge_position(position, prepared, summary, final)


def choose_position(position: Position, choice: str | None) -> tuple[dict, dict]:
    """Apply a choice in the phase :func:`awaits_choice` names: ``(ruling, next position)``."""
    return files_for(position.game).choose_position(position, choice)


def summary_from_events(position: Position, prepared: Prepared, phi: float, events: list, final: dict | None = None):
    """A ShotSummary and final BallState from a scenario's event list.

    ``events``: in time order (event k happens at t = k + 1 s), each one of
    ``{"kind": "ball", "balls": [a, b]}``, ``{"kind": "cushion", "balls": [a], "cushion":
    name}``, ``{"kind": "jaw", "balls": [a], "pocket": name}``, ``{"kind": "pocket",
    "balls": [a], "pocket": name}``, ``{"kind": "off_table", "balls": [a]}``,
    ``{"kind": "cross", "balls": [a]}`` (the ball's centre crosses the halfway line) or
    ``{"kind": "follow"}`` (the struck ball enters the close-ball penalty zone).
    ``final``: {ball id: [x, y]} final centres of balls that moved (others stay put).
    """
    ids = position.ids
    spec = get_spec(position.table)
    balls = prepared.balls
    struck = int(prepared.decl.struck)
    summ = start_summary(balls, struck, phi, False, spec.ball_radius)
    n = len(ids)
    state = np.asarray(balls.state).copy()
    xy = np.asarray(balls.r)[:, :2].copy()
    for k, e in enumerate(events):
        t = float(k + 1)
        kind = e["kind"]
        who = [ids.index(b) for b in e.get("balls", [])]
        if kind == "cross":
            i = who[0]
            summ = summ._replace(crossed_centre=summ.crossed_centre.at[i].set(True),
                                 cross_t=summ.cross_t.at[i].set(jnp.minimum(summ.cross_t[i], t)))
            continue
        if kind == "follow":
            summ = summ._replace(follow=jnp.asarray(True))
            continue
        code = {"ball": ev.BALL, "cushion": ev.CUSHION, "jaw": ev.JAW, "pocket": ev.POCKET,
                "off_table": ev.OFF_TABLE_EV}[kind]
        if kind == "ball":
            other = who[1]
        elif kind == "cushion":
            other = CUSHIONS.index(e["cushion"])
        elif kind in ("jaw", "pocket"):
            other = POCKETS.index(e["pocket"])
        else:
            other = -1
        i = who[0]
        if kind == "pocket":
            state[i] = 5
        if kind == "off_table":
            state[i] = 6
        b = balls._replace(state=jnp.asarray(state))
        summ = update_summary(summ, jnp.asarray(code), jnp.asarray(i), jnp.asarray(other), jnp.asarray(t), b)
    for ball, p in (final or {}).items():
        xy[ids.index(ball)] = p
    r = np.zeros((n, 3))
    r[:, :2] = xy
    final_balls = balls._replace(r=jnp.asarray(r), v=jnp.zeros((n, 3)), w=jnp.zeros((n, 3)), state=jnp.asarray(state))
    return summ._replace(end_t=jnp.asarray(float(len(events) + 1))), final_balls
