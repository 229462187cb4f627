"""Position and shot files (cuegym.positions): loading, validation, the next position.

No simulation here (no JIT): these run in a second or two.
"""

import glob
import json
import math
import os

import numpy as np
import pytest

from cuegym.physics import OFF_TABLE, POCKETED, STATIONARY, BallState, get_spec
from cuegym.physics.racks import pyramid_rack
from cuegym.positions import (
    EXAMPLES_DIR,
    GAMES,
    TOLERANCE,
    Position,
    PositionError,
    ShotSpec,
    dumps,
    load_position,
    load_shot,
    next_position,
    parse_position,
    parse_shot,
)

PYR = get_spec("pyramid-12ft")
R = PYR.ball_radius


def pos(**fields):
    data = {"table": "pyramid-12ft", "balls": {"cue": [0.88, 0.40], "7": [0.60, 2.90]}}
    data.update(fields)
    return data


def expect_error(field, fn, *args, contains=()):
    with pytest.raises(PositionError) as info:
        fn(*args)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.field == field, str(err)
    if field:
        assert str(err).startswith(f"{field}: ") or f": {field}: " in str(err), str(err)
    for text in contains:
        assert text in str(err), str(err)
    return err


# ----------------------------------------------------------------------------- valid files


def example_files():
    return sorted(glob.glob(os.path.join(EXAMPLES_DIR, "*.json")))


def test_examples_exist_and_load():
    files = example_files()
    names = {os.path.basename(f) for f in files}
    assert {"break-russian-pyramid.json", "break-shot.json", "snooker-break.json", "snooker-break-shot.json",
            "pot-7.json", "pot-7-shot.json"} <= names
    pairs = {"break-russian-pyramid.json": "break-shot.json", "snooker-break.json": "snooker-break-shot.json",
             "pot-7.json": "pot-7-shot.json", "golf-opening.json": "golf-opening-shot.json"}
    for position_file, shot_file in pairs.items():
        p = load_position(os.path.join(EXAMPLES_DIR, position_file))
        s = load_shot(os.path.join(EXAMPLES_DIR, shot_file), p)
        assert s.cue_ball in p.balls
    # every json file is one or the other
    assert set(pairs) | set(pairs.values()) == names


def test_break_example_is_the_full_rack():
    p = load_position(os.path.join(EXAMPLES_DIR, "break-russian-pyramid.json"))
    assert p.game == "russian-pyramid" and p.table == "pyramid-12ft"
    assert p.ids == GAMES["russian-pyramid"] and set(p.balls) == set(p.ids)
    rack = pyramid_rack(PYR)
    for k, (x, y) in rack.items():
        assert p.balls[k] == pytest.approx((x, y), abs=1e-8)
    assert p.balls["cue"][1] < PYR.head_line  # in the house
    shot = load_shot(os.path.join(EXAMPLES_DIR, "break-shot.json"), p)
    aim = (math.cos(shot.phi), math.sin(shot.phi))
    to_apex = np.subtract(p.balls["4"], p.balls["cue"])
    cross = aim[0] * to_apex[1] - aim[1] * to_apex[0]
    assert abs(cross) < 1e-6 and np.dot(aim, to_apex) > 0  # straight at the apex
    assert 6.5 <= shot.speed <= 7.5


def test_design_example_and_defaults():
    p = parse_position({"game": "russian-pyramid", "table": "pyramid-12ft",
                        "balls": {"cue": [0.88, 0.40], "7": [0.60, 2.90]},
                        "state": {"to_play": 0, "scores": [0, 0], "phase": "normal"}})
    assert p.state == {"to_play": 0, "scores": [0, 0], "phase": "normal"}
    s = parse_shot({"speed": 3.0}, p)
    assert (s.cue_ball, s.phi, s.a, s.b, s.theta) == ("cue", 0.0, 0.0, 0.0, 0.0)
    assert s.call is None and s.place is None
    phys = s.to_physics(p)
    assert int(phys.cue_ball) == 0 and float(phys.speed) == 3.0


