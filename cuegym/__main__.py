"""``python -m cuegym``: the ``cuegym`` command line."""

import sys

from cuegym.tools.cli import main

sys.exit(main())
