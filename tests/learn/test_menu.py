"""The shot menu (cuegym.agents.menu): its travel model against the closed forms of a struck
ball's motion, the pocket window's geometry, throw correction checked by the simulator,
and every candidate a legal decision of its game."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cuegym.agents import menu as M
from cuegym.envs import functional as F
from cuegym.physics import get_table
from cuegym.physics.balls import at_rest
from cuegym.physics.strike import make_shot, strike

TABLE = "pool-9ft"


def test_travel_follows_the_closed_forms_of_a_stun_stroke():
    # a stun stroke (b = 0) leaves the ball sliding with no spin: it rolls from 5/7 of its
    # speed after sliding (v0^2 - (5v0/7)^2) / (2 mu_s g), then loses speed as v^2 = v_r^2 -
    # 2 mu_r g s (Alciatore, TP 4.1; Marlow, "The Physics of Pocket Billiards")
    table = get_table(TABLE)
    balls, _ = strike(at_rest(jnp.array([[0.5, 0.5]])), make_shot(0, 0.3, 2.0, 0.0, 0.0, 0.0), table)
    v0 = float(jnp.linalg.norm(balls.v[0, :2]))
    g, mu_s, mu_r = float(table.gravity), float(table.mu_slide), float(table.mu_roll)
    v_roll = 5.0 / 7.0 * v0
    s_slide = (v0**2 - v_roll**2) / (2 * mu_s * g)
    for d in (0.5 * s_slide, s_slide + 0.4, s_slide + 1.2):
        end, reaches = M.travel(table, balls, jnp.asarray(d))
        speed = float(jnp.linalg.norm(end.v[0, :2]))
        if d < s_slide:
            want = math.sqrt(v0**2 - 2 * mu_s * g * d)  # sliding: constant deceleration mu_s g
        else:
            want = math.sqrt(v_roll**2 - 2 * mu_r * g * (d - s_slide))
        assert bool(reaches)
        assert speed == pytest.approx(want, rel=1e-6)
        gone = float(jnp.dot(end.r[0, :2] - balls.r[0, :2], balls.v[0, :2] / v0))
        assert gone == pytest.approx(d, abs=1e-9)
    stop = s_slide + v_roll**2 / (2 * mu_r * g)
    assert not bool(M.travel(table, balls, jnp.asarray(stop + 0.01))[1])


def test_pocket_window_narrows_off_the_axis_and_with_distance():
    table = get_table(TABLE)
    r = float(table.radius)
    p = 0  # a corner pocket
    axis = np.asarray(table.drop_n[p])
    mouth = np.asarray(table.pocket_xy[p])

    def window(offset_deg, dist):
        a = math.radians(offset_deg)
        d = np.array([math.cos(a) * axis[0] - math.sin(a) * axis[1], math.sin(a) * axis[0] + math.cos(a) * axis[1]])
        return M.pocket_window(table, r, jnp.asarray(mouth - dist * d), p)

    centre, straight = window(0.0, 0.6)
    assert float(straight) > 0
    # straight on, the middle of the gap is the pocket's axis
    assert abs(math.remainder(float(centre) - math.atan2(axis[1], axis[0]), 2 * math.pi)) < math.radians(0.5)
    assert float(window(30.0, 0.6)[1]) < float(straight)
    assert float(window(0.0, 1.2)[1]) < float(straight)


@pytest.fixture(scope="module")
def pot_layouts():
    env = F.FuncEnv(task="pot-shot", table=TABLE, noise=0.0)
    states = jax.jit(jax.vmap(lambda k: F.init(env, k)))(jax.random.split(jax.random.PRNGKey(0), 512))
    return env, states


def test_throw_corrected_aim_pots_more_than_the_ghost_ball_aim(pot_layouts):
    # without noise, the simulator is the judge: the ghost-ball aim misses where throw takes
    # the object ball off the pocket's line; the corrected aim (same pace and tip) pots more
    env, states = pot_layouts

    def both(state):
        m = M.menu(env, state)
        mine = M.choose(m, 0)  # the best pot at the ghost's pace and draw, corrected
        plain = {**mine, "shot": mine["shot"].at[0].set(M.choose(m, m.legal.shape[0] - 1)["shot"][0])}
        key = jax.random.PRNGKey(1)
        return F.step(env, state, mine, key).rewards[0], F.step(env, state, plain, key).rewards[0], m.legal[0]

    corrected, plain, legal = map(np.asarray, jax.jit(jax.vmap(both))(states))
    assert legal.mean() > 0.95
    # paired: of the layouts where the two aims part, the corrected one pots more (27 against
    # 14 here; the jaws of Mathavan's cushion turn a few near misses either way)
    only_corrected = int(np.sum((corrected > 0) & (plain == 0)))
    only_plain = int(np.sum((plain > 0) & (corrected == 0)))
    assert only_corrected > 1.5 * only_plain
    assert corrected.mean() > 0.9


def test_menu_shapes_mask_and_the_ghost_last(pot_layouts):
    env, states = pot_layouts
    m = jax.jit(jax.vmap(lambda s: M.menu(env, s)))(states)
    k, n = M.size(), jax.tree_util.tree_leaves(states)[0].shape[0]
    assert m.features.shape == (n, k, M.NUM_FEATURES) and m.features.dtype == jnp.float32
    assert m.legal.shape == (n, k)
    assert bool(jnp.all(m.legal[:, -1]))  # the ghost's own decision is always on the menu
    assert bool(jnp.all(jnp.isfinite(m.features)))
    # an empty slot repeats the ghost's decision, so any index is a playable action
    ghost_shot = m.actions["shot"][:, -1]
    empty = ~m.legal[:, :-1]
    same = jnp.all(m.actions["shot"][:, :-1] == ghost_shot[:, None], -1)
    assert bool(jnp.all(jnp.where(empty, same, True)))


@pytest.mark.parametrize("task", ["russian-pyramid", "snooker", "golf"])
def test_every_legal_candidate_is_a_legal_decision(task):
    env = F.FuncEnv(task=task)
    keys = jax.random.split(jax.random.PRNGKey(3), 16)

    def check(key):
        state = F.init(env, key)

        # a few random strokes, so that racks open and some tables have a ball in hand,
        # a foul to answer or a new ball on
        def play(i, s):
            k = jax.random.fold_in(key, i)
            return F.step(env, s, F.random_action(env, s, k), k)

        state = jax.lax.fori_loop(0, 4, play, state)
        m = M.menu(env, state)
        masks = F.legal_masks(env, state)
        cue_ok = masks["cue_ball"][m.actions["cue_ball"]]
        return m.legal, cue_ok, state.terminated, jnp.any(masks["cue_ball"])

    legal, cue_ok, over, strokes = map(np.asarray, jax.jit(jax.vmap(check))(keys))
    live = ~over
    assert np.all(legal[live, -1])
    # the pots strike a ball the game allows; a phase with no stroke to play (a foul's
    # answer) offers the ghost's decision alone
    assert np.all(cue_ok[live, :-1][legal[live, :-1]])
    assert not np.any(legal[live & ~strokes, :-1])
    assert np.any(legal[live & strokes, :-1])


def test_thin_safeties_hit_their_ball_and_leave_the_striker_on_a_cushion():
    """The menu's thin safeties (cuegym.agents.menu_safety), played noise-free in the
    simulator on open Russian-pyramid tables: the struck ball meets the named object ball
    first, and stops within two ball widths of a cushion (it is paced to stop one ball's
    width short of it). A side whose striker would meet another ball is not offered."""
    from cuegym.agents import menu_safety as S
    from cuegym.physics.racks import random_positions
    from cuegym.physics.tables import get_spec
    from cuegym.rules import russian as ru

    env = F.FuncEnv(task="russian-pyramid", noise=0.0)
    spec = env.spec
    off = ru.contact_offset(spec)

    def play(key, xy, placed):
        state = F.init(env, key)  # the opening (ball in hand), on an open table of random spots
        state = state._replace(xy=xy, on=state.on & placed)
        sf = S.thin_safeties(env, state)

        def one(s, phi, speed, spot):
            xy, on = state.xy.at[s].set(spot), state.on.at[s].set(True)
            final, _, summ, _ = F.strike(env, key, s, jnp.stack([phi, speed, 0.0, 0.0, 0.0]), True, xy, on,
                                         F.options(env))
            p = final.r[s, :2]
            return summ.first_contact, jnp.min(jnp.stack([p[0] - off, spec.width - off - p[0], p[1] - off,
                                                          spec.length - off - p[1]]))

        first, to_cushion = jax.vmap(one)(sf.s, sf.phi, sf.speed, sf.spot)
        return sf.found & ~state.terminated, sf.j, first, to_cushion

    keys = jax.random.split(jax.random.PRNGKey(5), 16)
    xy, placed = jax.vmap(lambda k: random_positions(k, get_spec(env.table), env.n_balls))(keys)
    found, j, first, to_cushion = map(np.asarray, jax.jit(jax.vmap(play))(keys, xy, placed))
    assert found.sum() >= 20
    np.testing.assert_array_equal(first[found], j[found])
    assert np.mean(to_cushion[found] <= 4 * spec.ball_radius) >= 0.9
