"""The agent protocol: ``act(observation, key) -> action``.

An agent is built for one task (a Gymnasium id with its options, or a
:class:`cuegym.envs.functional.FuncEnv`), reads observations exactly as the Gymnasium env returns
them (a dict of NumPy arrays, one table) and returns an action dict valid for the env's
action space. All randomness comes from the JAX key passed in, so a fixed key gives a fixed
action. :meth:`Agent.as_opponent` turns an agent into the env's callable opponent with its
own seeded key stream.

The agents reason on the functional env's state (:class:`cuegym.envs.functional.EnvState`);
:func:`state_from_observation` rebuilds it from an observation, filling what the observation
does not carry with the nearest reading (each game module's ``from_observation`` says its
readings; the list: docs/agents.md, "The protocol" and "Known limits").
"""

from __future__ import annotations

import time

import jax
import numpy as np

from cuegym import ENV_TASKS
from cuegym.envs import functional as F
from cuegym.envs.env_spaces import action_space
from cuegym.envs.registry import GAMES


def make_func_env(env, **options) -> F.FuncEnv:
    """The :class:`~cuegym.envs.functional.FuncEnv` of ``env``: a FuncEnv (returned as is, or
    with ``options`` replaced), a Gymnasium id (``"cuegym/PotShot-v0"``) or a task name
    (``"pot-shot"``); ``options`` as the env's (``table``, ``noise``, ...)."""
    if isinstance(env, F.FuncEnv):
        return F.FuncEnv(**{**env.__dict__, **options}) if options else env
    if not isinstance(env, str):
        raise ValueError(f"env: a FuncEnv, a Gymnasium id ({', '.join(ENV_TASKS)}) or a task name; got {env!r}")
    task = ENV_TASKS.get(env, env)
    return F.FuncEnv(task=task, **options)


def obs_keys(env: F.FuncEnv) -> tuple:
    """The observation keys the agents read (:attr:`cuegym.envs.registry.GameDef.obs_keys`)."""
    return GAMES[env.task].obs_keys


def observation_arrays(env: F.FuncEnv, observation) -> dict:
    """The observation as NumPy arrays of fixed dtypes (what the jitted agents take), with
    its shape checked; raises ValueError naming a missing or misshapen field."""
    n = env.n_balls
    if not isinstance(observation, dict):
        raise ValueError(f"observation: a dict as the env returns it, got {type(observation).__name__}")
    p = env.players
    shapes = {"balls": (n, 3), "scores": (p,), "target_pocket": (p,), "debt": (2,), "legal_ball": (n,), "legal_cue_ball": (n,),
              "legal_choice": (n,), "owner": (n,), "ball_on": (n,), "remaining": (2,)}
    out = {}
    for k in obs_keys(env):
        if k not in observation:
            raise ValueError(f"observation.{k}: missing")
        x = np.asarray(observation[k])
        want = shapes.get(k, ())
        if x.shape != want:
            raise ValueError(f"observation.{k}: shape {x.shape}, expected {want} for {env.task}")
        out[k] = x.astype(np.float64 if k in ("balls", "scores") else np.int32)
    return out


def state_from_observation(env: F.FuncEnv, obs: dict) -> F.EnvState:
    """(traceable) An :class:`~cuegym.envs.functional.EnvState` with the observation's layout and
    game state, as the env's game module reads it back (``from_observation``; what the
    observation lacks is filled with the nearest reading there). ``obs``: the arrays of
    :func:`observation_arrays`."""
    return F.from_observation(env, obs)


def to_env_action(env: F.FuncEnv, action) -> dict:
    """A jitted agent's action (arrays) as the Gymnasium env takes it: ``shot`` and
    ``place`` float32 inside the action space's boxes, the integer fields Python ints."""
    space = action_space(env)
    shot = np.clip(np.asarray(action["shot"], np.float32), space["shot"].low, space["shot"].high)
    place = np.clip(np.asarray(action["place"], np.float32), space["place"].low, space["place"].high)
    out = {"shot": shot, "place": place}
    for k in ("cue_ball", "ball", "pocket", "choice"):
        out[k] = int(np.clip(int(action[k]), 0, space[k].n - 1))
    return out


class Agent:
    """Base class: ``act(observation, key) -> action``; subclasses implement
    :meth:`_decide`. ``env``: a Gymnasium id, task name or FuncEnv; ``options``: the env's
    options (``table``, ...; ``noise`` is the env's, not the agent's). ``last_info``: a dict
    about the latest decision (``time_s`` and whatever the agent adds)."""

    def __init__(self, env, **options):
        self.env = make_func_env(env, **options)
        self.last_info: dict = {}

    def act(self, observation, key) -> dict:
        """The action for ``observation`` (the env's dict), drawing from ``key`` (a JAX
        PRNG key)."""
        t0 = time.perf_counter()
        obs = observation_arrays(self.env, observation)
        action, info = self._decide(obs, key)
        out = to_env_action(self.env, action)
        self.last_info = {**info, "time_s": time.perf_counter() - t0}
        return out

    def _decide(self, obs: dict, key):
        raise NotImplementedError

    def as_opponent(self, seed: int = 0):
        """``f(obs) -> action`` for ``gymnasium.make(id, opponent=f)``: each call draws the
        next key of a stream seeded with ``seed``."""
        key = jax.random.PRNGKey(seed)

        def policy(observation):
            nonlocal key
            key, sub = jax.random.split(key)
            return self.act(observation, sub)

        return policy
