"""General rules of Russian billiards (catalogue section RU-GEN) that are better tested in
Python than as scenario files: the equipment and the rack (RU-GEN-02/03), the lag for the
break (RU-GEN-06..10), the break order of a match (RU-GEN-11/12), the stroke's span
(RU-GEN-34), hanging balls (RU-GEN-52/54) and the dead position (RU-GEN-56..58).

Expected values come from the catalogue (:mod:`cuegym.rules.catalogue`, docs/rules.md) and its
readings AMB-nn, never from what the code prints. Lag strokes are real strokes: one ball at index 0
of a 16-ball table, simulated with ``cuegym.physics.simulate`` on an otherwise empty table.
"""

import functools
import math

import jax.numpy as jnp
import numpy as np
import pytest

from cuegym.physics import OFF_TABLE, POCKETED, STATIONARY, at_rest, get_spec, get_table, make_shot, simulate
from cuegym.physics import events as ev
from cuegym.physics.racks import RUSSIAN_PYRAMID_ORDER, pyramid_rack
from cuegym.positions import PositionError, judging, load_position, load_shot
from cuegym.rules import base, catalogue, moscow_pyramid, russian, russian_pyramid
from cuegym.rules.base import IN_HAND_HOUSE, LAG, NORMAL, clause_ids, declare

TABLE = "pyramid-12ft"
N = 16
W, L, R = 1.775, 3.55, 0.034
HOUSE_LINE = L / 4  # AMB-02: a quarter of the playing length from the head cushion
REAR_SPOT = (W / 2, L - L / 4)  # AMB-02: the mirror of the front spot


@functools.lru_cache(maxsize=None)
def _table():
    return get_table(TABLE)


def spec():
    return get_spec(TABLE)


def strike(xy, on, phi, speed, a=0.0, b=0.0, theta=0.0):
    """Simulate one stroke of ball 0 on a 16-ball layout; returns (start BallState, final,
    log, summary)."""
    balls = at_rest(np.asarray(xy, float), np.asarray(on, bool))
    final, log, summ = simulate(_table(), balls, make_shot(0, phi, speed, a, b, theta))
    assert not bool(log.truncated)
    return balls, final, log, summ


# ----------------------------------------------------------------------------- equipment, rack


def test_RU_GEN_02_russian_games_use_the_pyramid_table_spec():
    """RU-GEN-02: the equipment is the simulator's table configuration (AMB-02): the 12 ft
    pyramid table, 68 mm balls, pockets barely wider than a ball, the house line a quarter of
    the length from the head cushion, the front / rear spots on the long string."""
    s = spec()
    assert (s.width, s.length) == (W, L)
    assert s.ball_radius == pytest.approx(R)
    assert s.ball_diameter < s.corner_mouth < s.middle_mouth  # a ball fits every pocket
    assert s.corner_mouth - s.ball_diameter < 0.01  # Russian pockets: under 1 cm to spare
    assert s.head_line == pytest.approx(HOUSE_LINE)
    spots = s.spots()
    assert spots["front"] == pytest.approx((W / 2, HOUSE_LINE))
    assert spots["rear"] == pytest.approx(REAR_SPOT)
    assert spots["centre"] == pytest.approx((W / 2, L / 2))
    # every Russian game is refereed on that table
    for game in ("russian-pyramid", "moscow-pyramid", "americanka"):
        position = load_position({"game": game, "table": TABLE, "balls": {}})
        assert position.spec == s


