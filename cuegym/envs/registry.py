"""The registry of games and tasks: one :class:`GameDef` per Gymnasium id.

Everything that needs to know which games exist reads this table: Gymnasium registration,
the functional core, position files and the command line, PettingZoo, the agents, the host
record, the benchmarks and the determinism tools. Adding a game is a referee, a game module
and one entry here (docs/envs.md, "Game protocol").
"""

from __future__ import annotations

import dataclasses
from types import ModuleType

from cuegym.rules import american_snooker, americanka, base, golf, moscow_pyramid, russian_pyramid, snooker

PYRAMID_BALLS = ("cue",) + tuple(str(k) for k in range(1, 16))
SNOOKER_BALLS = ("cue",) + tuple(f"red{k}" for k in range(1, 16)) + ("yellow", "green", "brown", "blue", "pink", "black")

_COMMON_KEYS = ("balls", "phase", "to_play", "scores", "legal_ball", "legal_cue_ball", "legal_choice")
RUSSIAN_OBS_KEYS = _COMMON_KEYS + ("owner", "debt", "foul_run", "sudden_death")
SNOOKER_OBS_KEYS = _COMMON_KEYS + ("ball_on", "free_ball", "breaking", "remaining")
GOLF_OBS_KEYS = _COMMON_KEYS + ("target_pocket", "opening", "num_players")

_GAMES = "cuegym.envs.games."  # the game modules' package

FAMILIES = ("drill", "russian", "snooker", "golf")
"""How a game is played by the functional core: ``drill`` one stroke with no referee
(pot-shot, lag), ``russian`` a frame under a Russian referee's :class:`GameState`,
``snooker`` and ``golf`` a frame under their own referee state and phases."""


FAMILY_PHASES = {"drill": base.PHASE_NAMES, "russian": base.PHASE_NAMES, "snooker": snooker.SNOOKER_PHASE_NAMES,
                 "golf": golf.GOLF_PHASE_NAMES}
"""Family -> its phase names by code (the referees' ``*PHASE_NAMES``)."""


@dataclasses.dataclass(frozen=True)
class GameDef:
    """One game or task.

    ``name`` the task name (position files' ``game``), ``env_id`` its Gymnasium id,
    ``family`` one of :data:`FAMILIES`, ``n_balls`` N (the arrays' length), ``balls`` the N
    ball ids of position files in array order (empty: no position files), ``table`` the
    default table, ``hand_ball`` the index of the ball in hand, ``players`` P (the
    per-player arrays' length; golf 6 whatever its ``num_players``), ``reward_scale`` the
    default reward per point or ball, ``referee`` the :mod:`cuegym.rules` module that judges
    a stroke (None for a drill), ``obs_keys`` the observation keys the agents read,
    ``module`` the dotted name of the game module that plays it (:mod:`cuegym.envs.games`;
    a name, imported on first use by :func:`cuegym.envs.functional.game_module`, since the
    game modules import the core that imports this registry)."""

    name: str
    env_id: str
    family: str
    n_balls: int
    balls: tuple[str, ...]
    table: str
    hand_ball: int
    players: int
    reward_scale: float
    referee: ModuleType | None
    obs_keys: tuple[str, ...]
    module: str

    def __post_init__(self):
        if self.family not in FAMILIES:
            raise ValueError(f"family: one of {', '.join(FAMILIES)}; got {self.family!r}")
        if self.balls and len(self.balls) != self.n_balls:
            raise ValueError(f"balls: {self.n_balls} ids for {self.name}, got {len(self.balls)}")


