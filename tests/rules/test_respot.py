"""Re-spotting geometry (cuegym.rules.respot): hand-computed positions on the 12-ft pyramid
table, layout validity, jit and vmap."""

import math

import jax
import numpy as np
import pytest

import cuegym.physics  # noqa: F401  (first: float64 and XLA flags)
from cuegym.physics import get_spec
from cuegym.physics.tables import compile_table
from cuegym.positions import check_layout
from cuegym.rules import respot

SPEC = get_spec("pyramid-12ft")
W, L, R = SPEC.width, SPEC.length, SPEC.ball_radius
OFF = float(compile_table(SPEC).contact_offset)
MID = W / 2
SPOT_Y = L - SPEC.head_line
REAR_Y = L - OFF
D = 2 * R  # touching
NOT_TOUCHING = 2 * R + 0.001  # AMB-24(d)
N = 16

# one compile per function and ball count (jit caches on the static spec)
long_string = jax.jit(respot.long_string_respot, static_argnums=0)
rear_cushion = jax.jit(respot.rear_cushion_respot, static_argnums=0)
rerack = jax.jit(respot.rerack, static_argnums=0)


def layout(obstacles=(), place=(), n=N):
    """(xy, on, place) arrays: ``obstacles`` {index: (x, y)} on the table, ``place`` the
    indices to re-spot (off the table, junk coordinates that must be ignored)."""
    xy = np.full((n, 2), 12.345)
    on = np.zeros(n, bool)
    for i, p in dict(obstacles).items():
        xy[i] = p
        on[i] = True
    pl = np.zeros(n, bool)
    pl[list(place)] = True
    return xy, on, pl


def check(xy, on):
    """The on-table balls form a legal layout (bed, jaws, no overlap)."""
    xy, on = np.asarray(xy), np.asarray(on)
    check_layout(SPEC.name, {str(i): (float(xy[i, 0]), float(xy[i, 1])) for i in np.nonzero(on)[0]})


def assert_at(xy, i, x, y, tol=1e-6):
    got = np.asarray(xy)[i]
    assert abs(got[0] - x) <= tol and abs(got[1] - y) <= tol, (i, got, (x, y))


def assert_untouched(before_xy, before_on, xy, on, placed):
    keep = ~np.asarray(placed)
    assert np.array_equal(np.asarray(xy)[keep].tobytes(), np.asarray(before_xy)[keep].tobytes())
    assert np.array_equal(np.asarray(on)[keep], np.asarray(before_on)[keep])
    assert np.asarray(on)[np.asarray(placed)].all()


# ------------------------------------------------------------------ long string (RP-13..15)


def test_single_ball_on_free_spot():
    xy0, on0, pl = layout({0: (MID, 0.5)}, place=[5])
    xy, on = long_string(SPEC, xy0, on0, pl)
    assert_at(xy, 5, 0.8875, 3.550 - 3.550 / 4, tol=1e-12)
    assert_untouched(xy0, on0, xy, on, pl)
    check(xy, on)


def test_three_balls_touching_toward_rear():
    xy0, on0, pl = layout({0: (0.3, 0.4)}, place=[12, 3, 7])
    xy, on = long_string(SPEC, xy0, on0, pl)
    # ascending index: 3 on the spot, 7 behind it, 12 behind that, all touching
    spot = 3.550 * 3 / 4
    assert_at(xy, 3, 0.8875, spot)
    assert_at(xy, 7, 0.8875, spot + 0.068)
    assert_at(xy, 12, 0.8875, spot + 0.136)
    xy = np.asarray(xy)
    for a, b in ((3, 7), (7, 12)):
        d = np.hypot(*(xy[a] - xy[b]))
        assert 0.068 <= d <= 0.068 + 1e-6
    assert_untouched(xy0, on0, xy, on, pl)
    check(xy, on)


def test_spot_taken_by_cue_ball():
    xy0, on0, pl = layout({0: (MID, SPOT_Y)}, place=[4, 9])
    xy, on = long_string(SPEC, xy0, on0, pl)
    first = SPOT_Y + 0.068 + 0.001  # not touching the cue ball (AMB-24(b), (d))
    assert_at(xy, 4, MID, first)
    assert_at(xy, 9, MID, first + 0.068)  # the next one touches the first
    check(xy, on)


