"""Whole frames and their endings, played stroke by stroke from files: each stroke's ``next``
position (with the referee state) is the following stroke's position, as a coach would
replay a frame with ``cuegym simulate``.

Expected scores are worked out from the catalogue by hand in each test.
"""

import numpy as np

from cuegym.positions import judging, load_position, load_shot
from cuegym.tools.cli import simulate_position

REAR_SPOT = [0.8875, 2.6625]
REAR_MIDDLE = [0.8875, 3.55 - 0.03304542328371662]  # frozen to the rear cushion's middle
R = 0.034


def stroke(position, shot, events=None, final=None):
    """Play one stroke; physical unless ``events`` are given. Returns (ruling, next)."""
    pos = load_position(position)
    sh = load_shot(shot, pos)
    if events is None:
        result = simulate_position(pos, sh)
        assert not result["truncated"]
        return result["ruling"], result["next"]
    prepared = judging.prepare(pos, sh)
    summary, fin = judging.summary_from_events(pos, prepared, sh.phi, events, final)
    return judging.judge_position(pos, prepared, summary, fin)


def pot(ball, pocket, cue="cue"):
    """Events of a clean pot: the cue ball hits ``ball``, which drops in ``pocket``."""
    return [{"kind": "ball", "balls": [cue, ball]}, {"kind": "pocket", "balls": [ball], "pocket": pocket}]


def miss():
    return [{"kind": "cushion", "balls": ["cue"], "cushion": "foot"}]


def test_RP_17_frame_reaches_70_70_and_is_settled_by_the_next_pot():
    # 49:70 with the ace (11) alone on the table: potting it scores 11 + 10 (last ball,
    # RP-06) = 70:70 (RP-17). The ace goes back on the rear spot and a lag decides who
    # plays from hand (RP-18); the next legal pot wins (RP-19).
    start = {"game": "russian-pyramid", "table": "pyramid-12ft",
             "balls": {"cue": [0.875, 2.65], "1": [1.375, 3.15]},
             "state": {"to_play": 0, "phase": "normal", "scores": [49, 70]}}
    ruling, nxt = stroke(start, {"phi": 0.785398163, "speed": 2.5, "call": {"ball": "1", "pocket": "FR"}})
    assert ruling["points"] == [21, 0] and ruling["scores"] == [70, 70]
    assert {"RP-05", "RP-06", "RP-17", "RP-18"} <= set(ruling["clauses"])
    assert ruling["phase"] == "lag" and not ruling["frame_over"]
    assert np.allclose(nxt["balls"]["1"], REAR_SPOT, atol=1e-6) and "cue" not in nxt["balls"]
    assert nxt["state"]["sudden_death"] is True
    # The lag is won by player 1, who plays from hand (RU-GEN-10: he chooses to play).
    nxt["state"].update(to_play=1, striker=1, phase="in_hand_house")
    # A failed call in sudden death: no points, the ball goes back, the turn passes.
    ruling, nxt = stroke(nxt, {"phi": 1.5708, "speed": 3.0, "place": [0.8875, 0.5], "call": {"ball": "1", "pocket": "FL"}},
                         events=pot("1", "FR"))
    assert ruling["points"] == [0, 0] and ruling["to_play"] == 0 and not ruling["frame_over"]
    assert np.allclose(nxt["balls"]["1"], REAR_SPOT, atol=1e-6)
    # Player 0 pots the ace as called: 70 + 11 + 10 = 91, and wins (RP-02, RP-19).
    ruling, nxt = stroke(nxt, {"phi": 1.5708, "speed": 3.0, "call": {"ball": "1", "pocket": "FR"}}, events=pot("1", "FR"))
    assert ruling["scores"] == [91, 70] and ruling["frame_over"] and ruling["winner"] == 0
    assert {"RP-02", "RP-19"} <= set(ruling["clauses"])
    assert nxt["state"]["phase"] == "frame_over"


def test_RP_19_a_foul_in_sudden_death_loses_the_frame():
    start = {"game": "russian-pyramid", "table": "pyramid-12ft", "balls": {"5": REAR_SPOT},
             "state": {"to_play": 1, "phase": "in_hand_house", "scores": [70, 70], "sudden_death": True}}
    ruling, _ = stroke(start, {"phi": 1.0, "speed": 2.0, "place": [0.3, 0.5], "call": {"ball": "5", "pocket": "FL"}},
                       events=miss())
    assert ruling["foul"] and ruling["scores"] == [75, 65] and ruling["winner"] == 0  # RU-GEN-37, RP-16
    assert "RP-19" in ruling["clauses"]


