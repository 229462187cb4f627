"""The API checks every cuegym environment id must pass: ``cuegym.api_test.api_test(env_id)``.

Two levels. The functional core (:mod:`cuegym.envs.functional`): a batch of tables dealt and
played with random legal decisions by the jitted, vmapped program of :func:`F.batched
<cuegym.envs.functional.batched>`, checking shapes, dtypes, the observation space, the legal
masks and that a finished frame steps as a no-op. The Gymnasium shell: Gymnasium's own
``check_env``, the action and option guards, seeding (the same seed gives the same bytes,
also in a fresh process) and the vector env, whose sub-env ``i`` seeded ``s`` is the twin of
the single env seeded ``s + i``, and so is table ``i`` of the asynchronous pool. A failure raises AssertionError naming the id, the step and
the field. docs/envs.md ("Checking an env") shows how to run it; tests/envs/test_api.py runs
it for every registered id.
"""

from __future__ import annotations

import copy
import hashlib
import subprocess
import sys

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np

import cuegym  # registers the ids; make_async
from cuegym.envs import functional as F
from cuegym.envs.gym_env import observation_space
from cuegym.envs.registry import game
from cuegym.envs.rollout_hash import hash_obs, hash_outcome
from cuegym.rules.base import FRAME_OVER

MASK_KEYS = ("legal_ball", "legal_cue_ball", "legal_choice")
INFO_KEYS = frozenset(("to_play", "acted", "phase", "foul", "clipped", "projected", "clauses", "opponent_strokes"))
# what a step of a finished frame may change (F.step's frozen state): everything else keeps its bytes
FINISHED_FIELDS = ("rewards", "terminated", "truncated", "potted")


def api_test(env_id: str, num_lanes: int = 64, max_steps: int = 8, seed: int = 0, vector_steps: int = 6,
             processes: bool = True, render: bool = True) -> None:
    """Every check of this module on ``env_id``: :func:`check_functional` (``num_lanes``
    tables, up to ``max_steps`` decisions), :func:`check_gymnasium`, :func:`check_seeding`
    (``processes``: also in a fresh Python process) and :func:`check_vector` (a vector env
    of ``num_lanes`` over ``vector_steps`` steps against as many single envs) and
    :func:`check_async` (the asynchronous pool of ``cuegym.make_async``)."""
    check_functional(env_id, num_lanes=num_lanes, max_steps=max_steps, seed=seed)
    check_gymnasium(env_id, seed=seed, render=render)
    check_seeding(env_id, seed=seed, processes=processes)
    check_vector(env_id, num_envs=num_lanes, steps=vector_steps, seed=seed)
    check_async(env_id, seed=seed)


def fail(env_id: str, where: str, field: str, what: str):
    raise AssertionError(f"{env_id}: {where}, {field}: {what}")


# ----------------------------------------------------------------------------- functional core


def _leaves(tree) -> list:
    """[(field name, leaf)] of a pytree: ``.game.phase``, ``['balls']``."""
    return [(jax.tree_util.keystr(path), leaf) for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]]


def _avals(tree) -> dict:
    return {name: (np.shape(x), np.asarray(x).dtype) for name, x in _leaves(tree)}


def _same_avals(env_id: str, where: str, what: str, got: dict, want: dict) -> None:
    if got.keys() != want.keys():
        fail(env_id, where, what, f"fields {sorted(got.keys() ^ want.keys())} appeared or went")
    for name, aval in got.items():
        if aval != want[name]:
            fail(env_id, where, f"{what}{name}", f"shape and dtype {aval}, at the reset {want[name]}")


