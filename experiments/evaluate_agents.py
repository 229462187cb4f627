"""Pot success rate of the agents on cuegym/PotShot-v0, by table and execution-noise level.

Every agent plays the same layouts (episode i is the env reset with seed ``--seed + i``,
and the agent's key is ``PRNGKey(--seed + i)``), under the env's execution noise at the
level given; the search agent scores its candidates at that same level. Writes
``agents_potshot.json`` and ``agents_potshot.md`` into ``--out``.

    python experiments/evaluate_agents.py                       # 1000 shots each (long: the search takes ~1.5 s a shot)
    python experiments/evaluate_agents.py --shots 1000 --search-shots 100
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import time
from datetime import datetime, timezone

ENV_ID = "cuegym/PotShot-v0"


def wilson(k: int, n: int, z: float = 1.96):
    """95 % Wilson score interval of a success rate k / n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def evaluate(name, table, noise, shots, seed, knobs):
    import gymnasium as gym
    import jax

    from cuegym.agents import AGENTS

    env = gym.make(ENV_ID, table=table, noise=noise)
    extra = {**knobs, "noise": noise} if name == "search" else {}
    agent = AGENTS[name](ENV_ID, table=table, **extra)
    pots, times, estimates = 0, [], []
    for i in range(shots):
        obs, _ = env.reset(seed=seed + i)
        action = agent.act(obs, jax.random.PRNGKey(seed + i))
        times.append(agent.last_info["time_s"])
        if name == "search":
            estimates.append(agent.last_info["success"])
        _, reward, *_ = env.step(action)
        pots += reward > 0.5
    lo, hi = wilson(pots, shots)
    warm = times[1:] or times
    row = {"agent": name, "table": table, "noise": noise, "shots": shots, "pots": int(pots), "rate": pots / shots,
           "ci95": [lo, hi], "first_decision_s": times[0], "median_decision_s": statistics.median(warm),
           "mean_decision_s": statistics.fmean(warm)}
    if estimates:
        row["mean_estimated_success"] = statistics.fmean(estimates)
    return row


def markdown(report) -> str:
    rows = report["rows"]
    lines = [f"PotShot-v0 pot success rate ({report['machine']}, {report['timestamp']})", "",
             f"Command: `{report['command']}`", "",
             "| table | noise | agent | shots | pot rate | 95 % CI | median s / decision | search's own estimate |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        est = f"{r['mean_estimated_success']:.3f}" if "mean_estimated_success" in r else ""
        lines.append(f"| {r['table']} | {r['noise']:g} | {r['agent']} | {r['shots']} | {r['rate']:.3f} | "
                     f"{r['ci95'][0]:.3f}–{r['ci95'][1]:.3f} | {r['median_decision_s']:.4f} | {est} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--shots", type=int, default=1000, help="episodes per agent, table and noise level")
    p.add_argument("--search-shots", type=int, default=None, help="episodes for the search agent (default: --shots)")
    p.add_argument("--noise", type=float, nargs="+", default=[0.0, 1.0, 5.0])
    p.add_argument("--tables", nargs="+", default=["pool-9ft", "pyramid-12ft"])
    p.add_argument("--agents", nargs="+", default=["random", "ghost", "search"], choices=["random", "ghost", "search"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--candidates", type=int, default=None)
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--rounds", type=int, default=None)
    p.add_argument("--time-budget", type=float, default=None, help="seconds (default: the agent's, 2 s)")
    p.add_argument("--out", default="results")
    args = p.parse_args(argv)
    for name in ("shots", "search_shots"):
        v = getattr(args, name)
        if v is not None and v < 1:
            raise SystemExit(f"--{name.replace('_', '-')}: at least 1, got {v}")
    os.environ.setdefault("CUEGYM_CACHE_DIR", os.path.join(os.path.dirname(__file__), "..", ".jax_cache"))
    import cuegym  # noqa: F401
    import jax

    jax.config.update("jax_compilation_cache_dir", os.environ["CUEGYM_CACHE_DIR"])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    knobs = {k: getattr(args, k) for k in ("candidates", "samples", "rounds") if getattr(args, k) is not None}
    if args.time_budget is not None:
        knobs["time_budget"] = args.time_budget
    t0 = time.time()
    rows = []
    for table in args.tables:
        for noise in args.noise:
            for name in args.agents:
                shots = args.search_shots if name == "search" and args.search_shots else args.shots
                row = evaluate(name, table, noise, shots, args.seed, knobs)
                rows.append(row)
                print(json.dumps(row), flush=True)
    report = {
        "kind": "cuegym.evaluate_agents", "env": ENV_ID,
        "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{os.cpu_count()} CPUs, {platform.machine()}, JAX {jax.__version__} {jax.default_backend()}",
        "command": "python experiments/evaluate_agents.py " + " ".join(argv if argv is not None else os.sys.argv[1:]),
        "config": {**vars(args), "search_knobs": knobs}, "wall_s": time.time() - t0, "rows": rows,
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "agents_potshot.json"), "w") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(args.out, "agents_potshot.md"), "w") as f:
        f.write(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
