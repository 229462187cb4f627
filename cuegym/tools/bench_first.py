"""The first step a new user waits for: ``gym.make``, ``reset`` and one ``step`` of an id in a
fresh process, cold (an empty compilation cache) and warm (a second process on the same
cache), with the resident memory of the env.

Each measurement is its own interpreter, so nothing compiled by the benchmark's process or
an earlier id is reused; the cold and warm runs share a temporary cache folder that is
removed afterwards. Figures and the command are in the guide's "Performance" (docs/guide.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import gymnasium as gym
import numpy as np
import cuegym
t1 = time.perf_counter()
env = gym.make(sys.argv[1])
obs, info = env.reset(seed=0)
t2 = time.perf_counter()
env.action_space.seed(0)
env.step(env.action_space.sample())
t3 = time.perf_counter()
rss = 0
with open("/proc/self/status") as f:
    for line in f:
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) * 1024
print(json.dumps({"import_s": t1 - t0, "reset_s": t2 - t1, "step_s": t3 - t2, "first_step_s": t3 - t1,
                  "rss_bytes": rss, "cache": str(cuegym._cache.status())}))
"""


def first_step(env_id: str, cache_dir: str, timeout_s: float = 900.0) -> dict:
    """One fresh interpreter: ``import cuegym``, ``gym.make(env_id)``, ``reset(seed=0)`` and one
    seeded random ``step`` with ``CUEGYM_CACHE_DIR=cache_dir``. Returns ``import_s``,
    ``reset_s`` (make + reset), ``step_s`` (the first step), ``first_step_s`` (make to the end
    of the first step) [s], ``rss_bytes`` (resident memory after it) and ``cache``."""
    env = {**os.environ, "CUEGYM_CACHE_DIR": cache_dir, "JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS", "cpu")}
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    proc = subprocess.run([sys.executable, "-c", CHILD, env_id], env=env, capture_output=True, text=True,
                          timeout=timeout_s)
    if proc.returncode:
        raise RuntimeError(f"first step of {env_id} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cold_and_warm(env_id: str) -> dict:
    """:func:`first_step` twice on one new, empty cache folder: ``cold`` then ``warm``, and
    ``warm_over_cold`` (the ratio of their ``first_step_s``)."""
    with tempfile.TemporaryDirectory(prefix="cuegym-first-step-") as cache:
        cold = first_step(env_id, cache)
        warm = first_step(env_id, cache)
    return {"cold": cold, "warm": warm, "warm_over_cold": warm["first_step_s"] / cold["first_step_s"]}


def table(rows: dict) -> str:
    """Markdown table of :func:`cold_and_warm` results keyed by id."""
    lines = ["| id | cold first step [s] | warm first step [s] | warm / cold | resident memory [MB] |",
             "|---|---|---|---|---|"]
    for env_id, r in rows.items():
        lines.append(f"| {env_id.split('/')[-1]} | {r['cold']['first_step_s']:.1f} | {r['warm']['first_step_s']:.1f} "
                     f"| {r['warm_over_cold']:.2f} | {r['warm']['rss_bytes'] / 2**20:.0f} |")
    return "\n".join(lines)
