"""API, checker and determinism tests for cuegym/RussianPyramid-v0 (shared checks in env_api.py)."""

import numpy as np
import pytest

import env_api
from env_api import *  # noqa: F401,F403  (the shared API tests, run for ENV_ID)

ENV_ID = "cuegym/RussianPyramid-v0"


@pytest.fixture
def env_id():
    return ENV_ID


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
