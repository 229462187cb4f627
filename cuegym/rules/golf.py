"""Golf referee (catalogue section GF, «Гольф»), pure JAX, over the general pool rules
(:mod:`cuegym.rules.pool`, POOL-GEN; AMB-01: POOL-GEN applies where GF says nothing).

Golf billiards on ``snooker-12ft`` (GF-01): each player has his own object ball (ball p + 1;
the cue ball, 0, is shared; GF-03) and plays it into the six pockets in turn, one round per
pocket (GF-11..18, pockets in the order of GF-05/AMB-47, :data:`POCKET_IDS`), a series lasting
through fouls and misses until his legal pot (GF-19, AMB-50, overriding POOL-GEN-05/31/68).
Every stroke costs 1, a foul 3 more (GF-06/07/22); the lowest total wins (AMB-51). The number
of players (2..6, :data:`MAX_PLAYERS`) is a traced int32 in :class:`GolfState`, so one
compiled program serves every count.

``judge(spec, state, decl, summ, start_xy, start_on, final, shot=None)`` rules on one stroke
and returns ``(GolfRuling, GolfState)``; :func:`choose` settles ``house_choice`` (GF-23); jit
with ``spec`` static (:data:`jit_judge`) and vmap over tables. State, phases and the readings
(table lines, order of play, opening, fouls, re-spots): docs/rules.md, "Golf".
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.physics.tables import POCKETS
from cuegym.rules import pool
from cuegym.rules.base import FRAME_OVER, HOUSE_CHOICE, IN_HAND_HOUSE, NORMAL, PHASE_CODES, Clauses, Declaration

GAME = "golf"
TABLE = "snooker-12ft"  # GF-01: a snooker table with snooker balls
MAX_PLAYERS = 6
N_BALLS = MAX_PLAYERS + 1
CUE = 0
BALL_NAMES = ("cue",) + tuple(str(k) for k in range(1, MAX_PLAYERS + 1))
N_POCKETS = 6
POCKET_NAMES = ("FR", "MR", "HR", "HL", "ML", "FL")  # golf pockets 1..6 (AMB-47)
POCKET_IDS = np.asarray([POCKETS.index(p) for p in POCKET_NAMES], np.int32)
FOUL_STROKES = 3  # GF-07: a foul adds three

GOLF_PHASE_NAMES = PHASE_CODES[: HOUSE_CHOICE + 1]
"""Phase names by code: the shared codes 0..5 (``normal``, ``in_hand_house``,
``frame_over`` used here), snooker's 6/7 (unused here) and 8 ``house_choice``."""

REAR_SPOT, FRONT_SPOT = 0, 1
CHOICE_NAMES = ("rear_spot", "front_spot")
"""GF-23's options with the cue ball in hand and the own ball in the house: (1) the own ball
on the rear spot, played from the house; (2) the cue ball on the front spot, played at the
ball in the house (bit k of ``choices`` set when CHOICE_NAMES[k] is open)."""


class GolfState(NamedTuple):
    """Referee state between strokes (one table). P = :data:`MAX_PLAYERS`, N = :data:`N_BALLS`.

    to_play () int32: the striker (the player whose series it is).
    phase () int32: a code of :data:`GOLF_PHASE_NAMES`.
    num_players () int32: players in the game, 2..6 (players >= it take no part).
    first () int32: the first player of every round (the playing order is first, first + 1,
      ... modulo num_players; decided by lag or lot, AMB-51).
    pocket () int32: the round's pocket, 1..6 (7 once the game is over).
    next_pocket (P,) int32: each player's next pocket (pocket + 1 for players who have
      finished this round's series; 7: all done).
    strokes (P,) int32: each player's running total (GF-06/07).
    sheet (P, 6) int32: the score sheet, strokes per player per pocket series (GF-12).
    opening () bool: the next stroke is an opening stroke (pocket 1: GF-09).
    choices () int32: in ``house_choice``, bit k set when CHOICE_NAMES[k] is open.
    shots () int32: strokes played in the game (replays excluded).
    winner () int32: -1 until the game is over, and after it when the lowest total is shared.
    """

    to_play: jnp.ndarray
    phase: jnp.ndarray
    num_players: jnp.ndarray
    first: jnp.ndarray
    pocket: jnp.ndarray
    next_pocket: jnp.ndarray
    strokes: jnp.ndarray
    sheet: jnp.ndarray
    opening: jnp.ndarray
    choices: jnp.ndarray
    shots: jnp.ndarray
    winner: jnp.ndarray

    @property
    def scores(self) -> jnp.ndarray:
        """(P,) int32 the players' totals under the name every referee state uses: the strokes."""
        return self.strokes


