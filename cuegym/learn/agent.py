"""A trained JAX policy (a ``train_jax.py`` output folder) as an agent of
:mod:`cuegym.agents`' interface: ``act(observation, key)`` on the Gymnasium env's
observation, so it plays frames in ``experiments/evaluate.py``, serves as an env opponent
(``as_opponent``) and ranks strokes for ``cuegym suggest --policy``.

Why here and not in :mod:`cuegym.agents`: it needs flax and the gymnax front, one layer up
(docs/architecture.md).
"""

from __future__ import annotations

import functools
import pathlib

import jax
import jax.numpy as jnp

from cuegym.agents.base import Agent, observation_arrays, state_from_observation
from cuegym.learn import ppo
from cuegym.learn.train import CONFIG, load


class PolicyAgent(Agent):
    """The greedy decision of the policy saved in ``path`` (its env id, action kind,
    observation and options come from the folder's config; ``options`` may change the
    table or the noise for the env the agent reads). ``last_info["candidate"]`` the menu
    index chosen (``action="menu"`` or ``"residual"``, with ``last_info["correction"]`` the
    residual's two components), ``last_info["value"]`` the value head's estimate."""

    def __init__(self, path, **options):
        path = pathlib.Path(path)
        if not (path / CONFIG).exists():
            raise ValueError(f"path: {str(path)!r} holds no trained policy (config.json and checkpoint.msgpack "
                             f"of experiments/train_jax.py)")
        genv, _, net, weights = load(path, **options)
        super().__init__(genv.func)
        self.policy_env, self.net, self.weights = genv, net, weights
        self.path = path

    def _decide(self, obs, key):
        action, pick, value = _program(self.policy_env, self.net)(self.weights, obs)
        info = {"value": float(value)}
        if self.policy_env.action == "menu":
            info["candidate"] = int(pick)
        elif self.policy_env.action == "residual":
            info["candidate"], info["correction"] = int(pick[0]), [float(c) for c in pick[1]]
        return action, info

    def scores(self, observation) -> dict:
        """Every candidate of the menu for ``observation`` with the policy's probability:
        ``probs`` (K,), ``legal`` (K,) bool and ``actions`` (each field (K, ...)). Only for
        ``action="menu"``, or ``"residual"`` (each candidate with its mean correction)."""
        if not self.policy_env.on_menu:
            raise ValueError("scores: the policy's action is 'shot'; only a menu policy ranks candidates")
        return jax.device_get(_menu_program(self.policy_env, self.net)(
            self.weights, observation_arrays(self.env, observation)))


def _table_obs(genv, obs):
    state = state_from_observation(genv.func, obs)
    vec, st = genv._finish(state, jnp.asarray(0, jnp.int32))
    return vec, st


@functools.lru_cache(maxsize=None)
def _program(genv, net):
    def decide(weights, obs):
        vec, st = _table_obs(genv, obs)
        out = net.apply(weights, vec[None])
        pick = jax.tree.map(lambda x: x[0], ppo.greedy(genv, out))  # the batch of one
        return genv.decision(st, pick), pick, out[-1][0]

    return jax.jit(decide)


@functools.lru_cache(maxsize=None)
def _menu_program(genv, net):
    def rank(weights, obs):
        vec, st = _table_obs(genv, obs)
        out = net.apply(weights, vec[None])
        logits = out[0][0]
        legal = vec[genv.slice("legal")] > 0.5
        actions = st.menu
        if genv.action == "residual":  # each candidate with its own mean correction
            k = jnp.arange(logits.shape[0])
            actions = jax.vmap(lambda i, c: genv.decision(st, (i, c)))(k, out[1][0])
        return {"probs": jax.nn.softmax(logits), "legal": legal, "actions": actions}

    return jax.jit(rank)
