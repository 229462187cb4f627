"""cuegym.physics: an event-based, JAX-vectorised billiards table simulator.

Importing this package turns on float64 in JAX and, on x86 CPUs, turns off fused
multiply-add in XLA so that results do not depend on the batch size (``_platform.py``).
"""

from ._platform import configure as _configure

_configure()

from .balls import (  # noqa: E402
    AIRBORNE,
    OFF_TABLE,
    POCKETED,
    ROLLING,
    SLIDING,
    SPINNING,
    STATE_NAMES,
    STATIONARY,
    BallState,
    at_rest,
    kinetic_energy,
)
from .events import KIND_NAMES, EventLog  # noqa: E402
from .noise import perturb  # noqa: E402
from .simulate import simulate, simulate_batch, simulate_many  # noqa: E402
from .strike import Shot, make_shot  # noqa: E402
from .summary import ShotSummary  # noqa: E402
from .tables import CUSHIONS, POCKETS, TABLE_SPECS, Table, TableSpec, get_spec, get_table  # noqa: E402

__all__ = [
    "AIRBORNE", "OFF_TABLE", "POCKETED", "ROLLING", "SLIDING", "SPINNING", "STATIONARY", "STATE_NAMES",
    "BallState", "at_rest", "kinetic_energy", "KIND_NAMES", "EventLog", "perturb", "simulate",
    "simulate_batch", "simulate_many", "Shot", "make_shot", "ShotSummary", "CUSHIONS", "POCKETS", "TABLE_SPECS", "Table",
    "TableSpec", "get_spec", "get_table",
]
