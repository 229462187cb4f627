"""Russian billiards position files (Russian pyramid, Americanka, Moscow pyramid): the
shot's checks against the referee state, the ruling and the next position, judged by the
game's referee of :mod:`cuegym.rules` (the state as JSON is :mod:`cuegym.positions.state`).

* :func:`prepare` validates the declaration against the position and the referee state
  (ball in hand placed in the house, call of a ball on the table, ...) and gives the layout
  the stroke starts from.
* :func:`judge_position` rules on a simulated stroke and returns the ruling and the next
  position file (with the referee state), so a frame can be replayed from files.
* :func:`choose_position`: Moscow pyramid's ``remove_ball`` phase (MP-09).

The referee functions are jitted once per game and table (the spec is static).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.envs.registry import GAMES
from cuegym.physics import POCKETS, at_rest, get_spec
from cuegym.positions import Position, PositionError, consistency, rounded
from cuegym.positions.state import (
    Prepared,
    declaration_from_shot,
    parse_inject,
    ruling_to_dict,
    state_from_dict,
    state_to_dict,
)
from cuegym.rules import russian as ru
from cuegym.rules.base import FRAME_OVER, IN_HAND_HOUSE, IN_HAND_REAR, LAG, PHASE_NAMES, REMOVE_BALL


def referee(position: Position):
    """The referee module of ``position``'s game (its registry entry's ``referee``)."""
    found = GAMES.get(position.game)
    if found is None or found.family != "russian":
        raise PositionError("game", f"{position.game!r} is not a Russian billiards game")
    return found.referee


def read_state(position: Position):
    """The referee state of ``position``; PositionError naming the field for a state the
    game cannot reach: Russian pyramid scores points, so it has no ``owned`` balls and no
    ``debt`` (RP-05); fields that disagree (:func:`cuegym.positions.consistency.russian`)."""
    data = position.state or {}
    if position.game == "russian-pyramid":
        if data.get("owned"):
            raise PositionError("state.owned", "Russian pyramid credits no balls to players (it scores points): "
                                               "leave owned out or {}")
        if any(data.get("debt") or ()):
            raise PositionError("state.debt", "Russian pyramid has no ball debt: [0, 0] or leave it out")
    state = state_from_dict(position.state, position.ids, position.on_table())
    consistency.russian(position.game, state, position.ids)
    return state


def prepare(position: Position, shot) -> Prepared:
    """Validate ``shot`` against ``position``'s game and referee state; place a ball in hand.

    Raises PositionError naming the field for: a frame that is over; a lag or removal phase
    (not a stroke); a placement outside the house / temporary house, off the bed or on a ball
    (RU-GEN-14: refused, AMB-14); a struck ball the game does not allow; a missing or invalid
    call (RP-09).
    """
    game = referee(position)
    ids = position.ids
    xy, on = position.xy(), position.on_table()
    state = read_state(position)
    phase = int(state.phase)
    if phase == FRAME_OVER:
        raise PositionError("state.phase", "the frame is over; start a new position to play on")
    if phase == LAG:
        raise PositionError("state.phase", "a lag decides who plays next: play the lag (cuegym.rules.russian.judge_lag) "
                                           "and set state.to_play and phase \"in_hand_house\"")
    if phase == REMOVE_BALL:
        raise PositionError("state.phase", "the opponent names a ball to remove: give only \"choice\" (use remove_ball)")
    spec = get_spec(position.table)
    cue = ids.index(shot.cue_ball) if shot.cue_ball in ids else -1
    if game.GAME != "americanka" and shot.cue_ball != "cue":
        # RU-GEN-45 would make this a foul; a file naming another ball is taken as an error
        raise PositionError("shot.cue_ball", f"in {game.GAME} the cue ball is \"cue\" (RU-GEN-45), got {shot.cue_ball!r}")
    if phase in (IN_HAND_HOUSE, IN_HAND_REAR):
        in_hand = 0 if game.GAME != "americanka" else _americanka_in_hand(state, on, game.BREAK_BALL, cue)
        if cue != in_hand:
            raise PositionError("shot.cue_ball", f"the ball in hand is {ids[in_hand]!r}")
        place = shot.place if shot.place is not None else (position.balls.get(ids[cue]))
        if place is None:
            raise PositionError("shot.place", "the cue ball is in hand: give its place [x, y] in the house")
        place = np.asarray(place, float)
        region = f"the house (y < {spec.head_line:.4f} m)" if phase == IN_HAND_HOUSE else \
            f"the temporary house at the rear (y > {spec.length - spec.head_line:.4f} m)"
        ok = bool(ru.placement_ok(spec, jnp.asarray(phase), jnp.asarray(xy), jnp.asarray(on), cue, jnp.asarray(place)))
        if not ok:
            raise PositionError("shot.place", f"{place.tolist()} is not a legal place for the ball in hand: it must be on "
                                              f"the bed, clear of every ball, inside {region} (RU-GEN-14/20)")
        xy = xy.copy()
        on = on.copy()
        xy[cue] = place
        on[cue] = True
    elif shot.place is not None:
        raise PositionError("shot.place", f"no ball in hand in phase {PHASE_NAMES[phase]!r}; leave place out")
    if game.GAME == "russian-pyramid":
        call = shot.call or {}
        if call.get("ball") is None or call.get("pocket") is None:
            raise PositionError("shot.call", "Russian pyramid needs a call on every stroke (RP-08, AMB-23): "
                                             "{\"ball\": id, \"pocket\": one of " + ", ".join(POCKETS) + "}")
        if call["ball"] == "cue" or not on[ids.index(call["ball"])]:
            raise PositionError("shot.call.ball", f"the called ball must be an object ball on the table (RP-09), got {call['ball']!r}")
    if shot.choice is not None and game.GAME == "russian-pyramid":
        raise PositionError("shot.choice", "Russian pyramid has no choice to make on a stroke")
    parse_inject(shot.inject, ids)
    decl = declaration_from_shot(shot, ids)
    return Prepared(game, state, decl, at_rest(xy, on), xy, on)


def _americanka_in_hand(state, on, break_ball: int, named: int) -> int:
    """Americanka's ball in hand: ball 16 at the break (AMB-27); later (after a dead-position
    rebuild, AMB-18) the ball the shot names, if it is neither on the table nor won."""
    if int(state.strokes) == 0 or named < 0:
        return break_ball
    spare = (not bool(np.asarray(on)[named])) and int(np.asarray(state.owner)[named]) < 0
    return named if spare else break_ball


@functools.lru_cache(maxsize=None)
def _judge(game_name: str, spec):
    return jax.jit(functools.partial(GAMES[game_name].referee.judge, spec))


@functools.lru_cache(maxsize=None)
def _choose(spec):
    from cuegym.rules.moscow_pyramid import choose

    return jax.jit(functools.partial(choose, spec))


def next_position_dict(position: Position, ruling, state) -> dict:
    """The position file of the next turn, with the referee state."""
    xy, on = np.asarray(ruling.xy), np.asarray(ruling.on)
    ids = position.ids
    return {
        "game": position.game,
        "table": position.table,
        "balls": {i: [rounded(xy[k, 0]), rounded(xy[k, 1])] for k, i in enumerate(ids) if on[k]},
        "state": state_to_dict(state, ids),
    }


def judge_position(position: Position, prepared: Prepared, summary, final) -> tuple[dict, dict]:
    """Rule on a stroke: ``(ruling, next position)`` as JSON-ready dicts."""
    spec = get_spec(position.table)
    judge = _judge(position.game, spec)
    ruling, state = judge(prepared.state, prepared.decl, summary, jnp.asarray(prepared.xy), jnp.asarray(prepared.on), final)
    return ruling_to_dict(ruling, position.ids), next_position_dict(position, ruling, state)


def choose_position(position: Position, choice: str | None) -> tuple[dict, dict]:
    """Moscow pyramid, phase ``remove_ball``: the named object ball is taken off (MP-09)."""
    if position.game != "moscow-pyramid":
        raise PositionError("game", "only Moscow pyramid has a ball to remove")
    ids = position.ids
    xy, on = position.xy(), position.on_table()
    state = read_state(position)
    if int(state.phase) != REMOVE_BALL:
        raise PositionError("state.phase", f"no ball to remove in phase {PHASE_NAMES[int(state.phase)]!r}")
    if choice is not None and (choice not in ids or choice == "cue" or not on[ids.index(choice)]):
        raise PositionError("shot.choice", f"name an object ball on the table (MP-09), got {choice!r}")
    k = ids.index(choice) if choice is not None else -1
    ruling, state = _choose(get_spec(position.table))(state, jnp.asarray(xy), jnp.asarray(on), jnp.asarray(k, jnp.int32))
    return ruling_to_dict(ruling, ids), next_position_dict(position, ruling, state)
