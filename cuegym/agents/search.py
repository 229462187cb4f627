"""The search agent: candidate strokes around the ghost-ball aims, each played several times
under execution noise in one batched call of the env's own step program, scored by the
referee's points plus the value of the position left.

Why: a pot works only over a narrow, throw-shifted window of aim, which the ghost-ball aim
alone misses; playing candidates through the env's own compiled step (guards, noise,
physics, referee) scores them exactly as the env would play them. :func:`propose` makes a
round's candidates, :func:`smooth` averages each candidate's mean with its neighbours within
about the noise (damping picks made on lucky draws), :func:`refine` sweeps the best ones'
aim on a fine grid; with ``Budget.sweep`` the first round comes from a noise-free aim sweep
(:mod:`cuegym.agents.aim`). ``last_info["success"]`` estimates the chosen stroke's success
probability.

The round, the value of a lane, the knobs per task, compiled programs and measured figures:
docs/agents.md, "SearchAgent" and "Measured".
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.agents import aim as AIM
from cuegym.agents import geometry as G
from cuegym.agents.base import Agent, observation_arrays, state_from_observation
from cuegym.agents.baselines import (
    LAG_TASK,
    ball_in_hand,
    family,
    ghost_decision,
    ghost_plans,
    hand_spot,
    pot_table,
    refereed,
    target_balls,
)
from cuegym.envs import functional as F
from cuegym.envs.registry import GAMES
from cuegym.physics.noise import SIGMA_PHI, SIGMA_SPEED, SIGMA_TIP
from cuegym.rules.base import FRAME_OVER, LAG, NORMAL

FIELDS = ("shot", "place", "cue_ball", "ball", "pocket", "choice")


@dataclasses.dataclass(frozen=True)
class Budget:
    """The search's knobs. ``candidates`` C and ``samples`` S (noisy copies of each) per
    round; ``rounds`` (the first around the ghost-ball pots, the next ones around the best
    candidates so far); ``plans`` K ghost-ball pots tried; ``random_share`` of C drawn at
    random; ``elites`` candidates a refining round varies; ``time_budget`` [s]: no new round
    starts when the time the decision has taken plus the last round's would pass it, so a
    decision ends within about the budget unless its first round alone takes longer (None:
    always ``rounds``; a budget that binds makes the decision depend on the machine's
    speed); ``sweep`` [degrees]: before the rounds, one noise-free call sweeps the aim over +-``sweep`` around the ghost-ball
    aims in a few styles and the first round samples around the centres of the aim windows
    found (:mod:`cuegym.agents.aim`); 0: no sweep, the first round is :func:`propose`'s."""

    candidates: int = 64
    samples: int = 16
    rounds: int = 2
    plans: int = 8
    random_share: float = 0.125
    elites: int = 4
    time_budget: float | None = 2.0
    sweep: float = 0.0

    def __post_init__(self):
        for name, lo in (("candidates", 2), ("samples", 1), ("rounds", 1), ("plans", 1), ("elites", 1)):
            v = getattr(self, name)
            if not (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= lo):
                raise ValueError(f"{name}: an integer >= {lo}, got {v!r}")
        if not 0.0 <= self.random_share < 1.0:
            raise ValueError(f"random_share: in [0, 1), got {self.random_share!r}")
        if self.elites > self.candidates:
            raise ValueError(f"elites: at most candidates ({self.candidates}), got {self.elites}")
        if self.time_budget is not None and not self.time_budget > 0:
            raise ValueError(f"time_budget: None or > 0 seconds, got {self.time_budget!r}")
        if not (isinstance(self.sweep, (int, float)) and 0.0 <= self.sweep <= 20.0):
            raise ValueError(f"sweep: an aim half-width in [0, 20] degrees (0: no sweep), got {self.sweep!r}")
        lanes = AIM.SWEPT_POTS * len(AIM.STYLES) * 2
        if self.sweep and self.candidates * self.samples < lanes:
            raise ValueError(f"candidates x samples: at least {lanes} lanes for the aim sweep, got "
                             f"{self.candidates * self.samples} (or sweep=0)")


