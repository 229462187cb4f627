"""cuegym/Golf-v0 (the API checks: tests/envs/test_api.py): the golf decisions through the
env against the catalogue: the opening stroke (GF-09/10),
a foul's 3 strokes (GF-07/22), the cue ball in hand in the house (GF-27, POOL-GEN-15/30),
the set-up after the cue ball leaves the table with the own ball in the house (GF-23), the
series passing pocket by pocket (GF-11..15, GF-19) and the lowest total winning (GF-05,
AMB-51). Every test here runs the single-env program of the shared tests (one table,
noise a traced option)."""

import gymnasium as gym
import numpy as np
import pytest
from env_api import action, layout, load

from cuegym.physics import POCKETS, get_spec, get_table
from cuegym.rules import golf as gf

ENV_ID = "cuegym/Golf-v0"
SPEC = get_spec("snooker-12ft")
N = gf.N_BALLS
R = SPEC.ball_radius
CENTRE, REAR, FRONT = (np.asarray(SPEC.spots()[k]) for k in ("centre", "rear", "front"))
NO_PACE = [np.pi / 2, 0.0, 0, 0, 0]


def pocket_id(golf_pocket):
    """The physics pocket id (the action's ``pocket`` index) of golf pocket 1..6 (AMB-47:
    1 foot-right, 2 right middle, 3 head-right, 4 head-left, 5 left middle, 6 foot-left)."""
    return POCKETS.index(("FR", "MR", "HR", "HL", "ML", "FL")[golf_pocket - 1])


def pot_line(golf_pocket, back):
    """A ball ``back`` [m] from a corner pocket's centre along its 45° axis, and the
    heading [rad] from it into the pocket."""
    k = pocket_id(golf_pocket)
    mouth = np.asarray(get_table("snooker-12ft").pocket_xy)[k]
    u = np.sign(mouth - np.array([SPEC.width, SPEC.length]) / 2) / np.sqrt(2)  # toward the corner
    return mouth - back * u, float(np.arctan2(u[1], u[0]))


def straight_pot(golf_pocket):
    """(cue ball (2,), own ball (2,), heading [rad]): a full-ball pot into a corner."""
    ball, phi = pot_line(golf_pocket, 0.25)
    return ball - 0.3 * np.array([np.cos(phi), np.sin(phi)]), ball, phi


def game(**fields):
    """GolfState fields for :func:`env_api.load`: two players, pocket 1, no opening
    stroke due, player 0 to play; ``fields`` override."""
    g = dict(to_play=0, phase=0, num_players=2, first=0, pocket=1, next_pocket=[1, 1, 7, 7, 7, 7],
             strokes=[0] * 6, sheet=np.zeros((6, 6), int), opening=False, choices=0, shots=5, winner=-1)
    g.update(fields)
    return g


def test_num_players_option_is_checked_and_sizes_the_game():
    """GF-02: any number of players, here 2..6 (a ValueError naming ``num_players``
    otherwise; the other games are two-player games); the observation says how many play and
    only they have a pocket to play."""
    for bad in (1, 7, 2.0, True):
        with pytest.raises(ValueError, match="num_players"):
            gym.make(ENV_ID, num_players=bad)
    with pytest.raises(ValueError, match="num_players"):
        gym.make("cuegym/Snooker-v0", num_players=3)
    env = gym.make(ENV_ID, num_players=3)
    obs, info = env.reset(seed=4)
    assert env.unwrapped.func.num_players == 3 and obs["num_players"] == 3 and obs["to_play"] < 3
    assert obs["target_pocket"].tolist() == [pocket_id(1)] * 3 + [-1] * 3  # everyone starts at pocket 1
    assert info["scores"].shape == (gf.MAX_PLAYERS,) and obs["opening"] == 1


def test_GF_09_the_opening_stroke_must_reach_the_rear_cushion():
    """GF-09/10 (AMB-49): an opening stroke whose own ball does not reach the rear cushion
    is a foul (1 + 3 strokes) and both balls go back to the centre and rear spots; one that
    drives the ball to the rear cushion meets the requirement (1 stroke)."""
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    xy, on = layout(N, {0: REAR - [0, 0.2], 1: REAR})
    load(env, xy, on, **game(opening=True))
    obs, r, _, _, info = env.step(action(shot=[np.pi / 2, 0.3, 0, 0, 0]))  # the ball stops short of the cushion
    assert info["foul"] and {"GF-09", "GF-10"} <= set(info["clauses"]) and r == -4.0
    assert obs["opening"] == 1 and info["to_play"] == 0 and obs["scores"][0] == 4
    assert np.allclose(obs["balls"][[0, 1], :2], [CENTRE, REAR], atol=1e-6)
    obs, r, _, _, info = env.step(action(shot=[np.pi / 2, 3.0, 0, 0, 0]))  # straight up the table, firmly
    assert not info["foul"] and r == -1.0 and obs["opening"] == 0 and obs["scores"][0] == 5


