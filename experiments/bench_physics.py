"""The physics benchmark (docs/physics.md, "Performance"): shots/s against batch size, compile time, memory.

    python experiments/bench_physics.py [--quick] [--out results/bench_physics.json]

Pyramid-12ft and snooker-12ft, full rack plus a cue ball in the house / D, random shots,
batch 1, 64, 1024 and 4096 (``--quick``: 1 and 64, fewer shots), each in a fresh process;
the same first shots one at a time for the batching gain; each table's break (one at a time, the
simulator's event cap); compile time of a fresh process with an empty and with a warm
persistent compilation cache (every run also reports its own compile time, no cache). The
batched runs go through ``simulate_many`` (lanes that refill, the tail of long shots moved
into programs of fewer lanes) under the simulator's event cap. Writes
the JSON (and a ``.md`` beside it) and prints the markdown tables. The logic lives in
:mod:`cuegym.tools.bench` (``run_suite``); ``cuegym bench`` runs a single configuration.
"""

import sys

from cuegym.tools.bench_suite import suite_main

if __name__ == "__main__":
    sys.exit(suite_main())
