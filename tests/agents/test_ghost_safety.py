"""The ghost-ball agent's and the built-in ghost's Americanka safety
(cuegym.envs.ghost_safety.safety with ``two_cushions``, re-exported by cuegym.agents.geometry):
when no pot is on, the stroke must still be a legal safety (AM-10..12), else it is a foul
(AM-13, RU-GEN-47).

Cheap by construction: the single Americanka env of tests/envs/test_env_americanka.py (loaded
with env_api.load, noise 0) and one small jitted geometry program (no physics); the
closed-form checks run on plain numbers. The figures in play (fouls per frame, legal
safeties per decision) are experiments/evaluate.py's, not a test's."""

import math

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
from env_api import action, layout, load

import cuegym  # noqa: F401  (registers the ids)
from cuegym.agents import geometry as G
from cuegym.agents import make_func_env
from cuegym.rules import russian as ru
from cuegym.rules.base import clause_ids

ENV_ID = "cuegym/Americanka-v0"
N = 16
POSITIONS = 8  # seeded layouts
BALLS = 5  # on the table in each layout


def safety_strokes(count, seed=0):
    """``count`` seeded layouts of BALLS balls (uniform over the bed at least two ball widths
    off the cushions, a ball's width apart), each with the stroke the ghost plays there when
    no pot is on: :func:`cuegym.agents.geometry.safety` as ``ghost_decision`` calls it in
    Americanka (every ball may be struck, AM-04, and aimed at). Returns [(xy, on, action)]."""
    spec = make_func_env(ENV_ID).spec
    r = spec.ball_radius
    play = jax.jit(lambda xy, on: G.safety(spec, xy, on, on, on, two_cushions=True))
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        p = rng.uniform([4 * r, 4 * r], [spec.width - 4 * r, spec.length - 4 * r], (BALLS, 2))
        if min(np.hypot(*(a - b)) for i, a in enumerate(p) for b in p[i + 1:]) < 4 * r:
            continue
        ids = rng.choice(N, BALLS, replace=False)
        xy, on = layout(N, {int(k): tuple(q) for k, q in zip(ids, p)})
        s, _, phi, speed = play(jnp.asarray(xy), jnp.asarray(on))
        out.append((xy, on, action(cue_ball=int(s), shot=[float(phi), float(speed), 0.0, 0.0, 0.0])))
    return out


def test_AM_12_ghost_safety_is_ruled_legal():
    """Noise 0, every seeded layout: the ghost's no-pot safety is not ruled an illegal
    safety (no AM-13 / RU-GEN-47), the referee names the criterion met (AM-10, AM-11 or
    AM-12) and no other foul is called. With a few balls spread out, a clear two-cushion
    path away from the pockets always exists, so the geometry (a full hit, the object ball's
    path and mirror reflection, the speed of the closed form with its margin) must carry
    every one; the speed stays inside the action space."""
    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    for xy, on, act in safety_strokes(POSITIONS):
        load(env, xy, on, to_play=0, striker=0, phase=0, strokes=1)
        _, _, _, _, info = env.step(act)
        clauses = set(info["clauses"])
        assert not clauses & {"AM-13", "RU-GEN-47"}, (xy[on], act, sorted(clauses))
        assert clauses & {"AM-10", "AM-11", "AM-12"}, (xy[on], act, sorted(clauses))
        assert not info["foul"], sorted(clauses)
        assert 1.5 <= act["shot"][1] <= 10.0


def test_AM_12_carry_speed_covers_the_two_cushion_path_in_closed_form():
    """Forward from the cue speed of :func:`carry_speed`, with the physics' figures: the
    strike's ball/cue speed ratio 2 / (1 + m/M) (centre hit), natural roll at 5/7 of the
    sliding speed, rolling resistance mu_r g, a full hit passing (1 + e_ball)/2 of the speed,
    and a cushion keeping the tangential part and (5 e_c - 2)/7 of the normal part once the
    ball rolls again: the distance the object ball can roll covers the first leg plus the
    second leg's equivalent, and not wildly more (the margin is CARRY_MARGIN)."""
    spec = make_func_env(ENV_ID).spec
    a = spec.mu_roll * 9.81
    keep = (5 * spec.e_cushion - 2) / 7
    for d1, first, second, head_on in [(0.5, 1.0, 1.5, 1.0), (1.2, 0.4, 2.0, 0.5), (0.1, 2.5, 0.8, 0.3)]:
        cue = float(G.carry_speed(spec, d1, first, second, 1.0, head_on))
        ball = cue * 2 / (1 + spec.ball_mass / spec.cue_mass)
        rolling = 5 / 7 * ball
        at_contact = math.sqrt(rolling**2 - 2 * a * d1)
        obj = 5 / 7 * (1 + spec.e_ball) / 2 * at_contact
        reach = obj**2 / (2 * a)
        kept2 = (1 - head_on**2) + (keep * head_on) ** 2  # squared speed kept at the cushion
        path = first + second / kept2
        assert path <= reach <= 1.5 * path, (d1, first, second, head_on, reach, path)
        assert 0 < cue <= 10.0