def test_game_order_is_canonical_and_absent_balls_are_off():
    p = parse_position({"game": "snooker", "table": "snooker-12ft",
                        "balls": {"black": [0.875, 3.176], "cue": [0.9, 0.5], "red3": [0.5, 2.0]}})
    assert p.ids == GAMES["snooker"] and len(p.ids) == 22
    assert list(p.balls) == ["cue", "red3", "black"]
    on = p.on_table()
    assert on.sum() == 3 and on[p.index("red3")] and not on[p.index("red4")]
    b = p.ball_state()
    assert b.r.shape == (22, 3)
    state = np.asarray(b.state)
    assert state[p.index("black")] == STATIONARY and state[p.index("pink")] == OFF_TABLE
    np.testing.assert_allclose(np.asarray(b.r)[p.index("black"), :2], [0.875, 3.176])


def test_free_ids_keep_file_order():
    p = parse_position({"table": "pool-9ft", "balls": {"zeta": [0.3, 0.5], "alpha": [0.6, 1.0], "cue": [0.6, 2.0]}})
    assert p.ids == ("zeta", "alpha", "cue") and p.game is None
    assert p.index("cue") == 2
    s = parse_shot({"cue_ball": "alpha", "speed": 1}, p)
    assert int(s.to_physics(p).cue_ball) == 1


def test_americanka_any_ball_is_the_cue_ball():
    p = parse_position({"game": "americanka", "table": "pyramid-12ft", "balls": {"3": [0.5, 1.0], "16": [0.9, 2.0]}})
    assert p.ids == tuple(str(k) for k in range(1, 17))
    assert parse_shot({"cue_ball": "16", "speed": 2}, p).cue_ball == "16"
    expect_error("shot.cue_ball", parse_shot, {"speed": 2}, p, contains=("required", "3, 16"))


def test_declarations_and_state_carried_through_unchanged():
    p = parse_position(pos(game="russian-pyramid", state={"phase": "ball_in_hand", "custom": [1, {"x": None}]}))
    shot = {"cue_ball": "cue", "phi": 1.57, "speed": 3.0, "a": 0.0, "b": 0.2, "theta": 0.0,
            "call": {"ball": "7", "pocket": "FR"}, "nominate": "blue", "place": [0.5, 0.5], "choice": {"replay": True},
            "inject": {"events": ["touched_ball"], "ball": "7"}}
    s = parse_shot(shot, p)
    assert s.to_dict() == shot
    assert p.to_dict()["state"] == {"phase": "ball_in_hand", "custom": [1, {"x": None}]}


def test_inline_json_and_round_trip(tmp_path):
    text = json.dumps(pos())
    p = load_position(text)
    f = tmp_path / "p.json"
    f.write_text(dumps(p.to_dict()))
    assert load_position(str(f)) == p
    assert load_position(f) == p  # PathLike


def test_touching_rack_and_tolerance():
    rack = pyramid_rack(PYR)  # touching balls, 1e-7 m apart
    parse_position({"game": "russian-pyramid", "table": "pyramid-12ft", "balls": {k: list(v) for k, v in rack.items()}})
    # written to 1e-6 m, touching balls may overlap by a micrometre: accepted, not moved
    a, b = (0.5, 1.0), (0.5, 1.0 + 2 * R - TOLERANCE / 2)
    p = parse_position({"table": "pyramid-12ft", "balls": {"a": list(a), "b": list(b)}})
    assert p.balls["b"] == b
    expect_error("balls.b", parse_position, {"table": "pyramid-12ft", "balls": {"a": [0.5, 1.0], "b": [0.5, 1.0 + 2 * R - 5e-6]}})


# ----------------------------------------------------------------------------- bad positions