def test_obstacle_off_the_string():
    dx = R
    xy0, on0, pl = layout({0: (MID + dx, SPOT_Y)}, place=[2])
    xy, on = long_string(SPEC, xy0, on0, pl)
    assert_at(xy, 2, MID, SPOT_Y + math.sqrt(0.069**2 - 0.034**2))
    gap = np.hypot(*(np.asarray(xy)[2] - np.asarray(xy)[0]))
    assert 0.069 <= gap <= 0.069 + 1e-6
    check(xy, on)


def test_pushed_past_an_obstacle_behind_the_spot():
    cue_y = SPOT_Y + 0.1
    xy0, on0, pl = layout({0: (MID, cue_y)}, place=[1, 2, 3])
    xy, on = long_string(SPEC, xy0, on0, pl)
    assert_at(xy, 1, MID, SPOT_Y)  # spot free (0.1 m > 69 mm from the cue ball)
    assert_at(xy, 2, MID, cue_y + 0.069)  # spot + 2R blocked by the cue ball: past it
    assert_at(xy, 3, MID, cue_y + 0.069 + 0.068)
    check(xy, on)


def test_no_room_toward_the_rear_goes_in_front():
    # 13 balls fit from the spot to the rear limit: spot + 12 * 68 mm = 3.4785 <= L - off
    assert SPOT_Y + 12 * 0.068 <= REAR_Y < SPOT_Y + 13 * 0.068
    xy0, on0, pl = layout({0: (MID, 0.4)}, place=range(1, 16))
    xy, on = long_string(SPEC, xy0, on0, pl)
    for k in range(13):
        assert_at(xy, 1 + k, MID, SPOT_Y + 0.068 * k)
    assert_at(xy, 14, MID, SPOT_Y - 0.068)  # AMB-24(c): in front of the spot
    assert_at(xy, 15, MID, SPOT_Y - 0.136)  # and onward toward the head, touching
    check(xy, on)


def test_no_room_behind_obstacles_goes_in_front():
    # obstacle on the spot, another frozen against the rear cushion on the string
    xy0, on0, pl = layout({0: (MID, SPOT_Y), 15: (MID, REAR_Y)}, place=range(1, 14))
    xy, on = long_string(SPEC, xy0, on0, pl)
    first = SPOT_Y + 0.069
    # k-th ball at first + 68 mm * k while clear of ball 15 by 69 mm: k <= 10
    assert first + 0.068 * 10 <= REAR_Y - 0.069 < first + 0.068 * 11
    for k in range(11):
        assert_at(xy, 1 + k, MID, first + 0.068 * k)
    # ball 12 would have to go past ball 15, beyond the rear limit: in front of the spot,
    # not touching the obstacle there; ball 13 follows touching ball 12
    assert_at(xy, 12, MID, SPOT_Y - 0.069)
    assert_at(xy, 13, MID, SPOT_Y - 0.069 - 0.068)
    check(xy, on)


def test_placed_balls_already_on_table_are_moved():
    # a ball to re-spot that is still "on" at the spot is not an obstacle to itself
    xy0, on0, pl = layout({0: (0.3, 0.3), 6: (MID, SPOT_Y)}, place=[6])
    xy, on = long_string(SPEC, xy0, on0, pl)
    assert_at(xy, 6, MID, SPOT_Y, tol=1e-12)


# ------------------------------------------------------------- rear cushion (AM-14/15, MP-11/12)


def test_rear_cushion_free_middle():
    xy0, on0, pl = layout({0: (MID, 0.5)}, place=[7])
    xy, on = rear_cushion(SPEC, xy0, on0, pl)
    assert_at(xy, 7, 1.775 / 2, 3.550 - OFF, tol=1e-12)
    assert_untouched(xy0, on0, xy, on, pl)
    check(xy, on)


def test_rear_cushion_middle_taken_goes_right_touching():
    xy0, on0, pl = layout({0: (MID, REAR_Y)}, place=[3])
    xy, on = rear_cushion(SPEC, xy0, on0, pl)
    assert_at(xy, 3, MID + 0.068, REAR_Y)  # tie: right as seen from the house (+x)
    gap = np.hypot(*(np.asarray(xy)[3] - np.asarray(xy)[0]))
    assert 0.068 <= gap <= 0.068 + 1e-6  # frozen to the obstructing ball
    check(xy, on)