def test_RP_20_stalemate_after_six_fouls_in_a_row():
    # Three fouls each, alternating, with no object ball moved: after the second one each a
    # warning (RP-22), after the sixth the stalemate (RP-20/21, AMB-26): the lowest ball
    # stays on the rear spot, the scores become 70:70, and a lag follows.
    pos = {"game": "russian-pyramid", "table": "pyramid-12ft",
           "balls": {"cue": [0.5, 1.2], "3": [1.2, 2.2], "9": [0.4, 3.0], "12": [1.5, 1.0]},
           "state": {"to_play": 0, "phase": "normal", "scores": [40, 35]}}
    warnings = []
    for k in range(6):
        striker = k % 2
        assert pos["state"]["to_play"] == striker
        ruling, pos = stroke(pos, {"phi": -1.5708, "speed": 0.5, "call": {"ball": "3", "pocket": "FR"}}, events=miss())
        assert ruling["foul"] and ruling["fouler"] == striker
        warnings.append(ruling["warning"])
    assert warnings == [False, False, True, True, False, False]
    assert {"RP-20", "RP-21"} <= set(ruling["clauses"])
    assert ruling["scores"] == [70, 70] and ruling["phase"] == "lag"
    assert sorted(pos["balls"]) == ["3"] and np.allclose(pos["balls"]["3"], REAR_SPOT, atol=1e-6)
    assert pos["state"]["sudden_death"] is True


def test_RP_06_frame_won_on_the_last_ball():
    # 58:40, the 3 alone: 3 + 10 (last ball) = 71 (RP-02, RP-06).
    start = {"game": "russian-pyramid", "table": "pyramid-12ft",
             "balls": {"cue": [0.875, 2.65], "3": [1.375, 3.15]},
             "state": {"to_play": 0, "phase": "normal", "scores": [58, 40]}}
    ruling, nxt = stroke(start, {"phi": 0.785398163, "speed": 2.5, "call": {"ball": "3", "pocket": "FR"}})
    assert ruling["points"] == [13, 0] and ruling["scores"] == [71, 40]
    assert ruling["frame_over"] and ruling["winner"] == 0 and nxt["state"]["winner"] == 0


def _object(game, ball, xy):
    return {ball: xy}


