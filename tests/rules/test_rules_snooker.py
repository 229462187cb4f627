"""The snooker referee (catalogue section SN) beyond the one-stroke scenarios of
tests/rules/scenarios/snooker: the line-of-sight geometry against closed-form cases, the
incoming player's choices after a foul, multi-stroke sequences, jit/vmap, and the set-up.

Everything here reuses one compiled judge (snooker-12ft, 22 balls, from
``cuegym.positions.snooker_play``) and one compiled ``sight`` per call pattern; strokes are
event summaries (``judging.summary_from_events``), so no physics is compiled.
"""

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cuegym.physics import get_spec
from cuegym.positions import PositionError, judging, load_position, load_shot, snooker_play
from cuegym.rules import snooker as sn
from cuegym.rules.base import clause_ids
from cuegym.rules.snooker_respot import spots
from cuegym.rules.snooker_sight import bank_reachable, d_samples, in_d, sight

SPEC = get_spec("snooker-12ft")
R = SPEC.ball_radius
N = sn.N_BALLS
IDS = sn.BALL_NAMES
SP = {c: list(p) for c, p in zip(("yellow", "green", "brown", "blue", "pink", "black"), spots(SPEC).tolist())}


@functools.lru_cache(maxsize=None)
def _sight():
    return jax.jit(functools.partial(sight, SPEC))


def look(cue, balls, targets, in_hand=False):
    """Sight from ``cue`` with ``balls`` {name: (x, y)} on the table, ``targets`` the balls on;
    every other ball on the table is an obstacle."""
    xy = np.zeros((N, 2))
    on = np.zeros(N, bool)
    for name, p in balls.items():
        xy[IDS.index(name)] = p
        on[IDS.index(name)] = True
    tg = np.isin(np.arange(N), [IDS.index(t) for t in targets])
    s = _sight()(jnp.asarray(cue, jnp.float64), jnp.asarray(in_hand), jnp.asarray(xy), jnp.asarray(tg), jnp.asarray(on & ~tg),
                 jnp.zeros(N, bool))
    return {k: v.item() for k, v in s._asdict().items()}


# ----------------------------------------------------------------------------- snookered (SN-46..49)

def _edge_offset(dist_target):
    """Closed form: cue ball at the origin, target at distance D straight ahead, a blocker
    half-way at lateral offset e. The grazing path on the far side of the target leaves the
    line at angle a = asin(2R / D); the blocker at (D/2, e) is 0.5 D sin a + e cos a from it,
    which must be at least 2R: visible iff e >= R / cos a."""
    return R / math.cos(math.asin(2 * R / dist_target))


@pytest.mark.parametrize("factor, hidden", [(0.998, True), (1.002, False)])
def test_SN_46_partly_visible_threshold_matches_closed_form(factor, hidden):
    e = _edge_offset(1.0) * factor
    s = look((0.875, 1.0), {"red1": (0.875, 2.0), "black": (0.875 + e, 1.5)}, ["red1"])
    assert s["snookered"] is hidden


def test_SN_46_fully_hidden_and_one_ball_on_enough():
    hidden = {"red1": (0.875, 2.0), "black": (0.875, 1.5)}
    assert look((0.875, 1.0), hidden, ["red1"])["snookered"]
    # one ball on in view is enough: no snooker (SN-46)
    assert not look((0.875, 1.0), {**hidden, "red2": (1.3, 2.0)}, ["red1", "red2"])["snookered"]
    # a ball on never obstructs another ball on
    assert not look((0.875, 1.0), {"red1": (0.875, 2.0), "red2": (0.875, 1.5)}, ["red1", "red2"])["snookered"]


def test_SN_48_effective_snookering_ball_is_the_nearest_blocker():
    s = look((0.875, 1.0), {"red1": (0.875, 2.5), "blue": (0.875, 1.75), "pink": (0.875, 2.2)}, ["red1"])
    assert s["snookered"] and IDS[s["effective"]] == "blue"


def test_SN_48_no_effective_ball_when_a_ball_on_is_in_view():
    # the blue still blocks part of the view of red1, but red2 is in full view: no snooker
    s = look((0.875, 1.0), {"red1": (0.875, 2.5), "blue": (0.875, 1.75), "red2": (1.4, 1.0)}, ["red1", "red2"])
    assert not s["snookered"] and s["effective"] == -1


