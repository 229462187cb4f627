"""cuegym.envs.render against geometry: where the table, pockets, balls and paths land in the
image is checked against the table's figures and closed-form motion, never a stored image.

The paths re-simulate with two balls on the pyramid table and the simulator's default log,
the program the physics tests compile already (a persistent-cache hit)."""

import math
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from cuegym.envs import render as R
from cuegym.physics import get_spec, get_table
from cuegym.physics.racks import snooker_rack

PYR = "pyramid-12ft"
G = 9.81


def colour(img, xy, fr):
    r, c = fr.pixel(np.asarray(xy, float))
    return tuple(int(v) for v in img[r, c])


def runs(mask):
    """(start, stop) of the runs of True in a 1-d mask."""
    m = np.concatenate([[False], mask, [False]]).astype(int)
    d = np.diff(m)
    return list(zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1)))


def is_cloth(px):
    return np.all(px == np.array(R.CLOTH), -1)


# ----------------------------------------------------------------------------- the table


@pytest.mark.parametrize("name", ["pyramid-12ft", "snooker-12ft", "pool-9ft"])
def test_bed_has_the_tables_proportions_and_the_head_at_the_bottom(name):
    spec = get_spec(name)
    img = R.draw_table(name, np.zeros((0, 2)), np.zeros(0, bool), width=600)
    fr = R.frame(name, 600)
    assert img.shape == fr.shape == (fr.height, 600, 3) and img.dtype == np.uint8
    # the cloth between the side cushions along a row 0.3 L from the head, and between the
    # head and foot cushions along a column 0.3 W from the left (clear of lines and spots)
    row = fr.pixel([0.3 * spec.width, 0.3 * spec.length])[0]
    col = fr.pixel([0.3 * spec.width, 0.3 * spec.length])[1]
    (c0, c1), = [r for r in runs(is_cloth(img[row])) if r[1] - r[0] > 50]
    cloth_rows = runs(is_cloth(img[:, col]))  # split by the house line and nothing else
    r0, r1 = cloth_rows[0][0], cloth_rows[-1][1]
    w_px, l_px = c1 - c0, r1 - r0
    assert w_px / l_px == pytest.approx(spec.width / spec.length, abs=2.5 / l_px)
    assert w_px == pytest.approx(spec.width * fr.scale, abs=1.5)
    # the house / baulk line is a quarter (pyramid, pool) or 0.2 (snooker) of the bed from
    # the bottom edge: the head cushion is at the bottom of the picture
    lines = [r for r in range(r0, r1) if img[r, col].astype(int).sum() > sum(R.CLOTH) + 150]
    assert lines, "the house line crosses the column"
    from_bottom = (r1 - np.mean(lines)) / l_px
    assert from_bottom == pytest.approx(spec.head_line / spec.length, abs=2.0 / l_px)


@pytest.mark.parametrize("name", ["pyramid-12ft", "snooker-12ft", "pool-9ft", "american-snooker-10ft"])
def test_pockets_are_drawn_at_pocket_xy(name):
    img = R.draw_table(name, np.zeros((0, 2)), np.zeros(0, bool))
    fr = R.frame(name, 480)
    for p, xy in enumerate(np.asarray(get_table(name).pocket_xy)):
        assert colour(img, xy, fr) == R.POCKET, f"pocket {p}"


def test_mouths_between_the_jaws_are_the_specified_widths():
    """Along the segment joining a pocket's two jaw centres, the part not drawn as cushion
    is the mouth: 72.5 mm at a corner and 82.5 mm at a middle pocket of the pyramid table
    (IPC figures), to within the pixel size."""
    spec = get_spec(PYR)
    t = get_table(PYR)
    width = 1400
    # without antialiasing every pixel is one shape's colour (the mouth's far edge, where
    # the throat starts, lies on the jaw-centre line and would blend cloth with black)
    img = R.draw_table(PYR, np.zeros((0, 2)), np.zeros(0, bool), width=width, antialias=False)
    fr = R.frame(PYR, width)
    jaw_c, jaw_p = np.asarray(t.jaw_c), np.asarray(t.jaw_pocket)
    for p, mouth in ((0, spec.corner_mouth), (1, spec.middle_mouth)):
        a, b = jaw_c[jaw_p == p]
        s = np.linspace(0, 1, 4000)
        pts = a + s[:, None] * (b - a)
        rc = fr.pixel(pts)
        px = img[rc[:, 0], rc[:, 1]].astype(int)
        cushion = np.all(px == R.CUSHION, -1)
        gap = (~cushion).sum() / len(s) * np.hypot(*(b - a))
        assert gap == pytest.approx(mouth, abs=2.0 / fr.scale), f"pocket {p}"


