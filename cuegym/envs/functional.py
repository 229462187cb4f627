"""The game-agnostic functional core: ``init``, ``step``, ``observe`` of any game, pure JAX.

One table per call; ``jax.vmap`` runs any batch and :func:`batched` compiles one program
per (task, table, snooker rule options) with the numeric :class:`Options` traced. The core
holds what every game shares: the state (:class:`EnvState`), the configuration
(:class:`FuncEnv`), the stroke guards, the execution noise and physics call
(:func:`strike`), the lag machinery, the built-in opponents' switch and the batching. The
games themselves are modules of :mod:`cuegym.envs.games`, one per task, found through the
registry (:attr:`cuegym.envs.registry.GameDef.module`, imported lazily); the public entry
points here dispatch to them. Tasks, phases, the action and the game protocol: docs/envs.md.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import importlib
import inspect
import math
from collections.abc import Mapping
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.envs import ghost
from cuegym.envs.devices import over_tables, resolve
from cuegym.envs.registry import DEFAULT_TASK, GAMES, family_games, game
from cuegym.physics import get_spec, get_table
from cuegym.physics.balls import at_rest
from cuegym.physics.compact import where_active
from cuegym.physics.cushion import MODELS as CUSHION_MODELS
from cuegym.physics.noise import perturb
from cuegym.physics.simulate import simulate_one
from cuegym.physics.strike import SHOT_LIMITS, Shot
from cuegym.physics.tables import CUSHIONS, with_cushion
from cuegym.physics.vec import pick_lanes
from cuegym.rules import russian as ru
from cuegym.rules.base import IN_HAND_REAR, GameState
from cuegym.rules.catalogue import NUM_CLAUSES
from cuegym.rules.snooker_options import ALLOWED as SNOOKER_ALLOWED
from cuegym.rules.snooker_options import DEFAULT as SNOOKER_DEFAULT
from cuegym.rules.snooker_options import WPBSA, SnookerOptions, check, snooker_options

SHOT_KEYS = ("phi", "speed", "a", "b", "theta")
SHOT_LOW = np.array([SHOT_LIMITS[k][0] for k in SHOT_KEYS], float)
SHOT_HIGH = np.array([SHOT_LIMITS[k][1] for k in SHOT_KEYS], float)
MAX_EVENTS = 600  # per stroke; a stroke that reaches it is flagged ``truncated_shot``
FOOT = CUSHIONS.index("foot")
COUNT_CAP = 1000  # observation bound of the counters (debt, fouls in a row)
OPPONENT_CODES = {None: 0, "random": 1, "ghost": 2}
"""Opponent codes of :func:`opponent_action`: 0 keeps the given action."""

# Views of the registry (cuegym.envs.registry) kept for the host fronts and the agents.
SNOOKER_GAMES = family_games("snooker")
"""The snooker games (a table with a D)."""
GOLF = "golf"
"""Golf (2..6 players, ``num_players``)."""
REFEREES = {name: GAMES[name].referee for name in family_games("russian")}
"""The Russian games: task name -> referee module."""
HAND_BALL = {name: g.hand_ball for name, g in GAMES.items()}
"""The ball in hand of each task (Americanka: ball 16, index 15, AM-05/06, AMB-27)."""

# Ghost heuristic constants (the games' ghost_action).
GHOST_MAX_CUT = ghost.MAX_CUT  # cuts thinner than this are not tried
GHOST_MAX_APPROACH = ghost.MAX_APPROACH  # object-ball path vs the pocket's axis
# tip below centre: the cue ball arrives with back spin and stops or draws rather than
# following the object ball in
GHOST_DRAW = -0.3
GHOST_LAG_B = 0.4  # natural roll: the tip 2R/5 above centre, so the lag ball rolls at once
# rolling speed after / before a square rebound off the rear cushion (measured on
# pyramid-12ft with its cushion model, the same 0.474 from 0.7 to 1.6 m/s; docs/envs.md)
GHOST_LAG_REBOUND = 0.474
GHOST_LAG_STOP = 0.10  # m: where the ghost's lag ball should stop, past the head-cushion contact
_MOST_PLAYERS = max(g.players for g in GAMES.values())  # golf's
SNOOKER_PRESETS = {"original": SNOOKER_DEFAULT, "wpbsa": WPBSA}
"""The names :attr:`FuncEnv.snooker_rules` takes for whole sets of snooker rule options."""


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
    (:attr:`cuegym.envs.registry.GameDef.reward_scale`); ``lag_break`` starts every frame of a Russian game with
    a lag for the break (RU-GEN-06) instead of a breaker drawn at random; ``num_players``
    the players of a golf game, 2..6 (GF-02; traced: one program serves every count; the
    other tasks are two-player games and take only 2); ``cushion`` the ball–cushion model
    (None: the table's own; docs/physics.md, "Cushions"), which then names the table
    (``TABLE@MODEL``) and reads back as the model in use; ``snooker_rules`` the snooker
    referees' rule options (:func:`snooker_rules`; Snooker and AmericanSnooker only), which
    read back as a :class:`~cuegym.rules.snooker_options.SnookerOptions`."""

    task: str = DEFAULT_TASK
    table: str | None = None  # None: the task's table (cuegym.envs.registry.GameDef.table)
    noise: float = 1.0
    max_shots: int = 200
    reward_scale: float | None = None
    distance: tuple[float, float] = (0.2, 1.0)  # pot-shot: cue ball to object ball [m]
    cut: tuple[float, float] = (0.0, 45.0)  # pot-shot: cut angle [degrees]
    lag_break: bool = False
    num_players: int = 2
    cushion: str | None = None  # None: the table's own model (cuegym.physics.cushion.MODELS)
    snooker_rules: SnookerOptions | Mapping | str | None = None  # None: the original's readings

    def __post_init__(self):
        if self.task not in GAMES:
            raise ValueError(f"task: unknown {self.task!r}; one of {', '.join(GAMES)}")
        family = GAMES[self.task].family
        if self.table is None:
            object.__setattr__(self, "table", GAMES[self.task].table)
        try:
            spec = get_spec(self.table)
        except (ValueError, KeyError) as e:
            raise ValueError(f"table: {e}") from None
        if self.cushion is not None:
            if not isinstance(self.cushion, str) or self.cushion not in CUSHION_MODELS:
                raise ValueError(f"cushion: unknown model {self.cushion!r}; one of {', '.join(CUSHION_MODELS)}")
            # the model travels in the table's name, which every layer compiles and draws by
            object.__setattr__(self, "table", with_cushion(self.table, self.cushion))
            spec = get_spec(self.table)
        object.__setattr__(self, "cushion", spec.cushion)
        if family == "snooker" and spec.d_radius <= 0:
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
        if self.lag_break and family not in ("russian", "snooker"):
            two = (*family_games("russian"), *family_games("snooker"))
            raise ValueError(f"lag_break: only for the two-player games ({', '.join(two)}), not {self.task!r}")
        integer = isinstance(self.num_players, (int, np.integer)) and not isinstance(self.num_players, bool)
        if not integer or not 2 <= self.num_players <= _MOST_PLAYERS:
            raise ValueError(f"num_players: an integer in 2..{_MOST_PLAYERS}, got {self.num_players!r}")
        if not 2 <= self.num_players <= GAMES[self.task].players:
            raise ValueError(f"num_players: {self.task} is a two-player game (2); only golf takes 2..{_MOST_PLAYERS}, "
                             f"got {self.num_players!r}")
        # options, not a dict: hashable, so the env stays a static part of the programs
        object.__setattr__(self, "snooker_rules", snooker_rules(self.snooker_rules))
        if self.snooker_rules != SNOOKER_DEFAULT and family != "snooker":
            raise ValueError(f"snooker_rules: only for {', '.join(family_games('snooker'))}, not {self.task!r} "
                             f"(leave it None)")

    @property
    def spec(self):
        return get_spec(self.table)

    @property
    def n_balls(self) -> int:
        return GAMES[self.task].n_balls

    @property
    def players(self) -> int:
        """P, the length of the per-player arrays (rewards, scores): golf's most players
        (6, whatever ``num_players``), 2 for the other tasks."""
        return GAMES[self.task].players

    @property
    def scale(self) -> float:
        return GAMES[self.task].reward_scale if self.reward_scale is None else float(self.reward_scale)