class GolfRuling(NamedTuple):
    """The referee's decision on one stroke or choice: the fields of
    :class:`cuegym.rules.base.Ruling` (``points`` = ``strokes`` charged, ``scores`` = the
    totals after it, ``debt`` zero, ``warning`` False), plus:

    strokes (P,) int32: strokes charged to each player for this stroke (1 + 3 for a foul to
      the striker; 3 to a player injected as interfering, POOL-GEN-74/75).
    potted () bool: the striker's ball went legally into the round's pocket (his series is
      over).
    pocket () int32, next_pocket (P,) int32, opening () bool, choices () int32: as the next
      GolfState.
    sheet (P, 6) int32: the score sheet after the stroke.
    leaders (P,) bool: at the end of the game, the players with the lowest total.
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
    strokes: jnp.ndarray
    potted: jnp.ndarray
    pocket: jnp.ndarray
    next_pocket: jnp.ndarray
    opening: jnp.ndarray
    choices: jnp.ndarray
    sheet: jnp.ndarray
    leaders: jnp.ndarray


def _i(x):
    return jnp.asarray(x, jnp.int32)


def _check(num_players, first):
    if not 2 <= int(num_players) <= MAX_PLAYERS:
        raise ValueError(f"num_players must be in 2..{MAX_PLAYERS} (got {num_players})")
    if not 0 <= int(first) < int(num_players):
        raise ValueError(f"first must be in 0..{int(num_players) - 1} (got {first})")


def start_spots(spec):
    """(cue centre (2,), object ball (2,)) [m] at the start of a pocket-1 series: the cue ball
    on the centre spot, the object ball on the rear spot (GF-04, GF-08, AMB-48)."""
    s = spec.spots()
    return np.asarray(s["centre"], np.float64), np.asarray(s["rear"], np.float64)


def initial_layout(spec, num_players: int, first: int = 0):
    """The layout at the start of the game (GF-04/08): the cue ball on the centre spot, the
    first player's ball on the rear spot, every other ball off the table (AMB-48). Returns
    (xy (N, 2) [m], on (N,) bool)."""
    _check(num_players, first)
    cue, ball = start_spots(spec)
    xy = np.zeros((N_BALLS, 2))
    xy[CUE], xy[first + 1] = cue, ball
    on = np.isin(np.arange(N_BALLS), [CUE, first + 1])
    return jnp.asarray(xy), jnp.asarray(on)


def initial_state(num_players: int, first: int = 0) -> GolfState:
    """The start of the game: ``first`` opens at pocket 1 (GF-08..11); ``num_players`` in
    2..6 (GF-02)."""
    _check(num_players, first)
    active = np.arange(MAX_PLAYERS) < num_players
    return GolfState(
        to_play=_i(first), phase=_i(NORMAL), num_players=_i(num_players), first=_i(first), pocket=_i(1),
        next_pocket=jnp.asarray(np.where(active, 1, N_POCKETS + 1), jnp.int32),
        strokes=jnp.zeros(MAX_PLAYERS, jnp.int32), sheet=jnp.zeros((MAX_PLAYERS, N_POCKETS), jnp.int32),
        opening=jnp.asarray(True), choices=_i(0), shots=_i(0), winner=_i(-1),
    )


def legal_targets(state: GolfState):
    """(N,) bool: the ball the striker must hit first, his own (GF-21, POOL-GEN-34)."""
    return jnp.arange(N_BALLS) == state.to_play + 1


def target_pocket(state: GolfState):
    """() int32: the physics pocket id (``cuegym.physics.POCKETS``) of the round's pocket."""
    return jnp.asarray(POCKET_IDS)[jnp.clip(state.pocket - 1, 0, N_POCKETS - 1)]


def legal_choices(state: GolfState):
    """(2,) bool: the GF-23 options open in ``house_choice``, in CHOICE_NAMES order."""
    return ((state.choices >> jnp.arange(2)) & 1).astype(bool) & (state.phase == HOUSE_CHOICE)


def in_hand_region(spec, phase=IN_HAND_HOUSE):
    """(low (2,), high (2,)) [m]: where the cue ball in hand may be centred (the house,
    strictly behind the front line: GF-27, POOL-GEN-15/30). ``phase`` is accepted for the
    env's uniform call; golf has only the house."""
    return pool.in_hand_region(spec)