def _check_observations(env_id: str, where: str, obs: dict, space, live: np.ndarray) -> None:
    """Every lane's observation (B leading) inside the Gymnasium space; the masks of the
    lanes with a decision due (``live`` (B,) bool) name something to play or choose."""
    if obs.keys() != space.spaces.keys():
        fail(env_id, where, "observation", f"keys {sorted(obs)}, the space has {sorted(space.spaces)}")
    for key, sub in space.spaces.items():
        for lane, value in enumerate(np.asarray(obs[key])):
            if not sub.contains(np.asarray(value)):
                fail(env_id, f"{where}, lane {lane}", f"obs[{key!r}]", f"{value!r} outside {sub}")
    due = (obs["legal_cue_ball"] != 0).any(-1) | (obs["legal_choice"] != 0).any(-1)
    for lane in np.flatnonzero(live & ~due):
        fail(env_id, f"{where}, lane {lane}", "legal_cue_ball/legal_choice",
             f"all empty in phase {obs['phase'][lane]} with a decision due")


def _check_finished_step(env_id: str, where: str, before, after, lanes: np.ndarray) -> None:
    """Lanes ``lanes`` (B,) bool stepped from a finished frame: zero rewards, terminated,
    not truncated, nothing potted, every other field byte for byte as it was."""
    for (name, a), (_, b) in zip(_leaves(before), _leaves(after), strict=True):
        for lane in np.flatnonzero(lanes):
            x, y = np.asarray(a[lane]), np.asarray(b[lane])
            field = name.strip(".")
            if field in FINISHED_FIELDS:
                want = field == "terminated"
                if np.any(y != want):
                    fail(env_id, f"{where}, lane {lane}", f"state.{field}", f"{y} after stepping a finished frame")
            elif x.tobytes() != y.tobytes():
                fail(env_id, f"{where}, lane {lane}", f"state.{field}", f"stepping a finished frame changed {x} to {y}")


def _check_held(env_id: str, where: str, before, after, lanes: np.ndarray) -> None:
    """Lanes ``lanes`` (B,) bool neither done nor active keep their state byte for byte."""
    for (name, a), (_, b) in zip(_leaves(before), _leaves(after), strict=True):
        a, b = np.asarray(a)[lanes], np.asarray(b)[lanes]
        if a.tobytes() != b.tobytes():
            fail(env_id, where, f"state{name}", "an inactive lane's state changed")


def check_functional(env_id: str, num_lanes: int = 64, max_steps: int = 8, seed: int = 0) -> int:
    """Deal ``num_lanes`` tables and play random legal decisions (the batched step's built-in
    random opponent, :func:`cuegym.envs.functional.random_action` from each lane's key) until
    every lane has ended or ``max_steps`` steps were played; returns the steps played.

    Checked after the reset and every step: the state's and the observation's fields keep
    their shapes and dtypes, every lane's observation is inside the env's Gymnasium space,
    the rewards are finite, and a lane with a decision due (neither terminated nor
    truncated) has a non-empty ``legal_cue_ball`` or ``legal_choice``. A truncated lane is
    held (inactive: its state must not change); a finished one (terminated, or in phase
    ``frame_over``) is stepped and must step as a no-op (rewards 0, terminated). Frames
    rarely finish within ``max_steps`` random decisions, so at the end every lane is put in
    ``frame_over`` and stepped once more, and the no-op is checked there for every task."""
    func = F.FuncEnv(task=game(env_id).name)
    program, opts = F.batched(func), F.options(func)
    space = observation_space(func)
    b = num_lanes
    # the arguments as the batched callers in the package pass them (one compiled program)
    action = {"shot": jnp.zeros((b, 5)), "place": jnp.zeros((b, 2)),
              **{k: jnp.zeros(b, jnp.int32) for k in ("cue_ball", "ball", "pocket", "choice")}}
    random = jnp.ones(b, jnp.int32)  # F.OPPONENT_CODES["random"]: the step draws a random legal action
    none = jnp.zeros(b, bool)
    keys = jax.random.split(jax.random.PRNGKey(seed), b)

    state, obs, keys = program.reset(keys, opts)
    state, obs = jax.device_get((state, obs))
    state_avals, obs_avals = _avals(state), _avals(obs)
    ended = np.asarray(state.terminated | state.truncated)
    _check_observations(env_id, "reset", obs, space, ~ended)
    steps = 0
    while steps < max_steps and not ended.all():
        steps += 1
        where = f"step {steps}"
        over = (np.asarray(state.game.phase) == FRAME_OVER) | np.asarray(state.terminated)
        active = ~ended | over
        nxt, obs, keys = program.step(state, action, keys, none, jnp.asarray(active), random, opts)
        nxt, obs = jax.device_get((nxt, obs))
        _same_avals(env_id, where, "state", _avals(nxt), state_avals)
        _same_avals(env_id, where, "obs", _avals(obs), obs_avals)
        _check_held(env_id, where, state, nxt, ~active)
        _check_finished_step(env_id, where, state, nxt, ended & over)
        finite = np.isfinite(nxt.rewards).all(-1)
        if not finite.all():
            fail(env_id, where, "state.rewards", f"not finite in lanes {np.flatnonzero(~finite)}")
        ended = ended | np.asarray(nxt.terminated | nxt.truncated)
        _check_observations(env_id, where, obs, space, ~ended)
        state = nxt

    where = f"step {steps + 1} (every lane put in frame_over)"
    finished = state._replace(game=state.game._replace(phase=np.full_like(state.game.phase, FRAME_OVER)))
    nxt, obs, keys = program.step(finished, action, keys, none, jnp.ones(b, bool), random, opts)
    nxt, obs = jax.device_get((nxt, obs))
    _same_avals(env_id, where, "state", _avals(nxt), state_avals)
    _check_finished_step(env_id, where, finished, nxt, np.ones(b, bool))
    _check_observations(env_id, where, obs, space, np.zeros(b, bool))
    return steps