DRILL_BUDGETS = {
    # one noise-free aim sweep, then three noisy rounds around the windows' centres
    "pot-shot": Budget(candidates=64, samples=16, rounds=3, sweep=3.0),
    LAG_TASK: Budget(candidates=64, samples=8),
}
"""Drill task -> its budget: each drill is a task of its own."""
FAMILY_BUDGETS = {
    # a full rack costs about 100x a two-ball table per lane (the batch waits for its
    # longest stroke): fewer lanes
    "russian": Budget(candidates=32, samples=4),
    "snooker": Budget(candidates=32, samples=4),
    # golf: two balls on the table, but its strokes run longer than PotShot's on the big
    # table: 256 lanes keep a decision near a second
    "golf": Budget(candidates=32, samples=8, rounds=2),
}
"""Game family (:data:`cuegym.envs.registry.FAMILIES`) -> the budget of its games."""
DEFAULT_BUDGETS = {name: DRILL_BUDGETS[name] if g.family == "drill" else FAMILY_BUDGETS[g.family]
                   for name, g in GAMES.items() if g.family != "drill" or name in DRILL_BUDGETS}
"""Task -> the search's default budget (a view of the registry's games)."""

# Variation of the candidates around a ghost-ball pot (first round) and around an elite
# (refining rounds): aim [rad], log-speed, tip offsets [ball radii].
WIDE = {"phi": math.radians(3.0), "speed": (-0.7, 0.3), "a": 0.15, "b": (-0.6, 0.4)}
ESTIMATE_WIDTH = 0.3  # the success estimate's smoothing, a multiple of the noise's sigmas (smooth)
NARROW = {"phi": math.radians(0.6), "speed": 0.05, "a": 0.05, "b": 0.1}
RANDOM_SPEED = (0.5, 4.5)  # m/s: random strokes no harder than this (the batch waits for its longest stroke)


def _clip_shot(shot):
    return jnp.clip(shot, jnp.asarray(F.SHOT_LOW), jnp.asarray(F.SHOT_HIGH))


def _vary(key, shot, wide: bool, rank=None, per=None):
    """``shot`` (C, 5) with its aim, speed and spin varied. Wide (first round): the aim
    offsets of the ``per`` candidates on one pot (``rank`` 0 .. per - 1 among them) are
    stratified over +-``WIDE["phi"]`` (throw shifts a pot's window by up to a few degrees,
    and the window is often under a degree wide), log-speed and spin uniform. Narrow
    (refining): the aim kept, Gaussian steps of :data:`NARROW` speed and spin."""
    k = jax.random.split(key, 5)
    c = shot.shape[0]
    if wide:
        w = WIDE
        u = (rank + jax.random.uniform(k[0], (c,))) / per
        phi = shot[:, 0] + w["phi"] * (2 * u - 1)
        speed = shot[:, 1] * jnp.exp(jax.random.uniform(k[1], (c,), minval=w["speed"][0], maxval=w["speed"][1]))
        a = shot[:, 2] + w["a"] * jax.random.normal(k[2], (c,))
        b = jax.random.uniform(k[3], (c,), minval=w["b"][0], maxval=w["b"][1])
    else:
        w = NARROW
        phi = shot[:, 0]
        speed = shot[:, 1] * jnp.exp(w["speed"] * jax.random.normal(k[1], (c,)))
        a = shot[:, 2] + w["a"] * jax.random.normal(k[2], (c,))
        b = shot[:, 3] + w["b"] * jax.random.normal(k[3], (c,))
    return _clip_shot(jnp.stack([jnp.mod(phi, 2 * jnp.pi), speed, a, b, shot[:, 4]], -1))


