"""The table drawing as SVG: :func:`to_svg` draws the shapes of the rasteriser's picture as vectors."""

from __future__ import annotations

from xml.sax.saxutils import escape

import numpy as np

from cuegym.envs.render_scene import (
    CUE_WHITE,
    DIGIT,
    OUTLINE_DARKEN,
    PATH_WIDTH_PX,
    ball_colors,
    checked_scene,
    min_px,
    table_shapes,
)


def to_svg(table_name: str, xy, on, paths=None, width: int = 480, *, ball_ids=None) -> str:
    """The same drawing as :func:`cuegym.envs.render.draw_table` as an SVG document (a str), in the same pixel
    frame (``viewBox`` 0 0 W H of :func:`frame`): vector shapes for print or the web.

    Balls are ``<circle class="ball" data-ball="i">``, paths ``<polyline class="path"
    data-ball="i">``, pockets ``<circle class="pocket">``."""
    table_name, width, xy, on, paths, fr, spec = checked_scene(table_name, xy, on, paths, width)
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
            out.append(circle(geo[0], max(geo[1] * s, min_px(cls)), col, cls))
        else:
            pts = " ".join(f"{x:.2f},{y:.2f}" for x, y in P(geo[0]))
            out.append(f'<polyline class="{cls}" points="{pts}" fill="none" stroke="{rgb(col)}" '
                       f'stroke-width="{max(geo[1] * s, min_px(cls)):.2f}"/>')
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
