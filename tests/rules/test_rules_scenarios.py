"""Rule scenarios as data: one file per catalogue clause (``tests/rules/scenarios/<game>/<ID>_<what>.json``).

A scenario is a position file, a shot file and the ruling the catalogue demands. The shot is
simulated by the physics unless the scenario gives ``events`` (a short event list, for cases
a physical shot would make awkward; see ``cuegym.positions.judging.summary_from_events``). Fields:

* ``position``, ``shot``: as the position and shot files (docs/rules.md) (``shot.call``, ``place``, ``choice``,
  ``inject``); ``events`` and ``final`` (optional, synthetic summary).
* ``expect``: ``clauses`` (each must be cited), ``not_clauses`` (none may be), and any of the
  ruling's fields (``foul``, ``points``, ``scores``, ``to_play``, ``phase``, ``counted``
  (compared as a set), ``respotted`` (ids -> [x, y] within 1e-6 m, or a list of ids),
  ``frame_over``, ``winner``, ``debt``, ``replay``, ``warning``, ``fouler``); ``next_state``
  (a subset of the next position's state); ``next_balls`` ({id: [x, y]} within 1e-6 m) and
  ``absent`` (ids not on the table next).
* ``error`` instead of ``expect``: the shot is refused with a PositionError naming ``field``.
* ``options`` (snooker and American snooker only): the referee's rule options for the stroke
  and its ``then``, e.g. ``{"miss_restore": "every_ball"}`` (``cuegym.rules.snooker_options``;
  left out: the defaults, the original's readings).
* ``then``: a decision taken on the position the stroke left, ``{"choice": name, "expect":
  {...}}`` (a snooker ``foul_choice`` option, e.g. ``"restore"``), checked as ``expect`` is;
  its ``expect`` may add ``kept`` (ids the decision leaves where the stroke left them).
"""

import json
import pathlib

import numpy as np
import pytest

from cuegym.positions import PositionError, load_position, load_shot
from cuegym.rules.snooker_options import snooker_options

ROOT = pathlib.Path(__file__).parent / "scenarios"
FILES = sorted(ROOT.glob("*/*.json"))


def _snooker_next(position, ruling, state):
    from cuegym.positions import snooker_play

    balls = {i: [float(ruling.xy[k, 0]), float(ruling.xy[k, 1])] for k, i in enumerate(position.ids) if ruling.on[k]}
    return {"game": position.game, "table": position.table, "balls": balls,
            "state": snooker_play.state_to_dict(state, position.ids)}


def _judge_with_options(data, position, shot):
    """The snooker family's ruling under ``data["options"]``: the stroke simulated (or its
    events), the referee called with the options, the result as the files give it."""
    import jax.numpy as jnp

    from cuegym.physics import get_spec, get_table, simulate
    from cuegym.positions import judging, snooker_play

    opts = snooker_options(**data["options"])
    prepared = judging.prepare(position, shot)
    if "events" in data:
        summary, final = judging.summary_from_events(position, prepared, shot.phi, data["events"], data.get("final"))
    else:
        final, _, summary = simulate(get_table(position.table), prepared.balls, shot.to_physics(position))
    ruling, state = judging.referee(position).judge(get_spec(position.table), prepared.state, prepared.decl, summary,
                                                    jnp.asarray(prepared.xy), jnp.asarray(prepared.on), final, opts=opts)
    return snooker_play.ruling_dict(ruling, position.ids), _snooker_next(position, ruling, state)


def choose_with_options(position_dict, choice, options):
    """A snooker ``foul_choice`` decision on ``position_dict`` under rule ``options``."""
    import jax.numpy as jnp

    from cuegym.physics import get_spec
    from cuegym.positions import judging, snooker_play
    from cuegym.positions.state import open_choice
    from cuegym.rules import snooker as sn

    position = load_position(position_dict)
    state = snooker_play.read_state(position)
    index = open_choice(state, sn.FOUL_CHOICE, sn.SNOOKER_PHASE_NAMES, sn.CHOICE_NAMES, choice)
    ruling, state = judging.referee(position).choose(get_spec(position.table), state, jnp.asarray(position.xy()),
                                                     jnp.asarray(position.on_table()), jnp.asarray(index, jnp.int32),
                                                     opts=snooker_options(**options))
    return snooker_play.ruling_dict(ruling, position.ids), _snooker_next(position, ruling, state)


