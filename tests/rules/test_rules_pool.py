"""The general pool rules (catalogue section POOL-GEN, ``cuegym.rules.pool``): one test per
clause, named after it, through the pool functions and through the golf referee that uses
them (the only pool game so far). Clauses of other pool games (racking, breaks of a match,
14.1) are tested on the pool functions alone.

Real shots and event summaries come from tests/rules/test_rules_golf.py (one simulated batch, one
compiled judge); the re-spot and lag functions are jitted once each here.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from test_rules_golf import (
    CENTRE,
    FRONT,
    OFF,
    REAR,
    SPEC,
    L,
    R,
    W,
    cited,
    final_balls,
    judge,
    judge_real,
    layout,
    real,
    state_at,
    summary,
)

from cuegym.physics import POCKETED, STATIONARY, get_spec, make_shot
from cuegym.rules import catalogue, pool
from cuegym.rules import golf as gf
from cuegym.rules.base import IN_HAND_HOUSE, NORMAL

N = gf.N_BALLS


@functools.lru_cache(maxsize=None)
def _respot(n):
    return jax.jit(functools.partial(pool.respot_long_string, SPEC))


def respot(xy, on, place):
    xy = np.asarray(xy, float)
    return tuple(np.asarray(a) for a in _respot(len(on))(jnp.asarray(xy), jnp.asarray(on), jnp.asarray(place)))


def lag(a, b):
    """judge_lag on two real lag shots of tests/rules/test_rules_golf.py."""
    _, _, sa, fa = real(a)
    _, _, sb, fb = real(b)
    w, lost = pool.judge_lag(SPEC, sa, fa, sb, fb)
    return int(w), np.asarray(lost).tolist()


# ----------------------------------------------------------------------------- scope, equipment, rack

def test_POOL_GEN_01_pool_rules_apply_where_golf_is_silent_and_golf_prevails():
    # golf says nothing of a ball frozen to a cushion: the pool rule (POOL-GEN-70) judges it
    r, nxt = judge_real(state_at(3, opening=False), "cushion_frozen")
    assert bool(r.foul) and "POOL-GEN-70" in cited(r)
    # golf's own rule prevails over POOL-GEN-31: the foul does not pass the turn
    assert bool(pool.turn_passes(True, False)) and int(nxt.to_play) == 0


def test_POOL_GEN_02_any_table_with_a_house_line():
    for name in ("snooker-12ft", "pyramid-12ft"):
        spec = get_spec(name)
        low, high = pool.in_hand_region(spec)
        assert high[1] < spec.head_line and high[1] > spec.head_line - 1e-12 and low[1] > 0


def test_POOL_GEN_03_rack_front_ball_on_the_rear_spot_packed_tight():
    xy = pool.rack(SPEC, 15)
    assert np.allclose(xy[0], REAR)
    d = np.linalg.norm(xy[:, None] - xy[None], axis=-1) + np.eye(15)
    assert d.min() >= 2 * R and np.all(xy[:, 1] >= REAR[1] - 1e-12)
    assert np.sum(np.isclose(d, 2 * R, atol=1e-6)) // 2 == 30  # a 5-row triangle has 30 touching pairs


# ----------------------------------------------------------------------------- the turn

def test_POOL_GEN_05_no_pot_on_a_legal_stroke_ends_the_turn():
    assert bool(pool.turn_passes(False, False)) and not bool(pool.turn_passes(False, True))


def test_POOL_GEN_31_every_foul_passes_the_turn():
    assert bool(pool.turn_passes(True, True))
    _, nxt = judge_real(state_at(3, opening=False), "miss")  # golf overrides it (GF-19, AMB-50)
    assert int(nxt.to_play) == 0


def test_POOL_GEN_68_opponent_comes_in_after_a_miss_or_foul():
    table = [(f, p, bool(pool.turn_passes(f, p))) for f in (False, True) for p in (False, True)]
    assert table == [(False, False, True), (False, True, False), (True, False, True), (True, True, True)]


def test_POOL_GEN_69_without_a_foul_the_position_as_it_lies():
    r, _ = judge_real(state_at(3, opening=False), "open_good")
    assert not bool(r.foul) and np.allclose(np.asarray(r.xy)[:2], np.asarray(real("open_good")[3].r)[:2, :2])


# ----------------------------------------------------------------------------- the lag

def test_POOL_GEN_06_lag_balls_either_side_of_the_front_spot_in_the_house():
    xy = pool.lag_layout(SPEC)
    assert np.allclose(xy.mean(0)[0], FRONT[0]) and xy[0, 0] < FRONT[0] < xy[1, 0]
    assert np.all(np.asarray(pool.in_house(SPEC, xy)))


def test_POOL_GEN_07_nearer_the_front_cushion_wins():
    ya = float(real("lag_left")[3].r[0, 1])
    yb = float(real("lag_right")[3].r[0, 1])
    w, lost = lag("lag_left", "lag_right")
    assert lost == [False, False] and w == (0 if ya < yb else 1) and abs(ya - yb) > pool.LAG_TIE


def test_POOL_GEN_08_lag_losing_conditions():
    assert lag("lag_left", "lag_soft") == (0, [False, True])  # never reached the rear cushion
    assert lag("lag_left", "lag_twice") == (0, [False, True])  # touched it twice
    _, _, s, f = real("lag_left")
    for changed in (dict(max_x=s.max_x.at[0].set(W / 2 + 0.01)),  # into the opponent's half
                    dict(cushion_first_t=s.cushion_first_t.at[0, 2].set(0.5)),  # a long cushion
                    dict(pocket=s.pocket.at[0].set(0)), dict(off_table=s.off_table.at[0].set(True))):
        w, lost = pool.judge_lag(SPEC, s._replace(**changed), f, *real("lag_right")[2:])
        assert int(w) == 1 and np.asarray(lost).tolist() == [True, False]
    mouth = f._replace(r=f.r.at[0, 1].set(OFF / 2))  # stopped in a head corner mouth
    assert np.asarray(pool.judge_lag(SPEC, s, mouth, *real("lag_right")[2:])[1]).tolist() == [True, False]


def test_POOL_GEN_09_both_lose_or_too_close_to_tell_repeat():
    assert lag("lag_soft", "lag_twice") == (-1, [True, True])
    _, _, s, f = real("lag_left")
    f2 = f._replace(r=f.r.at[0, 1].add(0.0009))
    s2 = s._replace(max_x=s.max_x.at[0].set(W / 2 + 0.1), min_x=s.min_x.at[0].set(W / 2 + 0.1))
    assert int(pool.judge_lag(SPEC, s, f, s2, f2)[0]) == -1


def test_POOL_GEN_10_lag_winner_gets_the_break():
    assert int(pool.lag_breaker(1)) == 1 and int(pool.lag_breaker(-1)) == -1


def test_POOL_GEN_11_lag_winner_may_give_the_break_away():
    assert int(pool.lag_breaker(1, winner_breaks=False)) == 0


# ----------------------------------------------------------------------------- ball in hand, the house

def test_POOL_GEN_12_break_from_the_house_unless_the_game_sets_the_cue_ball():
    low, high = pool.in_hand_region(SPEC)
    assert high[1] < SPEC.head_line
    xy, on = gf.initial_layout(SPEC, 2)  # golf: the cue ball starts on the centre spot (GF-08)
    assert int(gf.initial_state(2).phase) == NORMAL and np.allclose(np.asarray(xy)[0], CENTRE)


def test_POOL_GEN_13_cue_ball_in_play_once_it_crosses_the_front_line():
    _, _, s, _ = real("house_line")
    assert bool(pool.in_play(SPEC, s))
    stays = summary([("cushion", 0, "head")])  # never reached the line (max_y = 0)
    assert not bool(pool.in_play(SPEC, stays))


def test_POOL_GEN_14_ball_in_hand_after_the_cue_ball_is_pocketed():
    _, nxt = judge_real(state_at(3, opening=False), "cue_pocket")
    assert int(nxt.phase) == IN_HAND_HOUSE


def test_POOL_GEN_15_anywhere_in_the_house():
    xy, on = layout(b1=REAR)
    for p in ((OFF, OFF), (W - OFF, 0.3), (W / 2, SPEC.head_line - 1e-6)):
        assert bool(pool.placement_ok(SPEC, xy, on, p))
    assert not bool(pool.placement_ok(SPEC, xy, on, (W / 2, SPEC.head_line + 0.01)))
    xy2, on2 = layout(b1=(W / 2, 0.3))
    assert not bool(pool.placement_ok(SPEC, xy2, on2, (W / 2 + R, 0.3)))  # overlaps a ball


def test_POOL_GEN_16_balls_outside_the_house_may_be_played():
    r, _ = judge_real(state_at(3, opening=False, phase=IN_HAND_HOUSE), "house_line")
    assert not bool(r.foul) and "POOL-GEN-16" in cited(r)


def test_POOL_GEN_17_ball_in_the_house_only_after_the_rear_cushion():
    bad, _ = judge_real(state_at(3, opening=False, phase=IN_HAND_HOUSE), "house_direct")
    good, _ = judge_real(state_at(3, opening=False, phase=IN_HAND_HOUSE), "house_back")
    assert bool(bad.foul) and "POOL-GEN-17" in cited(bad)
    assert not bool(good.foul) and "POOL-GEN-17" not in cited(good)


def test_POOL_GEN_18_position_is_the_centre():
    inside = np.asarray(pool.in_house(SPEC, np.asarray([[W / 2, SPEC.head_line - 1e-9], [W / 2, SPEC.head_line + R / 2]])))
    assert inside.tolist() == [True, False]  # the second overlaps the house but its centre is out


def test_POOL_GEN_19_no_touching_house_balls_before_leaving_the_house():
    xy, on = layout(b0=(0.5, 0.4), b1=(0.5, 1.5), b2=(0.9, 0.3))
    s = summary([("ball", 0, 1), ("ball", 0, 2), ("cushion", 2, "head")])
    first_in, later_in = pool.house_fouls(SPEC, s, jnp.asarray(xy), jnp.asarray(on))
    assert not bool(first_in) and bool(later_in)


def test_POOL_GEN_20_in_play_once_it_leaves_the_house():
    _, _, s, _ = real("house_back")
    assert bool(pool.in_play(SPEC, s))


def test_POOL_GEN_21_cue_ball_may_be_adjusted_until_struck():
    xy, on = layout(b1=REAR)  # placement is a field of the action: any number of valid tries
    assert all(bool(pool.placement_ok(SPEC, xy, on, (x, 0.3))) for x in (0.3, 0.9, 1.4))


def test_POOL_GEN_22_touching_the_cue_ball_in_play():
    xy, on = layout(b0=(W / 2, 1.2), b1=REAR)
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("cushion", 1, "foot")],
                 decl=pool.declare(inject=["touched_ball"], inject_ball=0))
    assert bool(r.foul) and "POOL-GEN-22" in cited(r) and int(r.strokes[0]) == 4


def test_POOL_GEN_23_in_hand_anywhere_region():
    low, high = pool.in_hand_region(SPEC, anywhere=True)
    assert np.allclose(low, [OFF, OFF]) and np.allclose(high, [W - OFF, L - OFF])
    assert bool(pool.placement_ok(SPEC, *layout(b1=REAR), (W / 2, 3.2), anywhere=True))


# ----------------------------------------------------------------------------- pocketed, stroke, line

def test_POOL_GEN_24_ball_pocketed_on_a_legal_stroke():
    r, _ = judge_real(state_at(3, opening=False), "pot_FR")
    assert np.asarray(r.counted).tolist()[1] and "POOL-GEN-24" in cited(r)


def test_POOL_GEN_25_ball_back_out_of_a_pocket_is_not_pocketed():
    xy, on = layout(b0=(W / 2, 1.2), b1=(W - 0.1, L - 0.1))
    s = summary([("ball", 0, 1), ("cushion", 1, "right-foot")])  # rattled in the jaws, back on the bed
    f = pool.stroke_facts(pool.declare(), s, jnp.asarray(xy), jnp.asarray(on), final_balls(xy, on, {1: (W - 0.05, L - 0.05)}))
    assert not np.asarray(f.pocketed).any() and np.asarray(f.stays)[1]


def test_POOL_GEN_26_feet_off_the_floor():
    xy, on = layout(b0=(W / 2, 1.2), b1=REAR)
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("cushion", 1, "foot")],
                 decl=pool.declare(inject=["feet_off_floor"]))
    assert bool(r.foul) and "POOL-GEN-26" in cited(r)


def test_POOL_GEN_27_striking_before_the_balls_rest():
    xy, on = layout(b0=(W / 2, 1.2), b1=REAR)
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("cushion", 1, "foot")],
                 decl=pool.declare(inject=["early_stroke"]))
    assert bool(r.foul) and "POOL-GEN-27" in cited(r)


def test_POOL_GEN_28_stroke_complete_when_every_ball_stopped():
    _, on, s, f = real("open_good")
    assert np.all((np.asarray(f.state) == STATIONARY) | ~on)
    assert np.all(np.abs(np.asarray(f.v)[on]) < 1e-9)


def test_POOL_GEN_29_ball_on_the_front_line_is_outside_the_house():
    xy, _, _, _ = real("house_line")
    assert not bool(pool.in_house(SPEC, xy[1]))
    r, _ = judge_real(state_at(3, opening=False, phase=IN_HAND_HOUSE), "house_line")
    assert not {"POOL-GEN-17", "POOL-GEN-19"} & cited(r)


def test_POOL_GEN_30_cue_ball_not_placed_on_the_front_line():
    xy, on = layout(b1=REAR)
    assert not bool(pool.placement_ok(SPEC, xy, on, (W / 2, SPEC.head_line)))
    assert bool(pool.placement_ok(SPEC, xy, on, (W / 2, SPEC.head_line - 1e-6)))


# ----------------------------------------------------------------------------- fouls, legal stroke

def test_POOL_GEN_32_nothing_pocketed_on_a_foul_counts():
    xy, on = layout(b0=(W / 2, 1.2), b1=(1.5, 3.2))
    r, nxt = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("pocket", 1, "FR"), ("pocket", 0, "HR")],
                   pocketed=[0, 1])
    assert bool(r.foul) and not bool(r.potted) and not np.asarray(r.counted).any() and int(nxt.next_pocket[0]) == 1


def test_POOL_GEN_33_only_the_game_says_what_is_respotted():
    xy, on = layout(b0=(W / 2, 1.2), b1=(1.5, 3.2))
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("pocket", 1, "FL"), ("pocket", 0, "HR")],
                 pocketed=[0, 1])
    # golf re-spots the object ball, not the cue ball (in hand instead)
    assert np.asarray(r.respotted).tolist() == [False, True] + [False] * 5 and not bool(r.on[0])


def test_POOL_GEN_34_missing_the_legal_ball():
    r, _ = judge_real(state_at(3, opening=False), "miss")
    assert bool(r.foul) and "POOL-GEN-34" in cited(r)


def test_POOL_GEN_35_playing_away_from_a_frozen_ball_is_no_hit():
    _, _, s, _ = real("frozen_away")
    assert int(s.first_contact) == -1 and float(s.near_gap) <= pool.FROZEN_EPS
    r, _ = judge_real(state_at(3, opening=False), "frozen_away")
    assert bool(r.foul) and {"POOL-GEN-34", "POOL-GEN-35"} <= cited(r)


def test_POOL_GEN_36_legal_ball_first_then_a_pot_or_a_cushion():
    for name, ok in (("no_cushion", False), ("open_good", True), ("pot_FR", True)):
        xy, on, s, f = real(name)
        facts = pool.stroke_facts(pool.declare(), s, jnp.asarray(xy), jnp.asarray(on), f)
        objects = (np.arange(N) > 0) & on
        assert bool(pool.after_contact_ok(s, facts.pocketed, jnp.asarray(objects))) is ok
        assert bool(pool.hit_legal_first(s, jnp.asarray(objects)))


def test_POOL_GEN_37_cue_ball_pocketed_is_a_foul():
    r, _ = judge_real(state_at(3, opening=False), "cue_pocket")
    assert bool(r.foul) and "POOL-GEN-37" in cited(r)


def test_POOL_GEN_38_touching_a_ball_is_a_foul():
    xy, on = layout(b0=(W / 2, 1.2), b1=REAR)
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("cushion", 1, "foot")],
                 decl=pool.declare(inject=["touched_ball"], inject_ball=1))
    assert bool(r.foul) and "POOL-GEN-38" in cited(r) and "POOL-GEN-22" not in cited(r)


# ----------------------------------------------------------------------------- cue action, jumps

def test_POOL_GEN_39_double_hit_close_ball_straight_on():
    r, _ = judge_real(state_at(3, opening=False), "close_straight")  # 5 mm gap < R/2, aimed straight at it
    assert bool(r.foul) and "POOL-GEN-39" in cited(r)


def test_POOL_GEN_40_tip_on_the_cue_ball_while_it_touches_a_ball():
    r, _ = judge_real(state_at(3, opening=False), "frozen_into")
    assert bool(r.foul) and "POOL-GEN-40" in cited(r)


def test_POOL_GEN_41_frozen_non_legal_ball_must_be_played_away_from():
    xy, on = layout(b0=CENTRE, b1=REAR, b2=(W / 2 + 2 * R, L / 2))
    legal = jnp.arange(N) == 1
    s = summary([("ball", 0, 1)], near=(2, 1e-4, 0.3))  # aim 17° off the line of centres to ball 2
    f = pool.cue_fouls(SPEC, pool.declare(), s, jnp.asarray(xy), jnp.asarray(on), legal)
    s_away = summary([("ball", 0, 1)], near=(2, 1e-4, 2.0))  # 115° off: played away from it
    away = pool.cue_fouls(SPEC, pool.declare(), s_away, jnp.asarray(xy), jnp.asarray(on), legal)
    assert bool(f.frozen_other) and not bool(f.frozen_push) and not bool(away.frozen_other)


def test_POOL_GEN_42_push_is_a_foul():
    xy, on = layout(b0=(W / 2, 1.2), b1=REAR)
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("cushion", 1, "foot")],
                 decl=pool.declare(inject=["push_shot"]))
    assert bool(r.foul) and "POOL-GEN-42" in cited(r)


def _jump(theta_deg, b, miscue=False):
    xy, on = layout(b0=(W / 2, 1.0), b1=(W / 2, 2.0), b2=(W / 2, 1.5))  # ball 2 between them
    s = summary([("air", 0), ("ball", 0, 1)], miscue=miscue)
    shot = make_shot(0, math.pi / 2, 3.0, 0.0, b, math.radians(theta_deg))
    return pool.cue_fouls(SPEC, pool.declare(), s, jnp.asarray(xy), jnp.asarray(on), jnp.arange(N) == 1, shot)


def test_POOL_GEN_43_legal_jump_raised_cue_upper_half():
    f = _jump(30.0, 0.3)
    assert not bool(f.bad_jump) and not bool(f.jump_miscue)


def test_POOL_GEN_44_miscue_on_a_jump():
    assert bool(_jump(30.0, 0.3, miscue=True).jump_miscue)


def test_POOL_GEN_45_any_other_jump_is_a_foul():
    assert bool(_jump(10.0, 0.3).bad_jump) and bool(_jump(30.0, -0.3).bad_jump)


# ----------------------------------------------------------------------------- off the table

def test_POOL_GEN_46_ball_at_rest_off_the_bed_is_off_the_table():
    xy, on = layout(b0=(W / 2, 1.2), b1=(W / 2, 2.0))
    s = summary([("ball", 0, 1), ("air", 1), ("off", 1)])
    f = pool.stroke_facts(pool.declare(), s, jnp.asarray(xy), jnp.asarray(on), final_balls(xy, on, off=[1]))
    assert np.asarray(f.off)[1] and not np.asarray(f.stays)[1]


def test_POOL_GEN_47_ball_back_on_the_bed_by_itself_stays_in_play():
    xy, on = layout(b0=(W / 2, 1.2), b1=(W / 2, 2.0))
    s = summary([("ball", 0, 1), ("air", 1), ("cushion", 1, "foot")])  # airborne, landed back
    f = pool.stroke_facts(pool.declare(), s, jnp.asarray(xy), jnp.asarray(on), final_balls(xy, on, {1: (W / 2, 3.0)}))
    assert not np.asarray(f.off)[1] and np.asarray(f.stays)[1]


def test_POOL_GEN_48_touching_a_foreign_object_is_off_the_table():
    xy, on = layout(b0=(W / 2, 1.2), b1=(W / 2, 2.0))
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("cushion", 1, "foot")], moved={1: (W / 2, 3.0)},
                 decl=pool.declare(inject=["ball_touched_foreign_object"], inject_ball=1))
    assert bool(r.foul) and "POOL-GEN-48" in cited(r) and np.allclose(np.asarray(r.xy)[1], REAR)


def test_POOL_GEN_49_cue_ball_off_the_table_is_a_foul():
    xy, on = layout(b0=(W / 2, 1.2), b1=REAR)
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("cushion", 1, "foot"), ("air", 0), ("off", 0)], off=[0])
    assert bool(r.foul) and "POOL-GEN-49" in cited(r)


def test_POOL_GEN_50_off_table_object_ball_respotted_after_the_stroke():
    xy, on = layout(b0=(W / 2, 1.2), b1=(W / 2, 2.0))
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("off", 1)], moved={0: (W / 2, 1.9)}, off=[1])
    assert np.allclose(np.asarray(r.xy)[1], REAR) and "POOL-GEN-50" in cited(r)


def test_POOL_GEN_51_off_table_cue_ball_returns_per_the_game():
    xy, on = layout(b0=(W / 2, 1.2), b1=REAR)
    r, nxt = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("cushion", 1, "foot"), ("off", 0)], off=[0])
    assert int(nxt.phase) == IN_HAND_HOUSE and int(nxt.to_play) == 0 and "POOL-GEN-51" in cited(r)


def test_POOL_GEN_52_one_foul_at_the_heaviest_penalty():
    foul, penalty, n = pool.one_foul([(True, 3), (False, 9), (True, 7)])
    assert bool(foul) and int(penalty) == 7 and int(n) == 2
    r, _ = judge_real(state_at(3, opening=False), "cue_pocket")
    assert "POOL-GEN-52" in cited(r) and int(r.strokes[0]) == 4


# ----------------------------------------------------------------------------- spontaneous movement

def test_POOL_GEN_53_balls_left_where_they_stop():
    r, _ = judge_real(state_at(3, opening=False), "no_cushion")
    assert np.array_equal(np.asarray(r.xy)[:2], np.asarray(real("no_cushion")[3].r)[:2, :2])


def test_POOL_GEN_54_no_ball_drops_after_the_stroke_has_ended():
    _, _, s, f = real("pot_FR")
    assert int(f.state[1]) == POCKETED and float(s.pocket_t[1]) <= float(s.end_t)


def test_POOL_GEN_55_ball_dropping_by_itself_replay():
    xy, on = layout(b0=(W / 2, 1.2), b1=(W - 0.05, L - 0.05))
    s = state_at(3, opening=False)
    r, nxt = judge(s, xy, on, [("pocket", 1, "FR"), ("cushion", 0, "foot")], moved={0: (W / 2, 2.0)}, pocketed=[1])
    assert bool(r.replay) and "POOL-GEN-55" in cited(r) and int(r.strokes.sum()) == 0
    assert np.allclose(np.asarray(r.xy), xy) and int(nxt.to_play) == 0 and not bool(r.potted)


def test_POOL_GEN_56_ball_moving_by_itself_at_the_stroke_replay():
    xy, on = layout(b0=(W / 2, 1.2), b1=(1.2, 2.5))
    r, _ = judge(state_at(3, opening=False), xy, on, [("cushion", 0, "foot")], moved={0: (W / 2, 2.0), 1: (1.2, 2.6)})
    assert bool(r.replay) and "POOL-GEN-56" in cited(r) and int(r.strokes.sum()) == 0


# ----------------------------------------------------------------------------- re-spotting (closed form)

def test_POOL_GEN_57_lowest_on_the_rear_spot_others_behind():
    xy, on = np.zeros((N, 2)), np.zeros(N, bool)
    place = np.isin(np.arange(N), [2, 5])
    new, now = respot(xy, on, place)
    assert np.allclose(new[2], REAR) and np.allclose(new[5], (REAR[0], REAR[1] + 2 * R), atol=1e-8)
    assert now.tolist() == place.tolist()


def test_POOL_GEN_58_spot_taken_frozen_against_the_object_ball():
    xy, on = np.zeros((N, 2)), np.zeros(N, bool)
    xy[3], on[3] = (REAR[0] + 0.01, REAR[1] + 0.005), True
    new, _ = respot(xy, on, np.arange(N) == 1)
    want_y = xy[3, 1] + math.sqrt((2 * R) ** 2 - 0.01**2)
    assert np.isclose(new[1, 0], REAR[0]) and np.isclose(new[1, 1], want_y, atol=1e-8)
    assert np.allclose(new[3], xy[3])  # the obstructing ball is not moved


def test_POOL_GEN_59_cue_ball_in_the_way_close_but_not_touching():
    xy, on = np.zeros((N, 2)), np.zeros(N, bool)
    xy[0], on[0] = REAR, True
    new, _ = respot(xy, on, np.arange(N) == 1)
    assert np.isclose(new[1, 1], REAR[1] + 2 * R + pool.RESPOT_GAP, atol=1e-8)
    # through the golf referee: the own ball pocketed in a wrong pocket, the cue ball on the spot
    xy2, on2 = layout(b0=(W / 2, 1.2), b1=(1.5, 3.2))
    r, _ = judge(state_at(3, opening=False), xy2, on2, [("ball", 0, 1), ("pocket", 1, "FL")], moved={0: REAR}, pocketed=[1])
    assert np.isclose(float(r.xy[1, 1]), REAR[1] + 2 * R + pool.RESPOT_GAP, atol=1e-8) and "POOL-GEN-59" in cited(r)


def test_POOL_GEN_60_no_room_behind_in_front_of_the_spot_lowest_frontmost():
    n = 16
    xy, on = np.zeros((n, 2)), np.zeros(n, bool)
    y = L - OFF  # a row of touching balls from the rear cushion to past the rear spot
    for k in range(3, 16):
        xy[k], on[k] = (REAR[0], y), True
        y -= 2 * R
    front = xy[15, 1]
    assert abs(front - REAR[1]) < 2 * R  # the spot is taken, and everything behind it
    new, _ = respot(xy, on, np.isin(np.arange(n), [1, 2]))
    assert np.isclose(new[2, 1], front - 2 * R, atol=1e-8) and np.isclose(new[1, 1], front - 4 * R, atol=1e-8)


def test_POOL_GEN_61_other_balls_dropping_with_the_legal_pot():
    # golf has one ball per player; a stray ball pocketed with the legal pot does not spoil it
    xy, on = layout(b0=(W / 2, 2.5), b1=(W - 0.2, L - 0.2), b2=(W - 0.3, L - 0.4))
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("ball", 1, 2), ("pocket", 1, "FR"), ("pocket", 2, "FR")],
                 pocketed=[1, 2])
    assert bool(r.potted) and "POOL-GEN-61" in cited(r)


# ----------------------------------------------------------------------------- interference, matches

@pytest.mark.parametrize("event, clause", [("outside_interference", "POOL-GEN-62"), ("emergency", "POOL-GEN-63")])
def test_POOL_GEN_62_and_63_outside_interference_restores_and_replays(event, clause):
    xy, on = layout(b0=(W / 2, 1.2), b1=REAR)
    r, nxt = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("pocket", 1, "FL")], pocketed=[1],
                   decl=pool.declare(inject=[event]))
    assert bool(r.replay) and clause in cited(r) and not bool(r.foul) and int(r.strokes.sum()) == 0
    assert np.allclose(np.asarray(r.xy), xy) and np.asarray(r.on).tolist() == on.tolist() and int(nxt.shots) == 0


def test_POOL_GEN_63_emergency_is_outside_interference():
    assert pool.NOT_SIMULATED["POOL-GEN-63"].startswith("inject:emergency")


def test_POOL_GEN_64_position_always_restorable_so_no_frame_replay():
    # the referee keeps the pre-stroke snapshot: a replay restores it exactly
    xy, on = layout(b0=(0.31, 1.234567), b1=(1.1, 2.9))
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1)], moved={0: (1, 2), 1: (1.2, 3.3)},
                 decl=pool.declare(inject=["outside_interference"]))
    assert np.array_equal(np.asarray(r.xy), xy)


def test_POOL_GEN_65_no_14_1_game():
    with pytest.raises(ValueError, match="policy"):
        pool.match_breaker(1, 0, 1, policy="14.1")


def test_POOL_GEN_66_frame_winner_breaks_the_next():
    assert pool.match_breaker(0, 1, None) == 1 and pool.match_breaker(3, 1, 0) == 0


def test_POOL_GEN_67_organisers_break_orders():
    assert [pool.match_breaker(f, 0, None, policy="alternate") for f in range(4)] == [0, 1, 0, 1]
    assert pool.match_breaker(2, 0, 0, policy="loser") == 1
    assert pool.match_breaker(2, 0, 0, wins=(2, 0), policy="behind") == 1
    assert pool.match_breaker(2, 0, 1, wins=(0, 2), policy="behind") == 0


# ----------------------------------------------------------------------------- frozen to a cushion

def test_POOL_GEN_70_frozen_ball_needs_more_than_its_own_cushion():
    xy, on, s, f = real("cushion_frozen")
    assert int(s.cushions_after[0]) == 0 and int(s.cushions_after[1]) > 0  # only its own (right) cushion
    r, _ = judge_real(state_at(3, opening=False), "cushion_frozen")
    assert bool(r.foul) and "POOL-GEN-70" in cited(r)
    # the same stroke with the ball sent on to another cushion is legal
    s2 = s._replace(cushion_first_t=s.cushion_first_t.at[1, 1].set(float(s.first_contact_t) + 1.0))
    applies, ok = pool.frozen_ball_ok(SPEC, s2, jnp.asarray(xy), jnp.asarray(on), jnp.zeros(N, bool), jnp.arange(N) == 1)
    assert bool(applies) and bool(ok)


def test_POOL_GEN_71_frozen_is_computed_from_the_geometry():
    xy, on = layout(b1=(W - OFF - 0.0004, 2.0), b2=(W - OFF - 0.0006, 2.5), b3=(1.0, OFF), b4=(OFF, 1.0))
    assert np.asarray(pool.frozen_cushion(SPEC, jnp.asarray(xy), jnp.asarray(on))).tolist() == [-1, 3, -1, 0, 2, -1, -1]


# ----------------------------------------------------------------------------- placing the ball, opponents

def test_POOL_GEN_72_placement_is_part_of_the_action():
    xy, on, _, _ = real("house_line")  # the cue ball placed at (W/2, 0.4) and struck from there
    r, nxt = judge_real(state_at(3, opening=False, phase=IN_HAND_HOUSE), "house_line")
    assert bool(pool.placement_ok(SPEC, xy, on, xy[0])) and not bool(r.foul) and int(nxt.phase) == NORMAL


def test_POOL_GEN_73_placed_then_struck_is_one_action():
    # a cue ball outside the house when struck in hand (a placement the validator refuses) is a foul
    xy, on = layout(b0=(W / 2, 1.0), b1=REAR)
    r, _ = judge(state_at(3, opening=False, phase=IN_HAND_HOUSE), xy, on, [("ball", 0, 1), ("cushion", 1, "foot")])
    assert bool(r.foul) and "POOL-GEN-30" in cited(r)


def test_POOL_GEN_74_distracting_the_striker_charges_the_distractor():
    xy, on = layout(b0=(W / 2, 1.2), b1=REAR)
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("cushion", 1, "foot")],
                 decl=pool.declare(inject=["opponent_distraction"], choice=2))
    assert np.asarray(r.strokes).tolist()[:3] == [1, 0, 3] and int(r.fouler) == 2 and "POOL-GEN-74" in cited(r)


def test_POOL_GEN_75_out_of_turn_and_moving_balls():
    xy, on = layout(b0=(W / 2, 1.2), b1=REAR)
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("cushion", 1, "foot")],
                 decl=pool.declare(inject=["out_of_turn"]))
    assert bool(r.foul) and int(r.strokes[0]) == 4 and "POOL-GEN-75" in cited(r)
    r2, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("cushion", 1, "foot")],
                  decl=pool.declare(inject=["opponent_moved_ball"]))
    assert np.asarray(r2.strokes).tolist()[:3] == [1, 3, 0]  # the next player by default


def test_POOL_GEN_04_struck_only_with_the_tip():
    xy, on = layout(b0=(W / 2, 1.2), b1=REAR)
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("cushion", 1, "foot")],
                 decl=pool.declare(inject=["improper_strike"]))
    assert bool(r.foul) and "POOL-GEN-04" in cited(r)


# ----------------------------------------------------------------------------- coverage of GF and POOL-GEN

def test_golf_and_pool_clauses_implemented_tested_or_marked():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "rules_coverage.py"
    spec = importlib.util.spec_from_file_location("_rules_coverage_gf", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cov = mod.coverage(("GF", "POOL-GEN"))
    notes = {**catalogue.NOT_SIMULATED, **pool.NOT_SIMULATED}
    gaps = []
    for sec in ("GF", "POOL-GEN"):
        for c in catalogue.section(sec):
            tags = c.tag.split("+")
            if "HUMAN" in tags and c.id not in notes:
                gaps.append(f"{c.id}: HUMAN without a note")
            if tags == ["HUMAN"]:
                continue
            # a clause is placed where code cites it, or where the docstring of the code that
            # implements it names it ("mentioned only in": the page keeps the two apart)
            if not (cov[c.id]["implemented"] or cov[c.id]["mentioned"]) or not cov[c.id]["tested"]:
                gaps.append(f"{c.id}: {cov[c.id]}")
    assert not gaps, "\n".join(gaps)


def test_a_third_of_the_clause_tests_run_real_shots():
    """The issue asks that at least a third of the GF and POOL-GEN clause tests simulate a shot."""
    import pathlib
    import re

    here = pathlib.Path(__file__).parent
    total = physical = 0
    for name in ("test_rules_golf.py", "test_rules_pool.py"):
        for block in re.split(r"\n(?=def |@pytest)", (here / name).read_text()):
            if re.match(r"def test_(GF|POOL_GEN)_\d\d", block):
                total += 1
                physical += bool(re.search(r"\b(real|judge_real|lag)\(", block))
    assert total >= 27 + 75 and 3 * physical >= total, (physical, total)
