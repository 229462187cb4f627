"""Pictures of ``cuegym suggest``'s suggestions: SVG, PNG and a self-contained HTML page.

One panel per suggestion, left to right in rank order, each the table of
:func:`cuegym.envs.render.to_svg` / :func:`cuegym.envs.render.draw_table` (head cushion at the
bottom) with

* the noise-free stroke's paths (every ball that moves, first to last event, in the ball's
  colour),
* the scatter of the struck ball's finishing positions under noise (small magenta dots)
  and their mean (a magenta ring),
* the target pocket (a yellow ring) with a yellow line from the target ball's centre to it.

The SVG panels carry a caption (rank, target, probability); the PNG has no text (panel k
from the left is suggestion k). PNG is written with ``zlib`` alone (no matplotlib).
"""

from __future__ import annotations

import html
import struct
import zlib

import numpy as np

from cuegym.physics import POCKETS, get_spec, get_table

SCATTER = (230, 40, 200)
TARGET = (255, 214, 0)
GAP_PX = 12  # between panels
CAPTION_PX = 40  # SVG: caption band above each panel
BACKGROUND = (255, 255, 255)


def _layout(position, suggestion):
    """(ids in drawing order, xy (N, 2), on (N,)) for ``render``: pyramid and pool ids that
    are numbers sit at that index (so the ball shows its number), snooker balls keep the
    game's order; a ball in hand is placed."""
    balls = dict(position.balls)
    place = suggestion.action.get("place")
    if place is not None:
        balls[suggestion.action["cue_ball"]] = tuple(place)
    ids = list(position.ids) if position.game else list(balls)
    if get_spec(position.table).d_radius == 0 and all(i == "cue" or i.isdigit() for i in ids):
        ids = ["cue"] + [str(k) for k in range(1, max([int(i) for i in ids if i.isdigit()] + [0]) + 1)]
        if "cue" not in balls and "cue" not in position.ids:
            ids[0] = "_"  # no cue ball in this game: index 0 stays empty
    xy = np.array([balls.get(i, (0.0, 0.0)) for i in ids], float).reshape(-1, 2)
    on = np.array([i in balls for i in ids], bool)
    return ids, xy, on


def _paths(ids, suggestion):
    return [np.asarray(suggestion.paths[i], float) if i in suggestion.paths else None for i in ids]


def _snooker_ids(position, ids):
    return ids if get_spec(position.table).d_radius > 0 else None


def _target(position, suggestion):
    """(target ball centre or None, pocket centre or None) [m]."""
    t = suggestion.target
    if t is None:
        return None, None
    pocket = np.asarray(get_table(position.table).pocket_xy)[POCKETS.index(t["pocket"])]
    return position.balls.get(t["ball"]), pocket


def caption(s) -> str:
    """One line naming a suggestion: rank, target, probability."""
    what = f"{s.target['ball']} in {s.target['pocket']}" if s.target else (s.aim["ball"] or "no ball") + " first"
    return f"#{s.rank} {what}: {100 * s.probability:.0f}%"


def svg(position, suggestions, width: int = 360) -> str:
    """An SVG document (str) with one panel per suggestion."""
    from cuegym.envs.render import frame, to_svg

    fr = frame(position.table, width)
    k = len(suggestions)
    total_w = k * width + (k - 1) * GAP_PX
    total_h = fr.height + CAPTION_PX
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" '
           f'viewBox="0 0 {total_w} {total_h}">',
           f"<title>{html.escape(_title(position))}</title>",
           f'<rect width="{total_w}" height="{total_h}" fill="rgb{BACKGROUND}"/>']
    for n, s in enumerate(suggestions):
        x0 = n * (width + GAP_PX)
        ids, xy, on = _layout(position, s)
        doc = to_svg(position.table, xy, on, _paths(ids, s), width, ball_ids=_snooker_ids(position, ids))
        doc = doc.replace('<svg xmlns="http://www.w3.org/2000/svg" ', f'<svg class="suggestion" data-rank="{s.rank}" '
                          f'x="{x0}" y="{CAPTION_PX}" ', 1)
        marks = []
        ball, pocket = _target(position, s)
        if pocket is not None:
            px, py = fr.to_pixel(pocket)
            marks.append(f'<circle class="target" cx="{px:.2f}" cy="{py:.2f}" r="{0.06 * fr.scale:.2f}" fill="none" '
                         f'stroke="rgb{TARGET}" stroke-width="2"/>')
            if ball is not None:
                bx, by = fr.to_pixel(ball)
                marks.append(f'<line class="target" x1="{bx:.2f}" y1="{by:.2f}" x2="{px:.2f}" y2="{py:.2f}" '
                             f'stroke="rgb{TARGET}" stroke-width="1" stroke-dasharray="4 3"/>')
        for p in s.cue_finish["scatter"]:
            cx, cy = fr.to_pixel(p)
            marks.append(f'<circle class="finish" cx="{cx:.2f}" cy="{cy:.2f}" r="2" fill="rgb{SCATTER}"/>')
        if s.cue_finish["expected"] is not None:
            cx, cy = fr.to_pixel(s.cue_finish["expected"])
            r = get_spec(position.table).ball_radius * fr.scale
            marks.append(f'<circle class="expected-finish" cx="{cx:.2f}" cy="{cy:.2f}" r="{r:.2f}" fill="none" '
                         f'stroke="rgb{SCATTER}" stroke-width="2"/>')
        doc = doc[: doc.rindex("</svg>")] + "\n".join(marks) + "\n</svg>"
        out.append(f'<text x="{x0 + 4}" y="{CAPTION_PX - 14}" font-family="sans-serif" font-size="16" '
                   f'fill="rgb(20,20,20)">{html.escape(caption(s))}</text>')
        out.append(doc)
    out.append("</svg>")
    return "\n".join(out)


