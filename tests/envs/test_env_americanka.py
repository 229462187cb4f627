"""cuegym/Americanka-v0: Americanka's choices against the catalogue (AM-04/05/06/16, AMB-30);
the API checks are tests/envs/test_api.py's."""

import gymnasium as gym
import numpy as np
from env_api import action, layout, load

from cuegym.rules import russian as ru

ENV_ID = "cuegym/Americanka-v0"


N = 16
BALL_16 = 15  # index of ball 16, the break ball (AM-05, AMB-27)


def struck_ball(env):
    return int(env.unwrapped.tables.state.last_shot[0, 0])


def test_break_strikes_ball_16_from_hand_whatever_cue_ball_says():
    env = gym.make(ENV_ID, noise=0.0)
    obs, _ = env.reset(seed=3)
    assert obs["balls"][BALL_16, 2] == 0 and obs["balls"][:15, 2].all()  # AM-05: fifteen racked, the 16th in hand
    obs, _, _, _, info = env.step(action(shot=[np.pi / 2, 6.0, 0, 0, 0], place=[0.8875, 0.5], cue_ball=3))
    assert struck_ball(env) == BALL_16 and obs["balls"][BALL_16, 2] == 1
    assert "AM-06" in info["clauses"] and not info["projected"]
    # after the break any ball on the table may be struck (AM-04)
    assert info["phase"] == "normal"
    assert np.array_equal(obs["legal_cue_ball"].astype(bool), obs["balls"][:, 2] > 0.5)


def test_any_ball_may_be_struck_and_the_mask_says_so():
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    xy, on = layout(N, {7: (0.8875, 1.5), 3: (0.8875, 2.0), 11: (0.4, 3.0)})
    obs = load(env, xy, on, to_play=0, striker=0, phase=0, strokes=1)
    assert np.array_equal(obs["legal_cue_ball"].astype(bool), on)  # AM-04
    assert not obs["legal_ball"].any()  # AM-08: no call
    obs, _, _, _, info = env.step(action(cue_ball=7, shot=[np.pi / 2, 2.0, 0, 0, 0]))
    assert struck_ball(env) == 7 and not info["cue_replaced"]
    assert "AM-04" in info["clauses"] and "RU-GEN-45" not in info["clauses"] and "RU-GEN-37" not in info["clauses"]
    assert np.hypot(*(obs["balls"][3, :2] - [0.8875, 2.0])) > 0.01  # ball 7 drove ball 3 away


def test_a_cue_ball_not_on_the_table_is_replaced_by_the_lowest_numbered_ball():
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    xy, on = layout(N, {7: (0.8875, 1.5), 3: (0.8875, 2.0), 11: (0.4, 3.0)})
    load(env, xy, on, to_play=0, striker=0, phase=0, strokes=1)
    _, _, _, _, info = env.step(action(cue_ball=0, shot=[np.pi / 2, 2.0, 0, 0, 0]))
    assert info["cue_replaced"] and struck_ball(env) == 3


def test_penalty_ball_is_the_offenders_choice_else_his_latest():
    """AM-16 with AMB-30: a foul costs one of the offender's balls, his choice, by default
    the latest he pocketed; it goes back frozen to the middle of the rear cushion (AM-14)."""
    env = gym.make(ENV_ID, noise=0.0)
    spec = env.unwrapped.func.spec
    rear_middle = np.array([spec.width / 2, spec.length - ru.contact_offset(spec)])
    owner = -np.ones(N, int)
    owner[[2, 4]] = 0
    owner[6] = 1
    owned_at = -np.ones(N, int)
    owned_at[2], owned_at[4], owned_at[6] = 0, 1, 2
    xy, on = layout(N, {7: (0.8875, 1.5), 11: (0.4, 1.0)})
    for choice, given in ((2, 2), (6, 4)):  # ball 6 is the opponent's: the referee takes the latest, 4
        env.reset(seed=0)
        obs = load(env, xy, on, to_play=0, striker=0, phase=0, strokes=5, owner=owner, owned_at=owned_at,
                   scores=[2, 1], credits=3)
        assert set(np.flatnonzero(obs["legal_choice"])) == {2, 4}  # the striker's balls
        # a stroke that touches nothing: RU-GEN-37 foul
        obs, r, _, _, info = env.step(action(cue_ball=7, shot=[0.0, 0.0, 0, 0, 0], choice=choice))
        assert info["foul"] and "RU-GEN-37" in info["clauses"] and "AM-16" in info["clauses"]
        assert obs["scores"].tolist() == [1, 1] and r == -1.0 and obs["owner"][given] == -1
        assert obs["balls"][given, 2] == 1 and np.allclose(obs["balls"][given, :2], rear_middle, atol=1e-6)
