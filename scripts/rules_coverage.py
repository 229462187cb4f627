#!/usr/bin/env python3
"""Generate docs/rules-coverage.md: which rule clauses are implemented and tested.

For each clause of the selected catalogue sections (cuegym.rules.catalogue):

* implemented in -- the modules under cuegym/rules/ (except catalogue.py) whose code
  names the clause id (e.g. ``RP-05``) in a string literal: read with :mod:`ast`, so a
  docstring, any other string standing alone as a statement, or a comment does not count;
* mentioned only in -- the modules that name the id only in docstrings or comments;
* simulated shot -- scenario files ``tests/rules/scenarios/**/<ID>.json`` or
  ``<ID>_*.json`` (by stem) that strike a shot through the physics: no ``events`` key, no
  ``error`` key (a refused shot) and not a choice phase (``remove_ball``, ``foul_choice``,
  ``house_choice``: the referee takes the answer and nothing is simulated);
* event list -- scenario files that judge a synthetic event list (an ``events`` key);
* other tests -- test functions in tests/ named ``test_<ID>`` or ``test_<ID>_...`` (with
  '-' in the id replaced by '_', e.g. ``test_RU_GEN_35_close_ball``), and the scenario
  files that play no stroke (a refused shot or a choice);
* note -- the NOT_SIMULATED entry (injection code or n/a reason) of HUMAN clauses.

Usage:
    python scripts/rules_coverage.py          # (re)write docs/rules-coverage.md
    python scripts/rules_coverage.py --check  # exit 1 if the file is out of date

Standard library only, plus cuegym.rules.catalogue.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RULES_DIR = REPO / "cuegym" / "rules"
TESTS_DIR = REPO / "tests"
SCENARIOS_DIR = TESTS_DIR / "rules" / "scenarios"
OUTPUT = REPO / "docs" / "rules-coverage.md"
DEFAULT_SECTIONS = ("RU-GEN", "RP", "AM", "MP", "SN", "AS", "GF", "POOL-GEN")

try:
    from cuegym.rules import catalogue
except ImportError:  # running without the package installed: use the source tree
    import importlib.util

    _spec = importlib.util.spec_from_file_location("_cuegym_rules_catalogue", RULES_DIR / "catalogue.py")
    catalogue = importlib.util.module_from_spec(_spec)
    sys.modules[_spec.name] = catalogue
    _spec.loader.exec_module(catalogue)

CHOICE_PHASES = ("remove_ball", "foul_choice", "house_choice")
"""Phases in which a scenario's shot is an answer, not a stroke (cuegym.positions.judging)."""

_TEST_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(test_\w+)\s*\(", re.M)


def _rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def _id_pattern(clause_id: str) -> re.Pattern[str]:
    # the literal id, not as part of a longer id (RP-1 vs RP-10, AM-01 vs XAM-01)
    return re.compile(r"(?<![A-Za-z0-9_-])" + re.escape(clause_id) + r"(?![0-9])")


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def code_strings(source: str) -> str:
    """The string literals of ``source`` that are code, one a line: every ``str`` constant
    (f-string parts included) except those standing alone as a statement (module, class and
    function docstrings and attribute docstrings). Comments are not in the tree at all."""
    tree = ast.parse(source)
    alone = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }
    return "\n".join(
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in alone
    )


def _rule_sources() -> dict[str, tuple[str, str]]:
    """{module path: (its code strings, its whole text)} for the referee modules (see
    :func:`code_strings`)."""
    if not RULES_DIR.is_dir():
        return {}
    out = {}
    for p in sorted(RULES_DIR.rglob("*.py")):
        if p.name != "catalogue.py" and "__pycache__" not in p.parts:
            text = _read(p)
            out[_rel(p)] = (code_strings(text), text)
    return out


def _test_names() -> list[str]:
    if not TESTS_DIR.is_dir():
        return []
    names: set[str] = set()
    for p in sorted(TESTS_DIR.rglob("*.py")):
        if "__pycache__" in p.parts:
            continue
        names.update(_TEST_DEF.findall(_read(p)))
    return sorted(names)


def scenario_kind(data: dict) -> str:
    """``"simulated"`` (a shot struck through the physics), ``"events"`` (a synthetic event
    list) or ``"no stroke"`` (a refused shot, or a choice phase's answer) for one scenario."""
    if "events" in data:
        return "events"
    state = data.get("position", {}).get("state") or {}
    if "error" in data or state.get("phase") in CHOICE_PHASES:
        return "no stroke"
    return "simulated"


def _scenarios() -> dict[str, set[str]]:
    """{stem: the kinds of the scenario files of that stem} (stems may repeat across games)."""
    if not SCENARIOS_DIR.is_dir():
        return {}
    out: dict[str, set[str]] = {}
    for p in sorted(SCENARIOS_DIR.rglob("*.json")):
        out.setdefault(p.stem, set()).add(scenario_kind(json.loads(_read(p))))
    return out


