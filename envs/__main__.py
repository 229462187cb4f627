"""``python -m cuegym``: the ``cuegym`` command line."""

import sys

from .cli import main

sys.exit(main())
