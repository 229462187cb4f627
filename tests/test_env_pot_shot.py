"""API, checker and determinism tests for cuegym/PotShot-v0 (shared checks in env_api.py)."""

import numpy as np
import pytest

import env_api
from env_api import *  # noqa: F401,F403  (the shared API tests, run for ENV_ID)

ENV_ID = "cuegym/PotShot-v0"


@pytest.fixture
def env_id():
    return ENV_ID


def test_straight_pot_without_noise_scores_one():
    """A straight pot (cut 0) without noise: the object ball drops, reward 1, one shot."""
    import gymnasium as gym

    env = gym.make(ENV_ID, noise=0.0, distance=(0.4, 0.4), cut=(0.0, 0.0))
    hits = 0
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        cue, ball = obs["balls"][0, :2].astype(float), obs["balls"][1, :2].astype(float)
        d = ball - cue
        a = env_api.straight_action(env, shot=np.array([np.arctan2(d[1], d[0]), 3.0, 0, 0, 0], np.float32))
        _, r, term, trunc, _ = env.step(a)
        assert term and not trunc
        hits += r
    assert hits == 4.0
