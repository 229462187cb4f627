"""PettingZoo AEC front of the turn-based games: ``cuegym.envs.pettingzoo.env(game, num_players)``.

One :class:`cuegym.envs.gym_env.CueEnv` without an opponent (the agent plays every decision),
built with ``gymnasium.make`` from the game's id so it runs the Gymnasium env's compiled
program, behind PettingZoo's agent-environment-cycle API, one agent ``player_p`` per player.
``agent_selection`` is the player to decide next (a player who pots keeps the table, so the
same agent may act several times in a row); every agent observes the same table (full
information, ``to_play`` says whose turn it is) and gets its own share of each decision's
per-player rewards; the legal masks travel in ``infos[agent]["action_mask"]``.

Spaces, rewards, the end of a frame, infos and seeding: docs/pettingzoo.md. The module's name
is the PettingZoo package's; absolute imports (``from pettingzoo import ...``) reach the
package, not this module.
"""

from __future__ import annotations

import copy

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from cuegym import ENV_TASKS
from cuegym.envs.gym_env import RENDER_MODES
from cuegym.envs.registry import GAMES, family_games

ONE_PLAYER_TASKS = family_games("drill")
"""Training tasks with a single player (the registry's drills): not games for several agents."""
MAX_PLAYERS = {name: g.players for name, g in GAMES.items() if g.players > 2}
"""Task -> most players (the registry's ``players``), for the games of more than two
players (at least 2 each); every other game is for exactly two."""
MASKED_FIELDS = {"cue_ball": "legal_cue_ball", "ball": "legal_ball", "choice": "legal_choice"}
"""Action field -> the observation's legal mask for it."""


def resolve_game(game: str) -> tuple[str, str]:
    """(env id, task) of ``game``: an id (``"cuegym/Snooker-v0"``) or a task name
    (``"snooker"``). Raises ValueError naming ``game`` for anything else and for the
    one-player tasks."""
    tasks = {task: env_id for env_id, task in ENV_TASKS.items()}
    if isinstance(game, str) and game in ENV_TASKS:
        env_id, task = game, ENV_TASKS[game]
    elif isinstance(game, str) and game in tasks:
        env_id, task = tasks[game], game
    else:
        games = [t for t in tasks if t not in ONE_PLAYER_TASKS]
        raise ValueError(f"game: an env id or a game name, one of {', '.join(games)}; got {game!r}")
    if task in ONE_PLAYER_TASKS:
        raise ValueError(f"game: {task!r} is a one-player task (use gymnasium.make({env_id!r})); "
                         f"the games for several agents are "
                         f"{', '.join(t for t in tasks if t not in ONE_PLAYER_TASKS)}")
    return env_id, task


def check_num_players(task: str, num_players) -> int:
    """``num_players`` as an int if ``task`` is played by that many, else ValueError naming
    ``num_players`` with the allowed range."""
    most = MAX_PLAYERS.get(task, 2)
    allowed = "2" if most == 2 else f"2..{most}"
    integer = isinstance(num_players, (int, np.integer)) and not isinstance(num_players, bool)
    if not integer or not 2 <= num_players <= most:
        raise ValueError(f"num_players: {task} is played by {allowed} players, got {num_players!r}")
    return int(num_players)


class CueAECEnv(AECEnv):
    """A cue-sports frame for ``num_players`` agents (module docstring). ``options`` are the
    single env's (``table``, ``noise``, ``max_shots``, ``reward_scale``, ``lag_break``,
    ``snooker_rules``; docs/envs.md); ``opponent`` is not one of them: the agents are the players."""

    def __init__(self, game: str, num_players: int = 2, render_mode: str | None = None, **options):
        env_id, task = resolve_game(game)
        n = check_num_players(task, num_players)
        if render_mode is not None and render_mode not in RENDER_MODES:  # before gymnasium.make, which only warns
            raise ValueError(f"render_mode: None or one of {RENDER_MODES}; got {render_mode!r}")
        if "opponent" in options:
            raise ValueError("opponent: not an option of the PettingZoo env (every player is an agent)")
        if task in MAX_PLAYERS:  # only the games of more than two players take the count
            options["num_players"] = n
        self._env = gymnasium.make(env_id, render_mode=render_mode, **options)
        got = getattr(self._env.unwrapped.func, "num_players", 2)
        if got != n:  # the env must agree: a mismatch would misassign every reward
            raise RuntimeError(f"num_players: asked for {n}, the env {env_id} has {got}")
        self.task = task
        self.render_mode = render_mode
        self.metadata = {"name": f"cuegym_{task.replace('-', '_')}_v0", "render_modes": list(RENDER_MODES),
                         "is_parallelizable": False, "render_fps": 2}
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self.observation_spaces = {a: copy.deepcopy(self._env.observation_space) for a in self.possible_agents}
        self.action_spaces = {a: copy.deepcopy(self._env.action_space) for a in self.possible_agents}
        self._obs = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Dict:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._obs, info = self._env.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._skip_agent_selection = None
        self._select(info)

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0  # paid out by last() before this step
        self._obs, _, terminated, truncated, info = self._env.step(action)
        shares = np.asarray(info["rewards"], np.float64)
        self.rewards = {a: float(shares[p]) for p, a in enumerate(self.possible_agents)}
        if terminated or truncated:
            self.terminations = {a: bool(terminated) for a in self.agents}
            self.truncations = {a: bool(truncated) for a in self.agents}
        self._select(info)
        self._accumulate_rewards()

    def _select(self, info: dict) -> None:
        """The player to decide next takes the table; every agent gets the decision's info,
        the one to play also its action mask. At the frame's end nobody is to play: the
        agents step out in order, ``player_0`` first."""
        self.infos = {a: dict(info) for a in self.agents}
        if self.terminations[self.agents[0]] or self.truncations[self.agents[0]]:  # all of them, at once
            self.agent_selection = self.agents[0]
            return
        self.agent_selection = self.possible_agents[int(info["to_play"])]
        self.infos[self.agent_selection]["action_mask"] = self.action_mask()

    def action_mask(self) -> dict:
        """Per-field masks of the current decision (``Dict.sample(mask)`` form): int8 (N,)
        for ``cue_ball``, ``ball``, ``choice``; None for the continuous fields and
        ``pocket``. A field whose mask is all zero is not read by the referee in this phase
        (sampling it gives 0)."""
        mask = dict.fromkeys(self._env.action_space.spaces)
        for key, legal in MASKED_FIELDS.items():
            mask[key] = np.asarray(self._obs[legal], np.int8)
        return mask

    def observe(self, agent: str) -> dict:
        """The table now (the single env's observation), the same for every agent."""
        return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in self._obs.items()}

    def render(self):
        """The single env's render (``rgb_array``: an (H, 480, 3) uint8 image; ``human``: a
        window)."""
        return self._env.render()

    def close(self) -> None:
        self._env.close()


def env(game: str, num_players: int = 2, render_mode: str | None = None, **options) -> AECEnv:
    """The AEC env of ``game`` (an env id or a game name: ``"russian-pyramid"``,
    ``"americanka"``, ``"moscow-pyramid"``, ``"snooker"``, ``"american-snooker"``,
    ``"golf"``) for ``num_players`` agents (2; golf 2..6), wrapped in PettingZoo's order
    enforcing wrapper (step or observe before reset raises)."""
    return wrappers.OrderEnforcingWrapper(CueAECEnv(game, num_players, render_mode, **options))


raw_env = CueAECEnv
