"""cuegym.envs.wrappers: the Box action encodings (round trips, bounds), the ShotOnly heuristic
against hand-computed ghost-ball geometry, the flat observation, and the checkers of
Gymnasium and stable-baselines3 on the wrapped envs.

The envs are made with their default options, so they run the programs the env tests
compile (persistent-cache hits)."""

import math

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env

import cuegym  # noqa: F401  (registers the ids)
from cuegym.envs import wrappers as W
from cuegym.envs.functional import SHOT_HIGH, SHOT_LOW
from cuegym.physics import get_spec
from cuegym.rules.base import IN_HAND_HOUSE, IN_HAND_REAR, LAG, NORMAL

PYR = "pyramid-12ft"
POT = "cuegym/PotShot-v0"
RP = "cuegym/RussianPyramid-v0"
HL, ML, FL, FR, MR, HR = range(6)


# ----------------------------------------------------------------------------- shot encoding


def test_shot_decoding_hits_the_limits_and_wraps_phi():
    lo, hi = SHOT_LOW, SHOT_HIGH
    low = W.decode_shot(-np.ones(5), lo, hi)
    high = W.decode_shot(np.ones(5), lo, hi)
    mid = W.decode_shot(np.zeros(5), lo, hi)
    assert low[1:] == pytest.approx([0.0, -1.0, -1.0, 0.0])
    assert high[1:] == pytest.approx([10.0, 1.0, 1.0, math.radians(70)])
    assert mid[1:] == pytest.approx([5.0, 0.0, 0.0, math.radians(35)])
    # phi: -1 and 1 are the same heading (pi, the -x direction), 0 is +x, 0.5 is +y
    assert low[0] == pytest.approx(math.pi) and high[0] == pytest.approx(math.pi) and mid[0] == 0.0
    assert W.decode_shot(np.array([0.5, 0, 0, 0, 0]), lo, hi)[0] == pytest.approx(math.pi / 2)
    assert W.decode_shot(np.array([-0.5, 0, 0, 0, 0]), lo, hi)[0] == pytest.approx(3 * math.pi / 2)


def test_shot_encoding_round_trips():
    rng = np.random.default_rng(0)
    for _ in range(200):
        v = rng.uniform(-1, 1, 5)
        back = W.encode_shot(W.decode_shot(v.copy(), SHOT_LOW, SHOT_HIGH), SHOT_LOW, SHOT_HIGH)
        assert back == pytest.approx(v, abs=1e-12)
    # a shot with phi outside [0, 2 pi) encodes to the same heading
    shot = np.array([2 * math.pi + 1.0, 2.0, 0.1, -0.2, 0.3])
    again = W.decode_shot(W.encode_shot(shot, SHOT_LOW, SHOT_HIGH), SHOT_LOW, SHOT_HIGH)
    assert again == pytest.approx([1.0, 2.0, 0.1, -0.2, 0.3], abs=1e-12)


def test_narrower_shot_limits_are_checked():
    env = gym.make(POT)
    s = W.ShotOnly(env, shot_high=[0, 3.0, 0.5, 0.5, 0.1])
    assert s.shot_high[1:] == pytest.approx([3.0, 0.5, 0.5, 0.1])
    for bad in ([0, 11.0, 1, 1, 0.1], [0, 3.0, 1, 1, -0.1], [0, np.nan, 1, 1, 1]):
        with pytest.raises(ValueError, match="shot_high"):
            W.ShotOnly(env, shot_high=bad)
    with pytest.raises(ValueError, match="shot_low"):
        W.ShotOnly(env, shot_low=[0, 0, 0, 0])


# ----------------------------------------------------------------------------- heuristic


def obs_of(xy, legal=None, phase=NORMAL, to_play=0, **extra):
    """A hand-built observation: ball 0 the cue ball, every ball on the table."""
    xy = np.asarray(xy, float)
    n = len(xy)
    balls = np.concatenate([xy, np.ones((n, 1))], 1).astype(np.float32)
    legal = np.arange(n) != 0 if legal is None else np.asarray(legal)
    return {"balls": balls, "phase": phase, "to_play": to_play, "legal_ball": legal.astype(np.int8), **extra}


