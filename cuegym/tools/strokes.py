"""Strokes as the viewer documents hold them: timed ball paths, ball entries, shots and rulings.

:func:`timed_paths` re-simulates a stroke into each ball's timed samples ``[t, x, y]`` and
:func:`thin` drops the samples a linear interpolation reproduces within a tolerance. The
other helpers turn a stroke, its balls and its ruling into the JSON pieces of a viewer
document (docs/viewer.md). Both :mod:`cuegym.tools.replay` and the viewer's converters
(:mod:`cuegym.tools.viewer_convert`) build documents from these.
"""

from __future__ import annotations

import numpy as np

SAMPLE_DT = 1 / 60  # s between path samples before thinning (event times are always sampled)
THIN_TOL = 5e-4  # m: a dropped sample is at most this far from the linear interpolation of those kept


# ----------------------------------------------------------------------------- paths


def thin(path: np.ndarray, tol: float = THIN_TOL) -> np.ndarray:
    """Drop samples of a timed path (K, 3) ``[t, x, y]`` while every dropped sample stays
    within ``tol`` [m] of the position interpolated linearly in time between the samples
    kept around it (Douglas-Peucker with time as the parameter). The first and last samples
    are kept. Returns (K', 3), K' <= K."""
    path = np.asarray(path, float)
    if len(path) <= 2:
        return path
    keep = np.zeros(len(path), bool)
    keep[[0, -1]] = True
    stack = [(0, len(path) - 1)]
    while stack:
        i, j = stack.pop()
        if j - i < 2:
            continue
        t0, t1 = path[i, 0], path[j, 0]
        mid = path[i + 1:j]
        w = (mid[:, 0] - t0) / (t1 - t0) if t1 > t0 else np.zeros(len(mid))
        guess = path[i, 1:] + w[:, None] * (path[j, 1:] - path[i, 1:])
        err = np.hypot(*(mid[:, 1:] - guess).T)
        k = int(np.argmax(err))
        if err[k] > tol:
            m = i + 1 + k
            keep[m] = True
            stack += [(i, m), (m, j)]
    return path[keep]


def timed_paths(table_name: str, xy_before, on_before, shot6, dt: float = SAMPLE_DT, tol: float = THIN_TOL):
    """Each ball's timed path during a stroke, re-simulated (the timed counterpart of
    :func:`cuegym.envs.render.stroke_paths`, same checks and same compiled program).

    Args:
      table_name: a table name.
      xy_before: (N, 2) ball centres [m] before the stroke (a ball in hand already placed).
      on_before: (N,) bool, the balls on the table before the stroke.
      shot6: (6,) cue_ball, phi [rad], speed [m/s], a, b [ball radii], theta [rad].
      dt: sampling step [s]; every event time is sampled too.
      tol: thinning tolerance [m] (:func:`thin`).

    Returns:
      (paths, end_on, duration): paths a list of N arrays (K_i, 3) ``[t, x, y]`` (t [s] from
      the strike): ball i from the strike until it rests, drops into a pocket or leaves the
      table; a ball that never moves has one sample at t = 0; a ball not on the table an
      empty (0, 3) array. end_on (N,) bool: on the table when the balls stop. duration [s]:
      the time of the last event.
    """
    from cuegym.envs import render as R
    from cuegym.physics import OFF_TABLE, POCKETED, at_rest, get_table, make_shot, simulate
    from cuegym.physics import events as ev
    from cuegym.physics.simulate import DEFAULT_MAX_EVENTS
    from cuegym.physics.trace import positions_at

    table_name = R.check_table_name(table_name)
    xy, on = R.check_layout(xy_before, on_before)
    n = xy.shape[0]
    cue, s = R.check_shot(shot6, n, on)
    table = get_table(table_name)
    balls = at_rest(xy, on)
    shot = make_shot(cue, s[1], s[2], s[3], s[4], s[5])
    final, log, _ = simulate(table, balls, shot, max_events=DEFAULT_MAX_EVENTS)
    if bool(log.overflow):  # the strike, a take-off and every event of the loop
        final, log, _ = simulate(table, balls, shot, max_events=DEFAULT_MAX_EVENTS,
                                 log_capacity=DEFAULT_MAX_EVENTS + 2)
    count = int(log.count)
    t_ev = np.asarray(log.t)[:count]
    end = float(t_ev[-1]) if count else 0.0
    times = np.unique(np.concatenate([np.arange(0.0, end, dt), t_ev, [end]]))
    pos = positions_at(table, balls, log, times)[:, :, :2]  # (T, N, 2)
    stop_t = np.full(n, np.inf)  # a ball's path stops at its pocket or off-table event
    kinds, who = np.asarray(log.kind)[:count], np.asarray(log.ball)[:count]
    for k in range(count):
        if kinds[k] in (ev.POCKET, ev.OFF_TABLE_EV) and not np.isfinite(stop_t[who[k]]):
            stop_t[who[k]] = t_ev[k]
    paths = []
    for i in range(n):
        if not on[i]:
            paths.append(np.zeros((0, 3)))
            continue
        keep = times <= stop_t[i]
        p = np.concatenate([times[keep, None], pos[keep, i]], 1)
        still = np.all(p[:, 1:] == p[0, 1:])
        paths.append(p[:1] if still else thin(p, tol))
    state = np.asarray(final.state)
    end_on = on & (state != POCKETED) & (state != OFF_TABLE)
    return paths, end_on, end


