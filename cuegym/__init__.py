"""cuegym: reinforcement-learning environments for cue sports over a JAX table simulator.

Importing ``cuegym`` registers its Gymnasium ids (``gymnasium.make("cuegym/PotShot-v0")``,
``gymnasium.make_vec("cuegym/RussianPyramid-v0", num_envs=64)``); :data:`ENV_TASKS` maps
each id to its task in :mod:`cuegym.envs.functional`. docs/envs.md describes them.
"""

__version__ = "0.1.0"

ENV_TASKS = {
    "cuegym/PotShot-v0": "pot-shot",
    "cuegym/Lag-v0": "lag",
    "cuegym/RussianPyramid-v0": "russian-pyramid",
    "cuegym/Americanka-v0": "americanka",
    "cuegym/MoscowPyramid-v0": "moscow-pyramid",
    "cuegym/Snooker-v0": "snooker",
    "cuegym/AmericanSnooker-v0": "american-snooker",
    "cuegym/Golf-v0": "golf",
}
ENV_IDS = tuple(ENV_TASKS)


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
