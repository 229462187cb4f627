"""cuegym/PotShot-v0: a straight pot, the rendering (the API checks: tests/envs/test_api.py)."""

import env_api
import numpy as np
import pytest

ENV_ID = "cuegym/PotShot-v0"


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


def test_rgb_array_draws_the_layout_and_the_last_stroke():
    """render(): the balls where the state has them and the cue ball's path along the
    straight line it was struck on (no noise), in the frame of cuegym.envs.render (head at the
    bottom); before any stroke nothing is drawn along that line."""
    import gymnasium as gym

    from cuegym.envs import render as R

    env = gym.make(ENV_ID, noise=0.0, distance=(0.4, 0.4), cut=(0.0, 0.0), render_mode="rgb_array")
    obs, _ = env.reset(seed=1)
    fr = R.frame("pyramid-12ft", 480)
    cue, ball = obs["balls"][0, :2].astype(float), obs["balls"][1, :2].astype(float)
    on_path = cue + 0.5 * (ball - cue)  # halfway to the object ball, clear of both balls
    before = env.render()
    assert before.shape == fr.shape and before.dtype == np.uint8
    assert tuple(before[tuple(fr.pixel(on_path))]) == R.CLOTH
    d = ball - cue
    shot = np.array([np.arctan2(d[1], d[0]), 3.0, 0, 0, 0], np.float32)
    obs2, _, _, _, _ = env.step(env_api.straight_action(env, shot=shot))
    after = env.render()
    assert tuple(after[tuple(fr.pixel(on_path))]) != R.CLOTH  # the cue ball's path
    assert np.array_equal(env.render(), after)
    rest = obs2["balls"][0, :2].astype(float)
    assert np.array_equal(after[tuple(fr.pixel(rest))], R.CUE_WHITE)  # the cue ball where it stopped (ball 1 is gone)


def test_human_mode_is_offered_only_with_a_display():
    """Without a display CueEnv refuses "human" at construction (gymnasium.make would then
    wrap an rgb_array env in its own HumanRendering)."""
    from cuegym.envs import render as R
    from cuegym.envs.gym_env import RENDER_MODES, CueEnv

    if R.has_display():
        assert "human" in RENDER_MODES
    else:
        assert RENDER_MODES == ["rgb_array"]
        with pytest.raises(ValueError, match="render_mode"):
            CueEnv("pot-shot", render_mode="human")