def test_snooker_d_and_colours_by_ball_id():
    spec = get_spec("snooker-12ft")
    rack = snooker_rack(spec)
    ids = ["cue"] + list(rack)
    xy = np.array([[spec.width / 2, 0.45]] + list(rack.values()))
    img = R.draw_table("snooker-12ft", xy, np.ones(len(ids), bool), ball_ids=ids, width=600)
    fr = R.frame("snooker-12ft", 600)
    for name, p in zip(ids, xy):
        expect = R.SNOOKER["red" if name.startswith("red") else name]
        assert colour(img, p, fr) == expect, name
    # the D: its far point from the baulk line, (W/2, baulk − radius), is on the drawn arc
    r, c = fr.pixel([spec.width / 2, spec.head_line - spec.d_radius])
    patch = img[r - 1:r + 2, c - 1:c + 2].astype(int).sum(-1)
    assert patch.max() > sum(R.CLOTH) + 200
    # and the D is drawn only on the baulk side: the mirror point is plain cloth
    assert colour(img, [spec.width / 2, spec.head_line + spec.d_radius], fr) == R.CLOTH


# ----------------------------------------------------------------------------- balls


def test_ball_colour_at_its_pixel_and_cloth_just_outside():
    spec = get_spec(PYR)
    xy = np.array([[0.52, 0.61], [1.23, 2.04], [0.0, 0.0]])
    on = np.array([True, True, False])
    img = R.draw_table(PYR, xy, on, numbers=False)
    fr = R.frame(PYR, 480)
    # the frame's pixel of a point agrees with the drawn bed: left and bottom cloth edges
    # plus the point's distance from them at the bed's pixel scale
    row = fr.pixel([0.3, 1.2])[0]
    (c0, c1), = [r for r in runs(is_cloth(img[row])) if r[1] - r[0] > 50]
    scale = (c1 - c0) / spec.width
    assert abs(fr.pixel(xy[1])[1] - (c0 + xy[1, 0] * scale)) <= 1.0
    assert colour(img, xy[0], fr) == R.CUE_WHITE
    assert colour(img, xy[1], fr) == R.IVORY
    # the observation's float on-table column draws the same picture
    assert np.array_equal(R.draw_table(PYR, xy, on.astype(np.float32), numbers=False), img)
    rpx = spec.ball_radius * scale
    centre = fr.to_pixel(xy[1])
    for ang in np.linspace(0, 2 * np.pi, 16, endpoint=False):
        x, y = centre + (rpx + 1.6) * np.array([math.cos(ang), math.sin(ang)])
        assert tuple(img[int(y), int(x)]) == R.CLOTH
        x, y = centre + (rpx - 2.5) * np.array([math.cos(ang), math.sin(ang)])
        assert tuple(img[int(y), int(x)]) == R.IVORY
    # the ball absent from the table is not drawn: its spot (a bed corner) shows no ivory
    # or white
    r, c = fr.pixel([0.0, 0.0])
    assert not np.any(np.all(img[r - 3:r + 4, c - 3:c + 4] == R.CUE_WHITE, -1))


def test_numbered_and_striped_balls():
    xy = np.array([[0.3, 0.5], [0.6, 1.0], [0.9, 1.5]])
    width = 900  # balls over 7 px in radius get numbers
    plain = R.draw_table(PYR, xy, np.ones(3, bool), numbers=False, width=width)
    numbered = R.draw_table(PYR, xy, np.ones(3, bool), width=width)
    fr = R.frame(PYR, width)
    r, c = fr.pixel(xy[2])
    assert np.any(np.all(numbered[r - 6:r + 7, c - 6:c + 7] == R.DIGIT, -1))
    assert not np.any(np.all(plain[r - 6:r + 7, c - 6:c + 7] == R.DIGIT, -1))
    # pool: ball 9 is striped (white with a yellow band), ball 1 solid yellow
    pool_xy = np.array([[0.3, 0.4]] + [[0.1 + 0.07 * k, 1.8] for k in range(15)])
    img = R.draw_table("pool-9ft", pool_xy, np.ones(16, bool), numbers=False, width=width)
    fr = R.frame("pool-9ft", width)
    rr = get_spec("pool-9ft").ball_radius * fr.scale
    col9 = fr.to_pixel(pool_xy[9])
    top = img[int(col9[1] - 0.7 * rr), int(col9[0])]
    mid = img[int(col9[1]), int(col9[0])]
    assert tuple(top) == R.CUE_WHITE and tuple(mid) == R.POOL[0]
    assert colour(img, pool_xy[1], fr) == R.POOL[0]


