"""Referees (``cuegym.rules``): the rules of each game as pure JAX functions.

One module per game over a shared module per family (docs/rules.md):

* :mod:`~cuegym.rules.russian` — general rules of Russian billiards (RU-GEN): fouls, balls
  off the table, play from the house, the close-ball rule, the lag, interference.
* :mod:`~cuegym.rules.russian_pyramid` (RP), :mod:`~cuegym.rules.americanka` (AM),
  :mod:`~cuegym.rules.moscow_pyramid` (MP); :mod:`~cuegym.rules.ball_count` holds what AM
  and MP share.
* :mod:`~cuegym.rules.snooker` (SN) — international snooker, with its own state
  (``SnookerState``) and phases; :mod:`~cuegym.rules.snooker_sight` (snookered, angled),
  :mod:`~cuegym.rules.snooker_respot` (colours back on their spots),
  :mod:`~cuegym.positions.snooker_play` (its position and shot files);
  :mod:`~cuegym.rules.american_snooker` (AS) — the same referee under the American rules.
* :mod:`~cuegym.rules.respot` — where balls go back on the table.
* :mod:`~cuegym.rules.base` — game state, declaration and ruling; :mod:`~cuegym.rules.catalogue`
  — every clause id of the rulebook catalogue.
* :mod:`~cuegym.positions.state` — the referee state and rulings as JSON (position files, CLI).

Each game module has ``initial_state(breaker)`` and ``judge(spec, state, decl, summ,
start_xy, start_on, final) -> (Ruling, GameState)``, jit-able with the table spec static and
vmap-able over a batch of tables.
"""

from cuegym.rules.base import Declaration, GameState, Ruling, clause_ids, declare

__all__ = ["Declaration", "GameState", "Ruling", "clause_ids", "declare"]
