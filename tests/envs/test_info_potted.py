"""``info["potted"]``: the balls a stroke pocketed that count for the striker, checked on
seeded positions (noise 0, the default tables: the programs of the env API tests) against
the observation (which balls went from on the table to off it, or into a pocket and back to
a respot) and the catalogue (which of them count)."""

import gymnasium as gym
import numpy as np
from env_api import action, layout, load

import cuegym  # noqa: F401  (registers the ids)
from cuegym.rules import russian as ru

N = 16
FR = 3  # the pockets HL ML FL FR MR HR
# tests/rules/scenarios/*/..._follows_object_in.json: the struck ball drives the ball at (1.5, 3.275)
# into the right foot corner and follows it in (b = 0.5); nothing else moves
FOLLOW_FROM, FOLLOW_TO = (1.2, 2.975), (1.5, 3.275)
FOLLOW_SHOT = [np.pi / 4, 2.0, 0.0, 0.5, 0.0]
# tests/rules/scenarios/americanka/AM-17_debt_paid_by_next_pot.json (and RP's cuegym/examples/pot-7):
# the ball at (1.375, 3.15) goes into the right foot corner, the striking ball stays
POT_FROM, POT_TO = (0.875, 2.65), (1.375, 3.15)
POT_SHOT = [np.pi / 4, 2.5, 0.0, 0.0, 0.0]


def on_table(obs):
    return obs["balls"][:, 2] > 0.5


def left_table(before, after):
    """The balls whose on-table flag went from on to off."""
    return tuple(np.flatnonzero(on_table(before) & ~on_table(after)).tolist())


def rear_middle(env):
    """Where a ball goes back in Americanka and Moscow pyramid: frozen to the middle of the
    rear cushion (AM-14, MP-11)."""
    spec = env.unwrapped.func.spec
    return np.array([spec.width / 2, spec.length - ru.contact_offset(spec)])


def play(env_id, balls, shot, seed=0, **game):
    """Load ``balls`` {index: (x, y)} with player 0 to play from the position, play ``shot``
    (an action's fields) and return (env, observation before, observation after, info)."""
    env = gym.make(env_id, noise=0.0)
    env.reset(seed=seed)
    xy, on = layout(N, balls)
    before = load(env, xy, on, to_play=0, striker=0, phase=0, strokes=1, **game)
    after, _, _, _, info = env.step(action(**shot))
    return env, before, after, info


# ----------------------------------------------------------------------------- Russian pyramid


def test_RP_11_the_called_ball_potted_is_potted_and_scores_its_value():
    env, before, after, info = play("cuegym/RussianPyramid-v0", {0: POT_FROM, 7: POT_TO, 1: (0.5, 1.0)},
                                    {"shot": POT_SHOT, "ball": 7, "pocket": FR})
    assert not info["foul"] and "RP-11" in info["clauses"]
    assert left_table(before, after) == (7,)  # the cue ball stays
    assert info["potted"] == (7,) and all(type(b) is int for b in info["potted"])
    assert info["scores"].tolist() == [7, 0]  # RP-05: the score change is the potted ball's value


def test_RU_GEN_46_the_cue_ball_following_the_called_ball_in_is_a_foul_and_nothing_is_potted():
    env, before, after, info = play("cuegym/RussianPyramid-v0", {0: FOLLOW_FROM, 5: FOLLOW_TO, 9: (0.5, 1.0)},
                                    {"shot": FOLLOW_SHOT, "ball": 5, "pocket": FR})
    assert info["foul"] and {"RU-GEN-46", "RU-GEN-51", "RP-13"} <= set(info["clauses"])
    assert left_table(before, after) == (0,)  # ball 5 fell too and is back on the table (RP-13)
    assert info["potted"] == ()  # on a foul nothing counts (RU-GEN-51); the cue ball never does in RP


# ----------------------------------------------------------------------------- Americanka


def test_AM_09_every_ball_pocketed_on_a_correct_stroke_is_potted():
    # balls 3 and 5 (indices 2 and 4): 3 drives 5 into the corner and follows it in (AM-07)
    env, before, after, info = play("cuegym/Americanka-v0", {2: FOLLOW_FROM, 4: FOLLOW_TO, 8: (0.3, 1.4)},
                                    {"shot": FOLLOW_SHOT, "cue_ball": 2})
    assert not info["foul"] and {"AM-07", "AM-09"} <= set(info["clauses"])
    assert left_table(before, after) == (2, 4)
    assert info["potted"] == (2, 4)
    assert info["scores"].tolist() == [2, 0]


