"""Shared pieces of the env benchmarks (:mod:`cuegym.tools.bench_env`,
:mod:`cuegym.tools.bench_async`): seeded random shots in the physics benchmark's ranges, and
a timed loop with its throughput record."""

from __future__ import annotations

import math
import os
import time

import numpy as np


def random_shots(rng: np.random.Generator, lead: tuple) -> np.ndarray:
    """Random shots lead + (5,): phi, speed [m/s], a, b [ball radii], theta [rad], the
    ranges of the physics benchmark (:mod:`cuegym.tools.bench`)."""
    from cuegym.tools.bench_shots import SPEED_RANGE, TIP_RANGE

    u = rng.uniform(size=lead + (4,))
    return np.stack([2 * math.pi * u[..., 0], SPEED_RANGE[0] + (SPEED_RANGE[1] - SPEED_RANGE[0]) * u[..., 1],
                     TIP_RANGE * (2 * u[..., 2] - 1), TIP_RANGE * (2 * u[..., 3] - 1), np.zeros(lead)],
                    -1).astype(np.float32)


def action_pool(space, n: int, seed: int, batch: int | None = None) -> list[dict]:
    """``n`` actions of ``space`` (a single env's Dict, or a vector env's batched one with
    ``batch`` lanes) sampled after ``space.seed(seed)``, each shot replaced by
    :func:`random_shots`."""
    space.seed(seed)
    rng = np.random.default_rng([seed, 7])
    lead = () if batch is None else (batch,)
    pool = []
    for _ in range(n):
        a = space.sample()
        a["shot"] = random_shots(rng, lead)
        pool.append(a)
    return pool


def still(action: dict) -> dict:
    """``action`` with zero cue speed: the stroke ends at once (the warm-up call)."""
    a = dict(action)
    a["shot"] = np.array(action["shot"], copy=True)
    a["shot"][..., 1] = 0.0
    return a



def loop(max_calls: int, budget_s: float, body) -> int:
    """Call ``body(i)`` until ``max_calls`` calls or ``budget_s`` seconds (at least once)."""
    t0 = time.perf_counter()
    i = 0
    while i < max_calls:
        body(i)
        i += 1
        if time.perf_counter() - t0 >= budget_s:
            break
    return i


def rate(calls: int, envs: int, wall: float) -> dict:
    """Throughput of a timed run, and the load averages at its end (other work on the
    machine shows there)."""
    return {"calls": calls, "env_steps": calls * envs, "wall_s": wall,
            "steps_per_s": calls * envs / wall if wall > 0 else float("nan"),
            "ms_per_call": 1e3 * wall / calls if calls else float("nan"),
            "loadavg": list(os.getloadavg()) if hasattr(os, "getloadavg") else None}
