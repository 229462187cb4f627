"""Snooker and American snooker position and shot files: the referee state as JSON, the
shot's checks, the ruling and the next position (the snooker family of
:mod:`cuegym.positions.judging`).

A position's ``state`` (all optional): ``to_play``, ``phase`` (one of
:data:`cuegym.rules.snooker.SNOOKER_PHASE_NAMES`), ``scores``, ``ball_on`` ("red", "colour"
or a colour name), ``free_ball``, ``breaking``, ``strokes``, ``choices``, ``miss``,
``restore`` ({"balls", "ball_on", "free_ball", "breaking"}), ``touching``, ``winner``. With no
``state`` the position is the break from the D; missing fields take mid-frame values.

A shot adds ``nominate`` (the colour on, SN-26, or a free ball, SN-61), ``place`` (cue ball
in hand, in the D: SN-10) and ``inject`` (:data:`cuegym.rules.snooker.SNOOKER_INJECT_NAMES`).
In phase ``foul_choice`` there is no stroke: :func:`choose_position` takes ``choice``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.envs.registry import GAMES
from cuegym.physics import at_rest, get_spec
from cuegym.positions import Position, PositionError, rounded
from cuegym.positions.state import Prepared, open_choice, ruling_to_dict
from cuegym.rules import snooker as sn
from cuegym.rules.base import FRAME_OVER, LAG, PLAYERS, clause_ids

STATE_FIELDS = ("to_play", "phase", "scores", "ball_on", "free_ball", "breaking", "choices", "miss", "restore",
                "touching", "strokes", "winner")
_MODE = {name: code for code, name in sn.BALL_ON_NAMES.items()}


def _player(value, field):
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < PLAYERS:
        raise PositionError(field, f"must be a player number 0 or 1, got {value!r}")
    return value


def _flag(value, field):
    if not isinstance(value, bool):
        raise PositionError(field, f"must be true or false, got {value!r}")
    return value


def _mode(value, field):
    if value not in _MODE:
        raise PositionError(field, f"unknown ball on {value!r}; one of {', '.join(_MODE)}")
    return _MODE[value]


def _default_mode(on) -> int:
    if np.any(on[1:16]):
        return sn.RED_ON
    colours = np.nonzero(on[16:])[0]
    return int(colours[0]) + 2 if len(colours) else 7


def state_from_dict(data, ids, on) -> sn.SnookerState:
    """A :class:`~cuegym.rules.snooker.SnookerState` from a position's ``state`` (dict or
    None: the break). ``on`` (N,) bool: the balls in the position."""
    if data is None:
        return sn.initial_state(0)
    data = dict(data)
    for key in data:
        if key not in STATE_FIELDS:
            raise PositionError(f"state.{key}", f"unknown field; a snooker state has: {', '.join(STATE_FIELDS)}")
    phase = data.get("phase", "normal")
    if phase not in sn.SNOOKER_PHASE_NAMES or phase in ("in_hand_house", "in_hand_rear", "remove_ball"):
        allowed = ("normal", "in_hand_d", "foul_choice", "lag", "frame_over")
        raise PositionError("state.phase", f"unknown snooker phase {phase!r}; one of {', '.join(allowed)}")
    scores = data.get("scores", [0, 0])
    if not isinstance(scores, list) or len(scores) != 2 or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
                                                                      for s in scores):
        raise PositionError("state.scores", f"must be a list of 2 integers >= 0, got {scores!r}")
    mode = _mode(data["ball_on"], "state.ball_on") if "ball_on" in data else _default_mode(on)
    choices = data.get("choices", [])
    if not isinstance(choices, list) or any(ch not in sn.CHOICE_NAMES for ch in choices):
        raise PositionError("state.choices", f"must be a list of options from {', '.join(sn.CHOICE_NAMES)}")
    bits = sum(1 << sn.CHOICE_NAMES.index(ch) for ch in set(choices))
    restore = data.get("restore") or {}
    if not isinstance(restore, Mapping):
        raise PositionError("state.restore", "must be an object {\"balls\": {...}, \"ball_on\": ..., ...}")
    prev_xy = np.zeros((len(ids), 2))
    prev_on = np.zeros(len(ids), bool)
    for ball, p in (restore.get("balls") or {}).items():
        if ball not in ids:
            raise PositionError(f"state.restore.balls.{ball}", f"unknown ball; one of {', '.join(ids)}")
        prev_xy[ids.index(ball)] = p
        prev_on[ids.index(ball)] = True
    touching = data.get("touching")
    if touching is not None and touching not in ids:
        raise PositionError("state.touching", f"unknown ball {touching!r}")
    strokes = data.get("strokes", 0)
    if not isinstance(strokes, int) or isinstance(strokes, bool) or strokes < 0:
        raise PositionError("state.strokes", f"must be an integer >= 0, got {strokes!r}")
    winner = data.get("winner")
    i32 = lambda x: jnp.asarray(x, jnp.int32)  # noqa: E731
    return sn.SnookerState(
        to_play=i32(_player(data.get("to_play", 0), "state.to_play")), phase=i32(sn.SNOOKER_PHASE_NAMES.index(phase)),
        scores=i32(scores), ball_on=i32(mode), free_ball=jnp.asarray(_flag(data.get("free_ball", False), "state.free_ball")),
        breaking=jnp.asarray(_flag(data.get("breaking", False), "state.breaking")), choices=i32(bits),
        miss=jnp.asarray(_flag(data.get("miss", False), "state.miss")), prev_xy=jnp.asarray(prev_xy),
        prev_on=jnp.asarray(prev_on),
        prev_ball_on=i32(_mode(restore["ball_on"], "state.restore.ball_on") if "ball_on" in restore else sn.RED_ON),
        prev_free_ball=jnp.asarray(_flag(restore.get("free_ball", False), "state.restore.free_ball")),
        prev_breaking=jnp.asarray(_flag(restore.get("breaking", False), "state.restore.breaking")),
        touching=i32(ids.index(touching) if touching is not None else -1), strokes=i32(strokes),
        winner=i32(-1 if winner is None else _player(winner, "state.winner")),
    )


def _balls(xy, on, ids) -> dict:
    xy, on = np.asarray(xy), np.asarray(on)
    return {i: [rounded(xy[k, 0]), rounded(xy[k, 1])] for k, i in enumerate(ids) if on[k]}


def state_to_dict(state: sn.SnookerState, ids) -> dict:
    """The inverse of :func:`state_from_dict` (plain JSON types)."""
    bits = int(state.choices)
    touching, winner = int(state.touching), int(state.winner)
    return {
        "to_play": int(state.to_play),
        "phase": sn.SNOOKER_PHASE_NAMES[int(state.phase)],
        "scores": [int(x) for x in np.asarray(state.scores)],
        "ball_on": sn.BALL_ON_NAMES[int(state.ball_on)],
        "free_ball": bool(state.free_ball),
        "breaking": bool(state.breaking),
        "choices": [name for k, name in enumerate(sn.CHOICE_NAMES) if bits >> k & 1],
        "miss": bool(state.miss),
        "restore": {"balls": _balls(state.prev_xy, state.prev_on, ids), "ball_on": sn.BALL_ON_NAMES[int(state.prev_ball_on)],
                    "free_ball": bool(state.prev_free_ball), "breaking": bool(state.prev_breaking)},
        "touching": ids[touching] if touching >= 0 else None,
        "strokes": int(state.strokes),
        "winner": winner if winner >= 0 else None,
    }


def declaration(shot, ids, nominate: int):
    """The referee's Declaration for a checked snooker shot."""
    inject = shot.inject or {}
    flags = 0
    for k, name in enumerate(inject.get("events", [])):
        if name not in sn.SNOOKER_INJECT:
            raise PositionError(f"shot.inject.events[{k}]", f"unknown event {name!r}; one of {', '.join(sn.SNOOKER_INJECT_NAMES)}")
        flags |= sn.SNOOKER_INJECT[name]
    ball = inject.get("ball")
    if ball is not None and ball not in ids:
        raise PositionError("shot.inject.ball", f"unknown ball {ball!r}; one of {', '.join(ids)}")
    i = lambda x: jnp.asarray(x, jnp.int32)  # noqa: E731
    from cuegym.rules.base import Declaration

    return Declaration(i(0), i(nominate), i(-1), i(-1), i(flags), i(ids.index(ball) if ball is not None else -1), i(-1))