def test_rear_cushion_two_balls_right_then_left():
    xy0, on0, pl = layout({0: (MID, REAR_Y)}, place=[3, 9])
    xy, on = rear_cushion(SPEC, xy0, on0, pl)
    assert_at(xy, 3, MID + 0.068, REAR_Y)
    assert_at(xy, 9, MID - 0.068, REAR_Y)
    check(xy, on)


def test_rear_cushion_alternates_outward():
    xy0, on0, pl = layout({}, place=[1, 2, 3, 4, 5])
    xy, on = rear_cushion(SPEC, xy0, on0, pl)
    for i, dx in zip((1, 2, 3, 4, 5), (0.0, 0.068, -0.068, 0.136, -0.136)):
        assert_at(xy, i, MID + dx, REAR_Y)
    check(xy, on)


def test_rear_cushion_order():
    order = np.full(N, -1)
    order[:3] = [12, 3, 5]
    xy0, on0, pl = layout({}, place=[3, 5, 8, 12])
    xy, on = rear_cushion(SPEC, xy0, on0, pl, order)
    assert_at(xy, 12, MID, REAR_Y)
    assert_at(xy, 3, MID + 0.068, REAR_Y)
    assert_at(xy, 5, MID - 0.068, REAR_Y)
    assert_at(xy, 8, MID + 0.136, REAR_Y)  # not listed: after the listed ones
    check(xy, on)


def test_rear_cushion_obstacle_off_the_line_nearest_side():
    # obstacle R in front of the cushion line and R right of the middle: the left exit
    # (sqrt(3) - 1) R from the middle is nearer than the right one (1 + sqrt(3)) R
    xy0, on0, pl = layout({0: (MID + R, REAR_Y - R)}, place=[4])
    xy, on = rear_cushion(SPEC, xy0, on0, pl)
    assert_at(xy, 4, MID + R - math.sqrt(3) * R, REAR_Y)
    check(xy, on)


def test_rear_cushion_full_falls_back_to_long_string():
    n = 30
    obstacles = {0: (MID, REAR_Y)}
    for k in range(1, 12):  # right of the middle, touching
        obstacles[k] = (MID + k * (D + 1e-6), REAR_Y)
    obstacles[12] = (1.71, REAR_Y - R)  # blocks the last right position near the corner
    for k in range(1, 13):  # left of the middle, touching, up to the corner
        obstacles[12 + k] = (MID - k * (D + 1e-6), REAR_Y)
    xy0, on0, pl = layout(obstacles, place=[27, 28], n=n)
    check(xy0[on0], np.ones(on0.sum(), bool))  # the obstacles are a legal layout
    xy, on = rear_cushion(SPEC, xy0, on0, pl)
    assert_at(xy, 27, MID, SPOT_Y)
    assert_at(xy, 28, MID, SPOT_Y + 0.068)
    assert_untouched(xy0, on0, xy, on, pl)
    check(xy, on)


# ------------------------------------------------------------------------------- houses


def test_house_boundaries():
    hl = SPEC.head_line
    rl = L - hl
    ys = [hl, np.nextafter(hl, 0.0), np.nextafter(hl, 1.0), 0.1, rl, np.nextafter(rl, 0.0), np.nextafter(rl, 9.0), 3.4]
    xy = np.stack([np.full(len(ys), MID), ys], axis=1)
    assert np.asarray(respot.in_house(SPEC, xy)).tolist() == [False, True, False, True, False, False, False, False]
    assert np.asarray(respot.in_rear_house(SPEC, xy)).tolist() == [False, False, False, False, False, False, True, True]


# -------------------------------------------------------------------------------- rerack


ROW = math.sqrt(3) * R + 1e-6


def test_rerack_full_pyramid_and_partial_row():
    xy0, on0, keep = layout({0: (MID, 0.5)}, place=range(1, 16))
    xy, on = rerack(SPEC, xy0, on0, keep)
    expect = {}
    i = 1
    for row in range(5):
        for j in range(row + 1):
            expect[i] = (MID + (2 * j - row) * R, SPOT_Y + row * ROW)
            i += 1
    for i, (x, y) in expect.items():
        assert_at(xy, i, x, y, tol=1e-9)
    assert_untouched(xy0, on0, xy, on, keep)
    check(xy, on)
    # four balls: apex, a row of two, a last row of one centred on the string
    xy0, on0, keep = layout({0: (MID, 0.5)}, place=[2, 5, 9, 11])
    xy, on = rerack(SPEC, xy0, on0, keep)
    assert_at(xy, 2, MID, SPOT_Y, tol=1e-9)
    assert_at(xy, 5, MID - R, SPOT_Y + ROW, tol=1e-9)
    assert_at(xy, 9, MID + R, SPOT_Y + ROW, tol=1e-9)
    assert_at(xy, 11, MID, SPOT_Y + 2 * ROW, tol=1e-9)
    check(xy, on)


