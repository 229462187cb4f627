"""Observations a network can learn from, in JAX: the game observation flattened as
:class:`cuegym.envs.wrappers.FlatObservation` does it, and the egocentric features (each
ball relative to the striker and to the pockets, the cut to pot it in each pocket).

Why in JAX: the gymnax env (:mod:`cuegym.learn.gymnax_env`) and the trainers run inside one
compiled program, with no host copy per step. Layouts and scaling: docs/training.md,
"Observations".
"""

from __future__ import annotations

import functools

import jax.numpy as jnp

from cuegym.envs import functional as F
from cuegym.envs.env_spaces import observation_space
from cuegym.envs.wrappers import flat_plan
from cuegym.physics import get_table


@functools.lru_cache(maxsize=None)
def plan(env: F.FuncEnv):
    """(plan, flat Box space) of ``env``'s observation (:func:`cuegym.envs.wrappers.flat_plan`)."""
    p, _, box = flat_plan(observation_space(env))
    return p, box


def flatten(env: F.FuncEnv, obs: dict):
    """(D,) float32: the observation dict ``obs`` of one table flattened (the layout of
    :class:`cuegym.envs.wrappers.FlatObservation`, the same values)."""
    parts = []
    p, box = plan(env)
    for key, kind in p:
        x = jnp.asarray(obs[key])
        if kind[0] == "linear":
            parts.append((x.astype(jnp.float32).ravel() - kind[1]) / kind[2])
        elif kind[0] == "symlog":
            y = x.astype(jnp.float32).ravel()
            parts.append(jnp.sign(y) * jnp.log1p(jnp.abs(y)))
        elif kind[0] == "onehot":
            parts.append((jnp.arange(kind[1]) == x.astype(jnp.int32) - kind[2]).astype(jnp.float32))
        elif kind[0] == "binary":
            parts.append(x.astype(jnp.float32).ravel())
        else:
            nvec, start = kind[1], kind[2]
            hot = [jnp.arange(n) == v - s for n, v, s in zip(nvec, x.astype(jnp.int32).ravel(), start)]
            parts.append(jnp.concatenate(hot).astype(jnp.float32))
    flat = jnp.concatenate(parts).astype(jnp.float32)
    return jnp.clip(flat, jnp.asarray(box.low), jnp.asarray(box.high))


def egocentric_size(env: F.FuncEnv) -> int:
    """The length of :func:`egocentric`."""
    return env.n_balls * (4 + 4 * 6)


def egocentric(env: F.FuncEnv, state: F.EnvState, striker):
    """(E,) float32, E = N x 28: for each ball j, its offset from the striker (dx, dy [table
    lengths]), its distance, whether it is on the table; and for each pocket p its distance
    to p [table lengths], the cosine of the cut that pots it in p from the striker (the
    ghost-ball aim's angle with j's path to p; 0 where the cut is over 90 degrees or j is
    the striker), cos of its path against the pocket's axis, and the cut's sine, signed
    (positive when j's path turns anticlockwise from the aim; 0 where the cosine is). ``striker`` () int the
    ball the player strikes (the ball in hand where it is placed)."""
    table = get_table(env.table)
    scale = env.spec.length
    r = env.spec.ball_radius
    xy, on = state.xy, state.on
    cue = xy[striker]
    rel = (xy - cue) / scale
    dist = jnp.sqrt(jnp.sum(rel**2, -1))
    pockets = jnp.asarray(table.pocket_xy)
    to_pocket = pockets[None] - xy[:, None]  # (N, 6, 2)
    d2 = jnp.sqrt(jnp.sum(to_pocket**2, -1))
    u = to_pocket / jnp.maximum(d2, 1e-12)[..., None]
    ghost = xy[:, None] - 2 * r * u
    path = ghost - cue
    aim = path / jnp.maximum(jnp.sqrt(jnp.sum(path**2, -1)), 1e-12)[..., None]
    cos_cut = jnp.maximum(jnp.sum(aim * u, -1), 0.0)
    mine = jnp.arange(env.n_balls)[:, None] == striker
    cos_cut = jnp.where(mine | ~on[:, None], 0.0, cos_cut)
    sin_cut = jnp.where(cos_cut > 0, aim[..., 0] * u[..., 1] - aim[..., 1] * u[..., 0], 0.0)
    approach = jnp.sum(u * jnp.asarray(table.drop_n)[None], -1)
    onf = on.astype(jnp.float32)[:, None]
    per_ball = jnp.concatenate([rel * onf, (dist * on)[:, None], onf, d2 / scale * onf, cos_cut,
                                approach * onf, sin_cut], -1)
    return per_ball.ravel().astype(jnp.float32)


__all__ = ["egocentric", "egocentric_size", "flatten", "plan"]
