"""Americanka referee (catalogue section AM, over RU-GEN: AM-01).

Sixteen balls, ids 1..16 at indices 0..15; any of them may be struck (AM-03/04, the
declaration's ``struck``); the 16th (index 15) is played from hand at the break (AM-05/06,
AMB-27). No call (AM-08); first to eight balls (AM-02); a stroke that pockets nothing must
be a legal safety (AM-10..13); a foul costs a ball or a ball owed (AM-16/17); balls go back
frozen to the middle of the rear cushion (AM-14/15). A struck ball that leaves the table is
a foul and goes back there too; the opponent plays from the position, there is no ball in
hand after the break (AM-18, RU-GEN-29).

``judge(spec, state, decl, summ, start_xy, start_on, final)`` is pure JAX (jit with ``spec``
static, vmap over tables) and returns ``(Ruling, GameState)``.
"""

from __future__ import annotations

from cuegym.rules import ball_count
from cuegym.rules.base import GameState, new_state

GAME = "americanka"
N_BALLS = 16
BREAK_BALL = 15  # ball "16", played from hand (AMB-27)
RULES = ball_count.Game(
    n_balls=N_BALLS, fixed_cue=False, safety_rule=True, cue_in_hand=False, removal=False,
    win="AM-02", any_ball="AM-07", no_call="AM-08", all_count="AM-09", respot="AM-14", respot_taken="AM-15",
    penalty="AM-16", debt="AM-17", struck_any="AM-04", break_from_hand="AM-06",
)


def initial_state(breaker: int = 0) -> GameState:
    """The break: ball 16 in hand in the house for the breaker (AM-05/06, RU-GEN-13)."""
    return new_state(N_BALLS, to_play=breaker)


def judge(spec, state, decl, summ, start_xy, start_on, final, dead_position: bool = False):
    """Rule on one Americanka stroke; arguments as :func:`cuegym.rules.russian_pyramid.judge`
    with ``decl.struck`` the ball struck (any ball on the table, AM-04)."""
    ruling, new, extra = ball_count.judge(RULES, spec, state, decl, summ, start_xy, start_on, final, dead_position)
    return ball_count.finish(RULES, state, ruling, new, extra, start_xy, start_on)
