"""The API checks of :mod:`cuegym.api_test` for every registered id, plus what only this
repository can check: the opening masks against the catalogue and the committed golden
rollout hash (tests/golden_env_rollouts.json).

One test class per id, made from the registry: scripts/test.sh distributes by class
(``--dist loadscope``), so each id's compiled programs are built on one worker, and
tests/conftest.py may drop them after the class. Budgets: a batch step of random strokes
on the full snooker rack costs its slowest stroke, so the snooker ids play fewer steps."""

import json

import env_api
import gymnasium as gym
import numpy as np
import pytest

from cuegym import api_test
from cuegym.envs.registry import ENV_IDS, game

# the batch of tests/agents: check_functional's step of 64 is the search's and
# test_agents_legal.py's program (one compile per id for all of them); the vector env runs
# the packed step of cuegym.envs.host_program, a program of its own, whose batch size is
# then free: 16 sub-envs, each against its single-env twin (a step of a batch costs its
# slowest stroke, and the twins one at a time: 64 took 25-36 s per full-rack id, 16 a
# quarter of it; `python tests/env_api.py --check-vector 64 200` is the long form)
LANES = 64
VECTOR_LANES = 16
FUNCTIONAL_STEPS = {"drill": 2, "russian": 4, "golf": 6, "snooker": 1}
VECTOR_STEPS = {"snooker": 3}  # 16 sub-envs x 3 random strokes on the full rack, and their twins
DEFAULT_VECTOR_STEPS = 6
ASYNC_STEPS = 4  # 4 tables handed out 2 at a time, against their single-env twins


@pytest.mark.usefixtures("release_compiled_programs_per_class")
class ApiChecks:
    ENV_ID = ""

    def test_functional_core(self):
        api_test.check_functional(self.ENV_ID, num_lanes=LANES, max_steps=FUNCTIONAL_STEPS[game(self.ENV_ID).family])

    def test_gymnasium_shell(self):
        api_test.check_gymnasium(self.ENV_ID, seed=1)

    def test_seeding_in_and_across_processes(self):
        api_test.check_seeding(self.ENV_ID, seed=11)

    def test_vector_env_matches_single_envs(self):
        steps = VECTOR_STEPS.get(game(self.ENV_ID).family, DEFAULT_VECTOR_STEPS)
        api_test.check_vector(self.ENV_ID, num_envs=VECTOR_LANES, steps=steps, seed=20)

    def test_async_pool_tables_match_single_envs(self):
        api_test.check_async(self.ENV_ID, steps=ASYNC_STEPS)

    def test_opening_masks_follow_the_catalogue(self):
        env = gym.make(self.ENV_ID)
        obs, _ = env.reset(seed=1)
        cue, ball, choice = env_api.opening_masks(self.ENV_ID, obs)
        assert np.array_equal(obs["legal_cue_ball"].astype(bool), cue)
        assert np.array_equal(obs["legal_ball"].astype(bool), ball)
        assert np.array_equal(obs["legal_choice"].astype(bool), choice)

    def test_golden_rollout_hash_and_the_vector_env_of_one(self):
        """The committed hash of a seeded 200-step rollout: the same physics, referee and
        observation bytes as when it was written (the file records the JAX version and
        machine), and the same from a vector env of one."""
        golden = json.loads(env_api.GOLDEN.read_text())
        single = api_test.rollout_hash(self.ENV_ID, env_api.GOLDEN_SEED, env_api.GOLDEN_STEPS)
        want = golden["hashes"][self.ENV_ID]
        assert single == want, f"{self.ENV_ID}: rollout bytes changed (see {env_api.GOLDEN.name})"
        assert api_test.vector_rollout_hashes(self.ENV_ID, env_api.GOLDEN_SEED, env_api.GOLDEN_STEPS, 1) == [single]


for _env_id in ENV_IDS:
    _name = "Test" + _env_id.split("/")[-1].replace("-", "_")  # TestPotShot_v0
    globals()[_name] = type(_name, (ApiChecks,), {"ENV_ID": _env_id})
