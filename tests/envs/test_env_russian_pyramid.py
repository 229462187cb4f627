"""cuegym/RussianPyramid-v0 (the API checks: tests/envs/test_api.py): the break placement,
rewards, and the lags of a frame (RU-GEN-06..10, RP-17..19)."""

import env_api
import gymnasium as gym
import numpy as np
from env_api import action, layout, load

from cuegym.envs import functional as F
from cuegym.physics import get_spec
from cuegym.physics.racks import pyramid_rack

ENV_ID = "cuegym/RussianPyramid-v0"


def test_break_placement_in_a_ball_or_outside_the_house_is_projected():
    """RU-GEN-14: the ball in hand goes to the nearest legal spot in the house, reported."""
    import gymnasium as gym

    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=5)
    _, _, _, _, info = env.step(env_api.straight_action(env, place=np.array([0.8875, 2.0], np.float32)))
    assert info["projected"]
    env.reset(seed=5)
    _, _, _, _, info = env.step(env_api.straight_action(env, place=np.array([0.8875, 0.4], np.float32)))
    assert not info["projected"]


def test_rewards_are_zero_sum_and_follow_the_score():
    import gymnasium as gym

    env = gym.make(ENV_ID, noise=1.0, reward_scale=0.1)
    obs, info = env.reset(seed=8)
    env.action_space.seed(8)
    for _ in range(10):
        before = info["scores"].copy()
        obs, r, term, trunc, info = env.step(env.action_space.sample())
        diff = (info["scores"] - before) * 0.1
        acted = info["acted"]
        assert np.isclose(r, diff[acted] - diff[1 - acted])
        assert np.isclose(info["rewards"].sum(), 0.0)
        if term or trunc:
            break


# ----------------------------------------------------------------------------- lags in the frame


SPEC = get_spec("pyramid-12ft")
GOOD_LAG = [np.pi / 2, F.ghost_lag_speed(SPEC), 0.0, F.GHOST_LAG_B, 0.0]  # comes back near the head cushion
SHORT_LAG = [np.pi / 2, 0.5, 0.0, 0.0, 0.0]  # never reaches the rear cushion (see test_env_lag.py)
LEFT, RIGHT = [0.44, 0.44], [SPEC.width - 0.44, 0.44]  # mirror images about the long string


def rack_layout():
    rack = pyramid_rack(SPEC)
    return np.array([[0.0, 0.0]] + [rack[str(k)] for k in range(1, 16)]), np.arange(16) != 0


def test_lag_for_the_break_winner_breaks():
    """RU-GEN-06..08/10: with lag_break the frame starts with a lag; player 0 then player 1
    play a lag stroke on an empty table while the rack waits; a ball short of the rear
    cushion loses; the winner breaks from hand in the house (RU-GEN-13)."""
    env = gym.make(ENV_ID, noise=0.0, lag_break=True)
    obs, info = env.reset(seed=4)
    xy, on = rack_layout()
    assert info["phase"] == "lag" and info["to_play"] == 0
    assert np.allclose(obs["balls"][:, :2], np.where(on[:, None], xy, 0.0), atol=1e-6)
    assert np.flatnonzero(obs["legal_cue_ball"]).tolist() == [0] and not obs["legal_ball"].any()
    for first, second, winner in ((GOOD_LAG, SHORT_LAG, 0), (SHORT_LAG, GOOD_LAG, 1)):
        env.reset(seed=4)
        obs1, r, _, _, info = env.step(action(shot=first, place=LEFT))
        assert info["phase"] == "lag" and info["to_play"] == 1 and info["lag_winner"] == -1 and r == 0.0
        assert np.array_equal(obs1["balls"], obs["balls"])  # the rack waits
        obs2, r, _, _, info = env.step(action(shot=second, place=RIGHT))
        assert info["lag_winner"] == winner and r == 0.0
        assert {"RU-GEN-06", "RU-GEN-07", "RU-GEN-08", "RU-GEN-10"} <= set(info["clauses"])
        assert info["phase"] == "in_hand_house" and info["to_play"] == winner
        assert np.array_equal(obs2["balls"], obs["balls"])


def test_lag_is_repeated_on_a_tie_or_when_both_lose():
    """RU-GEN-09: equal distances (within 1 mm, AMB-05(c)) or both balls losing repeat the
    lag. Mirror-image strokes stop at the same distance (the table is symmetric about the
    long string)."""
    env = gym.make(ENV_ID, noise=0.0, lag_break=True)
    for stroke in (GOOD_LAG, SHORT_LAG):
        env.reset(seed=4)
        env.step(action(shot=stroke, place=LEFT))
        _, _, _, _, info = env.step(action(shot=stroke, place=RIGHT))
        assert info["lag_winner"] == -1 and "RU-GEN-09" in info["clauses"]
        assert info["phase"] == "lag" and info["to_play"] == 0


def test_seventy_all_goes_to_a_lag_then_sudden_death():
    """RP-17/18: the stroke that makes 70:70 puts the last ball pocketed back on the rear
    spot, the cue ball is taken up and a lag decides who plays from hand; RP-19: sudden
    death. The pot is cuegym/examples/pot-7 (ball 7 into FR)."""
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    xy, on = layout(16, {0: (0.875, 2.65), 7: (1.375, 3.15), 1: (0.5, 1.0)})
    load(env, xy, on, to_play=0, striker=0, phase=0, scores=[63, 70])
    obs, r, _, _, info = env.step(action(shot=[np.pi / 4, 2.5, 0, 0, 0], ball=7, pocket=3))
    assert obs["scores"].tolist() == [70, 70] and np.isclose(r, 0.7)
    assert {"RP-17", "RP-18"} <= set(info["clauses"])
    assert info["phase"] == "lag" and info["to_play"] == 0 and obs["balls"][0, 2] == 0
    assert np.allclose(obs["balls"][7, :2], SPEC.spots()["rear"], atol=1e-6) and obs["balls"][7, 2] == 1
    assert obs["sudden_death"] == 1
    env.step(action(shot=SHORT_LAG, place=LEFT))
    obs, _, _, _, info = env.step(action(shot=GOOD_LAG, place=RIGHT))
    assert info["lag_winner"] == 1 and info["phase"] == "in_hand_house" and info["to_play"] == 1
    assert obs["scores"].tolist() == [70, 70] and obs["balls"][7, 2] == 1
