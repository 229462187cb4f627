"""Rules catalogue sanity and referee coverage of the Russian-billiards and snooker (SN, AS) sections."""

import importlib.util
import re
import sys
from pathlib import Path

from cuegym.rules import catalogue

REPO = Path(__file__).resolve().parents[2]
RUSSIAN_SECTIONS = ("RU-GEN", "RP", "AM", "MP")
SNOOKER_SECTIONS = ("SN", "AS")


def _load_script():
    name = "_rules_coverage_script"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / "rules_coverage.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _tags(clause):
    return clause.tag.split("+")


def test_rules_coverage_doc_is_up_to_date():
    script = _load_script()
    path = REPO / "docs" / "rules-coverage.md"
    assert path.exists(), "docs/rules-coverage.md is missing; run: python scripts/rules_coverage.py"
    assert path.read_text(encoding="utf-8") == script.build(), (
        "docs/rules-coverage.md is out of date; regenerate it with: python scripts/rules_coverage.py"
    )


def test_russian_clauses_implemented_and_tested():
    _assert_covered(RUSSIAN_SECTIONS)


def test_snooker_clauses_implemented_and_tested():
    _assert_covered(SNOOKER_SECTIONS)


def _assert_covered(sections):
    cov = _load_script().coverage(sections)
    not_implemented, not_tested, no_entry, stray = [], [], [], []
    for sec in sections:
        for c in catalogue.section(sec):
            tags = _tags(c)
            if "HUMAN" in tags and c.id not in catalogue.NOT_SIMULATED:
                no_entry.append(c.id)
            if tags == ["HUMAN"]:
                continue  # HUMAN-only: covered by its NOT_SIMULATED entry
            # a module naming the id only in a docstring or comment still counts here (the
            # generated page tells the two apart: "implemented in" vs "mentioned only in")
            if not (cov[c.id]["implemented"] or cov[c.id]["mentioned"]):
                not_implemented.append(c.id)
            if not cov[c.id]["tested"]:
                not_tested.append(c.id)
    for cid in catalogue.NOT_SIMULATED:
        if cid not in catalogue.CODE or "HUMAN" not in _tags(catalogue.get(cid)):
            stray.append(cid)
    problems = []
    if not_implemented:
        problems.append(f"not implemented in cuegym/rules/ ({len(not_implemented)}): {', '.join(not_implemented)}")
    if not_tested:
        problems.append(f"not tested by any test or scenario ({len(not_tested)}): {', '.join(not_tested)}")
    if no_entry:
        problems.append(f"HUMAN clauses without a NOT_SIMULATED entry ({len(no_entry)}): {', '.join(no_entry)}")
    if stray:
        problems.append(f"NOT_SIMULATED entries that are not HUMAN clauses: {', '.join(stray)}")
    assert not problems, "rule coverage gaps:\n" + "\n".join(problems)


def test_catalogue_sanity():
    ids = [c.id for c in catalogue.CLAUSES]
    assert len(ids) == len(set(ids)) == catalogue.NUM_CLAUSES
    assert tuple(ids) == catalogue.ID
    assert [catalogue.CODE[i] for i in ids] == list(range(catalogue.NUM_CLAUSES))
    assert all(catalogue.code(i) == n for n, i in enumerate(ids))
    id_re = re.compile(r"^(" + "|".join(map(re.escape, catalogue.SECTIONS)) + r")-\d{2}$")
    bad_ids = [i for i in ids if not id_re.match(i)]
    assert not bad_ids, f"malformed clause ids: {bad_ids}"
    allowed = {"PHYS", "DECL", "CUE", "HUMAN", "PROC"}
    bad_tags = [
        (c.id, c.tag)
        for c in catalogue.CLAUSES
        if not (1 <= len(_tags(c)) <= 2 and set(_tags(c)) <= allowed and len(set(_tags(c))) == len(_tags(c)))
    ]
    assert not bad_tags, f"bad tags: {bad_tags}"
    assert all(c.title and "\n" not in c.title for c in catalogue.CLAUSES)
    # sections are contiguous, in catalogue order, numbered 01, 02, ... without gaps
    assert sum(len(catalogue.section(s)) for s in catalogue.SECTIONS) == catalogue.NUM_CLAUSES
    for s in catalogue.SECTIONS:
        nums = [int(c.id.rsplit("-", 1)[1]) for c in catalogue.section(s)]
        assert nums == list(range(1, len(nums) + 1)), s
    try:
        catalogue.code("XX-99")
    except KeyError as e:
        assert "XX-99" in str(e)
    else:
        raise AssertionError("code() accepted an unknown id")


def test_implemented_counts_code_not_docstrings_or_comments():
    script = _load_script()
    source = '''"""Module docstring: RP-05."""
# a comment: RP-06
X = "RP-07"


def f():
    """Function docstring: RP-08."""
    """A string standing alone: RP-09."""
    return {"id": "RP-10", "text": f"cited {X} and RP-11"}
'''
    code = script.code_strings(source)
    for cid in ("RP-07", "RP-10", "RP-11"):
        assert script._id_pattern(cid).search(code), cid
    for cid in ("RP-05", "RP-06", "RP-08", "RP-09"):
        assert not script._id_pattern(cid).search(code), cid


def test_scenario_kinds():
    script = _load_script()
    shot = {"position": {"game": "snooker", "state": {"phase": "normal"}}, "shot": {}, "expect": {}}
    assert script.scenario_kind(shot) == "simulated"
    assert script.scenario_kind({**shot, "events": []}) == "events"
    assert script.scenario_kind({**shot, "error": {"field": "shot.place"}}) == "no stroke"
    choice = {"position": {"game": "snooker", "state": {"phase": "foul_choice"}}, "shot": {"choice": "play"}}
    assert script.scenario_kind(choice) == "no stroke"
