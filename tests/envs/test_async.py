"""The asynchronous pool (``cuegym.make_async``, :mod:`cuegym.envs.pool`) beyond the shared
API check (:func:`cuegym.api_test.check_async`, run on every id by tests/envs/test_api.py):
its jitted functions inside a user's own compiled rollout, the construction and call-order
errors, and the side-by-side benchmark. All on PotShot-v0 with 4 tables handed out one at a
time (one set of compiled programs for the module)."""

import gymnasium as gym
import jax
import numpy as np
import pytest

import cuegym
from cuegym.envs import functional as F
from cuegym.envs.command import ACTION_WIDTH, pack_action
from cuegym.envs.pool import pool_program

ENV_ID = "cuegym/PotShot-v0"
NUM, BATCH, SEED = 4, 1, 5


def commands(rounds: int) -> np.ndarray:
    """(NUM, rounds, ACTION_WIDTH): table i's action at its step k, seeded."""
    space = gym.make(ENV_ID).action_space
    out = np.zeros((NUM, rounds, ACTION_WIDTH))
    for i in range(NUM):
        space.seed(100 + i)
        for k in range(rounds):
            out[i, k] = pack_action(space.sample(), None, 2)
    return out


def test_pool_runs_inside_a_users_compiled_rollout():
    """``send`` and ``recv`` composed under ``lax.scan`` in one jitted function hand out
    the same tables, records and rewards as the host front sending the same actions: a
    JAX-native trainer needs no host round trip per step."""
    rounds = 12
    cmd = commands(rounds + 1)
    env = cuegym.make_async(ENV_ID, NUM, BATCH, seed=SEED)
    env.async_reset()
    taken = np.zeros(NUM, int)
    want = []
    for _ in range(rounds):
        _, r, term, _, info = env.recv()
        i = int(info["env_id"][0])
        want.append((i, r[0], term[0]))
        a = cmd[i, taken[i]]
        taken[i] += 1
        ints = {key: a[None, col].astype(int) for col, key in enumerate(("cue_ball", "ball", "pocket", "choice"), 7)}
        env.send({"shot": a[None, :5], "place": a[None, 5:7], **ints}, info["env_id"])

    func = F.FuncEnv(task="pot-shot")
    prog = pool_program(func.task, func.table, NUM, BATCH)
    opts = F.options(func)

    @jax.jit
    def rollout(keys):
        pool = prog.reset(keys, jax.numpy.zeros(NUM, jax.numpy.int32), opts)

        def one(carry, _):
            pool, count = carry
            pool, out = prog.recv(pool, opts)
            i = out.env_id[0]
            pool = prog.send(pool, jax.numpy.asarray(cmd)[i, count[i]][None], out.env_id)
            return (pool, count.at[i].add(1)), (out.env_id[0], out.reward[0], out.terminated[0])

        _, got = jax.lax.scan(one, (pool, jax.numpy.zeros(NUM, jax.numpy.int32)), length=rounds)
        return got

    ids, rewards, terms = jax.device_get(rollout(jax.vmap(jax.random.PRNGKey)(np.arange(NUM) + SEED)))
    assert [w[0] for w in want] == ids.tolist()
    assert [float(w[1]) for w in want] == rewards.tolist()
    assert [bool(w[2]) for w in want] == terms.tolist()
    assert any(terms)  # pot shots end: the scan went through autoresets


def test_construction_errors_name_the_argument():
    for kwargs, name in (({"num_envs": 0}, "num_envs"), ({"num_envs": 4, "batch_size": 5}, "batch_size"),
                         ({"num_envs": 4, "batch_size": 0}, "batch_size"), ({"num_envs": 4, "seed": -1}, "seed"),
                         ({"num_envs": 4, "opponent": lambda obs: obs}, "opponent"),
                         ({"num_envs": 4, "opponent": "shark"}, "opponent"),
                         ({"num_envs": 4, "noise": -1.0}, "noise")):
        with pytest.raises(ValueError, match=name):
            cuegym.make_async(ENV_ID, **kwargs)
    with pytest.raises(ValueError, match="env_id"):
        cuegym.make_async("cuegym/Carom-v0", 4)


def test_call_order_errors_and_defaults():
    env = cuegym.make_async(ENV_ID, NUM, BATCH, seed=SEED)
    assert cuegym.make_async(ENV_ID, NUM).batch_size == NUM  # EnvPool's default: every table each call
    assert env.observation_space["balls"].shape == (BATCH, 2, 3)
    assert env.single_action_space == gym.make(ENV_ID).action_space
    action = {"shot": np.array([[1.0, 2.0, 0, 0, 0]])}
    with pytest.raises(RuntimeError, match="reset"):
        env.recv()
    with pytest.raises(RuntimeError, match="reset"):
        env.send(action, [0])
    env.async_reset()
    _, _, _, _, info = env.recv()
    with pytest.raises(ValueError, match="env_id"):
        env.send(action, [])
    with pytest.raises(ValueError, match="action"):
        env.send([1.0], info["env_id"])
    env.send(action)  # env_id None: the tables the last recv returned
    assert env.running == NUM
    for _ in range(NUM):
        env.recv()
    with pytest.raises(RuntimeError, match="batch_size"):
        env.recv()  # every table is waiting for an action: nothing runs


def test_bench_reports_sync_and_async_side_by_side(tmp_path):
    from cuegym.tools import bench_async

    result = bench_async.run([ENV_ID], sizes=(NUM,), budget=0.5, seed=SEED, log=lambda msg: None)
    by = {r["mode"]: r for r in result["runs"]}
    assert by["sync"]["envs"] == by["async"]["envs"] == NUM and by["async"]["batch"] == BATCH
    assert by["sync"]["steps_per_s"] > 0 and by["async"]["steps_per_s"] > 0
    assert 0 < by["async"]["lane_efficiency"] <= 1
    md = bench_async.markdown(result)
    assert f"{by['async']['steps_per_s'] / by['sync']['steps_per_s']:.1f}×" in md


def _primitives(jaxpr, seen=None):
    """Every primitive name in ``jaxpr`` and the programs nested in its equations."""
    seen = set() if seen is None else seen
    for eqn in jaxpr.eqns:
        seen.add(eqn.primitive.name)
        for value in eqn.params.values():
            for sub in value if isinstance(value, (list, tuple)) else (value,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    _primitives(inner, seen)
    return seen


def test_pool_programs_hold_no_host_callback():
    """An accelerator runs ``recv`` as one program: no host callback anywhere in it (a
    callback would stop every iteration of the loop for a round trip to the host)."""
    func = F.FuncEnv(task="pot-shot")
    prog = pool_program(func.task, func.table, NUM, BATCH)
    opts = F.options(func)
    keys = jax.vmap(jax.random.PRNGKey)(np.arange(NUM) + SEED)
    pool = prog.reset(keys, jax.numpy.zeros(NUM, jax.numpy.int32), opts)
    names = _primitives(jax.make_jaxpr(prog.recv)(pool, opts).jaxpr)
    assert {"while", "custom_vmap_call"} <= names, "the walk reaches the loop and the gathered solves"
    assert not [n for n in names if "callback" in n], sorted(names)
