"""What Americanka and Moscow pyramid share: first to eight balls, no call, every ball
that falls on a correct stroke counts, a foul costs one ball (or a ball owed), and balls
go back frozen against the middle of the rear cushion (AM-02/07..09/14..17,
MP-02/06..08/11..14, with the catalogue's readings AMB-29..31).

The two games differ in a handful of switches (:class:`Game`); the clause ids each switch
stands for are named per game so that a ruling cites the game's own clauses.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from cuegym.physics.tables import CUSHIONS
from cuegym.rules import respot
from cuegym.rules import russian as ru
from cuegym.rules.base import (
    FRAME_OVER,
    IN_HAND_HOUSE,
    IN_HAND_REAR,
    LAG,
    NORMAL,
    REMOVE_BALL,
    Clauses,
    Declaration,
    GameState,
    Ruling,
)
from cuegym.rules.pool import SIDE

WIN_BALLS = 8  # AM-02, MP-02
HEAD, FOOT = CUSHIONS.index("head"), CUSHIONS.index("foot")


class Game(NamedTuple):
    """Per-game switches and the clause ids behind each rule (static)."""

    n_balls: int
    fixed_cue: bool  # MP: ball 0 is the cue ball (RU-GEN-45); AM: any ball (AM-04)
    safety_rule: bool  # AM-10..13
    cue_in_hand: bool  # MP: RU-GEN-18/30 apply; AM-18: no ball in hand
    removal: bool  # MP-09: a legally pocketed cue ball lets the opponent remove a ball
    win: str
    any_ball: str
    no_call: str
    all_count: str
    respot: str
    respot_taken: str
    penalty: str
    debt: str
    struck_any: str = ""  # AM-04: the striker chose the ball struck (cited on every stroke)
    break_from_hand: str = ""  # AM-06: a stroke from hand is the break (AM has no other)


def _contact_after(summ, t):
    """(N b, N c) time of a contact between b and c at or after ``t`` (N b,) (+inf: none).

    The summary keeps each pair's first and last contact: the first if it is late enough,
    else the last. (A middle contact of three or more between the same pair is not seen;
    the earliest contact after ``t`` is only needed to order it before a cushion.)
    """
    first, last = summ.contact_t, summ.contact_last_t
    return jnp.where(first >= t[:, None], first, jnp.where(last >= t[:, None], last, jnp.inf))


def safety_ok(c: Clauses, spec, summ, start_xy, start_on, struck):
    """Americanka's legal safety (AM-10..12, AMB-28): returns () bool."""
    n = start_on.shape[0]
    ids = jnp.arange(n)
    cross = summ.cross_t
    first_t, last_t = summ.cushion_first_t, summ.cushion_last_t
    crossed = jnp.isfinite(cross) & start_on
    # (1) AM-10: a ball crossed the centre line and then touched the opposite short cushion
    # (the one in the half it entered), or drove another ball to it after crossing.
    far = jnp.where(start_xy[:, 1] < spec.length / 2, FOOT, HEAD)  # (N,) cushion of the half entered
    own = crossed & (jnp.take_along_axis(last_t, far[:, None], 1)[:, 0] >= cross)
    hit = _contact_after(summ, cross)  # (N b, N c): b hit c after b crossed
    far_last = last_t[:, jnp.array([HEAD, FOOT])]  # (N, 2)
    reach = jnp.where((far == FOOT)[:, None], far_last[None, :, 1], far_last[None, :, 0])  # (N b, N c)
    driven = crossed[:, None] & jnp.isfinite(hit) & (reach >= hit)
    rule1 = jnp.any(own) | jnp.any(driven)
    # (2) AM-11: the struck ball and an object ball both crossed the centre line.
    rule2 = crossed[struck] & jnp.any(crossed & (ids != struck))
    # (3) AM-12: a ball rebounded from one cushion and then touched a second, or drove a
    # ball to a second cushion (AMB-28(e): a different cushion). A long cushion is one
    # cushion though the middle pocket splits it (the source's «длинный борт»; pool.SIDE).
    side = jnp.asarray(SIDE)
    touched = jnp.isfinite(first_t)  # (N, 6) segments
    sides = jnp.any(touched[:, :, None] & (side[:, None] == jnp.arange(4))[None], 1)  # (N, 4) cushions
    two = jnp.sum(sides, 1) >= 2
    k1 = jnp.argmin(first_t, 1)  # (N,) each ball's first cushion segment
    t1 = jnp.min(first_t, 1)
    hit = _contact_after(summ, jnp.nextafter(t1, jnp.inf))  # (N b, N c): b hit c after its first cushion
    other_cushion = side[None, None, :] != side[k1][:, None, None]  # (N b, 1, 6)
    c_after = last_t[None, :, :] > hit[:, :, None]  # (N b, N c, 6)
    drove = jnp.isfinite(t1)[:, None] & jnp.isfinite(hit) & jnp.any(other_cushion & c_after, -1)
    rule3 = jnp.any(two & start_on) | jnp.any(drove)
    c.add("AM-10", rule1).add("AM-11", rule2).add("AM-12", rule3)
    return rule1 | rule2 | rule3


