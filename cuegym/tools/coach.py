"""``cuegym suggest POSITION``: the best strokes for the player to play, for coaches.

For each suggestion: the called ball and pocket (or the ball in hand's place, the ball
given back on a foul), the stroke in a player's words (aim as cut angle and ball fraction,
pace in m/s and soft / medium / firm, tip as follow / draw / side:
:mod:`cuegym.tools.coach_words`), the probability of scoring under the chosen noise, the
expected points, the most likely ruling when it fails (catalogue ids and titles), and where
the cue ball is expected to finish. The engine is :mod:`cuegym.tools.coach_search` (the search
agent's candidates, replayed under noise); pictures are :mod:`cuegym.tools.coach_picture`.
docs/coach.md documents the command, the words and the JSON schema.

Python: :func:`suggest`. Deterministic for a fixed ``seed``.
"""

from __future__ import annotations

import math
import os
import sys

from cuegym._io import write_atomic

SCHEMA = "cuegym.suggest/1"
"""The ``schema`` of ``--json`` output; bumped when a field changes meaning or goes away."""
MAX_TOP = 20
AGENTS = ("search", "pretrained")
"""``--agent``: whose candidates are ranked (``--policy DIR`` a trained folder of one's own)."""
FORMATS = {".svg": "svg", ".png": "png", ".html": "html", ".htm": "html"}
PICTURE_WIDTH = 360  # px per panel

HELP = "rank the best strokes of a position, in a player's words (for coaches)"
DESCRIPTION = (
    "Rank the best strokes for the player to play in POSITION: the call, the aim (cut angle, ball "
    "fraction), pace and tip in words, the probability of scoring under noise, the expected points, "
    "the ruling if it fails and where the cue ball finishes. See docs/coach.md."
)


def _check_top(top) -> int:
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= MAX_TOP:
        raise ValueError(f"top: a whole number of suggestions from 1 to {MAX_TOP}, got {top!r}")
    return top


def _check_noise(noise) -> float:
    if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not math.isfinite(noise) or noise < 0:
        raise ValueError(f"noise: a finite multiple of the tournament sigmas, >= 0, got {noise!r}")
    return float(noise)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise ValueError(f"seed: a whole number from 0 to 2**32 - 1, got {seed!r}")
    return seed


def _check_agent(agent, policy, field: str = "agent") -> str:
    if agent not in AGENTS:
        raise ValueError(f"{field}: one of {', '.join(AGENTS)}, got {agent!r}")
    if agent == "pretrained" and policy is not None:
        raise ValueError(f"{field}: 'pretrained' ranks the shipped policy's candidates, policy a folder of one's own; "
                         "give one of them")
    return agent


def shipped_policy(position, noise: float, field: str = "agent"):
    """The learned agent cuegym ships for ``position``'s game
    (:func:`cuegym.agents.pretrained`), reading the position's table at ``noise``.
    ValueError naming ``field`` when the game has none (with the ids that have one)."""
    from cuegym.agents import pretrained
    from cuegym.envs.registry import GAMES
    from cuegym.tools.coach_search import task_of

    env_id = GAMES[task_of(position)[0]].env_id
    try:
        pretrained.folder(env_id)
    except ValueError as e:
        raise ValueError(f"{field}: 'pretrained' has no agent for this position's game; {e}") from None
    return pretrained(env_id, table=position.table, noise=float(noise))


def suggest(position, top: int = 3, noise: float = 1.0, seed: int = 0, budget: dict | None = None,
            policy=None, agent: str = "search") -> list:
    """The ``top`` best strokes of ``position`` (a :class:`cuegym.positions.Position`, a
    file name, JSON text or a dict), best first, as :class:`cuegym.tools.coach_search.Suggestion`.

    ``noise``: the execution-noise level the strokes are judged under (a multiple of the
    tournament sigmas, :func:`cuegym.physics.perturb`; 0 plays every stroke exactly).
    ``seed``: the draws of the search and of the replays. ``budget``: the search's knobs
    (``candidates``, ``samples``, ``rounds``, ``plans``, ``random_share``, ``elites`` of
    :class:`cuegym.agents.search.Budget`; default the task's). Fewer than ``top`` come back
    when the search found fewer distinct strokes (at most ``candidates``). ``policy``: the
    folder of a menu policy trained by experiments/train_jax.py, whose candidates are
    replayed and ranked instead of the search's (docs/coach.md); ``agent="pretrained"`` the
    same with the policy cuegym ships for the position's game (:data:`AGENTS`). Raises
    :class:`cuegym.positions.PositionError` for a position it cannot play (field named) and
    ValueError for a bad argument."""
    from cuegym.positions import Position, load_position
    from cuegym.tools.coach_search import rank

    top, noise, seed = _check_top(top), _check_noise(noise), _check_seed(seed)
    agent = _check_agent(agent, policy)
    if not isinstance(position, Position):
        position = load_position(position)
    if agent == "pretrained":
        policy = shipped_policy(position, noise)
    return rank(position, top=top, noise=noise, seed=seed, budget=budget, policy=policy)