def test_AM_17_americanka_frame_to_eight_with_a_penalty_ball_owed_and_repaid():
    # Player 1 fouls with no ball won yet: he owes one (AM-17). Later he pots two balls: the
    # first pays the debt and goes back frozen to the rear cushion, the second is his; he
    # keeps the turn. Player 0 then wins at 8 balls (AM-02).
    balls = {"1": [0.4, 1.0], "2": [1.2, 1.2], "3": [0.6, 2.0], "4": [1.3, 2.4], "5": [0.3, 2.9], "6": [1.0, 3.0]}
    state = {"to_play": 1, "phase": "normal", "scores": [6, 0],
             "owned": {"7": 0, "8": 0, "9": 0, "10": 0, "11": 0, "12": 0}}
    pos = {"game": "americanka", "table": "pyramid-12ft", "balls": dict(balls, **{"16": [0.9, 0.5]}), "state": state}
    # a stroke that touches nothing: foul (RU-GEN-37), he has no ball, so he owes one
    ruling, pos = stroke(pos, {"cue_ball": "16", "phi": 3.0, "speed": 0.3}, events=[])
    assert ruling["foul"] and ruling["debt"] == [0, 1] and ruling["scores"] == [6, 0]
    assert "AM-17" in ruling["clauses"] and pos["state"]["to_play"] == 0
    # player 0 plays a legal safety (AM-11: struck ball and object ball cross the centre line)
    ruling, pos = stroke(pos, {"cue_ball": "2", "phi": 1.5708, "speed": 2.0},
                         events=[{"kind": "ball", "balls": ["2", "4"]}, {"kind": "cross", "balls": ["2"]},
                                 {"kind": "cross", "balls": ["4"]}],
                         final={"2": [1.2, 1.9], "4": [1.3, 3.2]})
    assert not ruling["foul"] and ruling["to_play"] == 1 and "AM-11" in ruling["clauses"]
    # player 1 pots 1 then 3: 1 pays the debt (back to the rear cushion), 3 is his
    ruling, pos = stroke(pos, {"cue_ball": "16", "phi": 2.0, "speed": 2.0},
                         events=[{"kind": "ball", "balls": ["16", "1"]}, {"kind": "pocket", "balls": ["1"], "pocket": "ML"},
                                 {"kind": "ball", "balls": ["16", "3"]}, {"kind": "pocket", "balls": ["3"], "pocket": "FL"}])
    assert ruling["debt"] == [0, 0] and ruling["scores"] == [6, 1] and ruling["to_play"] == 1
    assert np.allclose(pos["balls"]["1"], REAR_MIDDLE, atol=1e-6) and "3" not in pos["balls"]
    assert pos["state"]["owned"]["3"] == 1
    # player 1 fouls (no contact) and gives back his only ball, the 3 (AM-16)
    ruling, pos = stroke(pos, {"cue_ball": "16", "phi": 3.0, "speed": 0.3}, events=[])
    assert ruling["foul"] and ruling["scores"] == [6, 0] and "AM-16" in ruling["clauses"]
    assert "3" in pos["balls"] and "3" not in pos["state"]["owned"]
    # player 0 pots two balls in one stroke: 8, frame over
    ruling, pos = stroke(pos, {"cue_ball": "5", "phi": 0.0, "speed": 2.0},
                         events=[{"kind": "ball", "balls": ["5", "6"]}, {"kind": "pocket", "balls": ["6"], "pocket": "FL"},
                                 {"kind": "pocket", "balls": ["5"], "pocket": "FL"}])
    assert ruling["scores"] == [8, 0] and ruling["frame_over"] and ruling["winner"] == 0
    assert sorted(ruling["counted"]) == ["5", "6"]  # the struck ball counts too (AM-07)


def test_MP_09_moscow_frame_with_cue_ball_pots_removals_and_a_debt():
    balls = {"cue": [0.9, 1.5], "1": [0.4, 1.0], "2": [1.2, 1.2], "3": [0.6, 2.0], "4": [1.3, 2.4], "5": [0.3, 2.9]}
    pos = {"game": "moscow-pyramid", "table": "pyramid-12ft", "balls": balls,
           "state": {"to_play": 0, "phase": "normal", "scores": [5, 0],
                     "owned": {"6": 0, "7": 0, "8": 0, "9": 0, "10": 0}, "debt": [0, 0]}}
    # player 0 fouls with the cue ball off the table: gives back his latest ball (10), the
    # opponent gets the cue ball in hand (RU-GEN-18/30, MP-13)
    ruling, pos = stroke(pos, {"phi": 1.0, "speed": 4.0},
                         events=[{"kind": "ball", "balls": ["cue", "2"]}, {"kind": "off_table", "balls": ["cue"]}])
    assert ruling["foul"] and ruling["scores"] == [4, 0] and "MP-13" in ruling["clauses"]
    assert np.allclose(pos["balls"]["10"], REAR_MIDDLE, atol=1e-6)
    assert pos["state"]["phase"] == "in_hand_house" and pos["state"]["to_play"] == 1
    # player 1 pots the 2 and then the cue ball off it: both legal (MP-06/08); the 2 is his,
    # and player 0 names a ball to remove (MP-09)
    ruling, pos = stroke(pos, {"phi": 1.2, "speed": 2.0, "place": [0.9, 0.5]},
                         events=[{"kind": "ball", "balls": ["cue", "2"]}, {"kind": "pocket", "balls": ["2"], "pocket": "MR"},
                                 {"kind": "pocket", "balls": ["cue"], "pocket": "MR"}])
    assert not ruling["foul"] and ruling["scores"] == [4, 1] and ruling["phase"] == "remove_ball"
    assert ruling["to_play"] == 0
    # player 0 removes the 5; it is credited to player 1 (AMB-31), who plays on from hand
    ruling, pos = stroke(pos, {"choice": "5"})  # a decision: only the choice
    assert ruling["scores"] == [4, 2] and "5" not in pos["balls"] and pos["state"]["owned"]["5"] == 1
    assert pos["state"]["to_play"] == 1 and pos["state"]["phase"] == "in_hand_house"