def snooker_rules(value) -> SnookerOptions:
    """The checked options of a ``snooker_rules`` value: None or ``"original"`` the defaults
    (the original's readings), ``"wpbsa"`` every option at WPBSA practice, a dict of option
    values (the others default) or a :class:`~cuegym.rules.snooker_options.SnookerOptions`.
    ValueError naming ``snooker_rules`` and what is allowed."""
    if value is None:
        return SNOOKER_DEFAULT
    try:
        if isinstance(value, str) and value in SNOOKER_PRESETS:
            return SNOOKER_PRESETS[value]
        if isinstance(value, SnookerOptions):
            return check(value)
        if isinstance(value, Mapping):
            # a key that is not a string is reported as an unknown option, not a TypeError
            return snooker_options(**{str(k): v for k, v in value.items()})
    except ValueError as e:
        raise ValueError(f"snooker_rules: {e}") from None
    options = "; ".join(f"{k}: {' or '.join(v)}" for k, v in SNOOKER_ALLOWED.items())
    raise ValueError(f"snooker_rules: None, {' or '.join(map(repr, SNOOKER_PRESETS))}, a dict of options ({options}) "
                     f"or a SnookerOptions; got {value!r}")


def cached_by_rules(fn):
    """``functools.lru_cache`` of ``fn``, whose last parameter ``rules`` (a ``snooker_rules``
    value, default None) is keyed by :func:`snooker_rules`, and the other arguments bound as
    positionals: a call that leaves the rules out and one that passes the defaults share one
    entry, so one program is built and compiled."""
    sig = inspect.signature(fn)
    cached = functools.lru_cache(maxsize=None)(fn)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        bound.arguments["rules"] = snooker_rules(bound.arguments["rules"])
        return cached(*bound.args)

    call.cache_info, call.cache_clear = cached.cache_info, cached.cache_clear
    return call