@pytest.mark.parametrize(
    "data, field, contains",
    [
        ({"balls": {"cue": [0.5, 0.5]}}, "table", ("required", "pyramid-12ft")),
        (pos(table="pyramid-13ft"), "table", ("pyramid-13ft", "snooker-12ft")),
        (pos(table=7), "table", ("unknown table 7",)),
        (pos(game="eight-ball"), "game", ("eight-ball", "russian-pyramid", "golf")),
        (pos(game="russian-pyramid", balls={"cue": [0.5, 0.5], "16": [0.6, 2.0]}), "balls.16", ("russian-pyramid", "15")),
        (pos(game="snooker", table="snooker-12ft", balls={"red16": [0.6, 2.0]}), "balls.red16", ("red15", "black")),
        (pos(game="golf", balls={"7": [0.6, 2.0]}), "balls.7", ("golf", "cue, 1, 2, 3, 4, 5, 6")),
        (pos(balls={"cue": [0.5, 0.5], "7": ["0.6", 2.0]}), "balls.7", ("number",)),
        (pos(balls={"cue": [0.5, 0.5], "7": [True, 2.0]}), "balls.7", ("number", "true")),
        (pos(balls={"cue": [0.5, 0.5], "7": [None, 2.0]}), "balls.7", ("null",)),
        (pos(balls={"cue": [0.5, 0.5], "7": [float("nan"), 2.0]}), "balls.7", ("finite",)),
        (pos(balls={"cue": [0.5, 0.5], "7": [0.6, float("inf")]}), "balls.7", ("finite",)),
        (pos(balls={"cue": [0.5, 0.5], "7": [0.6, 2.0, 0.0]}), "balls.7", ("[x, y]", "2 numbers")),
        (pos(balls={"cue": [0.5, 0.5], "7": [0.6]}), "balls.7", ("[x, y]",)),
        (pos(balls={"cue": [0.5, 0.5], "7": {"x": 0.6, "y": 2.0}}), "balls.7", ("[x, y]",)),
        (pos(balls={"cue": [0.5, 0.5], "7": [0.5, 0.5 + 2 * R - 1e-3]}), "balls.7", ("overlaps ball 'cue'", "mm")),
        (pos(balls={"cue": [0.5, 0.5], "7": [1.9, 2.0]}), "balls.7", ("outside the bed", "pyramid-12ft", "x in [", "] m")),
        (pos(balls={"cue": [0.5, 0.5], "7": [0.6, -0.1]}), "balls.7", ("outside the bed",)),
        (pos(balls={"cue": [0.5, 0.5], "7": [0.01, 2.0]}), "balls.7", ("outside the bed",)),
        (pos(balls=[[0.5, 0.5]]), "balls", ("object",)),
        (pos(balls={"": [0.5, 0.5]}), "balls.", ("non-empty",)),
        ({"table": "pyramid-12ft"}, "balls", ("required",)),
        (pos(colour="red"), "colour", ("unknown field", "game, table, balls, state")),
        (pos(state={"to_play": 0}), "state", ("needs a game",)),
        (pos(game="russian-pyramid", state=[0, 1]), "state", ("JSON object",)),
        ([1, 2], "position", ("JSON object",)),
    ],
)
def test_bad_position(data, field, contains):
    expect_error(field, parse_position, data, contains=contains)


def test_bed_limits_come_from_the_physics():
    from cuegym.physics.tables import compile_table

    off = float(compile_table(PYR).contact_offset)
    parse_position({"table": "pyramid-12ft", "balls": {"a": [off, 1.0], "b": [PYR.width - off, 2.0]}})
    expect_error("balls.a", parse_position, {"table": "pyramid-12ft", "balls": {"a": [off - 1e-5, 1.0]}})


