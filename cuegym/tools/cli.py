"""The ``cuegym`` command line (docs/guide.md, "Command line"; position files: docs/rules.md).

``cuegym simulate POSITION --shot SHOT`` strikes a shot on a position and prints what
happened as JSON: ``events`` (each with ``t``, ``kind``, ``balls``, ``pos`` and ``vel`` of
those balls after the event, and the ``cushion`` or ``pocket`` named), ``final`` (balls on
the table, pocketed balls with their pockets, balls off the table), ``truncated``, the
``shot`` as read (its declarations carried through) and ``next``, the position file of the
next turn, so that shots chain. Numbers are rounded to 1e-6. ``--pretty`` prints a table
for people instead.

``cuegym bench ...`` hands its arguments to :func:`cuegym.tools.bench.main`.

Malformed input prints ``error: <message>`` on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from cuegym import compile_log
from cuegym._cache import enable_compilation_cache

EXIT_BAD_INPUT = 2

COMMANDS: dict[str, str] = {"check-determinism": "determinism", "play": "replay", "view": "viewer", "suggest": "coach"}
"""The commands kept in modules of their own: name -> module of ``cuegym``. Each module has
``HELP`` and ``DESCRIPTION`` (str), ``add_arguments(parser)`` and ``run(args) -> int`` (the
exit status), and imports its heavy dependencies inside ``run``."""


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def build_parser() -> argparse.ArgumentParser:
    from cuegym.physics.simulate import DEFAULT_MAX_EVENTS

    parser = argparse.ArgumentParser(prog="cuegym", description="Cue-sports simulator and environments.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    sim = sub.add_parser(
        "simulate",
        help="strike a shot on a position and print the events, the final position and the next position",
        description="Strike SHOT on POSITION and print the result as JSON (or a table with --pretty).",
    )
    sim.add_argument("position", metavar="POSITION", help="position file (JSON), or inline JSON text")
    sim.add_argument("--shot", required=True, metavar="SHOT", help="shot file (JSON), or inline JSON text")
    sim.add_argument("--pretty", action="store_true", help="print a human-readable table instead of JSON")
    sim.add_argument(
        "--max-events",
        type=_positive_int,
        default=DEFAULT_MAX_EVENTS,
        metavar="N",
        help=f"stop after N events and report the shot as truncated (default {DEFAULT_MAX_EVENTS})",
    )
    sub.add_parser(
        "bench",
        help="measure physics throughput (arguments go to cuegym.tools.bench; see cuegym bench --help)",
        add_help=False,
    )
    for name, module in COMMANDS.items():
        mod = importlib.import_module(f"{__package__}.{module}")
        mod.add_arguments(sub.add_parser(name, help=mod.HELP, description=mod.DESCRIPTION))
    return parser


# ----------------------------------------------------------------------------- simulate


def simulate_position(position, shot, max_events: int | None = None) -> dict:
    """Simulate ``shot`` (a :class:`~cuegym.positions.ShotSpec`) on ``position`` and return
    the command's JSON object (``events``, ``final``, ``truncated``, ``shot``, ``next``).

    When the position names a game, its referee judges it (:mod:`cuegym.positions.judging`;
    a game no referee judges raises PositionError naming ``game``): the shot is first
    checked against the referee state (a ball in hand is placed at ``shot.place``), and the
    result also has ``ruling``; ``next`` then carries the next referee state. In a phase
    that takes a choice (Moscow pyramid's ``remove_ball``, MP-09; snooker's ``foul_choice``,
    SN-68/58/19/50; golf's ``house_choice``, GF-23) nothing is simulated: ``shot.choice``
    is the answer."""
    import numpy as np

    from cuegym.physics import CUSHIONS, KIND_NAMES, OFF_TABLE, POCKETED, POCKETS, get_table, simulate
    from cuegym.physics.events import carries_other
    from cuegym.physics.simulate import DEFAULT_MAX_EVENTS
    from cuegym.positions import next_position, rounded

    max_events = DEFAULT_MAX_EVENTS if max_events is None else int(max_events)
    prepared = None
    if position.game is not None:
        from cuegym.positions import judging

        judging.files_for(position.game)  # a game no referee judges is refused, naming ``game``
        if judging.awaits_choice(position):
            ruling, nxt = judging.choose_position(position, shot.choice)
            return {"events": [], "final": None, "truncated": False, "shot": shot.to_dict(), "ruling": ruling, "next": nxt}
        prepared = judging.prepare(position, shot)  # validates the call, places a ball in hand
    balls = prepared.balls if prepared is not None else position.ball_state()
    args = (get_table(position.table), balls, shot.to_physics(position))
    # the simulator's default log capacity shares compiled code with every other caller;
    # a shot with more events is run again (deterministically) with room for all of them:
    # the strike, a take-off and each event of the loop
    final, log, summary = simulate(*args, max_events=max_events)
    if bool(log.overflow):
        final, log, summary = simulate(*args, max_events=max_events, log_capacity=max_events + 2)
    assert not bool(log.overflow)
    ids = position.ids
    kind, t, ball, other = (np.asarray(x) for x in (log.kind, log.t, log.ball, log.other))
    lr, lv = np.asarray(log.r), np.asarray(log.v)
    count = min(int(log.count), log.capacity)
    events = []
    for k in range(count):
        name = KIND_NAMES[int(kind[k])]
        involved = [int(ball[k])] + ([int(other[k])] if carries_other(kind[k], other[k]) else [])
        event = {
            "t": rounded(t[k]),
            "kind": name,
            "balls": [ids[i] for i in involved],
            "pos": {ids[i]: [rounded(lr[k, s, 0]), rounded(lr[k, s, 1])] for s, i in enumerate(involved)},
            "vel": {ids[i]: [rounded(lv[k, s, 0]), rounded(lv[k, s, 1])] for s, i in enumerate(involved)},
        }
        if name == "cushion":
            event["cushion"] = CUSHIONS[int(other[k])]
        elif name in ("jaw", "pocket"):
            event["pocket"] = POCKETS[int(other[k])]
        events.append(event)
    r, state, pocket = np.asarray(final.r), np.asarray(final.state), np.asarray(final.pocket)
    on_start = np.asarray(balls.state) < POCKETED
    present = [(k, i) for k, i in enumerate(ids) if on_start[k]]
    result = {
        "events": events,
        "final": {
            "balls": {i: [rounded(r[k, 0]), rounded(r[k, 1])] for k, i in present if state[k] < POCKETED},
            "pocketed": {i: POCKETS[int(pocket[k])] for k, i in present if state[k] == POCKETED},
            "off_table": [i for k, i in present if state[k] == OFF_TABLE],
        },
        "truncated": bool(log.truncated),
        "shot": shot.to_dict(),
        "next": next_position(position, final),
    }
    if prepared is not None:
        result["ruling"], result["next"] = judging.judge_position(position, prepared, summary, final)
    return result


def _xy(p) -> str:
    return f"({p[0]:.4f}, {p[1]:.4f})"


def format_pretty(result: dict, position, shot) -> str:
    """A human-readable report of :func:`simulate_position`'s result."""
    head = f"{position.table}" + (f", {position.game}" if position.game else "")
    lines = [
        f"{head}: {len(position.balls)} balls on the table",
        f"shot: ball {shot.cue_ball!r}, phi {shot.phi:.4f} rad, speed {shot.speed:g} m/s, "
        f"a {shot.a:g}, b {shot.b:g}, theta {shot.theta:.4f} rad",
        "",
        f"{'t [s]':>10}  {'event':<9} {'balls':<14} {'where':<11} position (x, y) m / speed m/s",
    ]
    for e in result["events"]:
        where = e.get("cushion") or e.get("pocket") or ""
        balls = ", ".join(e["balls"])
        state = "; ".join(
            f"{i} {_xy(e['pos'][i])} {(e['vel'][i][0] ** 2 + e['vel'][i][1] ** 2) ** 0.5:.3f}" for i in e["balls"]
        )
        lines.append(f"{e['t']:10.6f}  {e['kind']:<9} {balls:<14} {where:<11} {state}")
    final = result["final"]
    lines += ["", f"final: {len(final['balls'])} balls on the table"]
    lines += [f"  {i:<8} {_xy(p)}" for i, p in final["balls"].items()]
    pocketed = ", ".join(f"{i} in {p}" for i, p in final["pocketed"].items()) or "none"
    lines.append(f"pocketed: {pocketed}")
    lines.append(f"off the table: {', '.join(final['off_table']) or 'none'}")
    if result["truncated"]:
        lines.append("TRUNCATED: the event cap was reached with balls still moving")
    if "ruling" in result:
        lines += [""] + format_ruling(result["ruling"])
    return "\n".join(lines)


def format_ruling(ruling: dict) -> list[str]:
    """The referee's ruling as text lines, each rule named by its catalogue id and title."""
    from cuegym.rules.catalogue import get

    verdict = f"FOUL by player {ruling['fouler']}" if ruling["foul"] else "no foul"
    if ruling["replay"]:
        verdict = "position restored, the stroke is replayed"
    lines = [f"ruling: {verdict}; points {ruling['points']}, scores {ruling['scores']}"]
    if ruling["counted"]:
        lines.append(f"  counted: {', '.join(ruling['counted'])}")
    if ruling["respotted"]:
        lines.append("  re-spotted: " + ", ".join(f"{i} at {_xy(p)}" for i, p in ruling["respotted"].items()))
    lines += [f"  {cid}: {get(cid).title}" for cid in ruling["clauses"]]
    if ruling["frame_over"]:
        lines.append(f"frame over: player {ruling['winner']} wins")
    else:
        lines.append(f"next: player {ruling['to_play']}, {ruling['phase'].replace('_', ' ')}")
    return lines


def _cmd_simulate(args) -> int:
    from cuegym.positions import dumps, load_position, load_shot

    position = load_position(args.position)
    shot = load_shot(args.shot, position)
    result = simulate_position(position, shot, args.max_events)
    if args.pretty and result["final"] is None:
        print("\n".join(format_ruling(result["ruling"])))
    elif args.pretty:
        print(format_pretty(result, position, shot))
    else:
        print(dumps(result))
    return 0


# ----------------------------------------------------------------------------- bench


def _cmd_bench(argv: list[str]) -> int:
    try:
        bench = importlib.import_module(f"{__package__}.bench")
    except ModuleNotFoundError as e:
        if e.name != f"{__package__}.bench":
            raise
        print("error: bench: cuegym.tools.bench is not available in this installation", file=sys.stderr)
        return EXIT_BAD_INPUT
    code = bench.main(argv)
    return int(code or 0)


# ----------------------------------------------------------------------------- entry


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    from cuegym.positions import PositionError

    argv = list(sys.argv[1:] if argv is None else argv)
    enable_compilation_cache()
    compile_log.show()  # a first call that compiles says so (docs/architecture.md, "Compiled programs")
    if argv and argv[0] == "bench":  # forwarded untouched, --help included
        return _cmd_bench(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        if args.command == "simulate":
            return _cmd_simulate(args)
        if args.command in COMMANDS:
            return int(importlib.import_module(f"{__package__}.{COMMANDS[args.command]}").run(args) or 0)
    except PositionError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # output piped into a reader that stopped (| head)
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    raise AssertionError(f"unhandled command {args.command!r}")  # pragma: no cover


if __name__ == "__main__":
    sys.exit(main())
