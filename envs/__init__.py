"""cuegym: reinforcement-learning environments for cue sports over a JAX table simulator.

Importing ``cuegym`` registers its Gymnasium ids (``gymnasium.make("cuegym/PotShot-v0")``,
``gymnasium.make_vec("cuegym/RussianPyramid-v0", num_envs=64)``).
"""

__version__ = "0.1.0"


def _register():
    import gymnasium

    ids = {"cuegym/PotShot-v0": "pot-shot", "cuegym/RussianPyramid-v0": "russian-pyramid"}
    for env_id, task in ids.items():
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point="cuegym.gym_env:CueEnv",
            vector_entry_point="cuegym.gym_env:CueVectorEnv",
            kwargs={"task": task},
        )


ENV_IDS = ("cuegym/PotShot-v0", "cuegym/RussianPyramid-v0")
_register()
