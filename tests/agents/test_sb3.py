"""stable-baselines3 smoke tests: PPO and SAC each train 400 steps (two PPO updates, 300
SAC gradient steps) on cuegym/PotShot-v0 and cuegym/RussianPyramid-v0, PPO on golf, and one
of them on each snooker id, through the wrappers (both action wrappers are used), and
``evaluate_policy`` returns finite values.

scripts/test.sh installs torch and stable-baselines3, so these run in CI (the import is
not optional there). The envs use their default options, so they run the programs the env
tests compile (persistent-cache hits). The shot's elevation is limited to 0.1 rad: random
jump shots at up to 10 m/s bounce for hundreds of events (about 150 ms a stroke on a full
rack here against 10 ms for level ones), which would make these smoke tests minutes long.
"""

import math

import gymnasium as gym
import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3")  # installed by scripts/test.sh: CI runs these

import torch  # noqa: E402
from stable_baselines3.common import logger as sb3_logger  # noqa: E402
from stable_baselines3.common.evaluation import evaluate_policy  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402

from cuegym.envs.wrappers import make_sb3_env  # noqa: E402

STEPS = 400
SHOT_HIGH = [0.0, 10.0, 1.0, 1.0, 0.1]  # phi (ignored: whole circle), speed, a, b, theta
POT, RP = "cuegym/PotShot-v0", "cuegym/RussianPyramid-v0"
SN, AS, GOLF = "cuegym/Snooker-v0", "cuegym/AmericanSnooker-v0", "cuegym/Golf-v0"
# random strokes at up to 10 m/s on the 22-ball rack run hundreds of events each: the
# snooker ids stroke at up to 3 m/s
SNOOKER_STEPS, SNOOKER_HIGH = STEPS, [0.0, 3.0, 1.0, 1.0, 0.1]


class Rewards(gym.Wrapper):
    """Keeps every reward the learner saw."""

    def __init__(self, env):
        super().__init__(env)
        self.rewards = []

    def step(self, action):
        out = self.env.step(action)
        self.rewards.append(out[1])
        return out


def learner(algo, env):
    small = dict(net_arch=[32, 32])
    if algo == "PPO":
        return sb3.PPO("MlpPolicy", env, n_steps=200, batch_size=50, n_epochs=2, policy_kwargs=small, seed=0,
                       device="cpu")
    return sb3.SAC("MlpPolicy", env, learning_starts=100, batch_size=64, buffer_size=STEPS, policy_kwargs=small,
                   seed=0, device="cpu")


@pytest.fixture(autouse=True)
def one_torch_thread():
    # two test workers share two cores; torch's own thread pool would fight JAX's
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("algo, env_id, mode", [
    ("PPO", POT, "shot_only"),
    ("SAC", POT, "flatten"),
    ("PPO", RP, "flatten"),
    ("SAC", RP, "shot_only"),
    ("PPO", SN, "shot_only"),
    ("SAC", AS, "flatten"),
    ("PPO", GOLF, "flatten"),
])
def test_learner_trains_and_evaluates(algo, env_id, mode, tmp_path):
    steps, high = (SNOOKER_STEPS, SNOOKER_HIGH) if env_id in (SN, AS) else (STEPS, SHOT_HIGH)
    env = Rewards(make_sb3_env(env_id, mode=mode, shot_high=high))
    model = learner(algo, env)
    model.set_logger(sb3_logger.configure(str(tmp_path), []))  # no SB3-<date> folder in /tmp
    model.learn(total_timesteps=steps)
    r = np.asarray(env.rewards)
    assert len(r) == steps and np.all(np.isfinite(r))
    if env_id == POT:
        assert set(np.unique(r)) <= {0.0, 1.0}, "a pot scores 1, anything else 0"
    else:
        # points x reward_scale 0.1: random strokes on a full rack foul (and sometimes pot);
        # golf: minus the strokes charged, whole numbers
        assert np.allclose(r * 10, np.round(r * 10)) and np.any(r != 0)
    for p in model.policy.parameters():
        assert torch.all(torch.isfinite(p))
    # a frame can last 200 strokes: evaluate over the first 10 of each episode
    eval_env = Monitor(gym.wrappers.TimeLimit(make_sb3_env(env_id, mode=mode, shot_high=high), 10))
    mean, std = evaluate_policy(model, eval_env, n_eval_episodes=3 if env_id not in (SN, AS) else 1)
    assert math.isfinite(mean) and math.isfinite(std)
