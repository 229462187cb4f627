"""The search agent's aim sweep (cuegym.agents.aim): the lanes it lays out, the centre of a
window it finds (against the closed-form Gaussian mass of the window), and the search with
the sweep on a straight pot (the geometric line, and a re-simulation of the chosen stroke).

Cheap: the pure pieces run on a few hundred numbers; the one search uses the budget of
tests/agents/test_agents.py (PotShot on its default table, 16 x 4 = 64 lanes, one round), so it
runs the same compiled step program."""

import math

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cuegym  # noqa: F401  (registers the ids)
from cuegym.agents import SearchAgent
from cuegym.agents import aim as AIM
from cuegym.agents.base import observation_arrays, state_from_observation
from cuegym.agents.baselines import Plans
from cuegym.agents.search import Budget
from cuegym.physics import POCKETS, get_table

TINY = dict(candidates=16, samples=4, rounds=1, time_budget=None)
ENV_ID = "cuegym/PotShot-v0"


def _plans(phi, speed, count, k=2):
    """Plans with ``count`` pots on (aims ``phi``, speeds ``speed``), -inf scores after."""
    score = np.where(np.arange(k) < count, 1.0, -np.inf)
    z = np.zeros(k, np.int32)
    return Plans(jnp.zeros((k, 2)), jnp.asarray(z), jnp.asarray(z + 1), jnp.asarray(z + 3),
                 jnp.asarray(phi, jnp.float64), jnp.asarray(speed, jnp.float64), jnp.asarray(score))


GHOST = {"shot": jnp.asarray([0.5, 1.0, 0.0, -0.3, 0.0]), "place": jnp.zeros(2), "cue_ball": 0, "ball": 1,
         "pocket": 2, "choice": 0}


def test_sweep_lanes_aim_over_a_regular_grid_around_each_ghost_aim_in_each_style():
    """Two pots on: each (pot, style) group's lanes aim from -width to +width around its
    pot's aim in equal steps, at the style's factor of the pot's speed and its tip offset."""
    b, width = 256, math.radians(3.0)
    actions, group, has = AIM.sweep_actions(_plans([1.0, 2.0], [2.0, 3.0], 2), GHOST, b, width)
    assert bool(has)
    m = len(AIM.STYLES)
    per = b // (2 * m)
    shot = np.asarray(actions["shot"])
    group = np.asarray(group)
    for g in range(2 * m):
        lanes = np.flatnonzero(group == g)
        assert lanes.size == per
        pot, style = divmod(g, m)
        aims = shot[lanes, 0] - (1.0, 2.0)[pot]
        np.testing.assert_allclose(aims, np.linspace(-width, width, per), atol=1e-12)
        np.testing.assert_allclose(shot[lanes, 1], (2.0, 3.0)[pot] * AIM.STYLES[style][0])
        np.testing.assert_allclose(shot[lanes, 3], AIM.STYLES[style][1])
        assert np.all(np.asarray(actions["pocket"])[lanes] == 3)


def test_one_pot_on_is_swept_twice_on_interleaved_grids_and_none_plays_the_ghost():
    b, width = 256, math.radians(2.0)
    m = len(AIM.STYLES)
    per = b // (2 * m)
    actions, group, _ = AIM.sweep_actions(_plans([1.0, 0.0], [2.0, 0.0], 1), GHOST, b, width)
    shot, group = np.asarray(actions["shot"]), np.asarray(group)
    aims = np.sort(np.concatenate([shot[group == 0, 0], shot[group == m, 0]])) - 1.0
    step = 2 * width / (per - 1)
    np.testing.assert_allclose(np.diff(aims), step / 2, atol=1e-12)  # the second grid halves the step
    actions, group, has = AIM.sweep_actions(_plans([1.0, 0.0], [2.0, 0.0], 0), GHOST, b, width)
    assert not bool(has) and np.all(np.asarray(group) == -1)
    np.testing.assert_array_equal(np.asarray(actions["shot"]), np.broadcast_to(np.asarray(GHOST["shot"]), (b, 5)))


