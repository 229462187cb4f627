"""How well the search agent's own success estimate matches the success of the stroke it
chose, on cuegym/PotShot-v0.

For layout i (the env reset with seed ``--seed + i``) the agent decides with key
``PRNGKey(--seed + i)`` and reports ``last_info["success"]``; the chosen stroke is then
replayed C x S times (the agent's lanes, all on that one stroke) under fresh noise at the
same level (:meth:`SearchAgent.evaluate` with the stroke in every candidate slot: identical
candidates share their copies), which measures its success to about +-0.015. Prints a JSON
line per (table, noise): the mean estimate, the mean replayed rate and their difference.
A pot drawn once per layout (``evaluate.py``) measures the same rate, with the
noise of one Bernoulli draw a layout.

    python experiments/search_calibration.py --tables pool-9ft pyramid-12ft --noise 0.25 1 --layouts 30
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

ENV_ID = "cuegym/PotShot-v0"


def calibrate(table: str, noise: float, layouts: int, seed: int, **knobs) -> dict:
    """The mean estimate and replayed rate over ``layouts`` layouts; ``knobs`` go to
    :class:`SearchAgent` (default: its PotShot budget, without the time budget)."""
    import gymnasium as gym
    import jax
    import numpy as np

    from cuegym.agents import SearchAgent
    from cuegym.agents.base import observation_arrays, state_from_observation

    env = gym.make(ENV_ID, table=table, noise=noise)
    knobs = {"time_budget": None, **knobs}  # no time budget: the result does not depend on the machine
    agent = SearchAgent(ENV_ID, table=table, noise=noise, **knobs)
    c = agent.budget.candidates
    estimates, replayed, t0 = [], [], time.perf_counter()
    for i in range(layouts):
        obs, _ = env.reset(seed=seed + i)
        action = agent.act(obs, jax.random.PRNGKey(seed + i))
        estimates.append(agent.last_info["success"])
        state = state_from_observation(agent.env, observation_arrays(agent.env, obs))
        every = {k: np.repeat(np.asarray(v)[None], c, 0) for k, v in action.items()}
        # a key the decision never drew from: fresh noise
        replayed.append(float(agent.evaluate(state, every, jax.random.fold_in(jax.random.PRNGKey(seed + i), 1 << 20))
                              ["success"][0]))
    est, rate = statistics.fmean(estimates), statistics.fmean(replayed)
    return {"table": table, "noise": noise, "layouts": layouts, "seed": seed, "estimate": est, "replayed": rate,
            "estimate_minus_replayed": est - rate, "copies": c * agent.budget.samples,
            "seconds": time.perf_counter() - t0}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", nargs="+", default=["pool-9ft", "pyramid-12ft"])
    p.add_argument("--noise", nargs="+", type=float, default=[1.0])
    p.add_argument("--layouts", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.layouts < 1:
        raise ValueError(f"--layouts: at least 1, got {args.layouts}")
    from cuegym._cache import enable_compilation_cache

    enable_compilation_cache()
    for table in args.tables:
        for noise in args.noise:
            print(json.dumps(calibrate(table, noise, args.layouts, args.seed)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