# ----------------------------------------------------------------------------- output


def _round(x, digits: int = 6):
    if isinstance(x, float):
        return round(x, digits) + 0.0
    if isinstance(x, dict):
        return {k: _round(v, digits) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_round(v, digits) for v in x]
    return x


def report(position, suggestions, *, noise: float, seed: int, budget: dict, policy: str | None = None,
           agent: str = "search") -> dict:
    """The ``--json`` object (docs/coach.md, schema :data:`SCHEMA`)."""
    from cuegym.physics import get_spec
    from cuegym.tools import coach_words as W

    soft, firm = W.pace_bands(get_spec(position.table))
    state = position.state or {}
    return _round({
        "schema": SCHEMA,
        "position": {"game": position.game, "table": position.table, "to_play": state.get("to_play", 0),
                     "phase": state.get("phase")},
        "noise": noise,
        "seed": seed,
        "budget": budget,
        "agent": "policy" if policy and agent == "search" else agent,
        "policy": policy,
        "pace_bands": {"soft_below": soft, "firm_from": firm},
        "suggestions": [s.to_dict() for s in suggestions],
    })


def _target_words(s) -> str:
    a = s.action
    if a["call"]:
        words = f"call {a['call']['ball']} in {a['call']['pocket']}"
    elif a.get("nominate"):
        words = f"nominate {a['nominate']}" + (f", pot {s.target['ball']} in {s.target['pocket']}" if s.target else "")
    elif s.target:
        words = f"pot {s.target['ball']} in {s.target['pocket']}"
    else:
        words = "no pot aimed at"
    if a["cue_ball"] != "cue":
        words = f"strike {a['cue_ball']}, " + words
    if a["place"]:
        words += f"; place {a['cue_ball']} at ({a['place'][0]:.3f}, {a['place'][1]:.3f}) m"
    if a["choice"]:
        words += f"; give back {a['choice']} on a foul"
    return words


def _aim_words(s) -> str:
    aim = s.aim
    if aim["ball"] is None:
        return f"{aim['words']} (heading {aim['phi_deg']:.2f} deg)"
    return (f"{aim['words']} on {aim['ball']} (cut {aim['cut_deg']:.1f} deg, fraction {aim['fraction']:.2f}; "
            f"heading {aim['phi_deg']:.2f} deg)")


def _pace_words(s) -> str:
    p = s.pace
    return (f"{p['band']}: cue {p['speed']:.2f} m/s (cue ball {p['ball_speed']:.2f} m/s, "
            f"rolls {p['travel_m']:.1f} m alone)")


def _failure_words(s) -> str:
    f = s.failure
    if f is None:
        return "never failed in the replays"
    verdict = "foul" if f["foul"] else "no foul"
    clauses = "; ".join(f"{c['id']} {c['title']}" for c in f["clauses"]) or "no clause"
    return f"{100 * f['share']:.0f}% of replays: {verdict}, {f['points']:+.2f} points ({clauses})"


def _finish_words(s) -> str:
    c = s.cue_finish
    at = lambda p: f"({p[0]:.2f}, {p[1]:.2f}) m" if p else "off the table"  # noqa: E731
    words = f"about {at(c['expected'])}, noise-free {at(c['noise_free'])}"
    if c["lost_share"] > 0:
        words += f"; pocketed or off the table in {100 * c['lost_share']:.0f}%"
    return words


COLUMNS = ("rank", "stroke", "aim", "pace", "tip", "success", "expected points", "if it fails", "cue ball finishes")


def rows(suggestions) -> list[list[str]]:
    """The text cells of each suggestion, in :data:`COLUMNS` order."""
    return [[str(s.rank), _target_words(s), _aim_words(s), _pace_words(s), s.tip["words"],
             f"{100 * s.probability:.0f}% of {s.samples}", f"{s.expected_points:+.2f}", _failure_words(s),
             _finish_words(s)] for s in suggestions]


def format_text(position, suggestions, *, noise: float, seed: int, budget: dict, policy: str | None = None,
                agent: str = "search") -> str:
    """The default, human-readable report."""
    state = position.state or {}
    head = (f"{position.game or 'pot shot (no game)'} on {position.table}; player {state.get('to_play', 0)} to play"
            f"{', ' + state['phase'].replace('_', ' ') if state.get('phase') else ''}")
    whose = f"the pretrained menu policy ({policy})" if agent == "pretrained" else f"the menu policy in {policy}"
    found = (f"{whose}, its candidates replayed {budget['samples']} times each" if policy else
             f"search {budget['candidates']} candidates x {budget['samples']} samples x {budget['rounds']} rounds")
    lines = [head, f"noise {noise:g} x tournament sigmas, seed {seed}, {found}", ""]
    if not suggestions:
        lines.append("no stroke found")
    width = max(len(c) for c in COLUMNS[1:])
    for row in rows(suggestions):
        lines.append(f"#{row[0]}")
        lines += [f"  {name:<{width}}  {cell}" for name, cell in zip(COLUMNS[1:], row[1:])]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# ----------------------------------------------------------------------------- files


