"""Racks: the starting layouts, and random positions that never overlap.

* Pyramid rack (catalogue RU-GEN-03, RP-04): 15 balls in a triangle of touching balls, apex
  on the rear spot, rows running towards the foot cushion, base parallel to it. Russian
  pyramid fixes the order (RP-04); Americanka and Moscow pyramid leave it open (AMB-27), so
  a seeded shuffle is used there.
* Snooker rack (SN-07, AMB-03): colours on their spots, reds in a 5-row triangle whose apex
  sits behind the pink, as close as possible without touching it.

"Touching" balls are placed a ``gap`` of 1e-7 m apart, far below any measurable distance but
enough that no pair starts overlapping through rounding.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.physics.tables import TableSpec

RUSSIAN_PYRAMID_ORDER = ((4,), (5, 6), (7, 15, 8), (9, 14, 13, 10), (2, 1, 12, 11, 3))  # RP-04
TOUCH_GAP = 1e-7


def triangle(apex, radius, rows, gap=TOUCH_GAP, direction=1.0):
    """Centres of a triangle of touching balls, row by row from the apex ((k, 2) metres).

    ``direction`` +1 builds towards +y (the foot), -1 towards -y. Row k has k + 1 balls,
    centred on the long string through the apex.
    """
    d = 2 * radius + gap
    dy = d * np.sqrt(3) / 2
    pts = []
    for k in range(rows):
        for j in range(k + 1):
            pts.append((apex[0] + (j - k / 2) * d, apex[1] + direction * k * dy))
    return np.array(pts)


def pyramid_rack(spec: TableSpec, order=None, key=None):
    """The 15 object balls' centres, keyed by ball number (1..15).

    ``order``: rows of ball numbers (default: the Russian pyramid order of RP-04); with
    ``key`` (a JAX PRNG key) the numbers are shuffled instead (Americanka, Moscow pyramid).
    """
    apex = spec.spots()["rear"]
    pts = triangle(apex, spec.ball_radius, 5)
    if key is not None:
        numbers = list(np.asarray(jax.random.permutation(key, jnp.arange(1, 16))))
    else:
        numbers = [n for row in (order or RUSSIAN_PYRAMID_ORDER) for n in row]
    return {str(int(n)): tuple(map(float, p)) for n, p in zip(numbers, pts)}


def snooker_rack(spec: TableSpec):
    """Colours on their spots and 15 reds behind the pink, keyed by ball id."""
    spots = spec.spots()
    balls = {c: spots[c] for c in ("yellow", "green", "brown", "blue", "pink", "black")}
    px, py = spots["pink"]
    apex = (px, py + 2 * spec.ball_radius + TOUCH_GAP * 10)
    for k, p in enumerate(triangle(apex, spec.ball_radius, 5)):
        balls[f"red{k + 1}"] = tuple(map(float, p))
    return balls


def random_positions(key, spec: TableSpec, n: int, margin: float = 0.0, max_tries: int = 64):
    """(n, 2) random centres on the bed, no two closer than one diameter plus ``margin``.

    Pure JAX (fixed number of tries per ball, vectorisable); raises nothing: a ball that
    found no free spot after ``max_tries`` draws is reported by the returned mask (n,) bool.
    """
    from cuegym.physics.tables import compile_table

    off = float(compile_table(spec).contact_offset)
    r = spec.ball_radius
    lo = jnp.array([off + 0.02, off + 0.02])
    hi = jnp.array([spec.width - off - 0.02, spec.length - off - 0.02])
    min_d = 2 * r + margin

    def place(carry, k):
        pts, ok, idx = carry
        cand = jax.random.uniform(k, (max_tries, 2), minval=lo, maxval=hi, dtype=jnp.float64)
        d = jnp.sqrt(jnp.sum((cand[:, None] - pts[None]) ** 2, -1))
        free = jnp.all((d >= min_d) | ~ok[None], -1)
        first = jnp.argmax(free)
        found = free[first]
        pts = pts.at[idx].set(jnp.where(found, cand[first], pts[idx]))
        ok = ok.at[idx].set(found)
        return (pts, ok, idx + 1), None

    keys = jax.random.split(key, n)
    init = (jnp.full((n, 2), -1.0), jnp.zeros(n, bool), 0)
    (pts, ok, _), _ = jax.lax.scan(place, init, keys)
    return pts, ok
