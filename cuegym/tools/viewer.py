"""The replay viewer: a viewer document (JSON) as one self-contained HTML page.

:func:`page` turns a document (format 1, docs/viewer.md) into one HTML file with the table
in inline SVG (the geometry of :func:`cuegym.envs.render.to_svg`), the balls animated from each
stroke's timed paths by inline JavaScript, and the controls (play / pause, previous / next
stroke, a scrub slider, speed), the scoreboard, the ruling of each stroke with its rulebook
clauses (id and title) and the suggestion overlay. Nothing is loaded from anywhere: no
server, no network, no external URL in the page.

Documents come from ``cuegym play`` (kind ``"frame"``, :mod:`cuegym.tools.replay`), from the
coach (kind ``"suggest"``) or from ``cuegym simulate`` (its JSON result is converted by
:func:`from_simulate`). :func:`normalize` checks a document and fills its defaults; it
raises ValueError naming the field (``shots[2].paths[5][3]: ...``).

The page exposes its state for tests and scripts on ``<body>``: ``data-t`` (time [s] into
the current stroke), ``data-shot`` (index of the current stroke), ``data-playing``
(``"1"``/``"0"``) and ``data-ready``. Its URL fragment can set the start:
``#shot=3&t=1.5&paused=1&suggest=1``.

``cuegym view DOC.json -o DOC.html`` writes the page of a document or a simulate result.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile

FORMAT = 1
KINDS = ("frame", "simulate", "suggest")
COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
SHOT_FIELDS = ("phi", "speed", "a", "b", "theta")
MAX_BALLS = 64
SVG_WIDTH = 480  # px, the table drawing's frame (cuegym.envs.render.frame); the page scales it

HELP = "turn a play / simulate / suggest JSON into a replay page (HTML)"
DESCRIPTION = ("Read DOC (a viewer document written by `cuegym play --json` or the coach, or the JSON "
               "result of `cuegym simulate`) and write one self-contained HTML page that animates it.")


# ----------------------------------------------------------------------------- files


def check_output(path, field: str) -> str:
    """``path`` as a file to write: its folder must exist and it must not be a folder;
    ValueError naming ``field`` otherwise."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"{field}: a file path, got {path!r}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{field}: the folder {folder!r} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"{field}: {path!r} is a folder, not a file")
    return path


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, renamed into
    place, so that a failure leaves no partial file."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".cuegym-", suffix=".tmp", dir=folder)
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes the file private; a page is for reading
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def dumps(doc: dict) -> str:
    return json.dumps(doc, separators=(",", ":"), allow_nan=False)


# ----------------------------------------------------------------------------- checks


def _is_num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _need(cond: bool, field: str, what: str, got=None) -> None:
    if not cond:
        tail = "" if got is None else f", got {_short(got)}"
        raise ValueError(f"{field}: {what}{tail}")


def _short(x) -> str:
    text = json.dumps(x) if not isinstance(x, str) else repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_table(name) -> str:
    from cuegym.envs import render as R

    _need(isinstance(name, str), "table", "a table name (str)", name)
    try:
        R._table_name(name)
    except ValueError as e:
        raise ValueError(f"table: {str(e).split(': ', 1)[-1]}") from None
    return name


def _layout(start, n: int | None, field: str):
    _need(isinstance(start, dict), field, "an object with xy and on", start)
    xy, on = start.get("xy"), start.get("on")
    _need(isinstance(xy, list) and len(xy) >= 1, f"{field}.xy", "a list of [x, y] ball centres [m]", xy)
    n = len(xy) if n is None else n
    _need(len(xy) == n, f"{field}.xy", f"{n} ball centres (one per ball)", len(xy))
    for i, p in enumerate(xy):
        _need(isinstance(p, list) and len(p) == 2 and all(_is_num(v) for v in p), f"{field}.xy[{i}]",
              "[x, y] in metres, finite", p)
    _need(isinstance(on, list) and len(on) == n and all(isinstance(v, bool) for v in on), f"{field}.on",
          f"{n} booleans (the balls on the table)", on)
    return {"xy": [[float(v) for v in p] for p in xy], "on": list(on)}


def _paths(paths, n: int, field: str, timed: bool = True) -> list:
    _need(isinstance(paths, list) and len(paths) == n, field, f"one path per ball ({n})",
          len(paths) if isinstance(paths, list) else paths)
    out = []
    for i, p in enumerate(paths):
        _need(isinstance(p, list), f"{field}[{i}]", "a list of [t, x, y] samples", p)
        last = -math.inf
        for k, s in enumerate(p):
            at = f"{field}[{i}][{k}]"
            ok = isinstance(s, list) and (len(s) == 3 or (not timed and len(s) == 2)) and all(_is_num(v) for v in s)
            _need(ok, at, "[t, x, y] (t [s], x, y [m]), finite" + ("" if timed else " or [x, y]"), s)
            if len(s) == 3:
                _need(s[0] >= last and s[0] >= 0, at, f"t at least the previous sample's ({max(last, 0):g} s)", s[0])
                last = s[0]
        out.append([[float(v) for v in s] for s in p])
    return out


