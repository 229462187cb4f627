"""The numpy rasteriser: the table and its balls as an (H, W, 3) uint8 image.

Discs, convex polygons and thick polylines are filled with an antialiased edge, each pixel's
coverage read from the signed distance of its centre to the shape; no matplotlib or pygame
is needed. The empty table is drawn once per table, width and antialiasing and cached.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from cuegym.envs.render_scene import (
    CUE_WHITE,
    DIGIT,
    OUTLINE_DARKEN,
    PATH_WIDTH_PX,
    RAIL,
    ball_colors,
    checked_scene,
    frame,
    min_px,
    table_shapes,
)

# 3 x 5 bitmap digits for numbering balls (rows top to bottom, '#' set)
_DIGITS = {
    "0": ("###", "#.#", "#.#", "#.#", "###"), "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"), "3": ("###", "..#", ".##", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"), "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"), "7": ("###", "..#", ".#.", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"), "9": ("###", "#.#", "###", "..#", "###"),
}


# ----------------------------------------------------------------------------- rasteriser
# Shapes are given in continuous pixel coordinates (col, row); coverage of a pixel is
# clip(0.5 - signed distance of its centre to the shape, 0, 1) with antialiasing, else the
# centre test alone. Colours are blended into a float image.


def _box(img, x0, x1, y0, y1):
    """Pixel index ranges covering [x0, x1] x [y0, y1], clipped to the image."""
    h, w = img.shape[:2]
    c0, c1 = max(int(math.floor(x0)), 0), min(int(math.ceil(x1)) + 1, w)
    r0, r1 = max(int(math.floor(y0)), 0), min(int(math.ceil(y1)) + 1, h)
    return r0, r1, c0, c1


def _centres(r0, r1, c0, c1):
    yy, xx = np.mgrid[r0:r1, c0:c1]
    return xx + 0.5, yy + 0.5


def _coverage(sd, aa):
    return np.clip(0.5 - sd, 0.0, 1.0) if aa else (sd <= 0).astype(float)


def _blend(img, r0, r1, c0, c1, cov, color):
    if cov.size == 0:
        return
    sub = img[r0:r1, c0:c1]
    sub += cov[..., None] * (np.asarray(color, float) - sub)


def _disc(img, centre, radius, color, aa=True):
    cx, cy = centre
    r0, r1, c0, c1 = _box(img, cx - radius - 1, cx + radius + 1, cy - radius - 1, cy + radius + 1)
    if r0 >= r1 or c0 >= c1:
        return
    x, y = _centres(r0, r1, c0, c1)
    sd = np.hypot(x - cx, y - cy) - radius
    _blend(img, r0, r1, c0, c1, _coverage(sd, aa), color)


def _polygon(img, pts, color, aa=True):
    """A convex polygon (K, 2) in either winding."""
    pts = np.asarray(pts, float)
    area = 0.5 * np.sum(pts[:, 0] * np.roll(pts[:, 1], -1) - np.roll(pts[:, 0], -1) * pts[:, 1])
    if abs(area) < 1e-12:
        return
    if area < 0:
        pts = pts[::-1]
    r0, r1, c0, c1 = _box(img, pts[:, 0].min() - 1, pts[:, 0].max() + 1, pts[:, 1].min() - 1, pts[:, 1].max() + 1)
    if r0 >= r1 or c0 >= c1:
        return
    x, y = _centres(r0, r1, c0, c1)
    sd = np.full(x.shape, -np.inf)
    for a, b in zip(pts, np.roll(pts, -1, 0)):
        e = b - a
        n = np.array([e[1], -e[0]]) / np.hypot(*e)  # outward for counter-clockwise order
        sd = np.maximum(sd, (x - a[0]) * n[0] + (y - a[1]) * n[1])
    _blend(img, r0, r1, c0, c1, _coverage(sd, aa), color)


def _segment_distance(x, y, a, b):
    e = b - a
    ee = float(e @ e)
    if ee == 0.0:
        return np.hypot(x - a[0], y - a[1])
    t = np.clip(((x - a[0]) * e[0] + (y - a[1]) * e[1]) / ee, 0.0, 1.0)
    return np.hypot(x - (a[0] + t * e[0]), y - (a[1] + t * e[1]))


def _polyline(img, pts, thickness, color, aa=True):
    """A polyline (K, 2) ``thickness`` px wide with round joints; one blend for the whole
    line so its own overlaps do not darken it."""
    pts = np.asarray(pts, float)
    if len(pts) == 0:
        return
    half = thickness / 2
    r0, r1, c0, c1 = _box(img, pts[:, 0].min() - half - 1, pts[:, 0].max() + half + 1,
                          pts[:, 1].min() - half - 1, pts[:, 1].max() + half + 1)
    if r0 >= r1 or c0 >= c1:
        return
    cov = np.zeros((r1 - r0, c1 - c0))
    segs = [(pts[0], pts[0])] if len(pts) == 1 else list(zip(pts[:-1], pts[1:]))
    for a, b in segs:
        s0, s1, t0, t1 = _box(img, min(a[0], b[0]) - half - 1, max(a[0], b[0]) + half + 1,
                              min(a[1], b[1]) - half - 1, max(a[1], b[1]) + half + 1)
        if s0 >= s1 or t0 >= t1:
            continue
        x, y = _centres(s0, s1, t0, t1)
        c = _coverage(_segment_distance(x, y, a, b) - half, aa)
        sub = cov[s0 - r0:s1 - r0, t0 - c0:t1 - c0]
        np.maximum(sub, c, out=sub)
    _blend(img, r0, r1, c0, c1, cov, color)


def _thin_polyline(pts, min_step):
    """Drop points closer than ``min_step`` px to the last kept one (the ends are kept)."""
    if len(pts) <= 2:
        return pts
    keep = [0]
    last = pts[0]
    for k in range(1, len(pts) - 1):
        if np.hypot(*(pts[k] - last)) >= min_step:
            keep.append(k)
            last = pts[k]
    keep.append(len(pts) - 1)
    return pts[keep]


@functools.lru_cache(maxsize=16)
def _background(table_name: str, width: int, aa: bool) -> np.ndarray:
    """The empty table (float image), drawn once per table, width and antialiasing."""
    fr = frame(table_name, width)
    P, s = fr.to_pixel, fr.scale
    img = np.empty(fr.shape, float)
    img[:] = RAIL  # the rail polygon covers the frame; this covers a rounded last row
    for kind, cls, col, geo in table_shapes(table_name):
        if kind == "polygon":
            _polygon(img, P(geo), col, aa)
        elif kind == "disc":
            _disc(img, P(geo[0]), max(geo[1] * s, min_px(cls)), col, aa)
        else:
            _polyline(img, P(geo[0]), max(geo[1] * s, min_px(cls)), col, aa)
    return img


def _draw_digits(img, centre, text, px, color):
    """``text`` in the 3 x 5 font, each font pixel ``px`` image pixels, centred."""
    cols = 4 * len(text) - 1
    x0 = centre[0] - cols * px / 2
    y0 = centre[1] - 5 * px / 2
    for k, ch in enumerate(text):
        for r, row in enumerate(_DIGITS[ch]):
            for cidx, bit in enumerate(row):
                if bit == "#":
                    xa = x0 + (4 * k + cidx) * px
                    ya = y0 + r * px
                    _polygon(img, [[xa, ya], [xa + px, ya], [xa + px, ya + px], [xa, ya + px]], color, aa=False)


def draw_table(table_name: str, xy, on, paths=None, width: int = 480, *, ball_ids=None,
               numbers: bool = True, antialias: bool = True) -> np.ndarray:
    """The table with its balls as an RGB image.

    Args:
      table_name: a table of :data:`cuegym.physics.TABLE_SPECS`.
      xy: (N, 2) ball centres [m] in the table frame.
      on: (N,) bool, the balls on the table (the others are not drawn).
      paths: optional list of N polylines (K_i, 2) [m] (or None), drawn in each ball's colour
        under the balls, e.g. from :func:`stroke_paths`.
      width: image width in pixels (64 to 8192); the height follows the table's aspect
        (:func:`frame`).
      ball_ids: optional N ball names for the colours (see :func:`ball_colors`).
      numbers: number the ivory and pool object balls by index when a ball is at least 7 px
        in radius.
      antialias: smooth edges (coverage from the distance to each shape).

    Returns:
      (H, width, 3) uint8, the frame of :func:`frame` (head cushion at the bottom).
    """
    table_name, width, xy, on, paths, fr, spec = checked_scene(table_name, xy, on, paths, width)
    img = _background(table_name, width, bool(antialias)).copy()
    colors, striped = ball_colors(table_name, xy.shape[0], ball_ids)
    rpx = spec.ball_radius * fr.scale
    for i, p in enumerate(paths):
        if p is not None and len(p):
            pts = _thin_polyline(fr.to_pixel(p), 1.0)
            _polyline(img, pts, PATH_WIDTH_PX, colors[i], antialias)
    for i in np.flatnonzero(on):
        centre = fr.to_pixel(xy[i])
        col = colors[i].astype(float)
        _disc(img, centre, rpx, col * OUTLINE_DARKEN, antialias)
        inner = max(rpx - max(1.0, 0.12 * rpx), 0.5)
        if striped[i]:
            _disc(img, centre, inner, CUE_WHITE, antialias)
            band = 0.55 * inner
            _stripe_band(img, centre, inner, band, col, antialias)
        else:
            _disc(img, centre, inner, col, antialias)
        if numbers and spec.d_radius == 0 and i > 0 and rpx >= 7:  # snooker balls carry no numbers
            text = str(i)
            px = max(1, int(rpx // 7))
            if table_name.startswith("pool"):  # pool numbers sit on a white disc
                _disc(img, centre, 0.62 * inner, CUE_WHITE, antialias)
            _draw_digits(img, centre, text, px, DIGIT)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def _stripe_band(img, centre, radius, half_band, color, aa):
    """The coloured band of a striped ball: the disc of ``radius`` intersected with
    |row - centre row| <= half_band."""
    cx, cy = centre
    r0, r1, c0, c1 = _box(img, cx - radius - 1, cx + radius + 1, cy - half_band - 1, cy + half_band + 1)
    if r0 >= r1 or c0 >= c1:
        return
    x, y = _centres(r0, r1, c0, c1)
    sd = np.maximum(np.hypot(x - cx, y - cy) - radius, np.abs(y - cy) - half_band)
    _blend(img, r0, r1, c0, c1, _coverage(sd, aa), color)