# ----------------------------------------------------------------------------- Gymnasium shell


def plain_action(env) -> dict:
    """A fixed, in-range action of a single env: a medium stroke (phi 1.3 rad, 2.5 m/s, a
    little follow), the ball in hand near the head string's middle (projected where the
    phase needs), cue ball 0, call ball 4 (the last ball on smaller tables) into pocket 3."""
    space = env.action_space
    shot = np.clip(np.array([1.3, 2.5, 0.0, 0.1, 0.0], np.float32), space["shot"].low, space["shot"].high)
    place = np.clip(np.array([0.8875, 0.4], np.float32), space["place"].low, space["place"].high)
    return {"shot": shot, "place": place, "cue_ball": 0, "ball": min(4, space["ball"].n - 1), "pocket": 3,
            "choice": 0}


def _raises(env_id: str, where: str, field: str, call) -> None:
    """``call()`` raises ValueError naming ``field``."""
    try:
        call()
    except ValueError as e:
        if field not in str(e):
            fail(env_id, where, field, f"the ValueError does not name it: {e}")
        return
    fail(env_id, where, field, "accepted, a ValueError naming it was expected")


def _check_single_obs(env_id: str, where: str, env, obs: dict) -> None:
    """A single env's observation inside its space, the masks (N,) int8 (the wrappers read them so)."""
    n = env.action_space["ball"].n
    for key, sub in env.observation_space.spaces.items():
        if not sub.contains(obs.get(key)):
            fail(env_id, where, f"obs[{key!r}]", f"{obs.get(key)!r} outside {sub}")
    for key in MASK_KEYS:
        if obs[key].dtype != np.int8 or obs[key].shape != (n,):
            fail(env_id, where, key, f"{obs[key].dtype} {obs[key].shape}, want int8 ({n},)")


