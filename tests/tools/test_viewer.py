"""The replay viewer (cuegym.tools.viewer) and ``cuegym play`` / ``cuegym view`` (cuegym.tools.replay).

One short frame is played once per module (ghost v random on Russian pyramid, 4 decisions:
the 16-ball programs every Russian-pyramid test compiles), then checked against
independent truth: the rulebook catalogue for the clause titles, the start layouts for the
paths, the table's geometry, and the simulate command's event log for the paths rebuilt from
it. The page itself is opened in headless Chromium (installed by scripts/install_chromium.sh
where it is absent and we are root; the test fails, never skips, when no Chromium can be
had): the animation must advance, the ruling must be on the page, and a screenshot is kept.
"""

import html
import json
import math
import os
import re
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

from cuegym.physics import get_spec, get_table
from cuegym.physics.strike import SHOT_LIMITS
from cuegym.positions import EXAMPLES_DIR, load_position, load_shot
from cuegym.rules.catalogue import get as clause
from cuegym.tools import cli, strokes, viewer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GAME = "cuegym/RussianPyramid-v0"
TABLE = "pyramid-12ft"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars")
WINDOW = (1280, 900)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """``cuegym play`` end to end: (document, page path, page text)."""
    out = tmp_path_factory.mktemp("play")
    page, doc = out / "frame.html", out / "frame.json"
    rc = cli.main(["play", "--game", GAME, "--agents", "ghost,random", "--max-shots", "4", "--seed", "0",
                   "-o", str(page), "--json", str(doc)])
    assert rc == 0
    return json.loads(doc.read_text()), page, page.read_text()


# ----------------------------------------------------------------------------- document


def test_play_document(played):
    doc = played[0]
    spec = get_spec(TABLE)
    r = spec.ball_radius
    assert (doc["format"], doc["kind"], doc["table"]) == (1, "frame", TABLE)
    assert doc["balls"][0]["id"] == "cue" and len(doc["balls"]) == 16
    assert [p["agent"] for p in doc["players"]] == ["ghost", "random"]
    assert 1 <= len(doc["shots"]) <= 4
    scores = [0, 0]
    for s in doc["shots"]:
        xy, on = np.array(s["start"]["xy"]), s["start"]["on"]
        assert xy.shape == (16, 2) and len(on) == 16 and len(s["paths"]) == 16
        assert s["agent"] == ("ghost", "random")[s["player"]]
        for i, p in enumerate(s["paths"]):
            assert bool(p) == on[i]
            if not p:
                continue
            p = np.array(p)
            assert p[0, 0] == 0.0 and np.allclose(p[0, 1:], xy[i], atol=1e-5)  # every path leaves its start
            assert np.all(np.diff(p[:, 0]) >= 0) and p[-1, 0] <= s["duration"] + 1e-9
            if s["end_on"][i]:  # at rest on the bed, inside the cushion noses
                assert p[-1, 1] - r >= -1e-4 and p[-1, 1] + r <= spec.width + 1e-4
                assert p[-1, 2] - r >= -1e-4 and p[-1, 2] + r <= spec.length + 1e-4
            else:  # dropped into a pocket: the path ends at a pocket
                pockets = np.asarray(get_table(TABLE).pocket_xy)
                assert np.min(np.hypot(*(pockets - p[-1, 1:]).T)) < 0.2
        shot = s["shot"]
        assert shot is not None and on[shot["cue_ball"]]
        for name in ("phi", "speed", "a", "b", "theta"):
            lo, hi = (float(v) for v in SHOT_LIMITS[name])
            assert lo <= shot[name] <= hi
        # the ruling's clauses carry the catalogue's titles; the scores add up the points
        ruling = s["ruling"]
        assert ruling["clauses"] and all(title == clause(cid).title for cid, title in ruling["clauses"])
        if ruling["foul"]:  # the striker fouled; RP-16: offender loses 5 points, opponent gains 5
            assert ruling["fouler"] == s["player"]
            if "RP-16" in [cid for cid, _ in ruling["clauses"]]:
                assert ruling["points"][s["player"]] == -5 and ruling["points"][1 - s["player"]] == 5
        scores = [a + b for a, b in zip(scores, ruling["points"])]
        assert ruling["scores"] == scores
        # the aimed stroke: the same ball, close to the stroke played (execution noise is small)
        (aim,) = s["suggestions"]
        assert aim["shot"]["cue_ball"] == shot["cue_ball"]
        assert abs(math.remainder(aim["shot"]["phi"] - shot["phi"], 2 * math.pi)) < 0.1
        assert aim["paths"][shot["cue_ball"]][0][1:] == s["paths"][shot["cue_ball"]][0][1:]
    assert doc["result"]["frames"][0]["scores"] == scores


