"""The invariant audit (cuegym.physics.audit) flags what it should: points behind a cushion
nose, inside a jaw's reach or past a drop line; overlapping balls. (A log whose energy rises:
tests/physics/test_peer_cases.py, which reuses its compiled batch.)"""

import jax.numpy as jnp
import numpy as np

from cuegym.physics import get_table
from cuegym.physics.audit import escape_distance, overlap_depth

TABLE = get_table("pyramid-12ft")
R, OFF = float(TABLE.radius), float(TABLE.contact_offset)


def test_escape_distance_of_known_points():
    jaw_c, jaw_r = np.asarray(TABLE.jaw_c), np.asarray(TABLE.jaw_r)
    drop_q, drop_n = np.asarray(TABLE.drop_q), np.asarray(TABLE.drop_n)
    ml = 1  # the middle-left pocket: its channel runs along -x at y = L / 2
    pts = np.array([
        [OFF, 1.0],  # touching the left nose
        [OFF - 1e-3, 1.0],  # 1 mm into it
        [0.8, 1.5],  # the middle of the bed
        jaw_c[0] + (jaw_r[0] + OFF - 2e-3) * np.array([1.0, 0.0]),  # 2 mm inside a jaw's reach
        drop_q[ml] - 1e-3 * drop_n[ml],  # in the middle pocket's throat, short of its drop line
        drop_q[ml] + 1e-3 * drop_n[ml],  # past it
    ])
    e = np.asarray(escape_distance(TABLE, jnp.asarray(pts)))
    np.testing.assert_allclose(e[[0, 1, 3, 5]], [0.0, 1e-3, 2e-3, 1e-3], atol=1e-12)
    assert e[2] < -0.5 and e[4] < 0


def test_overlap_depth():
    r = jnp.array([[0.5, 1.0, 0.0], [0.5 + 2 * R - 1e-6, 1.0, 0.0], [1.0, 2.0, 0.0]])
    assert abs(float(overlap_depth(r, jnp.array([True, True, True]), R)) - 1e-6) < 1e-12
    assert float(overlap_depth(r, jnp.array([True, False, True]), R)) < 0  # a ball out of play counts not
