"""The gymnax front (cuegym.gymnax): gymnax's interface and spaces, autoreset, determinism,
the flat observation against the Gymnasium wrapper's, bad input, a built-in opponent's
turns, and rejax's PPO training on it unchanged."""

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from gymnax.environments import spaces

import cuegym.gymnax as cg
from cuegym.agents import menu as M
from cuegym.envs.wrappers import FlatObservation
from cuegym.learn import observations as O

B = 8


@pytest.fixture(scope="module")
def pot():
    env, params = cg.make("cuegym/PotShot-v0", table="pool-9ft", noise=1.0)
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
    return env, params, reset, step


def test_spaces_and_shapes(pot):
    env, params, reset, step = pot
    assert isinstance(env.action_space(params), spaces.Discrete)
    assert env.action_space(params).n == M.size() == env.num_actions
    assert env.observation_space(params).shape == (env.obs_size,)
    keys = jax.random.split(jax.random.PRNGKey(0), B)
    obs, state = reset(keys, params)
    assert obs.shape == (B, env.obs_size) and obs.dtype == jnp.float32
    assert bool(jnp.all(jnp.isfinite(obs)))
    action = jax.vmap(env.action_space(params).sample)(keys)
    obs2, state2, reward, done, info = step(keys, state, action, params)
    assert obs2.shape == obs.shape and reward.shape == (B,) and done.shape == (B,)
    assert {"terminated", "truncated", "discount", "success", "foul"} <= set(info)
    # PotShot is one stroke: every episode ends, and the next obs is a new episode's
    assert bool(jnp.all(done)) and bool(jnp.all(info["terminated"]))
    assert bool(jnp.all(state2.steps == 0))
    assert bool(jnp.all(state2.table.shots == 0))
    assert bool(jnp.all((reward == 0) | (reward == 1)))
    assert bool(jnp.all(info["success"] == (reward > 0)))


def test_same_keys_same_bytes_and_batch_independence(pot):
    env, params, reset, step = pot
    keys = jax.random.split(jax.random.PRNGKey(5), B)
    a = jnp.arange(B) % M.size()
    runs = []
    for _ in range(2):
        obs, state = reset(keys, params)
        runs.append(step(keys, state, a, params))
    for x, y in zip(jax.tree_util.tree_leaves(runs[0]), jax.tree_util.tree_leaves(runs[1])):
        assert np.asarray(x).tobytes() == np.asarray(y).tobytes()
    # a table alone gives the same observation as in the batch
    obs1, state1 = env.reset(keys[3], params)
    assert np.asarray(obs1).tobytes() == np.asarray(reset(keys, params)[0][3]).tobytes()


def test_the_ghost_candidate_plays_the_ghost_decision(pot):
    env, params, reset, step = pot
    from cuegym.agents.baselines import ghost_decision

    keys = jax.random.split(jax.random.PRNGKey(2), B)
    _, state = reset(keys, params)
    chosen = jax.vmap(lambda s: env.decision(s, M.size() - 1))(state)
    ghost = jax.vmap(lambda t: ghost_decision(env.func, t)[0])(state.table)
    for k in ghost:
        assert np.array_equal(np.asarray(chosen[k]), np.asarray(ghost[k]).astype(np.asarray(chosen[k]).dtype))


def test_flat_table_part_matches_the_gymnasium_wrapper():
    env, params = cg.make("cuegym/RussianPyramid-v0", action="shot", opponent=None)
    genv = FlatObservation(gym.make("cuegym/RussianPyramid-v0"))
    dict_obs, _ = genv.env.reset(seed=3)
    mine = np.asarray(jax.jit(lambda o: O.flatten(env.func, o))({k: jnp.asarray(v) for k, v in dict_obs.items()}))
    np.testing.assert_allclose(mine, genv.observation(dict_obs), rtol=1e-6, atol=1e-7)
    assert mine.shape == (env.obs_size,)


def test_bad_input_names_the_field():
    with pytest.raises(ValueError, match="env_id"):
        cg.make("cuegym/Nothing-v0")
    with pytest.raises(ValueError, match="action"):
        cg.make("cuegym/PotShot-v0", action="joystick")
    with pytest.raises(ValueError, match="observation"):
        cg.make("cuegym/PotShot-v0", observation="pixels")
    with pytest.raises(ValueError, match="opponent"):
        cg.make("cuegym/PotShot-v0", opponent="ghost")
    with pytest.raises(ValueError, match="opponent"):
        cg.make("cuegym/RussianPyramid-v0", opponent="shark")
    with pytest.raises(ValueError, match="noise"):
        cg.make("cuegym/PotShot-v0", noise=-1.0)


