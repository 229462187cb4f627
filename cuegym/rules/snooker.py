"""International snooker referee (catalogue section SN), pure JAX.

Self-contained (AMB-04): none of the Russian general rules apply, so it has its own state
(:class:`SnookerState`), ruling and decision phases, each exposable with a legal mask. Two
players, 22 balls (``cuegym.positions.SNOOKER_BALLS``) on ``snooker-12ft``;
:func:`initial_layout` is the set-up. Clauses placed here: SN-01, SN-02, SN-03, SN-04,
SN-05, SN-06, SN-07, SN-08, SN-09 (AMB-03); the ball on SN-22, SN-24, SN-25, SN-26, SN-35
(AMB-34); the free ball SN-60, SN-61 (AMB-37); the foul choices SN-19, SN-50, SN-58, SN-68;
in hand in the D SN-10, SN-17, SN-43; the lag when level after the black SN-15.

``judge(spec, state, decl, summ, start_xy, start_on, final)`` rules on one stroke and returns
``(SnookerRuling, SnookerState)``; jit it with ``spec`` static. Types:
:mod:`cuegym.rules.snooker_types`; rule options (the original's readings by default):
:mod:`cuegym.rules.snooker_options`. API and readings: docs/rules.md, "Snooker".
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.physics import POCKETED
from cuegym.physics.racks import snooker_rack
from cuegym.rules import pool
from cuegym.rules import snooker_respot as sr
from cuegym.rules.base import (
    FOUL_CHOICE,
    FRAME_OVER,
    IN_HAND_D,
    INJECT_NAMES,
    LAG,
    NORMAL,
    PHASE_CODES,
    PLAYERS,
)
from cuegym.rules.russian import FROZEN_EPS
from cuegym.rules.snooker_options import DEFAULT, SnookerOptions, cue_ball_back
from cuegym.rules.snooker_sight import Sight, bank_reachable, effective_ball, in_d, sight
from cuegym.rules.snooker_types import SNOOKER, Cite, SnookerRuling, SnookerState, Variant

GAME = "snooker"
N_BALLS = 22
CUE = 0
FIRST_COLOUR = sr.FIRST_COLOUR
PINK, BLACK = 20, 21
BALL_NAMES = ("cue",) + tuple(f"red{k}" for k in range(1, 16)) + sr.COLOUR_NAMES
VALUES = np.asarray([0] + [1] * 15 + [2, 3, 4, 5, 6, 7], np.int32)  # SN-06

RED_ON = 1  # ball_on: a red
COLOUR_ON = 8  # ball_on: any colour, nominated in the declaration (SN-26, AMB-34)
BALL_ON_NAMES = {RED_ON: "red", COLOUR_ON: "colour", **{v: sr.COLOUR_NAMES[v - 2] for v in range(2, 8)}}

SNOOKER_PHASE_NAMES = PHASE_CODES[: FOUL_CHOICE + 1]
"""Phase names, by code: the Russian games' codes 0..5 (``normal``, ``lag`` and ``frame_over``
are used here) plus 6 ``in_hand_d`` and 7 ``foul_choice``."""

PLAY, REPLAY, RESTORE, FROM_D, REBREAK = range(5)
CHOICE_NAMES = ("play", "replay", "restore", "from_d", "rebreak")
"""The incoming player's options after a foul (bit k of ``choices`` is CHOICE_NAMES[k])."""

MIN_PENALTY = 4  # SN-71
SEVEN = 7  # SN-88/89
FINE_CUT = np.pi / 3  # rad: a ball within R/2 may be played only at a cut of 60° or more (AMB-13)
SIMULTANEOUS = 1e-9  # s: two first contacts this close in time are "at once" (SN-87)

# HUMAN events (catalogue §0.8): the shared codes, plus snooker's own (bits after them).
SNOOKER_INJECT_NAMES = INJECT_NAMES + (
    "out_of_turn",  # SN-75
    "mis_spotted_ball",  # SN-31/84 (ball): played with a wrongly re-spotted ball, noticed in time
    "mis_spotted_late",  # SN-32 (ball): noticed only after two strokes: no penalty
    "colour_not_respotted",  # SN-34 (ball): a colour never re-spotted while reds remain
    "used_ball_out_of_play",  # SN-89
)
SNOOKER_INJECT = {name: 1 << k for k, name in enumerate(SNOOKER_INJECT_NAMES)}