def _shot(shot, n: int, field: str):
    if shot is None:
        return None
    _need(isinstance(shot, dict), field, "an object (cue_ball, phi, speed, a, b, theta) or null", shot)
    cue = shot.get("cue_ball")
    _need(isinstance(cue, int) and not isinstance(cue, bool) and 0 <= cue < n, f"{field}.cue_ball",
          f"a ball index in 0 .. {n - 1}", cue)
    out = {"cue_ball": cue}
    for k in SHOT_FIELDS:
        _need(_is_num(shot.get(k)), f"{field}.{k}", "a finite number", shot.get(k))
        out[k] = float(shot[k])
    return out


def _bools(x, n: int, field: str):
    _need(isinstance(x, list) and len(x) == n and all(isinstance(v, bool) for v in x), field, f"{n} booleans", x)
    return list(x)


def _ruling(r, field: str):
    if r is None:
        return None
    from cuegym.rules.catalogue import get

    _need(isinstance(r, dict), field, "an object (foul, clauses, points, scores) or null", r)
    clauses = []
    for k, c in enumerate(r.get("clauses", [])):
        if isinstance(c, str):  # an id alone: the title comes from the catalogue
            try:
                c = [c, get(c).title]
            except KeyError:
                raise ValueError(f"{field}.clauses[{k}]: {c!r} is not a clause id of the catalogue") from None
        _need(isinstance(c, list) and len(c) == 2 and all(isinstance(v, str) for v in c), f"{field}.clauses[{k}]",
              "a clause id or [id, title]", c)
        clauses.append(c)
    out = dict(r)
    out["clauses"] = clauses
    out["foul"] = bool(r.get("foul", False))
    for k in ("points", "scores"):
        if r.get(k) is not None:
            _need(isinstance(r[k], list) and len(r[k]) == 2 and all(_is_num(v) for v in r[k]), f"{field}.{k}",
                  "two numbers (player 0, player 1)", r[k])
    notes = r.get("notes", [])
    _need(isinstance(notes, list) and all(isinstance(v, str) for v in notes), f"{field}.notes", "a list of str", notes)
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
    _need(isinstance(doc, dict), "document", "a JSON object (a viewer document or a simulate result)",
          type(doc).__name__)
    _need(doc.get("format") == FORMAT, "format", f"{FORMAT} (the viewer document format)", doc.get("format"))
    _need(doc.get("kind") in KINDS, "kind", f"one of {', '.join(KINDS)}", doc.get("kind"))
    table = _check_table(doc.get("table"))
    shots = doc.get("shots")
    _need(isinstance(shots, list) and len(shots) >= 1, "shots", "a non-empty list of strokes", shots)
    _need(isinstance(shots[0], dict), "shots[0]", "an object", shots[0])
    balls = doc.get("balls")
    if isinstance(balls, list) and balls:
        n = len(balls)  # the balls name N; else the first layout does
    else:
        n = len(_layout(shots[0].get("start"), None, "shots[0].start")["xy"])
    _need(n <= MAX_BALLS, "balls", f"at most {MAX_BALLS} balls", n)
    if balls is None:
        from cuegym.tools.replay import ball_entries

        balls = ball_entries(table, ["cue"] + [str(i) for i in range(1, n)])
    _need(isinstance(balls, list) and len(balls) == n, "balls", f"one entry per ball ({n})",
          len(balls) if isinstance(balls, list) else balls)
    out_balls = []
    for i, b in enumerate(balls):
        _need(isinstance(b, dict) and isinstance(b.get("id"), str), f"balls[{i}].id", "a ball name (str)", b)
        _need(COLOR.match(str(b.get("color", ""))) is not None, f"balls[{i}].color", "a colour #rrggbb",
              b.get("color"))
        out_balls.append({"id": b["id"], "color": b["color"], "striped": bool(b.get("striped", False))})
    players = doc.get("players") or [{"name": "player 0"}, {"name": "player 1"}]
    _need(isinstance(players, list) and len(players) == 2, "players", "two players", players)
    players = [{"name": p} if isinstance(p, str) else p for p in players]
    for k, p in enumerate(players):
        _need(isinstance(p, dict) and isinstance(p.get("name"), str), f"players[{k}].name", "a str", p)
    out_shots = []
    for k, s in enumerate(shots):
        field = f"shots[{k}]"
        _need(isinstance(s, dict), field, "an object", s)
        start = _layout(s.get("start"), n, f"{field}.start")
        rec = {**{x: s[x] for x in ("frame", "agent", "choice", "label", "note") if x in s}, "start": start}
        player = s.get("player")
        _need(player in (0, 1, None) and not isinstance(player, bool), f"{field}.player", "0, 1 or null", player)
        rec["player"] = player
        rec.update(_stroke(s, n, field, timed=True))
        if rec["paths"] is None:  # nothing played: the layout at rest
            rec["paths"] = [[[0.0, *p]] if o else [] for p, o in zip(start["xy"], start["on"])]
            rec["duration"] = 0.0
        for i, (p, o) in enumerate(zip(rec["paths"], start["on"])):
            _need(bool(p) == o, f"{field}.paths[{i}]", "samples exactly for the balls on the table at the start",
                  f"{len(p)} samples, on={o}")
        rec.setdefault("end_on", list(start["on"]))
        rec["ruling"] = _ruling(s.get("ruling"), f"{field}.ruling")
        sugg = s.get("suggestions", [])
        _need(isinstance(sugg, list), f"{field}.suggestions", "a list", sugg)
        rec["suggestions"] = []
        for j, g in enumerate(sugg):
            gf = f"{field}.suggestions[{j}]"
            _need(isinstance(g, dict) and "paths" in g, gf, "an object with label and paths", g)
            entry = {"label": str(g.get("label", f"suggestion {j + 1}")), **_stroke(g, n, gf, timed=False)}
            entry["timed"] = all(len(x) == 3 for p in entry["paths"] for x in p)
            entry.setdefault("end_on", list(start["on"]))
            for key in ("value", "success"):
                if g.get(key) is not None:
                    _need(_is_num(g[key]), f"{gf}.{key}", "a finite number", g[key])
                    entry[key] = float(g[key])
            if g.get("note") is not None:
                entry["note"] = str(g["note"])
            rec["suggestions"].append(entry)
        out_shots.append(rec)
    return {"format": FORMAT, "kind": doc["kind"], "title": str(doc.get("title") or f"cuegym {doc['kind']}: {table}"),
            "table": table, "game": doc.get("game"), "balls": out_balls, "players": players, "shots": out_shots,
            "result": doc.get("result")}


