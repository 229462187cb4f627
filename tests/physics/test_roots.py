"""The contact-time solver against quartics and quadratics built from known roots."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cuegym.physics  # noqa: F401  (float64)
from cuegym.physics import roots
from cuegym.physics.roots import first_descending_root_quadratic

# one compiled program for every scalar call below: called eagerly, the solver's Newton loop
# (a lax.fori_loop on the CPU) would be traced and compiled again at every call
first_descending_root_quartic = jax.jit(roots.first_descending_root_quartic)


def quartic_from_roots(roots, lead=1.0):
    c = np.poly(roots)[::-1] * lead  # c0..c4
    return [jnp.asarray(x) for x in c]


def test_earliest_simple_root_of_random_quartics():
    rng = np.random.default_rng(0)
    for _ in range(500):
        roots = np.sort(rng.uniform(0.01, 5.0, 4))
        lead = rng.uniform(0.01, 10.0)
        c = quartic_from_roots(roots, lead)
        t = float(first_descending_root_quartic(*c, jnp.asarray(10.0)))
        residual = float(np.polyval(np.asarray(c)[::-1], t))
        assert t <= roots[0] + 1e-10, "a contact is never reported late (beyond rounding)"
        assert -1e-12 <= residual < 1e-9 * lead, "the gap left at the reported time is tiny"
        if np.min(np.diff(roots)) > 0.05:  # well separated: Newton converges fully
            assert t == pytest.approx(roots[0], abs=1e-9)


def test_near_double_root_is_resolved_and_a_grazing_double_root_is_not_a_contact():
    # Newton converges only linearly next to a near-double root; what matters physically is
    # that the contact is never reported late (no penetration) and the gap left is tiny
    close = quartic_from_roots([0.5, 0.5 + 1e-6, 2.0, 3.0])
    t = float(first_descending_root_quartic(*close, jnp.asarray(10.0)))
    residual = float(np.polyval(np.asarray(close)[::-1], t))
    assert 0.5 - 1e-4 < t <= 0.5 and 0.0 <= residual < 1e-9
    # touching zero at 0.5 without crossing: either a zero-speed kiss at 0.5 or the crossing at 2
    graze = quartic_from_roots([0.5, 0.5, 2.0, 3.0])
    t = float(first_descending_root_quartic(*graze, jnp.asarray(10.0)))
    assert t == pytest.approx(2.0, abs=1e-9) or 0.5 - 1e-4 < t <= 0.5


def test_window_and_already_overlapping_cases():
    f = quartic_from_roots([1.0, 2.0, 3.0, 4.0])
    assert np.isinf(float(first_descending_root_quartic(*f, jnp.asarray(0.9))))
    # overlapping (f(0) < 0) and approaching (f'(0) < 0): contact now
    overlap = [jnp.asarray(-1e-9), jnp.asarray(-1e-3), jnp.asarray(0.0), jnp.asarray(0.0), jnp.asarray(1.0)]
    assert float(first_descending_root_quartic(*overlap, jnp.asarray(1.0))) == 0.0
    # overlapping by rounding but separating: no contact
    apart = [jnp.asarray(-1e-18), jnp.asarray(1e-3), jnp.asarray(0.0), jnp.asarray(0.0), jnp.asarray(0.0)]
    assert np.isinf(float(first_descending_root_quartic(*apart, jnp.asarray(1.0))))


def test_a_pair_in_contact_collides_at_the_contact_depth():
    """roots.first_descending_root_quartic's ``depth``: a pair touching, not approaching and
    accelerating into contact (f = -t^2) collides when f reaches -depth; one that opens a gap
    worth more than ``depth`` first collides where f crosses zero; ``depth`` 0 keeps the old
    answer (no contact)."""
    z = jnp.asarray(0.0)
    falling = [z, z, jnp.asarray(-1.0), z, z]
    assert np.isinf(float(first_descending_root_quartic(*falling, jnp.asarray(1.0))))
    t = float(first_descending_root_quartic(*falling, jnp.asarray(1.0), jnp.asarray(1e-8)))
    assert t == pytest.approx(1e-4, rel=1e-5) and t * t <= 1e-8 * (1 + 2.0**-19)  # at -1e-8, not past it
    # touching by rounding (1e-18 inside or outside): the same
    for c0 in (-1e-18, 1e-18):
        t = float(first_descending_root_quartic(jnp.asarray(c0), z, jnp.asarray(-1.0), z, z, jnp.asarray(1.0),
                                                jnp.asarray(1e-8)))
        assert t == pytest.approx(1e-4, rel=1e-5)
    # f = 2e-3 t - t^2 opens a gap worth 1e-6 > depth and closes: the crossing of zero at 2e-3,
    # not of -depth at 2.049e-3
    bounce = [z, jnp.asarray(2e-3), jnp.asarray(-1.0), z, z]
    t = float(first_descending_root_quartic(*bounce, jnp.asarray(0.01), jnp.asarray(1e-7)))
    assert 1.999e-3 < t <= 2e-3
    # approaching: at once, as without depth
    assert float(first_descending_root_quartic(z, jnp.asarray(-1e-3), z, z, z, jnp.asarray(1.0), jnp.asarray(1e-8))) == 0


def test_a_pair_in_contact_is_judged_on_its_gap_before_it_closes():
    """Whether a pair in contact opens a gap worth ``depth`` is judged up to where it closes by
    the depth, not over the whole horizon, where the polynomial of two balls passing through
    each other rises again (found by an air ball sliding over a pressing pair, 3.2 mm deep
    before: tests/physics/test_peer_cases.py). f = -1e-8 + 1e-4 t - t^2 + 1e4 t^4 (f(0) at
    -depth, a gap never opened) falls back to -depth at t = 1.0001e-4, and is 1e4 at t = 1."""
    c = [jnp.asarray(x) for x in (-1e-8, 1e-4, -1.0, 0.0, 1e4)]
    t = float(first_descending_root_quartic(*c, jnp.asarray(1.0), jnp.asarray(1e-8)))
    f = -1e-8 + 1e-4 * t - t * t + 1e4 * t**4
    assert t == pytest.approx(1.0001e-4, rel=1e-3)  # the old answer: inf, no contact
    assert f == pytest.approx(-1e-8, rel=1e-3) and f >= -1e-8 * (1 + 2.0**-19)  # at -depth, not past it


def test_quadratic_descending_root():
    # g = (t - 1)(t - 3) = 3 - 4t + t^2: descends through 1, ascends through 3
    assert float(first_descending_root_quadratic(jnp.asarray(3.0), jnp.asarray(-4.0), jnp.asarray(1.0), jnp.asarray(10.0))) == 1.0
    # g = -(t - 1)(t - 3): ascends through 1, descends through 3
    assert float(first_descending_root_quadratic(jnp.asarray(-3.0), jnp.asarray(4.0), jnp.asarray(-1.0), jnp.asarray(10.0))) == pytest.approx(3.0)
    assert np.isinf(float(first_descending_root_quadratic(jnp.asarray(1.0), jnp.asarray(1.0), jnp.asarray(0.0), jnp.asarray(10.0))))


def test_a_line_touched_now_is_met_only_on_a_real_approach():
    """g(0) = 0 exactly: a contact now needs a real approach (slope below -APPROACH_EPS) or a
    real acceleration into the line; at rounding level (the fuzzed ball along a throat wall:
    slope -1.7e-18, curvature +6.9e-18) there is none, and the next crossing is sought."""
    q = lambda c1, c2: float(first_descending_root_quadratic(jnp.asarray(0.0), jnp.asarray(c1), jnp.asarray(c2), jnp.asarray(10.0)))  # noqa: E731
    assert np.isinf(q(-1.734723475976807e-18, 6.938893903907228e-18))
    assert np.isinf(q(-1e-18, 0.0))
    assert q(-1e-3, 0.5) == 0.0  # approaching
    assert q(-1e-18, -0.05) == 0.0  # curving into the line
    assert np.isinf(q(1e-3, 0.5))  # leaving


def test_loop_and_unrolled_newton_steps_give_the_same_bytes(monkeypatch):
    """roots.iteration_mode: the fixed-count Newton steps as one loop or inlined compute the
    same operations in the same order, so the contact times are bit for bit the same (random
    quartics from known roots, near-double roots included)."""
    rng = np.random.default_rng(1)
    r = np.sort(rng.uniform(0.01, 5.0, (256, 4)), 1)
    r[::4, 1] = r[::4, 0] + 1e-7  # near-double roots: Newton's slow case
    c = np.stack([np.poly(x)[::-1] * rng.uniform(0.01, 10.0) for x in r], 1)  # (5, 256)
    times = {}
    for mode in ("loop", "unrolled"):
        monkeypatch.setenv("CUEGYM_ROOTS_ITERATION", mode)
        solve = jax.jit(lambda *cs: roots.first_descending_root_quartic(*cs))  # traced under this mode
        times[mode] = np.asarray(solve(*c, jnp.full(256, 10.0)))
    assert np.isfinite(times["loop"]).all()
    assert times["loop"].tobytes() == times["unrolled"].tobytes()
    monkeypatch.setenv("CUEGYM_ROOTS_ITERATION", "sideways")
    with pytest.raises(ValueError, match="CUEGYM_ROOTS_ITERATION"):
        roots.iteration_mode()
