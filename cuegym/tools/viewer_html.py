"""The viewer page: a checked viewer document as one self-contained HTML page.

The table is inline SVG (the geometry of :func:`cuegym.envs.render.to_svg`), the balls are
animated from each stroke's timed paths by the page's script, and the controls, scoreboard,
rulings and suggestion overlay are drawn beside it. The template, style sheet and script are
the package data files ``viewer_page/page.html``, ``viewer.css`` and ``viewer.js``; the page
inlines them, so nothing is loaded from anywhere (docs/viewer.md).
"""

from __future__ import annotations

import functools
from importlib import resources
from xml.sax.saxutils import escape

from cuegym.tools.viewer_document import normalize
from cuegym.tools.viewer_files import dumps

SVG_WIDTH = 480  # px, the table drawing's frame (cuegym.envs.render.frame); the page scales it


@functools.lru_cache(maxsize=None)
def page_file(name: str) -> str:
    """The text of the package data file ``viewer_page/<name>``."""
    return resources.files("cuegym.tools").joinpath("viewer_page", name).read_text(encoding="utf-8")


def _table_svg(table: str) -> tuple[str, dict]:
    """The empty table's SVG shapes (no outer <svg>, no namespace URL) and the frame
    (pixel scale [px/m], border [m], length [m], ball radius [px], width, height [px])."""
    import numpy as np  # the command modules import their heavy dependencies when they run

    from cuegym.envs import render as R
    from cuegym.physics import get_spec

    fr = R.frame(table, SVG_WIDTH)
    svg = R.to_svg(table, np.zeros((0, 2)), np.zeros(0, bool), width=SVG_WIDTH)
    body = svg.split("\n", 1)[1].rsplit("</svg>", 1)[0]
    geom = {"scale": fr.scale, "border": fr.border, "length": fr.table_length, "width": fr.width,
            "height": fr.height, "r": get_spec(table).ball_radius * fr.scale}
    return body, geom


def _script_json(x) -> str:
    """JSON safe inside a <script> element."""
    return dumps(x).replace("</", "<\\/").replace("<!--", "<\\!--")


def page(document: dict) -> str:
    """One self-contained HTML page (str) showing ``document`` (checked with
    :func:`normalize`; a simulate result is converted). No external URL: styles, script
    and drawing are inline."""
    doc = normalize(document)
    body, geom = _table_svg(doc["table"])
    balls = []
    for i, b in enumerate(doc["balls"]):
        fill, stroke, sw = (("#fafafa", b["color"], 0.45 * geom["r"]) if b["striped"]
                            else (b["color"], "rgba(0,0,0,0.45)", max(1.0, 0.12 * geom["r"])))
        label = b["id"] if len(b["id"]) <= 2 and b["id"] != "cue" else ""
        ink = "#ffffff" if _dark(b["color"]) else "#281e14"
        balls.append(f'<g class="ball" data-ball="{i}" visibility="hidden"><circle r="{geom["r"] - sw / 2:.2f}" '
                     f'fill="{fill}" stroke="{stroke}" stroke-width="{sw:.2f}"/>'
                     + (f'<text y="{0.35 * geom["r"]:.2f}" font-size="{geom["r"]:.2f}" text-anchor="middle" '
                        f'fill="{ink}">{escape(label)}</text>' if label else "") + "</g>")
    trails = "".join(f'<polyline class="trail" data-ball="{i}" fill="none" stroke="{b["color"]}" '
                     f'stroke-width="2" stroke-opacity="0.8" points=""/>' for i, b in enumerate(doc["balls"]))
    svg = (f'<svg id="table" viewBox="0 0 {geom["width"]} {geom["height"]}" preserveAspectRatio="xMidYMid meet">'
           f'{body}<g id="sugg"></g><g id="trails">{trails}</g><g id="aim"></g><g id="balls">{"".join(balls)}</g></svg>')
    return (page_file("page.html").replace("%TITLE%", escape(doc["title"])).replace("%SVG%", svg)
            .replace("%DOC%", _script_json(doc)).replace("%GEOM%", _script_json(geom)).replace("%CSS%", page_file("viewer.css"))
            .replace("%JS%", page_file("viewer.js")))


def _dark(color: str) -> bool:
    r, g, b = (int(color[k:k + 2], 16) for k in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b < 110