def test_GF_22_a_foul_charges_three_strokes_more_and_the_series_goes_on():
    """GF-07/22 with GF-19: missing the own ball (POOL-GEN-34, GF-21) costs the stroke and 3
    more; the player's series at the pocket goes on; the others are not charged."""
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    xy, on = layout(N, {0: (0.875, 1.0), 2: (0.3, 2.0)})
    load(env, xy, on, **game(to_play=1, strokes=[7, 2, 0, 0, 0, 0]))
    obs, r, _, _, info = env.step(action(shot=[3 * np.pi / 2, 1.0, 0, 0, 0]))  # toward the head cushion
    assert info["foul"] and "POOL-GEN-34" in info["clauses"] and info["acted"] == 1 and r == -4.0
    assert info["rewards"].tolist() == [0, -4, 0, 0, 0, 0] and obs["scores"].tolist() == [7, 6, 0, 0, 0, 0]
    assert info["to_play"] == 1 and np.allclose(obs["balls"][2, :2], (0.3, 2.0))


def test_GF_27_the_cue_ball_in_hand_is_placed_in_the_house():
    """GF-27, POOL-GEN-15/30: the cue ball in hand goes strictly inside the house; a
    placement past the front line is moved into it, one on a ball is moved off it, both
    reported (``projected``); one inside on a free spot is kept."""
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    xy, on = layout(N, {1: (0.5, 0.4)})
    setups = (((1.2, 0.3), False), ((1.2, 1.5), True), ((0.5, 0.4), True))
    for place, moved in setups:
        obs = load(env, xy, on, **game(phase=gf.IN_HAND_HOUSE))
        assert obs["legal_cue_ball"].tolist() == [1, 0, 0, 0, 0, 0, 0]
        _, _, _, _, info = env.step(action(shot=NO_PACE, place=place))
        start = np.asarray(env.unwrapped.tables.state.last_xy[0])
        assert info["projected"] == moved, place
        assert 0 < start[0, 1] < SPEC.head_line and 0 < start[0, 0] < SPEC.width  # in the house
        assert np.hypot(*(start[0] - start[1])) >= 2 * R * (1 - 1e-9)
        if not moved:
            assert np.allclose(start[0], place)


@pytest.mark.parametrize("choice", [gf.REAR_SPOT, gf.FRONT_SPOT])
def test_GF_23_with_the_own_ball_in_the_house_the_striker_chooses_the_set_up(choice):
    """GF-23 (AMB-52): the cue ball off the table and the own ball in the house: the striker
    chooses (``legal_choice``) his ball on the rear spot and the cue ball in hand in the
    house, or the cue ball on the front spot to play at his ball; no stroke is charged."""
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    xy, on = layout(N, {1: (0.5, 0.4)})
    obs = load(env, xy, on, **game(phase=gf.HOUSE_CHOICE, choices=3, strokes=[9, 4, 0, 0, 0, 0]))
    assert obs["legal_choice"].tolist() == [1, 1, 0, 0, 0, 0, 0] and not obs["legal_cue_ball"].any()
    obs, r, _, _, info = env.step(action(choice=choice))
    assert "GF-23" in info["clauses"] and r == 0.0 and obs["scores"][0] == 9 and info["to_play"] == 0
    if choice == gf.FRONT_SPOT:
        assert info["phase"] == "normal" and np.allclose(obs["balls"][0], [*FRONT, 1])
        assert np.allclose(obs["balls"][1, :2], (0.5, 0.4))
    else:
        assert info["phase"] == "in_hand_house" and obs["balls"][0, 2] == 0
        assert np.allclose(obs["balls"][1, :2], REAR, atol=1e-6)