def check_gymnasium(env_id: str, seed: int = 0, render: bool = True) -> None:
    """The single env: Gymnasium's ``check_env`` (``render``: with its render check, which
    draws the table after a reset), the observation inside its space with the masks as the
    wrappers read them ((N,) int8), the types of reward, flags and info; integer fields out
    of range, NaN, infinite or misshapen floats and bad options raise ValueError naming
    the field or option, and a refused action leaves the state alone; a huge speed is
    clipped and reported in ``info["clipped"]``."""
    from gymnasium.utils.env_checker import check_env

    check_env(gym.make(env_id, render_mode="rgb_array" if render else None).unwrapped, skip_render_check=not render)

    env = gym.make(env_id)
    n = env.action_space["ball"].n
    obs, _ = env.reset(seed=seed)
    _check_single_obs(env_id, "reset", env, obs)
    obs, r, term, trunc, info = env.step(plain_action(env))
    _check_single_obs(env_id, "step 1", env, obs)
    if not (isinstance(r, float) and isinstance(term, bool) and isinstance(trunc, bool)):
        fail(env_id, "step 1", "reward/terminated/truncated", f"types {type(r)}, {type(term)}, {type(trunc)}")
    if not set(info) >= INFO_KEYS:
        fail(env_id, "step 1", "info", f"missing {sorted(INFO_KEYS - set(info))}")

    env.reset(seed=seed)
    bad_actions = (("cue_ball", n), ("ball", -1), ("pocket", 6), ("choice", n + 3),
                   ("shot", np.array([np.nan, 1, 0, 0, 0], np.float32)), ("place", np.array([np.inf, 0.3], np.float32)),
                   ("shot", np.zeros(4, np.float32)))
    for key, value in bad_actions:
        _raises(env_id, "a bad action", f"action.{key}", lambda k=key, v=value: env.step({**plain_action(env), k: v}))
    bad_options = (({"noise": -1.0}, "noise"), ({"max_shots": 0}, "max_shots"), ({"table": "snooker-6ft"}, "table"),
                   ({"reward_scale": float("nan")}, "reward_scale"), ({"opponent": "shark"}, "opponent"))
    for options, name in bad_options:
        _raises(env_id, "gymnasium.make", name, lambda o=options: gym.make(env_id, **o))
    # the refused actions left the state alone: the first step is a fresh env's
    got = env.step(plain_action(env))
    fresh = gym.make(env_id)
    fresh.reset(seed=seed)
    _compare_steps(env_id, "step 1 after refused actions", got, fresh.step(plain_action(env)))

    env.reset(seed=seed)
    huge = {**plain_action(env), "shot": np.array([1.3, 1e6, 0.0, 0.0, 0.0], np.float32)}
    if not env.step(huge)[4]["clipped"]:
        fail(env_id, "step 1", "info['clipped']", "False after a speed of 1e6 m/s")
    env.reset(seed=seed)
    if env.step(plain_action(env))[4]["clipped"]:
        fail(env_id, "step 1", "info['clipped']", "True after an in-range action")


# ----------------------------------------------------------------------------- seeding


def same(a, b) -> bool:
    """Equal values and bytes (arrays: dtype, shape and bytes; NaN equals NaN)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, (np.ndarray, np.generic)) or isinstance(b, (np.ndarray, np.generic)):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    return type(a) is type(b) and (a == b or (a != a and b != b))


def _compare_steps(env_id: str, where: str, got: tuple, want: tuple) -> None:
    """Two ``(obs, reward, terminated, truncated, info)`` tuples (``reset``: ``(obs, info)``)
    equal field by field."""
    names = ("reward", "terminated", "truncated") if len(got) == 5 else ()
    for key in sorted(set(got[0]) | set(want[0])):
        if not same(got[0].get(key), want[0].get(key)):
            fail(env_id, where, f"obs[{key!r}]", f"{got[0].get(key)!r} != {want[0].get(key)!r}")
    for name, x, y in zip(names, got[1:4], want[1:4], strict=False):
        if not same(x, y):
            fail(env_id, where, name, f"{x!r} != {y!r}")
    for key in sorted(set(got[-1]) | set(want[-1])):
        if not same(got[-1].get(key), want[-1].get(key)):
            fail(env_id, where, f"info[{key!r}]", f"{got[-1].get(key)!r} != {want[-1].get(key)!r}")


def play(env_id: str, seed: int, steps: int, **options) -> list:
    """A seeded rollout of the single env (``options`` passed to ``gymnasium.make``) with
    seeded random actions: ``steps`` tuples (obs the action was taken in, action, (obs,
    reward, terminated, truncated, info) after it); after an episode ends the next obs is a
    ``reset()``'s."""
    env = gym.make(env_id, **options)
    env.action_space.seed(seed)
    obs, _ = env.reset(seed=seed)
    out = []
    for _ in range(steps):
        a = env.action_space.sample()
        result = env.step(a)
        out.append((obs, a, result))
        obs = result[0]
        if result[2] or result[3]:
            obs, _ = env.reset()
    return out


