"""The Gymnasium entry points of cuegym's ids: the env of :mod:`cuegym.envs.gym_env`, with
the shot menu as its action when made with ``action="menu"``
(:mod:`cuegym.agents.menu_actions`).

Why a module above the layers: the plain env lives in the envs layer and the menu one layer
up, and ``gymnasium.make`` needs one callable that builds either (docs/architecture.md).
"""

from __future__ import annotations

from cuegym.envs.gym_env import CueEnv, CueVectorEnv

ACTIONS = ("dict", "menu")


def _check(action):
    if action not in ACTIONS:
        raise ValueError(f"action: one of {', '.join(ACTIONS)}, got {action!r}")


def make_env(task: str, action: str = "dict", **options):
    """``gymnasium.make``'s entry point: :class:`~cuegym.envs.gym_env.CueEnv` of ``task``
    with ``options``; ``action="menu"`` wraps it in
    :class:`~cuegym.agents.menu_actions.MenuActions`."""
    _check(action)
    env = CueEnv(task, **options)
    if action == "dict":
        return env
    from cuegym.agents.menu_actions import MenuActions  # jax programs of the menu, built on first use

    return MenuActions(env)


def make_vector_env(task: str, num_envs: int = 1, action: str = "dict", **options):
    """``gymnasium.make_vec``'s entry point: :class:`~cuegym.envs.gym_env.CueVectorEnv`,
    wrapped in :class:`~cuegym.agents.menu_actions.MenuVectorActions` with ``action="menu"``."""
    _check(action)
    env = CueVectorEnv(task, num_envs, **options)
    if action == "dict":
        return env
    from cuegym.agents.menu_actions import MenuVectorActions

    return MenuVectorActions(env)


make_env.metadata = CueEnv.metadata  # gymnasium.make reads the render modes from its creator
make_vector_env.metadata = CueVectorEnv.metadata
