"""The batch menu (cuegym.agents.menu.menu_batch, baselines.ghost_plans_batch) against the
per-table one under vmap: the same bytes, whatever share of the tables has the ball in hand."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cuegym.agents import baselines as B
from cuegym.agents import geometry as G
from cuegym.envs import functional as F
from cuegym.learn import gymnax_env

TABLES = 12  # every batch below; the in-hand loop takes CHUNK at a time
CHUNK = 3


def assert_same(a, b):
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        assert np.asarray(x).dtype == np.asarray(y).dtype
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def take(states, idx):
    return jax.tree_util.tree_map(lambda x: x[np.asarray(idx)], states)


@pytest.fixture(scope="module", params=["cuegym/RussianPyramid-v0", "cuegym/Snooker-v0"])
def batches(request):
    """(gymnax env, {name: states (TABLES,)}): mid-frame tables (random decisions from the
    deal) mixed (5 in hand), all in hand and none in hand."""
    env, params = gymnax_env.make(request.param, action="menu", opponent=None)
    f = env.func

    def play(key):
        state = F.init(f, key, params.opts)

        def one(i, s):
            k = jax.random.fold_in(key, i)
            return F.step(f, s, F.random_action(f, s, k), k, params.opts)

        return jax.lax.fori_loop(0, 6, one, state)

    states = jax.jit(jax.vmap(play))(jax.random.split(jax.random.PRNGKey(0), 48))
    hand = np.asarray(B.ball_in_hand(states.game.phase)) & ~np.asarray(states.terminated)
    yes, no = np.flatnonzero(hand), np.flatnonzero(~hand)
    assert len(yes) >= 2 and len(no) >= 2, "the random decisions left too few tables of a kind"
    mixed = np.concatenate([np.resize(yes, 5), np.resize(no, TABLES - 5)])
    mixed = mixed[np.random.default_rng(0).permutation(TABLES)]
    return env, {"mixed": take(states, mixed), "all": take(states, np.resize(yes, TABLES)),
                 "none": take(states, np.resize(no, TABLES))}


def test_ghost_plans_batch_is_vmap_of_ghost_plans(batches):
    env, sets = batches
    f = env.func
    per_table = jax.jit(jax.vmap(lambda s: B.ghost_plans(f, s, 8)))
    batch = jax.jit(lambda s: B.ghost_plans_batch(f, s, 8, chunk=CHUNK))  # 5 in hand: 2 turns; all: 4
    for name in ("mixed", "all", "none"):
        want, got = per_table(sets[name]), batch(sets[name])
        assert_same(want, got)
        if name != "none":
            assert np.any(np.isfinite(np.asarray(got.score)))


# one family is enough for the menu: it differs from vmap(menu) only by its plans
@pytest.mark.parametrize("batches", ["cuegym/RussianPyramid-v0"], indirect=True)
def test_view_batch_and_menu_batch_are_vmap_of_view(batches):
    env, sets = batches
    states = sets["mixed"]
    obs, st = jax.jit(jax.vmap(env.view))(states)
    obs_b, st_b = jax.jit(env.view_batch)(states)  # menu_batch, at its default chunk
    # the menu's features and legal mask are in obs, its actions and mask in the state
    assert_same((obs, st), (obs_b, st_b))
    assert obs_b.shape == (TABLES, env.obs_size)


def test_pots_with_the_object_paths_found_once_are_the_same():
    # the ball in hand at many spots of one layout: object_clearance once, or every spot's own
    rng = np.random.default_rng(1)
    f = F.FuncEnv(task="russian-pyramid")
    spec, n, hand = f.spec, f.n_balls, 0
    lo, hi = np.full(2, spec.ball_radius), np.array([spec.width, spec.length]) - spec.ball_radius  # the bed
    xy = jnp.asarray(rng.uniform(lo, hi, (n, 2)))
    on = jnp.asarray(rng.random(n) < 0.7)
    strikers = jnp.ones(n, bool)
    targets = jnp.asarray(rng.random(n) < 0.8)
    spots = jnp.asarray(rng.uniform(lo, hi, (64, 2)))
    clear = G.object_clearance(f.table, spec.ball_radius, xy, on, hand)

    def both(q):
        xy2, on2 = xy.at[hand].set(q), on.at[hand].set(True)
        return (G.pots(f.table, spec.ball_radius, xy2, on2, strikers, targets, only=hand),
                G.pots(f.table, spec.ball_radius, xy2, on2, strikers, targets, only=hand, object_clear=clear))

    plain, once = jax.jit(jax.vmap(both))(spots)
    assert_same(plain, once)
    assert 0 < int(np.sum(np.asarray(plain.ok))) < plain.ok.size
