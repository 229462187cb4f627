"""Ball paths of a stroke for drawing: :func:`stroke_paths` re-simulates a stroke into polylines."""

from __future__ import annotations

import math

import numpy as np

from cuegym.envs.render_scene import check_layout, check_table_name
from cuegym.physics import get_table


def check_shot(shot6, n, on):
    """(cue ball index, shot6 (6,) float) of a checked stroke on N balls; ValueError naming a bad field."""
    from cuegym.physics.strike import SHOT_LIMITS

    s = np.asarray(shot6, float)
    if s.shape != (6,):
        raise ValueError(f"shot6: (cue_ball, phi, speed, a, b, theta), shape (6,) expected, got {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError(f"shot6: NaN or inf in {s.tolist()}")
    cue = int(s[0])
    if cue != s[0] or not 0 <= cue < n:
        raise ValueError(f"shot6[0] (cue_ball): an integer ball index in [0, {n - 1}], got {s[0]}")
    if not on[cue]:
        raise ValueError(f"shot6[0] (cue_ball): ball {cue} is not on the table")
    for k, name in enumerate(("phi", "speed", "a", "b", "theta"), start=1):
        lo, hi = (float(v) for v in SHOT_LIMITS[name])
        if not lo <= s[k] <= hi:
            raise ValueError(f"shot6[{k}] ({name}): in [{lo:g}, {hi:g}], got {s[k]}")
    return cue, s


def stroke_paths(table_name: str, xy_before, on_before, shot6, dt: float = 1 / 120,
                 max_events: int | None = None) -> list[np.ndarray]:
    """Each ball's path during a stroke, re-simulated.

    Args:
      table_name: a table name.
      xy_before: (N, 2) ball centres [m] before the stroke (a ball in hand already placed).
      on_before: (N,) bool, balls on the table before the stroke.
      shot6: (6,) cue_ball, phi [rad], speed [m/s], a, b [ball radii], theta [rad] — the shot
        as struck (after any execution noise), so that the paths are the stroke's own.
      dt: time step [s] between samples (every event time is sampled too, so cushion and
        ball contacts are exact corners).
      max_events: event cap (default the simulator's).

    Returns:
      N arrays (K_i, 2) [m]: ball i's centre from the strike until it rests, drops into a
      pocket or leaves the table; a ball that never moves (or is off the table) has one
      point (its position; for an absent ball, where ``xy_before`` puts it).

    Deterministic. The stroke runs through :func:`cuegym.physics.simulate` with its default
    log capacity (one compiled program per table and ball count, shared with every other
    caller); only a stroke with more events than that log holds is run again with room for
    all of them.
    """
    from cuegym.physics import at_rest, make_shot, simulate
    from cuegym.physics import events as ev
    from cuegym.physics.simulate import DEFAULT_MAX_EVENTS
    from cuegym.physics.trace import positions_at

    table_name = check_table_name(table_name)
    xy, on = check_layout(xy_before, on_before)
    n = xy.shape[0]
    cue, s = check_shot(shot6, n, on)
    if not (isinstance(dt, (int, float)) and math.isfinite(dt) and 1e-4 <= dt <= 1.0):
        raise ValueError(f"dt: a sampling step in [1e-4, 1] seconds, got {dt!r}")
    max_events = DEFAULT_MAX_EVENTS if max_events is None else int(max_events)
    table = get_table(table_name)
    balls = at_rest(xy, on)
    shot = make_shot(cue, s[1], s[2], s[3], s[4], s[5])
    final, log, _ = simulate(table, balls, shot, max_events=max_events)
    if bool(log.overflow):  # the strike, a take-off and every event of the loop
        final, log, _ = simulate(table, balls, shot, max_events=max_events, log_capacity=max_events + 2)
    count = int(log.count)
    t_ev = np.asarray(log.t)[:count]
    end = float(t_ev[-1]) if count else 0.0
    times = np.unique(np.concatenate([np.arange(0.0, end, dt), t_ev, [end]]))
    pos = positions_at(table, balls, log, times)[:, :, :2]  # (T, N, 2)
    # a ball's path stops at its pocket or off-table event
    stop_t = np.full(n, np.inf)
    kinds, who = np.asarray(log.kind)[:count], np.asarray(log.ball)[:count]
    for k in range(count):
        if kinds[k] in (ev.POCKET, ev.OFF_TABLE_EV) and not np.isfinite(stop_t[who[k]]):
            stop_t[who[k]] = t_ev[k]
    out = []
    for i in range(n):
        if not on[i]:
            out.append(xy[i][None].copy())
            continue
        p = pos[times <= stop_t[i], i]
        step = np.concatenate([[True], np.any(p[1:] != p[:-1], -1)])
        out.append(p[step])
    return out
