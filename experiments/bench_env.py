"""The environment benchmark: env steps/s of every cuegym id and the single env's host overhead.

    python experiments/bench_env.py [--quick] [--out results/bench_env.json]

Each id (opponent None, random shots) as the Gymnasium single env (``gymnasium.make``), the
native vector env (``gymnasium.make_vec``) at 1, 64 and 1024 envs (``--quick``: 1 and 64,
fewer steps) and the functional program (``cuegym.envs.functional.batched(env).step`` on device
arrays); for the single env also the share of ``env.step`` spent outside the compiled
program (target under 10 %). Writes the JSON (and a ``.md`` beside it) and prints the
markdown tables. The logic lives in :mod:`cuegym.tools.bench_env`.
"""

import sys

from cuegym.tools.bench_env import main

if __name__ == "__main__":
    sys.exit(main())
