"""Functional environments: ``init(key)``, ``step(state, action, key)``, ``observe(state)``.

Pure JAX, one table per call; ``jax.vmap`` runs any batch. One ``step`` does everything a
stroke needs in one compiled program: the bad-action guards (clipping, placement
projection), execution noise, the physics, the referee, the rewards and the observation.

A task is a :class:`FuncEnv`: the static part (``task``, ``table``) selects the compiled
program; the numeric options (``noise``, ``reward_scale``, ``max_shots``, the pot-shot
ranges, ``lag_break``) travel as traced :class:`Options`, so every setting of them runs
the same program (:func:`batched`). Tasks:

* ``pot-shot`` — a cue ball and one object ball at random (distance and cut-angle ranges
  as options); reward 1 if the object ball drops and the cue ball stays on the table after
  hitting it first, else 0; one shot per episode.
* ``lag`` — one lag stroke (RU-GEN-07/08) on an empty table: the ball is played from the
  left half of the house to the rear cushion and back; reward ``1 - d / (L - 2 off)`` where
  ``d`` is how far the ball's centre stopped from where a ball frozen to the head cushion
  sits (``off`` = that centre's distance from the cushion nose, L the playing length), or 0
  when the stroke loses by RU-GEN-08 (did not touch the rear cushion, crossed the long
  string, fell in a pocket, left the table).
* ``russian-pyramid``, ``americanka``, ``moscow-pyramid`` — a whole frame under the game's
  referee (:mod:`cuegym.rules`), one generic code path with the referee module chosen by
  the task. The reward of a decision, for each player, is the change in (own score −
  opponent's score) times ``reward_scale`` (points in Russian pyramid, default scale 0.1;
  balls won in Americanka and Moscow pyramid, default 1.0).
* ``snooker``, ``american-snooker`` (:mod:`cuegym.envs.functional_snooker`) and ``golf``
  (:mod:`cuegym.envs.functional_golf`: 2..6 players, option ``num_players``; each player's
  reward is minus the strokes charged to him, so rewards are (6,) there, (2,) elsewhere).

Phases of the Russian games (``state.game.phase``, :data:`cuegym.rules.base.PHASE_NAMES`):

* ``normal``, ``in_hand_house``, ``in_hand_rear``: a stroke. In hand, ``place`` puts the
  ball in hand (ball 0; Americanka's ball 16, index 15, at the break) and the struck ball is
  that ball. Americanka's ``cue_ball`` names the ball struck (AM-04); a ball not on the table
  is replaced by the lowest-numbered ball on it (flagged ``cue_replaced``). In Russian and
  Moscow pyramid the cue ball (0) is always the ball struck and ``cue_ball`` is not read.
* ``remove_ball`` (Moscow pyramid, MP-09): no stroke; ``choice`` names the object ball to
  take off (:func:`cuegym.rules.moscow_pyramid.choose`; an invalid one takes the
  lowest-numbered ball).
* ``lag`` (70:70 and the stalemate in Russian pyramid, RP-18/21; the start of the frame when
  ``lag_break`` is set, RU-GEN-06): player 0 then player 1 each play one lag stroke
  (RU-GEN-07), each on an otherwise empty table (AMB-05(b)): the lag ball is placed from
  ``place`` in the player's half of the house (player 0 left of the long string, player 1
  right; projected there if outside) and struck with ``shot``; nothing else is read. The
  frame's layout waits in the state. After the second stroke
  :func:`cuegym.rules.russian.judge_lag` decides: a tie or both losing repeats the lag
  (RU-GEN-09); the winner plays from hand (RU-GEN-10, read as: the winner always takes the
  stroke).
* ``frame_over``: stepping does nothing.

Action (a dict of arrays, the Gymnasium ``Dict`` space of :mod:`cuegym.envs.gym_env`): ``shot``
(5,) = phi [rad], speed [m/s], a, b [ball radii], theta [rad]; ``place`` (2,) [m] the ball in
hand or the lag ball; ``cue_ball``, ``ball``, ``pocket``, ``choice`` integers. ``ball`` and
``pocket`` are Russian pyramid's call (RP-08). ``choice`` is the ball to remove in
``remove_ball`` and, on an Americanka or Moscow stroke, the ball the striker gives back if
the stroke is a foul (AM-16, MP-13; one he does not own lets the referee take his latest,
AMB-30). Out-of-range shot values are clipped and a placement outside its region or on a
ball is projected to the nearest legal spot; both are flagged in the state (``clipped``,
``projected``) for ``info``.

Opponents (:func:`opponent_action`): a built-in policy can replace the action inside the
compiled step: ``random`` (uniform legal actions from the step's key) or ``ghost`` (the
ghost-ball heuristic of :func:`ghost_action`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.envs import ghost, ghost_safety
from cuegym.envs.registry import GAMES, family_games
from cuegym.physics import get_spec, get_table
from cuegym.physics.balls import POCKETED, at_rest
from cuegym.physics.noise import perturb
from cuegym.physics.racks import pyramid_rack, triangle
from cuegym.physics.simulate import simulate_one
from cuegym.physics.strike import SHOT_LIMITS, Shot
from cuegym.physics.tables import CUSHIONS
from cuegym.physics.vec import pick_lanes
from cuegym.rules import americanka as am
from cuegym.rules import moscow_pyramid as mp
from cuegym.rules import russian as ru
from cuegym.rules import russian_pyramid as rp
from cuegym.rules.base import (
    FRAME_OVER,
    IN_HAND_HOUSE,
    IN_HAND_REAR,
    LAG,
    NORMAL,
    REMOVE_BALL,
    Clauses,
    GameState,
    declare,
    new_state,
)
from cuegym.rules.catalogue import NUM_CLAUSES

SHOT_KEYS = ("phi", "speed", "a", "b", "theta")
SHOT_LOW = np.array([SHOT_LIMITS[k][0] for k in SHOT_KEYS], float)
SHOT_HIGH = np.array([SHOT_LIMITS[k][1] for k in SHOT_KEYS], float)
MAX_EVENTS = 600  # per stroke; a stroke that reaches it is flagged ``truncated_shot``
FOOT = CUSHIONS.index("foot")
COUNT_CAP = 1000  # observation bound of the counters (debt, fouls in a row)

TASKS = {name: g.n_balls for name, g in GAMES.items()}
"""Task name -> number of balls N (views of the registry, :mod:`cuegym.envs.registry`)."""
SNOOKER_GAMES = family_games("snooker")
"""The snooker games, played by :mod:`cuegym.envs.functional_snooker` (a table with a D)."""
GOLF = "golf"
"""Golf, played by :mod:`cuegym.envs.functional_golf` (2..6 players, ``num_players``)."""
MAX_PLAYERS = max(g.players for g in GAMES.values())  # golf's most players: its rewards' length
DEFAULT_TABLE = {name: g.table for name, g in GAMES.items()}
"""A task's table when none is given."""
REFEREES = {name: GAMES[name].referee for name in family_games("russian")}
"""The Russian games: task name -> referee module."""
HAND_BALL = {name: g.hand_ball for name, g in GAMES.items()}
"""The ball in hand of each task (Americanka: ball 16, index 15, AM-05/06, AMB-27)."""
DEFAULT_REWARD_SCALE = {name: g.reward_scale for name, g in GAMES.items()}
OPPONENT_CODES = {None: 0, "random": 1, "ghost": 2}
"""Opponent codes of :func:`opponent_action`: 0 keeps the given action."""

