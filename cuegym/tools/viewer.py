"""The replay viewer: ``cuegym view DOC.json -o DOC.html`` and the viewer's public names.

A viewer document (format 1, docs/viewer.md) comes from ``cuegym play`` (kind ``"frame"``,
:mod:`cuegym.tools.replay`), from the coach (kind ``"suggest"``) or from ``cuegym
simulate`` (kind ``"simulate"``). :func:`normalize` checks it
(:mod:`cuegym.tools.viewer_document`), :func:`from_simulate` and :func:`from_suggest`
convert the other results (:mod:`cuegym.tools.viewer_convert`), and :func:`page` turns it
into one self-contained HTML page (:mod:`cuegym.tools.viewer_html`) that animates it.
"""

from __future__ import annotations

import sys

from cuegym.tools.viewer_checks import FORMAT, KINDS, MAX_BALLS, SHOT_FIELDS, need
from cuegym.tools.viewer_convert import from_simulate, from_suggest
from cuegym.tools.viewer_document import normalize
from cuegym.tools.viewer_files import check_output, dumps, load_document, write_atomic
from cuegym.tools.viewer_html import SVG_WIDTH, page

__all__ = ["FORMAT", "KINDS", "MAX_BALLS", "SHOT_FIELDS", "SVG_WIDTH", "check_output", "dumps", "from_simulate",
           "from_suggest", "load_document", "normalize", "page", "write_atomic"]

HELP = "turn a play / simulate / suggest JSON into a replay page (HTML)"
DESCRIPTION = ("Read DOC (a viewer document written by `cuegym play --json` or the coach, or the JSON "
               "result of `cuegym simulate`) and write one self-contained HTML page that animates it.")


def add_arguments(parser) -> None:
    parser.add_argument("document", metavar="DOC",
                        help="a viewer document, a `cuegym simulate` result or a `cuegym suggest --json` report (JSON file)")
    parser.add_argument("-o", "--output", required=True, metavar="HTML", help="the page to write")
    parser.add_argument("--position", metavar="POSITION",
                        help="for a suggest report: the position it was asked about, to show every ball and "
                             "animate the suggestions")


def run(args) -> int:
    try:
        check_output(args.output, "output")
        doc = load_document(args.document)
        if getattr(args, "position", None):
            is_report = isinstance(doc, dict) and str(doc.get("schema", "")).startswith("cuegym.suggest/")
            need(is_report, "position", "given only with a `cuegym suggest --json` report", args.position)
            doc = from_suggest(doc, args.position)
        html = page(doc)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    write_atomic(args.output, html)
    print(f"wrote {args.output}")
    return 0