def _layouts(rng, count):
    """``count`` layouts of N non-overlapping balls on the bed, about half of each placed
    touching or nearly touching a ball already down (clusters, where arcs meet)."""
    out = np.zeros((count, N, 2))
    for g in range(count):
        pts = []
        while len(pts) < N:
            if pts and rng.random() < 0.5:
                ang = rng.uniform(0, 2 * math.pi)
                p = pts[rng.integers(len(pts))] + (2 * R + rng.uniform(0, 0.02)) * np.array([math.cos(ang), math.sin(ang)])
            else:
                p = np.array([rng.uniform(R, SPEC.width - R), rng.uniform(R, SPEC.length - R)])
            inside = R <= p[0] <= SPEC.width - R and R <= p[1] <= SPEC.length - R
            if inside and all(np.hypot(*(p - q)) >= 2 * R for q in pts):
                pts.append(p)
        out[g] = pts
    return out


def test_SN_46_arcs_agree_with_every_critical_direction():
    """The referee's view test (blocked arcs, a sort) against trying every critical direction
    ± EPS_ANGLE (the exhaustive form, which also finds the first ball on each path): the
    same reach per target for balls, balls less the extra ones, and jaws, on 600 random and
    clustered layouts with random balls on and extra obstacles."""
    from cuegym.rules.snooker_sight import _open_all, _reach

    rng = np.random.default_rng(46)
    count = 600
    xy = jnp.asarray(_layouts(rng, count))
    targets = rng.random((count, N)) < rng.uniform(0.03, 0.5, (count, 1))
    targets[:, 0] = False
    obstacles = ~targets
    obstacles[:, 0] = False
    extra = rng.random((count, N)) < 0.2
    args = (xy[:, 0], xy, jnp.asarray(targets), jnp.asarray(obstacles), jnp.asarray(extra))
    arcs = jax.jit(jax.vmap(lambda *a: _open_all(SPEC, *a)))(*args)
    every = jax.jit(jax.vmap(lambda *a: _reach(SPEC, *a)[:3]))(*args)
    snookered = ~np.asarray(every[0]).any(-1)
    assert 0.05 < snookered.mean() < 0.95  # both answers are exercised
    for mine, ref in zip(arcs, every):
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(ref))


def test_SN_49_hidden_only_by_a_pocket_jaw():
    """Cue ball frozen to the left cushion in the mouth of the baulk-left corner pocket, the red up the left
    cushion: every straight path passes within R + r_jaw of the jaw at (-0.01, 0.065), so the
    cue ball is angled, and not snookered (no ball is in the way)."""
    balls = {"red1": (0.0245, 1.5)}
    s = look((0.0245, 0.04), balls, ["red1"])
    assert s["angled"] and not s["snookered"]
    # a second red in the open: one ball on in view, so neither angled nor snookered
    s = look((0.0245, 0.04), {**balls, "red2": (0.8, 1.0)}, ["red1", "red2"])
    assert not s["angled"] and not s["snookered"]
    # out of the mouth the jaw no longer hides the red
    assert not look((0.06, 0.3), balls, ["red1"])["angled"]


WALL = {"red1": (0.875, 3.40), "black": (0.875, 3.15), "pink": (0.875 - 0.0535, 3.15), "blue": (0.875 + 0.0535, 3.15),
        "brown": (0.875 - 0.107, 3.15), "green": (0.875 + 0.107, 3.15)}


def _bank(cue, balls, targets, in_hand=False):
    """bank_reachable from ``cue`` with ``balls`` {name: (x, y)}, ``targets`` on, the rest obstacles."""
    xy, on = np.zeros((N, 2)), np.zeros(N, bool)
    for name, p in balls.items():
        xy[IDS.index(name)], on[IDS.index(name)] = p, True
    tg = np.isin(np.arange(N), [IDS.index(t) for t in targets])
    fn = jax.jit(functools.partial(bank_reachable, SPEC))
    return bool(fn(jnp.asarray(cue, jnp.float64), jnp.asarray(in_hand), jnp.asarray(xy), jnp.asarray(tg), jnp.asarray(on & ~tg)))


def test_SN_59_one_cushion_paths():
    """SN-59's «попасть невозможно»: a red hidden behind the blue is open off a side cushion;
    walled in by six balls it is not, from the cue ball or from anywhere in the D."""
    hidden = {"red1": [0.875, 2.3], "blue": [0.875, 1.75]}
    assert look([0.875, 1.2], hidden, ["red1"])["snookered"] and _bank([0.875, 1.2], hidden, ["red1"])
    ring = {"red1": [0.875, 2.3]}
    for k, name in enumerate(("yellow", "green", "brown", "blue", "pink", "black")):
        a = k * math.pi / 3
        ring[name] = [0.875 + 2.002 * R * math.cos(a), 2.3 + 2.002 * R * math.sin(a)]
    assert not _bank([0.875, 1.2], ring, ["red1"]) and not _bank([0.875, 1.2], ring, ["red1"], in_hand=True)
    assert _bank([0.875, 1.2], hidden, ["red1"], in_hand=True)


