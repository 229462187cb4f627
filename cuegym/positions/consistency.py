"""Checks across a position's referee-state fields: a state each field allows on its own but
the game can never reach (scores that disagree with the balls owned, a winner mid-frame, ...)
is refused with a :class:`~cuegym.positions.PositionError` naming the fields, never changed.

One function per family, called on the parsed state by the family's ``read_state``:
:func:`russian` (Russian pyramid, Americanka, Moscow pyramid), :func:`cuegym.positions.snooker_play.check_state` (the
snooker family, beside its reader) and :func:`golf`. Each check is a true invariant of the referee (what
``judge`` keeps from stroke to stroke); docs/rules.md "State checks" lists them.
"""

from __future__ import annotations

import numpy as np

from cuegym.positions import PositionError
from cuegym.rules.base import FRAME_OVER, PHASE_NAMES, PLAYERS, REMOVE_BALL

BALL_COUNT_WIN = 8  # AM-02, MP-02
PYRAMID_WIN, PYRAMID_TIED = 71, 70  # RP-02, RP-17


def _frame_end(scores, winner: int, phase: int, win: int, what: str) -> None:
    """``winner`` is set exactly when the frame is over, with ``win`` or more; mid-frame
    nobody has reached ``win`` (the stroke that reaches it ends the frame)."""
    if (winner >= 0) != (phase == FRAME_OVER):
        raise PositionError("state.winner", "a winner is given exactly when state.phase is \"frame_over\", got "
                                            f"winner {winner if winner >= 0 else None} in phase {PHASE_NAMES[phase]!r}")
    if winner >= 0 and not scores[winner] >= win > scores[1 - winner]:
        raise PositionError("state.scores", f"{scores} but state.winner is {winner}: the winner has {win} or more "
                                            f"{what} and the opponent fewer")
    if winner < 0 and max(scores) >= win:
        raise PositionError("state.scores", f"{scores}: {win} {what} win the frame (state.phase would be "
                                            "\"frame_over\"); mid-frame each score is below it")


def russian(game: str, state, ids) -> None:
    """Russian family: the winner and the frame's end; ``striker`` against ``to_play`` (mid-frame);
    Americanka / Moscow pyramid: scores = balls owned, a debt only with no ball owned, the
    Moscow cue ball never owned; Russian pyramid: sudden death only at 70:70, the last
    ball pocketed an object ball."""
    phase, to_play, striker = int(state.phase), int(state.to_play), int(state.striker)
    scores = [int(s) for s in np.asarray(state.scores)]
    if phase == REMOVE_BALL and game != "moscow-pyramid":
        raise PositionError("state.phase", f"\"remove_ball\" is Moscow pyramid's (MP-09), not {game}'s")
    want = 1 - to_play if phase == REMOVE_BALL else to_play
    if striker != want and phase != FRAME_OVER:  # (a winning removal stroke leaves either)
        why = ("the opponent of state.to_play, who names the ball (MP-09)" if phase == REMOVE_BALL
               else "state.to_play outside phase \"remove_ball\"")
        raise PositionError("state.striker", f"must be {want} ({why}), got {striker}")
    if game == "russian-pyramid":
        _frame_end(scores, int(state.winner), phase, PYRAMID_WIN, "points")
        if bool(state.sudden_death) and phase != FRAME_OVER and scores != [PYRAMID_TIED] * 2:
            raise PositionError("state.sudden_death", f"true only after 70:70 (RP-17..19), and the next pot or foul "
                                                      f"ends the frame: state.scores must be [70, 70], got {scores}")
        if int(state.last_pocketed) == 0:
            raise PositionError("state.last_pocketed", "must be an object ball (the last ball legally pocketed, RP-17)")
        return
    _ball_count(game, state, ids, scores, phase)


def _ball_count(game: str, state, ids, scores, phase: int) -> None:
    if bool(state.sudden_death):
        raise PositionError("state.sudden_death", f"must be false: sudden death is Russian pyramid's (RP-19), not {game}'s")
    owner = np.asarray(state.owner)
    if game == "moscow-pyramid" and owner[0] >= 0:
        raise PositionError("state.owned.cue", "the cue ball is never won in Moscow pyramid (MP-09: the opponent "
                                               "removes an object ball instead)")
    for p in range(PLAYERS):
        mine = [ids[i] for i in np.nonzero(owner == p)[0]]
        if scores[p] != len(mine):
            raise PositionError("state.scores", f"{scores} but state.owned credits {int(np.sum(owner == 0))} and "
                                                f"{int(np.sum(owner == 1))} balls; in {game} a player's score is the "
                                                f"number of balls they own (list each in state.owned)")
        debt = int(np.asarray(state.debt)[p])
        if debt and mine:
            raise PositionError("state.debt", f"player {p} owes {debt} ball(s) but owns {', '.join(mine)} in "
                                              "state.owned: a foul costs an owned ball first, and a ball won pays "
                                              "a debt first (AM-16/17, MP-13/14), so a debt needs state.scores 0")
    _frame_end(scores, int(state.winner), phase, BALL_COUNT_WIN, "balls")


def golf(state, n: int) -> None:
    """Golf: the round's pocket against each player's next pocket (in the playing order from
    ``first``, players before ``to_play`` have finished the round), the end of the game
    (pocket 7, winner the single lowest total) and the opening stroke (round 1 only)."""
    pocket, to_play, first = int(state.pocket), int(state.to_play), int(state.first)
    over = int(state.phase) == FRAME_OVER
    nxt = [int(v) for v in np.asarray(state.next_pocket)[:n]]
    totals = [int(v) for v in np.asarray(state.strokes)[:n]]
    winner = int(state.winner)
    if over != (pocket == 7):
        raise PositionError("state.pocket", f"{pocket} in phase {'frame_over' if over else 'play'}: pocket 7 "
                                            "(every round played) exactly when state.phase is \"frame_over\"")
    order = [(first + k) % n for k in range(n)]
    for p in range(n):
        done = not over and order.index(p) < order.index(to_play)
        if nxt[p] != pocket + done:
            why = "has finished this round" if done else "has yet to finish this round"
            raise PositionError(f"state.next_pocket.{p}", f"must be {pocket + done}: player {p} {why} "
                                                          f"(state.pocket {pocket}, order from state.first {first})")
    best = totals.index(min(totals)) if over and totals.count(min(totals)) == 1 else -1
    if winner != best:
        raise PositionError("state.winner", f"{winner if winner >= 0 else None} but state.strokes is {totals}: the game "
                                            "is won at its end (phase \"frame_over\") by the single lowest total "
                                            f"(GF-05..07), here {best if best >= 0 else None}")
    if bool(state.opening) and pocket != 1:
        raise PositionError("state.opening", f"true only in the round of pocket 1 (GF-09), got pocket {pocket}")