def test_GF_13_15_the_turn_passes_pocket_by_pocket():
    """GF-11/13: player 0 pots his ball into pocket 1: his series is over and player 1
    starts his from the same set-up (cue ball on the centre spot, his ball on the rear spot,
    an opening stroke due). GF-14/15: when player 1, the last of the round, pots into pocket
    1, the round is over and player 0 plays at pocket 2, his ball on the rear spot and the
    cue ball where it stopped."""
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    cue, ball, phi = straight_pot(1)
    xy, on = layout(N, {0: cue, 1: ball})
    load(env, xy, on, **game())
    obs, r, _, _, info = env.step(action(shot=[phi, 1.5, 0, 0, 0]))
    assert not info["foul"] and r == -1.0 and info["to_play"] == 1 and obs["opening"] == 1
    assert obs["target_pocket"][:2].tolist() == [pocket_id(2), pocket_id(1)]
    assert np.allclose(obs["balls"][[0, 2], :2], [CENTRE, REAR], atol=1e-6) and obs["balls"][1, 2] == 0
    cue, ball, phi = straight_pot(1)
    xy, on = layout(N, {0: cue, 2: ball})
    load(env, xy, on, **game(to_play=1, next_pocket=[2, 1, 7, 7, 7, 7], strokes=[3, 5, 0, 0, 0, 0]))
    obs, r, _, _, info = env.step(action(shot=[phi, 1.5, 0, 0, 0]))
    assert not info["foul"] and r == -1.0 and info["to_play"] == 0 and obs["opening"] == 0
    assert obs["target_pocket"][:2].tolist() == [pocket_id(2), pocket_id(2)]
    assert np.allclose(obs["balls"][1, :2], REAR, atol=1e-6) and obs["balls"][2, 2] == 0
    stopped = obs["balls"][0, :2]
    assert obs["balls"][0, 2] == 1 and np.hypot(*(stopped - CENTRE)) > 0.5  # not put back on the centre spot


def test_GF_05_the_lowest_total_wins_when_the_last_ball_is_potted():
    """GF-05, AMB-51: the game ends with the last player's pot into pocket 6; the lowest
    total wins, whoever potted last."""
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    cue, ball, phi = straight_pot(6)
    xy, on = layout(N, {0: cue, 2: ball})
    load(env, xy, on, **game(to_play=1, pocket=6, next_pocket=[7, 6, 7, 7, 7, 7], strokes=[30, 29, 0, 0, 0, 0]))
    obs, r, term, _, info = env.step(action(shot=[phi, 1.5, 0, 0, 0]))
    assert term and r == -1.0 and info["phase"] == "frame_over"
    assert obs["scores"][:2].tolist() == [30, 30] and info["winner"] == -1  # level: a tie
    load(env, xy, on, **game(to_play=1, pocket=6, next_pocket=[7, 6, 7, 7, 7, 7], strokes=[28, 29, 0, 0, 0, 0]))
    obs, r, term, _, info = env.step(action(shot=[phi, 1.5, 0, 0, 0]))
    assert term and info["winner"] == 0 and obs["target_pocket"].tolist() == [-1] * 6


def test_the_other_players_are_played_by_the_opponent():
    """With an opponent the agent is player 0 and every other player's decisions are played
    inside ``step`` until player 0 is to play again or the game ends (here 3 players: the
    random opponent plays players 1 and 2); the agent's reward is minus its own strokes."""
    env = gym.make(ENV_ID, num_players=3, opponent="random", max_shots=12, noise=0.0)
    obs, _ = env.reset(seed=1)
    assert obs["to_play"] == 0  # a game opened by another player was played up to player 0's turn
    cue, ball, phi = straight_pot(1)
    xy, on = layout(N, {0: cue, 1: ball})
    load(env, xy, on, **game(num_players=3, next_pocket=[1, 1, 1, 7, 7, 7]))
    obs, r, term, trunc, info = env.step(action(shot=[phi, 1.5, 0, 0, 0]))
    assert r == -1.0 and obs["scores"][0] == 1  # the agent's stroke only
    assert info["opponent_strokes"] >= 1 and (info["to_play"] == 0 or term or trunc)
    assert obs["scores"][1] + obs["scores"][2] >= info["opponent_strokes"]  # each decision a stroke at least
    assert info["rewards"].tolist() == (-obs["scores"]).tolist()  # every player's, over the whole step


@pytest.mark.parametrize("mode", ["shot_only", "flatten"])
def test_the_sb3_wrappers_step_golf(mode):
    """``make_sb3_env`` (FlatObservation over ShotOnly or FlattenDictAction) works on golf:
    one Box vector per observation, (7 × 3 balls) + one-hots of phase (9), to_play (6),
    opening (2), num_players (7) + scores (6) + three masks (3 × 7) + target_pocket (6) = 78
    values, and Box actions step the game."""
    from cuegym.envs.wrappers import make_sb3_env

    env = make_sb3_env(ENV_ID, mode, num_players=3)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (21 + 9 + 6 + 2 + 7 + 6 + 21 + 6,) and env.observation_space.contains(obs)
    env.action_space.seed(0)
    for _ in range(3):
        obs, r, term, trunc, info = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs) and r in (-1.0, -4.0, 0.0)  # a stroke, a foul, a set-up
        assert info["rewards"].shape == (6,)
