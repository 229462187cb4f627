"""Regression cases from the failures pooltool's users reported, as concrete layouts and strokes.

Each test is named after its source (pooltool issue or pull request) and asserts against an
independent truth: closed-form motion (Leckie & Greenspan 2005: a stun ball rolls at 5/7 of its
speed after 2 v / (7 mu_s g); rolling stops after v^2 / (2 mu_r g)), conservation of momentum
in an instant of contacts, restitution bounds, symmetry, and at every logged event and between
events (``cuegym.physics.audit``) no overlap beyond 1 µm, no ball outside the playable region,
no rise of energy. Every case runs in one batch on pyramid-12ft (one compiled program), twice,
the second time in reverse batch order, and must give the same bytes.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cuegym.physics import (
    AIRBORNE,
    OFF_TABLE,
    POCKETED,
    ROLLING,
    SLIDING,
    SPINNING,
    STATIONARY,
    BallState,
    Shot,
    get_table,
    simulate_batch,
)
from cuegym.physics import events as ev
from cuegym.physics.audit import audit_log

TABLE = get_table("pyramid-12ft")
R, OFF = float(TABLE.radius), float(TABLE.contact_offset)
W, L = float(TABLE.width), float(TABLE.length)
G, MU_S, MU_R, E_BALL = 9.81, float(TABLE.mu_slide), float(TABLE.mu_roll), float(TABLE.e_ball)
N = 5  # ball slots of every case
IDLE = (1.6, 3.3)  # an idle cue ball, struck at zero speed, where a case moves balls itself
TOL = 1e-6  # m: overlap and escape allowed at any event
LOG_CAPACITY = 600  # every event of every case (the air ball on a pressing pair takes 555)
CASES: dict[str, dict] = {}


def case(name, xy, shot=(0.0, 0.0), a=0.0, b=0.0, moving=None, z=None, spin=None):
    """Register a case: ``xy`` centres (ball 0 first), ``shot`` (phi [rad], cue speed [m/s]) on
    ball 0, ``moving`` {ball: (v (3,), state)} set before the strike (spin: rolling or none),
    ``z`` {ball: height [m] above the bed}, ``spin`` {ball: w (3,) [rad/s]} (overrides)."""
    CASES[name] = dict(xy=np.asarray(xy, float), shot=(0, *shot, a, b, 0.0), moving=moving or {}, z=z or {},
                       spin=spin or {})


def rolling(vx, vy):
    return (np.array([vx, vy, 0.0]), ROLLING)


# pooltool #154: a fast ball passes through a ball nearly touching another
for gap in (1e-9, 0.0):
    case(f"154_line_{gap:g}", [(0.2, 1.0), (0.6, 1.0), (0.6 + 2 * R + gap, 1.0)], (0.0, 10.0))
case("154_graze_hit", [(0.2, 1.0), (1.0, 1.0 + 2 * R - 1e-7)], (0.0, 10.0))
case("154_graze_miss", [(0.2, 1.0), (1.0, 1.0 + 2 * R + 1e-7)], (0.0, 10.0))
case("154_cut_into_pair", [(0.3, 1.2), (0.9, 1.5), (0.9 + (2 * R + 1e-9) * 0.5, 1.5 + (2 * R + 1e-9) * math.sqrt(3) / 2)],
     (math.atan2(0.3 - R, 0.6), 10.0))

# pooltool #217: near-simultaneous nose and jaw contact at a corner; a ball frozen on a rail
D_CORNER = float(TABLE.seg_a[2, 1])  # where the left-head nose begins (its jaw's tangent point)
for speed in (1.0, 4.0, 10.0):
    for k, (start, target) in enumerate((((0.4, 0.4), (OFF, D_CORNER)), ((0.5, 0.25), (D_CORNER, OFF)))):
        case(f"217_junction_{k}_{speed:g}", [start], (math.atan2(target[1] - start[1], target[0] - start[0]), speed))
    case(f"217_frozen_into_rail_{speed:g}", [(OFF, 1.2)], (math.pi + 0.6, speed))
for a in (0.0, 0.4, -0.4):
    case(f"217_frozen_along_rail_{a:g}", [(OFF, 1.2)], (-math.pi / 2, 2.0), a=a)

# pooltool #263 / PR #354: contact polynomials that degenerate (equal accelerations, parallel motion)
for gap in (0.0, 1e-9):
    case(f"263_side_by_side_{gap:g}", [IDLE, (0.6, 1.0), (0.6 + 2 * R + gap, 1.0)],
         moving={1: rolling(0, 0.5), 2: rolling(0, 0.5)})
    case(f"354_slide_beside_roll_{gap:g}", [IDLE, (0.6, 1.0), (0.6 + 2 * R + gap, 1.0)],
         moving={1: (np.array([0.0, 0.7, 0.0]), SLIDING), 2: rolling(0, 0.5)})
case("263_chasing", [IDLE, (0.6, 1.0), (0.6, 1.1)], moving={1: rolling(0, 0.6), 2: rolling(0, 0.3)})
case("263_slower_behind", [IDLE, (0.6, 1.0), (0.6, 1.1)], moving={1: rolling(0, 0.3), 2: rolling(0, 0.6)})
case("354_touching_in_line", [IDLE, (0.6, 1.0), (0.6, 1.0 + 2 * R)], moving={1: rolling(0, 0.5), 2: rolling(0, 0.5)})

# pooltool PR #257: Newton's cradle, touching and nearly touching
CRADLE_RUN_UP = 1e-3  # m between the cue ball and the line
for gap in (0.0, 1e-9, 1e-7):
    x1 = 0.8
    case(f"257_cradle_{gap:g}", [(x1 - 2 * R - CRADLE_RUN_UP, 1.0)] + [(x1 + k * (2 * R + gap), 1.0) for k in range(4)],
         (0.0, 1.0))

# pooltool PR #78: events that coincide exactly
# the cue ball meets two balls at one instant; 0.75 +- y is exact, so the two contact times are equal
case("78_cue_hits_pair", [(0.3, 0.75), (1.0, 0.75 + R + 5e-8), (1.0, 0.75 - R - 5e-8)], (0.0, 2.0))
case("78_cue_hits_pair_swapped", [(0.3, 0.75), (1.0, 0.75 - R - 5e-8), (1.0, 0.75 + R + 5e-8)], (0.0, 2.0))
case("78_twin_cushions", [IDLE, (0.5, 1.0), (1.25, 1.0)], moving={1: rolling(0, -1.0), 2: rolling(0, -1.0)})

# pooltool PR #201: rolling parallel to a rail, at it and a hair off it
for gap in (0.0, 1e-12, 1e-9, 1e-6):
    case(f"201_parallel_{gap:g}", [IDLE, (OFF + gap, 1.0)], moving={1: rolling(0, 0.5)})
case("201_drifting_in", [IDLE, (OFF + 1e-6, 1.0)], moving={1: rolling(-1e-6, 0.5)})

# found by the fuzzer (docs/physics.md, "Fuzzing"): a ball in the air touching a ball on the bed,
# not yet approaching it but falling onto it (the gap function <= 0 at t = 0, flat, then falling)
FALL = 2 * R - 1e-13  # centre distance: touching, 1e-13 m into it by rounding
case("fuzz_airborne_falls_onto_ball", [IDLE, (0.8 + FALL * 0.5, 1.0), (0.8, 1.0)],
     moving={1: (np.zeros(3), AIRBORNE)}, z={1: FALL * math.sqrt(3) / 2})
# the same on the bed (snooker rack, seed 1, chunk 2, index 14417): a ball sliding slowly past a
# ball at rest it touches, its slip (0.2, 0.05) m/s curving it into that ball (friction
# -mu_s g u_hat) faster than its speed along it takes it away (f'' < 0); 1e-13 m into it, as a
# contact leaves a pair
case("fuzz_slide_curves_into_touching_ball", [IDLE, (0.8, 1.0), (0.8 + FALL, 1.0)],
     moving={2: (np.array([0.0, 0.05, 0.0]), SLIDING)}, spin={2: np.array([0.0, -0.2 / R, 0.0])})

# found by the fuzzer (pyramid, seed 0, chunk 0, index 16352): touching balls rolling on together at
# about 1.2 cm/s, the front one straight on, the others a little to either side, so that rolling
# resistance presses each into the next (docs/physics.md, rule 2: a pressing group)
CHAIN_VY = (0.004, -0.004, 0.004, 0.0)
case("fuzz_pressing_chain", [IDLE] + [(0.6 + k * FALL, 1.0) for k in range(len(CHAIN_VY))],
     moving={1 + k: rolling(0.012, vy) for k, vy in enumerate(CHAIN_VY)})

# found by the fuzzer (snooker, seed 1, chunk 0, index 4775; pool chunk 16 index 1984 of the 10^6
# run): a ball in the air resting on a ball that presses into a neighbour, the two rolling on
# together (docs/physics.md, rule 5); cut at the event cap before
AIR_ON_PAIR = {2: rolling(-0.03, 0.01), 3: rolling(-0.03, 0.0), 1: (np.array([-0.03, 0.01, 0.0]), AIRBORNE)}
case("fuzz_airborne_on_a_pressing_pair", [IDLE, (0.8 + FALL * 0.5, 1.0), (0.8, 1.0), (0.8 - FALL, 1.0)],
     moving=AIR_ON_PAIR, z={1: FALL * math.sqrt(3) / 2})

# found by the fuzzer (pyramid, seed 2, mixed chunk 1, index 6971 of the 10^6 run): a ball
# rolling along a corner pocket's throat wall, touching it exactly (gap 0.0), its velocity
# along the wall but for rounding (1.7e-18 m/s into it); each cushion impulse was too small to
# change it and the same contact recurred at once to the event cap
THROAT = dict(xy=(0.0022229315711980967, 0.006754887425031076), v=(-0.0133346158889002, -0.013334615888900198, 0.0),
              w=(0.3921945849676529, -0.39219458496765286, -0.21806026431629977))
case("fuzz_along_a_throat_wall", [IDLE, THROAT["xy"]], moving={1: (np.array(THROAT["v"]), ROLLING)},
     spin={1: np.array(THROAT["w"])})

# rule 6 (docs/physics.md): a ball rolling slowly into a ball held at rest by a ball at rest
# behind it, mostly along it (1 mm/s into it, 2 cm/s along it)
HELD_N = np.array([math.cos(math.pi / 6), math.sin(math.pi / 6)])  # from the rolling ball to the held one
HELD_T = np.array([-HELD_N[1], HELD_N[0]])
HELD_V = 0.02 * HELD_T + 0.001 * HELD_N
case("fuzz_rolling_into_a_held_ball", [IDLE, (0.8, 1.0) - FALL * HELD_N, (0.8, 1.0), (0.8 + FALL, 1.0)],
     moving={1: rolling(*HELD_V)})

# found by the fuzzer (snooker, seed 2, break 1980 of the 10^6 run): a ball rolling slowly
# between two held balls on nearly opposite sides of it (the lines along them 10 degrees
# apart), each held by a ball at rest behind it (ball 0, idle, is one of them)
WEDGE_A, WEDGE_B = (math.radians(100.0), math.radians(-70.0))  # directions to the held balls
_W = np.array([0.8, 1.0])
_WA = _W + FALL * np.array([math.cos(WEDGE_A), math.sin(WEDGE_A)])
_WB = _W + FALL * np.array([math.cos(WEDGE_B), math.sin(WEDGE_B)])
case("fuzz_rolling_into_a_wedge_of_held_balls",
     [_WB + FALL * np.array([math.cos(WEDGE_B), math.sin(WEDGE_B)]), _W, _WA, _WB,
      _WA + FALL * np.array([math.cos(WEDGE_A), math.sin(WEDGE_A)])],
     moving={1: rolling(0.003 * math.cos(math.radians(5.0)), 0.003 * math.sin(math.radians(5.0)))})

# found by the fuzzer (pool-9ft, seed 4, mixed chunk 0, index 11905), scaled to this table's
# balls: a ball in the air, spinning at 140 rad/s, resting on a ball that rolls along a ball
# held at rest by a ball at rest (rules 5 and 6); cut at the event cap before, the air ball's
# microcollisions passing their push into the held ball and losing it
_POOL_R = 0.028575
_AIR = {  # ball: (state, r, v, w) in the fuzz run, after its 13th event
    1: (AIRBORNE, (0.18158975679693082, 2.423276381983016, 0.0502305380412406),
        (-0.5246124079274506, 0.004043055507139855, 0.15239873994498176),
        (116.12751046811184, -70.6003839601037, -71.63004291695539)),
    2: (SPINNING, (0.13935908842856465, 2.2894592369707567, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, -0.06442770526801199)),
    3: (SPINNING, (0.15303348693388105, 2.3449491759283556, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.3029029211384373)),
    4: (ROLLING, (0.16670763233884178, 2.4004391772569242, 0.0),
        (-0.01962571321949382, 0.004836282210765001, 0.0),
        (-0.1692487212866142, -0.6868141109184188, 0.42394192011541987)),
}
_AIR_XYZ = {k: (np.array(r) - np.array(_AIR[3][1])) * (R / _POOL_R) + np.array([0.8, 1.0, 0.0]) for k, (_, r, _, _) in _AIR.items()}
case("fuzz_airborne_on_a_ball_along_a_held_ball", [IDLE] + [tuple(_AIR_XYZ[k][:2]) for k in (1, 2, 3, 4)],
     moving={k: (np.array(v), st) for k, (st, _, v, _) in _AIR.items()}, z={1: _AIR_XYZ[1][2]},
     spin={k: np.array(w) * (_POOL_R / R) for k, (_, _, _, w) in _AIR.items()})

# found by the fuzzer (snooker-12ft, seed 2, mixed chunk 11, index 5865 of the 10^6 run), scaled
# to this table's balls: a ball in the air, spinning at 165 rad/s, resting on a ball (3) that
# rolls beside a line of two more (2, 1) at 2 to 4 cm/s relative to it (too fast for a pressing
# group); each microcollision pushed 3 into 2, which sent it back into the air ball, contacts
# 0.1-0.3 us apart, past 20,000 events
_SNOOKER_R = 0.02625
_STORM = {  # ball: (state, r, v, w) in the fuzz run, after its 21st event
    1: (ROLLING, (0.9733413743409424, 0.12727361965332468, 0.0), (0.019073016640268697, -0.030438297046662666, 0.0),
        (1.159554173206197, 0.7265911101054742, 0.0)),
    2: (ROLLING, (0.9465110715108112, 0.1724095932415853, 0.0), (-0.02086259307126293, -0.054665335465085264, 0.0),
        (2.082488970098486, -0.7947654503338258, 0.0)),
    3: (ROLLING, (0.9216829629663931, 0.21887329567965116, 0.0), (-0.009356487431525439, -0.07197648178081867, 0.0),
        (2.741961210697854, -0.35643761643906435, 0.16824075796665988)),
    4: (AIRBORNE, (0.9029934580168554, 0.2412596042142733, 0.0436713068808082),
        (-0.04452015052647675, -0.39710943067130516, 0.13276348929503523),
        (-161.87220072895437, 29.701570089371756, -38.67332627121787)),
}
_STORM_XYZ = {k: (np.array(r) - np.array(_STORM[3][1])) * (R / _SNOOKER_R) + np.array([0.8, 1.6, 0.0])
              for k, (_, r, _, _) in _STORM.items()}
case("fuzz_airborne_pushes_into_a_rolling_neighbour", [IDLE] + [tuple(_STORM_XYZ[k][:2]) for k in (1, 2, 3, 4)],
     moving={k: (np.array(v), st) for k, (st, _, v, _) in _STORM.items()}, z={4: _STORM_XYZ[4][2]},
     spin={k: np.array(w) * (_SNOOKER_R / R) for k, (_, _, _, w) in _STORM.items()})

# found by the fuzzer (pool-9ft, seed 2, mixed chunk 10, index 4057 of the 10^6 run): a ball
# rolling slowly along a rail into a ball held at rest that touches it 30 degrees off the
# rail's line, wedged between the two (rule 6 with the cushion as one side)
RAIL_WEDGE = math.radians(30.0)
_RW_H = np.array([math.sin(RAIL_WEDGE), -math.cos(RAIL_WEDGE)])  # from the rolling ball to the held one
_RW = np.array([OFF, 1.2])
case("fuzz_rolling_along_a_rail_into_a_held_ball", [IDLE, tuple(_RW), tuple(_RW + FALL * _RW_H), tuple(_RW + 2 * FALL * _RW_H)],
     moving={1: rolling(0.0, -0.004)})

# found by the fuzzer (snooker break, seed 5, break 6873): a pressing pair rolling past a ball
# held at rest, the front one touching it, the one behind pressing it in (rules 2 and 6); the
# held ball stopped the front ball's part into it, the pair's mean gave half of it back, at
# one instant, to the event cap
PASS_U = np.array([-0.5, math.sqrt(3) / 2])  # from the held ball along the pair
PASS_T = np.array([PASS_U[1], -PASS_U[0]])
_PH = np.array([0.8, 1.6])
case("fuzz_pressing_pair_past_a_held_ball", [IDLE, tuple(_PH - FALL * PASS_U), tuple(_PH), tuple(_PH + FALL * PASS_U),
                                             tuple(_PH + 2 * FALL * PASS_U)],
     moving={3: rolling(*(0.0115 * PASS_T)), 4: rolling(*(0.0115 * PASS_T - 0.001 * PASS_U))})

# found by the fuzzer (pyramid, seed 5, mixed chunk 18, index 14404 of the 10^6 run): a ball
# in the air falling onto a ball frozen on a rail, from the table's side, so that each
# microcollision drives the lower ball into the cushion (rule 5 with a cushion nose)
case("fuzz_airborne_on_a_ball_frozen_on_a_rail", [IDLE, (OFF + FALL * 0.5, 1.2), (OFF, 1.2)],
     moving={1: (np.zeros(3), AIRBORNE)}, z={1: FALL * math.sqrt(3) / 2})

NAMES = list(CASES)


def _inputs(names):
    B = len(names)
    r, v, w = np.zeros((B, N, 3)), np.zeros((B, N, 3)), np.zeros((B, N, 3))
    state = np.full((B, N), OFF_TABLE, np.int32)
    shot = np.zeros((B, 6))
    for i, name in enumerate(names):
        c = CASES[name]
        n = len(c["xy"])
        r[i, :n, :2], state[i, :n] = c["xy"], STATIONARY
        for k, height in c["z"].items():
            r[i, k, 2] = height
        for k, (vel, st) in c["moving"].items():
            v[i, k], state[i, k] = vel, st
            if st == ROLLING:
                w[i, k, :2] = (-vel[1] / R, vel[0] / R)
        for k, spin in c["spin"].items():
            w[i, k] = spin
        shot[i] = c["shot"]
    balls = BallState(jnp.asarray(r), jnp.asarray(v), jnp.asarray(w), jnp.asarray(state), jnp.full((B, N), -1, jnp.int32))
    f = lambda k: jnp.asarray(shot[:, k])  # noqa: E731
    return balls, Shot(jnp.asarray(shot[:, 0], jnp.int32), f(1), f(2), f(3), f(4), f(5))


_audit = jax.jit(jax.vmap(lambda b, lg: audit_log(TABLE, b, lg)))


@pytest.fixture(scope="module")
def runs():
    """{name: (start BallState, final, log, summary, audit)} as numpy, and the same run in
    reverse batch order."""
    out = []
    for names in (NAMES, NAMES[::-1]):
        balls, shots = _inputs(names)
        res = simulate_batch(TABLE, balls, shots, log_capacity=LOG_CAPACITY)
        aud = _audit(balls, res[1])
        tree = jax.tree_util.tree_map(np.asarray, (balls, *res, aud))
        out.append({n: jax.tree_util.tree_map(lambda x, i=i: x[i], tree) for i, n in enumerate(names)})
    return out


def ball_events(log, kind=ev.BALL):
    """[(t, i, j, v_i (3,), v_j (3,))] of the logged events of ``kind``."""
    n = int(log.count)
    return [(float(log.t[k]), int(log.ball[k]), int(log.other[k]), log.v[k, 0], log.v[k, 1])
            for k in range(n) if int(log.kind[k]) == kind]


def check_events(aud, name):
    """The invariants every logged event keeps (``aud``: an ``audit_log`` result)."""
    assert aud.overlap <= TOL, f"{name}: balls overlap by {aud.overlap:.3g} m at event {aud.worst_event}"
    assert aud.escape <= TOL, f"{name}: a ball {aud.escape:.3g} m outside the playable region"
    assert not (aud.energy_rel > 1e-9 and aud.energy_rise > 1e-12), f"{name}: energy rose by {aud.energy_rise:.3g} J"
    assert not aud.nan, name


def check_sound(run, name):
    """The invariants every case keeps."""
    balls, final, log, summ, aud = run[name]
    assert not log.truncated and not log.overflow, name
    check_events(aud, name)
    present = balls.state != OFF_TABLE
    assert np.all((final.state[present] == STATIONARY) | (final.state[present] == POCKETED)), name
    assert not summ.off_table.any(), f"{name}: a ball left the table"


def test_every_case_is_sound_and_deterministic(runs):
    first, second = runs
    for name in NAMES:
        check_sound(first, name)
        for x, y in zip(jax.tree_util.tree_leaves(first[name]), jax.tree_util.tree_leaves(second[name])):
            assert x.tobytes() == y.tobytes(), f"{name}: not the same bytes at another batch position"


def test_the_audit_sees_a_doctored_energy_rise(runs):
    """The checks above can fail: the same batch with one contact's outgoing speeds raised."""
    balls, shots = _inputs(NAMES)
    _, log, _ = simulate_batch(TABLE, balls, shots, log_capacity=LOG_CAPACITY)
    i = NAMES.index("257_cradle_0")
    k = int(np.flatnonzero(np.asarray(log.kind[i]) == ev.BALL)[0])
    aud = _audit(balls, log._replace(v=log.v.at[i, k].multiply(1.2)))
    assert float(aud.energy_rise[i]) > 1e-3 and float(aud.energy_rel[i]) > 0.1
    assert float(np.max(np.delete(np.asarray(aud.energy_rise), i))) <= 1e-12


