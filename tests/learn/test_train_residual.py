"""The residual action trained through cuegym.learn.train: its result and checkpoint, read
back as an agent. A module of its own (its programs share nothing with the menu runs of
test_train_jax.py), so that the test workers can build the two in parallel."""

import jax
import numpy as np
from test_train_jax import CFG, SPEC

from cuegym.learn import train


def test_residual_trains_and_plays_as_an_agent(tmp_path):
    """A short residual run writes its result and checkpoint; the agent read back picks a
    candidate and a correction, and ranks candidates with their mean corrections."""
    import gymnasium as gym

    from cuegym.learn.agent import PolicyAgent

    spec = {**SPEC, "action": "residual"}
    result = train.run(spec, CFG, minutes=5.0, seed=0, out=tmp_path, max_steps=64, eval_episodes=16,
                       log=lambda *_: None, measure_env_speed=False)
    assert result["action"] == "residual" and result["steps"] >= 64
    assert result["env_steps_per_s"] is None  # not measured: a compile of its own
    assert 0 <= result["policy_success"] <= 1 and 0 <= result["ghost_success"] <= 1
    agent = PolicyAgent(tmp_path)
    env = gym.make("cuegym/PotShot-v0", table="pool-9ft", noise=1.0)
    obs, _ = env.reset(seed=3)
    action = agent.act(obs, jax.random.PRNGKey(0))
    assert env.action_space.contains(action)
    k, c = agent.last_info["candidate"], agent.last_info["correction"]
    assert 0 <= k < train.M.size() and len(c) == 2 and all(-1 <= x <= 1 for x in c)
    ranked = agent.scores(obs)
    chosen = np.asarray(ranked["actions"]["shot"])[k]
    np.testing.assert_allclose(chosen, np.asarray(action["shot"]), rtol=1e-6, atol=1e-9)
