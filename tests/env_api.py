"""Test helpers for the env tests: actions, loading a layout into a single env, the opening
masks of each game from the catalogue, and the golden rollout file (its hashes are
:func:`cuegym.api_test.rollout_hash`; tests/envs/test_api.py checks them, and
``python tests/env_api.py --write-golden`` rewrites them)."""

import json
import pathlib
import sys

import gymnasium as gym
import numpy as np

import cuegym  # registers the ids
from cuegym.api_test import rollout_hash, vector_rollout_hashes

# committed hashes of a seeded 200-step rollout per id; rewrite them (after a deliberate
# change of the physics, referee or observation) with: python tests/env_api.py --write-golden
GOLDEN = pathlib.Path(__file__).with_name("golden_env_rollouts.json")
GOLDEN_SEED, GOLDEN_STEPS = 0, 200


def make(env_id, **kw):
    return gym.make(env_id, **kw)


def straight_action(env, **overrides):
    a = env.action_space.sample()
    n = env.action_space["ball"].n
    a["shot"][:] = [1.3, 2.5, 0.0, 0.1, 0.0]
    a["place"][:] = [0.8875, 0.4]
    a["cue_ball"] = 0
    a["ball"] = min(4, n - 1)
    a["pocket"] = 3
    a["choice"] = 0
    for k, v in overrides.items():
        a[k] = v
    return a


def opening_masks(env_id, obs):
    """The legal masks at the start of a frame, from the catalogue: (cue_ball, ball, choice)."""
    on = obs["balls"][:, 2] > 0.5
    n = len(on)
    ids = np.arange(n)
    none = np.zeros(n, bool)
    task = cuegym.ENV_TASKS[env_id]
    if task == "lag":  # RU-GEN-07: the lag ball, nothing to call or choose
        return ids == 0, none, none
    if task == "pot-shot":  # the cue ball strikes; the object ball may be called
        return ids == 0, on & (ids != 0), none
    if task == "americanka":  # AM-05/06: ball 16 (index 15) from hand; AM-08: no call; no balls won yet
        return ids == 15, none, none
    if task == "moscow-pyramid":  # MP-05: the cue ball from hand; MP-07: no call
        return ids == 0, none, none
    if task in ("snooker", "american-snooker"):  # SN-17/AS-13: from the D; SN-22: a red on, nothing to nominate
        return ids == 0, none, none
    if task == "golf":  # GF-08/21: the cue ball, the player's own ball (to_play + 1) first; nothing to choose
        return ids == 0, on & (ids == int(obs["to_play"]) + 1), none
    return ids == 0, on & (ids != 0), none  # RP-07: cue ball from hand; RP-09: object balls on the table


def load(env, xy, on, **game):
    """Put a single env's table in a given layout and referee state (test helper: what a
    position file would give), and return the observation of it. ``xy`` (N, 2) [m], ``on``
    (N,); ``game``: GameState fields by name. Nothing is played: the env's compiled step runs
    with the table inactive, which only re-reads the observation."""
    import jax
    import jax.numpy as jnp

    from cuegym.envs.record import numpy_obs

    t = env.unwrapped.tables
    s = t.state
    g = s.game._replace(**{k: jnp.asarray(v, getattr(s.game, k).dtype)[None] for k, v in game.items()})
    t.state = s._replace(xy=jnp.asarray(xy, jnp.float64)[None], on=jnp.asarray(on, bool)[None], game=g,
                         shots=jnp.zeros_like(s.shots))
    z = np.zeros(1, np.int32)
    act = {"shot": np.zeros((1, 5)), "place": np.zeros((1, 2)), "cue_ball": z, "ball": z, "pocket": z, "choice": z}
    t.state, obs, t.keys = t.program.step(t.state, act, t.keys, np.zeros(1, bool), np.zeros(1, bool), z, t.opts)
    t.obs = jax.device_get(obs)
    return numpy_obs(t.obs, env.unwrapped.observation_space, 0)


def layout(n, balls):
    """(xy (N, 2), on (N,)) with ``balls`` {index: (x, y)} on the table, the rest off."""
    xy = np.zeros((n, 2))
    on = np.zeros(n, bool)
    for k, p in balls.items():
        xy[k] = p
        on[k] = True
    return xy, on


def action(**fields):
    """A Dict action with defaults (zeros) for the fields not given."""
    a = {"shot": np.zeros(5), "place": np.zeros(2), "cue_ball": 0, "ball": 0, "pocket": 0, "choice": 0}
    a.update({k: np.asarray(v, float) if k in ("shot", "place") else v for k, v in fields.items()})
    return a


def write_golden():
    """Rewrite :data:`GOLDEN` for every id (run from the repository root)."""
    import platform

    import jax

    hashes = {env_id: rollout_hash(env_id, GOLDEN_SEED, GOLDEN_STEPS) for env_id in sorted(cuegym.ENV_TASKS)}
    data = {"seed": GOLDEN_SEED, "steps": GOLDEN_STEPS, "jax": jax.__version__, "machine": platform.machine(),
            "hashes": hashes}
    GOLDEN.write_text(json.dumps(data, indent=2) + "\n")
    print(json.dumps(data, indent=2))


if __name__ == "__main__":
    from cuegym._cache import enable_compilation_cache

    enable_compilation_cache()
    if sys.argv[1:] == ["--write-golden"]:
        write_golden()
    elif sys.argv[1:2] == ["--check-vector"] and len(sys.argv) >= 4:
        # the long form of test_vector_env_matches_single_envs, e.g. 64 envs x 200 steps
        num, steps = int(sys.argv[2]), int(sys.argv[3])
        for env_id in sys.argv[4:] or sorted(cuegym.ENV_TASKS):
            lanes = vector_rollout_hashes(env_id, GOLDEN_SEED, steps, num)
            twins = [rollout_hash(env_id, GOLDEN_SEED + i, steps) for i in range(num)]
            print(env_id, f"{num} sub-envs x {steps} steps:", "all match" if lanes == twins else
                  f"MISMATCH in sub-envs {[i for i in range(num) if lanes[i] != twins[i]]}", flush=True)
    else:
        sys.exit("usage: python tests/env_api.py --write-golden | --check-vector NUM_ENVS STEPS [ID ...]")
