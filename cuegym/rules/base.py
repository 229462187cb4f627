"""The referee's data: game state, declaration and ruling, shared by every game.

All three are NamedTuples of JAX arrays (pytrees), so ``judge`` functions are jit- and
vmap-able: a batch of B tables is a leading axis of size B on every field. Shapes for N
balls (16 in the Russian games) and P = 2 players:

* :class:`GameState` — what the rules carry between strokes.
* :class:`Declaration` — what the striker (or the opponent) declared for this stroke,
  plus events injected by tooling for clauses a simulation cannot produce (catalogue tag
  HUMAN, §0.8).
* :class:`Ruling` — what the referee decided: clauses applied, points, the next layout.

Clause ids are carried as a boolean mask over :data:`cuegym.rules.catalogue.CLAUSES`
(``clauses[code(id)]``), which keeps the shape static; :func:`clause_ids` turns a mask back
into ids.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from cuegym.rules.catalogue import ID, NUM_CLAUSES, code

PLAYERS = 2

# Phases: what the next decision is.
NORMAL = 0  # a stroke from the position
IN_HAND_HOUSE = 1  # cue ball in hand, to be placed in the house (RU-GEN-13/18)
IN_HAND_REAR = 2  # cue ball in hand in the temporary house at the rear end (RU-GEN-20)
REMOVE_BALL = 3  # Moscow pyramid: the player to play names an object ball to remove (MP-09)
LAG = 4  # a lag decides who plays next (RU-GEN-06/58, RP-18)
FRAME_OVER = 5
PHASE_NAMES = ("normal", "in_hand_house", "in_hand_rear", "remove_ball", "lag", "frame_over")
IN_HAND_D = 6  # snooker: cue ball in hand in the D (SN-10/17/43)
FOUL_CHOICE = 7  # snooker: the incoming player's choice after a foul (SN-19/50/58/68)
HOUSE_CHOICE = 8  # golf: the set-up after a ball is respotted (GF-23)
PHASE_CODES = PHASE_NAMES + ("in_hand_d", "foul_choice", "house_choice")
"""Every game's phase names by code: one code space, so that an observation's ``phase``
means the same in every game. The Russian games use codes 0..5, snooker 0, 4..7 and golf
0, 1, 5 and 8; each game's names are a prefix of these."""

# Events tooling may inject (catalogue §0.8), bit flags of Declaration.inject. The "by the
# opponent" ones are committed by the player not striking.
INJECT_NAMES = (
    "feet_off_floor",  # RU-GEN-05
    "body_outside_long_cushion",  # RU-GEN-15 / RU-GEN-48
    "early_stroke",  # RU-GEN-39
    "touched_ball",  # RU-GEN-40 (ball)
    "push_shot",  # RU-GEN-41: stroke type the impulsive engine cannot produce
    "double_hit",  # RU-GEN-42
    "improper_strike",  # RU-GEN-04: not with the front face of the tip
    "ball_touched_foreign_object",  # RU-GEN-26 (ball): that ball is off the table
    "rolled_along_cushion",  # RU-GEN-23 (ball): does not count, respotted, no penalty
    "table_shaken",  # RU-GEN-53
    "outside_interference",  # RU-GEN-59
    "emergency",  # RU-GEN-60
    "opponent_stopped_ball",  # RU-GEN-62 (ball, pocket)
    "opponent_distraction",  # RU-GEN-49 / RU-GEN-63
    "opponent_moved_ball",  # RU-GEN-49 (ball)
    "slow_play_timeout",  # RU-GEN-65
)
INJECT = {name: 1 << k for k, name in enumerate(INJECT_NAMES)}


class GameState(NamedTuple):
    """Referee state between strokes (one table). P = 2 players, N balls.

    to_play () int32: the player who decides next.
    phase () int32: one of the phases above.
    scores (P,) int32: points (Russian pyramid, may be negative: AMB-21) or balls credited
      (Americanka, Moscow pyramid: net of balls given back).
    debt (P,) int32: penalty balls owed and not yet paid (AM-17, MP-14).
    owner (N,) int32: the player a pocketed ball is credited to (-1: none).
    owned_at (N,) int32: when it was credited (a running count; the latest is given back
      first, AMB-30), -1 if not owned.
    credits () int32: the running count behind ``owned_at``.
    foul_run () int32: consecutive fouls with no object ball pocketed or moved more than
      1 mm (the stalemate trigger, RP-20 with AMB-26).
    quiet () int32: consecutive strokes that pocketed nothing and moved no object ball by
      more than 2R (the dead-position trigger, RU-GEN-56 with AMB-18).
    last_pocketed () int32: the last object ball legally pocketed (RP-17), -1 none.
    sudden_death () bool: play after 70:70 (RP-19).
    striker () int32: the player whose stroke is being completed while the opponent decides
      (REMOVE_BALL), else equal to ``to_play``.
    winner () int32: -1 until the frame is over.
    strokes () int32: strokes played in the frame.
    """

    to_play: jnp.ndarray
    phase: jnp.ndarray
    scores: jnp.ndarray
    debt: jnp.ndarray
    owner: jnp.ndarray
    owned_at: jnp.ndarray
    credits: jnp.ndarray
    foul_run: jnp.ndarray
    quiet: jnp.ndarray
    last_pocketed: jnp.ndarray
    sudden_death: jnp.ndarray
    striker: jnp.ndarray
    winner: jnp.ndarray
    strokes: jnp.ndarray


