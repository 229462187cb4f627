"""Screened contact solving: a quartic is solved only where a contact is possible.

Most quartics of an event cannot have a root before the balls' next known event (a resting
ball far from the path, a jaw across the table). :func:`clear_of_contact` proves that from the
Bernstein coefficients of the quartic over the window (their minimum bounds the
polynomial from below: R. T. Farouki and V. T. Rajan, "On the numerical condition of
polynomials in Bernstein form", CAGD 4, 1987), and :func:`first_contacts` solves the others
alone, gathered from the whole batch of lanes (its own batching rule), a chunk at a time.
Each solved element runs the same operations as without screening, so the results are the
same bytes. docs/physics.md ("Screened candidates").
"""

from __future__ import annotations

from functools import lru_cache

import jax
import jax.numpy as jnp

from cuegym.physics.compact import apply_to_active, broadcast_lanes, chunk_size
from cuegym.physics.roots import INF, quartic_bracket, quartic_polish

# the bound must clear the rounding of f evaluated anywhere in the window (a few ulps of
# sum |c_k| T^k) by far: a polynomial this close to zero is solved, never screened out
_MARGIN = 1e-9
MIN_CHUNK = 8  # quartics per chunk, at the least


def clear_of_contact(c, window):
    """Bool, elementwise: f(t) = sum c_k t^k ((5,) tuple of arrays) is positive with room
    to spare on [0, ``window``] (``window`` >= 0, finite [s]), so no contact starts there.

    With t = T s, f's five Bernstein coefficients on s in [0, 1] are formed from c_k T^k;
    f is at least their minimum over the window. Conservative: False where unsure, and for
    NaN. (Bounding pieces of the window apart cleared barely more quartics on a full rack,
    at the cost of a bound per piece.)"""
    c0, c1, c2, c3, c4 = c
    w = jnp.maximum(window, 0.0)
    scale = jnp.abs(c0) + w * (jnp.abs(c1) + w * (jnp.abs(c2) + w * (jnp.abs(c3) + w * jnp.abs(c4))))
    a1, a2, a3, a4 = c1 * w, c2 * w * w, c3 * w * w * w, c4 * w * w * w * w
    b1 = c0 + 0.25 * a1
    b2 = c0 + 0.5 * a1 + a2 * (1.0 / 6.0)
    b3 = c0 + 0.75 * a1 + 0.5 * a2 + 0.25 * a3
    b4 = c0 + a1 + a2 + a3 + a4
    low = jnp.minimum(jnp.minimum(c0, b1), jnp.minimum(jnp.minimum(b2, b3), b4))
    return low > _MARGIN * scale


def first_contacts(c, horizon, depth, screened, fraction: int):
    """``roots.first_descending_root_quartic(*c, horizon, depth)`` where ``screened`` is
    False, +inf where it is True (the caller proved, e.g. by :func:`clear_of_contact`, that
    the answer there is +inf or is never used). All arguments broadcast to one shape.

    Only the unscreened elements are solved: gathered (under ``vmap``, from every lane of
    the batch at once) into chunks of 1/``fraction`` of the elements (at least
    :data:`MIN_CHUNK`), one chunk per iteration of a loop that runs as many times as they
    fill, so the program holds one copy of the solver. The solve's two stages
    (``roots.quartic_bracket``, ``roots.quartic_polish``) are gathered apart: only the
    quartics with a crossing are polished.
    """
    args = jnp.broadcast_arrays(*c, horizon, depth, screened)
    return _contacts(fraction)(*args)


@lru_cache(maxsize=None)
def _contacts(fraction: int):
    @jax.custom_batching.custom_vmap
    def contacts(c0, c1, c2, c3, c4, horizon, depth, screened):
        flat = tuple(jnp.ravel(x) for x in (c0, c1, c2, c3, c4, horizon, depth))
        size, zero = flat[0].shape[0], jnp.zeros_like(flat[0])
        # a screened quartic has no crossing and the answer +inf
        none = (flat[0], zero, zero, jnp.zeros(size, bool), jnp.full(size, INF, zero.dtype))
        level_c0, a, b, found, known = apply_to_active(
            quartic_bracket, ~jnp.ravel(screened), flat, none, chunk_size(size, fraction, MIN_CHUNK))
        # about one solved quartic in four crosses: only those are polished, in chunks half
        # the size
        polish = (level_c0, *flat[1:5], a, b, found, known)
        out = apply_to_active(quartic_polish, found, polish, known, chunk_size(size, 2 * fraction, MIN_CHUNK))
        return out.reshape(c0.shape)

    @contacts.def_vmap
    def contacts_lanes(axis_size, in_batched, *args):
        # elementwise: the batch is more elements of the same solve, gathered together
        return contacts(*broadcast_lanes(axis_size, args, tuple(in_batched))), True

    return contacts