def _hash_step(h, obs: dict, reward, terminated, truncated) -> None:
    hash_obs(h, obs)
    hash_outcome(h, reward, terminated, truncated)


def hash_rollout(rollout: list) -> str:
    """SHA-256 (hex) of a :func:`play` rollout: each step's observation bytes (the obs the
    action was taken in, in the space's key order), reward (float64) and the two flags
    (one byte each)."""
    h = hashlib.sha256()
    for obs, _, (_, r, term, trunc, _) in rollout:
        _hash_step(h, obs, r, term, trunc)
    return h.hexdigest()


def rollout_hash(env_id: str, seed: int, steps: int = 12) -> str:
    """:func:`hash_rollout` of :func:`play`: the hashes of tests/golden_env_rollouts.json."""
    return hash_rollout(play(env_id, seed, steps))


def check_seeding(env_id: str, seed: int = 11, steps: int = 12, processes: bool = True) -> None:
    """Two envs reset with the same seed and stepped with the same seeded random actions give
    the same bytes (observations, rewards, flags, info) at every step; the next seed
    differs somewhere in the observations or rewards; with ``processes`` a fresh Python process gives
    the same :func:`rollout_hash` (seeding and keys do not depend on the process; it loads
    the compiled program from the persistent cache where one is on)."""
    first = play(env_id, seed, steps)
    second = play(env_id, seed, steps)
    for t, ((_, a1, r1), (_, a2, r2)) in enumerate(zip(first, second, strict=True), 1):
        if not same(a1, a2):
            fail(env_id, f"step {t}", "action", "the seeded action spaces drew different actions")
        _compare_steps(env_id, f"step {t} (seed {seed}, two envs)", r1, r2)
    other = play(env_id, seed + 1, steps)
    # a one-stroke task (Lag-v0) starts every episode alike: the outcomes differ
    if all(same(x[0], y[0]) and same(x[2][:4], y[2][:4]) for x, y in zip(first, other, strict=True)):
        fail(env_id, f"steps 1..{steps}", "obs/reward", f"seeds {seed} and {seed + 1} gave the same rollout")
    if processes:
        want = hash_rollout(first)
        code = f"import cuegym.api_test as t; print(t.rollout_hash({env_id!r}, {seed}, {steps}))"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
        if out.returncode != 0:
            fail(env_id, "a fresh process", "rollout_hash", f"exit {out.returncode}: {out.stderr[-2000:]}")
        got = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
        if got != want:
            fail(env_id, f"steps 1..{steps}", "rollout_hash", f"{got} in a fresh process, {want} here")


# ----------------------------------------------------------------------------- vector env


