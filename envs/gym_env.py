"""Gymnasium front of the functional environments: a single env and a native vector env.

Both run the same jitted, vmapped program (:func:`cuegym.functional.batched`): the single
env is a batch of one, so a sub-env of a vector env and the single env with the same seed
give the same bytes (DESIGN.md §7). Seeds: the single env seeded ``s`` and sub-env ``i`` of
a vector env seeded ``s + i`` draw from the same key stream.

Gymnasium's own ``FunctionalJaxVectorEnv`` (1.x) autoresets with ``state.at[idx].set``,
which needs the state to be one array; our state is a pytree, so the vector env here does
the next-step autoreset inside the jitted step instead.
"""

from __future__ import annotations

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from . import functional as F
from .physics import POCKETS, get_table
from .rules.base import PHASE_NAMES


def action_space(env: F.FuncEnv) -> spaces.Dict:
    n = env.n_balls
    spec = env.spec
    return spaces.Dict({
        "shot": spaces.Box(F.SHOT_LOW.astype(np.float32), F.SHOT_HIGH.astype(np.float32), dtype=np.float32),
        "place": spaces.Box(np.zeros(2, np.float32), np.array([spec.width, spec.length], np.float32), dtype=np.float32),
        "cue_ball": spaces.Discrete(n),
        "ball": spaces.Discrete(n),
        "pocket": spaces.Discrete(len(POCKETS)),
        "choice": spaces.Discrete(n),
    })


def observation_space(env: F.FuncEnv) -> spaces.Dict:
    n = env.n_balls
    spec = env.spec
    hi = np.broadcast_to(np.array([spec.width, spec.length, 1.0], np.float32), (n, 3))
    return spaces.Dict({
        "balls": spaces.Box(np.zeros((n, 3), np.float32), hi.copy(), dtype=np.float32),
        "phase": spaces.Discrete(len(PHASE_NAMES)),
        "to_play": spaces.Discrete(2),
        "scores": spaces.Box(-1000.0, 1000.0, (2,), np.float32),
        "legal_ball": spaces.MultiBinary(n),
    })


def check_action(action, batch: int | None = None) -> dict:
    """Convert a Dict action to arrays; NaN or inf raise ValueError naming the field."""
    if not isinstance(action, dict):
        raise ValueError(f"action: a dict with keys shot, place, cue_ball, ball, pocket, choice; got {type(action).__name__}")
    lead = () if batch is None else (batch,)
    out = {}
    for key, shape in (("shot", (5,)), ("place", (2,))):
        x = np.asarray(action.get(key, np.zeros(lead + shape)), np.float64)
        if x.shape != lead + shape:
            raise ValueError(f"action.{key}: shape {x.shape}, expected {lead + shape}")
        if not np.all(np.isfinite(x)):
            raise ValueError(f"action.{key}: NaN or inf in {x.tolist()}")
        out[key] = x
    for key in ("cue_ball", "ball", "pocket", "choice"):
        x = np.asarray(action.get(key, np.zeros(lead, np.int64)))
        if x.shape != lead:
            raise ValueError(f"action.{key}: shape {x.shape}, expected {lead}")
        out[key] = x.astype(np.int32)
    return out


def _numpy_obs(obs, index=None):
    """The observation as numpy in the space's dtypes: table ``index`` of a batch (a single
    env's observation), or the whole batch when ``index`` is None (a vector env's)."""
    take = (lambda x: np.asarray(x)) if index is None else (lambda x: np.asarray(x)[index])
    return {
        "balls": take(obs["balls"]).astype(np.float32),
        "phase": take(obs["phase"]).astype(np.int64),
        "to_play": take(obs["to_play"]).astype(np.int64),
        "scores": take(obs["scores"]).astype(np.float32),
        "legal_ball": take(obs["legal_ball"]).astype(np.int8),
    }


def _info(state, k=0) -> dict:
    g = state.game
    return {
        "to_play": int(g.to_play[k]),
        "acted": int(state.acted[k]),
        "rewards": np.asarray(state.rewards[k]).copy(),
        "scores": np.asarray(g.scores[k]).copy(),
        "phase": PHASE_NAMES[int(g.phase[k])],
        "foul": bool(state.foul[k]),
        "clipped": bool(state.clipped[k]),
        "projected": bool(state.projected[k]),
        "truncated_shot": bool(state.truncated_shot[k]),
    }