def test_pooltool_154_ball_through_ball(runs):
    run = runs[0]
    for name in ("154_line_1e-09", "154_line_0"):
        contacts = ball_events(run[name][2])
        assert [(i, j) for _, i, j, _, _ in contacts[:2]] == [(0, 1), (1, 2)], name
        t0, t1 = contacts[0][0], contacts[1][0]
        assert t1 - t0 < 1e-9, name  # the pressed ball passes the blow on at once
        v_in = float(run[name][2].v[0, 0, 0])  # the cue ball after the strike: straight along +x
        v2 = contacts[1][4]
        assert v2[0] > ((1 + E_BALL) / 2) ** 2 * v_in * 0.99, name  # through two contacts, not through a ball
    hit, miss = run["154_graze_hit"], run["154_graze_miss"]
    assert int(hit[3].first_contact) == 1
    assert int(miss[3].first_contact) == -1 and not miss[3].touched.any()
    assert miss[1].r[1].tobytes() == miss[0].r[1].tobytes()  # the missed ball never moved
    check_sound(run, "154_cut_into_pair")


def test_pooltool_217_corner_double_cushion(runs):
    run = runs[0]
    for name in NAMES:
        if name.startswith("217_junction"):
            check_sound(run, name)
            assert ball_events(run[name][2], ev.CUSHION) or ball_events(run[name][2], ev.JAW), name
    for speed in ("1", "4", "10"):
        log = run[f"217_frozen_into_rail_{speed}"][2]
        first = ball_events(log, ev.CUSHION)[0]
        assert first[0] == 0.0 and first[1] == 0  # touching and driven in: a contact at once
        v_in = log.v[0, 0]
        assert 0 < first[3][0] <= -v_in[0] * 1.0001  # it leaves the rail, no faster than it came
    for a in ("0", "0.4", "-0.4"):
        name = f"217_frozen_along_rail_{a}"
        balls, final, log, _, aud = run[name]
        assert aud.escape <= TOL
        if a == "0":  # heading straight along the rail (cos(-pi/2) ~ 6e-17): on the rail line to the jaw
            n = int(log.count)
            jaw = next(k for k in range(n) if int(log.kind[k]) == ev.JAW)  # it grazes the jaw's tangent point
            xs = [float(log.r[k, 0, 0]) for k in range(jaw + 1)]
            assert len(xs) >= 3 and max(abs(x - OFF) for x in xs) < 1e-9, name


