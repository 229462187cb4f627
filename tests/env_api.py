"""The API tests every environment id must pass, written once over an ``env_id`` fixture.

Each id has a module (``test_env_<id>.py``) that imports these tests and defines the
fixture, so the ids compile on different xdist workers (``--dist loadfile``)."""

import copy
import hashlib
import json
import pathlib
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import cuegym  # registers the ids
from cuegym.tools.determinism_rollout import hash_obs, hash_outcome

STEPS = 12
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

    t = env.unwrapped._tables
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


def rollout_hash(env_id, seed, steps=STEPS):
    """SHA-256 of a seeded rollout with seeded random actions (observations, rewards, flags)."""
    env = make(env_id)
    env.action_space.seed(seed)
    h = hashlib.sha256()
    obs, _ = env.reset(seed=seed)
    for _ in range(steps):
        hash_obs(h, obs)
        obs, r, term, trunc, _ = env.step(env.action_space.sample())
        hash_outcome(h, r, term, trunc)
        if term or trunc:
            obs, _ = env.reset()
    return h.hexdigest()


def vector_rollout_hashes(env_id, seed, steps, num_envs):
    """:func:`rollout_hash` of each sub-env of a vector env seeded ``seed``: sub-env i draws
    its actions from an action space seeded ``seed + i`` and must hash like the single env
    seeded ``seed + i``. A finished sub-env resets on its next step (Gymnasium's next-step
    autoreset), which is where the single env calls ``reset()``."""
    venv = gym.make_vec(env_id, num_envs=num_envs)
    action_spaces = [copy.deepcopy(venv.unwrapped.single_action_space) for _ in range(num_envs)]
    for i, space in enumerate(action_spaces):
        space.seed(seed + i)
    idle_space = copy.deepcopy(venv.unwrapped.single_action_space)
    idle_space.seed(0)
    idle = idle_space.sample()  # what a resetting or finished sub-env is sent (ignored)
    hashes = [hashlib.sha256() for _ in range(num_envs)]
    taken = np.zeros(num_envs, int)
    resetting = np.zeros(num_envs, bool)
    obs, _ = venv.reset(seed=seed)
    while taken.min() < steps:
        acting = ~resetting & (taken < steps)
        actions = []
        for i in range(num_envs):
            if acting[i]:
                hash_obs(hashes[i], {k: v[i] for k, v in obs.items()})
            actions.append(action_spaces[i].sample() if acting[i] else idle)
        obs, r, term, trunc, _ = venv.step({k: np.stack([a[k] for a in actions]) for k in actions[0]})
        for i in np.flatnonzero(acting):
            hash_outcome(hashes[i], r[i], term[i], trunc[i])
        taken += acting
        resetting = acting & (term | trunc)
    venv.close()
    return [h.hexdigest() for h in hashes]


def test_gymnasium_env_checker(env_id):
    env = make(env_id, render_mode="rgb_array").unwrapped
    check_env(env)  # the render check draws the table after a reset (no stroke to re-simulate)


def test_spaces_and_masks(env_id):
    env = make(env_id)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    n = env.action_space["ball"].n
    for key in ("legal_ball", "legal_cue_ball", "legal_choice"):  # the wrappers rely on these names and dtypes
        assert obs[key].dtype == np.int8 and obs[key].shape == (n,), key
    cue, ball, choice = opening_masks(env_id, obs)
    assert np.array_equal(obs["legal_cue_ball"].astype(bool), cue)
    assert np.array_equal(obs["legal_ball"].astype(bool), ball)
    assert np.array_equal(obs["legal_choice"].astype(bool), choice)
    obs, r, term, trunc, info = env.step(straight_action(env))
    assert env.observation_space.contains(obs)
    assert isinstance(r, float) and isinstance(term, bool) and isinstance(trunc, bool)
    assert {"to_play", "acted", "phase", "foul", "clipped", "projected", "clauses", "opponent_strokes"} <= set(info)


def test_out_of_range_integer_fields_raise(env_id):
    env = make(env_id)
    env.reset(seed=2)
    n = env.action_space["ball"].n
    for key, bad in (("cue_ball", n), ("ball", -1), ("pocket", 6), ("choice", n + 3)):
        with pytest.raises(ValueError, match=f"action.{key}"):
            env.step(straight_action(env, **{key: bad}))


def test_bad_options_raise_naming_the_option(env_id):
    bad = (({"noise": -1.0}, "noise"), ({"max_shots": 0}, "max_shots"), ({"table": "snooker-6ft"}, "table"),
           ({"reward_scale": float("nan")}, "reward_scale"), ({"opponent": "shark"}, "opponent"))
    for options, name in bad:
        with pytest.raises(ValueError, match=name):
            make(env_id, **options)