def _middle_taken(spec, xy, on):
    """() bool: a ball on the table takes the middle of the rear cushion (AM-15, MP-12)."""
    mid = jnp.asarray([spec.width / 2, spec.length - ru.contact_offset(spec)])
    return jnp.any(on & (jnp.sum((xy - mid) ** 2, -1) < (2 * spec.ball_radius) ** 2 * (1 - 1e-9)))


def _credit(state: GameState, player, balls, order):
    """Credit ``balls`` (N,) to ``player`` in pocketing ``order``; the first ``debt`` of
    them pay what the player owes and are re-spotted instead (AM-17, MP-14, AMB-30).
    Returns (state, credited (N,), paid (N,))."""
    rank = jnp.where(balls, order, 1 << 20)
    # position of each ball among this stroke's balls, in pocketing order
    place = jnp.sum(balls[None, :] & (rank[None, :] < rank[:, None]), 1)
    owed = state.debt[player]
    paid = balls & (place < owed)
    credited = balls & ~paid
    k = jnp.sum(credited)
    seq = (state.credits + place - owed).astype(jnp.int32)
    owner = jnp.where(credited, player, state.owner)
    owned_at = jnp.where(credited, seq, state.owned_at)
    debt = state.debt.at[player].add(-jnp.sum(paid).astype(jnp.int32))
    scores = state.scores.at[player].add(k.astype(jnp.int32))
    return state._replace(owner=owner, owned_at=owned_at, credits=(state.credits + jnp.sum(balls)).astype(jnp.int32), debt=debt, scores=scores), credited, paid


def _give_back(state: GameState, player, choice, due):
    """The offender gives back one ball (his choice if it is his, else his latest: AMB-30),
    or owes one if he has none (AM-16/17, MP-13/14). Returns (state, given (N,))."""
    n = state.owner.shape[0]
    mine = state.owner == player
    chosen_ok = (choice >= 0) & (choice < n) & mine[jnp.clip(choice, 0, n - 1)]
    latest = jnp.argmax(jnp.where(mine, state.owned_at, -1))
    ball = jnp.where(chosen_ok, choice, latest)
    has = jnp.any(mine)
    given = due & has & (jnp.arange(n) == ball)
    owner = jnp.where(given, -1, state.owner)
    owned_at = jnp.where(given, -1, state.owned_at)
    scores = state.scores.at[player].add(-jnp.sum(given).astype(jnp.int32))
    debt = state.debt.at[player].add(jnp.where(due & ~has, 1, 0))
    return state._replace(owner=owner, owned_at=owned_at, scores=scores, debt=debt), given


