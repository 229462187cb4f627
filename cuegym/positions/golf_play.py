"""Golf position and shot files: the referee state as JSON, the shot's checks, the ruling and
the next position, judged by :mod:`cuegym.rules.golf` (docs/rules.md "Golf").

A golf position's ``state`` (all fields optional; without one, the start of the game with
two players, player 0 first)::

    "state": {"num_players": 3, "first": 0, "to_play": 1, "phase": "normal", "pocket": 2,
              "next_pocket": [3, 2, 2], "strokes": [5, 7, 4], "opening": false,
              "choices": [], "shots": 16, "winner": null}

``phase`` is one of ``normal``, ``in_hand_house``, ``house_choice``, ``frame_over``;
``pocket`` the round's golf pocket 1..6; per-player lists have ``num_players`` entries.
Only the striker's ball (``to_play + 1``) may be on the table with the cue ball (AMB-48).
A shot may add ``place`` (cue ball in hand, in the house) and ``inject``; in
``house_choice`` there is no stroke: ``choice`` is one of CHOICE_NAMES.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.physics import at_rest, get_spec
from cuegym.positions import Position, PositionError, consistency, rounded
from cuegym.positions.state import Prepared, open_choice, ruling_to_dict
from cuegym.rules import golf as gf
from cuegym.rules import pool
from cuegym.rules.base import FRAME_OVER, IN_HAND_HOUSE, NORMAL

STATE_FIELDS = ("num_players", "first", "to_play", "phase", "pocket", "next_pocket", "strokes", "opening",
                "choices", "shots", "winner")
PHASES = ("normal", "in_hand_house", "house_choice", "frame_over")
_PHASE_CODE = {"normal": NORMAL, "in_hand_house": IN_HAND_HOUSE, "house_choice": gf.HOUSE_CHOICE,
               "frame_over": FRAME_OVER}
P = gf.MAX_PLAYERS


def _int(value, field, lo, hi):
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise PositionError(field, f"must be an integer in {lo}..{hi}, got {value!r}")
    return value


def _per_player(value, field, n, lo, hi):
    if not isinstance(value, list) or len(value) != n:
        raise PositionError(field, f"must be a list of {n} integers (one per player, num_players {n}), got {value!r}")
    return [_int(v, f"{field}.{k}", lo, hi) for k, v in enumerate(value)]


def state_from_dict(data, ids, on) -> gf.GolfState:
    """A :class:`~cuegym.rules.golf.GolfState` from a position's ``state`` (None: the start).

    ``on`` (N,) bool: the balls on the table. Raises PositionError naming the field and the
    allowed values for an unknown field, a value out of range, per-player lists whose length
    is not ``num_players``, or an object ball on the table other than the striker's."""
    data = {} if data is None else data
    if not isinstance(data, Mapping):
        raise PositionError("state", f"must be an object, got {type(data).__name__}")
    for key in data:
        if key not in STATE_FIELDS:
            raise PositionError(f"state.{key}", f"unknown field; one of {', '.join(STATE_FIELDS)}")
    n = _int(data.get("num_players", 2), "state.num_players", 2, P)
    first = _int(data.get("first", 0), "state.first", 0, n - 1)
    to_play = _int(data.get("to_play", first), "state.to_play", 0, n - 1)
    phase = data.get("phase", "normal")
    if phase not in _PHASE_CODE:
        raise PositionError("state.phase", f"unknown phase {phase!r}; one of {', '.join(PHASES)}")
    pocket = _int(data.get("pocket", 1), "state.pocket", 1, gf.N_POCKETS + (1 if phase == "frame_over" else 0))
    nxt = _per_player(data.get("next_pocket", [pocket] * n), "state.next_pocket", n, 1, gf.N_POCKETS + 1)
    strokes = _per_player(data.get("strokes", [0] * n), "state.strokes", n, 0, 10**6)
    opening = data.get("opening", pocket == 1 and not any(strokes))
    if not isinstance(opening, bool):
        raise PositionError("state.opening", f"must be true or false, got {opening!r}")
    choices = data.get("choices", list(gf.CHOICE_NAMES) if phase == "house_choice" else [])
    if not isinstance(choices, list) or any(c not in gf.CHOICE_NAMES for c in choices):
        raise PositionError("state.choices", f"a list of {', '.join(gf.CHOICE_NAMES)}; got {choices!r}")
    if phase == "house_choice" and not choices:
        raise PositionError("state.choices", f"phase house_choice needs an open choice: {', '.join(gf.CHOICE_NAMES)}")
    shots = _int(data.get("shots", sum(strokes)), "state.shots", 0, 10**6)
    winner = data.get("winner")
    if winner is not None:
        _int(winner, "state.winner", 0, n - 1)
    on = np.asarray(on, bool)
    others = [ids[k] for k in range(1, len(ids)) if on[k] and k != to_play + 1]
    if others:
        own = ids[to_play + 1]
        raise PositionError(f"balls.{others[0]}", f"only the cue ball and the striker's ball {own!r} are on the "
                                                  f"table in golf (AMB-48); remove {', '.join(map(repr, others))}")
    i = lambda x: jnp.asarray(x, jnp.int32)  # noqa: E731
    pad = lambda v, fill: i(list(v) + [fill] * (P - n))  # noqa: E731
    sheet = np.zeros((P, gf.N_POCKETS), np.int32)
    sheet[:n, 0] = strokes  # the per-pocket split of earlier rounds is not in the file; totals are
    return gf.GolfState(
        to_play=i(to_play), phase=i(_PHASE_CODE[phase]), num_players=i(n), first=i(first), pocket=i(pocket),
        next_pocket=pad(nxt, gf.N_POCKETS + 1), strokes=pad(strokes, 0), sheet=i(sheet), opening=jnp.asarray(opening),
        choices=i(sum(1 << gf.CHOICE_NAMES.index(c) for c in set(choices))), shots=i(shots),
        winner=i(-1 if winner is None else winner),
    )