def test_RU_GEN_03_rack_is_a_touching_pyramid_apex_on_rear_spot():
    """RU-GEN-03: 15 balls in a triangle, touching, apex on the rear spot, base parallel to
    the short cushion, rows running from the apex toward the rear cushion."""
    s = spec()
    rack = pyramid_rack(s)
    assert sorted(rack, key=int) == [str(k) for k in range(1, 16)]
    xy = {int(k): np.asarray(p) for k, p in rack.items()}
    apex = RUSSIAN_PYRAMID_ORDER[0][0]
    assert xy[apex] == pytest.approx(REAR_SPOT, abs=1e-9)
    rows = [[xy[n] for n in row] for row in RUSSIAN_PYRAMID_ORDER]
    for k, row in enumerate(rows):
        assert len(row) == k + 1
        ys = [p[1] for p in row]
        assert max(ys) - min(ys) < 1e-9  # each row is parallel to the short cushion
        assert np.mean([p[0] for p in row]) == pytest.approx(W / 2, abs=1e-9)  # centred
        if k:
            assert ys[0] > rows[k - 1][0][1]  # toward the rear cushion
        for p, q in zip(row, row[1:]):  # neighbours in a row touch
            assert np.linalg.norm(q - p) == pytest.approx(2 * R, abs=1e-6)
    # touching, never overlapping; the base row is still on the bed
    pts = np.array(list(xy.values()))
    d = np.linalg.norm(pts[:, None] - pts[None], axis=-1) + np.eye(15)
    assert d.min() >= 2 * R and d.min() == pytest.approx(2 * R, abs=1e-6)
    assert rows[-1][0][1] < L - float(russian.contact_offset(s))
    # every ball of row k + 1 touches two balls of row k
    for k in range(1, 5):
        for p in rows[k][1:-1]:
            assert sum(abs(np.linalg.norm(p - q) - 2 * R) < 1e-6 for q in rows[k - 1]) == 2


def test_RU_GEN_03_other_games_rack_the_same_triangle():
    """RU-GEN-03 with AM-05 / MP-04: the order is open, the triangle is the same."""
    import jax

    s = spec()
    fixed = sorted(map(tuple, np.round(list(pyramid_rack(s).values()), 9)))
    shuffled = pyramid_rack(s, key=jax.random.PRNGKey(3))
    assert sorted(map(tuple, np.round(list(shuffled.values()), 9))) == fixed
    assert sorted(shuffled, key=int) == [str(k) for k in range(1, 16)]


# ----------------------------------------------------------------------------- lag


def lag_stroke(x, y, phi, speed, theta=0.0):
    """A lag ball at (x, y) alone on the table (index 0 of 16); returns (summary, final)."""
    xy = np.zeros((N, 2))
    xy[0] = (x, y)
    on = np.zeros(N, bool)
    on[0] = True
    _, final, _, summ = strike(xy, on, phi, speed, theta=theta)
    return summ, final


LEFT, RIGHT = 0.45, W - 0.45  # player 0 plays left of the long string, player 1 right
UP = math.pi / 2


@functools.lru_cache(maxsize=None)
def lag(x, y=0.5, phi=UP, speed=1.6, theta=0.0):
    return lag_stroke(x, y, phi, speed, theta)


def judge_lag(a, b):
    winner, lost = russian.judge_lag(spec(), *a, *b)
    return int(winner), [bool(v) for v in np.asarray(lost)]


def test_RU_GEN_07_lag_ball_nearer_the_head_cushion_wins():
    """RU-GEN-07: each ball goes from the house to the rear cushion and back; the one that
    stops nearer the head cushion wins."""
    a, b = lag(LEFT, speed=1.8), lag(RIGHT, speed=1.6)
    for summ, final in (a, b):
        assert math.isfinite(float(summ.cushion_first_t[0, russian.FOOT]))  # reached the rear cushion
        assert int(final.state[0]) == STATIONARY
        assert float(final.r[0, 1]) < L / 2  # and came back
    assert float(a[1].r[0, 1]) < float(b[1].r[0, 1])
    assert judge_lag(a, b) == (0, [False, False])
    assert judge_lag(lag(LEFT, speed=1.6), lag(RIGHT, speed=1.8)) == (1, [False, False])


