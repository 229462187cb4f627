"""cuegym.physics: an event-based, JAX-vectorised billiards table simulator.

Importing this package turns on float64 in JAX and, on x86 CPUs, turns off fused
multiply-add in XLA so that results do not depend on the batch size (``_platform.py``).
"""

from cuegym.physics._platform import configure as _configure

_configure()

from cuegym.physics.balls import (
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
)  # noqa: E402
from cuegym.physics.events import KIND_NAMES, EventLog  # noqa: E402
from cuegym.physics.noise import perturb  # noqa: E402
from cuegym.physics.simulate import simulate, simulate_batch, simulate_many  # noqa: E402
from cuegym.physics.strike import Shot, make_shot  # noqa: E402
from cuegym.physics.summary import ShotSummary  # noqa: E402
from cuegym.physics.tables import CUSHIONS, POCKETS, TABLE_SPECS, Table, TableSpec, get_spec, get_table  # noqa: E402

__all__ = [
    "AIRBORNE", "OFF_TABLE", "POCKETED", "ROLLING", "SLIDING", "SPINNING", "STATIONARY", "STATE_NAMES",
    "BallState", "at_rest", "kinetic_energy", "KIND_NAMES", "EventLog", "perturb", "simulate",
    "simulate_batch", "simulate_many", "Shot", "make_shot", "ShotSummary", "CUSHIONS", "POCKETS", "TABLE_SPECS", "Table",
    "TableSpec", "get_spec", "get_table",
]
