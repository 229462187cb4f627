"""American snooker referee (catalogue section AS): the snooker referee
(:mod:`cuegym.rules.snooker`) under the American rules, pure JAX.

AS-01: snooker played on American pocket-billiard principles, so the rules are snooker's
under a static :class:`~cuegym.rules.snooker.Variant`: same state, phases, declarations and
files (:mod:`cuegym.positions.snooker_play`). Tables AS-02, AS-03 (AMB-46); AS-04, AS-05,
AS-06, AS-07 as snooker. The differences: every foul gives 7 (AS-39); the break (AS-14,
AS-15, AS-16, AMB-45); a pot or cushion after the ball on (AS-18); balls off the table (AS-32,
AMB-44; the cue ball AS-37, AS-38); re-spotting to higher spots only (AS-35, AMB-41); no free
ball, miss, angled or touching-ball rules (AS-40, AMB-04); the cue-action fouls POOL-GEN-39,
POOL-GEN-40, POOL-GEN-41 (AS-01). The rule options are snooker's (``last_red`` here).

Each difference in full: docs/rules.md, "American snooker".
"""

from __future__ import annotations

from cuegym.rules import snooker as sn
from cuegym.rules.snooker_options import DEFAULT

GAME = "american-snooker"
N_BALLS = sn.N_BALLS

VALUES = sn.VALUES  # AS-06: the balls are worth what they are worth in snooker (SN-06)

# The analogous AS clause of each SN clause the snooker judge cites (AS-39 for every foul:
# AS-39 replaces SN's table of values); SN clauses with no AS counterpart are not cited.
_FOUL = ("AS-39",)
CLAUSE_MAP = (
    ("SN-06", ("AS-06",)), ("SN-11", ("AS-08",)), ("SN-12", ("AS-09",)), ("SN-13", ("AS-10",)), ("SN-14", ("AS-11",)),
    ("SN-15", ("AS-12",)), ("SN-17", ("AS-13",)), ("SN-18", ("AS-14",)), ("SN-19", ("AS-16",)), ("SN-20", ("AS-17",)),
    ("SN-22", ("AS-19",)), ("SN-23", ("AS-20",)), ("SN-24", ("AS-21",)), ("SN-25", ("AS-22",)), ("SN-26", ("AS-23",)),
    ("SN-27", ("AS-24",)), ("SN-28", ("AS-25",)), ("SN-29", ("AS-26",)), ("SN-30", ("AS-27",)), ("SN-31", ("AS-28",)),
    ("SN-32", ("AS-29",)), ("SN-35", ("AS-30",)), ("SN-36", ("AS-31",)), ("SN-37", ("AS-32",)), ("SN-38", ("AS-33",)),
    ("SN-39", ("AS-34",)), ("SN-40", ("AS-35",)), ("SN-42", ("AS-35",)), ("SN-41", ("AS-36",)), ("SN-43", ("AS-37",)),
    ("SN-44", ("AS-38",)), ("SN-67", _FOUL), ("SN-68", ("AS-40",)), ("SN-71", _FOUL),
)
VARIANT = sn.Variant(extras=False, flat_penalty=sn.SEVEN, off_table_foul=False, after_contact=True, break_cushions=True,
                     higher_spots_only=True, pool_cue_fouls=True, clause_map=CLAUSE_MAP, prefix="AS")

initial_state = sn.initial_state
initial_layout = sn.initial_layout
after_lag = sn.after_lag
legal_nominations = sn.legal_nominations
legal_choices = sn.legal_choices
placement_ok = sn.placement_ok


def judge(spec, state, decl, summ, start_xy, start_on, final, opts=DEFAULT):
    """Rule on one American snooker stroke; arguments and result as
    :func:`cuegym.rules.snooker.judge`."""
    return sn.judge(spec, state, decl, summ, start_xy, start_on, final, variant=VARIANT, opts=opts)


def choose(spec, state, xy, on, choice, opts=DEFAULT):
    """Phase ``foul_choice``: ``play`` or ``replay`` (AS-40), ``rebreak`` after an illegal
    break (AS-16); see :func:`cuegym.rules.snooker.choose`."""
    return sn.choose(spec, state, xy, on, choice, variant=VARIANT, opts=opts)