def test_RU_GEN_08_lag_ball_that_misses_the_rear_cushion_loses():
    """RU-GEN-08: a ball that does not touch the rear cushion loses, even if it stops nearer
    the head cushion."""
    short = lag(LEFT, speed=0.3)
    assert not math.isfinite(float(short[0].cushion_first_t[0, russian.FOOT]))
    good = lag(RIGHT, speed=1.4)
    assert float(short[1].r[0, 1]) < float(good[1].r[0, 1])
    assert judge_lag(short, good) == (1, [True, False])


def test_RU_GEN_08_lag_ball_crossing_into_the_opponents_half_loses():
    """RU-GEN-08 with AMB-05(a): crossing the long string loses, even after a good rebound."""
    x0 = 0.8
    crossed = lag(x0, phi=UP - 0.03, speed=1.6)
    summ, final = crossed
    assert math.isfinite(float(summ.cushion_first_t[0, russian.FOOT]))
    assert float(summ.max_x[0]) > W / 2  # its centre went over the long string
    good = lag(RIGHT, speed=1.4)
    assert float(final.r[0, 1]) < float(good[1].r[0, 1])  # nearer, but it crossed
    assert judge_lag(crossed, good) == (1, [True, False])
    # the same for player 1 crossing to the left
    mirrored = lag(W - x0, phi=UP + 0.03, speed=1.6)
    assert float(mirrored[0].min_x[0]) < W / 2
    assert judge_lag(lag(LEFT, speed=1.4), mirrored) == (0, [False, True])


def test_RU_GEN_08_pocketed_lag_ball_loses():
    """RU-GEN-08: a lag ball that falls into a pocket loses."""
    x, y = 0.3, 0.3
    pocketed = lag(x, y, phi=math.atan2(-y, -x), speed=1.0)  # straight into the head-left corner
    summ, final = pocketed
    assert int(summ.pocket[0]) == 0 and int(final.state[0]) == POCKETED
    good = lag(RIGHT, speed=1.4)
    assert judge_lag(pocketed, good) == (1, [True, False])
    # the pocket alone decides: a good lag (rear cushion, own half) whose ball then dropped
    summ_ok, final_ok = lag(LEFT, speed=1.6)
    dropped = (summ_ok._replace(pocket=summ_ok.pocket.at[0].set(0)), final_ok._replace(state=final_ok.state.at[0].set(POCKETED)))
    assert judge_lag(dropped, good) == (1, [True, False])


def test_RU_GEN_08_lag_ball_off_the_table_loses():
    """RU-GEN-08: a lag ball that leaves the table loses (a jump off the rear end)."""
    off = lag(RIGHT, phi=UP, speed=8.0, theta=0.6)
    summ, final = off
    assert bool(summ.off_table[0]) and int(final.state[0]) == OFF_TABLE
    good = lag(LEFT, speed=1.4)
    assert judge_lag(good, off) == (0, [False, True])
    # leaving the table alone decides (a good lag, then marked off the table)
    summ_ok, final_ok = lag(RIGHT, speed=1.6)
    gone = (summ_ok._replace(off_table=summ_ok.off_table.at[0].set(True)), final_ok._replace(state=final_ok.state.at[0].set(OFF_TABLE)))
    assert judge_lag(good, gone) == (0, [False, True])


def test_RU_GEN_09_lag_repeated_when_both_lose():
    """RU-GEN-09: both balls lose by RU-GEN-08: the lag is repeated (winner -1)."""
    assert judge_lag(lag(LEFT, speed=0.3), lag(RIGHT, speed=8.0, theta=0.6)) == (-1, [True, True])


