"""cuegym.agents: agents for the cuegym envs, one protocol: ``act(observation, key) -> action``.

* :class:`RandomAgent` — uniformly random legal decisions.
* :class:`GhostBallAgent` — ghost-ball geometry: the easiest pot first, a safety otherwise.
* :class:`SearchAgent` — candidate strokes simulated under execution noise, scored by the
  referee's points and the position left.
* :class:`ResidualShot` — not an agent but a learner's action space: corrections to a base
  agent's stroke (:func:`make_residual_env` for stable-baselines3).
* :func:`pretrained` — the learned agent cuegym ships for an env id (a
  :class:`cuegym.learn.agent.PolicyAgent`; ``pretrained.available()`` the ids that have one;
  needs the ``train`` extra).

Each is built for an env id (with its options) or a :class:`cuegym.envs.functional.FuncEnv`, and
``agent.as_opponent(seed)`` is a callable opponent for ``gymnasium.make(id, opponent=...)``.
docs/agents.md describes them and the figures measured.
"""

from cuegym.agents.base import Agent, make_func_env, state_from_observation
from cuegym.agents.baselines import GhostBallAgent, RandomAgent
from cuegym.agents.pretrained import pretrained
from cuegym.agents.residual import ResidualShot, make_residual_env
from cuegym.agents.search import Budget, SearchAgent

AGENTS = {"random": RandomAgent, "ghost": GhostBallAgent, "search": SearchAgent, "pretrained": pretrained}
"""Name -> agent builder, ``AGENTS[name](env_id, **options)``: the classes, and
:func:`pretrained` (the shipped learned agent of ``env_id``)."""

__all__ = ["AGENTS", "Agent", "Budget", "GhostBallAgent", "RandomAgent", "ResidualShot", "SearchAgent",
           "make_func_env", "make_residual_env", "pretrained", "state_from_observation"]
