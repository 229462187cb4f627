"""Train a PPO policy in JAX on a cuegym gymnax env and evaluate it against the ghost.

    python experiments/train_jax.py --env cuegym/PotShot-v0 --table pool-9ft --noise 1 \
        --action menu --minutes 2 --out results/train_jax

Writes DIR/result.json (policy and ghost success on the same seeded episodes with 95 %
intervals, steps, training and env steps/s), DIR/checkpoint.msgpack, DIR/config.json and
DIR/learning_curve.png. docs/training.md describes the run.
"""

from __future__ import annotations

import argparse
import json
import pathlib

import cuegym  # noqa: F401  (the compilation cache)
from cuegym.learn import gymnax_env, ppo
from cuegym.learn.train import run


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="cuegym/PotShot-v0")
    p.add_argument("--table", default=None, help="table name (default: the env's)")
    p.add_argument("--noise", type=float, default=1.0)
    p.add_argument("--action", choices=gymnax_env.ACTIONS, default="menu")
    p.add_argument("--aim", choices=gymnax_env.AIMS, default="table",
                   help="with --action shot: phi in the table's frame, or the aim across the ball on")
    p.add_argument("--observation", choices=gymnax_env.OBSERVATIONS, default="flat")
    p.add_argument("--opponent", choices=(*gymnax_env.OPPONENTS, "none", "default"), default="default")
    p.add_argument("--minutes", type=float, default=2.0, help="training budget (after compiling)")
    p.add_argument("--max-steps", type=int, default=None, help="stop after this many env steps")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--num-steps", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--entropy", type=float, default=0.01, help="the entropy bonus's weight")
    p.add_argument("--eval-episodes", type=int, default=1000)
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("results/train_jax"))
    a = p.parse_args(argv)
    options = {"noise": a.noise}
    if a.table:
        options["table"] = a.table
    spec = {"env": a.env, "action": a.action, "aim": a.aim, "observation": a.observation,
            "opponent": None if a.opponent == "none" else a.opponent, "options": options}
    cfg = ppo.Config(num_envs=a.num_envs, num_steps=a.num_steps, lr=a.lr, entropy=a.entropy)
    result = run(spec, cfg, minutes=a.minutes, seed=a.seed, out=a.out, max_steps=a.max_steps,
                 eval_episodes=a.eval_episodes)
    summary = {k: result[k] for k in ("env", "action", "steps", "policy_success", "policy_success_95",
                                      "ghost_success", "ghost_success_95", "steps_per_s", "env_steps_per_s")}
    print(json.dumps(summary, indent=2))
    return result


if __name__ == "__main__":
    main()