def test_RU_GEN_09_lag_repeated_on_equal_distances():
    """RU-GEN-09 with AMB-05(c): both stop at the same distance (within 1 mm) from the head
    cushion: repeat; 2 mm apart is not a tie."""
    a = lag(LEFT, speed=1.6)
    same = lag(RIGHT, speed=1.6)  # the mirror image of a's stroke
    assert judge_lag(a, same) == (-1, [False, False])
    close = lag(RIGHT, speed=1.6001)
    gap = abs(float(a[1].r[0, 1]) - float(close[1].r[0, 1]))
    assert 0 < gap <= 1e-3
    assert judge_lag(a, close) == (-1, [False, False])
    apart = lag(RIGHT, speed=1.6005)
    gap = float(a[1].r[0, 1]) - float(apart[1].r[0, 1])
    assert gap > 1e-3  # player 1's ball stopped nearer the head cushion
    assert judge_lag(a, apart) == (1, [False, False])


def test_RU_GEN_06_lag_decides_the_first_break():
    """RU-GEN-06 / RU-GEN-13: the lag winner (here player 1) breaks from hand in the house."""
    winner, _ = judge_lag(lag(LEFT, speed=1.4), lag(RIGHT, speed=1.6))
    assert winner == 1
    xy, on = np.zeros((N, 2)), np.zeros(N, bool)
    for k, p in pyramid_rack(spec()).items():
        xy[int(k)], on[int(k)] = p, True
    state = russian_pyramid.initial_state(0)
    nxt = russian.after_lag(spec(), state, jnp.asarray(xy), jnp.asarray(on), jnp.asarray(winner))
    assert int(nxt.to_play) == 1 and int(nxt.striker) == 1
    assert int(nxt.phase) == IN_HAND_HOUSE


def test_RU_GEN_10_lag_winner_may_make_the_opponent_break():
    """RU-GEN-10: the lag winner chooses to break or to make the opponent break."""
    xy, on = np.zeros((N, 2)), np.zeros(N, bool)
    xy[5], on[5] = REAR_SPOT, True
    state = russian_pyramid.initial_state(0)
    for winner, plays, breaker in ((0, True, 0), (0, False, 1), (1, True, 1), (1, False, 0)):
        nxt = russian.after_lag(spec(), state, jnp.asarray(xy), jnp.asarray(on), jnp.asarray(winner), winner_plays=plays)
        assert int(nxt.to_play) == breaker and int(nxt.phase) == IN_HAND_HOUSE


# ----------------------------------------------------------------------------- match


def test_RU_GEN_11_breaks_alternate_in_later_frames():
    """RU-GEN-11 with AMB-06: after the first frame the break alternates frame by frame."""
    # best of 5 (3 frames to win), player 1 won the lag and broke frame 0
    assert [russian.frame_breaker(k, 1, 3, w) for k, w in enumerate([(0, 0), (1, 0), (1, 1), (2, 1)])] == [1, 0, 1, 0]
    assert [russian.frame_breaker(k, 0, 3, w) for k, w in enumerate([(0, 0), (0, 1), (0, 2), (1, 2)])] == [0, 1, 0, 1]


def test_RU_GEN_12_deciding_frame_is_lagged_for():
    """RU-GEN-12 with AMB-06: the deciding frame (both one frame from the match) is lagged
    for; other frames follow the order."""
    assert russian.frame_breaker(4, 0, 3, (2, 2)) is None
    assert russian.frame_breaker(2, 0, 2, (1, 1)) is None  # best of 3 at 1:1
    assert russian.frame_breaker(0, 0, 1, (0, 0)) is None  # a single frame is the deciding one
    assert russian.frame_breaker(3, 0, 3, (2, 1)) == 1  # 2:1 is not decisive
    assert russian.frame_breaker(4, 1, 4, (3, 1)) == 1


# ----------------------------------------------------------------------------- stroke span


