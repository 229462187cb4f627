"""cuegym/Lag-v0 (the API checks: tests/envs/test_api.py): the lag stroke against
RU-GEN-07/08 (the lags inside a frame are in
test_env_russian_pyramid.py, on that id's compiled program)."""

import gymnasium as gym
import numpy as np
from env_api import action

from cuegym.envs import functional as F
from cuegym.rules import russian as ru

ENV_ID = "cuegym/Lag-v0"


G = 9.81


def lag_env():
    return gym.make(ENV_ID, noise=0.0)


def test_a_stroke_that_cannot_reach_the_rear_cushion_loses():
    """RU-GEN-08: a lag ball that does not touch the rear cushion loses (reward 0). At a cue
    speed of 0.5 m/s the ball leaves at 2V / (1 + m/M) (centre strike) and, slowing at
    least at mu_r g, runs at most v^2 / (2 mu_r g), short of the rear cushion."""
    env = lag_env()
    spec = env.unwrapped.func.spec
    env.reset(seed=0)
    v_ball = 2 * 0.5 / (1 + spec.ball_mass / spec.cue_mass)
    reach = v_ball**2 / (2 * spec.mu_roll * G)
    start = 0.4
    assert start + reach < spec.length - ru.contact_offset(spec)
    obs, r, term, trunc, info = env.step(action(shot=[np.pi / 2, 0.5, 0, 0, 0], place=[0.44, start]))
    assert term and not trunc and r == 0.0 and "RU-GEN-08" in info["clauses"]
    assert obs["balls"][0, 1] < start + reach


def test_crossing_the_long_string_loses():
    """RU-GEN-08 with AMB-05(a): player 0's ball may not cross to the right of the long
    string. Heading 0.4 rad right of straight up from 0.19 m left of it, the centre crosses
    after 0.19 / sin(0.4) = 0.48 m, before reaching any cushion."""
    env = lag_env()
    env.reset(seed=0)
    _, r, _, _, info = env.step(action(shot=[np.pi / 2 - 0.4, 3.0, 0, 0, 0], place=[0.7, 0.4]))
    assert r == 0.0 and "RU-GEN-08" in info["clauses"]


def test_a_legal_lag_scores_by_its_distance_from_the_head_cushion():
    """A lag that reaches the rear cushion and comes back scores 1 - (y - off) / (L - 2 off)
    (docs/envs.md), y the ball's final centre; the ghost's lag stroke comes back near the
    head cushion."""
    env = lag_env()
    spec = env.unwrapped.func.spec
    off = ru.contact_offset(spec)
    env.reset(seed=0)
    shot = [np.pi / 2, F.ghost_lag_speed(spec), 0.0, F.GHOST_LAG_B, 0.0]
    obs, r, term, _, info = env.step(action(shot=shot, place=[0.44, spec.head_line / 2]))
    y = float(obs["balls"][0, 1])
    assert info["clauses"] == ["RU-GEN-07"] and term
    assert np.isclose(r, 1 - (y - off) / (spec.length - 2 * off), atol=1e-6)
    assert r > 0.9


def test_lag_placement_is_projected_into_the_own_half_of_the_house():
    """RU-GEN-07, AMB-05(a): the lag ball starts in the house, left of the long string for
    player 0; a placement elsewhere is moved to the nearest such spot and reported."""
    env = lag_env()
    spec = env.unwrapped.func.spec
    for place, inside in (([1.2, 0.3], False), ([0.4, 1.5], False), ([0.4, 0.3], True)):
        env.reset(seed=0)
        _, _, _, _, info = env.step(action(shot=[np.pi / 2, 1.0, 0, 0, 0], place=place))
        start = np.asarray(env.unwrapped.tables.state.last_xy[0, 0])
        assert info["projected"] != inside
        assert start[0] < spec.width / 2 and start[1] < spec.head_line
        if inside:
            assert np.allclose(start, place)
