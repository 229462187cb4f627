"""Seeded layouts and strokes of the physics fuzzer (``experiments/fuzz_physics.py``).

Every generator is numpy, vectorised over a batch of B layouts of one table with N ball
slots (slot 0 the cue ball; absent balls off the table), and takes a ``numpy`` Generator, so
a batch depends only on the seed it was drawn from. Layout kinds: ``random`` spots,
touching ``cluster`` s (lines, triangles, hexagons at gaps 0 to 10 µm), balls ``frozen`` to
cushion noses (rows along a rail), balls against the ``jaws`` and in the pocket mouths, and
the table's ``rack`` (pyramid, snooker, 8- or 9-ball) with the cue ball in the house or D.
Stroke kinds: ``random``, ``aimed`` (any cut of an object ball), ``break`` (6-10 m/s),
``masse`` (elevation 57-70°), ``jump`` and ``rail`` (parallel to a rail, within 0 to 1e-3 rad).
"""

from __future__ import annotations

import math

import numpy as np

from cuegym.physics.racks import triangle

GAPS = np.array([0.0, 1e-9, 1e-7, 1e-6, 1e-5])  # m between "touching" balls
LAYOUTS = ("random", "cluster", "frozen", "jaws", "rack")
STROKES = ("random", "aimed", "break", "masse", "jump", "rail")
STROKE_WEIGHTS = {  # per layout kind, over STROKES
    "random": (3, 3, 1, 1, 1, 1),
    "cluster": (1, 4, 2, 1, 1, 1),
    "frozen": (1, 2, 1, 1, 1, 4),
    "jaws": (2, 3, 1, 1, 1, 2),
    "rack": (1, 1, 4, 1, 1, 1),
    "break": (0, 0, 1, 0, 0, 0),
}


def _templates():
    """Cluster shapes at unit spacing: (T, 10, 2) centres, (T, 10) mask, (T,) span radius."""
    shapes = [[(0.0, 0.0)]]
    for k in (2, 3, 4, 5, 6):  # lines: Newton's cradles
        shapes.append([(i - (k - 1) / 2, 0.0) for i in range(k)])
    for rows in (2, 3, 4):  # triangles of 3, 6, 10
        shapes.append([tuple(p) for p in triangle((0.0, 0.0), 0.5, rows, gap=0.0)])
    shapes.append([(0.0, 0.0)] + [(math.cos(a), math.sin(a)) for a in np.arange(6) * math.pi / 3])  # hexagon
    shapes.append([(0, 0), (1, 0), (0.5, math.sqrt(3) / 2), (1.5, math.sqrt(3) / 2)])  # diamond
    rel = np.zeros((len(shapes), 10, 2))
    mask = np.zeros((len(shapes), 10), bool)
    for t, s in enumerate(shapes):
        s = np.asarray(s, float)
        s = s - s.mean(0)
        rel[t, : len(s)], mask[t, : len(s)] = s, True
    span = np.max(np.where(mask, np.hypot(rel[..., 0], rel[..., 1]), 0.0), 1)
    return rel, mask, span


TEMPLATES = _templates()


class Geometry:
    """The numbers of one compiled table the generators need (numpy)."""

    def __init__(self, table):
        self.table = table
        self.R = float(table.radius)
        self.off = float(table.contact_offset)
        self.W, self.L = float(table.width), float(table.length)
        self.seg_a, self.seg_b, self.seg_n = (np.asarray(x) for x in (table.seg_a, table.seg_b, table.seg_n))
        self.jaw_c, self.jaw_r = np.asarray(table.jaw_c), np.asarray(table.jaw_r)
        self.drop_q, self.drop_n = np.asarray(table.drop_q), np.asarray(table.drop_n)
        self.spec = table.spec

    def legal(self, xy):
        """(...) bool: centres ``xy`` (..., 2) a ball in play may occupy (within 1e-12 m): the
        rule of ``cuegym.physics.audit.escape_distance`` in numpy (the JAX one is slow here
        on the CPU for 10^5 points)."""
        x, y, off, tol = xy[..., 0], xy[..., 1], self.off, 1e-12
        ok = np.ones(x.shape, bool)
        for a, b, n in zip(self.seg_a, self.seg_b, self.seg_n):
            span = b - a
            frac = ((x - a[0]) * span[0] + (y - a[1]) * span[1]) / (span @ span)
            dist = (x - a[0]) * n[0] + (y - a[1]) * n[1]
            ok &= ~((frac >= 0) & (frac <= 1) & (off - dist > tol))
        for c, r in zip(self.jaw_c, self.jaw_r):
            reach = r + off - tol
            ok &= (x - c[0]) ** 2 + (y - c[1]) ** 2 >= reach * reach
        for q, n in zip(self.drop_q, self.drop_n):
            ok &= (x - q[0]) * n[0] + (y - q[1]) * n[1] <= tol
        return ok