def test_heuristic_calls_the_first_ball_on_the_line_and_its_pocket():
    # straight up the table from (0.5, 0.5): ball 1 is hit first, ball 2 hides behind it
    obs = obs_of([[0.5, 0.5], [0.5, 1.5], [0.5, 2.5], [1.2, 0.5]])
    d = W.heuristic_decisions(obs, PYR, math.pi / 2)
    assert d["ball"] == 1
    # a full hit sends ball 1 straight up: towards the foot-left corner (direction to it
    # (-0.5, 2.05), 14° off), not the left middle (61° off) or the foot-right corner (32°)
    assert d["pocket"] == FL
    # the same line with ball 1 not callable: ball 2 is next on the line
    obs["legal_ball"][1] = 0
    assert W.heuristic_decisions(obs, PYR, math.pi / 2)["ball"] == 2


@pytest.mark.parametrize("side, pocket", [(1, FR), (-1, FL)])
def test_heuristic_pocket_follows_the_cut(side, pocket):
    """Cue ball on the long string, object ball 40 mm off the line: at contact the line of
    centres is asin(40 / 68) = 36° off the cue direction, to the object ball's side; from
    (0.8875 ± 0.04, 1.5) the foot corner on that side is 4-6° from that line, the middle
    pocket 36° away."""
    obs = obs_of([[0.8875, 0.5], [0.8875 + side * 0.04, 1.5]])
    d = W.heuristic_decisions(obs, PYR, math.pi / 2)
    assert (d["ball"], d["pocket"]) == (1, pocket)


def test_heuristic_without_a_ball_on_the_line_calls_the_nearest():
    # aiming down the table, away from both balls: the nearer one (ball 2) is called, and
    # its pocket is the one along the cue ball -> ball 2 line, the (1, 1) diagonal, which
    # from (1, 1) runs into the right middle pocket at (1.775, 1.775)
    obs = obs_of([[0.5, 0.5], [0.3, 2.5], [1.0, 1.0]])
    d = W.heuristic_decisions(obs, PYR, -math.pi / 2)
    assert d["ball"] == 2 and d["pocket"] == MR
    # nothing callable: 0 and 0
    obs["legal_ball"][:] = 0
    d = W.heuristic_decisions(obs, PYR, -math.pi / 2)
    assert (d["ball"], d["pocket"]) == (0, 0)


def test_heuristic_ball_in_hand_aims_from_the_house_spot():
    spec = get_spec(PYR)
    w, hl = spec.width, spec.head_line
    # the cue ball is in hand (reads 0, 0, off); from (W/2, hl/2) straight up hits ball 2,
    # not ball 1 which is straight up from the cue ball's stale (0, 0) position
    obs = obs_of([[0.0, 0.0], [0.0, 2.0], [w / 2, 2.0]], phase=IN_HAND_HOUSE)
    obs["balls"][0] = 0.0
    d = W.heuristic_decisions(obs, PYR, math.pi / 2)
    assert d["place"] == pytest.approx([w / 2, hl / 2]) and d["ball"] == 2
    assert W.heuristic_decisions(obs_of([[0, 0], [1, 1]], phase=IN_HAND_REAR), PYR, 0.0)["place"] == pytest.approx(
        [w / 2, spec.length - hl / 2])
    for player, x in ((0, w / 4), (1, 3 * w / 4)):
        d = W.heuristic_decisions(obs_of([[0, 0]], legal=[0], phase=LAG, to_play=player), PYR, math.pi / 2)
        assert d["place"] == pytest.approx([x, hl / 2], abs=1e-6)
    # a snooker table: halfway into the D, behind the baulk line and inside the semicircle
    sn = get_spec("snooker-12ft")
    p = W.heuristic_decisions(obs_of([[0, 0], [1, 1]], phase=IN_HAND_HOUSE), "snooker-12ft", 0.0)["place"]
    assert p[1] < sn.head_line and math.hypot(p[0] - sn.width / 2, p[1] - sn.head_line) < sn.d_radius


