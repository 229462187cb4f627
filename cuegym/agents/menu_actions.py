"""The shot menu as a Gymnasium env's action: ``gymnasium.make(id, action="menu")`` and
``gymnasium.make_vec(id, num_envs, action="menu")`` (:mod:`cuegym.entry` applies these
wrappers).

The action is an index into the K candidate strokes that :func:`cuegym.agents.menu.menu`
builds for the table the agent sees (the same menu as the gymnax env's ``action="menu"``);
the observation adds each candidate's features and the legal mask. Why a wrapper here: the
menu is built from the ghost's plans, one layer above the envs (docs/architecture.md).
Specification: docs/training.md, "The shot menu in Gymnasium".
"""

from __future__ import annotations

import functools

import gymnasium as gym
import jax
import numpy as np
from gymnasium import spaces

from cuegym.agents import menu as M
from cuegym.envs import functional as F


@functools.lru_cache(maxsize=None)
def _program(env: F.FuncEnv):
    """jit: a batch of states (leaves (B, ...)) -> (actions, each field (B, K, ...);
    features (B, K, F) float32; legal (B, K) bool)."""

    def build(state):
        m = jax.vmap(lambda s: M.menu(env, s))(state)
        return m.actions, m.features, m.legal

    return jax.jit(build)


def _spaces(base: spaces.Dict) -> spaces.Dict:
    k, f = M.size(), M.NUM_FEATURES
    return spaces.Dict({**base.spaces, "menu": spaces.Box(-np.inf, np.inf, (k, f), np.float32),
                        "menu_legal": spaces.MultiBinary(k)})


def _index(action, what: str, legal: np.ndarray) -> int:
    """``action`` as a legal candidate index, or ValueError naming ``what``."""
    k = M.size()
    a = np.asarray(action)
    if a.shape != () or not (np.issubdtype(a.dtype, np.integer) or (np.issubdtype(a.dtype, np.floating)
                                                                    and float(a) == int(a))):
        raise ValueError(f"{what}: a menu index, an integer in [0, {k}), got {action!r}")
    i = int(a)
    if not 0 <= i < k:
        raise ValueError(f"{what}: a menu index in [0, {k}), got {i}")
    if not legal[i]:
        raise ValueError(f"{what}: candidate {i} is masked out now; legal: {np.flatnonzero(legal).tolist()}")
    return i


class MenuSpace(spaces.Discrete):
    """``Discrete(K)`` whose ``sample()`` without a mask draws among the candidates legal
    now (a random policy, and Gymnasium's checker, then play legal strokes)."""

    def __init__(self, menus: _Menus, seed=None):
        super().__init__(M.size(), seed=seed)
        self._menus = menus

    def sample(self, mask=None, probability=None):
        legal = self._menus.legal
        if mask is None and probability is None and legal is not None:
            mask = legal[0].astype(np.int8)
        return super().sample(mask=mask, probability=probability)


class _Menus:
    """The menus of a batch of tables, rebuilt after every reset and step."""

    def __init__(self, env):
        self.func = env.unwrapped.func
        self.tables = env.unwrapped.tables
        self.actions = self.features = self.legal = None

    def refresh(self):
        self.actions, self.features, self.legal = jax.device_get(_program(self.func)(self.tables.state))

    def observe(self, obs: dict, batched: bool = False) -> dict:
        """``obs`` with the menu's features and legal mask: of the one table, or (batched)
        of every table."""
        features, legal = (self.features, self.legal) if batched else (self.features[0], self.legal[0])
        return {**obs, "menu": features.astype(np.float32), "menu_legal": legal.astype(np.int8)}

    def decisions(self, ks: np.ndarray) -> dict:
        """The env action dict of candidate ``ks[i]`` of every table i (each field (B, ...)):
        the strokes in float64, as the menu built them."""
        lanes = np.arange(len(ks))
        out = {name: np.asarray(v[lanes, ks]) for name, v in self.actions.items()}
        for name in ("shot", "place"):
            out[name] = out[name].astype(np.float64)
        for name in ("cue_ball", "ball", "pocket", "choice"):
            out[name] = out[name].astype(np.int64)
        return out


class MenuActions(gym.Wrapper):
    """A single cuegym env whose action is ``Discrete(K)`` (:class:`MenuSpace`), an index into
    the shot menu; its observation dict adds ``menu`` (K, F) float32 features and
    ``menu_legal`` (K,) int8. An index out of range or masked out raises ValueError naming
    ``action``; ``info["candidate"]`` is the index played."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self._menus = _Menus(env)
        self.action_space = MenuSpace(self._menus)
        self.observation_space = _spaces(env.observation_space)

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self._menus.refresh()
        return self._menus.observe(obs), info

    def step(self, action):
        if self._menus.legal is None:
            raise RuntimeError("call reset() before step()")
        k = _index(action, "action", self._menus.legal[0])
        chosen = self._menus.decisions(np.asarray([k]))
        action = {name: (v[0] if name in ("shot", "place") else int(v[0])) for name, v in chosen.items()}
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._menus.refresh()
        return self._menus.observe(obs), reward, terminated, truncated, {**info, "candidate": k}


class MenuVectorActions(gym.vector.VectorWrapper):
    """The vector env's counterpart of :class:`MenuActions`: actions (B,) menu indices; a
    bad index raises ValueError naming ``action[i]`` and no table moves. A table that ended
    on the last step resets on this one (Gymnasium's next-step autoreset), so its index is
    not read."""

    def __init__(self, env):
        super().__init__(env)
        self._menus = _Menus(env)
        self.single_action_space = spaces.Discrete(M.size())
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, env.num_envs)
        self.single_observation_space = _spaces(env.single_observation_space)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, env.num_envs)

    @property
    def devices(self) -> tuple:
        """The devices holding the tables (the vector env's)."""
        return self.env.devices

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self._menus.refresh()
        return self._menus.observe(obs, batched=True), info

    def step(self, actions):
        if self._menus.legal is None:
            raise RuntimeError("call reset() before step()")
        b = self.env.num_envs
        actions = np.asarray(actions)
        if actions.shape != (b,):
            raise ValueError(f"action: shape {actions.shape}, expected ({b},), one menu index per table")
        done = np.asarray(self.env.unwrapped.tables.done, bool)
        legal = self._menus.legal
        ks = np.asarray([M.size() - 1 if done[i] else _index(actions[i], f"action[{i}]", legal[i])
                         for i in range(b)])
        obs, reward, terminated, truncated, info = self.env.step(self._menus.decisions(ks))
        self._menus.refresh()
        return self._menus.observe(obs, batched=True), reward, terminated, truncated, {**info, "candidate": ks}
