"""Seeded env rollouts recorded for ``cuegym check-determinism`` (docs/determinism.md).

A rollout of env ``id`` with seed ``s`` resets the env with ``s``, draws ``steps`` actions
from its action space seeded ``s`` and resets (unseeded) after each finished episode. Its
hash is the SHA-256 of the observations each action was chosen on and of each step's
reward and flags (:func:`hash_obs`, :func:`hash_outcome`; ``tests/env_api.py`` hashes with
the same functions, so ``tests/golden_env_rollouts.json`` stays valid). Beside the hash the
rollout keeps one row per step (:class:`Step`) so that two rollouts can be compared step by
step.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

from cuegym.envs.rollout_hash import hash_obs, hash_outcome

DIGEST_CHARS = 8  # hex digits of a per-step digest: 32 bits, a 1-in-4e9 chance to miss a change
OBS_PREFIX = "obs."
# the row's fields after the observation's (``obs.<key>`` in the observation space's order)
OUTCOME_FIELDS = ("reset", "reward", "terminated", "truncated", "foul", "clauses", "shot")
SHOT_NAMES = ("cue_ball", "phi", "speed", "a", "b", "theta")  # EnvState.last_shot (6,)


def digest(data: bytes) -> str:
    """The short per-step digest (:data:`DIGEST_CHARS` hex digits of SHA-256) of ``data``."""
    return hashlib.sha256(data).hexdigest()[:DIGEST_CHARS]


@dataclasses.dataclass
class Step:
    """One action of a rollout. ``obs``: the observation it was chosen on (field -> array,
    the space's dtypes); ``reset``: that observation came from a reset; ``reward``,
    ``terminated``, ``truncated``: what the step returned; ``foul``, ``clauses`` (catalogue
    ids, None where not read) and ``shot`` (6,) float64 the stroke played after noise
    (cue_ball, phi [rad], speed [m/s], a, b, theta [rad]; speed 0: none) of the decision."""

    obs: dict
    reset: bool
    reward: float
    terminated: bool
    truncated: bool
    foul: bool
    clauses: tuple | None
    shot: Any

    def row(self) -> dict:
        """Field name -> JSON value: a digest per observation field and of the stroke, the
        other fields as they are (the golden file's row)."""
        import numpy as np

        out = {OBS_PREFIX + k: digest(np.asarray(v).tobytes()) for k, v in self.obs.items()}
        out.update(reset=self.reset, reward=float(self.reward), terminated=self.terminated,
                   truncated=self.truncated, foul=self.foul,
                   clauses=None if self.clauses is None else list(self.clauses),
                   shot=None if self.shot is None else digest(np.asarray(self.shot, np.float64).tobytes()))
        return out


@dataclasses.dataclass
class Rollout:
    """A recorded rollout: its ``hash`` (hex SHA-256, as ``tests/env_api.py``'s
    ``rollout_hash``) and its ``steps``."""

    env_id: str
    seed: int
    hash: str
    steps: list

    def rows(self) -> list:
        return [s.row() for s in self.steps]


def _copy_obs(obs: dict) -> dict:
    import numpy as np

    return {k: np.array(v) for k, v in obs.items()}


def _played(env, lane: int) -> tuple:
    """(clause ids, stroke played (6,) float64) of sub-env ``lane``'s last decision, read
    from the batch of tables behind a cuegym env (the single env's ``info["clauses"]``
    comes from the same mask; the vector env's info has neither); (None, None) for an env
    built otherwise."""
    import jax
    import numpy as np

    from cuegym.rules.base import clause_ids

    tables = getattr(env.unwrapped, "tables", None)
    if tables is None or getattr(tables, "agent_clauses", None) is None:
        return None, None
    clauses, shot = jax.device_get((tables.agent_clauses, tables.state.last_shot))
    return tuple(clause_ids(np.asarray(clauses)[lane])), np.array(shot[lane], np.float64)


def record_rollout(env_id: str, seed: int, steps: int) -> Rollout:
    """The rollout of ``env_id`` with ``seed`` over ``steps`` seeded random actions."""
    import gymnasium as gym

    env = gym.make(env_id)
    env.action_space.seed(seed)
    h = hashlib.sha256()
    obs, _ = env.reset(seed=seed)
    fresh, out = True, []
    for _ in range(steps):
        hash_obs(h, obs)
        nxt, reward, terminated, truncated, info = env.step(env.action_space.sample())
        hash_outcome(h, reward, terminated, truncated)
        clauses, shot = _played(env, 0)
        if "clauses" in info:
            clauses = tuple(info["clauses"])
        out.append(Step(_copy_obs(obs), fresh, float(reward), bool(terminated), bool(truncated),
                        bool(info.get("foul", False)), clauses, shot))
        obs, fresh = nxt, False
        if terminated or truncated:
            obs, _ = env.reset()
            fresh = True
    env.close()
    return Rollout(env_id, seed, h.hexdigest(), out)


def record_vector_rollouts(env_id: str, seed: int, steps: int, num_envs: int) -> list:
    """The rollout of each sub-env of a vector env of ``num_envs`` seeded ``seed``: sub-env
    ``i`` draws its actions from an action space seeded ``seed + i`` and must equal the
    single env's rollout with seed ``seed + i``. A finished sub-env resets on its next step
    (next-step autoreset): it is sent an ignored action then, and its reset observation is
    the next one recorded (where the single env calls ``reset()``)."""
    import copy

    import gymnasium as gym
    import numpy as np

    venv = gym.make_vec(env_id, num_envs=num_envs)
    single = venv.unwrapped.single_action_space
    spaces = [copy.deepcopy(single) for _ in range(num_envs)]
    for i, space in enumerate(spaces):
        space.seed(seed + i)
    idle_space = copy.deepcopy(single)
    idle_space.seed(0)
    idle = idle_space.sample()
    hashes = [hashlib.sha256() for _ in range(num_envs)]
    out = [[] for _ in range(num_envs)]
    taken = np.zeros(num_envs, int)
    resetting = np.zeros(num_envs, bool)
    fresh = np.ones(num_envs, bool)
    obs, _ = venv.reset(seed=seed)
    while taken.min() < steps:
        acting = ~resetting & (taken < steps)
        seen, actions = {}, []
        for i in range(num_envs):
            if acting[i]:
                seen[i] = {k: np.array(v[i]) for k, v in obs.items()}
                hash_obs(hashes[i], seen[i])
            actions.append(spaces[i].sample() if acting[i] else idle)
        obs, reward, terminated, truncated, info = venv.step({k: np.stack([a[k] for a in actions]) for k in actions[0]})
        for i in np.flatnonzero(acting):
            hash_outcome(hashes[i], reward[i], terminated[i], truncated[i])
            clauses, shot = _played(venv, i)
            foul = bool(info["foul"][i]) if "foul" in info else False
            out[i].append(Step(seen[i], bool(fresh[i]), float(reward[i]), bool(terminated[i]), bool(truncated[i]),
                               foul, clauses, shot))
        taken += acting
        # a sub-env that just finished resets on its next step; one that was resetting now
        # holds a reset observation
        fresh = np.where(acting, False, fresh | resetting)
        resetting = acting & (terminated | truncated)
    venv.close()
    return [Rollout(env_id, seed + i, hashes[i].hexdigest(), out[i]) for i in range(num_envs)]
