"""The fixed shots of the pooltool comparison, played on cuegym's side (docs/physics.md, "Agreement with pooltool").

Every shot is on ``pool-9ft`` in the table frame (docs/physics.md, "Frame"); ball 0 is the
cue ball. :func:`shot_set` builds them from geometry alone: straight pots, cuts at 15-60°
aimed through the ghost-ball point, stun / follow / draw, one-cushion rebounds, two-cushion
paths and a 9-ball break. :func:`play_cuegym` plays one and returns a :class:`Played`, the
simulator-neutral record from which :func:`measure` takes angles, distances, final positions
and pockets; :mod:`cuegym.tools.compare_pooltool` fills the same record from pooltool.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np

from cuegym.physics import get_spec

TABLE = "pool-9ft"
CB_SPEED_MU = 0.2  # the table's mu_slide, for the stun tip height (checked against the spec)


@dataclasses.dataclass(frozen=True)
class Case:
    """One comparison shot: ball centres ``xy`` ((N, 2) m, ball 0 struck), cue heading
    ``phi`` [rad], cue speed [m/s], tip offsets ``a`` (right) and ``b`` (up) [ball radii];
    ``focus`` 'ball' or 'cushion': the first contact whose angles are measured; ``cut`` the
    designed cut angle [deg] and ``pocket`` the aimed pocket id (-1: none)."""

    name: str
    group: str
    xy: tuple
    phi: float
    speed: float
    a: float = 0.0
    b: float = 0.0
    focus: str = "ball"
    cut: float = float("nan")
    pocket: int = -1


def _unit(v):
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


def _angle(v) -> float:
    return math.atan2(float(v[1]), float(v[0]))


def ghost_ball(ob, target, radius):
    """The cue ball's centre at contact for ``ob`` to leave towards ``target`` (no throw)."""
    return np.asarray(ob, float) - 2 * radius * _unit(np.asarray(target, float) - ob)


def cut_shot(ob, target, cut_deg, distance, radius):
    """(cue-ball centre, heading [rad]) for a cut of ``cut_deg`` into ``target``, the cue ball
    ``distance`` [m] before the ghost ball; positive cuts come from the right of the line."""
    g = ghost_ball(ob, target, radius)
    heading = _angle(np.asarray(target, float) - ob) + math.radians(cut_deg)
    cb = g - distance * np.array([math.cos(heading), math.sin(heading)])
    return cb, heading


def ball_speed(cue_speed, b, spec):
    """Cue-ball speed right after a centre-line strike at height ``b`` (strike.py's impulse)."""
    return 2 * cue_speed / (1 + spec.ball_mass / spec.cue_mass + 2.5 * b * b)


def stun_tip(cue_speed, distance, spec, iterations=50):
    """Tip height b (< 0) that brings the cue ball to the object ball with no spin after
    ``distance`` [m] of sliding: the backspin is gone after t = |b| v / (mu g) while the ball
    covers v t - mu g t^2 / 2 (motion.py's sliding model)."""
    mg = spec.mu_slide * 9.81
    b = 0.0
    for _ in range(iterations):
        v = ball_speed(cue_speed, b, spec)
        t = (v - math.sqrt(v * v - 2 * mg * distance)) / mg
        b = -t * mg / v
    return b


def nine_ball_rack(spec, gap=1e-6):
    """The 9-ball diamond (rows 1-2-3-2-1) with its apex on the foot spot, towards the foot."""
    d = 2 * spec.ball_radius + gap
    apex = np.array(spec.spots()["rear"])
    rows = (1, 2, 3, 2, 1)
    pts = []
    for k, n in enumerate(rows):
        for j in range(n):
            pts.append(apex + np.array([(j - (n - 1) / 2) * d, k * d * math.sqrt(3) / 2]))
    return np.array(pts)


