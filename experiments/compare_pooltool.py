"""Same-shot agreement with pooltool (docs/physics.md, "Agreement with pooltool").

    python experiments/compare_pooltool.py [--out results/compare_pooltool.json] [--only NAME] [--cushion han_2005|mathavan_2010|stronge]

Needs the optional pooltool install (docs/physics.md gives the commands). Plays the fixed
shots of :mod:`cuegym.tools.compare_shots` in both simulators with matched parameters and
writes the JSON report and its markdown table (``.md`` beside it). The logic lives in
:mod:`cuegym.tools.compare_pooltool`.
"""

import sys

from cuegym.tools.compare_pooltool import main

if __name__ == "__main__":
    sys.exit(main())
