"""The rulebook catalogue as code: every clause id, its decision tag, a short title.

Where the data came from
------------------------
The project's rules catalogue, ``shared/rules/CATALOGUE.md`` (an English
paraphrase of the Russian seed document ``shared/rules/source-ru.txt``).
Ids and tags were extracted from it mechanically; each title is a short
one-line summary written for this table (not a quotation). The full text,
sources and ambiguity notes (AMB-nn) stay in the catalogue. The package must
not read ``shared/`` at run time, so the table is copied here as code.

Sections, in catalogue order: RU-GEN (general Russian billiards), RP (Russian
pyramid), AM (Americanka), MP (Moscow pyramid), SN (snooker), AS (American
snooker), GF (golf), POOL-GEN (general pool). 352 clauses in all.

Tags (first one is the main decider): PHYS (from the shot's event record),
DECL (a player's declaration or choice), CUE (how the cue strikes), HUMAN
(human conduct; injected or n/a), PROC (referee procedure / bookkeeping).

Stability
---------
Clause ids never change and are never renumbered; a new clause gets the next
free number and is appended at the END of ``CLAUSES``. ``CODE[id]`` (the index
in ``CLAUSES``) is therefore stable too and may be stored in event records,
observations and logs.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "Clause",
    "CLAUSES",
    "CODE",
    "ID",
    "NUM_CLAUSES",
    "NOT_SIMULATED",
    "TAGS",
    "SECTIONS",
    "code",
    "section",
    "get",
]


class Clause(NamedTuple):
    id: str  # stable clause id, e.g. "RP-05"
    tag: str  # decision tag(s) exactly as in the catalogue, e.g. "CUE+PHYS"
    title: str  # short one-line English summary


#: The allowed decision tags (a clause has one, or two joined by "+").
TAGS: frozenset[str] = frozenset({"PHYS", "DECL", "CUE", "HUMAN", "PROC"})

#: Section prefixes in catalogue order.
SECTIONS: tuple[str, ...] = ("RU-GEN", "RP", "AM", "MP", "SN", "AS", "GF", "POOL-GEN")

_C = Clause

CLAUSES: tuple[Clause, ...] = (
    # --- RU-GEN: general rules of Russian billiards -------------------------
    _C("RU-GEN-01", "PROC", "general rules apply to RP, AM, MP; a game's own rule wins a conflict"),
    _C("RU-GEN-02", "PROC", "tables, balls and accessories must meet the equipment requirements"),
    _C("RU-GEN-03", "PROC", "initial rack: 15 balls in a touching pyramid, apex on the rear spot"),
    _C("RU-GEN-04", "CUE", "strike the cue ball with the tip face along the cue axis, else foul"),
    _C("RU-GEN-05", "HUMAN", "at least one foot on the floor during the stroke, else foul"),
    _C("RU-GEN-06", "PROC", "a lag decides who has the first break of the match"),
    _C("RU-GEN-07", "PHYS", "lag: off the rear cushion; ball stopping nearer the head cushion wins"),
    _C("RU-GEN-08", "PHYS", "lag ball loses: no rear cushion, crosses over, pocketed or off table"),
    _C("RU-GEN-09", "PHYS+PROC", "lag is repeated if both lose or both stop at the same distance"),
    _C("RU-GEN-10", "DECL", "lag winner chooses to break or to make the opponent break"),
    _C("RU-GEN-11", "PROC", "later frames: the break follows the order (players alternate)"),
    _C("RU-GEN-12", "PROC", "a new lag decides who breaks the deciding frame"),
    _C("RU-GEN-13", "PROC", "the break is played from hand from the house"),
    _C("RU-GEN-14", "DECL", "ball in hand from the house: centre must not be beyond the house line"),
    _C("RU-GEN-15", "HUMAN", "from the house, body must not lean beyond the long cushion's edge"),
    _C("RU-GEN-16", "CUE", "a ball in hand is in play once the cue tip strikes it"),
    _C("RU-GEN-17", "PHYS", "from hand, balls pocketed in any pocket count"),
    _C("RU-GEN-18", "PROC", "RP/MP: cue ball pocketed or off table gives next player ball in hand"),
    _C("RU-GEN-19", "PHYS", "from hand from the house, only balls outside the house may be played"),
    _C("RU-GEN-20", "PROC", "all object balls in the house: play from the rear (temporary house)"),
    _C("RU-GEN-21", "PHYS", "a ball scores only if pocketed as a result of a correct stroke"),
    _C("RU-GEN-22", "PHYS", "a ball bouncing out of a pocket stays in play, not pocketed"),
    _C("RU-GEN-23", "CUE", "ball rolled along a cushion into a pocket on purpose: respot, no foul"),
    _C("RU-GEN-24", "PHYS", "a ball at rest anywhere but the playing surface is off the table"),
    _C("RU-GEN-25", "PHYS", "ball returning by itself off a fixed table fixture stays in play"),
    _C("RU-GEN-26", "PHYS+HUMAN", "a ball touching a foreign object off the table is off the table"),
    _C("RU-GEN-27", "PROC", "off-table object balls respotted, no penalty; legal pots still count"),
    _C("RU-GEN-28", "PHYS", "cue ball off the table: nothing pocketed counts, and it is a foul"),
    _C("RU-GEN-29", "PROC", "AM: a struck ball that leaves the table is respotted like any other"),
    _C("RU-GEN-30", "PROC", "RP/MP: after cue ball leaves the table, opponent plays from the house"),
    _C("RU-GEN-31", "PROC", "illegally pocketed and off-table balls are respotted per game rules"),
    _C("RU-GEN-32", "PROC", "every respotted ball is an object ball"),
    _C("RU-GEN-33", "PHYS", "a ball's position is its centre; centre on the house line is outside"),
    _C("RU-GEN-34", "PHYS", "stroke runs from tip contact until every ball has fully stopped"),
    _C("RU-GEN-35", "CUE+PHYS", "close ball (<= R/2): cut >= 45 deg or no follow-through, else foul"),
    _C("RU-GEN-36", "PHYS", "turn passes on no pot or a foul; otherwise the striker continues"),
    _C("RU-GEN-37", "PHYS", "foul: the cue ball touches no object ball"),
    _C("RU-GEN-38", "PHYS", "foul: the cue ball leaves the table"),
    _C("RU-GEN-39", "HUMAN", "foul: striking before the previous stroke has ended"),
    _C("RU-GEN-40", "HUMAN", "foul: touching any ball with cue, rest, hand, clothing, etc."),
    _C("RU-GEN-41", "CUE", "foul: push shot at an object ball more than R/2 away"),
    _C("RU-GEN-42", "CUE", "foul: double hit (tip touches the cue ball twice)"),
    _C("RU-GEN-43", "CUE", "foul: press stroke squeezing an object ball off a cushion"),
    _C("RU-GEN-44", "PHYS", "foul: from hand from the house, cue ball touches a ball in the house"),
    _C("RU-GEN-45", "CUE", "foul (RP, MP): striking a ball other than the cue ball"),
    _C("RU-GEN-46", "PHYS", "foul (RP only): the cue ball falls into a pocket"),
    _C("RU-GEN-47", "PHYS", "foul (AM only): an illegal safety"),
    _C("RU-GEN-48", "DECL+HUMAN", "foul: house-placement breach repeated after a referee warning"),
    _C("RU-GEN-49", "HUMAN", "foul: interfering with the opponent's play"),
    _C("RU-GEN-50", "PROC", "several infractions in one stroke are penalised once"),
    _C("RU-GEN-51", "PROC", "balls pocketed on a foul stroke do not count and are respotted"),
    _C("RU-GEN-52", "PHYS", "hanging ball dropping 5 s or more after the stroke is put back"),
    _C("RU-GEN-53", "HUMAN", "hanging ball dropped by a push or table shake is put back"),
    _C("RU-GEN-54", "PHYS", "hanging ball dropping within 5 s of stroke end counts as pocketed"),
    _C("RU-GEN-55", "PHYS", "target hanging ball drops before cue ball arrives: restore, replay"),
    _C("RU-GEN-56", "PROC", "dead position (blocked pocket, endless safeties): referee may rebuild"),
    _C("RU-GEN-57", "PROC", "rebuild: remaining object balls racked as a pyramid on the rear spot"),
    _C("RU-GEN-58", "PROC", "after a rebuild a lag decides who plays, from hand from the house"),
    _C("RU-GEN-59", "HUMAN", "outsider sets balls moving: restore position, replay without penalty"),
    _C("RU-GEN-60", "HUMAN", "emergencies (wind, falling lamp, breakage): restore and replay"),
    _C("RU-GEN-61", "HUMAN", "deliberate outside interference: play stops until the person leaves"),
    _C("RU-GEN-62", "HUMAN", "opponent stops a ball heading for a pocket: it counts as pocketed"),
    _C("RU-GEN-63", "HUMAN", "interference includes any opponent action meant to distract"),
    _C("RU-GEN-64", "HUMAN", "deliberate interference: warning, loss awarded, disqualification"),
    _C("RU-GEN-65", "HUMAN", "stalling: after a warning, a one-minute limit per stroke"),
    _C("RU-GEN-66", "HUMAN", "protests about rule interpretation go to the chief referee"),
    _C("RU-GEN-67", "HUMAN", "whether a game event happened is the table referee's call alone"),
    # --- RP: Russian pyramid ------------------------------------------------
    _C("RP-01", "PROC", "RP follows RU-GEN plus its own rules; its own rules win a conflict"),
    _C("RP-02", "PHYS", "first player to 71 points wins; checked after every stroke"),
    _C("RP-03", "PROC", "a marked cue ball plus object balls numbered 1 to 15"),
    _C("RP-04", "PROC", "fixed rack order in a pyramid, ball 4 at the apex on the rear spot"),
    _C("RP-05", "PHYS", "a pocketed ball scores its number; the ace scores 11"),
    _C("RP-06", "PHYS", "the last object ball on the table earns 10 extra points"),
    _C("RP-07", "PROC", "the break is played from hand from the house"),
    _C("RP-08", "DECL", "before each stroke, call one object ball and one pocket"),
    _C("RP-09", "DECL", "the call must be clear: a ball on the table and a valid pocket"),
    _C("RP-10", "DECL", "the call may change before the stroke; locked at tip contact"),
    _C("RP-11", "PHYS+DECL", "called ball in called pocket: every ball pocketed on the stroke counts"),
    _C("RP-12", "PHYS+DECL", "called ball not potted as called: nothing counts, turn passes, no foul"),
    _C("RP-13", "PROC", "illegal, uncalled and off-table object balls go to the rear spot"),
    _C("RP-14", "PROC", "several respots: ascending order, touching, along the long string"),
    _C("RP-15", "PROC", "rear spot taken: place behind, near the obstructing ball, not touching"),
    _C("RP-16", "PHYS", "each foul: offender loses 5 points, opponent gains 5"),
    _C("RP-17", "PROC", "at 70:70 the last ball pocketed is respotted on the rear spot"),
    _C("RP-18", "PROC", "at 70:70 a lag decides who plays next, from hand from the house"),
    _C("RP-19", "PHYS", "after 70:70 the first legal pot wins and the first foul loses"),
    _C("RP-20", "PROC+HUMAN", "stalemate: three deliberate fouls each and no ball moved stops play"),
    _C("RP-21", "PROC", "after a stalemate: one ball left, both on 70, play on as at 70:70"),
    _C("RP-22", "PROC", "the referee warns after the second consecutive deliberate foul"),
    # --- AM: Americanka -----------------------------------------------------
    _C("AM-01", "PROC", "AM follows RU-GEN plus its own rules; its own rules win a conflict"),
    _C("AM-02", "PHYS", "the first player to pocket eight balls wins"),
    _C("AM-03", "PROC", "16 balls, each usable as the cue ball or an object ball"),
    _C("AM-04", "DECL+CUE", "the striker picks the ball to strike; it is the cue ball this stroke"),
    _C("AM-05", "PROC", "15 balls racked on the rear spot; the 16th is played at the break"),
    _C("AM-06", "PROC", "the break is played from hand from the house"),
    _C("AM-07", "PHYS", "any object ball may be pocketed; the cue ball too after a contact"),
    _C("AM-08", "DECL", "no call is needed"),
    _C("AM-09", "PHYS", "on a correct stroke every ball pocketed counts"),
    _C("AM-10", "PHYS", "legal safety: a ball crosses centre line, reaches far short cushion"),
    _C("AM-11", "PHYS", "legal safety: the cue ball and an object ball both cross centre line"),
    _C("AM-12", "PHYS", "legal safety: a ball rebounds off one cushion and reaches a second"),
    _C("AM-13", "PHYS", "a safety meeting none of AM-10..12 is a foul"),
    _C("AM-14", "PROC", "respotted balls go frozen to the rear cushion at its middle"),
    _C("AM-15", "PROC", "middle taken: frozen to the cushion next to the obstructing ball"),
    _C("AM-16", "PROC", "each foul costs one pocketed ball, respotted at the rear cushion"),
    _C("AM-17", "PROC", "foul with no balls pocketed: penalty collected from the next pot"),
    _C("AM-18", "PROC", "struck ball off the table: foul, nothing counts, respotted, no in-hand"),
    # --- MP: Moscow pyramid -------------------------------------------------
    _C("MP-01", "PROC", "MP follows RU-GEN plus its own rules; its own rules win a conflict"),
    _C("MP-02", "PHYS", "the first player to pocket eight balls wins"),
    _C("MP-03", "PROC", "a marked cue ball plus fifteen object balls"),
    _C("MP-04", "PROC", "15 object balls racked as a pyramid with the apex on the rear spot"),
    _C("MP-05", "PROC", "the break is played from hand from the house"),
    _C("MP-06", "PHYS", "any object ball may be pocketed; the cue ball too after a contact"),
    _C("MP-07", "DECL", "no call is needed"),
    _C("MP-08", "PHYS", "on a correct stroke every ball pocketed counts"),
    _C("MP-09", "DECL", "cue ball legally pocketed: opponent names an object ball to remove"),
    _C("MP-10", "PROC", "after potting the cue ball the striker continues from the house"),
    _C("MP-11", "PROC", "respotted object balls go frozen to the rear cushion at its middle"),
    _C("MP-12", "PROC", "middle taken: frozen to the cushion next to the obstructing ball"),
    _C("MP-13", "PROC", "each foul costs one pocketed ball, respotted at the rear cushion"),
    _C("MP-14", "PROC", "foul with no balls pocketed: penalty collected from the next pot"),
    # --- SN: international snooker ------------------------------------------
    _C("SN-01", "PROC", "played on 12 ft English tables (or smaller); background text"),
    _C("SN-02", "PROC", "playing surface 3500 x 1750 mm, tolerance 3 mm"),
    _C("SN-03", "PROC", "table height 850-875 mm (irrelevant to the simulation)"),
    _C("SN-04", "PROC", "two players"),
    _C("SN-05", "PROC", "15 reds, 6 colours and a white cue ball, all 52.5 mm"),
    _C("SN-06", "PHYS", "ball values: red 1, yellow 2 ... black 7"),
    _C("SN-07", "PROC", "set-up: pink on the pyramid spot, reds' apex just behind it"),
    _C("SN-08", "PROC", "baulk line 700 mm from the front cushion; baulk lies behind it"),
    _C("SN-09", "PROC", "the D: semicircle of radius 292 mm on the middle of the baulk line"),
    _C("SN-10", "DECL", "ball in hand: cue ball anywhere inside or on the line of the D"),
    _C("SN-11", "PHYS", "object: score more points than the opponent"),
    _C("SN-12", "PHYS", "points come from opponent's penalties and correctly potted balls"),
    _C("SN-13", "PHYS", "the frame ends when all balls have been potted"),
    _C("SN-14", "PHYS", "black alone: first score or foul ends the frame"),
    _C("SN-15", "PROC", "level after the black: respot it, lag, play from the D"),
    _C("SN-16", "PROC", "lot or lag decides the first break; later frames alternate"),
    _C("SN-17", "PROC", "the break is played from hand in the D"),
    _C("SN-18", "PHYS", "break: the cue ball must hit a red first, else foul"),
    _C("SN-19", "DECL", "foul on the break: opponent plays on or has the offender re-break"),
    _C("SN-20", "PHYS", "each correct pot lets the striker continue his visit"),
    _C("SN-21", "PHYS", "every stroke: cue ball must hit the ball on first; no cushion needed"),
    _C("SN-22", "PHYS", "while reds remain, a red is on for a visit's first stroke"),
    _C("SN-23", "PHYS", "red on and hit first: every red potted counts, no call needed"),
    _C("SN-24", "PHYS", "red on: the cue ball must hit a red first, else foul"),
    _C("SN-25", "PHYS", "after a red is potted a colour is on; reds and colours alternate"),
    _C("SN-26", "DECL", "colour on with reds left: nominate it, hit it first, else foul"),
    _C("SN-27", "PHYS", "potting a colour when a red is on is a foul"),
    _C("SN-28", "PHYS", "potting any other ball when a given colour is on is a foul"),
    _C("SN-29", "CUE+PHYS", "jump shots are forbidden: jumping over a ball is a foul"),
    _C("SN-30", "PROC", "while reds remain, potted colours are respotted before next stroke"),
    _C("SN-31", "HUMAN+PROC", "playing with a wrongly respotted colour, noticed in time: foul"),
    _C("SN-32", "HUMAN+PROC", "wrong respot noticed only after two strokes: no penalty"),
    _C("SN-33", "HUMAN", "the striker must check all balls are correctly respotted"),
    _C("SN-34", "HUMAN+PROC", "colour never respotted: visit ends, penalty; earlier points stand"),
    _C("SN-35", "PHYS", "reds gone: colours on in ascending value and stay down"),
    _C("SN-36", "PROC", "illegally potted reds stay down; illegally potted colours respotted"),
    _C("SN-37", "PROC+PHYS", "ball off the table: foul; reds stay off, colours respotted"),
    _C("SN-38", "PROC", "reds are never respotted"),
    _C("SN-39", "PROC", "a colour is respotted on its own spot"),
    _C("SN-40", "PROC", "own spot occupied: use the highest-valued free colour spot"),
    _C("SN-41", "PROC", "all spots occupied: as close as possible, on the top-cushion side"),
    _C("SN-42", "PHYS", "a spot is occupied if a ball placed there would touch another"),
    _C("SN-43", "PROC", "cue ball off the table: incoming player plays from the D"),
    _C("SN-44", "PHYS", "from the D after SN-43, any ball on may be played, anywhere"),
    _C("SN-45", "HUMAN", "touching any ball other than with the tip in a stroke is a foul"),
    _C("SN-46", "PHYS", "snookered: no straight stroke reaches any ball on"),
    _C("SN-47", "PHYS", "in hand in the D: snookered only if blocked from every D position"),
    _C("SN-48", "PHYS", "effective snookering ball: the blocker nearest the cue ball"),
    _C("SN-49", "PHYS", "angled: a pocket jaw blocks a straight stroke at every ball on"),
    _C("SN-50", "DECL", "angled after a foul: incoming player plays on or takes the D"),
    _C("SN-51", "PHYS", "cue ball touching a ball that is or could be on: touching ball"),
    _C("SN-52", "CUE", "touching ball: must play away from it, else push stroke"),
    _C("SN-53", "PHYS+DECL", "playing away from a touching ball: the three no-penalty cases"),
    _C("SN-54", "HUMAN", "no penalty if the touching ball moved not by the striker's doing"),
    _C("SN-55", "CUE", "push stroke: tip stays on the cue ball too long; a foul"),
    _C("SN-56", "CUE", "nearly touching balls: the finest possible cut is legal"),
    _C("SN-57", "HUMAN", "miss: not trying to hit the ball on is a foul and a miss"),
    _C("SN-58", "DECL", "after a miss: accept, or restore the cue ball and offender replays"),
    _C("SN-59", "PHYS", "ball on impossible to hit: no miss, but the foul still applies"),
    _C("SN-60", "PHYS", "snookered after a foul: referee announces a free ball"),
    _C("SN-61", "DECL", "free ball: nominate any ball as ball on, at the ball on's value"),
    _C("SN-62", "PHYS", "free ball: foul if the cue ball does not hit the free ball first"),
    _C("SN-63", "PHYS", "free ball: foul to snooker with the free ball (unless pink+black)"),
    _C("SN-64", "PHYS+PROC", "potted free ball is respotted and scores the ball on's value"),
    _C("SN-65", "PHYS", "on a free ball, potting the ball on scores its value"),
    _C("SN-66", "PHYS", "free ball and ball on both potted: score the ball on's value only"),
    _C("SN-67", "PHYS", "a foul's penalty points are added to the opponent's score"),
    _C("SN-68", "DECL", "after a foul the opponent may make the offender play again"),
    _C("SN-69", "PROC", "several fouls in one stroke: only the highest penalty applies"),
    _C("SN-70", "PROC", "after a foul, wrong respots stand; missing respots are made"),
    _C("SN-71", "PROC", "every penalty is at least 4 points"),
    _C("SN-72", "HUMAN", "foul (ball on value): striking before all balls are at rest"),
    _C("SN-73", "CUE", "foul (ball on value): double hit"),
    _C("SN-74", "HUMAN", "foul (ball on value): both feet off the floor"),
    _C("SN-75", "HUMAN+PROC", "foul (ball on value): playing out of turn"),
    _C("SN-76", "DECL", "foul (ball on value): cue ball placed outside the D"),
    _C("SN-77", "PHYS", "foul (ball on value): missing every object ball"),
    _C("SN-78", "PHYS", "foul (ball on value): potting the cue ball"),
    _C("SN-79", "PHYS", "foul (ball on value): leaving a snooker with the free ball"),
    _C("SN-80", "CUE+PHYS", "foul (ball on value): a jump shot"),
    _C("SN-81", "PHYS", "foul (higher value): potting a ball not on"),
    _C("SN-82", "PHYS", "foul (higher value): cue ball first hits a ball not on"),
    _C("SN-83", "CUE", "foul (higher value): push stroke"),
    _C("SN-84", "HUMAN+PROC", "foul (higher value): playing with a wrongly respotted ball"),
    _C("SN-85", "HUMAN", "foul (higher value): touching balls"),
    _C("SN-86", "PHYS", "foul (higher value): any ball leaving the table"),
    _C("SN-87", "PHYS", "foul: cue ball hits two balls at once (not two reds / free+on)"),
    _C("SN-88", "PROC+DECL", "7-point foul: after a red is potted, before a colour is nominated"),
    _C("SN-89", "HUMAN", "7-point foul: using balls out of play for any purpose"),
    # --- AS: American snooker -----------------------------------------------
    _C("AS-01", "PROC", "snooker variant following American pocket-billiard principles"),
    _C("AS-02", "PROC", "played on 5 x 10 ft or 6 x 12 ft snooker tables"),
    _C("AS-03", "PROC", "balls are 52.8 mm or 54.4 mm in diameter"),
    _C("AS-04", "PROC", "two players"),
    _C("AS-05", "PROC", "15 reds, 6 colours and a cue ball"),
    _C("AS-06", "PHYS", "colour values yellow 2 ... black 7; a red is 1"),
    _C("AS-07", "PROC", "starting layout given by a missing figure"),
    _C("AS-08", "PHYS", "object: score more points than the opponent"),
    _C("AS-09", "PHYS", "points from opponent's fouls and correctly potted balls"),
    _C("AS-10", "PHYS", "the frame ends when every ball has been potted"),
    _C("AS-11", "PHYS", "black alone: play until the first score or foul"),
    _C("AS-12", "PROC", "level after a scoring stroke: respot black, play it from the D"),
    _C("AS-13", "PROC", "the break is played from hand in the D"),
    _C("AS-14", "PHYS", "break: the cue ball must hit a red first"),
    _C("AS-15", "PHYS", "break: a red to a cushion or pocket, and the cue ball to a cushion"),
    _C("AS-16", "PHYS+DECL", "illegal break: foul; opponent plays on or has offender re-break"),
    _C("AS-17", "PHYS", "each correct pot lets the striker continue his visit"),
    _C("AS-18", "PHYS", "after hitting the ball on: a pot or a ball to a cushion, else foul"),
    _C("AS-19", "PHYS", "while reds remain, a red is on for a visit's first stroke"),
    _C("AS-20", "PHYS", "red on: any correctly potted red counts, no call needed"),
    _C("AS-21", "PHYS", "red on: the cue ball must hit a red first, else foul"),
    _C("AS-22", "PHYS", "after a potted red a colour is on; reds and colours alternate"),
    _C("AS-23", "DECL", "colour on with reds left: call the colour and hit it first"),
    _C("AS-24", "PHYS", "a colour pocketed when a red is on is a foul"),
    _C("AS-25", "PHYS", "any other ball pocketed when a colour is on is a foul"),
    _C("AS-26", "CUE+PHYS", "deliberately jumping the cue ball over a ball is a foul"),
    _C("AS-27", "PROC", "while reds remain, potted colours are respotted"),
    _C("AS-28", "HUMAN+PROC", "playing with a wrongly respotted colour, pointed out: foul"),
    _C("AS-29", "HUMAN+PROC", "wrong respot not pointed out by the second stroke: no penalty"),
    _C("AS-30", "PHYS", "reds gone: colours on in order 2..7 and stay down"),
    _C("AS-31", "PROC", "illegally potted reds stay down; colours are respotted"),
    _C("AS-32", "PROC", "off-table reds stay off, colours respotted; no penalty"),
    _C("AS-33", "PROC", "reds are never respotted"),
    _C("AS-34", "PROC", "colours are respotted on their starting positions"),
    _C("AS-35", "PROC", "own place occupied: free place of a higher-valued colour"),
    _C("AS-36", "PROC", "all such places occupied: nearest to own spot, rear-cushion side"),
    _C("AS-37", "PROC", "cue ball off the table or pocketed: opponent plays from the D"),
    _C("AS-38", "PHYS", "from the D after AS-37, any ball on may be played, anywhere"),
    _C("AS-39", "PHYS", "every foul gives the opponent 7 points"),
    _C("AS-40", "DECL", "after a foul: opponent plays on or makes the offender play again"),
    # --- GF: golf -----------------------------------------------------------
    _C("GF-01", "PROC", "golf billiards: usually on a snooker table; background text"),
    _C("GF-02", "PROC", "any number of players"),
    _C("GF-03", "PROC", "one object ball per player and one shared cue ball"),
    _C("GF-04", "PROC", "set-up: the striker's object ball on the rear spot"),
    _C("GF-05", "PHYS", "pot own ball into pockets 1..6 in order in the fewest strokes"),
    _C("GF-06", "PHYS", "every stroke adds one point to the striker's score"),
    _C("GF-07", "PHYS", "every foul adds a further three points"),
    _C("GF-08", "PROC", "start: object ball on the rear spot, cue ball on the centre spot"),
    _C("GF-09", "PHYS", "opening stroke: the object ball must reach the rear cushion"),
    _C("GF-10", "PROC", "failed opening: foul, reset both balls, repeat until it succeeds"),
    _C("GF-11", "PROC", "after the opening the player's series continues to pocket 1 alone"),
    _C("GF-12", "PROC", "the pocket-1 series score, fouls included, goes on the sheet"),
    _C("GF-13", "PROC", "next player plays pocket 1 from the same start and opening rule"),
    _C("GF-14", "PROC", "after the last pocket-1 series the cue ball stays where it stopped"),
    _C("GF-15", "PROC", "pocket 2: first player again, own ball on the rear spot"),
    _C("GF-16", "PHYS", "from pocket 2 on, no rear-cushion opening requirement"),
    _C("GF-17", "PROC", "the cue ball stays where it stops, unless pocketed or off table"),
    _C("GF-18", "PROC", "players take each pocket in turn until all six are done"),
    _C("GF-19", "PROC", "a series continues through misses and fouls until the legal pot"),
    _C("GF-20", "PHYS", "object ball into a pocket other than the current one: foul"),
    _C("GF-21", "PHYS", "after contact: a ball to a cushion or a pot in the current pocket"),
    _C("GF-22", "PROC", "a stroke with several fouls adds three points only once"),
    _C("GF-23", "DECL", "in hand with own ball in the house: choose one of two set-ups"),
    _C("GF-24", "PHYS", "the object ball leaving the table is a foul"),
    _C("GF-25", "PROC", "illegally potted object ball: rear spot, plus three points"),
    _C("GF-26", "PROC", "object ball off the table: rear spot, plus three points"),
    _C("GF-27", "PROC", "cue ball pocketed or off: same player continues from the house"),
    # --- POOL-GEN: general rules for pool games -----------------------------
    _C("POOL-GEN-01", "PROC", "common rules for the pool games; a game's own rules prevail"),
    _C("POOL-GEN-02", "PROC", "equipment must meet the (missing) equipment section"),
    _C("POOL-GEN-03", "PROC", "rack with a triangle, front ball on the rear spot, packed tight"),
    _C("POOL-GEN-04", "CUE", "the cue ball may be struck only with the cue tip, else foul"),
    _C("POOL-GEN-05", "PHYS", "no object ball pocketed on a legal stroke: turn passes"),
    _C("POOL-GEN-06", "PROC", "lag: equal balls beside the front spot, struck together from house"),
    _C("POOL-GEN-07", "PHYS", "lag: ball stopping nearer the front cushion wins; rear cushion needed"),
    _C("POOL-GEN-08", "PHYS", "lag ball loses: crossing over, pocketed, long cushion, two rear hits"),
    _C("POOL-GEN-09", "PHYS+PROC", "lag is repeated if both break the rules or it is too close to tell"),
    _C("POOL-GEN-10", "PROC", "the break goes to the lag or lot winner; lag in official play"),
    _C("POOL-GEN-11", "DECL", "lag or lot winner breaks or gives the break away"),
    _C("POOL-GEN-12", "PROC", "break: cue ball from hand from the house, balls racked per game"),
    _C("POOL-GEN-13", "PHYS", "break: cue ball is in play once it crosses the front line"),
    _C("POOL-GEN-14", "PROC", "ball in hand from the house: at the start and as each game says"),
    _C("POOL-GEN-15", "DECL", "the incoming player may place the cue ball anywhere in the house"),
    _C("POOL-GEN-16", "PHYS", "from the house: any ball with centre outside it, line included"),
    _C("POOL-GEN-17", "PHYS", "balls in the house only after cue ball leaves and returns off rear"),
    _C("POOL-GEN-18", "PHYS", "a ball's position is its centre (or its contact with the bed)"),
    _C("POOL-GEN-19", "PHYS", "cue ball must not touch balls in the house before leaving it"),
    _C("POOL-GEN-20", "PHYS", "a cue ball played from the house is in play once it leaves it"),
    _C("POOL-GEN-21", "DECL", "until in play the cue ball may be adjusted by hand or cue"),
    _C("POOL-GEN-22", "HUMAN", "touching the cue ball once it is in play is a foul"),
    _C("POOL-GEN-23", "DECL", "ball in hand after a foul: anywhere on the table (unused)"),
    _C("POOL-GEN-24", "PHYS", "a ball is pocketed if it falls in on a legal stroke"),
    _C("POOL-GEN-25", "PHYS", "a ball jumping back out of a pocket is not pocketed"),
    _C("POOL-GEN-26", "HUMAN", "at least one foot on the floor during the stroke, else foul"),
    _C("POOL-GEN-27", "HUMAN", "striking before every ball is at rest is a foul"),
    _C("POOL-GEN-28", "PHYS", "a stroke is complete only when every ball has stopped"),
    _C("POOL-GEN-29", "PHYS", "the front line is not in the house; a ball on it may be played"),
    _C("POOL-GEN-30", "DECL", "place the cue ball slightly behind the front line, not on it"),
    _C("POOL-GEN-31", "PROC", "every foul passes the turn to the opponent"),
    _C("POOL-GEN-32", "PHYS", "no ball pocketed on a foul stroke counts"),
    _C("POOL-GEN-33", "PROC", "balls are respotted only where the game says so"),
    _C("POOL-GEN-34", "PHYS", "foul: the cue ball touches no legal object ball"),
    _C("POOL-GEN-35", "PHYS+CUE", "playing away from a frozen ball does not count as hitting it"),
    _C("POOL-GEN-36", "PHYS", "legal stroke: hit a legal ball first, then a pot or a cushion"),
    _C("POOL-GEN-37", "PHYS", "the cue ball falling into a pocket is a foul"),
    _C("POOL-GEN-38", "HUMAN", "touching any ball with body, clothing, chalk, rest, etc. is a foul"),
    _C("POOL-GEN-39", "CUE", "foul: the tip touches the cue ball more than once"),
    _C("POOL-GEN-40", "CUE", "foul: tip touches cue ball while it touches or after it hit a ball"),
    _C("POOL-GEN-41", "CUE", "non-legal ball frozen to the cue ball: play away from it, else foul"),
    _C("POOL-GEN-42", "CUE", "foul: pushing the cue ball with a prolonged tip contact"),
    _C("POOL-GEN-43", "CUE", "legal jump: raised cue striking the upper half of the cue ball"),
    _C("POOL-GEN-44", "CUE", "a miscue during a jump is penalised"),
    _C("POOL-GEN-45", "CUE", "jumping by any other method is a foul"),
    _C("POOL-GEN-46", "PHYS", "a ball at rest anywhere but the playing surface is off the table"),
    _C("POOL-GEN-47", "PHYS", "ball returning by itself off cushion top or rail stays in play"),
    _C("POOL-GEN-48", "PHYS+HUMAN", "a ball touching anything not part of the table is off the table"),
    _C("POOL-GEN-49", "PHYS", "sending the cue ball or any object ball off the table is a foul"),
    _C("POOL-GEN-50", "PROC", "off-table object balls are respotted once all balls have stopped"),
    _C("POOL-GEN-51", "PROC", "an off-table cue ball returns to play per the game's rules"),
    _C("POOL-GEN-52", "PROC", "several fouls in one stroke: one foul at the heaviest penalty"),
    _C("POOL-GEN-53", "PHYS", "a ball moving by itself is left where it stops; play continues"),
    _C("POOL-GEN-54", "PHYS", "hanging ball dropping after 5 s or more is put back"),
    _C("POOL-GEN-55", "PHYS", "object ball dropping by itself before the cue ball arrives: replay"),
    _C("POOL-GEN-56", "PHYS", "another object ball moving by itself at the strike: replay"),
    _C("POOL-GEN-57", "PROC", "respot on the long string, lowest number on the rear spot"),
    _C("POOL-GEN-58", "PROC", "spot blocked: near the rear spot, frozen to obstructing balls"),
    _C("POOL-GEN-59", "PROC", "cue ball in the way: respot close to it but not touching"),
    _C("POOL-GEN-60", "PROC", "no room behind the rear spot: respot in front of it"),
    _C("POOL-GEN-61", "PHYS", "other balls dropping with the intended one count per game rules"),
    _C("POOL-GEN-62", "HUMAN", "outside interference: restore positions, play on, no penalty"),
    _C("POOL-GEN-63", "HUMAN", "emergencies (earthquake, lamp, accident) handled as POOL-GEN-62"),
    _C("POOL-GEN-64", "PROC", "position cannot be restored: replay the frame, same breaker"),
    _C("POOL-GEN-65", "PROC", "14.1 continuous exception: abandon the rack, keep the score"),
    _C("POOL-GEN-66", "PROC", "in a match the winner of each frame breaks the next"),
    _C("POOL-GEN-67", "PROC", "organisers may instead alternate breaks or let the loser break"),
    _C("POOL-GEN-68", "PHYS", "no legal pot or a foul: the opponent comes in"),
    _C("POOL-GEN-69", "PROC", "with no foul the opponent takes the position as it lies"),
    _C("POOL-GEN-70", "PHYS", "ball frozen to a cushion: stroke must pot or drive a ball to cushion"),
    _C("POOL-GEN-71", "PROC", "a frozen ball must be confirmed and announced before the stroke"),
    _C("POOL-GEN-72", "DECL", "ball in hand may be placed by hand or with any part of the cue"),
    _C("POOL-GEN-73", "CUE", "once placed, a forward cue movement touching it starts the stroke"),
    _C("POOL-GEN-74", "HUMAN", "distracting or interfering with the opponent is an infraction"),
    _C("POOL-GEN-75", "HUMAN", "interference includes playing out of turn and moving balls"),
)

del _C

NUM_CLAUSES: int = len(CLAUSES)

#: Clause ids in catalogue order; ``ID[code]`` is the id of an integer code.
ID: tuple[str, ...] = tuple(c.id for c in CLAUSES)

#: Clause id -> stable integer code (its index in ``CLAUSES``).
CODE: dict[str, int] = {cid: i for i, cid in enumerate(ID)}

_BY_ID: dict[str, Clause] = {c.id: c for c in CLAUSES}

#: HUMAN clauses (main or second tag) of RU-GEN, RP, AM and MP that the
#: simulation never produces by itself, with the catalogue's *Env:* note:
#: ``"inject:<code>"`` when the referee accepts an externally injected event
#: with that code, or ``"n/a: <reason>"`` when it is never checked.
NOT_SIMULATED: dict[str, str] = {
    "RU-GEN-05": "inject:feet_off_floor",
    "RU-GEN-15": "inject:body_outside_long_cushion",
    "RU-GEN-26": "inject:ball_touched_foreign_object(ball); the simulator has no such objects",
    "RU-GEN-39": "inject:early_stroke (tooling only; actions are accepted only with all balls at rest)",
    "RU-GEN-40": "inject:touched_ball(ball, with)",
    "RU-GEN-48": "inject:body_outside_long_cushion (the leaning part; placement is validated, AMB-14)",
    "RU-GEN-49": "inject:opponent_distraction or inject:opponent_moved_ball",
    "RU-GEN-53": "inject:table_shaken",
    "RU-GEN-59": "inject:outside_interference (restore the pre-stroke snapshot; same player replays)",
    "RU-GEN-60": "inject:emergency",
    "RU-GEN-61": "n/a: deliberate outside interference stops play; outside the simulation",
    "RU-GEN-62": "inject:opponent_stopped_ball(ball, pocket)",
    "RU-GEN-63": "inject:opponent_distraction (a foul under RU-GEN-49)",
    "RU-GEN-64": "n/a: sanctions for deliberate interference (tooling only)",
    "RU-GEN-65": "inject:slow_play_timeout (optional per-decision time limit)",
    "RU-GEN-66": "n/a: protests are outside the simulation",
    "RU-GEN-67": "n/a: the simulator's event record is final",
    "RP-20": "inject:deliberate(flag); intent cannot be judged (objective trigger: AMB-26)",
    # SN (snooker): codes of cuegym.rules.snooker.SNOOKER_INJECT_NAMES
    "SN-31": "inject:mis_spotted_ball(ball) (the referee re-spots automatically, AMB-40)",
    "SN-32": "inject:mis_spotted_late(ball)",
    "SN-33": "n/a: the referee re-spots every ball itself",
    "SN-34": "inject:colour_not_respotted(ball)",
    "SN-45": "inject:touched_ball(ball)",
    "SN-54": "n/a: the engine never moves a touching ball by itself (AMB-42(a))",
    "SN-57": "PHYS proxy (AMB-38): a miss whenever a ball on could have been hit and was not",
    "SN-72": "inject:early_stroke",
    "SN-74": "inject:feet_off_floor",
    "SN-75": "inject:out_of_turn (the environment enforces turn order)",
    "SN-84": "inject:mis_spotted_ball(ball)",
    "SN-85": "inject:touched_ball(ball)",
    "SN-89": "inject:used_ball_out_of_play",
    # AS (American snooker): the snooker codes
    "AS-28": "inject:mis_spotted_ball(ball) (the referee re-spots automatically, AMB-40)",
    "AS-29": "inject:mis_spotted_late(ball)",
    "POOL-GEN-22": "inject:touched_ball(cue)",
    "POOL-GEN-26": "inject:feet_off_floor",
    "POOL-GEN-27": "inject:early_stroke (tooling only; actions are accepted only with all balls at rest)",
    "POOL-GEN-38": "inject:touched_ball(ball)",
    "POOL-GEN-48": "inject:ball_touched_foreign_object(ball); the simulator has no such objects",
    "POOL-GEN-62": "inject:outside_interference (restore the pre-stroke snapshot; same player replays)",
    "POOL-GEN-63": "inject:emergency",
    "POOL-GEN-74": "inject:opponent_distraction",
    "POOL-GEN-75": "inject:out_of_turn or inject:opponent_moved_ball",
}


def code(clause_id: str) -> int:
    """Stable integer code of a clause id; KeyError naming the id if unknown."""
    try:
        return CODE[clause_id]
    except KeyError:
        raise KeyError(
            f"unknown rule clause id {clause_id!r} (not in cuegym.rules.catalogue; "
            f"ids look like 'RP-05' or 'RU-GEN-35')"
        ) from None


def get(clause_id: str) -> Clause:
    """The ``Clause`` for an id; KeyError naming the id if unknown."""
    return CLAUSES[code(clause_id)]


def section(prefix: str) -> tuple[Clause, ...]:
    """All clauses of one section, in catalogue order (prefix like "RP", "RU-GEN")."""
    prefix = prefix.rstrip("-")
    if prefix not in SECTIONS:
        raise KeyError(f"unknown catalogue section {prefix!r}; known: {', '.join(SECTIONS)}")
    return tuple(c for c in CLAUSES if c.id.rsplit("-", 1)[0] == prefix)