def test_cushion_legs_follow_the_mirror_path_to_a_second_cushion():
    """From the middle of the house line's half (W/2, L/4) at 45 deg towards the right long
    cushion: the first leg is the half width over cos 45 deg, the mirror path then meets the
    other long cushion a full width further (short of the rear cushion: L/4 + 3 W/2 < L);
    head-on from the centre spot up the table the ball comes straight back over the whole
    length."""
    spec = make_func_env(ENV_ID).spec
    off = ru.contact_offset(spec)
    half = spec.width / 2 - off
    c = jnp.asarray([spec.width / 2, spec.length / 4])
    u = jnp.asarray([1.0, 1.0]) / math.sqrt(2)
    first, second, hits, head_on = G.cushion_legs(spec, c, u)
    assert math.isclose(float(first), half * math.sqrt(2), rel_tol=1e-9)
    assert math.isclose(float(second), 2 * half * math.sqrt(2), rel_tol=1e-9)
    np.testing.assert_allclose(np.asarray(hits[0]), [spec.width - off, spec.length / 4 + half], atol=1e-9)
    np.testing.assert_allclose(np.asarray(hits[1]), [off, spec.length / 4 + 3 * half], atol=1e-9)
    assert math.isclose(float(head_on), 1 / math.sqrt(2), rel_tol=1e-9)
    c = jnp.asarray([spec.width / 2, spec.length / 2])
    first, second, _, head_on = G.cushion_legs(spec, c, jnp.asarray([0.0, 1.0]))
    assert math.isclose(float(first), spec.length / 2 - off, rel_tol=1e-9)
    assert math.isclose(float(second), spec.length - 2 * off, rel_tol=1e-9)
    assert math.isclose(float(head_on), 1.0)



def test_AM_12_builtin_ghost_safety_is_ruled_legal():
    """The built-in ghost (``opponent="ghost"``, :func:`cuegym.envs.functional.ghost_action`),
    noise 0, Americanka: on the opening stroke from hand (the rack leaves no pot on) it
    plays its two-cushion safety (:func:`cuegym.envs.ghost_safety.safety`, struck at centre:
    b = 0), and with the hand ball put in play below the rack (a pot on, played at least
    at :func:`cuegym.envs.ghost_safety.miss_speed`) each stroke that pots nothing is still ruled
    a legal safety: no AM-13 / RU-GEN-47 and no other foul, AM-10, AM-11 or AM-12 met. The
    single env's own compiled step plays it (the opponent code is traced: no new program)."""
    from cuegym.envs import functional as F

    env = gym.make(ENV_ID, noise=0.0)
    env.reset(seed=0)
    t = env.unwrapped.tables
    ghost = np.full(1, F.OPPONENT_CODES["ghost"], np.int32)
    z = np.zeros(1, np.int32)
    idle = {"shot": np.zeros((1, 5)), "place": np.zeros((1, 2)), "cue_ball": z, "ball": z, "pocket": z, "choice": z}

    def ghost_stroke():
        state, _, _ = t.program.step(t.state, idle, t.keys, np.zeros(1, bool), np.ones(1, bool), ghost, t.opts)
        clauses = set(clause_ids(np.asarray(state.clauses)[0]))
        assert not clauses & {"AM-13", "RU-GEN-47"}, sorted(clauses)
        assert not bool(state.foul[0]), sorted(clauses)
        if not np.asarray(state.potted)[0].any():
            assert clauses & {"AM-10", "AM-11", "AM-12"}, sorted(clauses)
        return np.asarray(state.last_shot)[0]

    rack_xy, rack_on = np.asarray(t.state.xy)[0], np.asarray(t.state.on)[0]
    shot = ghost_stroke()  # the opening stroke: the safety
    assert shot[4] == 0.0 and 1.5 <= shot[2] <= 10.0, shot
    hand = F.HAND_BALL["americanka"]  # ball 16 (AM-05)
    for x in (0.4, 0.89, 1.3):  # the hand ball in play, 0.5 m up the table
        xy, on = rack_xy.copy(), rack_on.copy()
        xy[hand], on[hand] = (x, 0.5), True
        load(env, xy, on, to_play=0, striker=0, phase=0, strokes=1)
        ghost_stroke()
