#!/usr/bin/env bash
# Set up from scratch (a virtual environment in .venv) and run the main job. Until the agents
# land, the main job simulates a Russian pyramid break from the example position file,
# prints its events and writes them to results/break.json.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e .
mkdir -p results
.venv/bin/cuegym simulate envs/examples/break-russian-pyramid.json --shot envs/examples/break-shot.json > results/break.json
.venv/bin/cuegym simulate envs/examples/break-russian-pyramid.json --shot envs/examples/break-shot.json --pretty
echo "wrote results/break.json"