def shot_set() -> list[Case]:
    """The fixed comparison shots (pool-9ft)."""
    spec = get_spec(TABLE)
    assert spec.mu_slide == CB_SPEED_MU
    W, L, R = spec.width, spec.length, spec.ball_radius
    fr = np.array([W, L])  # aim point of the FR corner pocket
    cases = []
    ob = np.array([W - 0.4, L - 0.4])
    cases.append(Case("straight pot, corner", "straight pot", (tuple(ob - 0.6 * _unit(fr - ob)), tuple(ob)),
                      _angle(fr - ob), 1.5, cut=0.0, pocket=3))
    ob = np.array([W - 0.35, L / 2])
    cases.append(Case("straight pot, side", "straight pot", ((W - 0.95, L / 2), tuple(ob)), 0.0, 1.5, cut=0.0, pocket=4))
    ob = np.array([0.9, 2.0])
    for cut in (15, 30, 45, 60):
        cb, heading = cut_shot(ob, fr, cut, 0.5, R)
        cases.append(Case(f"cut {cut}°", "cut", (tuple(cb), tuple(ob)), heading, 2.0, cut=float(cut), pocket=3))
    straight = ((W / 2, 0.9), (W / 2, 1.4 + 2 * R))
    b_stun = stun_tip(2.0, 0.5, spec)
    for label, b in (("stun", b_stun), ("follow", 0.4), ("draw", -0.4)):
        cases.append(Case(f"{label}, straight", "spin", straight, math.pi / 2, 2.0, b=b, cut=0.0))
    ob = np.array([W / 2, 1.5])
    cb, heading = cut_shot(ob, ob + (0.0, 1.0), 30, 0.5, R)  # half-ball hit, object ball up the table
    for label, b in (("stun", b_stun), ("follow", 0.4), ("draw", -0.4)):
        cases.append(Case(f"{label}, half-ball", "spin", (tuple(cb), tuple(ob)), heading, 2.0, b=b, cut=30.0))
    hit = np.array([W, 0.75 * L])  # where a ball's path meets the right cushion's nose line
    for speed in (1.0, 3.0):
        for inc in (20, 45, 70):
            u = np.array([math.cos(math.radians(inc)), math.sin(math.radians(inc))])
            start = hit - (R, 0.0) - 0.7 * u
            cases.append(Case(f"rebound {inc}° at {speed:g} m/s", "one cushion", (tuple(start),),
                              _angle(u), speed, focus="cushion", cut=float(inc)))
    for label, a in (("no side", 0.0), ("running side", -0.3), ("check side", 0.3)):
        cases.append(Case(f"two cushions, {label}", "two cushions", ((0.45, 1.45),), math.radians(60), 2.5, a=a,
                          focus="cushion"))
    rack = nine_ball_rack(spec)
    xy = (spec.spots()["front"], *map(tuple, rack))
    cases.append(Case("9-ball break", "break", tuple(map(tuple, xy)), math.pi / 2, 6.0))
    return cases


@dataclasses.dataclass
class Played:
    """A shot as played by one simulator: ``events`` [(t, kind, ball, other, v_ball (2,),
    v_other (2,) or None)] with kind one of 'ball', 'cushion', 'pocket', 'roll', 'other';
    ``final`` (N, 2) resting centres; ``pocket`` (N,) pocket ids (-1: on the table) and
    ``pocket_t`` (N,) [s]; ``positions(times)`` -> (T, N, 2) centres at those times."""

    events: list
    final: np.ndarray
    pocket: np.ndarray
    pocket_t: np.ndarray
    positions: Callable
    wall_s: float = 0.0