def closed_form_stop(v0, sliding):
    """Distance [m] to rest of a ball with speed ``v0`` along a line, rolling, or sliding
    without spin (stun) then rolling (Leckie & Greenspan 2005)."""
    if not sliding:
        return v0 * v0 / (2 * MU_R * G)
    t = 2 * v0 / (7 * MU_S * G)
    slide = v0 * t - 0.5 * MU_S * G * t * t
    v1 = 5 / 7 * v0
    return slide + v1 * v1 / (2 * MU_R * G)


def test_pooltool_263_354_degenerate_quartic(runs):
    run = runs[0]
    for gap in ("0", "1e-09"):
        for name, speeds, sliding in ((f"263_side_by_side_{gap}", (0.5, 0.5), (False, False)),
                                      (f"354_slide_beside_roll_{gap}", (0.7, 0.5), (True, False))):
            balls, final, log, _, _ = run[name]
            assert not ball_events(log), f"{name}: a false contact"
            for k, v0, sl in zip((1, 2), speeds, sliding):
                assert final.r[k, 0] == balls.r[k, 0], name  # nothing pushed it sideways
                assert abs(final.r[k, 1] - balls.r[k, 1] - closed_form_stop(v0, sl)) < 1e-9, name
    balls, final, log, _, _ = run["263_chasing"]
    contacts = ball_events(log)
    # equal accelerations: the gap closes at the constant relative speed, 0.3 m/s
    assert contacts and abs(contacts[0][0] - (0.1 - 2 * R) / 0.3) < 1e-12
    assert not ball_events(run["263_slower_behind"][2])
    balls, final, log, _, _ = run["354_touching_in_line"]
    assert not ball_events(log)
    assert abs(final.r[2, 1] - final.r[1, 1] - 2 * R) < 1e-12


