"""The package's shape (docs/architecture.md): no module over 700 lines, no game named in the
code of more than two modules besides its family's own, module docstrings of a few lines."""

import ast
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "cuegym"
MAX_LINES = 700
MAX_DOCSTRING_LINES = 15


def _game_names():
    spec = importlib.util.spec_from_file_location("game_names", ROOT / "scripts" / "game_names.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_package_module_is_over_700_lines():
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, long


def test_no_game_is_named_in_more_than_two_modules_besides_its_own():
    names = _game_names()
    found = names.naming_modules()
    assert set(found) == set(names.games())  # every registered game is counted
    over = {game: modules for game, modules in found.items() if len(modules) > names.LIMIT}
    assert not over, over


def test_the_count_sees_a_game_named_in_code(tmp_path):
    names = _game_names()
    module = tmp_path / "m.py"
    module.write_text('"""Mentions americanka in prose only."""\nfrom cuegym.rules import snooker\nX = "cuegym/Golf-v0"\n')
    words = names.code_words(module)
    assert "cuegym.rules.snooker" in words and "cuegym/Golf-v0" in words
    assert not any("americanka" in w for w in words)  # prose is not code


def test_module_docstrings_say_what_and_why_in_a_few_lines():
    long = {}
    for p in PACKAGE.rglob("*.py"):
        doc = ast.get_docstring(ast.parse(p.read_text()), clean=False)
        if doc and len(doc.splitlines()) > MAX_DOCSTRING_LINES:
            long[str(p.relative_to(ROOT))] = len(doc.splitlines())
    assert not long, long
