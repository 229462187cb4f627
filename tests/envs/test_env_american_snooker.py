"""cuegym/AmericanSnooker-v0: American snooker's flat foul through the env (AS-39); the API
checks are tests/envs/test_api.py's."""

import gymnasium as gym
import numpy as np
from env_api import action, layout, load

from cuegym.physics import get_spec
from cuegym.rules import snooker as sn

ENV_ID = "cuegym/AmericanSnooker-v0"
SPEC = get_spec("snooker-12ft")  # AMB-46: the 3500 x 1750 mm bed
N = sn.N_BALLS


def test_AS_39_every_foul_gives_the_opponent_seven():
    """AS-39: a foul of any kind scores 7 for the opponent, who then chooses to play on or
    make the offender replay (AS-40); American snooker has no miss rule, so no restore."""
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    xy, on = layout(N, {0: (0.875, 1.0), 1: (0.875, 2.0), sn.BLACK: SPEC.spots()["black"]})
    load(env, xy, on, to_play=0, phase=0, ball_on=sn.RED_ON, breaking=False, strokes=3)
    obs, r, _, _, info = env.step(action(shot=[np.pi / 2, 0.0, 0, 0, 0]))
    assert info["foul"] and "AS-39" in info["clauses"] and obs["scores"].tolist() == [0, 7] and np.isclose(r, -0.7)
    names = {sn.CHOICE_NAMES[k] for k in np.flatnonzero(obs["legal_choice"])}
    assert names == {"play", "replay"}
    obs, _, _, _, info = env.step(action(choice=sn.REPLAY))
    assert info["to_play"] == 0 and "AS-40" in info["clauses"]
