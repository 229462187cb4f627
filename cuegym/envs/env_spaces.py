"""The Gymnasium action and observation spaces of a :class:`cuegym.envs.functional.FuncEnv`.

One Dict action for every task; the observation's keys are the game's
(:attr:`cuegym.envs.registry.GameDef.obs_keys`), its phase codes its family's
(:data:`FAMILY_PHASES`). docs/envs.md describes each entry.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from cuegym.envs import functional as F
from cuegym.envs.registry import FAMILY_PHASES, game
from cuegym.physics import POCKETS

PHASE_NAMES = max(FAMILY_PHASES.values(), key=len)
"""Phase names by code, every game's: each family's codes are a prefix of these (the Russian
games use codes 0..5, snooker 0 and 4..7, golf 0, 1, 5 and 8)."""
assert all(PHASE_NAMES[:len(names)] == names for names in FAMILY_PHASES.values())


def action_space(env: F.FuncEnv) -> spaces.Dict:
    """The Dict action: ``shot`` (5,) within the shot limits, ``place`` (2,) [m] over the
    bed, the ball indices ``cue_ball``, ``ball``, ``choice`` (N) and ``pocket`` (6)."""
    n = env.n_balls
    spec = env.spec
    return spaces.Dict({
        "shot": spaces.Box(F.SHOT_LOW.astype(np.float32), F.SHOT_HIGH.astype(np.float32), dtype=np.float32),
        "place": spaces.Box(np.zeros(2, np.float32), np.array([spec.width, spec.length], np.float32), dtype=np.float32),
        "cue_ball": spaces.Discrete(n),
        "ball": spaces.Discrete(n),
        "pocket": spaces.Discrete(len(POCKETS)),
        "choice": spaces.Discrete(n),
    })


def observation_space(env: F.FuncEnv) -> spaces.Dict:
    """The Dict observation: the game's ``obs_keys``, N balls and P players (``env.players``)."""
    g = game(env.task)
    n, p = env.n_balls, env.players
    spec = env.spec
    hi = np.broadcast_to(np.array([spec.width, spec.length, 1.0], np.float32), (n, 3))
    cap = F.COUNT_CAP
    # golf's scores are strokes (never negative); the others' points either way
    scores = (spaces.Box(0.0, float(np.iinfo(np.int32).max), (p,), np.float32) if g.family == "golf"
              else spaces.Box(-1000.0, 1000.0, (p,), np.float32))
    entries = {  # every key any game has
        "balls": spaces.Box(np.zeros((n, 3), np.float32), hi.copy(), dtype=np.float32),
        "phase": spaces.Discrete(len(FAMILY_PHASES[g.family])),
        "to_play": spaces.Discrete(p),
        "scores": scores,
        "legal_ball": spaces.MultiBinary(n),
        "legal_cue_ball": spaces.MultiBinary(n),
        "legal_choice": spaces.MultiBinary(n),
        # the Russian games
        "owner": spaces.Box(-1, 1, (n,), np.int8),
        "debt": spaces.Box(0, cap, (2,), np.int32),
        "foul_run": spaces.Box(0, cap, (), np.int32),
        "sudden_death": spaces.Discrete(2),
        # snooker
        "ball_on": spaces.MultiBinary(n),
        "free_ball": spaces.Discrete(2),
        "breaking": spaces.Discrete(2),
        "remaining": spaces.Box(0, cap, (2,), np.int32),
        # golf
        "target_pocket": spaces.Box(-1, len(POCKETS) - 1, (p,), np.int32),
        "opening": spaces.Discrete(2),
        "num_players": spaces.Discrete(p + 1),
    }
    return spaces.Dict({key: entries[key] for key in g.obs_keys})
