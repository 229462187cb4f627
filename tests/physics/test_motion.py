"""Ball motion on the cloth against the closed-form friction results (Leckie & Greenspan
2005; Alciatore TP A-4): slide, then roll at 5/7 of the initial speed."""

import numpy as np
import pytest
from physics_helpers import events, run

from cuegym.physics import ROLLING, STATIONARY, get_spec
from cuegym.physics import events as ev

G = 9.81


@pytest.mark.parametrize("table_name", ["pyramid-12ft", "snooker-12ft", "pool-9ft"])
def test_centre_ball_hit_slides_then_rolls_at_five_sevenths(table_name):
    spec = get_spec(table_name)
    start = (spec.width / 2, 0.3)
    table, _, final, log, _ = run(table_name, [start], np.pi / 2, 0.5)
    strike = events(log, ev.STRIKE)[0]
    v0 = float(np.linalg.norm(log.v[strike, 0]))
    assert np.allclose(log.w[strike, 0], 0.0, atol=1e-9), "a centre-ball hit gives no spin"
    roll = events(log, ev.ROLLING_EV, ball=0)[0]
    v_roll = float(np.linalg.norm(log.v[roll, 0]))
    assert v_roll == pytest.approx(5 / 7 * v0, rel=5e-3)
    mu_s, mu_r = spec.mu_slide, spec.mu_roll
    t_slide = 2 * v0 / (7 * mu_s * G)
    assert float(log.t[roll]) == pytest.approx(t_slide, rel=1e-9)
    # sliding distance v0 t - mu_s g t^2 / 2, then rolling distance v^2 / (2 mu_r g)
    slide_dist = v0 * t_slide - 0.5 * mu_s * G * t_slide**2
    assert float(log.r[roll, 0, 1]) - start[1] == pytest.approx(slide_dist, rel=1e-9)
    stop = events(log, ev.STOP, ball=0)
    assert stop, "the ball comes to rest"
    t_stop = t_slide + v_roll / (mu_r * G)
    assert float(log.t[stop[0]]) == pytest.approx(t_stop, rel=1e-9)
    travelled = float(final.r[0, 1]) - start[1]
    assert travelled == pytest.approx(slide_dist + v_roll**2 / (2 * mu_r * G), rel=1e-9)
    assert int(final.state[0]) == STATIONARY


def test_rolling_ball_keeps_rolling_spin():
    spec = get_spec("pyramid-12ft")
    _, _, _, log, _ = run("pyramid-12ft", [(spec.width / 2, 0.3)], np.pi / 2, 1.0)
    roll = events(log, ev.ROLLING_EV, ball=0)[0]
    v, w = np.asarray(log.v[roll, 0]), np.asarray(log.w[roll, 0])
    r = spec.ball_radius
    # rolling without slipping: contact point velocity v + w x (-R z) = 0
    assert v[0] - r * w[1] == pytest.approx(0, abs=1e-12)
    assert v[1] + r * w[0] == pytest.approx(0, abs=1e-12)
    assert int(log.state[roll, 0]) == ROLLING


def test_follow_and_draw_change_the_roll_speed():
    """Top spin rolls faster than 5/7 v0, and a draw (below centre) rolls slower."""
    spec = get_spec("pyramid-12ft")
    speeds = {}
    for b in (0.3, 0.0, -0.3):
        _, _, _, log, _ = run("pyramid-12ft", [(spec.width / 2, 0.3)], np.pi / 2, 1.5, b=b)
        k = events(log, ev.ROLLING_EV, ball=0)[0]
        speeds[b] = float(log.v[k, 0, 1])
    assert speeds[0.3] > speeds[0.0] > speeds[-0.3]


def test_strike_at_seven_fifths_height_rolls_at_once():
    """A tip offset of 2/5 R above centre (7R/5 above the bed) gives natural roll."""
    spec = get_spec("pyramid-12ft")
    _, _, _, log, _ = run("pyramid-12ft", [(spec.width / 2, 0.3)], np.pi / 2, 0.5, b=0.4)
    assert int(log.state[0, 0]) == ROLLING
    assert not events(log, ev.ROLLING_EV, ball=0)


def test_side_spin_decays_and_squirts_away_from_the_side_struck():
    spec = get_spec("pool-9ft")
    _, _, final, log, _ = run("pool-9ft", [(spec.width / 2, 0.3)], np.pi / 2, 0.6, a=0.4)
    v = np.asarray(log.v[0, 0])
    # right-hand side struck while shooting up the table (+y): the ball squirts to the left (-x)
    assert v[0] < 0
    assert np.degrees(np.arctan2(-v[0], v[1])) == pytest.approx(1.5, abs=1.5)
    assert float(log.w[0, 0, 2]) > 0
    assert int(final.state[0]) == STATIONARY and float(final.w[0, 2]) == 0.0


def test_a_ball_settled_at_rest_keeps_no_speed():
    """``motion.settle``: a ball whose speed after an impulse is below the rest threshold is
    at rest (stationary, or spinning about the vertical), with no speed left in it. A speed of
    5e-10 m/s left in a spinning ball counted in its contacts' approach: a ball rolling past
    it met it again and again at one instant (fuzz run seed 5, pool-9ft mixed 5/10663, 20,000
    events)."""
    import jax.numpy as jnp

    from cuegym.physics import SPINNING, BallState, get_table
    from cuegym.physics.collisions import HOP_SPEED
    from cuegym.physics.motion import settle

    table = get_table("pool-9ft")
    v = jnp.array([[4.8e-16, 5.1e-10, 0.0], [0.0, 5.1e-10, 0.0], [0.02, 0.0, 0.0]])
    w = jnp.array([[0.0, 0.0, -0.18], [0.0, 0.0, 0.0], [0.0, 0.02 / float(table.radius), 0.0]])
    balls = BallState(jnp.zeros((3, 3)), v, w, jnp.full(3, ROLLING, jnp.int32), jnp.full(3, -1, jnp.int32))
    out = settle(balls, table, HOP_SPEED)
    assert [int(s) for s in out.state] == [SPINNING, STATIONARY, ROLLING]
    np.testing.assert_array_equal(np.asarray(out.v[:2]), 0.0)
    np.testing.assert_array_equal(np.asarray(out.v[2]), np.asarray(v[2]))
