"""A learner's action as a correction to a base agent's stroke (residual policy learning).

:class:`ResidualShot` wraps a cuegym env with a Dict action: the learner's Box action (5,)
in [-1, 1] corrects the shot (phi, speed, a, b, theta) a base agent (default
:class:`~cuegym.agents.GhostBallAgent`) chose on the same observation, and every other field
of the Dict action is the base agent's. A zero action plays the base agent exactly, so a
learner starts from the base's success rate rather than a random shot's and has to learn only
what the base's geometry leaves out: throw, the pocket's mouth, speed (residual learning on
top of a fixed controller: Silver et al., arXiv:1812.06298, 2018; Johannink et al., ICRA 2019).

The corrections and their spans (``aim_span``, ``speed_ratio``, ``tip_span``, ``theta_span``),
clipping and errors: docs/agents.md, "ResidualShot"; measured rates: docs/training.md.
"""

from __future__ import annotations

import math

import gymnasium as gym
import jax
import numpy as np
from gymnasium import spaces

from cuegym.agents.base import Agent
from cuegym.agents.baselines import GhostBallAgent
from cuegym.envs.functional import SHOT_HIGH, SHOT_LOW
from cuegym.envs.wrappers import FlatObservation, unit

AIM_SPAN = math.radians(4.0)
SPEED_RATIO = 2.0
TIP_SPAN = 0.3
THETA_SPAN = 0.1  # rad: steeper cues bounce the cue ball, hundreds of events a stroke


def correct_shot(base_shot, v, aim_span=AIM_SPAN, speed_ratio=SPEED_RATIO, tip_span=TIP_SPAN,
                 theta_span=THETA_SPAN) -> tuple[np.ndarray, bool]:
    """(5,) the corrected shot [phi rad, speed m/s, a, b, theta rad] and whether a limit
    clipped it, from ``base_shot`` (5,) and the correction ``v`` (5,) in [-1, 1] (module
    docstring)."""
    base_shot = np.asarray(base_shot, float)
    shot = np.array([
        base_shot[0] + v[0] * aim_span,
        base_shot[1] * speed_ratio ** v[1],
        base_shot[2] + v[2] * tip_span,
        base_shot[3] + v[3] * tip_span,
        base_shot[4] + v[4] * theta_span,
    ])
    shot[0] = np.mod(shot[0], 2 * np.pi)
    clipped = np.clip(shot, SHOT_LOW, SHOT_HIGH)
    return clipped, bool(np.any(clipped[1:] != shot[1:]))


class ResidualShot(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Action: Box(-1, 1, (5,), float32), a correction to ``base``'s shot (module docstring);
    the other Dict fields are ``base``'s.

    ``base``: an :class:`~cuegym.agents.Agent` for this env (default: a
    :class:`GhostBallAgent` built from the env's own configuration). Its keys come from a
    stream seeded with ``seed`` and re-seeded by ``reset(seed=...)``, so a seeded episode
    replays. ``info["base_action"]`` is the base's Dict action, ``info["action"]`` the one
    played. Wrap the env with Dict observations (:class:`~cuegym.envs.wrappers.FlatObservation`
    goes outside this one: :func:`make_residual_env`)."""

    def __init__(self, env: gym.Env, base: Agent | None = None, *, aim_span: float = AIM_SPAN,
                 speed_ratio: float = SPEED_RATIO, tip_span: float = TIP_SPAN, theta_span: float = THETA_SPAN,
                 seed: int = 0):
        gym.utils.RecordConstructorArgs.__init__(self, aim_span=aim_span, speed_ratio=speed_ratio,
                                                 tip_span=tip_span, theta_span=theta_span, seed=seed)
        gym.Wrapper.__init__(self, env)
        func = getattr(env.unwrapped, "func", None)
        if func is None or not isinstance(env.action_space, spaces.Dict):
            raise ValueError(f"env: ResidualShot wraps a cuegym env with a Dict action, "
                             f"got {type(env.unwrapped).__name__}")
        for name, x, lo, hi in (("aim_span", aim_span, 0.0, math.pi), ("speed_ratio", speed_ratio, 1.0, 10.0),
                                ("tip_span", tip_span, 0.0, 2.0), ("theta_span", theta_span, 0.0, math.radians(70))):
            if not (isinstance(x, (int, float)) and lo <= x <= hi):
                raise ValueError(f"{name}: a number in [{lo:g}, {hi:g}], got {x!r}")
        self.base = GhostBallAgent(func) if base is None else base
        self.spans = (float(aim_span), float(speed_ratio), float(tip_span), float(theta_span))
        self.action_space = spaces.Box(-1.0, 1.0, (5,), np.float32)
        self._key = jax.random.PRNGKey(seed)
        self._obs = None

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._key = jax.random.PRNGKey(seed)
        obs, info = self.env.reset(seed=seed, options=options)
        self._obs = obs
        return obs, info

    def decide(self, action, obs, key) -> tuple[dict, dict, bool]:
        """(played Dict action, base Dict action, clipped) for correction ``action`` (5,) on
        ``obs``, the base drawing from ``key``."""
        v = unit(action, "action", (5,))  # ShotOnly's check: shape, NaN / inf, clipped to [-1, 1]
        base = self.base.act(obs, key)
        shot, clipped = correct_shot(base["shot"], v, *self.spans)
        return {**base, "shot": shot.astype(np.float32)}, base, clipped

    def step(self, action):
        if self._obs is None:
            raise RuntimeError("call reset() before step()")
        self._key, sub = jax.random.split(self._key)
        played, base, clipped = self.decide(action, self._obs, sub)
        obs, reward, terminated, truncated, info = self.env.step(played)
        self._obs = obs
        info = {**info, "action": played, "base_action": base, "residual_clipped": clipped}
        return obs, reward, terminated, truncated, info


def make_residual_env(env_id: str, base: str = "ghost", *, seed: int = 0, **kwargs) -> gym.Env:
    """``gymnasium.make(env_id, **kwargs)`` as a learner sees it with a residual action:
    ``FlatObservation(ResidualShot(env))``, the base ``"ghost"`` (:class:`GhostBallAgent`).
    Ready for ``PPO("MlpPolicy", env)`` or ``SAC``."""
    import cuegym  # noqa: F401  (registers the ids)

    if base != "ghost":
        raise ValueError(f"base: 'ghost' (the ghost-ball agent), got {base!r}; pass any Agent to ResidualShot directly")
    return FlatObservation(ResidualShot(gym.make(env_id, **kwargs), seed=seed))