def propose(env: F.FuncEnv, state: F.EnvState, key, budget: Budget) -> dict:
    """(traceable) The first round's C candidate actions (each field with a leading C):
    the ``plans`` best ghost-ball pots exactly, then varied (:data:`WIDE`) round-robin over
    them, ``random_share`` random legal strokes (speed at most ``RANDOM_SPEED``, level cue)
    and, last, the ghost's decision (the safety when no pot is on)."""
    c_all = budget.candidates
    n_rand = int(budget.random_share * c_all)
    c = c_all - n_rand
    plans = ghost_plans(env, state, budget.plans)
    ghost, _ = ghost_decision(env, state, plans)
    k_vary, k_rand = jax.random.split(key)
    valid = jnp.isfinite(plans.score)
    count = jnp.sum(valid)
    idx = jnp.arange(c)
    which = idx % jnp.maximum(count, 1)
    has = count > 0
    shot0 = jnp.stack([plans.phi[which], plans.speed[which], jnp.zeros(c), jnp.full(c, G.DRAW), jnp.zeros(c)], -1)
    shot0 = jnp.where(has, shot0, ghost["shot"][None])
    exact = has & (idx < count)
    n_pots = jnp.maximum(count, 1)
    rank = jnp.maximum(idx // n_pots - 1, 0)  # after its exact copy, the pot's k-th varied candidate
    per = jnp.maximum((c + n_pots - 1) // n_pots - 1, 1)
    shot = jnp.where(exact[:, None], shot0, _vary(k_vary, shot0, True, rank, per))
    place = jnp.where(has, plans.spot[which], ghost["place"][None])
    if refereed(env):
        place = jax.vmap(lambda q: hand_spot(env, state, q))(place)
    pick = lambda plan, gh: jnp.where(has, plan[which], gh).astype(jnp.int32)  # noqa: E731
    out = {
        "shot": shot,
        "place": place,
        "cue_ball": pick(plans.s, ghost["cue_ball"]),
        "ball": pick(plans.j, ghost["ball"]),
        "pocket": pick(plans.p, ghost["pocket"]),
        "choice": jnp.broadcast_to(ghost["choice"], (c,)),
    }
    if n_rand:
        rnd = jax.vmap(lambda k: F.random_action(env, state, k))(jax.random.split(k_rand, n_rand))
        kk = jax.random.split(jax.random.fold_in(k_rand, 1), 2)
        speed = jax.random.uniform(kk[0], (n_rand,), minval=RANDOM_SPEED[0], maxval=RANDOM_SPEED[1])
        tip = jax.random.uniform(kk[1], (n_rand, 2), minval=-0.5, maxval=0.5)
        rnd["shot"] = jnp.concatenate([rnd["shot"][:, :1], speed[:, None], tip, jnp.zeros((n_rand, 1))], -1)
        rnd["choice"] = jnp.broadcast_to(ghost["choice"], (n_rand,))
        out = {k: jnp.concatenate([out[k], rnd[k].astype(out[k].dtype)], 0) for k in FIELDS}
    # the ghost's own decision last: the safety when no pot is on
    return {k: out[k].at[-1].set(jnp.asarray(ghost[k]).astype(out[k].dtype)) for k in FIELDS}


def refine(elites: dict, key, budget: Budget, width=NARROW["phi"]) -> dict:
    """(traceable) A refining round's C candidates: C / M on each of the M ``elites``, the
    elite with its aim moved over a regular grid of +-``width`` [rad] (with the smoothing
    of :func:`smooth` this maps where in the pot's window the elite sits), the rest (C mod
    M) on the best elite with small Gaussian steps of speed and spin."""
    m = elites["shot"].shape[0]
    c = budget.candidates
    per = c // m
    idx = jnp.arange(c)
    e = jnp.minimum(idx // per, m - 1)
    out = {k: v[e] for k, v in elites.items()}
    rank = idx % per
    offset = width * ((rank - (per - 1) / 2) / max((per - 1) / 2, 1))
    shot = out["shot"].at[:, 0].add(jnp.where(idx < per * m, offset, 0.0))
    varied = _vary(key, shot, False)
    out["shot"] = _clip_shot(jnp.where((idx < per * m)[:, None], shot, varied))
    return out


def lag_propose(env: F.FuncEnv, key, budget: Budget) -> dict:
    """(traceable) C lag strokes for player 0 (left half of the house): the built-in
    ghost's lag first, then places across the half and the house, the aim within a
    degree of straight up the table, speed within 15 % of the ghost's, top spin."""
    spec = env.spec
    c = budget.candidates
    lo, hi = F.lag_region(spec, 0)
    k = jax.random.split(key, 5)
    place = jax.random.uniform(k[0], (c, 2), minval=lo, maxval=hi)
    v0 = F.ghost_lag_speed(spec)
    phi = jnp.pi / 2 + math.radians(1.0) * jax.random.normal(k[1], (c,))
    speed = v0 * jax.random.uniform(k[2], (c,), minval=0.85, maxval=1.15)
    b = jax.random.uniform(k[3], (c,), minval=0.0, maxval=0.6)
    shot = jnp.stack([phi, speed, jnp.zeros(c), b, jnp.zeros(c)], -1)
    place = place.at[0].set(jnp.stack([(lo[0] + hi[0]) / 2, jnp.asarray(spec.head_line / 2)]))
    shot = shot.at[0].set(jnp.asarray([jnp.pi / 2, v0, 0.0, F.GHOST_LAG_B, 0.0]))
    z = jnp.zeros(c, jnp.int32)
    return {"shot": _clip_shot(shot), "place": place, "cue_ball": z, "ball": z, "pocket": z, "choice": z}


def mirror_lag(env: F.FuncEnv, action: dict) -> dict:
    """Player 0's lag stroke as player 1's: mirrored in the long string (x -> W - x, the
    aim phi -> pi - phi, side spin a -> -a)."""
    w = env.spec.width
    shot = np.asarray(action["shot"], np.float64).copy()
    shot[0] = np.mod(np.pi - shot[0], 2 * np.pi)
    shot[2] = -shot[2]
    place = np.asarray(action["place"], np.float64).copy()
    place[0] = w - place[0]
    return {**action, "shot": shot, "place": place}


GOLF_POT_VALUE = 2.0
"""Golf: the strokes a legal pot into the round's pocket is worth to the search, the ones
the series would still cost without it (at least one more stroke, and about one more for
missing again)."""


def lane_value(env: F.FuncEnv, actor, nxt: F.EnvState, weight):
    """(traceable) One noisy copy's (value, scored): the actor's points from the referee
    (the reward over ``reward_scale``) plus ``weight`` x the best ghost-ball pot score of the
    layout left (:func:`cuegym.agents.geometry.best_pot_score`, a ball in hand at the
    built-in ghost's spot), for the actor when he plays on, against him when the opponent
    does, 0 when no stroke follows.

    Golf: the reward is minus the strokes charged (1, a foul 4: GF-06/07); ``scored`` is a
    legal pot into the round's pocket, which ends the series (GF-19: the turn passes, or the
    game ends) and is worth :data:`GOLF_POT_VALUE`; without it the actor plays on and the
    position adds ``weight`` x the best pot of his own ball into that pocket
    (:func:`cuegym.agents.baselines.pot_table`; 0 before an opening stroke, GF-09)."""
    points = nxt.rewards[actor] / env.scale
    if not refereed(env):
        return points, points > 0
    if family(env) == "golf":
        g = nxt.game
        potted = (g.to_play != actor) | nxt.terminated
        in_hand = ball_in_hand(g.phase)
        stroke = ((g.phase == NORMAL) | in_hand) & ~potted & ~g.opening
        xy = jnp.where(in_hand, nxt.xy.at[0].set(hand_spot(env, nxt)), nxt.xy)
        on = jnp.where(in_hand, nxt.on.at[0].set(True), nxt.on)
        pts = pot_table(env, nxt, xy, on, F.legal_masks(env, nxt)["cue_ball"], target_balls(env, nxt, xy) & on)
        ease = jnp.maximum(jnp.max(pts.score), 0.0)
        return points + GOLF_POT_VALUE * potted + weight * jnp.where(stroke, ease, 0.0), potted
    g = nxt.game
    hand = GAMES[env.task].hand_ball
    in_hand = ball_in_hand(g.phase)
    stroke = ((g.phase == NORMAL) | in_hand) & ~nxt.terminated
    spot = hand_spot(env, nxt)
    xy = jnp.where(in_hand, nxt.xy.at[hand].set(spot), nxt.xy)
    on = jnp.where(in_hand, nxt.on.at[hand].set(True), nxt.on)
    strikers = F.legal_masks(env, nxt)["cue_ball"]
    pos = G.best_pot_score(env.table, env.spec.ball_radius, xy, on, strikers, target_balls(env, nxt, xy) & on)
    sign = jnp.where(g.to_play == actor, 1.0, -1.0)
    return points + weight * jnp.where(stroke, sign * pos, 0.0), points > 0


def smooth(env: F.FuncEnv, cands: dict, value, success, level):
    """(traceable) Each candidate's mean value and success (C,) averaged with the
    candidates that differ from it by about the execution noise (same ball, call, pocket
    and place; Gaussian weights over the shot's differences in units of the noise's sigmas):
    S noisy copies of one candidate are few, and the neighbours' copies are, to first
    order, more draws of the same distribution.

    The value, which picks the stroke, takes the sigmas at ``level``, at least half the
    tournament's: this damps picking a candidate for its lucky draws, and centres the aim
    in its window even at noise 0. The success, reported as the chosen stroke's estimated
    probability, takes :data:`ESTIMATE_WIDTH` x the sigmas at ``level``: each copy is
    already a draw under that noise, so averaging over neighbours a full sigma away blurs
    the success curve a second time and lowers its peak. Measured on PotShot-v0 (30
    layouts a setting, each chosen stroke replayed 1,024 times at the same noise): with
    the value's width the estimate was below the replayed rate by 0.19 on pyramid-12ft at
    noise 0.25 and by 0.04 at noise 1 on both tables; at 0.3 x, within 0.016 on pool-9ft
    at noise 0.5 and 1 and on pyramid-12ft at noise 0.25 and 1
    (``experiments/search_calibration.py``)."""
    shot = cands["shot"]
    tip = SIGMA_TIP / env.spec.ball_radius
    dphi = jnp.mod(shot[:, None, 0] - shot[None, :, 0] + jnp.pi, 2 * jnp.pi) - jnp.pi
    z2 = ((dphi / SIGMA_PHI) ** 2 + ((shot[:, None, 1] - shot[None, :, 1]) / SIGMA_SPEED) ** 2
          + ((shot[:, None, 2] - shot[None, :, 2]) / tip) ** 2
          + ((shot[:, None, 3] - shot[None, :, 3]) / tip) ** 2)  # in tournament sigmas, squared
    same = jnp.all(jnp.abs(cands["place"][:, None] - cands["place"][None]) < 1e-4, -1)
    for k in ("cue_ball", "ball", "pocket"):
        same = same & (cands[k][:, None] == cands[k][None])

    def mean(x, width):  # width: the sigmas' multiple; > 0 (a candidate's own copies weigh 1)
        w = jnp.where(same, jnp.exp(-0.5 * z2 / width ** 2), 0.0)
        return (w @ x) / jnp.sum(w, -1)

    return mean(value, jnp.maximum(level, 0.5)), mean(success, ESTIMATE_WIDTH * jnp.maximum(level, 1e-3))


@functools.lru_cache(maxsize=None)
def _programs(env: F.FuncEnv, budget: Budget):
    """The jitted pieces of one (task, table, C, S): proposals, lane preparation, scoring;
    the step itself is the env's one-device program (:func:`cuegym.envs.functional.program`)."""
    c, s = budget.candidates, budget.samples
    b = c * s

    @jax.jit
    def first(obs, key):
        state = state_from_observation(env, obs)
        ghost, found = ghost_decision(env, state)
        strokes = jnp.any(F.legal_masks(env, state)["cue_ball"])
        return state, propose(env, state, key, budget), ghost, found, strokes

    @jax.jit
    def again(elites, key, width=NARROW["phi"]):
        return refine(elites, key, budget, width)

    @jax.jit
    def lag_first(key):
        return lag_propose(env, key, budget)

    @jax.jit
    def lanes(state, cands, key):
        tile = lambda x: jnp.broadcast_to(x, (b,) + x.shape)  # noqa: E731
        states = jax.tree_util.tree_map(tile, state)
        actions = {k: jnp.repeat(v, s, axis=0) for k, v in cands.items()}  # candidate-major
        keys = jax.random.split(key, b)
        return states, actions, keys, jnp.zeros(b, bool), jnp.ones(b, bool), jnp.zeros(b, jnp.int32)

    @functools.partial(jax.jit, static_argnames="elites")
    def score(state, cands, nxt, weight, level, elites):
        actor = state.game.to_play
        value, scored = jax.vmap(lambda st: lane_value(env, actor, st, weight))(nxt)
        value, success = smooth(env, cands, value.reshape(c, s).mean(-1), scored.reshape(c, s).mean(-1), level)
        success = jnp.clip(success, 0.0, 1.0)  # a weighted mean of shares, up to rounding
        top = jax.lax.top_k(value, elites)[1]
        return value, success, top

    return first, again, lag_first, lanes, score


@functools.lru_cache(maxsize=None)
def _sweep_programs(env: F.FuncEnv, budget: Budget):
    """The jitted pieces of the aim sweep (:mod:`cuegym.agents.aim`) of one (task, table,
    C, S): ``prepare(state, key)`` the C x S noise-free lanes (the step's arguments), their
    groups, whether a pot is on and the ghost's action; ``pick(state, actions, group, has,
    ghost, nxt, weight, level)`` the first noisy round's C candidates from the lanes played."""
    c, s = budget.candidates, budget.samples
    b = c * s
    width = math.radians(budget.sweep)
    n_groups = AIM.SWEPT_POTS * len(AIM.STYLES)

    @jax.jit
    def prepare(state, key):
        plans = ghost_plans(env, state, max(budget.plans, AIM.SWEPT_POTS))
        ghost, _ = ghost_decision(env, state, plans)
        if refereed(env):
            plans = plans._replace(spot=jax.vmap(lambda q: hand_spot(env, state, q))(plans.spot))
        actions, group, has = AIM.sweep_actions(plans, ghost, b, width)
        states = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (b,) + x.shape), state)
        args = (states, actions, jax.random.split(key, b), jnp.zeros(b, bool), jnp.ones(b, bool),
                jnp.zeros(b, jnp.int32))
        return args, group, has, ghost

    @jax.jit
    def pick(state, actions, group, has, ghost, nxt, weight, level):
        actor = state.game.to_play
        value, _ = jax.vmap(lambda st: lane_value(env, actor, st, weight))(nxt)
        best, best_value = AIM.sweep_centres(actions, group, value, level, n_groups)
        return AIM.sweep_candidates(actions, best, best_value, has, ghost, c, budget.elites, level)

    return prepare, pick


class SearchAgent(Agent):
    """Simulation search (module docstring). ``env``, ``options``: as :class:`Agent`.
    Knobs: ``candidates``, ``samples``, ``rounds``, ``plans``, ``random_share``,
    ``elites``, ``time_budget`` (:class:`Budget`; None takes the task's default of
    :data:`DEFAULT_BUDGETS`), ``noise`` the execution-noise level the candidates are scored
    under (a multiple of the tournament sigmas; None: the env's ``noise``),
    ``position_weight`` (points per unit of ghost-ball pot score; default 0.5, 0 on the
    one-stroke tasks). ``last_info``: ``success`` (the chosen candidate's estimated
    probability of scoring, in [0, 1]; None for a removal or a finished frame), ``value``
    (its estimated mean value), ``found`` (a ghost-ball pot was on), ``rounds`` (rounds run), ``lanes`` (C x S),
    ``time_s``."""

    def __init__(self, env, *, candidates=None, samples=None, rounds=None, plans=None, random_share=None,
                 elites=None, time_budget="default", noise=None, position_weight=0.5, sweep=None, **options):
        super().__init__(env, **options)
        base = DEFAULT_BUDGETS[self.env.task]
        given = {"candidates": candidates, "samples": samples, "rounds": rounds, "plans": plans,
                 "random_share": random_share, "elites": elites, "sweep": sweep}
        given = {k: v for k, v in given.items() if v is not None}
        if time_budget != "default":
            given["time_budget"] = time_budget
        self.budget = dataclasses.replace(base, **given)
        level = self.env.noise if noise is None else noise
        if not (isinstance(level, (int, float)) and math.isfinite(level) and level >= 0):
            raise ValueError(f"noise: a finite multiple of the tournament sigmas, >= 0, got {noise!r}")
        self.noise = float(level)
        if not (isinstance(position_weight, (int, float)) and math.isfinite(position_weight)):
            raise ValueError(f"position_weight: a finite number, got {position_weight!r}")
        self.position_weight = float(position_weight) if refereed(self.env) else 0.0
        self.lag_env = F.FuncEnv(task=LAG_TASK, table=self.env.table) if refereed(self.env) else self.env

    def _opts(self, env):
        return F.options(env)._replace(noise=jnp.asarray(self.noise, jnp.float64))

    def _sweep(self, state, key):
        """The aim sweep's first-round candidates (:mod:`cuegym.agents.aim`) and the aim
        half-width [rad] of the refining rounds' grids around the elites."""
        prepare, pick = _sweep_programs(self.env, self.budget)
        args, group, has, ghost = prepare(state, key)
        nxt, _, _ = F.program(self.env.task, self.env.table, self.env.snooker_rules).step(*args, self._opts(self.env)._replace(noise=jnp.asarray(0.0, jnp.float64)))
        level = jnp.asarray(self.noise, jnp.float64)
        cands = pick(state, args[1], group, has, ghost, nxt, jnp.asarray(self.position_weight, jnp.float64), level)
        return cands, float(AIM.centre_grid(self.noise))

    def _run(self, env, state, cands, key, t0, again, width=NARROW["phi"]):
        """Evaluate ``cands`` and refine (aim grids of +-``width`` [rad] around the
        elites); returns (best action, value, success, rounds)."""
        budget = self.budget
        _, _, _, lanes, score = _programs(env, budget)
        step = F.program(env.task, env.table, env.snooker_rules).step
        opts = self._opts(env)
        weight = jnp.asarray(self.position_weight, jnp.float64)
        level = jnp.asarray(self.noise, jnp.float64)
        rounds, last = 0, 0.0
        for r in range(budget.rounds):
            now = time.perf_counter()
            # the next round costs about what the last one did: start it only if it ends in time
            if r and budget.time_budget is not None and now - t0 + last > budget.time_budget:
                break
            k_eval, k_next = jax.random.split(jax.random.fold_in(key, r))
            args = lanes(state, cands, k_eval)
            nxt, _, _ = step(*args, opts)
            value, success, top = score(state, cands, nxt, weight, level, budget.elites)
            rounds += 1
            best = int(top[0])  # waits for the round's results
            result = ({k: v[best] for k, v in cands.items()}, float(value[best]), float(success[best]))
            last = time.perf_counter() - now
            if r + 1 < budget.rounds:
                cands = again({k: v[top] for k, v in cands.items()}, k_next, width)
        return (*result, rounds)

    def _decide(self, obs, key):
        t0 = time.perf_counter()
        phase = int(obs["phase"])
        info = {"lanes": self.budget.candidates * self.budget.samples}
        if phase == LAG:
            env = self.lag_env
            first, again, lag_first, _, _ = _programs(env, self.budget)
            state = F.init(env, jax.random.PRNGKey(0))  # the lag table, player 0's half
            k_prop, k_run = jax.random.split(key)
            cands = lag_first(k_prop)
            action, value, success, rounds = self._run(env, state, cands, k_run, t0, again)
            if int(obs["to_play"]) == 1:
                action = mirror_lag(self.env, action)
            return action, {**info, "success": success, "value": value, "found": False, "rounds": rounds}
        first, again, _, _, _ = _programs(self.env, self.budget)
        k_prop, k_run = jax.random.split(key)
        state, cands, ghost, found, strokes = first(obs, k_prop)
        found = bool(found)
        if phase == FRAME_OVER or not bool(strokes):
            # no stroke to play (remove_ball, a finished frame): the ghost's decision
            return ghost, {**info, "success": None, "value": None, "found": found, "rounds": 0}
        width = NARROW["phi"]
        if self.budget.sweep:
            cands, width = self._sweep(state, k_prop)
        action, value, success, rounds = self._run(self.env, state, cands, k_run, t0, again, width)
        return action, {**info, "success": success, "value": value, "found": found, "rounds": rounds}

    def search_candidates(self, observation, key, state: F.EnvState | None = None) -> dict:
        """Every candidate stroke the search scores, with its statistics: for tools that
        show more than the chosen action (``cuegym suggest``, :mod:`cuegym.tools.coach`).

        The rounds of :meth:`act` for a stroke, run with the same programs and the same
        draws from ``key``, but always all ``rounds`` (the time budget is not applied, so
        the result does not depend on the machine's speed). ``observation``: the env's
        dict; ``state``: optionally the exact :class:`~cuegym.envs.functional.EnvState` to play
        from (default: rebuilt from the observation, :func:`state_from_observation`).

        Returns a dict: ``state`` (the EnvState played from), ``actions`` (each action field
        with a leading M = rounds x C, the rounds' candidates in order), ``value`` (M,) the
        smoothed mean value, ``success`` (M,) the smoothed share of noisy copies that scored
        (:func:`smooth`), ``round`` (M,) int (with ``Budget.sweep``, the noise-free sweep
        that seeds round 0 is not listed). Raises ValueError when no stroke is due (a
        lag, Moscow pyramid's remove_ball, a finished frame)."""
        obs = observation_arrays(self.env, observation)
        budget = self.budget
        first, again, _, lanes, score = _programs(self.env, budget)
        k_prop, k_run = jax.random.split(key)
        rebuilt, cands, _, _, strokes = first(obs, k_prop)
        if int(obs["phase"]) in (LAG, FRAME_OVER) or not bool(strokes):
            raise ValueError(f"observation.phase: no stroke to search in phase {int(obs['phase'])} "
                             "(a lag, a removal or a finished frame)")
        state = rebuilt if state is None else state
        width = NARROW["phi"]
        if budget.sweep:
            cands, width = self._sweep(state, k_prop)
        step = F.program(self.env.task, self.env.table, self.env.snooker_rules).step
        opts = self._opts(self.env)
        weight = jnp.asarray(self.position_weight, jnp.float64)
        level = jnp.asarray(self.noise, jnp.float64)
        found = []
        for r in range(budget.rounds):  # as _run, without the time budget
            k_eval, k_next = jax.random.split(jax.random.fold_in(k_run, r))
            nxt, _, _ = step(*lanes(state, cands, k_eval), opts)
            value, success, top = score(state, cands, nxt, weight, level, budget.elites)
            found.append((cands, value, success))
            if r + 1 < budget.rounds:
                cands = again({k: v[top] for k, v in cands.items()}, k_next, width)
        return {
            "state": state,
            "actions": {k: np.concatenate([np.asarray(c[k]) for c, _, _ in found]) for k in FIELDS},
            "value": np.concatenate([np.asarray(v) for _, v, _ in found]),
            "success": np.concatenate([np.asarray(s) for _, _, s in found]),
            "round": np.repeat(np.arange(len(found)), budget.candidates),
        }

    def evaluate(self, state: F.EnvState, actions: dict, key, noise: float | None = None) -> dict:
        """Score given strokes as the search scores its candidates: ``actions`` (each action
        field with a leading C = ``budget.candidates``, dtypes as :meth:`search_candidates`
        returns them) are each played S times from ``state`` with the search's programs,
        under ``noise`` (default the agent's). Returns ``value`` (C,) and ``success`` (C,)
        (smoothed, :func:`smooth`: identical entries share their copies) and ``next``, the
        C x S lanes' next states (candidate-major, NumPy)."""
        budget = self.budget
        _, _, _, lanes, score = _programs(self.env, budget)
        level = jnp.asarray(self.noise if noise is None else noise, jnp.float64)
        opts = self._opts(self.env)._replace(noise=level)
        actions = {k: jnp.asarray(actions[k]) for k in FIELDS}
        nxt, _, _ = F.program(self.env.task, self.env.table, self.env.snooker_rules).step(*lanes(state, actions, key), opts)
        weight = jnp.asarray(self.position_weight, jnp.float64)
        value, success, _ = score(state, actions, nxt, weight, level, budget.elites)
        return {"value": np.asarray(value), "success": np.asarray(success),
                "next": jax.tree_util.tree_map(np.asarray, nxt)}
