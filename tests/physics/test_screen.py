"""Screened contact solving (cuegym.physics.screen): the Bernstein screen never hides a
contact in its window, and the compacted solve gives the plain solver's bytes, alone, under
vmap and over several chunks."""

import jax
import jax.numpy as jnp
import numpy as np

import cuegym.physics  # noqa: F401  (float64)
from cuegym.physics import roots, screen

R = 0.034  # m, a pyramid ball's radius: contact distance 2R


def pair_quartics(n, seed, spread=1.0):
    """``n`` pairs of balls in motion, as the event loop forms them: relative position p,
    velocity v and acceleration a (3D), squared distance minus (2R)^2 as a quartic in t."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(-spread, spread, (n, 3)) * np.array([1.0, 1.0, 0.0])
    v = rng.normal(0.0, 1.5, (n, 3)) * np.array([1.0, 1.0, 0.0])
    a = rng.normal(0.0, 0.3, (n, 3)) * np.array([1.0, 1.0, 0.0])
    d2 = (2.0 * R) ** 2
    c = (np.sum(p * p, -1) - d2, 2.0 * np.sum(p * v, -1), np.sum(v * v, -1) + np.sum(p * a, -1),
         np.sum(v * a, -1), 0.25 * np.sum(a * a, -1))
    window = rng.uniform(0.0, 2.0, n)
    return c, window


def test_a_screened_quartic_stays_positive_over_its_window():
    c, window = pair_quartics(4000, seed=0)
    clear = np.asarray(screen.clear_of_contact(tuple(jnp.asarray(x) for x in c), jnp.asarray(window)))
    assert 0.2 < clear.mean() < 0.95, "the screen both clears and keeps a real share of random pairs"
    ts = np.linspace(0.0, 1.0, 2001)[None] * window[:, None]
    f = sum(ck[:, None] * ts**k for k, ck in enumerate(c))
    assert np.all(f[clear].min(-1) > 0), "a cleared pair never reaches contact in its window"
    # and the solver agrees: no contact starts in the window of a cleared pair
    t = np.asarray(jax.jit(roots.first_descending_root_quartic)(*(jnp.asarray(x) for x in c), jnp.asarray(window)))
    assert np.all(~np.isfinite(t[clear]) | (t[clear] > window[clear]))


def test_a_touching_or_overlapping_pair_is_never_screened():
    # in contact (f(0) = 0), overlapping (f(0) < 0), and a gap below the rounding margin
    c0 = jnp.asarray([0.0, -1e-9, 1e-20])
    zero = jnp.zeros(3)
    clear = screen.clear_of_contact((c0, zero, jnp.full(3, 1e-3), zero, zero), jnp.full(3, 1.0))
    assert not np.any(np.asarray(clear))
    # nor a NaN
    nan = jnp.full(1, jnp.nan)
    assert not bool(screen.clear_of_contact((nan, nan, nan, nan, nan), jnp.ones(1))[0])


def _solve_both(c, horizon, depth, screened):
    plain = roots.first_descending_root_quartic(*c, horizon, depth)
    return jnp.where(screened, jnp.inf, plain), screen.first_contacts(c, horizon, depth, screened, 16)


def test_screened_solve_gives_the_plain_solvers_bytes_alone_and_under_vmap():
    c, window = pair_quartics(3 * 64, seed=1, spread=0.3)
    c = tuple(jnp.asarray(x).reshape(3, 64) for x in c)
    horizon = jnp.asarray(window).reshape(3, 64) * 1.5
    depth = (4.0 * R - 1e-7) * 1e-7
    screened = screen.clear_of_contact(c, jnp.asarray(window).reshape(3, 64))
    assert 0 < int(jnp.sum(~screened)) < screened.size
    want, got = jax.jit(_solve_both)(c, horizon, depth, screened)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    # under vmap the three rows are gathered into one compacted solve (the batching rule)
    want_v, got_v = jax.jit(jax.vmap(_solve_both, in_axes=(0, 0, None, 0)))(c, horizon, depth, screened)
    np.testing.assert_array_equal(np.asarray(got_v), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(want_v), np.asarray(want))
    # nested: rows of lanes, as the event loop's pair rows are
    nested = jax.vmap(jax.vmap(_solve_both, in_axes=(0, 0, None, 0)), in_axes=(1, 1, None, 1))
    _, got_n = jax.jit(nested)(c, horizon, depth, screened)
    np.testing.assert_array_equal(np.asarray(got_n).T, np.asarray(want))


def test_more_unscreened_quartics_than_a_chunk_take_several_chunks():
    c, window = pair_quartics(256, seed=2, spread=0.2)
    c = tuple(jnp.asarray(x) for x in c)
    horizon = jnp.asarray(window)
    screened = jnp.zeros(256, bool).at[::7].set(True)  # 219 to solve, 14 chunks of 16
    assert 256 - int(jnp.sum(screened)) > screen.MIN_CHUNK * 2
    want, got = jax.jit(_solve_both)(c, horizon, 0.0, screened)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert np.isinf(np.asarray(got)[::7]).all() and np.isfinite(np.asarray(got)).any()


def _kick(state, k, scale):
    """A branch with real work: ball k's velocity scaled and its spin changed, as a contact
    would change them (pytree in, pytree out)."""
    v, w = state
    return v.at[k].multiply(scale), w.at[k].add((scale * scale - 1.0) * v[k])


def test_where_active_runs_only_the_active_lanes_and_keeps_the_rest():
    from cuegym.physics.compact import where_active

    rng = np.random.default_rng(3)
    lanes = 37  # not a multiple of the chunk: the last chunk is part empty
    v = jnp.asarray(rng.normal(size=(lanes, 16, 3)))
    w = jnp.asarray(rng.normal(size=(lanes, 16, 3)))
    k = jnp.asarray(rng.integers(0, 16, lanes))
    scale = jnp.asarray(rng.uniform(0.5, 1.5, lanes))
    active = jnp.asarray(rng.random(lanes) < 0.6)
    g = where_active(_kick, 8)  # chunks of 5 lanes: several of them
    got = jax.jit(jax.vmap(g))(active, (v, w), k, scale)
    full = jax.jit(jax.vmap(_kick))((v, w), k, scale)
    for x, y, old in zip(got, full, (v, w)):
        want = jnp.where(active[:, None, None], y, old)
        np.testing.assert_array_equal(np.asarray(x), np.asarray(want))
    # alone (a cond), a lane gives the same bytes as in the batch
    for lane in (0, int(jnp.argmax(active)), int(jnp.argmin(active))):
        alone = jax.jit(g)(active[lane], (v[lane], w[lane]), k[lane], scale[lane])
        np.testing.assert_array_equal(np.asarray(alone[0]), np.asarray(got[0][lane]))
        np.testing.assert_array_equal(np.asarray(alone[1]), np.asarray(got[1][lane]))
    # no active lane: nothing changes
    none = jax.jit(jax.vmap(g))(jnp.zeros(lanes, bool), (v, w), k, scale)
    np.testing.assert_array_equal(np.asarray(none[0]), np.asarray(v))