def play_cuegym(case: Case, throw: bool = True, cushion: str | None = None) -> Played:
    """Play ``case`` in cuegym, with the cushion model ``cushion`` (None: the table's own)."""
    import time

    from cuegym.physics import at_rest, events, get_table, make_shot, simulate
    from cuegym.physics.simulate import DEFAULT_MAX_EVENTS
    from cuegym.physics.tables import with_cushion
    from cuegym.physics.trace import positions_at

    table = get_table(with_cushion(TABLE, cushion))
    xy = np.asarray(case.xy, float)
    n = max(len(xy), 2)  # one compiled program for all the one- and two-ball shots
    on = np.arange(n) < len(xy)
    xy = np.concatenate([xy, np.full((n - len(xy), 2), -1.0)])
    balls = at_rest(xy, on)
    shot = make_shot(0, case.phi, case.speed, case.a, case.b, 0.0)
    t0 = time.perf_counter()
    final, log, _ = simulate(table, balls, shot, log_capacity=DEFAULT_MAX_EVENTS + 2, throw=throw)
    final.r.block_until_ready()
    wall = time.perf_counter() - t0
    kinds = {events.BALL: "ball", events.CUSHION: "cushion", events.JAW: "cushion", events.POCKET: "pocket",
             events.ROLLING_EV: "roll"}
    evs = []
    pocket, pocket_t = np.full(len(case.xy), -1), np.full(len(case.xy), np.inf)
    for k in range(int(log.count)):
        kind, i, j = kinds.get(int(log.kind[k]), "other"), int(log.ball[k]), int(log.other[k])
        v = np.asarray(log.v[k])
        evs.append((float(log.t[k]), kind, i, j, v[0, :2], v[1, :2] if kind == "ball" else None))
        if kind == "pocket":
            pocket[i], pocket_t[i] = j, float(log.t[k])

    def positions(times):
        return positions_at(table, balls, log, times)[:, : len(case.xy), :2]

    return Played(evs, np.asarray(final.r)[: len(case.xy), :2], pocket, pocket_t, positions, wall)


def _next_heading(p: Played, ball: int, t_event: float):
    """Direction [rad] in which ``ball`` leaves an event at ``t_event``: its velocity when it
    next starts rolling, or the direction of its displacement to its next contact."""
    for t, kind, i, j, v, _ in p.events:
        if t <= t_event or ball not in (i, j if kind == "ball" else -1):
            continue
        if kind == "roll":
            return _angle(v)
        start, end = p.positions(np.array([t_event, t]))[:, ball]
        return _angle(end - start)
    return float("nan")


def measure(case: Case, p: Played, dt: float = 0.002) -> dict:
    """Angles [deg], distances [m], final positions and pockets of one played shot; the cue
    ball's angle right after its focus contact (``cb_angle_now``) and once it leaves it
    (``cb_angle``, :func:`_next_heading`), and when any ball first meets a cushion or jaw."""
    out = {"ob_angle": float("nan"), "cb_angle": float("nan"), "cb_angle_now": float("nan"), "first_t": float("nan")}
    for t, kind, i, j, v, v_other in p.events:
        if i != 0 or kind != case.focus:
            continue
        out["first_t"] = t
        out["cb_angle_now"] = math.degrees(_angle(v))
        if kind == "ball":
            out["ob_angle"] = math.degrees(_angle(v_other))
            out["ob_ball"] = j
        out["cb_angle"] = math.degrees(_next_heading(p, 0, t))
        break
    end = max((e[0] for e in p.events), default=0.0)
    times = np.union1d(np.arange(0.0, end + dt, dt), [e[0] for e in p.events])
    pos = p.positions(times)
    dist = []
    for k in range(pos.shape[1]):
        keep = times < p.pocket_t[k]  # a pocketed ball is moved to its pocket: stop just before
        steps = np.diff(pos[keep, k], axis=0)
        dist.append(float(np.sum(np.linalg.norm(steps, axis=1))))
    cushions = [e[0] for e in p.events if e[1] == "cushion"]
    out.update(final=p.final.tolist(), pocket=p.pocket.tolist(), distance=dist, wall_s=p.wall_s,
               first_cushion_t=min(cushions, default=end))
    return out


def angle_diff(a: float, b: float) -> float:
    """a - b [deg] wrapped into (-180, 180]."""
    return (a - b + 180.0) % 360.0 - 180.0
