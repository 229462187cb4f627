"""Referees (``cuegym.rules``): the rules of each game as pure JAX functions.

One module per game (:mod:`~cuegym.rules.russian_pyramid` RP, :mod:`~cuegym.rules.americanka`
AM, :mod:`~cuegym.rules.moscow_pyramid` MP, :mod:`~cuegym.rules.snooker` SN,
:mod:`~cuegym.rules.american_snooker` AS, :mod:`~cuegym.rules.golf` GF) over a shared module
per family (:mod:`~cuegym.rules.russian` RU-GEN, :mod:`~cuegym.rules.pool` POOL-GEN), with
:mod:`~cuegym.rules.base` (state, declaration, ruling), :mod:`~cuegym.rules.respot` and
:mod:`~cuegym.rules.catalogue` (every clause id). Each game has ``initial_state`` and
``judge(spec, state, decl, summ, start_xy, start_on, final) -> (Ruling, state)``, jit-able
with the table spec static and vmap-able over tables. docs/rules.md describes them.
"""

from cuegym.rules.base import Declaration, GameState, Ruling, clause_ids, declare

__all__ = ["Declaration", "GameState", "Ruling", "clause_ids", "declare"]
