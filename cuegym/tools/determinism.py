"""``cuegym check-determinism``: seeded rollouts, hashed, repeated, vectorised and compared
with a golden file (DESIGN.md §7; docs/determinism.md).

A rollout of env ``id`` with seed ``s`` resets the env with ``s``, draws ``steps`` actions
from its action space seeded ``s`` and resets (unseeded) after each finished episode. Its
hash is the SHA-256 of the observations each action was chosen on and of each step's
reward and flags: the same bytes as ``tests/env_api.py``'s ``rollout_hash``, so the
committed ``tests/golden_env_rollouts.json`` stays valid. Beside the hash the rollout keeps
one row per step (:class:`Step`): a short digest of each observation field, the reward,
``terminated``, ``truncated`` and the decision (``foul``, the catalogue clause ids applied,
the stroke played after noise), so that two rollouts that differ can be compared step by
step and the first divergent step, field and event named.

Each (id, seed) is checked three ways: the rollout run twice in this process (``repeat``),
sub-env ``i`` of a vector env of ``--vector`` sub-envs seeded ``s`` against the single env
seeded ``s + i`` (``vector``), and, with ``--golden FILE``, against the stored hashes and
rows (``golden``). Exit status: 0 every check matches, 1 a mismatch (determinism broken),
2 bad input (an unknown id, a malformed golden file, an unwritable output path).

Golden file (JSON, ``--write-golden FILE`` writes it atomically)::

    {"format": 1, "steps": N, "jax": "0.x.y", "machine": "x86_64",
     "hashes": {id: {"<seed>": "<sha256 hex>"}},
     "steps_digest": {id: {"fields": [name, ...], "seeds": {"<seed>": [[value, ...] per step]}}}}

Each row lists one value per name of ``fields`` (:data:`FIELDS`). The layout of
``tests/golden_env_rollouts.json`` (``{"seed", "steps", "jax", "machine", "hashes": {id:
hash}}``) is read too, without rows (a mismatch then names the id and seed only).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
import sys
import tempfile
import time
from typing import Any, Sequence

HELP = "check that seeded env rollouts are reproducible (twice, in a vector env, against a golden file)"
DESCRIPTION = (
    "Run seeded rollouts of each env id and print a SHA-256 per id and seed. Each rollout is run twice in "
    "this process and once inside a vector env, and with --golden compared with a stored file; a mismatch "
    "names the first divergent step, the field and the event of that step. Exit status: 0 all match, "
    "1 a mismatch, 2 bad input. docs/determinism.md shows a GitHub Actions job."
)

FORMAT = 1
EXIT_OK, EXIT_MISMATCH, EXIT_BAD_INPUT = 0, 1, 2
DEFAULT_SEEDS = (0, 1, 2)
DEFAULT_STEPS = 200  # the steps of tests/golden_env_rollouts.json
DEFAULT_VECTOR = 1  # a vector env of one runs the single env's compiled program: no new compile
DIGEST_CHARS = 8  # hex digits of a per-step digest: 32 bits, a 1-in-4e9 chance to miss a change
OBS_PREFIX = "obs."
# the row's fields after the observation's (``obs.<key>`` in the observation space's order)
OUTCOME_FIELDS = ("reset", "reward", "terminated", "truncated", "foul", "clauses", "shot")
SHOT_NAMES = ("cue_ball", "phi", "speed", "a", "b", "theta")  # EnvState.last_shot (6,)
_HASH_RE = re.compile(r"[0-9a-f]{64}\Z")
_DIGEST_RE = re.compile(r"[0-9a-f]{%d}\Z" % DIGEST_CHARS)
_SEED_RE = re.compile(r"(0|[1-9][0-9]*)\Z")


class GoldenError(ValueError):
    """A malformed golden file; the message names the field."""


class InputError(ValueError):
    """A bad command-line value; the message names the option."""


# ----------------------------------------------------------------------------- rollouts


def digest(data: bytes) -> str:
    """The short per-step digest (:data:`DIGEST_CHARS` hex digits of SHA-256) of ``data``."""
    return hashlib.sha256(data).hexdigest()[:DIGEST_CHARS]


@dataclasses.dataclass
class Step:
    """One action of a rollout. ``obs``: the observation it was chosen on (field -> array,
    the space's dtypes); ``reset``: that observation came from a reset; ``reward``,
    ``terminated``, ``truncated``: what the step returned; ``foul``, ``clauses`` (catalogue
    ids, None where not read) and ``shot`` (6,) float64 the stroke played after noise
    (cue_ball, phi [rad], speed [m/s], a, b, theta [rad]; speed 0: none) of the decision."""

    obs: dict
    reset: bool
    reward: float
    terminated: bool
    truncated: bool
    foul: bool
    clauses: tuple | None
    shot: Any

    def row(self) -> dict:
        """Field name -> JSON value: a digest per observation field and of the stroke, the
        other fields as they are (the golden file's row)."""
        import numpy as np

        out = {OBS_PREFIX + k: digest(np.asarray(v).tobytes()) for k, v in self.obs.items()}
        out.update(reset=self.reset, reward=float(self.reward), terminated=self.terminated,
                   truncated=self.truncated, foul=self.foul,
                   clauses=None if self.clauses is None else list(self.clauses),
                   shot=None if self.shot is None else digest(np.asarray(self.shot, np.float64).tobytes()))
        return out


@dataclasses.dataclass
class Rollout:
    """A recorded rollout: its ``hash`` (hex SHA-256, as ``tests/env_api.py``'s
    ``rollout_hash``) and its ``steps``."""

    env_id: str
    seed: int
    hash: str
    steps: list

    def rows(self) -> list:
        return [s.row() for s in self.steps]


def _hash_obs(h, obs: dict) -> None:
    import numpy as np

    for v in obs.values():
        h.update(np.asarray(v).tobytes())


def _hash_outcome(h, reward, terminated, truncated) -> None:
    import numpy as np

    h.update(np.float64(reward).tobytes() + bytes([bool(terminated), bool(truncated)]))


def _copy_obs(obs: dict) -> dict:
    import numpy as np

    return {k: np.array(v) for k, v in obs.items()}


def _played(env, lane: int) -> tuple:
    """(clause ids, stroke played (6,) float64) of sub-env ``lane``'s last decision, read
    from the batch of tables behind a cuegym env (the single env's ``info["clauses"]``
    comes from the same mask; the vector env's info has neither); (None, None) for an env
    built otherwise."""
    import jax
    import numpy as np

    from cuegym.rules.base import clause_ids

    tables = getattr(env.unwrapped, "_tables", None)
    if tables is None or getattr(tables, "agent_clauses", None) is None:
        return None, None
    clauses, shot = jax.device_get((tables.agent_clauses, tables.state.last_shot))
    return tuple(clause_ids(np.asarray(clauses)[lane])), np.array(shot[lane], np.float64)


def record_rollout(env_id: str, seed: int, steps: int) -> Rollout:
    """The rollout of ``env_id`` with ``seed`` over ``steps`` seeded random actions."""
    import gymnasium as gym

    env = gym.make(env_id)
    env.action_space.seed(seed)
    h = hashlib.sha256()
    obs, _ = env.reset(seed=seed)
    fresh, out = True, []
    for _ in range(steps):
        _hash_obs(h, obs)
        nxt, reward, terminated, truncated, info = env.step(env.action_space.sample())
        _hash_outcome(h, reward, terminated, truncated)
        clauses, shot = _played(env, 0)
        if "clauses" in info:
            clauses = tuple(info["clauses"])
        out.append(Step(_copy_obs(obs), fresh, float(reward), bool(terminated), bool(truncated),
                        bool(info.get("foul", False)), clauses, shot))
        obs, fresh = nxt, False
        if terminated or truncated:
            obs, _ = env.reset()
            fresh = True
    env.close()
    return Rollout(env_id, seed, h.hexdigest(), out)


def record_vector_rollouts(env_id: str, seed: int, steps: int, num_envs: int) -> list:
    """The rollout of each sub-env of a vector env of ``num_envs`` seeded ``seed``: sub-env
    ``i`` draws its actions from an action space seeded ``seed + i`` and must equal the
    single env's rollout with seed ``seed + i``. A finished sub-env resets on its next step
    (next-step autoreset): it is sent an ignored action then, and its reset observation is
    the next one recorded (where the single env calls ``reset()``)."""
    import copy

    import gymnasium as gym
    import numpy as np

    venv = gym.make_vec(env_id, num_envs=num_envs)
    single = venv.unwrapped.single_action_space
    spaces = [copy.deepcopy(single) for _ in range(num_envs)]
    for i, space in enumerate(spaces):
        space.seed(seed + i)
    idle_space = copy.deepcopy(single)
    idle_space.seed(0)
    idle = idle_space.sample()
    hashes = [hashlib.sha256() for _ in range(num_envs)]
    out = [[] for _ in range(num_envs)]
    taken = np.zeros(num_envs, int)
    resetting = np.zeros(num_envs, bool)
    fresh = np.ones(num_envs, bool)
    obs, _ = venv.reset(seed=seed)
    while taken.min() < steps:
        acting = ~resetting & (taken < steps)
        seen, actions = {}, []
        for i in range(num_envs):
            if acting[i]:
                seen[i] = {k: np.array(v[i]) for k, v in obs.items()}
                _hash_obs(hashes[i], seen[i])
            actions.append(spaces[i].sample() if acting[i] else idle)
        obs, reward, terminated, truncated, info = venv.step({k: np.stack([a[k] for a in actions]) for k in actions[0]})
        for i in np.flatnonzero(acting):
            _hash_outcome(hashes[i], reward[i], terminated[i], truncated[i])
            clauses, shot = _played(venv, i)
            foul = bool(info["foul"][i]) if "foul" in info else False
            out[i].append(Step(seen[i], bool(fresh[i]), float(reward[i]), bool(terminated[i]), bool(truncated[i]),
                               foul, clauses, shot))
        taken += acting
        # a sub-env that just finished resets on its next step; one that was resetting now
        # holds a reset observation
        fresh = np.where(acting, False, fresh | resetting)
        resetting = acting & (terminated | truncated)
    venv.close()
    return [Rollout(env_id, seed + i, hashes[i].hexdigest(), out[i]) for i in range(num_envs)]


# ----------------------------------------------------------------------------- comparing


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


def compare_golden(golden: "Golden", rollout: Rollout) -> Mismatch | None:
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


# ----------------------------------------------------------------------------- golden file


@dataclasses.dataclass
class Golden:
    """A golden file read and checked: ``hashes`` {id: {seed: hex}}, ``rows`` {id: {seed:
    [row dict per step]}} (empty for the layout of tests/golden_env_rollouts.json)."""

    path: str
    steps: int
    jax: str
    machine: str
    hashes: dict
    rows: dict


def _where(path: str, field: str) -> str:
    return f"golden file {path}: field {field}"


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_hashes(path: str, table, field: str, env_ids) -> dict:
    if not isinstance(table, dict) or not table:
        raise GoldenError(f"{_where(path, field)}: expected a non-empty object {{id: {{seed: hash}}}}, got "
                          f"{type(table).__name__}")
    out = {}
    for env_id, seeds in table.items():
        if env_id not in env_ids:
            raise GoldenError(f"{_where(path, f'{field}[{env_id!r}]')}: unknown env id {env_id!r} "
                              f"(known: {', '.join(env_ids)})")
        if not isinstance(seeds, dict) or not seeds:
            raise GoldenError(f"{_where(path, f'{field}[{env_id!r}]')}: expected a non-empty object "
                              f"{{seed: hash}}, got {type(seeds).__name__}")
        out[env_id] = {}
        for seed, h in seeds.items():
            at = f"{field}[{env_id!r}][{seed!r}]"
            if not _SEED_RE.match(seed):
                raise GoldenError(f"{_where(path, at)}: a seed is a whole number >= 0 written in decimal, got {seed!r}")
            if not isinstance(h, str) or not _HASH_RE.match(h):
                raise GoldenError(f"{_where(path, at)}: expected 64 lowercase hex digits (SHA-256), got {h!r}")
            out[env_id][int(seed)] = h
    return out


def _check_value(path: str, at: str, name: str, value) -> None:
    if name.startswith(OBS_PREFIX) or name == "shot":
        ok = (value is None and name == "shot") or (isinstance(value, str) and _DIGEST_RE.match(value))
        want = f"{DIGEST_CHARS} lowercase hex digits" + (" or null" if name == "shot" else "")
    elif name == "reward":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        want = "a finite number"
    elif name == "clauses":
        ok = value is None or (isinstance(value, list) and all(isinstance(c, str) for c in value))
        want = "a list of clause ids or null"
    else:  # reset, terminated, truncated, foul
        ok, want = isinstance(value, bool), "true or false"
    if not ok:
        raise GoldenError(f"{_where(path, at)}: expected {want}, got {value!r}")


def _check_rows(path: str, table, hashes: dict, steps: int) -> dict:
    field = repr("steps_digest")
    if not isinstance(table, dict):
        raise GoldenError(f"{_where(path, field)}: expected an object {{id: {{\"fields\", \"seeds\"}}}}, got "
                          f"{type(table).__name__}")
    if set(table) != set(hashes):
        raise GoldenError(f"{_where(path, field)}: must hold the ids of \"hashes\" ({', '.join(sorted(hashes))}), "
                          f"holds {', '.join(sorted(table)) or 'none'}")
    out = {}
    for env_id, entry in table.items():
        at = f"{field}[{env_id!r}]"
        if not isinstance(entry, dict):
            raise GoldenError(f"{_where(path, at)}: expected an object with \"fields\" and \"seeds\", got "
                              f"{type(entry).__name__}")
        for key in ("fields", "seeds"):
            if key not in entry:
                raise GoldenError(f"{_where(path, f'{at}[{key!r}]')}: missing")
        fields, at_fields, at_seeds = entry["fields"], f"{at}['fields']", f"{at}['seeds']"
        if (not isinstance(fields, list) or not all(isinstance(f, str) for f in fields)
                or any(not f.startswith(OBS_PREFIX) and f not in OUTCOME_FIELDS for f in fields)
                or len(set(fields)) != len(fields) or not set(OUTCOME_FIELDS) <= set(fields)):
            raise GoldenError(f"{_where(path, at_fields)}: expected distinct names, each "
                              f"\"{OBS_PREFIX}<key>\" or one of {', '.join(OUTCOME_FIELDS)} (all of those), "
                              f"got {fields!r}")
        seeds = entry["seeds"]
        if not isinstance(seeds, dict) or {str(s) for s in hashes[env_id]} != set(seeds):
            raise GoldenError(f"{_where(path, at_seeds)}: expected an object with the seeds of "
                              f"\"hashes\"[{env_id!r}] ({', '.join(str(s) for s in hashes[env_id])})")
        out[env_id] = {}
        for seed, rows in seeds.items():
            at_seed = f"{at_seeds}[{seed!r}]"
            if not isinstance(rows, list) or len(rows) != steps:
                got = f"{len(rows)} rows" if isinstance(rows, list) else type(rows).__name__
                raise GoldenError(f"{_where(path, at_seed)}: expected a list of {steps} rows (\"steps\"), got {got}")
            parsed = []
            for k, row in enumerate(rows):
                if not isinstance(row, list) or len(row) != len(fields):
                    raise GoldenError(f"{_where(path, f'{at_seed}[{k}]')}: expected a list of {len(fields)} values "
                                      f"(one per \"fields\" name), got {row!r}")
                for name, value in zip(fields, row):
                    _check_value(path, f"{at_seed}[{k}] ({name})", name, value)
                parsed.append(dict(zip(fields, row)))
            out[env_id][int(seed)] = parsed
    return out


def parse_golden(path: str, data, env_ids: Sequence[str]) -> Golden:
    """Check a golden file's JSON value field by field (:class:`GoldenError` naming the
    first bad field) and return it as a :class:`Golden`."""
    if not isinstance(data, dict):
        raise GoldenError(f"golden file {path}: expected a JSON object at the top, got {type(data).__name__}")
    legacy = "format" not in data and "seed" in data  # tests/golden_env_rollouts.json
    required = ("seed", "steps", "jax", "machine", "hashes") if legacy else (
        "format", "steps", "jax", "machine", "hashes", "steps_digest")
    for key in required:
        if key not in data:
            raise GoldenError(f"{_where(path, repr(key))}: missing (a golden file has {', '.join(required)})")
    if not legacy and (not _is_int(data["format"]) or data["format"] != FORMAT):
        raise GoldenError(f"{_where(path, repr('format'))}: this cuegym reads format {FORMAT}, got {data['format']!r}")
    if not _is_int(data["steps"]) or data["steps"] < 1:
        raise GoldenError(f"{_where(path, repr('steps'))}: expected a whole number >= 1, got {data['steps']!r}")
    for key in ("jax", "machine"):
        if not isinstance(data[key], str):
            raise GoldenError(f"{_where(path, repr(key))}: expected a string, got {data[key]!r}")
    if legacy:
        seed = data["seed"]
        if not _is_int(seed) or seed < 0:
            raise GoldenError(f"{_where(path, repr('seed'))}: expected a whole number >= 0, got {seed!r}")
        table = data["hashes"]
        if not isinstance(table, dict):
            raise GoldenError(f"{_where(path, repr('hashes'))}: expected an object {{id: hash}}, got "
                              f"{type(table).__name__}")
        hashes = _check_hashes(path, {k: {str(seed): v} for k, v in table.items()}, "'hashes'", env_ids)
        return Golden(path, data["steps"], data["jax"], data["machine"], hashes, {})
    hashes = _check_hashes(path, data["hashes"], "'hashes'", env_ids)
    rows = _check_rows(path, data["steps_digest"], hashes, data["steps"])
    return Golden(path, data["steps"], data["jax"], data["machine"], hashes, rows)


def read_golden(path: str, env_ids: Sequence[str]) -> Golden:
    """Read and check the golden file at ``path`` (:class:`GoldenError` on any problem)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise GoldenError(f"golden file {path}: cannot read ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise GoldenError(f"golden file {path}: not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise GoldenError(f"golden file {path}: not valid JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None
    return parse_golden(path, data, env_ids)


def golden_text(steps: int, rollouts: Sequence[Rollout], jax_version: str, machine: str) -> str:
    """The golden file of ``rollouts`` as JSON text: one line per step row, so that a
    changed step shows as a changed line in a diff."""
    ids = sorted({r.env_id for r in rollouts})
    by_id = {i: sorted((r for r in rollouts if r.env_id == i), key=lambda r: r.seed) for i in ids}
    dump = json.dumps
    lines = ["{", f'  "format": {FORMAT},', f'  "steps": {steps},', f'  "jax": {dump(jax_version)},',
             f'  "machine": {dump(machine)},', '  "hashes": {']
    for n, i in enumerate(ids):
        seeds = ", ".join(f"{dump(str(r.seed))}: {dump(r.hash)}" for r in by_id[i])
        lines.append(f"    {dump(i)}: {{{seeds}}}" + ("," if n < len(ids) - 1 else ""))
    lines += ["  },", '  "steps_digest": {']
    for n, i in enumerate(ids):
        fields = list(by_id[i][0].rows()[0]) if by_id[i][0].steps else []
        lines += [f"    {dump(i)}: {{", f'      "fields": {dump(fields)},', '      "seeds": {']
        for m, r in enumerate(by_id[i]):
            rows = [dump([row[f] for f in fields], separators=(",", ":")) for row in r.rows()]
            lines.append(f"        {dump(str(r.seed))}: [")
            lines += [f"          {row}" + ("," if k < len(rows) - 1 else "") for k, row in enumerate(rows)]
            lines.append("        ]" + ("," if m < len(by_id[i]) - 1 else ""))
        lines += ["      }", "    }" + ("," if n < len(ids) - 1 else "")]
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def check_writable(path: str, option: str) -> None:
    """:class:`InputError` unless a file can be created at ``path`` (its folder exists and
    is writable; the path is not a folder)."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise InputError(f"{option} {path}: is a folder, expected a file path")
    if not os.path.isdir(folder):
        raise InputError(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise InputError(f"{option} {path}: the folder {folder} is not writable")


def write_atomically(path: str, text: str, option: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename,
    so that ``path`` is either untouched or complete (:class:`InputError` on failure)."""
    folder = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".cuegym-", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise InputError(f"{option} {path}: cannot write ({e.strerror or e})") from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


# ----------------------------------------------------------------------------- command


def add_arguments(parser) -> None:
    parser.add_argument("--env", action="append", metavar="ID",
                        help="an env id to check (repeat for more; default: every id of cuegym.ENV_IDS, or of the "
                             "golden file)")
    parser.add_argument("--seeds", metavar="S,S,...",
                        help="comma-separated seeds (default: 0,1,2, or the golden file's)")
    parser.add_argument("--steps", type=int, metavar="N",
                        help=f"actions per rollout (default: {DEFAULT_STEPS}, or the golden file's)")
    parser.add_argument("--vector", type=int, default=DEFAULT_VECTOR, metavar="N",
                        help=f"sub-envs of the vector env checked against single envs (default {DEFAULT_VECTOR}: "
                             "no new compile; 0 skips the check)")
    parser.add_argument("--golden", metavar="FILE", help="compare with this golden file (exit 1 when they differ)")
    parser.add_argument("--write-golden", metavar="FILE",
                        help="write the hashes and per-step rows to FILE (atomically; only when the repeat and vector "
                             "checks pass)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def _parse_seeds(text: str) -> list:
    seeds = []
    for part in text.split(","):
        part = part.strip()
        if not _SEED_RE.match(part):
            raise InputError(f"--seeds: comma-separated whole numbers >= 0, got {text!r}")
        seeds.append(int(part))
    if len(set(seeds)) != len(seeds):
        raise InputError(f"--seeds: each seed once, got {text!r}")
    return seeds


def plan(args, env_ids: Sequence[str], golden: Golden | None) -> tuple:
    """(steps, [(id, [seeds])]) to check, from the options and the golden file."""
    if args.steps is not None and args.steps < 1:
        raise InputError(f"--steps: at least 1, got {args.steps}")
    if args.vector < 0:
        raise InputError(f"--vector: 0 (skip) or more sub-envs, got {args.vector}")
    for env_id in args.env or ():
        if env_id not in env_ids:
            raise InputError(f"--env: unknown id {env_id!r} (known: {', '.join(env_ids)})")
    seeds = _parse_seeds(args.seeds) if args.seeds is not None else None
    if golden is None:
        ids = list(dict.fromkeys(args.env)) if args.env else list(env_ids)
        return args.steps or DEFAULT_STEPS, [(i, seeds or list(DEFAULT_SEEDS)) for i in ids]
    if args.steps is not None and args.steps != golden.steps:
        raise InputError(f"--steps: {args.steps} differs from the golden file's \"steps\" {golden.steps}")
    ids = list(dict.fromkeys(args.env)) if args.env else list(golden.hashes)
    out = []
    for env_id in ids:
        stored = golden.hashes.get(env_id)
        if stored is None:
            raise InputError(f"--env: {env_id!r} is not in the golden file {golden.path} "
                             f"(it holds {', '.join(golden.hashes)})")
        missing = [s for s in seeds or () if s not in stored]
        if missing:
            raise InputError(f"--seeds: seed {missing[0]} of {env_id} is not in the golden file {golden.path} "
                             f"(it holds {', '.join(map(str, stored))})")
        out.append((env_id, seeds or sorted(stored)))
    return golden.steps, out


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def check(steps: int, todo: Sequence, vector: int, golden: Golden | None) -> tuple:
    """Run the checks: (results, mismatches, rollouts) where each result is a dict (env,
    seed, hash, repeat, vector, golden: "match" / "mismatch" / "skipped" / "absent")."""
    results, mismatches, rollouts = [], [], []
    for env_id, seeds in todo:
        for seed in seeds:
            t0 = time.perf_counter()
            _progress(f"{env_id} seed {seed}: {steps} steps ...")
            first = record_rollout(env_id, seed, steps)
            rollouts.append(first)
            found = []
            m = compare_rollouts("repeat", first, record_rollout(env_id, seed, steps))
            found += [m] if m else []
            res = {"env": env_id, "seed": seed, "hash": first.hash, "repeat": "mismatch" if m else "match",
                   "vector": "skipped"}
            if vector:
                lanes = record_vector_rollouts(env_id, seed, steps, vector)
                twins = [first] + [record_rollout(env_id, seed + i, steps) for i in range(1, vector)]
                vm = [compare_rollouts("vector", twin, lane, lane=i) for i, (twin, lane) in enumerate(zip(twins, lanes))]
                vm = [x for x in vm if x]
                found += vm
                res["vector"] = "mismatch" if vm else "match"
            res["golden"] = "absent"
            if golden is not None:
                gm = compare_golden(golden, first)
                found += [gm] if gm else []
                res["golden"] = "mismatch" if gm else "match"
            mismatches += found
            results.append(res)
            _progress(f"{env_id} seed {seed}: {'MISMATCH' if found else 'ok'} ({time.perf_counter() - t0:.1f} s)")
    return results, mismatches, rollouts


def _short(value) -> str:
    return json.dumps(value, separators=(", ", ": "), default=str)


def format_mismatch(m: Mismatch) -> list:
    """A mismatch as text lines for people."""
    what = {"repeat": "a second run in this process", "golden": "the golden file",
            "vector": f"sub-env {m.lane} of the vector env (seeded {m.seed - (m.lane or 0)})"}[m.check]
    names = {"repeat": ("first run", "second run"), "golden": ("golden", "now"), "vector": ("single env", "vector env")}
    want, got = names[m.check]
    lines = [f"MISMATCH {m.env_id} seed {m.seed}: {what} differs",
             f"  {want + ':':<12}{m.expected}", f"  {got + ':':<12}{m.actual}"]
    if m.step is not None:
        lines.append(f"  first divergent step: {m.step} (0-based action), field {m.field}")
        if m.field != "steps":
            lines += [f"    {want + ':':<12}{_short(m.expected_value)}", f"    {got + ':':<12}{_short(m.actual_value)}",
                      "  the event of that step:",
                      f"    {want + ':':<12}{_short(m.expected_event)}", f"    {got + ':':<12}{_short(m.actual_event)}"]
    if m.note:
        lines.append(f"  note: {m.note}")
    return lines


def run(args) -> int:
    import platform

    import cuegym

    env_ids = tuple(cuegym.ENV_IDS)
    try:
        golden = read_golden(args.golden, env_ids) if args.golden else None
        steps, todo = plan(args, env_ids, golden)
        if args.write_golden:
            check_writable(args.write_golden, "--write-golden")
    except (GoldenError, InputError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT

    import jax

    here = {"jax": jax.__version__, "machine": platform.machine()}
    results, mismatches, rollouts = check(steps, todo, args.vector, golden)
    reproducible = not any(m.check in ("repeat", "vector") for m in mismatches)
    notes = []
    if golden is not None and (golden.jax, golden.machine) != (here["jax"], here["machine"]):
        notes.append(f"the golden file was written with jax {golden.jax} on {golden.machine}, this is jax "
                     f"{here['jax']} on {here['machine']}: float results may legitimately differ")
    written = None
    if args.write_golden:
        if reproducible:
            try:
                text = golden_text(steps, rollouts, here["jax"], here["machine"])
                write_atomically(args.write_golden, text, "--write-golden")
            except InputError as e:
                print(f"error: {e}", file=sys.stderr)
                return EXIT_BAD_INPUT
            written = args.write_golden
        else:
            notes.append(f"{args.write_golden} not written: the rollouts are not reproducible in this process")
    if args.json:
        print(json.dumps({"ok": not mismatches, "steps": steps, "vector": args.vector, **here,
                          "golden": args.golden, "written": written, "results": results,
                          "mismatches": [m.to_json() for m in mismatches], "notes": notes}, indent=2))
    else:
        width = max(len(r["env"]) for r in results) if results else 0
        print(f"check-determinism: {steps} steps, vector env of {args.vector}, jax {here['jax']} on {here['machine']}"
              + (f", golden {args.golden}" if args.golden else ""))
        for r in results:
            print(f"{r['env']:<{width}}  seed {r['seed']:<4} {r['hash']}  repeat {r['repeat']}  vector {r['vector']}"
                  f"  golden {r['golden']}")
        for m in mismatches:
            print("\n".join(format_mismatch(m)))
        for note in notes:
            print(f"note: {note}")
        if written:
            print(f"wrote {written}")
        n = len(results)
        print(f"{len(mismatches)} mismatch(es): determinism broken" if mismatches
              else f"{n} rollout{'s' if n != 1 else ''}, all reproducible")
    return EXIT_MISMATCH if mismatches else EXIT_OK
