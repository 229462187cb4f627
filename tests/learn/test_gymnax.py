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
    with pytest.raises(ValueError, match="aim"):
        cg.make("cuegym/PotShot-v0", action="shot", aim="pocket")
    with pytest.raises(ValueError, match="aim"):
        cg.make("cuegym/PotShot-v0", action="menu", aim="ball")


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


def _on_a_line_to_pocket(env, gap):
    """A PotShot state with the object ball 0.5 m from pocket 0 on its axis and the cue ball
    ``gap`` [m] behind it on the same line."""
    from cuegym.envs import functional as F
    from cuegym.physics import get_table

    table = get_table("pool-9ft")
    pocket = np.asarray(table.pocket_xy[0])
    axis = np.asarray(table.drop_n[0])
    obj = pocket - 0.5 * axis
    cue = obj - gap * axis
    return F.init(env.func, jax.random.PRNGKey(0))._replace(xy=jnp.asarray(np.stack([cue, obj]))), cue, obj


def test_ball_frame_aim_spans_the_contact_range():
    """aim="ball": u = 0 aims at the ball's centre; |u| = 1 passes the ball's centre at 2R
    (the thinnest contact), on the side of u's sign; between, the centre's distance from
    the aim line is d sin(|u| asin(2R/d)) for centres d apart."""
    env, _ = cg.make("cuegym/PotShot-v0", action="shot", aim="ball", table="pool-9ft")
    gap = 0.4
    state, cue, obj = _on_a_line_to_pocket(env, gap)
    st = cg.EnvState(state, {}, jnp.asarray(0, jnp.int32))
    r = env.func.spec.ball_radius
    d = obj - cue
    dist = float(np.linalg.norm(d))
    assert dist == pytest.approx(gap)
    widest = np.arcsin(2 * r / dist)
    for u in (-1.0, -0.5, 0.0, 0.3, 1.0):
        phi = float(env.decision(st, jnp.asarray([u, 0.0, 0.0, 0.0, 0.0]))["shot"][0])
        line = np.array([np.cos(phi), np.sin(phi)])
        side = line[0] * d[1] - line[1] * d[0]  # the centre's signed distance from the aim line
        assert -side == pytest.approx(dist * np.sin(u * widest), abs=1e-12)
    assert dist * np.sin(widest) == pytest.approx(2 * r, rel=1e-12)


def test_ball_frame_aim_full_ball_pots_the_straight_shot_and_the_edge_cuts_it():
    """Noise-free, a full-ball stroke (u = 0) pots a ball on the pocket's axis; at u = 0.9
    the object ball is still met first but leaves on a cut and misses the pocket."""
    env, params = cg.make("cuegym/PotShot-v0", action="shot", aim="ball", table="pool-9ft", noise=0.0)
    state, _, _ = _on_a_line_to_pocket(env, 0.4)
    st = cg.EnvState(state, {}, jnp.asarray(0, jnp.int32))
    step = jax.jit(env.step)
    speed = -0.6  # unit in [-1, 1]: 2 m/s of the 0..10 m/s range
    got = {}
    for u in (0.0, 0.9):
        _, _, reward, done, info = step(jax.random.PRNGKey(3), st, jnp.asarray([u, speed, 0.0, 0.0, 0.0]), params)
        got[u] = (float(reward), bool(done), bool(info["foul"]))
    assert got[0.0][:2] == (1.0, True)
    assert got[0.9][0] == 0.0 and not got[0.9][2]  # a legal contact, no pot


def test_egocentric_signed_cut_is_the_sine_of_the_turn_from_aim_to_path():
    """The cue ball 0.4 m behind the ghost ball for pocket 0, its aim turned 30 degrees
    anticlockwise from the object ball's path: cos(cut) = cos 30, and the path turns -30
    degrees from the aim, so the signed sine is -1/2; mirrored, +1/2."""
    from cuegym.envs import functional as F
    from cuegym.physics import get_table

    env, _ = cg.make("cuegym/PotShot-v0", observation="egocentric", table="pool-9ft")
    table = get_table("pool-9ft")
    r = env.func.spec.ball_radius
    pocket = np.asarray(table.pocket_xy[0])
    u = np.asarray(table.drop_n[0])
    obj = pocket - 0.5 * u
    ghost = obj - 2 * r * u
    for turn, want in ((30.0, -0.5), (-30.0, 0.5)):
        c, s = np.cos(np.deg2rad(turn)), np.sin(np.deg2rad(turn))
        aim = np.array([c * u[0] - s * u[1], s * u[0] + c * u[1]])
        cue = ghost - 0.4 * aim
        state = F.init(env.func, jax.random.PRNGKey(0))._replace(xy=jnp.asarray(np.stack([cue, obj])))
        ego = np.asarray(O.egocentric(env.func, state, 0)).reshape(2, -1)
        assert ego[1, 10] == pytest.approx(np.cos(np.deg2rad(30.0)), abs=1e-6)  # float32
        assert ego[1, 22] == pytest.approx(want, abs=1e-6)
        assert np.all(ego[0, 22:28] == 0)  # the striker has no cut


