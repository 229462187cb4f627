"""Invariants over random positions and shots (hypothesis): no NaN, no overlaps, nothing
leaves the bed without an off-table or pocket event, energy never rises, every shot rests
within the event cap; mirrored shots give mirrored results."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuegym.physics import (
    OFF_TABLE,
    POCKETED,
    at_rest,
    get_spec,
    get_table,
    kinetic_energy,
    make_shot,
    simulate,
)
from cuegym.physics.racks import random_positions
from cuegym.physics.trace import positions_at, states_at_events

N_BALLS = 7
TABLES = ["pyramid-12ft", "snooker-12ft", "pool-9ft"]


def random_layout(seed, table_name, n=N_BALLS):
    spec = get_spec(table_name)
    pts, ok = random_positions(jax.random.PRNGKey(seed), spec, n)
    assert bool(jnp.all(ok))
    return spec, np.asarray(pts)


shots = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**31 - 1),
        "table": st.sampled_from(TABLES),
        "phi": st.floats(0, 2 * np.pi),
        "speed": st.floats(0.05, 8.0),
        "a": st.floats(-0.45, 0.45),
        "b": st.floats(-0.45, 0.45),
        "theta": st.sampled_from([0.0, 0.0, 0.05, 0.3]),
    }
)


def total_energy(balls, table):
    """Kinetic plus potential energy of the balls in play [J]."""
    ke = float(kinetic_energy(balls, table.mass, table.radius))
    in_play = np.asarray(balls.state) < POCKETED
    pe = float(np.sum(np.where(in_play, np.asarray(balls.r[:, 2]), 0.0))) * float(table.mass) * 9.81
    return ke + pe


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shots)
def test_random_shots_keep_the_invariants(p):
    spec, xy = random_layout(p["seed"], p["table"])
    table = get_table(p["table"])
    balls = at_rest(xy)
    shot = make_shot(0, p["phi"], p["speed"], p["a"], p["b"], p["theta"])
    final, log, summary = simulate(table, balls, shot)
    assert not bool(log.truncated), "every shot comes to rest within the event cap"
    assert not bool(log.overflow)
    for arr in (final.r, final.v, final.w):
        assert np.all(np.isfinite(np.asarray(arr)))
    r = float(table.radius)
    # sample positions at every event and on a fine grid in between
    n_ev = int(log.count)
    times = np.unique(np.concatenate([np.asarray(log.t[:n_ev]), np.linspace(0, float(log.t[n_ev - 1]), 200)]))
    states = states_at_events(table, balls, log)
    pos = positions_at(table, balls, log, times)
    gone_at = np.full(N_BALLS, np.inf)
    for k in range(n_ev):
        st_k = np.asarray(states[k].state)
        newly = (st_k >= POCKETED) & ~np.isfinite(gone_at)
        gone_at[newly] = float(log.t[k])
    off = float(table.contact_offset)
    w, length = float(table.width), float(table.length)
    for ti, t in enumerate(times):
        live = gone_at > t
        p3 = pos[ti][live]
        p_xy = p3[:, :2]
        d = np.sqrt(np.sum((p3[:, None] - p3[None]) ** 2, -1)) + np.eye(len(p3)) * 1e3  # 3-D: balls fly
        assert d.min() >= 2 * r - 1e-6, f"balls overlap by {(2 * r - d.min()) * 1e6:.2f} um at t={t}"
        # on the bed (or inside a pocket's throat) unless an event took it off
        inside = (p_xy[:, 0] >= off - 1e-6) & (p_xy[:, 0] <= w - off + 1e-6) & (p_xy[:, 1] >= off - 1e-6) & (p_xy[:, 1] <= length - off + 1e-6)
        throats = np.asarray(table.pocket_xy)
        near_pocket = np.min(np.hypot(*(p_xy[:, None] - throats[None]).transpose(2, 0, 1)), 1) < 4 * r
        assert np.all(inside | near_pocket), f"a ball left the bed without an event at t={t}"
    energies = [total_energy(s, table) for s in states]
    for k in range(1, len(energies)):
        assert energies[k] <= energies[k - 1] * (1 + 1e-9) + 1e-12, f"energy rose at event {k}"
    final_state = np.asarray(final.state)
    assert np.all((final_state == 0) | (final_state >= POCKETED)), "everything rests at the end"
    assert set(np.nonzero(final_state == OFF_TABLE)[0]) == set(np.nonzero(np.asarray(summary.off_table))[0])


MIRROR_POCKET = {0: 5, 1: 4, 2: 3, 3: 2, 4: 1, 5: 0}
MIRROR_CUSHION = {0: 0, 1: 1, 2: 4, 3: 5, 4: 2, 5: 3}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_mirrored_shot_gives_mirrored_result(seed):
    # N_BALLS, as the random shots: their programs on pyramid-12ft (the layout and the
    # simulation of 7 balls), compiled once for the module
    spec, xy = random_layout(seed + 100, "pyramid-12ft")
    table = get_table("pyramid-12ft")
    rng = np.random.default_rng(seed)
    phi, speed, a, b = rng.uniform(0, 2 * np.pi), rng.uniform(1, 5), rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)
    f1, log1, s1 = simulate(table, at_rest(xy), make_shot(0, phi, speed, a, b))
    mirrored = xy.copy()
    mirrored[:, 0] = spec.width - xy[:, 0]
    f2, log2, s2 = simulate(table, at_rest(mirrored), make_shot(0, np.pi - phi, speed, -a, b))
    assert int(log1.count) == int(log2.count)
    n = int(log1.count)
    np.testing.assert_array_equal(np.asarray(log1.kind[:n]), np.asarray(log2.kind[:n]))
    np.testing.assert_allclose(np.asarray(log1.t[:n]), np.asarray(log2.t[:n]), rtol=1e-9, atol=1e-9)
    p1, p2 = np.asarray(f1.r[:, :2]), np.asarray(f2.r[:, :2])
    live = np.asarray(f1.state) < POCKETED
    np.testing.assert_allclose(p1[live, 0], spec.width - p2[live, 0], atol=1e-6)
    np.testing.assert_allclose(p1[live, 1], p2[live, 1], atol=1e-6)
    for k in range(n):
        kind, o1, o2 = int(log1.kind[k]), int(log1.other[k]), int(log2.other[k])
        if kind in (4, 5):
            assert MIRROR_POCKET[o1] == o2
        if kind == 3:
            assert MIRROR_CUSHION[o1] == o2
