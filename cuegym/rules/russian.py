"""General rules of Russian billiards (catalogue section RU-GEN), shared by the Russian
pyramid, Americanka and Moscow pyramid referees.

RU-GEN-01: these rules apply to every Russian game; each game module overrides them where
its own rules say otherwise (the game module decides which of the functions here it calls).
RU-GEN-02: the equipment is the table spec (``cuegym.physics.tables``, ``pyramid-12ft``).
RU-GEN-03: the rack is ``cuegym.physics.racks.pyramid_rack`` (apex on the rear spot).

Everything here is pure JAX on one table (vmap for a batch). ``spec`` is the table's
:class:`~cuegym.physics.tables.TableSpec`, a static Python value. Positions are (N, 2)
metres in the table frame (head cushion y = 0, rear cushion y = L).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from cuegym.physics import POCKETED
from cuegym.physics.tables import CUSHIONS, compile_table
from cuegym.rules import respot
from cuegym.rules.base import IN_HAND_HOUSE, IN_HAND_REAR, INJECT, PLAYERS, Clauses, Declaration, GameState, Ruling

FROZEN_EPS = 0.5e-3  # m: "touching" / "frozen" tolerance (AMB-55)
MOVED_EPS = 1e-3  # m: an object ball "did not move" (stalemate, AMB-26)
LAG_TIE = 1e-3  # m: equal lag distances (AMB-05(c))
FOOT = CUSHIONS.index("foot")
DEAD_STROKES = 10  # dead-position trigger: quiet strokes in a row (AMB-18)


def injected(decl: Declaration, name: str):
    """() bool: tooling injected the HUMAN event ``name`` (``base.INJECT_NAMES``)."""
    return (decl.inject & INJECT[name]) != 0


@functools.lru_cache(maxsize=None)
def contact_offset(spec) -> float:
    """Distance [m] from a cushion nose line to the centre of a ball touching it (a Python
    float, computed eagerly even when first asked inside a jit trace)."""
    with jax.ensure_compile_time_eval():
        return float(compile_table(spec).contact_offset)


class Stroke(NamedTuple):
    """What happened on one stroke, in the terms the rules use. Shapes (N,) unless noted.

    pocketed: fell into a pocket (RU-GEN-21/22: a ball that bounced out is not pocketed).
    off: left the table (RU-GEN-24, or injected RU-GEN-26); a ball that hit a fixture and
      came back is in play (RU-GEN-25: the engine only reports balls that did not return).
    stays: on the table at the end.
    start_on: on the table at the start.
    moved: () bool, an object ball (not the struck ball) was pocketed, left the table or
      moved more than 1 mm (the stalemate trigger, AMB-26).
    travel: (N,) how far [m] each object ball (not the struck ball) ended from where it
      started: +inf if it was pocketed or left the table, 0 for the struck ball and balls
      not on the table (the dead-position trigger, AMB-18).
    """

    pocketed: jnp.ndarray
    off: jnp.ndarray
    stays: jnp.ndarray
    start_on: jnp.ndarray
    moved: jnp.ndarray
    travel: jnp.ndarray


def stroke_facts(decl: Declaration, summ, start_xy, start_on, final) -> Stroke:
    """The stroke in the rules' terms. ``final`` is the layout once every ball has stopped,
    spinning on the spot included (RU-GEN-34: the physics runs until then). A ball counts as
    pocketed only if it went past a pocket's drop line; one that rattled in the jaws and
    came back onto the bed is in play and not pocketed (RU-GEN-22)."""
    n = start_xy.shape[0]
    ids = jnp.arange(n)
    pocketed = (summ.pocket >= 0) & start_on
    foreign = injected(decl, "ball_touched_foreign_object") & (ids == decl.inject_ball)
    off = (summ.off_table | foreign) & start_on
    stays = (final.state < POCKETED) & ~off & start_on
    shift = final.r[:, :2] - start_xy
    d2 = shift[:, 0] ** 2 + shift[:, 1] ** 2
    objects = start_on & (ids != decl.struck)
    moved = jnp.any(objects & (pocketed | off | (stays & (d2 > MOVED_EPS**2))))
    travel = jnp.where(objects, jnp.where(pocketed | off, jnp.inf, jnp.where(stays, jnp.sqrt(d2), 0.0)), 0.0)
    return Stroke(pocketed, off, stays, start_on, moved, travel)


def in_hand_phase(spec, xy, on, cue: int):
    """RU-GEN-18/20: where the cue ball in hand goes. If every object ball on the table is in
    the house (judged after re-spotting, AMB-09), the rear end is a temporary house."""
    objects = on & (jnp.arange(on.shape[0]) != cue)
    all_in_house = jnp.all(~objects | respot.in_house(spec, xy)) & jnp.any(objects)
    return jnp.where(all_in_house, IN_HAND_REAR, IN_HAND_HOUSE).astype(jnp.int32)


def in_region(spec, phase, xy):
    """(N,) bool: centres inside the in-hand region of ``phase`` (RU-GEN-14/20, RU-GEN-33:
    a centre exactly on the line is outside)."""
    return jnp.where(phase == IN_HAND_REAR, respot.in_rear_house(spec, xy), respot.in_house(spec, xy))


def placement_ok(spec, phase, xy, on, cue: int, place):
    """Whether a ball in hand may go at ``place`` (2,): in the region (RU-GEN-14/20), on the
    bed, not overlapping a ball on the table. Returns () bool."""
    off = contact_offset(spec)
    r = spec.ball_radius
    inside = in_region(spec, phase, place[None])[0]
    on_bed = (place[0] >= off) & (place[0] <= spec.width - off) & (place[1] >= off) & (place[1] <= spec.length - off)
    d = xy - place
    others = on & (jnp.arange(on.shape[0]) != cue)
    clear = jnp.all(~others | (d[:, 0] ** 2 + d[:, 1] ** 2 >= (2 * r) ** 2 * (1 - 1e-12)))
    return inside & on_bed & clear


def frozen_to_cushion(spec, p):
    """() bool: a ball centred at ``p`` (2,) touches a cushion nose (within AMB-55's ε)."""
    return jnp.any(frozen_sides(spec, p))


def frozen_sides(spec, p):
    """(4,) bool: a ball centred at ``p`` (2,) touches the left, right, head or foot cushion
    nose (within AMB-55's ε), in the order of :data:`SIDE_NORMALS`."""
    off = contact_offset(spec)
    gaps = jnp.stack([p[0], spec.width - p[0], p[1], spec.length - p[1]]) - off
    return gaps <= FROZEN_EPS


SIDE_NORMALS = ((-1.0, 0.0), (1.0, 0.0), (0.0, -1.0), (0.0, 1.0))
"""Unit vectors from the bed into the left, right, head and foot cushions."""


def presses_off_cushion(spec, cue_xy, ball_xy):
    """() bool: a ball at ``ball_xy`` (2,) is frozen to a cushion and the line of centres
    from the cue ball at ``cue_xy`` (2,) drives it into that cushion, within 45° of the
    cushion's normal, so that it can only be squeezed back off it (RU-GEN-43, «биток выжимает
    прицельный шар от борта»). A line of centres nearer the cushion's own direction sends the
    ball along the cushion: no press stroke (RU-GEN-35 alone judges it)."""
    d = ball_xy - cue_xy
    u = d / jnp.maximum(jnp.sqrt(d[0] ** 2 + d[1] ** 2), 1e-12)
    # cos of the angle to each cushion's normal (SIDE_NORMALS), written out: a matrix product
    # lowers differently at different batch sizes (cuegym.physics.vec)
    into = jnp.stack([-u[0], u[0], -u[1], u[1]])
    return jnp.any(frozen_sides(spec, ball_xy) & (into * into >= 0.5) & (into > 0))


def striker_fouls(c: Clauses, spec, state: GameState, decl: Declaration, summ, start_xy, start_on, facts: Stroke,
                  fixed_cue: bool):
    """Fouls of the general rules committed by the striker on this stroke (RU-GEN-37..51).

    ``fixed_cue``: the game has a cue ball (index 0) that alone may be struck (RP, MP:
    RU-GEN-45); Americanka lets the striker choose (AM-03/04). Every foul found is added to
    ``c``; one foul or several cost the same single penalty (RU-GEN-50), which the game
    module applies. Returns () bool.
    """
    struck = decl.struck
    first = summ.first_contact
    # RU-GEN-16: a ball in hand, once placed and struck, is in play: the stroke is judged
    # like any other (plus the house rules below) and the ball stays where it stops.
    in_hand = (state.phase == IN_HAND_HOUSE) | (state.phase == IN_HAND_REAR)

    no_contact = first < 0  # RU-GEN-37
    c.add("RU-GEN-37", no_contact)
    cue_off = facts.off[struck]  # RU-GEN-38
    c.add("RU-GEN-38", cue_off)
    wrong_ball = (struck != 0) if fixed_cue else jnp.asarray(False)  # RU-GEN-45
    c.add("RU-GEN-45", wrong_ball)

    house_ball = house_fouls(c, spec, state.phase, summ, start_xy, start_on, struck)  # RU-GEN-19/44
    # A ball in hand placed outside the region (the validator normally refuses it first:
    # RU-GEN-14, and RU-GEN-48 makes it a foul once warned; AMB-14).
    misplaced = in_hand & ~in_region(spec, state.phase, start_xy[struck][None])[0]
    c.add("RU-GEN-48", misplaced).add("RU-GEN-14", misplaced)

    close_foul, press = close_ball_fouls(c, spec, summ, start_xy, struck)

    # Stroke types an impulsive engine cannot produce, and human conduct: injected.
    human = jnp.asarray(False)
    for name, clause in (
        ("improper_strike", "RU-GEN-04"),
        ("feet_off_floor", "RU-GEN-05"),
        ("body_outside_long_cushion", "RU-GEN-15"),
        ("early_stroke", "RU-GEN-39"),
        ("touched_ball", "RU-GEN-40"),
        ("push_shot", "RU-GEN-41"),
        ("double_hit", "RU-GEN-42"),
        ("slow_play_timeout", "RU-GEN-65"),
    ):
        hit = injected(decl, name)
        c.add(clause, hit)
        human = human | hit
    c.add("RU-GEN-48", injected(decl, "body_outside_long_cushion"))
    return no_contact | cue_off | wrong_ball | house_ball | misplaced | close_foul | press | human


def house_fouls(c: Clauses, spec, phase, summ, start_xy, start_on, struck):
    """Play from hand from the house (or the temporary house, RU-GEN-20), judged with the
    balls where they stood at the start of the stroke (AMB-08). ``phase`` is the stroke's
    phase: outside the in-hand phases nothing is found. Returns () bool.

    RU-GEN-19: the stroke may be played only at balls outside the house («наносить удар
    разрешается лишь по шарам, расположенным вне дома»): the first object ball contacted.
    RU-GEN-44: a foul «если при ударе с руки из дома биток задевает какой-либо находящийся в
    доме прицельный шар»: any contact of the struck ball with an object ball in the house,
    first or later (the original wins over AMB-08's first-contact-only proposal).
    """
    in_hand = (phase == IN_HAND_HOUSE) | (phase == IN_HAND_REAR)
    ids = jnp.arange(start_on.shape[0])
    house = in_region(spec, phase, start_xy) & start_on & (ids != struck)
    first = summ.first_contact
    at_house_ball = in_hand & (first >= 0) & house[jnp.maximum(first, 0)]
    touched = jnp.isfinite(summ.contact_t[struck])  # the struck ball's contacts, any time
    touched_house_ball = in_hand & jnp.any(touched & house)
    c.add("RU-GEN-19", at_house_ball).add("RU-GEN-44", touched_house_ball)
    return at_house_ball | touched_house_ball


def close_ball_fouls(c: Clauses, spec, summ, start_xy, struck):
    """The close-ball fouls, judged on the object ball nearest the struck ball at the
    strike when it is the first ball hit. Returns (RU-GEN-35 foul, RU-GEN-43 foul), () bool.

    RU-GEN-35 with AMB-12: a ball within R/2 must be cut at 45° or more, or the struck ball
    must stay out of the penalty zone. RU-GEN-43: a press stroke, «удар нажимом, когда биток
    выжимает прицельный шар от борта»: the close ball is frozen to a cushion, the aim is
    within 45° of the line of centres and that line drives the ball into the cushion
    (:func:`presses_off_cushion`); a stroke along the cushion is judged by RU-GEN-35 alone.
    """
    r = spec.ball_radius
    close = (summ.near_ball >= 0) & (summ.near_gap <= 0.5 * r) & (summ.first_contact == summ.near_ball)
    straight = summ.near_cut < jnp.pi / 4
    close_foul = close & straight & summ.follow
    near_xy = start_xy[jnp.maximum(summ.near_ball, 0)]
    press = close & straight & presses_off_cushion(spec, start_xy[struck], near_xy)
    c.add("RU-GEN-35", close_foul).add("RU-GEN-43", press)
    return close_foul, press


def opponent_fouls(c: Clauses, decl: Declaration):
    """Fouls injected against the player not striking (RU-GEN-49/62/63, AMB-15): returns
    (foul () bool, stopped ball () int32 or -1, its pocket () int32)."""
    distraction = injected(decl, "opponent_distraction") | injected(decl, "opponent_moved_ball")
    stopped = injected(decl, "opponent_stopped_ball")
    c.add("RU-GEN-49", distraction | stopped).add("RU-GEN-63", injected(decl, "opponent_distraction")).add("RU-GEN-62", stopped)
    ball = jnp.where(stopped, decl.inject_ball, -1).astype(jnp.int32)
    return distraction | stopped, ball, decl.inject_pocket


def replay(c: Clauses, decl: Declaration, summ, start_on, struck):
    """() bool: restore the starting position and replay without penalty.

    RU-GEN-59/60 (outside interference, emergency: injected). RU-GEN-55: a hanging object
    ball dropped before the struck ball reached it, i.e. an object ball fell before the
    first contact without having been touched. The engine keeps resting balls at rest, so
    this only arises from an injected or recorded summary; the check is kept so that a
    summary from another engine is judged right.
    """
    n = start_on.shape[0]
    ids = jnp.arange(n)
    early = (summ.pocket >= 0) & (summ.pocket_t < summ.first_contact_t) & ~summ.touched & start_on & (ids != struck)
    hanging = jnp.any(early)
    outside = injected(decl, "outside_interference")
    emergency = injected(decl, "emergency")
    c.add("RU-GEN-55", hanging).add("RU-GEN-59", outside).add("RU-GEN-60", emergency)
    return hanging | outside | emergency


def settle_layout(c: Clauses, decl: Declaration, start_xy, final, facts: Stroke):
    """The layout at the end of the stroke before re-spotting: (xy (N, 2), on (N,)).

    RU-GEN-53 (injected): a hanging ball that dropped after a shake of the table goes back
    where it was and does not count. The engine has no unstable balance (a ball at rest
    never drops by itself), so RU-GEN-52/54 cannot arise: every drop happens during the
    stroke and counts as pocketed by it (RU-GEN-54).
    """
    n = start_xy.shape[0]
    shaken = injected(decl, "table_shaken") & (jnp.arange(n) == decl.inject_ball) & facts.pocketed
    c.add("RU-GEN-53", jnp.any(shaken))
    xy = jnp.where(shaken[:, None], start_xy, final.r[:, :2])
    on = facts.stays | shaken
    return xy, on, facts.pocketed & ~shaken


def judge_lag(spec, summ_a, final_a, summ_b, final_b):
    """The lag for the break (RU-GEN-07..09, AMB-05): each player's ball played from the
    house to the rear cushion and back, each on an otherwise empty table; player 0 plays on
    the left of the long string, player 1 on the right.

    ``summ_*`` / ``final_*``: the ShotSummary and final BallState of each lag stroke, with
    the lag ball at index 0. Returns (winner () int32: 0, 1, or -1 to repeat the lag;
    lost (2,) bool).
    """
    half = spec.width / 2

    def loses(summ, final, side):
        no_rear = ~jnp.isfinite(summ.cushion_first_t[0, FOOT])
        crossed = (summ.max_x[0] > half) if side == 0 else (summ.min_x[0] < half)
        gone = (summ.pocket[0] >= 0) | summ.off_table[0] | (final.state[0] >= POCKETED)
        return no_rear | crossed | gone  # RU-GEN-08

    lost = jnp.stack([loses(summ_a, final_a, 0), loses(summ_b, final_b, 1)])
    ya, yb = final_a.r[0, 1], final_b.r[0, 1]
    tie = jnp.abs(ya - yb) <= LAG_TIE  # RU-GEN-09
    nearer = jnp.where(ya < yb, 0, 1)  # RU-GEN-07: nearer the head cushion wins
    winner = jnp.where(lost[0] & lost[1], -1, jnp.where(lost[0], 1, jnp.where(lost[1], 0, jnp.where(tie, -1, nearer))))
    return winner.astype(jnp.int32), lost


def after_lag(spec, state: GameState, xy, on, winner, winner_plays=True, cue: int = 0):
    """The lag winner chooses to play or to make the opponent play (RU-GEN-10); play goes on
    from hand from the house (RU-GEN-58, RP-18). Returns the new state."""
    player = jnp.where(jnp.asarray(winner_plays), winner, 1 - winner).astype(jnp.int32)
    phase = in_hand_phase(spec, xy, on, cue)
    return state._replace(to_play=player, striker=player, phase=phase)


def frame_breaker(frame: int, first_breaker: int, frames_to_win: int, wins: tuple[int, int]):
    """Who breaks frame ``frame`` (0-based) of a match (RU-GEN-11/12 with AMB-06): breaks
    alternate; the deciding frame (both players one frame from the match) is lagged for
    (returns None: hold a lag, RU-GEN-12)."""
    if wins[0] == wins[1] == frames_to_win - 1:
        return None
    return (first_breaker + frame) % 2


def dead_position(spec, state: GameState, xy, on, cue, facts: Stroke, counted_any, enabled: bool):
    """RU-GEN-56..58 with AMB-18 (off unless ``enabled``): after DEAD_STROKES strokes in a row
    that pocketed nothing and moved no object ball by more than 2R (each stroke judged on
    its own: a ball counted or an object ball pocketed, off the table or moved more than 2R
    starts the count again), the object balls are racked again with the apex on the rear
    spot (RU-GEN-57), the cue ball is taken up and a lag decides who plays from hand
    (RU-GEN-58: the game module sets the lag phase).

    Returns (quiet () int32, rebuilt () bool, xy, on).
    """
    lively = counted_any | (jnp.max(facts.travel) > 2 * spec.ball_radius)
    quiet = jnp.where(lively, 0, state.quiet + 1).astype(jnp.int32)
    if not enabled:
        return quiet, jnp.asarray(False), xy, on
    rebuilt = quiet >= DEAD_STROKES
    objects = on & (jnp.arange(on.shape[0]) != cue)
    racked_xy, racked_on = respot.rerack(spec, xy, on & ~(jnp.arange(on.shape[0]) == cue), objects)
    racked_on = racked_on & (jnp.arange(on.shape[0]) != cue)
    xy = jnp.where(rebuilt, racked_xy, xy)
    on = jnp.where(rebuilt, racked_on, on)
    return jnp.where(rebuilt, 0, quiet).astype(jnp.int32), rebuilt, xy, on


def or_replay(again, c: Clauses, state: GameState, ruling: Ruling, nxt: GameState, start_xy, start_on):
    """RU-GEN-55/59/60: where ``again``, restore the starting position (no points, no
    foul); the same player plays again. ``c`` holds the replay clauses only."""
    n = start_on.shape[0]
    restored = Ruling(
        foul=jnp.asarray(False), fouler=jnp.asarray(-1, jnp.int32), clauses=c.mask, points=jnp.zeros(PLAYERS, jnp.int32),
        scores=state.scores, counted=jnp.zeros(n, bool), respotted=jnp.zeros(n, bool), xy=start_xy, on=start_on,
        to_play=state.to_play, phase=state.phase, replay=jnp.asarray(True), warning=jnp.asarray(False),
        frame_over=jnp.asarray(False), winner=jnp.asarray(-1, jnp.int32), debt=state.debt,
    )
    pick = lambda a, b: jnp.where(again, a, b)  # noqa: E731
    return jax.tree_util.tree_map(pick, restored, ruling), jax.tree_util.tree_map(pick, state, nxt)
