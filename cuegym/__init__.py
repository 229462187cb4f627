"""cuegym: reinforcement-learning environments for cue sports over a JAX table simulator.

Importing ``cuegym`` registers its Gymnasium ids (``gymnasium.make("cuegym/PotShot-v0")``,
``gymnasium.make_vec("cuegym/RussianPyramid-v0", num_envs=64)``) from the registry of games,
:mod:`cuegym.envs.registry`. docs/envs.md describes the environments and
docs/architecture.md the layers.
"""

__version__ = "0.1.0"
__all__ = ["ENV_IDS", "ENV_TASKS", "GAMES", "__version__"]

from cuegym import _cache
from cuegym.envs import registry
from cuegym.envs.registry import ENV_IDS, GAMES

_cache.enable_default()

ENV_TASKS = {g.env_id: g.name for g in GAMES.values()}
"""Gymnasium id -> task name (a view of :data:`cuegym.envs.registry.GAMES`)."""


registry.register_builtins()