def read_state(position: Position):
    """The referee state of ``position`` (its ``state``, or the start of a frame); a given
    state's fields must agree (:func:`check_state`)."""
    state = state_from_dict(position.state, position.ids, position.on_table())
    if position.state is not None:
        check_state(state, position.on_table())
    return state


def prepare(position: Position, shot):
    """Check ``shot`` against the snooker state and place a cue ball in hand (the snooker
    family of :func:`cuegym.positions.judging.prepare`). Raises PositionError naming the field."""
    ids = position.ids
    xy, on = position.xy(), position.on_table()
    state = read_state(position)
    phase = int(state.phase)
    if phase == FRAME_OVER:
        raise PositionError("state.phase", "the frame is over; start a new position to play on")
    if phase == LAG:
        raise PositionError("state.phase", "level after the black: hold the lag and give the black to a player "
                                           "(cuegym.rules.snooker.after_lag), then play from the D (SN-15)")
    if phase == sn.FOUL_CHOICE:
        raise PositionError("state.phase", "after a foul the incoming player chooses: give only \"choice\", one of "
                                           + ", ".join(sn.CHOICE_NAMES) + " (cuegym.positions.snooker_play.choose_position)")
    if shot.cue_ball != "cue":
        raise PositionError("shot.cue_ball", f"in {position.game} the cue ball is \"cue\", got {shot.cue_ball!r}")
    spec = get_spec(position.table)
    if phase == sn.IN_HAND_D:
        place = shot.place if shot.place is not None else position.balls.get("cue")
        if place is None:
            raise PositionError("shot.place", "the cue ball is in hand: give its place [x, y] in the D")
        place = np.asarray(place, float)
        if not bool(sn.placement_ok(spec, jnp.asarray(xy), jnp.asarray(on), jnp.asarray(place))):
            raise PositionError("shot.place", f"{place.tolist()} is not a legal place for the cue ball in hand: it must be in "
                                              f"the D or on its line (within {spec.d_radius} m of the middle of the baulk "
                                              f"line y = {spec.head_line} m, not beyond it), clear of every ball (SN-10)")
        xy, on = xy.copy(), on.copy()
        xy[0], on[0] = place, True
    elif shot.place is not None:
        raise PositionError("shot.place", f"no ball in hand in phase {sn.SNOOKER_PHASE_NAMES[phase]!r}; leave place out")
    nominate = shot.nominate
    k = -1
    if nominate is not None:
        legal = np.asarray(sn.legal_nominations(state, jnp.asarray(on)))
        if nominate not in ids or not legal[ids.index(nominate)]:
            what = [ids[j] for j in np.nonzero(legal)[0]]
            raise PositionError("shot.nominate", f"{nominate!r} cannot be nominated now; "
                                + (f"one of {', '.join(what)}" if what else "no nomination is needed (leave it out)")
                                + " (SN-26, SN-61)")
        k = ids.index(nominate)
    if shot.choice is not None:
        raise PositionError("shot.choice", "a choice is made only in phase foul_choice")
    decl = declaration(shot, ids, k)
    return Prepared(_module(position.game), state, decl, at_rest(xy, on), xy, on)