def _real(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def options(env: FuncEnv) -> Options:
    """The traced options of ``env``."""
    f = lambda x: jnp.asarray(x, jnp.float64)  # noqa: E731
    return Options(f(env.noise), f(env.scale), jnp.asarray(env.max_shots, jnp.int32), f(env.distance), f(env.cut),
                   jnp.asarray(bool(env.lag_break)), jnp.asarray(env.num_players, jnp.int32))


def game_module(task: str):
    """The game module of ``task`` (:attr:`cuegym.envs.registry.GameDef.module`), imported on
    first use: the games import the core, so the core names them by string."""
    return importlib.import_module(game(task).module)


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


# ----------------------------------------------------------------------------- guards and the ball in hand


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
    out = nearest_free(lambda q, phase, xy, on: ru.placement_ok(spec, phase, xy, on, cue, q), ok, p, place, grid,
                       phase, xy, on)
    return out, jnp.any(out != place)


# under vmap the grid is searched for 1/16 of a batch's tables at a time, and only for those
# whose spot touches a ball (compact.where_active): most placements are legal as given
PLACEMENT_CHUNKS = 16


def nearest_free(is_free, ok, p, place, grid, *args):
    """(2,) [m]: ``p`` where ``ok`` () bool, else the point of ``grid`` (M, 2) [m] nearest
    ``place`` (2,) among those where ``is_free(q, *args)`` holds (a ball in hand moved off
    the balls it touches). The grid is searched only where ``ok`` is False: under ``vmap``,
    for the tables that need it alone."""

    def search(p, place, grid, *args):
        free = jax.vmap(lambda q: is_free(q, *args))(grid)
        return grid[jnp.argmin(jnp.where(free, jnp.sum((grid - place) ** 2, -1), jnp.inf))]

    return where_active(search, PLACEMENT_CHUNKS)(~ok, p, place, grid, *args)


def in_hand_region(spec, phase):
    """(low (2,), high (2,)) [m] of the ball-in-hand region of ``phase``: the house, or the
    temporary house at the rear end (RU-GEN-14/20)."""
    off = ru.contact_offset(spec)
    eps = 1e-6
    rear = phase == IN_HAND_REAR
    lo = jnp.stack([jnp.asarray(off), jnp.where(rear, spec.length - spec.head_line + eps, off)])
    hi = jnp.stack([jnp.asarray(spec.width - off), jnp.where(rear, spec.length - off, spec.head_line - eps)])
    return lo, hi


def ghost_spot(spec, phase):
    """Where the ghost puts a ball in hand: on the long string halfway between the head
    cushion and the house line (the temporary house: its mirror at the rear end); the step
    projects it off any ball."""
    y = jnp.where(phase == IN_HAND_REAR, spec.length - spec.head_line / 2, spec.head_line / 2)
    return jnp.stack([jnp.asarray(spec.width / 2), y])


# ----------------------------------------------------------------------------- the lag


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


def lag_memo(summ, final) -> LagStroke:
    """What :func:`lag_replay` keeps of a first lag stroke (its ShotSummary and final BallState)."""
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


def ghost_lag(spec, player):
    """(traced) The ghost's lag stroke for ``player`` (): ``place`` (2,) [m], the middle of
    the player's half of the house, and ``shot`` (5,), straight up the table at
    :func:`ghost_lag_speed` with natural roll."""
    lo, hi = lag_region(spec, player)
    place = jnp.stack([(lo[0] + hi[0]) / 2, jnp.asarray(spec.head_line / 2)])
    shot = jnp.asarray([jnp.pi / 2, ghost_lag_speed(spec), 0.0, GHOST_LAG_B, 0.0])
    return place, shot


# ----------------------------------------------------------------------------- stroke


def pick(cond, a, b):
    """The tree ``a`` where ``cond`` () bool, else ``b`` (leaf by leaf)."""
    return jax.tree_util.tree_map(lambda x, y: jnp.where(cond, x, y), a, b)


def categorical(key, mask):
    """A uniform draw among the True entries of ``mask`` (N,) (among all if none)."""
    m = jnp.where(jnp.any(mask), mask, True)
    return jax.random.categorical(key, jnp.where(m, 0.0, -jnp.inf)).astype(jnp.int32)


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


_PHYSICS = contextvars.ContextVar("cuegym_physics", default=None)


@contextlib.contextmanager
def physics_hook(run):
    """While tracing inside this block, :func:`strike` hands its stroke to ``run(table,
    balls, shot) -> (final BallState, EventLog, ShotSummary)`` instead of simulating it:
    the asynchronous pool (:mod:`cuegym.envs.pool`) reads a game step's stroke before the
    physics and judges it after, with the game modules unchanged."""
    token = _PHYSICS.set(run)
    try:
        yield
    finally:
        _PHYSICS.reset(token)


def strike(env: FuncEnv, key, cue, shot, stroke, xy, on, opts: Options):
    """Play ``shot`` (5,) (clipped) on ball ``cue`` () of the layout ``xy`` (N, 2) [m], ``on``
    (N,), with the execution noise of ``opts`` drawn from ``key``; nothing moves unless
    ``stroke`` () bool. Returns (final BallState, EventLog, ShotSummary, played (6,): cue,
    phi [rad], speed [m/s], a, b, theta [rad] as executed)."""
    aimed = Shot(cue, shot[0], shot[1], shot[2], shot[3], shot[4])
    noisy = perturb(key, aimed, opts.noise, env.spec.ball_radius)
    noisy = noisy._replace(speed=jnp.where(stroke, noisy.speed, 0.0))  # no stroke: nothing moves
    noisy = executed(noisy)
    table, balls = get_table(env.table), at_rest(xy, on)
    hook = _PHYSICS.get()
    if hook is None:
        final, log, summ = simulate_one(table, balls, noisy, MAX_EVENTS, 2, True, at_rest=True)
    else:
        final, log, summ = hook(table, balls, noisy)
    played = jnp.stack([jnp.asarray(cue, jnp.float64), noisy.phi, noisy.speed, noisy.a, noisy.b, noisy.theta])
    return final, log, summ, played


# ----------------------------------------------------------------------------- dispatch


def init(env: FuncEnv, key, opts: Options | None = None) -> EnvState:
    """A new episode of ``env``'s game drawn from ``key``."""
    opts = options(env) if opts is None else opts
    return game_module(env.task).init(env, key, opts)


def step(env: FuncEnv, state: EnvState, action, key, opts: Options | None = None) -> EnvState:
    """Play one decision of ``env``'s game (a stroke, a lag stroke, a removal, a foul answer
    or a set-up). ``action``: dict of arrays (docs/envs.md, "Action")."""
    opts = options(env) if opts is None else opts
    return game_module(env.task).step(env, state, action, key, opts)


def observe(env: FuncEnv, state: EnvState) -> dict:
    """The observation dict of ``env``'s game (docs/envs.md, "Observation"; the shared keys:
    :func:`table_observation`)."""
    return game_module(env.task).observe(env, state)


def legal_masks(env: FuncEnv, state: EnvState) -> dict:
    """What the action's integer fields may name now: ``cue_ball``, ``ball``, ``choice``,
    each (N,) bool (the game module's rules; docs/envs.md, "Observation")."""
    return game_module(env.task).legal_masks(env, state)


def random_action(env: FuncEnv, state: EnvState, key) -> dict:
    """A uniformly random legal action of ``env``'s game drawn from ``key``."""
    return game_module(env.task).random_action(env, state, key)


def ghost_action(env: FuncEnv, state: EnvState) -> dict:
    """The built-in ghost-ball heuristic of ``env``'s game (deterministic; the step adds the
    execution noise)."""
    return game_module(env.task).ghost_action(env, state)


def from_observation(env: FuncEnv, obs: dict) -> EnvState:
    """(traceable) The state of ``env``'s game read back from an observation's arrays (what
    the agents reason on; each game module says what it fills in for what the observation
    lacks)."""
    return game_module(env.task).from_observation(env, obs)


# ----------------------------------------------------------------------------- opponents


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
    """The jitted batch functions of one (task, table, snooker rules); see :func:`batched`."""

    reset: object
    step: object


def batched(env: FuncEnv, devices=None) -> Program:
    """Jitted functions over a leading batch axis B, one program per (task, table, snooker
    rules):

    * ``reset(keys (B, 2) uint32, opts) -> (state, obs, keys)``: new episodes; the keys
      returned are the lanes' next keys.
    * ``step(state, action, keys, done (B,) bool, active (B,) bool, opponent (B,) int32,
      opts) -> (state, obs, keys)``: lanes with ``done`` reset instead of stepping
      (Gymnasium's next-step autoreset); lanes neither done nor ``active`` keep their state
      and key bit for bit; ``opponent`` (:data:`OPPONENT_CODES`) replaces a lane's action by
      a built-in policy's. Each lane's key advances only when it is stepped or reset, so a
      lane's stream does not depend on the others.

    ``devices`` (:func:`cuegym.envs.devices.resolve`: a list of ``jax.Device`` or indices;
    None, all local devices) share the lanes, each device a contiguous block of B / D
    running the one-device :func:`program` (a B that D does not divide is padded, the
    padding's results dropped). The bytes are those of one device. Arrays sharded on
    the lane axis over the same devices (``jax.sharding.NamedSharding`` of
    :func:`cuegym.envs.devices.table_mesh`) stay where they are between calls.
    """
    return spread(env.task, env.table, resolve(devices), env.snooker_rules)


@cached_by_rules
def spread(task: str, table: str, devices: tuple, rules=None) -> Program:
    """:func:`program` over ``devices`` (a tuple of ``jax.Device``; cached, so that each
    call of :func:`batched` with the same devices returns the same compiled functions)."""
    one = program(task, table, rules)
    if len(devices) == 1:
        return one
    return Program(over_tables(one.reset, devices, (True, False)),
                   over_tables(one.step, devices, (True,) * 6 + (False,)))


@cached_by_rules
def program(task: str, table: str, rules=None) -> Program:
    """The :class:`Program` of :func:`batched` for a task name, a table name and the snooker
    rule options (``rules``: a :attr:`FuncEnv.snooker_rules` value; cached)."""
    env = FuncEnv(task=task, table=table, snooker_rules=rules)

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
