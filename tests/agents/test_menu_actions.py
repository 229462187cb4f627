"""The shot menu as the Gymnasium env's action (``gymnasium.make(id, action="menu")``):
Gymnasium's checker, the index played as that candidate's stroke, bad indices refused
without moving a table, and the vector env's counterpart."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import cuegym  # noqa: F401  (registers the ids)
from cuegym.agents import menu as M

K = M.size()


def test_gymnasium_checker_passes_on_the_menu_env():
    env = gym.make("cuegym/PotShot-v0", action="menu", table="pool-9ft", noise=1.0)
    assert env.action_space == gym.spaces.Discrete(K)
    assert env.observation_space["menu"].shape == (K, M.NUM_FEATURES)
    check_env(env, skip_render_check=True)


def _candidate(plain, k):
    """(menu of the plain env's table now, the action dict of its candidate k)."""
    import jax

    state = jax.tree.map(lambda x: jax.numpy.asarray(x[0]), plain.unwrapped.tables.state)
    m = jax.jit(M.menu, static_argnums=0)(plain.unwrapped.func, state)  # as the wrapper builds it
    chosen = jax.device_get(M.choose(m, k))
    action = {"shot": np.asarray(chosen["shot"], np.float64), "place": np.asarray(chosen["place"], np.float64),
              **{f: int(chosen[f]) for f in ("cue_ball", "ball", "pocket", "choice")}}
    return m, action


def test_an_index_plays_that_candidates_stroke():
    """Candidate k through the wrapper gives the same bytes as the plain env stepped with
    the action dict of candidate k of the menu built for the same state."""
    options = dict(table="pyramid-12ft", noise=1.0, opponent=None)
    menu_env = gym.make("cuegym/RussianPyramid-v0", action="menu", **options)
    plain = gym.make("cuegym/RussianPyramid-v0", **options)
    obs, _ = menu_env.reset(seed=5)
    plain.reset(seed=5)
    for _ in range(8):  # the ghost's strokes (the break first) until pots are offered beside it
        legal = np.flatnonzero(obs["menu_legal"])
        if len(legal) > 1:
            break
        obs = menu_env.step(K - 1)[0]
        plain.step(_candidate(plain, K - 1)[1])
    assert legal[-1] == K - 1 and len(legal) > 1
    k = int(legal[0])
    m, action = _candidate(plain, k)
    np.testing.assert_allclose(obs["menu"], np.asarray(m.features), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(obs["menu_legal"], np.asarray(m.legal).astype(np.int8))
    got = menu_env.step(k)
    want = plain.step(action)
    for name in want[0]:
        assert np.asarray(got[0][name]).tobytes() == np.asarray(want[0][name]).tobytes(), name
    assert got[1:3] == want[1:3] and got[4]["candidate"] == k
    assert np.array_equal(got[4]["clauses"], want[4]["clauses"])


def test_a_bad_index_names_action_and_moves_no_table():
    env = gym.make("cuegym/PotShot-v0", action="menu", table="pool-9ft", noise=1.0)
    obs, _ = env.reset(seed=2)
    before = np.asarray(env.unwrapped.tables.state.xy).copy()
    masked = int(np.flatnonzero(obs["menu_legal"] == 0)[0])
    for bad, text in ((K, r"action: a menu index in \[0, 65\)"), (-1, "action"), (1.5, "integer"),
                      (masked, f"candidate {masked} is masked out")):
        with pytest.raises(ValueError, match=text):
            env.step(bad)
    np.testing.assert_array_equal(np.asarray(env.unwrapped.tables.state.xy), before)
    env.step(K - 1)  # the ghost's candidate is always legal


def test_vector_menu_env_plays_indices_and_names_the_bad_lane():
    venv = gym.make_vec("cuegym/PotShot-v0", num_envs=3, vectorization_mode="vector_entry_point", action="menu",
                        table="pool-9ft", noise=1.0)
    assert venv.single_action_space == gym.spaces.Discrete(K)
    obs, _ = venv.reset(seed=1)
    assert obs["menu"].shape == (3, K, M.NUM_FEATURES) and obs["menu_legal"].shape == (3, K)
    before = np.asarray(venv.unwrapped.tables.state.xy).copy()
    masked = int(np.flatnonzero(obs["menu_legal"][1] == 0)[0])
    with pytest.raises(ValueError, match=r"action\[1\]"):
        venv.step(np.asarray([K - 1, masked, K - 1]))
    with pytest.raises(ValueError, match="action: shape"):
        venv.step(np.asarray([K - 1, K - 1]))
    np.testing.assert_array_equal(np.asarray(venv.unwrapped.tables.state.xy), before)
    obs, reward, terminated, truncated, info = venv.step(np.full(3, K - 1))
    assert reward.shape == (3,) and bool(np.all(terminated))  # PotShot: one stroke each
    np.testing.assert_array_equal(info["candidate"], np.full(3, K - 1))
    # next-step autoreset: the ended tables reset, their indices unread
    obs, reward, *_ = venv.step(np.full(3, K + 5))
    assert bool(np.all(reward == 0))


def test_unknown_action_kind_is_refused():
    with pytest.raises(ValueError, match="action: one of dict, menu"):
        gym.make("cuegym/PotShot-v0", action="joystick")