def _i(x):
    return jnp.asarray(x, jnp.int32)


def initial_layout(spec):
    """The set-up (SN-07, AMB-03): colours on their spots, the reds' apex just behind the
    pink; the cue ball in hand (off the table). Returns (xy (N, 2) [m], on (N,) bool)."""
    rack = snooker_rack(spec)
    xy = np.zeros((N_BALLS, 2))
    for k, name in enumerate(BALL_NAMES[1:], start=1):
        xy[k] = rack[name]
    on = np.arange(N_BALLS) != CUE
    return jnp.asarray(xy), jnp.asarray(on)


def initial_state(breaker: int = 0) -> SnookerState:
    """The start of a frame (SN-16/17): the breaker has the cue ball in hand in the D, a red
    is on. Two players (SN-04)."""
    xy, on = np.zeros((N_BALLS, 2)), np.ones(N_BALLS, bool)
    return SnookerState(
        to_play=_i(breaker), phase=_i(IN_HAND_D), scores=jnp.zeros(PLAYERS, jnp.int32), ball_on=_i(RED_ON),
        free_ball=jnp.asarray(False), breaking=jnp.asarray(True), choices=_i(0), miss=jnp.asarray(False),
        prev_xy=jnp.asarray(xy), prev_on=jnp.asarray(on), prev_ball_on=_i(RED_ON), prev_free_ball=jnp.asarray(False),
        prev_breaking=jnp.asarray(False), touching=_i(-1), strokes=_i(0), winner=_i(-1),
    )


def frame_breaker(frame: int, first_breaker: int) -> int:
    """Who breaks frame ``frame`` (0-based) of a match: the lot or lag winner's choice breaks
    the first, then breaks alternate (SN-16)."""
    return (first_breaker + frame) % 2


def injected(decl, name: str):
    """() bool: tooling injected the HUMAN event ``name`` (:data:`SNOOKER_INJECT_NAMES`)."""
    return (decl.inject & SNOOKER_INJECT[name]) != 0


def legal_nominations(state: SnookerState, on):
    """(N,) bool: the balls the striker may nominate on the next stroke; none needed where
    all are False (nomination -1). A colour on (SN-26, AMB-34): the colours on the table. A
    free ball (SN-61, AMB-37(b)): any object ball on the table that is not on."""
    ids = jnp.arange(N_BALLS)
    on = jnp.asarray(on, bool)
    colours = on & (ids >= FIRST_COLOUR)
    ball_on = on_set(state.ball_on, on, ids, jnp.asarray(-1))
    free = state.free_ball & on & (ids != CUE) & ~ball_on
    return jnp.where(state.ball_on == COLOUR_ON, colours, free)


def legal_choices(state: SnookerState):
    """(5,) bool: the options open in ``foul_choice``, in CHOICE_NAMES order."""
    return ((state.choices >> jnp.arange(5)) & 1).astype(bool) & (state.phase == FOUL_CHOICE)


def on_set(mode, on, ids, nominated):
    """(N,) bool: the balls on for ``mode`` among balls ``on`` (the nominated colour for
    COLOUR_ON)."""
    red = (mode == RED_ON) & (ids >= 1) & (ids < FIRST_COLOUR)
    colour = (mode == COLOUR_ON) & (ids == nominated) & (ids >= FIRST_COLOUR)
    seq = (mode >= 2) & (mode <= 7) & (ids == FIRST_COLOUR - 2 + mode)
    return (red | colour | seq) & on


def _lowest_colour(on, ids):
    """() int32: the value of the lowest colour on the table (7 if none)."""
    colours = on & (ids >= FIRST_COLOUR)
    return jnp.where(jnp.any(colours), jnp.argmax(colours) - (FIRST_COLOUR - 2), 7).astype(jnp.int32)


def _jumped(spec, summ, start_xy, start_on):
    """() bool: the cue ball left the bed and its straight path to the first ball it hit
    passed over another ball (SN-29/80, AMB-13: intent is presumed); the engine reports only
    that a ball was airborne, so the path is read as :func:`cuegym.rules.pool.jumped_over`
    reads it."""
    return pool.jumped_over(spec, summ, start_xy, start_on, CUE)


