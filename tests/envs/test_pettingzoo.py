"""The PettingZoo AEC env (cuegym.envs.pettingzoo): PettingZoo's own API test, turns and rewards
against the game's definition (docs/envs.md), seeding, and bad input.

Cheap by construction: the envs run the single-env programs the Gymnasium env tests compile
(default table, noise and ball count; ``max_shots`` is a traced option), so the compiled
programs come from the persistent cache, and each test plays a handful of decisions."""

import numpy as np
import pytest
from pettingzoo.test import api_test  # the pettingzoo extra (scripts/test.sh installs it)

from cuegym.envs import pettingzoo as cpz

# The Dict observation and action spaces are the single env's (standard for this project's
# envs); api_test warns about any space that is not a Box or Discrete and about dict
# observations, which says nothing about correctness here.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
    pytest.mark.filterwarnings("ignore:Action space for each agent probably should be"),
]


def test_api_russian_pyramid():
    # a frame truncated after 4 decisions: api_test's 3 cycles of 2 agents reach the frame's
    # end and the dead steps of both agents
    api_test(cpz.env("russian-pyramid", max_shots=4), num_cycles=3)


def test_api_golf_three_players():
    e = cpz.env("golf", num_players=3, max_shots=4)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    assert e.unwrapped._env.unwrapped.func.num_players == 3
    api_test(e, num_cycles=3)


def play(e, seed: int, decisions: int):
    """A seeded frame of random legal decisions (each agent's action space seeded from
    ``seed``). Returns the reset's info and [(agent, rewards dict, info)] per decision;
    checks on the way that the agent to act is the player the table says is to play."""
    e.reset(seed=seed)
    start = e.infos[e.agent_selection]
    for p, a in enumerate(e.possible_agents):
        e.action_space(a).seed(seed + p)
    log = []
    while e.agents and len(log) < decisions:
        agent = e.agent_selection
        obs, _, terminated, truncated, info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        assert agent == f"player_{int(obs['to_play'])}"
        e.step(e.action_space(agent).sample(info["action_mask"]))
        log.append((agent, dict(e.rewards), e.infos[agent]))
    return start, log


def test_turns_and_rewards_follow_the_score():
    # docs/envs.md: after every decision the players' rewards are the change in (own score -
    # opponent's score) x reward_scale, zero-sum; the player who acted is info["acted"]
    e = cpz.env("russian-pyramid", max_shots=8)
    scale = e.unwrapped._env.unwrapped.func.scale
    start, log = play(e, seed=5, decisions=8)
    assert len(log) == 8
    before = np.asarray(start["scores"], float)
    for agent, rewards, info in log:
        assert info["acted"] == int(agent.split("_")[1])
        after = np.asarray(info["scores"], float)
        lead = (after[0] - after[1]) - (before[0] - before[1])  # player 0's lead, change
        assert rewards["player_0"] == pytest.approx(scale * lead, abs=1e-9)
        assert rewards["player_1"] == pytest.approx(-scale * lead, abs=1e-9)
        before = after
    assert any(r["player_0"] != 0 for _, r, _ in log)  # the seed's frame does change the score
    # the agents' accumulated rewards: last() pays each its rewards since it last acted
    for a in e.possible_agents:
        since = [r[a] for agent, r, _ in log]
        last_acted = max(k for k, (agent, _, _) in enumerate(log) if agent == a)
        assert e.unwrapped._cumulative_rewards[a] == pytest.approx(sum(since[last_acted:]), abs=1e-12)
    assert all(e.truncations.values()) and e.agents == e.possible_agents  # max_shots reached; not yet stepped out
    for a in e.possible_agents:  # they step out in order
        assert e.agent_selection == a
        e.step(None)
    assert e.agents == []


def test_golf_rewards_are_strokes():
    # GF-06/07: every stroke scores the striker 1, a foul 3 more (lowest total wins); the
    # env's reward is minus the striker's added score x reward_scale, nothing for the others
    e = cpz.env("golf", num_players=3, max_shots=6)
    scale = e.unwrapped._env.unwrapped.func.scale
    start, log = play(e, seed=5, decisions=6)
    assert len(log) == 6
    before = np.asarray(start["scores"], float)
    for agent, rewards, info in log:
        p = int(agent.split("_")[1])
        assert info["acted"] == p
        after = np.asarray(info["scores"], float)
        assert 1 <= after[p] - before[p] <= 4
        expected = dict.fromkeys(e.possible_agents, 0.0)
        expected[agent] = -scale * (after[p] - before[p])
        assert rewards == pytest.approx(expected, abs=1e-9)
        before = after


def test_seeded_game_repeats():
    e = cpz.env("russian-pyramid", max_shots=6)
    first = [(a, r) for a, r, _ in play(e, seed=11, decisions=6)[1]]
    second = [(a, r) for a, r, _ in play(e, seed=11, decisions=6)[1]]
    assert first == second
    assert len(first) == 6


def test_render_is_the_single_envs():
    # the same seed deals the same table, so the picture is the Gymnasium env's, pixel for pixel
    import gymnasium as gym

    e = cpz.env("cuegym/RussianPyramid-v0", render_mode="rgb_array")
    e.reset(seed=1)
    single = gym.make("cuegym/RussianPyramid-v0", render_mode="rgb_array")
    single.reset(seed=1)
    image = e.render()
    assert image.shape[1:] == (480, 3) and image.dtype == np.uint8
    np.testing.assert_array_equal(image, single.render())
    e.close()
    single.close()


def test_bad_render_mode_is_rejected():
    with pytest.raises(ValueError, match="^render_mode: "):
        cpz.env("russian-pyramid", render_mode="ansi")


@pytest.mark.parametrize("game", ["pool", "", None, "cuegym/Golf-v1"])
def test_unknown_game_is_rejected(game):
    with pytest.raises(ValueError, match="^game: "):
        cpz.env(game)


@pytest.mark.parametrize("game", ["pot-shot", "lag", "cuegym/PotShot-v0", "cuegym/Lag-v0"])
def test_one_player_tasks_are_rejected(game):
    with pytest.raises(ValueError, match="^game: .*one-player task"):
        cpz.env(game)


@pytest.mark.parametrize(("game", "num_players"), [
    ("russian-pyramid", 3), ("snooker", 1), ("cuegym/Americanka-v0", 6), ("golf", 1), ("golf", 7),
    ("golf", True), ("golf", 2.0), ("moscow-pyramid", "2"),
])
def test_bad_num_players_is_rejected(game, num_players):
    with pytest.raises(ValueError, match="^num_players: .*played by 2"):
        cpz.env(game, num_players=num_players)


def test_opponent_is_not_an_option():
    with pytest.raises(ValueError, match="^opponent: "):
        cpz.env("russian-pyramid", opponent="random")