def _place(g: Geometry, cand, want, xy, ok, k, min_gap=-1e-12):
    """Put slot ``k`` of each layout at its first candidate ((B, T, 2)) that is legal and
    clear of the balls placed so far (centres 2R + ``min_gap`` apart); in place."""
    dx = cand[:, :, None, 0] - xy[:, None, :, 0]
    dy = cand[:, :, None, 1] - xy[:, None, :, 1]
    d2 = dx * dx + dy * dy  # (B, T, N)
    clear = np.all((d2 >= (2 * g.R + min_gap) ** 2) | ~ok[:, None], -1) & g.legal(cand)
    first = np.argmax(clear, 1)
    found = clear[np.arange(len(cand)), first] & want
    xy[found, k] = cand[found, first[found]]
    ok[found, k] = True


def _spots(rng, g: Geometry, shape):
    """Uniform centres on the bed, ``shape + (2,)``."""
    lo, m = g.off + 1e-4, 1e-4
    return np.stack([rng.uniform(lo, g.W - g.off - m, shape), rng.uniform(lo, g.L - g.off - m, shape)], -1)


def random_layout(rng, g: Geometry, B, N, tries=24):
    xy, ok = np.zeros((B, N, 2)), np.zeros((B, N), bool)
    n_on = rng.integers(2, N + 1, B)
    for k in range(N):
        _place(g, _spots(rng, g, (B, tries)), k < n_on, xy, ok, k)
    return xy, ok


def cluster_layout(rng, g: Geometry, B, N, groups=6, tries=24):
    """Group 0 is the cue ball; groups 1..3 clusters; the rest single balls."""
    rel, mask, span = TEMPLATES
    tid = np.where(np.arange(groups) == 0, 0, rng.integers(1, len(rel), (B, groups)))
    tid[:, 4:] = np.where(rng.uniform(size=(B, groups - 4)) < 0.5, 0, tid[:, 4:])
    d = 2 * g.R + GAPS[rng.integers(0, len(GAPS), B)]
    ang = rng.uniform(0, 2 * math.pi, (B, groups))
    c, s = np.cos(ang)[..., None], np.sin(ang)[..., None]
    r = rel[tid] * d[:, None, None, None]
    pts = np.stack([c * r[..., 0] - s * r[..., 1], s * r[..., 0] + c * r[..., 1]], -1)  # (B, G, 10, 2)
    ext = span[tid] * d[:, None] + 1e-3  # centre span of each group
    centres, placed = np.zeros((B, groups, 2)), np.zeros((B, groups), bool)
    for k in range(groups):
        cand = _spots(rng, g, (B, tries))
        inside = np.all(g.legal(cand[:, :, None] + pts[:, k][:, None]) | ~mask[tid[:, k]][:, None], -1)
        dist = np.hypot(*(cand[:, :, None] - centres[:, None]).transpose(3, 0, 1, 2))
        clear = np.all((dist > ext[:, k, None, None] + ext[:, None] + 2 * g.R) | ~placed[:, None], -1) & inside
        first = np.argmax(clear, 1)
        found = clear[np.arange(B), first]
        centres[found, k], placed[found, k] = cand[found, first[found]], True
    all_xy = (centres[:, :, None] + pts).reshape(B, -1, 2)
    all_ok = (mask[tid] & placed[..., None]).reshape(B, -1)
    order = np.argsort(~all_ok, axis=1, kind="stable")[:, :N]  # present balls first, in group order
    xy = np.take_along_axis(all_xy, order[..., None], 1)
    ok = np.take_along_axis(all_ok, order, 1)
    return xy, ok


def _on_nose(rng, g: Geometry, shape, gap):
    """Centres frozen to a random cushion nose (``gap`` off it), ``shape + (2,)``, and the
    unit vector along that nose."""
    seg = rng.integers(0, 6, shape)
    a, b, n = g.seg_a[seg], g.seg_b[seg], g.seg_n[seg]
    along = (b - a) / np.linalg.norm(b - a, axis=-1, keepdims=True)
    t = rng.uniform(0, 1, shape)[..., None] * np.linalg.norm(b - a, axis=-1, keepdims=True)
    return a + t * along + n * (g.off + gap[..., None]), along


