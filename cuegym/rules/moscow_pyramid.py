"""Moscow pyramid referee (catalogue section MP, over RU-GEN: MP-01).

A cue ball (index 0) and fifteen object balls 1..15 (MP-03), racked with the apex on the
rear spot (MP-04), the break from hand in the house (MP-05). No call (MP-07); every ball that
falls on a correct stroke counts (MP-06/08), the cue ball too once it has touched an object
ball: the opponent then names an object ball to take off, credited to the striker (MP-09,
AMB-31; phase REMOVE_BALL, decided with :func:`choose`), and the striker plays on from hand
(MP-10). A foul costs a ball or a ball owed (MP-13/14); balls go back frozen to the middle of
the rear cushion (MP-11/12). First to eight balls (MP-02).
"""

from __future__ import annotations

from cuegym.rules import ball_count
from cuegym.rules.base import GameState, new_state

GAME = "moscow-pyramid"
N_BALLS = 16
CUE = 0
RULES = ball_count.Game(
    n_balls=N_BALLS, fixed_cue=True, safety_rule=False, cue_in_hand=True, removal=True,
    win="MP-02", any_ball="MP-06", no_call="MP-07", all_count="MP-08", respot="MP-11", respot_taken="MP-12",
    penalty="MP-13", debt="MP-14",
)


def initial_state(breaker: int = 0) -> GameState:
    """The break: the cue ball in hand in the house for the breaker (MP-05, RU-GEN-13)."""
    return new_state(N_BALLS, to_play=breaker)


def judge(spec, state, decl, summ, start_xy, start_on, final, dead_position: bool = False):
    """Rule on one Moscow pyramid stroke; arguments as
    :func:`cuegym.rules.russian_pyramid.judge`."""
    ruling, new, extra = ball_count.judge(RULES, spec, state, decl, summ, start_xy, start_on, final, dead_position)
    return ball_count.finish(RULES, state, ruling, new, extra, start_xy, start_on)


def choose(spec, state, xy, on, choice):
    """Phase REMOVE_BALL: the opponent's named ball is taken off (MP-09); see
    :func:`cuegym.rules.ball_count.choose_removal`."""
    return ball_count.choose_removal(spec, state, xy, on, choice)
