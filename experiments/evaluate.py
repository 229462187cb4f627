"""Pot success rate of the agents on cuegym/PotShot-v0, by table and execution-noise level.

Every agent plays the same layouts (episode i is the env reset with seed ``--seed + i``,
and the agent's key is ``PRNGKey(--seed + i)``), under the env's execution noise at the
level given; the search agent scores its candidates at that same level. Writes
``agents_potshot.json`` and ``agents_potshot.md`` into ``--out``.

    python experiments/evaluate.py                       # 1000 shots each (long: the search takes ~1.5 s a shot)
    python experiments/evaluate.py --shots 1000 --search-shots 100

With ``--frames N`` it plays head-to-head frames instead, for every two-player game and
agent pair given (:func:`run_frames`): frame f is the env reset with seed ``--seed + f``
(no built-in opponent: the two agents alternate by ``info["to_play"]``), the pair's first
agent breaks when that seed is even, each agent's keys come from :func:`agent_key`. A frame
depends on its seed alone, so disjoint seed ranges run in parallel processes (``--seed 0
--frames 50`` and ``--seed 50 --frames 50``) play the same frames as one run of 100. Writes
``agents_frames.jsonl`` (one line a frame, appended as frames end; a rerun with the same
settings resumes after the last frame recorded), ``agents_frames.json``, ``agents_frames.md``
and, with matplotlib, ``agents_frames.png`` into ``--out``.

    python experiments/evaluate.py --frames 100 --pairs search:ghost --games RussianPyramid-v0 --out /tmp/f
    python experiments/evaluate.py --frames 4 --pairs ghost:random --games all --out /tmp/f
    python experiments/evaluate.py --frames 20 --pairs pretrained:search --games RussianPyramid-v0 --out /tmp/f

The agent ``pretrained`` is the learned agent cuegym ships for the game (cuegym.agents.pretrained);
``policy`` is a train_jax.py output folder given with ``--policy DIR``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from datetime import datetime, timezone

ENV_ID = "cuegym/PotShot-v0"


def wilson(k: int, n: int, z: float = 1.96):
    """95 % Wilson score interval of a success rate k / n (:func:`cuegym._stats.wilson`,
    imported here: importing cuegym turns on the compilation cache, which main() sets up
    first)."""
    from cuegym._stats import wilson as interval

    return interval(k, n, z)


def make_agent(name: str, env_id: str, noise: float, knobs: dict, policy: str | None = None, **options):
    """The agent ``name`` (:data:`AGENT_NAMES`) for ``env_id``: one of cuegym.agents' (among
    them ``pretrained``, the learned agent cuegym ships for ``env_id``), or ``policy``, the
    JAX policy trained by experiments/train_jax.py in the folder ``policy``
    (cuegym.learn.agent.PolicyAgent; its env id must be ``env_id``)."""
    if name == "policy":
        from cuegym.learn.agent import PolicyAgent

        if policy is None:
            raise ValueError("policy: the agent 'policy' needs --policy DIR (a train_jax.py output folder)")
        agent = PolicyAgent(policy, noise=noise, **options)
        if agent.policy_env.name != env_id:
            raise ValueError(f"policy: {policy} was trained on {agent.policy_env.name}, not {env_id}")
        return agent
    from cuegym.agents import AGENTS

    # the search scores its candidates at the env's noise; the learned agent's env reads it too
    extra = {**knobs, "noise": noise} if name == "search" else {"noise": noise} if name == "pretrained" else {}
    return AGENTS[name](env_id, **options, **extra)


def require_pretrained(names, env_ids, flag: str) -> None:
    """SystemExit naming ``flag`` when the agent ``pretrained`` is among ``names`` and one of
    ``env_ids`` has no learned agent shipped (the message lists the ids that have one)."""
    if "pretrained" not in names:
        return
    from cuegym.agents import pretrained

    for env_id in env_ids:
        try:
            pretrained.folder(env_id)
        except ValueError as e:
            raise SystemExit(f"{flag}: the agent 'pretrained' plays the learned agent shipped for the game; {e}") from None


def evaluate(name, table, noise, shots, seed, knobs, policy=None):
    import gymnasium as gym
    import jax

    env = gym.make(ENV_ID, table=table, noise=noise)
    agent = make_agent(name, ENV_ID, noise, knobs, policy, table=table)
    pots, times, estimates = 0, [], []
    for i in range(shots):
        obs, _ = env.reset(seed=seed + i)
        action = agent.act(obs, jax.random.PRNGKey(seed + i))
        times.append(agent.last_info["time_s"])
        if name == "search":
            estimates.append(agent.last_info["success"])
        _, reward, *_ = env.step(action)
        pots += reward > 0.5
    lo, hi = wilson(pots, shots)
    warm = times[1:] or times
    row = {"agent": name, "table": table, "noise": noise, "shots": shots, "pots": int(pots), "rate": pots / shots,
           "ci95": [lo, hi], "first_decision_s": times[0], "median_decision_s": statistics.median(warm),
           "mean_decision_s": statistics.fmean(warm)}
    if estimates:
        row["mean_estimated_success"] = statistics.fmean(estimates)
    return row


def markdown(report) -> str:
    rows = report["rows"]
    lines = [f"PotShot-v0 pot success rate ({report['machine']}, {report['timestamp']})", "",
             f"Command: `{report['command']}`", "",
             "| table | noise | agent | shots | pot rate | 95 % CI | median s / decision | search's own estimate |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        est = f"{r['mean_estimated_success']:.3f}" if "mean_estimated_success" in r else ""
        lines.append(f"| {r['table']} | {r['noise']:g} | {r['agent']} | {r['shots']} | {r['rate']:.3f} | "
                     f"{r['ci95'][0]:.3f}–{r['ci95'][1]:.3f} | {r['median_decision_s']:.4f} | {est} |")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- head-to-head frames

TWO_PLAYER_GAMES = ("cuegym/RussianPyramid-v0", "cuegym/Americanka-v0", "cuegym/MoscowPyramid-v0",
                    "cuegym/Snooker-v0", "cuegym/AmericanSnooker-v0")
AGENT_NAMES = ("random", "ghost", "search", "pretrained", "policy")
# what a game's breaks count: points (the striker's score change, exact on his non-foul
# strokes) or balls (the balls his strokes pot that count, info["potted"]: exact where the
# score change is not, a ball paying a debt or a removal's credit; see BreakCounter)
BREAK_UNIT = {"cuegym/RussianPyramid-v0": "points", "cuegym/Americanka-v0": "balls",
              "cuegym/MoscowPyramid-v0": "balls", "cuegym/Snooker-v0": "points",
              "cuegym/AmericanSnooker-v0": "points"}
# decisions that are not strokes of the frame: a lag stroke (it scores nothing and does not
# count, docs/envs.md), Moscow pyramid's removal, the answer to a snooker foul, the finished frame
NOT_A_STROKE = ("lag", "remove_ball", "foul_choice", "house_choice", "frame_over")
FRAMES_KIND = "cuegym.evaluate.frames"


def parse_pairs(text: str) -> list[tuple[str, str]]:
    """``"search:ghost,ghost:random"`` -> [("search", "ghost"), ("ghost", "random")]."""
    pairs = []
    for item in str(text).split(","):
        names = tuple(a.strip() for a in item.split(":"))
        if len(names) != 2 or any(a not in AGENT_NAMES for a in names):
            raise ValueError(f"pairs: comma-separated A:B with A, B from {', '.join(AGENT_NAMES)}; got {item!r}")
        pairs.append(names)
    return pairs


def parse_games(names) -> list[str]:
    """Game names (``RussianPyramid-v0``, ``cuegym/Snooker-v0`` or ``all``) -> env ids."""
    out = []
    for g in names:
        if g == "all":
            out += [x for x in TWO_PLAYER_GAMES if x not in out]
            continue
        env_id = g if g.startswith("cuegym/") else f"cuegym/{g}"
        if env_id not in TWO_PLAYER_GAMES:
            raise ValueError(f"games: one of {', '.join(TWO_PLAYER_GAMES)} or all; got {g!r}")
        if env_id not in out:
            out.append(env_id)
    return out


def agent_key(seed: int, frame: int, side: int, decision: int):
    """The PRNG key of agent ``side``'s (0: the pair's first agent, 1: its second)
    ``decision``-th decision (counted from 0) in frame ``frame``: fold_in(fold_in(
    PRNGKey(seed + frame), side), decision). It depends on nothing else (not on the other
    agent, nor on the seat), so a frame replays alone, and a match resumes at any frame."""
    import jax

    return jax.random.fold_in(jax.random.fold_in(jax.random.PRNGKey(seed + frame), side), decision)


def break_gain(unit: str, acted: int, potted, change):
    """(2,) what a decision adds to each player's break (:class:`BreakCounter`): with
    ``unit`` "points", ``change`` (2,) the score change; with "balls", the number of balls
    in ``potted`` (``info["potted"]``) for the player who ``acted``, 0 for the other.

    Points: on a player's non-foul stroke his score changes by exactly the value of the
    balls that counted (RP-05, SN-23/24 and the free ball) plus Russian pyramid's +10 for
    the last ball (RP-06), and his opponent's fouls never reach the break (a foul closes
    the visit), so the score change is the break's gain. Balls: the score change is not
    (AM-16/17, MP-13/14: a ball potted to pay a debt leaves the count as it was; MP-09: a
    legally pocketed cue ball wins a ball only at the opponent's removal), so the balls
    potted are counted instead, the Moscow cue ball among them (AMB-31: it counts like any
    ball, and the removal after it pots nothing)."""
    if unit == "balls":
        gain = [0.0, 0.0]
        gain[acted] = float(len(potted))
        return gain
    return [float(x) for x in change]


class BreakCounter:
    """Breaks as consecutive scoring strokes by one player in one visit to the table.

    A visit is a run of strokes by one player; it ends when a stroke leaves the other player
    to play, when the player fouls (the foul stroke adds nothing), when the other player
    strokes, or when the frame ends. Its break is what the player's own non-foul decisions
    gain (:func:`break_gain`: points in Russian pyramid and snooker, the balls potted that
    count in Americanka and Moscow pyramid). A decision that is not a stroke (Moscow
    pyramid's removal, made by the other player; a snooker foul answer) neither opens nor
    closes a visit and adds the visiting player's gain to the break (nothing, as
    :func:`break_gain` counts them). Lag strokes score nothing and are not strokes."""

    def __init__(self):
        self.owner = None  # player index of the visit in progress
        self.current = 0.0
        self.breaks = ([], [])  # per player: every closed visit's break (0 when it scored nothing)

    def close(self):
        if self.owner is not None:
            self.breaks[self.owner].append(self.current)
        self.owner, self.current = None, 0.0

    def record(self, phase: str, acted: int, foul: bool, gained, to_play: int, next_phase: str, over: bool):
        """One decision: ``phase`` it was taken in, ``acted`` the player who took it, ``foul``
        the ruling's flag, ``gained`` (2,) each player's gain (:func:`break_gain`), ``to_play`` who
        decides next and in ``next_phase``, ``over`` the frame ended (terminated or
        truncated)."""
        if phase == "lag":  # a lag (70:70 in Russian pyramid, a level snooker frame) ends any visit
            self.close()
        elif phase in NOT_A_STROKE:
            if self.owner is not None and not foul:
                self.current += max(0.0, float(gained[self.owner]))
        else:
            if self.owner != acted:
                self.close()
                self.owner = acted
            if foul:
                self.close()
            else:
                self.current += max(0.0, float(gained[acted]))
                # the other player's stroke ends the visit; his removal (Moscow) does not
                if to_play != acted and next_phase not in NOT_A_STROKE:
                    self.close()
        if over:
            self.close()


def play_frame(env, env_id: str, agents, names, frame: int, seed: int, rulings: list | None = None) -> dict:
    """One seeded frame between ``agents`` (the pair's first and second agent objects, with
    ``names``) in ``env`` (the game's Gymnasium env, no opponent, so ``info["to_play"]``
    says whose decision it is).

    The env is reset with seed ``seed + frame``; the env draws who breaks from it, and the
    first agent takes that seat when ``seed + frame`` is even and the other seat when it is
    odd, so each side breaks in every other frame and a frame depends on ``seed + frame``
    alone (not on how a match was split into runs). Each agent's keys come from :func:`agent_key`. A frame that
    reaches the env's ``max_shots`` is scored on points at that moment (the leader wins, a
    level score is a draw) and marked ``truncated``.

    ``rulings``: when a list, each decision's ruling is appended (``side``, ``player``,
    ``phase``, ``foul``, ``clauses``, ``scores`` after (2,) by player, ``to_play``, ``potted``
    the balls potted that count, ``info["potted"]``, and ``left_table`` the ball indices
    whose on-table flag went from on to off).

    Breaks (:class:`BreakCounter`) are in the game's :data:`BREAK_UNIT`: points from the
    score change, balls from ``info["potted"]`` (:func:`break_gain`).

    Returns a JSON-able dict; per-side lists are [first agent, second agent]:
    ``result`` ("first", "second", "draw"), ``decided`` ("frame" or "truncated"),
    ``first_breaks``, ``points`` (final scores), ``longest_break``, ``breaks_scored`` (the
    breaks of at least one point or ball), ``fouls``, ``strokes``, ``decisions``,
    ``decision_s`` (summed seconds), ``lag_strokes``, ``wall_s``.
    """
    import numpy as np

    from cuegym.envs.env_spaces import PHASE_NAMES

    t0 = time.perf_counter()
    obs, info = env.reset(seed=seed + frame)
    first_breaks = (seed + frame) % 2 == 0
    breaker = int(obs["to_play"])
    seat = [breaker, 1 - breaker] if first_breaks else [1 - breaker, breaker]  # seat[side] = player index
    side_of = {seat[0]: 0, seat[1]: 1}
    counter = BreakCounter()
    unit = BREAK_UNIT[env_id]
    decisions, strokes, fouls, lag_strokes = [0, 0], [0, 0], [0, 0], 0
    seconds = [0.0, 0.0]
    scores = np.asarray(info["scores"], float)
    while True:
        player = int(obs["to_play"])
        side = side_of[player]
        phase = PHASE_NAMES[int(obs["phase"])]
        on_before = np.asarray(obs["balls"])[:, 2] > 0.5
        action = agents[side].act(obs, agent_key(seed, frame, side, decisions[side]))
        seconds[side] += agents[side].last_info["time_s"]
        decisions[side] += 1
        obs, _, terminated, truncated, info = env.step(action)
        acted = int(info["acted"])
        after = np.asarray(info["scores"], float)
        foul = bool(info["foul"])
        if phase == "lag":
            lag_strokes += 1
        elif phase not in NOT_A_STROKE:
            strokes[side_of[acted]] += 1
        fouls[side_of[acted]] += foul
        over = bool(terminated or truncated)
        gained = break_gain(unit, acted, info["potted"], after - scores)
        counter.record(phase, acted, foul, gained, int(info["to_play"]), info["phase"], over)
        if rulings is not None:
            on_after = np.asarray(obs["balls"])[:, 2] > 0.5
            rulings.append({"side": side_of[acted], "player": acted, "phase": phase, "foul": foul,
                            "clauses": list(info["clauses"]), "scores": after.tolist(),
                            "to_play": int(info["to_play"]), "potted": list(info["potted"]),
                            "left_table": np.flatnonzero(on_before & ~on_after).tolist()})
        scores = after
        if over:
            break
    points = [float(scores[seat[0]]), float(scores[seat[1]])]
    if terminated and int(info["winner"]) >= 0:
        decided, win_side = "frame", side_of[int(info["winner"])]
    else:  # truncated at max_shots (or, should it happen, over with no winner): on points
        decided = "truncated" if truncated else "no_winner"
        win_side = None if points[0] == points[1] else (0 if points[0] > points[1] else 1)
    breaks = [counter.breaks[seat[s]] for s in (0, 1)]
    return {
        "game": env_id, "pair": list(names), "frame": frame, "env_seed": seed + frame, "first_breaks": first_breaks,
        "seats": seat, "result": ("first", "second", "draw")[2 if win_side is None else win_side],
        "decided": decided, "points": points, "longest_break": [max(b, default=0.0) for b in breaks],
        "breaks_scored": [[x for x in b if x > 0] for b in breaks], "fouls": fouls, "strokes": strokes,
        "decisions": decisions, "decision_s": seconds, "lag_strokes": lag_strokes,
        "wall_s": time.perf_counter() - t0,
    }


def load_frames(path, config) -> dict:
    """The frames already recorded in the JSON-lines file ``path`` under ``config``:
    {(game, first, second, frame): record}. Missing file: {}."""
    done = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:  # a line cut short by a killed run: play that frame again
                    continue
                if rec.get("config") == config:
                    done[(rec["game"], *rec["pair"], rec["frame"])] = rec
    return done


def summarize_frames(records: list) -> dict:
    """Aggregate a (game, pair)'s frame records into one table row: the first agent's win
    rate (a draw counts half) with its 95 % Wilson interval, and per side the mean longest
    break, the mean break (over breaks that scored), fouls, strokes and seconds per decision
    (all decisions pooled, and the median over frames of each frame's mean)."""
    n = len(records)
    wins = sum(r["result"] == "first" for r in records)
    losses = sum(r["result"] == "second" for r in records)
    draws = n - wins - losses
    rate = (wins + 0.5 * draws) / n
    lo, hi = wilson(wins + 0.5 * draws, n)

    def per_side(f):
        return [f(s) for s in (0, 1)]

    scored = per_side(lambda s: [x for r in records for x in r["breaks_scored"][s]])
    return {
        "game": records[0]["game"], "pair": records[0]["pair"], "frames": n, "wins": wins, "losses": losses,
        "draws": draws, "truncated": sum(r["decided"] == "truncated" for r in records),
        "first_breaks": sum(r["first_breaks"] for r in records), "win_rate": rate, "ci95": [lo, hi],
        "unit": BREAK_UNIT[records[0]["game"]],
        "mean_points": per_side(lambda s: statistics.fmean(r["points"][s] for r in records)),
        "mean_longest_break": per_side(lambda s: statistics.fmean(r["longest_break"][s] for r in records)),
        "max_break": per_side(lambda s: max(r["longest_break"][s] for r in records)),
        "mean_break": [statistics.fmean(b) if b else 0.0 for b in scored],
        "fouls_per_frame": per_side(lambda s: sum(r["fouls"][s] for r in records) / n),
        "strokes_per_frame": per_side(lambda s: sum(r["strokes"][s] for r in records) / n),
        "s_per_decision": per_side(lambda s: sum(r["decision_s"][s] for r in records)
                                   / max(1, sum(r["decisions"][s] for r in records))),
        # the median over frames of each frame's mean: the process's first decisions compile
        # the agent's programs (tens of seconds), which the plain mean would spread over all
        "median_frame_s_per_decision": per_side(lambda s: statistics.median(
            r["decision_s"][s] / max(1, r["decisions"][s]) for r in records)),
        "wall_s": sum(r["wall_s"] for r in records),
    }


def frames_markdown(report) -> str:
    lines = [f"Head-to-head frames ({report['machine']}, {report['timestamp']})", "",
             f"Command: `{report['command']}`", "",
             "Win rate of agent A (a draw counts half; a frame truncated at max_shots goes to the leader on "
             "points), 95 % Wilson interval. Per side A / B: mean longest break per frame, mean break "
             "(breaks that scored), fouls, strokes per frame, seconds per decision (median over frames of "
             "the frame's mean, so a frame that compiled the agent's programs does not weigh). A breaks in "
             "frames with an even seed.", "",
             "| game | A v B | frames | A wins–losses–draws | truncated | A win rate | 95 % CI "
             "| longest break A / B | mean break A / B | unit | fouls / frame A / B | strokes / frame A / B "
             "| s / decision A / B |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in report["rows"]:
        def two(v, fmt):
            return f"{v[0]:{fmt}} / {v[1]:{fmt}}"
        lines.append(
            f"| {r['game'].removeprefix('cuegym/')} | {r['pair'][0]} v {r['pair'][1]} | {r['frames']} | "
            f"{r['wins']}–{r['losses']}–{r['draws']} | {r['truncated']} | {r['win_rate']:.3f} | "
            f"{r['ci95'][0]:.3f}–{r['ci95'][1]:.3f} | {two(r['mean_longest_break'], '.1f')} | "
            f"{two(r['mean_break'], '.2f')} | {r['unit']} | {two(r['fouls_per_frame'], '.2f')} | "
            f"{two(r['strokes_per_frame'], '.1f')} | {two(r['median_frame_s_per_decision'], '.4f')} |")
    return "\n".join(lines) + "\n"


def plot_frames(report, path) -> str | None:
    """Win rate of agent A with its 95 % interval, and the mean longest break of each side,
    one row per (game, pair). Returns the PNG path, or None without matplotlib (the
    ``render`` extra)."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")  # headless: the figure goes to a file only
    import matplotlib.pyplot as plt

    rows = report["rows"]
    labels = [f"{r['game'].removeprefix('cuegym/').removesuffix('-v0')}\n{r['pair'][0]} v {r['pair'][1]} "
              f"({r['frames']})" for r in rows]
    ys = list(range(len(rows)))
    fig, (ax_w, ax_b) = plt.subplots(1, 2, figsize=(10, 1.0 + 0.6 * len(rows)), sharey=True)
    rate = [r["win_rate"] for r in rows]
    # a rate of 0 or 1 meets its interval's end up to rounding: no negative bar
    err = [[max(r["win_rate"] - r["ci95"][0], 0.0) for r in rows], [max(r["ci95"][1] - r["win_rate"], 0.0) for r in rows]]
    ax_w.errorbar(rate, ys, xerr=err, fmt="o", color="tab:blue", capsize=3)
    ax_w.axvline(0.5, ls="--", color="tab:gray")
    ax_w.set_xlim(0, 1)
    ax_w.set_xlabel("win rate of A (95 % Wilson)")
    ax_w.set_yticks(ys, labels, fontsize=8)
    ax_w.invert_yaxis()
    for s, (color, who) in enumerate((("tab:blue", "A"), ("tab:orange", "B"))):
        ax_b.barh([y + (s - 0.5) * 0.35 for y in ys], [r["mean_longest_break"][s] for r in rows], height=0.35,
                  color=color, label=who)
    ax_b.set_xlabel("mean longest break per frame (points or balls)")
    ax_b.legend(loc="best")
    for ax in (ax_w, ax_b):
        ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    path = str(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def run_frames(games, pairs, frames: int, seed: int = 0, noise: float = 1.0, max_shots: int = 200, knobs=None,
               out: str | None = None, command: str = "", log=print, policy: str | None = None) -> dict:
    """Play ``frames`` seeded frames of every (game, pair) (:func:`play_frame`) and return
    the report (``rows`` of :func:`summarize_frames`, ``frames`` the records).

    With ``out``, each frame is appended to ``out/agents_frames.jsonl`` as it ends and the
    frames already there under the same seed, noise, max_shots and search knobs are not
    played again (a killed run resumes at the next frame); ``agents_frames.json``,
    ``agents_frames.md`` and (with matplotlib) ``agents_frames.png`` are rewritten after
    every frame.
    """
    import gymnasium as gym
    import jax

    import cuegym  # noqa: F401
    from cuegym._io import write_atomic

    knobs = dict(knobs or {})
    cfg = {"seed": seed, "noise": noise, "max_shots": max_shots, "search_knobs": knobs}
    jsonl = os.path.join(out, "agents_frames.jsonl") if out else None
    if out:
        os.makedirs(out, exist_ok=True)
    done = load_frames(jsonl, cfg) if jsonl else {}
    t0 = time.time()
    report = {"kind": FRAMES_KIND, "command": command, "config": {**cfg, "frames": frames, "games": games,
                                                                  "pairs": [list(p) for p in pairs]},
              "machine": f"{os.cpu_count()} CPUs, {platform.machine()}, JAX {jax.__version__} {jax.default_backend()}"}

    def write(records_by_block, final):
        rows = [summarize_frames(recs) for recs in records_by_block if recs]
        report.update(rows=rows, frames=[r for recs in records_by_block for r in recs],
                      timestamp=datetime.now(timezone.utc).isoformat(timespec="seconds"), wall_s=time.time() - t0)
        if out:
            write_atomic(os.path.join(out, "agents_frames.json"), json.dumps(report, indent=1))
            write_atomic(os.path.join(out, "agents_frames.md"), frames_markdown(report))
            if final and rows:
                report["plot"] = plot_frames(report, os.path.join(out, "agents_frames.png"))

    blocks = []
    for env_id in games:
        env = gym.make(env_id, noise=noise, max_shots=max_shots)
        for pair in pairs:
            records = []
            blocks.append(records)
            agents = None
            for f in range(frames):
                rec = done.get((env_id, *pair, f))
                if rec is None:
                    if agents is None:  # built only when a frame is left to play (the search compiles)
                        agents = [make_agent(a, env_id, noise, knobs, policy) for a in pair]
                    rec = {**play_frame(env, env_id, agents, pair, f, seed), "config": cfg}
                    if jsonl:
                        with open(jsonl, "a") as fh:
                            fh.write(json.dumps(rec) + "\n")
                    log(f"{env_id} {pair[0]}:{pair[1]} frame {f}: {rec['result']} ({rec['decided']}) "
                        f"points {rec['points']} longest break {rec['longest_break']} fouls {rec['fouls']} "
                        f"strokes {rec['strokes']} {rec['wall_s']:.1f} s")
                records.append(rec)
                write(blocks, final=False)
        env.close()
    write(blocks, final=True)
    return report


def main(argv=None):
    from cuegym import compile_log

    compile_log.show()  # say when a program compiles (the first step waits for it)
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--shots", type=int, default=1000, help="episodes per agent, table and noise level")
    p.add_argument("--search-shots", type=int, default=None, help="episodes for the search agent (default: --shots)")
    p.add_argument("--noise", type=float, nargs="+", default=None,
                   help="execution-noise levels (PotShot default: 0 1 5; frames: one level, default 1)")
    p.add_argument("--tables", nargs="+", default=["pool-9ft", "pyramid-12ft"])
    p.add_argument("--agents", nargs="+", default=["random", "ghost", "search"], choices=list(AGENT_NAMES))
    p.add_argument("--policy", default=None, help="the agent 'policy': a train_jax.py output folder")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--candidates", type=int, default=None)
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--rounds", type=int, default=None)
    p.add_argument("--time-budget", type=float, default=None, help="seconds (default: the agent's)")
    p.add_argument("--frames", type=int, default=None,
                   help="play this many head-to-head frames per game and pair instead of the PotShot evaluation")
    p.add_argument("--pairs", default="search:ghost,ghost:random",
                   help="frames: comma-separated A:B agent pairs (default search:ghost,ghost:random)")
    p.add_argument("--games", nargs="+", default=["all"],
                   help="frames: env ids or names (RussianPyramid-v0 ...), or all (the five two-player games)")
    p.add_argument("--max-shots", type=int, default=200, help="frames: the env's max_shots (truncation), 1..10000")
    p.add_argument("--out", default="results")
    args = p.parse_args(argv)
    for name in ("shots", "search_shots", "frames"):
        v = getattr(args, name)
        if v is not None and v < 1:
            raise SystemExit(f"--{name.replace('_', '-')}: at least 1, got {v}")
    if not 1 <= args.max_shots <= 10000:
        raise SystemExit(f"--max-shots: a whole number in 1 .. 10000, got {args.max_shots}")
    uses_policy = "policy" in args.agents or (args.frames is not None and "policy" in args.pairs)
    if uses_policy and args.policy is None:
        raise SystemExit("--policy: the agent 'policy' needs a train_jax.py output folder")
    if args.frames is not None:
        try:
            pairs, games = parse_pairs(args.pairs), parse_games(args.games)
        except ValueError as e:
            raise SystemExit(f"--{e}") from None
        if args.noise is not None and (len(args.noise) != 1 or not 0 <= args.noise[0] <= 10):
            raise SystemExit(f"--noise: one level in [0, 10] for frames, got {args.noise}")
    os.environ.setdefault("CUEGYM_CACHE_DIR", os.path.join(os.path.dirname(__file__), "..", ".jax_cache"))
    import jax

    import cuegym  # noqa: F401

    jax.config.update("jax_compilation_cache_dir", os.environ["CUEGYM_CACHE_DIR"])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    # every game's shipped agent is there before the first frame or shot (cuegym imported
    # only now, after the cache is set up)
    if args.frames is not None:
        require_pretrained([a for pair in pairs for a in pair], games, "--pairs")
    else:
        require_pretrained(args.agents, [ENV_ID], "--agents")
    knobs = {k: getattr(args, k) for k in ("candidates", "samples", "rounds") if getattr(args, k) is not None}
    if args.time_budget is not None:
        knobs["time_budget"] = args.time_budget
    command = "python experiments/evaluate.py " + " ".join(argv if argv is not None else os.sys.argv[1:])
    if args.frames is not None:
        report = run_frames(games, pairs, args.frames, seed=args.seed,
                            noise=args.noise[0] if args.noise else 1.0, max_shots=args.max_shots, knobs=knobs,
                            out=args.out, command=command, log=lambda m: print(m, flush=True), policy=args.policy)
        print(frames_markdown(report))
        return
    args.noise = args.noise or [0.0, 1.0, 5.0]
    t0 = time.time()
    rows = []
    for table in args.tables:
        for noise in args.noise:
            for name in args.agents:
                shots = args.search_shots if name == "search" and args.search_shots else args.shots
                row = evaluate(name, table, noise, shots, args.seed, knobs, args.policy)
                rows.append(row)
                print(json.dumps(row), flush=True)
    report = {
        "kind": "cuegym.evaluate", "env": ENV_ID,
        "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{os.cpu_count()} CPUs, {platform.machine()}, JAX {jax.__version__} {jax.default_backend()}",
        "command": command,
        "config": {**vars(args), "search_knobs": knobs}, "wall_s": time.time() - t0, "rows": rows,
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "agents_potshot.json"), "w") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(args.out, "agents_potshot.md"), "w") as f:
        f.write(markdown(report))
    print(markdown(report))

if __name__ == "__main__":
    main()