def _entries():
    drill = dict(family="drill", table="pyramid-12ft", hand_ball=0, players=2, reward_scale=1.0, referee=None,
                 balls=(), obs_keys=RUSSIAN_OBS_KEYS)
    russian = dict(family="russian", table="pyramid-12ft", players=2, obs_keys=RUSSIAN_OBS_KEYS,
                   module=_GAMES + "russian_frame")
    snooker_like = dict(family="snooker", table="snooker-12ft", hand_ball=0, players=2, reward_scale=0.1,
                        balls=SNOOKER_BALLS, n_balls=snooker.N_BALLS, obs_keys=SNOOKER_OBS_KEYS,
                        module=_GAMES + "snooker_frame")
    return (
        GameDef(name="pot-shot", env_id="cuegym/PotShot-v0", n_balls=2, module=_GAMES + "pot_shot", **drill),
        GameDef(name="lag", env_id="cuegym/Lag-v0", n_balls=1, module=_GAMES + "lag", **drill),
        GameDef(name=russian_pyramid.GAME, env_id="cuegym/RussianPyramid-v0", n_balls=russian_pyramid.N_BALLS,
                balls=PYRAMID_BALLS, hand_ball=russian_pyramid.CUE, reward_scale=0.1, referee=russian_pyramid,
                **russian),
        # any ball may be struck in Americanka (AM-04); ball 16 (index 15) is the one in hand (AMB-27)
        GameDef(name=americanka.GAME, env_id="cuegym/Americanka-v0", n_balls=americanka.N_BALLS,
                balls=tuple(str(k) for k in range(1, 17)), hand_ball=americanka.BREAK_BALL, reward_scale=1.0,
                referee=americanka, **russian),
        GameDef(name=moscow_pyramid.GAME, env_id="cuegym/MoscowPyramid-v0", n_balls=moscow_pyramid.N_BALLS,
                balls=PYRAMID_BALLS, hand_ball=moscow_pyramid.CUE, reward_scale=1.0, referee=moscow_pyramid,
                **russian),
        GameDef(name=snooker.GAME, env_id="cuegym/Snooker-v0", referee=snooker, **snooker_like),
        # AMB-46: American snooker on the 3500 x 1750 mm bed of the snooker table
        GameDef(name=american_snooker.GAME, env_id="cuegym/AmericanSnooker-v0", referee=american_snooker,
                **snooker_like),
        # GF-01: golf on a snooker table; one object ball per player, up to six (GF-02)
        GameDef(name=golf.GAME, env_id="cuegym/Golf-v0", family="golf", n_balls=golf.N_BALLS,
                balls=("cue",) + tuple(str(k) for k in range(1, golf.MAX_PLAYERS + 1)), table="snooker-12ft",
                hand_ball=golf.CUE, players=golf.MAX_PLAYERS, reward_scale=1.0, referee=golf,
                obs_keys=GOLF_OBS_KEYS, module=_GAMES + "golf"),
    )


GAMES: dict[str, GameDef] = {g.name: g for g in _entries()}
"""Task name -> :class:`GameDef`, in the order of the Gymnasium ids."""
BUILTIN: frozenset[str] = frozenset(GAMES)
"""The task names of the games shipped with cuegym (their modules are all in the package)."""
DEFAULT_TASK = russian_pyramid.GAME
"""The task of ``FuncEnv()`` and ``CueEnv()`` without one."""
BY_ID: dict[str, GameDef] = {g.env_id: g for g in GAMES.values()}
"""Gymnasium id -> :class:`GameDef`."""
ENV_IDS: tuple[str, ...] = tuple(BY_ID)
"""The built-in Gymnasium ids (games added with :func:`register` are in :data:`BY_ID`)."""


def register(entry: GameDef) -> GameDef:
    """Add a game: its :class:`GameDef` joins :data:`GAMES` and :data:`BY_ID` and its id is
    registered with Gymnasium (``gymnasium.make(entry.env_id)``). ``entry.module`` names an
    importable game module (docs/architecture.md, "Adding a game"). ValueError naming
    ``name`` or ``env_id`` when either is taken."""
    if entry.name in GAMES:
        raise ValueError(f"name: {entry.name!r} is already a game; pick another task name")
    if entry.env_id in BY_ID:
        raise ValueError(f"env_id: {entry.env_id!r} is already registered; pick another id")
    GAMES[entry.name] = entry
    BY_ID[entry.env_id] = entry
    _register_gymnasium(entry)
    return entry


def _register_gymnasium(entry: GameDef) -> None:
    import gymnasium

    if entry.env_id not in gymnasium.registry:
        # cuegym.entry builds the env, with the shot menu as its action where asked
        gymnasium.register(id=entry.env_id, entry_point="cuegym.entry:make_env",
                           vector_entry_point="cuegym.entry:make_vector_env", kwargs={"task": entry.name})


def register_builtins() -> None:
    """Register the built-in ids with Gymnasium (``import cuegym`` does it)."""
    for entry in GAMES.values():
        _register_gymnasium(entry)


def game(name_or_id: str) -> GameDef:
    """The :class:`GameDef` of a task name (``"russian-pyramid"``) or a Gymnasium id
    (``"cuegym/RussianPyramid-v0"``); ValueError naming ``game`` for any other string."""
    found = GAMES.get(name_or_id) or BY_ID.get(name_or_id)
    if found is None:
        raise ValueError(f"game: unknown {name_or_id!r}; one of {', '.join(GAMES)} or {', '.join(BY_ID)}")
    return found


def position_games() -> dict[str, GameDef]:
    """The games a position file may name: those with ball ids and a referee."""
    return {name: g for name, g in GAMES.items() if g.balls and g.referee is not None}


def family_games(family: str) -> tuple[str, ...]:
    """The task names of one family (:data:`FAMILIES`)."""
    if family not in FAMILIES:
        raise ValueError(f"family: one of {', '.join(FAMILIES)}; got {family!r}")
    return tuple(name for name, g in GAMES.items() if g.family == family)