def frozen_layout(rng, g: Geometry, B, N, tries=24):
    """Balls frozen to cushions, each next to the previous one along its rail with
    probability 1/2; the cue ball frozen with probability 0.6; some balls at random spots."""
    xy, ok = np.zeros((B, N, 2)), np.zeros((B, N), bool)
    gap = GAPS[rng.integers(0, len(GAPS), (B, 1))] * np.ones((1, tries))
    n_frozen = rng.integers(1, min(N, 10), B)
    n_loose = rng.integers(0, 4, B)
    prev_xy, prev_along = np.zeros((B, 2)), np.zeros((B, 2))
    for k in range(N):
        cand, along = _on_nose(rng, g, (B, tries), gap)
        row = (rng.uniform(size=B) < 0.5) & (k > 1)
        sign = np.where(rng.uniform(size=B) < 0.5, 1.0, -1.0)[:, None]
        cand[:, 0] = np.where(row[:, None], prev_xy + sign * prev_along * (2 * g.R + gap[:, 0:1]), cand[:, 0])
        along[:, 0] = np.where(row[:, None], prev_along, along[:, 0])
        loose = (k == 0) & (rng.uniform(size=B) < 0.4) | (k > n_frozen)
        cand = np.where(loose[:, None, None], _spots(rng, g, (B, tries)), cand)
        before = ok[:, k].copy()
        _place(g, cand, k <= n_frozen + n_loose, xy, ok, k)
        got = ok[:, k] & ~before
        pick = np.argmin(np.hypot(*(cand - xy[:, k, None]).transpose(2, 0, 1)), 1)
        prev_xy = np.where(got[:, None], xy[:, k], prev_xy)
        prev_along = np.where(got[:, None], along[np.arange(B), pick], prev_along)
    return xy, ok


def jaws_layout(rng, g: Geometry, B, N, tries=32):
    """Balls against a jaw (gap 0 to 10 µm) or anywhere in a pocket's mouth, cue ball and a
    few others at random spots."""
    xy, ok = np.zeros((B, N, 2)), np.zeros((B, N), bool)
    n_jaw = rng.integers(1, min(N, 8), B)
    n_loose = rng.integers(0, 4, B)
    for k in range(N):
        jaw = rng.integers(0, len(g.jaw_c), (B, tries))
        ang = rng.uniform(0, 2 * math.pi, (B, tries))
        reach = g.jaw_r[jaw] + g.off + GAPS[rng.integers(0, len(GAPS), (B, tries))]
        on_jaw = g.jaw_c[jaw] + reach[..., None] * np.stack([np.cos(ang), np.sin(ang)], -1)
        p = rng.integers(0, len(g.drop_q), (B, tries))
        n = g.drop_n[p]
        mouth = g.drop_q[p] - n * rng.uniform(0, 3 * g.R, (B, tries))[..., None]
        mouth = mouth + np.stack([-n[..., 1], n[..., 0]], -1) * rng.uniform(-2 * g.R, 2 * g.R, (B, tries))[..., None]
        cand = np.where((rng.uniform(size=(B, tries)) < 0.6)[..., None], on_jaw, mouth)
        loose = (k == 0) | (k > n_jaw)
        cand = np.where(loose[:, None, None], _spots(rng, g, (B, tries)), cand)
        _place(g, cand, k <= n_jaw + n_loose, xy, ok, k)
    return xy, ok


def _rack_objects(g: Geometry, which, gap):
    """Object-ball centres of a rack: 'pyramid' (15, apex on the rear spot), 'snooker'
    (6 colours and 15 reds) or 'nine' (the 9-ball diamond)."""
    spec, R = g.spec, g.R
    spots = spec.spots()
    if which == "snooker":
        px, py = spots["pink"]
        colours = [spots[c] for c in ("yellow", "green", "brown", "blue", "pink", "black")]
        reds = triangle((px, py + 2 * R + 10 * max(gap, 1e-8)), R, 5, gap=gap)
        return np.concatenate([np.array(colours), reds])
    tri = triangle(spots["rear"], R, 5, gap=gap)
    if which == "nine":  # rows of 1, 2, 3, 2, 1
        d = 2 * R + gap
        rows = [tri[0:1], tri[1:3], tri[3:6]]
        back = [tri[1:3] + [0, 2 * d * math.sqrt(3) / 2], tri[0:1] + [0, 4 * d * math.sqrt(3) / 2]]
        return np.concatenate(rows + back)
    return tri