def test_SN_47_from_the_d_every_position_counts():
    # behind a wall of five colours: hidden from every position in the D
    assert look((0, 0), WALL, ["red1"], in_hand=True)["snookered"]
    # only the black in front: hidden from the middle of the D, visible from its ends
    one = {"red1": (0.875, 3.40), "black": (0.875, 3.15)}
    assert look((0.875, 0.7), one, ["red1"])["snookered"]
    assert not look((0.875 + SPEC.d_radius, 0.7), one, ["red1"])["snookered"]
    assert not look((0, 0), one, ["red1"], in_hand=True)["snookered"]


def test_SN_10_the_d_and_its_line():
    cx, cy, rd = SPEC.width / 2, SPEC.head_line, SPEC.d_radius
    inside = [(cx, cy), (cx + rd, cy), (cx, cy - rd), (cx + rd / math.sqrt(2), cy - rd / math.sqrt(2))]
    outside = [(cx, cy + 1e-6), (cx + rd + 1e-6, cy), (cx, cy - rd - 1e-6), (cx + rd, cy - 0.01)]
    assert all(bool(in_d(SPEC, p)) for p in inside)
    assert not any(bool(in_d(SPEC, p)) for p in outside)
    assert all(bool(in_d(SPEC, p)) for p in d_samples(SPEC))


# ----------------------------------------------------------------------------- strokes from files

def stroke(position, shot, events, final=None):
    """(ruling dict, next position dict, ruling, prepared) for an event-summary stroke."""
    position = load_position(position)
    shot = load_shot(shot, position)
    prepared = judging.prepare(position, shot)
    summary, fin = judging.summary_from_events(position, prepared, shot.phi, events, final)
    ruling, nxt = judging.judge_position(position, prepared, summary, fin)
    return ruling, nxt


def choose(position, choice):
    return snooker_play.choose_position(load_position(position), choice)


def P(balls, **state):
    return {"game": "snooker", "table": "snooker-12ft", "balls": balls, "state": state}


BASE = {"cue": [0.875, 1.2], "red1": [0.3, 2.0], "red2": [1.4, 2.4], **SP}
HIT = lambda *b: [{"kind": "ball", "balls": ["cue", x]} for x in b]  # noqa: E731
SHOT = {"cue_ball": "cue", "phi": 1.5708, "speed": 1.0}


def choose_opts(position, choice, **options):
    """A ``foul_choice`` decision under rule options (:mod:`cuegym.rules.snooker_options`)."""
    from test_rules_scenarios import choose_with_options

    return choose_with_options(position, choice, options)


SCATTER = (HIT("yellow") + [{"kind": "ball", "balls": ["yellow", "green"]}], {"cue": [0.9, 0.8], "yellow": [1.3, 0.4], "green": [0.2, 0.5]})


def test_SN_58_miss_then_restore_returns_the_cue_ball_only():
    """A miss that scatters the balls, then the incoming player has the cue ball returned
    («вернуть биток на исходную позицию»): the cue ball back where it was, the yellow and
    green where the miss left them, the offender to play on the same ball on, the penalty kept."""
    ruling, nxt = stroke(P(BASE, to_play=0, scores=[10, 20]), SHOT, *SCATTER)
    assert ruling["miss"] and "restore" in ruling["choices"] and ruling["scores"] == [10, 24]
    assert nxt["state"]["restore"]["balls"] == {k: [round(x, 6) for x in v] for k, v in BASE.items()}
    rul, after = choose(nxt, "restore")
    assert "SN-58" in rul["clauses"] and rul["replay"]
    assert after["balls"] == {**nxt["balls"], "cue": BASE["cue"]}
    assert after["state"]["to_play"] == 0 and after["state"]["ball_on"] == "red" and after["state"]["phase"] == "normal"
    assert after["state"]["scores"] == [10, 24]


def test_SN_58_option_every_ball_puts_the_whole_position_back():
    """miss_restore="every_ball" (WPBSA, AMB-38): the same miss, and every ball goes back."""
    _, nxt = stroke(P(BASE, to_play=0, scores=[10, 20]), SHOT, *SCATTER)
    rul, after = choose_opts(nxt, "restore", miss_restore="every_ball")
    before = nxt["state"]["restore"]["balls"]
    assert "SN-58" in rul["clauses"] and sorted(after["balls"]) == sorted(before)
    assert all(np.allclose(after["balls"][k], p, atol=1e-9) for k, p in before.items())
    assert after["state"]["to_play"] == 0 and after["state"]["ball_on"] == "red"


