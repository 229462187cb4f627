"""One stroke as a lane of a refilling pool, advanced one event at a time by its caller.

:func:`simulate_many` hands shots to lanes from a fixed list; an environment pool instead
learns its next stroke only when the previous one has been judged, so it drives the lanes
itself: :func:`start` a stroke, :func:`event` until :func:`running` is False, read the
:func:`result`. The lane is the event loop's own carry (docs/physics.md), so a stroke run
this way is the same bytes as :func:`cuegym.physics.simulate` of it.
"""

from __future__ import annotations

from cuegym.physics.balls import BallState
from cuegym.physics.simulate import _advance, _finish, _Loop, _moving, _resolve, _restart
from cuegym.physics.strike import Shot

Lane = _Loop
"""A lane's state: the event loop's carry (time, balls, candidate tables, log, summary)."""


def start(table, balls: BallState, shot: Shot, log_capacity: int) -> Lane:
    """The lane right after ``shot`` strikes ``balls`` (a layout at rest, N balls), its
    candidates solved: a restart re-solves the struck ball alone (every other ball rests)."""
    return _resolve(table, *_restart(table, balls, shot, log_capacity))


def event(table, lane: Lane, throw: bool = True) -> Lane:
    """``lane`` moved to its next event, the event applied and its balls' candidates re-solved."""
    return _resolve(table, *_advance(table, lane, throw))


def running(lane: Lane, max_events: int):
    """() bool: a ball still moves and the lane has run fewer than ``max_events`` events."""
    return _moving(lane) & (lane.n < max_events)


def result(lane: Lane):
    """(final BallState, EventLog, ShotSummary) of a lane that has stopped running; the log's
    ``truncated`` is set when balls still move (the event cap was reached)."""
    return _finish(lane)