def _title(position) -> str:
    return f"cuegym suggest: {position.game or 'pot shot'} on {position.table}"


def _fill_disc(img, centre, radius, color, ring: float = 0.0):
    """Paint a disc (or, with ``ring`` > 0, an annulus that thick) at ``centre`` (col, row) px."""
    h, w = img.shape[:2]
    cx, cy = centre
    r0, r1 = max(int(cy - radius - 1), 0), min(int(cy + radius + 2), h)
    c0, c1 = max(int(cx - radius - 1), 0), min(int(cx + radius + 2), w)
    if r0 >= r1 or c0 >= c1:
        return
    yy, xx = np.mgrid[r0:r1, c0:c1]
    d = np.hypot(xx + 0.5 - cx, yy + 0.5 - cy)
    mask = d <= radius if ring <= 0 else (d <= radius) & (d >= radius - ring)
    img[r0:r1, c0:c1][mask] = color


def _line(img, a, b, color):
    n = int(max(abs(b[0] - a[0]), abs(b[1] - a[1]))) + 1
    for t in np.linspace(0.0, 1.0, n):
        if int(t * n) % 7 < 4:  # dashed
            _fill_disc(img, (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])), 0.8, color)


def image(position, suggestions, width: int = 360) -> np.ndarray:
    """(H, W, 3) uint8: the panels side by side (see the module docstring)."""
    from cuegym.envs.render import draw_table, frame

    fr = frame(position.table, width)
    r = get_spec(position.table).ball_radius * fr.scale
    panels = []
    for s in suggestions:
        ids, xy, on = _layout(position, s)
        img = draw_table(position.table, xy, on, _paths(ids, s), width, ball_ids=_snooker_ids(position, ids))
        ball, pocket = _target(position, s)
        if pocket is not None:
            if ball is not None:
                _line(img, fr.to_pixel(ball), fr.to_pixel(pocket), TARGET)
            _fill_disc(img, fr.to_pixel(pocket), 0.06 * fr.scale, TARGET, ring=2.0)
        for p in s.cue_finish["scatter"]:
            _fill_disc(img, fr.to_pixel(p), 2.0, SCATTER)
        if s.cue_finish["expected"] is not None:
            _fill_disc(img, fr.to_pixel(s.cue_finish["expected"]), r, SCATTER, ring=2.0)
        panels.append(img)
    gap = np.full((fr.height, GAP_PX, 3), BACKGROUND, np.uint8)
    row = [panels[0]]
    for p in panels[1:]:
        row += [gap, p]
    return np.concatenate(row, 1)


def png_bytes(img: np.ndarray) -> bytes:
    """A PNG file (bytes) of an (H, W, 3) uint8 image: 8-bit RGB, no filtering, zlib."""
    img = np.ascontiguousarray(img, np.uint8)
    h, w, _ = img.shape

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))  # filter type 0 on each row
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def html_page(position, suggestions, rows: list[list[str]], header: list[str], width: int = 360) -> str:
    """A self-contained HTML page: the SVG inline and a table (``header``, ``rows`` of text
    cells)."""
    esc = html.escape
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "\n".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    title = esc(_title(position))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; color: #222; }}
table {{ border-collapse: collapse; margin-top: 1em; }}
th, td {{ border: 1px solid #bbb; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }}
th {{ background: #eee; }}
</style>
</head>
<body>
<h1>{title}</h1>
<p>Paths: the stroke without noise. Magenta dots: where the struck ball finished in the noisy replays
(ring: their mean). Yellow ring: the target pocket.</p>
{svg(position, suggestions, width)}
<table>
<thead><tr>{head}</tr></thead>
<tbody>
{body}
</tbody>
</table>
</body>
</html>
"""
