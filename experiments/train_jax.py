"""Train a PPO policy in JAX on a cuegym gymnax env and evaluate it against the ghost.

    python experiments/train_jax.py --env cuegym/PotShot-v0 --table pool-9ft --noise 1 \
        --action menu --minutes 2 --out results/train_jax
    python experiments/train_jax.py --env cuegym/RussianPyramid-v0 --opponent self \
        --num-envs 1024 --num-steps 8 --minutes 10 --out results/rp_selfplay

The refereed games roll out through the asynchronous pool by default (``--rollout pool``:
the first tables to finish are handed out, GAE per table and seat; ``--opponent self`` for
self-play), the drills through the vmapped gymnax step (``--rollout vmap``).

Data-parallel over the first N devices with ``--devices N`` (``all``: every device of every
host); over several hosts, each runs the same command with ``--coordinator HOST:PORT
--num-processes P --process-id I`` (or ``--cluster`` to read them from SLURM, Open MPI or a
cloud TPU's environment). docs/scale.md has the recipes.

Writes DIR/result.json (policy and ghost success on the same seeded episodes with 95 %
intervals, steps, training and env steps/s), DIR/checkpoint.msgpack, DIR/config.json and
DIR/learning_curve.png. docs/training.md describes the run.
"""

from __future__ import annotations

import argparse
import json
import pathlib

import jax

import cuegym  # noqa: F401  (the compilation cache)
from cuegym.envs.registry import BY_ID, GAMES
from cuegym.learn import data_parallel, gymnax_env, ppo
from cuegym.learn.train import make_env, pool_opponent, run


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="cuegym/PotShot-v0")
    p.add_argument("--table", default=None, help="table name (default: the env's)")
    p.add_argument("--noise", type=float, default=1.0)
    p.add_argument("--action", choices=gymnax_env.ACTIONS, default="menu")
    p.add_argument("--aim", choices=gymnax_env.AIMS, default="table",
                   help="with --action shot: phi in the table's frame, or the aim across the ball on")
    p.add_argument("--observation", choices=gymnax_env.OBSERVATIONS, default="flat")
    p.add_argument("--opponent", choices=(*gymnax_env.OPPONENTS, "self", "none", "default"), default="default",
                   help="the built-in opponent; 'self': self-play, the policy acts for every seat (pool rollout)")
    p.add_argument("--rollout", choices=("pool", "vmap", "default"), default="default",
                   help="pool: the asynchronous pool hands out the first tables to finish (the default for the "
                        "refereed games); vmap: every table stepped together (the default for the drills)")
    p.add_argument("--pool-batch", type=int, default=None,
                   help="with --rollout pool: tables handed out at a time (default: a quarter of --num-envs)")
    p.add_argument("--minutes", type=float, default=2.0, help="training budget (after compiling)")
    p.add_argument("--max-steps", type=int, default=None, help="stop after this many env steps")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--num-steps", type=int, default=4)
    p.add_argument("--epochs", type=int, default=4, help="passes over each iteration's batch")
    p.add_argument("--minibatches", type=int, default=4, help="minibatches a pass (must divide num-envs x num-steps)")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--entropy", type=float, default=0.01, help="the entropy bonus's weight")
    p.add_argument("--eval-episodes", type=int, default=1000, help="0: no evaluation")
    p.add_argument("--env-speed", action=argparse.BooleanOptionalAction, default=True,
                   help="measure the env's steps/s alone after training (a program of its own to compile)")
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("results/train_jax"))
    p.add_argument("--devices", default=None,
                   help="data-parallel over the first N devices, or 'all' (default: one device)")
    p.add_argument("--coordinator", default=None, help="several hosts: HOST:PORT of process 0")
    p.add_argument("--num-processes", type=int, default=None, help="several hosts: how many processes in all")
    p.add_argument("--process-id", type=int, default=None, help="several hosts: this one's, 0..P-1")
    p.add_argument("--cluster", action="store_true",
                   help="several hosts: read the coordinator and ids from the cluster's environment (SLURM, ...)")
    a = p.parse_args(argv)
    devices = _devices(p, a.devices)
    hosts = (a.coordinator, a.num_processes, a.process_id)
    if a.cluster or any(v is not None for v in hosts):
        try:
            data_parallel.start_hosts(*hosts)
        except ValueError as e:
            p.error(str(e))
        devices = "all" if devices is None else devices
    if devices == "all":
        devices = jax.device_count()
    options = {"noise": a.noise}
    if a.table:
        options["table"] = a.table
    rollout = a.rollout
    if rollout == "default":
        entry = BY_ID.get(a.env) or GAMES.get(a.env)
        rollout = "pool" if entry is not None and entry.referee is not None else "vmap"
    spec = {"env": a.env, "action": a.action, "aim": a.aim, "observation": a.observation,
            "opponent": None if a.opponent == "none" else a.opponent, "rollout": rollout, "options": options}
    try:
        cfg = ppo.Config(num_envs=a.num_envs, num_steps=a.num_steps, epochs=a.epochs, minibatches=a.minibatches,
                         lr=a.lr, entropy=a.entropy, pool_batch=a.pool_batch)
        pool_opponent(make_env(spec)[0], spec)  # self-play only over the pool, and on a game
    except ValueError as e:
        p.error(str(e))
    try:
        result = run(spec, cfg, minutes=a.minutes, seed=a.seed, out=a.out, max_steps=a.max_steps,
                     eval_episodes=a.eval_episodes, measure_env_speed=a.env_speed, devices=devices)
    except ValueError as e:
        if str(e).startswith("devices:"):
            p.error(str(e))
        raise
    summary = {k: result[k] for k in ("env", "action", "rollout", "opponent", "steps", "policy_success", "policy_success_95",
                                      "ghost_success", "ghost_success_95", "steps_per_s", "env_steps_per_s",
                                      "devices", "processes") if k in result}
    print(json.dumps(summary, indent=2))
    return result


def _devices(p, text):
    """None, "all" or a positive int from ``--devices``."""
    if text is None or text == "all":
        return text
    if not text.isdigit() or int(text) < 1:
        p.error(f"--devices: a positive integer or 'all', got {text!r}")
    return int(text)


if __name__ == "__main__":
    main()