def test_heuristic_reads_the_cue_ball_and_choice_masks():
    obs = obs_of([[0.2, 0.5], [0.5, 1.5], [0.5, 0.5], [1.5, 3.0]],
                 legal_cue_ball=np.array([0, 0, 1, 0], np.int8), legal_choice=np.array([0, 0, 0, 1], np.int8))
    d = W.heuristic_decisions(obs, PYR, math.pi / 2)
    # the cue ball is ball 2 at (0.5, 0.5): straight up it meets ball 1
    assert (d["cue_ball"], d["choice"], d["ball"]) == (2, 3, 1)
    obs["legal_cue_ball"][:] = 0
    obs["legal_choice"][:] = 0
    d = W.heuristic_decisions(obs, PYR, math.pi / 2)
    assert (d["cue_ball"], d["choice"]) == (0, 0)


# ----------------------------------------------------------------------------- on the envs


def test_shot_only_plays_what_it_decodes_and_pots_a_straight_ball():
    """Without noise a straight pot at 3 m/s drops (the env tests' own check), so aiming
    through the wrapper's encoding must score 1 every time."""
    env = W.ShotOnly(gym.make(POT, noise=0.0, distance=(0.4, 0.4), cut=(0.0, 0.0)))
    assert env.action_space == spaces.Box(-1, 1, (5,), np.float32)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        cue, ball = obs["balls"][0, :2].astype(float), obs["balls"][1, :2].astype(float)
        phi = math.atan2(*(ball - cue)[::-1])
        v = W.encode_shot([phi, 3.0, 0.0, 0.0, 0.0], env.shot_low, env.shot_high)
        _, reward, term, _, info = env.step(v)
        played = info["action"]
        assert played["shot"] == pytest.approx([phi % (2 * math.pi), 3.0, 0, 0, 0], abs=1e-5)
        assert played["ball"] == 1 and not info["clipped"]
        assert env.env.action_space.contains(played)
        assert term and reward == 1.0
    with pytest.raises(ValueError, match="action"):
        env.step(np.array([np.nan, 0, 0, 0, 0], np.float32))
    with pytest.raises(ValueError, match="action"):
        env.step(np.zeros(4, np.float32))
    clipped = env.action(np.array([3.0, -7.0, 0, 0, 0]))  # outside [-1, 1]: clipped
    assert clipped["shot"][1] == pytest.approx(0.0) and clipped["shot"][0] == pytest.approx(math.pi)


def test_flatten_dict_action_round_trips_and_bins():
    env = W.FlattenDictAction(gym.make(RP))
    inner = env.env.action_space
    assert env.action_space.shape == (11,)
    assert [(k, s.start, s.stop) for k, s in env.slices.items()] == [
        ("shot", 0, 5), ("place", 5, 7), ("cue_ball", 7, 8), ("ball", 8, 9), ("pocket", 9, 10), ("choice", 10, 11)]
    inner.seed(3)
    for _ in range(200):
        a = inner.sample()
        back = env.action(env.encode(a))
        for k in ("cue_ball", "ball", "pocket", "choice"):
            assert back[k] == a[k]
        assert back["place"] == pytest.approx(a["place"], abs=1e-5)
        assert back["shot"][1:] == pytest.approx(a["shot"][1:], abs=1e-5)
        assert math.cos(back["shot"][0] - a["shot"][0]) == pytest.approx(1.0, abs=1e-9)
        assert inner.contains(back)
    # a Discrete(n) field cuts [-1, 1] into n equal bins: on a fine grid each index gets
    # the same share, the ends give 0 and n - 1
    grid = np.linspace(-1, 1, 16 * 1000, endpoint=False) + 1 / 16000
    v = np.zeros(11, np.float32)
    counts = np.zeros(16, int)
    for g in grid[::7]:
        v[8] = g
        counts[env.action(v)["ball"]] += 1
    assert counts.max() - counts.min() <= 1
    v[8], v[9] = -1.0, 1.0
    a = env.action(v)
    assert (a["ball"], a["pocket"]) == (0, 5)
    with pytest.raises(ValueError, match="action"):
        env.action(np.full(11, np.inf))
    with pytest.raises(ValueError, match="pocket"):
        env.encode({**inner.sample(), "pocket": 6})