def test_thin_keeps_the_path_within_tolerance():
    t = np.linspace(0.0, 2.0, 400)
    arc = np.stack([t, np.cos(t), np.sin(t)], 1)  # a unit circle walked at 1 m/s
    kept = strokes.thin(arc, tol=1e-3)
    assert 2 < len(kept) < 100 and np.array_equal(kept[[0, -1]], arc[[0, -1]])
    assert all(any(np.array_equal(k, a) for a in arc) for k in kept)  # a subset of the samples
    guess = np.stack([np.interp(t, kept[:, 0], kept[:, c]) for c in (1, 2)], 1)
    assert np.max(np.hypot(*(guess - arc[:, 1:]).T)) <= 1e-3
    # a chord of a circle of radius 1 strays (1 - cos(h / 2)) from the arc: over 1e-3 for h > 0.0894
    assert np.max(np.diff(kept[:, 0])) <= 2 * math.acos(1 - 1e-3) + 2 * (t[1] - t[0])
    line = np.stack([t, 3 * t, -t], 1)
    assert len(strokes.thin(line)) == 2


def test_timed_paths_straight_stroke():
    """A cue ball struck centrally with a level cue runs straight along phi; a ball out of
    its way keeps one sample where it lies."""
    spec = get_spec(TABLE)
    xy = np.zeros((16, 2))
    xy[0] = (spec.width / 2, 0.6)
    xy[1] = (0.3, 3.0)
    on = np.zeros(16, bool)
    on[:2] = True
    paths, end_on, duration = strokes.timed_paths(TABLE, xy, on, [0, math.pi / 2, 0.5, 0.0, 0.0, 0.0])
    p = paths[0]
    assert paths[1].tolist() == [[0.0, 0.3, 3.0]] and all(len(q) == 0 for q in paths[2:])
    assert end_on.tolist() == [True, True] + [False] * 14
    assert np.allclose(p[:, 1], spec.width / 2, atol=1e-9)
    assert np.all(np.diff(p[:, 0]) > 0) and np.all(np.diff(p[:, 2]) >= 0) and 0.7 < p[-1, 2] < spec.length - spec.ball_radius
    assert p[-1, 0] == pytest.approx(duration)


# ----------------------------------------------------------------------------- other documents


@pytest.fixture(scope="module")
def simulated():
    position = load_position(os.path.join(EXAMPLES_DIR, "break-russian-pyramid.json"))
    shot = load_shot(os.path.join(EXAMPLES_DIR, "break-shot.json"), position)
    return position, cli.simulate_position(position, shot)


def test_simulate_result_opens(simulated):
    position, result = simulated
    doc = viewer.normalize(result)  # a simulate result is recognised and converted
    assert doc["kind"] == "simulate" and [b["id"] for b in doc["balls"]] == list(position.ids)
    (s,) = doc["shots"]
    assert np.allclose(s["start"]["xy"], position.xy(), atol=1e-5)
    # the rebuilt paths pass through every event of the log ...
    idx = {b: k for k, b in enumerate(position.ids)}
    for e in result["events"]:
        for b in e["balls"]:
            p = np.array(s["paths"][idx[b]])
            at = [np.interp(e["t"], p[:, 0], p[:, c]) for c in (1, 2)]
            assert np.hypot(at[0] - e["pos"][b][0], at[1] - e["pos"][b][1]) < 1e-3
    # ... and follow the simulator's own motion between them (closed-form evolution)
    shot6 = [0, *(s["shot"][k] for k in ("phi", "speed", "a", "b", "theta"))]
    truth, end_on, _ = strokes.timed_paths(TABLE, position.xy(), position.on_table(), shot6)
    for i, q in enumerate(truth):
        p = np.array(s["paths"][i])
        guess = np.stack([np.interp(q[:, 0], p[:, 0], p[:, c]) for c in (1, 2)], 1)
        assert np.max(np.hypot(*(guess - q[:, 1:]).T)) < 3e-3
    assert s["end_on"] == [b in result["final"]["balls"] for b in position.ids] == list(end_on)
    assert [c[0] for c in s["ruling"]["clauses"]] == result["ruling"]["clauses"]
    assert all(title == clause(cid).title for cid, title in s["ruling"]["clauses"])
    assert "<svg" in viewer.page(result)


