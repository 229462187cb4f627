"""First-contact times: the earliest root of a quadratic or quartic in a window [0, T].

Between events balls move on parabolas, so the distance to a cushion nose or drop line is a
quadratic in t and the squared distance between two balls, or a ball and a jaw circle, a
quartic. Quartic roots are not taken from Ferrari's closed form (it loses digits near the
double roots of grazing contacts): the window is cut at the derivative's real roots so that
f is monotone on each piece, and a safeguarded Newton iteration polishes the first sign
change in float64, ending on the side where f >= 0, so contacts never penetrate by more than
rounding. A pair already overlapping and approaching returns 0. A pair already in contact
and not approaching, but accelerating into contact (f(0) <= 0, f'(0) >= 0, f'' < 0), never
crosses zero from above: given a ``depth``, its contact is where f falls to -depth instead
(:func:`first_descending_root_quartic`). Elementwise over any batch shape; +inf where there
is no contact in the window.
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp


def iteration_mode() -> str:
    """How the fixed-count Newton iterations below are emitted: ``"loop"`` (one
    ``lax.fori_loop``) or ``"unrolled"`` (a Python loop, every step inlined).

    Both compute the same operations in the same order, so they give the same bytes (the
    golden rollouts and the batch-against-alone tests pass under either). They differ in
    cost. The roots are inlined at every contact test of the event loop, and unrolled they
    are over half of a simulator program (13,000 of 25,000 StableHLO lines for two balls).
    Measured here (XLA:CPU, pyramid-12ft, 2 cores shared, ``cuegym bench --rack full``):
    as a loop, a two-ball ``simulate`` compiles in 29 s instead of 89 s, a Snooker-v0 env
    step in 119 s instead of 225 s, one shot at a time runs 2.4x faster, and 1024 lanes about
    13 % slower. XLA:CPU runs a short loop cheaply; on an accelerator each iteration of a
    loop is a kernel launch, so there the steps stay unrolled. ``CUEGYM_ROOTS_ITERATION``
    overrides the choice; it is read when a program is traced, so set it before the first.
    """
    mode = os.environ.get("CUEGYM_ROOTS_ITERATION", "")
    if mode not in ("", "loop", "unrolled"):
        raise ValueError(f"CUEGYM_ROOTS_ITERATION: {mode!r}; allowed: 'loop', 'unrolled' or unset")
    return mode or ("loop" if jax.default_backend() == "cpu" else "unrolled")


def _iterate(steps: int, body, carry: tuple) -> tuple:
    """``carry = body(carry)`` ``steps`` times (``steps`` >= 1), as :func:`iteration_mode`
    says."""
    if iteration_mode() == "unrolled":
        for _ in range(steps):
            carry = body(carry)
        return carry
    # a loop's carry must keep one shape: the first step broadcasts the start values
    # (scalars, or arrays missing the batch's axes) to the shape every later step has
    carry = tuple(jnp.asarray(x) for x in body(carry))
    return jax.lax.fori_loop(
        0, steps - 1, lambda _, c: tuple(jnp.broadcast_to(y, x.shape) for x, y in zip(c, body(c))), carry)


INF = jnp.inf
_NEWTON_STEPS = 24
# "Already touching and approaching" needs a real approach: d/dt of the gap function below
# -APPROACH_EPS. A pair left overlapping by rounding (1e-18 m) with a rounding-level
# approach speed would otherwise be "hit" again and again at the same instant by an impulse
# too small to change anything.
APPROACH_EPS = 1e-12


def first_descending_root_quadratic(c0, c1, c2, horizon):
    """Earliest t in [0, horizon] with g(t) = c0 + c1 t + c2 t^2 = 0 and g decreasing.

    Used for "distance minus contact distance" of a ball and a line: the contact happens
    when g crosses zero from above. If g(0) <= 0 and g'(0) < 0 (already touching and
    approaching) the answer is 0.
    """
    disc = c1 * c1 - 4.0 * c2 * c0
    sq = jnp.sqrt(jnp.maximum(disc, 0.0))
    # numerically stable pair of roots (Numerical Recipes §5.6)
    q = -0.5 * (c1 + jnp.where(c1 >= 0, sq, -sq))
    safe_q = jnp.where(q == 0, 1.0, q)
    safe_c2 = jnp.where(c2 == 0, 1.0, c2)
    r1 = jnp.where(c2 == 0, jnp.where(c1 != 0, -c0 / jnp.where(c1 == 0, 1.0, c1), INF), q / safe_c2)
    r2 = jnp.where(q == 0, INF, c0 / safe_q)
    r2 = jnp.where(c2 == 0, INF, r2)
    real = (disc >= 0) | (c2 == 0)

    def ok(r):
        slope = c1 + 2.0 * c2 * r
        # a root at the present instant (g(0) = 0 exactly) is a contact only with a real
        # approach, as for ``touching``: a real approach speed or a real acceleration into
        # the line. A ball rolling along a throat wall at rounding-level slope (1e-18 m/s)
        # was otherwise met at once, again and again, by a cushion impulse too small to
        # change it (a fuzzed shot that ran to the event cap).
        now = (r > 0) | (slope < -APPROACH_EPS) | (c2 < -APPROACH_EPS)
        return real & jnp.isfinite(r) & (r >= 0) & (r <= horizon) & (slope < 0) & now

    t = jnp.minimum(jnp.where(ok(r1), r1, INF), jnp.where(ok(r2), r2, INF))
    touching = (c0 <= 0) & (c1 < -APPROACH_EPS)
    return jnp.where(touching, 0.0, t)


def _poly4(c, t):
    c0, c1, c2, c3, c4 = c
    return (((c4 * t + c3) * t + c2) * t + c1) * t + c0


def _dpoly4(c, t):
    _, c1, c2, c3, c4 = c
    return ((4.0 * c4 * t + 3.0 * c3) * t + 2.0 * c2) * t + c1


def _quadratic_roots_in(a, b, c, lo, hi):
    """The two real roots of a t^2 + b t + c, each replaced by ``hi`` when complex or
    outside (lo, hi); sorted. Stable formula, no transcendental functions."""
    disc = b * b - 4.0 * a * c
    sq = jnp.sqrt(jnp.maximum(disc, 0.0))
    q = -0.5 * (b + jnp.where(b >= 0, sq, -sq))
    r1 = jnp.where(a != 0, q / jnp.where(a == 0, 1.0, a), jnp.where(b != 0, -c / jnp.where(b == 0, 1.0, b), hi))
    r2 = jnp.where((a != 0) & (q != 0), c / jnp.where(q == 0, 1.0, q), hi)
    ok = disc >= 0
    r1 = jnp.where(ok & (r1 > lo) & (r1 < hi), r1, hi)
    r2 = jnp.where(ok & (r2 > lo) & (r2 < hi), r2, hi)
    return jnp.minimum(r1, r2), jnp.maximum(r1, r2)


def _cubic(c, t):
    c0, c1, c2, c3 = c
    return ((c3 * t + c2) * t + c1) * t + c0


def _dcubic(c, t):
    _, c1, c2, c3 = c
    return (3.0 * c3 * t + 2.0 * c2) * t + c1


def _monotone_root(c, lo, hi, f, df, steps):
    """Root of a function monotone on [lo, hi] (hi where it has no sign change there),
    by Newton steps kept inside a shrinking bracket (bisection when a step leaves it)."""
    flo, fhi = f(c, lo), f(c, hi)
    has = (flo * fhi <= 0) & (hi > lo)
    rising = fhi > flo
    def body(abt):
        a, b, t = abt
        ft = f(c, t)
        below = jnp.where(rising, ft < 0, ft > 0)
        a = jnp.where(below, t, a)
        b = jnp.where(below, b, t)
        d = df(c, t)
        newton = t - ft / jnp.where(d == 0, 1.0, d)
        t = jnp.where((d != 0) & (newton > a) & (newton < b), newton, 0.5 * (a + b))
        return a, b, t

    a, b, t = _iterate(steps, body, (lo, hi, 0.5 * (lo + hi)))
    return jnp.where(has, t, hi)


def critical_points(c, horizon, steps=12):
    """Up to three critical points of the quartic ``c`` in (0, horizon), sorted, absent ones
    equal to ``horizon``.

    The derivative is a cubic; the roots of its derivative (a quadratic, solved with one
    square root) cut the window into pieces where the cubic is monotone, and each piece holds
    at most one of its roots. Only arithmetic and square roots are used: XLA's vectorised
    transcendental functions (cos, acos, atan, ...) round differently at different batch
    sizes, and the results must not depend on the batch (docs/determinism.md).
    """
    c0, c1, c2, c3, c4 = c
    d = (c1, 2.0 * c2, 3.0 * c3, 4.0 * c4)  # f'
    zero = jnp.zeros_like(horizon)
    s1, s2 = _quadratic_roots_in(12.0 * c4, 6.0 * c3, 2.0 * c2, zero, horizon)
    # the three pieces in one solve (a leading axis of 3): one loop instead of three
    k1, k2, k3 = _monotone_root(d, jnp.stack([zero, s1, s2]), jnp.stack([s1, s2, horizon]), _cubic, _dcubic, steps)
    k1 = jnp.where((k1 > 0) & (k1 < horizon), k1, horizon)
    k2 = jnp.where((k2 > 0) & (k2 < horizon), k2, horizon)
    k3 = jnp.where((k3 > 0) & (k3 < horizon), k3, horizon)
    lo = jnp.minimum(k1, k2)
    hi = jnp.maximum(k1, k2)
    return jnp.minimum(lo, k3), jnp.maximum(lo, jnp.minimum(hi, k3)), jnp.maximum(hi, k3)


def first_descending_root_quartic(c0, c1, c2, c3, c4, horizon, depth=0.0):
    """Earliest t in [0, horizon] where f(t) = sum c_k t^k crosses zero from above.

    ``f`` is a squared distance minus the squared contact distance. Returns 0 when f(0) <= 0
    and f'(0) < 0 (overlapping and approaching), +inf when there is no crossing.

    ``depth`` (broadcastable, >= 0, in the units of f) makes room for a pair in sustained
    contact. A pair that is not approaching (f'(0) >= -1e-12) and does not open a gap worth
    ``depth`` (f stays below ``depth``) before it closes is still in contact: its next
    collision is the first time f falls to -depth (the pair has closed by that depth), not
    the first crossing of zero. That crossing may not exist (a pair touching and accelerating
    into each other goes straight below zero), or comes after a gap of rounding size at an
    approach speed of rounding size, so that its collision changes nothing and recurs at
    once. Where f(0) is already below -depth, the level is a hair (depth / 2^20) below it.
    ``depth`` 0: the plain first crossing of zero, bit for bit.

    Two stages, :func:`quartic_bracket` then :func:`quartic_polish`, so a caller solving
    many quartics can polish only those with a crossing (``screen.first_contacts``).
    """
    level_c0, a, b, found, known = quartic_bracket(c0, c1, c2, c3, c4, horizon, depth)
    return quartic_polish(level_c0, c1, c2, c3, c4, a, b, found, known)


def quartic_bracket(c0, c1, c2, c3, c4, horizon, depth=0.0):
    """The first stage of :func:`first_descending_root_quartic` (same arguments): the piece
    of the window where f falls through the contact level, and the answer where that is
    already known.

    Returns (c0 - level where the pair is still in contact (else c0), lo, hi: the piece
    (0 where none), found: f crosses there, known: the answer where ``found`` is False (0
    for a pair touching and approaching, else +inf)).
    """
    c = (c0, c1, c2, c3, c4)
    horizon = jnp.where(jnp.isfinite(horizon), horizon, 1e3)
    p1, p2, p3 = critical_points(c, horizon)
    knots = (jnp.zeros_like(p1), p1, p2, p3, horizon * jnp.ones_like(p1))
    values = [_poly4(c, k) for k in knots]
    # the level the contact is sought at: 0, or -depth for a pair still in contact
    level = jnp.minimum(-depth, c0) - depth * 2.0**-20
    lo, hi, found, _ = _bracket(knots, values, jnp.zeros_like(p1))
    lo_in, hi_in, found_in, peak = _bracket(knots, values, level)
    # the gap opened before the pair closes by the depth (not over the whole horizon: past
    # that closing the polynomial describes balls passing through each other)
    in_contact = (depth > 0) & (c1 >= -APPROACH_EPS) & (peak < depth)
    lo = jnp.where(in_contact, lo_in, lo)
    hi = jnp.where(in_contact, hi_in, hi)
    found = jnp.where(in_contact, found_in, found)
    touching = (c0 <= 0) & (c1 < -APPROACH_EPS)
    known = jnp.where(touching, 0.0, INF)
    return (jnp.where(in_contact, c0 - level, c0), jnp.where(found, lo, 0.0), jnp.where(found, hi, 0.0),
            found & ~touching, known)


def quartic_polish(c0, c1, c2, c3, c4, a, b, found, known):
    """The second stage of :func:`first_descending_root_quartic`: safeguarded Newton inside
    the piece [``a``, ``b``] where f (``c0`` .. ``c4``, ``c0`` shifted to the level) falls
    through zero (f(a) > 0 >= f(b), f monotone between), where ``found``; ``known`` where
    not (:func:`quartic_bracket`'s results)."""
    c = (c0, c1, c2, c3, c4)

    def body(abt):
        a, b, t = abt
        ft = _poly4(c, t)
        dft = _dpoly4(c, t)
        a = jnp.where(ft > 0, t, a)
        b = jnp.where(ft <= 0, t, b)
        newton = t - ft / jnp.where(dft == 0, -1.0, dft)
        inside = (newton > a) & (newton < b) & (dft != 0)
        t = jnp.where(inside, newton, 0.5 * (a + b))
        return a, b, t

    a, b, t = _iterate(_NEWTON_STEPS, body, (a, b, a))
    # the converged iterate; if it sits a hair past the contact (f < 0), step back by its
    # own Newton correction so the balls end touching, not overlapping
    ft, dft = _poly4(c, t), _dpoly4(c, t)
    back = t - 2.0 * ft / jnp.where(dft == 0, -1.0, dft)
    t_final = jnp.where(ft > 0, t, jnp.clip(back, a, t))
    return jnp.where(found, t_final, known)


def _bracket(knots, values, level):
    """The first piece [knots[k], knots[k + 1]] on which f (monotone there; ``values`` at the
    five ``knots``) falls through ``level``: (lo, hi, found, peak), lo = hi = +inf where none;
    ``peak`` the largest of f over the knots up to that piece (over all of them where none)."""
    lo = jnp.full_like(knots[1], INF)
    hi = jnp.full_like(knots[1], INF)
    found = jnp.zeros(knots[1].shape, dtype=bool)
    top = values[0]
    peak = values[0]
    for k in range(4):
        crossing = (values[k] > level) & (values[k + 1] <= level) & ~found
        lo = jnp.where(crossing, knots[k], lo)
        hi = jnp.where(crossing, knots[k + 1], hi)
        top = jnp.maximum(top, values[k])
        peak = jnp.where(crossing, top, peak)
        found = found | crossing
    return lo, hi, found, jnp.where(found, peak, jnp.maximum(top, values[4]))
