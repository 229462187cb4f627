"""RU-GEN-43 and RU-GEN-44 as the original Russian text gives them, where the catalogue's
proposals (AMB-13, AMB-08) read them otherwise.

RU-GEN-43: a foul «за выполнение удара нажимом, когда биток выжимает прицельный шар от
борта»: the press stroke squeezes the object ball off the cushion it lies against, so the
line of centres must drive it into that cushion; a stroke along the cushion is not one.
RU-GEN-44: a foul «если при ударе с руки из дома биток задевает какой-либо находящийся в доме
прицельный шар»: any object ball in the house, touched at any time of the stroke.

The geometry is checked on :func:`cuegym.rules.russian.presses_off_cushion`; the real-stroke
scenarios (tests/rules/scenarios/russian-general/RU-GEN-43_*, RU-GEN-44_*) are checked here to
make the contacts their titles describe, so that a ruling cannot pass for want of a contact.
"""

import json
import math
import pathlib

import jax.numpy as jnp
import pytest

from cuegym.physics import get_spec
from cuegym.positions import load_position, load_shot
from cuegym.rules import russian
from cuegym.tools.cli import simulate_position

SCENARIOS = pathlib.Path(__file__).parent / "scenarios" / "russian-general"
SPEC = get_spec("pyramid-12ft")
W, L, R = SPEC.width, SPEC.length, SPEC.ball_radius
OFF = russian.contact_offset(SPEC)  # a ball frozen to a cushion has its centre this far in
GAP = 0.01  # m: the cue ball 1 cm from the object ball, within R/2 (RU-GEN-35)


def press(ball, degrees_from_normal, normal):
    """Whether a cue ball GAP from ``ball`` (2,), the line of centres turned
    ``degrees_from_normal`` from the cushion normal ``normal`` (2,), presses it off."""
    a = math.radians(degrees_from_normal)
    nx, ny = normal
    u = (nx * math.cos(a) - ny * math.sin(a), nx * math.sin(a) + ny * math.cos(a))
    cue = (ball[0] - (2 * R + GAP) * u[0], ball[1] - (2 * R + GAP) * u[1])
    return bool(russian.presses_off_cushion(SPEC, jnp.asarray(cue), jnp.asarray(ball)))


@pytest.mark.parametrize("ball, normal", [((W - OFF, 2.0), (1.0, 0.0)), ((OFF, 1.0), (-1.0, 0.0)),
                                          ((0.9, L - OFF), (0.0, 1.0)), ((0.9, OFF), (0.0, -1.0))])
def test_RU_GEN_43_pressed_into_its_cushion_is_a_press(ball, normal):
    """Into the cushion the ball touches, up to 45° off its normal: squeezed off it."""
    assert press(ball, 0.0, normal) and press(ball, 30.0, normal) and press(ball, -44.0, normal)


@pytest.mark.parametrize("ball, normal", [((W - OFF, 2.0), (1.0, 0.0)), ((OFF, 1.0), (-1.0, 0.0))])
def test_RU_GEN_43_along_the_cushion_is_no_press(ball, normal):
    """Along the cushion (more than 45° off its normal) or away from it: the ball is not
    pressed against the cushion, so not squeezed off it (RU-GEN-35 judges such a stroke)."""
    for degrees in (46.0, 86.0, 90.0, -90.0, 135.0, 180.0):
        assert not press(ball, degrees, normal), degrees


def test_RU_GEN_43_a_ball_off_the_cushion_is_never_pressed():
    """No cushion, no press stroke: the same line of centres at a ball 1 cm off the cushion."""
    assert not press((W - OFF - 0.01, 2.0), 0.0, (1.0, 0.0))


def test_RU_GEN_43_a_corner_ball_is_pressed_into_either_cushion():
    corner = (W - OFF - 0.2, L - OFF)  # frozen to the foot cushion only
    assert press(corner, 0.0, (0.0, 1.0)) and not press(corner, 0.0, (1.0, 0.0))


def simulate(name):
    data = json.loads((SCENARIOS / name).read_text())
    position = load_position(data["position"])
    result = simulate_position(position, load_shot(data["shot"], position))
    assert not result["truncated"]
    return [e["balls"] for e in result["events"] if e["kind"] == "ball"], result["ruling"]


@pytest.mark.parametrize("name, foul", [
    ("RU-GEN-44_later_contact_with_a_house_ball_is_a_foul.json", True),
    ("RU-GEN-44_moscow_later_contact_with_a_house_ball_costs_a_ball.json", True),
    ("RU-GEN-44_later_contact_outside_the_house_is_legal.json", False),
])
def test_RU_GEN_44_scenarios_touch_the_9_then_the_3(name, foul):
    """The cue ball hits the 9 (outside the house) first, then the 3: a foul exactly when
    the 3 stood in the house at the start."""
    contacts, ruling = simulate(name)
    assert contacts[:2] == [["cue", "9"], ["cue", "3"]], contacts
    assert ("RU-GEN-44" in ruling["clauses"]) is foul and "RU-GEN-19" not in ruling["clauses"]


@pytest.mark.parametrize("name, press_foul", [
    ("RU-GEN-43_press_off_the_side_cushion_is_a_foul.json", True),
    ("RU-GEN-43_stun_along_the_cushion_is_legal.json", False),
    ("RU-GEN-43_follow_along_the_cushion_is_a_close_ball_foul.json", False),
])
def test_RU_GEN_43_scenarios_hit_the_frozen_7_first(name, press_foul):
    contacts, ruling = simulate(name)
    assert contacts[0] == ["cue", "7"]
    assert ("RU-GEN-43" in ruling["clauses"]) is press_foul
