"""Same inputs, same bytes: a vmapped batch equals each shot run alone, and two runs of
the same seeded batch are identical (docs/physics.md, "Determinism")."""

import hashlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cuegym.physics import (
    SLIDING,
    Shot,
    at_rest,
    get_spec,
    get_table,
    make_shot,
    perturb,
    simulate,
    simulate_batch,
    simulate_many,
)
from cuegym.physics.racks import pyramid_rack, random_positions
from cuegym.physics.refill import simulate_lanes
from cuegym.physics.simulate import DEFAULT_LOG_CAPACITY, DEFAULT_MAX_EVENTS, simulate_one


def seeded_batch(seed, batch, n_balls, table_name="pyramid-12ft"):
    spec = get_spec(table_name)
    keys = jax.random.split(jax.random.PRNGKey(seed), 3)
    pts, ok = jax.vmap(lambda k: random_positions(k, spec, n_balls))(jax.random.split(keys[0], batch))
    assert bool(jnp.all(ok))
    balls = jax.vmap(at_rest)(pts)
    u = jax.random.uniform(keys[1], (batch, 4), dtype=jnp.float64)
    shots = Shot(
        cue_ball=jnp.zeros(batch, jnp.int32),
        phi=u[:, 0] * 2 * jnp.pi,
        speed=0.3 + 5.0 * u[:, 1],
        a=0.8 * u[:, 2] - 0.4,
        b=0.8 * u[:, 3] - 0.4,
        theta=jnp.zeros(batch),
    )
    return balls, shots


def digest(tree):
    h = hashlib.sha256()
    for leaf in jax.tree_util.tree_leaves(tree):
        h.update(np.ascontiguousarray(np.asarray(leaf)).tobytes())
    return h.hexdigest()


def test_batch_of_1024_equals_its_shots_alone():
    """Every shot of a batch of 1024 equals the shot alone, checked on 160 of them: the 32
    with the most events (the longest loops, the most chances to drift) and 128 drawn with
    a seed (each shot alone is a dispatch of its own, 50 ms: all 1024 took 49 s)."""
    table = get_table("pyramid-12ft")
    balls, shots = seeded_batch(7, 1024, 8)
    # the batch's results and inputs fetched once and sliced on the host (the same bytes as
    # slicing on the device, without two dispatches per leaf and shot)
    batched = jax.device_get(simulate_batch(table, balls, shots, log_capacity=64))
    inputs = jax.device_get((balls, shots))
    events = np.asarray(batched[1].count)
    longest = np.argsort(-events, kind="stable")[:32]
    rest = np.setdiff1d(np.arange(1024), longest)
    drawn = np.random.default_rng(7).choice(rest, 128, replace=False)
    assert events[longest[-1]] > np.median(events)
    for i in np.concatenate([longest, drawn]).tolist():
        one = jax.tree_util.tree_map(lambda x, i=i: x[i], inputs)
        alone = simulate(table, one[0], one[1], log_capacity=64)
        mine = jax.tree_util.tree_map(lambda x, i=i: x[i], batched)
        assert digest(mine) == digest(alone), f"shot {i} differs in the batch"


def full_rack_breaks(n=16):
    """``n`` hard shots into a full pyramid rack from random cue-ball spots: (balls, shots)."""
    spec = get_spec("pyramid-12ft")
    rack = np.array(list(pyramid_rack(spec).values()))
    rng = np.random.default_rng(3)
    cues = np.stack([rng.uniform(0.2, spec.width - 0.2, n), rng.uniform(0.1, spec.head_line - 0.1, n)], 1)
    balls = jax.vmap(at_rest)(jnp.asarray(np.concatenate([cues[:, None], np.broadcast_to(rack, (n,) + rack.shape)], 1)))
    apex = rack[0]
    phi = np.arctan2(apex[1] - cues[:, 1], apex[0] - cues[:, 0]) + rng.normal(0, 0.01, n)
    shots = Shot(jnp.zeros(n, jnp.int32), jnp.asarray(phi), jnp.asarray(rng.uniform(3, 8, n)), jnp.zeros(n), jnp.zeros(n), jnp.zeros(n))
    return balls, shots


def test_full_rack_batch_equals_shots_alone():
    table = get_table("pyramid-12ft")
    balls, shots = full_rack_breaks()
    out_b = simulate_batch(table, balls, shots)
    assert not bool(jnp.any(out_b[1].truncated)), "every break ends under the event cap"
    for i in range(16):
        one = jax.tree_util.tree_map(lambda x, i=i: x[i], (balls, shots))
        assert digest(jax.tree_util.tree_map(lambda x, i=i: x[i], out_b)) == digest(simulate(table, *one))