def test_rerack_order_left_to_right():
    order = np.full(N, -1)
    order[:5] = [7, 3, 1, 9, 4]
    xy0, on0, keep = layout({0: (0.2, 0.3)}, place=[1, 3, 4, 7, 9])
    xy, on = rerack(SPEC, xy0, on0, keep, order)
    assert_at(xy, 7, MID, SPOT_Y, tol=1e-9)
    assert_at(xy, 3, MID - R, SPOT_Y + ROW, tol=1e-9)  # left as seen from the house
    assert_at(xy, 1, MID + R, SPOT_Y + ROW, tol=1e-9)
    # last row of two, centred: straight behind the row of two, touching it (2R behind)
    assert_at(xy, 9, MID - R, SPOT_Y + ROW + 2 * R + 1e-6, tol=1e-9)
    assert_at(xy, 4, MID + R, SPOT_Y + ROW + 2 * R + 1e-6, tol=1e-9)
    check(xy, on)


def test_rerack_sixteen_balls():
    xy0, on0, keep = layout({}, place=range(16))
    xy, on = rerack(SPEC, xy0, on0, keep)
    # row 6 holds one ball, centred: straight behind the middle ball of row 5, touching it
    assert_at(xy, 15, MID, SPOT_Y + 4 * ROW + 2 * R + 1e-6, tol=1e-9)
    assert_at(xy, 12, MID, SPOT_Y + 4 * ROW, tol=1e-9)
    check(xy, on)


# ------------------------------------------------------------- random layouts, vmap, jit


