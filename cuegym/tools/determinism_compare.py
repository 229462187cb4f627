"""Comparing two determinism rollouts, or a rollout with a golden file: the first
divergent step, the field that differs there and the event of that step
(docs/determinism.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from cuegym.tools.determinism_golden import Golden
from cuegym.tools.determinism_rollout import OBS_PREFIX, OUTCOME_FIELDS, SHOT_NAMES, Rollout, Step


@dataclasses.dataclass
class Mismatch:
    """A check that failed for (``env_id``, ``seed``). ``check``: ``repeat``, ``vector``
    (``lane`` the sub-env) or ``golden``; ``expected``/``actual``: the hashes. ``step`` and
    ``field`` name the first divergent step (0-based action index) and row field, None when
    the rows agree or are missing; ``expected_value``/``actual_value`` show that field;
    ``expected_event``/``actual_event`` the event of that step (reward, flags, foul,
    clauses, stroke); ``note`` says more where needed."""

    check: str
    env_id: str
    seed: int
    expected: str
    actual: str
    lane: int | None = None
    step: int | None = None
    field: str | None = None
    expected_value: Any = None
    actual_value: Any = None
    expected_event: dict | None = None
    actual_event: dict | None = None
    note: str | None = None

    def to_json(self) -> dict:
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}


def first_divergence(expected: Sequence[dict], actual: Sequence[dict]) -> tuple | None:
    """(step, field) of the first row field that differs between two rollouts' rows (field
    -> JSON value, :meth:`Step.row`), fields in ``actual``'s order; a field that one side
    does not record (None, as ``clauses`` of a golden file without them) is skipped. A
    missing step is reported with field ``"steps"``. None when every row agrees."""
    for k in range(max(len(expected), len(actual))):
        if k >= len(expected) or k >= len(actual):
            return k, "steps"
        want, got = expected[k], actual[k]
        for name in list(got) + [n for n in want if n not in got]:
            a, b = want.get(name), got.get(name)
            if a is None and b is None:
                continue
            if (a is None or b is None) and name in ("clauses", "shot"):
                continue
            if a != b:
                return k, name
    return None


def event(row: dict, step: Step | None = None) -> dict:
    """The event of a step for a report: reset, reward, flags, foul, clauses and the stroke
    (its values when the step is at hand, else the row's digest)."""
    out = {k: row.get(k) for k in OUTCOME_FIELDS if k in row and row.get(k) is not None}
    if step is not None and step.shot is not None:
        out["shot"] = {n: round(float(x), 9) for n, x in zip(SHOT_NAMES, step.shot)}
    return out


def field_values(field: str, want: Step | None, got: Step | None, want_row: dict, got_row: dict) -> tuple:
    """How the divergent ``field`` reads on each side: for an observation field with both
    steps at hand, the differing entries (index: value, at most four), else the row values."""
    import numpy as np

    if field.startswith(OBS_PREFIX) and want is not None and got is not None:
        key = field[len(OBS_PREFIX):]
        a, b = np.asarray(want.obs.get(key)), np.asarray(got.obs.get(key))
        if a.shape == b.shape and a.shape != ():
            where = np.argwhere(a != b)[:4]
            if len(where):
                def pick(x):
                    return {str(tuple(int(i) for i in ix)): x[tuple(ix)].item() for ix in where}
                return pick(a), pick(b)
        return a.tolist(), b.tolist()
    if field == "shot" and want is not None and got is not None and want.shot is not None and got.shot is not None:
        return [float(x) for x in want.shot], [float(x) for x in got.shot]
    return want_row.get(field), got_row.get(field)


def compare_rollouts(check: str, expected: Rollout, actual: Rollout, lane: int | None = None) -> Mismatch | None:
    """A :class:`Mismatch` when two rollouts of the same env and seed differ, else None."""
    want_rows, got_rows = expected.rows(), actual.rows()
    where = first_divergence(want_rows, got_rows)
    if where is None and expected.hash == actual.hash:
        return None
    m = Mismatch(check, actual.env_id, expected.seed, expected.hash, actual.hash, lane=lane)
    if where is None:
        m.note = "the hashes differ but every step's row agrees"
        return m
    k, name = where
    m.step, m.field = k, name
    if name != "steps":
        want, got = expected.steps[k], actual.steps[k]
        m.expected_value, m.actual_value = field_values(name, want, got, want_rows[k], got_rows[k])
        m.expected_event, m.actual_event = event(want_rows[k], want), event(got_rows[k], got)
    return m


def compare_golden(golden: Golden, rollout: Rollout) -> Mismatch | None:
    """A :class:`Mismatch` when ``rollout`` differs from the golden file's hash or rows."""
    import numpy as np

    want_hash = golden.hashes[rollout.env_id][rollout.seed]
    want_rows = (golden.rows.get(rollout.env_id) or {}).get(rollout.seed)
    got_rows = rollout.rows()
    where = None if want_rows is None else first_divergence(want_rows, got_rows)
    if where is None and want_hash == rollout.hash:
        return None
    m = Mismatch("golden", rollout.env_id, rollout.seed, want_hash, rollout.hash)
    if want_rows is None:
        m.note = "the golden file stores no per-step rows (rewrite it with --write-golden to name the step)"
    elif where is None:
        m.note = "the hashes differ but every stored row agrees (was the golden file edited?)"
    else:
        k, name = where
        m.step, m.field = k, name
        if name != "steps":
            m.expected_value, m.actual_value = want_rows[k].get(name), got_rows[k][name]
            step = rollout.steps[k]
            if name.startswith(OBS_PREFIX):  # the golden side is a digest: show the value too
                value = np.asarray(step.obs[name[len(OBS_PREFIX):]]).tolist()
                m.actual_value = {"digest": m.actual_value, "value": value}
            elif name == "shot" and step.shot is not None:
                m.actual_value = {"digest": m.actual_value, "value": [float(x) for x in step.shot]}
            m.expected_event, m.actual_event = event(want_rows[k]), event(got_rows[k], rollout.steps[k])
    return m