# ----------------------------------------------------------------------------- paths


def centre_ball_distance(spec, cue_speed):
    """Closed form: ball speed from the cue (impulse, centre hit), slide until 5/7 of it,
    then roll to rest under mu_r g."""
    v0 = 2 * cue_speed / (1 + spec.ball_mass / spec.cue_mass)
    t1 = 2 * v0 / (7 * spec.mu_slide * G)
    slide = v0 * t1 - 0.5 * spec.mu_slide * G * t1**2
    return slide + (5 * v0 / 7) ** 2 / (2 * spec.mu_roll * G)


def test_paths_follow_a_centre_ball_shot_and_are_drawn_along_it():
    spec = get_spec(PYR)
    xy = np.array([[0.6, 0.5], [1.4, 3.0]])
    on = np.ones(2, bool)
    shot = [0, np.pi / 2, 0.5, 0.0, 0.0, 0.0]
    paths = R.stroke_paths(PYR, xy, on, shot)
    cue, obj = paths
    assert np.all(np.abs(cue[:, 0] - 0.6) < 1e-9), "straight up the table"
    assert np.all(np.diff(cue[:, 1]) > 0) and cue[0, 1] == pytest.approx(0.5, abs=1e-12)
    assert cue[-1, 1] - 0.5 == pytest.approx(centre_ball_distance(spec, 0.5), rel=1e-6)
    assert obj.shape == (1, 2) and np.allclose(obj[0], xy[1]), "the object ball does not move"
    assert np.array_equal(R.stroke_paths(PYR, xy, on, shot)[0], cue), "deterministic"
    # drawn: the pixel column of x = 0.6 is the cue ball's white between start and end,
    # and 5 px to the side is cloth (away from the house line)
    end = np.array([[0.6, cue[-1, 1]], xy[1]])
    img = R.draw_table(PYR, end, on, paths)
    fr = R.frame(PYR, 480)
    rpx = spec.ball_radius * fr.scale
    (r_end, col), (r_start, _) = fr.pixel(np.array([[0.6, cue[-1, 1]], [0.6, 0.5]]))
    r_line = fr.pixel([0.6, spec.head_line])[0]
    rows = [r for r in range(int(r_end + rpx + 2), r_start + 1) if abs(r - r_line) > 2]
    assert len(rows) > 100
    assert all(tuple(img[r, col]) == R.CUE_WHITE for r in rows)
    assert all(tuple(img[r, col + 5]) == R.CLOTH and tuple(img[r, col - 5]) == R.CLOTH for r in rows)


def test_path_turns_at_the_cushion_contact():
    """A square shot into the head cushion: the path's corner is where a ball touches the
    nose, its centre at the contact offset R cos(asin((h − R)/R)) from it, and it comes
    straight back."""
    spec = get_spec(PYR)
    xy = np.array([[0.6, 0.5], [1.4, 3.0]])
    cue, _ = R.stroke_paths(PYR, xy, np.ones(2, bool), [0, -np.pi / 2, 1.0, 0.0, 0.0, 0.0])
    rr = spec.ball_radius
    off = rr * math.sqrt(1 - ((spec.cushion_height - rr) / rr) ** 2)
    assert cue[:, 1].min() == pytest.approx(off, abs=1e-9)
    assert np.all(np.abs(cue[:, 0] - 0.6) < 1e-9)
    assert cue[-1, 1] > off + 0.05, "it came back off the cushion"


# ----------------------------------------------------------------------------- SVG, window


