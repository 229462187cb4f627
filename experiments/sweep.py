"""Sweep train_jax's PPO hyperparameters with Ray Tune, ASHA stopping the weak trials early.

    python experiments/sweep.py --env cuegym/PotShot-v0 --table pool-9ft --noise 1 --action menu \
        --trials 16 --max-steps 300000 --minutes 5 --grace 50000 --out results/sweep

Each trial trains with cuegym.learn.train.run in its Ray worker and reports its training
success (smoothed over the last 10 iterations) against env steps; ASHA stops the trials
below the best quarter at each rung (--grace, then 4x, 16x, ... env steps). A trial that
ends writes result.json, checkpoint.msgpack, config.json, learning_curve.png and log.txt to
OUT/<trial id>; a stopped one only log.txt. The sweep writes OUT/results.csv and
OUT/results.json (one row per trial: hyperparameters, steps, training success, evaluated
policy and ghost success, whether ASHA stopped it) and prints the rows, best first. Ray's
own trial records go to OUT/tune. Needs `pip install 'cuegym[sweep]'`. docs/scale.md.
"""

from __future__ import annotations

import argparse
import collections
import csv
import io
import json
import math
import os
import pathlib
import shutil
import sys
import tempfile

ACTIONS = ("menu", "residual", "shot")  # cuegym.learn.gymnax_env.ACTIONS, without importing JAX for --help

SMOOTH = 10  # iterations averaged into the success ASHA ranks (one iteration's is noisy)
SPACE = ("lr", "entropy", "num_envs", "num_steps")
PASSED = ("CUEGYM_CACHE_DIR", "JAX_PLATFORMS", "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION",
          "XLA_CLIENT_MEM_FRACTION")  # to the trials, as set here
COLUMNS = ("trial", *SPACE, "steps", "success", "policy_success", "ghost_success", "stopped_early", "error")


def numbers(kind):
    """An argparse type: a comma-separated list of ``kind`` ("1e-3,3e-3", "32,64")."""
    def parse(text):
        try:
            return tuple(kind(x) for x in text.split(","))
        except ValueError:
            raise argparse.ArgumentTypeError(f"a comma-separated list of {kind.__name__}s, got {text!r}") from None
    return parse


