"""The golf referee (catalogue section GF, ``cuegym.rules.golf``): one test per clause, named
after it, plus a full seeded three-player game whose totals come from the scoring rules.

Cost: one compiled judge (snooker-12ft, 7 balls, no ``shot``), one compiled choose, and one
batch of real shots (``REAL``) simulated together once (``real``), shared with
tests/rules/test_rules_pool.py. Other strokes are event summaries built by :func:`summary`
(no physics compiled): ("ball", a, b), ("cushion", a, name), ("pocket", a, name),
("off", a), ("air", a), event k at t = k + 1 s.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cuegym.physics import (
    CUSHIONS,
    POCKETS,
    BallState,
    ShotSummary,
    at_rest,
    get_spec,
    get_table,
    make_shot,
    simulate_batch,
)
from cuegym.positions import GAMES
from cuegym.rules import golf as gf
from cuegym.rules import pool
from cuegym.rules.base import FRAME_OVER, IN_HAND_HOUSE, NORMAL, clause_ids
from cuegym.rules.russian import contact_offset

SPEC = get_spec(gf.TABLE)
R = SPEC.ball_radius
W, L = SPEC.width, SPEC.length
N = gf.N_BALLS
OFF = contact_offset(SPEC)
REAR = (W / 2, L - SPEC.head_line)  # the rear spot (AMB-02 mirror of the front spot)
CENTRE = (W / 2, L / 2)
FRONT = (W / 2, SPEC.head_line)


# ----------------------------------------------------------------------------- helpers

def summary(events=(), struck=0, near=(-1, math.inf, 0.0), miscue=False, crossed_head=(), n=N):
    """A ShotSummary from an event list (module docstring)."""
    inf = np.inf
    first, first_t = -1, inf
    cb, ca = np.zeros(n, np.int32), np.zeros(n, np.int32)
    pocket, order, pocket_t = np.full(n, -1, np.int32), np.full(n, -1, np.int32), np.full(n, inf)
    off, off_t, air, touched = np.zeros(n, bool), np.full(n, inf), np.zeros(n, bool), np.zeros(n, bool)
    ct, clt = np.full((n, n), inf), np.full((n, n), -inf)
    cft, clast, fct = np.full((n, 6), inf), np.full((n, 6), -inf), np.full(n, inf)
    pots = 0
    for k, e in enumerate(events):
        t = float(k + 1)
        kind, a = e[0], e[1]
        if kind == "ball":
            b = e[2]
            if first < 0 and struck in (a, b):
                first, first_t = (b if a == struck else a), t
            touched[[a, b]] = True
            if not np.isfinite(ct[a, b]):
                ct[a, b] = ct[b, a] = t
            clt[a, b] = clt[b, a] = t
        elif kind == "cushion":
            c = CUSHIONS.index(e[2])
            (ca if first >= 0 else cb)[a] += 1
            cft[a, c] = min(cft[a, c], t)
            clast[a, c] = t
            fct[a] = min(fct[a], t)
        elif kind == "pocket":
            pocket[a], order[a], pocket_t[a] = POCKETS.index(e[2]), pots, t
            pots += 1
        elif kind == "off":
            off[a], off_t[a] = True, t
        elif kind == "air":
            air[a] = True
        else:
            raise ValueError(f"unknown event kind {kind!r}")
    z = np.zeros(n)
    j = jnp.asarray  # numpy scalars, not Python ones: weakly typed inputs would compile the judge again
    return ShotSummary(
        struck=j(np.int32(struck)), miscue=j(np.bool_(miscue)), first_contact=j(np.int32(first)),
        first_contact_t=j(np.float64(first_t)),
        cushions_before=j(cb), cushions_after=j(ca), jaws=j(np.zeros(n, np.int32)), first_cushion_t=j(fct),
        pocket=j(pocket), pocket_order=j(order), pocket_t=j(pocket_t), off_table=j(off), off_table_t=j(off_t),
        airborne=j(air), touched=j(touched), contact_t=j(ct), contact_last_t=j(clt), cushion_first_t=j(cft),
        cushion_last_t=j(clast), crossed_centre=j(np.zeros(n, bool)),
        crossed_head_line=j(np.isin(np.arange(n), list(crossed_head))),
        cross_t=j(np.full(n, inf)), max_y=j(z), min_y=j(z), max_x=j(z), min_x=j(z), near_ball=j(np.int32(near[0])),
        near_gap=j(np.float64(near[1])), near_cut=j(np.float64(near[2])), follow=j(np.bool_(False)),
        end_t=j(np.float64(len(events) + 1)))


def final_balls(xy, on, moved=None, pocketed=(), off=()):
    """The final BallState: balls at ``xy`` except ``moved`` {ball: (x, y)}; ``pocketed`` and
    ``off`` balls in those states, balls not ``on`` off the table."""
    n = len(on)
    xy = np.array(xy, float)
    for b, p in (moved or {}).items():
        xy[b] = p
    state = np.where(on, 0, 6).astype(np.int32)
    state[list(pocketed)] = 5
    state[list(off)] = 6
    r = np.zeros((n, 3))
    r[:, :2] = xy
    return BallState(jnp.asarray(r), jnp.zeros((n, 3)), jnp.zeros((n, 3)), jnp.asarray(state), jnp.full(n, -1, jnp.int32))


def layout(**balls):
    """(xy (N, 2), on (N,)) from b0=(x, y), b1=..., the rest off the table."""
    xy, on = np.zeros((N, 2)), np.zeros(N, bool)
    for k, p in balls.items():
        xy[int(k[1:])], on[int(k[1:])] = p, True
    return xy, on


def state_at(num_players=3, to_play=0, pocket=1, opening=None, phase=NORMAL, first=0, done=()):
    """A GolfState at ``pocket`` with ``to_play`` striking; ``done``: players who have
    already finished this pocket."""
    s = gf.initial_state(num_players, first)
    nxt = np.where(np.arange(gf.MAX_PLAYERS) < num_players, pocket, 7)
    nxt[list(done)] = pocket + 1
    return s._replace(to_play=jnp.int32(to_play), pocket=jnp.int32(pocket), next_pocket=jnp.asarray(nxt, jnp.int32),
                      opening=jnp.asarray(pocket == 1 if opening is None else opening), phase=jnp.int32(phase))


def judge(state, xy, on, events=(), moved=None, pocketed=(), off=(), decl=None, **kw):
    """Judge an event-summary stroke from layout (xy, on). Returns (ruling, next state)."""
    summ = summary(events, **kw)
    fin = final_balls(xy, on, moved, pocketed, off)
    return gf.jit_judge(SPEC, state, decl or pool.declare(), summ, jnp.asarray(xy), jnp.asarray(on), fin)


def cited(ruling):
    return set(clause_ids(ruling.clauses))


# ----------------------------------------------------------------------------- real shots

def _towards(ball, target, back):
    """(cue centre, phi [deg]) for a straight shot sending ``ball`` at ``target``, the cue
    ball ``back`` metres behind it."""
    b, t = np.asarray(ball, float), np.asarray(target, float)
    u = (t - b) / np.linalg.norm(t - b)
    return tuple(b - back * u), math.degrees(math.atan2(u[1], u[0]))


_FR_CUE, _FR_PHI = _towards(REAR, (W, L), 0.4)
_FL_CUE, _FL_PHI = _towards(REAR, (0.0, L), 0.4)
_MR_BALL = (1.2, 1.2)
_MR_CUE, _MR_PHI = _towards(_MR_BALL, (W, L / 2), 0.4)
_FROZEN_X = W - OFF - 0.0003  # 0.3 mm from the right cushion: frozen (ε = 0.5 mm, AMB-55)
_LAG_Y = SPEC.head_line - R - 0.01
REAL = {
    # name: (layout, phi [deg], speed [m/s], b (tip height), theta [deg])
    "open_soft": (layout(b0=CENTRE, b1=REAR), 90.0, 0.5, 0.0, 0.0),  # ball stops short of the foot cushion
    "open_good": (layout(b0=CENTRE, b1=REAR), 90.0, 1.5, 0.0, 0.0),  # ball to the foot cushion
    "pot_FR": (layout(b0=_FR_CUE, b1=REAR), _FR_PHI, 1.5, 0.0, 0.0),  # golf pocket 1
    "pot_FL": (layout(b0=_FL_CUE, b1=REAR), _FL_PHI, 1.5, 0.0, 0.0),  # golf pocket 6
    "pot_MR": (layout(b0=_MR_CUE, b1=_MR_BALL), _MR_PHI, 1.2, 0.0, 0.0),  # golf pocket 2
    "miss": (layout(b0=(W / 2, 1.2), b1=REAR), 0.0, 1.0, 0.0, 0.0),  # cue ball to the right cushion
    "cue_pocket": (layout(b0=CENTRE, b1=REAR), math.degrees(math.atan2(-L / 2, W / 2)), 2.0, 0.0, 0.0),  # into HR
    "no_cushion": (layout(b0=(W / 2, 1.6), b1=CENTRE), 90.0, 0.3, 0.0, 0.0),
    "frozen_away": (layout(b0=CENTRE, b1=(W / 2, L / 2 + 2 * R + 1e-4)), 200.0, 1.0, 0.0, 0.0),  # 110° off it
    "frozen_into": (layout(b0=CENTRE, b1=(W / 2, L / 2 + 2 * R + 1e-4)), 90.0, 1.0, 0.0, 0.0),
    "close_straight": (layout(b0=CENTRE, b1=(W / 2, L / 2 + 2 * R + 0.005)), 90.0, 1.0, 0.0, 0.0),
    "cushion_frozen": (layout(b0=(_FROZEN_X - 0.3, 2.0), b1=(_FROZEN_X, 2.0)), 0.0, 0.4, 0.0, 0.0),
    "house_back": (layout(b0=(W / 2, 0.5), b1=(W / 2, 0.2)), 90.0, 3.5, 0.0, 0.0),  # off the rear cushion, back
    "house_direct": (layout(b0=(W / 2, 0.5), b1=(W / 2, 0.2)), -90.0, 1.0, 0.0, 0.0),
    "house_line": (layout(b0=(W / 2, 0.4), b1=(W / 2, SPEC.head_line)), 90.0, 1.5, 0.0, 0.0),
    "lag_left": (layout(b0=(W / 2 - 0.1, _LAG_Y)), 90.0, 2.05, 0.0, 0.0),
    "lag_right": (layout(b0=(W / 2 + 0.1, _LAG_Y)), 90.0, 2.1, 0.0, 0.0),
    "lag_soft": (layout(b0=(W / 2 + 0.1, _LAG_Y)), 90.0, 0.5, 0.0, 0.0),
    "lag_twice": (layout(b0=(W / 2 + 0.1, _LAG_Y)), 90.0, 2.75, 0.0, 0.0),  # 2.5-3.0 touch twice
}


@functools.lru_cache(maxsize=None)
def _batch():
    names = list(REAL)
    xy = np.stack([REAL[k][0][0] for k in names])
    on = np.stack([REAL[k][0][1] for k in names])
    shots = [make_shot(0, math.radians(REAL[k][1]), REAL[k][2], 0.0, REAL[k][3], math.radians(REAL[k][4])) for k in names]
    balls = jax.vmap(at_rest)(jnp.asarray(xy), jnp.asarray(on))
    final, log, summ = simulate_batch(get_table(gf.TABLE), balls, jax.tree_util.tree_map(lambda *a: jnp.stack(a), *shots))
    assert not np.any(np.asarray(log.truncated))
    # as host arrays: device-committed inputs would give the judge a second compiled program
    final, summ = jax.tree_util.tree_map(np.asarray, (final, summ))
    return names, xy, on, final, summ


def real(name):
    """(xy, on, summary, final BallState) of the real shot ``name`` of REAL."""
    names, xy, on, final, summ = _batch()
    k = names.index(name)
    pick = lambda t: jax.tree_util.tree_map(lambda a: jnp.asarray(a[k]), t)  # noqa: E731
    return xy[k], on[k], pick(summ), pick(final)


def judge_real(state, name, decl=None):
    xy, on, summ, fin = real(name)
    return gf.jit_judge(SPEC, state, decl or pool.declare(), summ, jnp.asarray(xy), jnp.asarray(on), fin)


def test_real_shots_do_what_the_clause_tests_assume():
    """The physical facts each real shot is used for, read from its summary, so that a change
    in the physics shows up here rather than as a puzzling referee failure."""
    fr, fl, mr, hr = (POCKETS.index(p) for p in ("FR", "FL", "MR", "HR"))
    foot = CUSHIONS.index("foot")

    def facts(name):
        xy, on, s, f = real(name)
        return s, f, np.isfinite(np.asarray(s.cushion_first_t))

    s, f, cush = facts("open_soft")
    assert int(s.first_contact) == 1 and not cush[1, foot] and not np.any(np.asarray(s.pocket) >= 0)
    s, f, cush = facts("open_good")
    assert int(s.first_contact) == 1 and cush[1, foot] and not np.any(np.asarray(s.pocket) >= 0)
    for name, pocket in (("pot_FR", fr), ("pot_FL", fl), ("pot_MR", mr)):
        s, f, cush = facts(name)
        assert int(s.first_contact) == 1 and int(s.pocket[1]) == pocket and int(s.pocket[0]) == -1, name
    assert not facts("pot_MR")[2][1, foot]
    s, f, _ = facts("miss")
    assert int(s.first_contact) == -1 and int(s.pocket[0]) == -1 and not bool(s.off_table[0])
    s, f, _ = facts("cue_pocket")
    assert int(s.first_contact) == -1 and int(s.pocket[0]) == hr
    s, f, _ = facts("no_cushion")
    assert int(s.first_contact) == 1 and not np.any(np.asarray(s.cushions_after)) and not np.any(np.asarray(s.pocket) >= 0)
    for name, toward in (("frozen_away", False), ("frozen_into", True)):
        s = facts(name)[0]
        assert float(s.near_gap) <= pool.FROZEN_EPS and (float(s.near_cut) < math.pi / 2) is toward, name
    s = facts("close_straight")[0]
    assert pool.FROZEN_EPS < float(s.near_gap) <= R / 2 and float(s.near_cut) < math.pi / 4
    s, f, cush = facts("cushion_frozen")
    assert int(s.first_contact) == 1 and int(s.cushions_after[0]) == 0
    assert cush[1].tolist() == [c == "right-foot" for c in CUSHIONS]
    for name, back in (("house_back", True), ("house_direct", False), ("house_line", False)):
        s = facts(name)[0]
        assert int(s.first_contact) == 1 and (float(s.cushion_first_t[0, foot]) < float(s.first_contact_t)) is back, name
    for name, rear_hits in (("lag_left", 1), ("lag_right", 1), ("lag_soft", 0), ("lag_twice", 2)):
        s = facts(name)[0]
        first, last = float(s.cushion_first_t[0, foot]), float(s.cushion_last_t[0, foot])
        hits = 0 if not math.isfinite(first) else (1 if first == last else 2)
        assert hits == rear_hits and int(s.pocket[0]) == -1 and not bool(s.off_table[0]), name


# ----------------------------------------------------------------------------- set-up (GF-01..04, 08)

def test_GF_01_golf_on_the_snooker_table_with_snooker_balls():
    assert gf.TABLE == "snooker-12ft" and SPEC.ball_diameter == 0.0525


def test_GF_02_two_to_six_players_one_compiled_judge():
    for k in range(2, 7):
        assert int(gf.initial_state(k).num_players) == k
    for bad in (1, 7):
        with pytest.raises(ValueError, match="num_players"):
            gf.initial_state(bad)
    # the same compiled judge: after the last of k players pots at pocket 1, the first
    # player opens pocket 2
    for k in (2, 6):
        xy, on = layout(b0=(1.0, 2.0), b1=(W - 0.2, L - 0.2))
        xy[[1, k]], on[[1, k]] = xy[[k, 1]], on[[k, 1]]
        s = state_at(k, to_play=k - 1, pocket=1, opening=False, done=range(k - 1))
        r, nxt = judge(s, xy, on, [("ball", 0, k), ("pocket", k, "FR")], pocketed=[k])
        assert bool(r.potted) and int(nxt.to_play) == 0 and int(nxt.pocket) == 2


def test_GF_03_one_numbered_ball_per_player_and_one_cue_ball():
    assert gf.BALL_NAMES == GAMES["golf"] == ("cue", "1", "2", "3", "4", "5", "6")
    xy, on = gf.initial_layout(SPEC, 4, first=2)
    assert np.asarray(on).tolist() == [True, False, False, True, False, False, False]


def test_GF_04_object_ball_on_the_rear_spot():
    xy, on = gf.initial_layout(SPEC, 3)
    assert np.allclose(np.asarray(xy)[1], REAR) and SPEC.spots()["rear"] == REAR


def test_GF_08_cue_ball_on_the_centre_spot():
    xy, on = gf.initial_layout(SPEC, 3)
    assert np.allclose(np.asarray(xy)[0], CENTRE) and bool(np.asarray(on)[0])
    s = gf.initial_state(3)
    assert int(s.phase) == NORMAL and bool(s.opening) and int(s.pocket) == 1


# ----------------------------------------------------------------------------- scoring (GF-05..07, 12, 22)

def test_GF_05_legal_pot_in_pocket_1_completes_the_series():
    r, nxt = judge_real(state_at(3, opening=False), "pot_FR")
    assert bool(r.potted) and not bool(r.foul) and np.asarray(r.counted).tolist()[1]
    assert int(nxt.next_pocket[0]) == 2 and int(nxt.to_play) == 1
    assert gf.POCKET_NAMES[0] == "FR"  # AMB-47: pocket 1 is the foot-right corner


def test_GF_06_every_stroke_adds_one():
    r, nxt = judge_real(state_at(3), "open_good")
    assert not bool(r.foul) and np.asarray(r.strokes).tolist() == [1, 0, 0, 0, 0, 0]
    assert np.asarray(nxt.strokes).tolist()[:3] == [1, 0, 0]


def test_GF_07_a_foul_adds_three_more():
    r, _ = judge_real(state_at(3, opening=False), "miss")
    assert bool(r.foul) and int(r.strokes[0]) == 1 + 3 and "GF-07" in cited(r)


def test_GF_12_series_score_goes_on_the_sheet():
    s = state_at(3, opening=False)
    xy, on = layout(b0=(W / 2, 1.2), b1=REAR)
    _, s = judge(s, xy, on, [("cushion", 0, "right-head")])  # miss: 4
    _, s = judge(s, xy, on, [("ball", 0, 1), ("cushion", 1, "foot")])  # 1
    _, s = judge(s, xy, on, [("ball", 0, 1), ("pocket", 1, "FR")], pocketed=[1])  # 1
    assert np.asarray(s.sheet)[0].tolist() == [6, 0, 0, 0, 0, 0] and int(s.strokes[0]) == 6


def test_GF_22_several_fouls_add_three_once():
    r, _ = judge_real(state_at(3, opening=False), "cue_pocket")  # misses the ball and pots the cue ball
    assert {"POOL-GEN-34", "POOL-GEN-37", "GF-22"} <= cited(r) and int(r.strokes[0]) == 4


# ----------------------------------------------------------------------------- the opening (GF-09..11, 13)

def test_GF_09_opening_ball_must_reach_the_rear_cushion():
    bad, _ = judge_real(state_at(3), "open_soft")
    good, _ = judge_real(state_at(3), "open_good")
    assert bool(bad.foul) and "GF-09" in cited(bad) and not bool(good.foul)


def test_GF_10_failed_opening_resets_both_balls_and_repeats():
    r, nxt = judge_real(state_at(3), "open_soft")
    xy = np.asarray(r.xy)
    assert np.allclose(xy[0], CENTRE) and np.allclose(xy[1], REAR) and bool(nxt.opening)
    assert int(r.strokes[0]) == 4 and int(nxt.to_play) == 0
    # AMB-49: a pot into pocket 1 without the rear cushion is a failed opening too
    r2, nxt2 = judge(state_at(3), *layout(b0=_FR_CUE, b1=REAR), [("ball", 0, 1), ("pocket", 1, "FR")], pocketed=[1])
    assert bool(r2.foul) and not bool(r2.potted) and np.allclose(np.asarray(r2.xy)[1], REAR) and bool(nxt2.opening)


def test_GF_11_after_the_opening_the_series_continues_alone():
    r, nxt = judge_real(state_at(3), "open_good")
    assert int(nxt.to_play) == 0 and not bool(nxt.opening) and int(r.phase) == NORMAL
    assert np.allclose(np.asarray(r.xy)[:2], np.asarray(real("open_good")[3].r)[:2, :2])


def test_GF_13_next_player_starts_pocket_1_from_the_set_up():
    r, nxt = judge_real(state_at(3, opening=False), "pot_FR")
    xy, on = np.asarray(r.xy), np.asarray(r.on)
    assert np.allclose(xy[0], CENTRE) and np.allclose(xy[2], REAR) and on.tolist() == [True, False, True] + [False] * 4
    assert bool(nxt.opening) and int(nxt.to_play) == 1


# ----------------------------------------------------------------------------- later pockets (GF-14..19)

def test_GF_14_after_the_last_pocket_1_pot_the_cue_ball_stays():
    # order 1, 2, 0 (first = 1): player 0 is the last to pot at pocket 1
    r, nxt = judge_real(state_at(3, to_play=0, first=1, opening=False, done=(1, 2)), "pot_FR")
    cue_end = np.asarray(real("pot_FR")[3].r)[0, :2]
    assert np.allclose(np.asarray(r.xy)[0], cue_end) and int(nxt.pocket) == 2


def test_GF_15_pocket_2_first_player_again_on_the_rear_spot():
    # order 1, 2, 0 (first = 1): player 0 pots last at pocket 1, player 1 opens pocket 2
    r, nxt = judge_real(state_at(3, to_play=0, first=1, opening=False, done=(1, 2)), "pot_FR")
    cue_end = np.asarray(real("pot_FR")[3].r)[0, :2]
    assert bool(r.potted) and int(nxt.to_play) == 1 and int(nxt.pocket) == 2 and not bool(nxt.opening)
    assert np.allclose(np.asarray(r.xy)[2], REAR) and np.allclose(np.asarray(r.xy)[0], cue_end)
    assert np.asarray(r.on).tolist() == [True, False, True, False, False, False, False]


def test_GF_16_no_rear_cushion_needed_from_pocket_2():
    r, nxt = judge_real(state_at(3, pocket=2), "pot_MR")  # MR is golf pocket 2; no foot cushion
    assert bool(r.potted) and not bool(r.foul) and "GF-09" not in cited(r) and "GF-16" in cited(r)


def test_GF_17_cue_ball_stays_where_it_stopped():
    r, _ = judge_real(state_at(3, opening=False), "no_cushion")
    assert np.allclose(np.asarray(r.xy)[0], np.asarray(real("no_cushion")[3].r)[0, :2])


def test_GF_18_players_take_each_pocket_in_turn():
    xy, on = layout(b0=(1.0, 2.0), b1=REAR)
    s = state_at(3, pocket=3, to_play=0, opening=False)
    order = []
    for p in range(3):
        xy_p, on_p = layout(b0=(1.0, 2.0), **{f"b{p + 1}": REAR})
        _, s = judge(s, xy_p, on_p, [("ball", 0, p + 1), ("pocket", p + 1, "HR")], pocketed=[p + 1])
        order.append((int(s.to_play), int(s.pocket)))
    assert order == [(1, 3), (2, 3), (0, 4)]


def test_GF_19_fouls_and_misses_do_not_end_the_series():
    for name in ("miss", "no_cushion", "open_good"):
        _, nxt = judge_real(state_at(3, opening=False), name)
        assert int(nxt.to_play) == 0 and int(nxt.pocket) == 1


# ----------------------------------------------------------------------------- rules of play (GF-20..27)

def test_GF_20_object_ball_in_a_wrong_pocket_is_a_foul():
    r, _ = judge_real(state_at(3, opening=False), "pot_FL")
    assert bool(r.foul) and not bool(r.potted) and "GF-20" in cited(r)


def test_GF_21_after_contact_a_cushion_or_the_current_pocket():
    bad, _ = judge_real(state_at(3, opening=False), "no_cushion")
    good, _ = judge_real(state_at(3, opening=False), "open_good")
    assert bool(bad.foul) and "GF-21" in cited(bad) and not bool(good.foul)
    # potting into the round's pocket is enough without any cushion
    pot, _ = judge_real(state_at(3, opening=False), "pot_FR")
    assert not bool(pot.foul)


def test_GF_23_house_choice_rear_spot_or_front_spot():
    xy, on = layout(b0=(W / 2, 1.2), b1=(0.5, 2.0))
    r, s = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("cushion", 1, "head"), ("pocket", 0, "HR")],
                 moved={1: (0.5, 0.3)}, pocketed=[0])
    assert int(r.phase) == gf.HOUSE_CHOICE and np.asarray(gf.legal_choices(s)).tolist() == [True, True]
    r1, s1 = gf.jit_choose(SPEC, s, r.xy, r.on, gf.REAR_SPOT)
    assert int(s1.phase) == IN_HAND_HOUSE and np.allclose(np.asarray(r1.xy)[1], REAR) and not bool(r1.on[0])
    r2, s2 = gf.jit_choose(SPEC, s, r.xy, r.on, gf.FRONT_SPOT)
    assert int(s2.phase) == NORMAL and np.allclose(np.asarray(r2.xy)[0], FRONT)
    assert np.allclose(np.asarray(r2.xy)[1], (0.5, 0.3))  # the own ball stays in the house
    # the front spot is not open when the ball sits on it
    r3, s3 = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("pocket", 0, "HR")], moved={1: (W / 2, FRONT[1] - R)},
                   pocketed=[0])
    assert np.asarray(gf.legal_choices(s3)).tolist() == [True, False]


def test_GF_24_object_ball_off_the_table_is_a_foul():
    xy, on = layout(b0=(W / 2, 1.2), b1=(W / 2, 2.0))
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("air", 1), ("off", 1)], off=[1])
    assert bool(r.foul) and "GF-24" in cited(r)


def test_GF_25_illegally_potted_ball_to_the_rear_spot_plus_three():
    r, _ = judge_real(state_at(3, opening=False), "pot_FL")
    assert np.allclose(np.asarray(r.xy)[1], REAR) and bool(r.on[1]) and int(r.strokes[0]) == 4
    assert np.asarray(r.respotted).tolist()[1]


def test_GF_26_off_table_ball_to_the_rear_spot_three_in_all():
    xy, on = layout(b0=(W / 2, 1.2), b1=(W / 2, 2.0))
    r, _ = judge(state_at(3, opening=False), xy, on, [("ball", 0, 1), ("off", 1)], off=[1])
    assert np.allclose(np.asarray(r.xy)[1], REAR) and bool(r.on[1]) and int(r.strokes[0]) == 4


def test_GF_27_cue_ball_pocketed_same_player_in_hand_in_the_house():
    r, nxt = judge_real(state_at(3, opening=False), "cue_pocket")
    assert int(nxt.to_play) == 0 and int(nxt.phase) == IN_HAND_HOUSE and not bool(r.on[0]) and bool(r.foul)
    low, high = gf.in_hand_region(SPEC)
    assert high[1] < SPEC.head_line and gf.placement_ok(SPEC, r.xy, r.on, jnp.asarray([W / 2, 0.3]), nxt.phase)
    assert not gf.placement_ok(SPEC, r.xy, r.on, jnp.asarray([W / 2, 0.3]), NORMAL)


# ----------------------------------------------------------------------------- a full game

COST = {"play": 1, "miss": 1 + 3, "wrong_pocket": 1 + 3, "cue_in": 1 + 3, "pot": 1}  # GF-06/07/22
"""Strokes each kind of stroke costs, from the rules (not from the referee)."""


def _events(kind, own, target, opening):
    rear = [("cushion", own, "foot")] if opening else []
    other = "HL" if target != "HL" else "HR"
    return {
        "play": ([("ball", 0, own), ("cushion", own, "foot")], {}, [], []),
        "miss": ([("cushion", 0, "left-foot")], {0: (0.3, 2.5)}, [], []),
        "wrong_pocket": ([("ball", 0, own), ("pocket", own, other)], {}, [own], []),
        "cue_in": ([("ball", 0, own), ("cushion", own, "foot"), ("pocket", 0, "ML")], {}, [0], []),
        "pot": ([("ball", 0, own)] + rear + [("pocket", own, target)], {}, [own], []),
    }[kind]


def test_full_seeded_three_player_game_totals_follow_the_rules():
    rng = np.random.default_rng(20261203)
    players = 3
    s = gf.initial_state(players, first=1)
    xy, on = (np.asarray(a) for a in gf.initial_layout(SPEC, players, first=1))
    want = np.zeros(gf.MAX_PLAYERS, int)
    sheet = np.zeros((gf.MAX_PLAYERS, 6), int)
    for pocket in range(1, 7):
        for p in (1, 2, 0):  # first = 1
            assert int(s.to_play) == p and int(s.pocket) == pocket
            kinds = list(rng.choice(["play", "miss", "wrong_pocket", "cue_in"], size=rng.integers(0, 4))) + ["pot"]
            for kind in kinds:
                if int(s.phase) == IN_HAND_HOUSE:
                    xy[0], on[0] = (W / 2, 0.35), True
                events, moved, pocketed, off = _events(kind, p + 1, gf.POCKET_NAMES[pocket - 1], bool(s.opening))
                r, s = judge(s, xy, on, events, moved, pocketed, off)
                assert not bool(r.replay)
                want[p] += COST[kind]
                sheet[p, pocket - 1] += COST[kind]
                xy, on = np.asarray(r.xy).copy(), np.asarray(r.on).copy()
    assert int(s.phase) == FRAME_OVER and int(s.pocket) == 7
    assert np.asarray(s.strokes).tolist() == want.tolist() and np.asarray(s.sheet).tolist() == sheet.tolist()
    best = want[:players].min()
    leaders = [p for p in range(players) if want[p] == best]
    assert int(s.winner) == (leaders[0] if len(leaders) == 1 else -1)
    assert np.asarray(r.leaders).tolist()[:players] == [want[p] == best for p in range(players)]


def test_hand_checked_two_player_pocket_1():
    """Player 0: failed opening (4), good opening (1), miss (4), pot (1) = 10. Player 1:
    opening and pot in one (1) = 1. Written from GF-06/07/09/10, not from the referee."""
    s = gf.initial_state(2)
    xy, on = (np.asarray(a) for a in gf.initial_layout(SPEC, 2))
    seq = [
        ([("ball", 0, 1)], {1: (W / 2, 3.0)}, []),  # does not reach the rear cushion
        ([("ball", 0, 1), ("cushion", 1, "foot")], {1: (W / 2, 3.0)}, []),
        ([("cushion", 0, "right-foot")], {}, []),
        ([("ball", 0, 1), ("pocket", 1, "FR")], {}, [1]),
        ([("ball", 0, 2), ("cushion", 2, "foot"), ("pocket", 2, "FR")], {}, [2]),
    ]
    for events, moved, pocketed in seq:
        r, s = judge(s, xy, on, events, moved, pocketed)
        xy, on = np.asarray(r.xy).copy(), np.asarray(r.on).copy()
    assert np.asarray(s.strokes).tolist()[:2] == [10, 1] and int(s.pocket) == 2 and int(s.to_play) == 0


def test_judge_and_choose_trace_under_vmap_with_players_per_table():
    """Static shapes and no Python branching on traced values: the judge and choose trace under
    vmap over tables with different numbers of players (shapes only, nothing compiled)."""
    xy, on = layout(b0=(W / 2, 1.2), b1=REAR)
    stack = lambda *t: jax.tree_util.tree_map(lambda *a: jnp.stack([jnp.asarray(x) for x in a]), *t)  # noqa: E731
    states = stack(state_at(2), state_at(6, to_play=3))
    s = summary([("ball", 0, 1), ("cushion", 1, "foot")])
    args = (states, stack(pool.declare(), pool.declare()), stack(s, s), stack(jnp.asarray(xy), jnp.asarray(xy)),
            stack(jnp.asarray(on), jnp.asarray(on)), stack(final_balls(xy, on), final_balls(xy, on)))
    r, nxt = jax.eval_shape(jax.vmap(functools.partial(gf.judge, SPEC)), *args)
    assert r.strokes.shape == (2, gf.MAX_PLAYERS) and r.xy.shape == (2, N, 2) and nxt.sheet.shape == (2, gf.MAX_PLAYERS, 6)
    c, _ = jax.eval_shape(jax.vmap(functools.partial(gf.choose, SPEC)), states, args[3], args[4], jnp.asarray([0, 1]))
    assert c.xy.shape == (2, N, 2)