def test_SN_58_a_ball_on_the_cue_balls_old_place_goes_back_too():
    """The miss sent the yellow where the cue ball stood, and the green onto the yellow's
    new place... each ball in the way of a ball put back goes back too; the rest stay."""
    events = HIT("yellow") + [{"kind": "ball", "balls": ["yellow", "green"]}]
    _, nxt = stroke(P(BASE, to_play=0), SHOT, events, {"cue": [0.9, 0.8], "yellow": [0.875, 1.21], "green": [0.2, 0.5]})
    rul, after = choose(nxt, "restore")
    assert after["balls"]["cue"] == BASE["cue"] and after["balls"]["yellow"] == SP["yellow"]  # put back: it stood in the way
    assert after["balls"]["green"] == [0.2, 0.5]  # not in the way: stays where the miss left it


def test_SN_58_restore_after_the_last_red_fell_plays_the_lowest_colour():
    """A miss that knocks the last red in (a foul, the red stays down, SN-36): restored, the
    offender cannot be on a red any more: he is on the yellow (SN-35)."""
    hid = {"cue": [0.875, 1.2], "red1": [0.3, 2.0], **SP}
    events = HIT("yellow") + [{"kind": "ball", "balls": ["yellow", "red1"]}, {"kind": "pocket", "balls": ["red1"], "pocket": "ML"}]
    ruling, nxt = stroke(P(hid, to_play=0), SHOT, events, {"cue": [0.9, 0.8]})
    assert ruling["miss"] and "red1" not in nxt["balls"]
    _, after = choose(nxt, "restore")
    assert after["state"]["ball_on"] == "yellow" and "red1" not in after["balls"]


def test_snooker_options_are_checked():
    """Every option names its allowed values; an unknown option or value is refused."""
    from cuegym.rules.snooker_options import ALLOWED, DEFAULT, WPBSA, snooker_options

    assert snooker_options() == DEFAULT and snooker_options(**WPBSA._asdict()) == WPBSA
    assert all(getattr(DEFAULT, k) == v[0] for k, v in ALLOWED.items())  # the original's reading is the default
    with pytest.raises(ValueError, match="miss_restore.*cue_ball, every_ball"):
        snooker_options(miss_restore="all")
    with pytest.raises(ValueError, match="last_red.*in_order, nominated"):
        snooker_options(last_red="free")
    with pytest.raises(ValueError, match="replay_free_ball.*incoming_only, offender_too"):
        snooker_options(replay_free_ball=True)
    with pytest.raises(ValueError, match="unknown.*miss_restore"):
        snooker_options(miss="x")


def test_SN_68_offender_replays_without_the_free_ball():
    """A foul that leaves the incoming player snookered (free ball); he makes the offender play
    again: the free ball is the incoming player's (SN-61), the offender replays without it
    (with it under replay_free_ball="offender_too", AMB-37(d)); or he plays on himself with it."""
    hid = {"cue": [0.875, 1.0], "red1": [0.875, 2.9], **SP}
    ruling, nxt = stroke(P(hid, to_play=0), SHOT, [{"kind": "cushion", "balls": ["cue"], "cushion": "head"}], {"cue": [0.875, 1.3]})
    assert ruling["free_ball"] and ruling["to_play"] == 1
    rul, replay = choose(nxt, "replay")
    assert "SN-68" in rul["clauses"] and replay["state"]["to_play"] == 0 and not replay["state"]["free_ball"]
    rul, replay = choose_opts(nxt, "replay", replay_free_ball="offender_too")
    assert "SN-61" in rul["clauses"] and replay["state"]["to_play"] == 0 and replay["state"]["free_ball"]
    rul, on = choose(nxt, "play")
    assert "SN-61" in rul["clauses"] and on["state"]["to_play"] == 1 and on["state"]["free_ball"]
    # the free-ball stroke: the blue nominated and potted scores as a red, and is re-spotted
    ruling, after = stroke(on, {**SHOT, "nominate": "blue"}, HIT("blue") + [{"kind": "pocket", "balls": ["blue"], "pocket": "MR"}],
                           {"cue": [0.875, 1.5]})
    assert ruling["points"] == [0, 1] and ruling["respotted"] == {"blue": SP["blue"]} and after["state"]["ball_on"] == "colour"
    with pytest.raises(PositionError) as info:  # a choice that is not open
        choose(nxt, "rebreak")
    assert info.value.field == "shot.choice"


