"""The pooltool comparison's shots, built on cuegym's side only (pooltool is not needed)."""

import math

import numpy as np
import pytest

from cuegym.physics import get_spec
from cuegym.tools import compare_shots as cs

SPEC = get_spec(cs.TABLE)
R = SPEC.ball_radius


def _by_name():
    return {c.name: c for c in cs.shot_set()}


def _heading(case):
    return np.array([math.cos(case.phi), math.sin(case.phi)])


def test_the_set_covers_the_issue():
    names = _by_name()
    assert {"cut 15°", "cut 30°", "cut 45°", "cut 60°", "9-ball break"} <= set(names)
    assert sum(c.group == "one cushion" for c in names.values()) == 6
    assert {c.group for c in names.values()} == {"straight pot", "cut", "spin", "one cushion", "two cushions", "break"}


def test_balls_start_on_the_bed_apart():
    for case in cs.shot_set():
        xy = np.asarray(case.xy)
        assert np.all(xy >= R) and np.all(xy[:, 0] <= SPEC.width - R) and np.all(xy[:, 1] <= SPEC.length - R), case.name
        d = np.linalg.norm(xy[:, None] - xy[None], axis=-1) + np.eye(len(xy)) * 1.0
        assert d.min() >= 2 * R, case.name


@pytest.mark.parametrize("name", ["straight pot, corner", "straight pot, side"])
def test_straight_pots_head_through_the_object_ball_at_the_pocket(name):
    case = _by_name()[name]
    cb, ob = np.asarray(case.xy)
    aim = np.array([SPEC.width, SPEC.length if case.pocket == 3 else SPEC.length / 2])
    u = _heading(case)
    np.testing.assert_allclose(u, (ob - cb) / np.linalg.norm(ob - cb), atol=1e-12)
    np.testing.assert_allclose(u, (aim - ob) / np.linalg.norm(aim - ob), atol=1e-12)


@pytest.mark.parametrize("cut", [15, 30, 45, 60])
def test_cuts_pass_through_the_ghost_ball(cut):
    case = _by_name()[f"cut {cut}°"]
    cb, ob = np.asarray(case.xy)
    aim = np.array([SPEC.width, SPEC.length])
    ghost = cs.ghost_ball(ob, aim, R)
    u = _heading(case)
    to_ghost = ghost - cb
    # the cue ball's path runs through the ghost-ball point, where it touches the object ball
    assert abs(u[0] * to_ghost[1] - u[1] * to_ghost[0]) < 1e-12 and to_ghost @ u > 0
    assert abs(np.linalg.norm(ghost - ob) - 2 * R) < 1e-12
    # the cut angle: between the heading and the line of centres at contact, which points at the pocket
    line = (ob - ghost) / (2 * R)
    assert math.degrees(math.acos(np.clip(u @ line, -1, 1))) == pytest.approx(cut, abs=1e-9)
    np.testing.assert_allclose(line, (aim - ob) / np.linalg.norm(aim - ob), atol=1e-12)


def test_stun_tip_kills_the_spin_at_the_object_ball():
    case = _by_name()["stun, straight"]
    v = cs.ball_speed(case.speed, case.b, SPEC)
    g, mu = 9.81, SPEC.mu_slide
    # strike.py: w = 5/2 b v / R; sliding: v falls at mu g, the backspin at 5/2 mu g / R
    w = 2.5 * case.b * v / R
    t = abs(w) / (2.5 * mu * g / R)
    travelled = v * t - 0.5 * mu * g * t * t
    gap = np.linalg.norm(np.subtract(case.xy[1], case.xy[0])) - 2 * R
    assert case.b < 0 and travelled == pytest.approx(gap, rel=1e-9)
    follow, draw = _by_name()["follow, straight"], _by_name()["draw, straight"]
    assert follow.b > 0 > draw.b


@pytest.mark.parametrize("inc", [20, 45, 70])
def test_rebounds_meet_the_right_cushion_at_the_incidence_angle(inc):
    for speed in (1, 3):
        case = _by_name()[f"rebound {inc}° at {speed} m/s"]
        start = np.asarray(case.xy[0])
        u = _heading(case)
        # the angle from the cushion's normal (-x) and the point where the centre reaches x = W - R
        assert math.degrees(math.acos(u[0])) == pytest.approx(inc, abs=1e-9)
        s = (SPEC.width - R - start[0]) / u[0]
        assert start[1] + s * u[1] == pytest.approx(0.75 * SPEC.length, abs=1e-12)
        assert case.speed == speed and case.focus == "cushion"


def test_the_break_rack_is_a_touching_diamond_on_the_foot_spot():
    case = _by_name()["9-ball break"]
    xy = np.asarray(case.xy)
    assert len(xy) == 10
    np.testing.assert_allclose(xy[1], SPEC.spots()["rear"])
    np.testing.assert_allclose(xy[0], SPEC.spots()["front"])
    d = np.linalg.norm(xy[1:, None] - xy[None, 1:], axis=-1)[np.triu_indices(9, 1)]
    assert d.min() == pytest.approx(2 * R, abs=2e-6)
    assert np.sum(d < 2 * R + 1e-5) == 16  # the diamond's touching pairs


def test_angle_diff_wraps():
    assert cs.angle_diff(179.0, -179.0) == pytest.approx(-2.0)
    assert cs.angle_diff(-179.0, 179.0) == pytest.approx(2.0)