# ----------------------------------------------------------------------------- document pieces


def ball_names(task: str, n: int) -> list[str]:
    """The N ball names of a task: its game's ids (:data:`cuegym.positions.GAMES`) when they
    fit, else "cue" for ball 0 and the index for the others."""
    from cuegym.positions import GAMES

    ids = GAMES.get(task)
    if ids is not None and len(ids) == n:
        return list(ids)
    return ["cue"] + [str(i) for i in range(1, n)]


def ball_entries(table_name: str, names) -> list[dict]:
    """The document's ``balls``: ``{"id", "color" "#rrggbb", "striped"}`` per ball, colours
    from :func:`cuegym.envs.render.ball_colors` (by name where the table's set knows the names,
    else by index)."""
    from cuegym.envs import render as R

    try:
        cols, striped = R.ball_colors(table_name, len(names), list(names))
    except (ValueError, KeyError):
        cols, striped = R.ball_colors(table_name, len(names))
    return [{"id": str(name), "color": "#{:02x}{:02x}{:02x}".format(*(int(v) for v in c)), "striped": bool(s)}
            for name, c, s in zip(names, cols, striped)]


def rounded(x, digits: int = 6):
    """Floats rounded for the document (1e-6 m, 1e-6 s), lists kept nested."""
    if isinstance(x, (list, tuple, np.ndarray)):
        return [rounded(v, digits) for v in x]
    return round(float(x), digits)


def path_list(path: np.ndarray) -> list:
    return [[round(float(t), 4), round(float(x), 5), round(float(y), 5)] for t, x, y in path]


def shot_dict(shot6) -> dict:
    s = [float(v) for v in shot6]
    return {"cue_ball": int(s[0]), "phi": rounded(s[1]), "speed": rounded(s[2]), "a": rounded(s[3]), "b": rounded(s[4]), "theta": rounded(s[5])}


def ruling_dict(foul: bool, fouler, clause_ids, points, scores, to_play, phase, frame_over: bool, winner,
                notes=()) -> dict:
    """A ruling for the document: each clause as ``[id, title]`` (catalogue titles)."""
    from cuegym.rules.catalogue import get

    clauses = []
    for cid in clause_ids:
        try:
            title = get(cid).title
        except KeyError:
            title = "(not in the catalogue)"
        clauses.append([cid, title])
    return {"foul": bool(foul), "fouler": fouler, "clauses": clauses, "points": [int(p) for p in points],
            "scores": [int(s) for s in scores], "to_play": to_play, "phase": phase, "frame_over": bool(frame_over),
            "winner": winner, "notes": list(notes)}