def test_RU_GEN_34_stroke_ends_when_the_last_ball_stops_spinning():
    """RU-GEN-34: the stroke lasts until every ball has stopped; a ball spinning on the spot
    still counts as moving. A stun shot with side spin pots the object ball and leaves the
    cue ball spinning where it stopped; the stroke ends only when that spin has died."""
    t = _table()
    q, n = np.asarray(t.drop_q[3]), np.asarray(t.drop_n[3])  # foot-right corner
    xy, on = np.zeros((N, 2)), np.zeros(N, bool)
    xy[7] = q - 0.3 * n
    xy[0] = xy[7] - (2 * R + 0.005) * n
    on[[0, 7]] = True
    _, final, log, summ = strike(xy, on, math.atan2(n[1], n[0]), 3.0, a=0.5)
    count = int(log.count)
    kinds, balls, times = (np.asarray(x)[:count] for x in (log.kind, log.ball, log.t))
    spin = [k for k in range(count) if kinds[k] == ev.SPINNING_EV and balls[k] == 0]
    stop = [k for k in range(count) if kinds[k] == ev.STOP and balls[k] == 0]
    assert spin and stop, "the cue ball should stop and spin on the spot"
    t_spin, t_stop = float(times[spin[0]]), float(times[stop[-1]])
    assert float(summ.pocket_t[7]) < t_spin < t_stop - 1.0  # over a second of spinning, nothing else moving
    assert np.allclose(np.asarray(log.r[spin[0], 0, :2]), np.asarray(final.r[0, :2]), atol=1e-9)  # on the spot
    assert float(summ.end_t) == pytest.approx(t_stop)  # the stroke ends with the spin
    assert int(final.state[0]) == STATIONARY and np.allclose(np.asarray(final.w[0]), 0.0)


# ----------------------------------------------------------------------------- hanging balls


def _hanging(pocket_id: int, short: float = 1e-4):
    """The centre of a ball resting in a pocket's mouth ``short`` metres before its drop
    line: as far over the edge as a ball can rest."""
    t = _table()
    q, n = np.asarray(t.drop_q[pocket_id]), np.asarray(t.drop_n[pocket_id])
    return q - short * n


@pytest.mark.parametrize("pocket_id", [0, 1, 5])
def test_RU_GEN_52_resting_ball_at_a_pocket_edge_never_drops(pocket_id):
    """RU-GEN-52 with AMB-17: the engine never drops a ball at rest by itself, so a ball
    resting right at a pocket's edge stays there while another ball is played elsewhere,
    and nothing is ever pocketed after the stroke has ended."""
    xy, on = np.zeros((N, 2)), np.zeros(N, bool)
    xy[0], xy[9], xy[5] = (0.9, 2.6), (1.2, 3.1), _hanging(pocket_id)
    on[[0, 9, 5]] = True
    start, final, log, summ = strike(xy, on, math.atan2(0.5, 0.3), 2.0)
    assert bool(summ.touched[9])  # the stroke happened elsewhere
    assert int(final.state[5]) == STATIONARY and int(summ.pocket[5]) == -1
    assert np.array_equal(np.asarray(final.r[5]), np.asarray(start.r[5]))
    kinds = np.asarray(log.kind)[: int(log.count)]
    assert not any(int(k) == ev.POCKET and int(b) == 5 for k, b in zip(kinds, np.asarray(log.ball)))
    # the referee keeps it on the table where it was
    ruling, _ = _rp_judge(start, final, summ, xy, on, call=(9, 3))
    assert bool(ruling.on[5]) and np.allclose(np.asarray(ruling.xy[5]), xy[5])
    assert "RU-GEN-52" not in clause_ids(ruling.clauses) and "RU-GEN-53" not in clause_ids(ruling.clauses)