def judge(spec, state: SnookerState, decl, summ, start_xy, start_on, final, variant: Variant = SNOOKER,
          opts: SnookerOptions = DEFAULT):
    """Rule on one stroke.

    Args:
      spec: the table's TableSpec (static).
      state: SnookerState before the stroke (phase ``normal`` or ``in_hand_d``).
      decl: the Declaration: ``struck`` 0, ``call_ball`` the nominated ball (-1 none),
        ``inject`` bits of :data:`SNOOKER_INJECT_NAMES`, ``inject_ball``.
      summ: the stroke's ShotSummary; final: its final BallState.
      start_xy (N, 2) [m], start_on (N,) bool: the layout before the stroke (a cue ball in
        hand already placed).
      variant: :data:`SNOOKER` or ``american_snooker.VARIANT`` (static).
      opts: the rule options (static, :mod:`cuegym.rules.snooker_options`).

    Returns ``(SnookerRuling, SnookerState)``.
    """
    c = Cite(variant)
    extras = variant.extras
    n = N_BALLS
    ids = jnp.arange(n)
    values = jnp.asarray(VALUES)
    striker = state.to_play
    other = 1 - striker
    objects = ids != CUE
    is_red = (ids >= 1) & (ids < FIRST_COLOUR)
    is_colour = ids >= FIRST_COLOUR
    r = spec.ball_radius
    start_xy = jnp.asarray(start_xy, jnp.float64)
    start_on = jnp.asarray(start_on, bool)
    in_hand = state.phase == IN_HAND_D

    # --- what the stroke was played at ----------------------------------------------------
    mode = state.ball_on
    on_red, on_any = mode == RED_ON, mode == COLOUR_ON
    nb = decl.call_ball
    nbc = jnp.clip(nb, 0, n - 1)
    nb_ok = (nb >= 1) & (nb < n) & start_on[nbc]
    nominated = (ids == nb) & nb_ok
    ball_on = on_set(mode, start_on, ids, jnp.where(nb_ok, nb, -1))
    # SN-61 with AMB-37(b): with a free ball announced, a nominated ball that is not on is the
    # free ball; nominating a ball on just plays it.
    free = state.free_ball & nb_ok & ~ball_on[nbc] & ~on_any & extras
    free_set = nominated & free
    allowed = ball_on | free_set  # may be hit first and potted
    no_nomination = on_any & ~jnp.any(ball_on)  # SN-26 unmet; any foul then costs 7 (SN-88)
    v_on = jnp.where(no_nomination, SEVEN, jnp.where(on_any, values[nbc], jnp.where(on_red, 1, mode)))
    c.add("SN-06").add("SN-21").add("SN-22", on_red).add("SN-24", on_red).add("SN-26", on_any).add("SN-35", ~on_red & ~on_any)
    c.add("SN-17", state.breaking & in_hand).add("SN-10", in_hand).add("SN-44", in_hand & ~state.breaking)
    c.add("SN-61", free).add("SN-88", no_nomination)

    # --- facts of the stroke --------------------------------------------------------------
    pocketed = (summ.pocket >= 0) & start_on
    foreign = injected(decl, "ball_touched_foreign_object") & (ids == decl.inject_ball)
    off = (summ.off_table | foreign) & start_on
    stays = (final.state < POCKETED) & ~off & start_on
    first = summ.first_contact
    t0 = summ.first_contact_t
    first_set = (summ.contact_t[CUE] <= t0 + SIMULTANEOUS) & jnp.isfinite(t0) & objects & start_on
    # a ball touching the cue ball at the start (SN-51); one that is on counts as hit when the
    # striker plays away from it and hits nothing else (SN-53(2)); hitting another ball on is
    # simply legal (SN-53(3)), and a ball not on first is still a foul (SN-82)
    d_start = jnp.sqrt(jnp.sum((start_xy - start_xy[CUE]) ** 2, -1))
    touching_start = objects & start_on & (d_start <= 2 * r + FROZEN_EPS)
    deemed = jnp.any(touching_start & allowed) & extras
    c.add("SN-51", jnp.any(touching_start)).add("SN-53", jnp.any(touching_start))

    # --- fouls and their values (SN-69: one penalty, the highest; SN-71: at least 4) ------
    fouls = []  # (condition, value)

    def foul(clause, cond, value=None, *also):
        c.add(clause, cond)
        for a in also:
            c.add(a, cond)
        fouls.append((cond, v_on if value is None else jnp.maximum(v_on, value)))
        return cond

    hit_nothing = (first < 0) & ~deemed
    foul("SN-77", hit_nothing)
    legal_first = jnp.where(free, first_set[nbc] & jnp.all(~first_set | allowed), jnp.any(first_set) & jnp.all(~first_set | ball_on))
    two = (jnp.sum(first_set) >= 2) & ~jnp.all(~first_set | allowed)
    v_first = jnp.max(jnp.where(first_set, values, 0))
    simultaneous = foul("SN-87", two, v_first)
    wrong_first = (first >= 0) & ~legal_first & ~two
    foul("SN-82", wrong_first, jnp.max(jnp.where(first_set & ~allowed, values, 0)))
    contact_foul = hit_nothing | wrong_first | simultaneous
    c.add("SN-24", on_red & contact_foul).add("SN-26", on_any & contact_foul).add("SN-62", free & contact_foul)
    c.add("SN-18", state.breaking & contact_foul)
    illegal_pots = pocketed & objects & ~allowed
    foul("SN-81", jnp.any(illegal_pots), jnp.max(jnp.where(illegal_pots, values, 0)))
    c.add("SN-27", on_red & jnp.any(illegal_pots & is_colour)).add("SN-28", ~on_red & jnp.any(illegal_pots))
    foul("SN-78", pocketed[CUE])
    c.add("SN-37", jnp.any(off & objects))
    foul("SN-86", jnp.any(off) if variant.off_table_foul else off[CUE], jnp.max(jnp.where(off, values, 0)))
    foul("SN-80", _jumped(spec, summ, start_xy, start_on), None, "SN-29")
    near = jnp.clip(summ.near_ball, 0, n - 1)
    frozen = summ.near_gap <= FROZEN_EPS
    push_geom = extras & (summ.near_ball >= 0) & jnp.where(frozen, summ.near_cut < np.pi / 2, (summ.near_gap <= r / 2) & (summ.near_cut < FINE_CUT))
    c.add("SN-56", (summ.near_ball >= 0) & (summ.near_gap <= r / 2) & ~frozen)
    c.add("SN-52", (summ.near_ball >= 0) & frozen & push_geom)
    foul("SN-83", push_geom, values[near], "SN-55")
    foul("SN-83", injected(decl, "push_shot"), None, "SN-55")
    if variant.pool_cue_fouls:  # AS: POOL-GEN-39..41 (AS-01, AMB-04), from the geometry at the strike
        cf = pool.cue_fouls(spec, decl, summ, start_xy, start_on, allowed, None, CUE)
        foul("POOL-GEN-39", cf.double_hit)
        foul("POOL-GEN-40", cf.frozen_push)
        foul("POOL-GEN-41", cf.frozen_other)
    foul("SN-76", in_hand & ~in_d(spec, start_xy[CUE]))
    foul("SN-72", injected(decl, "early_stroke"))
    foul("SN-73", injected(decl, "double_hit"))
    foul("SN-74", injected(decl, "feet_off_floor"))
    foul("SN-75", injected(decl, "out_of_turn"))
    named = jnp.clip(decl.inject_ball, 0, n - 1)
    foul("SN-85", injected(decl, "touched_ball"), values[named], "SN-45")
    foul("SN-84", injected(decl, "mis_spotted_ball"), values[named], "SN-31")
    c.add("SN-32", injected(decl, "mis_spotted_late"))  # no penalty, the visit goes on
    never_spotted = injected(decl, "colour_not_respotted") & (ids == decl.inject_ball) & is_colour & ~start_on
    foul("SN-34", jnp.any(never_spotted), values[named], "SN-70")
    fouls.append((injected(decl, "used_ball_out_of_play"), jnp.asarray(SEVEN)))
    c.add("SN-89", injected(decl, "used_ball_out_of_play"))
    cushions_after = summ.cushions_after > 0
    if variant.after_contact:  # AS-18: after the ball on, a pot or a ball to a cushion
        reached = jnp.any(pocketed & objects) | jnp.any(cushions_after & start_on)
        foul("AS-18", legal_first & ~reached)
    if variant.break_cushions:  # AS-15 (AMB-45, literal): a red to a cushion or a pocket, and the cue ball to a cushion
        red_went = jnp.any(is_red & start_on & (cushions_after | pocketed))
        bad_break = state.breaking & legal_first & ~(red_went & cushions_after[CUE])
        foul("AS-15", bad_break, None, "AS-16")
    # (SN-79, the free ball left snookering, needs the layout after the stroke: below)

    # --- score (SN-12, SN-23, SN-64..66) ---------------------------------------------------
    foul_pre = jnp.any(jnp.stack([f for f, _ in fouls]))
    on_potted = pocketed & ball_on
    fb_potted = jnp.any(pocketed & free_set)
    legal_pre = ~foul_pre
    gained_pre = jnp.where(jnp.any(on_potted), jnp.sum(jnp.where(on_potted, values, 0)), jnp.where(fb_potted, v_on, 0))
    gained_pre = jnp.where(legal_pre, gained_pre, 0).astype(jnp.int32)

    # --- the layout after the stroke: colours back on their spots (SN-30, SN-36..42) --------
    xy = final.r[:, :2]
    on = stays
    seq = ~on_red & ~on_any
    stays_down = legal_pre & on_potted & seq  # SN-35: colours potted in sequence stay down
    to_spot = ((pocketed | off) & is_colour & ~stays_down) | never_spotted
    xy, on, how = sr.respot_colours(spec, xy, on, to_spot, higher_only=variant.higher_spots_only)
    c.add("SN-30", jnp.any(to_spot & pocketed & ~foul_pre) & ~seq).add("SN-36", foul_pre & jnp.any(pocketed & objects))
    c.add("SN-38", jnp.any((pocketed | off) & is_red)).add("SN-64", fb_potted & legal_pre)
    c.add("SN-39", jnp.any(how == sr.OWN)).add("SN-40", jnp.any(how == sr.OTHER_SPOT)).add("SN-41", jnp.any(how == sr.NEAR_SPOT))
    c.add("SN-42", jnp.any(how >= sr.OTHER_SPOT))

    # --- what the next player is on if the turn passes --------------------------------------
    reds_now = jnp.any(on & is_red)
    lowest = _lowest_colour(on, ids)
    pass_mode = jnp.where(reds_now, RED_ON, lowest).astype(jnp.int32)
    targets = on_set(pass_mode, on, ids, jnp.asarray(-1))
    cue_gone = ~on[CUE]
    if extras:
        # one sight computation for both questions (compiled once): from the end of the stroke
        # (free ball, angled, SN-63) and from its start (the miss, below)
        both = jax.vmap(functools.partial(sight, spec, find_effective=False))(
            jnp.stack([xy[CUE], start_xy[CUE]]), jnp.stack([cue_gone, in_hand]), jnp.stack([xy, start_xy]),
            jnp.stack([targets, allowed]), jnp.stack([on & objects & ~targets, start_on & objects & ~allowed]),
            jnp.stack([free_set, jnp.zeros_like(free_set)]))
        look_at = (xy[CUE], xy, targets, on & objects & ~targets)  # the end of the stroke, for SN-48 below
        look = jax.tree_util.tree_map(lambda a: a[0], both)
        aim = jax.tree_util.tree_map(lambda a: a[1], both)
        # SN-63/79 with AMB-37(a): a free-ball stroke that scores nothing must not leave the
        # opponent snookered by the free ball, unless only the pink and the black remain.
        pink_black = jnp.all(~(on & objects) | (ids == PINK) | (ids == BLACK)) & jnp.any(on & objects)
        fb_snooker = free & jnp.any(on & free_set) & (gained_pre == 0) & look.snookered & ~look.snookered_without & ~pink_black
        foul("SN-79", fb_snooker, None, "SN-63")
        c.add("SN-63", free & pink_black)
    else:  # AS: no free ball, miss or angled cue ball (AMB-04)
        no = jnp.asarray(False)
        look = Sight(no, no, no, _i(-1))

    is_foul = jnp.any(jnp.stack([f for f, _ in fouls]))
    penalty = jnp.maximum(MIN_PENALTY, jnp.max(jnp.stack([jnp.where(f, v, 0) for f, v in fouls])))
    if variant.flat_penalty:
        penalty = jnp.asarray(variant.flat_penalty)  # AS-39: every foul, whatever it is
    penalty = jnp.where(is_foul, penalty, 0).astype(jnp.int32)
    n_fouls = jnp.sum(jnp.stack([f for f, _ in fouls]))
    c.add("SN-67", is_foul).add("SN-71", is_foul).add("SN-69", n_fouls > 1).add("SN-70", is_foul & jnp.any(to_spot))
    gained = jnp.where(is_foul, 0, gained_pre).astype(jnp.int32)
    counted = ~is_foul & (on_potted | (pocketed & free_set & ~jnp.any(on_potted)))
    c.add("SN-23", on_red & jnp.any(counted & is_red)).add("SN-65", free & jnp.any(counted & ball_on))
    c.add("SN-66", free & ~is_foul & fb_potted & jnp.any(on_potted)).add("SN-12", gained > 0)
    points = jnp.zeros(PLAYERS, jnp.int32).at[striker].add(gained).at[other].add(penalty)
    scores = state.scores + points

    # --- miss (SN-57..59): failing to hit a ball on first unless none could be hit -----------
    if extras:
        # SN-59: no miss only where the ball on «попасть невозможно»: no straight path and no
        # one-cushion path reaches it (being snookered is not enough)
        hidden = contact_foul & aim.snookered
        banked = bank_reachable(spec, start_xy[CUE], in_hand, start_xy, allowed, start_on & objects & ~allowed, hidden)
        impossible = hidden & ~banked
        miss = contact_foul & ~impossible
        c.add("SN-57", miss).add("SN-59", impossible)
    else:
        miss = jnp.asarray(False)

    # --- turn, ball on, end of frame -------------------------------------------------------
    continues = ~is_foul & (gained > 0)  # SN-20
    c.add("SN-20", continues).add("SN-25", continues & on_red)
    # after the last red: the colours in order (SN-35 «в порядке возрастания»), or a colour
    # nominated first (option last_red="nominated", AMB-34)
    after_red = COLOUR_ON if opts.last_red == "nominated" else jnp.where(reds_now, COLOUR_ON, lowest)
    cont_mode = jnp.where(on_red, after_red, jnp.where(on_any & reds_now, RED_ON, lowest))
    next_mode = jnp.where(continues, cont_mode, pass_mode).astype(jnp.int32)
    c.add("SN-22", ~continues & reds_now)
    black_only = jnp.all(~(start_on & objects) | (ids == BLACK)) & start_on[BLACK]
    cleared = ~jnp.any(on & objects)
    over = (black_only & (continues | is_foul)) | cleared  # SN-13, SN-14
    c.add("SN-14", black_only & (continues | is_foul)).add("SN-13", cleared)
    tie = over & (scores[0] == scores[1])
    c.add("SN-15", tie).add("SN-11", over & ~tie)
    # SN-15: the black back on its own spot, the cue ball taken up for the play from the D
    black_spot = jnp.asarray(sr.spots(spec)[5])
    xy = jnp.where(tie & (ids == BLACK)[:, None], black_spot, xy)
    on = jnp.where(tie, ids == BLACK, on)
    frame_over = over & ~tie
    winner = jnp.where(frame_over, jnp.argmax(scores), -1).astype(jnp.int32)

    after_foul = is_foul & ~over
    if extras:  # SN-48 is reported only after a foul that leaves the cue ball snookered where it lies
        look = look._replace(effective=effective_ball(spec, *look_at, after_foul & look.snookered & ~cue_gone))
    free_ball = after_foul & look.snookered & jnp.any(targets)  # SN-60
    angled = after_foul & look.angled  # SN-49
    c.add("SN-60", free_ball).add("SN-46", free_ball).add("SN-47", free_ball & cue_gone)
    c.add("SN-48", free_ball & (look.effective >= 0)).add("SN-49", angled)
    choices = (1 << PLAY) | (1 << REPLAY) | jnp.where(miss, 1 << RESTORE, 0) | jnp.where(angled, 1 << FROM_D, 0) | jnp.where(
        state.breaking, 1 << REBREAK, 0)
    choices = jnp.where(after_foul, choices, 0).astype(jnp.int32)
    c.add("SN-68", after_foul).add("SN-58", after_foul & miss).add("SN-50", angled).add("SN-19", after_foul & state.breaking)
    c.add("SN-43", cue_gone & ~over)

    to_play = jnp.where(continues, striker, other).astype(jnp.int32)
    phase = jnp.where(cue_gone, IN_HAND_D, NORMAL)
    phase = jnp.where(after_foul, FOUL_CHOICE, phase)
    phase = jnp.where(tie, LAG, jnp.where(frame_over, FRAME_OVER, phase)).astype(jnp.int32)
    next_mode = jnp.where(tie, 7, next_mode).astype(jnp.int32)
    d_end = jnp.sum((xy - xy[CUE]) ** 2, -1)
    touch_end = objects & on & on[CUE] & (d_end <= (2 * r + FROZEN_EPS) ** 2)
    touching = jnp.where(jnp.any(touch_end), jnp.argmax(touch_end), -1).astype(jnp.int32)
    c.add("SN-51", touching >= 0)

    respotted = to_spot | (tie & (ids == BLACK))
    ruling = SnookerRuling(
        foul=is_foul, fouler=jnp.where(is_foul, striker, -1).astype(jnp.int32), clauses=c.mask, points=points, scores=scores,
        counted=counted, respotted=respotted, xy=xy, on=on, to_play=to_play, phase=phase, replay=jnp.asarray(False),
        warning=jnp.asarray(False), frame_over=frame_over, winner=winner, debt=jnp.zeros(PLAYERS, jnp.int32),
        penalty=penalty, ball_on=next_mode, free_ball=free_ball, snookered=after_foul & look.snookered, angled=angled,
        effective=jnp.where(after_foul & look.snookered, look.effective, -1).astype(jnp.int32), miss=miss, touching=touching,
        choices=choices, restore_xy=start_xy, restore_on=start_on,
    )
    nxt = SnookerState(
        to_play=to_play, phase=phase, scores=scores, ball_on=next_mode, free_ball=free_ball,
        breaking=state.breaking & after_foul, choices=choices, miss=miss, prev_xy=start_xy, prev_on=start_on,
        prev_ball_on=mode, prev_free_ball=state.free_ball, prev_breaking=state.breaking, touching=touching,
        strokes=state.strokes + 1, winner=winner,
    )
    return ruling, nxt


