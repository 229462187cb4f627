"""PPO spread over devices and hosts: the hosts' start, the mesh and the sharded programs
(``jax.shard_map`` over :mod:`cuegym.learn.ppo`'s data-parallel iteration), and the
host's view of what they return.

Why a module: the trainer (:mod:`cuegym.learn.train`), the script's flags and the tests
share them. docs/scale.md has the layout, the launch recipes and the figures.
"""

from __future__ import annotations

import jax
import numpy as np
from jax.sharding import PartitionSpec as P

from cuegym.envs.devices import TABLE_AXIS, resolve, table_mesh
from cuegym.learn import ppo


def start_hosts(coordinator: str | None = None, num_processes: int | None = None,
                process_id: int | None = None) -> None:
    """Join this process to a run of several hosts (``jax.distributed.initialize``), before
    anything else uses JAX: ``coordinator`` "HOST:PORT" of process 0, ``num_processes`` P and
    this ``process_id`` (0..P-1); all None reads them from the cluster's environment (SLURM,
    Open MPI, a cloud TPU). ValueError naming the flag for a partial or bad set."""
    given = {"coordinator": coordinator, "num_processes": num_processes, "process_id": process_id}
    if any(v is not None for v in given.values()):
        missing = [k for k, v in given.items() if v is None]
        if missing:
            raise ValueError(f"{missing[0]}: needed with the others ({', '.join(given)}), or none of them to read "
                             "the cluster's environment")
        host, _, port = coordinator.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"coordinator: HOST:PORT, got {coordinator!r}")
        if num_processes < 1 or not 0 <= process_id < num_processes:
            raise ValueError(f"process_id: 0..{num_processes - 1} with num_processes {num_processes}, got {process_id}")
    jax.distributed.initialize(coordinator, num_processes, process_id)


def programs(env, env_params, cfg: ppo.Config, devices) -> tuple:
    """(init, iteration, devices): :func:`cuegym.learn.ppo.init` and
    :func:`cuegym.learn.ppo.iteration` jitted over ``devices``
    (:func:`cuegym.envs.devices.resolve` among ``jax.devices()``, every host's; an int N,
    the first N; None, all), each device holding its block of the tables and a copy of
    the learner. ValueError naming ``devices`` when they do not divide the tables or a
    minibatch."""
    if isinstance(devices, int) and not isinstance(devices, bool):
        if not 1 <= devices <= jax.device_count():
            raise ValueError(f"devices: 1..{jax.device_count()} (the devices of every host), got {devices}")
        devices = range(devices)
    found = resolve(devices, jax.devices())
    shards = len(found)
    minibatch = cfg.num_envs * cfg.num_steps // cfg.minibatches
    if cfg.num_envs % shards or minibatch % shards:
        raise ValueError(f"devices: {shards} must divide num_envs ({cfg.num_envs}) and the minibatch "
                         f"(num_envs x num_steps / minibatches = {minibatch}): each device plays an equal block "
                         "of tables and takes an equal share of every minibatch")
    mesh = table_mesh(found)
    specs = ppo.TrainState(P(), P(), P(TABLE_AXIS), P(TABLE_AXIS), P(), P(), P())

    def spread(fn, in_specs, out_specs):
        return jax.jit(jax.shard_map(fn, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False))

    init = spread(lambda k: ppo.init(env, env_params, cfg, k, TABLE_AXIS, shards), (P(),), specs)
    iteration = spread(lambda s: ppo.iteration(env, env_params, cfg, s, TABLE_AXIS, shards), (specs,), (specs, P()))
    return init, iteration, found


def host_copy(tree):
    """NumPy copies of a tree of arrays that every device holds whole (the learner, the
    metrics), read from this host's first copy: on several hosts no host holds all of an
    array's copies, and NumPy's conversion refuses those."""
    def one(x):
        return np.asarray(x.addressable_data(0)) if isinstance(x, jax.Array) else np.asarray(x)

    return jax.tree_util.tree_map(one, tree)


def agree(flag: bool) -> bool:
    """Process 0's ``flag`` on every process (each process's own with one): the hosts
    must run the same number of iterations, and a time budget reads each host's clock."""
    if jax.process_count() == 1:
        return flag
    from jax.experimental import multihost_utils

    return bool(multihost_utils.broadcast_one_to_all(np.asarray(flag)))
