"""The ``cuegym`` command line, end to end.

Compilation dominates the run time (seconds per ball count): the examples use three ball
counts (2, 16, 22), every other simulation here reuses one of them, the three example runs
start together, and JAX's persistent cache (tests/conftest.py, cuegym._cache) keeps reruns
fast.
"""

import json
import os
import subprocess
import sys
import types

import pytest

from cuegym.envs.registry import GAMES
from cuegym.physics import CUSHIONS, KIND_NAMES, POCKETS
from cuegym.positions import EXAMPLES_DIR, load_position
from cuegym.tools import cli

EXAMPLES = {
    "pot-7": ("pot-7.json", "pot-7-shot.json"),
    "break": ("break-russian-pyramid.json", "break-shot.json"),
    "snooker": ("snooker-break.json", "snooker-break-shot.json"),
    "golf": ("golf-opening.json", "golf-opening-shot.json"),
}
TIMEOUT = 600


def ex(name):
    return os.path.join(EXAMPLES_DIR, name)


def command(*args, module="cuegym"):
    return [sys.executable, "-m", module, *args]


def run(*args, module="cuegym"):
    return subprocess.run(command(*args, module=module), capture_output=True, text=True, timeout=TIMEOUT)


@pytest.fixture(scope="module")
def example_runs():
    """stdout, stderr and exit status of ``cuegym simulate`` on each example, run at once."""
    procs = {
        key: subprocess.Popen(
            command("simulate", ex(p), "--shot", ex(s)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for key, (p, s) in EXAMPLES.items()
    }
    out = {}
    for key, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=TIMEOUT)
        out[key] = (stdout, stderr, proc.returncode)
    return out


def is_rounded(x):
    return round(x, 6) == x


def check_result(result, position):
    """The structure every ``cuegym simulate`` result must have."""
    ids = set(position.balls)
    events = result["events"]
    assert events[0]["kind"] == "strike" and events[0]["t"] == 0.0
    assert events[0]["balls"] == [result["shot"]["cue_ball"]]
    times = [e["t"] for e in events]
    assert times == sorted(times)
    for e in events:
        assert e["kind"] in KIND_NAMES[1:]
        assert set(e["balls"]) <= ids and len(e["balls"]) == (2 if e["kind"] == "ball" else 1)
        assert list(e["pos"]) == e["balls"] and list(e["vel"]) == e["balls"]
        for i in e["balls"]:
            assert len(e["pos"][i]) == 2 and len(e["vel"][i]) == 2
            assert all(is_rounded(x) for x in e["pos"][i] + e["vel"][i])
        assert is_rounded(e["t"])
        if e["kind"] == "cushion":
            assert e["cushion"] in CUSHIONS
        if e["kind"] in ("jaw", "pocket"):
            assert e["pocket"] in POCKETS
        assert ("cushion" in e) == (e["kind"] == "cushion")
        assert ("pocket" in e) == (e["kind"] in ("jaw", "pocket"))
    final = result["final"]
    on, pocketed, off = set(final["balls"]), set(final["pocketed"]), set(final["off_table"])
    assert on | pocketed | off == ids and len(on) + len(pocketed) + len(off) == len(ids)
    assert set(final["pocketed"].values()) <= set(POCKETS)
    assert isinstance(result["truncated"], bool)
    nxt = result["next"]
    assert nxt["table"] == position.table and nxt.get("game") == position.game
    assert nxt["balls"] == final["balls"]
    return load_position(nxt)  # the next position is a valid position


@pytest.mark.parametrize("key", list(EXAMPLES))
def test_simulate_examples(example_runs, key):
    stdout, stderr, code = example_runs[key]
    assert code == 0, stderr
    assert "Traceback" not in stderr
    result = json.loads(stdout)
    position = load_position(ex(EXAMPLES[key][0]))
    check_result(result, position)


def test_pot_7_goes_in(example_runs):
    result = json.loads(example_runs["pot-7"][0])
    assert result["final"]["pocketed"] == {"7": "FR"}
    assert [e["pocket"] for e in result["events"] if e["kind"] == "pocket"] == ["FR"]
    assert result["shot"]["call"] == {"ball": "7", "pocket": "FR"}  # declarations carried through
    assert "game" not in result["next"] and list(result["next"]["balls"]) == ["cue"]


def test_break_hits_the_apex_first(example_runs):
    result = json.loads(example_runs["break"][0])
    first = next(e for e in result["events"] if e["kind"] == "ball")
    assert first["balls"] == ["cue", "4"]
    assert result["next"]["game"] == "russian-pyramid"


def test_golf_position_gets_a_golf_ruling(example_runs):
    """A golf position is judged by the golf referee: the opening stroke's ruling and state."""
    result = json.loads(example_runs["golf"][0])
    ruling = result["ruling"]
    assert not ruling["foul"] and ruling["points"] == [1, 0] and ruling["scores"] == [1, 0]
    assert "GF-09" in ruling["clauses"] and ruling["strokes"] == [1, 0] and ruling["pocket"] == 1
    state = result["next"]["state"]
    assert state["phase"] == "normal" and state["strokes"] == [1, 0] and state["num_players"] == 2


def test_golf_pretty(capsys):
    code = cli.main(["simulate", ex("golf-opening.json"), "--shot", ex("golf-opening-shot.json"), "--pretty"])
    out = capsys.readouterr().out
    assert code == 0 and "ruling: no foul" in out and "GF-09" in out


@pytest.mark.parametrize("game", list(GAMES))
def test_every_registry_game_is_judged_or_refused(capsys, game):
    """Every game id is judged by its referee, or refused with exit 2 naming ``game``."""
    from cuegym.positions import judging

    g = GAMES[game]
    data = {"game": game, "table": g.table, "balls": {(g.balls or ("cue",))[0]: [0.875, 0.5]}}
    if g.family == "drill":
        code = cli.main(["simulate", json.dumps(data), "--shot", '{"speed": 1}'])
        captured = capsys.readouterr()
        assert code == 2 and captured.out == ""
        assert_one_error(captured.err, "game")
    else:
        assert judging.judged(game)
        position = load_position(data)
        assert judging.files_for(game) is judging.FAMILY[g.family]
        assert judging.referee(position) is g.referee
        assert judging.read_state(position) is not None


def test_next_position_chains(example_runs, tmp_path):
    """The break's next position, written to a file, is simulated again."""
    result = json.loads(example_runs["break"][0])
    f = tmp_path / "next.json"
    f.write_text(json.dumps(result["next"]))
    balls = result["next"]["balls"]
    assert result["next"]["state"]["strokes"] == 1  # the referee state travels with it
    assert result["next"]["state"]["phase"] == "normal"  # the example break keeps the cue ball up
    cue = "cue" if "cue" in balls else next(iter(balls))
    call = {"ball": min((b for b in balls if b != "cue"), key=int), "pocket": "FR"}  # RP-08: always a call
    shot = {"cue_ball": cue, "phi": 0.3, "speed": 2.0, "b": 0.1, "call": call}
    proc = run("simulate", str(f), "--shot", json.dumps(shot), module="cuegym.tools.cli")
    assert proc.returncode == 0, proc.stderr
    second = json.loads(proc.stdout)
    check_result(second, load_position(str(f)))
    assert second["events"][0]["balls"] == [cue]
    assert second["next"]["state"]["strokes"] == 2 and "ruling" in second


def test_pretty(capsys):
    code = cli.main(["simulate", ex("pot-7.json"), "--shot", ex("pot-7-shot.json"), "--pretty"])
    out = capsys.readouterr().out
    assert code == 0
    assert "strike" in out and "pocketed: 7 in FR" in out and "pyramid-12ft" in out
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)


