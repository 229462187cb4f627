"""The viewer document's checker: :func:`normalize` checks a document and fills its defaults.

A document (format 1, docs/viewer.md) holds the table, the balls, the players and the
strokes, each with its start layout, timed paths, ruling and suggestions. A ``cuegym
simulate`` result or a ``cuegym suggest --json`` report is converted first
(:mod:`cuegym.tools.viewer_convert`). Errors are ValueError naming the first bad field
(``shots[2].paths[5][3]: ...``).
"""

from __future__ import annotations

import math

from cuegym.tools.strokes import ball_entries
from cuegym.tools.viewer_checks import COLOR, FORMAT, KINDS, MAX_BALLS, SHOT_FIELDS, check_table, is_num, need
from cuegym.tools.viewer_convert import from_simulate, from_suggest


def _layout(start, n: int | None, field: str):
    need(isinstance(start, dict), field, "an object with xy and on", start)
    xy, on = start.get("xy"), start.get("on")
    need(isinstance(xy, list) and len(xy) >= 1, f"{field}.xy", "a list of [x, y] ball centres [m]", xy)
    n = len(xy) if n is None else n
    need(len(xy) == n, f"{field}.xy", f"{n} ball centres (one per ball)", len(xy))
    for i, p in enumerate(xy):
        need(isinstance(p, list) and len(p) == 2 and all(is_num(v) for v in p), f"{field}.xy[{i}]",
              "[x, y] in metres, finite", p)
    need(isinstance(on, list) and len(on) == n and all(isinstance(v, bool) for v in on), f"{field}.on",
          f"{n} booleans (the balls on the table)", on)
    return {"xy": [[float(v) for v in p] for p in xy], "on": list(on)}


def _paths(paths, n: int, field: str, timed: bool = True) -> list:
    need(isinstance(paths, list) and len(paths) == n, field, f"one path per ball ({n})",
          len(paths) if isinstance(paths, list) else paths)
    out = []
    for i, p in enumerate(paths):
        need(isinstance(p, list), f"{field}[{i}]", "a list of [t, x, y] samples", p)
        last = -math.inf
        for k, s in enumerate(p):
            at = f"{field}[{i}][{k}]"
            ok = isinstance(s, list) and (len(s) == 3 or (not timed and len(s) == 2)) and all(is_num(v) for v in s)
            need(ok, at, "[t, x, y] (t [s], x, y [m]), finite" + ("" if timed else " or [x, y]"), s)
            if len(s) == 3:
                need(s[0] >= last and s[0] >= 0, at, f"t at least the previous sample's ({max(last, 0):g} s)", s[0])
                last = s[0]
        out.append([[float(v) for v in s] for s in p])
    return out


def _shot(shot, n: int, field: str):
    if shot is None:
        return None
    need(isinstance(shot, dict), field, "an object (cue_ball, phi, speed, a, b, theta) or null", shot)
    cue = shot.get("cue_ball")
    need(isinstance(cue, int) and not isinstance(cue, bool) and 0 <= cue < n, f"{field}.cue_ball",
          f"a ball index in 0 .. {n - 1}", cue)
    out = {"cue_ball": cue}
    for k in SHOT_FIELDS:
        need(is_num(shot.get(k)), f"{field}.{k}", "a finite number", shot.get(k))
        out[k] = float(shot[k])
    return out


def _bools(x, n: int, field: str):
    need(isinstance(x, list) and len(x) == n and all(isinstance(v, bool) for v in x), field, f"{n} booleans", x)
    return list(x)


def _ruling(r, field: str):
    if r is None:
        return None
    from cuegym.rules.catalogue import get

    need(isinstance(r, dict), field, "an object (foul, clauses, points, scores) or null", r)
    clauses = []
    for k, c in enumerate(r.get("clauses", [])):
        if isinstance(c, str):  # an id alone: the title comes from the catalogue
            try:
                c = [c, get(c).title]
            except KeyError:
                raise ValueError(f"{field}.clauses[{k}]: {c!r} is not a clause id of the catalogue") from None
        need(isinstance(c, list) and len(c) == 2 and all(isinstance(v, str) for v in c), f"{field}.clauses[{k}]",
              "a clause id or [id, title]", c)
        clauses.append(c)
    out = dict(r)
    out["clauses"] = clauses
    out["foul"] = bool(r.get("foul", False))
    for k in ("points", "scores"):
        if r.get(k) is not None:
            need(isinstance(r[k], list) and len(r[k]) == 2 and all(is_num(v) for v in r[k]), f"{field}.{k}",
                  "two numbers (player 0, player 1)", r[k])
    notes = r.get("notes", [])
    need(isinstance(notes, list) and all(isinstance(v, str) for v in notes), f"{field}.notes", "a list of str", notes)
    return out


def _duration(paths) -> float:
    return max((s[0] for p in paths for s in p if len(s) == 3), default=0.0)


def _stroke(s: dict, n: int, field: str, timed: bool) -> dict:
    """The checked parts shared by a stroke and a suggestion: shot, paths, end_on, duration."""
    out = {"shot": _shot(s.get("shot"), n, f"{field}.shot")}
    out["paths"] = _paths(s["paths"], n, f"{field}.paths", timed) if "paths" in s else None
    if s.get("end_on") is not None:
        out["end_on"] = _bools(s["end_on"], n, f"{field}.end_on")
    if out["paths"] is not None:
        out["duration"] = _duration(out["paths"])
    return out