# ----------------------------------------------------------------------------- simulate


def _simulate_ids(result: dict) -> list[str]:
    from cuegym.positions import GAMES

    seen = []

    def add(i):
        if i not in seen:
            seen.append(i)

    shot = result.get("shot")
    if isinstance(shot, dict) and isinstance(shot.get("cue_ball"), str):
        add(shot["cue_ball"])
    for i in result["next"].get("balls", {}):
        add(i)
    final = result.get("final") or {}
    for i in list(final.get("balls", {})) + list(final.get("pocketed", {})) + list(final.get("off_table", [])):
        add(i)
    for e in result.get("events", []):
        for i in e.get("balls", []):
            add(i)
    canon = GAMES.get(result["next"].get("game"))
    if canon is not None and set(seen) <= set(canon):  # the game's array order
        return [i for i in canon if i in seen]
    return seen


def from_simulate(result: dict) -> dict:
    """A viewer document (kind ``"simulate"``) from the JSON result of ``cuegym simulate``.

    The event log holds each involved ball's position and velocity right after each event,
    and every change of a ball's motion (strike, contacts, sliding to rolling, rolling to
    spinning or rest) is an event of that ball; in between, the ball's acceleration is
    constant (sliding and rolling friction, free flight), so each piece is the parabola
    ``p(t) = p0 + v0 (t - t0) + a (t - t0)^2 / 2`` with ``a`` fixed by the next event's
    position. It is sampled every 1/60 s and thinned like a played stroke. A ball that no
    event involves rests where ``final`` puts it.
    """
    from cuegym.tools.replay import SAMPLE_DT, ball_entries, ruling_dict, thin

    import numpy as np

    nxt = result.get("next")
    _need(isinstance(nxt, dict) and isinstance(nxt.get("table"), str), "next.table",
          "the simulate result's next position, with its table", nxt)
    table = _check_table(nxt["table"])
    events = result.get("events")
    _need(isinstance(events, list), "events", "a list of events", events)
    final = result.get("final")
    ids = _simulate_ids(result)
    index = {b: k for k, b in enumerate(ids)}
    track = {b: [] for b in ids}  # (t, pos, vel) after each event of the ball
    for k, e in enumerate(events):
        _need(isinstance(e, dict) and _is_num(e.get("t")), f"events[{k}].t", "a time [s]", e)
        for b in e.get("balls", []):
            p, v = e.get("pos", {}).get(b), e.get("vel", {}).get(b)
            _need(isinstance(p, list) and len(p) == 2 and all(_is_num(x) for x in p), f"events[{k}].pos.{b}",
                  "[x, y]", p)
            _need(isinstance(v, list) and len(v) == 2 and all(_is_num(x) for x in v), f"events[{k}].vel.{b}",
                  "[vx, vy]", v)
            track[b].append((float(e["t"]), np.array(p, float), np.array(v, float), e.get("kind")))
    rest = (final or {}).get("balls", {}) if final else nxt.get("balls", {})
    xy, on, paths = [], [], []
    for b in ids:
        tr = track[b]
        if not tr:
            if b in rest:
                p = [float(v) for v in rest[b]]
                xy.append(p), on.append(True), paths.append([[0.0, *p]])
            else:
                xy.append([0.0, 0.0]), on.append(False), paths.append([])
            continue
        xy.append([float(v) for v in tr[0][1]]), on.append(True)
        samples = [[0.0, *tr[0][1]]] if tr[0][0] > 0 else []
        for (t0, p0, v0, _), (t1, p1, _, _) in zip(tr, tr[1:]):
            dt = t1 - t0
            if dt <= 0:
                continue
            acc = 2 * (p1 - p0 - v0 * dt) / dt**2
            for tau in np.arange(0.0, dt, SAMPLE_DT):
                samples.append([t0 + tau, *(p0 + v0 * tau + 0.5 * acc * tau**2)])
        samples.append([tr[-1][0], *tr[-1][1]])
        paths.append([[round(float(t), 4), round(float(x), 5), round(float(y), 5)]
                      for t, x, y in thin(np.array(samples, float))])
    end_on = [b in rest for b in ids]
    shot = result.get("shot")
    doc_shot = None
    if final is not None and isinstance(shot, dict):
        cue = shot.get("cue_ball")
        _need(cue in index, "shot.cue_ball", f"a ball of the result ({', '.join(ids)})", cue)
        doc_shot = {"cue_ball": index[cue], **{k: shot.get(k) for k in SHOT_FIELDS}}
    ruling = None
    r = result.get("ruling")
    if isinstance(r, dict):
        notes = []
        if r.get("counted"):
            notes.append("counted: " + ", ".join(map(str, r["counted"])))
        if r.get("respotted"):
            notes.append("re-spotted: " + ", ".join(map(str, r["respotted"])))
        if r.get("replay"):
            notes.append("position restored, the stroke is replayed")
        if result.get("truncated"):
            notes.append("the stroke hit the event cap")
        ruling = ruling_dict(r.get("foul", False), r.get("fouler"), r.get("clauses", []), r.get("points", [0, 0]),
                             r.get("scores", [0, 0]), r.get("to_play"), r.get("phase"), r.get("frame_over", False),
                             r.get("winner"), notes)
    return {"format": FORMAT, "kind": "simulate", "title": f"simulate: {nxt.get('game') or 'free play'} on {table}",
            "table": table, "game": nxt.get("game"), "balls": ball_entries(table, ids),
            "shots": [{"player": None, "start": {"xy": xy, "on": on}, "shot": doc_shot, "paths": paths,
                       "end_on": end_on, "ruling": ruling}],
            "result": {"truncated": bool(result.get("truncated", False)),
                       "pocketed": (final or {}).get("pocketed", {}), "off_table": (final or {}).get("off_table", [])}}


