"""The aim sweep: where, in aim, a pot works, found before any noisy sampling.

A pot works only over a narrow window of aim (under a degree on a 9 ft pool table, often
under 0.1 degree in a Russian pyramid corner), shifted up to a few degrees off the ghost-ball
aim by cut-induced throw (:mod:`cuegym.physics.collisions`), and a stroke pots most often
when it aims at the window's centre. Noisy copies of a few candidates find that centre
slowly; a noise-free sweep finds it in one batched call of the env's step program:
:func:`sweep_actions` (B lanes grouped by ghost-ball pot and style, each group's lanes on a
grid of +-``width`` around its ghost aim), :func:`sweep_centres` (each lane's value smoothed
over its group by a Gaussian in aim of the noise's sigma: the value expected aiming there
under noise) and :func:`sweep_candidates` (the first noisy round's candidates around the best
centres). Shapes: B lanes, K pots swept, M styles, G = B // (K M) aims a group, C candidates.

Styles, grid widths and what it gains: docs/agents.md, "SearchAgent".
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cuegym.physics.noise import SIGMA_PHI

# Styles tried around every swept pot: (factor of the ghost's speed, tip offset b [ball
# radii]). Measured on PotShot layouts (noise-free sweeps of 24 pool-9ft and 30
# pyramid-12ft layouts at 0.35-1.3x the ghost's speed, b -0.3..0.3): the widest windows
# come at 0.6-0.8x the ghost's speed and the styles' widths differ by about 10 %: the
# pocket limits the window, the style mostly moves it (throw changes with speed and spin).
STYLES = ((1.0, -0.3), (0.8, -0.3), (0.65, 0.0), (0.8, 0.25))
SWEPT_POTS = 2  # ghost-ball pots swept (the best by the ghost's score)
MIN_LEVEL = 0.5  # the smoothing's sigma is at least half the tournament's (a centred aim at noise 0 too)


def centre_grid(level):
    """Half-width [rad] of the aim grid sampled around a window's centre: 2 sigma of the aim
    noise at ``level`` (at least ``MIN_LEVEL``), where a centred aim's success falls off."""
    return 2 * jnp.maximum(level, MIN_LEVEL) * SIGMA_PHI


