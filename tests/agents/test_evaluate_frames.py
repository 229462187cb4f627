"""Head-to-head frames of experiments/evaluate.py (``--frames``): the break count's
definition on hand-written decision sequences (points, and balls from ``info["potted"]``,
also through play_frame on a scripted env), and two short seeded Russian pyramid frames
between random agents checked against an independent replay of the same frames through the
env (fouls from the env's rulings, points from the catalogue's ball values, RP-05/06/16)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
GAME = "cuegym/RussianPyramid-v0"
MAX_SHOTS = 6  # decisions a frame: short frames, the same compiled programs as the RP env and agent tests


def _load():
    spec = importlib.util.spec_from_file_location("cuegym_experiment_evaluate",
                                                  EXPERIMENTS / "evaluate.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ev = _load()


def _breaks(decisions):
    c = ev.BreakCounter()
    for d in decisions:
        c.record(*d)
    return c.breaks


def test_break_counts_own_pots_in_one_visit_only():
    # (phase, acted, foul, gained (2,), to_play, next phase, over): Russian pyramid points
    breaks = _breaks([
        ("in_hand_house", 0, False, (3, 0), 0, "normal", False),  # player 0 pots 3 and plays on
        ("normal", 0, False, (5, 0), 0, "normal", False),  # ... and 5
        ("normal", 0, False, (0, 0), 1, "normal", False),  # misses: the visit ends, break 8
        ("normal", 1, True, (5, -5), 0, "normal", False),  # player 1 fouls: player 0's 5 are no break (RP-16)
        ("normal", 0, False, (11, 0), 0, "normal", False),  # a new visit: the ace
        ("normal", 0, True, (-5, 5), 1, "normal", False),  # a foul ends it: break 11, the foul adds nothing
        ("normal", 1, False, (0, 4), 1, "normal", False),  # player 1 pots 4
        ("normal", 1, False, (0, 0), 1, "normal", True),  # frame truncated
    ])
    assert breaks == ([8, 11], [0, 4])


def test_removal_credits_the_visit_in_progress():
    # Moscow pyramid (balls): player 0 legally pockets the cue ball (no ball yet), player 1
    # removes a ball credited to player 0 (MP-09, AMB-31), player 0 plays on from hand, pots, misses
    breaks = _breaks([
        ("normal", 0, False, (0, 0), 1, "remove_ball", False),
        ("remove_ball", 1, False, (1, 0), 0, "in_hand_house", False),
        ("in_hand_house", 0, False, (1, 0), 0, "normal", False),
        ("normal", 0, False, (0, 0), 1, "normal", False),
        ("normal", 1, False, (0, 0), 0, "normal", True),
    ])
    assert breaks == ([2], [0])


def test_lag_strokes_are_not_visits():
    breaks = _breaks([("normal", 1, False, (0, 2), 0, "lag", False),  # 70:70 (RP-17/18): the lag ends the visit
                      ("lag", 0, False, (0, 0), 1, "lag", False), ("lag", 1, False, (0, 0), 1, "in_hand_house", False),
                      ("in_hand_house", 1, False, (0, 7), 1, "normal", False),
                      ("normal", 1, False, (0, 0), 0, "normal", True)])
    assert breaks == ([], [2, 7])


def test_ball_breaks_count_the_moscow_cue_ball_once_and_not_the_removal():
    # Moscow pyramid (balls, break_gain): player 0's stroke pots ball 5 and the cue ball
    # (MP-06/08, AMB-31: potted (0, 5)), player 1's removal (MP-09) pots nothing though it
    # credits player 0 a ball; player 0 plays on from hand and misses: one break of 2, as
    # many as his count gained
    gain = lambda acted, potted, change: ev.break_gain("balls", acted, potted, change)  # noqa: E731
    breaks = _breaks([
        ("normal", 0, False, gain(0, (0, 5), (1, 0)), 1, "remove_ball", False),
        ("remove_ball", 1, False, gain(1, (), (1, 0)), 0, "in_hand_house", False),
        ("in_hand_house", 0, False, gain(0, (), (0, 0)), 1, "normal", False),
        ("normal", 1, False, gain(1, (), (0, 0)), 0, "normal", True),
    ])
    assert breaks == ([2], [0])
    assert ev.break_gain("points", 1, (4,), (-5, 9)) == [-5.0, 9.0]  # points: the score change as it is


class _ScriptedEnv:
    """A stand-in for a game's env that replays scripted decisions: each is (acted, foul,
    potted, scores after, to_play, phase after, terminated, truncated)."""

    def __init__(self, script, n=16):
        from cuegym.envs.env_spaces import PHASE_NAMES

        self.script, self.n, self.code = list(script), n, {name: k for k, name in enumerate(PHASE_NAMES)}

    def _obs(self, to_play, phase):
        return {"to_play": np.int64(to_play), "phase": np.int64(self.code[phase]), "balls": np.zeros((self.n, 3))}

    def reset(self, seed=None):
        return self._obs(0, "in_hand_house"), {"scores": np.zeros(2, np.int32)}

    def step(self, action):
        acted, foul, potted, scores, to_play, phase, term, trunc = self.script.pop(0)
        info = {"acted": acted, "foul": foul, "potted": potted, "scores": np.array(scores, np.int32),
                "to_play": to_play, "phase": phase, "clauses": [], "winner": -1}
        return self._obs(to_play, phase), 0.0, term, trunc, info


class _Idle:
    last_info = {"time_s": 0.0}

    def act(self, obs, key):
        return {}


def test_americanka_breaks_count_a_ball_that_pays_a_debt():
    """AM-17: player 0 fouls with no ball to give and owes one; later the first ball he
    pots pays it (his count stays), then he pots two more: a break of 3 balls potted,
    where his count gained 2 (info["potted"] gives the break, the score change does not)."""
    script = [
        (0, True, (), (0, 0), 1, "normal", False, False),  # AM-17: a foul with no balls owes one
        (1, False, (2,), (0, 1), 1, "normal", False, False),
        (1, False, (), (0, 1), 0, "normal", False, False),
        (0, False, (5,), (0, 1), 0, "normal", False, False),  # pays the debt: the count stays
        (0, False, (6, 7), (2, 1), 0, "normal", False, False),  # AM-09: both count
        (0, False, (), (2, 1), 1, "normal", False, True),  # a miss at max_shots
    ]
    rec = ev.play_frame(_ScriptedEnv(script), "cuegym/Americanka-v0", [_Idle(), _Idle()], ("a", "b"), 0, 0)
    assert rec["seats"] == [0, 1] and rec["decided"] == "truncated" and rec["points"] == [2.0, 1.0]
    assert rec["longest_break"] == [3.0, 1.0] and rec["breaks_scored"] == [[3.0], [1.0]]
    assert rec["fouls"] == [1, 0]


def test_win_rate_interval_counts_a_draw_as_half():
    rec = {"game": GAME, "pair": ["a", "b"], "points": [0, 0], "longest_break": [0, 0], "breaks_scored": [[], []],
           "fouls": [0, 0], "strokes": [1, 1], "decisions": [1, 1], "decision_s": [0.0, 0.0], "wall_s": 0.0,
           "first_breaks": True, "decided": "frame"}
    row = ev.summarize_frames([{**rec, "result": "first"}, {**rec, "result": "draw"}])
    assert (row["wins"], row["losses"], row["draws"]) == (1, 0, 1)
    assert row["win_rate"] == 0.75
    assert row["ci95"][0] < 0.75 < row["ci95"][1]


def test_bad_pairs_and_games_are_refused():
    with pytest.raises(ValueError, match="pairs"):
        ev.parse_pairs("search:nobody")
    with pytest.raises(ValueError, match="games"):
        ev.parse_games(["PotShot-v0"])


def _value(ball: int) -> int:
    """RP-05: a pocketed object ball scores its number; index 1, the ace, scores 11."""
    return 11 if ball == 1 else ball


def _replay(frame: int, seed: int):
    """The frame played again outside the script, by the documented scheme: env reset with
    seed + frame, the first agent in the breaker's seat when seed + frame is even, keys from
    agent_key. Returns (seats, fouls by side, final scores by side, longest break by side)."""
    import gymnasium as gym

    from cuegym.agents import RandomAgent

    env = gym.make(GAME, max_shots=MAX_SHOTS)
    agents = [RandomAgent(GAME), RandomAgent(GAME)]
    obs, info = env.reset(seed=seed + frame)
    breaker = int(obs["to_play"])
    seats = [breaker, 1 - breaker] if (seed + frame) % 2 == 0 else [1 - breaker, breaker]
    fouls, n = [0, 0], [0, 0]
    visit, current, longest = None, 0, [0, 0]
    while True:
        side = seats.index(int(obs["to_play"]))
        on = np.asarray(obs["balls"])[:, 2] > 0.5
        obs, _, terminated, truncated, info = env.step(agents[side].act(obs, ev.agent_key(seed, frame, side, n[side])))
        n[side] += 1
        acted = seats.index(int(info["acted"]))
        fouls[acted] += bool(info["foul"])
        now = np.asarray(obs["balls"])[:, 2] > 0.5
        if visit != acted:
            visit, current = acted, 0
        if info["foul"]:
            visit = None
        else:  # RP-05/06: the balls this stroke pocketed, by their values, plus 10 for the last one
            potted = [b for b in np.flatnonzero(on & ~now) if b != 0]
            current += sum(_value(b) for b in potted) + 10 * (on[1:].any() and not now[1:].any())
            longest[acted] = max(longest[acted], current)
            if seats.index(int(info["to_play"])) != acted:
                visit = None
        if terminated or truncated:
            scores = [float(info["scores"][seats[s]]) for s in (0, 1)]
            env.close()
            return seats, fouls, scores, longest


def test_random_frames_match_an_independent_replay(tmp_path):
    ev.run_frames([GAME], [("random", "random")], frames=2, seed=3, max_shots=MAX_SHOTS, out=str(tmp_path),
                           log=lambda m: None)
    saved = json.loads((tmp_path / "agents_frames.json").read_text())
    assert (tmp_path / "agents_frames.md").read_text().count("| RussianPyramid-v0 | random v random | 2 |") == 1
    (row,) = saved["rows"]
    for key in ("frames", "wins", "losses", "draws", "truncated", "win_rate", "ci95", "unit", "mean_longest_break",
                "mean_break", "fouls_per_frame", "strokes_per_frame", "s_per_decision",
                "median_frame_s_per_decision"):
        assert key in row, key
    assert row["wins"] + row["losses"] + row["draws"] == row["frames"] == 2
    assert row["unit"] == "points"
    frames = saved["frames"]
    assert [f["first_breaks"] for f in frames] == [False, True]  # seeds 3 and 4
    for rec in frames:
        seats, fouls, scores, longest = _replay(rec["frame"], 3)
        assert rec["seats"] == seats
        assert rec["fouls"] == fouls  # counted as the env's rulings flag them
        assert rec["points"] == scores
        assert rec["longest_break"] == longest  # the catalogue's ball values, opponents' fouls excluded
        assert sum(rec["strokes"]) <= MAX_SHOTS and sum(rec["decisions"]) == sum(rec["strokes"])
        if rec["decided"] == "truncated":  # scored on points at max_shots
            expect = "draw" if scores[0] == scores[1] else ("first" if scores[0] > scores[1] else "second")
            assert rec["result"] == expect
    assert row["fouls_per_frame"] == [sum(f["fouls"][s] for f in frames) / 2 for s in (0, 1)]
    # a second run with the same settings plays nothing again: it reads the frames back
    lines = (tmp_path / "agents_frames.jsonl").read_text().splitlines()
    again = ev.run_frames([GAME], [("random", "random")], frames=2, seed=3, max_shots=MAX_SHOTS, out=str(tmp_path),
                          log=lambda m: pytest.fail(f"played again: {m}"))
    assert (tmp_path / "agents_frames.jsonl").read_text().splitlines() == lines
    assert again["rows"][0]["fouls_per_frame"] == row["fouls_per_frame"]


def test_a_frame_depends_on_its_seed_alone_so_a_match_splits_into_runs(tmp_path):
    # frame 1 of a run from seed 3 and frame 0 of a run from seed 4 are the same frame (env
    # seed 4): same seats, strokes, fouls and points, whatever run played it
    whole = ev.run_frames([GAME], [("random", "random")], frames=2, seed=3, max_shots=MAX_SHOTS,
                          out=str(tmp_path / "whole"), log=lambda m: None)["frames"][1]
    part = ev.run_frames([GAME], [("random", "random")], frames=1, seed=4, max_shots=MAX_SHOTS,
                         out=str(tmp_path / "part"), log=lambda m: None)["frames"][0]
    assert whole["env_seed"] == part["env_seed"] == 4
    for key in ("first_breaks", "seats", "result", "points", "fouls", "strokes", "breaks_scored"):
        assert whole[key] == part[key], key


def test_the_plot_takes_a_clean_sweep(tmp_path):
    """A 100-0 row: its Wilson interval ends at 1.0 up to rounding, below the rate of 1.0,
    and the figure is still drawn (no negative error bar)."""
    pytest.importorskip("matplotlib")
    lo, hi = ev.wilson(100, 100)
    row = {"game": "cuegym/RussianPyramid-v0", "pair": ["pretrained", "random"], "frames": 100, "win_rate": 1.0,
           "ci95": [lo, min(hi, 1.0 - 1e-16)], "mean_longest_break": [12.9, 0.0], "max_break": [30, 0]}
    path = tmp_path / "frames.png"
    assert ev.plot_frames({"rows": [row]}, str(path)) == str(path)
    assert path.stat().st_size > 0
