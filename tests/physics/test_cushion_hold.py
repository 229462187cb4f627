"""A ball whose spin drives it into a cushion is held there (collisions.py, "A ball held on
a cushion"): the bounces end after a few events instead of a Zeno series that runs into the
event cap, the ball never presses into the cushion, and it runs on along it."""

import jax.numpy as jnp
import numpy as np
import pytest
from physics_helpers import events

from cuegym.physics import SLIDING, at_rest, get_spec, get_table, make_shot, simulate
from cuegym.physics import events as ev

TABLE = "pyramid-12ft"


@pytest.mark.parametrize("across", [0.0, -0.05])  # running along the cushion; meeting it at 0.05 m/s
def test_sliding_ball_spun_into_the_cushion_is_held_and_runs_along_it(across):
    spec, table = get_spec(TABLE), get_table(TABLE)
    R = spec.ball_radius
    # ball 0 slides up the table 2 mm off the left cushion (x = 0), its spin about the y axis
    # making the cloth drag it towards the cushion (slip u_x = v_x - R w_y > 0, friction
    # along -x); ball 1 is far away and struck at zero speed, so only ball 0 moves
    balls = at_rest(np.array([[R + 0.002, 1.0], [1.0, 2.5]]))
    balls = balls._replace(v=balls.v.at[0].set(jnp.array([across, 0.6, 0.0])),
                           w=balls.w.at[0].set(jnp.array([-0.6 / R, -3.0 / R, 0.0])),
                           state=balls.state.at[0].set(SLIDING))
    final, log, _ = simulate(table, balls, make_shot(1, 0.0, 0.0))
    assert not bool(log.truncated) and int(log.count) < 40, int(log.count)
    hits = events(log, ev.CUSHION, 0)
    assert hits, "the ball should reach the cushion"
    # the last contact leaves it running along the cushion with no velocity across it, and
    # it comes to rest against the cushion (at the contact's x, within rounding)
    k = hits[-1]
    assert abs(float(log.v[k, 0, 0])) < 1e-9 and float(log.v[k, 0, 1]) > 0.05
    x, y = (float(c) for c in final.r[0, :2])
    assert abs(x - float(log.r[k, 0, 0])) < 1e-6 and x < R
    assert y > float(log.r[k, 0, 1]) + 0.01