@pytest.mark.parametrize("level", [1.0, 2.0])
def test_sweep_centre_is_the_middle_of_the_window_with_its_gaussian_mass(level):
    """A group pots over aims [0.4, 1.1] degrees off the ghost aim, nothing elsewhere: its
    best aim is the window's centre (within a grid step) and its value the Gaussian mass of
    the window around it, erf(half-width / (sqrt 2 sigma)), sigma = level x 0.125 degrees;
    a group where nothing pots keeps the ghost-ball aim (the grid's middle)."""
    b, width = 1024, math.radians(3.0)
    actions, group, _ = AIM.sweep_actions(_plans([1.0, 2.0], [2.0, 3.0], 2), GHOST, b, width)
    off = np.asarray(actions["shot"][:, 0]) - np.where(np.asarray(group) < len(AIM.STYLES), 1.0, 2.0)
    lo, hi = math.radians(0.4), math.radians(1.1)
    value = np.where((np.asarray(group) == 2) & (off >= lo) & (off <= hi), 1.0, 0.0)
    best, best_value = AIM.sweep_centres(actions, group, jnp.asarray(value), level, 2 * len(AIM.STYLES))
    step = 2 * width / (b // (2 * len(AIM.STYLES)) - 1)
    assert abs(off[int(best[2])] - (lo + hi) / 2) <= step
    sigma = level * math.radians(0.125)
    mass = math.erf((hi - lo) / 2 / (math.sqrt(2) * sigma))
    assert abs(float(best_value[2]) - mass) < 0.03
    empty = int(best[0])
    assert abs(off[empty]) <= step / 2 + 1e-12 and float(best_value[0]) == 0.0


def test_sweep_knob_is_checked_naming_the_field():
    with pytest.raises(ValueError, match="sweep"):
        Budget(sweep=-1.0)
    with pytest.raises(ValueError, match="candidates x samples"):
        Budget(candidates=2, samples=1, elites=1, sweep=3.0)
    assert Budget(candidates=2, samples=1, elites=1).sweep == 0.0  # off unless asked


def test_search_with_the_sweep_aims_on_the_line_of_a_straight_pot_and_its_estimate_replays():
    """Object ball 0.3 m in front of the middle pocket ML, cue ball 0.35 m behind it on the
    same line: no cut, no throw, so the window is centred on the geometric line phi = pi.
    The search (sweep on: PotShot's default) scoring at noise 0 aims within half a sweep
    step plus the centre grid of it and reports success 1; replayed from this layout
    without noise, the stroke pots."""
    ml = np.asarray(get_table("pyramid-12ft").pocket_xy)[POCKETS.index("ML")]
    obj = np.array([0.3, ml[1]])
    obs, _ = gym.make(ENV_ID, noise=0.0).reset(seed=0)
    obs = {**obs, "balls": np.array([[*(obj + [0.35, 0.0]), 1.0], [*obj, 1.0]], np.float32)}
    agent = SearchAgent(ENV_ID, noise=0.0, **TINY)
    assert agent.budget.sweep > 0
    action = agent.act(obs, jax.random.PRNGKey(0))
    per = TINY["candidates"] * TINY["samples"] // (AIM.SWEPT_POTS * len(AIM.STYLES))
    step = 2 * math.radians(agent.budget.sweep) / (per - 1)
    tol = step / 2 + float(AIM.centre_grid(0.0)) + 1e-9
    assert abs(float(action["shot"][0]) - math.pi) <= tol
    assert agent.last_info["success"] == 1.0
    # replay the chosen stroke from this layout without noise, C x S copies: every one pots
    state = state_from_observation(agent.env, observation_arrays(agent.env, obs))
    c = TINY["candidates"]
    tiled = {k: np.repeat(np.asarray(v)[None], c, 0).astype(np.float64 if k in ("shot", "place") else np.int32)
             for k, v in action.items()}
    replay = agent.evaluate(state, tiled, jax.random.PRNGKey(1), noise=0.0)
    assert np.all(replay["next"].rewards[:, 0] == 1.0)


@pytest.mark.parametrize("level", [0.0, 0.25, 1.0])
def test_smooth_picks_with_the_noise_wide_kernel_and_estimates_with_a_narrow_one(level):
    """search.smooth against its Gaussian weights worked out by hand: two strokes at the
    same ball and pocket one tournament aim sigma apart share their copies, the value with
    sigma max(level, 0.5) and the success with ESTIMATE_WIDTH x level; a third at another
    pocket shares with neither; at noise 0 a success is the stroke's own (no 0 / 0)."""
    from cuegym.agents import search as S
    from cuegym.envs.functional import FuncEnv
    from cuegym.physics.noise import SIGMA_PHI

    cands = {"shot": jnp.asarray([[0.5, 1.0, 0.0, 0.0, 0.0], [0.5 + SIGMA_PHI, 1.0, 0.0, 0.0, 0.0],
                                  [0.5, 1.0, 0.0, 0.0, 0.0]]),
             "place": jnp.zeros((3, 2)), "cue_ball": jnp.zeros(3, jnp.int32), "ball": jnp.ones(3, jnp.int32),
             "pocket": jnp.asarray([2, 2, 4], jnp.int32), "choice": jnp.zeros(3, jnp.int32)}
    value, success = S.smooth(FuncEnv(task="pot-shot"), cands, jnp.asarray([1.0, 0.0, 5.0]),
                              jnp.asarray([1.0, 0.0, 1.0]), jnp.asarray(level))
    w_value = math.exp(-0.5 / max(level, 0.5) ** 2)
    w_success = math.exp(-0.5 / (S.ESTIMATE_WIDTH * level) ** 2) if level else 0.0
    np.testing.assert_allclose(value, [1 / (1 + w_value), w_value / (1 + w_value), 5.0], rtol=1e-12)
    np.testing.assert_allclose(success, [1 / (1 + w_success), w_success / (1 + w_success), 1.0], rtol=1e-12, atol=1e-15)


def _calibration():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "experiments" / "search_calibration.py"
    spec = importlib.util.spec_from_file_location("cuegym_experiment_search_calibration", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_search_estimate_is_the_replayed_rate_at_noise_0_and_a_rate_at_noise_1():
    """experiments/search_calibration.py: at noise 0 every copy of a stroke plays the same, so
    the estimate (the chosen stroke's own copies: the success kernel has no width) must equal
    the replay exactly, 0 or 1; at noise 1 both are shares of 64 copies."""
    cal = _calibration()
    exact = cal.calibrate("pyramid-12ft", 0.0, 2, 0, **TINY)  # the default table: the other tests' programs
    assert exact["estimate"] == exact["replayed"] and exact["replayed"] in (0.0, 0.5, 1.0)
    noisy = cal.calibrate("pyramid-12ft", 1.0, 1, 0, **TINY)
    assert noisy["copies"] == 64 and 0.0 <= noisy["estimate"] <= 1.0
    assert 0.0 <= noisy["replayed"] <= 1.0 and abs(noisy["replayed"] * 64 - round(noisy["replayed"] * 64)) < 1e-9
