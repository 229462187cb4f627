"""Replays: frames played between agents through the env, recorded as a viewer document.

:func:`play_frames` plays ``frames`` frames of a game between two agents (player 0's and
player 1's, :data:`cuegym.agents.AGENTS`) through the Gymnasium env with no built-in
opponent, so every decision is an agent's and is recorded: the layout the stroke started
from (ball in hand placed), the stroke as struck (after execution noise), every ball's
path during the stroke as timed samples ``[t, x, y]`` (:func:`timed_paths`), and the
referee's ruling (foul, the catalogue clauses with their titles, points, scores). Each
stroke also carries one suggestion, the stroke the agent aimed (before noise), so the viewer
can overlay what was meant on what happened. The result is a document of
:mod:`cuegym.tools.viewer` (format 1, kind ``"frame"``, docs/viewer.md).

``cuegym play --game ID --agents A,B -o frame.html`` writes it as one self-contained HTML
page (and ``--json PATH`` the document itself).
"""

from __future__ import annotations

import math

import numpy as np

FORMAT = 1
SAMPLE_DT = 1 / 60  # s between path samples before thinning (event times are always sampled)
THIN_TOL = 5e-4  # m: a dropped sample is at most this far from the linear interpolation of those kept
AGENT_NAMES = ("random", "ghost", "search")

HELP = "play frames between agents and write a replay page (HTML) to watch in a browser"
DESCRIPTION = (
    "Play FRAMES frames of a game between two agents (player 0's and player 1's) and write one "
    "self-contained HTML page: the table in SVG, every stroke animated, play/pause/step/scrub, the "
    "scoreboard, each ruling with its rule clauses, and the aimed stroke as an overlay."
)


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

    table_name = R._table_name(table_name)
    xy, on = R._check_layout(xy_before, on_before)
    n = xy.shape[0]
    cue, s = R._check_shot(shot6, n, on)
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


# ----------------------------------------------------------------------------- frames


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


def _r(x, digits: int = 6):
    """Floats rounded for the document (1e-6 m, 1e-6 s), lists kept nested."""
    if isinstance(x, (list, tuple, np.ndarray)):
        return [_r(v, digits) for v in x]
    return round(float(x), digits)


def path_list(path: np.ndarray) -> list:
    return [[round(float(t), 4), round(float(x), 5), round(float(y), 5)] for t, x, y in path]


def shot_dict(shot6) -> dict:
    s = [float(v) for v in shot6]
    return {"cue_ball": int(s[0]), "phi": _r(s[1]), "speed": _r(s[2]), "a": _r(s[3]), "b": _r(s[4]), "theta": _r(s[5])}


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


def _env_id(game: str) -> str:
    from cuegym import ENV_IDS, ENV_TASKS

    if game in ENV_TASKS:
        return game
    if f"cuegym/{game}" in ENV_TASKS:
        return f"cuegym/{game}"
    for env_id, task in ENV_TASKS.items():
        if task == game:
            return env_id
    raise ValueError(f"game: unknown {game!r}; one of {', '.join(ENV_IDS)}")


def parse_agents(text: str) -> tuple[str, str]:
    """``"A,B"`` -> (player 0's agent, player 1's agent); one name plays both sides."""
    names = [a.strip() for a in str(text).split(",")]
    if len(names) == 1:
        names = names * 2
    if len(names) != 2 or any(a not in AGENT_NAMES for a in names):
        raise ValueError(f"agents: two agent names A,B from {', '.join(AGENT_NAMES)}; got {text!r}")
    return names[0], names[1]


