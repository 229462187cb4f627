"""The games, one module of pure functions each, over the core :mod:`cuegym.envs.functional`.

Each module exposes ``init``, ``step``, ``observe``, ``legal_masks``, ``random_action`` and
``ghost_action`` (docs/envs.md, "Game protocol"); the registry names it
(:attr:`cuegym.envs.registry.GameDef.module`) and the core imports it on first use. A game
module imports the core and shared helpers (:mod:`cuegym.envs.games.pyramid`), never
another game module.
"""
