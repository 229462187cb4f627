"""The API tests every environment id must pass, written once over an ``env_id`` fixture.

Each id has a module (``test_env_<id>.py``) that imports these tests and defines the
fixture, so the ids compile on different xdist workers (``--dist loadfile``)."""

import hashlib
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import cuegym  # noqa: F401  (registers the ids)

STEPS = 12


def make(env_id, **kw):
    return gym.make(env_id, **kw)


def straight_action(env, **overrides):
    a = env.action_space.sample()
    a["shot"][:] = [1.3, 2.5, 0.0, 0.1, 0.0]
    a["place"][:] = [0.8875, 0.4]
    a["ball"] = 4
    a["pocket"] = 3
    for k, v in overrides.items():
        a[k] = v
    return a


def rollout_hash(env_id, seed, steps=STEPS):
    """SHA-256 of a seeded rollout with seeded random actions (observations, rewards, flags)."""
    env = make(env_id)
    env.action_space.seed(seed)
    h = hashlib.sha256()
    obs, _ = env.reset(seed=seed)
    for _ in range(steps):
        for v in obs.values():
            h.update(np.asarray(v).tobytes())
        obs, r, term, trunc, _ = env.step(env.action_space.sample())
        h.update(np.float64(r).tobytes() + bytes([term, trunc]))
        if term or trunc:
            obs, _ = env.reset()
    return h.hexdigest()


def test_gymnasium_env_checker(env_id):
    env = make(env_id).unwrapped
    check_env(env, skip_render_check=True)


def test_spaces_and_masks(env_id):
    env = make(env_id)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    balls = obs["balls"]
    on = balls[:, 2] > 0.5
    # legal calls: the object balls on the table
    assert np.array_equal(obs["legal_ball"].astype(bool), on & (np.arange(len(on)) != 0))
    obs, r, term, trunc, info = env.step(straight_action(env))
    assert env.observation_space.contains(obs)
    assert isinstance(r, float) and isinstance(term, bool) and isinstance(trunc, bool)
    assert {"to_play", "acted", "phase", "foul", "clipped", "projected"} <= set(info)


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
    code = f"import sys; sys.path.insert(0, {str(__file__.rsplit('/', 1)[0])!r}); import env_api; print(env_api.rollout_hash({env_id!r}, 11))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == first


def test_vector_env_matches_single_envs(env_id):
    n, seed = 3, 20
    venv = gym.make_vec(env_id, num_envs=n)
    assert type(venv.unwrapped).__name__ == "CueVectorEnv"  # native, one jitted call per step
    singles = [make(env_id) for _ in range(n)]
    vobs, _ = venv.reset(seed=seed)
    sobs = [e.reset(seed=seed + i)[0] for i, e in enumerate(singles)]
    rng = np.random.default_rng(0)
    for _ in range(4):
        acts = [straight_action(singles[0], shot=np.array([rng.uniform(0, 6.2), rng.uniform(0.5, 4), 0, 0, 0], np.float32),
                                ball=int(rng.integers(1, singles[0].action_space["ball"].n))) for _ in range(n)]
        batch = {k: np.stack([a[k] for a in acts]) for k in acts[0]}
        for i in range(n):
            for k in vobs:
                assert np.array_equal(vobs[k][i], sobs[i][k]), k
        vobs, vr, vterm, vtrunc, _ = venv.step(batch)
        outs = []
        for i, e in enumerate(singles):
            o, r, term, trunc, _ = e.step(acts[i])
            assert r == vr[i] and term == vterm[i] and trunc == vtrunc[i]
            outs.append((o, term or trunc))
        # next-step autoreset: a finished sub-env resets on the following step; mirror it
        sobs = [o for o, _ in outs]
        if any(d for _, d in outs):
            vobs, vr, vterm, vtrunc, _ = venv.step(batch)
            for i, (e, (o, d)) in enumerate(zip(singles, outs)):
                if d:
                    assert vr[i] == 0.0 and not vterm[i]
            return
