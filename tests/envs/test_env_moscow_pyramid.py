"""cuegym/MoscowPyramid-v0: Moscow pyramid's remove_ball phase (MP-06/09/10, AMB-31); the API
checks are tests/envs/test_api.py's."""

import gymnasium as gym
import numpy as np
from env_api import action, layout, load

ENV_ID = "cuegym/MoscowPyramid-v0"


N = 16
# MP-06's physical scenario (tests/rules/scenarios/moscow-pyramid/MP-06_cue_ball_follows_object_in.json):
# the cue ball follows ball 5 into the right foot corner; balls 7 and 9 are left on the table.
FOLLOW_IN = {0: (1.2, 2.975), 5: (1.5, 3.275), 7: (0.5, 2.0), 9: (1.2, 1.2)}
FOLLOW_SHOT = [np.pi / 4, 2.0, 0.0, 0.5, 0.0]


def pocket_the_cue_ball(env):
    env.reset(seed=0)
    xy, on = layout(N, FOLLOW_IN)
    load(env, xy, on, to_play=0, striker=0, phase=0)
    # cue_ball names an object ball: not read in Moscow pyramid, the cue ball is struck (no RU-GEN-45)
    return env.step(action(shot=FOLLOW_SHOT, cue_ball=5))


def test_remove_ball_mask_and_choice_follow_mp09():
    env = gym.make(ENV_ID, noise=0.0)
    obs, r, term, trunc, info = pocket_the_cue_ball(env)
    assert not info["foul"] and "RU-GEN-45" not in info["clauses"]
    assert {"MP-06", "MP-08", "MP-09"} <= set(info["clauses"])
    assert obs["scores"].tolist() == [1, 0] and r == 1.0  # ball 5 counts (MP-08); the scale is 1 per ball
    # MP-09: the opponent names any object ball on the table; no stroke is due
    assert info["phase"] == "remove_ball" and info["to_play"] == 1
    assert set(np.flatnonzero(obs["legal_choice"])) == {7, 9}
    assert not obs["legal_cue_ball"].any() and not obs["legal_ball"].any()
    before = obs["balls"].copy()
    # only choice is read: the shot would otherwise scatter the balls
    obs, r, term, trunc, info = env.step(action(choice=9, shot=[0.0, 8.0, 0.0, 0.0, 0.0], place=[0.3, 0.3]))
    assert obs["balls"][9, 2] == 0 and np.array_equal(obs["balls"][7], before[7])
    assert obs["scores"].tolist() == [2, 0] and obs["owner"][9] == 0  # credited to the striker (AMB-31)
    assert info["acted"] == 1 and r == -1.0  # the remover's reward: the striker gained a ball
    assert info["phase"] == "in_hand_house" and info["to_play"] == 0  # MP-10: the striker plays from hand
    assert np.flatnonzero(obs["legal_cue_ball"]).tolist() == [0]
    assert set(np.flatnonzero(obs["legal_choice"])) == {5, 9}  # his balls, one of which a foul would cost (MP-13)


def test_remove_ball_with_an_invalid_choice_takes_the_lowest_numbered_ball():
    env = gym.make(ENV_ID, noise=0.0)
    pocket_the_cue_ball(env)
    obs, _, _, _, info = env.step(action(choice=5))  # ball 5 is in the pocket
    assert obs["balls"][7, 2] == 0 and obs["balls"][9, 2] == 1 and obs["scores"].tolist() == [2, 0]