def choose(spec, state: SnookerState, xy, on, choice, variant: Variant = SNOOKER, opts: SnookerOptions = DEFAULT):
    """Phase ``foul_choice``: the incoming player's option (an index of CHOICE_NAMES; one
    not open is taken as PLAY). ``xy`` (N, 2) [m], ``on`` (N,) bool: the layout the foul left.

    * PLAY: he plays from the position (with the free ball, if announced: SN-61), from the D
      if the cue ball is off the table (SN-43).
    * REPLAY: the offender plays again from it (SN-68); the free ball is the incoming
      player's only (SN-61), unless ``opts.replay_free_ball`` is "offender_too" (AMB-37(d)).
    * RESTORE: after a miss, the cue ball goes back where it was (SN-58), the other balls
      staying where the miss left them (:func:`~cuegym.rules.snooker_options.cue_ball_back`),
      or, with ``opts.miss_restore`` "every_ball", the whole position (AMB-38); the offender
      plays again on the same ball on (a red, if one is left).
    * FROM_D: the cue ball was angled: he takes it in hand in the D (SN-50).
    * REBREAK: after a foul on the break, the balls are set up again and the offender breaks
      again from the D (SN-19, AMB-32); the penalty stands.

    Returns ``(SnookerRuling, SnookerState)``.
    """
    c = Cite(variant)
    ids = jnp.arange(N_BALLS)
    xy = jnp.asarray(xy, jnp.float64)
    on = jnp.asarray(on, bool)
    choice = jnp.asarray(choice, jnp.int32)
    open_ = ((state.choices >> jnp.clip(choice, 0, 4)) & 1).astype(bool) & (choice >= 0) & (choice < 5)
    choice = jnp.where(open_, choice, PLAY)
    incoming = state.to_play
    offender = 1 - incoming
    rack_xy, rack_on = initial_layout(spec)
    is_ = lambda k: choice == k  # noqa: E731
    if opts.miss_restore == "every_ball":
        back_xy, back_on = state.prev_xy, state.prev_on
    else:
        back_xy, back_on = cue_ball_back(xy, on, state.prev_xy, state.prev_on, spec.ball_radius, CUE)
    new_xy = jnp.where(is_(RESTORE), back_xy, jnp.where(is_(REBREAK), rack_xy, xy))
    new_on = jnp.where(is_(RESTORE), back_on, jnp.where(is_(REBREAK), rack_on, on))
    new_on = new_on & ~(is_(FROM_D) & (ids == CUE))
    to_play = jnp.where(is_(PLAY) | is_(FROM_D), incoming, offender).astype(jnp.int32)
    phase = jnp.where(new_on[CUE], NORMAL, IN_HAND_D).astype(jnp.int32)
    reds_gone = ~jnp.any(new_on & (ids >= 1) & (ids < FIRST_COLOUR))
    prev_on_ball = jnp.where((state.prev_ball_on == RED_ON) & reds_gone, _lowest_colour(new_on, ids), state.prev_ball_on)
    ball_on = jnp.where(is_(RESTORE), prev_on_ball, jnp.where(is_(REBREAK), RED_ON, state.ball_on)).astype(jnp.int32)
    replay_free = is_(REPLAY) if opts.replay_free_ball == "offender_too" else False
    free_ball = jnp.where(is_(RESTORE), state.prev_free_ball, (is_(PLAY) | replay_free) & state.free_ball)
    breaking = jnp.where(is_(RESTORE), state.prev_breaking, is_(REBREAK))
    c.add("SN-61", free_ball & ~is_(RESTORE)).add("SN-68", is_(REPLAY)).add("SN-58", is_(RESTORE))
    c.add("SN-50", is_(FROM_D)).add("SN-19", is_(REBREAK)).add("SN-17", is_(REBREAK))
    n = N_BALLS
    ruling = SnookerRuling(
        foul=jnp.asarray(False), fouler=_i(-1), clauses=c.mask, points=jnp.zeros(PLAYERS, jnp.int32), scores=state.scores,
        counted=jnp.zeros(n, bool), respotted=jnp.zeros(n, bool), xy=new_xy, on=new_on, to_play=to_play, phase=phase,
        replay=is_(RESTORE), warning=jnp.asarray(False), frame_over=jnp.asarray(False), winner=_i(-1),
        debt=jnp.zeros(PLAYERS, jnp.int32), penalty=_i(0), ball_on=ball_on, free_ball=free_ball,
        snookered=jnp.asarray(False), angled=jnp.asarray(False), effective=_i(-1), miss=jnp.asarray(False),
        touching=state.touching, choices=_i(0), restore_xy=state.prev_xy, restore_on=state.prev_on,
    )
    nxt = state._replace(to_play=to_play, phase=phase, ball_on=ball_on, free_ball=free_ball, breaking=breaking,
                         choices=_i(0), miss=jnp.asarray(False))
    return ruling, nxt


def after_lag(state: SnookerState, player):
    """SN-15 with AMB-43: after the lag on a level frame, ``player`` (the lag winner's choice)
    plays at the re-spotted black with the cue ball in hand in the D; the first score or foul
    ends the frame (SN-14)."""
    return state._replace(to_play=_i(player), phase=_i(IN_HAND_D), ball_on=_i(7), free_ball=jnp.asarray(False),
                          choices=_i(0))


def placement_ok(spec, xy, on, place):
    """() bool: the cue ball in hand may go at ``place`` (2,) [m]: in the D or on its line
    (SN-10), not overlapping a ball on the table."""
    place = jnp.asarray(place, jnp.float64)
    d2 = jnp.sum((jnp.asarray(xy) - place) ** 2, -1)
    others = jnp.asarray(on, bool) & (jnp.arange(N_BALLS) != CUE)
    return in_d(spec, place) & jnp.all(~others | (d2 >= (2 * spec.ball_radius) ** 2 * (1 - 1e-12)))


jit_judge = jax.jit(judge, static_argnums=0, static_argnames=("variant", "opts"))
jit_choose = jax.jit(choose, static_argnums=0, static_argnames=("variant", "opts"))