def test_flat_observation_layout():
    env = W.FlatObservation(gym.make(RP))
    inner = env.env.observation_space
    spec = get_spec(PYR)
    flat, _ = env.reset(seed=0)
    obs, _ = env.env.reset(seed=0)  # the same seeded reset, as a Dict
    assert env.observation_space.contains(flat) and flat.dtype == np.float32
    balls = flat[env.slices["balls"]].reshape(16, 3)
    assert balls[:, 0] == pytest.approx(obs["balls"][:, 0] / spec.width, abs=1e-6)
    assert balls[:, 1] == pytest.approx(obs["balls"][:, 1] / spec.length, abs=1e-6)
    assert np.array_equal(balls[:, 2], obs["balls"][:, 2])
    phase = flat[env.slices["phase"]]
    assert phase.sum() == 1 and phase[int(obs["phase"])] == 1
    assert np.array_equal(flat[env.slices["legal_ball"]], obs["legal_ball"].astype(np.float32))
    assert flat[env.slices["scores"]] == pytest.approx(np.sign(obs["scores"]) * np.log1p(np.abs(obs["scores"])))
    assert sum(s.stop - s.start for s in env.slices.values()) == flat.size
    assert list(env.slices) == list(inner.spaces)
    # symlog keeps small score differences visible: 1 point reads ln 2
    assert W._symlog(np.array([1.0, -70.0])) == pytest.approx([math.log(2), -math.log(71)])


def test_flat_observation_of_other_spaces():
    class Toy(gym.Env):
        observation_space = spaces.Dict({"a": spaces.MultiDiscrete([3, 2]), "b": spaces.Discrete(3, start=1),
                                         "c": spaces.Box(-np.inf, np.inf, (2,), np.float32)})
        action_space = spaces.Discrete(2)

        def reset(self, seed=None, options=None):
            return {"a": np.array([2, 1]), "b": 3, "c": np.array([np.e - 1, 0.0], np.float32)}, {}

    env = W.FlatObservation(Toy())
    flat, _ = env.reset()
    assert flat[:5].tolist() == [0, 0, 1, 0, 1] and flat[5:8].tolist() == [0, 0, 1]
    assert flat[8:] == pytest.approx([1.0, 0.0], abs=1e-6)
    with pytest.raises(ValueError, match="observation_space"):
        W.FlatObservation(type("T", (Toy,), {"observation_space": spaces.Dict({"t": spaces.Text(3)})})())
    with pytest.raises(ValueError, match="Dict"):
        W.FlatObservation(type("T", (Toy,), {"observation_space": spaces.Discrete(3)})())


def test_make_sb3_env_modes_and_bad_arguments():
    a = W.make_sb3_env(POT)
    b = W.make_sb3_env(POT, mode="flatten")
    assert a.action_space.shape == (5,)
    assert isinstance(a.env, W.ShotOnly) and isinstance(b.env, W.FlattenDictAction)
    assert b.action_space.shape == (7 + 4,)
    with pytest.raises(ValueError, match="mode"):
        W.make_sb3_env(POT, mode="dict")
    with pytest.raises(ValueError, match="env"):
        W.ShotOnly(a)  # its action is already a Box


@pytest.mark.parametrize("env_id", [POT, RP])
@pytest.mark.parametrize("mode", ["shot_only", "flatten"])
def test_gymnasium_check_env_on_the_wrapped_env(env_id, mode):
    import warnings

    env = W.make_sb3_env(env_id, mode=mode, shot_high=[0, 3.0, 1.0, 1.0, 0.1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any complaint of the checker fails the test...
        warnings.filterwarnings("ignore", message=".*different from the unwrapped")  # ...but this one: wrapped on purpose
        check_env(env, skip_render_check=True)


@pytest.mark.parametrize("mode", ["shot_only", "flatten"])
def test_sb3_check_env_on_the_wrapped_env(mode):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")  # CI installs it (scripts/test.sh)
    import warnings

    env = W.make_sb3_env(RP, mode=mode, shot_high=[0, 3.0, 1.0, 1.0, 0.1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning means sb3 finds the spaces unsuitable
        sb3_checker.check_env(env, warn=True, skip_render_check=True)