def play_frames(game: str, agents=("ghost", "random"), *, seed: int = 0, frames: int = 1, max_shots: int = 200,
                noise: float = 1.0, aim: bool = True, table: str | None = None) -> dict:
    """Play ``frames`` frames between ``agents`` (player 0's, player 1's names) and return the
    viewer document (kind ``"frame"``, docs/viewer.md).

    Frame f is the env reset with seed ``seed + f``; the agents draw their keys from one
    stream seeded with ``seed``, so a replay is deterministic. ``max_shots`` truncates each
    frame (decisions: strokes, lag strokes, removals); ``noise`` is the env's execution noise
    (a multiple of the tournament sigmas). ``aim`` adds each stroke as aimed (before noise)
    as a suggestion. Raises ValueError naming a bad argument.
    """
    import gymnasium as gym
    import jax

    from cuegym import ENV_TASKS
    from cuegym.agents import AGENTS
    from cuegym.envs.functional import SHOT_HIGH, SHOT_LOW

    env_id = _env_id(game)
    a0, a1 = parse_agents(",".join(agents) if not isinstance(agents, str) else agents)
    if isinstance(frames, bool) or not isinstance(frames, int) or not 1 <= frames <= 1000:
        raise ValueError(f"frames: a whole number in 1 .. 1000, got {frames!r}")
    if isinstance(max_shots, bool) or not isinstance(max_shots, int) or not 1 <= max_shots <= 10000:
        raise ValueError(f"max_shots: a whole number in 1 .. 10000, got {max_shots!r}")
    if not (isinstance(noise, (int, float)) and math.isfinite(noise) and 0 <= noise <= 10):
        raise ValueError(f"noise: a multiple of the tournament sigmas in [0, 10], got {noise!r}")
    options = {"max_shots": max_shots, "noise": float(noise)}
    if table is not None:
        options["table"] = table
    env = gym.make(env_id, **options)
    base = env.unwrapped
    func = base.func
    # each agent reasons on the env's table and noise level (the search agent scores its
    # candidates under that noise); truncation is the env's business
    knobs = {k: v for k, v in options.items() if k != "max_shots"}
    players = [AGENTS[a0](env_id, **knobs), AGENTS[a1](env_id, **knobs)]
    names = ball_names(func.task, func.n_balls)
    key = jax.random.PRNGKey(seed)
    shots, results = [], []
    for f in range(frames):
        obs, info = env.reset(seed=seed + f)
        scores = [int(s) for s in info["scores"]]
        frame_shots = 0
        while True:
            mover = int(obs["to_play"])
            key, sub = jax.random.split(key)
            action = players[mover].act(obs, sub)
            pre_xy, pre_on = (np.asarray(x[0]) for x in jax.device_get((base._tables.state.xy, base._tables.state.on)))
            obs, _, terminated, truncated, info = env.step(action)
            st = jax.device_get(base._tables.state)  # the decision just played (CueEnv keeps a batch of one)
            last_xy, last_on, last_shot = (np.asarray(x[0]) for x in (st.last_xy, st.last_on, st.last_shot))
            after = [int(s) for s in info["scores"]]
            notes = []
            if info.get("clipped"):
                notes.append("the stroke was clipped into the shot limits")
            if info.get("projected"):
                notes.append("the ball in hand was moved to the nearest legal spot")
            if info.get("lag_winner", -1) >= 0:
                notes.append(f"player {info['lag_winner']} wins the lag")
            if info.get("truncated_shot"):
                notes.append("the stroke hit the event cap")
            over = bool(terminated)
            winner = int(info["winner"]) if info["winner"] >= 0 else None
            ruling = ruling_dict(info["foul"], int(info["acted"]) if info["foul"] else None, info["clauses"],
                                 [b - a for a, b in zip(scores, after)], after, int(info["to_play"]), info["phase"],
                                 over, winner, notes)
            record = {"frame": f, "player": int(info["acted"]), "agent": (a0, a1)[int(info["acted"])],
                      "start": {"xy": _r(last_xy), "on": [bool(v) for v in last_on]}, "ruling": ruling}
            if last_shot[2] > 0:  # a stroke was played (a removal strikes nothing)
                paths, end_on, duration = timed_paths(func.table, last_xy, last_on, last_shot)
                record.update(shot=shot_dict(last_shot), paths=[path_list(p) for p in paths],
                              end_on=[bool(v) for v in end_on], duration=round(duration, 4))
                if aim:
                    aimed = np.concatenate([last_shot[:1], np.clip(np.asarray(action["shot"], float), SHOT_LOW,
                                                                   SHOT_HIGH)])
                    a_paths, a_end, a_dur = timed_paths(func.table, last_xy, last_on, aimed)
                    record["suggestions"] = [{"label": f"aimed by {record['agent']} (before noise)",
                                              "shot": shot_dict(aimed), "paths": [path_list(p) for p in a_paths],
                                              "end_on": [bool(v) for v in a_end], "duration": round(a_dur, 4)}]
            else:
                record.update(start={"xy": _r(pre_xy), "on": [bool(v) for v in pre_on]}, shot=None,
                              choice=names[int(action["choice"])],
                              paths=[[[0.0, x, y]] if o else [] for (x, y), o in zip(_r(pre_xy), pre_on)],
                              end_on=[bool(v) for v in np.asarray(st.on[0])], duration=0.0)
            shots.append(record)
            scores = after
            frame_shots += 1
            if terminated or truncated:
                break
        results.append({"frame": f, "scores": scores, "winner": winner if terminated else None,
                        "shots": frame_shots, "truncated": bool(truncated and not terminated)})
    env.close()
    wins = [sum(1 for r in results if r["winner"] == p) for p in (0, 1)]
    return {
        "format": FORMAT, "kind": "frame", "title": f"{env_id}: {a0} v {a1}, seed {seed}",
        "game": func.task, "env_id": env_id, "table": func.table,
        "balls": ball_entries(func.table, names),
        "players": [{"name": f"player 0 ({a0})", "agent": a0}, {"name": f"player 1 ({a1})", "agent": a1}],
        "settings": {"seed": seed, "frames": frames, "max_shots": max_shots, "noise": float(noise),
                     "task": ENV_TASKS[env_id]},
        "shots": shots,
        "result": {"frames": results, "wins": wins},
    }


