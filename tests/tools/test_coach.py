"""``cuegym suggest`` and :mod:`cuegym.tools.coach`: suggestions for coaches.

Cheap by construction: one search budget throughout (16 candidates x 4 samples, one round:
the search programs of tests/agents/test_agents.py's TINY), Russian pyramid positions of a few
balls on pyramid-12ft, and one suggest run shared by the tests that only read it.
Truth comes from closed-form ghost-ball geometry, the physics' own squirt formula, the
rulebook catalogue and the picture formats' specifications.
"""

from __future__ import annotations

import json
import math
import os
import struct
import xml.etree.ElementTree as ET
import zlib

import numpy as np
import pytest

from cuegym.physics import POCKETS, get_spec, get_table
from cuegym.physics.strike import squirt_angle
from cuegym.rules.catalogue import get
from cuegym.tools import cli, coach
from cuegym.tools import coach_words as W

TABLE = "pyramid-12ft"
SPEC = get_spec(TABLE)
R = SPEC.ball_radius
BUDGET = dict(candidates=16, samples=4, rounds=1)
FLAGS = ["--candidates", "16", "--samples", "4", "--rounds", "1"]
FR = np.asarray(get_table(TABLE).pocket_xy)[POCKETS.index("FR")]
AXIS = np.array([1.0, 1.0]) / math.sqrt(2)  # the FR corner pocket's axis, into the pocket


def _rot(v, deg):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _position(cue, seven, extra=((0.4, 1.0),)):
    balls = {"cue": [float(cue[0]), float(cue[1])], "7": [float(seven[0]), float(seven[1])]}
    for k, p in zip(("3", "11"), extra):
        balls[k] = list(p)
    return {"game": "russian-pyramid", "table": TABLE, "balls": balls, "state": {"to_play": 0, "phase": "normal"}}


# a straight pot: the 7 on the FR corner's axis 0.15 m from the pocket, the cue ball 0.2 m
# behind it on the same line
SEVEN = FR - 0.15 * AXIS
STRAIGHT = _position(SEVEN - 0.2 * AXIS, SEVEN)
# a half-ball cut: the cue ball's line to the ghost ball (7 moved 2R back from the pocket)
# makes 30 degrees with the 7's line to the pocket
GHOST = SEVEN - 2 * R * AXIS
CUT30 = _position(GHOST - 0.3 * _rot(AXIS, 30.0), SEVEN)