def sweep_layout(n_lanes: int, pots: int, styles: int):
    """(static) The lanes' group and aim slot: returns (group (B,), slot (B,), G) with groups
    g = pot * styles + style, G = B // (pots x styles) aims a group; lanes past pots x styles
    x G get group -1 (unused)."""
    per = n_lanes // (pots * styles)
    if per < 2:
        raise ValueError(f"candidates x samples: at least {2 * pots * styles} lanes for the aim sweep, got {n_lanes}")
    idx = jnp.arange(n_lanes)
    group = jnp.where(idx < per * pots * styles, idx // per, -1)
    return group, idx % per, per


def sweep_actions(plans, ghost: dict, n_lanes: int, width: float, styles=STYLES, pots: int = SWEPT_POTS):
    """(traceable) The sweep's B actions (each field with a leading B). ``plans``: the
    ghost-ball pots (:class:`cuegym.agents.baselines.Plans`, best first, ``score`` -inf
    where fewer are on); ``ghost``: the ghost agent's action (what unused lanes play, and
    every lane when no pot is on); ``width`` [rad] the half-width of the aim grid. When
    fewer than ``pots`` pots are on, the groups of the missing ones sweep the pots that are
    on with their aim grid shifted by part of a step (a finer grid). Returns (actions,
    group (B,) int, has () bool: a pot is on)."""
    m = len(styles)
    group, slot, per = sweep_layout(n_lanes, pots, m)
    count = jnp.sum(jnp.isfinite(plans.score[:pots]))
    has = count > 0
    k = jnp.maximum(group, 0) // m
    plan = k % jnp.maximum(count, 1)
    repeat = k // jnp.maximum(count, 1)  # 0 for the first sweep of a pot, then 1, ...
    step = 2 * width / (per - 1)
    aim = -width + step * (slot + repeat / jnp.maximum((pots + count - 1) // jnp.maximum(count, 1), 1))
    factor = jnp.asarray([s[0] for s in styles])[jnp.maximum(group, 0) % m]
    b = jnp.asarray([s[1] for s in styles])[jnp.maximum(group, 0) % m]
    n = n_lanes
    shot = jnp.stack([jnp.mod(plans.phi[plan] + aim, 2 * jnp.pi), plans.speed[plan] * factor, jnp.zeros(n), b,
                      jnp.zeros(n)], -1)
    use = (group >= 0) & has
    shot = jnp.where(use[:, None], shot, ghost["shot"][None])
    pick = lambda field, gh: jnp.where(use, field[plan], gh).astype(jnp.int32)  # noqa: E731
    actions = {
        "shot": shot,
        "place": jnp.where(use[:, None], plans.spot[plan], ghost["place"][None]),
        "cue_ball": pick(plans.s, ghost["cue_ball"]),
        "ball": pick(plans.j, ghost["ball"]),
        "pocket": pick(plans.p, ghost["pocket"]),
        "choice": jnp.broadcast_to(ghost["choice"], (n,)).astype(jnp.int32),
    }
    return actions, jnp.where(use, group, -1), has


def sweep_centres(actions: dict, group, value, level, n_groups: int, pots: int = SWEPT_POTS):
    """(traceable) Each group's best aim under aim noise. ``value`` (B,) the noise-free
    lanes' values; each lane's value is replaced by the Gaussian-weighted mean over the
    lanes of its group (sigma: ``level`` x 0.125 degrees, at least ``MIN_LEVEL`` x) of
    the difference in aim, the value expected aiming there with the aim noise. Returns
    (best lane (n_groups,) int, its smoothed value (n_groups,); -inf for an empty group)."""
    sigma = jnp.maximum(level, MIN_LEVEL) * SIGMA_PHI
    phi = actions["shot"][:, 0]
    dphi = jnp.mod(phi[:, None] - phi[None, :] + jnp.pi, 2 * jnp.pi) - jnp.pi
    same = (group[:, None] == group[None, :]) & (group[:, None] >= 0)
    w = jnp.where(same, jnp.exp(-0.5 * (dphi / sigma) ** 2), 0.0)
    smoothed = (w @ value) / jnp.maximum(jnp.sum(w, -1), 1e-300)
    mine = group[None, :] == jnp.arange(n_groups)[:, None]  # (n_groups, B)
    # ties (a group where nothing pots) go to the aim nearest the middle of the grid: the
    # ghost-ball aim
    _, slot, per = sweep_layout(group.shape[0], pots, n_groups // pots)
    tie = 1e-9 * jnp.abs(slot - (per - 1) / 2)
    scored = jnp.where(mine, smoothed[None, :] - tie[None, :], -jnp.inf)
    best = jnp.argmax(scored, -1)
    return best, jnp.take_along_axis(jnp.where(mine, smoothed[None, :], -jnp.inf), best[:, None], -1)[:, 0]


def sweep_candidates(actions: dict, best, best_value, has, ghost: dict, n_candidates: int, top: int, level):
    """(traceable) The first noisy round's C candidates: the ``top`` groups with the best
    smoothed values, C // top candidates each, their aims on a regular grid of +-2 sigma
    (sigma as :func:`sweep_centres`) around the group's best aim, speed and spin as swept;
    the ghost agent's decision last (the safety when no pot is on). A group whose best
    value is 0 (nothing potted in its sweep) keeps its pot's ghost-ball aim, the middle
    of its grid. Returns the candidates (each field with a leading C)."""
    c = n_candidates
    top = min(top, best.shape[0])
    order = jax.lax.top_k(best_value, top)[1]
    per = max(c // top, 1)
    idx = jnp.arange(c)
    g = order[jnp.minimum(idx // per, top - 1)]
    lane = best[g]
    out = {k: v[lane] for k, v in actions.items()}
    rank = idx % per
    offset = centre_grid(level) * ((rank - (per - 1) / 2) / max((per - 1) / 2, 1))
    offset = jnp.where(idx < per * top, offset, 0.0)
    out["shot"] = out["shot"].at[:, 0].add(offset)
    as_ghost = {k: jnp.broadcast_to(jnp.asarray(ghost[k]).astype(v.dtype), v.shape) for k, v in out.items()}
    out = {k: jnp.where(has, v, as_ghost[k]) for k, v in out.items()}
    return {k: v.at[-1].set(as_ghost[k][-1]) for k, v in out.items()}