def test_pooltool_257_newtons_cradle(runs):
    run = runs[0]
    # e_ball = 0.95, equal masses: each contact of the first pass keeps momentum and hands the
    # struck ball (1 + e) / 2 of the striker's speed, so the far ball leaves at ((1 + e) / 2)^4 of
    # the incoming speed (0.904) and the others keep under 5 %
    for gap in ("0", "1e-09", "1e-07"):
        name = f"257_cradle_{gap}"
        balls, final, log, _, _ = run[name]
        v0 = float(log.v[0, 0, 0])  # the stun cue ball after the strike
        v_in = math.sqrt(v0 * v0 - 2 * MU_S * G * CRADLE_RUN_UP)  # sliding on the cloth to the line
        contacts = ball_events(log)
        t0 = contacts[0][0]
        instant = [c for c in contacts if c[0] - t0 < 1e-6]
        pairs = [(i, j) for _, i, j, _, _ in instant]
        assert sorted(set(pairs), key=pairs.index) == [(0, 1), (1, 2), (2, 3), (3, 4)], name  # the blow runs down the line
        # the first pass down the line: each ball's velocity after its first contact with the next
        first = {}
        for _, i, j, vi, vj in instant:
            if (i, j) not in first:
                first[(i, j)] = (vi, vj)
        vx = np.array([first[(k, k + 1)][0][0] for k in range(4)] + [first[(3, 4)][1][0]])
        # less at most the cloth's friction on the balls sliding across the gaps (mu_s g gap / v each)
        loss = 4 * MU_S * G * float(gap) / (0.9 * v_in) + 1e-12
        assert 0 <= v_in - vx.sum() <= loss, f"{name}: momentum {vx.sum()} against {v_in}"
        assert np.sum(vx**2) <= v_in**2 * (1 + 1e-9)
        assert abs(vx[4] - ((1 + E_BALL) / 2) ** 4 * v_in) <= loss, name  # (1 + e) / 2 per contact
        # after the instant (the pairs left pressing are rolled out, docs/physics.md "Clusters")
        last = {}
        for _, i, j, vi, vj in instant:
            last[i], last[j] = vi[0], vj[0]
        assert abs(last[0]) < 0.05 * v_in, f"{name}: the cue ball should nearly stop"
        assert max(last[k] for k in range(4)) < 0.05 * v_in and last[4] == vx[4], name
        # the far ball leaves: it ends furthest along the line
        assert final.r[4, 0] > final.r[:4, 0].max() and final.state[4] == STATIONARY
    kinds = [run["257_cradle_0"][2].kind, run["257_cradle_1e-09"][2].kind]
    assert kinds[0][:6].tolist() == kinds[1][:6].tolist()  # the same order for touching and 1 nm apart


def test_pooltool_78_simultaneous_events(runs):
    run = runs[0]
    first = {}
    for name in ("78_cue_hits_pair", "78_cue_hits_pair_swapped"):
        (t1, i1, j1, a1, b1), (t2, i2, j2, a2, b2) = ball_events(run[name][2])[:2]
        # one instant (the second root is re-solved after the first impulse and polished to the
        # touching side, so it may come a femtosecond later), the lower index first
        assert 0 <= t2 - t1 < 1e-12 and (i1, j1, i2, j2) == (0, 1, 0, 2), name
        # y-momentum of the three balls right after the instant stays zero (internal impulses)
        assert abs(a2[1] + b1[1] + b2[1]) < 1e-12, name
        assert np.sign(b1[1]) == np.sign(run[name][0].r[1, 1] - 0.75) == -np.sign(b2[1]), name  # to their own sides
        first[name] = (a2, b1, b2)
    # the pair is resolved in index order, not by position: swapping the balls' numbers mirrors
    # the outcome (the contacts are resolved one after the other, so ball 1 takes the larger share)
    (c, p, q), (c_s, p_s, q_s) = first.values()
    flip = np.array([1.0, -1.0, 1.0])
    for x, y in ((c, c_s), (p, p_s), (q, q_s)):
        np.testing.assert_allclose(x[:2], (y * flip)[:2], atol=1e-12)
    balls, final, log, _, _ = run["78_twin_cushions"]
    hits = ball_events(log, ev.CUSHION)
    assert [h[1] for h in hits[:2]] == [1, 2] and hits[0][0] == hits[1][0]
    stops = ball_events(log, ev.STOP)
    # they leave the cushion sliding, in the same state to the bit; the loop takes the two
    # balls' events at one instant one after the other, and their later times part in the last
    # bit (one ulp here)
    assert sorted(s[1] for s in stops) == [1, 2] and abs(stops[0][0] - stops[1][0]) < 1e-12
    assert abs(final.r[1, 1] - final.r[2, 1]) < 1e-12  # twins: the same path, 0.75 m apart
    assert final.r[1, 0] == balls.r[1, 0] and final.r[2, 0] == balls.r[2, 0]


def test_pooltool_201_parallel_to_rail(runs):
    run = runs[0]
    travel = closed_form_stop(0.5, False)  # passes the middle pocket's mouth on its way
    for gap in ("0", "1e-12", "1e-09", "1e-06"):
        name = f"201_parallel_{gap}"
        balls, final, log, _, _ = run[name]
        check_sound(run, name)
        assert final.state[1] == STATIONARY, f"{name}: it should roll past the pocket"
        # exactly on the contact line (gap 0) it grazes the far jaw of the middle pocket at its
        # tangent point; the double root puts the contact normal ~1e-6 rad off, and the ball
        # leaves the line by 0.6 um over the 0.45 m left: within the 1 um of every other check
        assert abs(final.r[1, 0] - balls.r[1, 0]) < (TOL if gap == "0" else 1e-12), name
        assert abs(final.r[1, 1] - balls.r[1, 1] - travel) < (TOL if gap == "0" else 1e-9), name
    balls, final, log, _, _ = run["201_drifting_in"]
    assert ball_events(log, ev.CUSHION), "drifting in at 2e-6 rad it meets the rail"
    assert final.state[1] == STATIONARY and abs(final.r[1, 0] - OFF) < 1e-6
    assert abs(final.r[1, 1] - balls.r[1, 1] - travel) < 1e-5