def play_vector(env_id: str, seed: int, steps: int, num_envs: int) -> list:
    """The rollouts of the sub-envs of a vector env reset with ``seed``, as :func:`play`
    gives them without info: sub-env i draws its actions from an action space seeded
    ``seed + i``, so it should play as the single env seeded ``seed + i``. A finished
    sub-env resets on its next step (Gymnasium's next-step autoreset), which is where the
    single env calls ``reset()``; that step is not counted."""
    venv = gym.make_vec(env_id, num_envs=num_envs)
    spaces = [copy.deepcopy(venv.unwrapped.single_action_space) for _ in range(num_envs)]
    for i, space in enumerate(spaces):
        space.seed(seed + i)
    idle_space = copy.deepcopy(venv.unwrapped.single_action_space)
    idle_space.seed(0)
    idle = idle_space.sample()  # what a resetting or finished sub-env is sent (ignored)
    out = [[] for _ in range(num_envs)]
    taken = np.zeros(num_envs, int)
    resetting = np.zeros(num_envs, bool)
    obs, _ = venv.reset(seed=seed)
    while taken.min() < steps:
        acting = ~resetting & (taken < steps)
        actions = [spaces[i].sample() if acting[i] else idle for i in range(num_envs)]
        before = [{k: v[i] for k, v in obs.items()} for i in np.flatnonzero(acting)]
        obs, r, term, trunc, _ = venv.step({k: np.stack([a[k] for a in actions]) for k in actions[0]})
        for i, o in zip(np.flatnonzero(acting), before, strict=True):
            out[i].append((o, actions[i], r[i], term[i], trunc[i]))
        taken += acting
        resetting = acting & (term | trunc)
    venv.close()
    return out


def vector_rollout_hashes(env_id: str, seed: int, steps: int, num_envs: int) -> list:
    """:func:`rollout_hash` of each sub-env of a vector env seeded ``seed`` (:func:`play_vector`)."""
    hashes = []
    for lane in play_vector(env_id, seed, steps, num_envs):
        h = hashlib.sha256()
        for obs, _, r, term, trunc in lane:
            _hash_step(h, obs, r, term, trunc)
        hashes.append(h.hexdigest())
    return hashes


def check_vector(env_id: str, num_envs: int = 64, steps: int = 6, seed: int = 20) -> None:
    """``gymnasium.make_vec`` gives the native vector env (one jitted call a step), and each
    of its ``num_envs`` sub-envs plays ``steps`` seeded random steps, autoresets included,
    exactly as its single-env twin seeded ``seed + i`` (:func:`play_vector`; the twins are
    played one at a time)."""
    venv = gym.make_vec(env_id, num_envs=num_envs)
    kind = type(venv.unwrapped).__name__
    venv.close()
    if kind != "CueVectorEnv":
        fail(env_id, "gymnasium.make_vec", "vector env", f"{kind}, not the native CueVectorEnv")
    compare_twins(env_id, play_vector(env_id, seed, steps, num_envs), seed, "the vector env")


# ----------------------------------------------------------------------------- asynchronous pool


def play_async(env_id: str, seed: int, steps: int, num_envs: int, batch_size: int, **options) -> list:
    """The rollouts of the tables of ``cuegym.make_async(env_id, num_envs, batch_size,
    seed, **options)``, as :func:`play_vector` gives them, with each step's opponent
    strokes last: table i draws its actions from a space seeded ``seed + i``; a table whose
    episode ended is sent an ignored action (its reset, not counted). Every table handed
    back is sent its next action until each has played ``steps``; tables come back in
    whatever order their strokes end."""
    env = cuegym.make_async(env_id, num_envs, batch_size, seed=seed, **options)
    spaces = [copy.deepcopy(env.single_action_space) for _ in range(num_envs)]
    for i, space in enumerate(spaces):
        space.seed(seed + i)
    idle = plain_action(gym.make(env_id))  # what a table dealt again is sent (ignored)
    out = [[] for _ in range(num_envs)]
    before, sent = {}, {}
    env.async_reset()
    while min(map(len, out)) < steps:
        obs, r, term, trunc, info = env.recv()
        ids = info["env_id"]
        if len(set(ids.tolist())) != len(ids) or len(ids) != batch_size:
            fail(env_id, "recv", "info['env_id']", f"{ids.tolist()}: want {batch_size} distinct tables")
        actions = []
        for k, i in enumerate(ids.tolist()):
            ended = False
            if i in sent:
                out[i].append((before[i], sent.pop(i), r[k], term[k], trunc[k], info["opponent_strokes"][k]))
                ended = bool(term[k] or trunc[k])
            before[i] = {key: v[k] for key, v in obs.items()}
            actions.append(idle if ended else spaces[i].sample())
            if not ended:
                sent[i] = actions[-1]
        env.send({key: np.stack([a[key] for a in actions]) for key in actions[0]}, ids)
    return [lane[:steps] for lane in out]