def test_bad_json_text_and_files(tmp_path):
    e = expect_error("position", load_position, '{"table": "pyramid-12ft", "balls": {"cue": [0.5, 0.5],}}')
    assert "not valid JSON" in str(e) and "line 1" in str(e)
    # JSON's NaN literal is not a finite number
    expect_error("balls.cue", load_position, '{"table": "pyramid-12ft", "balls": {"cue": [NaN, 0.5]}}', contains=("finite",))
    # a key given twice is an error, not last-one-wins
    e = expect_error("cue", load_position, '{"table": "pyramid-12ft", "balls": {"cue": [0.5, 0.5], "cue": [0.6, 0.6]}}')
    assert "twice" in str(e)
    e = expect_error("shot", load_shot, '{"speed": 2', parse_position(pos()), contains=("not valid JSON",))
    bad_syntax = tmp_path / "syntax.json"
    bad_syntax.write_text('{"table": "pyramid-12ft",\n "balls": {"cue": [0.5 0.5]}}')
    e = expect_error("", load_position, str(bad_syntax), contains=("not valid JSON", "line 2"))
    assert str(e).startswith(f"{bad_syntax}: ")
    missing = tmp_path / "nope.json"
    e = expect_error("", load_position, str(missing), contains=("no such file",))
    assert e.source == str(missing)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(pos(balls={"cue": [0.5, 0.5], "7": [2.5, 1.0]})))
    e = expect_error("balls.7", load_position, str(bad))
    assert str(e).startswith(f"{bad}: balls.7: ")


# ----------------------------------------------------------------------------- bad shots


@pytest.fixture(scope="module")
def game_position():
    return parse_position(pos(game="russian-pyramid"))


@pytest.mark.parametrize(
    "shot, field, contains",
    [
        ({"phi": 1.0}, "shot.speed", ("required", "m/s")),
        ({"speed": None}, "shot.speed", ("required",)),
        ({"speed": 12.0}, "shot.speed", ("[0, 10]", "m/s", "12")),
        ({"speed": -1}, "shot.speed", ("[0, 10]",)),
        ({"speed": "fast"}, "shot.speed", ("number", "fast")),
        ({"speed": float("nan")}, "shot.speed", ("finite",)),
        ({"speed": 2, "a": 1.5}, "shot.a", ("[-1, 1]", "ball radii")),
        ({"speed": 2, "b": -1.01}, "shot.b", ("[-1, 1]",)),
        ({"speed": 2, "theta": -0.1}, "shot.theta", ("rad",)),
        ({"speed": 2, "theta": 1.3}, "shot.theta", ("1.22173",)),
        ({"speed": 2, "phi": 20.0}, "shot.phi", ("rad",)),
        ({"speed": 2, "phi": [1.0]}, "shot.phi", ("number",)),
        ({"speed": 2, "cue_ball": "9"}, "shot.cue_ball", ("not on the table", "cue, 7")),
        ({"speed": 2, "cue_ball": "ghost"}, "shot.cue_ball", ("not a ball",)),
        ({"speed": 2, "cue_ball": 7}, "shot.cue_ball", ("string",)),
        ({"speed": 2, "spin": 1}, "shot.spin", ("unknown field", "cue_ball")),
        ({"speed": 2, "call": "7 in FR"}, "shot.call", ("object",)),
        ({"speed": 2, "call": {"ball": "7", "pocket": "XX"}}, "shot.call.pocket", ("HL", "FR")),
        ({"speed": 2, "call": {"ball": "99", "pocket": "FR"}}, "shot.call.ball", ("unknown ball",)),
        ({"speed": 2, "place": [0.5]}, "shot.place", ("[x, y]",)),
        ([2.0], "shot", ("JSON object",)),
    ],
)
def test_bad_shot(game_position, shot, field, contains):
    expect_error(field, parse_shot, shot, game_position, contains=contains)


def test_cue_ball_in_hand_is_not_on_the_table():
    p = parse_position({"game": "russian-pyramid", "table": "pyramid-12ft", "balls": {"7": [0.6, 2.9]}})
    expect_error("shot.cue_ball", parse_shot, {"speed": 2}, p, contains=("'cue' is not on the table",))


def test_shot_limits_are_inclusive():
    p = parse_position(pos())
    s = parse_shot({"speed": 10, "a": -1, "b": 1, "theta": 0}, p)
    assert isinstance(s, ShotSpec) and s.speed == 10.0


# ----------------------------------------------------------------------------- next position


