"""Agents (cuegym.agents): legal actions in every phase of every id, determinism, the
ghost-ball aim against its closed form, the search's success probability.

Cheap by construction: every env is on the default table with the single env's program,
and the search runs C x S = 16 x 4 = 64 lanes, one round: the functional step of 64
(:func:`cuegym.envs.functional.batched`) that tests/envs/test_api.py's functional-core check
and tests/agents/test_agents_legal.py compile for each id (the lag's search: Lag-v0's, on
pyramid-12ft). The vector env of 64 there is another program (the packed step of
:mod:`cuegym.envs.host_program`), which the search does not run."""

import math

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cuegym  # noqa: F401  (registers the ids)
from cuegym.agents import GhostBallAgent, RandomAgent, SearchAgent, make_func_env
from cuegym.envs import functional as F
from cuegym.physics import POCKETS, get_table
from cuegym.rules import russian as ru
from cuegym.rules.base import IN_HAND_HOUSE, IN_HAND_REAR, LAG, NORMAL, REMOVE_BALL

TINY = dict(candidates=16, samples=4, rounds=1, time_budget=None)
GAMES = ("cuegym/RussianPyramid-v0", "cuegym/Americanka-v0", "cuegym/MoscowPyramid-v0")


def agents(env_id):
    return {"random": RandomAgent(env_id), "ghost": GhostBallAgent(env_id), "search": SearchAgent(env_id, **TINY)}


def check_legal(env_id, obs, action, name):
    """The action is in the action space and names only what the rules allow now."""
    env = make_func_env(env_id)
    spec = env.spec
    space = gym.make(env_id).action_space
    assert space.contains(action), (name, action)
    phase, player = int(obs["phase"]), int(obs["to_play"])
    if phase in (NORMAL, IN_HAND_HOUSE, IN_HAND_REAR, LAG):
        assert obs["legal_cue_ball"][action["cue_ball"]], (name, "cue_ball", action["cue_ball"])
        if obs["legal_ball"].any():
            assert obs["legal_ball"][action["ball"]], (name, "ball", action["ball"])
    if obs["legal_choice"].any():
        assert obs["legal_choice"][action["choice"]], (name, "choice", action["choice"])
    place = np.asarray(action["place"], np.float64)
    if phase == LAG:
        lo, hi = (np.asarray(x) for x in F.lag_region(spec, player))
        assert np.all(place >= lo - 1e-6) and np.all(place <= hi + 1e-6), (name, "lag place", place)
    elif phase in (IN_HAND_HOUSE, IN_HAND_REAR):
        hand = F.HAND_BALL[env.task]
        xy, on = obs["balls"][:, :2].astype(np.float64), obs["balls"][:, 2] > 0.5
        inside = bool(ru.in_region(spec, phase, jnp.asarray(place[None], jnp.float64))[0])
        assert inside, (name, "in-hand place outside the region", place)
        if name != "random":  # the random agent draws over the region; the step moves it off a ball
            assert bool(ru.placement_ok(spec, phase, xy, on, hand, place)), (name, "place on a ball", place)


@pytest.mark.parametrize("env_id", GAMES)
def test_every_agent_plays_legally_through_a_lag_ball_in_hand_and_strokes(env_id):
    """From a lag for the break (lag_break=True) against the ghost opponent: each agent's
    decisions pass check_legal, the env neither clips, projects nor replaces them, and
    the lag and an ordinary stroke are both met."""
    seen = set()
    for name, agent in agents(env_id).items():
        env = gym.make(env_id, opponent="ghost", lag_break=True)
        for seed in (0, 1):
            obs, _ = env.reset(seed=seed)
            for k in range(2):
                if int(obs["phase"]) == 5:
                    break
                seen.add(int(obs["phase"]))
                action = agent.act(obs, jax.random.PRNGKey(k))
                check_legal(env_id, obs, action, name)
                if name == "search":
                    assert 0.0 <= agent.last_info["success"] <= 1.0
                obs, _, term, trunc, info = env.step(action)
                assert not info["clipped"] and not info["cue_replaced"], (name, info)
                assert name == "random" or not info["projected"], (name, info)
                if term or trunc:
                    break
    # the ghost's lag now stops 0.1 m from the head cushion, so it wins these lags and the
    # agents meet no stroke from hand here; tests/agents/test_agents_legal.py drives every
    # agent through IN_HAND_HOUSE in these games
    assert {LAG, NORMAL} <= seen, seen


