"""Opponents (``opponent=`` None | "random" | "ghost" | callable), on cuegym/RussianPyramid-v0:
the agent is always player 0, the env plays player 1's decisions inside ``step``, the reward
is player 0's total, and built-in opponents are deterministic per seed.

The envs here run the programs test_env_russian_pyramid.py compiles (a single env and a
vector env of 3, with the options traced), so this module compiles no program of its own
beyond the small jitted heuristics checked at the end."""

import functools

import gymnasium as gym
import jax
import numpy as np
import pytest
from env_api import action, layout, load

import cuegym  # noqa: F401  (registers the ids)
from cuegym import api_test
from cuegym.envs import functional as F

ENV_ID = "cuegym/RussianPyramid-v0"
SCALE = 0.1  # Russian pyramid's default reward_scale


def play(opponent, seed, steps, **options):
    """Observations, rewards and infos of a seeded run with seeded random agent actions."""
    env = gym.make(ENV_ID, opponent=opponent, **options)
    env.action_space.seed(seed)
    obs, info = env.reset(seed=seed)
    out = [(obs, 0.0, info)]
    for _ in range(steps):
        obs, r, term, trunc, info = env.step(env.action_space.sample())
        out.append((obs, r, info))
        if term or trunc:
            break
    return out


@pytest.mark.parametrize("opponent", ["random", "ghost"])
def test_agent_is_player_0_and_reward_is_its_score_difference(opponent):
    """Every observation the agent gets has player 0 to play (or the frame over), and the
    episode's return is player 0's final (own - opponent's) score times reward_scale; from
    the second step on, each step's reward is the change of that difference (RP-05/16)."""
    run = play(opponent, 5, 8, max_shots=12)
    strokes = 0
    for k, (obs, r, info) in enumerate(run):
        ended = info["phase"] == "frame_over" or k == len(run) - 1
        assert obs["to_play"] == 0 or ended
        if k:
            assert info["acted"] == 0
            strokes += info["opponent_strokes"]
        if k >= 2:
            before, after = run[k - 1][0]["scores"], obs["scores"]
            assert np.isclose(r, SCALE * ((after[0] - after[1]) - (before[0] - before[1])))
    final = run[-1][0]["scores"]
    assert np.isclose(sum(r for _, r, _ in run), SCALE * (final[0] - final[1]))
    assert strokes + run[0][2]["opponent_strokes"] > 0


@pytest.mark.parametrize("opponent", ["random", "ghost"])
def test_built_in_opponents_are_deterministic_per_seed(opponent):
    def digest(run):
        return [(o["balls"].tobytes(), o["scores"].tobytes(), r) for o, r, _ in run]

    a = digest(play(opponent, 7, 4))
    assert digest(play(opponent, 7, 4)) == a
    assert digest(play(opponent, 8, 4)) != a


@pytest.mark.parametrize("field, value", [("shot", np.array([np.nan, 1.0, 0, 0, 0], np.float32)),
                                          ("cue_ball", 16), ("pocket", np.int64(6))])
def test_a_bad_action_with_an_opponent_raises_before_the_opponent_plays(field, value):
    """The single env sends a usual action's command before checking its values (the check
    runs while the compiled step does): a bad value raises naming the field, the opponent
    plays nothing, and the env goes on as if the call had not been made."""
    env = gym.make(ENV_ID, opponent="ghost")
    env.reset(seed=4)
    env.action_space.seed(4)
    good = env.action_space.sample()
    with pytest.raises(ValueError, match=f"action.{field}"):
        env.step({**good, field: value})
    after = env.step(good)
    fresh = gym.make(ENV_ID, opponent="ghost")
    fresh.reset(seed=4)
    twin = fresh.step(good)
    assert all(np.array_equal(after[0][k], twin[0][k]) for k in after[0]) and after[1:4] == twin[1:4]
    assert after[4]["opponent_strokes"] == twin[4]["opponent_strokes"]


def test_callable_opponent_gets_valid_observations_with_player_1_to_play():
    env = gym.make(ENV_ID)
    space = env.observation_space
    seen = []

    def opponent(obs):
        assert space.contains(obs) and obs["to_play"] == 1
        seen.append(obs)
        a = env.action_space.sample()
        a["ball"] = int(np.flatnonzero(obs["legal_ball"])[0])
        return a

    env = gym.make(ENV_ID, opponent=opponent)
    env.action_space.seed(3)
    obs, info = env.reset(seed=3)
    calls = info["opponent_strokes"]
    for _ in range(4):
        obs, r, term, trunc, info = env.step(env.action_space.sample())
        calls += info["opponent_strokes"]
        assert obs["to_play"] == 0 or term or trunc
        if term or trunc:
            break
    assert calls == len(seen) > 0


