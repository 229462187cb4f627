"""The snooker referees' rule options (``cuegym.rules.snooker_options``) set from the env
fronts as ``snooker_rules``: checked and normalised by ``FuncEnv``, passed to the referee of
a real stroke through ``gymnasium.make``, and carried by the other fronts to the FuncEnv they
build (those checked without compiling their programs)."""

import inspect

import gymnasium as gym
import numpy as np
import pytest
from env_api import action, layout, load

import cuegym
from cuegym.envs import functional as F
from cuegym.envs.pool import pool_program
from cuegym.rules import snooker as sn
from cuegym.rules.snooker_options import DEFAULT, WPBSA, SnookerOptions

ENV_ID = "cuegym/Snooker-v0"
TABLE = "snooker-12ft"
NOMINATED = {"last_red": "nominated"}  # one program beside the default's, shared by the tests below
RED, YELLOW = 1, sn.FIRST_COLOUR
COLOURS = set(range(sn.FIRST_COLOUR, sn.N_BALLS))
# the last red a short straight pot into the right middle pocket, the colours off their
# spots (as tests/rules/scenarios/snooker/SN-35_*.json)
LAST_RED = {0: (1.25, 1.75), RED: (1.55, 1.75), YELLOW: (1.167, 0.7), YELLOW + 1: (0.583, 0.7),
            YELLOW + 2: (0.875, 0.7), YELLOW + 3: (0.875, 1.5), YELLOW + 4: (0.875, 2.625),
            YELLOW + 5: (0.875, 3.176)}


def pot_the_last_red(env):
    """(obs, info) after the striker pots the last red (noise off)."""
    env.reset(seed=0)
    xy, on = layout(sn.N_BALLS, LAST_RED)
    load(env, xy, on, to_play=0, phase=0, ball_on=sn.RED_ON, breaking=False, strokes=3)
    obs, _, _, _, info = env.step(action(shot=[0.0, 1.0, 0.0, -0.4, 0.0]))
    assert not info["foul"] and info["potted"] == (RED,) and obs["scores"].tolist() == [1, 0]
    assert info["to_play"] == 0 and obs["remaining"][0] == 0
    return obs, info


def test_last_red_reaches_the_referee_through_gym_make():
    """SN-25/26/35: after the last red, the original's reading (the default) puts the yellow
    on with nothing to nominate; ``snooker_rules={"last_red": "nominated"}`` (WPBSA, AMB-34)
    lets the striker nominate any colour. The defaults are the original's: ``"original"``
    builds the same env and runs the same compiled program."""
    original = gym.make(ENV_ID, noise=0.0)
    obs, _ = pot_the_last_red(original)
    assert set(np.flatnonzero(obs["ball_on"])) == {YELLOW} and not obs["legal_ball"].any()

    nominated = gym.make(ENV_ID, noise=0.0, snooker_rules=NOMINATED)
    assert nominated.unwrapped.func.snooker_rules == SnookerOptions(last_red="nominated")
    obs, _ = pot_the_last_red(nominated)
    assert set(np.flatnonzero(obs["ball_on"])) == COLOURS
    assert set(np.flatnonzero(obs["legal_ball"])) == COLOURS

    same = gym.make(ENV_ID, noise=0.0, snooker_rules="original").unwrapped
    assert same.func == original.unwrapped.func and same.func.snooker_rules == DEFAULT
    assert same.tables.flat is original.unwrapped.tables.flat
    assert nominated.unwrapped.tables.flat is not original.unwrapped.tables.flat


def test_values_are_normalised_and_bad_ones_name_the_field():
    """None and ``"original"`` are the defaults, ``"wpbsa"`` the practice; a dict sets the
    options it names; the result is a hashable SnookerOptions. An unknown preset, option or
    value, or a value of another type, raises ValueError naming ``snooker_rules``; so does a
    non-default value on a task without a snooker referee."""
    assert F.FuncEnv(task="snooker").snooker_rules == DEFAULT
    assert F.FuncEnv(task="snooker", snooker_rules="original").snooker_rules == DEFAULT
    assert F.FuncEnv(task="snooker", snooker_rules="wpbsa").snooker_rules == WPBSA
    assert F.FuncEnv(task="snooker", snooker_rules=WPBSA) == F.FuncEnv(task="snooker", snooker_rules="wpbsa")
    env = F.FuncEnv(task="american-snooker", snooker_rules={"miss_restore": "every_ball"})
    assert env.snooker_rules == SnookerOptions(miss_restore="every_ball") and hash(env) == hash(
        F.FuncEnv(task="american-snooker", snooker_rules=SnookerOptions(miss_restore="every_ball")))
    for bad, allowed in (("pro", "'original' or 'wpbsa'"), ({"last_red": "free"}, "in_order, nominated"),
                         ({"miss": "x"}, "miss_restore, last_red"), (SnookerOptions(miss_restore="all"), "cue_ball"),
                         (3, "a dict of options"), ({1: "x"}, "unknown")):
        with pytest.raises(ValueError, match=f"snooker_rules: .*{allowed}"):
            F.FuncEnv(task="snooker", snooker_rules=bad)
    with pytest.raises(ValueError, match="snooker_rules: .*last_red"):
        gym.make(ENV_ID, snooker_rules={"last_red": "any"})
    for env_id in ("cuegym/RussianPyramid-v0", "cuegym/Golf-v0", "cuegym/PotShot-v0"):
        with pytest.raises(ValueError, match="snooker_rules: only for snooker, american-snooker"):
            gym.make(env_id, snooker_rules="wpbsa")
    assert F.FuncEnv(task="golf", snooker_rules="original").snooker_rules == DEFAULT  # the defaults: allowed


def test_every_front_carries_the_option():
    """``gymnasium.make_vec``, ``cuegym.make_async`` (the pool's own FuncEnv, its program
    cached under the rules), the gymnax front and PettingZoo take ``snooker_rules``; built,
    not compiled."""
    want = SnookerOptions(last_red="nominated")
    vec = gym.make_vec(ENV_ID, num_envs=2, snooker_rules=NOMINATED)
    assert vec.unwrapped.func.snooker_rules == want

    pool = cuegym.make_async(ENV_ID, 2, snooker_rules=NOMINATED)
    assert pool.func.snooker_rules == want
    assert pool.program is pool_program("snooker", TABLE, 2, 2, want)
    assert pool.program is not pool_program("snooker", TABLE, 2, 2)
    assert pool_program("snooker", TABLE, 2, 2) is pool_program("snooker", TABLE, 2, 2, "original")
    inner = inspect.getclosurevars(pool.program.recv.__wrapped__).nonlocals["env"]
    assert inner.snooker_rules == want

    from cuegym.learn import gymnax_env

    genv, _ = gymnax_env.make(ENV_ID, snooker_rules=NOMINATED)
    assert genv.func.snooker_rules == want

    pettingzoo = pytest.importorskip("pettingzoo")  # noqa: F841  (the extra may be absent)
    from cuegym.envs.pettingzoo import env as aec_env

    aec = aec_env("snooker", snooker_rules=NOMINATED)
    assert aec.unwrapped._env.unwrapped.func.snooker_rules == want