def test_next_position_omits_gone_balls_and_loads_back():
    p = parse_position(pos(game="russian-pyramid", balls={"cue": [0.88, 0.40], "3": [0.3, 1.0], "7": [0.60, 2.90]},
                           state={"to_play": 1}))
    n = len(p.ids)
    b = p.ball_state()
    r = np.asarray(b.r).copy()
    state = np.asarray(b.state).copy()
    pocket = np.asarray(b.pocket).copy()
    r[p.index("cue"), :2] = [0.123456789, 1.987654321]
    state[p.index("7")], pocket[p.index("7")] = POCKETED, 3
    state[p.index("3")] = OFF_TABLE
    final = BallState(r=r, v=np.zeros((n, 3)), w=np.zeros((n, 3)), state=state, pocket=pocket)
    nxt = next_position(p, final)
    assert nxt == {"game": "russian-pyramid", "table": "pyramid-12ft", "balls": {"cue": [0.123457, 1.987654]},
                   "state": {"to_play": 1}}
    again = parse_position(json.loads(dumps(nxt)))
    assert isinstance(again, Position) and list(again.balls) == ["cue"]


# ----------------------------------------------------------------------------- judging


def test_game_ids_judged_by_family():
    """Every position game goes to its family's module; a drill or unknown game is refused naming ``game``."""
    from cuegym.envs.registry import GAMES, position_games
    from cuegym.positions import judging

    assert set(judging.judged_games()) == set(position_games())
    for name, g in GAMES.items():
        if g.family == "drill":
            expect_error("game", judging.files_for, name, contains=(repr(name),))
        else:
            assert judging.files_for(name) is judging.FAMILY[g.family]
    expect_error("game", judging.files_for, None)
    expect_error("game", load_position, {"game": "pot-shot", "table": "pyramid-12ft", "balls": {}})


def test_russian_pyramid_state_has_no_owned_balls_or_debt():
    from cuegym.positions import judging

    base = {"game": "russian-pyramid", "table": "pyramid-12ft", "balls": {"cue": [0.88, 0.4], "7": [0.6, 2.9]}}
    judging.read_state(load_position({**base, "state": {"scores": [8, 0]}}))
    owned = load_position({**base, "state": {"owned": {"3": 0}}})
    expect_error("state.owned", judging.read_state, owned, contains=("points",))
    debt = load_position({**base, "state": {"debt": [1, 0]}})
    expect_error("state.debt", judging.read_state, debt, contains=("[0, 0]",))


GOLF = {"game": "golf", "table": "snooker-12ft", "balls": {"cue": [0.875, 1.75], "1": [0.875, 2.8]}}


def test_golf_state_reads_and_round_trips():
    from cuegym.positions import golf_play, judging

    p = load_position(os.path.join(EXAMPLES_DIR, "golf-opening.json"))
    state = judging.read_state(p)
    assert int(state.num_players) == 2 and int(state.pocket) == 1 and bool(state.opening)
    data = golf_play.state_to_dict(state, p.ids)
    again = judging.read_state(load_position({**GOLF, "state": data}))
    assert golf_play.state_to_dict(again, p.ids) == data


@pytest.mark.parametrize(
    "state, balls, field, contains",
    [
        ({"num_players": 7}, None, "state.num_players", ("2..6",)),
        ({"num_players": 3, "to_play": 3}, None, "state.to_play", ("0..2",)),
        ({"num_players": 2, "first": 2}, None, "state.first", ("0..1",)),
        ({"num_players": 3, "strokes": [1, 2]}, None, "state.strokes", ("3 integers",)),
        ({"next_pocket": [1, 8]}, None, "state.next_pocket.1", ("1..7",)),
        ({"pocket": 0}, None, "state.pocket", ("1..6",)),
        ({"phase": "foul_choice"}, None, "state.phase", ("house_choice",)),
        ({"choices": ["left"]}, None, "state.choices", ("rear_spot",)),
        ({"sheet": []}, None, "state.sheet", ("num_players",)),
        ({"to_play": 0}, {"cue": [0.875, 1.75], "1": [0.875, 2.8], "2": [0.5, 2.0]}, "balls.2", ("'2'", "AMB-48")),
    ],
)
def test_golf_state_errors_name_the_field(state, balls, field, contains):
    from cuegym.positions import judging

    p = load_position({**GOLF, "state": state, **({"balls": balls} if balls else {})})
    expect_error(field, judging.read_state, p, contains=contains)


