"""``cuegym check-determinism`` (cuegym.tools.determinism), run in-process through cli.main.

Cheap by construction: PotShot-v0 and Lag-v0 (2 and 1 balls), the single env and a vector
env of one (the same compiled program), 20 steps; the malformed-input cases stop before
any rollout. The hashes are checked against tests/env_api.py's independent
``rollout_hash``; the mismatch reports against the place a test tampered with."""

import contextlib
import copy
import io
import json
import os

import env_api
import numpy as np
import pytest

from cuegym.tools import cli
from cuegym.tools import determinism as D
from cuegym.tools import determinism_compare as C
from cuegym.tools import determinism_golden as G
from cuegym.tools import determinism_rollout as R

IDS = ("cuegym/PotShot-v0", "cuegym/Lag-v0")
SEEDS = (0, 1)
STEPS = 20


def main(*argv):
    """(exit status, stdout, stderr) of ``cuegym check-determinism ARGV``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["check-determinism", *argv])
    return code, out.getvalue(), err.getvalue()


def env_args(ids=IDS):
    return [a for i in ids for a in ("--env", i)]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A golden file written by the command for IDS x SEEDS x STEPS: (path, its JSON, the
    command's JSON report)."""
    path = tmp_path_factory.mktemp("golden") / "determinism.json"
    code, out, err = main(*env_args(), "--seeds", ",".join(map(str, SEEDS)), "--steps", str(STEPS), "--json",
                          "--write-golden", str(path))
    assert code == 0, err
    return path, json.loads(path.read_text()), json.loads(out)