def test_snooker_agents_place_in_the_D_nominate_and_answer_fouls():
    """Snooker: from the break (cue ball in hand in the D) against the random opponent,
    whose fouls bring the foul choice: every agent's placements are in the D and off the
    balls (cuegym.rules.snooker.placement_ok; the random agent's only in the D), its
    nomination is one the mask allows whenever one is open (SN-26/61), its answer to a
    foul is an open option; the env never clips them."""
    from cuegym.rules import snooker as sn
    from cuegym.rules.snooker_sight import in_d

    env_id = "cuegym/Snooker-v0"
    spec = make_func_env(env_id).spec
    seen = set()
    for name, agent in agents(env_id).items():
        env = gym.make(env_id, opponent="random")
        obs, _ = env.reset(seed=4)
        for k in range(3 if name != "search" else 1):
            phase = int(obs["phase"])
            if phase == 5:
                break
            seen.add(phase)
            action = agent.act(obs, jax.random.PRNGKey(k))
            assert env.action_space.contains(action), (name, action)
            if obs["legal_ball"].any():
                assert obs["legal_ball"][action["ball"]], (name, "nomination", action["ball"])
            if phase == sn.FOUL_CHOICE:
                assert obs["legal_choice"][action["choice"]], (name, "choice", action["choice"])
            if phase == sn.IN_HAND_D:
                place = np.asarray(action["place"], np.float64)
                assert bool(in_d(spec, place)), (name, "place outside the D", place)
                if name != "random":
                    xy, on = obs["balls"][:, :2].astype(np.float64), obs["balls"][:, 2] > 0.5
                    assert bool(sn.placement_ok(spec, xy, on, place)), (name, "place on a ball", place)
            obs, _, term, trunc, info = env.step(action)
            assert not info["clipped"], (name, info)
            if term or trunc:
                break
    assert sn.IN_HAND_D in seen, seen


def _obs(env_id, xy, on, phase, to_play=0, owner=None):
    """The env's observation of a hand-built state (cuegym.envs.functional)."""
    env = make_func_env(env_id)
    n = env.n_balls
    s = F.init(env, jax.random.PRNGKey(0))
    g = s.game._replace(phase=jnp.asarray(phase, jnp.int32), to_play=jnp.asarray(to_play, jnp.int32),
                        owner=jnp.asarray(np.full(n, -1) if owner is None else owner, jnp.int32))
    s = s._replace(xy=jnp.asarray(xy, jnp.float64), on=jnp.asarray(on), game=g)
    return jax.tree_util.tree_map(np.asarray, F.observe(env, s))


def test_moscow_remove_ball_and_a_ball_in_hand_in_the_temporary_house():
    """Moscow pyramid: in remove_ball every agent names an object ball on the table
    (MP-09); with every object ball in the house the ball in hand goes in the temporary
    house at the rear end (RU-GEN-20)."""
    env_id = "cuegym/MoscowPyramid-v0"
    spec = make_func_env(env_id).spec
    rng = np.random.default_rng(0)
    xy = np.zeros((16, 2))
    on = np.zeros(16, bool)
    xy[1:6] = np.column_stack([np.linspace(0.3, spec.width - 0.3, 5), np.full(5, 0.5 * spec.head_line)])
    on[1:6] = True
    owner = np.full(16, -1)
    owner[[7, 8]] = 1  # balls won by the striker (player 1) are off the table
    removal = _obs(env_id, xy, on, REMOVE_BALL, to_play=0, owner=owner)
    rear = _obs(env_id, xy, on, IN_HAND_REAR, to_play=0)
    assert removal["legal_choice"].sum() == 5
    for name, agent in agents(env_id).items():
        for obs in (removal, rear):
            action = agent.act(obs, jax.random.PRNGKey(int(rng.integers(100))))
            check_legal(env_id, obs, action, name)
        assert removal["legal_choice"][agent.act(removal, jax.random.PRNGKey(3))["choice"]]


@pytest.mark.parametrize("env_id", ["cuegym/PotShot-v0", "cuegym/Lag-v0"])
def test_training_tasks(env_id):
    """PotShot and Lag-v0: legal actions, the search's success probability in [0, 1]."""
    env = gym.make(env_id)
    for name, agent in agents(env_id).items():
        obs, _ = env.reset(seed=3)
        action = agent.act(obs, jax.random.PRNGKey(0))
        check_legal(env_id, obs, action, name)
        _, _, term, _, info = env.step(action)
        assert term and not info["clipped"]
        if name == "search":
            assert 0.0 <= agent.last_info["success"] <= 1.0


