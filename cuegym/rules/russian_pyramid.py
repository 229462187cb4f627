"""Russian pyramid referee (catalogue section RP, over RU-GEN: RP-01).

Balls (RP-03): index 0 is the cue ball, 1..15 the numbered object balls. The rack (RP-04) is
``cuegym.physics.racks.pyramid_rack``: apex 4 on the rear spot, rows 5 6 / 7 15 8 / 9 14 13 10 /
2 1 12 11 3 left to right as seen from the house (AMB-19). A called ball and pocket on every
stroke (RP-08, AMB-23); first to 71 points (RP-02); fouls −5 / +5 (RP-16).

``judge(spec, state, decl, summ, start_xy, start_on, final)`` is pure JAX (jit with ``spec``
static, vmap over tables) and returns ``(Ruling, GameState)``.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from cuegym.physics import POCKETS
from cuegym.rules import respot
from cuegym.rules import russian as ru
from cuegym.rules.base import (
    FRAME_OVER,
    IN_HAND_REAR,
    LAG,
    NORMAL,
    PLAYERS,
    Clauses,
    Declaration,
    GameState,
    Ruling,
    new_state,
)

GAME = "russian-pyramid"
N_BALLS = 16
CUE = 0
WIN = 71  # RP-02
FOUL_POINTS = 5  # RP-16
LAST_BALL_BONUS = 10  # RP-06
TIED = 70  # RP-17
STALEMATE_FOULS = 6  # RP-20 with AMB-26: three deliberate fouls each, in a row
# RP-05: a ball scores its number, the ace (ball 1) 11.
VALUES = np.asarray([0, 11] + list(range(2, 16)), np.int32)


def initial_state(breaker: int = 0) -> GameState:
    """The break: the breaker has the cue ball in hand in the house (RP-07, RU-GEN-13)."""
    return new_state(N_BALLS, to_play=breaker)


def call_valid(decl: Declaration, start_on):
    """RP-09: the call names an object ball on the table and a pocket."""
    ball, pocket = decl.call_ball, decl.call_pocket
    return (ball >= 1) & (ball < N_BALLS) & start_on[jnp.clip(ball, 0, N_BALLS - 1)] & (pocket >= 0) & (pocket < len(POCKETS))


def judge(spec, state: GameState, decl: Declaration, summ, start_xy, start_on, final, dead_position: bool = False):
    """Rule on one stroke.

    Args:
      spec: the table's TableSpec (static).
      state: GameState before the stroke (phase NORMAL, IN_HAND_HOUSE or IN_HAND_REAR).
      decl: the Declaration (struck ball, call; injected events).
      summ: the stroke's ShotSummary; final: its final BallState.
      start_xy (N, 2) [m], start_on (N,) bool: the layout before the stroke (the cue ball
        in hand already placed).
      dead_position: apply RU-GEN-56..58 (off by default, AMB-18).
    """
    # RP-01 / RU-GEN-01: the general rules below apply except where RP overrides them.
    c = Clauses()
    c.add("RP-01")
    ids = jnp.arange(N_BALLS)
    striker = state.to_play
    other = 1 - striker
    objects = ids != CUE

    facts = ru.stroke_facts(decl, summ, start_xy, start_on, final)
    again_c = Clauses()
    again = ru.replay(again_c, decl, summ, start_on, CUE)
    foul = ru.striker_fouls(c, spec, state, decl, summ, start_xy, start_on, facts, fixed_cue=True)
    cue_pocketed = facts.pocketed[CUE]
    c.add("RU-GEN-46", cue_pocketed)  # pocketing the cue ball is a foul in RP
    foul = foul | cue_pocketed
    opp_foul, stopped, stopped_pocket = ru.opponent_fouls(c, decl)

    xy, on, pocketed = ru.settle_layout(c, decl, start_xy, final, facts)
    # RU-GEN-62: a ball the opponent stopped on its way to a pocket counts as pocketed there.
    stop_hit = (ids == stopped) & start_on
    pocketed = pocketed | stop_hit
    on = on & ~stop_hit
    pocket_of = jnp.where(stop_hit, stopped_pocket, summ.pocket)
    rolled = ru.injected(decl, "rolled_along_cushion") & (ids == decl.inject_ball)  # RU-GEN-23
    c.add("RU-GEN-23", jnp.any(rolled & pocketed))

    # The call (RP-08..12, AMB-22: any correct stroke that sends the called ball into the
    # called pocket succeeds; RU-GEN-17 with AMB-07: no pocket restriction from hand).
    valid = call_valid(decl, start_on)
    # RP-08/10: the stroke is judged against the call declared before it, as locked at the
    # strike (the declaration cannot change once the stroke has begun).
    c.add("RP-08").add("RP-10").add("RP-09", ~valid)
    called = jnp.clip(decl.call_ball, 0, N_BALLS - 1)
    made = valid & pocketed[called] & (pocket_of[called] == decl.call_pocket) & ~rolled[called]
    cue_off = facts.off[CUE]
    success = made & ~foul & ~cue_off  # RU-GEN-21, RU-GEN-28, RU-GEN-51
    counted = success & pocketed & objects & ~rolled  # RP-11
    c.add("RP-11", success).add("RP-12", ~success & ~foul).add("RU-GEN-21", jnp.any(counted))
    c.add("RU-GEN-51", foul & jnp.any(pocketed & objects)).add("RU-GEN-28", cue_off & jnp.any(pocketed & objects))
    c.add("RU-GEN-24", jnp.any(facts.off)).add("RU-GEN-26", ru.injected(decl, "ball_touched_foreign_object"))
    c.add("RU-GEN-17", success & (state.phase != NORMAL))

    # Re-spot every uncalled, illegally pocketed or off-table object ball (RP-13..15,
    # RU-GEN-27/31/32), in ascending order along the long string.
    to_spot = objects & ((pocketed & ~counted) | facts.off)
    c.add("RP-13", jnp.any(to_spot)).add("RP-14", jnp.sum(to_spot) > 1).add("RU-GEN-27", jnp.any(facts.off & objects))
    c.add("RU-GEN-31", jnp.any(to_spot)).add("RU-GEN-32", jnp.any(to_spot))
    spot_xy = jnp.asarray(spec.spots()["rear"])

    def spot_blocked(xy, on):  # RP-15: a ball on the table closer to the spot than 2R + 1 mm (AMB-24(d))
        return jnp.any(on & (jnp.sum((xy - spot_xy) ** 2, -1) < (2 * spec.ball_radius + respot.GAP) ** 2))

    c.add("RP-15", jnp.any(to_spot) & spot_blocked(xy, on))
    on = on & ~pocketed & ~facts.off
    xy, on = respot.long_string_respot(spec, xy, on, to_spot)

    # Points (RP-05, RP-06 with AMB-20: +10 once, to the striker who leaves no object ball).
    gained = jnp.sum(jnp.where(counted, VALUES, 0)).astype(jnp.int32)
    cleared = success & ~jnp.any(on & objects)
    c.add("RP-05", success).add("RP-06", cleared)
    gained = gained + jnp.where(cleared, LAST_BALL_BONUS, 0)
    # Fouls: −5 to the offender, +5 to the opponent, once per stroke (RP-16, RU-GEN-50).
    c.add("RP-16", foul | opp_foul).add("RU-GEN-50", foul)
    points = jnp.zeros(PLAYERS, jnp.int32).at[striker].add(gained)
    points = points.at[striker].add(jnp.where(foul, -FOUL_POINTS, 0) + jnp.where(opp_foul, FOUL_POINTS, 0))
    points = points.at[other].add(jnp.where(foul, FOUL_POINTS, 0) + jnp.where(opp_foul, -FOUL_POINTS, 0))
    scores = state.scores + points

    # Turn (RU-GEN-36): the striker continues after a successful call, else the opponent.
    c.add("RU-GEN-36")
    to_play = jnp.where(success, striker, other).astype(jnp.int32)
    # Ball in hand from the house after the cue ball is pocketed or leaves the table
    # (RU-GEN-18/30), from the rear end if every object ball is in the house (RU-GEN-20).
    cue_gone = ~on[CUE]
    in_hand = ru.in_hand_phase(spec, xy, on, CUE)
    c.add("RU-GEN-18", cue_gone).add("RU-GEN-30", cue_off).add("RU-GEN-20", cue_gone & (in_hand == IN_HAND_REAR))
    phase = jnp.where(cue_gone, in_hand, NORMAL)

    last = jnp.where(success, called, state.last_pocketed).astype(jnp.int32)  # AMB-25
    # Stalemate (RP-20..22 with AMB-26): six fouls in a row, alternating, nothing moved.
    foul_run = jnp.where(foul & ~facts.moved, state.foul_run + 1, 0).astype(jnp.int32)
    warning = (foul_run == 3) | (foul_run == 4)
    c.add("RP-22", warning)
    stalemate = foul_run >= STALEMATE_FOULS
    c.add("RP-20", stalemate).add("RP-21", stalemate)
    keep = objects & on
    lowest = jnp.argmax(keep)  # the lowest-numbered object ball left stays (AMB-26)
    stale_on = (ids == lowest) & jnp.any(keep)
    stale_xy, stale_on = respot.long_string_respot(spec, xy, on & ~objects & ~(ids == CUE), stale_on)
    on = jnp.where(stalemate, stale_on, on)
    xy = jnp.where(stalemate, stale_xy, xy)
    scores = jnp.where(stalemate, TIED, scores)

    # 70:70 (RP-17..19): the last ball pocketed goes back on the rear spot, a lag decides
    # who plays from hand, and the next pot or foul ends the frame.
    tied = (scores[0] == TIED) & (scores[1] == TIED) & ~stalemate & ~state.sudden_death
    to_lag = tied | stalemate
    c.add("RP-18", to_lag).add("RU-GEN-58", to_lag)
    # The cue ball is taken up for the lag and the play from hand (RP-18), before the last
    # ball is spotted, so it never obstructs the rear spot.
    on = on & ~(to_lag & (ids == CUE))
    c.add("RP-17", tied).add("RP-15", tied & (last >= 0) & spot_blocked(xy, on))
    tie_xy, tie_on = respot.long_string_respot(spec, xy, on, (ids == last) & tied)
    xy = jnp.where(tied, tie_xy, xy)
    on = jnp.where(tied, tie_on, on)
    sudden_death = state.sudden_death | to_lag
    c.add("RP-19", state.sudden_death & (success | foul))

    quiet, rebuilt, xy, on = ru.dead_position(spec, state, xy, on, CUE, facts, jnp.any(counted), dead_position)
    c.add("RU-GEN-56", rebuilt).add("RU-GEN-57", rebuilt).add("RU-GEN-58", rebuilt)

    # The frame (RP-02): 71 points win, checked after every stroke.
    won = jnp.any(scores >= WIN)
    c.add("RP-02", won)
    winner = jnp.where(won, jnp.argmax(scores), -1).astype(jnp.int32)
    phase = jnp.where(to_lag | rebuilt, LAG, phase)
    phase = jnp.where(won, FRAME_OVER, phase).astype(jnp.int32)

    ruling = Ruling(
        foul=foul, fouler=jnp.where(foul, striker, jnp.where(opp_foul, other, -1)).astype(jnp.int32), clauses=c.mask,
        points=points, scores=scores, counted=counted, respotted=to_spot | (stalemate & stale_on) | (tied & (ids == last)),
        xy=xy, on=on, to_play=to_play, phase=phase, replay=jnp.asarray(False), warning=warning,
        frame_over=won, winner=winner, debt=state.debt,
    )
    nxt = state._replace(
        to_play=to_play, striker=to_play, phase=phase, scores=scores, foul_run=jnp.where(stalemate, 0, foul_run),
        quiet=quiet, last_pocketed=last, sudden_death=sudden_death, winner=winner, strokes=state.strokes + 1,
    )
    return ru.or_replay(again, again_c, state, ruling, nxt, start_xy, start_on)
