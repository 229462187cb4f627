"""A stroke's parameters in the words a player uses: aim (cut angle, ball fraction), pace
(soft / medium / firm) and tip position (follow / draw / side). Pure NumPy and ``math``.

A coach reads "half ball, medium pace, a touch of draw", not (phi, speed, a, b, theta); this
module turns the physics' shot (conventions of :mod:`cuegym.physics.strike`) into those words.
The aim follows the cue ball's line (the squirt angle included) to the first ball within 2R
and names the nearest ball fraction ``1 - sin(cut)``; the pace names the band of how far the
cue ball would travel on an empty table (thresholds of a table: :func:`pace_bands`); the tip
names follow, draw and side, offsets under :data:`TIP_CENTRE` R reading as none.

The definitions, the fraction table and the pace model: docs/coach.md, "The words".
"""

from __future__ import annotations

import math

import numpy as np

from cuegym.physics import get_table

FRACTIONS = ((1.0, "full ball"), (0.75, "3/4 ball"), (0.5, "1/2 ball"), (0.25, "1/4 ball"))
THIN_BELOW = 0.125  # a fraction under this reads "thin"
PACE_LENGTHS = (1.0, 3.0)  # table lengths the cue ball would travel: soft | medium | firm
TIP_CENTRE = 0.05  # ball radii: smaller offsets read as "centre" / "no side"


def squirt(a: float, spec) -> float:
    """The cue ball's deflection [rad] for side offset ``a`` [R] (counter-clockwise for a > 0),
    the formula of :func:`cuegym.physics.strike.squirt_angle` in NumPy."""
    a = min(max(float(a), -0.99), 0.99)
    root = math.sqrt(1.0 - a * a)
    return math.atan2(2.5 * a * root, 1.0 + spec.ball_mass / spec.cue_endmass + 2.5 * root * root)


def aim(cue_xy, heading: float, xy, on, cue: int, radius: float) -> dict:
    """The ball the straight line of the cue ball meets first and the cut angle.

    Args:
      cue_xy: (2,) the struck ball's centre [m].
      heading: the cue ball's direction [rad] (the cue's ``phi`` plus :func:`squirt`).
      xy: (N, 2) ball centres [m]; on: (N,) bool the balls on the table.
      cue: index of the struck ball (not a target).
      radius: ball radius R [m].

    Returns ``{"ball": index or None, "cut_deg", "fraction", "words", "contact": [x, y]}``:
    ``ball`` None (and the rest None) when the line meets no ball.
    """
    c = np.asarray(cue_xy, float)
    u = np.array([math.cos(heading), math.sin(heading)])
    xy = np.asarray(xy, float)
    best, best_t = None, math.inf
    for j in np.flatnonzero(np.asarray(on, bool)):
        if j == cue:
            continue
        w = xy[j] - c
        along = float(w @ u)
        lateral2 = float(w @ w) - along * along
        reach2 = (2 * radius) ** 2 - lateral2
        if along <= 0 or reach2 < 0:
            continue
        t = along - math.sqrt(reach2)  # cue-ball travel to contact
        if t < best_t:
            best, best_t = int(j), t
    if best is None:
        return {"ball": None, "cut_deg": None, "fraction": None, "words": "no ball on the aim line", "contact": None}
    contact = c + best_t * u
    n = (xy[best] - contact) / (2 * radius)
    # atan2 of the cross and dot products: accurate near a full ball, where acos is not
    cut = math.degrees(math.atan2(abs(float(u[0] * n[1] - u[1] * n[0])), float(n @ u)))
    frac = 1.0 - math.sin(math.radians(cut))
    return {"ball": best, "cut_deg": cut, "fraction": frac, "words": fraction_words(frac), "contact": contact.tolist()}


def fraction_words(fraction: float) -> str:
    """The nearest of full, 3/4, 1/2, 1/4 ball; "thin" below :data:`THIN_BELOW`."""
    if fraction < THIN_BELOW:
        return "thin"
    return min(FRACTIONS, key=lambda f: abs(f[0] - fraction))[1]


def cut_from_fraction(fraction: float) -> float:
    """Degrees: the cut angle of a ball fraction (the inverse of ``1 - sin(cut)``)."""
    return math.degrees(math.asin(1.0 - fraction))


def ball_speed(speed: float, spec) -> float:
    """The cue ball's speed [m/s] off a centre hit at cue speed ``speed`` [m/s]."""
    return 2.0 * speed / (1.0 + spec.ball_mass / spec.cue_mass)


def travel(speed: float, spec) -> float:
    """Metres the cue ball would travel on an empty table after a centre hit at cue speed
    ``speed`` (module docstring)."""
    v0 = ball_speed(speed, spec)
    g = float(get_table(spec.name).gravity)  # the simulation's own g
    return v0 * v0 * (24 / 49) / (2 * spec.mu_slide * g) + (5 / 7 * v0) ** 2 / (2 * spec.mu_roll * g)


def pace_bands(spec) -> tuple[float, float]:
    """Cue speeds [m/s] where soft turns medium and medium turns firm on a table: the speeds
    that send the cue ball :data:`PACE_LENGTHS` table lengths (``travel`` is quadratic)."""
    per = travel(1.0, spec)
    return tuple(math.sqrt(k * spec.length / per) for k in PACE_LENGTHS)


def pace(speed: float, spec) -> dict:
    """``{"speed", "ball_speed", "travel_m", "band"}`` (module docstring)."""
    lo, hi = pace_bands(spec)
    band = "soft" if speed < lo else "medium" if speed < hi else "firm"
    return {"speed": float(speed), "ball_speed": ball_speed(speed, spec), "travel_m": travel(speed, spec), "band": band}


def tip(a: float, b: float, theta: float = 0.0) -> dict:
    """``{"a", "b", "theta_deg", "words"}``: e.g. "draw 0.30 R, right side 0.10 R, cue level"."""
    if b >= TIP_CENTRE:
        vert = f"follow {b:.2f} R"
    elif b <= -TIP_CENTRE:
        vert = f"draw {-b:.2f} R"
    else:
        vert = "centre (stun)"
    if a >= TIP_CENTRE:
        side = f"right side {a:.2f} R"
    elif a <= -TIP_CENTRE:
        side = f"left side {-a:.2f} R"
    else:
        side = "no side"
    deg = math.degrees(theta)
    cue = "cue level" if deg < 0.5 else f"cue raised {deg:.1f} deg"
    return {"a": float(a), "b": float(b), "theta_deg": deg, "words": f"{vert}, {side}, {cue}"}


POCKET_WORDS = {
    "HL": "head left corner", "ML": "middle left", "FL": "foot left corner",
    "FR": "foot right corner", "MR": "middle right", "HR": "head right corner",
}
"""The pockets of :data:`cuegym.physics.POCKETS` in words (head = the house end, y = 0;
left = x = 0)."""
