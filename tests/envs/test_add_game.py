"""docs/architecture.md's worked example, run: a one-ball drill added as a game module plus a
registry entry (``registry.register``) plays through ``gymnasium.make`` like a built-in id.

Independent truth: the drill plays the lag's stroke, so with the same seed and action its
observation is Lag-v0's, and its reward is 1 exactly when that observation's ball rests on
the table inside the house (y below the house line, docs/physics.md "Frame")."""

import math
import pathlib
import re
import sys

import gymnasium as gym
import numpy as np
import pytest

import cuegym  # noqa: F401  (registers the built-in ids)
from cuegym.envs import registry
from cuegym.physics import get_spec

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def _example_blocks():
    text = DOC.read_text()
    section = text[text.index("### Worked example"):text.index("## Adding a table")]
    return re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)


@pytest.fixture(scope="module")
def stop_drill(tmp_path_factory):
    module, entry = _example_blocks()
    folder = tmp_path_factory.mktemp("game")
    (folder / "stop_drill.py").write_text(module)
    sys.path.insert(0, str(folder))
    try:
        if "stop-drill" not in registry.GAMES:
            exec(compile(entry, str(DOC), "exec"), {})
        yield registry.game("stop-drill")
    finally:
        # the worker's other tests see the built-in games only
        drill = registry.GAMES.pop("stop-drill", None)
        if drill is not None:
            registry.BY_ID.pop(drill.env_id, None)
            gym.registry.pop(drill.env_id, None)
        sys.path.remove(str(folder))


def test_register_refuses_a_taken_name_or_id(stop_drill):
    import dataclasses

    with pytest.raises(ValueError, match="name"):
        registry.register(dataclasses.replace(stop_drill, env_id="cuegym/Other-v0"))
    with pytest.raises(ValueError, match="env_id"):
        registry.register(dataclasses.replace(stop_drill, name="other-drill"))


def test_the_drill_plays_the_lag_stroke_and_rewards_a_ball_back_in_the_house(stop_drill):
    drill = gym.make(stop_drill.env_id, noise=0.0)
    lag = gym.make("cuegym/Lag-v0", noise=0.0)
    head_line = get_spec(stop_drill.table).head_line
    rewards = []
    for speed in (1.5, 2.1, 3.0, 4.5):  # short, back in the house (2.0-2.4 m/s), long, twice
        action = {"shot": np.array([math.pi / 2, speed, 0.0, 0.4, 0.0], np.float32),
                  "place": np.array([0.6, 0.4], np.float32), "cue_ball": 0, "ball": 0, "pocket": 0, "choice": 0}
        drill.reset(seed=3)
        lag.reset(seed=3)
        obs, reward, terminated, _, _ = drill.step(action)
        lag_obs, *_ = lag.step(action)
        for k in obs:
            np.testing.assert_array_equal(obs[k], lag_obs[k], err_msg=k)
        x, y, on = obs["balls"][0]
        assert terminated
        assert reward == float(on == 1.0 and y < head_line), (speed, x, y, on, reward)
        rewards.append(reward)
    assert 0.0 in rewards and 1.0 in rewards, rewards  # the speeds cover both outcomes


def test_the_drill_passes_the_shipped_api_test(stop_drill):
    from cuegym.api_test import api_test

    # processes=False: a fresh interpreter would not have this run-time registration
    api_test(stop_drill.env_id, num_lanes=1, max_steps=2, vector_steps=2, processes=False, render=False)