# ----------------------------------------------------------------------------- state consistency

AMK = {"game": "americanka", "table": "pyramid-12ft", "balls": {"1": [0.875, 2.65], "9": [0.4, 1.0]}}
MOS = {"game": "moscow-pyramid", "table": "pyramid-12ft", "balls": {"cue": [0.88, 0.4], "7": [0.6, 2.9]}}
RPY = {"game": "russian-pyramid", "table": "pyramid-12ft", "balls": {"cue": [0.88, 0.4], "7": [0.6, 2.9]}}
SNK = {"game": "snooker", "table": "snooker-12ft", "balls": {"cue": [0.875, 1.0], "red1": [0.9, 2.5], "black": [0.875, 3.2]}}


def read_bad(base, state, field, contains=()):
    from cuegym.positions import judging

    return expect_error(field, judging.read_state, load_position({**base, "state": state}), contains=contains)


def read_ok(base, state):
    from cuegym.positions import judging

    return judging.read_state(load_position({**base, "state": state}))


@pytest.mark.parametrize("base", [AMK, MOS], ids=["americanka", "moscow-pyramid"])
def test_state_scores_are_the_balls_owned(base):
    """Americanka / Moscow pyramid: scores [3, 0] with no ball owned would read as no ball to give back for a foul."""
    read_bad(base, {"scores": [3, 0]}, "state.scores", ("[3, 0]", "state.owned credits 0 and 0", "number of balls"))
    read_bad(base, {"scores": [1, 1], "owned": {"3": 0}}, "state.scores", ("credits 1 and 0",))
    state = read_ok(base, {"scores": [2, 1], "owned": {"3": 0, "5": 1, "4": 0}})
    assert list(np.asarray(state.scores)) == [2, 1]


def test_state_debt_only_with_no_ball_owned():
    """AM-16/17, MP-13/14: a foul costs an owned ball first and a ball won pays a debt first."""
    read_bad(AMK, {"scores": [1, 0], "owned": {"3": 0}, "debt": [1, 0]}, "state.debt", ("owns 3", "state.scores 0"))
    read_ok(AMK, {"scores": [0, 1], "owned": {"3": 1}, "debt": [1, 0]})


def test_state_owned_cue_never_in_moscow_pyramid():
    in_hand = {**MOS, "balls": {"7": [0.6, 2.9]}}
    read_bad(in_hand, {"phase": "in_hand_house", "scores": [1, 0], "owned": {"cue": 0}}, "state.owned.cue", ("MP-09",))


@pytest.mark.parametrize("base, win", [(AMK, 8), (RPY, 71)], ids=["americanka", "russian-pyramid"])
def test_state_winner_only_when_the_frame_is_over(base, win):
    owned = {str(b): 0 for b in (2, 3, 4, 5, 6, 7, 8, 10)} if base is AMK else {}
    scores = [len(owned), 0] if base is AMK else [win, 20]
    read_ok(base, {"phase": "frame_over", "winner": 0, "scores": scores, **({"owned": owned} if owned else {})})
    read_bad(base, {"phase": "frame_over"}, "state.winner", ("frame_over",))
    read_bad(base, {"winner": 0}, "state.winner", ("frame_over",))
    read_bad(base, {"phase": "frame_over", "winner": 1, "scores": scores, **({"owned": owned} if owned else {})},
             "state.scores", ("state.winner is 1",))


def test_state_scores_below_the_win_mid_frame():
    """RP-02: 71 points end the frame, so a position at 75:65 cannot be mid-frame."""
    read_bad(RPY, {"scores": [75, 65]}, "state.scores", ("71 points", "frame_over"))
    read_ok(RPY, {"scores": [70, -15]})


def test_state_striker_is_to_play_outside_remove_ball():
    read_bad(RPY, {"to_play": 0, "striker": 1}, "state.striker", ("must be 0",))
    read_ok(MOS, {"to_play": 1, "striker": 0, "phase": "remove_ball"})
    read_bad(MOS, {"to_play": 1, "phase": "remove_ball"}, "state.striker", ("must be 0", "MP-09"))