# ----------------------------------------------------------------------------- command


def _whole(text: str, field: str, lo: int, hi: int) -> int:
    try:
        n = int(text)
    except (TypeError, ValueError):
        raise ValueError(f"{field}: a whole number in {lo} .. {hi}, got {text!r}") from None
    if not lo <= n <= hi:
        raise ValueError(f"{field}: a whole number in {lo} .. {hi}, got {n}")
    return n


def add_arguments(parser) -> None:
    parser.add_argument("--game", required=True, metavar="ID",
                        help="env id (cuegym/RussianPyramid-v0, ...) or task name (russian-pyramid, ...)")
    parser.add_argument("--agents", default="ghost,random", metavar="A,B",
                        help=f"player 0's and player 1's agent, each of {', '.join(AGENT_NAMES)} (default ghost,random)")
    parser.add_argument("--seed", default="0", metavar="S", help="seed of the frames and the agents (default 0)")
    parser.add_argument("--frames", default="1", metavar="N", help="frames to play (default 1)")
    parser.add_argument("--max-shots", default="200", metavar="N", help="decisions per frame before it is cut (default 200)")
    parser.add_argument("--noise", default="1.0", metavar="X",
                        help="execution noise, a multiple of the tournament sigmas (default 1.0)")
    parser.add_argument("--no-aim", action="store_true", help="leave out the aimed strokes (the suggestion overlay)")
    parser.add_argument("-o", "--output", required=True, metavar="HTML", help="the replay page to write")
    parser.add_argument("--json", metavar="PATH", help="also write the viewer document (JSON) here")


def run(args) -> int:
    import sys

    from cuegym.tools import viewer

    try:
        seed = _whole(args.seed, "seed", 0, 2**31 - 1)
        frames = _whole(args.frames, "frames", 1, 1000)
        max_shots = _whole(args.max_shots, "max_shots", 1, 10000)
        try:
            noise = float(args.noise)
        except ValueError:
            raise ValueError(f"noise: a number in [0, 10], got {args.noise!r}") from None
        agents = parse_agents(args.agents)
        _env_id(args.game)
        viewer.check_output(args.output, "output")
        if args.json:
            viewer.check_output(args.json, "json")
        doc = play_frames(args.game, agents, seed=seed, frames=frames, max_shots=max_shots, noise=noise,
                          aim=not args.no_aim)
        html = viewer.page(doc)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        viewer.write_atomic(args.json, viewer.dumps(doc))
    viewer.write_atomic(args.output, html)
    print(f"wrote {args.output}: {len(doc['shots'])} decisions, scores "
          + "; ".join(f"frame {r['frame'] + 1} {r['scores'][0]}:{r['scores'][1]}" for r in doc["result"]["frames"]))
    return 0
