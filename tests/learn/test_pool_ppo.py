"""PPO over the pool (cuegym.learn.pool_ppo): the per-(table, seat) GAE against a direct
reading of its definition on random hand-out orders, the rows carried to the next window,
and a short self-play run through the real pool: deterministic, every decision booked."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cuegym.learn import gymnax_env, pool_ppo, ppo

GAMMA, LAM = 0.9, 0.8


def random_window(rng, tables, players, steps, batch, pending_live):
    """Rows of ``steps`` hand-outs of ``batch`` distinct tables each, random seats, ends
    and rewards; and N x P pending rows, live where ``pending_live``."""
    table = np.stack([rng.choice(tables, batch, replace=False) for _ in range(steps)]).astype(np.int32)
    seat = rng.integers(0, players, (steps, batch)).astype(np.int32)
    done = rng.random((steps, batch)) < 0.2
    f = lambda *s: rng.normal(size=s).astype(np.float32)  # noqa: E731
    rows = pool_ppo.Rows(table, seat, f(steps, batch, 1), np.zeros((steps, batch), np.int32), f(steps, batch),
                         f(steps, batch), ~done, f(steps, batch, players), done, np.zeros((steps, batch), np.float32),
                         np.zeros((steps, batch), bool))
    m = tables * players
    pend = pool_ppo.Rows(np.repeat(np.arange(tables), players).astype(np.int32),
                         np.tile(np.arange(players), tables).astype(np.int32), f(m, 1), np.zeros(m, np.int32),
                         f(m), f(m), pending_live, np.zeros((m, players), np.float32), np.zeros(m, bool), f(m),
                         np.zeros(m, bool))
    return rows, pend


def direct_gae(rows, pend, tables, players):
    """The definition read row by row: a decision's reward is its seat's share of every env
    step after it, up to the seat's next decision on the table (that step included) or the
    episode's end; it bootstraps from that next decision's value and advantage."""
    seq = [dict(table=int(pend.table[k]), seat=int(pend.seat[k]), value=float(pend.value[k]),
                decision=bool(pend.decision[k]), reward=np.zeros(players), done=False, acc=float(pend.acc[k]))
           for k in range(len(pend.table))]
    steps, batch = rows.table.shape
    for t in range(steps):
        for b in range(batch):
            seq.append(dict(table=int(rows.table[t, b]), seat=int(rows.seat[t, b]), value=float(rows.value[t, b]),
                            decision=bool(rows.decision[t, b]), reward=rows.reward[t, b].astype(float),
                            done=bool(rows.done[t, b]), acc=0.0))
    first_window = len(pend.table)
    adv = np.zeros(len(seq))
    trained = np.zeros(len(seq), bool)
    still = np.zeros(len(seq), bool)
    got = np.zeros(len(seq))
    for e in reversed(range(len(seq))):
        r = seq[e]
        if not r["decision"]:
            continue
        total, succ, ended = r["acc"], None, False
        # rows later in time: the pending rows all precede the window, and a pending row
        # has no later pending row of its table
        later = range(max(e + 1, first_window), len(seq))
        for f in later:
            q = seq[f]
            if q["table"] != r["table"]:
                continue
            total += q["reward"][r["seat"]]
            if q["done"]:
                ended = True
                break
            if q["decision"] and q["seat"] == r["seat"]:
                succ = f
                break
        got[e] = total
        if succ is None and not ended:
            still[e] = True
            continue
        trained[e] = True
        a = total - r["value"]
        if succ is not None:
            a += GAMMA * seq[succ]["value"] + GAMMA * LAM * adv[succ]
        adv[e] = a
    return adv, trained, still, got


@pytest.mark.parametrize("players", [2, 3])
def test_targets_are_gae_over_each_seats_own_decisions(players):
    rng = np.random.default_rng(players)
    tables, steps, batch = 5, 9, 3
    for trial in range(4):
        live = rng.random(tables * players) < 0.6
        rows, pend = random_window(rng, tables, players, steps, batch, live)
        adv, trained, still, got = jax.jit(pool_ppo.targets, static_argnums=(2, 3, 4, 5))(
            rows, pend, tables, players, GAMMA, LAM)
        want = direct_gae(rows, pend, tables, players)
        np.testing.assert_array_equal(np.asarray(trained), want[1], err_msg=f"trial {trial}")
        np.testing.assert_array_equal(np.asarray(still), want[2], err_msg=f"trial {trial}")
        np.testing.assert_allclose(np.asarray(adv)[want[1]], want[0][want[1]], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(np.asarray(got)[want[2]], want[3][want[2]], rtol=1e-5, atol=1e-5)
        # every decision is trained now or carried, never both, never lost
        decisions = np.concatenate([pend.decision, rows.decision.reshape(-1)])
        np.testing.assert_array_equal(np.asarray(trained) | np.asarray(still), decisions)
        assert not np.any(np.asarray(trained) & np.asarray(still))
        # one carried decision per (table, seat) at most
        every = jax.tree_util.tree_map(lambda a, b: np.concatenate([a, b.reshape((-1,) + b.shape[2:])]), pend, rows)
        keys = every.table[np.asarray(still)] * players + every.seat[np.asarray(still)]
        assert len(set(keys.tolist())) == len(keys)
        carried = pool_ppo.carry_over(every, jnp.asarray(still), jnp.asarray(got), tables, players)
        np.testing.assert_array_equal(np.sort(np.flatnonzero(np.asarray(carried.decision))), np.sort(keys))
        np.testing.assert_allclose(np.asarray(carried.acc)[keys], np.asarray(got)[np.asarray(still)])


@pytest.fixture(scope="module")
def selfplay_runs():
    """Two runs of three iterations from the same seed, self-play on the pot drill's pool."""
    env, params = gymnax_env.make("cuegym/RussianPyramid-v0", action="menu", opponent=None)
    cfg = ppo.Config(num_envs=8, num_steps=3, pool_batch=4, minibatches=2, epochs=1)
    init = jax.jit(lambda k: pool_ppo.init(env, params, cfg, k, "self"))
    it = jax.jit(lambda s: pool_ppo.iteration(env, params, cfg, s))
    runs = []
    for _ in range(2):
        ts = init(jax.random.PRNGKey(3))
        metrics = []
        for _ in range(3):
            ts, m = it(ts)
            metrics.append(jax.device_get(m))
        runs.append((jax.device_get(ts), metrics))
    return env, cfg, runs


def test_selfplay_over_the_pool_is_deterministic_and_books_every_seat(selfplay_runs):
    env, cfg, runs = selfplay_runs
    (a, ma), (b, mb) = runs
    for x, y in zip(jax.tree_util.tree_leaves(a.params), jax.tree_util.tree_leaves(b.params)):
        np.testing.assert_array_equal(x, y)
    assert ma == mb
    assert int(a.steps) == 3 * cfg.num_steps * cfg.pool_batch
    # both seats act in self-play, and both have decisions waiting for a successor
    seats = np.asarray(a.pending.seat)[np.asarray(a.pending.decision)]
    assert set(seats.tolist()) == {0, 1}
    for m in ma:
        assert all(np.isfinite(v) for v in m.values())
        assert 0.0 <= m["trained"] <= 1.0
    # the first window's decisions mostly wait for their seat's next turn; later ones train
    assert max(m["trained"] for m in ma) > 0.0
