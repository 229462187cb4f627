"""Converters into viewer documents: a ``cuegym simulate`` result and a ``cuegym suggest`` report.

:func:`from_simulate` rebuilds each ball's timed path from the simulate event log;
:func:`from_suggest` lays out the coach's suggestions, re-simulated into timed paths when
the position is given (docs/viewer.md).
"""

from __future__ import annotations

import numpy as np

from cuegym.tools.strokes import SAMPLE_DT, ball_entries, path_list, ruling_dict, thin, timed_paths
from cuegym.tools.viewer_checks import FORMAT, SHOT_FIELDS, check_table, is_num, need

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
    nxt = result.get("next")
    need(isinstance(nxt, dict) and isinstance(nxt.get("table"), str), "next.table",
          "the simulate result's next position, with its table", nxt)
    table = check_table(nxt["table"])
    events = result.get("events")
    need(isinstance(events, list), "events", "a list of events", events)
    final = result.get("final")
    ids = _simulate_ids(result)
    index = {b: k for k, b in enumerate(ids)}
    track = {b: [] for b in ids}  # (t, pos, vel) after each event of the ball
    for k, e in enumerate(events):
        need(isinstance(e, dict) and is_num(e.get("t")), f"events[{k}].t", "a time [s]", e)
        for b in e.get("balls", []):
            p, v = e.get("pos", {}).get(b), e.get("vel", {}).get(b)
            need(isinstance(p, list) and len(p) == 2 and all(is_num(x) for x in p), f"events[{k}].pos.{b}",
                  "[x, y]", p)
            need(isinstance(v, list) and len(v) == 2 and all(is_num(x) for x in v), f"events[{k}].vel.{b}",
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
        need(cue in index, "shot.cue_ball", f"a ball of the result ({', '.join(ids)})", cue)
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
    re-simulated into timed paths (:func:`cuegym.tools.strokes.timed_paths`, the ball in hand at
    the suggestion's ``place``), so each can be animated; without it the balls shown are
    those that moved, each starting where its path starts, and the paths are drawn only.
    """
    pos = report.get("position")
    need(isinstance(pos, dict) and isinstance(pos.get("table"), str), "position.table",
          "the suggest report's position, with its table", pos)
    table = check_table(pos["table"])
    sugg = report.get("suggestions")
    need(isinstance(sugg, list), "suggestions", "a list of suggestions", sugg)
    if position is not None and not hasattr(position, "ids"):
        from cuegym.positions import load_position

        position = load_position(position)
    if position is not None:
        need(position.table == table, "position", f"a position on the report's table {table!r}", position.table)
        ids = list(position.ids)
        xy0, on0 = position.xy(), position.on_table()
    else:
        ids = []
        for k, g in enumerate(sugg):
            paths = g.get("paths") if isinstance(g, dict) else None
            need(isinstance(paths, dict), f"suggestions[{k}].paths", "{ball id: [[x, y], ...]}", paths)
            ids += [i for i in paths if i not in ids]
        need(bool(ids), "suggestions", "at least one suggestion with paths (or give the position)", sugg)
        xy0 = np.zeros((len(ids), 2))
        for k, g in enumerate(sugg):
            for i, p in g["paths"].items():
                need(isinstance(p, list) and p and isinstance(p[0], list) and len(p[0]) == 2,
                      f"suggestions[{k}].paths.{i}", "[[x, y], ...]", p)
        for n, i in enumerate(ids):
            xy0[n] = next(g["paths"][i][0] for g in sugg if i in g["paths"])
        on0 = np.ones(len(ids), bool)
    index = {b: k for k, b in enumerate(ids)}
    out = []
    for k, g in enumerate(sugg):
        f = f"suggestions[{k}]"
        need(isinstance(g, dict) and isinstance(g.get("action"), dict), f"{f}.action", "the suggested stroke", g)
        a = g["action"]
        need(a.get("cue_ball") in index, f"{f}.action.cue_ball", f"a ball of the position ({', '.join(ids)})",
              a.get("cue_ball"))
        for key in SHOT_FIELDS:
            need(is_num(a.get(key)), f"{f}.action.{key}", "a finite number", a.get(key))
        cue = index[a["cue_ball"]]
        shot = {"cue_ball": cue, **{key: float(a[key]) for key in SHOT_FIELDS}}
        target = g.get("target") or a.get("call")
        label = f"#{g.get('rank', k + 1)}" + (f": {target['ball']} in {target['pocket']}" if isinstance(target, dict) else "")
        words = [str(x.get("words")) for x in (g.get("aim"), g.get("tip")) if isinstance(x, dict) and x.get("words")]
        if isinstance(g.get("pace"), dict) and g["pace"].get("band"):
            words.insert(1, f"{g['pace']['band']} pace")
        entry = {"label": label, "shot": shot}
        if is_num(g.get("probability")):
            entry["success"] = float(g["probability"])
        if is_num(g.get("value")):
            entry["value"] = float(g["value"])
        if is_num(g.get("expected_points")):
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