def test_suggest_document_opens():
    """What the coach needs to write: kind "suggest", the start layout and timed or untimed
    suggestion paths; the balls' names and colours are filled in."""
    xy = [[0.8, 0.6], [0.9, 2.6], [0.3, 3.0]]
    doc = {"format": 1, "kind": "suggest", "table": TABLE, "shots": [{
        "start": {"xy": xy, "on": [True, True, True]},
        "suggestions": [
            {"label": "pot 1 in the far right corner", "value": 0.7, "success": 0.55,
             "shot": {"cue_ball": 0, "phi": 1.5, "speed": 3.0, "a": 0, "b": 0.2, "theta": 0},
             "paths": [[[0, 0.8, 0.6], [0.8, 0.88, 2.55]], [[0, 0.9, 2.6], [0.5, 1.2, 3.3]], [[0, 0.3, 3.0]]]},
            {"label": "safety", "paths": [[[0.8, 0.6], [0.5, 2.0]], [[0.9, 2.6]], [[0.3, 3.0]]]}]}]}
    out = viewer.normalize(doc)
    (s,) = out["shots"]
    assert [g["timed"] for g in s["suggestions"]] == [True, False]
    assert s["duration"] == 0.0 and [b["id"] for b in out["balls"]] == ["cue", "1", "2"]
    assert s["paths"] == [[[0.0, *p]] for p in xy]  # nothing played: the layout at rest
    text = viewer.page(doc)
    assert "pot 1 in the far right corner" in text and _external(text) == []


def _report(place):
    """A ``cuegym suggest --json`` report (schema cuegym.suggest/1, docs/coach.md) with one
    suggestion: the cue ball straight up the table at 0.5 m/s."""
    return {"schema": "cuegym.suggest/1", "noise": 1.0, "seed": 0,
            "position": {"game": "russian-pyramid", "table": TABLE, "to_play": 1, "phase": "in_hand_house"},
            "suggestions": [{"rank": 1, "action": {"cue_ball": "cue", "phi": math.pi / 2, "speed": 0.5, "a": 0.0,
                                                   "b": 0.0, "theta": 0.0, "place": place, "call": None,
                                                   "choice": None},
                             "target": None, "aim": {"words": "straight"}, "pace": {"band": "soft"},
                             "tip": {"words": "centre, cue level"}, "probability": 0.0, "expected_points": 0.0,
                             "value": -0.5, "paths": {"cue": [[0.5, 0.4], [0.5, 1.2]]}}]}


def test_suggest_report_opens():
    """A coach report opens alone (the balls that moved, paths drawn only) and with its
    position (every ball, the stroke re-simulated from the ball in hand's place: timed)."""
    alone = viewer.normalize(_report([0.5, 0.4]))
    assert alone["kind"] == "suggest" and [b["id"] for b in alone["balls"]] == ["cue"]
    (g,) = alone["shots"][0]["suggestions"]
    assert g["paths"] == [[[0.5, 0.4], [0.5, 1.2]]] and not g["timed"] and g["success"] == 0.0
    position = load_position(os.path.join(EXAMPLES_DIR, "break-russian-pyramid.json"))
    doc = viewer.normalize(viewer.from_suggest(_report([0.5, 0.4]), position))
    (s,) = doc["shots"]
    assert s["player"] == 1 and [b["id"] for b in doc["balls"]] == list(position.ids)
    assert np.allclose(s["start"]["xy"], position.xy())  # the layout asked about, cue ball where it was
    (g,) = s["suggestions"]
    cue = np.array(g["paths"][0])
    assert g["timed"] and cue[0].tolist() == [0.0, 0.5, 0.4] and np.allclose(cue[:, 1], 0.5, atol=1e-9)
    rest = g["paths"][1:]  # the pyramid is out of the cue ball's way: one sample each, where it lies
    assert all(len(p) == 1 and p[0][0] == 0.0 for p in rest)
    assert np.allclose([p[0][1:] for p in rest], position.xy()[1:], atol=1e-5)
    assert _external(viewer.page(doc)) == []