def _module(game: str):
    return GAMES[game].referee


@functools.lru_cache(maxsize=None)
def _judge(game: str, spec):
    return jax.jit(functools.partial(_module(game).judge, spec))


@functools.lru_cache(maxsize=None)
def _choose(game: str, spec):
    return jax.jit(functools.partial(_module(game).choose, spec))


def ruling_dict(ruling, ids) -> dict:
    """A snooker ruling as JSON: the common fields of ``files.ruling_to_dict`` plus
    penalty, ball_on, free_ball, snookered, angled, effective, miss, touching, choices."""
    out = ruling_to_dict(ruling._replace(phase=jnp.asarray(0)), ids)
    bits = int(ruling.choices)
    eff, touching = int(ruling.effective), int(ruling.touching)
    out.update(
        phase=sn.SNOOKER_PHASE_NAMES[int(ruling.phase)], penalty=int(ruling.penalty),
        ball_on=sn.BALL_ON_NAMES[int(ruling.ball_on)], free_ball=bool(ruling.free_ball),
        snookered=bool(ruling.snookered), angled=bool(ruling.angled), effective=ids[eff] if eff >= 0 else None,
        miss=bool(ruling.miss), touching=ids[touching] if touching >= 0 else None,
        choices=[name for k, name in enumerate(sn.CHOICE_NAMES) if bits >> k & 1],
    )
    out["clauses"] = clause_ids(ruling.clauses)
    return out


