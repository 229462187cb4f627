"""Functional environments: ``init(key)``, ``step(state, action, key)``, ``observe(state)``.

Pure JAX, one table per call; ``jax.vmap`` runs any batch. One ``step`` does everything a
stroke needs in one compiled program: the bad-action guards (clipping, placement
projection), execution noise, the physics, the referee and the rewards.

A task is a :class:`FuncEnv` with static configuration (the game, the table, the noise
level, ...). Two so far:

* ``pot-shot`` — a cue ball and one object ball at random (distance and cut-angle ranges
  as options); reward 1 if the object ball drops and the cue ball stays on the table after
  hitting it first, else 0; one shot per episode.
* ``russian-pyramid`` — the whole frame under :mod:`cuegym.rules.russian_pyramid`, from the
  break (cue ball in hand in the house, full rack in the RP-04 order). The reward of a
  stroke, for each player, is the change in (own score − opponent's score) times
  ``reward_scale``.

Action (a dict of arrays, the Gymnasium ``Dict`` space of :mod:`cuegym.spaces`): ``shot`` (5,)
= phi [rad], speed [m/s], a, b [ball radii], theta [rad]; ``place`` (2,) [m] the ball in
hand; ``cue_ball``, ``ball``, ``pocket``, ``choice`` integers. Out-of-range shot values are
clipped and a placement outside the house or on a ball is projected to the nearest legal
spot; both are flagged in the state (``clipped``, ``projected``) for ``info``.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .physics import get_spec, get_table
from .physics.balls import POCKETED, at_rest
from .physics.noise import perturb
from .physics.racks import pyramid_rack
from .physics.simulate import _simulate_one
from .physics.strike import SHOT_LIMITS, Shot
from .rules import russian_pyramid as rp
from .rules import russian as ru
from .rules.base import IN_HAND_HOUSE, IN_HAND_REAR, LAG, NORMAL, GameState, declare, new_state

SHOT_KEYS = ("phi", "speed", "a", "b", "theta")
SHOT_LOW = np.array([SHOT_LIMITS[k][0] for k in SHOT_KEYS], float)
SHOT_HIGH = np.array([SHOT_LIMITS[k][1] for k in SHOT_KEYS], float)
MAX_EVENTS = 600  # per stroke; a stroke that reaches it is flagged ``truncated_shot``


class EnvState(NamedTuple):
    """One table. ``xy`` (N, 2) [m], ``on`` (N,) bool; ``game`` the referee state;
    ``shots`` () strokes played; ``rewards`` (2,) of the last stroke; ``terminated``,
    ``truncated`` (); ``clipped``, ``projected``, ``foul``, ``truncated_shot`` () flags of
    the last stroke; ``acted`` () the player who played it."""

    xy: jnp.ndarray
    on: jnp.ndarray
    game: GameState
    shots: jnp.ndarray
    rewards: jnp.ndarray
    terminated: jnp.ndarray
    truncated: jnp.ndarray
    clipped: jnp.ndarray
    projected: jnp.ndarray
    foul: jnp.ndarray
    truncated_shot: jnp.ndarray
    acted: jnp.ndarray


@dataclasses.dataclass(frozen=True)
class FuncEnv:
    """Static configuration of a task (hashable: it is a static jit argument)."""

    task: str = "russian-pyramid"
    table: str = "pyramid-12ft"
    noise: float = 1.0
    max_shots: int = 200
    reward_scale: float = 0.1
    distance: tuple[float, float] = (0.2, 1.0)  # pot-shot: cue ball to object ball [m]
    cut: tuple[float, float] = (0.0, 45.0)  # pot-shot: cut angle [degrees]

    def __post_init__(self):
        if self.task not in TASKS:
            raise ValueError(f"task: unknown {self.task!r}; one of {', '.join(TASKS)}")
        if not self.noise >= 0:
            raise ValueError(f"noise: a multiple of the tournament sigmas, >= 0, got {self.noise}")
        if self.max_shots < 1:
            raise ValueError(f"max_shots: at least 1, got {self.max_shots}")
        lo, hi = self.distance
        if not 0 < lo <= hi:
            raise ValueError(f"distance: a range 0 < low <= high in metres, got {self.distance}")
        lo, hi = self.cut
        if not 0 <= lo <= hi < 80:
            raise ValueError(f"cut: a range 0 <= low <= high < 80 degrees, got {self.cut}")

    @property
    def spec(self):
        return get_spec(self.table)

    @property
    def n_balls(self) -> int:
        return TASKS[self.task]


TASKS = {"pot-shot": 2, "russian-pyramid": 16}


# ----------------------------------------------------------------------------- init


def init(env: FuncEnv, key) -> EnvState:
    """A new episode: (N, 2) layout and referee state drawn from ``key``."""
    n = env.n_balls
    if env.task == "pot-shot":
        xy = _pot_shot_layout(env, key)
        on = jnp.ones(n, bool)
        game = new_state(n, phase=NORMAL)
    else:
        rack = pyramid_rack(env.spec)
        xy = jnp.asarray([[0.0, 0.0]] + [list(rack[str(k)]) for k in range(1, 16)])
        on = jnp.arange(n) != 0  # the cue ball is in hand for the break (RP-07)
        breaker = jax.random.bernoulli(key).astype(jnp.int32)
        game = rp.initial_state(0)._replace(to_play=breaker, striker=breaker)
    z = jnp.asarray(False)
    return EnvState(xy, on, game, jnp.asarray(0, jnp.int32), jnp.zeros(2), z, z, z, z, z, z, jnp.asarray(0, jnp.int32))


def _pot_shot_layout(env: FuncEnv, key):
    """Cue ball and object ball for a pot: the object ball, a pocket, a cut angle and a
    distance are drawn; the cue ball sits behind the ghost ball. Of 64 draws the first
    that fits the bed and sends the object ball close to the pocket's axis is used (a
    fixed number keeps shapes static; if none fits, a fixed layout on the long string)."""
    spec = env.spec
    r = spec.ball_radius
    off = ru.contact_offset(spec)
    table = get_table(env.table)
    pockets = jnp.asarray(table.pocket_xy)
    into = jnp.asarray(table.drop_n)  # (6, 2) unit normals of the drop lines, into the pockets
    k = jax.random.split(key, 5)
    m = 64
    obj = jax.random.uniform(k[0], (m, 2), minval=jnp.array([off + 0.05, off + 0.05]),
                             maxval=jnp.array([spec.width - off - 0.05, spec.length - off - 0.05]))
    which = jax.random.randint(k[1], (m,), 0, pockets.shape[0])
    target = pockets[which]
    cut = jnp.deg2rad(jax.random.uniform(k[2], (m,), minval=env.cut[0], maxval=env.cut[1]))
    cut = cut * jnp.where(jax.random.bernoulli(k[3], shape=(m,)), 1.0, -1.0)
    dist = jax.random.uniform(k[4], (m,), minval=env.distance[0], maxval=env.distance[1])
    u = target - obj
    u = u / jnp.sqrt(jnp.sum(u * u, -1, keepdims=True))
    ghost = obj - 2 * r * u
    c, s = jnp.cos(cut), jnp.sin(cut)
    aim = jnp.stack([c * u[:, 0] - s * u[:, 1], s * u[:, 0] + c * u[:, 1]], -1)
    cue = ghost - (dist[:, None] + 2 * r) * aim
    inside = (cue[:, 0] > off) & (cue[:, 0] < spec.width - off) & (cue[:, 1] > off) & (cue[:, 1] < spec.length - off)
    # only pots the pocket accepts: a Russian corner's 72.5 mm mouth takes a 68 mm ball only
    # near its axis, so the object ball's path must be within 10° of a corner's axis and
    # 8° of a middle pocket's, whose rounded jaws reject more (ids ML, MR are 1 and 4)
    middle = (which == 1) | (which == 4)
    cone = jnp.where(middle, jnp.cos(jnp.deg2rad(8.0)), jnp.cos(jnp.deg2rad(10.0)))
    facing = jnp.sum(u * into[which], -1) > cone
    inside = inside & facing
    first = jnp.argmax(inside)
    fallback = jnp.asarray([[spec.width / 2, spec.length / 2 - 0.3], [spec.width / 2, spec.length / 2]])
    pick = jnp.stack([cue[first], obj[first]])
    return jnp.where(jnp.any(inside), pick, fallback)


# ----------------------------------------------------------------------------- step


def sanitize_shot(shot):
    """Clip the (5,) shot into its limits; returns (shot, clipped () bool)."""
    lo, hi = jnp.asarray(SHOT_LOW), jnp.asarray(SHOT_HIGH)
    clipped = jnp.clip(shot, lo, hi)
    return clipped, jnp.any(clipped != shot)


def project_place(spec, phase, xy, on, cue, place):
    """The legal ball-in-hand spot nearest ``place`` (RU-GEN-14/20): clamped into the house
    (or the temporary house), then, if it touches a ball, the nearest free point of a 5 mm
    grid over the region. Returns (place (2,), projected () bool)."""
    off = ru.contact_offset(spec)
    eps = 1e-6
    lo_y = jnp.where(phase == IN_HAND_REAR, spec.length - spec.head_line + eps, off)
    hi_y = jnp.where(phase == IN_HAND_REAR, spec.length - off, spec.head_line - eps)
    p = jnp.stack([jnp.clip(place[0], off, spec.width - off), jnp.clip(place[1], lo_y, hi_y)])
    ok = ru.placement_ok(spec, phase, xy, on, cue, p)
    gx = jnp.linspace(off, spec.width - off, 64)
    gy = jnp.linspace(0.0, 1.0, 32)
    grid = jnp.stack(jnp.meshgrid(gx, lo_y + gy * (hi_y - lo_y), indexing="ij"), -1).reshape(-1, 2)
    free = jax.vmap(lambda q: ru.placement_ok(spec, phase, xy, on, cue, q))(grid)
    d = jnp.sum((grid - place) ** 2, -1)
    best = grid[jnp.argmin(jnp.where(free, d, jnp.inf))]
    out = jnp.where(ok, p, best)
    return out, jnp.any(out != place)


def step(env: FuncEnv, state: EnvState, action, key) -> EnvState:
    """Play one stroke. ``action``: dict of arrays (see the module docstring)."""
    spec = env.spec
    table = get_table(env.table)
    k_noise, k_lag = jax.random.split(key)
    shot, clipped = sanitize_shot(jnp.asarray(action["shot"], jnp.float64))
    game = state.game
    in_hand = (game.phase == IN_HAND_HOUSE) | (game.phase == IN_HAND_REAR)
    place, projected = project_place(spec, game.phase, state.xy, state.on, 0, jnp.asarray(action["place"], jnp.float64))
    xy = jnp.where(in_hand, state.xy.at[0].set(place), state.xy)
    on = jnp.where(in_hand, state.on.at[0].set(True), state.on)
    projected = projected & in_hand
    balls = at_rest(xy, on)
    aimed = Shot(jnp.asarray(0, jnp.int32), shot[0], shot[1], shot[2], shot[3], shot[4])
    noisy = perturb(k_noise, aimed, env.noise, spec.ball_radius)
    final, log, summ = _simulate_one(table, balls, noisy, MAX_EVENTS, 2, True)
    acted = game.to_play
    if env.task == "pot-shot":
        potted = (summ.pocket[1] >= 0) & (summ.first_contact == 1) & (final.state[0] < POCKETED)
        rewards = jnp.zeros(2).at[0].set(jnp.where(potted, 1.0, 0.0))
        new_game = game._replace(strokes=game.strokes + 1)
        terminated = jnp.asarray(True)
        new_xy, new_on = final.r[:, :2], final.state < POCKETED
        foul = jnp.asarray(False)
    else:
        decl = declare(struck=0, call_ball=jnp.asarray(action["ball"], jnp.int32), call_pocket=jnp.asarray(action["pocket"], jnp.int32))
        ruling, new_game = rp.judge(spec, game, decl, summ, xy, on, final)
        diff = (ruling.scores - game.scores).astype(jnp.float64) * env.reward_scale
        rewards = jnp.stack([diff[0] - diff[1], diff[1] - diff[0]])
        # A lag (70:70, stalemate) is drawn at random here, 50/50 (RU-GEN-07 with the two
        # lag strokes left to a later version); the winner plays from hand (RU-GEN-10).
        lag_winner = jax.random.bernoulli(k_lag).astype(jnp.int32)
        lagged = ru.after_lag(spec, new_game, ruling.xy, ruling.on, lag_winner)
        new_game = jax.tree_util.tree_map(lambda a, b: jnp.where(new_game.phase == LAG, a, b), lagged, new_game)
        terminated = ruling.frame_over
        new_xy, new_on = ruling.xy, ruling.on
        foul = ruling.foul
    shots = state.shots + 1
    truncated = ~terminated & (shots >= env.max_shots)
    return EnvState(new_xy, new_on, new_game, shots, rewards, terminated, truncated, clipped, projected, foul,
                    log.truncated, acted)


def observe(env: FuncEnv, state: EnvState) -> dict:
    """The observation dict: ``balls`` (N, 3) float32 (x, y [m], on-table flag; balls off
    the table read 0, 0, 0), ``phase`` and ``to_play`` int, ``scores`` (2,) float32,
    ``legal_ball`` (N,) int8 (object balls on the table: the balls that may be called)."""
    on = state.on
    balls = jnp.concatenate([jnp.where(on[:, None], state.xy, 0.0), on[:, None].astype(jnp.float64)], -1)
    legal = on & (jnp.arange(on.shape[0]) != 0)
    return {
        "balls": balls.astype(jnp.float32),
        "phase": state.game.phase.astype(jnp.int32),
        "to_play": state.game.to_play.astype(jnp.int32),
        "scores": state.game.scores.astype(jnp.float32),
        "legal_ball": legal.astype(jnp.int8),
    }


@functools.lru_cache(maxsize=None)
def batched(env: FuncEnv):
    """(reset_fn, step_fn) over a leading batch axis, jitted. ``step_fn(state, action, key,
    done)`` resets the tables whose previous step ended (``done``) instead of stepping them
    (Gymnasium's next-step autoreset) and returns (state, obs)."""
    v_init = jax.vmap(functools.partial(init, env))
    v_step = jax.vmap(functools.partial(step, env))
    v_obs = jax.vmap(functools.partial(observe, env))

    @jax.jit
    def reset_fn(keys):
        s = v_init(keys)
        return s, v_obs(s)

    @jax.jit
    def step_fn(state, action, keys, done):
        k_step, k_reset = jax.vmap(jax.random.split, out_axes=1)(keys)
        stepped = v_step(state, action, k_step)
        fresh = v_init(k_reset)
        pick = lambda a, b: jnp.where(done.reshape(done.shape + (1,) * (a.ndim - 1)), a, b)  # noqa: E731
        s = jax.tree_util.tree_map(pick, fresh, stepped)
        return s, v_obs(s)

    return reset_fn, step_fn
