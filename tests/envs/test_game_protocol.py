"""Every built-in registry entry names a game module that exposes the game protocol
(docs/envs.md, "Game protocol"), and no built-in game module imports another (a game added
with ``registry.register`` may build on one, as docs/architecture.md's drill does)."""

import ast
import importlib
import pathlib

from cuegym.envs import functional as F
from cuegym.envs.registry import BY_ID, ENV_IDS

PROTOCOL = ("init", "step", "observe", "legal_masks", "random_action", "ghost_action", "from_observation")
BUILT_IN = [BY_ID[env_id] for env_id in ENV_IDS]


def test_every_game_module_exposes_the_protocol():
    for g in BUILT_IN:
        module = F.game_module(g.name)
        assert module.__name__ == g.module
        for fn in PROTOCOL:
            assert callable(getattr(module, fn, None)), f"{g.module}.{fn}"


def test_game_modules_do_not_import_each_other():
    games = {g.module for g in BUILT_IN}
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