def _next(position: Position, ruling, state) -> dict:
    return {"game": position.game, "table": position.table, "balls": _balls(ruling.xy, ruling.on, position.ids),
            "state": state_to_dict(state, position.ids)}


def judge_position(position: Position, prepared, summary, final) -> tuple[dict, dict]:
    """Rule on a stroke: ``(ruling, next position)`` as JSON-ready dicts."""
    judge = _judge(position.game, get_spec(position.table))
    ruling, state = judge(prepared.state, prepared.decl, summary, jnp.asarray(prepared.xy), jnp.asarray(prepared.on), final)
    return ruling_dict(ruling, position.ids), _next(position, ruling, state)


def choose_position(position: Position, choice: str | None) -> tuple[dict, dict]:
    """Phase ``foul_choice``: apply the incoming player's option (CHOICE_NAMES)."""
    ids = position.ids
    xy, on = position.xy(), position.on_table()
    state = read_state(position)
    index = open_choice(state, sn.FOUL_CHOICE, sn.SNOOKER_PHASE_NAMES, sn.CHOICE_NAMES, choice)
    ruling, state = _choose(position.game, get_spec(position.table))(state, jnp.asarray(xy), jnp.asarray(on),
                                                      jnp.asarray(index, jnp.int32))
    return ruling_dict(ruling, ids), _next(position, ruling, state)


def check_state(state, on) -> None:
    """Snooker family: the winner and the frame's end (higher score wins); the ball on
    against the reds left; the options open after a foul."""
    phase, winner = int(state.phase), int(state.winner)
    scores = [int(s) for s in np.asarray(state.scores)]
    if (winner >= 0) != (phase == FRAME_OVER):
        raise PositionError("state.winner", "a winner is given exactly when state.phase is \"frame_over\", got "
                                            f"winner {winner if winner >= 0 else None} in phase {sn.SNOOKER_PHASE_NAMES[phase]!r}")
    if winner >= 0 and not scores[winner] > scores[1 - winner]:
        raise PositionError("state.scores", f"{scores} but state.winner is {winner}: the frame is won with the higher "
                                            "score (level scores re-spot the black, SN-15)")
    reds = bool(np.any(np.asarray(on)[1:16]))
    mode = int(state.ball_on)
    if phase != FRAME_OVER and mode == sn.RED_ON and not reds:
        raise PositionError("state.ball_on", "\"red\" but no red is on the table; the ball on is \"colour\" after the "
                                             "last red, then the colours in order (SN-25, SN-35)")
    if 2 <= mode <= 7 and reds:
        raise PositionError("state.ball_on", f"{sn.BALL_ON_NAMES[mode]!r} while reds are on the table: a colour is on "
                                             "by name only once the reds are gone (SN-35); \"red\" or \"colour\"")
    bits = int(state.choices)
    if phase == sn.FOUL_CHOICE and (bits & 3) != 3:
        raise PositionError("state.choices", "after a foul the incoming player may always play or have the offender "
                                             "replay (SN-68): include \"play\" and \"replay\"")
    if phase != sn.FOUL_CHOICE and bits:
        raise PositionError("state.choices", f"options are open only in phase \"foul_choice\", not {sn.SNOOKER_PHASE_NAMES[phase]!r}: "
                                             "leave choices out or []")
