#!/usr/bin/env bash
# Set up from scratch (a virtual environment in .venv) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
# PyTorch before stable-baselines3 (the sb3 smoke tests run in CI, so the extra is not
# optional here): pip resolving torch for sb3 on its own may pull a CUDA build of several
# GB; pinned to the CPU build these machines serve (override with CUEGYM_TORCH)
.venv/bin/python -m pip install --quiet "torch==${CUEGYM_TORCH:-2.13.0}"
.venv/bin/python -m pip install --quiet -e '.[test,sb3,render,pettingzoo,train,sweep]'
# the replay viewer's test opens its page in headless Chromium (Debian's package, as root);
# if it cannot be installed, that test fails and says so (the rest still runs)
bash scripts/install_chromium.sh || echo "warning: Chromium could not be installed; tests/tools/test_viewer.py will fail" >&2
# the compiled programs go to $CUEGYM_CACHE_DIR, else import cuegym's default folder
# (~/.cache/cuegym/jax), so that a new clone on the same machine loads what an earlier run
# compiled (the keys cover the source and the versions; docs/architecture.md)
# Each compiled XLA:CPU program maps 1-2 thousand memory regions; a process past
# vm.max_map_count (65,530 by default) aborts. tests/conftest.py drops a worker's programs
# past 30,000; where this script may (root), it also raises the limit for headroom.
if [ -w /proc/sys/vm/max_map_count ] && [ "$(cat /proc/sys/vm/max_map_count)" -lt 262144 ]; then
  echo 262144 > /proc/sys/vm/max_map_count || true
fi
# Two workers, each test file kept on one worker so that the files that compile the same
# programs do not compile them twice; --dist loadscope does that (no other file has test
# classes) and also spreads tests/envs/test_api.py's classes, one per env id, over the
# workers, each id's programs built on one of them; the slowest tests are listed.
# pytest exits 5 when it collects no tests: that is a failure here, like any non-zero exit
# the style (ruff, settings in pyproject.toml) and the layers (import-linter's contracts:
# physics < rules < envs < agents, positions < tools, no cycles; docs/architecture.md)
# fail the run before any test compiles
.venv/bin/ruff check .
.venv/bin/lint-imports
WORKERS=${CUEGYM_TEST_WORKERS:-2}
exec .venv/bin/python -m pytest -q -n "$WORKERS" --dist loadscope --durations=40 "$@"
