"""API, checker and determinism tests for cuegym/PotShot-v0 (shared checks in env_api.py)."""

import numpy as np

import env_api

ENV_ID = "cuegym/PotShot-v0"


def test_gymnasium_env_checker():
    env_api.check_gymnasium_checker(ENV_ID)


def test_spaces_and_masks():
    env_api.check_spaces_and_masks(ENV_ID)


def test_nan_and_wrong_shape_raise_and_leave_the_state_alone():
    env_api.check_nan_and_shape_raise(ENV_ID)


def test_huge_values_are_clipped_and_reported():
    env_api.check_huge_values_are_clipped(ENV_ID)


def test_seeded_rollouts_are_byte_identical_in_and_across_processes():
    env_api.check_determinism(ENV_ID)


def test_vector_env_matches_single_envs():
    env_api.check_vector_env_matches_single_envs(ENV_ID)


def test_straight_pot_without_noise_scores_one():
    """The pot-7 example geometry, exact: the object ball drops, reward 1, one shot."""
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
