"""Decision phases from files: Moscow pyramid's ``remove_ball`` (MP-09), snooker's
``foul_choice`` (SN-68) and golf's ``house_choice`` (GF-23) take a shot file that gives only
``choice`` (docs/rules.md, "From files and the command line"). Each phase is reached from a
stroke's ``next`` position, as a frame is replayed from files, then decided through the
command line and through the loading functions. A decision shot that carries a stroke field
is refused with a PositionError naming the field and the phase.
"""

import json

import pytest

from cuegym.positions import PositionError, decision_phase, judging, load_position, load_shot, parse_shot
from cuegym.tools import cli

MOSCOW = {"game": "moscow-pyramid", "table": "pyramid-12ft",
          "balls": {"cue": [0.8875, 1.2], "2": [0.8875, 1.5], "5": [0.5, 2.0], "9": [1.2, 2.6]},
          "state": {"to_play": 0, "phase": "normal"}}
SNOOKER = {"game": "snooker", "table": "snooker-12ft",
           "balls": {"cue": [0.875, 1.2], "red1": [0.3, 2.0], "yellow": [1.167, 0.7], "green": [0.583, 0.7],
                     "brown": [0.875, 0.7], "blue": [0.875, 1.75], "pink": [0.875, 2.625], "black": [0.875, 3.176]},
           "state": {"to_play": 0}}
GOLF = {"game": "golf", "table": "snooker-12ft", "balls": {"cue": [0.875, 1.2], "1": [0.5, 2.0]},
        "state": {"num_players": 2, "first": 0, "to_play": 0, "phase": "normal", "pocket": 3, "next_pocket": [3, 3],
                  "strokes": [2, 2], "opening": False}}


def after(position, shot, events, final=None):
    """The ruling and next position of a stroke given by its events (a short event list)."""
    pos = load_position(position)
    sh = load_shot(shot, pos)
    prepared = judging.prepare(pos, sh)
    summary, fin = judging.summary_from_events(pos, prepared, sh.phi, events, final)
    return judging.judge_position(pos, prepared, summary, fin)


def moscow_removal():
    """Player 0 pots the 2 and then the cue ball off it: both count (MP-06/08) and player 1
    names a ball to remove (MP-09): the next position has no cue ball."""
    ruling, nxt = after(MOSCOW, {"phi": 1.5708, "speed": 2.0},
                        [{"kind": "ball", "balls": ["cue", "2"]}, {"kind": "pocket", "balls": ["2"], "pocket": "FL"},
                         {"kind": "pocket", "balls": ["cue"], "pocket": "FL"}])
    assert ruling["phase"] == "remove_ball" and "cue" not in nxt["balls"]
    return nxt


def snooker_foul():
    """Red on, the cue ball hits the yellow first: a foul; the incoming player chooses (SN-68)."""
    ruling, nxt = after(SNOOKER, {"phi": 1.5708, "speed": 1.0}, [{"kind": "ball", "balls": ["cue", "yellow"]}],
                        {"cue": [1.0, 0.9]})
    assert ruling["foul"] and ruling["phase"] == "foul_choice"
    return nxt


def golf_scratch():
    """The striker's cue ball falls in after sending his own ball back into the house: GF-23's
    choice follows, with the cue ball off the table."""
    ruling, nxt = after(GOLF, {"phi": 2.0, "speed": 2.0},
                        [{"kind": "ball", "balls": ["cue", "1"]}, {"kind": "cushion", "balls": ["1"], "cushion": "head"},
                         {"kind": "pocket", "balls": ["cue"], "pocket": "HR"}], {"1": [0.5, 0.3]})
    assert ruling["phase"] == "house_choice" and "cue" not in nxt["balls"]
    return nxt


# (the phase, how it is reached, the choice, what must follow it)
CASES = {
    "remove_ball": (moscow_removal, "5", {"to_play": 0, "phase": "in_hand_house"}),  # MP-10: the striker
    "foul_choice": (snooker_foul, "replay", {"to_play": 0, "phase": "normal"}),
    "house_choice": (golf_scratch, "front_spot", {"to_play": 0, "phase": "normal"}),
}


@pytest.mark.parametrize("phase", list(CASES))
def test_choice_only_shot_through_the_loading_functions(phase):
    reach, choice, _ = CASES[phase]
    position = load_position(reach())
    assert decision_phase(position) == phase
    shot = load_shot({"choice": choice}, position)
    assert shot.decision == phase and shot.choice == choice and shot.to_dict() == {"choice": choice}
    ruling, _ = judging.choose_position(position, shot.choice)
    assert not ruling["foul"]


@pytest.mark.parametrize("phase", list(CASES))
def test_choice_only_shot_through_the_command_line(capsys, tmp_path, phase):
    reach, choice, then = CASES[phase]
    pos_file, shot_file = tmp_path / "next.json", tmp_path / "shot.json"
    pos_file.write_text(json.dumps(reach()))
    shot_file.write_text(json.dumps({"choice": choice}))
    code = cli.main(["simulate", str(pos_file), "--shot", str(shot_file)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    result = json.loads(captured.out)
    assert result["events"] == [] and result["final"] is None and result["shot"] == {"choice": choice}
    assert {k: result["next"]["state"][k] for k in then} == then
    assert {k: result["ruling"][k] for k in then} == then


def test_moscow_removal_takes_the_named_ball_off():
    """MP-09 with AMB-31: the named ball comes off the table, credited to the striker."""
    position = load_position(moscow_removal())
    ruling, nxt = judging.choose_position(position, load_shot({"choice": "5"}, position).choice)
    assert "5" not in nxt["balls"] and nxt["state"]["owned"]["5"] == 0 and ruling["scores"] == [2, 0]


@pytest.mark.parametrize("phase", list(CASES))
@pytest.mark.parametrize("field, value", [("speed", 1.0), ("phi", 0.5), ("cue_ball", "cue"), ("place", [0.5, 0.5]),
                                          ("inject", {"events": ["touched_ball"]})])
def test_stroke_fields_in_a_decision_are_refused(phase, field, value):
    reach, choice, _ = CASES[phase]
    position = load_position(reach())
    with pytest.raises(PositionError) as info:
        parse_shot({"choice": choice, field: value}, position)
    assert info.value.field == f"shot.{field}" and repr(phase) in str(info.value) and "choice" in str(info.value)


def test_stroke_field_in_a_decision_exits_2_naming_it(capsys):
    code = cli.main(["simulate", json.dumps(golf_scratch()), "--shot", '{"choice": "rear_spot", "speed": 1}'])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert "error: shot.speed: " in captured.err and "'house_choice'" in captured.err


def test_null_fields_are_absent_fields():
    """A field written as null is the same as one left out (as for strokes)."""
    position = load_position(golf_scratch())
    assert load_shot({"choice": "rear_spot", "speed": None, "cue_ball": None}, position).choice == "rear_spot"


def test_a_choice_alone_is_still_no_stroke_outside_a_decision():
    """Outside a decision phase a shot needs its speed, as before."""
    position = load_position(MOSCOW)
    assert decision_phase(position) is None
    with pytest.raises(PositionError) as info:
        parse_shot({"choice": "5"}, position)
    assert info.value.field == "shot.speed"