def _external(text: str) -> list:
    """Anything in a page that would load from elsewhere."""
    pats = (r"https?:", r"//[a-z0-9.-]+\.[a-z]{2,}", r"<[a-z]+[^>]*\s(?:src|href|xlink:href)\s*=", r"<link\b", r"@import",
            r"url\(", r"<iframe", r"fetch\(", r"XMLHttpRequest")
    return [m.group(0) for p in pats for m in re.finditer(p, text, re.I)]


def test_page_is_self_contained(played):
    doc, _, text = played
    assert _external(text) == []
    assert text.startswith("<!DOCTYPE html>") and "<svg" in text and "<script>" in text
    assert "</script" not in text.split('id="doc">', 1)[1].split("</script>", 1)[0]  # the JSON cannot end its script
    assert viewer.page(doc) == text


# ----------------------------------------------------------------------------- bad input


def _bad_doc(doc, how):
    doc = json.loads(json.dumps(doc))
    how(doc)
    return doc


BAD_PLAY = [
    (["--agents", "ghost,bogus"], "agents"),
    (["--agents", "ghost,random,search"], "agents"),
    (["--frames", "0"], "frames"),
    (["--max-shots", "x"], "max_shots"),
    (["--noise", "-1"], "noise"),
    (["--seed", "1.5"], "seed"),
    (["--game", "cuegym/Nope-v0"], "game"),
]


@pytest.mark.parametrize("extra,field", BAD_PLAY, ids=[f for _, f in BAD_PLAY])
def test_play_bad_input(tmp_path, capsys, extra, field):
    out = tmp_path / "frame.html"
    argv = ["play", "--game", GAME, "-o", str(out), *extra]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {field}:") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # no output, no temporary file


def test_play_bad_output_folder(tmp_path, capsys):
    assert cli.main(["play", "--game", GAME, "-o", str(tmp_path / "no" / "f.html")]) == 2
    assert capsys.readouterr().err.startswith("error: output:")
    assert list(tmp_path.iterdir()) == []


BAD_DOCS = [
    (lambda d: d.pop("shots"), "shots"),
    (lambda d: d.update(format=2), "format"),
    (lambda d: d.update(kind="movie"), "kind"),
    (lambda d: d.update(table="pool-7ft"), "table"),
    (lambda d: d["balls"][3].update(color="ivory"), "balls[3].color"),
    (lambda d: d["shots"][0]["start"]["xy"].pop(), "shots[0].start.xy"),
    (lambda d: d["shots"][0]["paths"][0][0].__setitem__(1, None), "shots[0].paths[0][0]"),
    (lambda d: d["shots"][0]["paths"][0].reverse(), "shots[0].paths[0][1]"),
    (lambda d: d["shots"][0]["shot"].update(cue_ball=16), "shots[0].shot.cue_ball"),
    (lambda d: d["shots"][0]["ruling"]["clauses"].append("XX-99"), "shots[0].ruling.clauses"),
    (lambda d: d["shots"][0]["suggestions"][0].update(paths=[]), "shots[0].suggestions[0].paths"),
]


