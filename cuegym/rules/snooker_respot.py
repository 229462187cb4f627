"""Re-spotting colours in snooker (SN-38..42, AS-33..36, catalogue reading AMB-41), pure JAX.

Extends the shared :mod:`cuegym.rules.respot` (same frame, same clearances, its line search
``slide``): a colour goes back on its own spot (SN-39); if that is occupied, on the free spot
of the highest-valued colour (SN-40); if every spot is occupied, as close as possible to its
own spot on the top-cushion side, searching along the line through its spot parallel to the
long string, and toward the baulk cushion if the top side has no room (SN-41, AMB-41(c)).
Several colours at once go highest value first (AMB-41(a)); each one placed is an obstacle
for the next. Reds are never re-spotted (SN-38): the caller never asks.

A spot is occupied when a ball placed there would touch another ball (SN-42): a ball on the
table, the cue ball included, closer than 2R + :data:`respot.GAP` (1 mm, "not touching" in
re-spots, AMB-55). A colour placed by the line search keeps the same 1 mm clearance.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.physics.tables import compile_table
from cuegym.rules import respot

COLOUR_NAMES = ("yellow", "green", "brown", "blue", "pink", "black")
FIRST_COLOUR = 16  # ball index of the yellow: cue 0, reds 1..15, colours 16..21 (values 2..7)
OWN, OTHER_SPOT, NEAR_SPOT = 0, 1, 2  # how a colour was re-spotted (SN-39, SN-40, SN-41)


@functools.lru_cache(maxsize=None)
def spots(spec) -> np.ndarray:
    """(6, 2) the colour spots [m], yellow .. black (value 2 .. 7; AMB-03 layout)."""
    s = spec.spots()
    return np.asarray([s[c] for c in COLOUR_NAMES], np.float64)


@functools.lru_cache(maxsize=None)
def _lines(spec):
    """Per colour, the free range (y_min, y_max) [m] of centres on the line through its spot
    parallel to the long string (bed limits less the pocket jaws)."""
    with jax.ensure_compile_time_eval():
        table = compile_table(spec)
        off = float(table.contact_offset)
        jaw_c = np.asarray(table.jaw_c, np.float64)
        jaw_r = np.asarray(table.jaw_r, np.float64)
    return tuple(respot.free_range(off, spec.length - off, x, 1, jaw_c, jaw_r, off) for x, _ in spots(spec))


def respot_colours(spec, xy, on, place, higher_only: bool = False):
    """Put the colours of ``place`` back on the table (SN-39..42, AMB-41).

    Args:
      spec: the table (static).
      xy: (N, 2) float64 centres [m] (N = 22, snooker ball order).
      on: (N,) bool, balls on the table.
      place: (N,) bool, colours to re-spot (their ``xy`` / ``on`` are ignored; reds and the
        cue ball must be False).

      higher_only: American snooker (AS-35, AMB-41(b)): an occupied own spot sends the colour
        only to a free spot of a higher-valued colour (static).

    Returns ``(xy (N, 2), on (N,), how (N,) int32)``: placed balls are on; ``how`` is
    :data:`OWN`, :data:`OTHER_SPOT` or :data:`NEAR_SPOT` for each placed ball, -1 otherwise.
    """
    xy = jnp.asarray(xy, jnp.float64)
    on = jnp.asarray(on, bool) & ~jnp.asarray(place, bool)
    place = jnp.asarray(place, bool)
    n = xy.shape[0]
    sp = jnp.asarray(spots(spec))
    clear = 2.0 * spec.ball_radius + respot.GAP
    how = jnp.full(n, -1, jnp.int32)
    lines = _lines(spec)
    for k in reversed(range(len(COLOUR_NAMES))):  # black first (AMB-41(a))
        i = FIRST_COLOUR + k
        d2 = jnp.sum((sp[:, None] - xy[None]) ** 2, -1)  # (6, N)
        occupied = jnp.any(on[None] & (d2 < clear * clear), -1)  # SN-42
        eligible = ~occupied & ((jnp.arange(6) > k) if higher_only else True)
        best = jnp.max(jnp.where(eligible, jnp.arange(6), -1))  # the highest-valued free spot (SN-40, AS-35)
        x, y0 = float(spots(spec)[k, 0]), float(spots(spec)[k, 1])
        y_min, y_max = lines[k]
        dist = jnp.full((n,), clear)
        y_up = respot.slide(y0, 1.0, x, 1, xy, on, dist, n + 1)  # SN-41: top-cushion side
        y_down = respot.slide(y0, -1.0, x, 1, xy, on, dist, n + 1)
        y = jnp.clip(jnp.where(y_up <= y_max, y_up, y_down), y_min, y_max)
        near = jnp.stack([jnp.float64(x), y])
        own = ~occupied[k]
        pos = jnp.where(own, sp[k], jnp.where(best >= 0, sp[jnp.maximum(best, 0)], near))
        kind = jnp.where(own, OWN, jnp.where(best >= 0, OTHER_SPOT, NEAR_SPOT))
        do = place[i]
        xy = xy.at[i].set(jnp.where(do, pos, xy[i]))
        on = on.at[i].set(on[i] | do)
        how = how.at[i].set(jnp.where(do, kind, -1))
    return xy, on, how
