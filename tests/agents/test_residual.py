"""cuegym.agents.residual: a zero correction plays the base agent exactly (the same Dict
action, the same outcome), corrections reach their documented spans and the shot limits,
bad corrections raise naming the field, and the wrapped env passes Gymnasium's and
stable-baselines3's checkers."""

import math
import warnings

import gymnasium as gym
import jax
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import cuegym  # noqa: F401  (registers the ids)
from cuegym.agents import GhostBallAgent, ResidualShot, make_residual_env
from cuegym.agents.residual import AIM_SPAN, SPEED_RATIO, THETA_SPAN, TIP_SPAN, correct_shot
from cuegym.envs.functional import SHOT_HIGH, SHOT_LOW

POT = "cuegym/PotShot-v0"
RP = "cuegym/RussianPyramid-v0"


@pytest.mark.parametrize("env_id", [POT, RP])
def test_a_zero_correction_plays_the_ghost_ball_agent(env_id):
    env = ResidualShot(gym.make(env_id))
    twin = gym.make(env_id)
    ghost = GhostBallAgent(env_id)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        twin_obs, _ = twin.reset(seed=seed)
        for _ in range(3):
            expected = ghost.act(twin_obs, jax.random.PRNGKey(0))
            obs, reward, terminated, truncated, info = env.step(np.zeros(5, np.float32))
            twin_obs, twin_reward, twin_term, twin_trunc, _ = twin.step(expected)
            played = info["action"]
            assert played["shot"].tolist() == expected["shot"].tolist()
            assert all(played[k] == expected[k] for k in ("cue_ball", "ball", "pocket", "choice"))
            assert played["place"].tolist() == expected["place"].tolist()
            assert info["base_action"]["shot"].tolist() == expected["shot"].tolist()
            # the same action on the same seeded table: the same outcome, bit for bit
            assert reward == twin_reward and (terminated, truncated) == (twin_term, twin_trunc)
            assert np.array_equal(obs["balls"], twin_obs["balls"])
            if terminated or truncated:
                break


def test_corrections_reach_their_spans():
    base = np.array([1.0, 2.0, 0.1, -0.1, 0.05])
    up, clipped_up = correct_shot(base, np.ones(5))
    down, clipped_down = correct_shot(base, -np.ones(5))
    assert up == pytest.approx([1.0 + AIM_SPAN, 2.0 * SPEED_RATIO, 0.1 + TIP_SPAN, -0.1 + TIP_SPAN,
                                0.05 + THETA_SPAN])
    assert down[:4] == pytest.approx([1.0 - AIM_SPAN, 2.0 / SPEED_RATIO, 0.1 - TIP_SPAN, -0.1 - TIP_SPAN])
    assert down[4] == 0.0 and clipped_down  # theta 0.05 - 0.1 rad: clipped at a level cue
    assert not clipped_up
    # phi wraps round the circle; speed and tip offsets stop at the shot limits
    wrapped, clipped = correct_shot(np.array([2 * math.pi - 0.01, 9.0, 0.9, -0.9, 0.0]), np.ones(5))
    assert wrapped[0] == pytest.approx(AIM_SPAN - 0.01)
    assert wrapped[1] == SHOT_HIGH[1] and wrapped[2] == SHOT_HIGH[2] and clipped
    assert np.all(wrapped[1:] >= SHOT_LOW[1:]) and np.all(wrapped[1:] <= SHOT_HIGH[1:])


def test_bad_corrections_and_spans_raise_naming_the_field():
    env = ResidualShot(gym.make(POT))
    env.reset(seed=0)
    for bad in (np.array([np.nan, 0, 0, 0, 0]), np.array([0, np.inf, 0, 0, 0])):
        with pytest.raises(ValueError, match="action: NaN or inf"):
            env.step(bad)
    with pytest.raises(ValueError, match=r"action: shape \(5,\)"):
        env.step(np.zeros(4))
    with pytest.raises(ValueError, match="aim_span"):
        ResidualShot(gym.make(POT), aim_span=-1.0)
    with pytest.raises(ValueError, match="speed_ratio"):
        ResidualShot(gym.make(POT), speed_ratio=0.5)
    with pytest.raises(ValueError, match="env"):
        ResidualShot(make_residual_env(POT))  # its action is already a Box
    with pytest.raises(ValueError, match="base"):
        make_residual_env(POT, base="search")
    # out-of-range corrections are clipped to [-1, 1], as stable-baselines3 does
    big = env.step(np.full(5, 7.0))[4]["action"]["shot"]
    env.reset(seed=0)
    one = env.step(np.ones(5))[4]["action"]["shot"]
    assert big.tolist() == one.tolist()


def test_checkers_accept_the_residual_env():
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")  # CI installs it (scripts/test.sh)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any complaint of the checkers fails the test...
        warnings.filterwarnings("ignore", message=".*different from the unwrapped")  # ...but this: wrapped on purpose
        check_env(make_residual_env(POT), skip_render_check=True)
        sb3_checker.check_env(make_residual_env(POT), warn=True, skip_render_check=True)