def test_RU_GEN_54_every_drop_during_the_stroke_counts():
    """RU-GEN-54 with AMB-17: a ball that drops while the stroke is still running (here
    the called ball, barely rolling, the last thing to move) is pocketed by that stroke."""
    t = _table()
    q, n = np.asarray(t.drop_q[3]), np.asarray(t.drop_n[3])  # foot-right corner
    obj = q - 0.3 * n
    cue = obj - 0.3 * n
    xy, on = np.zeros((N, 2)), np.zeros(N, bool)
    xy[0], xy[7], xy[9] = cue, obj, (0.4, 1.0)
    on[[0, 7, 9]] = True
    start, final, log, summ = strike(xy, on, math.atan2(n[1], n[0]), 0.45)
    assert int(summ.pocket[7]) == 3 and int(final.state[7]) == POCKETED
    # it fell last: after the cue ball had come to rest
    count = int(log.count)
    kinds, balls, times = (np.asarray(x)[:count] for x in (log.kind, log.ball, log.t))
    drop_t = float(summ.pocket_t[7])
    cue_stop = max(tt for k, b, tt in zip(kinds, balls, times) if k == ev.STOP and b == 0)
    assert drop_t > cue_stop and drop_t == pytest.approx(float(summ.end_t))
    ruling, _ = _rp_judge(start, final, summ, xy, on, call=(7, 3))
    assert set(np.nonzero(np.asarray(ruling.counted))[0]) == {7}
    assert [int(p) for p in np.asarray(ruling.points)] == [7, 0]


def test_RU_GEN_54_drop_of_a_ball_left_hanging_by_the_stroke_counts():
    """RU-GEN-54: the hanging ball nudged over the edge by another ball during the stroke
    counts as pocketed by that stroke (ball 5 hangs in the head-right corner, ball 9 is
    rolled into it slowly along the pocket's axis)."""
    t = _table()
    n = np.asarray(t.drop_n[5])
    hang = _hanging(5, 0.01)
    nine = hang - (2 * R + 0.05) * n
    cue = nine - (2 * R + 0.3) * n
    xy, on = np.zeros((N, 2)), np.zeros(N, bool)
    xy[0], xy[9], xy[5], xy[12] = cue, nine, hang, (0.4, 2.0)
    on[[0, 9, 5, 12]] = True
    start, final, log, summ = strike(xy, on, math.atan2(n[1], n[0]), 1.0)
    assert int(summ.pocket[5]) == 5 and int(final.state[5]) == POCKETED
    ruling, _ = _rp_judge(start, final, summ, xy, on, call=(5, 5))
    assert bool(np.asarray(ruling.counted)[5]) and not bool(ruling.foul)


# ----------------------------------------------------------------------------- dead position


def _rp_judge(start, final, summ, xy, on, call=(1, 0), state=None, dead=False, game=russian_pyramid):
    state = state if state is not None else game.initial_state(0)._replace(phase=jnp.asarray(NORMAL, jnp.int32))
    decl = declare(call_ball=call[0], call_pocket=call[1]) if game is russian_pyramid else declare()
    return game.judge(spec(), state, decl, summ, jnp.asarray(xy), jnp.asarray(on), final, dead_position=dead)


def _quiet_layout():
    """Cue ball and four object balls; a soft stroke nudges ball 7 by less than 2R."""
    xy, on = np.zeros((N, 2)), np.zeros(N, bool)
    xy[0], xy[7] = (0.5, 1.0), (0.5, 1.0 + 2 * R + 0.02)
    xy[3], xy[9], xy[12] = (1.5, 0.5), (0.3, 3.3), (1.4, 2.9)
    on[[0, 3, 7, 9, 12]] = True
    return xy, on


@functools.lru_cache(maxsize=None)
def _quiet_stroke():
    xy, on = _quiet_layout()
    start, final, _, summ = strike(xy, on, UP, 0.15)
    shift = np.linalg.norm(np.asarray(final.r[7, :2]) - xy[7])
    assert 1e-3 < shift < 2 * R, shift  # moved, but not by a ball's width
    assert int(summ.first_contact) == 7
    return start, final, summ


