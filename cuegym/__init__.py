"""cuegym: reinforcement-learning environments for cue sports over a JAX table simulator.

Importing ``cuegym`` registers its Gymnasium ids (``gymnasium.make("cuegym/PotShot-v0")``,
``gymnasium.make_vec("cuegym/RussianPyramid-v0", num_envs=64)``) from the registry of games,
:mod:`cuegym.envs.registry`. docs/envs.md describes the environments and
docs/architecture.md the layers.
"""

__version__ = "0.1.0"
__all__ = ["ENV_IDS", "ENV_TASKS", "GAMES", "__version__", "make_async"]

from cuegym import _cache
from cuegym.envs import registry
from cuegym.envs.registry import ENV_IDS, GAMES

_cache.enable_default()

ENV_TASKS = {g.env_id: g.name for g in GAMES.values()}
"""Gymnasium id -> task name (a view of :data:`cuegym.envs.registry.GAMES`)."""


registry.register_builtins()


def make_async(env_id: str, num_envs: int, batch_size: int | None = None, seed: int | None = None, **options):
    """The asynchronous vector env of ``env_id`` (EnvPool's interface: ``async_reset``,
    ``send``, ``recv``, ``step``): :func:`cuegym.envs.async_env.make_async`."""
    from cuegym.envs.async_env import make_async as make  # the env layer, imported on first use

    return make(env_id, num_envs, batch_size, seed, **options)