def placement_ok(spec, xy, on, place, phase):
    """() bool: in phase ``in_hand_house`` the cue ball may go at ``place`` (2,) [m]: in
    the house, not overlapping a ball on the table (POOL-GEN-15/30); False in any other
    phase (the cue ball is not in hand)."""
    return (jnp.asarray(phase) == IN_HAND_HOUSE) & pool.placement_ok(spec, xy, on, place, CUE)


def _front_spot_free(spec, xy, on):
    """() bool: no object ball on the table overlaps a cue ball on the front spot."""
    front = jnp.asarray(spec.spots()["front"], jnp.float64)
    d2 = jnp.sum((xy - front) ** 2, -1)
    objects = on & (jnp.arange(N_BALLS) != CUE)
    return jnp.all(~objects | (d2 >= (2 * spec.ball_radius) ** 2))


def _next_in_order(state: GolfState, player):
    """(next player () int32, new round () bool): the player after ``player`` in the order
    first, first + 1, ... (mod num_players); a new round when it wraps to ``first``."""
    n = state.num_players
    pos = (player - state.first) % n
    new_round = pos + 1 >= n
    return ((player + 1) % n).astype(jnp.int32), new_round


def judge(spec, state: GolfState, decl: Declaration, summ, start_xy, start_on, final, shot=None):
    """Rule on one stroke.

    Args:
      spec: the table's TableSpec (static; ``snooker-12ft``).
      state: GolfState before the stroke (phase ``normal`` or ``in_hand_house``).
      decl: a Declaration (:func:`cuegym.rules.pool.declare`): ``struck`` 0, ``inject`` bits
        of ``pool.POOL_INJECT_NAMES`` with ``inject_ball``; ``choice`` names the interfering
        player for ``opponent_distraction`` / ``opponent_moved_ball`` (-1: the next player).
      summ: the stroke's ShotSummary; final: its final BallState.
      start_xy (N, 2) [m], start_on (N,) bool: the layout before the stroke (a cue ball in
        hand already placed).
      shot: the stroke's Shot, or None; its elevation and tip offset decide whether a jump
        was made properly (POOL-GEN-43..45).

    Returns ``(GolfRuling, GolfState)``.
    """
    c = Clauses()
    n = N_BALLS
    ids = jnp.arange(n)
    striker = state.to_play
    own = striker + 1
    is_own = ids == own
    start_xy = jnp.asarray(start_xy, jnp.float64)
    start_on = jnp.asarray(start_on, bool)
    in_hand = state.phase == IN_HAND_HOUSE
    target = target_pocket(state)
    c.add("GF-05").add("GF-06").add("POOL-GEN-01").add("POOL-GEN-28")

    # --- facts of the stroke ----------------------------------------------------------------
    facts = pool.stroke_facts(decl, summ, start_xy, start_on, final, CUE)
    pocketed, off = facts.pocketed, facts.off
    into_target = pocketed[own] & (summ.pocket[own] == target)
    c.add("POOL-GEN-24", jnp.any(pocketed)).add("POOL-GEN-46", jnp.any(off))
    c.add("POOL-GEN-48", pool.injected(decl, "ball_touched_foreign_object"))
    dropped, moved, outside = pool.replay_reasons(decl, summ, start_xy, start_on, final, facts)
    c.add("POOL-GEN-55", dropped).add("POOL-GEN-56", moved)
    c.add("POOL-GEN-62", pool.injected(decl, "outside_interference")).add("POOL-GEN-63", pool.injected(decl, "emergency"))
    replay = dropped | moved | outside

    # --- the striker's fouls (each +3, one per stroke: GF-22, POOL-GEN-52) -------------------
    fouls = []

    def foul(cond, *clauses):
        for cl in clauses:
            c.add(cl, cond)
        fouls.append((cond, FOUL_STROKES))
        return cond

    legal = legal_targets(state)
    legal_first = pool.hit_legal_first(summ, legal)
    foul(~legal_first, "POOL-GEN-34", "GF-21")  # AMB-49: missing the own ball is a foul
    c.add("POOL-GEN-35", (summ.near_ball >= 0) & (summ.near_gap <= pool.FROZEN_EPS) & ~legal_first)
    # GF-21 narrows POOL-GEN-36: the cue ball or the own ball to a cushion, or the own ball
    # into the round's pocket (a pot elsewhere is GF-20's foul).
    after_ok = pool.after_contact_ok(summ, is_own & into_target, is_own, CUE)
    foul(legal_first & ~after_ok, "GF-21")
    c.add("POOL-GEN-36", legal_first & ~after_ok)
    # POOL-GEN-70 where GF is silent: a ball frozen to a cushion needs more than a touch of
    # its own cushion (reading: applied on top of GF-21, docs/rules.md).
    applies, frozen_ok = pool.frozen_ball_ok(spec, summ, start_xy, start_on, is_own & into_target, is_own, CUE)
    c.add("POOL-GEN-71", applies)
    foul(legal_first & applies & ~frozen_ok, "POOL-GEN-70")
    reached_rear = jnp.isfinite(summ.cushion_first_t[own, pool.FOOT])
    failed_opening = foul(state.opening & ~reached_rear, "GF-09", "GF-10")
    c.add("GF-09", state.opening).add("GF-16", ~state.opening)
    foul(pocketed[own] & ~into_target, "GF-20", "GF-25")
    foul(off[own], "GF-24", "GF-26", "POOL-GEN-49")
    foul(pocketed[CUE], "POOL-GEN-37", "GF-27")  # AMB-50: a foul in golf too
    foul(off[CUE], "POOL-GEN-49", "GF-27", "POOL-GEN-51")
    first_in, later_in = pool.house_fouls(spec, summ, start_xy, start_on, CUE)
    foul(in_hand & first_in, "POOL-GEN-17")
    foul(in_hand & later_in, "POOL-GEN-19")
    c.add("POOL-GEN-16", in_hand & legal_first & ~first_in)
    c.add("POOL-GEN-14", in_hand).add("POOL-GEN-15", in_hand).add("POOL-GEN-13", in_hand & pool.in_play(spec, summ, CUE))
    c.add("POOL-GEN-20", in_hand & pool.in_play(spec, summ, CUE))
    # a cue ball in hand placed outside the house (the validator refuses it first)
    foul(in_hand & ~pool.in_house(spec, start_xy[CUE]), "POOL-GEN-30", "POOL-GEN-15")
    cf = pool.cue_fouls(spec, decl, summ, start_xy, start_on, legal, shot, CUE)
    foul(cf.improper, "POOL-GEN-04")
    foul(cf.double_hit, "POOL-GEN-39")
    foul(cf.frozen_push, "POOL-GEN-40")
    foul(cf.frozen_other, "POOL-GEN-41")
    foul(cf.push, "POOL-GEN-42")
    foul(cf.jump_miscue, "POOL-GEN-44", "POOL-GEN-43")
    foul(cf.bad_jump, "POOL-GEN-45", "POOL-GEN-43")
    touched = pool.injected(decl, "touched_ball")
    foul(touched & (decl.inject_ball == CUE), "POOL-GEN-22", "POOL-GEN-38")
    foul(touched & (decl.inject_ball != CUE), "POOL-GEN-38")
    foul(pool.injected(decl, "feet_off_floor"), "POOL-GEN-26")
    foul(pool.injected(decl, "early_stroke"), "POOL-GEN-27")
    foul(pool.injected(decl, "out_of_turn"), "POOL-GEN-75")
    is_foul, penalty, n_fouls = pool.one_foul(fouls)
    is_foul = is_foul & ~replay
    c.add("GF-07", is_foul).add("GF-22", is_foul & (n_fouls > 1)).add("POOL-GEN-52", is_foul & (n_fouls > 1))
    c.add("POOL-GEN-32", is_foul & jnp.any(pocketed & (ids != CUE)))
    c.add("GF-19", is_foul | ~into_target)

    # --- strokes charged (GF-06/07/22); an interfering player is charged a foul ---------------
    players = jnp.arange(MAX_PLAYERS)
    charged = jnp.where((players == striker) & ~replay, 1 + jnp.where(is_foul, penalty, 0), 0)
    interfering = pool.injected(decl, "opponent_distraction") | pool.injected(decl, "opponent_moved_ball")
    nxt_player, _ = _next_in_order(state, striker)
    named = (decl.choice >= 0) & (decl.choice < state.num_players) & (decl.choice != striker)
    meddler = jnp.where(named, decl.choice, nxt_player)
    c.add("POOL-GEN-74", interfering).add("POOL-GEN-75", pool.injected(decl, "opponent_moved_ball"))
    charged = (charged + jnp.where(interfering & (players == meddler), FOUL_STROKES, 0)).astype(jnp.int32)
    totals = state.strokes + charged
    sheet_col = jnp.clip(state.next_pocket - 1, 0, N_POCKETS - 1)
    sheet = state.sheet.at[players, sheet_col].add(charged)
    c.add("GF-12", jnp.any(charged > 0))

    # --- the layout --------------------------------------------------------------------------
    potted = into_target & ~is_foul & ~replay
    c.add("POOL-GEN-61", potted & jnp.any(pocketed & ~is_own & (ids != CUE)))
    xy = final.r[:, :2]
    on = facts.stays
    # GF-25/26 (POOL-GEN-33: golf says so; POOL-GEN-50: once all have stopped): the own ball
    # pocketed on a foul or elsewhere, or off the table, back on the rear spot
    to_spot = is_own & (pocketed | off) & ~potted
    c.add("POOL-GEN-33", jnp.any(to_spot)).add("POOL-GEN-50", off[own] & ~potted)
    xy, on = pool.respot_long_string(spec, xy, on, to_spot, CUE)
    c.add("POOL-GEN-57", jnp.any(to_spot))
    rear = jnp.asarray(spec.spots()["rear"], jnp.float64)
    c.add("POOL-GEN-59", jnp.any(to_spot) & on[CUE] & jnp.any(jnp.abs(xy[own] - rear) > 1e-9))
    # GF-10: a failed opening puts both balls back where the series started
    cue0, ball0 = (jnp.asarray(p) for p in start_spots(spec))
    reset = failed_opening & ~replay
    xy = jnp.where(reset & (ids == CUE)[:, None], cue0, jnp.where(reset & is_own[:, None], ball0, xy))
    on = jnp.where(reset, (ids == CUE) | is_own, on)
    cue_gone = ~on[CUE]
    c.add("GF-17", on[CUE]).add("GF-27", cue_gone)

    # --- the series, the round, the game (GF-11..18, AMB-51) --------------------------------
    after, new_round = _next_in_order(state, striker)
    pocket = jnp.where(potted & new_round, state.pocket + 1, state.pocket).astype(jnp.int32)
    over = pocket > N_POCKETS
    to_play = jnp.where(potted, jnp.where(new_round, state.first, after), striker).astype(jnp.int32)
    next_pocket = state.next_pocket.at[striker].add(jnp.where(potted, 1, 0))
    c.add("GF-11", potted & (state.pocket == 1)).add("GF-13", potted & (state.pocket == 1) & ~new_round)
    c.add("GF-14", potted & (state.pocket == 1) & new_round).add("GF-15", potted & new_round & ~over)
    c.add("GF-18", potted)
    # the incoming player's ball on the rear spot (AMB-48), the cue ball where it stopped
    # (GF-14/15/17) except in round 1, where every series starts from the set-up (GF-13)
    incoming = ids == to_play + 1
    same_start = potted & ~new_round & (state.pocket == 1)
    xy = jnp.where(same_start & (ids == CUE)[:, None], cue0, xy)
    placed_xy, placed_on = pool.respot_long_string(spec, xy, on & ~is_own, incoming, CUE)
    xy = jnp.where(potted & ~over, placed_xy, xy)
    on = jnp.where(potted & ~over, placed_on, on)
    opening = jnp.where(potted, same_start, state.opening & ~(reached_rear & ~replay))

    # --- phase ------------------------------------------------------------------------------
    ball_in_house = on[own] & pool.in_house(spec, xy[own])
    choices = jnp.where(cue_gone & ball_in_house,
                        (1 << REAR_SPOT) | jnp.where(_front_spot_free(spec, xy, on), 1 << FRONT_SPOT, 0), 0).astype(jnp.int32)
    c.add("GF-23", choices > 0)
    phase = jnp.where(cue_gone, jnp.where(ball_in_house, HOUSE_CHOICE, IN_HAND_HOUSE), NORMAL)
    active = players < state.num_players
    best = jnp.min(jnp.where(active, totals, jnp.iinfo(jnp.int32).max))
    leaders = over & active & (totals == best)
    winner = jnp.where(over & (jnp.sum(leaders) == 1), jnp.argmax(leaders), -1).astype(jnp.int32)
    phase = jnp.where(over, FRAME_OVER, phase).astype(jnp.int32)

    # a replay: the position before the stroke, the same striker and phase, nothing charged
    # except an interfering player
    xy = jnp.where(replay, start_xy, xy)
    on = jnp.where(replay, start_on, on)
    keep = lambda new, old: jnp.where(replay, old, new)  # noqa: E731
    to_play, phase, pocket = keep(to_play, state.to_play), keep(phase, state.phase), keep(pocket, state.pocket)
    next_pocket, opening = keep(next_pocket, state.next_pocket), keep(opening, state.opening)
    choices = keep(choices, state.choices)
    over = over & ~replay
    winner = jnp.where(replay, state.winner, winner).astype(jnp.int32)
    leaders = leaders & ~replay

    counted = is_own & potted
    ruling = GolfRuling(
        foul=is_foul, fouler=jnp.where(is_foul, striker, jnp.where(interfering, meddler, -1)).astype(jnp.int32),
        clauses=c.mask, points=charged, scores=totals, counted=counted, respotted=to_spot & ~replay, xy=xy, on=on,
        to_play=to_play, phase=phase, replay=replay, warning=jnp.asarray(False), frame_over=over, winner=winner,
        debt=jnp.zeros(MAX_PLAYERS, jnp.int32), strokes=charged, potted=potted, pocket=pocket, next_pocket=next_pocket,
        opening=opening, choices=choices, sheet=sheet, leaders=leaders,
    )
    nxt = GolfState(
        to_play=to_play, phase=phase, num_players=state.num_players, first=state.first, pocket=pocket,
        next_pocket=next_pocket, strokes=totals, sheet=sheet, opening=opening, choices=choices,
        shots=state.shots + jnp.where(replay, 0, 1), winner=winner,
    )
    return ruling, nxt