def test_a_stroke_from_rest_solved_inside_the_loop_is_the_same_bytes():
    """simulate_one(at_rest=True), as the games play every stroke, solves the struck ball's
    candidates at the top of the loop's first event instead of every candidate before the
    loop: the sixteen breaks, results and full logs, are the bytes of simulate_batch's."""
    table = get_table("pyramid-12ft")
    balls, shots = full_rack_breaks()
    expected = simulate_batch(table, balls, shots)
    from_rest = jax.jit(jax.vmap(lambda b, s: simulate_one(table, b, s, DEFAULT_MAX_EVENTS, DEFAULT_LOG_CAPACITY,
                                                           True, at_rest=True)))(balls, shots)
    assert int(jnp.max(expected[1].count)) > 50  # breaks: long chains of events, all compared
    assert digest(from_rest) == digest(expected)


def test_lanes_that_refill_give_each_shot_its_own_bytes():
    """simulate_many: 4 lanes take 16 shots of very different lengths (each lane restarts on
    the next shot when its own ends), and the tail's last live lane moves into a program of
    one lane; every result is the bytes of the shot run alone."""
    table = get_table("pyramid-12ft")
    balls, shots = full_rack_breaks()
    many, stages = simulate_lanes(table, balls, shots, lanes=4, max_events=DEFAULT_MAX_EVENTS,
                                   log_capacity=DEFAULT_LOG_CAPACITY, throw=True, tail_lanes=1)
    counts = np.asarray(many[1].count)
    assert counts.max() > 1.5 * counts.min()  # lanes really finish at different times (60 to 113 events)
    assert [size for size, _ in stages] == [4, 1] and all(it > 0 for _, it in stages), stages
    # every lane-iteration serves at most one event of one shot
    assert sum(size * it for size, it in stages) >= counts.sum()
    for i in range(16):
        one = jax.tree_util.tree_map(lambda x, i=i: x[i], (balls, shots))
        alone = simulate(table, *one)
        assert digest(jax.tree_util.tree_map(lambda x, i=i: x[i], many)) == digest(alone), f"shot {i}"
    public = simulate_many(table, balls, shots, lanes=4, tail_lanes=1)
    assert digest(public) == digest(many)


def test_simulate_many_rejects_moving_layouts_and_bad_lanes():
    table = get_table("pyramid-12ft")
    balls, shots = full_rack_breaks(4)
    with pytest.raises(ValueError, match="lanes"):
        simulate_many(table, balls, shots, lanes=0)
    with pytest.raises(ValueError, match="tail_lanes"):
        simulate_many(table, balls, shots, lanes=4, tail_lanes=0)
    moving = balls._replace(state=balls.state.at[2, 3].set(SLIDING), v=balls.v.at[2, 3, 0].set(0.1))
    with pytest.raises(ValueError, match="balls: layout 2"):
        simulate_many(table, moving, shots, lanes=2)


def test_same_seeded_batch_twice_gives_the_same_bytes():
    """The batch drawn twice from one seed and simulated twice: the same bytes. The batch
    program of test_batch_of_1024_equals_each_shot_alone (1024 tables of 8 balls, a log of
    64 events), compiled once for the module; the property is the program's and the
    seeding's, not a table's (the snooker table's batches: tests/rules/test_rules_golf.py)."""
    table = get_table("pyramid-12ft")
    a = simulate_batch(table, *seeded_batch(11, 1024, 8), log_capacity=64)
    b = simulate_batch(table, *seeded_batch(11, 1024, 8), log_capacity=64)
    assert digest(a) == digest(b)


def test_noise_is_keyed_and_scaled():
    shot = make_shot(0, 1.0, 2.0, 0.1, -0.1, 0.05)
    r = 0.034
    key = jax.random.PRNGKey(0)
    assert digest(perturb(key, shot, 1.0, r)) == digest(perturb(key, shot, 1.0, r))
    assert digest(perturb(key, shot, 0.0, r)) == digest(shot)
    keys = jax.random.split(jax.random.PRNGKey(1), 20000)
    noisy = jax.vmap(lambda k: perturb(k, shot, 5.0, r))(keys)
    assert float(jnp.std(noisy.phi)) == pytest.approx(5 * np.radians(0.125), rel=0.03)
    assert float(jnp.std(noisy.speed)) == pytest.approx(5 * 0.075, rel=0.03)
    assert float(jnp.std(noisy.a)) * r == pytest.approx(5 * 0.0005, rel=0.03)
    assert float(jnp.std(noisy.theta)) == pytest.approx(5 * np.radians(0.1), rel=0.05)
