"""The table as a scene: its frame in the picture, its shapes, the ball colours, the checks.

:class:`Frame` puts a table point (x, y) [m] at pixel (col, row) = ((x + border) scale,
(length + border - y) scale): portrait, head cushion at the bottom. :func:`table_shapes`
lists the empty table's shapes in drawing order and :func:`ball_colors` each ball's colour;
the rasteriser (:mod:`cuegym.envs.render_raster`) and the SVG writer
(:mod:`cuegym.envs.render_svg`) draw the same scene (docs/envs.md, "Rendering").
"""

from __future__ import annotations

import dataclasses
import functools

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

PATH_WIDTH_PX = 2.0  # thickness of a ball's path
LINE_WIDTH_M = 0.003  # house / baulk line and D [m] (drawn at least 1 px wide)
SPOT_RADIUS_M = 0.006  # spots [m] (at least 1.2 px)
CUSHION_DEPTH_M = 0.05  # rubber drawn behind each nose [m]



def check_table_name(table_name) -> str:
    """``table_name`` when it names a table; ValueError naming ``table_name`` otherwise."""
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
    """Where the table lands in an image ``width`` pixels wide (docs/envs.md, "Rendering").

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


def border(table_name: str) -> float:
    """Metres of cushion and rail drawn outside the nose rectangle: enough for every throat
    wall and pocket disc, plus 2.5 cm of rail."""
    t = get_table(table_name)
    spec = get_spec(table_name)
    w, length = spec.width, spec.length
    pts = np.concatenate([np.asarray(t.seg_a), np.asarray(t.seg_b)])
    reach = [CUSHION_DEPTH_M]
    reach.append(float(np.max(np.maximum.reduce([-pts[:, 0], pts[:, 0] - w, -pts[:, 1], pts[:, 1] - length]))))
    pxy = np.asarray(t.pocket_xy)
    rp = pocket_radius(spec)
    reach.append(float(np.max(np.maximum.reduce([-pxy[:, 0], pxy[:, 0] - w, -pxy[:, 1], pxy[:, 1] - length]) + rp.max())))
    return max(reach) + 0.025


def pocket_radius(spec) -> np.ndarray:
    """(6,) radius [m] of the disc drawn at each pocket_xy: half its mouth."""
    return np.array([spec.corner_mouth, spec.middle_mouth, spec.corner_mouth] * 2) / 2  # HL ML FL FR MR HR


@functools.lru_cache(maxsize=64)
def frame(table_name: str, width: int = 480) -> Frame:
    """The :class:`Frame` of ``table_name`` drawn ``width`` pixels wide."""
    check_table_name(table_name)
    width = check_width(width)
    spec = get_spec(table_name)
    b = border(table_name)
    scale = width / (spec.width + 2 * b)
    height = int(round((spec.length + 2 * b) * scale))
    return Frame(table_name, width, height, scale, b, spec.width, spec.length)


def check_width(width) -> int:
    """``width`` [px] as an int in [64, 8192]; ValueError otherwise."""
    if isinstance(width, bool) or not isinstance(width, (int, np.integer)) or not 64 <= int(width) <= 8192:
        raise ValueError(f"width: an integer number of pixels in [64, 8192], got {width!r}")
    return int(width)


# ----------------------------------------------------------------------------- table parts


def ball_colors(table_name: str, n: int, ball_ids=None) -> np.ndarray:
    """(n, 3) uint8 colour of each ball (see the module docstring), and whether each is
    striped: returns (colors (n, 3) uint8, striped (n,) bool)."""
    check_table_name(table_name)
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
    b = border(table_name)
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
    rp = pocket_radius(spec)
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


def min_px(cls):
    """The least size [px] of a shape of class ``cls``: thin markings stay visible at any width
    (at least 1 px lines, 1.2 px spots)."""
    return {"head-line": 1.0, "d": 1.0, "spot": 1.2}.get(cls, 0.0)


# ----------------------------------------------------------------------------- checks


def check_layout(xy, on):
    """``xy`` (N, 2) float [m] and ``on`` (N,) bool, checked; ValueError naming a bad field."""
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


def check_paths(paths, n):
    """N polylines (K_i, 2) [m] or None, checked; ValueError naming a bad one."""
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


def checked_scene(table_name, xy, on, paths, width):
    """The checked inputs of a drawing: (table name, width [px], xy (N, 2) [m], on (N,),
    paths, its :class:`Frame`, the table spec); ValueError naming a bad field."""
    table_name = check_table_name(table_name)
    width = check_width(width)
    xy, on = check_layout(xy, on)
    paths = check_paths(paths, xy.shape[0])
    return table_name, width, xy, on, paths, frame(table_name, width), get_spec(table_name)