def test_fuzz_airborne_ball_falling_onto_a_touching_ball(runs):
    """A ball at the top of its flight touching a ball on the bed 60 degrees below it slides
    off it on a train of microcollisions (the contact depth of
    roots.first_descending_root_quartic) and lands beside it, pushing it away; the pair never
    crosses the contact distance from above, and a search for that crossing alone lets the
    ball fall 34 mm into the other."""
    balls, final, log, _, _ = runs[0]["fuzz_airborne_falls_onto_ball"]
    check_sound(runs[0], "fuzz_airborne_falls_onto_ball")
    contacts = ball_events(log)
    assert len(contacts) > 10 and all((i, j) == (1, 2) for _, i, j, _, _ in contacts)
    assert ball_events(log, ev.LAND), "the flying ball comes down on the bed"
    assert final.r[1, 0] > balls.r[1, 0] + R and final.r[2, 0] < balls.r[2, 0]  # apart, each on its side


def test_fuzz_sliding_ball_curving_into_a_touching_ball(runs):
    """A ball sliding along a ball at rest that it touches, curving into it, meets it within
    a millisecond (a microcollision: it is rolled out and pushes the ball at rest), not at its
    next change of motion 30 ms on, 0.85 mm into it."""
    balls, final, log, _, _ = runs[0]["fuzz_slide_curves_into_touching_ball"]
    check_sound(runs[0], "fuzz_slide_curves_into_touching_ball")
    contacts = ball_events(log)
    assert contacts and contacts[0][1:3] == (1, 2) and contacts[0][0] < 1e-3
    assert final.r[1, 0] < balls.r[1, 0]  # the ball at rest was pushed off the slider's line


def test_fuzz_pressing_chain_moves_on_as_one(runs):
    """Four touching balls rolling on together, pressed into each other by rolling resistance:
    at a pressing contact the pair and every ball moving with it take one velocity, the mean
    of theirs (momentum kept: the balls are rolling, so rolling out leaves them as they are),
    each ball beyond the pair in a pushed event at that instant; after the last such contact
    all four move as one and stop together, touching. Taken a pair at a time, each pair's
    mean undid the last one's and the chain ran to 50 events (six balls: 1,177)."""
    balls, final, log, _, _ = runs[0]["fuzz_pressing_chain"]
    check_sound(runs[0], "fuzz_pressing_chain")
    chain = list(range(1, 1 + len(CHAIN_VY)))
    kinds, n = log.kind[: int(log.count)], int(log.count)
    assert len(ball_events(log)) <= 3 and n < 20
    last_v, last_t = {k: balls.v[k, :2] for k in chain}, dict.fromkeys(chain, 0.0)
    groups = 0
    for e in range(n):
        if kinds[e] == ev.BALL and e + 1 < n and kinds[e + 1] == ev.PUSHED:
            t = float(log.t[e])
            group = [int(log.ball[e]), int(log.other[e])]
            f = e + 1
            while f < n and kinds[f] == ev.PUSHED:  # one or two balls each
                assert float(log.t[f]) == t
                for slot, who in ((0, log.ball[f]), (1, log.other[f])):
                    if who >= 0:
                        np.testing.assert_array_equal(log.v[f, slot], log.v[e, 0])  # the same velocity
                        group.append(int(who))
                f += 1
            # momentum: the balls' velocities just before, rolled on in closed form from their
            # last events (rolling resistance mu_r g against each one's direction)
            before = [last_v[k] - MU_R * G * (t - last_t[k]) * last_v[k] / np.linalg.norm(last_v[k]) for k in group]
            np.testing.assert_allclose(len(group) * log.v[e, 0, :2], np.sum(before, axis=0), rtol=1e-9)
            groups += 1
        for slot, k in ((0, int(log.ball[e])), (1, int(log.other[e]) if kinds[e] == ev.BALL else -1)):
            if k in last_v and kinds[e] != ev.STOP:
                last_v[k], last_t[k] = log.v[e, slot, :2], float(log.t[e])
    assert groups >= 1 and sorted(group) == chain, "the last pressing contact moves the whole chain"
    stops = [float(log.t[e]) for e in range(n) if kinds[e] == ev.STOP]
    assert len(stops) == len(chain) and len(set(stops)) == 1, "they stop together"
    gaps = np.diff(final.r[1 : 1 + len(CHAIN_VY), 0])
    assert np.all(np.abs(gaps - 2 * R) < 1e-6), "still touching"


def test_fuzz_airborne_ball_on_a_pressing_pair(runs):
    """A ball in the air resting on a ball that presses into its neighbour, the two rolling
    together: each microcollision pushes the pair as one body (the lower ball and, in a pushed
    event at the same instant, its neighbour move on together along their line of centres),
    so the train keeps its energy and the ball slides off and lands. Pushing the lower ball alone, whose pressing
    contact then shared the push, drained the train: the shot ran to the event cap."""
    balls, final, log, _, _ = runs[0]["fuzz_airborne_on_a_pressing_pair"]
    check_sound(runs[0], "fuzz_airborne_on_a_pressing_pair")
    kinds = log.kind[: int(log.count)]
    pairs = [(i, j) for _, i, j, _, _ in ball_events(log)]
    assert set(pairs) <= {(1, 2), (2, 3)} and pairs.count((1, 2)) > 10
    pushed = np.flatnonzero(kinds == ev.PUSHED)
    for e in pushed:
        assert kinds[e - 1] == ev.BALL and (log.ball[e - 1], log.other[e - 1]) == (1, 2)
        assert log.t[e] == log.t[e - 1] and log.ball[e] == 3
        # moving on with the lower ball along their line of centres: as its group (the same
        # velocity) or as the neighbour the push drives it into (resting.supported)
        h = (log.r[e, 0, :2] - log.r[e - 1, 1, :2]) / (2 * R)
        assert abs((log.v[e, 0, :2] - log.v[e - 1, 1, :2]) @ h) < 1e-15
    assert len(pushed) > 10
    assert ball_events(log, ev.LAND), "the ball in the air comes down on the bed"
    assert np.linalg.norm(final.r[2, :2] - final.r[3, :2]) == pytest.approx(2 * R, abs=1e-6), "the pair stays together"


def test_fuzz_rolling_along_a_throat_wall_is_not_met_again_and_again(runs):
    """A ball rolling along a throat wall it touches, its approach speed at rounding level,
    rolls on beside it and stops: no event at the wall (roots.first_descending_root_quadratic
    asks a contact at the present instant for a real approach), where it was met 1,500 times
    at one instant."""
    balls, final, log, _, _ = runs[0]["fuzz_along_a_throat_wall"]
    check_sound(runs[0], "fuzz_along_a_throat_wall")
    n = int(log.count)
    assert n < 20 and not bool(log.truncated)
    assert not any(int(k) == ev.JAW and int(b) == 1 for k, b in zip(log.kind[:n], log.ball[:n]))
    assert final.state[1] == STATIONARY