def compare_twins(env_id: str, lanes: list, seed: int, what: str, **options) -> None:
    """Each lane of :func:`play_vector` or :func:`play_async` (``what`` names its env)
    equals the single env seeded ``seed + i`` (:func:`play` with ``options``), step by
    step: action, observation, reward, flags and, where a lane's steps carry them
    (:func:`play_async`), the opponent's strokes."""
    for i, lane in enumerate(lanes):
        twin = play(env_id, seed + i, len(lane), **options)
        for t, (mine, theirs) in enumerate(zip(lane, twin, strict=True), 1):
            o, a, r, term, trunc, *strokes = mine
            t_obs, t_a, (_, t_r, t_term, t_trunc, t_info) = theirs
            where = f"step {t}, table {i} of {what} vs the single env seeded {seed + i}"
            if not same(a, t_a):
                fail(env_id, where, "action", "the seeded action spaces drew different actions")
            for key in o:
                if not same(o[key], t_obs[key]):
                    fail(env_id, where, f"obs[{key!r}]", f"{o[key]!r} != {t_obs[key]!r}")
            pairs = [("reward", float(r), t_r), ("terminated", bool(term), t_term), ("truncated", bool(trunc), t_trunc)]
            pairs += [("info['opponent_strokes']", int(n), t_info["opponent_strokes"]) for n in strokes]
            for name, x, y in pairs:
                if not same(x, y):
                    fail(env_id, where, name, f"{x!r} != {y!r}")


def check_async(env_id: str, num_envs: int = 4, batch_size: int = 2, steps: int = 4, seed: int = 30) -> None:
    """``cuegym.make_async``: each table plays ``steps`` seeded random steps, autoresets
    included, exactly as the single env seeded ``seed + i`` (:func:`compare_twins`; so as
    sub-env i of the vector env, :func:`check_vector`), whatever order the tables come back
    in; a send to a table not waiting, an unknown or repeated id, a batch whose length
    differs from ``env_id``'s and an out-of-range action raise ValueError naming the field
    and change no table."""
    env = cuegym.make_async(env_id, num_envs, batch_size, seed=seed)
    obs, info = env.reset()
    ids = info["env_id"]
    action = {k: np.stack([v] * len(ids)) for k, v in plain_action(gym.make(env_id)).items()}
    others = np.setdiff1d(np.arange(num_envs), ids)
    bad_sends = (("env_id", lambda: env.send(action, others[:len(ids)])),  # still with the pool
                 ("env_id", lambda: env.send(action, np.array([num_envs] * len(ids)))),
                 ("env_id", lambda: env.send(action, np.array([ids[0]] * len(ids)))),
                 ("action.shot", lambda: env.send({**action, "shot": action["shot"][:-1]}, ids)),
                 ("action.cue_ball", lambda: env.send({**action, "cue_ball": action["cue_ball"] + 99}, ids)),
                 ("action.shot", lambda: env.send({**action, "shot": action["shot"] * np.nan}, ids)))
    for name, call in bad_sends:
        _raises(env_id, "make_async send", name, call)
    env.send(action, ids)  # the refused sends changed nothing: this one is taken
    if env.running != num_envs:
        fail(env_id, "make_async send", "running", f"{env.running} tables with the pool, want {num_envs}")
    compare_twins(env_id, play_async(env_id, seed, steps, num_envs, batch_size), seed, "make_async")
