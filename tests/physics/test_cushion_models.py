"""The cushion models (cuegym.physics.cushion) against closed forms and pooltool's same models.

Reference values: ``pooltool_cushion_cases.json``, written by pooltool 0.6.0's own Han 2005 and
Mathavan 2010 functions (``python experiments/compare_pooltool.py --cushion-cases FILE`` in the
pooltool install of docs/physics.md), its Mathavan integration refined until it converges.
"""

import json
import math
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cuegym.physics  # noqa: F401  (float64)
from cuegym.physics import cushion as C
from cuegym.physics import get_spec, get_table
from cuegym.physics.tables import with_cushion

CASES = json.loads((pathlib.Path(__file__).parent / "pooltool_cushion_cases.json").read_text())["cases"]
INTO_X = jnp.array([-1.0, 0.0])  # the cushion's normal to the ball: the ball moves along +x into it


def _rebound(model, table, **overrides):
    t = get_table(with_cushion(table, model), **overrides)
    return jax.jit(jax.vmap(lambda v, w: C.MODELS[model](v, w, INTO_X, 0.0, True, t)))


def _heading(v):
    """Degrees from the cushion's outward normal, positive along +y."""
    return np.degrees(np.arctan2(v[..., 1], -v[..., 0]))


@pytest.mark.parametrize("model", ["han_2005", "mathavan_2010"])
def test_matches_pooltools_same_model_on_every_way_in(model):
    for table in ("pool-9ft", "snooker-12ft"):
        rows = [c for c in CASES if c["table"] == table]
        v_in, w_in = jnp.array([c["v"] for c in rows]), jnp.array([c["w"] for c in rows])
        v, w = map(np.asarray, _rebound(model, table)(v_in, w_in))
        ref_v = np.array([c[model][0] for c in rows])
        ref_w = np.array([c[model][1] for c in rows])
        if model == "han_2005":  # the same closed form: equal to rounding
            np.testing.assert_allclose(v[:, :2], ref_v[:, :2], atol=1e-12)
            np.testing.assert_allclose(w, ref_w, atol=1e-9)
        else:  # two integrations of one differential equation (ours: STEPS steps a phase)
            assert np.max(np.abs(_heading(v) - _heading(ref_v))) < 0.2
            speed, ref_speed = np.hypot(v[:, 0], v[:, 1]), np.hypot(ref_v[:, 0], ref_v[:, 1])
            np.testing.assert_allclose(speed, ref_speed, rtol=5e-3)
            np.testing.assert_allclose(w, ref_w, atol=0.02 * np.max(np.abs(ref_w)))
        assert np.all(v[:, 2] == 0.0)  # a ball on the bed stays on it


def test_the_45_degree_rolling_rebound_is_pooltools_han_2005():
    t = get_spec("pool-9ft")
    R = t.ball_radius
    v = jnp.array([[math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0]])
    w = jnp.array([[-v[0, 1] / R, v[0, 0] / R, 0.0]])
    out, _ = _rebound("han_2005", "pool-9ft")(v, w)
    # pooltool 0.6.0, han2005() on this ball: 44.01 degrees (the fixture's own cases bracket it)
    sh = _heading(np.asarray(out))[0]
    assert abs(sh - 44.0118) < 0.01


def test_han_2005_frictionless_head_on_returns_e_cos2_theta():
    """Eq. 17 with mu = 0: the normal impulse (1 + e) m v cos(theta) along the inclined
    normal; its horizontal part sends the ball back at v ((1 + e) cos^2(theta) - 1)."""
    spec = get_spec("pool-9ft")
    sin_t = (spec.cushion_height - spec.ball_radius) / spec.ball_radius
    cos2 = 1.0 - sin_t**2
    for e in (0.5, 0.85, 1.0):
        out, _ = _rebound("han_2005", "pool-9ft", e_cushion=e, mu_cushion=0.0)(jnp.array([[1.3, 0.0, 0.0]]),
                                                                             jnp.zeros((1, 3)))
        assert -float(out[0, 0]) == pytest.approx(1.3 * ((1 + e) * cos2 - 1), rel=1e-12)