def test_SN_68_three_misses_in_a_row_each_replayed():
    """Three misses in a row (the cue ball hits the yellow first with a red in plain view,
    SN-57), each answered by making the offender play again (SN-68): every miss costs the
    ball on's value, at least 4 (SN-71), to the opponent; the offender plays again from the
    position the miss left; restore and replay stay on offer after each."""
    position = P(BASE, to_play=0, scores=[10, 20])
    scores = [10, 20]
    for k in range(3):
        ruling, nxt = stroke(position, SHOT, HIT("yellow"), {"cue": [0.9, 0.8 + 0.01 * k]})
        scores = [scores[0], scores[1] + 4]
        assert ruling["foul"] and ruling["miss"] and ruling["scores"] == scores, k
        assert {"play", "replay", "restore"} <= set(ruling["choices"]), k
        rul, position = choose(nxt, "replay")
        assert "SN-68" in rul["clauses"] and position["state"]["to_play"] == 0, k
        assert position["balls"]["cue"] == [0.9, round(0.8 + 0.01 * k, 6)], k  # played on from where the miss left it
    assert position["state"]["scores"] == [10, 32] and position["state"]["ball_on"] == "red"


def test_SN_50_angled_incoming_player_takes_the_d():
    ruling, nxt = stroke(P({"cue": [0.6, 1.0], "red1": [0.0245, 1.5], **SP}, to_play=0), SHOT,
                         [{"kind": "cushion", "balls": ["cue"], "cushion": "left-head"}], {"cue": [0.0245, 0.04]})
    assert ruling["angled"] and "from_d" in ruling["choices"]
    rul, after = choose(nxt, "from_d")
    assert "SN-50" in rul["clauses"] and "cue" not in after["balls"]
    assert after["state"]["phase"] == "in_hand_d" and after["state"]["to_play"] == 1


def test_SN_19_rebreak_sets_the_balls_up_again():
    rack_xy, rack_on = sn.initial_layout(SPEC)
    balls = {IDS[k]: [float(x), float(y)] for k, (x, y) in enumerate(np.asarray(rack_xy)) if rack_on[k]}
    ruling, nxt = stroke(P({**balls, "cue": [1.0246252, 0.62]}, to_play=0, breaking=True), SHOT, HIT("blue"),
                         {"cue": [0.9, 1.5], "blue": [0.8, 2.0]})
    assert ruling["foul"] and "rebreak" in ruling["choices"] and ruling["points"] == [0, 5]
    rul, after = choose(nxt, "rebreak")
    assert "SN-19" in rul["clauses"]
    assert after["state"]["to_play"] == 0 and after["state"]["phase"] == "in_hand_d" and after["state"]["breaking"]
    assert after["state"]["scores"] == [0, 5]  # the penalty stands (AMB-32)
    assert after["balls"] == {k: [round(x, 6) for x in v] for k, v in balls.items()}


def test_SN_15_frame_ends_on_the_respotted_black():
    """Level after the last black: the black is re-spotted, a lag gives it to player 0, who
    plays from the D; his foul on it ends the frame, the opponent winning by the penalty."""
    ruling, nxt = stroke(P({"cue": [0.875, 2.9], "black": [0.3, 3.3]}, to_play=1, ball_on="black", scores=[45, 38]), SHOT,
                         HIT("black") + [{"kind": "pocket", "balls": ["black"], "pocket": "FL"}], {"cue": [0.875, 3.0]})
    assert ruling["phase"] == "lag" and ruling["scores"] == [45, 45] and ruling["respotted"] == {"black": SP["black"]}
    assert list(nxt["balls"]) == ["black"]
    pos = load_position(nxt)
    state = sn.after_lag(snooker_play.state_from_dict(pos.state, IDS, pos.on_table()), 0)
    nxt = {**nxt, "state": snooker_play.state_to_dict(state, IDS)}
    assert nxt["state"]["phase"] == "in_hand_d"
    ruling, end = stroke(nxt, {**SHOT, "place": [0.875, 0.6]}, [{"kind": "cushion", "balls": ["cue"], "cushion": "foot"}],
                         {"cue": [0.5, 3.0]})
    assert ruling["foul"] and ruling["frame_over"] and ruling["winner"] == 1 and ruling["scores"] == [45, 52]
    assert "SN-14" in ruling["clauses"]


def test_SN_40_two_colours_at_once_highest_first():
    """The pink and the black both potted on a foul, the cue ball stopping on the black spot
    and a red on the pink's: the black goes first (AMB-41(a)) to the highest free spot, the
    blue's (the blue is elsewhere); then every spot is covered for the pink, which goes as
    near its own spot as it can on the top-cushion side, 1 mm clear of the red (SN-41)."""
    balls = {**BASE, "red1": SP["pink"], "pink": [0.5, 3.0], "blue": [1.4, 1.0], "cue": [0.875, 2.9]}
    ruling, _ = stroke(P(balls, to_play=0), SHOT, HIT("red2") + [{"kind": "pocket", "balls": ["pink"], "pocket": "FL"},
                                                              {"kind": "pocket", "balls": ["black"], "pocket": "FR"}],
                       {"cue": SP["black"]})
    assert ruling["points"] == [0, 7] and {"SN-40", "SN-41", "SN-81"} <= set(ruling["clauses"])
    assert ruling["respotted"]["black"] == SP["blue"]
    assert np.allclose(ruling["respotted"]["pink"], [SP["pink"][0], SP["pink"][1] + 2 * R + 1e-3], atol=1e-6)