# Ghost heuristic constants (see ghost_action).
GHOST_MAX_CUT = ghost.MAX_CUT  # cuts thinner than this are not tried
GHOST_MAX_APPROACH = ghost.MAX_APPROACH  # object-ball path vs the pocket's axis
# tip below centre: the cue ball arrives with back spin and stops or draws rather than
# following the object ball in
GHOST_DRAW = -0.3
GHOST_LAG_B = 0.4  # natural roll: the tip 2R/5 above centre, so the lag ball rolls at once
# rolling speed after / before a square rebound off the rear cushion (fitted on
# pyramid-12ft, see docs/envs.md)
GHOST_LAG_REBOUND = 0.57
GHOST_LAG_STOP = 0.10  # m: where the ghost's lag ball should stop, past the head-cushion contact


class LagStroke(NamedTuple):
    """What :func:`cuegym.rules.russian.judge_lag` reads of the first lag stroke (the lag
    ball is index 0), kept in the state until the second stroke: ``foot_t`` () [s] its
    first rear (foot) cushion contact (+inf: none), ``max_x`` / ``min_x`` () [m] its extreme
    x, ``pocket`` () int32 (-1), ``off_table`` () bool, ``state`` () int32 its final motion
    state, ``y`` () [m] its final y."""

    foot_t: jnp.ndarray
    max_x: jnp.ndarray
    min_x: jnp.ndarray
    pocket: jnp.ndarray
    off_table: jnp.ndarray
    state: jnp.ndarray
    y: jnp.ndarray


class EnvState(NamedTuple):
    """One table. ``xy`` (N, 2) [m], ``on`` (N,) bool: the layout (during a lag, the frame's
    layout waiting); ``game`` the referee state; ``shots`` () decisions played (strokes, lag
    strokes and removals; ``max_shots`` truncates); ``rewards`` (P,) of the last decision,
    one per player (P = :attr:`FuncEnv.players`: 2, golf 6);
    ``terminated``, ``truncated`` (); ``clipped``, ``projected``, ``foul``,
    ``truncated_shot``, ``cue_replaced`` () flags of the last decision; ``acted`` () the
    player who made it; ``clauses`` (C,) bool the catalogue clauses applied to it (mask over
    :data:`cuegym.rules.catalogue.CLAUSES`); ``lag`` the first lag stroke
    (:class:`LagStroke`); ``lag_winner`` () int32 the winner of a lag decided by the last
    stroke (-1: none or repeated); ``last_xy`` (N, 2), ``last_on`` (N,) the layout the last
    stroke started from (ball in hand placed; the lag ball alone for a lag stroke) and
    ``last_shot`` (6,) the stroke played after noise: cue_ball, phi [rad], speed [m/s], a, b,
    theta [rad] (speed 0 when no stroke was played); ``potted`` (N,) bool the balls the last
    decision pocketed that count for the striker under the game's rules (the referee's
    ``Ruling.counted``; PotShot: the object ball of a clean pot; nothing for a lag stroke,
    a removal, a foul answer or a set-up)."""

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
    cue_replaced: jnp.ndarray
    clauses: jnp.ndarray
    lag: LagStroke
    lag_winner: jnp.ndarray
    last_xy: jnp.ndarray
    last_on: jnp.ndarray
    last_shot: jnp.ndarray
    potted: jnp.ndarray


class Options(NamedTuple):
    """The numeric options, traced (one program serves every value): ``noise`` () multiple
    of the tournament sigmas, ``reward_scale`` (), ``max_shots`` () int32, ``distance``
    (2,) [m] and ``cut`` (2,) [degrees] pot-shot ranges, ``lag_break`` () bool,
    ``num_players`` () int32 (golf: 2..6; read by no other task)."""

    noise: jnp.ndarray
    reward_scale: jnp.ndarray
    max_shots: jnp.ndarray
    distance: jnp.ndarray
    cut: jnp.ndarray
    lag_break: jnp.ndarray
    num_players: jnp.ndarray