def new_state(n_balls: int, to_play: int = 0, phase: int = IN_HAND_HOUSE) -> GameState:
    """The state at the start of a frame: the breaker (``to_play``) has the cue ball in hand
    in the house (RU-GEN-13)."""
    i = lambda x: jnp.asarray(x, jnp.int32)  # noqa: E731
    return GameState(
        to_play=i(to_play),
        phase=i(phase),
        scores=jnp.zeros(PLAYERS, jnp.int32),
        debt=jnp.zeros(PLAYERS, jnp.int32),
        owner=jnp.full(n_balls, -1, jnp.int32),
        owned_at=jnp.full(n_balls, -1, jnp.int32),
        credits=i(0),
        foul_run=i(0),
        quiet=i(0),
        last_pocketed=i(-1),
        sudden_death=jnp.asarray(False),
        striker=i(to_play),
        winner=i(-1),
        strokes=i(0),
    )


class Declaration(NamedTuple):
    """What was declared for a stroke (scalars, int32).

    struck: the ball the cue strikes (Americanka: any ball; otherwise the cue ball, 0).
    call_ball, call_pocket: the call (Russian pyramid, RP-08), -1 when none.
    choice: a ball chosen by a player: the object ball the opponent removes (MP-09) or the
      penalty ball the offender gives back (AM-16, MP-13); -1 lets the referee pick
      (the lowest-numbered ball, resp. the latest pocketed, AMB-30).
    inject: bit flags of :data:`INJECT` (HUMAN events injected by tooling), 0 normally.
    inject_ball, inject_pocket: the ball (and pocket) an injected event names, -1 none.
    """

    struck: jnp.ndarray
    call_ball: jnp.ndarray
    call_pocket: jnp.ndarray
    choice: jnp.ndarray
    inject: jnp.ndarray
    inject_ball: jnp.ndarray
    inject_pocket: jnp.ndarray


def declare(struck=0, call_ball=-1, call_pocket=-1, choice=-1, inject=(), inject_ball=-1, inject_pocket=-1,
            events=None) -> Declaration:
    """Build a :class:`Declaration`; ``inject`` is an iterable of event names, each a key of
    ``events`` (name -> bit; default :data:`INJECT`, a game with events of its own passes
    its table, e.g. ``cuegym.rules.pool.POOL_INJECT``)."""
    events = INJECT if events is None else events
    flags = 0
    for name in inject:
        if name not in events:
            raise ValueError(f"inject: unknown event {name!r}; one of {', '.join(events)}")
        flags |= events[name]
    i = lambda x: jnp.asarray(x, jnp.int32)  # noqa: E731
    return Declaration(i(struck), i(call_ball), i(call_pocket), i(choice), i(flags), i(inject_ball), i(inject_pocket))


class Ruling(NamedTuple):
    """The referee's decision on one stroke (or one non-stroke decision).

    foul () bool; fouler () int32 the player who committed it (-1: none; an injected
      interference is the opponent's foul).
    clauses (C,) bool: catalogue clauses applied (mask over ``catalogue.CLAUSES``).
    points (P,) int32: change of each player's score on this stroke.
    scores (P,) int32: scores after it.
    counted (N,) bool: balls that counted for the striker.
    respotted (N,) bool: balls put back on the table, at ``xy``.
    xy (N, 2) float64 [m], on (N,) bool: the layout the next stroke starts from.
    to_play () int32, phase () int32: who decides next and what.
    replay () bool: the starting position was restored for the same striker (RU-GEN-55/59/60).
    warning () bool: a referee warning was given (RP-22).
    frame_over () bool, winner () int32 (-1: none).
    debt (P,) int32: penalty balls owed after the stroke.
    """

    foul: jnp.ndarray
    fouler: jnp.ndarray
    clauses: jnp.ndarray
    points: jnp.ndarray
    scores: jnp.ndarray
    counted: jnp.ndarray
    respotted: jnp.ndarray
    xy: jnp.ndarray
    on: jnp.ndarray
    to_play: jnp.ndarray
    phase: jnp.ndarray
    replay: jnp.ndarray
    warning: jnp.ndarray
    frame_over: jnp.ndarray
    winner: jnp.ndarray
    debt: jnp.ndarray


class Clauses:
    """Accumulates applied clauses as a static-shape mask: ``c.add("RP-11", cond)``."""

    def __init__(self):
        self.mask = jnp.zeros(NUM_CLAUSES, bool)

    def add(self, clause_id: str, cond=True):
        k = code(clause_id)
        self.mask = self.mask.at[k].set(self.mask[k] | jnp.asarray(cond, bool))
        return self


def clause_ids(mask) -> list[str]:
    """The ids of a clause mask (C,), in catalogue order."""
    return [ID[k] for k in np.nonzero(np.asarray(mask))[0]]