# ----------------------------------------------------------------------------- suggest


def from_suggest(report: dict, position=None) -> dict:
    """A viewer document (kind ``"suggest"``) from ``cuegym suggest --json`` (schema
    ``cuegym.suggest/1``, docs/coach.md).

    The report holds each suggestion's noise-free stroke as untimed paths of the balls that
    moved, and not the layout. With ``position`` (a :class:`cuegym.positions.Position`, or
    the position file's path or JSON text) the layout comes from it and every suggestion is
    re-simulated into timed paths (:func:`cuegym.tools.replay.timed_paths`, the ball in hand at
    the suggestion's ``place``), so each can be animated; without it the balls shown are
    those that moved, each starting where its path starts, and the paths are drawn only.
    """
    from cuegym.tools.replay import ball_entries, path_list, timed_paths

    import numpy as np

    pos = report.get("position")
    _need(isinstance(pos, dict) and isinstance(pos.get("table"), str), "position.table",
          "the suggest report's position, with its table", pos)
    table = _check_table(pos["table"])
    sugg = report.get("suggestions")
    _need(isinstance(sugg, list), "suggestions", "a list of suggestions", sugg)
    if position is not None and not hasattr(position, "ids"):
        from cuegym.positions import load_position

        position = load_position(position)
    if position is not None:
        _need(position.table == table, "position", f"a position on the report's table {table!r}", position.table)
        ids = list(position.ids)
        xy0, on0 = position.xy(), position.on_table()
    else:
        ids = []
        for k, g in enumerate(sugg):
            paths = g.get("paths") if isinstance(g, dict) else None
            _need(isinstance(paths, dict), f"suggestions[{k}].paths", "{ball id: [[x, y], ...]}", paths)
            ids += [i for i in paths if i not in ids]
        _need(bool(ids), "suggestions", "at least one suggestion with paths (or give the position)", sugg)
        xy0 = np.zeros((len(ids), 2))
        for k, g in enumerate(sugg):
            for i, p in g["paths"].items():
                _need(isinstance(p, list) and p and isinstance(p[0], list) and len(p[0]) == 2,
                      f"suggestions[{k}].paths.{i}", "[[x, y], ...]", p)
        for n, i in enumerate(ids):
            xy0[n] = next(g["paths"][i][0] for g in sugg if i in g["paths"])
        on0 = np.ones(len(ids), bool)
    index = {b: k for k, b in enumerate(ids)}
    out = []
    for k, g in enumerate(sugg):
        f = f"suggestions[{k}]"
        _need(isinstance(g, dict) and isinstance(g.get("action"), dict), f"{f}.action", "the suggested stroke", g)
        a = g["action"]
        _need(a.get("cue_ball") in index, f"{f}.action.cue_ball", f"a ball of the position ({', '.join(ids)})",
              a.get("cue_ball"))
        for key in SHOT_FIELDS:
            _need(_is_num(a.get(key)), f"{f}.action.{key}", "a finite number", a.get(key))
        cue = index[a["cue_ball"]]
        shot = {"cue_ball": cue, **{key: float(a[key]) for key in SHOT_FIELDS}}
        target = g.get("target") or a.get("call")
        label = f"#{g.get('rank', k + 1)}" + (f": {target['ball']} in {target['pocket']}" if isinstance(target, dict) else "")
        words = [str(x.get("words")) for x in (g.get("aim"), g.get("tip")) if isinstance(x, dict) and x.get("words")]
        if isinstance(g.get("pace"), dict) and g["pace"].get("band"):
            words.insert(1, f"{g['pace']['band']} pace")
        entry = {"label": label, "shot": shot}
        if _is_num(g.get("probability")):
            entry["success"] = float(g["probability"])
        if _is_num(g.get("value")):
            entry["value"] = float(g["value"])
        if _is_num(g.get("expected_points")):
            words.append(f"expected points {g['expected_points']:+.2f}")
        entry["note"] = ", ".join(words) or None
        if position is not None:  # re-simulated: timed, every ball
            xy, on = xy0.copy(), on0.copy()
            if a.get("place") is not None:
                xy[cue], on[cue] = a["place"], True
            paths, end_on, _ = timed_paths(table, xy, on, [cue, *(shot[key] for key in SHOT_FIELDS)])
            entry.update(paths=[path_list(p) for p in paths], end_on=[bool(v) for v in end_on])
        else:
            entry["paths"] = [[[float(v) for v in pt] for pt in g["paths"].get(i, [])] or [list(map(float, xy0[n]))]
                              for n, i in enumerate(ids)]
        out.append(entry)
    return {"format": FORMAT, "kind": "suggest", "title": f"suggest: {pos.get('game') or 'pot shot'} on {table}",
            "table": table, "game": pos.get("game"), "balls": ball_entries(table, ids),
            "shots": [{"player": pos.get("to_play"), "start": {"xy": [[float(v) for v in p] for p in xy0],
                                                                "on": [bool(v) for v in on0]},
                       "suggestions": out, "note": f"{len(out)} suggestions, noise {report.get('noise')}"}],
            "result": None}


