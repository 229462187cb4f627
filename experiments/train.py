"""Train a stable-baselines3 learner (PPO, SAC or MaskablePPO) on a cuegym env, evaluating it as it learns.

    python experiments/train.py --env cuegym/PotShot-v0 --algo ppo|sac|maskable_ppo --steps 60000 --seed 0 \\
        [--num-envs 8] [--eval-every 10000] [--eval-episodes 512] [--out results/train] \\
        [--table pool-9ft] [--noise 1.0] [--opponent random|ghost] [--wrapper shot_only|flatten|residual] \\
        [--action dict|menu] [--vec auto|native|dummy] [--bench-vec STEPS]   (--help: every flag; docs/training.md)

The learner sees the env through :mod:`cuegym.envs.wrappers`: a Box action in [-1, 1]
(``ShotOnly``: the five shot parameters, the rest by the heuristic; ``--wrapper flatten``:
the whole Dict action; ``--wrapper residual``: corrections to the ghost-ball agent's stroke,
:mod:`cuegym.agents.residual`) and the flat observation. ``--action menu`` trains on the
shot menu instead (``gymnasium.make(id, action="menu")`` through ``MenuMasks``): a
Discrete(K) action, the candidates' features and legal mask in the flat observation;
``--algo maskable_ppo`` (sb3-contrib) masks the illegal candidates, plain ``ppo`` has a
masked index play the ghost's candidate (the last). Training runs ``--num-envs`` tables at once,
either through :class:`NativeVecEnv` (an SB3 ``VecEnv`` over the native JAX vector env: one
compiled call steps every table) or SB3's ``DummyVecEnv`` over single envs; ``--vec auto``
takes the native one where it applies (the one-stroke tasks, below) and ``--bench-vec N``
times both on N random steps and prints the ratio.

Evaluation (at step 0, every ``--eval-every`` steps and at the end): the deterministic
policy plays ``--eval-episodes`` episodes on a separate native vector env seeded
``--eval-seed``, the same episodes at every evaluation; a uniform-random action in the same
Box (the random baseline; on the menu, a uniform legal candidate) plays the same episodes once. Success is an episode return > 0:
a clean pot in PotShot, a lag that does not lose by RU-GEN-08 in Lag, finishing the frame
ahead of the opponent in the games.

Outputs in ``--out``: ``model.zip`` (``PPO.load`` / ``SAC.load`` / ``MaskablePPO.load``), ``evaluations.json``
(config, baseline, every evaluation, training wall time and fps) and
``learning_curve.png`` (when matplotlib imports: the ``render`` extra). Same arguments,
same evaluation numbers: torch runs deterministic algorithms on one thread, SB3 is seeded
with ``--seed``, training table i draws from the key stream seeded ``seed + i``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import gymnasium as gym
import jax
import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3 import PPO, SAC
from stable_baselines3.common import logger as sb3_logger
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

import cuegym
from cuegym import compile_log
from cuegym._cache import enable_compilation_cache
from cuegym.agents.residual import ResidualShot, make_residual_env
from cuegym.envs import wrappers as W

ONE_STROKE = ("cuegym/PotShot-v0", "cuegym/Lag-v0")
"""Ids whose every episode is one decision: all tables end together, which the native
adapter needs (:class:`NativeVecEnv`)."""
WRAPPERS = ("shot_only", "flatten", "residual")
"""The learner's action: the shot with the rest by the heuristic (``ShotOnly``), the whole
Dict action (``FlattenDictAction``), or corrections to the ghost-ball agent's stroke
(:class:`cuegym.agents.residual.ResidualShot`; ``--shot-high`` does not apply)."""
ACTIONS = ("dict", "menu")
"""The env's action: its Dict (through ``--wrapper``) or the shot menu's index (``MenuMasks``)."""
ALGOS = ("ppo", "sac", "maskable_ppo")
TWO_PLAYER = ("cuegym/RussianPyramid-v0", "cuegym/Americanka-v0", "cuegym/MoscowPyramid-v0")
EVAL_BATCH = 64
"""Tables per evaluation call: the batch the env tests compile, so the program is cached."""
DEFAULT_SHOT_HIGH = (0.0, 10.0, 1.0, 1.0, 0.1)
"""phi (ignored: the whole circle), speed [m/s], a, b [ball radii], theta [rad]: the cue
elevation is kept under 0.1 rad since random jump shots bounce for hundreds of events and
make a stroke ~15 times slower (tests/agents/test_sb3.py)."""


# ----------------------------------------------------------------------------- configuration


@dataclass(frozen=True)
class Config:
    """One training run (the command-line flags)."""

    env: str = "cuegym/PotShot-v0"
    algo: str = "ppo"
    steps: int = 60_000
    seed: int = 0
    num_envs: int = 8
    eval_every: int = 10_000
    eval_episodes: int = 512
    eval_seed: int = 1_000_000
    out: str = "results/train"
    table: str | None = None
    noise: float = 1.0
    distance: tuple | None = None
    cut: tuple | None = None
    opponent: str = "random"
    wrapper: str = "shot_only"
    vec: str = "auto"
    shot_high: tuple = DEFAULT_SHOT_HIGH
    net: tuple = (64, 64)
    action: str = "dict"
    learning_rate: float = 3e-4
    n_steps: int = 64
    batch_size: int = 64
    log_std_init: float = 0.0
    init: str | None = None

    def check(self) -> Config:
        """Raise ValueError naming the first bad field and its allowed values."""
        if self.env not in cuegym.ENV_IDS:
            raise ValueError(f"env: one of {list(cuegym.ENV_IDS)}, got {self.env!r}")
        if self.algo not in ALGOS:
            raise ValueError(f"algo: one of {list(ALGOS)}, got {self.algo!r}")
        if self.action not in ACTIONS:
            raise ValueError(f"action: one of {list(ACTIONS)}, got {self.action!r}")
        if self.menu and self.algo == "sac":
            raise ValueError("algo: 'sac' needs a Box action; the menu's is Discrete (use 'ppo' or 'maskable_ppo')")
        if not self.menu and self.algo == "maskable_ppo":
            raise ValueError("algo: 'maskable_ppo' masks the menu's candidates; use it with action 'menu'")
        if self.menu and self.wrapper != "shot_only":
            raise ValueError(f"wrapper: applies to action 'dict' only, got {self.wrapper!r} with action 'menu'")
        for name in ("steps", "num_envs", "eval_every", "eval_episodes", "n_steps", "batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: an integer >= 1, got {getattr(self, name)}")
        if self.opponent not in ("random", "ghost"):
            raise ValueError(f"opponent: 'random' or 'ghost', got {self.opponent!r}")
        if self.wrapper not in WRAPPERS:
            raise ValueError(f"wrapper: one of {list(WRAPPERS)}, got {self.wrapper!r}")
        if self.vec not in ("auto", "native", "dummy"):
            raise ValueError(f"vec: 'auto', 'native' or 'dummy', got {self.vec!r}")
        if self.vec == "native" and self.env not in ONE_STROKE:
            raise ValueError(f"vec: 'native' serves only {list(ONE_STROKE)} (all tables end together); "
                             f"use 'dummy' or 'auto' for {self.env}")
        if not (math.isfinite(self.noise) and self.noise >= 0):
            raise ValueError(f"noise: a finite multiple >= 0 of the tournament sigmas, got {self.noise}")
        if (self.distance is not None or self.cut is not None) and self.env != "cuegym/PotShot-v0":
            raise ValueError(f"distance, cut: PotShot-v0 options only, got them for {self.env}")
        if not (math.isfinite(self.learning_rate) and self.learning_rate > 0):
            raise ValueError(f"learning_rate: > 0, got {self.learning_rate}")
        return self

    @property
    def menu(self) -> bool:
        return self.action == "menu"

    @property
    def native(self) -> bool:
        return self.vec == "native" or (self.vec == "auto" and self.env in ONE_STROKE)

    def env_kwargs(self) -> dict:
        """Options for ``gymnasium.make`` / ``make_vec``: the table, the noise, and the
        opponent for the two-player games (the agent is player 0)."""
        kw = {"noise": self.noise}
        for name in ("table", "distance", "cut"):  # None: the env's default
            if getattr(self, name) is not None:
                kw[name] = getattr(self, name)
        if self.env in TWO_PLAYER:
            kw["opponent"] = self.opponent
        return kw


# ----------------------------------------------------------------------------- lanes


class _Spaces(gym.Env):
    """Only the spaces and the configuration of a cuegym env, so that the wrappers
    (:class:`cuegym.envs.wrappers.FlatObservation`, ``ShotOnly``, ``FlattenDictAction``) encode
    and decode the lanes of a vector env without a single env per lane."""

    def __init__(self, venv):
        self.observation_space = venv.single_observation_space
        self.action_space = venv.single_action_space
        self.func = venv.unwrapped.func


class LaneCodec:
    """The wrappers' Box interface for every lane of a native vector env: the same
    observation vector and the same decoded Dict action as ``make_sb3_env`` (wrapper
    ``shot_only`` or ``flatten``) gives one table.

    ``encode(obs)``: the vector env's Dict of (B, ...) arrays -> (B, D) float32.
    ``decode(actions, obs)``: (B, A) values in [-1, 1] -> the Dict action batch; on the menu
    (``wrapper="menu"``, a vector env built with ``action="menu"``), (B,) indices -> the
    indices played, a masked one replaced by the ghost's candidate as ``MenuMasks`` does
    (counted in ``fallbacks``). ``masks(encoded)``: the (B, K) legal masks read back from
    encoded observations.
    """

    def __init__(self, venv, wrapper: str, shot_high):
        base = _Spaces(venv)
        self.wrapper = wrapper
        self.flat_obs = W.FlatObservation(base)
        self.fallbacks = 0
        if wrapper == "menu":
            self.act = None
        elif wrapper == "shot_only":
            self.act = W.ShotOnly(base, shot_high=shot_high)
        elif wrapper == "residual":
            self.act = ResidualShot(base)  # the ghost-ball agent's stroke, corrected
            self.ghost_key = jax.random.PRNGKey(0)  # the ghost-ball agent draws nothing: any key
        else:
            self.act = W.FlattenDictAction(base, shot_high=shot_high)
        self.observation_space = self.flat_obs.observation_space
        self.action_space = base.action_space if wrapper == "menu" else self.act.action_space
        self.table = base.func.table

    @staticmethod
    def lane(obs: dict, i: int) -> dict:
        return {k: v[i] for k, v in obs.items()}

    def encode(self, obs: dict) -> np.ndarray:
        n = len(obs["phase"])
        return np.stack([self.flat_obs.observation(self.lane(obs, i)) for i in range(n)])

    def masks(self, encoded: np.ndarray) -> np.ndarray:
        return np.asarray(encoded)[:, self.flat_obs.slices["menu_legal"]] > 0.5

    def decode(self, actions: np.ndarray, obs: dict):
        if self.wrapper == "menu":
            actions = np.asarray(actions)
            if actions.shape != (len(obs["menu_legal"]),):
                raise ValueError(f"actions: shape ({len(obs['menu_legal'])},), one menu index per table, "
                                 f"got {actions.shape}")
            played = [W.menu_index(a, np.asarray(legal, bool)) for a, legal in zip(actions, obs["menu_legal"])]
            self.fallbacks += sum(replaced for _, replaced in played)
            return np.asarray([i for i, _ in played], np.int64)
        actions = np.asarray(actions, float)
        if actions.ndim != 2 or actions.shape[1:] != self.action_space.shape:
            raise ValueError(f"actions: shape (B, {self.action_space.shape[0]}) expected, got {actions.shape}")
        if not np.all(np.isfinite(actions)):
            raise ValueError("actions: NaN or inf")
        actions = np.clip(actions, -1.0, 1.0)
        per_lane = []
        for i, v in enumerate(actions):
            if self.wrapper == "shot_only":  # ShotOnly.action on lane i's observation
                shot = W.decode_shot(v.copy(), self.act.shot_low, self.act.shot_high)
                d = W.heuristic_decisions(self.lane(obs, i), self.table, float(shot[0]))
                d["shot"] = shot.astype(np.float32)
            elif self.wrapper == "residual":  # ResidualShot on lane i (the ghost's key is not used)
                d, _, _ = self.act.decide(v, self.lane(obs, i), self.ghost_key)
            else:
                d = self.act.action(v)
            per_lane.append(d)
        return {k: np.stack([np.asarray(d[k]) for d in per_lane]) for k in per_lane[0]}


def make_native(cfg: Config, num_envs: int):
    """The native vector env of ``cfg`` and its :class:`LaneCodec`."""
    menu = {"action": "menu"} if cfg.menu else {}
    venv = gym.make_vec(cfg.env, num_envs=num_envs, vectorization_mode="vector_entry_point", **cfg.env_kwargs(), **menu)
    return venv, LaneCodec(venv, "menu" if cfg.menu else cfg.wrapper, cfg.shot_high)


# ----------------------------------------------------------------------------- SB3 vector envs


class NativeVecEnv(VecEnv):
    """An SB3 ``VecEnv`` over the native JAX vector env: one compiled call steps all
    ``num_envs`` tables.

    SB3 wants the reset observation back from the step that ends an episode (the final one
    in ``info["terminal_observation"]``); the native env resets a finished table on its
    next step instead (Gymnasium's next-step autoreset). For the one-stroke tasks
    (:data:`ONE_STROKE`) every table ends on every step, so a ``reset()`` without a seed
    (the key streams go on) right after the step gives SB3's semantics; with tables ending
    at different steps that needs a reset of some tables only, which the vector env does
    not offer, so games are refused (RuntimeError) and trained through DummyVecEnv.
    Table i draws from the key stream seeded ``seed + i``, like DummyVecEnv's env i, so
    both adapters give the same transitions.
    """

    def __init__(self, cfg: Config):
        self.venv, self.codec = make_native(cfg, cfg.num_envs)
        super().__init__(cfg.num_envs, self.codec.observation_space, self.codec.action_space)
        self._obs = None
        self._actions = None
        self._returns = np.zeros(cfg.num_envs)
        self._lengths = np.zeros(cfg.num_envs, int)
        self._t0 = time.perf_counter()

    def reset(self):
        seed = self._seeds[0]
        self._obs, _ = self.venv.reset(seed=seed)  # seed None: the key streams go on
        self._reset_seeds()
        self._returns[:] = 0
        self._lengths[:] = 0
        return self.codec.encode(self._obs)

    def step_async(self, actions):
        self._actions = actions

    def step_wait(self):
        act = self.codec.decode(self._actions, self._obs)
        obs, reward, terminated, truncated, _ = self.venv.step(act)
        done = terminated | truncated
        self._returns += reward
        self._lengths += 1
        final = self.codec.encode(obs)
        infos = [{} for _ in range(self.num_envs)]
        if done.any():
            if not done.all():
                raise RuntimeError("NativeVecEnv: some tables ended and others did not; only the one-stroke tasks "
                                   f"{list(ONE_STROKE)} are served (use --vec dummy)")
            elapsed = round(time.perf_counter() - self._t0, 6)
            for i in range(self.num_envs):
                infos[i] = {"terminal_observation": final[i], "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                            "episode": {"r": float(self._returns[i]), "l": int(self._lengths[i]), "t": elapsed}}
            obs, _ = self.venv.reset()
            self._returns[:] = 0
            self._lengths[:] = 0
            out = self.codec.encode(obs)
        else:
            out = final
        self._obs = obs
        return out, reward.astype(np.float32), done, infos

    def close(self):
        self.venv.close()

    def get_attr(self, attr_name, indices=None):
        return [getattr(self.venv, attr_name) for _ in self._get_indices(indices)]

    def has_attr(self, attr_name) -> bool:
        # MaskablePPO asks for "action_masks"; the menu's tables answer it from their observation
        if attr_name == "action_masks":
            return self.codec.wrapper == "menu"
        return hasattr(self.venv, attr_name)

    def set_attr(self, attr_name, value, indices=None):
        raise AttributeError(f"NativeVecEnv: cannot set {attr_name!r} on the tables one by one")

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks" and self.codec.wrapper == "menu" and self._obs is not None:
            legal = np.asarray(self._obs["menu_legal"], bool)
            return [legal[i].copy() for i in self._get_indices(indices)]
        raise AttributeError(f"NativeVecEnv: no per-table method {method_name!r}")

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._get_indices(indices)]


def make_dummy(cfg: Config):
    """SB3's DummyVecEnv over ``num_envs`` single envs (``make_sb3_env``), each in a Monitor."""
    def one():
        if cfg.wrapper == "residual":
            return Monitor(make_residual_env(cfg.env, **cfg.env_kwargs()))
        if cfg.menu:
            return Monitor(W.make_sb3_env(cfg.env, mode="menu", **cfg.env_kwargs()))
        return Monitor(W.make_sb3_env(cfg.env, mode=cfg.wrapper, shot_high=cfg.shot_high, **cfg.env_kwargs()))

    return DummyVecEnv([one] * cfg.num_envs)


def make_train_env(cfg: Config):
    return NativeVecEnv(cfg) if cfg.native else make_dummy(cfg)


def bench_vec(cfg: Config, steps: int) -> dict:
    """Env steps/s of both SB3 adapters on the same uniform-random Box actions (seeded),
    after a warm-up step (compilation apart). Returns ``{"native", "dummy", "ratio"}``."""
    rng = np.random.default_rng(cfg.seed)
    out = {}
    for name, make in (("native", NativeVecEnv), ("dummy", make_dummy)):
        env = make(cfg)
        env.seed(cfg.seed)
        env.reset()
        calls = max(1, steps // cfg.num_envs)
        if cfg.menu:  # uniform indices: the masked ones play the ghost's candidate
            acts = rng.integers(0, env.action_space.n, (calls + 1, cfg.num_envs))
        else:
            acts = rng.uniform(-1, 1, (calls + 1, cfg.num_envs) + env.action_space.shape).astype(np.float32)
        env.step(acts[0])  # compiles (or loads) the programs
        t = time.perf_counter()
        for a in acts[1:]:
            env.step(a)
        out[name] = calls * cfg.num_envs / (time.perf_counter() - t)
        env.close()
    out["ratio"] = out["native"] / out["dummy"]
    return out


# ----------------------------------------------------------------------------- evaluation


class Evaluator:
    """Plays ``episodes`` episodes of the eval env for a policy, the same episodes at every
    call: batches of b tables, batch j seeded ``eval_seed + b j``, so that episode k is the
    table of the single env seeded ``eval_seed + k`` whatever b; each table's first episode
    counts (capped at ``max_decisions`` decisions). b is :data:`EVAL_BATCH`, or on the menu
    ``num_envs``, so that one compiled menu program serves training and evaluation."""

    def __init__(self, cfg: Config, max_decisions: int = 200):
        self.batch = cfg.num_envs if cfg.menu else EVAL_BATCH
        self.venv, self.codec = make_native(cfg, self.batch)
        self.episodes = cfg.eval_episodes
        self.seed = cfg.eval_seed
        self.max_decisions = max_decisions

    def __call__(self, policy) -> dict:
        """``policy(obs (B, D) float32) -> actions (B, A)`` in [-1, 1]. Returns
        ``{"mean_reward", "std_reward", "success_rate", "episodes"}``: the mean and std of
        the episode returns and the share of returns > 0; on the menu also ``fallback_rate``,
        the share of decisions whose index was masked (played as the ghost's candidate)."""
        returns = []
        b = self.batch
        fallbacks, decisions = self.codec.fallbacks, 0
        for j in range(math.ceil(self.episodes / b)):
            obs, _ = self.venv.reset(seed=self.seed + b * j)
            ret = np.zeros(b)
            ended = np.zeros(b, bool)
            for _ in range(self.max_decisions):
                act = self.codec.decode(policy(self.codec.encode(obs)), obs)
                decisions += int(np.sum(~ended))
                obs, reward, terminated, truncated, _ = self.venv.step(act)
                ret += np.where(ended, 0.0, reward)
                ended |= terminated | truncated
                if ended.all():
                    break
            returns.append(ret[: self.episodes - b * j])
        r = np.concatenate(returns)
        out = {"mean_reward": float(r.mean()), "std_reward": float(r.std()), "success_rate": float(np.mean(r > 0)),
               "episodes": int(r.size)}
        if self.codec.wrapper == "menu":  # a close count: the lanes past the last episode count too
            out["fallback_rate"] = round((self.codec.fallbacks - fallbacks) / max(decisions, 1), 4)
        return out


def random_policy(action_space, seed: int, masks=None):
    """Uniform actions over the Box, from a Generator seeded ``seed``; for a Discrete
    action, a uniform legal index (``masks(obs)`` (B, n) bool)."""
    rng = np.random.default_rng(seed)
    if isinstance(action_space, spaces.Discrete):
        def pick(obs):
            legal = masks(obs)
            return np.asarray([rng.choice(np.flatnonzero(m)) for m in legal])
        return pick
    return lambda obs: rng.uniform(action_space.low, action_space.high, (len(obs),) + action_space.shape)


def model_policy(model, masks=None):
    """The deterministic policy of ``model``; ``masks(obs)`` (B, K) bool for MaskablePPO."""
    if masks is None:
        return lambda obs: model.predict(obs, deterministic=True)[0]
    return lambda obs: model.predict(obs, deterministic=True, action_masks=masks(obs))[0]


# ----------------------------------------------------------------------------- training


@contextlib.contextmanager
def _seeded_torch(seed: int):
    """torch seeded, on one thread (bitwise-repeatable, and JAX needs the other core), with
    deterministic algorithms; the thread count and the flag are restored afterwards."""
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(deterministic)


def _maskable_ppo():
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as err:
        raise ImportError("algo 'maskable_ppo' needs sb3-contrib: pip install -e '.[sb3]'") from err
    return MaskablePPO


def model_class(algo: str):
    """The SB3 class of ``algo`` (for ``.load``)."""
    return {"ppo": PPO, "sac": SAC}.get(algo) or _maskable_ppo()


def make_model(cfg: Config, env):
    # log_std_init: the Gaussian's initial spread in the [-1, 1] units; 0 (std 1) spans the
    # whole circle of headings, so early pots are as rare as a random policy's. The menu's
    # categorical policy has no spread to set
    policy_kwargs = {"net_arch": list(cfg.net)}
    if not cfg.menu:
        policy_kwargs["log_std_init"] = cfg.log_std_init
    if cfg.algo in ("ppo", "maskable_ppo"):
        return model_class(cfg.algo)(
            "MlpPolicy", env, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps, batch_size=cfg.batch_size,
            policy_kwargs=policy_kwargs, seed=cfg.seed, device="cpu", verbose=0)
    return SAC("MlpPolicy", env, learning_rate=cfg.learning_rate, batch_size=cfg.batch_size,
               buffer_size=max(cfg.steps, 1000), learning_starts=min(1000, cfg.steps // 10),
               gradient_steps=-1,  # one update per transition, however many tables run
               policy_kwargs=policy_kwargs, seed=cfg.seed, device="cpu", verbose=0)


def _callback(cfg: Config, evaluate, record: dict, t_start: float):
    class EvalEvery(BaseCallback):
        """Evaluates once ``eval_every`` more steps are done and prints the progress. It
        looks at the start of each rollout: the policy has just been updated then (PPO
        updates after a rollout, SAC after every env step), so the figures belong to the
        weights reached at that step count."""

        def __init__(self):
            super().__init__()
            self.next_eval = cfg.eval_every
            self.eval_time = 0.0
            self.last = (0, time.perf_counter())  # (steps, time) after the previous evaluation

        def _on_rollout_start(self) -> None:
            self.num_timesteps = self.model.num_timesteps
            if self.num_timesteps >= self.next_eval:
                self.run_eval()
                while self.next_eval <= self.num_timesteps:
                    self.next_eval += cfg.eval_every

        def _on_step(self) -> bool:
            return True

        def run_eval(self):
            t = time.perf_counter()
            fps = (self.num_timesteps - self.last[0]) / max(t - self.last[1], 1e-9)  # since the last evaluation
            res = evaluate(model_policy(self.model, evaluate.codec.masks if cfg.algo == "maskable_ppo" else None))
            self.last = (self.num_timesteps, time.perf_counter())
            self.eval_time += self.last[1] - t
            wall = self.last[1] - t_start
            res = {"steps": int(self.num_timesteps), **res, "wall_s": round(wall, 3)}
            record["evaluations"].append(res)
            base = record["baseline"]
            print(f"steps {self.num_timesteps:>8d}/{cfg.steps}  fps {fps:7.0f}  "
                  f"eval: mean reward {res['mean_reward']:.3f}  success {100 * res['success_rate']:5.1f} % "
                  f"(random {100 * base['success_rate']:.1f} %)  wall {wall:6.1f} s", flush=True)

    return EvalEvery()


def train(cfg: Config) -> dict:
    """Train, evaluate, write the outputs (module docstring); returns the JSON record."""
    cfg.check()
    enable_compilation_cache()
    with _seeded_torch(cfg.seed):
        return _train(cfg)


def _train(cfg: Config) -> dict:
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    env = make_train_env(cfg)
    evaluate = Evaluator(cfg)
    record = {"config": {**asdict(cfg), "vec": "native" if cfg.native else "dummy"}, "baseline": None,
              "evaluations": []}
    base = evaluate(random_policy(env.action_space, cfg.eval_seed, evaluate.codec.masks))
    record["baseline"] = {"policy": "uniform legal candidate" if cfg.menu else "uniform random action", **base}
    model = make_model(cfg, env)
    # SB3's own logger writes nothing here (verbose 0, our progress lines instead); set, so
    # that learn() does not make an empty SB3-<date> folder in the system's temp folder
    model.set_logger(sb3_logger.configure(str(out), []))
    if cfg.init is not None:  # warm start (e.g. a curriculum): the weights only, this run's hyperparameters
        model.set_parameters(cfg.init, exact_match=True, device="cpu")
    cb = _callback(cfg, evaluate, record, t_start)
    cb.init_callback(model)
    cb.run_eval()  # the untrained policy, step 0
    model.learn(total_timesteps=cfg.steps, callback=cb)
    cb.num_timesteps = model.num_timesteps
    if record["evaluations"][-1]["steps"] != model.num_timesteps:  # the weights after the last update
        cb.run_eval()
    wall = time.perf_counter() - t_start
    record["train"] = {"steps": int(model.num_timesteps), "wall_s": round(wall, 3),
                       "eval_s": round(cb.eval_time, 3),
                       "fps": round(model.num_timesteps / max(wall - cb.eval_time, 1e-9), 1)}
    model.save(out / "model.zip")
    record["model"] = "model.zip"
    plots = _load_plots()
    png = plots.plot_learning_curve(record, out / "learning_curve.png")
    record["plot"] = "learning_curve.png" if png else None
    if png is None:
        record["plot_note"] = plots.NO_MATPLOTLIB
        print(plots.NO_MATPLOTLIB, flush=True)
    (out / "evaluations.json").write_text(json.dumps(record, indent=2) + "\n")
    env.close()
    return record


def _load_plots():
    """experiments/plots.py, beside this file (the experiments are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("cuegym_experiment_plots", Path(__file__).with_name("plots.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ----------------------------------------------------------------------------- command line


def _floats(text: str) -> tuple:
    return tuple(float(x) for x in text.split(","))


def _ints(text: str) -> tuple:
    return tuple(int(x) for x in text.split(","))


def build_parser() -> argparse.ArgumentParser:
    d = Config()
    p = argparse.ArgumentParser(prog="train", description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--env", default=d.env, choices=list(cuegym.ENV_IDS))
    p.add_argument("--algo", default=d.algo, choices=list(ALGOS),
                   help="maskable_ppo (sb3-contrib): PPO that masks the menu's illegal candidates (--action menu)")
    p.add_argument("--steps", type=int, default=d.steps, help="training env steps (all tables together)")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--num-envs", type=int, default=d.num_envs, help="tables trained at once")
    p.add_argument("--eval-every", type=int, default=d.eval_every, help="env steps between evaluations")
    p.add_argument("--eval-episodes", type=int, default=d.eval_episodes)
    p.add_argument("--eval-seed", type=int, default=d.eval_seed, help="seed of the evaluation episodes")
    p.add_argument("--out", default=d.out, help="output folder")
    p.add_argument("--table", default=None, help="table name (default: the env's, pyramid-12ft)")
    p.add_argument("--noise", type=float, default=d.noise, help="execution noise, a multiple of the tournament sigmas")
    p.add_argument("--distance", type=_floats, default=None, metavar="LOW,HIGH",
                   help="PotShot: cue ball to object ball range [m] (env default 0.2,1.0)")
    p.add_argument("--cut", type=_floats, default=None, metavar="LOW,HIGH",
                   help="PotShot: cut angle range [degrees] (env default 0,45)")
    p.add_argument("--opponent", default=d.opponent, choices=["random", "ghost"], help="two-player games only")
    p.add_argument("--wrapper", default=d.wrapper, choices=list(WRAPPERS),
                   help="the learner's action: shot_only, flatten, or residual (corrections to the ghost's stroke)")
    p.add_argument("--action", default=d.action, choices=list(ACTIONS),
                   help="the env's Dict action through --wrapper, or the shot menu (a Discrete index)")
    p.add_argument("--vec", default=d.vec, choices=["auto", "native", "dummy"],
                   help="SB3 vector env: the native JAX one (one-stroke tasks) or DummyVecEnv; auto picks")
    p.add_argument("--shot-high", type=_floats, default=d.shot_high,
                   help="upper shot limits phi,speed,a,b,theta (phi ignored)")
    p.add_argument("--net", type=_ints, default=d.net, help="hidden layer sizes")
    p.add_argument("--lr", type=float, default=d.learning_rate)
    p.add_argument("--n-steps", type=int, default=d.n_steps, help="PPO: steps per table per rollout")
    p.add_argument("--batch-size", type=int, default=d.batch_size)
    p.add_argument("--log-std-init", type=float, default=d.log_std_init,
                   help="initial log std of the policy's Gaussian (in [-1, 1] action units)")
    p.add_argument("--init", default=None, metavar="MODEL_ZIP",
                   help="start from the weights of a saved model of the same algo and spaces")
    p.add_argument("--bench-vec", type=int, default=0, metavar="STEPS",
                   help="only time the native and the DummyVecEnv adapters on STEPS random steps and print the ratio")
    return p


def config_from_args(args) -> Config:
    return Config(env=args.env, algo=args.algo, steps=args.steps, seed=args.seed, num_envs=args.num_envs,
                  eval_every=args.eval_every, eval_episodes=args.eval_episodes, eval_seed=args.eval_seed,
                  out=args.out, table=args.table, noise=args.noise, distance=args.distance,
                  cut=args.cut, opponent=args.opponent, wrapper=args.wrapper, action=args.action,
                  vec=args.vec, shot_high=tuple(args.shot_high), net=tuple(args.net), learning_rate=args.lr,
                  n_steps=args.n_steps, batch_size=args.batch_size,
                  log_std_init=args.log_std_init, init=args.init)


def main(argv=None) -> int:
    compile_log.show()  # say when a program compiles (the first step waits for it)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        cfg = config_from_args(args).check()
    except ValueError as err:
        parser.error(str(err))  # exits 2 with the usage line
    if args.bench_vec:
        enable_compilation_cache()
        res = bench_vec(cfg, args.bench_vec)
        print(json.dumps({"env": cfg.env, "table": cfg.table, "num_envs": cfg.num_envs, "steps": args.bench_vec,
                          **{k: round(v, 2) for k, v in res.items()}}))
        return 0
    rec = train(cfg)
    last, base = rec["evaluations"][-1], rec["baseline"]
    print(f"done: {rec['train']['steps']} steps in {rec['train']['wall_s']:.1f} s; success {100 * last['success_rate']:.1f} % "
          f"vs random {100 * base['success_rate']:.1f} %; outputs in {cfg.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
