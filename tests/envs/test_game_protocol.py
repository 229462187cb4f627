"""Every registry entry names a game module that exposes the game protocol (docs/envs.md,
"Game protocol"), and no game module imports another."""

import ast
import importlib
import pathlib

from cuegym.envs import functional as F
from cuegym.envs.registry import GAMES

PROTOCOL = ("init", "step", "observe", "legal_masks", "random_action", "ghost_action")


def test_every_game_module_exposes_the_protocol():
    for name, g in GAMES.items():
        module = F.game_module(name)
        assert module.__name__ == g.module
        for fn in PROTOCOL:
            assert callable(getattr(module, fn, None)), f"{g.module}.{fn}"


def test_game_modules_do_not_import_each_other():
    games = {g.module for g in GAMES.values()}
    for dotted in games:
        path = pathlib.Path(importlib.import_module(dotted).__file__)
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
                imported.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                imported.update(a.name for a in node.names)
        assert not (imported & (games - {dotted})), dotted