# ----------------------------------------------------------------------------- page


def _table_svg(table: str) -> tuple[str, dict]:
    """The empty table's SVG shapes (no outer <svg>, no namespace URL) and the frame
    (pixel scale [px/m], border [m], length [m], ball radius [px], width, height [px])."""
    import numpy as np

    from cuegym.envs import render as R

    fr = R.frame(table, SVG_WIDTH)
    svg = R.to_svg(table, np.zeros((0, 2)), np.zeros(0, bool), width=SVG_WIDTH)
    body = svg.split("\n", 1)[1].rsplit("</svg>", 1)[0]
    geom = {"scale": fr.scale, "border": fr.border, "length": fr.table_length, "width": fr.width,
            "height": fr.height, "r": R.get_spec(table).ball_radius * fr.scale}
    return body, geom


def _script_json(x) -> str:
    """JSON safe inside a <script> element."""
    return dumps(x).replace("</", "<\\/").replace("<!--", "<\\!--")


def page(document: dict) -> str:
    """One self-contained HTML page (str) showing ``document`` (checked with
    :func:`normalize`; a simulate result is converted). No external URL: styles, script
    and drawing are inline."""
    from xml.sax.saxutils import escape

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
    return (_TEMPLATE.replace("%TITLE%", escape(doc["title"])).replace("%SVG%", svg)
            .replace("%DOC%", _script_json(doc)).replace("%GEOM%", _script_json(geom)).replace("%CSS%", _CSS)
            .replace("%JS%", _JS))