# ----------------------------------------------------------------------------- the judge directly

@functools.lru_cache(maxsize=None)
def _judge():
    return jax.jit(functools.partial(sn.judge, SPEC))


def _inputs(position, shot, events, final=None):
    position = load_position(position)
    shot = load_shot(shot, position)
    prepared = judging.prepare(position, shot)
    summary, fin = judging.summary_from_events(position, prepared, shot.phi, events, final)
    return prepared.state, prepared.decl, summary, jnp.asarray(prepared.xy), jnp.asarray(prepared.on), fin


def test_SN_80_jump_shot_costs_the_ball_on():
    """A jump over the pink with the black on (value 7): the penalty is the ball on's, 7."""
    args = _inputs(P({"cue": [0.875, 1.3], "black": [0.875, 2.2], "pink": [0.875, 1.75]}, to_play=0, ball_on="black"),
                   SHOT, HIT("black"), {"cue": [0.875, 2.0]})
    state, decl, summ, xy, on, fin = args
    ruling, _ = _judge()(state, decl, summ._replace(airborne=summ.airborne.at[0].set(True)), xy, on, fin)
    assert bool(ruling.foul) and "SN-80" in clause_ids(ruling.clauses) and int(ruling.penalty) == 7


def test_SN_29_jump_over_a_ball_is_a_foul():
    """The cue ball left the bed and its path to the red it hit passed over the blue: a jump
    shot, a foul valued at the ball on (AMB-13: intent presumed). Without the airborne flag,
    or with the blue off the path, no foul."""
    args = _inputs(P({"cue": [0.875, 1.3], "red1": [0.875, 2.2], "blue": [0.875, 1.75], "pink": [0.3, 3.0]}, to_play=0),
                   SHOT, HIT("red1"), {"cue": [0.875, 2.0]})
    state, decl, summ, xy, on, fin = args
    jumped = summ._replace(airborne=summ.airborne.at[0].set(True))
    ruling, _ = _judge()(state, decl, jumped, xy, on, fin)
    assert bool(ruling.foul) and {"SN-29", "SN-80"} <= set(clause_ids(ruling.clauses)) and int(ruling.penalty) == 4
    ruling, _ = _judge()(state, decl, summ, xy, on, fin)
    assert not bool(ruling.foul)
    clear = xy.at[IDS.index("blue")].set(jnp.asarray([1.3, 1.75]))
    ruling, _ = _judge()(state, decl, jumped, clear, on, fin)
    assert not bool(ruling.foul)


def test_SN_76_cue_ball_outside_the_d_is_a_foul_if_it_gets_through():
    """The file validator refuses a placement outside the D; a judge given one anyway (an env
    with the warning flag, catalogue SN-76) rules a foul valued at the ball on."""
    state, decl, summ, xy, on, fin = _inputs(P(BASE, to_play=0), SHOT, HIT("red1"), {"cue": [0.6, 1.8]})
    ruling, _ = _judge()(state._replace(phase=jnp.asarray(sn.IN_HAND_D, jnp.int32)), decl, summ, xy, on, fin)
    assert bool(ruling.foul) and "SN-76" in clause_ids(ruling.clauses) and int(ruling.penalty) == 4


def test_vmapped_batch_equals_one_by_one():
    cases = [
        (P(BASE, to_play=0), SHOT, HIT("red1") + [{"kind": "pocket", "balls": ["red1"], "pocket": "FL"}], {"cue": [0.6, 1.8]}),
        (P(BASE, to_play=1, ball_on="colour"), {**SHOT, "nominate": "blue"}, HIT("pink"), {"cue": [0.875, 2.0]}),
        (P({"cue": [0.875, 1.0], "red1": [0.875, 2.9], **SP}, to_play=0), SHOT,
         [{"kind": "cushion", "balls": ["cue"], "cushion": "head"}], {"cue": [0.875, 1.3]}),
        (P(BASE, to_play=0, free_ball=True), {**SHOT, "nominate": "blue"}, HIT("blue"), {"cue": [0.875, 1.5]}),
    ]
    items = [_inputs(*c) for c in cases]
    batch = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *items)
    judged = jax.jit(jax.vmap(functools.partial(sn.judge, SPEC)))(*batch)
    for b, item in enumerate(items):
        one = _judge()(*item)
        for x, y in zip(jax.tree_util.tree_leaves(one), jax.tree_util.tree_leaves(judged)):
            assert np.array_equal(np.asarray(x), np.asarray(y[b]))


