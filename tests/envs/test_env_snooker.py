"""cuegym/Snooker-v0 (the API checks: tests/envs/test_api.py): the snooker decisions through
the env against the catalogue: the D (SN-10), the
nomination (SN-26), the answer to a foul and a miss (SN-57/58/68) and the tie on the black
(SN-15)."""

import gymnasium as gym
import numpy as np
from env_api import action, layout, load

from cuegym.envs import functional as F
from cuegym.physics import get_spec, get_table
from cuegym.rules import snooker as sn
from cuegym.rules.snooker_sight import in_d

ENV_ID = "cuegym/Snooker-v0"
SPEC = get_spec("snooker-12ft")
N = sn.N_BALLS
RED, BLUE, BLACK = 1, 19, sn.BLACK
GOOD_LAG = [np.pi / 2, F.ghost_lag_speed(SPEC), 0.0, F.GHOST_LAG_B, 0.0]
SHORT_LAG = [np.pi / 2, 0.5, 0.0, 0.0, 0.0]  # never reaches the top cushion: loses (RU-GEN-08 as read here)


def pot_line(pocket, back):
    """A ball ``back`` [m] from the top-right pocket's centre along its 45° axis, and the
    heading [rad] from it into the pocket."""
    p = np.asarray(get_table("snooker-12ft").pocket_xy)
    target = p[np.argmax(p.sum(1))] if pocket == "top-right" else None
    u = np.array([1.0, 1.0]) / np.sqrt(2)
    return target - back * u, np.arctan2(u[1], u[0])


def test_SN_10_the_ball_in_hand_goes_in_the_D():
    """SN-10/17: the break is played from the D; a placement outside it is moved onto the D
    and reported (``projected``), one inside is kept."""
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    inside = [SPEC.width / 2 + 0.1, SPEC.head_line - 0.1]
    env.step(action(shot=[np.pi / 2, 0.5, 0, 0, 0], place=inside))
    start = np.asarray(env.unwrapped.tables.state.last_xy[0, 0])
    assert np.allclose(start, inside) and in_d(SPEC, start)
    env.reset(seed=0)
    _, _, _, _, info = env.step(action(shot=[np.pi / 2, 0.5, 0, 0, 0], place=[1.0, 0.1]))  # below the D: onto its arc
    start = np.asarray(env.unwrapped.tables.state.last_xy[0, 0])
    assert info["projected"] and bool(in_d(SPEC, start))
    assert np.isclose(np.hypot(start[0] - SPEC.width / 2, start[1] - SPEC.head_line), SPEC.d_radius, atol=1e-6)


def test_SN_26_a_colour_on_is_nominated_and_potted():
    """SN-25/26: after a red, a colour is on and must be nominated; the legal mask offers
    the colours on the table. Nominating the blue and potting it scores 5; while reds
    remain it is re-spotted (SN-30) and a red is on again."""
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    blue, phi = pot_line("top-right", 0.25)
    cue = blue - 0.3 * np.array([np.cos(phi), np.sin(phi)])
    xy, on = layout(N, {0: cue, BLUE: blue, RED: (0.3, 1.0), BLACK: SPEC.spots()["black"]})
    obs = load(env, xy, on, to_play=0, phase=0, ball_on=sn.COLOUR_ON, breaking=False, strokes=3)
    assert set(np.flatnonzero(obs["legal_ball"])) == {BLUE, BLACK}
    assert set(np.flatnonzero(obs["ball_on"])) == {BLUE, BLACK}
    obs, r, _, _, info = env.step(action(shot=[phi, 1.5, 0, 0, 0], ball=BLUE))
    assert not info["foul"] and obs["scores"].tolist() == [5, 0] and np.isclose(r, 0.5)
    assert np.allclose(obs["balls"][BLUE, :2], SPEC.spots()["blue"], atol=1e-6) and obs["balls"][BLUE, 2] == 1
    assert set(np.flatnonzero(obs["ball_on"])) == {RED} and not obs["legal_ball"].any()


def test_SN_58_a_miss_can_be_put_back_and_replayed():
    """SN-57: a stroke that hits nothing (here, no pace at all) is a foul and a miss; the
    incoming player sees the options play, replay and restore (SN-68, SN-58) in
    ``legal_choice``; restore puts the balls back and the offender plays again."""
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    xy, on = layout(N, {0: (0.875, 1.0), RED: (0.875, 2.0), BLACK: SPEC.spots()["black"]})
    load(env, xy, on, to_play=0, phase=0, ball_on=sn.RED_ON, breaking=False, strokes=3)
    obs, r, _, _, info = env.step(action(shot=[np.pi / 2, 0.0, 0, 0, 0]))
    assert info["foul"] and "SN-77" in info["clauses"] and "SN-57" in info["clauses"]
    assert info["phase"] == "foul_choice" and info["to_play"] == 1 and obs["scores"].tolist() == [0, 4]
    names = [sn.CHOICE_NAMES[k] for k in np.flatnonzero(obs["legal_choice"])]
    assert {"play", "replay", "restore"} <= set(names) and "rebreak" not in names
    obs, r, _, _, info = env.step(action(choice=sn.RESTORE))
    assert "SN-58" in info["clauses"] and info["to_play"] == 0 and info["phase"] == "normal" and r == 0.0
    assert np.allclose(obs["balls"][[0, RED], :2], xy[[0, RED]], atol=1e-6)


def test_SN_15_a_tie_on_the_black_is_lagged_and_replayed_from_the_D():
    """SN-14/15 with AMB-43: potting the last black to level the scores re-spots it; a lag
    follows (played here as the Russian lag stroke, each on an empty table while the black
    waits); its winner plays at the black with the cue ball in hand in the D."""
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    black, phi = pot_line("top-right", 0.25)
    cue = black - 0.3 * np.array([np.cos(phi), np.sin(phi)])
    xy, on = layout(N, {0: cue, BLACK: black})
    load(env, xy, on, to_play=1, phase=0, ball_on=7, breaking=False, strokes=40, scores=[20, 13])
    obs, r, term, _, info = env.step(action(shot=[phi, 1.5, 0, 0, 0]))
    assert not term and obs["scores"].tolist() == [20, 20] and info["phase"] == "lag" and info["to_play"] == 0
    assert np.allclose(obs["balls"][BLACK, :2], SPEC.spots()["black"], atol=1e-6)
    _, _, _, _, info = env.step(action(shot=SHORT_LAG, place=[0.4, 0.35]))  # player 0 comes up short
    assert info["phase"] == "lag" and info["to_play"] == 1 and info["clauses"] == []
    obs, _, _, _, info = env.step(action(shot=GOOD_LAG, place=[1.3, 0.35]))
    assert info["lag_winner"] == 1 and "SN-15" in info["clauses"]
    assert info["phase"] == "in_hand_d" and info["to_play"] == 1
    assert set(np.flatnonzero(obs["ball_on"])) == {BLACK} and obs["balls"][BLACK, 2] == 1
