"""Lines of sight for the snooker referee: snookered (SN-46/47), angled (SN-49) and the
effective snookering ball (SN-48), as pure JAX geometry.

Reading (catalogue AMB-36, literal): the cue ball is snookered when, for every ball on, no
straight path of the cue ball (a disc of radius R, cushions not used) reaches any part of
that ball without first touching a ball that is not on. "Angled" is the same test with the
pocket jaws as the only obstacles. With the cue ball in hand the test runs over a fixed
sample of positions in the D (SN-47, AMB-36: "a dense sample").

Exact to :data:`EPS_ANGLE` with static shapes: whether a target is in view comes from the
arcs each obstacle blocks (a sort, :func:`_open`); the effective ball tries each critical
direction (where a path grazes a circle or two hit distances swap, :func:`_reach`). The
geometry, the frame and the D: docs/rules.md, "Lines of sight".
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.physics.tables import compile_table
from cuegym.rules.russian import contact_offset

EPS_ANGLE = 1e-9  # rad: offset from a critical direction (module docstring)
D_RINGS = (0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0)  # sample radii in the D, as fractions of its radius
D_ANGLES = 13  # sample directions on each ring, from the baulk line round to the baulk line
CHUNK = 32  # directions tried together by _reach (most targets have fewer that aim at them)


class Sight(NamedTuple):
    """What the cue ball can see from one position (or from the D). Scalars.

    snookered () bool: no straight path reaches a target without first touching an obstacle
      ball (SN-46; from the D, SN-47: from no sampled position).
    snookered_without () bool: the same with the ``extra`` obstacles removed (the free-ball
      test, SN-63 with AMB-37(a)).
    angled () bool: every straight path at every target meets a pocket jaw first (SN-49);
      False with the cue ball in hand.
    effective () int32: where the cue ball is snookered (not in hand), the obstacle ball
      nearest the cue ball among those that are the first ball met on some path toward a
      target (SN-48); -1 otherwise.
    """

    snookered: jnp.ndarray
    snookered_without: jnp.ndarray
    angled: jnp.ndarray
    effective: jnp.ndarray


@functools.lru_cache(maxsize=None)
def _jaws(spec):
    """(J, 2) jaw centres [m] and (J,) their blocking radii R + r_j [m] (numpy)."""
    with jax.ensure_compile_time_eval():
        table = compile_table(spec)
        return np.asarray(table.jaw_c, np.float64), np.asarray(table.jaw_r, np.float64) + spec.ball_radius


def _free_d_samples(spec, xy, present):
    """The D's sample positions (S, 2) [m] (:func:`d_samples`) and which of them (S,) bool a
    cue ball can take, clear of the balls ``present`` (N,) at ``xy`` (N, 2)."""
    samples = jnp.asarray(d_samples(spec))
    gap2 = jnp.sum((samples[:, None] - xy[None]) ** 2, -1)
    return samples, jnp.all(~present[None] | (gap2 >= (2 * spec.ball_radius) ** 2), -1)


@functools.lru_cache(maxsize=None)
def d_samples(spec) -> np.ndarray:
    """(P, 2) sample positions [m] in the D (SN-47): its centre and rings at fractions
    :data:`D_RINGS` of its radius, :data:`D_ANGLES` directions each from one end of the
    baulk line round to the other (both ends included: the line is part of the D, SN-10)."""
    cx, cy = spec.width / 2, spec.head_line
    pts = [(cx, cy)]
    for f in D_RINGS[1:]:
        rad = f * spec.d_radius * (1 - 1e-9)  # just inside, so a sample is never outside by rounding
        for k in range(D_ANGLES):
            a = math.pi + math.pi * k / (D_ANGLES - 1)
            pts.append((cx + rad * math.cos(a), min(cy, cy + rad * math.sin(a))))
    return np.asarray(pts, np.float64)


def in_d(spec, p):
    """() bool: a centre ``p`` (2,) [m] lies in the D or on its line (SN-09/10): within
    ``d_radius`` of the middle of the baulk line and not beyond it (y <= baulk line)."""
    p = jnp.asarray(p, jnp.float64)
    dx, dy = p[0] - spec.width / 2, p[1] - spec.head_line
    return (dx * dx + dy * dy <= spec.d_radius**2 * (1 + 1e-12)) & (dy <= 0)


def _hits(c, u, centres, rho):
    """Hit distances [m] along unit directions ``u`` (..., 2) from ``c`` (2,) to circles
    (M, 2) of radii ``rho`` (M,): (..., M), +inf where the path misses the circle or the
    circle is behind."""
    w = centres - c  # (M, 2)
    b = u[..., 0:1] * w[:, 0] + u[..., 1:2] * w[:, 1]  # (..., M)
    h2 = jnp.sum(w * w, -1) - b * b
    meets = (h2 <= rho * rho) & (b > 0)
    s = b - jnp.sqrt(jnp.maximum(rho * rho - h2, 0.0))
    return jnp.where(meets, s, jnp.inf)


def _meeting_points(t, rho_t, centres, rho):
    """Where the circle (``t`` (2,), radius ``rho_t``) meets each circle (``centres`` (M, 2),
    radii ``rho`` (M,)): ``meet`` (M,) bool and the two points, each (M, 2) [m] (meaningless
    where ``meet`` is False)."""
    v = centres - t
    d = jnp.sqrt(jnp.sum(v * v, -1))
    safe = jnp.maximum(d, 1e-300)
    meet = (d > 0) & (d <= rho_t + rho) & (d >= jnp.abs(rho_t - rho))
    a = (rho_t**2 - rho**2 + d * d) / (2 * safe)
    h = jnp.sqrt(jnp.maximum(rho_t**2 - a * a, 0.0))
    e = v / safe[:, None]
    p = t + a[:, None] * e
    perp = jnp.stack([-e[:, 1], e[:, 0]], -1)
    return meet, tuple(p + sgn * h[:, None] * perp for sgn in (1.0, -1.0))


def _critical(c, t, rho_t, centres, rho):
    """Critical directions [rad] for one target circle (t, rho_t): its grazing directions,
    each circle's grazing directions and the directions to the points where the target's
    circle meets each circle. Returns (2 + 4 M,)."""

    def graze(x, r):
        w = x - c
        d = jnp.sqrt(jnp.sum(w * w, -1))
        half = jnp.arcsin(jnp.clip(r / jnp.maximum(d, 1e-300), 0.0, 1.0))
        theta = jnp.arctan2(w[..., 1], w[..., 0])
        return theta - half, theta + half

    t_lo, t_hi = graze(t, rho_t)
    k_lo, k_hi = graze(centres, rho)
    meet, points = _meeting_points(t, rho_t, centres, rho)
    th_theta = jnp.arctan2(t[1] - c[1], t[0] - c[0])
    meet_dir = []
    for pt in points:
        q = pt - c
        meet_dir.append(jnp.where(meet, jnp.arctan2(q[:, 1], q[:, 0]), th_theta))
    return jnp.concatenate([jnp.stack([t_lo, t_hi]), k_lo, k_hi, meet_dir[0], meet_dir[1]])


def _reach(spec, c, xy, targets, obstacles, extra):
    """Per target, from one cue-ball centre ``c`` (2,), by trying every critical direction
    ± :data:`EPS_ANGLE` that aims at it: (reach_balls, reach_without_extra, reach_jaws,
    first_blockers), the first three (N,) bool, the last (N,) bool (obstacle balls met first
    on some path toward a target). The directions that aim at the target are packed first
    and tried :data:`CHUNK` at a time, so the cost follows them rather than all 4 M + 2."""
    n = xy.shape[0]
    r2 = 2.0 * spec.ball_radius
    jaw_c, jaw_rho = _jaws(spec)
    centres = jnp.concatenate([xy, jnp.asarray(jaw_c)])  # (M, 2)
    rho = jnp.concatenate([jnp.full((n,), r2), jnp.asarray(jaw_rho)])
    is_ball_obst = jnp.concatenate([obstacles, jnp.zeros(len(jaw_rho), bool)])
    is_extra = jnp.concatenate([obstacles & extra, jnp.zeros(len(jaw_rho), bool)])
    is_jaw = jnp.concatenate([jnp.zeros(n, bool), jnp.ones(len(jaw_rho), bool)])

    def one(t):
        crit = _critical(c, t, r2, centres, rho)
        theta = jnp.concatenate([crit - EPS_ANGLE, crit + EPS_ANGLE])
        u = jnp.stack([jnp.cos(theta), jnp.sin(theta)], -1)  # (K, 2)
        s_t = _hits(c, u, t[None], jnp.asarray([r2]))[:, 0]  # (K,)
        aims = jnp.isfinite(s_t)
        k_all = theta.shape[0]
        slot = jnp.where(aims, jnp.cumsum(aims) - 1, k_all + CHUNK)  # the aiming directions first, in order
        u_aim = jnp.zeros((k_all + CHUNK, 2)).at[slot].set(u, mode="drop")
        s_aim = jnp.full(k_all + CHUNK, jnp.inf).at[slot].set(s_t, mode="drop")
        count = jnp.sum(aims)

        def chunk(carry):
            k, reach, reach_wo, reach_jaw, blockers = carry
            uc = jax.lax.dynamic_slice_in_dim(u_aim, k, CHUNK)
            st = jax.lax.dynamic_slice_in_dim(s_aim, k, CHUNK)
            live = jnp.arange(CHUNK) + k < count
            s = _hits(c, uc, centres, rho)  # (CHUNK, M)
            ahead = s < st[:, None]
            blocked_ball = jnp.any(ahead & is_ball_obst, -1)
            blocked_wo = jnp.any(ahead & is_ball_obst & ~is_extra, -1)
            blocked_jaw = jnp.any(ahead & is_jaw, -1)
            first = jnp.argmin(jnp.where(is_ball_obst, s, jnp.inf), -1)  # (CHUNK,)
            hit = blockers.at[jnp.where(live & blocked_ball, first, centres.shape[0])].set(True, mode="drop")
            return (k + CHUNK, reach | jnp.any(live & ~blocked_ball), reach_wo | jnp.any(live & ~blocked_wo),
                    reach_jaw | jnp.any(live & ~blocked_jaw), hit)

        no = jnp.asarray(False)
        start = (jnp.asarray(0, count.dtype), no, no, no, jnp.zeros(centres.shape[0], bool))
        _, reach, reach_wo, reach_jaw, blockers = jax.lax.while_loop(lambda cr: cr[0] < count, chunk, start)
        return reach, reach_wo, reach_jaw, blockers[:n]

    reach, reach_wo, reach_jaw, blockers = jax.vmap(one)(xy)
    first_blockers = jnp.any(blockers & targets[:, None], 0)
    return reach & targets, reach_wo & targets, reach_jaw & targets, first_blockers


def _hit(c, u, centre, rho):
    """:func:`_hits` element by element: ``u`` (..., 2) against ``centre`` (..., 2) of radius
    ``rho`` (...,), the same formula and rounding. Returns (...,) [m]."""
    w = centre - c
    b = u[..., 0] * w[..., 0] + u[..., 1] * w[..., 1]
    h2 = jnp.sum(w * w, -1) - b * b
    meets = (h2 <= rho * rho) & (b > 0)
    s = b - jnp.sqrt(jnp.maximum(rho * rho - h2, 0.0))
    return jnp.where(meets, s, jnp.inf)


def _wrap(a):
    return a - 2 * jnp.pi * jnp.round(a / (2 * jnp.pi))


def _open(c, t, r2, centres, rho, blocks):
    """Whether a straight path from ``c`` (2,) reaches the target circle (``t`` (2,), radius
    ``r2``) before every circle of a set: (V,) bool, one per row of ``blocks`` (V, M) bool
    over ``centres`` (M, 2) of radii ``rho`` (M,).

    In the target's cone of directions, circle m blocks the directions of its own cone
    where it is hit first; the hit order changes only where the two circles meet, so its
    cone, cut at the two meeting directions, falls into three arcs, each blocked or not
    as its middle direction is. The target is reached when the blocked arcs leave a gap of
    more than :data:`EPS_ANGLE` (a sort and a running maximum): the same answer as trying
    every critical direction (:func:`_reach`), at O(M log M) instead of O(M^2)."""
    w = t - c
    th_t = jnp.arctan2(w[1], w[0])
    half_t = jnp.arcsin(jnp.clip(r2 / jnp.maximum(jnp.sqrt(jnp.sum(w * w)), 1e-300), 0.0, 1.0))
    wm = centres - c
    half_m = jnp.arcsin(jnp.clip(rho / jnp.maximum(jnp.sqrt(jnp.sum(wm * wm, -1)), 1e-300), 0.0, 1.0))
    phi = _wrap(jnp.arctan2(wm[:, 1], wm[:, 0]) - th_t)
    lo = jnp.maximum(phi - half_m, -half_t)
    hi = jnp.minimum(phi + half_m, half_t)
    meet, points = _meeting_points(t, r2, centres, rho)
    cut = []
    for pt in points:
        q = pt - c
        cut.append(jnp.clip(jnp.where(meet, _wrap(jnp.arctan2(q[:, 1], q[:, 0]) - th_t), lo), lo, hi))
    edges = jnp.stack([lo, jnp.minimum(cut[0], cut[1]), jnp.maximum(cut[0], cut[1]), hi], -1)  # (M, 4)
    start, end = edges[:, :3], edges[:, 1:]  # (M, 3) arcs
    mid = th_t + 0.5 * (start + end)
    u = jnp.stack([jnp.cos(mid), jnp.sin(mid)], -1)  # (M, 3, 2)
    first = _hit(c, u, centres[:, None], rho[:, None]) < _hit(c, u, t, r2)
    blocked = ((end > start) & first).ravel()
    order = jnp.argsort(start.ravel())  # one order serves every set of circles
    a0, b0, blocked = start.ravel()[order], end.ravel()[order], blocked[order]

    def gap(mask):
        on = blocked & jnp.repeat(mask, 3)[order]
        reach = jax.lax.cummax(jnp.where(on, b0, -half_t))
        covered = jnp.concatenate([-half_t[None], reach[:-1]])
        return jnp.any(on & (a0 - covered > EPS_ANGLE)) | (half_t - reach[-1] > EPS_ANGLE)

    return jax.vmap(gap)(blocks)


def _open_all(spec, c, xy, targets, obstacles, extra):
    """Per ball, from one cue-ball centre ``c`` (2,): (reach_balls, reach_without_extra,
    reach_jaws), each (N,) bool and False where the ball is not a target (:func:`_open`)."""
    n = xy.shape[0]
    r2 = 2.0 * spec.ball_radius
    jaw_c, jaw_rho = _jaws(spec)
    centres = jnp.concatenate([xy, jnp.asarray(jaw_c)])  # (M, 2)
    rho = jnp.concatenate([jnp.full((n,), r2), jnp.asarray(jaw_rho)])
    no_jaw, jaws = jnp.zeros(len(jaw_rho), bool), jnp.ones(len(jaw_rho), bool)
    blocks = jnp.stack([jnp.concatenate([obstacles, no_jaw]), jnp.concatenate([obstacles & ~extra, no_jaw]),
                        jnp.concatenate([jnp.zeros(n, bool), jaws])])
    seen = jax.vmap(lambda t: _open(c, t, r2, centres, rho, blocks))(xy)  # (N, 3)
    return tuple(seen[:, k] & targets for k in range(3))


def _only_if(need, fn, default):
    """``fn()`` where ``need`` () bool, else ``default``. Under vmap, ``fn`` runs once for the
    whole batch when some entry needs it and not at all otherwise: a loop of at most one
    turn (a ``cond`` would become a select that always runs it)."""
    return jax.lax.while_loop(lambda c: c[0], lambda c: (jnp.asarray(False), fn()), (need, default))[1]


def sight(spec, cue_xy, in_hand, xy, targets, obstacles, extra=None, find_effective=True) -> Sight:
    """What the cue ball sees, from ``cue_xy`` (2,) [m] or, if ``in_hand`` () bool, from the
    D (every sampled position not overlapping an object ball; SN-47).

    Args:
      spec: the table (static).
      cue_xy: (2,) cue-ball centre [m] (ignored when in hand).
      in_hand: () bool.
      xy: (N, 2) ball centres [m].
      targets: (N,) bool, the balls on (SN-46).
      obstacles: (N,) bool, the balls not on that are on the table (never the cue ball).
      extra: (N,) bool or None, obstacles to leave out for ``snookered_without``.
      find_effective: (static) also find the effective snookering ball (:func:`effective_ball`);
        False leaves ``effective`` at -1 for a caller that finds it only where it needs it.

    Returns a :class:`Sight`.
    """
    xy = jnp.asarray(xy, jnp.float64)
    targets = jnp.asarray(targets, bool)
    obstacles = jnp.asarray(obstacles, bool) & ~targets
    extra = jnp.zeros_like(targets) if extra is None else jnp.asarray(extra, bool)
    cue_xy = jnp.asarray(cue_xy, jnp.float64)
    samples, free = _free_d_samples(spec, xy, targets | obstacles)
    free = in_hand & free

    def at(c):
        reach, reach_wo, reach_jaw = _open_all(spec, c, xy, targets, obstacles, extra)
        return jnp.any(reach), jnp.any(reach_wo), jnp.any(reach_jaw)

    # From the cue ball: everything. From the D: only whether some free sample sees a ball
    # on (with and without the extra obstacles), so the samples are tried one at a time and
    # the loop stops at the first that sees one, and at once when the ball is not in hand.
    reach, reach_wo, reach_jaw = at(cue_xy)
    order = jnp.argsort(~free)  # the free samples first
    count = jnp.sum(free)

    def more(carry):
        k, seen, seen_wo = carry
        return (k < count) & ~(seen & seen_wo)

    def next_sample(carry):
        k, seen, seen_wo = carry
        r, r_wo, _ = at(samples[order[k]])
        return k + 1, seen | r, seen_wo | r_wo

    no = jnp.asarray(False)
    _, d_seen, d_seen_wo = jax.lax.while_loop(more, next_sample, (jnp.asarray(0, jnp.int32), no, no))
    snookered_here = ~in_hand & ~reach & jnp.any(targets)
    effective = effective_ball(spec, cue_xy, xy, targets, obstacles, snookered_here) if find_effective else jnp.asarray(-1)
    return Sight(
        snookered=~jnp.where(in_hand, d_seen, reach),
        snookered_without=~jnp.where(in_hand, d_seen_wo, reach_wo),
        angled=~in_hand & ~reach_jaw & jnp.any(targets),
        effective=effective.astype(jnp.int32),
    )


def effective_ball(spec, cue_xy, xy, targets, obstacles, need=True):
    """() int32: the effective snookering ball (SN-48) for a cue ball at ``cue_xy`` (2,) [m]
    that is snookered (the caller knows: :func:`sight`): the obstacle ball nearest the cue
    ball among those that are the first ball met on some path toward a target; -1 when
    there is none or ``need`` () bool is False. It tries every critical direction (the
    costly test), so it runs only where ``need`` holds (under vmap: where some entry's does).
    Arguments as :func:`sight`'s."""
    xy = jnp.asarray(xy, jnp.float64)
    cue_xy = jnp.asarray(cue_xy, jnp.float64)
    targets = jnp.asarray(targets, bool)
    obstacles = jnp.asarray(obstacles, bool) & ~targets
    none = jnp.zeros_like(targets)
    blockers = _only_if(jnp.asarray(need), lambda: _reach(spec, cue_xy, xy, targets, obstacles, none)[3], none)
    d = jnp.sum((xy - cue_xy) ** 2, -1)
    return jnp.where(jnp.any(blockers), jnp.argmin(jnp.where(blockers, d, jnp.inf)), -1).astype(jnp.int32)


def _mirrors(spec):
    """The four lines a cue-ball centre touching a cushion lies on (the nose lines moved in
    by the contact offset), as (axis, coordinate [m]) pairs: head, foot, left, right."""
    off = contact_offset(spec)
    return ((1, off), (1, spec.length - off), (0, off), (0, spec.width - off))


def _bank_open(spec, c, xy, targets, obstacles):
    """() bool: from ``c`` (2,) some one-cushion path reaches a target. Each cushion is
    unfolded: the path to a target's mirror image is straight, and the obstacles are the
    balls not on and their images (the real ones block the first leg, the images the
    second). The cushions are taken as straight lines without pockets (a reading)."""
    r2 = 2.0 * spec.ball_radius
    n = xy.shape[0]
    found = jnp.asarray(False)
    for axis, at in _mirrors(spec):
        image = xy.at[:, axis].set(2 * at - xy[:, axis])
        centres = jnp.concatenate([xy, image])
        rho = jnp.full((2 * n,), r2)
        blocks = jnp.concatenate([obstacles, obstacles])[None]
        seen = jax.vmap(functools.partial(_open, c, r2=r2, centres=centres, rho=rho, blocks=blocks))(image)[:, 0]
        found = found | jnp.any(seen & targets)
    return found


def bank_reachable(spec, cue_xy, in_hand, xy, targets, obstacles, need=True):
    """() bool: the cue ball can reach a ball on off one cushion (the one-cushion part of
    SN-59's «попасть невозможно», with :func:`sight` giving the straight paths), from
    ``cue_xy`` (2,) [m] or, ``in_hand``, from some sampled position in the D clear of the
    balls. Computed only where ``need`` () bool holds (else False). Arguments as
    :func:`sight`'s."""
    xy = jnp.asarray(xy, jnp.float64)
    targets = jnp.asarray(targets, bool)
    obstacles = jnp.asarray(obstacles, bool) & ~targets
    samples, free = _free_d_samples(spec, xy, targets | obstacles)

    def test():
        here = _bank_open(spec, jnp.asarray(cue_xy, jnp.float64), xy, targets, obstacles)
        from_d = jnp.any(free & jax.vmap(lambda p: _bank_open(spec, p, xy, targets, obstacles))(samples))
        return jnp.where(in_hand, from_d, here)

    return _only_if(jnp.asarray(need), test, jnp.asarray(False))