# ----------------------------------------------------------------------------- set-up and procedure

def test_SN_01_snooker_is_played_on_the_12ft_table():
    assert SPEC.name == "snooker-12ft"
    assert judging.referee(load_position(P({"cue": [0.875, 0.6]}))) is sn


def test_SN_02_playing_surface_3500_by_1750():
    assert (SPEC.width, SPEC.length) == (1.750, 3.500)


def test_SN_03_table_height_plays_no_part():
    assert not any("height" in f for f in SPEC.__dataclass_fields__ if f != "cushion_height")


def test_SN_04_two_players():
    state = sn.initial_state(1)
    assert state.scores.shape == (2,) and int(state.to_play) == 1


def test_SN_05_balls_and_SN_06_values():
    assert len(IDS) == 22 and IDS[0] == "cue" and sum(i.startswith("red") for i in IDS) == 15
    assert SPEC.ball_diameter == 0.0525
    assert dict(zip(IDS, sn.VALUES.tolist()))["red7"] == 1
    assert [int(sn.VALUES[IDS.index(c)]) for c in ("yellow", "green", "brown", "blue", "pink", "black")] == [2, 3, 4, 5, 6, 7]


def test_SN_06_ball_values():
    values = dict(zip(IDS, sn.VALUES.tolist()))
    assert values["cue"] == 0 and {values[f"red{k}"] for k in range(1, 16)} == {1} and values["black"] == 7


def test_SN_07_set_up_pink_on_its_spot_reds_just_behind():
    xy, on = (np.asarray(a) for a in sn.initial_layout(SPEC))
    assert not on[0] and on[1:].all()
    pink = xy[IDS.index("pink")]
    assert np.allclose(pink, SPEC.spots()["pink"])
    reds = xy[1:16]
    gaps = np.hypot(*(reds - pink).T) - 2 * R
    assert gaps.min() > 0 and gaps.min() < 1e-5  # as close as possible without touching
    assert (reds[:, 1] > pink[1]).all()  # the triangle is on the top-cushion side


def test_SN_08_baulk_line_700_mm():
    assert SPEC.head_line == 0.700


def test_SN_09_the_d_has_radius_292_mm():
    assert SPEC.d_radius == 0.292
    assert bool(in_d(SPEC, (SPEC.width / 2 - 0.292, 0.700))) and not bool(in_d(SPEC, (SPEC.width / 2 - 0.293, 0.700)))


def test_SN_16_breaks_alternate():
    assert [sn.frame_breaker(f, 1) for f in range(4)] == [1, 0, 1, 0]
    state = sn.initial_state(1)
    assert int(state.phase) == sn.IN_HAND_D and bool(state.breaking) and int(state.ball_on) == sn.RED_ON


def test_SN_26_nominations_and_choices_masks():
    on = np.ones(N, bool)
    state = sn.initial_state(0)._replace(phase=jnp.asarray(0, jnp.int32), ball_on=jnp.asarray(sn.COLOUR_ON, jnp.int32))
    assert [IDS[i] for i in np.nonzero(np.asarray(sn.legal_nominations(state, on)))[0]] == list(IDS[16:])
    free = state._replace(ball_on=jnp.asarray(sn.RED_ON, jnp.int32), free_ball=jnp.asarray(True))
    assert [IDS[i] for i in np.nonzero(np.asarray(sn.legal_nominations(free, on)))[0]] == list(IDS[16:])
    seq = state._replace(ball_on=jnp.asarray(3, jnp.int32), free_ball=jnp.asarray(True))
    assert [IDS[i] for i in np.nonzero(np.asarray(sn.legal_nominations(seq, on)))[0]] == [i for i in IDS[1:] if i != "green"]
    choice = state._replace(phase=jnp.asarray(sn.FOUL_CHOICE, jnp.int32), choices=jnp.asarray(0b00101, jnp.int32))
    assert np.asarray(sn.legal_choices(choice)).tolist() == [True, False, True, False, False]


# ----------------------------------------------------------------------------- American snooker (AS)

from cuegym.rules import american_snooker as asn  # noqa: E402


def PA(balls, **state):
    return {"game": "american-snooker", "table": "snooker-12ft", "balls": balls, "state": state}


def test_AS_01_american_snooker_is_snooker_with_american_rules():
    assert judging.referee(load_position(PA({"cue": [0.875, 0.6]}))) is asn
    assert not asn.VARIANT.extras and asn.VARIANT.after_contact and asn.VARIANT.flat_penalty == 7


def test_AS_02_tables_and_AS_03_balls():
    ten, twelve = get_spec("american-snooker-10ft"), get_spec("american-snooker-12ft")
    assert (ten.width, ten.length, twelve.width, twelve.length) == (1.536, 3.072, 1.843, 3.686)