def test_nan_and_wrong_shape_raise_and_leave_the_state_alone(env_id):
    env = make(env_id)
    env.reset(seed=2)
    bad = straight_action(env)
    bad["shot"] = np.array([np.nan, 1, 0, 0, 0], np.float32)
    with pytest.raises(ValueError, match="action.shot"):
        env.step(bad)
    bad = straight_action(env)
    bad["place"] = np.array([np.inf, 0.3], np.float32)
    with pytest.raises(ValueError, match="action.place"):
        env.step(bad)
    bad = straight_action(env)
    bad["shot"] = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="action.shot"):
        env.step(bad)
    # the state was not touched: the same seed gives the same first step as a fresh env
    ok = straight_action(env)
    a = env.step(ok)
    fresh = make(env_id)
    fresh.reset(seed=2)
    b = fresh.step(ok)
    assert all(np.array_equal(a[0][k], b[0][k]) for k in a[0]) and a[1:4] == b[1:4]


def test_huge_values_are_clipped_and_reported(env_id):
    env = make(env_id)
    env.reset(seed=3)
    _, _, _, _, info = env.step(straight_action(env, shot=np.array([1.3, 1e6, 0.0, 0.0, 0.0], np.float32)))
    assert info["clipped"]
    env.reset(seed=3)
    _, _, _, _, info = env.step(straight_action(env))
    assert not info["clipped"]


def test_seeded_rollouts_are_byte_identical_in_and_across_processes(env_id):
    first = rollout_hash(env_id, 11)
    assert rollout_hash(env_id, 11) == first
    assert rollout_hash(env_id, 12) != first
    # the child loads the program this process compiled from the persistent cache (a fresh
    # compile would cost CI half a minute per id): it checks seeding, keys and the host code
    code = ("from cuegym._cache import enable_compilation_cache; enable_compilation_cache(); "
            f"import sys; sys.path.insert(0, {str(__file__.rsplit('/', 1)[0])!r}); import env_api; "
            f"print(env_api.rollout_hash({env_id!r}, 11))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == first


def test_golden_rollout_hash_and_the_vector_env_of_one(env_id):
    """The committed hash of a seeded 200-step rollout: the same physics, referee and
    observation bytes as when it was written (tests/golden_env_rollouts.json records the
    JAX version and machine), and the same from a vector env of one."""
    golden = json.loads(GOLDEN.read_text())
    single = rollout_hash(env_id, GOLDEN_SEED, GOLDEN_STEPS)
    assert single == golden["hashes"][env_id], f"{env_id}: rollout bytes changed (see {GOLDEN.name})"
    assert vector_rollout_hashes(env_id, GOLDEN_SEED, GOLDEN_STEPS, 1) == [single]


VECTOR_ENVS, VECTOR_STEPS = 64, 6


def test_vector_env_of_64_matches_single_envs(env_id, request):
    """Each sub-env of a native vector env of 64 hashes like its single-env twin (seeded
    ``s + i``) over seeded random steps, autoresets included (PotShot-v0 and Lag-v0 end
    every episode in one step). A module may set fewer steps (``VECTOR_STEPS``): random
    strokes on a 22-ball rack run hundreds of events each, and the 64 twins are played one
    at a time (``python tests/env_api.py --check-vector 64 200`` is the long form)."""
    venv = gym.make_vec(env_id, num_envs=VECTOR_ENVS)
    assert type(venv.unwrapped).__name__ == "CueVectorEnv"  # native, one jitted call per step
    venv.close()
    seed = 20
    steps = getattr(request.module, "VECTOR_STEPS", VECTOR_STEPS)
    lanes = vector_rollout_hashes(env_id, seed, steps, VECTOR_ENVS)
    twins = [rollout_hash(env_id, seed + i, steps) for i in range(VECTOR_ENVS)]
    assert lanes == twins, f"sub-envs differing from their single twins: {[i for i in range(VECTOR_ENVS) if lanes[i] != twins[i]]}"


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
        # the long form of test_vector_env_of_64_matches_single_envs, e.g. 64 envs x 200 steps
        num, steps = int(sys.argv[2]), int(sys.argv[3])
        for env_id in sys.argv[4:] or sorted(cuegym.ENV_TASKS):
            lanes = vector_rollout_hashes(env_id, GOLDEN_SEED, steps, num)
            twins = [rollout_hash(env_id, GOLDEN_SEED + i, steps) for i in range(num)]
            print(env_id, f"{num} sub-envs x {steps} steps:", "all match" if lanes == twins else
                  f"MISMATCH in sub-envs {[i for i in range(num) if lanes[i] != twins[i]]}", flush=True)
    else:
        sys.exit("usage: python tests/env_api.py --write-golden | --check-vector NUM_ENVS STEPS [ID ...]")