def test_fuzz_rolling_into_a_held_ball_rolls_on_along_it(runs):
    """Rule 6: a ball rolling at 1 mm/s into a ball held at rest by a ball at rest behind it
    meets it once, then rolls on with the part of its velocity along it (closed form: the
    rolling spin of that velocity, no slip) and stops after v^2 / (2 mu_r g); the held balls do
    not move. Taken a contact at a time, the held ball passed the approach on and the spin
    still rolled the ball into it: 2/7 of the approach came back, a series of contacts."""
    balls, final, log, _, _ = runs[0]["fuzz_rolling_into_a_held_ball"]
    check_sound(runs[0], "fuzz_rolling_into_a_held_ball")
    contacts = ball_events(log)
    assert [(i, j) for _, i, j, _, _ in contacts] == [(1, 2)]
    t, _, _, v1, v2 = contacts[0]
    assert t == 0.0
    along = (HELD_V @ HELD_T) * HELD_T
    np.testing.assert_allclose(v1[:2], along, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(v2, 0.0)
    speed = float(np.linalg.norm(along))
    stop = balls.r[1, :2] + HELD_T * speed**2 / (2 * MU_R * G)
    np.testing.assert_allclose(final.r[1, :2], stop, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(final.r[2:4], balls.r[2:4])


def test_fuzz_airborne_on_a_ball_along_a_held_ball(runs):
    """A ball in the air resting on a ball that rolls along a held ball (the fuzz state,
    scaled): each microcollision moves the lower ball only along the held ball, with the
    elastic impulse of that constrained motion (resting.supported's ``against``), so the
    train keeps its energy and the air ball rides over and lands. Pushed into the held ball
    and stopped there by rule 6, the lower ball lost its share of every microcollision: the
    train collapsed and the shot ran to the event cap (1,500 events, cut)."""
    balls, final, log, _, _ = runs[0]["fuzz_airborne_on_a_ball_along_a_held_ball"]
    check_sound(runs[0], "fuzz_airborne_on_a_ball_along_a_held_ball")
    assert int(log.count) < 300
    assert ball_events(log, ev.LAND), "the ball in the air comes down on the bed"
    np.testing.assert_array_equal(final.r[2:4], balls.r[2:4])  # the held balls stay
    pairs = [tuple(sorted((i, j))) for _, i, j, _, _ in ball_events(log)]
    assert set(pairs) == {(1, 4), (3, 4)}
    # the microcollisions do not drive the lower ball into the held one: it meets it only as
    # its own roll curves it in (rule 6), once in many microcollisions
    assert pairs.count((1, 4)) > 100 and pairs.count((3, 4)) * 10 <= pairs.count((1, 4))


def test_fuzz_rolling_into_a_wedge_of_held_balls_stops(runs):
    """Rule 6 with two held balls: a ball rolling at 3 mm/s into one of two held balls on
    nearly opposite sides of it has no velocity that drives into neither but rest, and stops
    at its first contact; the held balls stay. Taken a held ball at a time, each took the
    approach and turned the ball into the other, its speed falling by cos 10 degrees a
    contact: 974 events (in the fuzz run's snooker break, to the event cap)."""
    balls, final, log, _, _ = runs[0]["fuzz_rolling_into_a_wedge_of_held_balls"]
    check_sound(runs[0], "fuzz_rolling_into_a_wedge_of_held_balls")
    assert len(ball_events(log)) == 1
    np.testing.assert_array_equal(final.r[:, :2], balls.r[:, :2])
    assert final.state[1] == STATIONARY


def test_fuzz_airborne_pushes_into_a_rolling_neighbour(runs):
    """A ball in the air resting on a ball that rolls beside a touching neighbour, apart from
    it along the line of centres but for rounding (the fuzz state, scaled): a microcollision
    that would drive the lower ball into the neighbour moves the two on together along their
    line of centres (resting.supported's ``neighbour``: a pushed event of the neighbour at the
    same instant), which keeps the train's energy, and the shot ends. Pushed alone, the lower
    ball met the neighbour at once and was sent back into the ball in the air: a storm of
    contacts under a microsecond apart (10 in 0.14 us) that ran to the event cap (3,000
    events in 35 ms of play)."""
    balls, final, log, _, _ = runs[0]["fuzz_airborne_pushes_into_a_rolling_neighbour"]
    check_sound(runs[0], "fuzz_airborne_pushes_into_a_rolling_neighbour")
    n = int(log.count)
    assert n < 600  # 546: a ride of 224 microcollisions, each with its pushed balls
    kinds = log.kind[:n]
    contacts = [(t, tuple(sorted((i, j)))) for t, i, j, _, _ in ball_events(log)]
    assert sum(p == (3, 4) for _, p in contacts) > 20, "the ball in the air rides on ball 3"
    pushed = np.flatnonzero(kinds == ev.PUSHED)
    assert len(pushed) > 10
    for e in pushed:  # each at the instant of a microcollision on ball 3, moving on with it along their line
        assert kinds[e - 1] in (ev.BALL, ev.PUSHED) and log.t[e] == log.t[e - 1]
    # no burst of contacts: never 10 ball contacts within a microsecond
    times = np.array([t for t, _ in contacts])
    assert not np.any(times[10:] - times[:-10] < 1e-6)


def test_fuzz_rolling_along_a_rail_into_a_held_ball_stops(runs):
    """Rule 6 with a cushion as one side: a ball rolling at 4 mm/s along a rail into a ball
    held at rest that touches it 30 degrees off the rail's line can move neither along the
    rail (into the held ball) nor along the held ball (into the cushion), and stops within
    a contact with each; the held balls stay. Taken one at a time, the cushion turned the
    ball along the rail into the held ball and the held ball turned it into the cushion,
    slower each time: 44 events here, 2,284 at one instant in the fuzz run (a smaller
    angle, 2 % slower each time)."""
    balls, final, log, _, _ = runs[0]["fuzz_rolling_along_a_rail_into_a_held_ball"]
    check_sound(runs[0], "fuzz_rolling_along_a_rail_into_a_held_ball")
    n = int(log.count)
    kinds = [int(k) for k, b in zip(log.kind[:n], log.ball[:n]) if int(b) == 1]
    assert kinds.count(ev.BALL) == 1 and kinds.count(ev.CUSHION) <= 1 and n < 10
    assert final.state[1] == STATIONARY
    np.testing.assert_array_equal(final.r[2:4], balls.r[2:4])
    assert np.linalg.norm(final.r[1, :2] - balls.r[1, :2]) < 1e-6  # wedged where it started


def test_fuzz_pressing_pair_past_a_held_ball_rolls_on_along_it(runs):
    """Rules 2 and 6 together: a pressing pair rolling past a ball held at rest, the front
    ball touching it and the one behind pressing it in at 1 mm/s, meets the held ball once
    and rolls on along it as one body (the pair's mean velocity without its part into the
    held ball, the ball behind in a pushed event); the held balls stay. Taken a ball at a
    time, the held ball stopped the front ball's part into it and the pair's mean gave half
    of it back: 12 contacts with the held ball here, and at rounding level in the fuzzer's
    snooker break 2,000 events at one instant, to the event cap."""
    balls, final, log, _, _ = runs[0]["fuzz_pressing_pair_past_a_held_ball"]
    check_sound(runs[0], "fuzz_pressing_pair_past_a_held_ball")
    contacts = ball_events(log)
    with_held = [c for c in contacts if 2 in (c[1], c[2])]
    assert len(with_held) == 1 and len(contacts) <= 2
    e = int(np.flatnonzero(log.kind == ev.PUSHED)[0])
    t, i, _, v_i, v_j = with_held[0]
    v_front = v_i if i == 3 else v_j
    assert log.t[e] == t and log.ball[e] == 4
    for v in (v_front, log.v[e, 0]):  # both roll on along the held ball, at the pair's mean velocity
        assert abs(v[:2] @ PASS_U) < 1e-15
        np.testing.assert_allclose(v[:2], 0.0115 * PASS_T, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(final.r[1:3], balls.r[1:3])


def test_fuzz_airborne_on_a_ball_frozen_on_a_rail_slides_off(runs):
    """Rule 5 with a cushion: a ball in the air falling onto a ball frozen on a rail from the
    table's side drives it into the cushion, which holds it as a held ball does (the push
    counts only its part along the nose, here none), so the train of microcollisions keeps
    its energy: the ball in the air slides off and lands, and the lower ball stays. Pushed
    into the cushion and sent back each time, the lower ball met it at every microcollision
    and the train collapsed: 3,000 events in 1.3 ms and cut."""
    balls, final, log, _, _ = runs[0]["fuzz_airborne_on_a_ball_frozen_on_a_rail"]
    check_sound(runs[0], "fuzz_airborne_on_a_ball_frozen_on_a_rail")
    n = int(log.count)
    assert n < 300
    assert not any(int(k) == ev.CUSHION and int(b) == 2 for k, b in zip(log.kind[:n], log.ball[:n]))
    assert len(ball_events(log)) > 100 and ball_events(log, ev.LAND)
    np.testing.assert_allclose(final.r[2], balls.r[2], rtol=0, atol=1e-12)


# found by the fuzzer (pyramid seed 5 mixed 10/7432, pool seed 6 mixed 4/10337): a ball in the
# air nearly balanced on a ball at rest rides it for a second or more. Two offsets from the
# top, each a separate shot of one batch (ball 0, struck at zero speed, is the lower ball)
RIDE_OFFSETS = (1e-3, 1e-4)  # rad from the vertical, the ball in the air at rest
RIDE_LOG = 8_000  # every event of the longer ride


@pytest.fixture(scope="module")
def rides():
    B = len(RIDE_OFFSETS)
    r, st = np.zeros((B, 2, 3)), np.full((B, 2), STATIONARY, np.int32)
    for i, th in enumerate(RIDE_OFFSETS):
        r[i, 0] = (0.8, 1.0, 0.0)
        r[i, 1] = (0.8 + FALL * math.sin(th), 1.0, FALL * math.cos(th))
        st[i, 1] = AIRBORNE
    zero = jnp.zeros((B, 2, 3))
    balls = BallState(jnp.asarray(r), zero, zero, jnp.asarray(st), jnp.full((B, 2), -1, jnp.int32))
    z = jnp.zeros(B)
    res = simulate_batch(TABLE, balls, Shot(jnp.zeros(B, jnp.int32), z, z, z, z, z), log_capacity=RIDE_LOG)
    aud = _audit(balls, res[1])
    tree = jax.tree_util.tree_map(np.asarray, (balls, *res, aud))
    return {th: jax.tree_util.tree_map(lambda x, i=i: x[i], tree) for i, th in enumerate(RIDE_OFFSETS)}


def test_fuzz_ride_is_an_inverted_pendulum(rides):
    """A ball in the air at rest on a ball at rest, its centre theta_0 off the vertical, rides
    it on a train of microcollisions until it rolls off and lands. While theta is small the
    push on the lower ball is too weak to roll it far between microcollisions (rolling
    resistance stops it), so the ball above moves as a frictionless ball on a fixed sphere of
    radius 2R: an inverted pendulum, theta(t) = theta_0 cosh(t / tau), tau = sqrt(2R / g).
    Balanced ten times more finely it lands tau ln(10) later (0.192 s on this table), the
    nonlinear fall being the same. Both rides end at rest, under the simulator's event
    cap, sound at every event; the finer one takes about 6,400 events (0.8 s of
    riding at one microcollision every 0.29 ms)."""
    lands = {}
    for th, (_, final, log, _, _) in rides.items():
        check_sound(rides, th)
        assert np.all(final.state == STATIONARY), f"ride {th:g}"
        contacts = ball_events(log)
        assert all((i, j) in ((0, 1), (1, 0)) for _, i, j, _, _ in contacts)
        lands[th] = min(t for t, *_ in ball_events(log, ev.LAND))
        assert final.r[1, 2] == 0.0 and abs(final.r[1, 0] - final.r[0, 0]) > 2 * R - TOL  # down, beside it
    assert int(rides[1e-4][2].count) > 5000  # past the 1,500 events a ride was cut at before
    tau = math.sqrt(2 * R / G)
    np.testing.assert_allclose(lands[1e-4] - lands[1e-3], tau * math.log(10.0), rtol=0.01)


# found by the fuzzer (snooker seed 7 mixed 15/5342): the cue ball, come down from a jump on
# ball 8 of a line of touching balls 4-8, rides it; 8 and 7 roll across the line, 6 is held
# at rest by 5. The state 0.26 s into the shot of the six balls (the others far away), each
# ball as "state, r, v, w" in hexadecimal floats; ball 0 is an idle slot, struck at zero speed
BENT_LINE = (
    "4 0x1.83e86ef3b2495p+0 0x1.ea304baac9f58p+0 0x1.5018745d844abp-5 0x1.6484d101a6796p-3 -0x1.9611fb4c7c2bdp-3 0x1.3dd6264bfc110p-5 -0x1.8053aec244355p+6 -0x1.baf15a0724d7ep+6 0x1.7c2a784c44943p+6",
    "2 0x1.af3bc2ea4717ap+0 0x1.0b0af7147b728p+1 0x0.0p+0 0x1.d4e2dc0774856p-4 0x1.080a513c1e701p-3 0x0.0p+0 -0x1.4840f0523e6f9p-2 0x1.23767d79a875cp-2 -0x0.0p+0",
    "0 0x1.a63c68243e7c4p+0 0x1.05fb9c383f376p+1 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0",
    "1 0x1.9d4e477f40501p+0 0x1.00f5f4cd48691p+1 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 -0x0.0p+0 0x0.0p+0 -0x1.8ff947a8688b4p-4",
    "3 0x1.946149257951fp+0 0x1.f7df98c8f473fp+0 0x0.0p+0 0x1.ee9bffd0b4376p-8 -0x1.b75cd133f593ap-8 0x0.0p+0 0x1.05867c868c14dp-2 0x1.26690c149c089p-2 0x1.98466dde9e8bdp-1",
    "2 0x1.8b78a68b96db6p+0 0x1.edcf6cc3e711dp+0 0x0.0p+0 0x1.7636ecf27c574p-5 -0x1.4b78c23a9283dp-5 0x0.0p+0 0x1.88bb03ab8ea0ap+0 0x1.bf281a8f35ca8p+0 0x1.4cdc9fdbb31dfp+0",
)


BENT_EVENTS = 3_000  # the line's contacts, then the start of the slide


@pytest.fixture(scope="module")
def bent_line():
    return _snooker_state_run(BENT_LINE, slots=len(BENT_LINE) + 1, events=BENT_EVENTS)


def test_fuzz_bent_line_against_a_held_ball_takes_no_endless_instant(bent_line):
    """The line 6-7-8 is bent by 0.4 degrees. 7, rolling across it, drives slightly into 6
    (held): rule 6 takes that part and sends 7 into 8, whose contact sends 8 back, and the
    push of the ball in the air drives 8 into 7 again: at one instant, without end (30,000
    events at t = 0.266 s in the fuzzer's shot; from this state, a slide of 8 against 7 at
    3,000 events in 0.9 ms). Now 7 takes the velocity nearest its own that drives into
    neither 6 nor, relative, 8 (rule 6 with a moving second ball), and 8, driven into 7 which
    6 holds along the line, moves along 7 at 7's speed (rule 5 with a blocked neighbour)
    instead of sharing the push with it, which 6 took away at every microcollision. The
    line's contacts end within the first thousand events, every event is sound, and the ball
    in the air slides off 8 on a train of microcollisions about a microsecond apart (its
    amplitude lost in the line's contacts): the whole shot, 91,000 events, ends at rest
    under the simulator's cap (the fuzzer's replay, ``--shot snooker-12ft:mixed:15:5342``:
    62,000 events, sound)."""
    balls, final, log, _, aud = bent_line
    check_events(aud, "bent line")
    n = int(log.count)
    t = log.t[:n]
    runs = "".join("1" if x else "0" for x in np.diff(t) == 0).split("0")
    assert max(len(run) for run in runs) < 8, "events piling up at one instant"
    line = [k for k in range(n) if int(log.kind[k]) == ev.BALL and {int(log.ball[k]), int(log.other[k])} in ({4, 5}, {5, 6})]
    assert line and max(line) < 1000, f"{len(line)} contacts along the line 6-7-8, the last at event {max(line)}"
    slide = [k for k in range(n) if int(log.kind[k]) == ev.BALL and {int(log.ball[k]), int(log.other[k])} == {1, 6}]
    assert len(slide) > 0.5 * n and t[n - 1] > t[0] + 2e-3  # the slide, a microsecond or so an event


# the fuzzer's 10^6-shot run on Mathavan's cushion, snooker-12ft:mixed:7:3875 (a break), at
# 2.2376 s: held balls 8 (backed by 7, 9) and 20 (by 16, 21), and between them the group
# 11-12-14-15 rolling at 0.7 mm/s along both (slots 1-10 here: balls 7, 8, 9, 11, 12, 14, 15,
# 16, 20, 21; each row: state, r, v, w as hex floats)
PINCHED_GROUP = (
    "0 0x1.c000000000000p-1 0x1.56b85a4f00ef2p+1 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0",
    "0 0x1.b28f5a7b7698ep-1 0x1.5c8a324922350p+1 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0",
    "0 0x1.cd70a58489672p-1 0x1.5c8a324922350p+1 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0",
    "3 0x1.bffff64092f1cp-1 0x1.625c0ab379b65p+1 0x0.0p+0 0x1.4da0e9f9f865bp-11 -0x1.813ebf2da8518p-12 0x0.0p+0 0x1.caa0082a29e72p-7 0x1.8d2d474e27b60p-6 0x1.9aef360bc0ad0p-1",
    "3 0x1.dae1433562a59p-1 0x1.625c0a6c80065p+1 0x0.0p+0 0x1.4da0e9f9f865bp-11 -0x1.813ebf2da8518p-12 0x0.0p+0 0x1.caa0082a29e72p-7 0x1.8d2d474e27b60p-6 -0x1.a5ad1b5750c8bp-2",
    "3 0x1.b28f574cd6dadp-1 0x1.682de2e222734p+1 0x0.0p+0 0x1.4da0e9f9f865bp-11 -0x1.813ebf2da8518p-12 0x0.0p+0 0x1.caa0082a29e72p-7 0x1.8d2d474e27b60p-6 -0x1.4bfc42d46fe5bp-3",
    "3 0x1.cd70a04f8324fp-1 0x1.682de3f5c53c5p+1 0x0.0p+0 0x1.4da0e9f9f865bp-11 -0x1.813ebf2da8518p-12 0x0.0p+0 0x1.caa0082a29e72p-7 0x1.8d2d474e27b60p-6 0x1.71e1be69eeec8p-3",
    "0 0x1.e851f08d9c355p-1 0x1.682de23d64c0cp+1 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0",
    "0 0x1.dae14b0912ce4p-1 0x1.6dffba378606ap+1 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0",
    "0 0x1.f5c29612259c7p-1 0x1.6dffba378606ap+1 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0",
)


def _snooker_state_run(rows, slots=11, events=2_000):
    """(start, final, log, summary, audit) as numpy of one snooker-12ft table set from
    ``rows`` (each: state, r, v, w as hex floats) in slots 1.., slot 0 an idle ball at rest
    and the slots left over off the table; no stroke (the balls move as set)."""
    table = get_table("snooker-12ft")
    r, v, w = np.zeros((1, slots, 3)), np.zeros((1, slots, 3)), np.zeros((1, slots, 3))
    state = np.full((1, slots), OFF_TABLE, np.int32)
    r[0, 0], state[0, 0] = (0.3, 0.3, 0.0), STATIONARY
    for k, row in enumerate(rows, 1):
        st, *x = row.split()
        state[0, k] = int(st)
        r[0, k], v[0, k], w[0, k] = (np.array([float.fromhex(s) for s in x[3 * q:3 * q + 3]]) for q in range(3))
    balls = BallState(jnp.asarray(r), jnp.asarray(v), jnp.asarray(w), jnp.asarray(state), jnp.full((1, slots), -1, jnp.int32))
    z = jnp.zeros(1)
    res = simulate_batch(table, balls, Shot(jnp.zeros(1, jnp.int32), z, z, z, z, z), max_events=events,
                         log_capacity=events + 2)
    aud = jax.vmap(lambda b, lg: audit_log(table, b, lg))(balls, res[1])
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[0], (balls, *res, aud))


@pytest.fixture(scope="module")
def pinched_group():
    return _snooker_state_run(PINCHED_GROUP)


PINCHED_EVENTS = 2_000


def test_fuzz_group_between_two_held_balls_takes_no_endless_instant(pinched_group):
    """A group rolling along two held balls that two of its balls touch on nearly opposite
    sides (8 against 11, 20 against 15; their normals 2e-6 rad from antiparallel) is bound
    by both at once (rule 6, the second held ball searched from every ball of the group).
    Taken one at a time, each took its part of the group's velocity and left a part of about
    2e-6 of it driving into the other, at one instant without end: the fuzzer's shot was cut
    at the cap (100,000 events), and from this state 2,000 events pass at one instant. The
    group's velocity lies outside the thin wedge the two allow, so it stops at once, touching
    both, and nothing else moves (it would have rolled about 3 um before rolling resistance
    stopped it)."""
    balls, final, log, _, aud = pinched_group
    check_events(aud, "pinched group")
    assert not log.truncated
    n = int(log.count)
    assert n < 20, f"{n} events"
    assert np.all(final.state[1:] == STATIONARY)
    moved = np.linalg.norm(final.r[1:, :2] - balls.r[1:, :2], axis=1)
    assert moved.max() < 5e-6, moved
    r_snooker = float(get_table("snooker-12ft").radius)
    gaps = [np.linalg.norm(final.r[a, :2] - final.r[b, :2]) - 2 * r_snooker for a, b in ((2, 4), (7, 9))]
    assert max(abs(g) for g in gaps) < 1e-6, gaps


# the fuzzer's 10^6-shot run of seed 10, snooker-12ft:mixed:17:13089 (a massé on a layout
# frozen to the left cushion), 0.244 s in: the cue ball in the air rides ball 3, which rolls
# with 4 and 5 in a line along the cushion and slightly into it (slots 1-4 here: balls 0, 3,
# 4, 5)
RAIL_LINE = (
    "4 0x1.c03326641c5a7p-6 0x1.411a483fa7becp+1 0x1.a7e1886adb866p-5 0x1.6fd69a5c3b211p-5 0x1.0116e36747e9ap-3 0x1.6a9e7ce026c9cp-7 0x1.4d8556b6d66f3p+5 0x1.2ff82a8393bc8p+6 0x1.6771c38aae455p+5",
    "3 0x1.8a74cbb71ce0bp-6 0x1.4228bcbf6c6adp+1 0x0.0p+0 -0x1.3885ac39db2dap-8 0x1.152d4a5a5b4b7p-4 0x0.0p+0 -0x1.49f8f6fdda660p+1 -0x1.740cd938af97dp-3 -0x0.0p+0",
    "3 0x1.8a73a5513fa32p-6 0x1.48e10eaaf1305p+1 0x0.0p+0 -0x1.3885ac39db2dap-8 0x1.152d4a5a5b4b7p-4 0x0.0p+0 -0x1.49f8f6fdda660p+1 -0x1.740cd938af97dp-3 0x0.0p+0",
    "3 0x1.8a7383a6edda5p-6 0x1.4f99614bc7aebp+1 0x0.0p+0 -0x1.3885ac39db2dap-8 0x1.152d4a5a5b4b7p-4 0x0.0p+0 -0x1.49f8f6fdda660p+1 -0x1.740cd938af97dp-3 -0x0.0p+0",
)


@pytest.fixture(scope="module")
def rail_line():
    return _snooker_state_run(RAIL_LINE)


def test_fuzz_air_ball_on_a_line_along_a_cushion_holds_the_line_on_it(rail_line):
    """A ball in the air riding the first ball of a line of three rolling along a cushion
    (rule 5's pressing group). The cushion held the push only where the lower ball touched
    it: 4 and 5, touching the nose a micrometre nearer than 3, took each microcollision's
    push into the cushion and met it again, and the 3-4 contact and a pushed event
    followed, eight events a microcollision: the fuzzer's shot ran to the cap (100,000
    events, 0.34 s). The nose is now searched from every ball of the body the push moves,
    as held balls are: once the line has settled onto the cushion, each microcollision is
    the contact and the group's pushed events, and the ride ends with every ball at rest,
    each event sound (from this state 381 events; the fuzzer's replay: 604 in all)."""
    balls, final, log, _, aud = rail_line
    check_events(aud, "rail line")
    assert not log.truncated
    n = int(log.count)
    kinds = log.kind[:n]
    line = {2, 3, 4}
    # the line settles onto the cushion in its first contacts (a pressing contact's mean
    # velocity still leans into it, a geometric series of a few dozen events at one
    # instant); the ride's microcollisions then leave it alone
    settled = 100
    rail_hits = [k for k in range(settled, n) if kinds[k] == ev.CUSHION and int(log.ball[k]) in line]
    rides = sum(1 for k in range(settled, n) if kinds[k] == ev.BALL and {int(log.ball[k]), int(log.other[k])} == {1, 2})
    assert n < 1_000, f"{n} events"
    assert rides > 100 and not rail_hits, f"the line met the cushion {len(rail_hits)} times over {rides} microcollisions"
    assert np.all((final.state[1:5] == STATIONARY) | (final.state[1:5] == POCKETED))
