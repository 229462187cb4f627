#!/usr/bin/env bash
# Set up from scratch (a virtual environment in .venv) and run the main job: train PPO on
# cuegym/PotShot-v0 (pool-9ft, noise 1.0, 30,000 steps), evaluate it against the random,
# ghost-ball and search agents on the same seeded layouts, train sb3-contrib's MaskablePPO on
# the shot menu (8,192 steps) on the same layouts, train the JAX-native PPO on the
# shot menu for 1.5 minutes and evaluate it against the ghost on its own seeded episodes,
# train half a minute of self-play on Russian-pyramid frames over the pool, play the shipped
# Russian-pyramid agent against the ghost and the search, and write results/main/main_job.md
# (the table), results/main/main_job.json and results/main/train/learning_curve.png.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
# PyTorch (CPU build) before stable-baselines3, or pip may pull a CUDA build of several GB
.venv/bin/python -m pip install --quiet "torch==${CUEGYM_TORCH:-2.13.0}"
.venv/bin/python -m pip install --quiet -e '.[sb3,render,train]'
export CUEGYM_CACHE_DIR=${CUEGYM_CACHE_DIR:-$PWD/.jax_cache}
.venv/bin/python experiments/main_job.py "$@"