def test_RU_GEN_56_dead_position_is_off_by_default():
    """RU-GEN-56 with AMB-18: off by default: no rebuild however long the quiet run."""
    xy, on = _quiet_layout()
    start, final, summ = _quiet_stroke()
    state = russian_pyramid.initial_state(0)._replace(phase=jnp.asarray(NORMAL, jnp.int32), quiet=jnp.asarray(40, jnp.int32))
    ruling, nxt = _rp_judge(start, final, summ, xy, on, call=(7, 2), state=state)
    ids = clause_ids(ruling.clauses)
    assert "RU-GEN-56" not in ids and "RU-GEN-57" not in ids
    assert int(ruling.phase) == NORMAL and bool(ruling.on[0])


def test_RU_GEN_56_quiet_strokes_trigger_a_rebuild():
    """RU-GEN-56 with AMB-18: with the rule on, the 10th stroke in a row that pockets
    nothing and moves no object ball by 2R or more triggers the rebuild; the 9th does not."""
    xy, on = _quiet_layout()
    start, final, summ = _quiet_stroke()
    base_state = russian_pyramid.initial_state(0)._replace(phase=jnp.asarray(NORMAL, jnp.int32))
    ruling, nxt = _rp_judge(start, final, summ, xy, on, call=(7, 2), state=base_state._replace(quiet=jnp.asarray(8, jnp.int32)), dead=True)
    assert "RU-GEN-56" not in clause_ids(ruling.clauses)
    assert int(nxt.quiet) == 9 and int(ruling.phase) == NORMAL
    ruling, nxt = _rp_judge(start, final, summ, xy, on, call=(7, 2), state=base_state._replace(quiet=jnp.asarray(9, jnp.int32)), dead=True)
    ids = clause_ids(ruling.clauses)
    assert "RU-GEN-56" in ids and "RU-GEN-57" in ids
    assert not bool(ruling.foul)
    assert int(nxt.quiet) == 0


def test_RU_GEN_56_a_stroke_that_moves_a_ball_resets_the_count():
    """RU-GEN-56 with AMB-18: a stroke moving an object ball by more than 2R, or pocketing
    one, is not quiet: the count starts again."""
    xy, on = np.zeros((N, 2)), np.zeros(N, bool)
    xy[0], xy[7], xy[3] = (0.5, 1.0), (0.5, 1.0 + 2 * R + 0.02), (1.5, 0.5)
    on[[0, 7, 3]] = True
    start, final, _, summ = strike(xy, on, UP, 3.0)
    assert np.linalg.norm(np.asarray(final.r[7, :2]) - xy[7]) > 2 * R
    state = russian_pyramid.initial_state(0)._replace(phase=jnp.asarray(NORMAL, jnp.int32), quiet=jnp.asarray(9, jnp.int32))
    ruling, nxt = _rp_judge(start, final, summ, xy, on, call=(7, 2), state=state, dead=True)
    assert "RU-GEN-56" not in clause_ids(ruling.clauses) and int(nxt.quiet) == 0


def test_RU_GEN_57_rebuild_racks_the_object_balls_apex_on_rear_spot():
    """RU-GEN-57 with AMB-18: the object balls left are racked as a (truncated) pyramid,
    apex on the rear spot, rows toward the rear cushion filled from the apex, ascending
    numbers left to right as seen from the house; the cue ball is taken up."""
    xy, on = _quiet_layout()
    start, final, summ = _quiet_stroke()
    state = russian_pyramid.initial_state(0)._replace(phase=jnp.asarray(NORMAL, jnp.int32), quiet=jnp.asarray(9, jnp.int32))
    ruling, _ = _rp_judge(start, final, summ, xy, on, call=(7, 2), state=state, dead=True)
    out_on, out_xy = np.asarray(ruling.on), np.asarray(ruling.xy)
    assert sorted(np.nonzero(out_on)[0].tolist()) == [3, 7, 9, 12]
    assert out_xy[3] == pytest.approx(REAR_SPOT, abs=1e-6)  # the lowest number at the apex
    row = math.sqrt(3) * R
    assert out_xy[7] == pytest.approx((W / 2 - R, REAR_SPOT[1] + row), abs=1e-5)
    assert out_xy[9] == pytest.approx((W / 2 + R, REAR_SPOT[1] + row), abs=1e-5)
    assert out_xy[12][0] == pytest.approx(W / 2, abs=1e-6) and out_xy[12][1] > out_xy[7][1]
    # the racked balls touch their neighbours and overlap nothing
    for i, j in ((3, 7), (3, 9), (7, 9), (7, 12), (9, 12)):
        assert np.linalg.norm(out_xy[i] - out_xy[j]) == pytest.approx(2 * R, abs=2e-6)


