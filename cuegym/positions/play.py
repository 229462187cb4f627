"""Judging a position file and a shot file: the glue between ``cuegym.positions``, the
physics and a game's referee, used by ``cuegym simulate`` and the rule scenarios.

* :func:`prepare` validates the declaration against the position and the referee state
  (ball in hand placed in the house, call of a ball on the table, ...) and gives the layout
  the stroke starts from.
* :func:`judge_position` rules on a simulated stroke and returns the ruling and the next
  position file (with the referee state), so a frame can be replayed from files.
* :func:`summary_from_events` builds a :class:`~cuegym.physics.ShotSummary` from a short
  list of events, for rule scenarios a physical shot would make awkward to set up.

The referee functions are jitted once per game and table (the spec is static).
"""

from __future__ import annotations

import functools
import jax
import jax.numpy as jnp
import numpy as np

from cuegym.physics import CUSHIONS, POCKETS, at_rest, get_spec
from cuegym.physics import events as ev
from cuegym.physics.simulate import _update_summary
from cuegym.physics.summary import start_summary
from cuegym.positions import PositionError, Position, rounded
from cuegym.rules import GAMES
from cuegym.rules import russian as ru
from cuegym.rules.base import FRAME_OVER, IN_HAND_HOUSE, IN_HAND_REAR, LAG, PHASE_NAMES, REMOVE_BALL
from cuegym.positions.state import (
    declaration_from_shot,
    Prepared,
    parse_inject,
    ruling_to_dict,
    state_from_dict,
    state_to_dict,
)


SNOOKER_GAMES = ("snooker", "american-snooker")  # games judged by cuegym.positions.snooker_play (own state and phases)


def referee(position: Position):
    if position.game not in GAMES:
        raise PositionError("game", f"no referee for {position.game!r} yet; games with one: {', '.join(GAMES)}")
    return GAMES[position.game]


def prepare(position: Position, shot) -> Prepared:
    """Validate ``shot`` against ``position``'s game and referee state; place a ball in hand.

    Raises PositionError naming the field for: a frame that is over; a lag or removal phase
    (not a stroke); a placement outside the house / temporary house, off the bed or on a ball
    (RU-GEN-14: refused, AMB-14); a struck ball the game does not allow; a missing or invalid
    call (RP-09).
    """
    game = referee(position)
    if game.GAME in SNOOKER_GAMES:  # snooker has its own state, phases and declarations
        from cuegym.positions import snooker_play

        return snooker_play.prepare(position, shot)
    ids = position.ids
    xy, on = position.xy(), position.on_table()
    state = state_from_dict(position.state, ids, on)
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
        region = "the house (y < %.4f m)" % spec.head_line if phase == IN_HAND_HOUSE else \
            "the temporary house at the rear (y > %.4f m)" % (spec.length - spec.head_line)
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
    return jax.jit(functools.partial(GAMES[game_name].judge, spec))


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
    if position.game in SNOOKER_GAMES:
        from cuegym.positions import snooker_play

        return snooker_play.judge_position(position, prepared, summary, final)
    spec = get_spec(position.table)
    judge = _judge(position.game, spec)
    ruling, state = judge(prepared.state, prepared.decl, summary, jnp.asarray(prepared.xy), jnp.asarray(prepared.on), final)
    return ruling_to_dict(ruling, position.ids), next_position_dict(position, ruling, state)


def remove_ball(position: Position, choice: str | None) -> tuple[dict, dict]:
    """Moscow pyramid, phase ``remove_ball``: the named object ball is taken off (MP-09)."""
    if position.game != "moscow-pyramid":
        raise PositionError("game", "only Moscow pyramid has a ball to remove")
    ids = position.ids
    xy, on = position.xy(), position.on_table()
    state = state_from_dict(position.state, ids, on)
    if int(state.phase) != REMOVE_BALL:
        raise PositionError("state.phase", f"no ball to remove in phase {PHASE_NAMES[int(state.phase)]!r}")
    if choice is not None and (choice not in ids or choice == "cue" or not on[ids.index(choice)]):
        raise PositionError("shot.choice", f"name an object ball on the table (MP-09), got {choice!r}")
    k = ids.index(choice) if choice is not None else -1
    ruling, state = _choose(get_spec(position.table))(state, jnp.asarray(xy), jnp.asarray(on), jnp.asarray(k, jnp.int32))
    return ruling_to_dict(ruling, ids), next_position_dict(position, ruling, state)


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
        code = {"ball": ev.BALL, "cushion": ev.CUSHION, "jaw": ev.JAW, "pocket": ev.POCKET, "off_table": ev.OFF_TABLE_EV}[kind]
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
        summ = _update_summary(summ, jnp.asarray(code), jnp.asarray(i), jnp.asarray(other), jnp.asarray(t), b)
    for ball, p in (final or {}).items():
        xy[ids.index(ball)] = p
    r = np.zeros((n, 3))
    r[:, :2] = xy
    final_balls = balls._replace(r=jnp.asarray(r), v=jnp.zeros((n, 3)), w=jnp.zeros((n, 3)), state=jnp.asarray(state))
    return summ._replace(end_t=jnp.asarray(float(len(events) + 1))), final_balls
