"""Event kinds and the fixed-capacity event log.

The log keeps, for each event in time order: its kind, time [s], the ball involved, the
other party (ball id for ``ball``, cushion id for ``cushion``, pocket id for ``jaw`` and
``pocket``, -1 otherwise), and the state of the ball(s) involved right after the event:
position, velocity and spin ((2, 3) each: the ball, then the other ball or zeros) and motion
state. Shapes for capacity C: kind, ball, other (C,) int32; t (C,) float64; r, v, w (C, 2, 3)
float64; state (C, 2) int32. ``count`` is the number of events that happened (it can exceed
C: the log then keeps the first C and ``overflow`` is set); ``truncated`` is set when the
simulation stopped at the event cap with balls still moving.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

NONE, STRIKE, BALL, CUSHION, JAW, POCKET, OFF_TABLE_EV, AIRBORNE_EV, LAND, ROLLING_EV, SPINNING_EV, STOP, PUSHED = range(13)
KIND_NAMES = (
    "none",
    "strike",
    "ball",
    "cushion",
    "jaw",
    "pocket",
    "off_table",
    "airborne",
    "land",
    "rolling",
    "spinning",
    "stop",
    "pushed",  # moved on at the last ball contact (a pressing group, a pushed neighbour): ball and other, if >= 0
)


class EventLog(NamedTuple):
    kind: jnp.ndarray
    t: jnp.ndarray
    ball: jnp.ndarray
    other: jnp.ndarray
    r: jnp.ndarray
    v: jnp.ndarray
    w: jnp.ndarray
    state: jnp.ndarray
    count: jnp.ndarray
    overflow: jnp.ndarray
    truncated: jnp.ndarray

    @property
    def capacity(self) -> int:
        return self.kind.shape[-1]


def empty_log(capacity: int) -> EventLog:
    c = capacity
    return EventLog(
        kind=jnp.zeros(c, jnp.int32),
        t=jnp.zeros(c),
        ball=jnp.full(c, -1, jnp.int32),
        other=jnp.full(c, -1, jnp.int32),
        r=jnp.zeros((c, 2, 3)),
        v=jnp.zeros((c, 2, 3)),
        w=jnp.zeros((c, 2, 3)),
        state=jnp.zeros((c, 2), jnp.int32),
        count=jnp.zeros((), jnp.int32),
        overflow=jnp.zeros((), bool),
        truncated=jnp.zeros((), bool),
    )


def carries_other(kind, other):
    """Whether an event of ``kind`` logs a second ball, ``other``, in its slot 1: a ball
    contact, or a pushed event of two balls (``other`` >= 0). JAX or NumPy values."""
    return ((kind == BALL) | (kind == PUSHED)) & (other >= 0)


def record(log: EventLog, kind, t, i, other, balls, live=True) -> EventLog:
    """Append one event (no-op past capacity except for the count). ``live`` () bool:
    False writes the slot's own row back, for a lane of a batched loop that has stopped
    (the event rows are then updated in place, not selected whole: ``simulate._settle``)."""
    n = log.count
    c = log.capacity
    slot = jnp.minimum(n, c - 1)
    keep = (n < c) & live
    has_other = carries_other(kind, other)
    j = jnp.where(has_other, other, i)
    two = jnp.stack([i, j])
    mask = jnp.stack([True, has_other])[:, None]

    def put(arr, val):
        return arr.at[slot].set(jnp.where(keep, val, arr[slot]))

    return log._replace(
        kind=put(log.kind, kind),
        t=put(log.t, t),
        ball=put(log.ball, i),
        other=put(log.other, other),
        r=put(log.r, jnp.where(mask, balls.r[two], 0.0)),
        v=put(log.v, jnp.where(mask, balls.v[two], 0.0)),
        w=put(log.w, jnp.where(mask, balls.w[two], 0.0)),
        state=put(log.state, jnp.where(mask[:, 0], balls.state[two], -1)),
        count=n + 1,
        overflow=log.overflow | (n >= c),
    )
