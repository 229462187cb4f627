"""Scaling figures on the devices at hand: physics shots/s and env steps/s against lanes,
and PPO training steps/s against devices.

    python experiments/bench_scale.py --out results/bench_scale.json            # the full set
    python experiments/bench_scale.py --quick --out results/bench_scale_quick.json

Three parts, each a row per size: the physics (``cuegym bench``'s lane loop, full rack on
the 12-foot pyramid table) at each ``--lanes``; the env, as the functional batched step and
the sync vector env over all local devices (``devices=None``), at each ``--tables``; and
``experiments/train_jax.py``'s trainer for ``--train-steps`` env steps on the first N devices
for each ``--train-devices`` (0: one device, the plain program). Writes the JSON; with forced
CPU devices (``XLA_FLAGS=--xla_force_host_platform_device_count=N``) the figures check that
the programs run, not their speed (the forced devices share the machine's cores).
docs/scale.md reads the figures.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import tempfile
import time

import jax

import cuegym  # noqa: F401  (the compilation cache)
from cuegym._io import write_atomic
from cuegym.learn import ppo, train
from cuegym.tools.bench_env import bench_functional, bench_vector
from cuegym.tools.bench_measure import bench as physics_bench


def physics(lanes: list[int], shots_per_lane: int) -> list[dict]:
    rows = []
    for n in lanes:
        r = physics_bench("pyramid-12ft", "full", batch=n, shots=n * shots_per_lane, single=0)
        rows.append({"lanes": n, "shots_per_s": r["batched"]["shots_per_s"], "compile_s": r["batched"]["compile_s"]})
        print(f"physics  {n:>6} lanes  {rows[-1]['shots_per_s']:>10.0f} shots/s", flush=True)
    return rows


def env(env_id: str, tables: list[int], calls: int, budget: float) -> list[dict]:
    rows = []
    for n in tables:
        for mode, fn in (("functional", bench_functional), ("vector", bench_vector)):
            r = fn(env_id, n, calls, budget)
            rows.append({"mode": mode, "tables": n, "steps_per_s": r["steps_per_s"], "compile_s": r["compile_s"]})
            print(f"env      {mode:<10} {n:>6} tables  {r['steps_per_s']:>10.0f} steps/s", flush=True)
    return rows


def training(env_id: str, counts: list[int], num_envs: int, steps: int) -> list[dict]:
    spec = {"env": env_id, "action": "menu", "observation": "flat", "opponent": "default", "options": {}}
    cfg = ppo.Config(num_envs=num_envs)
    rows = []
    for count in counts:
        with tempfile.TemporaryDirectory() as out:
            r = train.run(spec, cfg, minutes=60.0, seed=0, out=pathlib.Path(out), max_steps=steps, eval_episodes=0,
                          log=lambda *_: None, measure_env_speed=False, devices=count or None)
        rows.append({"devices": r["devices"], "num_envs": num_envs, "steps_per_s": r["steps_per_s"],
                     "compile_s": r["compile_seconds"]})
        print(f"training {r['devices']:>2} devices {num_envs:>6} tables  {r['steps_per_s']:>10.1f} steps/s", flush=True)
    return rows


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lanes", type=int, nargs="+", default=[1024, 4096, 16384])
    p.add_argument("--shots-per-lane", type=int, default=4)
    p.add_argument("--env", default="cuegym/RussianPyramid-v0")
    p.add_argument("--tables", type=int, nargs="+", default=[256, 1024, 4096])
    p.add_argument("--calls", type=int, default=20, help="env calls at most per size")
    p.add_argument("--budget", type=float, default=20.0, help="seconds at most per env size")
    p.add_argument("--train-env", default="cuegym/PotShot-v0")
    p.add_argument("--train-devices", type=int, nargs="+", default=sorted({0, 1, jax.device_count()}),
                   help="device counts to train on (0: the plain one-device program); default 0, 1 and all")
    p.add_argument("--train-tables", type=int, default=1024)
    p.add_argument("--train-steps", type=int, default=40960)
    p.add_argument("--quick", action="store_true", help="small sizes: a check that every part runs")
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("results/bench_scale.json"))
    a = p.parse_args(argv)
    if a.quick:
        a.lanes, a.tables, a.calls, a.budget = [64], [16], 4, 5.0
        a.train_tables, a.train_steps = 16, 16 * 4 * 3
    if any(n < 1 for n in (*a.lanes, *a.tables, a.train_tables, a.train_steps)) or min(a.train_devices) < 0:
        p.error("--lanes, --tables, --train-tables, --train-steps: positive; --train-devices: 0 or more")
    t0 = time.perf_counter()
    result = {
        "device": jax.devices()[0].device_kind, "platform": jax.devices()[0].platform,
        "device_count": jax.device_count(), "process_count": jax.process_count(),
        "physics": physics(a.lanes, a.shots_per_lane),
        "env": {"id": a.env, "rows": env(a.env, a.tables, a.calls, a.budget)},
        "training": {"id": a.train_env, "rows": training(a.train_env, a.train_devices, a.train_tables,
                                                         a.train_steps)},
    }
    result["wall_s"] = round(time.perf_counter() - t0, 1)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(a.out, json.dumps(result, indent=2))
    print(f"wrote {a.out} ({result['wall_s']} s)")
    return result


if __name__ == "__main__":
    main()