def test_state_phase_remove_ball_is_moscow_pyramids():
    read_bad(AMK, {"to_play": 1, "striker": 0, "phase": "remove_ball"}, "state.phase", ("MP-09",))


def test_state_sudden_death_only_at_70_70():
    """RP-17..19: after 70:70 the next pot or foul ends the frame; Americanka has no sudden death."""
    read_ok(RPY, {"scores": [70, 70], "sudden_death": True})
    read_bad(RPY, {"scores": [70, 65], "sudden_death": True}, "state.sudden_death", ("[70, 70]",))
    read_bad(AMK, {"sudden_death": True}, "state.sudden_death", ("RP-19",))


def test_state_last_pocketed_is_an_object_ball():
    read_bad(RPY, {"last_pocketed": "cue"}, "state.last_pocketed", ("object ball",))


def test_snooker_state_winner_has_the_higher_score():
    read_ok(SNK, {"phase": "frame_over", "winner": 1, "scores": [40, 60]})
    read_bad(SNK, {"phase": "frame_over", "winner": 0, "scores": [40, 60]}, "state.scores", ("higher score",))
    read_bad(SNK, {"winner": 0, "scores": [60, 40]}, "state.winner", ("frame_over",))


def test_snooker_state_ball_on_against_the_reds():
    read_bad({**SNK, "balls": {"cue": [0.875, 1.0], "black": [0.875, 3.2]}}, {"ball_on": "red"}, "state.ball_on",
             ("no red",))
    read_bad(SNK, {"ball_on": "yellow"}, "state.ball_on", ("reds are on the table",))
    read_ok(SNK, {"ball_on": "colour"})


def test_snooker_state_choices_only_after_a_foul():
    read_ok(SNK, {"phase": "foul_choice", "choices": ["play", "replay"]})
    read_bad(SNK, {"phase": "foul_choice", "choices": ["play"]}, "state.choices", ("\"replay\"",))
    read_bad(SNK, {"choices": ["play", "replay"]}, "state.choices", ("foul_choice",))


def test_golf_state_next_pocket_follows_the_playing_order():
    """Players before ``to_play`` in the order from ``first`` have finished the round, the others not."""
    read_ok(GOLF, {"num_players": 3, "first": 1, "to_play": 0, "pocket": 2, "next_pocket": [2, 3, 3]})
    second = {**GOLF, "balls": {"cue": [0.875, 1.75], "2": [0.875, 2.8]}}
    read_bad(second, {"to_play": 1, "pocket": 2, "next_pocket": [2, 2]}, "state.next_pocket.0", ("must be 3", "finished"))
    read_bad(GOLF, {"pocket": 2, "next_pocket": [3, 2]}, "state.next_pocket.0", ("must be 2",))


def test_golf_state_pocket_7_exactly_at_the_end():
    read_bad(GOLF, {"phase": "frame_over", "pocket": 6, "next_pocket": [6, 6]}, "state.pocket", ("pocket 7",))
    read_ok(GOLF, {"phase": "frame_over", "pocket": 7, "next_pocket": [7, 7], "strokes": [30, 31], "winner": 0})


def test_golf_state_winner_is_the_single_lowest_total():
    end = {"phase": "frame_over", "pocket": 7, "next_pocket": [7, 7]}
    read_bad(GOLF, {**end, "strokes": [30, 31], "winner": 1}, "state.winner", ("lowest total", "here 0"))
    read_bad(GOLF, {**end, "strokes": [30, 31]}, "state.winner", ("here 0",))
    read_ok(GOLF, {**end, "strokes": [30, 30]})
    read_bad(GOLF, {"winner": 0}, "state.winner", ("frame_over",))


def test_golf_state_opening_only_in_round_1():
    read_bad(GOLF, {"pocket": 2, "next_pocket": [2, 2], "opening": True}, "state.opening", ("GF-09",))