def parse(argv) -> argparse.Namespace:
    """The flags, checked before Ray starts: a bad value names its flag and its range."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="cuegym/PotShot-v0")
    p.add_argument("--table", default=None, help="table name (default: the env's)")
    p.add_argument("--noise", type=float, default=1.0)
    p.add_argument("--action", choices=ACTIONS, default="menu")
    p.add_argument("--trials", type=int, default=8, help="hyperparameter draws")
    p.add_argument("--max-steps", type=int, default=300_000, help="env steps per trial (ASHA's max_t)")
    p.add_argument("--minutes", type=float, default=5.0, help="training budget per trial (after compiling)")
    p.add_argument("--eval-episodes", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0, help="draws the trials and seeds each trial's training")
    p.add_argument("--lr", type=numbers(float), default=(3e-4, 3e-3), help="LOW,HIGH: log-uniform")
    p.add_argument("--entropy", type=numbers(float), default=(0.003, 0.01, 0.03), help="choices")
    p.add_argument("--num-envs", type=numbers(int), default=(32, 64, 128), help="choices")
    p.add_argument("--num-steps", type=numbers(int), default=(4, 8), help="choices")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatches", type=int, default=4, help="must divide every num_envs x num_steps")
    p.add_argument("--cpus-per-trial", type=float, default=1.0)
    p.add_argument("--gpus-per-trial", type=float, default=0.0, help="0.25 packs four trials on a GPU")
    p.add_argument("--max-concurrent", type=int, default=None, help="trials at once (default: as resources allow)")
    p.add_argument("--grace", type=int, default=50_000, help="env steps before ASHA's first stop")
    p.add_argument("--address", default=None, help="an existing Ray cluster ('auto', HOST:6379); default a local one")
    p.add_argument("--ray-dir", type=pathlib.Path, default=None,
                   help="the local Ray's session folder, kept (default: a fresh /tmp/ray* one, removed)")
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("results/sweep"))
    a = p.parse_args(argv)
    positive = {"--trials": a.trials, "--max-steps": a.max_steps, "--eval-episodes": a.eval_episodes,
                "--epochs": a.epochs, "--minibatches": a.minibatches, "--grace": a.grace,
                "--minutes": a.minutes, "--cpus-per-trial": a.cpus_per_trial}
    if a.max_concurrent is not None:
        positive["--max-concurrent"] = a.max_concurrent
    for flag, v in positive.items():
        if not v > 0:
            p.error(f"{flag}: must be > 0, got {v}")
    if len(a.lr) != 2 or not 0 < a.lr[0] < a.lr[1]:
        p.error(f"--lr: LOW,HIGH with 0 < LOW < HIGH, got {','.join(map(str, a.lr))}")
    if min(a.entropy) < 0:
        p.error(f"--entropy: weights >= 0, got {a.entropy}")
    for flag, vs in (("--num-envs", a.num_envs), ("--num-steps", a.num_steps)):
        if min(vs) < 1:
            p.error(f"{flag}: integers >= 1, got {vs}")
    bad = [e * s for e in a.num_envs for s in a.num_steps if (e * s) % a.minibatches]
    if bad:
        p.error(f"--minibatches: must divide every num_envs x num_steps, {a.minibatches} does not divide {bad}")
    g = a.gpus_per_trial
    if g < 0 or (g > 1 and g != int(g)):
        p.error(f"--gpus-per-trial: a fraction in [0, 1] or a whole number of GPUs, got {g}")
    return a


def import_ray():
    """Ray Tune, imported only when a sweep runs (``--help`` and flag errors work without it)."""
    try:
        import ray
        from ray import tune
        from ray.tune.schedulers import ASHAScheduler
        from ray.tune.search import BasicVariantGenerator
    except ImportError as e:
        sys.exit(f"experiments/sweep.py needs Ray Tune ({e}): pip install 'cuegym[sweep]'")
    return ray, tune, ASHAScheduler, BasicVariantGenerator


def trial_function(a: argparse.Namespace, out: pathlib.Path):
    """The trainable: one train.run in the Ray worker with the drawn ``config``. Each
    iteration's success goes to Tune, where ASHA may end the trial (Ray raises SystemExit
    in ``tune.report``); the last report, after the evaluation, carries its results. No
    iteration at or past ``--max-steps`` is reported from inside the loop: ASHA stops a
    trial at its max_t, and that would cut off the evaluation and the checkpoint."""
    options = {"noise": a.noise, **({"table": a.table} if a.table else {})}
    spec = {"env": a.env, "action": a.action, "aim": "table", "observation": "flat", "opponent": "default",
            "options": options}

    def train_trial(config: dict) -> None:
        from ray import tune

        from cuegym.learn import ppo
        from cuegym.learn.train import run

        folder = out / tune.get_context().get_trial_id()
        folder.mkdir(parents=True, exist_ok=True)
        cfg = ppo.Config(num_envs=config["num_envs"], num_steps=config["num_steps"], epochs=a.epochs,
                         minibatches=a.minibatches, lr=config["lr"], entropy=config["entropy"])
        recent = collections.deque(maxlen=SMOOTH)

        def metrics(row):
            recent.append(row["success"])
            return {"steps": row["steps"], "success": sum(recent) / len(recent)}

        def report(row):
            m = metrics(row)
            if m["steps"] < a.max_steps:
                tune.report(m)

        with open(folder / "log.txt", "a") as log:
            result = run(spec, cfg, minutes=a.minutes, seed=a.seed, out=folder, max_steps=a.max_steps,
                         eval_episodes=a.eval_episodes, log=lambda s: print(s, file=log, flush=True),
                         measure_env_speed=False, report=report)
        last = {"steps": result["steps"], "success": sum(recent) / len(recent) if recent else math.nan}
        tune.report({**last, "policy_success": result["policy_success"], "ghost_success": result["ghost_success"]})

    return train_trial


def worker_env(a: argparse.Namespace) -> dict:
    """Environment variables for the trials' JAX: the compilation cache's folder passed on;
    with a GPU share below one, no preallocation and a memory cap of 90 % of the share (the
    rest for each process's CUDA context), so that several trials fit on one GPU; with no
    GPU, JAX kept on the CPU (Ray leaves CUDA_VISIBLE_DEVICES alone then). The user's own
    settings of these pass on unchanged (JAX refuses both names of the fraction at once)."""
    env = {k: os.environ[k] for k in PASSED if k in os.environ}
    if a.gpus_per_trial == 0:
        env.setdefault("JAX_PLATFORMS", "cpu")
    elif a.gpus_per_trial < 1:
        env.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        if "XLA_CLIENT_MEM_FRACTION" not in env:  # the newer name (2024); every JAX reads the old one
            env.setdefault("XLA_PYTHON_CLIENT_MEM_FRACTION", f"{0.9 * a.gpus_per_trial:.3f}")
    return env


def sweep(a: argparse.Namespace) -> list[dict]:
    """Start (or join) Ray, run the trials under ASHA, shut Ray down; the table's rows."""
    ray, tune, ASHAScheduler, BasicVariantGenerator = import_ray()
    out = a.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    runtime_env = {"env_vars": worker_env(a)}
    if a.address:
        ray.init(address=a.address, runtime_env=runtime_env, log_to_driver=False)
        temp = None
    else:
        temp = a.ray_dir.resolve() if a.ray_dir else pathlib.Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))
        cpus = a.cpus_per_trial * a.max_concurrent if a.max_concurrent else None
        ray.init(num_cpus=cpus and math.ceil(cpus), include_dashboard=False, log_to_driver=False,
                 logging_level="warning", runtime_env=runtime_env, object_store_memory=256 * 2**20,
                 _temp_dir=str(temp))
    try:
        space = {"lr": tune.loguniform(*a.lr), "entropy": tune.choice(a.entropy),
                 "num_envs": tune.choice(a.num_envs), "num_steps": tune.choice(a.num_steps)}
        asha = ASHAScheduler(time_attr="steps", max_t=a.max_steps, grace_period=min(a.grace, a.max_steps))
        tuner = tune.Tuner(
            tune.with_resources(trial_function(a, out), {"cpu": a.cpus_per_trial, "gpu": a.gpus_per_trial}),
            param_space=space,
            tune_config=tune.TuneConfig(metric="success", mode="max", scheduler=asha, num_samples=a.trials,
                                        search_alg=BasicVariantGenerator(max_concurrent=a.max_concurrent or 0,
                                                                         random_state=a.seed)),
            run_config=tune.RunConfig(name="tune", storage_path=str(out), verbose=1))
        grid = tuner.fit()
        return [table_row(r, out) for r in grid]
    finally:
        ray.shutdown()
        if temp is not None and a.ray_dir is None:
            shutil.rmtree(temp, ignore_errors=True)