def test_AM_17_a_ball_paying_a_debt_is_potted_though_the_count_stays():
    """The striker owes a ball: the ball he pockets pays it and goes back to the rear
    cushion (AM-17, AM-14), so his count does not change, but he potted a ball that counts:
    a break in balls is one longer (experiments/evaluate.py)."""
    owner, owned_at = -np.ones(N, int), -np.ones(N, int)
    owner[[3, 5]], owned_at[[3, 5]] = 1, [0, 1]
    env, before, after, info = play("cuegym/Americanka-v0", {0: POT_FROM, 1: POT_TO, 8: (0.4, 1.0)},
                                    {"shot": POT_SHOT, "cue_ball": 0}, scores=[0, 2], debt=[1, 0],
                                    owner=owner, owned_at=owned_at, credits=2)
    assert not info["foul"] and {"AM-17", "AM-14"} <= set(info["clauses"])
    assert info["scores"].tolist() == [0, 2] and after["debt"].tolist() == [0, 0] and info["to_play"] == 0
    assert left_table(before, after) == ()  # ball 2 (index 1) fell and is back at the rear cushion
    assert np.allclose(after["balls"][1, :2], rear_middle(env), atol=1e-6)
    assert info["potted"] == (1,)


def test_AM_16_a_ball_pocketed_on_a_foul_is_not_potted():
    # ball 5 (index 4) struck into the corner, touching no ball: a foul (RU-GEN-37, AM-16)
    # and the ball goes back to the rear cushion (AM-14)
    env, before, after, info = play("cuegym/Americanka-v0", {4: FOLLOW_TO, 8: (0.3, 1.4)},
                                    {"shot": [np.pi / 4, 2.0, 0.0, 0.0, 0.0], "cue_ball": 4})
    assert info["foul"] and {"RU-GEN-37", "AM-16", "AM-14"} <= set(info["clauses"])
    assert np.allclose(after["balls"][4, :2], rear_middle(env), atol=1e-6)
    assert info["potted"] == ()


# ----------------------------------------------------------------------------- Moscow pyramid

MOSCOW = {0: FOLLOW_FROM, 5: FOLLOW_TO, 7: (0.5, 2.0), 9: (1.2, 1.2)}


def test_MP_06_the_cue_ball_following_an_object_ball_in_is_potted_and_the_removal_pots_nothing():
    """MP-06/08 with AMB-31: on a correct stroke every ball that falls counts, the cue ball
    too; the opponent's removal (MP-09) then takes a ball off, credited to the striker, but
    pockets nothing."""
    env, before, after, info = play("cuegym/MoscowPyramid-v0", MOSCOW, {"shot": FOLLOW_SHOT})
    assert not info["foul"] and {"MP-06", "MP-08", "MP-09"} <= set(info["clauses"])
    assert left_table(before, after) == (0, 5)
    assert info["potted"] == (0, 5)
    removed, _, _, _, info = env.step(action(choice=9))
    assert info["acted"] == 1 and info["phase"] == "in_hand_house"
    assert left_table(after, removed) == (9,)  # taken off, not pocketed
    assert info["potted"] == ()


def test_MP_06_the_vector_env_reports_potted_as_a_mask_per_sub_env():
    venv = gym.make_vec("cuegym/MoscowPyramid-v0", num_envs=1, noise=0.0)  # the single env's program
    venv.reset(seed=0)
    single = gym.make("cuegym/MoscowPyramid-v0", noise=0.0)  # load() reads the spaces of a single env
    tables = venv.unwrapped.tables
    shim = type("Shim", (), {"unwrapped": type("U", (), {"tables": tables,
                                                        "observation_space": single.observation_space})})
    load(shim, *layout(N, MOSCOW), to_play=0, striker=0, phase=0, strokes=1)
    batch = lambda a: {k: np.asarray([v]) for k, v in a.items()}  # noqa: E731
    _, _, _, _, info = venv.step(batch(action(shot=FOLLOW_SHOT)))
    assert info["potted"].shape == (1, N) and info["potted"].dtype == bool
    assert np.flatnonzero(info["potted"][0]).tolist() == [0, 5]
    _, _, _, _, info = venv.step(batch(action(choice=9)))
    assert not info["potted"].any()