def test_RU_GEN_58_after_a_rebuild_a_lag_then_play_from_the_house():
    """RU-GEN-58: after the rebuild a lag decides who plays, from hand from the house: the
    ruling's phase is "lag" with the cue ball off the table; no stroke may be played in that
    phase; after the lag the winner (or the player he names) has the cue ball in hand."""
    xy, on = _quiet_layout()
    start, final, summ = _quiet_stroke()
    state = russian_pyramid.initial_state(0)._replace(phase=jnp.asarray(NORMAL, jnp.int32), quiet=jnp.asarray(9, jnp.int32))
    ruling, nxt = _rp_judge(start, final, summ, xy, on, call=(7, 2), state=state, dead=True)
    assert int(ruling.phase) == LAG and int(nxt.phase) == LAG
    assert not bool(ruling.on[0])
    # a stroke in the lag phase is refused
    ids = ("cue",) + tuple(str(k) for k in range(1, 16))
    position = load_position({
        "game": "russian-pyramid", "table": TABLE,
        "balls": {ids[k]: [float(p[0]), float(p[1])] for k, p in enumerate(np.asarray(ruling.xy)) if bool(ruling.on[k])},
        "state": {"to_play": int(nxt.to_play), "phase": "lag"},
    })
    with pytest.raises(PositionError) as info:
        judging.prepare(position, load_shot({"phi": 0.0, "speed": 1.0, "place": [0.8875, 0.5], "call": {"ball": "3", "pocket": "FL"}}, position))
    assert info.value.field == "state.phase"
    # the lag: player 1 wins and plays from hand in the house
    winner, _ = judge_lag(lag(LEFT, speed=1.4), lag(RIGHT, speed=1.6))
    after = russian.after_lag(spec(), nxt, ruling.xy, ruling.on, jnp.asarray(winner))
    assert int(after.to_play) == 1 and int(after.phase) == IN_HAND_HOUSE


def test_RU_GEN_58_moscow_pyramid_rebuild_also_goes_to_a_lag():
    """RU-GEN-58 in Moscow pyramid: the rebuild also takes the cue ball up and leads to a
    lag, then play from hand in the house (the same rule as in the Russian pyramid)."""
    xy, on = _quiet_layout()
    start, final, summ = _quiet_stroke()
    state = moscow_pyramid.initial_state(0)._replace(phase=jnp.asarray(NORMAL, jnp.int32), quiet=jnp.asarray(9, jnp.int32))
    ruling, nxt = _rp_judge(start, final, summ, xy, on, state=state, dead=True, game=moscow_pyramid)
    ids = clause_ids(ruling.clauses)
    assert "RU-GEN-56" in ids and "RU-GEN-57" in ids
    assert not bool(ruling.on[0])  # the cue ball is taken up ...
    assert int(ruling.phase) == LAG  # ... and a lag decides who plays it from hand
    assert int(nxt.phase) == LAG


def test_ru_gen_catalogue_section_is_complete():
    """Every RU-GEN clause 01..67 is in the code's catalogue with its tag."""
    ids = [c.id for c in catalogue.section("RU-GEN")]
    assert ids == [f"RU-GEN-{k:02d}" for k in range(1, 68)]
    assert base.INJECT_NAMES  # the HUMAN events the scenarios inject
