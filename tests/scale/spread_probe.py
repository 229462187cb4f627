"""Run in a process of its own with four forced CPU devices
(``--xla_force_host_platform_device_count=4``, which JAX reads once, at start): the
sharded envs and the data-parallel trainer next to one device, with the same seeds and
actions. Prints one JSON line of the checks' results for tests/scale/test_scale.py."""

import json
import os
import pathlib
import sys
import tempfile
from collections import defaultdict

import gymnasium as gym
import jax
import numpy as np

import cuegym
from cuegym.envs import functional as F
from cuegym.learn import data_parallel as DP
from cuegym.learn import ppo, train

# a cheap program to compile that trains: two balls, the shot's Gaussian policy (the menu's
# and the residual's draws take the same path, _sample in cuegym.learn.ppo). Not Lag-v0: its
# tables start alike and score nothing at first, so the advantages are equal, their spread
# is rounding, and normalising by it magnifies the rounding of any two programs.
SPEC = {"env": "cuegym/PotShot-v0", "action": "shot", "observation": "flat", "opponent": None,
        "options": {"table": "pool-9ft", "noise": 1.0}}


def same(a, b) -> bool:
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    return len(la) == len(lb) and all(np.asarray(x).tobytes() == np.asarray(y).tobytes() for x, y in zip(la, lb))


def vector_rollout(env_id, num, devices, steps=6, **options):
    env = gym.make_vec(env_id, num, devices=devices, **options)
    space = env.action_space
    space.seed(5)
    out = [env.reset(seed=3)]
    out += [env.step(space.sample()) for _ in range(steps)]
    return [str(d) for d in env.devices], out


def table_action(space, table: int, count: int):
    """Table ``table``'s ``count``-th action: its own draw, whatever else is played."""
    space.seed(1000 * table + count)
    return space.sample()


def vector_tables(env_id, num, steps, devices=None):
    """Each table's sequence (obs bytes, reward, terminated) under make_vec, each table's
    actions from :func:`table_action`; the seed is the async pool's."""
    env = gym.make_vec(env_id, num, devices=devices)
    seen = defaultdict(list)
    obs, _ = env.reset(seed=11)
    reward, terminated = np.zeros(num), np.zeros(num, bool)
    space = env.single_action_space
    for t in range(steps + 1):
        for i in range(num):
            seen[i].append(([np.asarray(x[i]).tobytes() for x in jax.tree_util.tree_leaves(obs)],
                            float(reward[i]), bool(terminated[i])))
        actions = [table_action(space, i, t) for i in range(num)]
        obs, reward, terminated, _, _ = env.step({k: np.stack([a[k] for a in actions]) for k in actions[0]})
    return seen


def async_rollout(env_id, num, batch, devices, recvs=10, **options):
    """Each table's hand-outs in order (obs bytes, reward, terminated), its actions drawn
    from a seed of its own and its count, whatever order the tables come back in."""
    env = cuegym.make_async(env_id, num, batch, seed=11, devices=devices, **options)
    seen, count = defaultdict(list), defaultdict(int)

    def note(obs, reward, terminated, info):
        for j, i in enumerate(info["env_id"]):
            leaves = [np.asarray(x[j]).tobytes() for x in jax.tree_util.tree_leaves(obs)]
            seen[int(i)].append((leaves, float(reward[j]), bool(terminated[j])))

    obs, info = env.reset()
    note(obs, np.zeros(batch), np.zeros(batch, bool), info)
    space = env.single_action_space
    for _ in range(recvs):
        ids = info["env_id"]
        actions = []
        for i in ids:
            actions.append(table_action(space, int(i), count[int(i)]))
            count[int(i)] += 1
        obs, reward, terminated, _, info = env.step({k: np.stack([a[k] for a in actions]) for k in actions[0]}, ids)
        note(obs, reward, terminated, info)
    return [str(d) for d in env.devices], seen


def functional_rollout(devices, num=6, steps=3):
    func = F.FuncEnv(task="pot-shot")
    program, opts = F.batched(func, devices=devices), F.options(func)
    keys = jax.vmap(jax.random.PRNGKey)(np.arange(num))
    state, obs, keys = program.reset(keys, opts)
    out = [obs]
    ones, zeros = np.ones(num, bool), np.zeros(num, bool)
    for t in range(steps):
        action = jax.vmap(lambda s, k: F.random_action(func, s, k))(state, jax.random.split(jax.random.PRNGKey(t), num))
        state, obs, keys = program.step(state, action, keys, zeros if t % 2 == 0 else state.terminated, ones,
                                        np.zeros(num, np.int32), opts)
        out.append((obs, keys))
    return out


def main() -> dict:
    assert jax.device_count() == 4, jax.devices()
    r = {"devices": [str(d) for d in jax.devices()]}
    used, spread = vector_rollout("cuegym/PotShot-v0", 8, None)
    _, one = vector_rollout("cuegym/PotShot-v0", 8, [0])
    r["vector"] = {"devices": used, "same": same(spread, one)}
    # the pool's contract: table i is sub-env i of make_vec (checked on one device in
    # tests/envs/test_async.py), here against the vector env on the four devices
    used, spread = async_rollout("cuegym/PotShot-v0", 8, 4, None)
    one = vector_tables("cuegym/PotShot-v0", 8, max(len(v) for v in spread.values()))
    lengths = [min(len(spread[i]), len(one[i])) for i in range(8)]
    r["async"] = {"devices": used, "lengths": lengths,
                  "same": all(spread[i][:n] == one[i][:n] for i, n in enumerate(lengths))}
    r["functional"] = {"same": same(functional_rollout(None), functional_rollout([0]))}
    r["refused"] = {}
    for name, make in (("async num_envs", lambda: cuegym.make_async("cuegym/PotShot-v0", 6, 4)),
                       ("async batch_size", lambda: cuegym.make_async("cuegym/PotShot-v0", 8, 6)),
                       ("train", lambda: DP.programs(*train.make_env(SPEC), ppo.Config(num_envs=6, num_steps=2,
                                                                                      minibatches=2), 4))):
        try:
            make()
            r["refused"][name] = None
        except ValueError as e:
            r["refused"][name] = str(e)
    spec = SPEC
    cfg = ppo.Config(num_envs=8, num_steps=2, minibatches=2, epochs=1)
    weights, curves = {}, {}
    for name, devices in (("one", None), ("four", 4)):
        folder = pathlib.Path(tempfile.mkdtemp(prefix=f"cuegym-dp-{name}-"))
        res = train.run(spec, cfg, minutes=5.0, seed=0, out=folder, max_steps=48, eval_episodes=0,
                        log=lambda *_: None, measure_env_speed=False, devices=devices)
        weights[name] = [np.asarray(x, np.float64) for x in jax.tree_util.tree_leaves(train.load(folder)[3])]
        curves[name] = [c["loss"] for c in res["curve"]]
        r[f"train {name} devices"] = res["devices"]
    r["train"] = {"max_abs": max(float(np.max(np.abs(a - b))) for a, b in zip(weights["one"], weights["four"])),
                  "max_weight": max(float(np.max(np.abs(a))) for a in weights["one"]),
                  "loss_one": curves["one"], "loss_four": curves["four"]}
    return r


if __name__ == "__main__":
    if "--xla_force_host_platform_device_count=4" not in os.environ.get("XLA_FLAGS", ""):
        sys.exit("run with XLA_FLAGS=--xla_force_host_platform_device_count=4")
    print(json.dumps(main()))