@dataclasses.dataclass(frozen=True)
class FuncEnv:
    """Configuration of a task (hashable). ``reward_scale`` None takes the task's default
    (:data:`DEFAULT_REWARD_SCALE`); ``lag_break`` starts every frame of a Russian game with
    a lag for the break (RU-GEN-06) instead of a breaker drawn at random; ``num_players``
    the players of a golf game, 2..6 (GF-02; traced: one program serves every count; the
    other tasks are two-player games and take only 2)."""

    task: str = "russian-pyramid"
    table: str | None = None  # None: DEFAULT_TABLE of the task, else pyramid-12ft
    noise: float = 1.0
    max_shots: int = 200
    reward_scale: float | None = None
    distance: tuple[float, float] = (0.2, 1.0)  # pot-shot: cue ball to object ball [m]
    cut: tuple[float, float] = (0.0, 45.0)  # pot-shot: cut angle [degrees]
    lag_break: bool = False
    num_players: int = 2

    def __post_init__(self):
        if self.task not in TASKS:
            raise ValueError(f"task: unknown {self.task!r}; one of {', '.join(TASKS)}")
        if self.table is None:
            object.__setattr__(self, "table", DEFAULT_TABLE.get(self.task, "pyramid-12ft"))
        try:
            spec = get_spec(self.table)
        except (ValueError, KeyError) as e:
            raise ValueError(f"table: {e}") from None
        if self.task in SNOOKER_GAMES and spec.d_radius <= 0:
            raise ValueError(f"table: {self.task} needs a table with a D (snooker-12ft, american-snooker-10ft, "
                             f"american-snooker-12ft), got {self.table!r}")
        ru.contact_offset(spec)  # computed eagerly, outside any trace
        if not (_real(self.noise) and self.noise >= 0 and math.isfinite(self.noise)):
            raise ValueError(f"noise: a finite multiple of the tournament sigmas, >= 0, got {self.noise!r}")
        integer = isinstance(self.max_shots, (int, np.integer)) and not isinstance(self.max_shots, bool)
        if not integer or not 1 <= self.max_shots < 2**31:
            raise ValueError(f"max_shots: an integer in 1 .. 2**31 - 1, got {self.max_shots!r}")
        if self.reward_scale is not None and not (_real(self.reward_scale) and math.isfinite(self.reward_scale)):
            raise ValueError(f"reward_scale: a finite number, got {self.reward_scale!r}")
        lo, hi = self.distance
        if not 0 < lo <= hi:
            raise ValueError(f"distance: a range 0 < low <= high in metres, got {self.distance}")
        lo, hi = self.cut
        if not 0 <= lo <= hi < 80:
            raise ValueError(f"cut: a range 0 <= low <= high < 80 degrees, got {self.cut}")
        if self.lag_break and self.task not in (*REFEREES, *SNOOKER_GAMES):
            raise ValueError(f"lag_break: only for the two-player games ({', '.join((*REFEREES, *SNOOKER_GAMES))}), "
                             f"not {self.task!r}")
        integer = isinstance(self.num_players, (int, np.integer)) and not isinstance(self.num_players, bool)
        if not integer or not 2 <= self.num_players <= MAX_PLAYERS:
            raise ValueError(f"num_players: an integer in 2..{MAX_PLAYERS}, got {self.num_players!r}")
        if self.task != GOLF and self.num_players != 2:
            raise ValueError(f"num_players: {self.task} is a two-player game (2); only golf takes 2..{MAX_PLAYERS}, "
                             f"got {self.num_players!r}")

    @property
    def spec(self):
        return get_spec(self.table)

    @property
    def n_balls(self) -> int:
        return TASKS[self.task]

    @property
    def players(self) -> int:
        """P, the length of the per-player arrays (rewards, scores): golf's most players
        (6, whatever ``num_players``), 2 for the other tasks."""
        return MAX_PLAYERS if self.task == GOLF else 2

    @property
    def scale(self) -> float:
        return DEFAULT_REWARD_SCALE[self.task] if self.reward_scale is None else float(self.reward_scale)


