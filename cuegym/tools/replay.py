"""Replays: frames played between agents through the env, recorded as a viewer document.

:func:`play_frames` plays ``frames`` frames of a game between two agents (player 0's and
player 1's, :data:`cuegym.agents.AGENTS`) through the Gymnasium env with no built-in
opponent, so every decision is an agent's and is recorded: the layout the stroke started
from (ball in hand placed), the stroke as struck (after execution noise), every ball's
path during the stroke as timed samples ``[t, x, y]`` (:func:`cuegym.tools.strokes.timed_paths`), and the
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

from cuegym.tools.strokes import (
    ball_entries,
    ball_names,
    path_list,
    rounded,
    ruling_dict,
    shot_dict,
    timed_paths,
)

FORMAT = 1
AGENT_NAMES = ("random", "ghost", "search", "pretrained")  # pretrained: the game's shipped learned agent

HELP = "play frames between agents and write a replay page (HTML) to watch in a browser"
DESCRIPTION = (
    "Play FRAMES frames of a game between two agents (player 0's and player 1's) and write one "
    "self-contained HTML page: the table in SVG, every stroke animated, play/pause/step/scrub, the "
    "scoreboard, each ruling with its rule clauses, and the aimed stroke as an overlay."
)


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
            pre_xy, pre_on = (np.asarray(x[0]) for x in jax.device_get((base.tables.state.xy, base.tables.state.on)))
            obs, _, terminated, truncated, info = env.step(action)
            st = jax.device_get(base.tables.state)  # the decision just played (CueEnv keeps a batch of one)
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
                      "start": {"xy": rounded(last_xy), "on": [bool(v) for v in last_on]}, "ruling": ruling}
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
                record.update(start={"xy": rounded(pre_xy), "on": [bool(v) for v in pre_on]}, shot=None,
                              choice=names[int(action["choice"])],
                              paths=[[[0.0, x, y]] if o else [] for (x, y), o in zip(rounded(pre_xy), pre_on)],
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
                        help=f"player 0's and player 1's agent, each of {', '.join(AGENT_NAMES)} (default ghost,random; "
                             "pretrained: the learned agent cuegym ships for the game, cuegym[train])")
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