class CueEnv(gym.Env):
    """A cue-sports table as a Gymnasium env (see :mod:`cuegym.functional` for the tasks).

    Options: ``table``, ``noise`` (multiple of the tournament sigmas, default 1.0),
    ``max_shots`` (truncation), ``reward_scale``, and the pot-shot ranges ``distance`` [m]
    and ``cut`` [degrees]. Without an opponent the agent plays every turn; ``info["to_play"]``
    says whose turn comes next and the reward is the acting player's.
    """

    metadata = {"render_modes": [], "render_fps": 1}

    def __init__(self, task: str = "russian-pyramid", render_mode: str | None = None, **options):
        self.func = F.FuncEnv(task=task, **options)
        get_table(self.func.table)  # compile the table outside any trace
        self.action_space = action_space(self.func)
        self.observation_space = observation_space(self.func)
        self.render_mode = render_mode
        self._reset_fn, self._step_fn = F.batched(self.func)
        self._key = None
        self._state = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None or self._key is None:
            s = seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
            self._key = jax.random.PRNGKey(s)[None]
        keys = jax.vmap(jax.random.split)(self._key)
        self._key, sub = keys[:, 0], keys[:, 1]
        self._state, obs = self._reset_fn(sub)
        return _numpy_obs(obs, 0), _info(self._state)

    def step(self, action):
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        act = check_action(action)
        batch = {k: jnp.asarray(v)[None] for k, v in act.items()}
        keys = jax.vmap(jax.random.split)(self._key)
        self._key, sub = keys[:, 0], keys[:, 1]
        self._state, obs = self._step_fn(self._state, batch, sub, jnp.zeros(1, bool))
        s = self._state
        acted = int(s.acted[0])
        reward = float(s.rewards[0, acted])
        return _numpy_obs(obs, 0), reward, bool(s.terminated[0]), bool(s.truncated[0]), _info(s)


class CueVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` tables stepped in one jitted call, with next-step autoreset."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, task: str = "russian-pyramid", num_envs: int = 1, render_mode: str | None = None, **options):
        self.func = F.FuncEnv(task=task, **options)
        get_table(self.func.table)
        self.num_envs = num_envs
        self.single_action_space = action_space(self.func)
        self.single_observation_space = observation_space(self.func)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.render_mode = render_mode
        self._reset_fn, self._step_fn = F.batched(self.func)
        self._key = None
        self._done = np.zeros(num_envs, bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None or self._key is None:
            s = seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
            self._key = jax.vmap(jax.random.PRNGKey)(jnp.arange(self.num_envs) + s)
        keys = jax.vmap(jax.random.split)(self._key)
        self._key, sub = keys[:, 0], keys[:, 1]
        self._state, obs = self._reset_fn(sub)
        self._done = np.zeros(self.num_envs, bool)
        return _numpy_obs(obs), {}

    def step(self, actions):
        act = check_action(actions, self.num_envs)
        keys = jax.vmap(jax.random.split)(self._key)
        self._key, sub = keys[:, 0], keys[:, 1]
        done = jnp.asarray(self._done)
        self._state, obs = self._step_fn(self._state, {k: jnp.asarray(v) for k, v in act.items()}, sub, done)
        s = self._state
        acted = np.asarray(s.acted)
        rewards = np.asarray(s.rewards)[np.arange(self.num_envs), acted].astype(np.float64)
        terminated = np.asarray(s.terminated) & ~self._done
        truncated = np.asarray(s.truncated) & ~self._done
        rewards = np.where(self._done, 0.0, rewards)
        self._done = terminated | truncated
        info = {"to_play": np.asarray(s.game.to_play), "acted": acted, "foul": np.asarray(s.foul),
                "clipped": np.asarray(s.clipped), "projected": np.asarray(s.projected)}
        return _numpy_obs(obs), rewards, terminated, truncated, info