def table_row(result, out: pathlib.Path) -> dict:
    """One trial's row: its draw, its last report's steps and success, the evaluation (None
    where ASHA stopped it or it failed), and the first line of its error (None if none)."""
    m = result.metrics or {}
    trial = m.get("trial_id") or pathlib.Path(result.path).name
    error = str(result.error).strip().splitlines()[-1] if result.error else None
    return {"trial": trial, **{k: result.config[k] for k in SPACE}, "steps": m.get("steps"),
            "success": m.get("success"), "policy_success": m.get("policy_success"),
            "ghost_success": m.get("ghost_success"),
            "stopped_early": error is None and "policy_success" not in m, "error": error,
            "folder": str(out / trial)}


def best_first(rows: list[dict]) -> list[dict]:
    """The rows by evaluated policy success, then training success (unknown counts as -1)."""
    def score(v):
        return -1.0 if v is None or (isinstance(v, float) and math.isnan(v)) else v
    return sorted(rows, key=lambda r: (score(r["policy_success"]), score(r["success"])), reverse=True)


def write_table(rows: list[dict], a: argparse.Namespace) -> None:
    """OUT/results.csv (the columns, one row per trial) and OUT/results.json (the flags and the rows)."""
    from cuegym._io import write_atomic  # here: importing cuegym imports JAX, which the driver needs nowhere else

    text = io.StringIO()
    w = csv.DictWriter(text, fieldnames=[*COLUMNS, "folder"], lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    write_atomic(a.out / "results.csv", text.getvalue())
    flags = {k: (str(v) if isinstance(v, pathlib.Path) else v) for k, v in vars(a).items()}
    write_atomic(a.out / "results.json", json.dumps({"sweep": flags, "trials": rows}, indent=2))


def show(rows: list[dict]) -> None:
    """The rows as an aligned text table."""
    def cell(v):
        return "-" if v is None else f"{v:.3g}" if isinstance(v, float) else str(v)
    cells = [list(COLUMNS)] + [[cell(r[c]) for c in COLUMNS] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(COLUMNS))]
    for row in cells:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


def main(argv=None) -> list[dict]:
    a = parse(argv)
    rows = best_first(sweep(a))
    write_table(rows, a)
    show(rows)
    failed = sum(r["error"] is not None for r in rows)
    if failed:
        print(f"{failed} of {len(rows)} trials failed; Ray's records: {a.out / 'tune'}", file=sys.stderr)
        if failed == len(rows):
            sys.exit(1)
    return rows


if __name__ == "__main__":
    main()