def state_to_dict(state: gf.GolfState, ids=None) -> dict:
    """The JSON ``state`` of a GolfState (the inverse of :func:`state_from_dict`)."""
    n = int(state.num_players)
    bits = int(state.choices)
    winner = int(state.winner)
    return {
        "num_players": n, "first": int(state.first), "to_play": int(state.to_play),
        "phase": gf.GOLF_PHASE_NAMES[int(state.phase)], "pocket": int(state.pocket),
        "next_pocket": [int(v) for v in np.asarray(state.next_pocket)[:n]],
        "strokes": [int(v) for v in np.asarray(state.strokes)[:n]], "opening": bool(state.opening),
        "choices": [name for k, name in enumerate(gf.CHOICE_NAMES) if bits >> k & 1], "shots": int(state.shots),
        "winner": winner if winner >= 0 else None,
    }


def read_state(position: Position):
    """The referee state of ``position`` (its ``state``, or the start of a frame); its fields
    must agree (:func:`cuegym.positions.consistency.golf`)."""
    state = state_from_dict(position.state, position.ids, position.on_table())
    consistency.golf(state, int(state.num_players))
    return state


def prepare(position: Position, shot) -> Prepared:
    """Check ``shot`` against the golf state and place a cue ball in hand. Raises
    PositionError naming the field."""
    ids = position.ids
    xy, on = position.xy(), position.on_table()
    state = read_state(position)
    phase = int(state.phase)
    if phase == FRAME_OVER:
        raise PositionError("state.phase", "the game is over; start a new position to play on")
    if phase == gf.HOUSE_CHOICE:
        raise PositionError("state.phase", "the cue ball is in hand with the own ball in the house: give only "
                                           "\"choice\", one of " + ", ".join(gf.CHOICE_NAMES) + " (GF-23)")
    if shot.cue_ball != "cue":
        raise PositionError("shot.cue_ball", f"in golf the cue ball is \"cue\" (GF-03), got {shot.cue_ball!r}")
    spec = get_spec(position.table)
    if phase == IN_HAND_HOUSE:
        place = shot.place if shot.place is not None else position.balls.get("cue")
        if place is None:
            raise PositionError("shot.place", "the cue ball is in hand: give its place [x, y] in the house")
        place = np.asarray(place, float)
        if not bool(gf.placement_ok(spec, jnp.asarray(xy), jnp.asarray(on), jnp.asarray(place), phase)):
            raise PositionError("shot.place", f"{place.tolist()} is not a legal place for the cue ball in hand: in the "
                                              f"house (y < {spec.head_line} m), clear of every ball (GF-27)")
        xy, on = xy.copy(), on.copy()
        xy[0], on[0] = place, True
    elif shot.place is not None:
        raise PositionError("shot.place", f"no ball in hand in phase {gf.GOLF_PHASE_NAMES[phase]!r}; leave place out")
    if shot.call is not None or shot.nominate is not None:
        raise PositionError("shot.call" if shot.call is not None else "shot.nominate", "golf has no call or nomination")
    inject = shot.inject or {}
    events = inject.get("events", ()) if isinstance(inject, Mapping) else ()
    bad = [e for e in events if e not in pool.POOL_INJECT_NAMES]
    if bad or not isinstance(inject, Mapping):
        raise PositionError("shot.inject", f"events are {', '.join(pool.POOL_INJECT_NAMES)}; got {inject!r}")
    ball = inject.get("ball")
    if ball is not None and ball not in ids:
        raise PositionError("shot.inject.ball", f"unknown ball {ball!r}; one of {', '.join(ids)}")
    choice = -1
    if shot.choice is not None:  # the interfering player (POOL-GEN-74/75), by ball id: player p is ball p + 1
        if shot.choice not in ids[1:]:
            raise PositionError("shot.choice", f"the interfering player's ball, one of {', '.join(ids[1:])}")
        choice = ids.index(shot.choice) - 1
    decl = pool.declare(struck=0, choice=choice, inject=events,
                        inject_ball=ids.index(ball) if ball is not None else -1)
    return Prepared(gf, state, decl, at_rest(xy, on), xy, on)


