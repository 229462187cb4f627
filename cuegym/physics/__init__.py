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
)
from cuegym.physics.events import KIND_NAMES, EventLog
from cuegym.physics.noise import perturb
from cuegym.physics.refill import simulate_many
from cuegym.physics.simulate import simulate, simulate_batch
from cuegym.physics.strike import Shot, make_shot
from cuegym.physics.summary import ShotSummary
from cuegym.physics.tables import CUSHIONS, POCKETS, TABLE_SPECS, Table, TableSpec, get_spec, get_table

__all__ = [
    "AIRBORNE",
    "CUSHIONS",
    "KIND_NAMES",
    "OFF_TABLE",
    "POCKETED",
    "POCKETS",
    "ROLLING",
    "SLIDING",
    "SPINNING",
    "STATE_NAMES",
    "STATIONARY",
    "TABLE_SPECS",
    "BallState",
    "EventLog",
    "Shot",
    "ShotSummary",
    "Table",
    "TableSpec",
    "at_rest",
    "get_spec",
    "get_table",
    "kinetic_energy",
    "make_shot",
    "perturb",
    "simulate",
    "simulate_batch",
    "simulate_many",
]