def test_AS_03_ball_diameters():
    assert (get_spec("american-snooker-10ft").ball_diameter, get_spec("american-snooker-12ft").ball_diameter) == (0.0528, 0.0544)


def test_AS_04_two_players_AS_05_balls():
    state = asn.initial_state(0)
    assert state.scores.shape == (2,) and len(IDS) == 22 and asn.N_BALLS == 22


def test_AS_05_fifteen_reds_six_colours():
    assert sum(i.startswith("red") for i in IDS) == 15 and IDS[16:] == ("yellow", "green", "brown", "blue", "pink", "black")


def test_AS_07_layout_scaled_to_the_table():
    spec = get_spec("american-snooker-12ft")
    xy, on = (np.asarray(a) for a in asn.initial_layout(spec))
    pink = xy[IDS.index("pink")]
    assert np.allclose(pink, spec.spots()["pink"]) and np.allclose(xy[IDS.index("black")], spec.spots()["black"])
    gaps = np.hypot(*(xy[1:16] - pink).T) - spec.ball_diameter
    assert 0 < gaps.min() < 1e-5 and (xy[1:16, 1] > pink[1]).all()


AS_BASE = {"cue": [0.875, 1.2], "red1": [0.3, 2.0], "red2": [1.4, 2.4], **SP}


def test_AS_22_after_a_red_a_colour_is_on():
    ruling, nxt = stroke(PA(AS_BASE, to_play=0), SHOT, HIT("red1") + [{"kind": "pocket", "balls": ["red1"], "pocket": "FL"}],
                         {"cue": [0.6, 1.8]})
    assert "AS-22" in ruling["clauses"] and ruling["to_play"] == 0 and nxt["state"]["ball_on"] == "colour"


def test_AS_31_illegally_potted_red_stays_down_colour_goes_back():
    ruling, nxt = stroke(PA(AS_BASE, to_play=0, ball_on="colour"), {**SHOT, "nominate": "blue"},
                         HIT("blue") + [{"kind": "pocket", "balls": ["blue"], "pocket": "MR"},
                                        {"kind": "pocket", "balls": ["red2"], "pocket": "FR"}], {"cue": [0.875, 1.5]})
    assert "AS-31" in ruling["clauses"] and ruling["foul"] and ruling["points"] == [0, 7]
    assert ruling["respotted"] == {"blue": SP["blue"]} and "red2" not in nxt["balls"]


def test_AS_26_jump_shot_is_a_foul():
    args = _inputs(PA({"cue": [0.875, 1.3], "red1": [0.875, 2.2], "blue": [0.875, 1.75], "pink": [0.3, 3.0]}, to_play=0),
                   SHOT, HIT("red1") + [{"kind": "cushion", "balls": ["red1"], "cushion": "foot"}], {"cue": [0.875, 2.0]})
    state, decl, summ, xy, on, fin = args
    judge = snooker_play._judge("american-snooker", SPEC)
    ruling, _ = judge(state, decl, summ._replace(airborne=summ.airborne.at[0].set(True)), xy, on, fin)
    assert bool(ruling.foul) and {"AS-26", "AS-39"} <= set(clause_ids(ruling.clauses)) and int(ruling.penalty) == 7
    ruling, _ = judge(state, decl, summ, xy, on, fin)
    assert not bool(ruling.foul)


def test_AS_40_offender_replays_and_AS_16_rebreak():
    ruling, nxt = stroke(PA(AS_BASE, to_play=0), SHOT, [{"kind": "cushion", "balls": ["cue"], "cushion": "head"}], {"cue": [0.875, 1.0]})
    assert ruling["choices"] == ["play", "replay"] and ruling["points"] == [0, 7]
    rul, after = choose(nxt, "replay")
    assert "AS-40" in rul["clauses"] and after["state"]["to_play"] == 0 and not after["state"]["free_ball"]
    rack_xy, rack_on = sn.initial_layout(SPEC)
    balls = {IDS[k]: [float(x), float(y)] for k, (x, y) in enumerate(np.asarray(rack_xy)) if rack_on[k]}
    ruling, nxt = stroke(PA({**balls, "cue": [1.0246252, 0.62]}, to_play=0, breaking=True), SHOT,
                         HIT("red15") + [{"kind": "cushion", "balls": ["cue"], "cushion": "right-foot"}], {"cue": [1.5, 1.5]})
    assert ruling["foul"] and "AS-15" in ruling["clauses"] and ruling["choices"] == ["play", "replay", "rebreak"]
    rul, after = choose(nxt, "rebreak")
    assert "AS-16" in rul["clauses"] and after["state"]["breaking"] and after["state"]["phase"] == "in_hand_d"
