"""The snooker referee's types (SN, and AS through :class:`Variant`): the static variant,
the clause citer that maps SN ids to a variant's own, the state carried between strokes and
the ruling. Split from :mod:`cuegym.rules.snooker`, which re-exports them (``sn.SnookerState``
and so on), to keep the referee module short.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from cuegym.rules.base import Clauses


class Variant(NamedTuple):
    """What differs between international (SN) and American snooker (AS); a static value.

    extras: SN's free ball, miss, angled, touching ball and push geometry (AS has none, AMB-04).
    flat_penalty: 0 for SN's table of values (SN-71..89), 7 for AS (AS-39: every foul 7).
    off_table_foul: an object ball leaving the table is a foul (SN-37/86; AS-32: no penalty).
    after_contact: after hitting the ball on, a pot or a ball to a cushion is required (AS-18).
    break_cushions: the break needs a red to a cushion or a pocket and the cue ball to a
      cushion after the first contact (AS-15, AMB-45 literal).
    higher_spots_only: an occupied own spot sends a colour only to a higher colour's spot (AS-35).
    pool_cue_fouls: POOL-GEN's cue-action fouls, double hit, push on a frozen ball, a frozen
      ball not on played into (POOL-GEN-39..41): AS-01 puts AS on the American pocket
      games' principles and names none of its own (AMB-04); SN has its own (SN-52..56, 73).
    clause_map: None (SN ids as they are) or ((SN id, (ids of this game...)), ...): the
      analogous clause of the other section for each SN id the judge cites.
    prefix: the section prefix of ids cited directly.
    """

    extras: bool = True
    flat_penalty: int = 0
    off_table_foul: bool = True
    after_contact: bool = False
    break_cushions: bool = False
    higher_spots_only: bool = False
    pool_cue_fouls: bool = False
    clause_map: tuple | None = None
    prefix: str = "SN"


SNOOKER = Variant()


class Cite:
    """Clauses cited under a variant: SN ids are translated by ``clause_map``; ids with the
    variant's own prefix are cited as they are."""

    def __init__(self, variant: Variant):
        self.c = Clauses()
        self.map = None if variant.clause_map is None else dict(variant.clause_map)
        self.prefix = variant.prefix + "-"

    def add(self, clause_id, cond=True):
        if self.map is None or clause_id.startswith((self.prefix, "POOL-GEN-")):
            ids = (clause_id,)
        else:
            ids = self.map.get(clause_id, ())
        for k in ids:
            self.c.add(k, cond)
        return self

    @property
    def mask(self):
        return self.c.mask


class SnookerState(NamedTuple):
    """Referee state between strokes (one table). N = 22 balls, P = 2 players.

    to_play () int32: the player who decides next (strokes, nominations, the foul choice).
    phase () int32: a code of :data:`SNOOKER_PHASE_NAMES`.
    scores (P,) int32.
    ball_on () int32: :data:`RED_ON`, :data:`COLOUR_ON` or a colour value 2..7.
    free_ball () bool: a free ball was announced for the next stroke (SN-60).
    breaking () bool: the next stroke is the break (SN-17/18), or a foul on it awaits the
      choice (SN-19).
    choices () int32: in ``foul_choice``, bit k set when CHOICE_NAMES[k] is open.
    miss () bool: the foul being decided on was a miss (SN-57).
    prev_xy (N, 2) [m], prev_on (N,) bool, prev_ball_on () int32, prev_free_ball () bool,
      prev_breaking () bool: the position and referee context before the last stroke (after a
      miss, RESTORE puts the cue ball back there, SN-58; every ball under the option
      ``miss_restore="every_ball"``).
    touching () int32: an object ball touching the cue ball at rest (SN-51), -1 none.
    strokes () int32: strokes played in the frame.
    winner () int32: -1 until the frame is over.
    """

    to_play: jnp.ndarray
    phase: jnp.ndarray
    scores: jnp.ndarray
    ball_on: jnp.ndarray
    free_ball: jnp.ndarray
    breaking: jnp.ndarray
    choices: jnp.ndarray
    miss: jnp.ndarray
    prev_xy: jnp.ndarray
    prev_on: jnp.ndarray
    prev_ball_on: jnp.ndarray
    prev_free_ball: jnp.ndarray
    prev_breaking: jnp.ndarray
    touching: jnp.ndarray
    strokes: jnp.ndarray
    winner: jnp.ndarray


class SnookerRuling(NamedTuple):
    """The referee's decision on one stroke or choice. The fields of
    :class:`cuegym.rules.base.Ruling` (``debt`` always zero, ``warning`` False), plus:

    penalty () int32: the foul's value (0 without a foul; SN-69/71).
    ball_on () int32: the ball on for the next stroke (as ``SnookerState.ball_on``).
    free_ball () bool: a free ball is announced (SN-60).
    snookered () bool, angled () bool: the incoming player's cue ball after a foul (SN-46/49).
    effective () int32: the effective snookering ball (SN-48), -1 none.
    miss () bool: the foul is also a miss (SN-57).
    touching () int32: an object ball touching the cue ball at rest (SN-51), -1 none.
    choices () int32: the options open in ``foul_choice`` (bits of CHOICE_NAMES).
    restore_xy (N, 2) [m], restore_on (N,) bool: the position before the stroke, where the
      RESTORE choice puts the cue ball back (SN-58; every ball with ``miss_restore="every_ball"``).
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
    penalty: jnp.ndarray
    ball_on: jnp.ndarray
    free_ball: jnp.ndarray
    snookered: jnp.ndarray
    angled: jnp.ndarray
    effective: jnp.ndarray
    miss: jnp.ndarray
    touching: jnp.ndarray
    choices: jnp.ndarray
    restore_xy: jnp.ndarray
    restore_on: jnp.ndarray