def test_max_events_truncates(capsys):
    code = cli.main(["simulate", ex("pot-7.json"), "--shot", ex("pot-7-shot.json"), "--max-events", "3"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    assert result["truncated"] is True
    assert len(result["events"]) == 4  # the strike and 3 more
    check_result(result, load_position(ex("pot-7.json")))


# ----------------------------------------------------------------------------- bad input


def assert_one_error(stderr, field):
    assert "Traceback" not in stderr
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, stderr
    assert f"{field}: " in errors[0], stderr
    return errors[0]


def test_bad_position_file_exits_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"table": "pyramid-12ft", "balls": {"cue": [0.5, 0.5], "7": [0.5, 0.52]}}))
    script = os.path.join(os.path.dirname(sys.executable), "cuegym")
    args = ["simulate", str(bad), "--shot", ex("pot-7-shot.json")]
    proc = subprocess.run([script, *args] if os.path.exists(script) else command(*args),
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 2 and proc.stdout == ""
    line = assert_one_error(proc.stderr, "balls.7")
    assert str(bad) in line and "overlaps ball 'cue'" in line


def test_bad_inline_shot_exits_2():
    proc = run("simulate", ex("pot-7.json"), "--shot", '{"speed": 2,}')
    assert proc.returncode == 2 and proc.stdout == ""
    assert "not valid JSON" in assert_one_error(proc.stderr, "shot")


@pytest.mark.parametrize(
    "position, shot, field",
    [
        ('{"table": "pyramid-13ft", "balls": {}}', '{"speed": 1}', "table"),
        ('{"game": "russian-pyramid", "table": "pyramid-12ft", "balls": {"16": [0.5, 0.5]}}', '{"speed": 1}', "balls.16"),
        ('{"table": "pyramid-12ft", "balls": {"cue": [0.5, "x"]}}', '{"speed": 1}', "balls.cue"),
        ('{"table": "pyramid-12ft", "balls": {"cue": [0.5, 5.0]}}', '{"speed": 1}', "balls.cue"),
        (ex("pot-7.json"), '{"speed": 11}', "shot.speed"),
        (ex("pot-7.json"), '{"speed": 1, "cue_ball": "8"}', "shot.cue_ball"),
        (ex("pot-7.json"), '{"phi": 1}', "shot.speed"),
        (ex("pot-7.json"), "no-such-shot.json", "no-such-shot.json"),
    ],
)
def test_bad_input_in_process(capsys, position, shot, field):
    code = cli.main(["simulate", position, "--shot", shot])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert_one_error(captured.err, field)


def test_bad_arguments_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["simulate", ex("pot-7.json"), "--shot", ex("pot-7-shot.json"), "--max-events", "0"])
    assert info.value.code == 2
    assert "--max-events" in capsys.readouterr().err


# ----------------------------------------------------------------------------- bench, cache


def test_bench_is_forwarded(monkeypatch):
    seen = []
    fake = types.ModuleType("cuegym.tools.bench")
    fake.main = lambda argv: seen.append(argv) or 0
    monkeypatch.setitem(sys.modules, "cuegym.tools.bench", fake)
    assert cli.main(["bench", "--table", "pyramid-12ft", "--batch", "8", "--json"]) == 0
    assert seen == [["--table", "pyramid-12ft", "--batch", "8", "--json"]]


def test_cache_dir_from_environment(monkeypatch, tmp_path):
    import jax

    from cuegym._cache import enable_compilation_cache

    before = jax.config.jax_compilation_cache_dir
    monkeypatch.setenv("CUEGYM_CACHE_DIR", str(tmp_path / "cache"))
    try:
        assert enable_compilation_cache() == str(tmp_path / "cache")
        assert jax.config.jax_compilation_cache_dir == str(tmp_path / "cache")
        assert jax.config.jax_persistent_cache_min_compile_time_secs == 0
    finally:
        jax.config.update("jax_compilation_cache_dir", before)
