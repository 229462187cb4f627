"""A training run of :mod:`cuegym.learn.ppo` on a gymnax env within a time budget, its
checkpoint, learning curve and evaluation against the ghost on the same seeded episodes.

Why a module and not only the script: the main job, the tests and the learned agent
(:mod:`cuegym.learn.agent`) share the run, the checkpoint format and the evaluation.
Outputs: docs/training.md, "train_jax.py".
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import time

import jax
import jax.numpy as jnp
import numpy as np
from flax import serialization

from cuegym._stats import wilson
from cuegym.agents import menu as M
from cuegym.envs.registry import GAMES
from cuegym.learn import data_parallel as DP
from cuegym.learn import gymnax_env, pool_ppo, ppo
from cuegym.learn.networks import network

CHECKPOINT = "checkpoint.msgpack"
CONFIG = "config.json"


def make_env(spec: dict):
    """(env, params) of a run's ``spec`` (``env``, ``action``, ``observation``, ``opponent``,
    ``options``; ``aim``, "table" when absent). ``opponent="self"`` (self-play) is the env
    without a built-in opponent: the policy acts for every seat."""
    opponent = spec.get("opponent", "default")
    return gymnax_env.make(spec["env"], action=spec["action"], observation=spec["observation"],
                           opponent=None if opponent == "self" else opponent, aim=spec.get("aim", "table"),
                           **spec.get("options", {}))


def pool_opponent(env, spec: dict) -> str | None:
    """The pool's opponent of the run (:data:`cuegym.learn.pool_ppo.OPPONENT_CODES`), None
    with ``rollout="vmap"``: ``"self"`` where the env has none (self-play, or a one-player
    drill), else the env's. ValueError naming ``opponent`` for self-play on a one-player
    drill or with the vmap rollout (its step books every decision to one sequence)."""
    pooled = spec.get("rollout", "vmap") == "pool"
    if spec.get("opponent") == "self":
        if not pooled:
            raise ValueError("opponent: 'self' (self-play) trains over the pool; use rollout 'pool'")
        if GAMES[env.func.task].referee is None:
            raise ValueError(f"opponent: 'self' needs a game of two or more players; {spec['env']} is a "
                             "one-player drill")
    if not pooled:
        return None
    return "self" if env.opponent is None else env.opponent


def programs(env, params, cfg: ppo.Config, spec: dict, devices):
    """(init(key), iteration(state), devices used, env steps an iteration) of the run's
    rollout: ``spec["rollout"]`` ``"vmap"`` (the gymnax step under ``vmap``; data-parallel
    over ``devices``) or ``"pool"`` (:mod:`cuegym.learn.pool_ppo`, one device)."""
    opponent = pool_opponent(env, spec)
    if opponent is not None:
        if devices is not None:
            raise ValueError("devices: the pool rollout runs on one device; use rollout 'vmap' for data-parallel "
                             "training")
        init = jax.jit(lambda k: pool_ppo.init(env, params, cfg, k, opponent))
        it = jax.jit(lambda s: pool_ppo.iteration(env, params, cfg, s))
        return init, it, jax.devices()[:1], cfg.num_steps * cfg.pool_batch
    if devices is None:
        init = jax.jit(lambda k: ppo.init(env, params, cfg, k))
        it = jax.jit(lambda s: ppo.iteration(env, params, cfg, s))
        return init, it, jax.devices()[:1], cfg.num_envs * cfg.num_steps
    init, it, used = DP.programs(env, params, cfg, devices)
    return init, it, used, cfg.num_envs * cfg.num_steps


def run(spec: dict, cfg: ppo.Config, *, minutes: float, seed: int, out: pathlib.Path, max_steps: int | None = None,
        eval_episodes: int = 1000, log=print, measure_env_speed: bool = True, report=None, devices=None) -> dict:
    """Train for ``minutes`` (or ``max_steps`` env steps, whichever ends first), then
    evaluate the greedy policy and the ghost (the menu's last candidate) on the same
    ``eval_episodes`` seeded episodes (0: no evaluation); write ``out``/result.json, the checkpoint, its config
    and learning_curve.png (with matplotlib). Returns the result dict. With
    ``measure_env_speed`` False, ``env_steps_per_s`` is None: :func:`env_speed` compiles a
    program of its own (random actions), the dearest part of a short run. ``report`` (or
    None) is called with each iteration's row of the learning curve (``steps`` and the
    metrics of :func:`cuegym.learn.ppo.iteration`), as a scheduler that stops runs early
    (Ray Tune's ASHA, ``experiments/sweep.py``) reads them.

    ``devices`` None trains on one device; else data-parallel over those devices
    (:func:`cuegym.learn.data_parallel.programs`: an int N, the first N of every host's;
    a list), the same global batch, with the same result up to float rounding. On several
    hosts (:func:`cuegym.learn.data_parallel.start_hosts` first) every process calls
    ``run`` alike; process 0 logs, evaluates and writes, the others return the training
    figures alone."""
    lead = jax.process_index() == 0
    if not lead:
        log = lambda *_: None  # noqa: E731
    env, params = make_env(spec)
    key = jax.random.PRNGKey(seed)
    k_train, k_eval = jax.random.split(key)
    t0 = time.perf_counter()
    init, it, used, per = programs(env, params, cfg, spec, devices)
    ts = init(k_train)
    ts, m = it(ts)
    jax.block_until_ready(ts.params)
    compile_s = time.perf_counter() - t0
    log(f"compiled in {compile_s:.1f} s" + (f" ({len(used)} devices)" if len(used) > 1 else ""))
    curve = []
    t_train = time.perf_counter()
    budget = minutes * 60.0
    steps = int(DP.host_copy(ts.steps))
    while DP.agree(time.perf_counter() - t_train < budget and (max_steps is None or steps < max_steps)):
        ts, m = it(ts)
        row = {k: float(v) for k, v in DP.host_copy(m).items()}
        steps = row["steps"] = int(DP.host_copy(ts.steps))
        curve.append(row)
        if report is not None:
            report(row)
        if len(curve) % max(1, 20000 // per) == 0:
            log(f"steps {row['steps']:>8}  success {row['success']:.3f}  reward {row['reward']:+.3f}  "
                f"entropy {row['entropy']:.2f}  {time.perf_counter() - t_train:.0f} s")
    jax.block_until_ready(ts.params)
    train_s = time.perf_counter() - t_train
    trained = steps - per  # the first iteration ran inside the compile timing
    weights = DP.host_copy(ts.params)
    result = {
        "env": spec["env"], "action": spec["action"], "aim": env.aim, "observation": spec["observation"],
        "rollout": spec.get("rollout", "vmap"), "opponent": spec.get("opponent", "default"),
        "options": spec.get("options", {}), "seed": seed, "config": dataclasses.asdict(cfg),
        "steps": steps, "train_seconds": round(train_s, 2), "compile_seconds": round(compile_s, 2),
        "steps_per_s": round(trained / train_s, 1) if train_s > 0 else None,
        "device": used[0].device_kind, "devices": len(used), "processes": jax.process_count(), "curve": curve,
    }
    if not lead:
        return result

    out.mkdir(parents=True, exist_ok=True)
    (out / CHECKPOINT).write_bytes(serialization.to_bytes(weights))
    (out / CONFIG).write_text(json.dumps({"spec": spec, "hidden": cfg.hidden,
                                          "layout": [list(part) for part in env.layout()]}, indent=2))
    if eval_episodes > 0:
        # a self-play policy is measured against the built-in ghost, as the others are
        judge = make_env({**spec, "opponent": "default"}) if spec.get("opponent") == "self" else (env, params)
        result.update(evaluation(*judge, cfg, weights, k_eval, eval_episodes))
    result["env_steps_per_s"] = round(measured_env_speed(env, params, cfg, spec), 1) if measure_env_speed else None
    (out / "result.json").write_text(json.dumps(result, indent=2))
    plot_curve(curve, result, out / "learning_curve.png")
    return result


def evaluation(env, params, cfg, net_params, key, episodes: int) -> dict:
    """The greedy policy and the ghost on the same ``episodes`` seeded episodes: success
    rates with 95 % intervals, mean returns. With the menu (or the residual), one program
    plays both (the ghost is the menu's last candidate, uncorrected) on a batch of twice the
    episodes."""
    net = network(env.action, cfg.hidden)
    keys = jax.random.split(key, episodes)
    horizon = int(params.max_steps_in_episode)
    ghost_action = M.size() - 1
    if env.on_menu:
        def both(w, obs, state):
            mine = ppo.greedy(env, net.apply(w, obs))
            first = jnp.arange(obs.shape[0]) < episodes
            if env.action == "residual":  # the ghost's candidate uncorrected
                return jnp.where(first, mine[0], ghost_action), jnp.where(first[:, None], mine[1], 0.0)
            return jnp.where(first, mine, ghost_action)

        ok, ret, _ = _evaluate(env, both, horizon)(params, net_params, jnp.concatenate([keys, keys]))
        p_ok, p_ret, g_ok, g_ret = ok[:episodes], ret[:episodes], ok[episodes:], ret[episodes:]
    else:
        policy = lambda w, obs, state: ppo.greedy(env, net.apply(w, obs))  # noqa: E731
        ghost = lambda w, obs, state: jnp.full(obs.shape[0], ghost_action)  # noqa: E731
        p_ok, p_ret, _ = _evaluate(env, policy, horizon)(params, net_params, keys)
        g_ok, g_ret, _ = _evaluate(dataclasses.replace(env, action="menu"), ghost, horizon)(params, None, keys)
    out = {"episodes": episodes}
    for name, ok, ret in (("policy", p_ok, p_ret), ("ghost", g_ok, g_ret)):
        k = int(np.sum(np.asarray(ok)))
        out[f"{name}_success"] = k / episodes
        out[f"{name}_success_95"] = list(wilson(k, episodes))
        out[f"{name}_return"] = float(np.mean(np.asarray(ret)))
    return out


def _evaluate(env, choose, horizon):
    # the weights are arguments, not constants of the trace: one compile serves every run
    return jax.jit(lambda env_params, w, keys: ppo.evaluate(env, env_params, choose, w, keys, horizon))


def measured_env_speed(env, params, cfg: ppo.Config, spec: dict) -> float:
    """The env's own steps/s as the run's rollout steps it (random actions, the run's sizes):
    the pool's (:func:`cuegym.learn.pool_ppo.env_speed`) or the vmapped step's (:func:`env_speed`)."""
    opponent = pool_opponent(env, spec)
    if opponent is not None:
        return pool_ppo.env_speed(env, params, cfg, opponent)
    return env_speed(env, params, cfg.num_envs)


def env_speed(env, params, num_envs: int, iterations: int = 20) -> float:
    """Env steps per second of the gymnax env alone at ``num_envs`` tables, uniformly random
    actions: the vmapped step, jitted as a trainer would (``jax.jit(jax.vmap(env.step))``),
    compiled first, then timed over ``iterations`` calls."""
    keys = jax.random.split(jax.random.PRNGKey(7), num_envs)
    obs, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)
    step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
    sample = jax.jit(jax.vmap(env.action_space(params).sample))
    draws = [jax.random.split(k, num_envs) for k in jax.random.split(jax.random.PRNGKey(1), iterations + 1)]
    jax.block_until_ready(step(draws[0], state, sample(draws[0]), params))
    t = time.perf_counter()
    for ks in draws[1:]:
        obs, state, reward, _, _ = step(ks, state, sample(ks), params)
    jax.block_until_ready(reward)
    return num_envs * iterations / (time.perf_counter() - t)


def plot_curve(curve: list, result: dict, path: pathlib.Path) -> bool:
    """The learning curve (success of the episodes ended per iteration, smoothed) with the
    ghost's and the policy's evaluated rates (when evaluated); False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    if not curve:
        return False
    steps = np.asarray([c["steps"] for c in curve])
    rate = np.asarray([c["success"] for c in curve])
    w = max(1, len(rate) // 50)
    smooth = np.convolve(rate, np.ones(w) / w, mode="valid")
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(steps[w - 1:], smooth, label="PPO (training episodes)")
    if "ghost_success" in result:  # evaluated
        ax.axhline(result["ghost_success"], color="k", ls="--", label="ghost (evaluation)")
        ax.axhline(result["policy_success"], color="C1", ls=":", label="PPO greedy (evaluation)")
    ax.set_xlabel("env steps")
    ax.set_ylabel("success rate")
    ax.set_title(f"{result['env']} ({result['action']})")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def _shapes(tree) -> dict:
    """{"layer/param": shape} of a tree of weights."""
    return {"/".join(str(getattr(k, "key", k)) for k in path): np.shape(v)
            for path, v in jax.tree_util.tree_flatten_with_path(tree)[0]}


def load(path, **options) -> tuple:
    """(env, env params, network, network params) of a run's output folder ``path``;
    ``options`` replace the env options the run was trained with (``table``, ``noise``).
    ValueError naming ``checkpoint`` when the env rebuilt from the config observes other
    parts than the run did (another id, observation or action), or when a weight's shape
    is not the network's."""
    path = pathlib.Path(path)
    cfg = json.loads((path / CONFIG).read_text())
    spec = cfg["spec"]
    env, params = make_env({**spec, "options": {**spec.get("options", {}), **options}})
    now = [list(part) for part in env.layout()]
    if "layout" in cfg and cfg["layout"] != now:
        differ = [f"{a[0]} {a[1]} -> {b[0]} {b[1]}" for a, b in zip(cfg["layout"], now) if a != b]
        differ += [f"{a[0]} {a[1]} -> none" for a in cfg["layout"][len(now):]]
        differ += [f"none -> {b[0]} {b[1]}" for b in now[len(cfg["layout"]):]]
        raise ValueError(f"checkpoint: {str(path)!r} was trained on observation parts {cfg['layout']}; "
                         f"{spec['env']} with observation={spec['observation']!r}, action={spec['action']!r} "
                         f"observes {now} ({'; '.join(differ)})")
    net = network(env.action, cfg.get("hidden"))
    template = net.init(jax.random.PRNGKey(0), jnp.zeros((1, env.obs_size), jnp.float32))
    saved = serialization.msgpack_restore((path / CHECKPOINT).read_bytes())
    want, got = _shapes(template), _shapes(saved)
    if got != want:
        bad = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
        raise ValueError(f"checkpoint: {str(path)!r} does not fit the {env.action!r} network of {spec['env']}: "
                         + "; ".join(f"{k} saved {got.get(k)}, expected {want.get(k)}" for k in bad[:4]))
    return env, params, net, serialization.from_state_dict(template, saved)
