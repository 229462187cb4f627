"""Pockets: straight-in shots drop in every pocket of every table; a Russian corner pocket,
barely wider than the ball, rejects a fast ball a few millimetres off line (it rattles on
the jaw), while the same shot on line drops; a curving ball meets a throat wall it started
behind."""

import jax.numpy as jnp
import numpy as np
import pytest
from physics_helpers import events, heading, run

from cuegym.physics import (
    POCKETED,
    POCKETS,
    SLIDING,
    STATIONARY,
    TABLE_SPECS,
    BallState,
    get_spec,
    get_table,
    make_shot,
    simulate,
)
from cuegym.physics import events as ev
from cuegym.physics.audit import escape_distance
from cuegym.physics.motion import evolve


def straight_in(spec, pocket_id, distance=0.35, run_up=0.3, offset=0.0):
    """Object ball ``distance`` from the pocket's drop point on the pocket axis, the cue
    ball ``run_up`` behind it on the same line; ``offset`` shifts both sideways [m]."""
    table = get_table(spec.name)
    target = np.asarray(table.pocket_xy[pocket_id])
    axis = np.asarray(table.drop_n[pocket_id])  # into the pocket
    side = np.array([-axis[1], axis[0]])
    obj = target - distance * axis + offset * side
    cue = obj - run_up * axis
    return [cue, obj]


@pytest.mark.parametrize("table_name", sorted(TABLE_SPECS))
@pytest.mark.parametrize("pocket_id", range(6))
def test_straight_in_shot_pots_in_each_pocket(table_name, pocket_id):
    spec = get_spec(table_name)
    xy = straight_in(spec, pocket_id)
    _, _, final, log, summary = run(table_name, xy, heading(xy[0], xy[1]), 1.5)
    assert int(final.state[1]) == POCKETED, f"object ball not pocketed in {POCKETS[pocket_id]}"
    assert int(final.pocket[1]) == pocket_id
    assert int(summary.pocket[1]) == pocket_id and int(summary.pocket_order[1]) == 0
    assert int(summary.first_contact) == 1
    assert not bool(log.truncated)


@pytest.mark.parametrize("pocket_id", [0, 3])
def test_fast_ball_off_line_rattles_out_of_a_russian_corner(pocket_id):
    spec = get_spec("pyramid-12ft")
    # 72.5 mm mouth, 68 mm ball: 2.25 mm to spare on each side
    on_line = straight_in(spec, pocket_id, distance=0.5)
    _, _, final, _, _ = run("pyramid-12ft", on_line, heading(on_line[0], on_line[1]), 5.0)
    assert int(final.state[1]) == POCKETED
    off_line = straight_in(spec, pocket_id, distance=0.5, offset=0.008)
    _, _, final, log, summary = run("pyramid-12ft", off_line, heading(off_line[0], off_line[1]), 5.0)
    assert int(final.state[1]) != POCKETED, "an 8 mm error must not drop in a Russian corner"
    assert events(log, ev.JAW, ball=1), "the ball is turned away by the jaw"
    assert int(summary.jaws[1]) >= 1
    # the wider pool corner takes the same error
    pool = get_spec("pool-9ft")
    wide = straight_in(pool, pocket_id, distance=0.5, offset=0.008)
    _, _, final, _, _ = run("pool-9ft", wide, heading(wide[0], wide[1]), 5.0)
    assert int(final.state[1]) == POCKETED


def test_pocket_mouth_widths_match_the_specification():
    for spec in TABLE_SPECS.values():
        table = get_table(spec.name)
        jaws = np.asarray(table.jaw_c)
        radii = np.asarray(table.jaw_r)
        owner = np.asarray(table.jaw_pocket)
        for p in range(6):
            (i, j) = np.nonzero(owner == p)[0]
            gap = np.linalg.norm(jaws[i] - jaws[j]) - radii[i] - radii[j]
            expected = spec.middle_mouth if p in (1, 4) else spec.corner_mouth
            assert gap == pytest.approx(expected, abs=1e-9)


def test_a_curving_ball_meets_a_throat_wall_it_started_behind():
    """A massé ball that starts behind the line of a pocket's throat wall (the line runs on
    across the table) crosses that line beside the wall, curves round and meets the wall from
    the front, so the wall's root counts although the ball started behind its line (the
    fuzzer's pool-9ft, seed 1, chunk 19, index 1536: otherwise 4.8 mm into the wall)."""
    table = get_table("pool-9ft")
    # ball 0 idles (struck at zero speed); ball 1 slides with the fuzz case's spin
    r = jnp.asarray([[0.3, 2.0, 0.0], [0.74044002, 0.72720085, 0.0]])
    v = jnp.asarray([[0.0, 0.0, 0.0], [0.57682663, -1.62532422, 0.0]])
    w = jnp.asarray([[0.0, 0.0, 0.0], [-88.80118439, 144.33571375, -111.79832568]])
    balls = BallState(r, v, w, jnp.asarray([STATIONARY, SLIDING], jnp.int32), jnp.asarray([-1, -1], jnp.int32))
    _, log, _ = simulate(table, balls, make_shot(0, 0.0, 0.0))
    # its path, 200 points between each of its events up to the pocket, stays out of the walls
    pocket = events(log, ev.POCKET, ball=1)[0]
    legs = [(0.0, balls.r[1:], balls.v[1:], balls.w[1:], balls.state[1:])]
    legs += [(float(log.t[k]), log.r[k, :1], log.v[k, :1], log.w[k, :1], log.state[k, :1])
             for k in events(log, ball=1) if k < pocket and int(log.ball[k]) == 1]
    ends = [t for t, *_ in legs[1:]] + [float(log.t[pocket])]
    for (t0, r1, v1, w1, s1), t1 in zip(legs, ends):
        one = BallState(r1, v1, w1, s1, jnp.asarray([-1], jnp.int32))
        xy = jnp.stack([evolve(one, table, dt).r[0, :2] for dt in jnp.linspace(0.0, t1 - t0, 200)])
        assert float(jnp.max(escape_distance(table, xy))) <= 1e-6, f"into a wall between {t0:.4f} and {t1:.4f} s"
    walls = [k for k in events(log, ev.JAW, ball=1) if int(log.other[k]) == 5]
    assert walls, "it meets the throat of the head-right pocket"