def _real(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def options(env: FuncEnv) -> Options:
    """The traced options of ``env``."""
    f = lambda x: jnp.asarray(x, jnp.float64)  # noqa: E731
    return Options(f(env.noise), f(env.scale), jnp.asarray(env.max_shots, jnp.int32), f(env.distance), f(env.cut),
                   jnp.asarray(bool(env.lag_break)), jnp.asarray(env.num_players, jnp.int32))


# ----------------------------------------------------------------------------- init


def init(env: FuncEnv, key, opts: Options | None = None) -> EnvState:
    """A new episode: (N, 2) layout and referee state drawn from ``key``."""
    opts = options(env) if opts is None else opts
    if env.task in SNOOKER_GAMES:
        from cuegym.envs import functional_snooker as fs

        return fs.init(env, key, opts)
    if env.task == GOLF:
        from cuegym.envs import functional_golf as fg

        return fg.init(env, key, opts)
    n = env.n_balls
    k_first, k_layout = jax.random.split(key)
    if env.task == "pot-shot":
        xy = _pot_shot_layout(env, k_layout, opts)
        on = jnp.ones(n, bool)
        game = new_state(n, phase=NORMAL)
    elif env.task == "lag":
        xy = jnp.zeros((n, 2))
        on = jnp.zeros(n, bool)  # the lag ball is in hand
        game = new_state(n, phase=LAG)
    else:
        xy, on = _rack(env, k_layout)
        breaker = jax.random.bernoulli(k_first).astype(jnp.int32)
        # RU-GEN-06: with lag_break the lag decides the breaker; player 0 lags first
        first = jnp.where(opts.lag_break, 0, breaker).astype(jnp.int32)
        phase = jnp.where(opts.lag_break, LAG, IN_HAND_HOUSE).astype(jnp.int32)
        game = REFEREES[env.task].initial_state(0)._replace(to_play=first, striker=first, phase=phase)
    return new_episode(xy, on, game)


def new_episode(xy, on, game, players: int = 2) -> EnvState:
    """The EnvState of a new episode from its layout ``xy`` (N, 2) [m], ``on`` (N,) and
    referee state ``game``: no decision played yet; ``players`` (static) the rewards'
    length P."""
    z = jnp.asarray(False)
    f = lambda x: jnp.asarray(x, jnp.float64)  # noqa: E731  (strong dtypes: the same avals as step's output)
    lag = LagStroke(f(jnp.inf), f(0.0), f(0.0), jnp.asarray(-1, jnp.int32), z, jnp.asarray(0, jnp.int32), f(0.0))
    return EnvState(xy, on, game, jnp.asarray(0, jnp.int32), jnp.zeros(players), z, z, z, z, z, z,
                    jnp.asarray(0, jnp.int32), z, jnp.zeros(NUM_CLAUSES, bool), lag, jnp.asarray(-1, jnp.int32),
                    xy, on, jnp.zeros(6), jnp.zeros(on.shape, bool))


def _rack(env: FuncEnv, key):
    """The frame's opening layout: (xy (N, 2), on (N,)); the ball in hand is off the table.

    Russian pyramid racks in the RP-04 order; Americanka and Moscow pyramid leave the order
    open (AM-05, MP-04), so the 15 racked balls are shuffled with ``key`` (AMB-27).
    Americanka's racked balls are 1..15 (indices 0..14); ball 16 is in hand (AM-05/06)."""
    spec = env.spec
    n = env.n_balls
    ids = jnp.arange(n)
    hand = HAND_BALL[env.task]
    if env.task == rp.GAME:
        rack = pyramid_rack(spec)
        xy = jnp.asarray([[0.0, 0.0]] + [list(rack[str(k)]) for k in range(1, 16)])
    else:
        pts = jnp.asarray(triangle(spec.spots()["rear"], spec.ball_radius, 5))
        racked = jnp.asarray([k for k in range(n) if k != hand])
        order = jax.random.permutation(key, 15)
        xy = jnp.zeros((n, 2)).at[racked[order]].set(pts)
    return xy, ids != hand


def _pot_shot_layout(env: FuncEnv, key, opts: Options):
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
    cut = jnp.deg2rad(jax.random.uniform(k[2], (m,), minval=opts.cut[0], maxval=opts.cut[1]))
    cut = cut * jnp.where(jax.random.bernoulli(k[3], shape=(m,)), 1.0, -1.0)
    dist = jax.random.uniform(k[4], (m,), minval=opts.distance[0], maxval=opts.distance[1])
    u = target - obj
    u = u / jnp.sqrt(jnp.sum(u * u, -1, keepdims=True))
    ghost = obj - 2 * r * u
    c, s = jnp.cos(cut), jnp.sin(cut)
    aim = jnp.stack([c * u[:, 0] - s * u[:, 1], s * u[:, 0] + c * u[:, 1]], -1)
    cue = ghost - (dist[:, None] + 2 * r) * aim
    inside = (cue[:, 0] > off) & (cue[:, 0] < spec.width - off) & (cue[:, 1] > off) & (cue[:, 1] < spec.length - off)
    # only pots the pocket accepts: a Russian corner's 72.5 mm mouth takes a 68 mm ball only
    # near its axis. Measured on pyramid-12ft (object ball 0.3-1.0 m from the pocket, struck
    # straight at 2-4.5 m/s): a corner takes every path within 5° of its axis and rattles
    # out from 6°; a middle pocket (ids ML, MR are 1 and 4) takes all up to 10°. Cones of
    # 4° and 8° leave a margin
    middle = (which == 1) | (which == 4)
    cone = jnp.where(middle, jnp.cos(jnp.deg2rad(8.0)), jnp.cos(jnp.deg2rad(4.0)))
    facing = jnp.sum(u * into[which], -1) > cone
    inside = inside & facing
    first = jnp.argmax(inside)
    fallback = jnp.asarray([[spec.width / 2, spec.length / 2 - 0.3], [spec.width / 2, spec.length / 2]])
    pick = jnp.stack([cue[first], obj[first]])
    return jnp.where(jnp.any(inside), pick, fallback)


# ----------------------------------------------------------------------------- guards


def sanitize_shot(shot):
    """Clip the (5,) shot into its limits; returns (shot, clipped () bool)."""
    lo, hi = jnp.asarray(SHOT_LOW), jnp.asarray(SHOT_HIGH)
    clipped = jnp.clip(shot, lo, hi)
    return clipped, jnp.any(clipped != shot)


def project_place(spec, phase, xy, on, cue, place):
    """The legal ball-in-hand spot nearest ``place`` (RU-GEN-14/20): clamped into the house
    (or the temporary house), then, if it touches a ball, the nearest free point of a 5 mm
    grid over the region. ``cue`` (static int) is the ball in hand. Returns (place (2,),
    projected () bool)."""
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


def lag_region(spec, player):
    """The lag ball's region for ``player`` () int: (low (2,), high (2,)) [m] of its centre:
    in the house (RU-GEN-07, RU-GEN-33: strictly below the house line), on the player's side
    of the long string (player 0 left, x < W/2; player 1 right; AMB-05(a)), on the bed."""
    off = ru.contact_offset(spec)
    eps = 1e-6
    half = spec.width / 2
    lo = jnp.stack([jnp.where(player == 0, off, half + eps), jnp.asarray(off)])
    hi = jnp.stack([jnp.where(player == 0, half - eps, spec.width - off), jnp.asarray(spec.head_line - eps)])
    return lo, hi


def project_lag(spec, player, place):
    """``place`` (2,) clamped into :func:`lag_region`; returns (place, projected () bool).
    The lag table is otherwise empty, so clamping is the nearest legal spot."""
    lo, hi = lag_region(spec, player)
    p = jnp.clip(place, lo, hi)
    return p, jnp.any(p != place)


# ----------------------------------------------------------------------------- masks


def legal_masks(env: FuncEnv, state: EnvState):
    """What the action's integer fields may name now, each (N,) bool:

    * ``cue_ball``: the balls a stroke may strike. Russian and Moscow pyramid, the tasks:
      the cue ball 0 (on the table or in hand). Americanka: every ball on the table in
      phase normal (AM-04), the ball in hand (16) from hand. In a lag: the lag ball, 0.
      None when no stroke is due (remove_ball, frame_over).
    * ``ball``: the balls that may be called (Russian pyramid, RP-09: object balls on the
      table; pot-shot: the object ball). None in games without a call and outside strokes.
    * ``choice``: Moscow remove_ball: the object balls on the table (MP-09); an Americanka
      or Moscow stroke: the striker's balls, one of which he gives back if the stroke
      fouls (AM-16, MP-13); otherwise none.

    The snooker games: :func:`cuegym.envs.functional_snooker.legal_masks`.
    """
    if env.task in SNOOKER_GAMES:
        from cuegym.envs import functional_snooker as fs

        return fs.legal_masks(env, state)
    if env.task == GOLF:
        from cuegym.envs import functional_golf as fg

        return fg.legal_masks(env, state)
    n = env.n_balls
    ids = jnp.arange(n)
    g = state.game
    phase = g.phase
    on = state.on
    in_hand = (phase == IN_HAND_HOUSE) | (phase == IN_HAND_REAR)
    stroke = (phase == NORMAL) | in_hand
    lag = phase == LAG
    hand = HAND_BALL[env.task]
    if env.task == am.GAME:
        cue = jnp.where(in_hand, ids == hand, (phase == NORMAL) & on)
    else:
        cue = (ids == 0) & stroke
    cue = jnp.where(lag, ids == 0, cue)
    if env.task in (rp.GAME, "pot-shot"):
        ball = on & (ids != 0) & stroke
    else:
        ball = jnp.zeros(n, bool)
    if env.task in (am.GAME, mp.GAME):
        choice = jnp.where(stroke, g.owner == g.to_play, False)
        choice = jnp.where(phase == REMOVE_BALL, on & (ids != 0), choice)
    else:
        choice = jnp.zeros(n, bool)
    return {"cue_ball": cue, "ball": ball, "choice": choice}


# ----------------------------------------------------------------------------- step


def _lag_memo(summ, final) -> LagStroke:
    return LagStroke(summ.cushion_first_t[0, FOOT], summ.max_x[0], summ.min_x[0], summ.pocket[0], summ.off_table[0],
                     final.state[0], final.r[0, 1])


def lag_replay(memo: LagStroke, summ, final):
    """A (summary, final) pair that reads, where :func:`cuegym.rules.russian.judge_lag`
    looks, as the first lag stroke kept in ``memo``: ``summ`` / ``final`` (any stroke's) with
    the lag ball's fields replaced."""
    s = summ._replace(
        cushion_first_t=summ.cushion_first_t.at[0, FOOT].set(memo.foot_t), max_x=summ.max_x.at[0].set(memo.max_x),
        min_x=summ.min_x.at[0].set(memo.min_x), pocket=summ.pocket.at[0].set(memo.pocket),
        off_table=summ.off_table.at[0].set(memo.off_table),
    )
    f = final._replace(r=final.r.at[0, 1].set(memo.y), state=final.state.at[0].set(memo.state))
    return s, f


def lag_score(spec, y):
    """The Lag task's shaped score of a ball stopped at ``y`` [m]: 1 frozen to the head
    cushion, 0 frozen to the rear one, linear in between."""
    off = ru.contact_offset(spec)
    return jnp.clip(1.0 - (y - off) / (spec.length - 2 * off), 0.0, 1.0)


def _pick(cond, a, b):
    return jax.tree_util.tree_map(lambda x, y: jnp.where(cond, x, y), a, b)


def executed(shot: Shot) -> Shot:
    """The stroke as played: each float parameter rounded to float32 (about 1e-7 relative,
    far below the execution noise's sigmas). XLA may contract ``b + sigma * z`` into one
    fused multiply-add in the program of one batch size and not in another's; that last-bit
    difference would reach the physics and move the final positions, so a sub-env would
    drift from its single-env twin. Rounded, the physics gets the same bits at any batch
    size (a 1-ulp difference changes the float32 value only when it straddles a float32
    rounding boundary, about 1 draw in 10^9)."""
    f32 = lambda x: x.astype(jnp.float32).astype(jnp.float64)  # noqa: E731
    return shot._replace(phi=f32(shot.phi), speed=f32(shot.speed), a=f32(shot.a), b=f32(shot.b), theta=f32(shot.theta))


def strike(env: FuncEnv, key, cue, shot, stroke, xy, on, opts: Options):
    """Play ``shot`` (5,) (clipped) on ball ``cue`` () of the layout ``xy`` (N, 2) [m], ``on``
    (N,), with the execution noise of ``opts`` drawn from ``key``; nothing moves unless
    ``stroke`` () bool. Returns (final BallState, EventLog, ShotSummary, played (6,): cue,
    phi [rad], speed [m/s], a, b, theta [rad] as executed)."""
    aimed = Shot(cue, shot[0], shot[1], shot[2], shot[3], shot[4])
    noisy = perturb(key, aimed, opts.noise, env.spec.ball_radius)
    noisy = noisy._replace(speed=jnp.where(stroke, noisy.speed, 0.0))  # no stroke: nothing moves
    noisy = executed(noisy)
    final, log, summ = simulate_one(get_table(env.table), at_rest(xy, on), noisy, MAX_EVENTS, 2, True)
    played = jnp.stack([jnp.asarray(cue, jnp.float64), noisy.phi, noisy.speed, noisy.a, noisy.b, noisy.theta])
    return final, log, summ, played


def step(env: FuncEnv, state: EnvState, action, key, opts: Options | None = None) -> EnvState:
    """Play one decision (a stroke, a lag stroke or a removal). ``action``: dict of arrays
    (see the module docstring; the snooker games: :mod:`cuegym.envs.functional_snooker`)."""
    opts = options(env) if opts is None else opts
    if env.task in SNOOKER_GAMES:
        from cuegym.envs import functional_snooker as fs

        return fs.step(env, state, action, key, opts)
    if env.task == GOLF:
        from cuegym.envs import functional_golf as fg

        return fg.step(env, state, action, key, opts)
    spec = env.spec
    table = get_table(env.table)
    task = env.task
    n = env.n_balls
    ids = jnp.arange(n)
    hand = HAND_BALL[task]
    g = state.game
    phase = g.phase
    xy, on = state.xy, state.on
    in_hand = (phase == IN_HAND_HOUSE) | (phase == IN_HAND_REAR)
    lag = phase == LAG
    remove = phase == REMOVE_BALL
    over = phase == FRAME_OVER
    stroke = (phase == NORMAL) | in_hand | lag
    shot, clipped = sanitize_shot(jnp.asarray(action["shot"], jnp.float64))
    place = jnp.asarray(action["place"], jnp.float64)
    choice = jnp.asarray(action["choice"], jnp.int32)

    # The ball struck: Americanka's choice (AM-04), else the cue ball; from hand the ball
    # in hand; in a lag the lag ball (index 0 on the empty lag table).
    if task == am.GAME:
        asked = jnp.clip(jnp.asarray(action["cue_ball"], jnp.int32), 0, n - 1)
        ok = on[asked]
        named = jnp.where(ok, asked, jnp.argmax(on)).astype(jnp.int32)
        cue_replaced = (phase == NORMAL) & ~ok
    else:
        named = jnp.asarray(0, jnp.int32)
        cue_replaced = jnp.asarray(False)
    cue = jnp.where(lag, 0, jnp.where(in_hand, hand, named)).astype(jnp.int32)

    # The layout the stroke starts from.
    xy_s, on_s, projected = xy, on, jnp.asarray(False)
    if task in REFEREES:
        p_hand, proj_hand = project_place(spec, phase, xy, on, hand, place)
        xy_s = jnp.where(in_hand, xy.at[hand].set(p_hand), xy)
        on_s = jnp.where(in_hand, on.at[hand].set(True), on)
        projected = in_hand & proj_hand
    if task in REFEREES or task == "lag":
        p_lag, proj_lag = project_lag(spec, g.to_play, place)
        xy_s = jnp.where(lag, jnp.zeros((n, 2)).at[0].set(p_lag), xy_s)
        on_s = jnp.where(lag, ids == 0, on_s)
        projected = projected | (lag & proj_lag)

    final, log, summ, played = strike(env, key, cue, shot, stroke, xy_s, on_s, opts)
    acted = g.to_play
    foul = jnp.asarray(False)
    lag_winner = jnp.asarray(-1, jnp.int32)
    memo = state.lag
    final_on = final.state < POCKETED

    if task == "pot-shot":
        potted = (summ.pocket[1] >= 0) & (summ.first_contact == 1) & (final.state[0] < POCKETED)
        rewards = jnp.zeros(2).at[0].set(jnp.where(potted, 1.0, 0.0))
        new_game = g._replace(strokes=g.strokes + 1)
        new_xy, new_on = final.r[:, :2], final_on
        clauses = jnp.zeros(NUM_CLAUSES, bool)
        counted = (ids == 1) & potted
    elif task == "lag":
        # RU-GEN-08 losing conditions judged by the referee; RU-GEN-07: nearer the head
        # cushion is better, shaped by lag_score.
        _, lost = ru.judge_lag(spec, summ, final, summ, final)
        reward = jnp.where(lost[0], 0.0, lag_score(spec, final.r[0, 1]))
        rewards = jnp.stack([reward, 0.0])
        new_game = g._replace(phase=jnp.asarray(FRAME_OVER, jnp.int32))
        new_xy, new_on = final.r[:, :2], final_on
        clauses = Clauses().add("RU-GEN-07").add("RU-GEN-08", lost[0]).mask
        counted = jnp.zeros(n, bool)  # a lag stroke pockets nothing that counts
    else:
        ref = REFEREES[task]
        decl = declare(struck=cue, call_ball=jnp.asarray(action["ball"], jnp.int32),
                       call_pocket=jnp.asarray(action["pocket"], jnp.int32), choice=choice)
        ruling, after = ref.judge(spec, g, decl, summ, xy_s, on_s, final)
        # a lag called by the referee (70:70, stalemate): player 0 plays the first lag stroke
        zero = jnp.asarray(0, jnp.int32)
        after = _pick(after.phase == LAG, after._replace(to_play=zero, striker=zero), after)
        new_game, new_xy, new_on, clauses, foul = after, ruling.xy, ruling.on, ruling.clauses, ruling.foul

        if task == mp.GAME:  # remove_ball: the named object ball is taken off (MP-09)
            r_rm, g_rm = mp.choose(spec, g, xy, on, choice)
            new_game = _pick(remove, g_rm, new_game)
            new_xy = jnp.where(remove, r_rm.xy, new_xy)
            new_on = jnp.where(remove, r_rm.on, new_on)
            clauses = jnp.where(remove, r_rm.clauses, clauses)

        # The lag (RU-GEN-07..10): the first stroke is kept; the second is judged with it.
        first = lag & (g.to_play == 0)
        summ_a, final_a = lag_replay(memo, summ, final)
        winner, lost = ru.judge_lag(spec, summ_a, final_a, summ, final)
        decided = winner >= 0
        one = jnp.asarray(1, jnp.int32)
        resolved = ru.after_lag(spec, g, xy, on, jnp.maximum(winner, 0), True, hand)
        g_lag = _pick(first, g._replace(to_play=one, striker=one),
                      _pick(decided, resolved, g._replace(to_play=zero, striker=zero)))
        c = Clauses()
        c.add("RU-GEN-06", ~first & decided & (g.strokes == 0)).add("RU-GEN-07", ~first)
        c.add("RU-GEN-08", ~first & (lost[0] | lost[1])).add("RU-GEN-09", ~first & ~decided)
        c.add("RU-GEN-10", ~first & decided)
        new_game = _pick(lag, g_lag, new_game)
        new_xy = jnp.where(lag, xy, new_xy)
        new_on = jnp.where(lag, on, new_on)
        clauses = jnp.where(lag, c.mask, clauses)
        foul = foul & ~lag & ~remove
        counted = ruling.counted & ~lag & ~remove  # a removal takes a ball off, it pockets none
        lag_winner = jnp.where(lag & ~first, winner, -1).astype(jnp.int32)
        memo = _pick(first, _lag_memo(summ, final), memo)
        diff = (new_game.scores - g.scores).astype(jnp.float64) * opts.reward_scale
        rewards = jnp.stack([diff[0] - diff[1], diff[1] - diff[0]])

    shots = state.shots + 1
    terminated = (new_game.phase == FRAME_OVER) if task != "pot-shot" else jnp.asarray(True)
    truncated = ~terminated & (shots >= opts.max_shots)
    nxt = EnvState(new_xy, new_on, new_game, shots, rewards, terminated, truncated, clipped, projected, foul,
                   log.truncated, acted, cue_replaced & stroke & ~lag, clauses, memo, lag_winner, xy_s, on_s, played,
                   counted)
    # stepping a finished frame changes nothing (and pockets nothing)
    frozen = state._replace(rewards=jnp.zeros(2), terminated=jnp.asarray(True), truncated=jnp.asarray(False),
                            potted=jnp.zeros(n, bool))
    return _pick(over, frozen, nxt)


# ----------------------------------------------------------------------------- observe


def table_observation(state: EnvState, masks: dict, scores) -> dict:
    """The keys every game's observation shares: ``balls`` (N, 3) float32 (x, y [m],
    on-table flag; balls off the table read 0, 0, 0), ``phase`` and ``to_play`` () int32,
    ``scores`` (P,) float32 (from ``scores``), and the masks ``legal_ball``,
    ``legal_cue_ball``, ``legal_choice`` (N,) int8 (``masks``: :func:`legal_masks`)."""
    on = state.on
    g = state.game
    balls = jnp.concatenate([jnp.where(on[:, None], state.xy, 0.0), on[:, None].astype(jnp.float64)], -1)
    return {
        "balls": balls.astype(jnp.float32),
        "phase": g.phase.astype(jnp.int32),
        "to_play": g.to_play.astype(jnp.int32),
        "scores": jnp.asarray(scores).astype(jnp.float32),
        "legal_ball": masks["ball"].astype(jnp.int8),
        "legal_cue_ball": masks["cue_ball"].astype(jnp.int8),
        "legal_choice": masks["choice"].astype(jnp.int8),
    }


def observe(env: FuncEnv, state: EnvState) -> dict:
    """The observation dict (N balls):

    * ``balls`` (N, 3) float32: x, y [m], on-table flag (balls off the table read 0, 0, 0);
    * ``phase`` () int32 (:data:`cuegym.rules.base.PHASE_NAMES`), ``to_play`` () int32;
    * ``scores`` (2,) float32: points (Russian pyramid) or balls won, net (AM, MP);
    * ``legal_ball``, ``legal_cue_ball``, ``legal_choice`` (N,) int8: :func:`legal_masks`;
    * ``owner`` (N,) int8: the player each pocketed ball is credited to (-1 none; AM, MP);
    * ``debt`` (2,) int32: penalty balls owed (AM-17, MP-14), capped at 1000;
    * ``foul_run`` () int32: fouls in a row (Russian pyramid: with nothing moved, the
      stalemate count of RP-20), capped at 1000;
    * ``sudden_death`` () int32: 1 after 70:70 in Russian pyramid (RP-19).

    The snooker games have their own: :func:`cuegym.envs.functional_snooker.observe`.
    """
    if env.task in SNOOKER_GAMES:
        from cuegym.envs import functional_snooker as fs

        return fs.observe(env, state)
    if env.task == GOLF:
        from cuegym.envs import functional_golf as fg

        return fg.observe(env, state)
    g = state.game
    return {
        **table_observation(state, legal_masks(env, state), g.scores),
        "owner": g.owner.astype(jnp.int8),
        "debt": jnp.clip(g.debt, 0, COUNT_CAP).astype(jnp.int32),
        "foul_run": jnp.clip(g.foul_run, 0, COUNT_CAP).astype(jnp.int32),
        "sudden_death": g.sudden_death.astype(jnp.int32),
    }


# ----------------------------------------------------------------------------- opponents


def _categorical(key, mask):
    """A uniform draw among the True entries of ``mask`` (N,) (among all if none)."""
    m = jnp.where(jnp.any(mask), mask, True)
    return jax.random.categorical(key, jnp.where(m, 0.0, -jnp.inf)).astype(jnp.int32)


def in_hand_region(spec, phase):
    """(low (2,), high (2,)) [m] of the ball-in-hand region of ``phase``: the house, or the
    temporary house at the rear end (RU-GEN-14/20)."""
    off = ru.contact_offset(spec)
    eps = 1e-6
    rear = phase == IN_HAND_REAR
    lo = jnp.stack([jnp.asarray(off), jnp.where(rear, spec.length - spec.head_line + eps, off)])
    hi = jnp.stack([jnp.asarray(spec.width - off), jnp.where(rear, spec.length - off, spec.head_line - eps)])
    return lo, hi


def random_action(env: FuncEnv, state: EnvState, key) -> dict:
    """A uniformly random legal action drawn from ``key``: the shot uniform over its limits,
    the placement uniform over the region of the phase (house, temporary house, own half of
    the house in a lag; the step still moves it off a ball), the integer fields uniform over
    their legal masks (:func:`legal_masks`; all values when a mask is empty)."""
    if env.task in SNOOKER_GAMES:
        from cuegym.envs import functional_snooker as fs

        return fs.random_action(env, state, key)
    if env.task == GOLF:
        from cuegym.envs import functional_golf as fg

        return fg.random_action(env, state, key)
    spec = env.spec
    n = env.n_balls
    k = jax.random.split(key, 6)
    masks = legal_masks(env, state)
    phase = state.game.phase
    lo_h, hi_h = in_hand_region(spec, phase)
    lo_l, hi_l = lag_region(spec, state.game.to_play)
    lo = jnp.where(phase == LAG, lo_l, lo_h)
    hi = jnp.where(phase == LAG, hi_l, hi_h)
    return {
        "shot": jax.random.uniform(k[0], (5,), jnp.float64, jnp.asarray(SHOT_LOW), jnp.asarray(SHOT_HIGH)),
        "place": jax.random.uniform(k[1], (2,), jnp.float64, lo, hi),
        "cue_ball": _categorical(k[2], masks["cue_ball"]),
        "ball": _categorical(k[3], masks["ball"] | ~jnp.any(masks["ball"]) & (jnp.arange(n) != 0)),
        "pocket": jax.random.randint(k[4], (), 0, 6).astype(jnp.int32),
        "choice": _categorical(k[5], masks["choice"]),
    }


def ghost_spot(spec, phase):
    """Where the ghost puts a ball in hand: on the long string halfway between the head
    cushion and the house line (the temporary house: its mirror at the rear end); the step
    projects it off any ball."""
    y = jnp.where(phase == IN_HAND_REAR, spec.length - spec.head_line / 2, spec.head_line / 2)
    return jnp.stack([jnp.asarray(spec.width / 2), y])


def ghost_lag_speed(spec) -> float:
    """The ghost's lag cue speed [m/s] for a ball rolling from the middle of the house to the
    rear cushion and back to ``GHOST_LAG_STOP`` past the head-cushion contact: rolling
    resistance mu_r g over both legs, the return leg's speed divided by the fitted rebound
    ratio ``GHOST_LAG_REBOUND``, and the strike's ball/cue speed ratio for a natural-roll hit
    (J = 2 V / (1/m + 1/M + b^2 R^2 / I), the impulse model of cuegym.physics.strike)."""
    off = float(ru.contact_offset(spec))
    decel = spec.mu_roll * float(get_table(spec.name).gravity)  # the simulation's own g
    out_leg = spec.length - off - spec.head_line / 2
    back_leg = spec.length - 2 * off - GHOST_LAG_STOP
    v_ball = math.sqrt(2 * decel * out_leg + 2 * decel * back_leg / GHOST_LAG_REBOUND**2)
    m, big_m = spec.ball_mass, spec.cue_mass
    ratio = 2.0 / (1.0 + m / big_m + GHOST_LAG_B**2 / 0.4)
    return v_ball / ratio


def ghost_action(env: FuncEnv, state: EnvState) -> dict:
    """The built-in ghost-ball heuristic (deterministic; the step adds execution noise).

    * Stroke: for every ball it may strike (:func:`legal_masks`), object ball on the table
      (from hand, only balls outside the house: RU-GEN-19/44) and pocket, the ghost ball is
      the object ball's centre moved 2R back from the pocket; the cue ball is aimed at it.
      Combinations are kept if the cut is under ``GHOST_MAX_CUT``, the object ball's path
      is within ``GHOST_MAX_APPROACH`` of the pocket's axis and both straight paths (cue
      ball to ghost, object ball to pocket) pass no other ball by less than 2R; the best
      by cos(cut) × cos(approach)² / (0.5 m + both path lengths) is played at speed
      1.2 + 0.5 × (cue path + object path / cos(cut)) m/s, clipped to [1.5, 4.0], struck
      below centre (``GHOST_DRAW``) so the cue ball does not follow the object ball in.
      Russian pyramid calls that ball and pocket. With nothing kept: a full
      hit at 2.5 m/s on the nearest object ball. A ball in hand goes to :func:`ghost_spot`.
    * Americanka, where a stroke that pots nothing must be a legal safety (AM-10..13,
      RU-GEN-47): each pot is played at least at :func:`cuegym.envs.ghost_safety.miss_speed` (a
      miss still carries the object ball to two cushions, AM-12), up to 6 m/s; with nothing
      kept, :func:`cuegym.envs.ghost_safety.safety` with ``two_cushions`` (struck at centre).
    * Remove_ball (Moscow): the object ball nearest a pocket.
    * Lag: from the middle of its half of the house, straight up the table at
      :func:`ghost_lag_speed` with natural roll.

    The snooker games: :func:`cuegym.envs.functional_snooker.ghost_action`.
    """
    if env.task in SNOOKER_GAMES:
        from cuegym.envs import functional_snooker as fs

        return fs.ghost_action(env, state)
    if env.task == GOLF:
        from cuegym.envs import functional_golf as fg

        return fg.ghost_action(env, state)
    spec = env.spec
    n = env.n_balls
    ids = jnp.arange(n)
    r = spec.ball_radius
    g = state.game
    phase = g.phase
    hand = HAND_BALL[env.task]
    in_hand = (phase == IN_HAND_HOUSE) | (phase == IN_HAND_REAR)
    masks = legal_masks(env, state)
    spot = ghost_spot(spec, phase)
    if env.task in REFEREES:
        spot, _ = project_place(spec, phase, state.xy, state.on, hand, spot)
    xy = jnp.where(in_hand, state.xy.at[hand].set(spot), state.xy)
    on = jnp.where(in_hand, state.on.at[hand].set(True), state.on)
    strikers = masks["cue_ball"]
    targets = on & ~jnp.where(in_hand, ru.in_region(spec, phase, xy), False)
    pot = ghost.pots(env.table, r, xy, on, strikers, targets)  # (S, J, P) every pot, ranked by score
    flat = pot.score.reshape(-1)
    best = jnp.argmax(flat)
    s, j, p = best // (n * 6), (best // 6) % n, best % 6
    found = jnp.isfinite(flat[best])
    speed = pot.speed[s, j, p]
    phi = pot.phi[s, j, p]
    if env.task == am.GAME:
        # a stroke that pots nothing must be a legal safety (AM-10..13, RU-GEN-47): a pot is
        # played fast enough that its miss still carries the object ball to two cushions
        # (AM-12), and with nothing kept the safety aims at AM-12 too, avoiding balls closer
        # than R/2 (RU-GEN-35/43), struck at centre as its closed-form speed assumes
        speed = ghost_safety.americanka_pot_speed(spec, xy, pot)[s, j, p]
        s0, j0, phi0, speed0 = ghost_safety.safety(spec, xy, on, strikers, targets, two_cushions=True)
        draw = jnp.where(found, GHOST_DRAW, 0.0)
    else:  # (the other games' program is left exactly as it was)
        # nothing kept: a full hit on the object ball nearest the first ball that may be struck
        s0 = jnp.argmax(strikers)
        dd = jnp.where(targets & (ids != s0), jnp.sum((xy - xy[s0]) ** 2, -1), jnp.inf)
        j0 = jnp.argmin(dd)
        phi0 = jnp.arctan2(xy[j0, 1] - xy[s0, 1], xy[j0, 0] - xy[s0, 0])
        speed0, draw = 2.5, GHOST_DRAW
    s = jnp.where(found, s, s0)
    j = jnp.where(found, j, j0)
    phi = jnp.where(found, phi, phi0)
    speed = jnp.where(found, speed, speed0)
    shot = jnp.stack([jnp.mod(phi, 2 * jnp.pi), speed, 0.0, draw, 0.0])
    # remove_ball: the object ball nearest a pocket
    near = jnp.where(on & (ids != 0), jnp.min(pot.d2[0], -1), jnp.inf)  # d2 (J, P): any striker's row
    choice = jnp.where(phase == REMOVE_BALL, jnp.argmin(near), j)
    # the lag
    lag = phase == LAG
    lo, hi = lag_region(spec, g.to_play)
    lag_place = jnp.stack([(lo[0] + hi[0]) / 2, jnp.asarray(spec.head_line / 2)])
    lag_shot = jnp.asarray([jnp.pi / 2, ghost_lag_speed(spec), 0.0, GHOST_LAG_B, 0.0])
    return {
        "shot": jnp.where(lag, lag_shot, shot),
        "place": jnp.where(lag, lag_place, spot),
        "cue_ball": s.astype(jnp.int32),
        "ball": j.astype(jnp.int32),
        "pocket": p.astype(jnp.int32),
        "choice": choice.astype(jnp.int32),
    }


def opponent_action(env: FuncEnv, state: EnvState, action, key, code):
    """``action`` (code 0), a random action from ``key`` (1) or the ghost's (2)."""
    rnd = random_action(env, state, key)
    gst = ghost_action(env, state)
    out = {}
    for name in ("shot", "place", "cue_ball", "ball", "pocket", "choice"):
        mine = jnp.asarray(action[name]).astype(rnd[name].dtype)
        out[name] = jnp.where(code == 1, rnd[name], jnp.where(code == 2, gst[name], mine))
    return out


# ----------------------------------------------------------------------------- batch


class Program(NamedTuple):
    """The jitted batch functions of one (task, table); see :func:`batched`."""

    reset: object
    step: object


def batched(env: FuncEnv) -> Program:
    """Jitted functions over a leading batch axis B, one program per (task, table):

    * ``reset(keys (B, 2) uint32, opts) -> (state, obs, keys)``: new episodes; the keys
      returned are the lanes' next keys.
    * ``step(state, action, keys, done (B,) bool, active (B,) bool, opponent (B,) int32,
      opts) -> (state, obs, keys)``: lanes with ``done`` reset instead of stepping
      (Gymnasium's next-step autoreset); lanes neither done nor ``active`` keep their state
      and key bit for bit; ``opponent`` (:data:`OPPONENT_CODES`) replaces a lane's action by
      a built-in policy's. Each lane's key advances only when it is stepped or reset, so a
      lane's stream does not depend on the others.
    """
    return _program(env.task, env.table)


@functools.lru_cache(maxsize=None)
def _program(task: str, table: str) -> Program:
    env = FuncEnv(task=task, table=table)

    def split(keys):
        pair = jax.vmap(jax.random.split)(keys)
        return pair[:, 0], pair[:, 1]

    def init_key(sub):
        # the episode key of a reset: the same draw as a lane's autoreset in step_fn, so a
        # single env's reset() after an episode and the vector env's next-step autoreset
        # deal the same frame (sub-env i stays the twin of the single env seeded s + i)
        return jax.vmap(lambda k: jax.random.split(k, 3))(sub)[:, 1]

    @jax.jit
    def reset_fn(keys, opts):
        nxt, sub = split(keys)
        s = jax.vmap(lambda k: init(env, k, opts))(init_key(sub))
        return s, jax.vmap(functools.partial(observe, env))(s), nxt

    @jax.jit
    def step_fn(state, action, keys, done, active, opponent, opts):
        nxt, sub = split(keys)
        k3 = jax.vmap(lambda k: jax.random.split(k, 3))(sub)
        k_step, k_reset, k_opp = k3[:, 0], init_key(sub), k3[:, 2]
        act = jax.vmap(lambda s, a, k, c: opponent_action(env, s, a, k, c))(state, action, k_opp, opponent)
        stepped = jax.vmap(lambda s, a, k: step(env, s, a, k, opts))(state, act, k_step)
        fresh = jax.vmap(lambda k: init(env, k, opts))(k_reset)
        s = pick_lanes(done, fresh, pick_lanes(active, stepped, state))
        keys = jnp.where((done | active)[:, None], nxt, keys)
        return s, jax.vmap(functools.partial(observe, env))(s), keys

    return Program(reset_fn, step_fn)