def coverage(sections=DEFAULT_SECTIONS) -> dict[str, dict[str, list[str]]]:
    """{clause id: {"implemented": [paths], "mentioned": [paths], "simulated": [stems],
    "events": [stems], "other": [test names / stems], "tested": all of the three}}.

    ``mentioned``: the modules that name the id only in docstrings or comments."""
    sources = _rule_sources()
    tests = _test_names()
    scenarios = _scenarios()
    out: dict[str, dict[str, list[str]]] = {}
    for sec in sections:
        for clause in catalogue.section(sec):
            cid = clause.id
            pat = _id_pattern(cid)
            impl = sorted(path for path, (code, _) in sources.items() if pat.search(code))
            mentioned = sorted(path for path, (code, text) in sources.items() if pat.search(text) and not pat.search(code))
            fn = "test_" + cid.replace("-", "_")
            mine = {s: kinds for s, kinds in scenarios.items() if s == cid or s.startswith(cid + "_")}
            entry = {
                "implemented": impl,
                "mentioned": mentioned,
                "simulated": sorted(s for s, kinds in mine.items() if "simulated" in kinds),
                "events": sorted(s for s, kinds in mine.items() if "events" in kinds),
                "other": sorted({t for t in tests if t == fn or t.startswith(fn + "_")}
                                | {s for s, kinds in mine.items() if "no stroke" in kinds}),
            }
            entry["tested"] = sorted(set(entry["simulated"]) | set(entry["events"]) | set(entry["other"]))
            out[cid] = entry
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _codes(items: list[str]) -> str:
    return "<br>".join(f"`{_cell(i)}`" for i in items)


def _counts(cov, clauses) -> tuple[int, int, int]:
    """(with a simulated shot, with an event list and no simulated shot, with neither)."""
    sim = sum(bool(cov[c.id]["simulated"]) for c in clauses)
    events_only = sum(bool(cov[c.id]["events"]) and not cov[c.id]["simulated"] for c in clauses)
    return sim, events_only, len(clauses) - sim - events_only


def build(sections=DEFAULT_SECTIONS) -> str:
    """The markdown of docs/rules-coverage.md for the given catalogue sections."""
    cov = coverage(sections)
    every = [c for sec in sections for c in catalogue.section(sec)]
    sim, events_only, neither = _counts(cov, every)
    lines = [
        "# Rules coverage",
        "",
        "Generated by `scripts/rules_coverage.py` from the clause table in",
        "`cuegym/rules/catalogue.py` (a copy of the project's rules catalogue). Do not edit by hand;",
        "regenerate with `python scripts/rules_coverage.py` (CI checks it with `--check`).",
        "",
        "* **implemented in**: modules under `cuegym/rules/` whose code names the clause id in a",
        "  string literal (a docstring, a string standing alone as a statement or a comment does",
        "  not count);",
        "* **mentioned only in**: modules that name the clause id only in docstrings or comments;",
        "* **simulated shot**: scenario files `tests/rules/scenarios/**/<ID>[_...].json` whose shot",
        "  the physics plays (no `events`, no `error`, not a choice phase);",
        "* **event list**: scenario files of that name that judge a synthetic event list (`events`);",
        "* **other tests**: test functions `test_<ID>[_...]` (id with `-` as `_`), and scenario",
        "  files of that name that strike no stroke: a refused shot (`error`) or the answer in a",
        "  choice phase (`remove_ball`, `foul_choice`, `house_choice`);",
        "* **note**: for HUMAN clauses the simulation never produces, the injection code",
        "  (`inject:...`) or why it is not applicable (`n/a: ...`).",
        "",
        "Tags: PHYS (event record), DECL (declaration/choice), CUE (cue strike),",
        "HUMAN (human conduct), PROC (procedure); the first of two tags is the main decider.",
        "",
        f"**All sections:** {len(every)} clauses; {sim} with a simulated shot; {events_only} with an",
        f"event list and no simulated shot; {neither} with neither.",
        "",
    ]
    for sec in sections:
        clauses = catalogue.section(sec)
        lines += [
            f"## {sec}",
            "",
            "| id | tag | title | implemented in | mentioned only in | simulated shot | event list | other tests | note |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        n_impl = n_mention = n_test = n_human = n_inject = n_na = 0
        for c in clauses:
            entry = cov[c.id]
            note = catalogue.NOT_SIMULATED.get(c.id, "")
            n_impl += bool(entry["implemented"])
            n_mention += bool(entry["mentioned"]) and not entry["implemented"]
            n_test += bool(entry["tested"])
            if "HUMAN" in c.tag.split("+"):
                n_human += 1
                if note.startswith("inject:"):
                    n_inject += 1
                elif note.startswith("n/a"):
                    n_na += 1
            lines.append(
                f"| {c.id} | {c.tag} | {_cell(c.title)} | {_codes(entry['implemented'])} | {_codes(entry['mentioned'])} "
                f"| {_codes(entry['simulated'])} | {_codes(entry['events'])} | {_codes(entry['other'])} | {_cell(note)} |"
            )
        sim, events_only, neither = _counts(cov, clauses)
        lines += [
            "",
            f"**{sec} summary:** {len(clauses)} clauses; {n_impl} implemented in code ({n_mention} more only "
            f"mentioned in docstrings or comments); {n_test} tested "
            f"({sim} by a simulated shot, {events_only} by an event list only, {neither} by neither); "
            f"{n_human} HUMAN ({n_inject} injected, {n_na} n/a).",
            "",
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/rules-coverage.md is out of date")
    args = ap.parse_args(argv)
    text = build()
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else None
        if current != text:
            what = "is missing" if current is None else "is out of date"
            print(f"{_rel(OUTPUT)} {what}; regenerate it with: python scripts/rules_coverage.py", file=sys.stderr)
            return 1
        print(f"{_rel(OUTPUT)} is up to date")
        return 0
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {_rel(OUTPUT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