def test_vector_env_with_an_opponent_matches_single_envs():
    """Sub-env i of a vector env seeded s equals the single env seeded s + i, opponent
    strokes included: a table not being stepped keeps its state and its key."""
    n, seed = 3, 30
    venv = gym.make_vec(ENV_ID, num_envs=n, opponent="random")
    singles = [gym.make(ENV_ID, opponent="random") for _ in range(n)]
    vobs, vinfo = venv.reset(seed=seed)
    sobs = [e.reset(seed=seed + i) for i, e in enumerate(singles)]
    assert [s[1]["opponent_strokes"] for s in sobs] == list(vinfo["opponent_strokes"])
    rng = np.random.default_rng(1)
    for _ in range(3):
        acts = [action(shot=[rng.uniform(0, 6.2), rng.uniform(0.5, 4), 0, 0, 0], place=[0.8875, 0.4],
                       ball=int(rng.integers(1, 16))) for _ in range(n)]
        batch = {k: np.stack([np.asarray(a[k]) for a in acts]) for k in acts[0]}
        vobs, vr, vterm, vtrunc, vinfo = venv.step(batch)
        for i, e in enumerate(singles):
            o, r, term, trunc, info = e.step(acts[i])
            assert all(np.array_equal(vobs[k][i], o[k]) for k in o)
            assert r == vr[i] and term == vterm[i] and trunc == vtrunc[i]
            assert info["opponent_strokes"] == vinfo["opponent_strokes"][i]
            if term or trunc:
                return


@pytest.mark.parametrize("opponent", ["random", "ghost"])
def test_async_pool_with_an_opponent_matches_single_envs(opponent):
    """Table i of ``cuegym.make_async`` with a built-in opponent equals the single env
    seeded s + i: the opponent's decisions inside the pool's loop, the agent's reward
    including them, and frames truncated after 3 decisions dealt again (the opening's
    rewards paid at the agent's first step)."""
    lanes = api_test.play_async(ENV_ID, 30, 5, 4, 2, opponent=opponent, max_shots=3)
    assert any(step[3] or step[4] for lane in lanes for step in lane)  # some frames ended and were dealt again
    assert any(step[5] for lane in lanes for step in lane)
    api_test.compare_twins(ENV_ID, lanes, 30, "make_async", opponent=opponent, max_shots=3)


# ----------------------------------------------------------------------------- the heuristics


@functools.lru_cache(maxsize=None)
def jitted(name):
    env = F.FuncEnv(task="russian-pyramid")
    if name == "ghost":
        return env, jax.jit(lambda s: F.ghost_action(env, s))
    return env, jax.jit(jax.vmap(lambda s, k: F.random_action(env, s, k), in_axes=(None, 0)))


def table_state(env, balls, **game):
    s = F.init(env, jax.random.PRNGKey(0))
    xy, on = layout(env.n_balls, balls)
    g = s.game._replace(**{k: np.asarray(v, getattr(s.game, k).dtype) for k, v in game.items()})
    return s._replace(xy=jax.numpy.asarray(xy), on=jax.numpy.asarray(on), game=g)


def test_ghost_aims_the_cue_ball_at_the_ghost_ball():
    """Ball 7 on the FR corner's axis with the cue ball behind it on the same line (the
    pot-7 example): the ghost calls 7 in FR and aims along the line of centres, phi = pi/4,
    which points at the ghost ball, 2R short of ball 7 along the same line."""
    env, ghost = jitted("ghost")
    s = table_state(env, {0: (0.875, 2.65), 7: (1.375, 3.15), 1: (0.3, 0.6)}, phase=0, to_play=1, striker=1)
    a = jax.device_get(ghost(s))
    assert int(a["ball"]) == 7 and int(a["pocket"]) == 3
    assert np.isclose(a["shot"][0], np.pi / 4, atol=1e-9) and 1.5 <= a["shot"][1] <= 4.0


def test_ghost_pots_without_noise():
    """Played by the env: the agent's stroke touches nothing (RU-GEN-37, -5 / +5, RP-16),
    then the ghost pots ball 7 as called (+7, RP-05); max_shots=2 stops the frame there."""
    env = gym.make(ENV_ID, noise=0.0, max_shots=2, opponent="ghost")
    env.reset(seed=0)
    xy, on = layout(16, {0: (0.875, 2.65), 7: (1.375, 3.15), 1: (0.3, 0.6)})
    load(env, xy, on, to_play=0, striker=0, phase=0)
    obs, r, term, trunc, info = env.step(action(shot=[0.0, 0.0, 0, 0, 0], ball=1, pocket=0))
    assert info["foul"] and info["opponent_strokes"] == 1 and trunc
    assert obs["scores"].tolist() == [-5, 12] and obs["balls"][7, 2] == 0
    assert np.isclose(r, SCALE * (-5 - 12))


def test_random_opponent_draws_legal_integer_fields():
    env, draw = jitted("random")
    s = table_state(env, {0: (0.875, 2.65), 7: (1.375, 3.15), 1: (0.3, 0.6)}, phase=1, to_play=1, striker=1)
    a = jax.device_get(draw(s, jax.random.split(jax.random.PRNGKey(0), 256)))
    assert set(a["ball"]) == {1, 7} and set(a["cue_ball"]) == {0} and set(a["pocket"]) == set(range(6))
    spec = env.spec
    assert np.all(a["place"][:, 1] < spec.head_line) and np.all((a["shot"] >= F.SHOT_LOW) & (a["shot"] <= F.SHOT_HIGH))