def test_svg_places_balls_pockets_and_paths_in_the_frame():
    spec = get_spec(PYR)
    xy = np.array([[0.6, 0.5], [1.4, 3.0]])
    paths = [np.array([[0.6, 0.1], [0.6, 0.5]]), None]
    svg = R.to_svg(PYR, xy, np.array([True, True]), paths)
    root = ET.fromstring(svg)
    ns = {"s": "http://www.w3.org/2000/svg"}
    fr = R.frame(PYR, 480)
    assert float(root.get("width")) == 480 and float(root.get("height")) == fr.height
    balls = root.findall("s:circle[@class='ball']", ns)
    assert len(balls) == 2
    for b in balls:
        i = int(b.get("data-ball"))
        x, y = fr.to_pixel(xy[i])
        assert float(b.get("cx")) == pytest.approx(x, abs=0.01) and float(b.get("cy")) == pytest.approx(y, abs=0.01)
        assert float(b.get("r")) == pytest.approx(spec.ball_radius * fr.scale, abs=0.01)
    # y grows downwards in the picture: the ball nearer the head cushion is lower
    assert float(balls[0].get("cy")) > float(balls[1].get("cy"))
    pockets = root.findall("s:circle[@class='pocket']", ns)
    want = fr.to_pixel(np.asarray(get_table(PYR).pocket_xy))
    got = np.array([[float(p.get("cx")), float(p.get("cy"))] for p in pockets])
    assert np.allclose(got, want, atol=0.01)
    (line,) = root.findall("s:polyline[@class='path']", ns)
    pts = np.array([[float(v) for v in p.split(",")] for p in line.get("points").split()])
    assert np.allclose(pts, fr.to_pixel(paths[0]), atol=0.01)


def test_viewer_names_what_is_missing(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    img = np.zeros((10, 10, 3), np.uint8)
    with pytest.raises(RuntimeError, match="display"):
        R.Viewer().show(img)
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(RuntimeError, match="matplotlib"):
        R.Viewer().show(img)
    with pytest.raises(ValueError, match="image"):
        R.Viewer().show(np.zeros((10, 10), np.uint8))
    R.Viewer().close()  # closing a viewer never shown is fine


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("kwargs, field", [
    (dict(xy=np.zeros((2, 3))), "xy"),
    (dict(xy=np.array([[0.5, np.nan], [1.0, 1.0]])), "xy"),
    (dict(on=np.ones(3, bool)), "on"),
    (dict(on=np.array([0.5, 1.0])), "on"),
    (dict(table_name="pyramid-13ft"), "table_name"),
    (dict(table_name=3), "table_name"),
    (dict(width=10), "width"),
    (dict(width=480.0), "width"),
    (dict(paths=[np.zeros((3, 2))]), "paths"),
    (dict(paths=[np.zeros((3, 2)), np.array([[0.1, np.inf]])]), r"paths\[1\]"),
    (dict(paths=[np.zeros((3, 3)), None]), r"paths\[0\]"),
    (dict(ball_ids=["cue"]), "ball_ids"),
])
def test_draw_table_rejects_bad_input_naming_the_field(kwargs, field):
    args = dict(table_name=PYR, xy=np.array([[0.5, 0.5], [1.0, 1.0]]), on=np.ones(2, bool))
    args.update(kwargs)
    with pytest.raises(ValueError, match=field):
        R.draw_table(**args)


@pytest.mark.parametrize("shot, field", [
    ([0, 1.0, 2.0, 0, 0], "shot6"),
    ([0, np.nan, 2.0, 0, 0, 0], "shot6"),
    ([1.5, 1.0, 2.0, 0, 0, 0], "cue_ball"),
    ([2, 1.0, 2.0, 0, 0, 0], "cue_ball"),
    ([0, 1.0, -2.0, 0, 0, 0], "speed"),
    ([0, 1.0, 2.0, 0, 0, 2.0], "theta"),
])
def test_stroke_paths_rejects_bad_shots_naming_the_field(shot, field):
    xy = np.array([[0.6, 0.5], [1.4, 3.0]])
    with pytest.raises(ValueError, match=field):
        R.stroke_paths(PYR, xy, np.ones(2, bool), shot)
    with pytest.raises(ValueError, match="cue_ball"):
        R.stroke_paths(PYR, xy, np.array([False, True]), [0, 1.0, 2.0, 0, 0, 0])