def tampered(tmp_path, data, name="tampered.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_hashes_equal_env_api_rollout_hash(written):
    _, data, report = written
    assert report["ok"] and report["written"]
    assert {(r["env"], r["seed"]) for r in report["results"]} == {(i, s) for i in IDS for s in SEEDS}
    for r in report["results"]:
        assert r["repeat"] == r["vector"] == "match"
        want = env_api.rollout_hash(r["env"], r["seed"], STEPS)
        assert r["hash"] == want == data["hashes"][r["env"]][str(r["seed"])]
    assert data["format"] == 1 and data["steps"] == STEPS
    assert all(len(rows) == STEPS for i in IDS for rows in data["steps_digest"][i]["seeds"].values())


def test_the_committed_golden_file_of_env_api_is_read_and_still_matches():
    """tests/golden_env_rollouts.json (seed 0, 200 steps, no per-step rows) is accepted."""
    code, out, err = main(*env_args(), "--golden", str(env_api.GOLDEN))
    assert code == 0, out + err
    golden = json.loads(env_api.GOLDEN.read_text())
    for env_id in IDS:
        assert f"seed 0    {golden['hashes'][env_id]}  repeat match  vector match  golden match" in out


def test_golden_round_trip_passes(written):
    path, _, _ = written
    code, out, err = main("--golden", str(path))
    assert code == 0, out + err
    assert out.count("golden match") == len(IDS) * len(SEEDS)
    assert "reproducible" in out and "seed 1: ok" in err  # progress goes to stderr


def test_an_altered_hash_exits_1_and_names_the_env_and_seed(written, tmp_path):
    path, data, _ = written
    data = copy.deepcopy(data)
    h = data["hashes"]["cuegym/Lag-v0"]["1"]
    data["hashes"]["cuegym/Lag-v0"]["1"] = ("0" if h[0] != "0" else "1") + h[1:]
    lag = ["--env", "cuegym/Lag-v0"]
    code, out, _ = main("--golden", str(tampered(tmp_path, data)), *lag, "--json")
    assert code == 1
    report = json.loads(out)
    assert not report["ok"]
    [m] = report["mismatches"]
    assert (m["check"], m["env_id"], m["seed"]) == ("golden", "cuegym/Lag-v0", 1)
    assert m["expected"] == data["hashes"]["cuegym/Lag-v0"]["1"] and m["actual"] == h
    code, out, _ = main("--golden", str(tampered(tmp_path, data)), *lag, "--seeds", "1")
    assert code == 1 and "MISMATCH cuegym/Lag-v0 seed 1: the golden file differs" in out


@pytest.mark.parametrize("env_id, step, field", [("cuegym/PotShot-v0", 7, "obs.balls"),
                                                 ("cuegym/Lag-v0", 3, "clauses")])
def test_a_tampered_step_names_the_first_divergent_step_and_field(written, tmp_path, env_id, step, field):
    path, data, _ = written
    data = copy.deepcopy(data)
    fields = data["steps_digest"][env_id]["fields"]
    rows = data["steps_digest"][env_id]["seeds"]["0"]
    j = fields.index(field)
    original = rows[step][j]
    rows[step][j] = "0badc0de" if field == "obs.balls" else ["XX-99"]
    rows[step + 2][j] = rows[step][j]  # a later divergence is not the first
    one = ["--env", env_id, "--seeds", "0"]
    code, out, _ = main("--golden", str(tampered(tmp_path, data)), *one, "--json")
    assert code == 1
    [m] = json.loads(out)["mismatches"]
    assert (m["env_id"], m["seed"], m["step"], m["field"]) == (env_id, 0, step, field)
    assert m["expected_value"] == rows[step][j]
    if field == "clauses":
        assert m["actual_value"] == original
    else:  # the golden side is a digest: the report gives the digest now and the values
        assert m["actual_value"]["digest"] == original
        assert np.array(m["actual_value"]["value"]).shape == (2, 3)  # PotShot: 2 balls x (x, y, on)
    # the event of that step, from both sides: the stored row and the step as played now
    assert m["expected_event"]["clauses"] == rows[step][fields.index("clauses")]
    assert m["actual_event"]["reward"] == rows[step][fields.index("reward")]
    assert set(m["actual_event"]["shot"]) == set(R.SHOT_NAMES)
    code, out, _ = main("--golden", str(tampered(tmp_path, data)), *one)
    assert code == 1 and f"first divergent step: {step} (0-based action), field {field}" in out


def test_an_observation_divergence_shows_both_values_and_the_event():
    """compare_rollouts (the repeat and vector checks): one entry of one observation changed."""
    a = R.record_rollout("cuegym/PotShot-v0", 5, 6)
    b = copy.deepcopy(a)
    b.steps[4].obs["balls"][1, 0] += 0.25
    m = C.compare_rollouts("repeat", a, b)
    assert (m.step, m.field) == (4, "obs.balls")
    x = float(a.steps[4].obs["balls"][1, 0])
    assert m.expected_value == {"(1, 0)": pytest.approx(x)} and m.actual_value == {"(1, 0)": pytest.approx(x + 0.25)}
    assert m.expected_event["clauses"] == list(a.steps[4].clauses)
    assert C.compare_rollouts("repeat", a, copy.deepcopy(a)) is None


def test_a_vector_mismatch_exits_1_and_the_golden_file_is_not_written(monkeypatch, tmp_path):
    real = R.record_vector_rollouts

    def drifting(env_id, seed, steps, num_envs):
        lanes = real(env_id, seed, steps, num_envs)
        lanes[0].steps[2].reward += 1.0
        return lanes

    monkeypatch.setattr(D, "record_vector_rollouts", drifting)
    out_path = tmp_path / "golden.json"
    code, out, _ = main("--env", "cuegym/Lag-v0", "--seeds", "0", "--steps", str(STEPS), "--write-golden",
                        str(out_path), "--json")
    assert code == 1 and not out_path.exists()
    report = json.loads(out)
    [m] = report["mismatches"]
    assert (m["check"], m["lane"], m["step"], m["field"]) == ("vector", 0, 2, "reward")
    assert m["actual_value"] == m["expected_value"] + 1.0
    assert report["written"] is None


def valid_golden(written):
    return copy.deepcopy(written[1])


def _drop(d, key):
    del d[key]
    return d


MALFORMED = [
    ("bad JSON", lambda d: "{\"format\": 1,", "not valid JSON"),
    ("missing field", lambda d: _drop(d, "hashes"), "field 'hashes': missing"),
    ("wrong type", lambda d: {**d, "steps": "20"}, "field 'steps': expected a whole number >= 1"),
    ("unknown id", lambda d: {**d, "hashes": {**d["hashes"], "cuegym/Nope-v0": {"0": "a" * 64}}},
     "field 'hashes'['cuegym/Nope-v0']: unknown env id"),
    ("bad hash", lambda d: {**d, "hashes": {**d["hashes"], "cuegym/Lag-v0": {"0": "xyz", "1": "a" * 64}}},
     "field 'hashes'['cuegym/Lag-v0']['0']: expected 64 lowercase hex digits"),
    ("bad format", lambda d: {**d, "format": 2}, "field 'format': this cuegym reads format 1"),
    ("short rows", lambda d: (d["steps_digest"]["cuegym/Lag-v0"]["seeds"]["1"].pop(), d)[1],
     "field 'steps_digest'['cuegym/Lag-v0']['seeds']['1']: expected a list of 20 rows"),
    ("bad row value", lambda d: (d["steps_digest"]["cuegym/PotShot-v0"]["seeds"]["0"][4].__setitem__(-3, "yes"), d)[1],
     "field 'steps_digest'['cuegym/PotShot-v0']['seeds']['0'][4] (foul): expected true or false"),
]


@pytest.mark.parametrize("case, change, message", MALFORMED, ids=[c[0] for c in MALFORMED])
def test_a_malformed_golden_file_exits_2_naming_the_field_and_writes_nothing(written, tmp_path, case, change,
                                                                             message):
    data = change(valid_golden(written))
    bad = tmp_path / "bad.json"
    bad.write_text(data if isinstance(data, str) else json.dumps(data))
    out_path = tmp_path / "new.json"
    code, out, err = main("--golden", str(bad), "--write-golden", str(out_path))
    assert code == 2
    assert err.startswith(f"error: golden file {bad}: ") and message in err and err.count("\n") == 1
    assert out == "" and os.listdir(tmp_path) == ["bad.json"]


def test_write_golden_to_an_unwritable_path_fails_cleanly(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for path, message in ((blocker / "out.json", "does not exist"), (tmp_path, "is a folder")):
        code, out, err = main("--env", "cuegym/Lag-v0", "--steps", "2", "--write-golden", str(path))
        assert code == 2 and err.startswith("error: --write-golden") and message in err and out == ""
    assert os.listdir(tmp_path) == ["a-file"]


def test_a_failed_write_leaves_no_file(monkeypatch, tmp_path):
    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    (tmp_path / "g.json").write_text("old")
    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(G.InputError, match="--write-golden .*g.json: cannot write .No space left on device"):
        G.write_atomically(str(tmp_path / "g.json"), "new", "--write-golden")
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["g.json"] and (tmp_path / "g.json").read_text() == "old"


@pytest.mark.parametrize("argv, message", [
    (["--env", "cuegym/Nope-v0"], "--env: unknown id 'cuegym/Nope-v0'"),
    (["--seeds", "0,x"], "--seeds: comma-separated whole numbers >= 0"),
    (["--steps", "0"], "--steps: at least 1"),
    (["--vector", "-1"], "--vector: 0 (skip) or more"),
])
def test_bad_options_exit_2(argv, message):
    code, out, err = main(*argv)
    assert code == 2 and err.startswith("error: ") and message in err and out == ""


def test_options_that_disagree_with_the_golden_file_exit_2(written):
    path = str(written[0])
    for argv, message in ((["--steps", "21"], "--steps: 21 differs from the golden file's \"steps\" 20"),
                          (["--seeds", "5"], "--seeds: seed 5 of cuegym/"),
                          (["--env", "cuegym/RussianPyramid-v0"], "is not in the golden file")):
        code, _, err = main("--golden", path, *argv)
        assert code == 2 and message in err, err


def test_the_env_ids_come_from_cuegym_env_ids(monkeypatch):
    import cuegym

    monkeypatch.setattr(cuegym, "ENV_IDS", ("cuegym/Lag-v0",))
    code, out, _ = main("--steps", "3", "--seeds", "0", "--vector", "0")
    assert code == 0
    assert "cuegym/Lag-v0" in out and "PotShot" not in out and "vector skipped" in out