def _cli(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def straight():
    return coach.suggest(STRAIGHT, top=3, noise=1.0, seed=0, budget=BUDGET)


@pytest.fixture
def straight_file(tmp_path):
    path = tmp_path / "straight.json"
    path.write_text(json.dumps(STRAIGHT))
    return str(path)


# ----------------------------------------------------------------------------- words


def test_aim_words_match_ghost_ball_geometry():
    xy = np.array([GHOST - 0.3 * _rot(AXIS, 30.0), SEVEN])
    for deg, fraction, words in ((0.0, 1.0, "full ball"), (14.4775, 0.75, "3/4 ball"), (30.0, 0.5, "1/2 ball"),
                                 (48.5904, 0.25, "1/4 ball"), (70.0, 1 - math.sin(math.radians(70)), "thin")):
        cue = GHOST - 0.3 * _rot(AXIS, deg)
        to_ghost = GHOST - cue
        heading = math.atan2(to_ghost[1], to_ghost[0])
        aim = W.aim(cue, heading, np.array([cue, xy[1]]), np.array([True, True]), 0, R)
        assert aim["ball"] == 1
        assert aim["cut_deg"] == pytest.approx(deg, abs=1e-6)
        assert aim["fraction"] == pytest.approx(fraction, abs=1e-4)
        assert aim["words"] == words
        assert np.allclose(aim["contact"], GHOST, atol=1e-9)
    # a line that passes more than 2R from every ball meets none
    miss = W.aim(SEVEN - 0.3 * AXIS, math.atan2(AXIS[1], AXIS[0]) + math.pi / 2, np.array([SEVEN - 0.3 * AXIS, SEVEN]),
                 np.array([True, True]), 0, R)
    assert miss["ball"] is None


def test_tip_words_follow_the_strike_conventions():
    # cuegym/physics/strike.py: a > 0 is the striker's right, b > 0 above centre (follow)
    assert W.tip(0.3, 0.4)["words"].startswith("follow 0.40 R, right side 0.30 R")
    assert W.tip(-0.2, -0.3)["words"].startswith("draw 0.30 R, left side 0.20 R")
    assert W.tip(0.0, 0.0)["words"].startswith("centre (stun), no side")
    assert "raised 10.0 deg" in W.tip(0.0, 0.0, math.radians(10))["words"]
    # right side deflects the cue ball to the left (counter-clockwise): the physics' squirt
    assert W.squirt(0.3, SPEC) > 0
    assert W.squirt(0.3, SPEC) == pytest.approx(float(squirt_angle(0.3, SPEC.ball_mass, SPEC.cue_endmass)))


def test_pace_bands_follow_the_physics():
    """A centre-ball stroke at the speed the pace model says travels half a table length
    stops about there in the simulator (stun, sliding then rolling; no cushion reached)."""
    from cuegym.physics import at_rest, make_shot, simulate

    soft, firm = W.pace_bands(SPEC)
    assert 0 < soft < firm
    assert W.pace(0.99 * soft, SPEC)["band"] == "soft"
    assert W.pace(1.01 * soft, SPEC)["band"] == "medium"
    assert W.pace(1.01 * firm, SPEC)["band"] == "firm"
    speed = soft / math.sqrt(2)  # travel is quadratic in speed: half of one table length
    xy = np.zeros((16, 2))
    xy[0] = [SPEC.width / 2, 0.5]
    on = np.zeros(16, bool)
    on[0] = True
    final, _, _ = simulate(get_table(TABLE), at_rest(xy, on), make_shot(0, math.pi / 2, speed))
    run = float(final.r[0, 1]) - 0.5
    assert run == pytest.approx(SPEC.length / 2, rel=0.05)


# ----------------------------------------------------------------------------- ranking


def test_straight_pot_ranked_first(straight):
    best = straight[0]
    assert best.action["call"] == {"ball": "7", "pocket": "FR"}
    assert best.aim["ball"] == "7"
    assert best.aim["words"] == "full ball"
    assert best.aim["cut_deg"] < W.cut_from_fraction(0.875)  # nearer full ball than 3/4
    assert best.probability >= 0.7
    assert best.noise_free["scored"] and best.noise_free["pocketed"].get("7") == "FR"
    # the 7 scores 7 points (RP-05), a foul costs the striker 10 net (RP-16): the expected net
    # points lie between those bounds weighted by the probability
    p = best.probability
    assert 7 * p - 10 * (1 - p) - 1e-9 <= best.expected_points <= 7 * p + 1e-9
    assert [s.rank for s in straight] == list(range(1, len(straight) + 1))
    assert all(a.value >= b.value for a, b in zip(straight, straight[1:]))


def test_action_is_a_shot_file_that_simulate_plays_alike(straight):
    """Each suggestion's action read as a shot file by ``cuegym simulate`` (its own
    validation and referee) pockets the same balls with the same clauses as the noise-free
    stroke reported."""
    from cuegym.positions import load_position, load_shot

    position = load_position(STRAIGHT)
    for s in straight:
        result = cli.simulate_position(position, load_shot(s.action, position))
        assert result["final"]["pocketed"] == s.noise_free["pocketed"]
        assert result["ruling"]["clauses"] == [c["id"] for c in s.noise_free["clauses"]]
        assert result["ruling"]["foul"] == s.noise_free["foul"]


def test_failure_ruling_names_catalogue_clauses(straight):
    for s in straight:
        if s.failure is None:
            continue
        assert 0 < s.failure["share"] <= 1 - s.probability + 1e-9
        for c in s.failure["clauses"]:
            assert c["title"] == get(c["id"]).title


def test_cut_words_match_closed_form_geometry():
    (best,) = coach.suggest(CUT30, top=1, noise=1.0, seed=0, budget=BUDGET)
    assert best.action["call"] == {"ball": "7", "pocket": "FR"}
    # the reported cut is the closed form of the reported stroke: the cue ball leaves at the
    # cue's heading turned by the physics' squirt; sin(cut) = (distance of the 7's centre
    # from that line) / 2R
    a = best.action
    heading = a["phi"] + float(squirt_angle(a["a"], SPEC.ball_mass, SPEC.cue_endmass))
    d = np.array([math.cos(heading), math.sin(heading)])
    w = SEVEN - np.asarray(CUT30["balls"]["cue"])
    lateral = abs(d[0] * w[1] - d[1] * w[0])
    assert best.aim["cut_deg"] == pytest.approx(math.degrees(math.asin(lateral / (2 * R))), abs=1e-6)
    # and the pot is the built half-ball cut, to within the throw the search corrects for
    assert abs(best.aim["cut_deg"] - 30.0) < 8.0
    assert best.aim["words"] == "1/2 ball"


def test_no_game_is_a_pot_shot_and_noise_zero_replays_alike():
    """A position without a game (cue ball and one object ball) is played as a pot shot;
    without noise every replay of a stroke is the same stroke."""
    from cuegym.positions import EXAMPLES_DIR

    out = coach.suggest(os.path.join(EXAMPLES_DIR, "pot-7.json"), top=2, noise=0.0, seed=0, budget=BUDGET)
    best = out[0]
    assert best.target == {"ball": "7", "pocket": "FR"}  # the example's straight pot
    assert best.probability in (0.0, 1.0) and best.probability == float(best.noise_free["scored"])
    assert best.failure is None or best.failure["share"] == 1.0
    assert best.cue_finish["scatter"] == [best.cue_finish["noise_free"]] * best.samples
    assert best.noise_free["clauses"] == []  # no referee


# ----------------------------------------------------------------------------- command line


def test_json_schema_and_text_agree(straight_file, capsys):
    code, out, err = _cli(["suggest", straight_file, *FLAGS, "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["schema"] == coach.SCHEMA
    assert doc["position"] == {"game": "russian-pyramid", "table": TABLE, "to_play": 0, "phase": "normal"}
    assert doc["budget"] == BUDGET and doc["seed"] == 0 and doc["noise"] == 1.0
    fields = {"rank", "action", "target", "aim", "pace", "tip", "probability", "samples", "expected_points", "value",
              "failure", "noise_free", "cue_finish", "paths"}
    assert doc["suggestions"]
    for s in doc["suggestions"]:
        assert set(s) == fields
        assert set(s["action"]) == {"cue_ball", "phi", "speed", "a", "b", "theta", "place", "call", "nominate",
                                       "choice"}
        assert 0 <= s["probability"] <= 1 and s["samples"] >= 1
        assert len(s["cue_finish"]["scatter"]) == round(s["samples"] * (1 - s["cue_finish"]["lost_share"]))
        assert s["pace"]["band"] == ("soft" if s["pace"]["speed"] < doc["pace_bands"]["soft_below"] else
                                     "medium" if s["pace"]["speed"] < doc["pace_bands"]["firm_from"] else "firm")
        assert "cue" in s["paths"]  # the struck ball moves
    code, text, err = _cli(["suggest", straight_file, *FLAGS], capsys)
    assert code == 0, err
    blocks = text.split("\n#")[1:]
    assert len(blocks) == len(doc["suggestions"])
    for block, s in zip(blocks, doc["suggestions"]):
        assert block.startswith(str(s["rank"]))
        assert f"{100 * s['probability']:.0f}% of {s['samples']}" in block
        assert f"{s['expected_points']:+.2f}" in block
        assert s["aim"]["words"] in block and s["pace"]["band"] in block
        if s["action"]["call"]:
            assert f"call {s['action']['call']['ball']} in {s['action']['call']['pocket']}" in block


def test_same_seed_same_bytes(straight_file, tmp_path, capsys):
    outs = []
    for k in range(2):
        pic = tmp_path / f"s{k}.svg"
        code, out, err = _cli(["suggest", straight_file, *FLAGS, "--seed", "7", "--json", "-o", str(pic)], capsys)
        assert code == 0, err
        outs.append((out, pic.read_bytes()))
    assert outs[0] == outs[1]


def _png_size(data: bytes):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    w, h, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert zlib.crc32(data[12:29]) & 0xFFFFFFFF == struct.unpack(">I", data[29:33])[0]
    return w, h, depth, colour


@pytest.mark.parametrize("ext", ["svg", "png", "html"])
def test_picture_files(ext, straight, straight_file, tmp_path, capsys):
    from cuegym.envs.render import frame
    from cuegym.positions import load_position

    path = tmp_path / f"out.{ext}"
    data = coach.picture(load_position(STRAIGHT), straight, ext)
    k = len(straight)
    fr = frame(TABLE, coach.PICTURE_WIDTH)
    if ext == "svg":
        root = ET.fromstring(data)
        ns = "{http://www.w3.org/2000/svg}"
        panels = [e for e in root.iter(f"{ns}svg") if e.get("class") == "suggestion"]
        assert len(panels) == k
        assert len([e for e in root.iter(f"{ns}circle") if e.get("class") == "finish"]) == \
            sum(len(s.cue_finish["scatter"]) for s in straight)
        assert len([e for e in root.iter(f"{ns}circle") if e.get("class") == "target"]) == \
            sum(s.target is not None for s in straight)
    elif ext == "png":
        w, h, depth, colour = _png_size(data)
        assert (w, h, depth, colour) == (k * fr.width + (k - 1) * 12, fr.height, 8, 2)
        # the image data inflates to one filter byte and W RGB triples per row
        idat = data[33:]
        n = struct.unpack(">I", idat[:4])[0]
        assert len(zlib.decompress(idat[8:8 + n])) == h * (1 + 3 * w)
    else:
        page = data.decode()
        assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "<table>" in page
        assert page.count("<tr>") == k + 1
    # the command writes the same bytes
    code, _, err = _cli(["suggest", straight_file, *FLAGS, "-o", str(path)], capsys)
    assert code == 0, err
    assert path.read_bytes() == data
    assert sorted(os.listdir(tmp_path)) == sorted(["out." + ext, "straight.json"])  # no temporary left


# ----------------------------------------------------------------------------- bad input


def _bad(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


BAD = [
    ("missing file", lambda t: ["suggest", str(t / "nope.json")], "no such file"),
    ("bad JSON", lambda t: ["suggest", _bad(t, "b.json", "{\"table\": ")], "not valid JSON"),
    ("unknown table", lambda t: ["suggest", _bad(t, "t.json", json.dumps({**STRAIGHT, "table": "pyramid-99ft"}))],
     "table"),
    ("unknown game", lambda t: ["suggest", _bad(t, "g.json", json.dumps({**STRAIGHT, "game": "bowls"}))], "game"),
    ("game without env", lambda t: ["suggest", _bad(t, "gf.json", json.dumps(
        {"game": "golf", "table": TABLE, "balls": {"cue": [0.5, 0.5], "1": [1.0, 2.0]}}))], "game"),
    ("no game, three balls", lambda t: ["suggest", _bad(t, "n.json", json.dumps(
        {"table": TABLE, "balls": {"cue": [0.5, 0.5], "1": [1.0, 2.0], "2": [1.2, 2.5]}}))], "game"),
    ("lag phase", lambda t: ["suggest", _bad(t, "l.json", json.dumps({**STRAIGHT, "state": {"phase": "lag"}}))],
     "state.phase"),
    ("top 0", lambda t: ["suggest", _bad(t, "p.json", json.dumps(STRAIGHT)), "--top", "0"], "--top"),
    ("noise -1", lambda t: ["suggest", _bad(t, "p.json", json.dumps(STRAIGHT)), "--noise", "-1"], "--noise"),
    ("unknown extension", lambda t: ["suggest", _bad(t, "p.json", json.dumps(STRAIGHT)), "-o", str(t / "x.jpg")], "-o"),
    ("unwritable -o", lambda t: ["suggest", _bad(t, "p.json", json.dumps(STRAIGHT)), "-o",
                                 os.path.join(_bad(t, "afile", ""), "x.svg")], "-o"),
]


@pytest.mark.parametrize("name,argv,field", BAD, ids=[b[0] for b in BAD])
def test_bad_input(name, argv, field, tmp_path, capsys):
    before = set(os.listdir(tmp_path))
    args = argv(tmp_path)
    made = set(os.listdir(tmp_path)) - before
    code, out, err = _cli([*args, *FLAGS, "-o", str(tmp_path / "pic.svg")] if "-o" not in args else [*args, *FLAGS],
                          capsys)
    assert code == 2
    assert err.startswith("error: ") and field in err, err
    assert len(err.strip().splitlines()) == 1
    assert out == ""
    assert set(os.listdir(tmp_path)) == before | made  # no picture, no temporary file
