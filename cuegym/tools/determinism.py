"""``cuegym check-determinism``: seeded rollouts, hashed, repeated, vectorised and compared
with a golden file (docs/determinism.md).

Each (id, seed) is checked three ways: the rollout run twice in this process (``repeat``),
sub-env ``i`` of a vector env of ``--vector`` sub-envs seeded ``s`` against the single env
seeded ``s + i`` (``vector``), and, with ``--golden FILE``, against the stored hashes and
rows (``golden``). Exit status: 0 every check matches, 1 a mismatch (determinism broken),
2 bad input (an unknown id, a malformed golden file, an unwritable output path). Rollouts
are recorded by :mod:`cuegym.tools.determinism_rollout`, compared by
:mod:`cuegym.tools.determinism_compare`; :mod:`cuegym.tools.determinism_golden` reads and
writes the golden file.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence

from cuegym.tools.determinism_compare import Mismatch, compare_golden, compare_rollouts
from cuegym.tools.determinism_golden import (
    SEED_RE,
    Golden,
    GoldenError,
    InputError,
    check_writable,
    golden_text,
    read_golden,
    write_atomically,
)
from cuegym.tools.determinism_rollout import record_rollout, record_vector_rollouts

HELP = "check that seeded env rollouts are reproducible (twice, in a vector env, against a golden file)"
DESCRIPTION = (
    "Run seeded rollouts of each env id and print a SHA-256 per id and seed. Each rollout is run twice in "
    "this process and once inside a vector env, and with --golden compared with a stored file; a mismatch "
    "names the first divergent step, the field and the event of that step. Exit status: 0 all match, "
    "1 a mismatch, 2 bad input. docs/determinism.md shows a GitHub Actions job."
)
EXIT_OK, EXIT_MISMATCH, EXIT_BAD_INPUT = 0, 1, 2
DEFAULT_SEEDS = (0, 1, 2)
DEFAULT_STEPS = 200  # the steps of tests/golden_env_rollouts.json
DEFAULT_VECTOR = 1  # a vector env of one runs the single env's compiled program: no new compile


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
        if not SEED_RE.match(part):
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
