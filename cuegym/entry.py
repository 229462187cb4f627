"""The Gymnasium entry points of cuegym's ids: the env of :mod:`cuegym.envs.gym_env`, with
the shot menu as its action when made with ``action="menu"``
(:mod:`cuegym.agents.menu_actions`), and ``opponent="pretrained"`` the shipped learned agent
of the id (:mod:`cuegym.agents.pretrained`).

Why a module above the layers: the plain env lives in the envs layer and the menu one layer
up, and ``gymnasium.make`` needs one callable that builds either (docs/architecture.md).
"""

from __future__ import annotations

from cuegym.envs.gym_env import CueEnv, CueVectorEnv

ACTIONS = ("dict", "menu")
PRETRAINED = "pretrained"  # the opponent this module builds: the id's shipped learned agent


def _check(action):
    if action not in ACTIONS:
        raise ValueError(f"action: one of {', '.join(ACTIONS)}, got {action!r}")


def _opponent(task: str, opponent, options: dict):
    """``opponent`` as the env takes it: ``"pretrained"`` becomes the shipped agent's
    ``as_opponent()``, reading the table under the env's own options (ValueError naming
    ``opponent`` where the id has none); anything else passes as it is."""
    if not (isinstance(opponent, str) and opponent == PRETRAINED):
        return opponent
    from cuegym.agents.pretrained import pretrained_opponent
    from cuegym.envs.registry import game

    return pretrained_opponent(game(task).env_id, **options)


def make_env(task: str, action: str = "dict", opponent=None, render_mode: str | None = None, **options):
    """``gymnasium.make``'s entry point: :class:`~cuegym.envs.gym_env.CueEnv` of ``task``
    with ``options``; ``action="menu"`` wraps it in
    :class:`~cuegym.agents.menu_actions.MenuActions`; ``opponent="pretrained"`` plays the
    shipped learned agent (:func:`cuegym.agents.pretrained.pretrained_opponent`)."""
    _check(action)
    env = CueEnv(task, render_mode=render_mode, opponent=_opponent(task, opponent, options), **options)
    if action == "dict":
        return env
    from cuegym.agents.menu_actions import MenuActions  # jax programs of the menu, built on first use

    return MenuActions(env)


def make_vector_env(task: str, num_envs: int = 1, action: str = "dict", opponent=None, **options):
    """``gymnasium.make_vec``'s entry point: :class:`~cuegym.envs.gym_env.CueVectorEnv`,
    wrapped in :class:`~cuegym.agents.menu_actions.MenuVectorActions` with ``action="menu"``."""
    _check(action)
    if isinstance(opponent, str) and opponent == PRETRAINED:
        # the learned agent decides one table a call; the vector env's callable takes batches
        raise ValueError("opponent: 'pretrained' plays the single env (gymnasium.make); the vector env takes None, "
                         "\"random\", \"ghost\" or a callable f(obs_batch) -> action_batch")
    env = CueVectorEnv(task, num_envs, opponent=opponent, **options)
    if action == "dict":
        return env
    from cuegym.agents.menu_actions import MenuVectorActions

    return MenuVectorActions(env)


make_env.metadata = CueEnv.metadata  # gymnasium.make reads the render modes from its creator
make_vector_env.metadata = CueVectorEnv.metadata