def test_the_opponent_plays_until_the_agent_is_to_play():
    env, params = cg.make("cuegym/RussianPyramid-v0", action="shot", opponent="ghost")
    params = params._replace(max_steps_in_episode=jnp.asarray(3, jnp.int32))  # an episode: 3 agent decisions
    keys = jax.random.split(jax.random.PRNGKey(4), 4)
    obs, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)
    assert np.all(np.asarray(state.table.game.to_play) == 0)  # the opponent's break, if it breaks, is played
    step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
    seen_opponent = False
    count = np.zeros(4, int)
    for i in range(4):
        before = np.asarray(state.table.shots)
        ks = jax.vmap(jax.random.fold_in, in_axes=(0, None))(keys, i)
        obs, state, reward, done, info = step(ks, state, jnp.zeros((4, 5)), params)
        done = np.asarray(done)
        # the agent (seat 0) is to play whenever a step hands the table back, a new frame too
        assert np.all(np.asarray(state.table.game.to_play) == 0)
        count = np.where(done, 0, count + 1)
        assert np.array_equal(np.asarray(state.steps), count)
        # the third decision ends every episode by truncation, and a new frame is dealt
        assert np.array_equal(done, np.full(4, i == 2) | np.asarray(info["terminated"]))
        if i == 2:
            assert np.all(np.asarray(info["truncated"]) | np.asarray(info["terminated"]))
            assert np.all(np.asarray(state.table.shots) < before)
        seen_opponent |= bool(np.any((np.asarray(state.table.shots) - before)[~done] > 1))
    assert seen_opponent


def test_rejax_ppo_trains_unchanged_on_pot_shot(pot):
    from rejax import PPO

    env, params, _, _ = pot
    algo = PPO.create(env=env, env_params=params, num_envs=B, num_steps=4, num_epochs=1, num_minibatches=2,
                      total_timesteps=2 * B * 4, eval_freq=2 * B * 4, skip_initial_evaluation=True)
    # rejax's own evaluation (128 episodes) would compile the env a second time; a custom
    # callback, as rejax allows, reads the training state instead
    algo = algo.replace(eval_callback=lambda algo, ts, rng: ts.global_step)
    ts, steps = jax.jit(algo.train)(jax.random.PRNGKey(0))
    before = algo.init_state(jax.random.PRNGKey(0))
    moved = jax.tree_util.tree_map(lambda a, b: jnp.any(a != b), ts.actor_ts.params, before.actor_ts.params)
    assert any(bool(x) for x in jax.tree_util.tree_leaves(moved))
    assert all(bool(jnp.all(jnp.isfinite(x))) for x in jax.tree_util.tree_leaves(ts.actor_ts.params))
    assert int(steps[-1]) == 2 * B * 4  # every env step of the budget was taken


def test_egocentric_features_see_a_straight_pot_as_a_full_ball_cut():
    from cuegym.envs import functional as F
    from cuegym.physics import get_table

    env, params = cg.make("cuegym/PotShot-v0", observation="egocentric", table="pool-9ft")
    table = get_table("pool-9ft")
    pocket = np.asarray(table.pocket_xy[0])
    axis = np.asarray(table.drop_n[0])
    obj = pocket - 0.5 * axis
    cue = obj - 0.4 * axis  # object ball between the cue ball and pocket 0, on one line
    state = F.init(env.func, jax.random.PRNGKey(0))._replace(xy=jnp.asarray(np.stack([cue, obj])))
    ego = np.asarray(O.egocentric(env.func, state, 0)).reshape(2, -1)
    length = env.func.spec.length
    np.testing.assert_allclose(ego[1, :2], (obj - cue) / length, rtol=1e-6)
    assert ego[1, 2] == pytest.approx(0.4 / length, rel=1e-6)
    assert ego[1, 4] == pytest.approx(float(np.linalg.norm(pocket - obj)) / length, rel=1e-6)
    assert ego[1, 10] == pytest.approx(1.0, abs=1e-9)  # cos(cut) into pocket 0
    assert np.all(ego[0, 10:16] == 0)  # the striker has no cut
    assert env.layout()[0] == ("menu", M.size() * M.NUM_FEATURES)
    assert ("egocentric", O.egocentric_size(env.func)) in env.layout()
    obs, _ = env.reset(jax.random.PRNGKey(1), params)
    assert obs.shape == (env.obs_size,)
