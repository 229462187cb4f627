"""Seeded layouts and random shots of the physics benchmark (docs/guide.md, "Performance").

Layouts: ``full`` is the cue ball (index 0) at a random spot of the house (y below the
head line; inside the D on tables that have one) plus the table's full rack (pyramid rack,
or the snooker rack on tables with a D); ``random`` is 16 balls (22 on snooker tables) at
random non-overlapping spots. Shots: phi uniform in [0, 2 pi), speed uniform in
:data:`SPEED_RANGE` m/s, a and b uniform in [-:data:`TIP_RANGE`, :data:`TIP_RANGE`], theta 0,
always on ball 0.
"""

from __future__ import annotations

import math

import numpy as np

SPEED_RANGE = (0.5, 6.0)
TIP_RANGE = 0.4
BREAK_SPEED = 7.0


def has_d(spec) -> bool:
    """Snooker-type table (it has a D): snooker rack, 22 balls."""
    return spec.d_radius > 0


def full_rack(spec) -> np.ndarray:
    """The object balls of the table's full rack, (K, 2) metres, in rack order."""
    from cuegym.physics.racks import pyramid_rack, snooker_rack

    if has_d(spec):
        rack = snooker_rack(spec)
        return np.array([rack[k] for k in rack], float)
    rack = pyramid_rack(spec)
    return np.array([rack[str(n)] for n in range(1, 16)], float)


def _bed_limits(spec, margin=0.005):
    from cuegym.physics.tables import compile_table

    off = float(compile_table(spec).contact_offset) + margin
    return off, spec.width - off, off, spec.length - off


def cue_in_house(rng: np.random.Generator, spec, others: np.ndarray, max_tries: int = 1000) -> np.ndarray:
    """A random cue-ball spot in the house (y < head line), or inside the D where there is
    one, not touching any ball of ``others`` ((K, 2))."""
    x0, x1, y0, _ = _bed_limits(spec)
    R = spec.ball_radius
    for _ in range(max_tries):
        if has_d(spec):
            rho = spec.d_radius * math.sqrt(rng.uniform())
            ang = rng.uniform(math.pi, 2 * math.pi)  # the half of the circle towards the head
            p = np.array([spec.width / 2 + rho * math.cos(ang), spec.head_line + rho * math.sin(ang)])
        else:
            p = np.array([rng.uniform(x0, x1), rng.uniform(y0, spec.head_line)])
        if not (x0 <= p[0] <= x1 and y0 <= p[1] <= spec.head_line):
            continue
        if others.size == 0 or np.min(np.hypot(*(others - p).T)) >= 2 * R + 1e-4:
            return p
    raise RuntimeError(f"no free cue-ball spot in the house of {spec.name}")


def make_layouts(spec, rack: str, n: int, seed: int = 0):
    """``n`` starting layouts as a batched BallState (arrays (n, N, ...)); cue ball index 0."""
    import jax
    import jax.numpy as jnp

    from cuegym.physics import at_rest
    from cuegym.physics.racks import random_positions

    if rack == "full":
        objects = full_rack(spec)
        rng = np.random.default_rng([seed, 1])
        xy = np.stack([np.concatenate([cue_in_house(rng, spec, objects)[None], objects]) for _ in range(n)])
        return jax.vmap(at_rest)(jnp.asarray(xy))
    if rack == "random":
        n_balls = 22 if has_d(spec) else 16
        base = jax.random.PRNGKey(seed)
        keys = jax.vmap(lambda i: jax.random.fold_in(base, i))(jnp.arange(n))  # prefix-stable
        pts, ok = jax.vmap(lambda k: random_positions(k, spec, n_balls))(keys)
        return jax.vmap(at_rest)(pts, ok)
    raise ValueError(f"unknown rack {rack!r}: full or random")


def random_shots(n: int, seed: int = 0):
    """``n`` random shots on ball 0 as a batched Shot (arrays (n,)); shot k does not
    depend on ``n``, so runs of different sizes share their first shots."""
    import jax.numpy as jnp

    from cuegym.physics import Shot

    # one row per shot, so the first k shots are the same whatever n is
    u = np.random.default_rng([seed, 2]).uniform(size=(n, 4))
    f = lambda x: jnp.asarray(x, jnp.float64)  # noqa: E731
    return Shot(
        cue_ball=jnp.zeros(n, jnp.int32),
        phi=f(2 * math.pi * u[:, 0]),
        speed=f(SPEED_RANGE[0] + (SPEED_RANGE[1] - SPEED_RANGE[0]) * u[:, 1]),
        a=f(TIP_RANGE * (2 * u[:, 2] - 1)),
        b=f(TIP_RANGE * (2 * u[:, 3] - 1)),
        theta=f(np.zeros(n)),
    )


def break_layout(spec, speed: float = BREAK_SPEED):
    """The break of the table's game: (xy (N, 2), Shot) with the cue ball at index 0.

    Pyramid rack: the cue ball in the house, 0.25 m right of the long string and 0.1 m
    short of the house line, struck at the apex ball's centre. Snooker rack: the apex red
    is screened by the pink (they touch on the long string, so no straight path from the D
    reaches it first), so the break-off is played instead: the cue ball in the D, 0.05 m
    short of the baulk line, struck straight up the table to take the corner red of the
    back row thinly (cue-ball path 1.5 R outside that red's centre).
    """
    from cuegym.physics import make_shot

    objects = full_rack(spec)
    R = spec.ball_radius
    if has_d(spec):
        corner = objects[6:][np.lexsort((objects[6:, 1], objects[6:, 0]))[-1]]  # reds follow the 6 colours
        cue = np.array([corner[0] + 1.5 * R, spec.head_line - 0.05])
        phi = math.pi / 2
    else:
        apex = objects[np.argmin(objects[:, 1])]
        cue = np.array([spec.width / 2 + 0.25, spec.head_line - 0.1])
        phi = math.atan2(apex[1] - cue[1], apex[0] - cue[0])
    return np.concatenate([cue[None], objects]), make_shot(0, phi, speed)