def choose(spec, state: GolfState, xy, on, choice):
    """Phase ``house_choice`` (GF-23, AMB-52): the striker, with the cue ball in hand and his
    ball in the house, takes one of CHOICE_NAMES (one not open is taken as REAR_SPOT):

    * REAR_SPOT: his ball goes on the rear spot (POOL-GEN-57..60 if taken) and he plays from
      the house (phase ``in_hand_house``; POOL-GEN-16/17 then apply);
    * FRONT_SPOT: the cue ball goes on the front spot, on the front line, which GF-23 allows
      over POOL-GEN-30, and he plays from there at the ball in the house (phase ``normal``).

    ``xy`` (N, 2) [m], ``on`` (N,) bool: the layout the stroke left. Returns
    ``(GolfRuling, GolfState)``; nothing is charged.
    """
    c = Clauses()
    ids = jnp.arange(N_BALLS)
    xy = jnp.asarray(xy, jnp.float64)
    on = jnp.asarray(on, bool)
    choice = jnp.asarray(choice, jnp.int32)
    open_ = legal_choices(state)[jnp.clip(choice, 0, 1)] & (choice >= 0) & (choice < 2)
    choice = jnp.where(open_, choice, REAR_SPOT)
    own = ids == state.to_play + 1
    rear_xy, rear_on = pool.respot_long_string(spec, xy, on & ~own & (ids != CUE), own, CUE)
    front = jnp.asarray(spec.spots()["front"], jnp.float64)
    front_xy = jnp.where((ids == CUE)[:, None], front, xy)
    to_front = choice == FRONT_SPOT
    new_xy = jnp.where(to_front, front_xy, rear_xy)
    new_on = jnp.where(to_front, on | (ids == CUE), rear_on & (ids != CUE))
    phase = jnp.where(to_front, NORMAL, IN_HAND_HOUSE).astype(jnp.int32)
    c.add("GF-23").add("POOL-GEN-57", ~to_front).add("POOL-GEN-33", ~to_front)
    p = MAX_PLAYERS
    zero = jnp.zeros(p, jnp.int32)
    ruling = GolfRuling(
        foul=jnp.asarray(False), fouler=_i(-1), clauses=c.mask, points=zero, scores=state.strokes,
        counted=jnp.zeros(N_BALLS, bool), respotted=own & ~to_front, xy=new_xy, on=new_on, to_play=state.to_play,
        phase=phase, replay=jnp.asarray(False), warning=jnp.asarray(False), frame_over=jnp.asarray(False), winner=_i(-1),
        debt=zero, strokes=zero, potted=jnp.asarray(False), pocket=state.pocket, next_pocket=state.next_pocket,
        opening=state.opening, choices=_i(0), sheet=state.sheet, leaders=jnp.zeros(p, bool),
    )
    return ruling, state._replace(phase=phase, choices=_i(0))


jit_judge = jax.jit(judge, static_argnums=0)
jit_choose = jax.jit(choose, static_argnums=0)