def test_search_is_deterministic_with_a_fixed_key():
    env_id = "cuegym/PotShot-v0"
    obs, _ = gym.make(env_id).reset(seed=11)
    agent = SearchAgent(env_id, **TINY)
    a = agent.act(obs, jax.random.PRNGKey(5))
    info = dict(agent.last_info)
    b = agent.act(obs, jax.random.PRNGKey(5))
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert (agent.last_info["success"], agent.last_info["value"]) == (info["success"], info["value"])


class _Clock:
    """A fake ``time`` module whose clock advances 1 s at every reading."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        self.now += 1.0
        return self.now


@pytest.mark.parametrize("budget, rounds", [(3.5, 1), (4.5, 2), (None, 3)])
def test_time_budget_starts_no_round_that_would_end_past_it(monkeypatch, budget, rounds):
    # each round reads the clock at its start and end, so on this clock every round "takes"
    # 1 s and round r (from 0) would start at 1 + 2r s after the decision began: the second
    # round starts at 3 s and would end at 4 s, the third at 5 s and 6 s
    from cuegym.agents import search as S

    env_id = "cuegym/PotShot-v0"
    obs, _ = gym.make(env_id).reset(seed=11)
    agent = SearchAgent(env_id, **{**TINY, "rounds": 3, "time_budget": budget})
    monkeypatch.setattr(S, "time", _Clock())
    agent.act(obs, jax.random.PRNGKey(5))
    assert agent.last_info["rounds"] == rounds


def straight_in(env_id, gap=0.35):
    """A PotShot layout with the object ball 0.3 m in front of the middle pocket ML (x = 0,
    y = L/2) and the cue ball ``gap`` behind it on the same line: the closed-form ghost-ball
    aim is phi = pi (straight at the pocket, along -x)."""
    ml = np.asarray(get_table(make_func_env(env_id).table).pocket_xy)[POCKETS.index("ML")]
    y = ml[1]
    obj = np.array([0.3, y])
    cue = obj + np.array([gap, 0.0])
    balls = np.array([[*cue, 1.0], [*obj, 1.0]], np.float32)
    obs, _ = gym.make(env_id).reset(seed=0)
    return {**obs, "balls": balls}


def test_ghost_and_search_aim_at_the_closed_form_ghost_ball_on_a_straight_pot():
    """The ghost aims within 0.05° of phi = pi; the search within 1.5° (it varies the aim
    by about a degree and keeps what pots under noise); the search, scoring at noise 0,
    gives the pot probability 1 and the env at noise 0 pots it."""
    env_id = "cuegym/PotShot-v0"
    obs = straight_in(env_id)
    ghost = GhostBallAgent(env_id).act(obs, None)
    assert abs(float(ghost["shot"][0]) - math.pi) < math.radians(0.05)
    assert int(ghost["pocket"]) == POCKETS.index("ML")
    agent = SearchAgent(env_id, noise=0.0, **TINY)
    action = agent.act(obs, jax.random.PRNGKey(0))
    assert abs(float(action["shot"][0]) - math.pi) < math.radians(1.5)
    assert agent.last_info["success"] == 1.0
    assert 0.0 <= agent.last_info["success"] <= 1.0


def test_as_opponent_plays_player_1_from_its_own_seeded_stream():
    """An agent as the env's callable opponent: player 1's decisions are legal and the
    same seed replays the same frame."""
    env_id = "cuegym/RussianPyramid-v0"

    def run(seed):
        agent = RandomAgent(env_id)
        calls = []
        policy = agent.as_opponent(seed)

        def opponent(obs):
            assert int(obs["to_play"]) == 1
            a = policy(obs)
            check_legal(env_id, obs, a, "random")
            calls.append(a["shot"].tobytes())
            return a

        env = gym.make(env_id, opponent=opponent)
        obs, _ = env.reset(seed=4)
        for _ in range(3):
            obs, *_ = env.step(GhostBallAgent(env_id).act(obs, None))
        return calls

    a = run(1)
    assert a and a == run(1) and a != run(2)


def test_bad_knobs_raise_naming_the_field():
    with pytest.raises(ValueError, match="candidates"):
        SearchAgent("cuegym/PotShot-v0", candidates=1)
    with pytest.raises(ValueError, match="noise"):
        SearchAgent("cuegym/PotShot-v0", noise=-1.0)
    with pytest.raises(ValueError, match="task"):
        RandomAgent("cuegym/Bowls-v0")
    with pytest.raises(ValueError, match="observation.balls"):
        GhostBallAgent("cuegym/PotShot-v0").act({"balls": np.zeros((3, 3))}, None)
