"""The golden file of ``cuegym check-determinism``: reading and checking it, writing it.

Layout (JSON)::

    {"format": 1, "steps": N, "jax": "0.x.y", "machine": "x86_64",
     "hashes": {id: {"<seed>": "<sha256 hex>"}},
     "steps_digest": {id: {"fields": [name, ...], "seeds": {"<seed>": [[value, ...] per step]}}}}

Each row lists one value per name of ``fields``. The layout of
``tests/golden_env_rollouts.json`` (``{"seed", "steps", "jax", "machine", "hashes": {id:
hash}}``) is read too, without rows (docs/determinism.md).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
from collections.abc import Sequence

from cuegym._io import write_atomic
from cuegym.tools.determinism_rollout import DIGEST_CHARS, OBS_PREFIX, OUTCOME_FIELDS, Rollout

FORMAT = 1
HASH_RE = re.compile(r"[0-9a-f]{64}\Z")
DIGEST_RE = re.compile(r"[0-9a-f]{%d}\Z" % DIGEST_CHARS)  # noqa: UP031
SEED_RE = re.compile(r"(0|[1-9][0-9]*)\Z")


class GoldenError(ValueError):
    """A malformed golden file; the message names the field."""


class InputError(ValueError):
    """A bad command-line value; the message names the option."""


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
            if not SEED_RE.match(seed):
                raise GoldenError(f"{_where(path, at)}: a seed is a whole number >= 0 written in decimal, got {seed!r}")
            if not isinstance(h, str) or not HASH_RE.match(h):
                raise GoldenError(f"{_where(path, at)}: expected 64 lowercase hex digits (SHA-256), got {h!r}")
            out[env_id][int(seed)] = h
    return out


def _check_value(path: str, at: str, name: str, value) -> None:
    if name.startswith(OBS_PREFIX) or name == "shot":
        ok = (value is None and name == "shot") or (isinstance(value, str) and DIGEST_RE.match(value))
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
    """Write ``text`` to ``path`` atomically (:func:`cuegym._io.write_atomic`), so that
    ``path`` is either untouched or complete (:class:`InputError` on failure)."""
    try:
        write_atomic(path, text)
    except OSError as e:
        raise InputError(f"{option} {path}: cannot write ({e.strerror or e})") from None
