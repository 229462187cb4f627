"""cuegym's ids in gymnax's functional interface: ``env, params = cuegym.gymnax.make(id)``
(:func:`cuegym.learn.gymnax_env.make`; docs/training.md, "The gymnax interface")."""

from cuegym.learn.gymnax_env import ACTIONS, AIMS, OBSERVATIONS, OPPONENTS, CueGymnaxEnv, EnvParams, EnvState, make

__all__ = ["ACTIONS", "AIMS", "OBSERVATIONS", "OPPONENTS", "CueGymnaxEnv", "EnvParams", "EnvState", "make"]
