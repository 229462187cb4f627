"""Drawing a table: a numpy rasteriser for ``rgb_array`` images, SVG, and a window.

Nothing here needs matplotlib or pygame to make an image: :func:`draw_table` fills discs,
convex polygons and thick polylines into a ``(H, W, 3)`` uint8 array with an antialiased
edge (each pixel's coverage is read from the signed distance of its centre to the shape).
Only :class:`Viewer` (``render_mode="human"``) needs matplotlib and a display.

Frame of the picture (:class:`Frame`): portrait, the table's long axis vertical, the **head
cushion (the house / baulk end, y = 0) at the bottom** and the foot cushion at the top; x
grows to the right. A point (x, y) [m] lands at the continuous pixel coordinates

    col = (x + border) * scale,    row = (length + border - y) * scale

where ``scale`` [px/m] = ``width / (table width + 2 border)`` and ``border`` [m] is the band
of cushion and rail drawn around the cushion noses (wide enough for the pocket throats).
Pixel (i, j) covers rows [i, i + 1) and columns [j, j + 1), so the pixel holding a point is
``(floor(row), floor(col))`` (:meth:`Frame.pixel`).

What is drawn, in order: the rail, the cushion rubber, the bed (the rectangle of the cushion
noses), the pockets (each throat between its two walls and a disc at ``pocket_xy``), the
jaws (circles of the compiled table, in the cushion colour, so the gap between them is the
mouth), the house line (baulk line and D on snooker tables) and the spots, the ball paths,
and the balls. Geometry comes from the compiled table (:func:`cuegym.physics.get_table`) and
the figures from its :class:`~cuegym.physics.TableSpec`.

Ball colours (:func:`ball_colors`): ball 0 is the cue ball (white). Pyramid tables: object
balls ivory, numbered by index. Pool: the usual 1-15 colours (9-15 striped). Snooker tables:
by ``ball_ids`` names when given (``"cue"``, ``"yellow"`` ... ``"black"``, ``"red<k>"``), else by
index: 1 yellow, 2 green, 3 brown, 4 blue, 5 pink, 6 black, 7 and up red (the order of
:func:`cuegym.physics.racks.snooker_rack`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import sys
from xml.sax.saxutils import escape

import numpy as np

from cuegym.physics import get_spec, get_table

# ----------------------------------------------------------------------------- colours

RAIL = (96, 56, 30)
CUSHION = (20, 100, 48)
CLOTH = (32, 136, 64)
POCKET = (12, 12, 12)
LINE = (225, 238, 225)
CUE_WHITE = (250, 250, 250)
IVORY = (238, 224, 182)
DIGIT = (40, 30, 20)
OUTLINE_DARKEN = 0.65  # a ball's rim is its colour times this, so pale balls stand out

SNOOKER = {
    "cue": CUE_WHITE,
    "yellow": (246, 214, 0),
    "green": (0, 96, 44),
    "brown": (124, 70, 22),
    "blue": (24, 64, 204),
    "pink": (244, 140, 172),
    "black": (16, 16, 16),
    "red": (204, 22, 22),
}
SNOOKER_ORDER = ("cue", "yellow", "green", "brown", "blue", "pink", "black")
POOL = ((246, 200, 0), (24, 64, 204), (204, 22, 22), (96, 34, 140), (242, 112, 20), (0, 120, 60),
        (120, 20, 30), (16, 16, 16))

# 3 x 5 bitmap digits for numbering balls (rows top to bottom, '#' set)
_DIGITS = {
    "0": ("###", "#.#", "#.#", "#.#", "###"), "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"), "3": ("###", "..#", ".##", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"), "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"), "7": ("###", "..#", ".#.", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"), "9": ("###", "#.#", "###", "..#", "###"),
}

PATH_WIDTH_PX = 2.0  # thickness of a ball's path
LINE_WIDTH_M = 0.003  # house / baulk line and D [m] (drawn at least 1 px wide)
SPOT_RADIUS_M = 0.006  # spots [m] (at least 1.2 px)
CUSHION_DEPTH_M = 0.05  # rubber drawn behind each nose [m]


def _table_name(table_name) -> str:
    if not isinstance(table_name, str):
        raise ValueError(f"table_name: a table name (str), got {type(table_name).__name__}")
    try:
        get_spec(table_name)
    except ValueError as err:
        raise ValueError(f"table_name: {err}") from None
    return table_name


# ----------------------------------------------------------------------------- frame


@dataclasses.dataclass(frozen=True)
class Frame:
    """Where the table lands in an image ``width`` pixels wide (see the module docstring).

    ``scale`` [px/m], ``border`` [m] around the cushion noses, ``shape`` (H, W, 3)."""

    table_name: str
    width: int
    height: int
    scale: float
    border: float
    table_width: float
    table_length: float

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.height, self.width, 3)

    def to_pixel(self, xy) -> np.ndarray:
        """(..., 2) continuous (col, row) pixel coordinates of table points ``xy`` (..., 2) [m]."""
        xy = np.asarray(xy, float)
        col = (xy[..., 0] + self.border) * self.scale
        row = (self.table_length + self.border - xy[..., 1]) * self.scale
        return np.stack([col, row], -1)

    def pixel(self, xy) -> np.ndarray:
        """(..., 2) int (row, col) of the pixel holding each point of ``xy`` (..., 2) [m]."""
        p = np.floor(self.to_pixel(xy)).astype(int)
        return np.stack([p[..., 1], p[..., 0]], -1)


def _border(table_name: str) -> float:
    """Metres of cushion and rail drawn outside the nose rectangle: enough for every throat
    wall and pocket disc, plus 2.5 cm of rail."""
    t = get_table(table_name)
    spec = get_spec(table_name)
    w, length = spec.width, spec.length
    pts = np.concatenate([np.asarray(t.seg_a), np.asarray(t.seg_b)])
    reach = [CUSHION_DEPTH_M]
    reach.append(float(np.max(np.maximum.reduce([-pts[:, 0], pts[:, 0] - w, -pts[:, 1], pts[:, 1] - length]))))
    pxy = np.asarray(t.pocket_xy)
    rp = _pocket_radius(spec)
    reach.append(float(np.max(np.maximum.reduce([-pxy[:, 0], pxy[:, 0] - w, -pxy[:, 1], pxy[:, 1] - length]) + rp.max())))
    return max(reach) + 0.025


def _pocket_radius(spec) -> np.ndarray:
    """(6,) radius [m] of the disc drawn at each pocket_xy: half its mouth."""
    return np.array([spec.corner_mouth, spec.middle_mouth, spec.corner_mouth] * 2) / 2  # HL ML FL FR MR HR


@functools.lru_cache(maxsize=64)
def frame(table_name: str, width: int = 480) -> Frame:
    """The :class:`Frame` of ``table_name`` drawn ``width`` pixels wide."""
    _table_name(table_name)
    width = _check_width(width)
    spec = get_spec(table_name)
    b = _border(table_name)
    scale = width / (spec.width + 2 * b)
    height = int(round((spec.length + 2 * b) * scale))
    return Frame(table_name, width, height, scale, b, spec.width, spec.length)


def _check_width(width) -> int:
    if isinstance(width, bool) or not isinstance(width, (int, np.integer)) or not 64 <= int(width) <= 8192:
        raise ValueError(f"width: an integer number of pixels in [64, 8192], got {width!r}")
    return int(width)


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


# ----------------------------------------------------------------------------- table parts


def ball_colors(table_name: str, n: int, ball_ids=None) -> np.ndarray:
    """(n, 3) uint8 colour of each ball (see the module docstring), and whether each is
    striped: returns (colors (n, 3) uint8, striped (n,) bool)."""
    _table_name(table_name)
    spec = get_spec(table_name)
    cols = np.zeros((n, 3), np.uint8)
    striped = np.zeros(n, bool)
    if ball_ids is not None and len(ball_ids) != n:
        raise ValueError(f"ball_ids: one name per ball, {n} expected, got {len(ball_ids)}")
    for i in range(n):
        name = str(ball_ids[i]) if ball_ids is not None else None
        if spec.d_radius > 0:  # snooker tables
            key = name if name is not None else (SNOOKER_ORDER[i] if i < len(SNOOKER_ORDER) else "red")
            key = "red" if key.startswith("red") else key
            if key not in SNOOKER:
                raise ValueError(f"ball_ids[{i}]: {name!r} is not a snooker ball ({', '.join(SNOOKER)}, red<k>)")
            cols[i] = SNOOKER[key]
        elif table_name.startswith("pool"):
            num = i if name is None else (0 if name == "cue" else int(name))
            cols[i] = CUE_WHITE if num == 0 else POOL[(num - 1) % 8]
            striped[i] = num > 8
        else:
            cols[i] = CUE_WHITE if (name == "cue" or (name is None and i == 0)) else IVORY
    return cols, striped


@functools.lru_cache(maxsize=16)
def table_shapes(table_name: str) -> tuple:
    """The empty table as shapes in table coordinates [m], in drawing order: tuples
    ``(kind, cls, colour, geometry)`` with kind ``"polygon"`` (points (K, 2), convex),
    ``"disc"`` (centre (2,), radius), ``"line"`` (points (K, 2), width [m]). Classes: rail,
    cushion (a rubber strip behind each nose, and the facing from each nose end to its
    throat wall), bed, throat, pocket, jaw, head-line, d, spot."""
    spec = get_spec(table_name)
    t = get_table(table_name)
    w, length, c = spec.width, spec.length, CUSHION_DEPTH_M
    b = _border(table_name)
    shapes = [("polygon", "rail", RAIL, np.array([[-b, -b], [w + b, -b], [w + b, length + b], [-b, length + b]]))]
    seg_a, seg_b, seg_n = np.asarray(t.seg_a), np.asarray(t.seg_b), np.asarray(t.seg_n)
    seg_cushion, seg_pocket = np.asarray(t.seg_cushion), np.asarray(t.seg_pocket)
    noses = np.flatnonzero(seg_cushion >= 0)
    for k in noses:
        a, e, n = seg_a[k], seg_b[k], seg_n[k]
        shapes.append(("polygon", "cushion", CUSHION, np.array([a, e, e - n * c, a - n * c])))
    ends = [(seg_a[k], seg_n[k]) for k in noses] + [(seg_b[k], seg_n[k]) for k in noses]
    for k in np.flatnonzero(seg_pocket >= 0):
        # the cushion's cut face: from the nose end nearest this throat wall, round the jaw,
        # down the wall to the depth of the rubber strip
        wa = seg_a[k]
        axis = (seg_b[k] - wa) / np.hypot(*(seg_b[k] - wa))
        e, n = min(ends, key=lambda en: float(np.hypot(*(en[0] - wa))))
        behind = -float((wa - e) @ n)
        tt = (c - behind) / float(axis @ -n)
        shapes.append(("polygon", "cushion", CUSHION, np.array([e, wa, wa + tt * axis, e - n * c])))
    shapes.append(("polygon", "bed", CLOTH, np.array([[0, 0], [w, 0], [w, length], [0, length]], float)))
    rp = _pocket_radius(spec)
    for p in range(6):
        walls = np.flatnonzero(seg_pocket == p)
        a1, b1, a2, b2 = seg_a[walls[0]], seg_b[walls[0]], seg_a[walls[1]], seg_b[walls[1]]
        # the mouth: bed from the two nose ends to where the throat walls start
        e1 = min(ends, key=lambda en: float(np.hypot(*(en[0] - a1))))[0]
        e2 = min(ends, key=lambda en: float(np.hypot(*(en[0] - a2))))[0]
        shapes.append(("polygon", "mouth", CLOTH, np.array([e1, a1, a2, e2])))
        shapes.append(("polygon", "throat", POCKET, np.array([a1, b1, b2, a2])))
        shapes.append(("disc", "pocket", POCKET, (np.asarray(t.pocket_xy)[p], float(rp[p]))))
    for centre, radius in zip(np.asarray(t.jaw_c), np.asarray(t.jaw_r)):
        shapes.append(("disc", "jaw", CUSHION, (centre, float(radius))))
    shapes.append(("line", "head-line", LINE, (np.array([[0.0, spec.head_line], [w, spec.head_line]]), LINE_WIDTH_M)))
    if spec.d_radius > 0:  # the D: a semicircle on the baulk side of the baulk line
        ang = np.linspace(np.pi, 2 * np.pi, 97)
        arc = np.stack([w / 2 + spec.d_radius * np.cos(ang), spec.head_line + spec.d_radius * np.sin(ang)], -1)
        shapes.append(("line", "d", LINE, (arc, LINE_WIDTH_M)))
    for xy in spec.spots().values():
        shapes.append(("disc", "spot", LINE, (np.asarray(xy, float), SPOT_RADIUS_M)))
    return tuple(shapes)


def _min_px(cls):
    """Thin markings stay visible at any width: at least 1 px lines, 1.2 px spots."""
    return {"head-line": 1.0, "d": 1.0, "spot": 1.2}.get(cls, 0.0)


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
            _disc(img, P(geo[0]), max(geo[1] * s, _min_px(cls)), col, aa)
        else:
            _polyline(img, P(geo[0]), max(geo[1] * s, _min_px(cls)), col, aa)
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


# ----------------------------------------------------------------------------- validation


def _check_layout(xy, on):
    xy = np.asarray(xy, float) if not isinstance(xy, np.ndarray) else xy.astype(float)
    if xy.ndim != 2 or xy.shape[1] != 2:
        raise ValueError(f"xy: ball centres of shape (N, 2) in metres, got shape {xy.shape}")
    if not np.all(np.isfinite(xy)):
        raise ValueError("xy: NaN or inf in the ball centres")
    on = np.asarray(on)
    if on.shape != (xy.shape[0],):
        raise ValueError(f"on: one flag per ball, shape ({xy.shape[0]},) expected, got {on.shape}")
    # booleans, or numbers 0 / 1 such as the observation's on-table column
    if on.dtype.kind not in "biuf" or (on.dtype.kind != "b" and not np.all((on == 0) | (on == 1))):
        raise ValueError(f"on: booleans (or 0 / 1) marking the balls on the table, got {on.tolist()}")
    return xy, on.astype(bool)


def _check_paths(paths, n):
    if paths is None:
        return [None] * n
    if len(paths) != n:
        raise ValueError(f"paths: one (K, 2) polyline per ball, {n} expected, got {len(paths)}")
    out = []
    for i, p in enumerate(paths):
        if p is None:
            out.append(None)
            continue
        p = np.asarray(p, float)
        if p.ndim != 2 or p.shape[1] != 2:
            raise ValueError(f"paths[{i}]: shape (K, 2) in metres expected, got {p.shape}")
        if not np.all(np.isfinite(p)):
            raise ValueError(f"paths[{i}]: NaN or inf in the path")
        out.append(p)
    return out


# ----------------------------------------------------------------------------- public


def _checked_scene(table_name, xy, on, paths, width):
    """The checked inputs of a drawing: (table name, width [px], xy (N, 2) [m], on (N,),
    paths, its :class:`Frame`, the table spec); ValueError naming a bad field."""
    table_name = _table_name(table_name)
    width = _check_width(width)
    xy, on = _check_layout(xy, on)
    paths = _check_paths(paths, xy.shape[0])
    return table_name, width, xy, on, paths, frame(table_name, width), get_spec(table_name)


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
    table_name, width, xy, on, paths, fr, spec = _checked_scene(table_name, xy, on, paths, width)
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


# ----------------------------------------------------------------------------- paths


def _check_shot(shot6, n, on):
    from cuegym.physics.strike import SHOT_LIMITS

    s = np.asarray(shot6, float)
    if s.shape != (6,):
        raise ValueError(f"shot6: (cue_ball, phi, speed, a, b, theta), shape (6,) expected, got {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError(f"shot6: NaN or inf in {s.tolist()}")
    cue = int(s[0])
    if cue != s[0] or not 0 <= cue < n:
        raise ValueError(f"shot6[0] (cue_ball): an integer ball index in [0, {n - 1}], got {s[0]}")
    if not on[cue]:
        raise ValueError(f"shot6[0] (cue_ball): ball {cue} is not on the table")
    for k, name in enumerate(("phi", "speed", "a", "b", "theta"), start=1):
        lo, hi = (float(v) for v in SHOT_LIMITS[name])
        if not lo <= s[k] <= hi:
            raise ValueError(f"shot6[{k}] ({name}): in [{lo:g}, {hi:g}], got {s[k]}")
    return cue, s


def stroke_paths(table_name: str, xy_before, on_before, shot6, dt: float = 1 / 120,
                 max_events: int | None = None) -> list[np.ndarray]:
    """Each ball's path during a stroke, re-simulated.

    Args:
      table_name: a table name.
      xy_before: (N, 2) ball centres [m] before the stroke (a ball in hand already placed).
      on_before: (N,) bool, balls on the table before the stroke.
      shot6: (6,) cue_ball, phi [rad], speed [m/s], a, b [ball radii], theta [rad] — the shot
        as struck (after any execution noise), so that the paths are the stroke's own.
      dt: time step [s] between samples (every event time is sampled too, so cushion and
        ball contacts are exact corners).
      max_events: event cap (default the simulator's).

    Returns:
      N arrays (K_i, 2) [m]: ball i's centre from the strike until it rests, drops into a
      pocket or leaves the table; a ball that never moves (or is off the table) has one
      point (its position; for an absent ball, where ``xy_before`` puts it).

    Deterministic. The stroke runs through :func:`cuegym.physics.simulate` with its default
    log capacity (one compiled program per table and ball count, shared with every other
    caller); only a stroke with more events than that log holds is run again with room for
    all of them.
    """
    from cuegym.physics import at_rest, make_shot, simulate
    from cuegym.physics import events as ev
    from cuegym.physics.simulate import DEFAULT_MAX_EVENTS
    from cuegym.physics.trace import positions_at

    table_name = _table_name(table_name)
    xy, on = _check_layout(xy_before, on_before)
    n = xy.shape[0]
    cue, s = _check_shot(shot6, n, on)
    if not (isinstance(dt, (int, float)) and math.isfinite(dt) and 1e-4 <= dt <= 1.0):
        raise ValueError(f"dt: a sampling step in [1e-4, 1] seconds, got {dt!r}")
    max_events = DEFAULT_MAX_EVENTS if max_events is None else int(max_events)
    table = get_table(table_name)
    balls = at_rest(xy, on)
    shot = make_shot(cue, s[1], s[2], s[3], s[4], s[5])
    final, log, _ = simulate(table, balls, shot, max_events=max_events)
    if bool(log.overflow):  # the strike, a take-off and every event of the loop
        final, log, _ = simulate(table, balls, shot, max_events=max_events, log_capacity=max_events + 2)
    count = int(log.count)
    t_ev = np.asarray(log.t)[:count]
    end = float(t_ev[-1]) if count else 0.0
    times = np.unique(np.concatenate([np.arange(0.0, end, dt), t_ev, [end]]))
    pos = positions_at(table, balls, log, times)[:, :, :2]  # (T, N, 2)
    # a ball's path stops at its pocket or off-table event
    stop_t = np.full(n, np.inf)
    kinds, who = np.asarray(log.kind)[:count], np.asarray(log.ball)[:count]
    for k in range(count):
        if kinds[k] in (ev.POCKET, ev.OFF_TABLE_EV) and not np.isfinite(stop_t[who[k]]):
            stop_t[who[k]] = t_ev[k]
    out = []
    for i in range(n):
        if not on[i]:
            out.append(xy[i][None].copy())
            continue
        p = pos[times <= stop_t[i], i]
        step = np.concatenate([[True], np.any(p[1:] != p[:-1], -1)])
        out.append(p[step])
    return out


# ----------------------------------------------------------------------------- SVG


def to_svg(table_name: str, xy, on, paths=None, width: int = 480, *, ball_ids=None) -> str:
    """The same drawing as :func:`draw_table` as an SVG document (a str), in the same pixel
    frame (``viewBox`` 0 0 W H of :func:`frame`): vector shapes for print or the web.

    Balls are ``<circle class="ball" data-ball="i">``, paths ``<polyline class="path"
    data-ball="i">``, pockets ``<circle class="pocket">``."""
    table_name, width, xy, on, paths, fr, spec = _checked_scene(table_name, xy, on, paths, width)
    P = fr.to_pixel
    s = fr.scale
    rgb = lambda c: "rgb({},{},{})".format(*(int(v) for v in c))  # noqa: E731

    def poly(pts, fill, cls):
        pts = " ".join(f"{x:.2f},{y:.2f}" for x, y in P(pts))
        return f'<polygon class="{cls}" points="{pts}" fill="{rgb(fill)}"/>'

    def circle(c, r, fill, cls, extra=""):
        x, y = P(c)
        return f'<circle class="{cls}"{extra} cx="{x:.2f}" cy="{y:.2f}" r="{r:.2f}" fill="{rgb(fill)}"/>'

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{fr.width}" height="{fr.height}" '
           f'viewBox="0 0 {fr.width} {fr.height}">',
           f"<title>{escape(table_name)}</title>"]
    for kind, cls, col, geo in table_shapes(table_name):
        if kind == "polygon":
            out.append(poly(geo, col, cls))
        elif kind == "disc":
            out.append(circle(geo[0], max(geo[1] * s, _min_px(cls)), col, cls))
        else:
            pts = " ".join(f"{x:.2f},{y:.2f}" for x, y in P(geo[0]))
            out.append(f'<polyline class="{cls}" points="{pts}" fill="none" stroke="{rgb(col)}" '
                       f'stroke-width="{max(geo[1] * s, _min_px(cls)):.2f}"/>')
    colors, striped = ball_colors(table_name, xy.shape[0], ball_ids)
    for i, p in enumerate(paths):
        if p is not None and len(p):
            pts = " ".join(f"{x:.2f},{y:.2f}" for x, y in P(p))
            out.append(f'<polyline class="path" data-ball="{i}" points="{pts}" fill="none" stroke="{rgb(colors[i])}" '
                       f'stroke-width="{PATH_WIDTH_PX}" stroke-linejoin="round" stroke-linecap="round"/>')
    rpx = spec.ball_radius * s
    for i in np.flatnonzero(on):
        x, y = P(xy[i])
        stroke = rgb(colors[i].astype(float) * OUTLINE_DARKEN)
        fill = rgb(CUE_WHITE) if striped[i] else rgb(colors[i])
        out.append(f'<circle class="ball" data-ball="{i}" cx="{x:.2f}" cy="{y:.2f}" r="{rpx:.2f}" fill="{fill}" '
                   f'stroke="{stroke}" stroke-width="{max(1.0, 0.12 * rpx):.2f}"/>')
        if spec.d_radius == 0 and i > 0:
            out.append(f'<text x="{x:.2f}" y="{y + 0.35 * rpx:.2f}" font-size="{rpx:.2f}" text-anchor="middle" '
                       f'font-family="sans-serif" fill="{rgb(DIGIT)}">{i}</text>')
    out.append("</svg>")
    return "\n".join(out)


# ----------------------------------------------------------------------------- window


def has_display() -> bool:
    if sys.platform.startswith("linux") or "bsd" in sys.platform:
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True  # macOS and Windows always have a window system


class Viewer:
    """A window showing rendered frames (``render_mode="human"``), through matplotlib.

    ``show(image)`` opens the window on first use and updates it after; ``close()`` closes
    it. Raises RuntimeError when there is no display (no ``DISPLAY`` / ``WAYLAND_DISPLAY``
    on Linux), when matplotlib is not installed (``pip install 'cuegym[render]'``), or when
    matplotlib has no interactive backend (install a GUI toolkit such as tkinter or Qt)."""

    def __init__(self, title: str = "cuegym"):
        self.title = title
        self._plt = None
        self._fig = None
        self._im = None

    def _start(self):
        if not has_display():
            raise RuntimeError("render_mode='human' needs a display: no DISPLAY or WAYLAND_DISPLAY is set "
                               "(use render_mode='rgb_array' on a headless machine)")
        try:
            import matplotlib
            import matplotlib.pyplot as plt
        except ImportError:
            raise RuntimeError("render_mode='human' needs matplotlib: pip install 'cuegym[render]'") from None
        if matplotlib.get_backend().lower() in ("agg", "pdf", "ps", "svg", "cairo", "template"):
            raise RuntimeError(f"render_mode='human' needs an interactive matplotlib backend, found "
                               f"{matplotlib.get_backend()!r}: install a GUI toolkit (tkinter, PyQt)")
        self._plt = plt
        plt.ion()
        self._fig, ax = plt.subplots(num=self.title)
        ax.set_axis_off()
        self._ax = ax

    def show(self, image) -> None:
        """Show ``image`` (H, W, 3) uint8."""
        image = np.asarray(image)
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise ValueError(f"image: (H, W, 3) uint8 expected, got {image.shape} {image.dtype}")
        if self._fig is None:
            self._start()
        if self._im is None or self._im.get_array().shape != image.shape:
            self._ax.clear()
            self._ax.set_axis_off()
            self._im = self._ax.imshow(image)
        else:
            self._im.set_data(image)
        self._fig.canvas.draw_idle()
        self._plt.pause(0.001)

    def close(self) -> None:
        if self._fig is not None:
            self._plt.close(self._fig)
        self._fig = self._im = None