def judge(game: Game, spec, state: GameState, decl: Declaration, summ, start_xy, start_on, final,
          dead_position: bool = False):
    """Rule on one stroke of Americanka or Moscow pyramid; see the game modules."""
    n = game.n_balls
    c = Clauses()
    ids = jnp.arange(n)
    scores_before = state.scores
    striker = state.to_play
    other = 1 - striker
    struck = decl.struck
    cue = jnp.asarray(0) if game.fixed_cue else struck

    facts = ru.stroke_facts(decl, summ, start_xy, start_on, final)
    again_c = Clauses()
    again = ru.replay(again_c, decl, summ, start_on, struck)
    foul = ru.striker_fouls(c, spec, state, decl, summ, start_xy, start_on, facts, fixed_cue=game.fixed_cue)
    opp_foul, stopped, _ = ru.opponent_fouls(c, decl)
    xy, on, pocketed = ru.settle_layout(c, decl, start_xy, final, facts)
    stop_hit = (ids == stopped) & start_on
    pocketed = pocketed | stop_hit
    on = on & ~stop_hit
    rolled = ru.injected(decl, "rolled_along_cushion") & (ids == decl.inject_ball)
    c.add("RU-GEN-23", jnp.any(rolled & pocketed))
    c.add(game.no_call)
    if game.struck_any:
        c.add(game.struck_any)
    if game.break_from_hand:
        c.add(game.break_from_hand, (state.phase == IN_HAND_HOUSE) | (state.phase == IN_HAND_REAR))

    # The struck ball may fall too, once it has touched an object ball (AM-07, MP-06);
    # without a contact the stroke is already a foul (RU-GEN-37).
    struck_off = facts.off[struck]
    legal_pots = pocketed & ~rolled
    c.add(game.any_ball, legal_pots[struck] & ~foul)
    if game.safety_rule:
        # Americanka: a stroke that pockets nothing must be a legal safety (AM-13, RU-GEN-47).
        safe = safety_ok(c, spec, summ, start_xy, start_on, struck)
        bad_safety = ~jnp.any(legal_pots) & ~foul & ~safe
        c.add("AM-13", bad_safety).add("RU-GEN-47", bad_safety)
        foul = foul | bad_safety
    c.add("RU-GEN-50", foul)
    # On a correct stroke every ball that falls counts (AM-09, MP-08, RU-GEN-21); on a foul
    # none does (RU-GEN-51), nor when the struck ball leaves the table (RU-GEN-28, AM-18).
    good = ~foul & ~struck_off
    counted = good & legal_pots
    c.add(game.all_count, jnp.any(counted)).add("RU-GEN-21", jnp.any(counted))
    # (MP: a pocketed cue ball is not re-spotted, it goes in hand: RU-GEN-18)
    spotted_pots = pocketed & ~((ids == 0) & game.cue_in_hand)
    c.add("RU-GEN-51", foul & jnp.any(spotted_pots)).add("RU-GEN-28", struck_off & jnp.any(spotted_pots))
    c.add("RU-GEN-24", jnp.any(facts.off)).add("RU-GEN-26", ru.injected(decl, "ball_touched_foreign_object"))

    # Moscow pyramid: the cue ball counts like any ball (AMB-31) but the opponent then
    # names an object ball to take off (MP-09), before the striker plays on from hand.
    cue_counted = counted[0] if game.removal else jnp.asarray(False)
    balls_won = counted & ~((ids == 0) & game.removal)  # the cue ball itself is not a ball won
    state, credited, paid = _credit(state, striker, balls_won, jnp.where(stop_hit, -1, summ.pocket_order))
    c.add(game.debt, jnp.any(paid))
    # The penalty: one ball from the offender (AM-16, MP-13), or one owed (AM-17, MP-14).
    state, given = _give_back(state, striker, decl.choice, foul)
    state, given_opp = _give_back(state, other, jnp.asarray(-1), opp_foul)
    owes = (foul & ~jnp.any(given)) | (opp_foul & ~jnp.any(given_opp))  # nothing to give back
    c.add(game.penalty, foul | opp_foul).add(game.debt, owes)

    # Back on the table, frozen to the middle of the rear cushion (AM-14/15, MP-11/12):
    # illegally pocketed and off-table balls first, in ascending order, then penalty balls
    # and balls paying a debt (AMB-29, AMB-30).
    back = (pocketed & ~counted) | facts.off | rolled
    cue_back = back & (ids == 0) & jnp.asarray(game.cue_in_hand)  # MP: the cue ball goes in hand instead
    back = back & ~cue_back
    if game.removal:
        back = back & (ids != 0)
    on = on & ~pocketed & ~facts.off
    taken = _middle_taken(spec, xy, on)
    spotted = back | given | given_opp | paid
    # the middle is taken by a ball on the table, or (several balls) by the one placed
    # before (AM-15, MP-12 with AMB-29)
    c.add(game.respot, jnp.any(spotted)).add(game.respot_taken, jnp.any(spotted) & (taken | (jnp.sum(spotted) > 1)))
    c.add("RU-GEN-27", jnp.any(facts.off & (ids != cue))).add("RU-GEN-31", jnp.any(back)).add("RU-GEN-32", jnp.any(spotted))
    if not game.cue_in_hand:
        c.add("AM-18", struck_off).add("RU-GEN-29", struck_off)
    xy, on = respot.rear_cushion_respot(spec, xy, on, back)
    xy, on = respot.rear_cushion_respot(spec, xy, on, given | given_opp | paid)

    # Turn (RU-GEN-36): the striker continues after pocketing any ball, the cue ball
    # included in Moscow pyramid (AMB-31).
    keeps = jnp.any(counted) & ~foul
    c.add("RU-GEN-36")
    to_play = jnp.where(keeps, striker, other).astype(jnp.int32)
    phase = jnp.asarray(NORMAL)
    if game.cue_in_hand:
        cue_gone = ~on[0] & ~cue_counted
        in_hand = ru.in_hand_phase(spec, xy, on, 0)
        c.add("RU-GEN-18", cue_gone).add("RU-GEN-30", struck_off).add("RU-GEN-20", cue_gone & (in_hand != IN_HAND_HOUSE))
        phase = jnp.where(cue_gone, in_hand, phase)
    objects_left = jnp.any(on & (ids != 0))
    removal = cue_counted & objects_left
    c.add("MP-09", removal).add("MP-10", cue_counted)
    # the opponent names the ball; the striker then plays from hand (MP-10)
    to_play = jnp.where(removal, other, to_play).astype(jnp.int32)
    striker_next = jnp.where(removal, striker, to_play).astype(jnp.int32)
    if game.removal:
        phase = jnp.where(removal, REMOVE_BALL, jnp.where(cue_counted, ru.in_hand_phase(spec, xy, on, 0), phase))

    # Dead position (RU-GEN-56..58, AMB-18): the ball taken up for the play from hand after
    # the lag is the cue ball (Moscow) or, in Americanka, the highest-numbered ball on the
    # table (AMB-18: every ball but one is racked).
    in_hand_ball = 0 if game.fixed_cue else jnp.argmax(jnp.where(on, ids, -1))
    quiet, rebuilt, xy, on = ru.dead_position(spec, state, xy, on, in_hand_ball, facts, jnp.any(counted), dead_position)
    c.add("RU-GEN-56", rebuilt).add("RU-GEN-57", rebuilt).add("RU-GEN-58", rebuilt)
    phase = jnp.where(rebuilt, LAG, phase)

    won = jnp.any(state.scores >= WIN_BALLS)  # net of balls given back (AMB-30)
    c.add(game.win, won)
    winner = jnp.where(won, jnp.argmax(state.scores), -1).astype(jnp.int32)
    phase = jnp.where(won, FRAME_OVER, phase).astype(jnp.int32)
    points = state.scores - scores_before
    ruling = Ruling(
        foul=foul, fouler=jnp.where(foul, striker, jnp.where(opp_foul, other, -1)).astype(jnp.int32), clauses=c.mask,
        points=points, scores=state.scores, counted=counted, respotted=spotted, xy=xy, on=on, to_play=to_play,
        phase=phase, replay=jnp.asarray(False), warning=jnp.asarray(False), frame_over=won, winner=winner, debt=state.debt,
    )
    return ruling, state, (again, again_c, striker_next, quiet)