def _dark(color: str) -> bool:
    r, g, b = (int(color[k:k + 2], 16) for k in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b < 110


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%TITLE%</title>
<style>%CSS%</style></head>
<body data-t="0" data-shot="0" data-playing="0" data-ready="0">
<main>
<div id="board">%SVG%</div>
<aside>
<h1>%TITLE%</h1>
<section id="scoreboard" aria-label="scoreboard"></section>
<section id="controls">
 <button id="prev" title="previous stroke (left arrow)">&#9664;&#9664;</button>
 <button id="play" title="play / pause (space)">play</button>
 <button id="next" title="next stroke (right arrow)">&#9654;&#9654;</button>
 <label>speed <select id="speed"><option>0.25</option><option>0.5</option><option selected>1</option><option>2</option><option>4</option></select></label>
 <input id="scrub" type="range" min="0" max="1000" value="0" aria-label="time in the stroke">
 <div id="clock"></div>
 <label><input id="show-trails" type="checkbox" checked> paths</label>
 <label><input id="show-sugg" type="checkbox"> suggestions</label>
 <label>animate <select id="source"></select></label>
</section>
<section id="stroke"></section>
<section id="ruling" aria-label="ruling"></section>
<section id="suggestions"></section>
<section id="result"></section>
<details id="list-box"><summary>all strokes</summary><ol id="list"></ol></details>
</aside>
</main>
<script type="application/json" id="doc">%DOC%</script>
<script type="application/json" id="geom">%GEOM%</script>
<script>%JS%</script>
</body></html>
"""

_CSS = """
body{margin:0;background:#1d2326;color:#e8ecef;font:14px/1.4 system-ui,sans-serif}
main{display:flex;gap:16px;padding:10px;align-items:flex-start}
#board{flex:0 0 auto}
#table{height:calc(100vh - 20px);width:auto;max-width:60vw;display:block}
aside{flex:1 1 auto;min-width:320px;max-width:560px}
h1{font-size:16px;margin:4px 0 8px}
section{background:#283035;border-radius:6px;padding:8px 10px;margin-bottom:8px}
#scoreboard table{width:100%;border-collapse:collapse;font-size:16px}
#scoreboard td{padding:3px 6px}#scoreboard td.score{text-align:right;font-weight:bold;font-size:20px}
#scoreboard tr.to-play td:first-child::before{content:"\\25B6  ";color:#ffd54a}
#controls button{font-size:14px;min-width:48px;padding:4px 8px}
#scrub{width:100%;margin:8px 0 2px}
#clock{font-variant-numeric:tabular-nums;color:#aeb8bf;font-size:12px;margin-bottom:4px}
#controls label{margin-right:10px;font-size:13px}
.verdict{font-weight:bold;font-size:15px}.foul{color:#ff6b6b}.fair{color:#7ee08a}
#ruling ul{margin:4px 0 0;padding-left:18px}#ruling code{color:#ffd54a}
.muted{color:#aeb8bf;font-size:12px}
#suggestions li{cursor:pointer}#suggestions .swatch{display:inline-block;width:14px;height:4px;margin-right:6px;vertical-align:middle}
#list{max-height:30vh;overflow:auto;font-size:12px;padding-left:28px}#list li{cursor:pointer}#list li.current{color:#ffd54a}
"""

_JS = r"""
(function(){
'use strict';
const D = JSON.parse(document.getElementById('doc').textContent);
const G = JSON.parse(document.getElementById('geom').textContent);
const $ = id => document.getElementById(id);
const ballEls = Array.from(document.querySelectorAll('#balls .ball'));
const trailEls = Array.from(document.querySelectorAll('#trails .trail'));
const PALETTE = ['#ffd54a', '#4ac8ff', '#ff7ad9', '#9cff57', '#ff9f43'];
const HOLD = 0.8;  // s of rest at the end of a stroke before the next one starts
const S = {shot: 0, t: 0, playing: false, speed: 1, src: -1, hold: 0, last: null};
const px = (x, y) => [(x + G.border) * G.scale, (G.length + G.border - y) * G.scale];
const fmt = (x, d) => Number(x).toFixed(d);
const deg = a => ((a * 180 / Math.PI) % 360 + 360) % 360;  // a direction in [0, 360) degrees
const player = p => (p === null || p === undefined) ? 'the striker' : D.players[p].name;

function source(){  // the stroke animated: as played (-1) or suggestion k
  const sh = D.shots[S.shot];
  return (S.src >= 0 && sh.suggestions[S.src] && sh.suggestions[S.src].timed) ? sh.suggestions[S.src] : sh;
}
function duration(){ return source().duration || 0; }

function at(path, t){  // [x, y] on a timed path at time t (linear between samples)
  if (path.length === 1 || t <= path[0][0]) return [path[0][1], path[0][2]];
  let lo = 0, hi = path.length - 1;
  if (t >= path[hi][0]) return [path[hi][1], path[hi][2]];
  while (hi - lo > 1){ const m = (lo + hi) >> 1; if (path[m][0] <= t) lo = m; else hi = m; }
  const a = path[lo], b = path[hi], w = (t - a[0]) / ((b[0] - a[0]) || 1);
  return [a[1] + w * (b[1] - a[1]), a[2] + w * (b[2] - a[2])];
}

function scoresAt(){  // the score before the current stroke, or after it once it has ended
  const sh = D.shots[S.shot];
  if (sh.ruling && sh.ruling.scores && S.t >= duration()) return sh.ruling.scores;
  for (let k = S.shot - 1; k >= 0; k--){
    const p = D.shots[k];
    if (p.frame !== sh.frame) break;
    if (p.ruling && p.ruling.scores) return p.ruling.scores;
  }
  return null;
}

function drawBalls(){
  const src = source(), t = S.t;
  ballEls.forEach((el, i) => {
    const p = src.paths[i];
    if (!p || !p.length){ el.setAttribute('visibility', 'hidden'); return; }
    const gone = !src.end_on[i] && t >= p[p.length - 1][0] && duration() > 0;
    const q = at(p, t), c = px(q[0], q[1]);
    el.setAttribute('transform', 'translate(' + fmt(c[0], 2) + ',' + fmt(c[1], 2) + ')');
    el.setAttribute('visibility', gone ? 'hidden' : 'visible');
  });
  const show = $('show-trails').checked;
  trailEls.forEach((el, i) => {
    const p = src.paths[i];
    if (!show || !p || p.length < 2){ el.setAttribute('points', ''); return; }
    const pts = [];
    for (const s of p){ if (s[0] > t) break; pts.push(px(s[1], s[2])); }
    const q = at(p, t); pts.push(px(q[0], q[1]));
    el.setAttribute('points', pts.map(c => fmt(c[0], 1) + ',' + fmt(c[1], 1)).join(' '));
  });
}

function drawSuggestions(){
  const sh = D.shots[S.shot], g = $('sugg');
  let svg = '';
  if ($('show-sugg').checked){
    sh.suggestions.forEach((s, k) => {
      const col = PALETTE[k % PALETTE.length];
      s.paths.forEach((p, i) => {
        if (p.length < 2) return;
        const pts = p.map(v => px(v[v.length - 2], v[v.length - 1])).map(c => fmt(c[0], 1) + ',' + fmt(c[1], 1)).join(' ');
        const w = (s.shot && i === s.shot.cue_ball) ? 2.5 : 1.5;
        svg += '<polyline class="suggestion" data-suggestion="' + k + '" points="' + pts + '" fill="none" stroke="' + col +
               '" stroke-width="' + w + '" stroke-dasharray="6 4" stroke-opacity="0.9"/>';
      });
    });
  }
  g.innerHTML = svg;
}

function el(tag, text, cls){ const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }

function drawScoreboard(){
  const sh = D.shots[S.shot], box = $('scoreboard'), sc = scoresAt() || [0, 0];
  box.textContent = '';
  const tab = el('table');
  [0, 1].forEach(p => {
    const tr = el('tr'); if (sh.player === p) tr.className = 'to-play';
    tr.appendChild(el('td', D.players[p].name)); tr.appendChild(el('td', String(sc[p]), 'score'));
    tab.appendChild(tr);
  });
  box.appendChild(tab);
  const frames = D.shots.filter(s => s.frame !== undefined).length ? (sh.frame + 1) : null;
  box.appendChild(el('div', (frames ? 'frame ' + frames + ' · ' : '') + 'stroke ' + (S.shot + 1) + ' of ' + D.shots.length, 'muted'));
}

function drawStroke(){
  const sh = D.shots[S.shot], box = $('stroke');
  box.textContent = '';
  box.appendChild(el('div', player(sh.player), 'verdict'));
  const s = sh.shot;
  if (s){
    const id = D.balls[s.cue_ball].id;
    box.appendChild(el('div', 'strikes ball ' + id + ': direction ' + fmt(deg(s.phi), 1) + '°, speed ' + fmt(s.speed, 2) +
      ' m/s, tip offset a ' + fmt(s.a, 2) + ' / b ' + fmt(s.b, 2) + ' ball radii, cue elevation ' + fmt(s.theta * 180 / Math.PI, 1) + '°'));
  } else if (sh.choice !== undefined){
    box.appendChild(el('div', 'no stroke: ball ' + sh.choice + ' is chosen'));
  } else {
    box.appendChild(el('div', 'no stroke'));
  }
  if (sh.label) box.appendChild(el('div', sh.label, 'muted'));
  if (sh.note) box.appendChild(el('div', sh.note, 'muted'));
}

function drawRuling(){
  const r = D.shots[S.shot].ruling, box = $('ruling');
  box.textContent = '';
  box.appendChild(el('div', 'Ruling', 'muted'));
  if (!r){ box.appendChild(el('div', D.shots[S.shot].shot ? 'no ruling (no referee for this position)' : 'nothing played')); return; }
  const foulText = r.foul ? 'FOUL' + (r.fouler !== null && r.fouler !== undefined ? ' by ' + player(r.fouler) : '') : 'no foul';
  box.appendChild(el('div', foulText, 'verdict ' + (r.foul ? 'foul' : 'fair')));
  const pts = r.points ? 'points ' + r.points.join(' : ') : '';
  const scs = r.scores ? 'scores ' + r.scores.join(' : ') : '';
  if (pts || scs) box.appendChild(el('div', [pts, scs].filter(Boolean).join(' · ')));
  const ul = el('ul');
  r.clauses.forEach(c => { const li = el('li'); li.appendChild(el('code', c[0])); li.appendChild(document.createTextNode(' ' + c[1])); ul.appendChild(li); });
  if (r.clauses.length) box.appendChild(ul);
  (r.notes || []).forEach(n => box.appendChild(el('div', n, 'muted')));
  if (r.frame_over) box.appendChild(el('div', 'frame over' + (r.winner !== null && r.winner !== undefined ? ': ' + player(r.winner) + ' wins' : ''), 'verdict'));
  else if (r.to_play !== null && r.to_play !== undefined) box.appendChild(el('div', 'next: ' + player(r.to_play) + (r.phase ? ', ' + String(r.phase).replace(/_/g, ' ') : ''), 'muted'));
}

function drawSuggestionList(){
  const sh = D.shots[S.shot], box = $('suggestions'), srcSel = $('source');
  box.textContent = '';
  srcSel.textContent = '';
  const o = el('option', 'as played'); o.value = '-1'; srcSel.appendChild(o);
  if (!sh.suggestions.length){ box.style.display = 'none'; return; }
  box.style.display = '';
  box.appendChild(el('div', 'Suggestions (dashed on the table)', 'muted'));
  const ul = el('ul');
  sh.suggestions.forEach((s, k) => {
    const li = el('li'); const sw = el('span', '', 'swatch'); sw.style.background = PALETTE[k % PALETTE.length];
    li.appendChild(sw);
    let text = s.label;
    if (s.value !== undefined) text += ' · value ' + fmt(s.value, 3);
    if (s.success !== undefined) text += ' · success ' + fmt(100 * s.success, 0) + '%';
    if (s.shot) text += ' · ' + fmt(deg(s.shot.phi), 1) + '°, ' + fmt(s.shot.speed, 2) + ' m/s';
    li.appendChild(document.createTextNode(text));
    if (s.note) li.appendChild(el('div', s.note, 'muted'));
    li.addEventListener('click', () => { $('show-sugg').checked = true; if (s.timed){ S.src = k; srcSel.value = String(k); } S.t = 0; draw(true); });
    ul.appendChild(li);
    if (s.timed){ const so = el('option', s.label); so.value = String(k); srcSel.appendChild(so); }
  });
  box.appendChild(ul);
  srcSel.value = String(S.src);
}

function drawResult(){
  const box = $('result'), r = D.result;
  if (!r){ box.style.display = 'none'; return; }
  box.textContent = '';
  if (r.frames){
    r.frames.forEach(f => box.appendChild(el('div', 'frame ' + (f.frame + 1) + ': ' + f.scores.join(' : ') +
      (f.winner !== null && f.winner !== undefined ? ', ' + player(f.winner) + ' wins' : (f.truncated ? ', cut at ' + f.shots + ' decisions' : '')))));
    if (r.wins) box.appendChild(el('div', 'frames won ' + r.wins.join(' : '), 'muted'));
  } else {
    Object.keys(r).forEach(k => {
      const v = r[k], text = (v && typeof v === 'object') ? (Object.keys(v).length ? JSON.stringify(v) : 'none') : String(v);
      box.appendChild(el('div', k.replace(/_/g, ' ') + ': ' + text));
    });
  }
}

function drawList(){
  const ol = $('list');
  if (!ol.childElementCount){
    D.shots.forEach((sh, k) => {
      const r = sh.ruling;
      const li = el('li', player(sh.player) + (sh.shot ? ', ' + fmt(sh.shot.speed, 1) + ' m/s' : ', no stroke') +
        (r ? (r.foul ? ' · foul' : '') + (r.points ? ' · ' + r.points.join(':') : '') : ''));
      li.addEventListener('click', () => go(k));
      ol.appendChild(li);
    });
  }
  Array.from(ol.children).forEach((li, k) => li.classList.toggle('current', k === S.shot));
}

function drawClock(){
  const d = duration();
  $('scrub').value = String(d > 0 ? Math.round(1000 * Math.min(S.t / d, 1)) : 1000);
  $('clock').textContent = 't ' + fmt(S.t, 2) + ' s of ' + fmt(d, 2) + ' s · speed ×' + S.speed;
  $('play').textContent = S.playing ? 'pause' : 'play';
  document.body.dataset.t = fmt(S.t, 3);
  document.body.dataset.shot = String(S.shot);
  document.body.dataset.playing = S.playing ? '1' : '0';
}

let drawnShot = -1;
function draw(full){
  if (full || drawnShot !== S.shot){
    drawnShot = S.shot;
    drawStroke(); drawRuling(); drawSuggestionList(); drawSuggestions(); drawList();
  }
  drawScoreboard(); drawBalls(); drawClock();
}

function go(k){ S.shot = Math.max(0, Math.min(D.shots.length - 1, k)); S.t = 0; S.hold = 0; S.src = -1; draw(true); }

function tick(){
  const now = performance.now();
  const dt = S.last === null ? 0 : Math.min((now - S.last) / 1000, 0.25);
  S.last = now;
  if (S.playing){
    const d = duration();
    S.t += dt * S.speed;
    if (S.t >= d){
      S.t = d; S.hold += dt;
      if (S.hold >= HOLD){
        if (S.shot + 1 < D.shots.length){ S.shot += 1; S.t = 0; S.hold = 0; S.src = -1; }
        else S.playing = false;
      }
    }
    draw(false);
  }
  setTimeout(tick, 30);
}

$('play').addEventListener('click', () => {
  if (!S.playing && S.shot === D.shots.length - 1 && S.t >= duration()) go(0);
  S.playing = !S.playing; S.hold = 0; draw(false);
});
$('prev').addEventListener('click', () => go(S.t > 0.05 ? S.shot : S.shot - 1));
$('next').addEventListener('click', () => go(S.shot + 1));
$('speed').addEventListener('change', e => { S.speed = Number(e.target.value); draw(false); });
$('scrub').addEventListener('input', e => { S.playing = false; S.t = Number(e.target.value) / 1000 * duration(); draw(false); });
$('show-trails').addEventListener('change', () => draw(false));
$('show-sugg').addEventListener('change', () => draw(true));
$('source').addEventListener('change', e => { S.src = Number(e.target.value); S.t = 0; S.hold = 0; draw(true); });
document.addEventListener('keydown', e => {
  if (e.target.tagName === 'SELECT' || e.target.tagName === 'INPUT') return;
  if (e.key === ' '){ e.preventDefault(); $('play').click(); }
  else if (e.key === 'ArrowLeft') $('prev').click();
  else if (e.key === 'ArrowRight') $('next').click();
});

// start: the URL fragment may set shot, t, paused, suggest, src (e.g. #shot=3&t=1.5&paused=1&suggest=1)
const h = new URLSearchParams(location.hash.replace(/^#/, ''));
S.shot = Math.max(0, Math.min(D.shots.length - 1, parseInt(h.get('shot') || '0', 10) || 0));
if (h.get('suggest') === '1') $('show-sugg').checked = true;
if (h.get('src') !== null){ const k = parseInt(h.get('src'), 10); if (D.shots[S.shot].suggestions[k] && D.shots[S.shot].suggestions[k].timed) S.src = k; }
S.t = Math.max(0, Math.min(duration(), parseFloat(h.get('t') || '0') || 0));
S.playing = h.get('paused') !== '1';
drawResult(); draw(true);
document.body.dataset.ready = '1';
tick();
})();
"""


# ----------------------------------------------------------------------------- command


def load_document(path: str) -> dict:
    """The JSON document in ``path``; ValueError naming ``document`` when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise ValueError(f"document: no file {path!r}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"document: cannot read {path!r}: {e}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"document: {path!r} is not JSON ({e})") from None


def add_arguments(parser) -> None:
    parser.add_argument("document", metavar="DOC",
                        help="a viewer document, a `cuegym simulate` result or a `cuegym suggest --json` report (JSON file)")
    parser.add_argument("-o", "--output", required=True, metavar="HTML", help="the page to write")
    parser.add_argument("--position", metavar="POSITION",
                        help="for a suggest report: the position it was asked about, to show every ball and "
                             "animate the suggestions")


def run(args) -> int:
    import sys

    try:
        check_output(args.output, "output")
        doc = load_document(args.document)
        if getattr(args, "position", None):
            is_report = isinstance(doc, dict) and str(doc.get("schema", "")).startswith("cuegym.suggest/")
            _need(is_report, "position", "given only with a `cuegym suggest --json` report", args.position)
            doc = from_suggest(doc, args.position)
        html = page(doc)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    write_atomic(args.output, html)
    print(f"wrote {args.output}")
    return 0
