"""The event loop's shortcuts give the bytes of the long way: a collision resolved without
the cluster rules (collisions.collide), a pair row solved once for an event of one ball, the
candidate matrix's rows and columns written in one select, and the compaction's indices
(compact.active_indices) against ``jnp.nonzero``."""

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.physics import candidates as C
from cuegym.physics import get_spec, get_table
from cuegym.physics.balls import ROLLING, SLIDING
from cuegym.physics.collisions import ball_ball, collide, sustained_contact
from cuegym.physics.compact import active_indices, running_count
from cuegym.physics.motion import linear_acceleration, transition_times
from cuegym.tools.bench_shots import make_layouts

TABLE = "pyramid-12ft"


def racks_in_motion(lanes, seed, speed):
    """``lanes`` full racks (cue ball in the house), every ball given a random velocity of
    about ``speed`` [m/s] and spin, sliding or rolling, and in each lane a touching pair of
    rack balls (i, j)."""
    spec = get_spec(TABLE)
    balls = make_layouts(spec, "full", lanes, seed)
    rng = np.random.default_rng(seed)
    n = balls.r.shape[1]
    v = rng.normal(0.0, speed, (lanes, n, 3)) * np.array([1.0, 1.0, 0.0])
    w = rng.normal(0.0, speed / spec.ball_radius, (lanes, n, 3))
    state = rng.choice([SLIDING, ROLLING], (lanes, n)).astype(np.int32)
    balls = balls._replace(v=jnp.asarray(v), w=jnp.asarray(w), state=jnp.asarray(state))
    r = np.asarray(balls.r[0, :, :2])
    gap = np.linalg.norm(r[:, None] - r[None], axis=-1) - 2.0 * spec.ball_radius
    pairs = [(a, b) for a in range(1, n) for b in range(a + 1, n) if gap[a, b] < 1e-3]
    pick = rng.integers(0, len(pairs), lanes)
    i = jnp.asarray([pairs[k][0] for k in pick])
    j = jnp.asarray([pairs[k][1] for k in pick])
    return balls, i, j


def test_collide_gives_ball_balls_bytes_where_the_contact_is_a_collision():
    table = get_table(TABLE)
    # speeds around the sustained-contact threshold: both kinds of contact occur
    balls, i, j = racks_in_motion(256, seed=0, speed=0.01)
    sustained = np.asarray(jax.vmap(sustained_contact)(balls, i, j))
    assert 20 < sustained.sum() < 236, "both collisions and sustained contacts are drawn"
    fast = jax.jit(jax.vmap(lambda b, i, j: collide(b, i, j, table)))(balls, i, j)
    full = jax.jit(jax.vmap(lambda b, i, j: ball_ball(b, i, j, table)))(balls, i, j)
    for x, y in zip(fast, full):
        np.testing.assert_array_equal(np.asarray(x)[~sustained], np.asarray(y)[~sustained])
    # the collision changes only the pair; a sustained contact may move its cluster on
    moved = np.any(np.asarray(fast.v) != np.asarray(balls.v), axis=-1)
    ids = np.arange(moved.shape[1])
    assert not np.any(moved & (ids != np.asarray(i)[:, None]) & (ids != np.asarray(j)[:, None]))
    assert np.any(np.asarray(full.v)[sustained] != np.asarray(fast.v)[sustained])


def test_a_ball_repeated_in_a_pair_row_request_gets_its_row_twice():
    table = get_table(TABLE)
    balls, i, k = racks_in_motion(32, seed=1, speed=0.5)
    acc = jax.vmap(lambda b: linear_acceleration(b, table))(balls)
    trans = jax.vmap(lambda b: transition_times(b, table))(balls)
    own = jnp.full(trans.shape, 0.3)  # every ball's next event of its own 0.3 s away

    def rows(b, a, tr, idx, o):
        return C.pair_rows(b, a, tr, idx, table, o)

    rows = jax.jit(jax.vmap(rows))
    twice = np.asarray(rows(balls, acc, trans, jnp.stack([i, i], 1), own))
    apart = np.asarray(rows(balls, acc, trans, jnp.stack([i, k], 1), own))
    np.testing.assert_array_equal(twice[:, 0], apart[:, 0])
    np.testing.assert_array_equal(twice[:, 1], apart[:, 0])
    assert np.isfinite(apart[:, 0]).any(), "some contacts are found"


def test_set_rows_writes_rows_and_columns_in_order():
    rng = np.random.default_rng(2)
    n = 6
    for i, j in [(1, 4), (3, 3), (5, 0)]:
        pair_t = rng.normal(size=(n, n))
        row_i, row_j = rng.normal(size=n), rng.normal(size=n)
        want = pair_t.copy()
        for k, row in ((i, row_i), (j, row_j)):
            want[k, :] = row
            want[:, k] = row
        got = C.set_rows(jnp.asarray(pair_t), i, jnp.asarray(row_i), j, jnp.asarray(row_j))
        np.testing.assert_array_equal(np.asarray(got), want)


def test_active_indices_are_nonzeros_and_the_running_count_a_cumulative_sum():
    rng = np.random.default_rng(3)
    for size in (1, 31, 32, 33, 1024, 40_001):
        for share in (0.0, 0.1, 0.5, 1.0):
            active = rng.random(size) < share
            for extra in (0, 7, 64):
                order, count = jax.jit(active_indices, static_argnums=1)(jnp.asarray(active), size + extra)
                want = np.asarray(jnp.nonzero(active, size=size + extra, fill_value=size)[0])
                np.testing.assert_array_equal(np.asarray(order), want)
                assert int(count) == int(active.sum())
            np.testing.assert_array_equal(np.asarray(running_count(jnp.asarray(active))), np.cumsum(active))