def test_han_2005_sticks_when_friction_can_stop_the_slip():
    """Eq. 18: with friction to spare the contact point leaves without slip along the contact
    plane (the tangential impulse is the one that stops it)."""
    spec = get_spec("pool-9ft")
    R = spec.ball_radius
    out_v, out_w = _rebound("han_2005", "pool-9ft", mu_cushion=5.0)(jnp.array([[0.8, 0.5, 0.0]]), jnp.zeros((1, 3)))
    sin_t = (spec.cushion_height - R) / R
    big_n = np.array([-math.sqrt(1 - sin_t**2), 0.0, -sin_t])  # contact -> centre (normal to the ball is -x)
    slip = np.asarray(out_v[0]) + np.cross(np.asarray(out_w[0]), -R * big_n)
    # the contact's slip along the contact plane is cancelled (only the 2-D update is kept:
    # the slate takes the vertical part, so check the slip in the plane's horizontal direction)
    assert abs(slip[1]) < 1e-12


@pytest.mark.parametrize("e", [0.5, 0.98])
def test_mathavan_2010_frictionless_returns_e_of_the_approach(e):
    """With mu_w = mu_s = 0 the compression ends at W_c = m v^2 / 2 and the restitution's
    work e^2 W_c leaves -e v, the velocity along the cushion and the spin untouched."""
    v = jnp.array([[1.7, -0.4, 0.0], [0.05, 0.3, 0.0]])
    w = jnp.array([[3.0, -2.0, 5.0], [0.0, 0.0, 0.0]])
    out_v, out_w = _rebound("mathavan_2010", "snooker-12ft", e_cushion=e, mu_cushion=0.0, mu_slide=0.0)(v, w)
    np.testing.assert_allclose(np.asarray(out_v[:, 0]), -e * np.asarray(v[:, 0]), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(out_v[:, 1]), np.asarray(v[:, 1]), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(out_w), np.asarray(w), atol=1e-12)


@pytest.mark.parametrize("model", list(C.MODELS))
def test_no_model_makes_energy(model):
    rng = np.random.default_rng(3)
    spec = get_spec("snooker-12ft")
    m, R = spec.ball_mass, spec.ball_radius
    v = rng.uniform(-3, 3, (256, 3)) * [0, 1, 0] + rng.uniform(0.01, 3, (256, 1)) * [1, 0, 0]
    w = rng.uniform(-150, 150, (256, 3))
    out_v, out_w = map(np.asarray, _rebound(model, "snooker-12ft")(jnp.asarray(v), jnp.asarray(w)))

    def energy(v, w):
        return 0.5 * m * np.sum(v * v, -1) + 0.5 * 0.4 * m * R * R * np.sum(w * w, -1)

    assert np.all(energy(out_v, out_w) <= energy(v, w) * (1 + 1e-12))
    assert np.all(out_v[:, 0] <= 0.0)  # every ball leaves the cushion


def test_unknown_cushion_is_refused_naming_the_models():
    from cuegym.envs.functional import FuncEnv

    for make in (lambda: get_spec("pool-9ft@stronge"), lambda: get_spec("pool-9ft").with_overrides(cushion="x"),
                 lambda: FuncEnv(task="russian-pyramid", cushion="stronge")):
        with pytest.raises(ValueError, match=r"cushion: .*han_2005, mathavan_2010$"):
            make()


def test_the_env_option_names_the_table_and_reads_back():
    from cuegym.envs.functional import FuncEnv

    env = FuncEnv(task="russian-pyramid", cushion="han_2005")
    assert env.table == "pyramid-12ft@han_2005" and env.cushion == "han_2005"
    assert env.spec.cushion == "han_2005" and get_spec(env.table) == env.spec
    default = FuncEnv(task="russian-pyramid")
    assert default.table == "pyramid-12ft" and default.cushion == C.DEFAULT
    assert FuncEnv(task="russian-pyramid", cushion=C.DEFAULT) == default