@pytest.mark.parametrize("how,field", BAD_DOCS, ids=[f for _, f in BAD_DOCS])
def test_view_bad_document(played, tmp_path, capsys, how, field):
    src = tmp_path / "doc.json"
    src.write_text(json.dumps(_bad_doc(played[0], how)))
    out = tmp_path / "doc.html"
    assert cli.main(["view", str(src), "-o", str(out)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {field}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.json"]


def test_view_position_needs_a_report(played, tmp_path, capsys):
    src = tmp_path / "doc.json"
    src.write_text(json.dumps(played[0]))
    pos = os.path.join(EXAMPLES_DIR, "break-russian-pyramid.json")
    assert cli.main(["view", str(src), "--position", pos, "-o", str(tmp_path / "doc.html")]) == 2
    assert capsys.readouterr().err.startswith("error: position:")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.json"]


def test_view_not_json(tmp_path, capsys):
    src = tmp_path / "doc.json"
    src.write_text("{not json")
    assert cli.main(["view", str(src), "-o", str(tmp_path / "doc.html")]) == 2
    assert capsys.readouterr().err.startswith("error: document:")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.json"]


def test_view_writes_the_same_page(played, tmp_path):
    src = tmp_path / "doc.json"
    src.write_text(json.dumps(played[0]))
    assert cli.main(["view", str(src), "-o", str(tmp_path / "doc.html")]) == 0
    assert (tmp_path / "doc.html").read_text() == played[2]


# ----------------------------------------------------------------------------- browser


def find_chromium():
    """The Chromium executable, installing it (scripts/install_chromium.sh) when it is
    absent and we are root; None when none can be had."""
    def look():
        for name in ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"):
            path = shutil.which(name)
            if path:
                return path
        return None

    path = look()
    if path is None and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "install_chromium.sh")], capture_output=True,
                       timeout=1800)
        path = look()
    return path


@pytest.fixture(scope="module")
def chromium():
    path = find_chromium()
    if path is None:
        pytest.fail("no Chromium: install the Debian package 'chromium' (scripts/install_chromium.sh, as root)")
    return path


def browse(chromium, url: str, *args: str, budget_ms: int = 3000) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                               f"--virtual-time-budget={budget_ms}", *args, url],
                              capture_output=True, text=True, timeout=120)


def _body(dom: str) -> dict:
    tag = re.search(r"<body([^>]*)>", dom).group(1)
    return dict(re.findall(r'data-([a-z]+)="([^"]*)"', tag))


def _section(dom: str, name: str) -> str:
    inner = re.search(rf'<section id="{name}"[^>]*>(.*?)</section>', dom, re.S).group(1)
    return html.unescape(re.sub(r"<[^>]+>", " ", inner))


def test_page_animates_in_chromium(played, chromium):
    doc, page, _ = played
    url = page.as_uri()
    run = browse(chromium, url, "--dump-dom")
    assert run.returncode == 0, run.stderr[-2000:]
    state = _body(run.stdout)
    assert state["ready"] == "1"
    k = int(state["shot"])  # 3 s of virtual time: into the first stroke, or on to a later one
    assert k > 0 or float(state["t"]) > 0.5
    ruling = _section(run.stdout, "ruling")
    for cid, _ in doc["shots"][k]["ruling"]["clauses"]:
        assert f"{cid} {clause(cid).title}" in " ".join(ruling.split())
    assert ("FOUL" in ruling) == doc["shots"][k]["ruling"]["foul"]
    # a later stroke from the URL fragment, paused: the page shows it and stays still
    last = len(doc["shots"]) - 1
    run = browse(chromium, f"{url}#shot={last}&t=0.5&paused=1", "--dump-dom", budget_ms=1000)
    state = _body(run.stdout)
    assert (state["shot"], state["t"], state["playing"]) == (str(last), "0.500", "0")
    board = _section(run.stdout, "scoreboard")
    assert f"stroke {last + 1} of {len(doc['shots'])}" in board


def test_page_screenshot(played, chromium, tmp_path):
    doc, page, _ = played
    # the stroke that moves the most balls, 60 % through, with the aimed stroke overlaid
    k = int(np.argmax([sum(len(p) > 1 for p in s["paths"]) for s in doc["shots"]]))
    shot = tmp_path / "viewer.png"
    t = doc["shots"][k]["duration"] * 0.6
    run = browse(chromium, f"{page.as_uri()}#shot={k}&t={t:.2f}&paused=1&suggest=1", f"--screenshot={shot}",
                 "--window-size={},{}".format(*WINDOW), budget_ms=1500)
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) == WINDOW
    assert len(data) > 20_000  # a drawn table and panel, not a blank page
    keep = os.path.join(ROOT, "results", "viewer_screenshot.png")
    if not os.path.exists(keep) and os.path.isdir(os.path.dirname(keep)):
        shutil.copyfile(shot, keep)