def check_output(path: str) -> str:
    """The format of ``-o`` (svg, png, html); ValueError naming ``-o`` for an unknown
    extension or a folder that does not exist or cannot be written."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        raise ValueError(f"-o: unknown picture format {ext or '(none)'!r} in {path!r}; use .svg, .png or .html")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"-o: the folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"-o: the folder {folder!r} cannot be written")
    if os.path.isdir(path):
        raise ValueError(f"-o: {path!r} is a folder; give a file name")
    return FORMATS[ext]


def picture(position, suggestions, fmt: str, width: int = PICTURE_WIDTH) -> bytes:
    """The ``-o`` file's bytes in ``fmt`` (svg, png, html)."""
    from cuegym.tools import coach_picture as P

    if fmt == "svg":
        return P.svg(position, suggestions, width).encode()
    if fmt == "png":
        return P.png_bytes(P.image(position, suggestions, width))
    return P.html_page(position, suggestions, rows(suggestions), list(COLUMNS), width).encode()


# ----------------------------------------------------------------------------- command


def add_arguments(parser) -> None:
    parser.add_argument("position", metavar="POSITION", help="position file (JSON), or inline JSON text")
    parser.add_argument("--top", default="3", metavar="K",
                        help=f"how many strokes to suggest, 1 to {MAX_TOP} (default 3)")
    parser.add_argument("--noise", default="1.0", metavar="LEVEL",
                        help="execution noise the strokes are judged under, a multiple of the tournament sigmas "
                             "(default 1; 0: exact strokes)")
    parser.add_argument("--seed", default="0", metavar="N", help="seed of the search and the replays (default 0)")
    parser.add_argument("--json", action="store_true", help=f"print JSON (schema {SCHEMA}) instead of text")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="also draw the suggestions: FILE.svg, FILE.png or FILE.html")
    parser.add_argument("--candidates", metavar="C", help="search: candidates per round (default: the game's)")
    parser.add_argument("--samples", metavar="S", help="search: noisy copies of each candidate (default: the game's)")
    parser.add_argument("--rounds", metavar="R", help="search: rounds (default: the game's)")
    parser.add_argument("--policy", metavar="DIR",
                        help="rank the candidates of a menu policy trained by experiments/train_jax.py (its output "
                             "folder) instead of searching")
    parser.add_argument("--agent", default="search", metavar="NAME",
                        help="whose candidates to rank: search (default) or pretrained (the learned agent cuegym "
                             "ships for the position's game; needs cuegym[train])")


def _int(text, field: str) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        raise ValueError(f"{field}: a whole number, got {text!r}") from None


def _parse(args) -> dict:
    try:
        noise = float(args.noise)
    except ValueError:
        raise ValueError(f"--noise: a number, got {args.noise!r}") from None
    out = {"top": _int(args.top, "--top"), "noise": noise, "seed": _int(args.seed, "--seed")}
    for check, name in ((_check_top, "top"), (_check_noise, "noise"), (_check_seed, "seed")):
        try:
            check(out[name])
        except ValueError as e:
            raise ValueError(f"--{e}") from None
    budget = {}
    for name, lo in (("candidates", 2), ("samples", 1), ("rounds", 1)):
        text = getattr(args, name)
        if text is not None:
            budget[name] = _int(text, f"--{name}")
            if budget[name] < lo:
                raise ValueError(f"--{name}: at least {lo}, got {budget[name]}")
    out["budget"] = budget
    out["format"] = check_output(args.output) if args.output else None
    return out


def run(args) -> int:
    from cuegym.positions import PositionError, dumps, load_position

    try:
        opts = _parse(args)
        agent = _check_agent(args.agent, args.policy, "--agent")
        position = load_position(args.position)
        policy = args.policy
        if agent == "pretrained":
            try:
                policy = shipped_policy(position, opts["noise"], "--agent")
            except ImportError as e:  # without the train extra: the message says what to install
                raise ValueError(f"--agent: {e}") from None
        suggestions = suggest(position, opts["top"], opts["noise"], opts["seed"], opts["budget"] or None,
                              policy=policy)
    except (PositionError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from cuegym.tools.coach_search import resolved_budget, task_of

    b = resolved_budget(task_of(position)[0], opts["budget"])
    budget = {"candidates": b.candidates, "samples": b.samples, "rounds": b.rounds}
    folder = str(policy.path) if agent == "pretrained" else args.policy
    meta = {"noise": opts["noise"], "seed": opts["seed"], "budget": budget, "policy": folder, "agent": agent}
    if opts["format"]:
        try:
            write_atomic(args.output, picture(position, suggestions, opts["format"]))
        except OSError as e:
            print(f"error: -o: cannot write {args.output!r} ({e.strerror or e})", file=sys.stderr)
            return 2
    if args.json:
        print(dumps(report(position, suggestions, **meta)))
    else:
        sys.stdout.write(format_text(position, suggestions, **meta))
    return 0

