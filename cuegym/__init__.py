"""cuegym: reinforcement-learning environments for cue sports over a JAX table simulator.

Importing ``cuegym`` registers its Gymnasium ids (``gymnasium.make("cuegym/PotShot-v0")``,
``gymnasium.make_vec("cuegym/RussianPyramid-v0", num_envs=64)``) from the registry of games,
:mod:`cuegym.envs.registry`. docs/envs.md describes the environments and
docs/architecture.md the layers.
"""

__version__ = "0.1.0"

from cuegym import _cache
from cuegym.envs.registry import ENV_IDS, GAMES

_cache.enable_default()

ENV_TASKS = {g.env_id: g.name for g in GAMES.values()}
"""Gymnasium id -> task name (a view of :data:`cuegym.envs.registry.GAMES`)."""


def _register():
    import gymnasium

    for env_id, task in ENV_TASKS.items():
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point="cuegym.envs.gym_env:CueEnv",
            vector_entry_point="cuegym.envs.gym_env:CueVectorEnv",
            kwargs={"task": task},
        )


_register()