def random_layouts(count, seed=0):
    """``count`` legal layouts of 16 balls: some on the table (random, non-overlapping,
    many near the rear spot and the rear cushion), some to re-spot."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n_on = rng.integers(3, 12)
        pts = []
        while len(pts) < n_on:
            where = rng.integers(3)
            if where == 0:
                p = (rng.uniform(OFF, W - OFF), rng.uniform(OFF, REAR_Y))
            elif where == 1:  # around the long string behind the spot
                p = (MID + rng.uniform(-0.08, 0.08), rng.uniform(SPOT_Y - 0.1, REAR_Y))
            else:  # frozen or nearly against the rear cushion
                p = (rng.uniform(0.3, W - 0.3), REAR_Y - rng.uniform(0.0, 0.05))
            if all(math.hypot(p[0] - q[0], p[1] - q[1]) >= D for q in pts):
                pts.append(p)
        idx = rng.permutation(N)
        xy = rng.uniform(-1, 5, size=(N, 2))  # junk for off-table balls
        on = np.zeros(N, bool)
        for i, p in zip(idx[:n_on], pts):
            xy[i] = p
            on[i] = True
        place = ~on & (rng.uniform(size=N) < 0.7)
        place[idx[n_on]] = True  # at least one
        order = np.where(rng.uniform(size=N) < 0.8, rng.permutation(N), -1)
        check(xy, on)
        out.append((xy, on, place, order))
    return out


def _nearest_free(start, sign, blockers, lo, hi):
    """Nearest point c of [lo, hi] from ``start`` in direction ``sign`` (0: both, nearest to
    ``start``, right on a tie) outside every open interval of ``blockers``; None if none.
    Brute force over the interval ends, independent of the code under test."""
    cands = [start] + [e for ab in blockers for e in ab]
    free = [c for c in cands if lo - 1e-9 <= c <= hi + 1e-9 and not any(a + 1e-8 < c < b - 1e-8 for a, b in blockers)]
    if sign:
        free = [c for c in free if sign * (c - start) >= -1e-12]
    if not free:
        return None
    return min(free, key=lambda c: (round(abs(c - start), 7), -c))


def _intervals(xy, fixed, along, others):
    """Blocked intervals of the line {coordinate along = c, other = fixed}: (centre, distance)."""
    out = []
    for j, d in others:
        perp = xy[j][1 - along] - fixed
        if abs(perp) < d:
            h = math.sqrt(d * d - perp * perp)
            out.append((xy[j][along] - h, xy[j][along] + h))
    return out


def expected_long_string(xy0, on0, place):
    xy = np.array(xy0, float)
    obstacles = [(j, NOT_TOUCHING) for j in np.nonzero(on0 & ~place)[0]]
    placed, sign, last = [], 1, None
    for i in np.nonzero(place)[0]:
        blockers = _intervals(xy, MID, 1, obstacles + [(j, D) for j in placed])
        y = _nearest_free(SPOT_Y if last is None else last, sign, blockers, -np.inf, np.inf)
        if sign > 0 and y > REAR_Y:
            sign = -1
            y = _nearest_free(SPOT_Y, -1, blockers, -np.inf, np.inf)
        xy[i] = (MID, y)
        placed.append(i)
        last = y
    return xy


def expected_rear_cushion(xy0, on0, place, order):
    xy = np.array(xy0, float)
    others = [(j, D) for j in np.nonzero(on0 & ~place)[0]]
    done = set()
    for i in [int(k) for k in order if k >= 0] + list(range(N)):
        if not place[i] or i in done:
            continue
        x = _nearest_free(MID, 0, _intervals(xy, REAR_Y, 0, others), OFF, W - OFF)
        assert x is not None  # not full in these layouts
        xy[i] = (x, REAR_Y)
        others.append((i, D))
        done.add(i)
    return xy


@pytest.fixture(scope="module")
def batch():
    layouts = random_layouts(8)
    return tuple(np.stack(a) for a in zip(*layouts))


def test_random_layouts_are_legal(batch):
    xy_b, on_b, pl_b, order_b = batch
    for xy0, on0, pl, order in zip(xy_b, on_b, pl_b, order_b):
        obst = on0 & ~pl
        xy, on = long_string(SPEC, xy0, on0, pl)
        assert_untouched(xy0, on0, xy, on, pl)
        check(xy, on)
        xy = np.asarray(xy)
        assert np.allclose(xy[pl], expected_long_string(xy0, on0, pl)[pl], rtol=0, atol=1e-6)
        assert np.all(xy[pl, 0] == MID)
        gaps = np.hypot(*(xy[pl][:, None] - xy[obst][None]).transpose(2, 0, 1))
        assert gaps.size == 0 or gaps.min() >= NOT_TOUCHING
        xy, on = rear_cushion(SPEC, xy0, on0, pl, order)
        assert_untouched(xy0, on0, xy, on, pl)
        check(xy, on)
        expect = expected_rear_cushion(xy0, on0, pl, order)
        assert np.allclose(np.asarray(xy)[pl], expect[pl], rtol=0, atol=1e-6)
        xy, on = rerack(SPEC, xy0, np.zeros(N, bool), on0 | pl, order)
        check(xy, on)


@pytest.mark.parametrize("name", ["long_string", "rear_cushion", "rerack"])
def test_vmap_equals_one_by_one(batch, name):
    xy_b, on_b, pl_b, order_b = batch
    if name == "long_string":
        f, args = long_string, (xy_b, on_b, pl_b)
    elif name == "rear_cushion":
        f, args = rear_cushion, (xy_b, on_b, pl_b, order_b)
    else:
        f, args = rerack, (xy_b, on_b, pl_b, order_b)
    xy_v, on_v = jax.vmap(lambda *a: f(SPEC, *a))(*args)
    for k in range(xy_b.shape[0]):
        xy_1, on_1 = f(SPEC, *(a[k] for a in args))
        assert np.array_equal(np.asarray(xy_v[k]).tobytes(), np.asarray(xy_1).tobytes())
        assert np.array_equal(np.asarray(on_v[k]), np.asarray(on_1))


def test_unjitted_call_and_dtypes():
    xy0, on0, pl = layout({0: (MID, SPOT_Y)}, place=[4])
    xy, on = respot.long_string_respot(SPEC, xy0.tolist(), on0, pl)
    assert xy.dtype == np.float64 and on.dtype == bool and xy.shape == (N, 2)
    assert_at(xy, 4, MID, SPOT_Y + NOT_TOUCHING)
    h = jax.jit(respot.in_house, static_argnums=0)(SPEC, xy0)
    assert h.dtype == bool and h.shape == (N,)