def normalize(doc) -> dict:
    """The checked document with its defaults filled (docs/viewer.md); ValueError naming
    the first bad field. A ``cuegym simulate`` result is converted first (:func:`from_simulate`)."""
    if isinstance(doc, dict) and "format" not in doc and {"events", "final", "next"} <= set(doc):
        doc = from_simulate(doc)
    elif isinstance(doc, dict) and "format" not in doc and str(doc.get("schema", "")).startswith("cuegym.suggest/"):
        doc = from_suggest(doc)
    need(isinstance(doc, dict), "document", "a JSON object (a viewer document or a simulate result)",
          type(doc).__name__)
    need(doc.get("format") == FORMAT, "format", f"{FORMAT} (the viewer document format)", doc.get("format"))
    need(doc.get("kind") in KINDS, "kind", f"one of {', '.join(KINDS)}", doc.get("kind"))
    table = check_table(doc.get("table"))
    shots = doc.get("shots")
    need(isinstance(shots, list) and len(shots) >= 1, "shots", "a non-empty list of strokes", shots)
    need(isinstance(shots[0], dict), "shots[0]", "an object", shots[0])
    balls = doc.get("balls")
    if isinstance(balls, list) and balls:
        n = len(balls)  # the balls name N; else the first layout does
    else:
        n = len(_layout(shots[0].get("start"), None, "shots[0].start")["xy"])
    need(n <= MAX_BALLS, "balls", f"at most {MAX_BALLS} balls", n)
    if balls is None:
        balls = ball_entries(table, ["cue"] + [str(i) for i in range(1, n)])
    need(isinstance(balls, list) and len(balls) == n, "balls", f"one entry per ball ({n})",
          len(balls) if isinstance(balls, list) else balls)
    out_balls = []
    for i, b in enumerate(balls):
        need(isinstance(b, dict) and isinstance(b.get("id"), str), f"balls[{i}].id", "a ball name (str)", b)
        need(COLOR.match(str(b.get("color", ""))) is not None, f"balls[{i}].color", "a colour #rrggbb",
              b.get("color"))
        out_balls.append({"id": b["id"], "color": b["color"], "striped": bool(b.get("striped", False))})
    players = doc.get("players") or [{"name": "player 0"}, {"name": "player 1"}]
    need(isinstance(players, list) and len(players) == 2, "players", "two players", players)
    players = [{"name": p} if isinstance(p, str) else p for p in players]
    for k, p in enumerate(players):
        need(isinstance(p, dict) and isinstance(p.get("name"), str), f"players[{k}].name", "a str", p)
    out_shots = []
    for k, s in enumerate(shots):
        field = f"shots[{k}]"
        need(isinstance(s, dict), field, "an object", s)
        start = _layout(s.get("start"), n, f"{field}.start")
        rec = {**{x: s[x] for x in ("frame", "agent", "choice", "label", "note") if x in s}, "start": start}
        player = s.get("player")
        need(player in (0, 1, None) and not isinstance(player, bool), f"{field}.player", "0, 1 or null", player)
        rec["player"] = player
        rec.update(_stroke(s, n, field, timed=True))
        if rec["paths"] is None:  # nothing played: the layout at rest
            rec["paths"] = [[[0.0, *p]] if o else [] for p, o in zip(start["xy"], start["on"])]
            rec["duration"] = 0.0
        for i, (p, o) in enumerate(zip(rec["paths"], start["on"])):
            need(bool(p) == o, f"{field}.paths[{i}]", "samples exactly for the balls on the table at the start",
                  f"{len(p)} samples, on={o}")
        rec.setdefault("end_on", list(start["on"]))
        rec["ruling"] = _ruling(s.get("ruling"), f"{field}.ruling")
        sugg = s.get("suggestions", [])
        need(isinstance(sugg, list), f"{field}.suggestions", "a list", sugg)
        rec["suggestions"] = []
        for j, g in enumerate(sugg):
            gf = f"{field}.suggestions[{j}]"
            need(isinstance(g, dict) and "paths" in g, gf, "an object with label and paths", g)
            entry = {"label": str(g.get("label", f"suggestion {j + 1}")), **_stroke(g, n, gf, timed=False)}
            entry["timed"] = all(len(x) == 3 for p in entry["paths"] for x in p)
            entry.setdefault("end_on", list(start["on"]))
            for key in ("value", "success"):
                if g.get(key) is not None:
                    need(is_num(g[key]), f"{gf}.{key}", "a finite number", g[key])
                    entry[key] = float(g[key])
            if g.get("note") is not None:
                entry["note"] = str(g["note"])
            rec["suggestions"].append(entry)
        out_shots.append(rec)
    return {"format": FORMAT, "kind": doc["kind"], "title": str(doc.get("title") or f"cuegym {doc['kind']}: {table}"),
            "table": table, "game": doc.get("game"), "balls": out_balls, "players": players, "shots": out_shots,
            "result": doc.get("result")}
