"""Small builders shared by the physics tests."""

import jax.numpy as jnp
import numpy as np

from cuegym.physics import at_rest, get_spec, get_table, make_shot, simulate
from cuegym.physics import events as ev


def run(table_name, xy, phi, speed, a=0.0, b=0.0, theta=0.0, cue=0, throw=True, **table_overrides):
    table = get_table(table_name, **table_overrides)
    balls = at_rest(np.asarray(xy, float))
    shot = make_shot(cue, phi, speed, a, b, theta)
    final, log, summary = simulate(table, balls, shot, throw=throw)
    return table, balls, final, log, summary


def events(log, kind=None, ball=None):
    """Indices of logged events, optionally of one kind and involving one ball."""
    n = min(int(log.count), log.capacity)
    out = []
    for k in range(n):
        if kind is not None and int(log.kind[k]) != kind:
            continue
        if ball is not None and ball not in (int(log.ball[k]), int(log.other[k]) if int(log.kind[k]) == ev.BALL else -99):
            continue
        out.append(k)
    return out


def velocity_after(log, k, ball):
    """Velocity (3,) of ``ball`` right after logged event ``k``."""
    slot = 0 if int(log.ball[k]) == ball else 1
    return np.asarray(log.v[k, slot])


def angle_deg(u, v):
    u, v = np.asarray(u)[:2], np.asarray(v)[:2]
    c = np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))
    return float(np.degrees(np.arccos(np.clip(c, -1, 1))))


def spec(name):
    return get_spec(name)


def heading(frm, to):
    d = np.asarray(to, float) - np.asarray(frm, float)
    return float(jnp.arctan2(d[1], d[0]))