def test_residual_plays_its_candidate_corrected_in_aim_and_pace():
    """action="residual": (k, 0) is menu candidate k itself; (k, c) turns its phi by
    c[0] x 1.5 degrees and scales its speed by 1 + c[1] / 4, the rest unchanged."""
    env, params = cg.make("cuegym/PotShot-v0", action="residual", table="pool-9ft")
    menu_env, _ = cg.make("cuegym/PotShot-v0", action="menu", table="pool-9ft")
    assert isinstance(env.action_space(params), spaces.Tuple)
    assert env.num_actions == M.size() and env.layout() == menu_env.layout()
    obs, state = env.reset(jax.random.PRNGKey(4), params)
    k = M.size() - 1  # the ghost: always legal
    plain = menu_env.decision(state, k)
    same = env.decision(state, (k, jnp.zeros(2)))
    assert all(np.array_equal(np.asarray(plain[f]), np.asarray(same[f])) for f in plain)
    turned = env.decision(state, (k, jnp.asarray([1.0, -1.0])))
    shot, base = np.asarray(turned["shot"]), np.asarray(plain["shot"])
    assert shot[0] - base[0] == pytest.approx(np.deg2rad(1.5), abs=1e-12)
    assert shot[1] == pytest.approx(base[1] * 0.75, rel=1e-12)
    np.testing.assert_array_equal(shot[2:], base[2:])
    clipped = env.decision(state, (k, jnp.asarray([7.0, 0.0])))  # the correction is clipped to [-1, 1]
    assert float(clipped["shot"][0]) == pytest.approx(float(turned["shot"][0]), abs=1e-12)


def test_residual_distribution_is_the_candidate_then_its_gaussian():
    """log p(k, c) = log softmax(logits)[k] + the diagonal Gaussian's log density of c about
    mean[k]; greedy is (argmax, mean[argmax]); the entropy is the two's sum."""
    from cuegym.learn import ppo

    env, _ = cg.make("cuegym/PotShot-v0", action="residual", table="pool-9ft")
    logits = jnp.asarray([[0.0, 1.0, -2.0]])
    mean = jnp.asarray([[[0.1, 0.2], [-0.3, 0.4], [0.0, 0.0]]])
    log_std = jnp.asarray([-1.0, -0.5])
    dist = ppo.distribution(env, (logits, mean, log_std, jnp.zeros(1)))
    c = jnp.asarray([[-0.2, 0.1]])
    std = np.exp(np.asarray(log_std))
    z = (np.asarray(c[0]) - np.asarray(mean[0, 1])) / std
    want = (np.asarray(jax.nn.log_softmax(logits[0]))[1]
            + np.sum(-0.5 * z**2 - np.log(std) - 0.5 * np.log(2 * np.pi)))
    assert float(dist.log_prob((jnp.asarray([1]), c))[0]) == pytest.approx(want, rel=1e-6)
    k, cc = ppo.greedy(env, (logits, mean, log_std, jnp.zeros(1)))
    assert int(k[0]) == 1 and np.allclose(np.asarray(cc[0]), [-0.3, 0.4])
    p = np.asarray(jax.nn.softmax(logits[0]))
    gauss = np.sum(0.5 * np.log(2 * np.pi * np.e) + np.asarray(log_std))
    assert float(dist.entropy()[0]) == pytest.approx(-np.sum(p * np.log(p)) + gauss, rel=1e-6)
    ks, cs = dist.sample(seed=jax.random.PRNGKey(0))
    assert ks.shape == (1,) and cs.shape == (1, 2)


def test_an_illegal_menu_index_is_no_stroke_ruled_a_foul_and_flagged():
    """A masked candidate or an index out of [0, K) plays no stroke: in Russian pyramid the
    referee rules it a foul (the cue ball touches no object ball, RU-GEN-37) and info flags it; a
    legal index is not flagged."""
    env, params = cg.make("cuegym/RussianPyramid-v0", opponent=None, table="pyramid-12ft", noise=0.0)
    step = jax.jit(env.step)
    obs, state = env.reset(jax.random.PRNGKey(7), params)
    legal = np.asarray(state.legal)
    masked = int(np.flatnonzero(~legal)[0])
    good = int(np.flatnonzero(legal)[0])
    for index, bad in ((masked, True), (M.size(), True), (-1, True), (good, False)):
        _, after, _, _, info = step(jax.random.PRNGKey(8), state, jnp.asarray(index), params)
        assert bool(info["illegal"]) == bad, index
        if bad:
            assert bool(info["foul"]), index
            # the object balls stay (the cue ball, in hand at the deal, is placed at the ghost's spot)
            np.testing.assert_array_equal(np.asarray(after.table.xy)[1:], np.asarray(state.table.xy)[1:])
    assert isinstance(env.action_space(params), spaces.Discrete)