def rack_layout(rng, g: Geometry, B, N, tries=32):
    """The table's rack (snooker on tables with a D; on others pyramid, or the 9-ball diamond
    with probability 1/3 on pool), gap between touching balls drawn from :data:`GAPS`, and
    the cue ball in the house (the D on snooker tables)."""
    snooker = g.spec.d_radius > 0
    xy, ok = np.zeros((B, N, 2)), np.zeros((B, N), bool)
    gap_i = rng.integers(0, len(GAPS), B)
    nine = (rng.uniform(size=B) < 1 / 3) & (g.spec.name.startswith("pool"))
    for gi in range(len(GAPS)):
        for is_nine in (False, True):
            sel = (gap_i == gi) & (nine == is_nine)
            which = "snooker" if snooker else ("nine" if is_nine else "pyramid")
            obj = _rack_objects(g, which, float(GAPS[gi]))[: N - 1]
            xy[sel, 1 : 1 + len(obj)] = obj
            ok[sel, 1 : 1 + len(obj)] = True
    head = g.spec.head_line
    if snooker:
        rho = g.spec.d_radius * np.sqrt(rng.uniform(size=(B, tries)))
        ang = rng.uniform(math.pi, 2 * math.pi, (B, tries))
        cand = np.stack([g.W / 2 + rho * np.cos(ang), head + rho * np.sin(ang)], -1)
    else:
        cand = np.stack([rng.uniform(g.off, g.W - g.off, (B, tries)), rng.uniform(g.off, head, (B, tries))], -1)
    _place(g, cand, np.ones(B, bool), xy, ok, 0, min_gap=1e-4)
    return xy, ok


GENERATORS = {"random": random_layout, "cluster": cluster_layout, "frozen": frozen_layout, "jaws": jaws_layout,
              "rack": rack_layout, "break": rack_layout}


def _disk(rng, B, radius):
    r = radius * np.sqrt(rng.uniform(size=B))
    t = rng.uniform(0, 2 * math.pi, B)
    return r * np.cos(t), r * np.sin(t)


def strokes(rng, g: Geometry, xy, ok, kinds):
    """Shot parameters (dict of (B,) arrays: phi [rad], speed [m/s], a, b [radii], theta
    [rad]) on cue ball 0 of layouts ``xy`` (B, N, 2) / ``ok`` (B, N), stroke kind index
    ``kinds`` (B,) into :data:`STROKES`."""
    B, N = ok.shape
    R = g.R
    # aim: a random object ball (else straight up the table), any cut from full to thin
    w = ok[:, 1:] * rng.uniform(size=(B, N - 1))
    target = 1 + np.argmax(w, 1)
    has = ok[np.arange(B), target] & (N > 1)
    d = xy[np.arange(B), target] - xy[:, 0]
    dist = np.maximum(np.hypot(d[:, 0], d[:, 1]), 2 * R)
    heading = np.where(has, np.arctan2(d[:, 1], d[:, 0]), math.pi / 2)
    cut = rng.uniform(-1, 1, B) * np.arcsin(np.minimum(1.0, 2 * R / dist))
    aimed = heading + cut
    a, b = _disk(rng, B, 0.6)
    phi = rng.uniform(0, 2 * math.pi, B)
    speed = rng.uniform(0.05, 8.0, B)
    theta = np.where(rng.uniform(size=B) < 0.7, 0.0, rng.uniform(0, 0.35, B))
    K = {name: kinds == i for i, name in enumerate(STROKES)}
    phi = np.where(K["aimed"] | K["break"] | K["jump"], aimed, phi)
    phi = np.where(K["masse"] & (rng.uniform(size=B) < 0.5), aimed, phi)
    speed = np.where(K["break"], rng.uniform(6.0, 10.0, B), speed)
    a = np.where(K["break"], a * 0.5, a)
    b = np.where(K["break"], b * 0.5, b)
    theta = np.where(K["break"], rng.uniform(0, 0.1, B), theta)
    theta = np.where(K["masse"], rng.uniform(1.0, math.radians(70), B), theta)
    speed = np.where(K["masse"], rng.uniform(0.5, 6.0, B), speed)
    theta = np.where(K["jump"], rng.uniform(0.25, 0.8, B), theta)
    speed = np.where(K["jump"], rng.uniform(3.0, 10.0, B), speed)
    b = np.where(K["jump"], rng.uniform(-0.4, 0.1, B), b)
    tiny = np.array([0.0, 0.0, 1e-12, -1e-12, 1e-9, -1e-9, 1e-6, -1e-6, 1e-3, -1e-3])
    rail = rng.integers(0, 4, B) * (math.pi / 2) + tiny[rng.integers(0, len(tiny), B)]
    phi = np.where(K["rail"], rail, phi)
    theta = np.where(K["rail"], 0.0, theta)
    speed = np.where(K["rail"], rng.uniform(0.2, 8.0, B), speed)
    return {"phi": phi, "speed": speed, "a": a, "b": b, "theta": theta}


def batch(rng, g: Geometry, layout: str, B: int, N: int):
    """B layouts of kind ``layout`` and their strokes: (xy (B, N, 2), ok (B, N), stroke kind
    (B,) int, shot dict as :func:`strokes`)."""
    xy, ok = GENERATORS[layout](rng, g, B, N)
    w = np.asarray(STROKE_WEIGHTS[layout], float)
    kinds = rng.choice(len(STROKES), size=B, p=w / w.sum())
    return xy, ok, kinds, strokes(rng, g, xy, ok, kinds)
