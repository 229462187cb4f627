"""Where each game is named in the package's code: the modules whose code (not docstrings or
comments) names a game, besides the game's own referee and game module and the registry.

    python scripts/game_names.py        # prints the table; exit 1 past the limit

A game named in many modules is a game that is hard to add or change; docs/architecture.md
says the limit (two modules besides its family's own) and tests/tools/test_layout.py checks it.
"""

from __future__ import annotations

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cuegym"
LIMIT = 2
FAMILY_SHARED = {
    "russian": ("envs/games/russian_frame.py", "envs/games/pyramid.py", "rules/russian.py", "rules/ball_count.py",
                "rules/respot.py", "positions/russian_play.py"),
    "snooker": ("envs/games/snooker_frame.py", "rules/snooker.py", "rules/snooker_respot.py", "rules/snooker_sight.py",
                "positions/snooker_play.py"),
    "golf": ("rules/pool.py", "positions/golf_play.py"),
    "drill": ("envs/games/pyramid.py",),
}
SHARED = ("envs/registry.py",)


def games():
    """Game -> (the words that name it: task name, Gymnasium id, referee and game modules'
    dotted names; its own modules: its family's referees, game modules and shared modules)."""
    sys.path.insert(0, str(ROOT))
    from cuegym.envs.registry import FAMILIES, GAMES
    from cuegym.rules.base import PHASE_NAMES

    def path(dotted):
        return dotted.replace("cuegym.", "", 1).replace(".", "/") + ".py"

    family_modules = {}  # a family's referees and game modules are one unit: its own
    for g in GAMES.values():
        mods = family_modules.setdefault(g.family, set(FAMILY_SHARED[g.family]))
        mods.add(path(g.module))
        if g.referee is not None:
            mods.add(path(g.referee.__name__))
    out = {}
    for name, g in GAMES.items():
        # a task name that is also a family ("snooker", "golf") or a phase ("lag") names that
        # family or phase in code; the id and the modules still name the game
        words = {g.env_id, g.module} | ({name} - set(FAMILIES) - set(PHASE_NAMES))
        if g.referee is not None:
            words.add(g.referee.__name__)
        out[name] = (words, family_modules[g.family])
    return out


def code_words(path: pathlib.Path) -> set[str]:
    """The string literals (docstrings left out) and the dotted names of the modules a
    module imports: what its code names, not what its prose mentions."""
    tree = ast.parse(path.read_text())
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    words = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words.add(node.value)
        elif isinstance(node, ast.Import):
            words.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            words.update(f"{node.module}.{a.name}" for a in node.names)
            words.add(node.module)
    return words


def naming_modules() -> dict[str, list[str]]:
    """Game -> the package modules (paths under cuegym/) whose code names it, besides its own."""
    words = {str(p.relative_to(PACKAGE)): code_words(p) for p in sorted(PACKAGE.rglob("*.py"))}
    return {game: [m for m, ws in words.items() if m not in own and m not in SHARED and ws & names]
            for game, (names, own) in games().items()}


def main() -> int:
    found = naming_modules()
    for game, modules in found.items():
        print(f"{game:18s} {len(modules)}  {' '.join(modules)}")
    over = [g for g, m in found.items() if len(m) > LIMIT]
    if over:
        print(f"named in more than {LIMIT} modules besides their own: {', '.join(over)}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
