"""One stroke as a lane of a refilling pool, advanced one event at a time by its caller.

:func:`simulate_many` hands shots to lanes from a fixed list; an environment pool instead
learns its next stroke only when the previous one has been judged, so it drives the lanes
itself: :func:`start` a stroke, :func:`event` until :func:`running` is False, read the
:func:`result`. The lane is the event loop's own carry (docs/physics.md), so a stroke run
this way is the same bytes as :func:`cuegym.physics.simulate` of it. Each event re-solves
the candidates the previous one left pending, then advances: the caller's program holds the
root solvers once (in :func:`event`), not also in :func:`start`.
"""

from __future__ import annotations

from cuegym.physics.balls import BallState
from cuegym.physics.simulate import _event, _finish, _Pending, _restart, _running
from cuegym.physics.strike import Shot

Lane = _Pending
"""A lane's state: the event loop's carry (``loop``: time, balls, candidate tables, log,
summary) with the balls ``i``, ``j`` whose candidates the next event re-solves first."""


def start(table, balls: BallState, shot: Shot, log_capacity: int) -> Lane:
    """The lane right after ``shot`` strikes ``balls`` (a layout at rest, N balls), the
    struck ball's candidates pending (every other ball rests, so it has none)."""
    return _restart(table, balls, shot, log_capacity)


def event(table, lane: Lane, throw: bool = True) -> Lane:
    """``lane``'s pending candidates re-solved, then the lane moved to its next event and the
    event applied (its balls' candidates pending)."""
    return _event(table, lane, throw)


def running(lane: Lane, max_events: int):
    """() bool: a ball still moves and the lane has run fewer than ``max_events`` events."""
    return _running(lane.loop, max_events)


def result(lane: Lane):
    """(final BallState, EventLog, ShotSummary) of a lane that has stopped running; the log's
    ``truncated`` is set when balls still move (the event cap was reached)."""
    return _finish(lane.loop)


def with_balls(lane: Lane, balls: BallState) -> Lane:
    """``lane`` with its balls replaced by ``balls`` (nothing pending to re-solve matters:
    a lane at rest runs no event)."""
    return lane._replace(loop=lane.loop._replace(balls=balls))
