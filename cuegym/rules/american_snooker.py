"""American snooker referee (catalogue section AS): the snooker referee
(:mod:`cuegym.rules.snooker`) under the American rules, pure JAX.

AS-01: snooker played on American pocket-billiard principles. AS-02/AS-03: the tables
``american-snooker-10ft`` / ``american-snooker-12ft`` (1536 x 3072 and 1843 x 3686 mm, balls
52.8 and 54.4 mm; ``cuegym.physics.tables``); AMB-46 makes 3500 x 1750 mm (``snooker-12ft``)
the default, so any of the three may be used. AS-04: two players; AS-05/AS-06: the snooker
balls and values; AS-07: the layout figure is missing, the snooker set-up is used, scaled to
the table (AMB-03: ``snooker.initial_layout``).

What differs from international snooker (:class:`~cuegym.rules.snooker.Variant`):

* every foul gives the opponent 7 points (AS-39), nothing is deducted;
* the break must hit a red first (AS-14) and then send a red to a cushion or a pocket and
  the cue ball to a cushion (AS-15, AMB-45 literal); an illegal break is a foul after which
  the opponent plays on or has the offender break again (AS-16, AMB-32);
* after the cue ball hits the ball on, a ball must be potted or reach a cushion (AS-18);
* reds or colours leaving the table: no penalty, colours re-spotted (AS-32, AMB-44); the cue
  ball off the table or pocketed: a foul, the opponent plays from the D (AS-37/38);
* an occupied own spot sends a colour only to a free spot of a higher colour (AS-35, AMB-41);
* no free ball, miss, angled or touching-ball rules (AMB-04): after any foul the opponent
  plays on or makes the offender play again (AS-40), from the D when the cue ball is in hand.

The state, phases, declarations and files are snooker's (:mod:`cuegym.positions.snooker_play`).
"""

from __future__ import annotations

from cuegym.rules import snooker as sn

GAME = "american-snooker"
N_BALLS = sn.N_BALLS

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
                     higher_spots_only=True, clause_map=CLAUSE_MAP, prefix="AS")

initial_state = sn.initial_state
initial_layout = sn.initial_layout
after_lag = sn.after_lag
legal_nominations = sn.legal_nominations
legal_choices = sn.legal_choices
placement_ok = sn.placement_ok


def judge(spec, state, decl, summ, start_xy, start_on, final):
    """Rule on one American snooker stroke; arguments and result as
    :func:`cuegym.rules.snooker.judge`."""
    return sn.judge(spec, state, decl, summ, start_xy, start_on, final, variant=VARIANT)


def choose(spec, state, xy, on, choice):
    """Phase ``foul_choice``: ``play`` or ``replay`` (AS-40), ``rebreak`` after an illegal
    break (AS-16); see :func:`cuegym.rules.snooker.choose`."""
    return sn.choose(spec, state, xy, on, choice, variant=VARIANT)