def run_scenario(data):
    from cuegym.positions import judging
    from cuegym.tools.cli import simulate_position

    position = load_position(data["position"])
    shot = load_shot(data["shot"], position)
    if "options" in data:
        return _judge_with_options(data, position, shot)
    if "events" in data:
        prepared = judging.prepare(position, shot)
        summary, final = judging.summary_from_events(position, prepared, shot.phi, data["events"], data.get("final"))
        return judging.judge_position(position, prepared, summary, final)
    result = simulate_position(position, shot)
    assert not result["truncated"]
    return result["ruling"], result["next"]


def check(expect, ruling, nxt):
    problems = []
    for cid in expect.get("clauses", []):
        if cid not in ruling["clauses"]:
            problems.append(f"clause {cid} not cited (cited: {ruling['clauses']})")
    for cid in expect.get("not_clauses", []):
        if cid in ruling["clauses"]:
            problems.append(f"clause {cid} cited but must not be")
    for key in ("foul", "points", "scores", "to_play", "phase", "frame_over", "winner", "debt", "replay", "warning", "fouler"):
        if key in expect and ruling[key] != expect[key]:
            problems.append(f"{key}: expected {expect[key]!r}, got {ruling[key]!r}")
    if "counted" in expect and sorted(ruling["counted"]) != sorted(expect["counted"]):
        problems.append(f"counted: expected {sorted(expect['counted'])}, got {sorted(ruling['counted'])}")
    if "respotted" in expect:
        want = expect["respotted"]
        if isinstance(want, list):
            if sorted(ruling["respotted"]) != sorted(want):
                problems.append(f"respotted: expected {sorted(want)}, got {sorted(ruling['respotted'])}")
        else:
            if sorted(ruling["respotted"]) != sorted(want):
                problems.append(f"respotted: expected {sorted(want)}, got {sorted(ruling['respotted'])}")
            else:
                for ball, p in want.items():
                    if not np.allclose(ruling["respotted"][ball], p, atol=1e-6, rtol=0):
                        problems.append(f"respotted {ball}: expected {p}, got {ruling['respotted'][ball]}")
    for key, value in expect.get("next_state", {}).items():
        if nxt["state"].get(key) != value:
            problems.append(f"next state.{key}: expected {value!r}, got {nxt['state'].get(key)!r}")
    for ball, p in expect.get("next_balls", {}).items():
        if ball not in nxt["balls"]:
            problems.append(f"next balls: {ball} is not on the table")
        elif not np.allclose(nxt["balls"][ball], p, atol=1e-6, rtol=0):
            problems.append(f"next balls {ball}: expected {p}, got {nxt['balls'][ball]}")
    for ball in expect.get("absent", []):
        if ball in nxt["balls"]:
            problems.append(f"next balls: {ball} should be off the table")
    return problems


def test_scenarios_exist():
    assert len(FILES) >= 100, f"only {len(FILES)} scenario files under {ROOT}"


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_scenario(path):
    data = json.loads(path.read_text())
    if "error" in data:
        with pytest.raises(PositionError) as info:
            run_scenario(data)
        assert info.value.field == data["error"]["field"], str(info.value)
        return
    ruling, nxt = run_scenario(data)
    problems = check(data["expect"], ruling, nxt)
    assert not problems, f"{path.name}: {data.get('title', '')}\n  " + "\n  ".join(problems) + f"\n  ruling: {json.dumps(ruling)}"
    if "then" in data:
        ruling, after = choose_with_options(nxt, data["then"]["choice"], data.get("options", {}))
        problems = check(data["then"]["expect"], ruling, after)
        problems += [f"{b} moved by the choice: {nxt['balls'].get(b)} -> {after['balls'].get(b)}"
                     for b in data["then"]["expect"].get("kept", []) if after["balls"].get(b) != nxt["balls"].get(b)]
        assert not problems, f"{path.name} then {data['then']['choice']}:\n  " + "\n  ".join(problems)


def test_a_third_of_each_game_is_physical():
    """The issue asks that at least a third of each game's scenarios run real shots."""
    for game in sorted({p.parent.name for p in FILES}):
        files = [p for p in FILES if p.parent.name == game]
        physical = [p for p in files if "events" not in json.loads(p.read_text())]
        assert 3 * len(physical) >= len(files), f"{game}: {len(physical)} of {len(files)} scenarios run the physics"