def finish(game: Game, old: GameState, ruling: Ruling, new: GameState, extra, start_xy, start_on):
    """Assemble the next state and apply a replay (RU-GEN-55/59/60) if one was called."""
    again, again_c, striker_next, quiet = extra
    nxt = new._replace(
        to_play=ruling.to_play, striker=striker_next, phase=ruling.phase, quiet=quiet,
        winner=ruling.winner, strokes=old.strokes + 1, foul_run=jnp.where(ruling.foul, old.foul_run + 1, 0).astype(jnp.int32),
    )
    return ru.or_replay(again, again_c, old, ruling, nxt, start_xy, start_on)


def choose_removal(spec, state: GameState, xy, on, choice):
    """Moscow pyramid, phase REMOVE_BALL: the player to play names an object ball on the
    table and it is taken off, credited to the striker (MP-09 with AMB-31; it can pay a
    debt, and then goes back to the rear cushion). An invalid ``choice`` (-1, the cue ball,
    a ball not on the table) takes the lowest-numbered ball. The striker then plays from
    hand (MP-10). Returns (Ruling, GameState)."""
    n = on.shape[0]
    ids = jnp.arange(n)
    c = Clauses().add("MP-09").add("MP-10")
    objects = on & (ids != 0)
    ok = (choice >= 1) & (choice < n) & objects[jnp.clip(choice, 0, n - 1)]
    ball = jnp.where(ok, choice, jnp.argmax(objects))
    taken = objects & (ids == ball)
    striker = state.striker
    before = state.scores
    state, credited, paid = _credit(state, striker, taken, jnp.zeros(n, jnp.int32))
    on = on & ~taken
    # a ball paying a debt goes back to the rear cushion (MP-11/12)
    c.add("MP-14", jnp.any(paid)).add("MP-11", jnp.any(paid)).add("MP-12", jnp.any(paid) & _middle_taken(spec, xy, on))
    xy, on = respot.rear_cushion_respot(spec, xy, on, paid)
    won = jnp.any(state.scores >= WIN_BALLS)
    c.add("MP-02", won)
    phase = jnp.where(won, FRAME_OVER, ru.in_hand_phase(spec, xy, on, 0)).astype(jnp.int32)
    winner = jnp.where(won, jnp.argmax(state.scores), -1).astype(jnp.int32)
    ruling = Ruling(
        foul=jnp.asarray(False), fouler=jnp.asarray(-1, jnp.int32), clauses=c.mask, points=state.scores - before,
        scores=state.scores, counted=credited, respotted=paid, xy=xy, on=on, to_play=striker, phase=phase,
        replay=jnp.asarray(False), warning=jnp.asarray(False), frame_over=won, winner=winner, debt=state.debt,
    )
    return ruling, state._replace(to_play=striker, phase=phase, winner=winner)