@functools.cache
def _judge(spec):
    return jax.jit(functools.partial(gf.judge, spec))


@functools.cache
def _choose(spec):
    return jax.jit(functools.partial(gf.choose, spec))


def ruling_dict(ruling, ids, n: int) -> dict:
    """A golf ruling as JSON for ``n`` players: the common fields of
    :func:`cuegym.positions.state.ruling_to_dict` (``points`` the strokes charged, ``scores``
    the totals) plus strokes, potted, pocket, next_pocket, opening and choices."""
    out = ruling_to_dict(ruling._replace(phase=jnp.asarray(0)), ids)
    bits = int(ruling.choices)
    per_player = lambda x: [int(v) for v in np.asarray(x)[:n]]  # noqa: E731
    out.update(
        phase=gf.GOLF_PHASE_NAMES[int(ruling.phase)], points=per_player(ruling.points),
        scores=per_player(ruling.scores), debt=per_player(ruling.debt), strokes=per_player(ruling.strokes),
        potted=bool(ruling.potted), pocket=int(ruling.pocket), next_pocket=per_player(ruling.next_pocket),
        opening=bool(ruling.opening), choices=[name for k, name in enumerate(gf.CHOICE_NAMES) if bits >> k & 1],
    )
    return out


def _next(position: Position, ruling, state) -> dict:
    xy, on = np.asarray(ruling.xy), np.asarray(ruling.on)
    out = {"game": position.game, "table": position.table,
           "balls": {i: [rounded(xy[k, 0]), rounded(xy[k, 1])] for k, i in enumerate(position.ids) if on[k]},
           "state": state_to_dict(state, position.ids)}
    return out


def judge_position(position: Position, prepared: Prepared, summary, final) -> tuple[dict, dict]:
    """Rule on a stroke: ``(ruling, next position)`` as JSON-ready dicts."""
    ruling, state = _judge(get_spec(position.table))(prepared.state, prepared.decl, summary,
                                                     jnp.asarray(prepared.xy), jnp.asarray(prepared.on), final)
    return ruling_dict(ruling, position.ids, int(state.num_players)), _next(position, ruling, state)


def choose_position(position: Position, choice: str | None) -> tuple[dict, dict]:
    """Phase ``house_choice``: apply the striker's option (CHOICE_NAMES, GF-23)."""
    ids = position.ids
    xy, on = position.xy(), position.on_table()
    state = read_state(position)
    index = open_choice(state, gf.HOUSE_CHOICE, gf.GOLF_PHASE_NAMES, gf.CHOICE_NAMES, choice)
    ruling, state = _choose(get_spec(position.table))(state, jnp.asarray(xy), jnp.asarray(on),
                                                      jnp.asarray(index, jnp.int32))
    return ruling_dict(ruling, ids, int(state.num_players)), _next(position, ruling, state)
