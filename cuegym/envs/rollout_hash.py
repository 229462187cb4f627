"""The bytes of a rollout that a determinism check hashes: each step's observation, reward
and flags. One definition, so the shipped API test, the ``check-determinism`` command and
the committed golden hashes (tests/golden_env_rollouts.json) agree; docs/determinism.md."""

from __future__ import annotations

import numpy as np


def hash_obs(h, obs: dict) -> None:
    """Feed each observation field's bytes (in the dict's order) to the hash ``h``."""
    for v in obs.values():
        h.update(np.asarray(v).tobytes())


def hash_outcome(h, reward, terminated, truncated) -> None:
    """Feed a step's reward (float64 bytes) and its two flags (one byte each) to ``h``."""
    h.update(np.float64(reward).tobytes() + bytes([bool(terminated), bool(truncated)]))
