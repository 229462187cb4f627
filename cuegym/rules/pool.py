"""General rules for pool games (catalogue section POOL-GEN), pure JAX, game-independent.

POOL-GEN-01: these rules are common to the pool games; a game module (:mod:`cuegym.rules.golf`)
calls the functions here it needs and overrides them where its own rules say otherwise (AMB-01:
POOL-GEN governs golf and American snooker). Each is a pure function on one table (vmap for a
batch), ``spec`` a static :class:`~cuegym.physics.TableSpec` with a house line (POOL-GEN-02):
the house and ball in hand (POOL-GEN-12..23: :func:`in_hand_region`, :func:`placement_ok`),
the stroke in the rules' terms (:func:`stroke_facts`), the legal stroke and frozen balls,
cue-action fouls and jumps, replays, one foul per stroke (:func:`one_foul`), re-spotting along
the long string, the lag, the turn, the break order of a match and the rack.

HUMAN clauses arrive as injected events, bits of :data:`POOL_INJECT` in ``Declaration.inject``
(build with :func:`declare`); :data:`NOT_SIMULATED` lists them. Which function implements which
clauses, the frame and the readings: docs/rules.md, "The pool rules (cuegym.rules.pool)".
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.physics import POCKETED
from cuegym.physics.racks import triangle
from cuegym.physics.tables import CUSHIONS
from cuegym.rules import catalogue as _catalogue
from cuegym.rules import respot
from cuegym.rules.base import INJECT_NAMES, Declaration
from cuegym.rules.base import declare as base_declare
from cuegym.rules.russian import FROZEN_EPS, contact_offset

HEAD, FOOT = CUSHIONS.index("head"), CUSHIONS.index("foot")
LONG = tuple(CUSHIONS.index(k) for k in ("left-head", "left-foot", "right-head", "right-foot"))
# physical cushion of each cushion id: a long cushion is one cushion though the middle
# pocket splits its nose in two (POOL-GEN-70 "a different cushion"): head, foot, left, right
SIDE = np.asarray([0, 1, 2, 2, 3, 3], np.int32)

LAG_TIE = 1e-3  # m: lag balls this close in y are "too close to tell" (POOL-GEN-09, AMB-05(c))
MOVED_EPS = 1e-3  # m: an untouched ball that ends farther than this moved by itself (POOL-GEN-56)
JUMP_THETA = math.radians(20.0)  # rad: least cue elevation of a legal jump (POOL-GEN-43, AMB-13)
RESPOT_GAP = respot.GAP  # m: "close to the cue ball but not touching" (POOL-GEN-59, AMB-55)

# HUMAN events: the shared codes plus playing out of turn (POOL-GEN-75).
POOL_INJECT_NAMES = INJECT_NAMES + ("out_of_turn",)
POOL_INJECT = {name: 1 << k for k, name in enumerate(POOL_INJECT_NAMES)}

NOT_SIMULATED = {k: v for k, v in _catalogue.NOT_SIMULATED.items() if k.startswith("POOL-GEN-")}
"""The HUMAN clauses of POOL-GEN with their injection codes (kept in
``cuegym.rules.catalogue.NOT_SIMULATED``)."""


def declare(struck=0, choice=-1, inject=(), inject_ball=-1, inject_pocket=-1) -> Declaration:
    """A :class:`~cuegym.rules.base.Declaration` for a pool stroke; ``inject`` is an iterable
    of :data:`POOL_INJECT_NAMES`. Pool games have no call (``call_ball`` / ``call_pocket`` -1)."""
    return base_declare(struck, -1, -1, choice, inject, inject_ball, inject_pocket, events=POOL_INJECT)


def injected(decl: Declaration, name: str):
    """() bool: tooling injected the HUMAN event ``name`` (:data:`POOL_INJECT_NAMES`)."""
    return (decl.inject & POOL_INJECT[name]) != 0


# ----------------------------------------------------------------------------- set-up

def rack(spec, n: int):
    """POOL-GEN-03: ``n`` object balls racked in a triangle of touching balls, the front ball
    on the rear spot, the rows behind it toward the foot cushion. Returns (n, 2) [m] in
    ball-number order (the order inside the triangle is each game's; this is row by row)."""
    rows = 1
    while rows * (rows + 1) // 2 < n:
        rows += 1
    return triangle(spec.spots()["rear"], spec.ball_radius, rows)[:n]


# ----------------------------------------------------------------------------- the house

def in_house(spec, xy):
    """(...,) bool: a centre strictly between the head cushion and the front line
    (POOL-GEN-18: a ball's position is its centre; POOL-GEN-29: the line itself is not in
    the house). ``xy`` (..., 2) [m]."""
    return respot.in_house(spec, xy)


def in_hand_region(spec, anywhere=False):
    """The rectangle a ball in hand may be centred in: (low (2,), high (2,)) [m] as numpy.
    The house (POOL-GEN-15), its front edge a hair short of the line (POOL-GEN-30: not on the
    line), or the whole bed with ``anywhere`` (POOL-GEN-23). Overlap with balls on the table
    is :func:`placement_ok`'s concern."""
    off = contact_offset(spec)
    top = spec.length - off if anywhere else np.nextafter(spec.head_line, 0.0)
    return np.asarray([off, off]), np.asarray([spec.width - off, top])


def placement_ok(spec, xy, on, place, cue: int = 0, anywhere=False):
    """() bool: the ball in hand may go at ``place`` (2,) [m]: inside :func:`in_hand_region`
    (strictly inside the house: POOL-GEN-15/30), not overlapping any other ball on the
    table. ``xy`` (N, 2) [m], ``on`` (N,) bool. POOL-GEN-21, POOL-GEN-72 and POOL-GEN-73
    (adjusting by hand or cue until the stroke; placing starts nothing) need no check: the
    placement is one field of the action, judged with the stroke that follows it."""
    place = jnp.asarray(place, jnp.float64)
    lo, hi = in_hand_region(spec, anywhere)
    inside = jnp.all((place >= lo) & (place <= hi))
    d2 = jnp.sum((jnp.asarray(xy, jnp.float64) - place) ** 2, -1)
    others = jnp.asarray(on, bool) & (jnp.arange(d2.shape[0]) != cue)
    clear = jnp.all(~others | (d2 >= (2 * spec.ball_radius) ** 2 * (1 - 1e-12)))
    return inside & clear


def in_play(spec, summ, cue: int = 0):
    """() bool: a cue ball played from the house is in play once the stroke takes its centre
    across the front line (POOL-GEN-13/20, the same moment: AMB-53(a)). Leaving it in the
    house is no foul by itself (AMB-53(b)); the legal-stroke rules judge that stroke."""
    return summ.crossed_head_line[cue] | (summ.max_y[cue] >= spec.head_line)


def house_fouls(spec, summ, start_xy, start_on, cue: int = 0):
    """Ball in hand from the house (POOL-GEN-16, 17, 19): balls whose centre is outside the
    house (the front line included, POOL-GEN-29) may be played; a ball in the house only
    after the cue ball has left the house and come back off the rear cushion (AMB-53(c),
    literal). Judged on the cue ball's first contact with a ball that started in the house:
    before the cue ball's first rear-cushion contact it is a foul (POOL-GEN-17 when that
    ball was the first ball hit, POOL-GEN-19 otherwise, AMB-53(d): no sanction is given, so
    a foul). Returns (first_in_house () bool, later_in_house () bool)."""
    n = start_xy.shape[0]
    ids = jnp.arange(n)
    house = in_house(spec, start_xy) & start_on & (ids != cue)
    contact = summ.contact_t[cue]  # (N,) first contact time of the cue ball with each ball
    rear = summ.cushion_first_t[cue, FOOT]
    early = house & jnp.isfinite(contact) & (contact < rear)
    first = summ.first_contact
    first_in = (first >= 0) & early[jnp.maximum(first, 0)]
    return first_in, jnp.any(early & (ids != first))


# ----------------------------------------------------------------------------- the stroke

class Facts(NamedTuple):
    """A stroke in the rules' terms. Shapes (N,) bool unless noted.

    pocketed: fell into a pocket (POOL-GEN-24; a ball that jumped back out is not pocketed,
      POOL-GEN-25: the engine reports only balls past a pocket's drop line).
    off: off the table (POOL-GEN-46; a ball back on the bed by itself is not, POOL-GEN-47:
      the engine reports only balls that did not return; POOL-GEN-48: or injected).
    stays: on the table at the end (POOL-GEN-28: the physics runs until every ball stops).
    untouched: an object ball no ball touched during the stroke.
    """

    pocketed: jnp.ndarray
    off: jnp.ndarray
    stays: jnp.ndarray
    untouched: jnp.ndarray


def stroke_facts(decl: Declaration, summ, start_xy, start_on, final, cue: int = 0) -> Facts:
    """:class:`Facts` of one stroke. ``start_xy`` (N, 2) [m], ``start_on`` (N,) bool: the
    layout before it; ``summ``, ``final``: its ShotSummary and final BallState."""
    n = start_xy.shape[0]
    ids = jnp.arange(n)
    pocketed = (summ.pocket >= 0) & start_on
    foreign = injected(decl, "ball_touched_foreign_object") & (ids == decl.inject_ball)
    off = (summ.off_table | foreign) & start_on
    stays = (final.state < POCKETED) & ~off & start_on
    untouched = ~summ.touched & start_on & (ids != cue)
    return Facts(pocketed, off, stays, untouched)


def hit_legal_first(summ, legal):
    """() bool: the cue ball's first contact is a legal object ball (``legal`` (N,) bool:
    the balls the game allows to be hit first). Not so is a foul (POOL-GEN-34). A ball frozen
    to the cue ball that the stroke plays away from is reported by the engine as no contact,
    so it does not count as hit (POOL-GEN-35)."""
    first = summ.first_contact
    return (first >= 0) & legal[jnp.maximum(first, 0)]


def after_contact_ok(summ, pocketed, balls, cue: int = 0):
    """() bool: after the first contact, a ball of ``balls`` ((N,) bool, object balls that
    count) was pocketed, or the cue ball or one of ``balls`` reached a cushion (POOL-GEN-36;
    a pool game may narrow ``balls`` and ``pocketed``, as golf does, GF-21)."""
    cushion = summ.cushions_after > 0
    return jnp.any(pocketed & balls) | cushion[cue] | jnp.any(cushion & balls)


def frozen_cushion(spec, xy, on):
    """(N,) int32: the physical cushion each ball is frozen to at the start of a stroke (0
    head, 1 foot, 2 left, 3 right; -1 none): its centre within the contact offset + ε of a
    cushion nose line (ε = 0.5 mm, AMB-55). Computed from the geometry, so no announcement is
    needed (POOL-GEN-71). ``xy`` (N, 2) [m], ``on`` (N,) bool."""
    off = contact_offset(spec)
    gaps = jnp.stack([xy[:, 1], spec.length - xy[:, 1], xy[:, 0], spec.width - xy[:, 0]], -1) - off
    k = jnp.argmin(gaps, -1)
    frozen = (jnp.min(gaps, -1) <= FROZEN_EPS) & jnp.asarray(on, bool)
    return jnp.where(frozen, k, -1).astype(jnp.int32)


def frozen_ball_ok(spec, summ, start_xy, start_on, pocketed, objects, cue: int = 0):
    """POOL-GEN-70 with AMB-54 (any one outcome suffices, judged after the first contact): a
    stroke whose first ball hit was frozen to a cushion must pocket an object ball, or bring
    the cue ball to a cushion, or that ball to a cushion other than its own, or another
    object ball to a cushion. Returns (applies () bool, ok () bool)."""
    first = summ.first_contact
    f = jnp.maximum(first, 0)
    side = frozen_cushion(spec, start_xy, start_on)[f]
    applies = (first >= 0) & (side >= 0)
    hit_sides = jnp.isfinite(summ.cushion_first_t[f]) & (summ.cushion_first_t[f] >= summ.first_contact_t)
    other_side = jnp.any(hit_sides & (jnp.asarray(SIDE) != side))
    n = start_xy.shape[0]
    others = objects & (jnp.arange(n) != f) & (summ.cushions_after > 0)
    ok = jnp.any(pocketed & objects) | (summ.cushions_after[cue] > 0) | other_side | jnp.any(others)
    return applies, ok


def jumped_over(spec, summ, start_xy, start_on, cue: int = 0):
    """() bool: a jump shot (AMB-13): the cue ball left the bed and passed over an object
    ball before its first contact. The engine reports only that a ball was airborne, so the
    path is taken as the straight line from the cue ball to the first ball hit, on strokes
    with no cushion before that contact."""
    n = start_xy.shape[0]
    r2 = 2 * spec.ball_radius
    first = jnp.maximum(summ.first_contact, 0)
    p0 = start_xy[cue]
    d = start_xy[first] - p0
    length = jnp.sqrt(jnp.sum(d * d))
    u = d / jnp.maximum(length, 1e-12)
    w = start_xy - p0
    along = w @ u
    perp = jnp.abs(w[:, 0] * u[1] - w[:, 1] * u[0])
    ids = jnp.arange(n)
    over = start_on & (ids != cue) & (ids != first) & (along > 0) & (along < length - r2) & (perp < r2)
    return summ.airborne[cue] & (summ.first_contact >= 0) & (summ.cushions_before[cue] == 0) & jnp.any(over)


class CueFouls(NamedTuple):
    """Cue-action fouls of one stroke (each () bool), POOL-GEN-04, 39..45 with AMB-13."""

    improper: jnp.ndarray  # POOL-GEN-04: not struck with the tip (injected)
    double_hit: jnp.ndarray  # POOL-GEN-39: gap <= R/2 and aim within 45° of the line of centres, or injected
    frozen_push: jnp.ndarray  # POOL-GEN-40: cue ball frozen to a legal ball, aimed at it (< 90°)
    frozen_other: jnp.ndarray  # POOL-GEN-41: frozen to a ball not legal and not played away from it
    push: jnp.ndarray  # POOL-GEN-42: prolonged contact (injected)
    jump_miscue: jnp.ndarray  # POOL-GEN-44: a miscue on a jump
    bad_jump: jnp.ndarray  # POOL-GEN-45: a jump not made as POOL-GEN-43 says


def cue_fouls(spec, decl, summ, start_xy, start_on, legal, shot=None, cue: int = 0) -> CueFouls:
    """The cue-action fouls (:class:`CueFouls`). ``legal`` (N,) bool: the balls that may be
    hit first. ``shot``: the stroke's :class:`~cuegym.physics.Shot` (its ``theta`` [rad]
    and ``b`` decide a legal jump, POOL-GEN-43: a raised cue, theta >= 20°, striking the
    upper half, b > 0); without it every jump is taken as properly made."""
    r = spec.ball_radius
    near = summ.near_ball
    nc = jnp.maximum(near, 0)
    frozen = (near >= 0) & (summ.near_gap <= FROZEN_EPS)
    toward = summ.near_cut < jnp.pi / 2
    close = (near >= 0) & (summ.near_gap <= r / 2) & ~frozen & (summ.near_cut < jnp.pi / 4)
    jump = jumped_over(spec, summ, start_xy, start_on, cue)
    if shot is None:
        proper = jnp.asarray(True)
    else:
        proper = (shot.theta >= JUMP_THETA) & (shot.b > 0)
    return CueFouls(
        improper=injected(decl, "improper_strike"),
        double_hit=close | injected(decl, "double_hit"),
        frozen_push=frozen & toward & legal[nc],
        frozen_other=frozen & toward & ~legal[nc],
        push=injected(decl, "push_shot"),
        jump_miscue=jump & summ.miscue,
        bad_jump=jump & ~proper,
    )


def replay_reasons(decl, summ, start_xy, start_on, final, facts: Facts):
    """Why the starting position is restored and the stroke replayed without penalty
    (each () bool):

    * dropped: an object ball fell without any ball touching it (POOL-GEN-55);
    * moved: an untouched object ball moved more than 1 mm or left the table (POOL-GEN-56);
    * outside: injected outside interference or an emergency (POOL-GEN-62/63, AMB-57).

    The engine never moves a ball at rest by itself (POOL-GEN-53: a ball that moves by
    itself is left where it stops, which is where the physics leaves every ball; POOL-GEN-54:
    a ball at rest never hangs and drops later, since the stroke runs until all rest), so
    dropped and moved arise only from a summary recorded elsewhere; the check keeps such a
    summary judged right. The position can always be restored (the pre-stroke snapshot),
    so POOL-GEN-64 (replay the frame) never applies.
    """
    shift = final.r[:, :2] - start_xy
    far = jnp.sum(shift * shift, -1) > MOVED_EPS**2
    dropped = jnp.any(facts.untouched & facts.pocketed)
    moved = jnp.any(facts.untouched & ~facts.pocketed & (facts.off | (facts.stays & far)))
    outside = injected(decl, "outside_interference") | injected(decl, "emergency")
    return dropped, moved, outside


def one_foul(fouls):
    """POOL-GEN-52: several fouls on one stroke are one foul, at the heaviest penalty of the
    most serious. ``fouls``: a list of (condition () bool, penalty () number). Returns
    (foul () bool, penalty () of the foul, 0 without one, number () int32 of fouls)."""
    cond = jnp.stack([jnp.asarray(f, bool) for f, _ in fouls])
    value = jnp.stack([jnp.asarray(v) for _, v in fouls])
    penalty = jnp.max(jnp.where(cond, value, 0))
    return jnp.any(cond), penalty, jnp.sum(cond).astype(jnp.int32)


# ----------------------------------------------------------------------------- re-spotting

def respot_long_string(spec, xy, on, place, cue: int = 0):
    """Re-spot the balls of ``place`` on the long string once the stroke is over
    (POOL-GEN-50, 57..60). Returns (xy (N, 2) [m], on (N,) bool); other balls unchanged.

    * POOL-GEN-57: the lowest-numbered ball on the rear spot, the others in ascending order
      behind it toward the rear cushion, each touching the one before.
    * POOL-GEN-58: a spot taken by an object ball: as close to it as possible, frozen against
      that ball (1 nm clear, as every touching placement here), which is not moved.
    * POOL-GEN-59: the cue ball in the way: as close as possible but not touching (a 1 mm
      gap, AMB-55).
    * POOL-GEN-60: no room between the rear spot and the rear cushion for all of them: in
      front of the spot (toward the centre) as close to it as possible, the lowest number
      frontmost, so placed from the spot forward in descending order.

    ``xy`` (N, 2) [m], ``on`` (N,) bool, ``place`` (N,) bool; ``cue`` the cue ball index.
    """
    g = respot.geometry(spec)
    xy = jnp.asarray(xy, jnp.float64)
    on = jnp.asarray(on, bool)
    place = jnp.asarray(place, bool)
    n = xy.shape[0]
    ids = jnp.arange(n)
    obstacle = on & ~place
    base = jnp.where(ids == cue, 2 * g.radius + RESPOT_GAP, 2 * g.radius)

    def run(order, sign):
        def body(k, carry):
            pos, placed, started, y_last, over = carry
            i = order[k]
            dist = jnp.where(placed, 2 * g.radius, base)
            start = jnp.where(started, y_last, g.spot_y)
            y = respot.slide(start, sign, g.mid_x, 1, pos, obstacle | placed, dist, n + 1)
            do = place[i]
            out = (y > g.y_max) | (y < g.y_min)
            y = jnp.clip(y, g.y_min, g.y_max)
            pos = pos.at[i].set(jnp.where(do, jnp.stack([jnp.float64(g.mid_x), y]), pos[i]))
            return pos, placed.at[i].set(placed[i] | do), started | do, jnp.where(do, y, y_last), over | (do & out)

        init = (xy, jnp.zeros(n, bool), jnp.asarray(False), jnp.float64(g.spot_y), jnp.asarray(False))
        pos, _, _, _, over = jax.lax.fori_loop(0, n, body, init)
        return pos, over

    behind, over = run(ids, 1.0)
    ahead, _ = run(ids[::-1], -1.0)
    new_xy = jnp.where(over, ahead, behind)
    return new_xy, on | place


# ----------------------------------------------------------------------------- the lag

def lag_layout(spec):
    """POOL-GEN-06: the two lag balls' starting centres (2, 2) [m], either side of the front
    spot, a hand's width (0.2 m) apart and a ball radius plus 1 cm behind the front line so
    they are in the house; player 0 on the left (smaller x)."""
    fx, fy = spec.spots()["front"]
    y = fy - spec.ball_radius - 0.01
    return np.asarray([[fx - 0.1, y], [fx + 0.1, y]])


def judge_lag(spec, summ_a, final_a, summ_b, final_b):
    """The lag for the break (POOL-GEN-07..09, AMB-05): each ball, index 0 of its own
    stroke, played on an otherwise empty table from the house to the rear cushion and back
    (AMB-05(b)); player 0 plays on the left half (x < W/2), player 1 on the right.

    A ball loses (POOL-GEN-08) if it crosses the long string into the opponent's half
    (AMB-05(a)), does not reach the rear cushion, is pocketed, leaves the table, touches a
    long cushion, stops in the mouth of a head corner pocket past the head cushion's nose
    line (AMB-05(e)), or touches the rear cushion twice or more. Of two good balls the one
    stopping nearer the head cushion wins (POOL-GEN-07); both lost, or closer than 1 mm
    (POOL-GEN-09, AMB-05(c)), and the lag is repeated.

    Returns (winner () int32: 0, 1 or -1 to repeat; lost (2,) bool).
    """
    half = spec.width / 2
    off = contact_offset(spec)

    def loses(summ, final, side):
        first = summ.cushion_first_t[0, FOOT]
        no_rear = ~jnp.isfinite(first)
        twice = summ.cushion_last_t[0, FOOT] > first
        crossed = (summ.max_x[0] > half) if side == 0 else (summ.min_x[0] < half)
        gone = (summ.pocket[0] >= 0) | summ.off_table[0] | (final.state[0] >= POCKETED)
        long_ = jnp.any(jnp.isfinite(summ.cushion_first_t[0, jnp.asarray(LONG)]))
        in_mouth = final.r[0, 1] < off - 1e-9
        return no_rear | twice | crossed | gone | long_ | in_mouth

    lost = jnp.stack([loses(summ_a, final_a, 0), loses(summ_b, final_b, 1)])
    ya, yb = final_a.r[0, 1], final_b.r[0, 1]
    tie = jnp.abs(ya - yb) <= LAG_TIE
    nearer = jnp.where(ya < yb, 0, 1)
    winner = jnp.where(lost[0] & lost[1], -1, jnp.where(lost[0], 1, jnp.where(lost[1], 0, jnp.where(tie, -1, nearer))))
    return winner.astype(jnp.int32), lost


def lag_breaker(winner, winner_breaks=True):
    """POOL-GEN-10 and POOL-GEN-11: the lag (or lot) winner breaks, or gives the break to the opponent.
    Returns () int32, the breaker (-1 if the lag is to be repeated)."""
    winner = jnp.asarray(winner, jnp.int32)
    return jnp.where(winner < 0, -1, jnp.where(jnp.asarray(winner_breaks), winner, 1 - winner)).astype(jnp.int32)


# ----------------------------------------------------------------------------- the turn, the match

def turn_passes(foul, potted_legally):
    """() bool: the opponent comes in (POOL-GEN-05, POOL-GEN-68: no ball legally pocketed; POOL-GEN-31:
    every foul, whatever the game's penalty); without a foul he takes the position as it
    lies (POOL-GEN-69). Golf overrides this: a player's series runs until his pot (GF-19)."""
    return jnp.asarray(foul, bool) | ~jnp.asarray(potted_legally, bool)


BREAK_POLICIES = ("winner", "alternate", "loser", "behind")


def match_breaker(frame: int, first_breaker: int, last_winner: int | None, wins=(0, 0), policy: str = "winner") -> int:
    """Who breaks frame ``frame`` (0-based) of a two-player match. The lag winner's choice
    breaks the first; then by POOL-GEN-66 the winner of the previous frame (``"winner"``),
    or, at the organisers' choice (POOL-GEN-67), breaks alternate (``"alternate"``), the
    previous loser breaks (``"loser"``), or the player behind in frames (``"behind"``; level:
    the previous loser). POOL-GEN-64 (a position that cannot be restored: replay the frame,
    same breaker) never arises, and POOL-GEN-65 (14.1 continuous) has no game here."""
    if policy not in BREAK_POLICIES:
        raise ValueError(f"policy: {policy!r} is not one of {', '.join(BREAK_POLICIES)}")
    if frame < 0 or first_breaker not in (0, 1):
        raise ValueError(f"frame must be >= 0 and first_breaker 0 or 1 (got {frame}, {first_breaker})")
    if frame == 0:
        return first_breaker
    if policy == "alternate":
        return (first_breaker + frame) % 2
    if last_winner not in (0, 1):
        raise ValueError(f"last_winner must be 0 or 1 after the first frame (got {last_winner})")
    if policy == "winner":
        return last_winner
    if policy == "behind" and wins[0] != wins[1]:
        return int(np.argmin(wins))
    return 1 - last_winner
