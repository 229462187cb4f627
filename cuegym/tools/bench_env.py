"""Environment benchmark: env steps per second of every id, and the single env's host overhead.

    python experiments/bench_env.py [--quick] [--out results/bench_env.json]

For each id of the registry (opponent None) it times the single env (``gymnasium.make``), with
the share of ``env.step`` spent outside the compiled program (each call drawn at random,
seeded, to be timed or plain; the timer's own cost is ``timer_ms``); the native vector env
(``gymnasium.make_vec``) at B = 1, 64, 1024; and :func:`cuegym.envs.functional.batched`'s
``step`` on device arrays, the ceiling the Gymnasium fronts can reach. Actions are random
shots in the physics benchmark's ranges; compile times are reported apart (``compile_s``).
It exists to keep the host's share of a step small (target under 10 %) and to measure it
without charging the timer to the env.

Writes the JSON (and a ``.md`` beside it) and prints the markdown tables. Method, options and
caveats: docs/envs.md, "Performance"; figures: docs/guide.md, "Performance".
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from cuegym.envs.registry import ENV_IDS, GAMES
from cuegym.tools.bench_runs import action_pool, loop, rate, still

IDS = tuple(g.env_id for family in ("russian", "drill") for g in GAMES.values() if g.family == family)
SIZES = (1, 64, 1024)
QUICK_SIZES = (1, 64)
TARGET_OUTSIDE = 0.10  # the bound on the single env's time outside the compiled step
POOL = 16  # distinct actions (or batches of actions) cycled through a timed run

# max calls and time budget [s] per configuration: the full run stays under 15 minutes on
# two cores, compiles included (a call of 1024 full-rack tables takes about 10 s there)
SINGLE_STEPS, SINGLE_BUDGET = 5000, 10.0
BATCH_STEPS = {1: 5000, 64: 40, 1024: 3}
BATCH_BUDGET = {1: 8.0, 64: 10.0, 1024: 15.0}
QUICK_SINGLE_STEPS, QUICK_SINGLE_BUDGET = 60, 3.0
QUICK_BATCH_STEPS, QUICK_BATCH_BUDGET = 6, 4.0


def _steps_for(size: int | None, quick: bool, steps: int | None, budget: float | None) -> tuple[int, float]:
    """(max calls, time budget [s]) of a configuration; ``size`` None is the single env."""
    if size is None:
        n, b = (QUICK_SINGLE_STEPS, QUICK_SINGLE_BUDGET) if quick else (SINGLE_STEPS, SINGLE_BUDGET)
    elif quick:
        n, b = (QUICK_SINGLE_STEPS if size == 1 else QUICK_BATCH_STEPS), QUICK_BATCH_BUDGET
    else:
        near = min(BATCH_STEPS, key=lambda s: abs(math.log(s) - math.log(size)))
        n, b = BATCH_STEPS[near], BATCH_BUDGET[near]
    return (n if steps is None else steps), (b if budget is None else budget)


# ----------------------------------------------------------------------------- timing


class _TimedProgram:
    """Wraps the ``reset`` and ``step`` of a :class:`cuegym.envs.host_program.FlatProgram` and adds
    up the wall time of their calls, each blocked until its result (one array: the rows)
    is ready. ``timing(on)`` switches the env between the wrapped calls and the plain ones
    (no wrapper frame, no blocking: the env as users run it)."""

    def __init__(self, tables):
        self.tables = tables
        self.program = tables.flat
        self.wrapped = self.program._replace(reset=self.reset, step=self.step)
        self.seconds = 0.0
        self.calls = 0
        self.timing(True)

    def timing(self, on: bool):
        self.tables.flat = self.wrapped if on else self.program

    def _timed(self, fn, *args):
        t0 = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return out

    def reset(self, *args):
        return self._timed(self.program.reset, *args)

    def step(self, *args):
        return self._timed(self.program.step, *args)

    def take(self) -> float:
        """Seconds since the last take."""
        s, self.seconds = self.seconds, 0.0
        return s


def _instrument(env) -> _TimedProgram:
    """Time the compiled calls of ``env`` (a cuegym env, wrapped or not); timing is on."""
    return _TimedProgram(env.unwrapped.tables)


def bench_single(env_id: str, max_steps: int, budget_s: float, seed: int = 0) -> dict:
    """The Gymnasium single env: steps/s (resets included) and the time outside the jitted
    program, for ``env.step`` alone and with the resets, from timed and plain calls drawn
    at random (module docstring)."""
    import gymnasium as gym

    env = gym.make(env_id)
    pool = action_pool(env.action_space, POOL, seed)
    timer = _instrument(env)
    compile_s = _warm_up(env, pool, seed, timer)
    coin = np.random.default_rng([seed, 11])  # which calls are timed: at random, so no period aliases
    # [plain, timed]: env.step wall, its compiled calls' time, steps; the same for resets
    acc = {k: [0.0, 0.0] for k in ("step", "step_jit", "steps", "reset", "reset_jit", "resets")}

    def body(i):
        timed = int(i == 0 or coin.random() < 0.5)  # the first call timed: a run of one call still times it
        timer.timing(bool(timed))
        t0 = time.perf_counter()
        _, _, term, trunc, _ = env.step(pool[i % POOL])
        acc["step"][timed] += time.perf_counter() - t0
        acc["step_jit"][timed] += timer.take()
        acc["steps"][timed] += 1
        if term or trunc:
            timed = int(acc["resets"][1] == 0 or coin.random() < 0.5)
            timer.timing(bool(timed))
            t0 = time.perf_counter()
            env.reset()
            acc["reset"][timed] += time.perf_counter() - t0
            acc["reset_jit"][timed] += timer.take()
            acc["resets"][timed] += 1

    t0 = time.perf_counter()
    calls = loop(max_steps, budget_s, body)
    wall = time.perf_counter() - t0
    env.close()
    mean = {k: [acc[k][j] / max(acc["resets" if k.startswith("reset") else "steps"][j], 1) for j in (0, 1)]
            for k in ("step", "step_jit", "reset", "reset_jit")}
    # a run of one call (or one reset) has no plain one: the timed one stands in
    step, step_jit = mean["step"][0 if acc["steps"][0] else 1], mean["step_jit"][1]
    resets = int(acc["resets"][0] + acc["resets"][1])
    per_step = resets / calls  # resets per step
    reset, reset_jit = mean["reset"][0 if acc["resets"][0] else 1], mean["reset_jit"][1]
    step_out = 1.0 - step_jit / step
    both_out = 1.0 - (step_jit + per_step * reset_jit) / (step + per_step * reset)
    return {
        "mode": "single", "envs": 1, "compile_s": compile_s, **rate(calls, 1, wall),
        "steps_per_s": 1.0 / (step + per_step * reset),  # the plain calls' rate, resets included
        "ms_per_call": 1e3 * (step + per_step * reset),
        "step_ms": 1e3 * step, "step_jit_ms": 1e3 * step_jit, "step_outside_ms": 1e3 * (step - step_jit),
        "timed_step_ms": 1e3 * mean["step"][1], "timer_ms": 1e3 * (mean["step"][1] - step), "resets": resets,
        "reset_ms": 1e3 * reset,
        "reset_jit_ms": 1e3 * reset_jit, "outside_jit_frac_step": step_out, "outside_jit_frac_with_resets": both_out,
        "meets_target": bool(step_out < TARGET_OUTSIDE and both_out < TARGET_OUTSIDE),
    }


def _warm_up(env, pool, seed: int, timer) -> float:
    """Reset and step once at zero cue speed (compiles or loads the programs; the stroke
    ends at once), then reset again with the same seed and clear ``timer``; returns the
    seconds the first reset and step took."""
    t0 = time.perf_counter()
    env.reset(seed=seed)
    env.step(still(pool[0]))
    compile_s = time.perf_counter() - t0
    env.reset(seed=seed)
    timer.take()
    return compile_s


def bench_vector(env_id: str, num_envs: int, max_calls: int, budget_s: float, seed: int = 0, devices=None) -> dict:
    """``gymnasium.make_vec(env_id, num_envs)``: env steps/s (autoreset inside the step)
    and the time outside the jitted program, every call timed (the timer's own cost is
    charged to the host: an upper bound; the few calls of a large batch, each of them a
    stroke or an autoreset for every lane of a one-stroke task, leave no plain calls to
    compare with). ``devices`` as the vector env's (None: all local devices)."""
    import gymnasium as gym

    venv = gym.make_vec(env_id, num_envs=num_envs, devices=devices)
    pool = action_pool(venv.action_space, POOL, seed, num_envs)
    timer = _instrument(venv)
    compile_s = _warm_up(venv, pool, seed, timer)
    t0 = time.perf_counter()
    calls = loop(max_calls, budget_s, lambda i: venv.step(pool[i % POOL]))
    wall = time.perf_counter() - t0
    jit_s = timer.take()
    venv.close()
    return {"mode": "vector", "envs": num_envs, "compile_s": compile_s, **rate(calls, num_envs, wall),
            "jit_ms_per_call": 1e3 * jit_s / calls, "outside_jit_frac": 1.0 - jit_s / wall}


def bench_functional(env_id: str, num_envs: int, max_calls: int, budget_s: float, seed: int = 0,
                     devices=None) -> dict:
    """``batched(env, devices).step`` on device arrays, next-step autoreset as in the vector
    env; timed from the first call to the last result ready."""
    import gymnasium as gym
    import jax
    import jax.numpy as jnp

    from cuegym import ENV_TASKS
    from cuegym.envs import functional as F
    from cuegym.envs.command import check_action
    from cuegym.envs.env_spaces import action_space

    func = F.FuncEnv(task=ENV_TASKS[env_id])
    program = F.batched(func, devices=devices)
    opts = jax.device_put(F.options(func))
    space = gym.vector.utils.batch_space(action_space(func), num_envs)
    pool = [check_action(a, num_envs, func.n_balls) for a in action_pool(space, POOL, seed, num_envs)]
    actions = jax.device_put(pool)
    first = jax.device_put(check_action(still(pool[0]), num_envs, func.n_balls))
    active = jnp.ones(num_envs, bool)
    opponent = jnp.zeros(num_envs, jnp.int32)
    seeds = jax.vmap(jax.random.PRNGKey)(np.arange(num_envs) + seed)  # as the Gymnasium fronts seed

    t0 = time.perf_counter()
    state, _, keys = program.reset(seeds, opts)
    done = state.terminated | state.truncated  # compiles the small op the loop runs too
    state, _, keys = program.step(state, first, keys, done, active, opponent, opts)
    keys.block_until_ready()
    compile_s = time.perf_counter() - t0
    state, _, keys = program.reset(seeds, opts)
    keys.block_until_ready()
    box = {"state": state, "keys": keys}

    def body(i):
        s = box["state"]
        done = s.terminated | s.truncated  # on the device: lanes that ended reset on this call
        box["state"], _, box["keys"] = program.step(s, actions[i % POOL], box["keys"], done, active, opponent, opts)

    t0 = time.perf_counter()
    # the calls are dispatched asynchronously: the budget is checked against dispatch time,
    # so block every call to keep a large batch from queueing far past it
    calls = loop(max_calls, budget_s, lambda i: (body(i), box["keys"].block_until_ready()))
    wall = time.perf_counter() - t0
    return {"mode": "functional", "envs": num_envs, "compile_s": compile_s, **rate(calls, num_envs, wall)}


# ----------------------------------------------------------------------------- suite


def run(ids=IDS, sizes=None, quick: bool = False, steps: int | None = None, budget: float | None = None,
        seed: int = 0, log=print) -> dict:
    """Every configuration of ``ids`` x (single, vector and functional at ``sizes``)."""
    from cuegym import ENV_TASKS
    from cuegym.tools.bench_report import cache_dir_in_use, machine_info, peak_rss_mb, timestamp

    sizes = tuple(sizes or (QUICK_SIZES if quick else SIZES))
    for env_id in ids:
        if env_id not in ENV_TASKS:
            raise ValueError(f"ids: unknown {env_id!r}; one of {', '.join(ENV_TASKS)}")
    if not sizes or any(b < 1 for b in sizes):
        raise ValueError(f"sizes: vector sizes >= 1, got {list(sizes)}")
    t_run = time.perf_counter()
    runs = []
    for env_id in ids:
        n, b = _steps_for(None, quick, steps, budget)
        log(f"[bench_env] {env_id} single ...")
        runs.append({"id": env_id, **bench_single(env_id, n, b, seed)})
        log(f"[bench_env]   {_line(runs[-1])}")
        for size in sizes:
            n, b = _steps_for(size, quick, steps, budget)
            for mode, fn in (("vector", bench_vector), ("functional", bench_functional)):
                log(f"[bench_env] {env_id} {mode} x{size} ...")
                runs.append({"id": env_id, **fn(env_id, size, n, b, seed)})
                log(f"[bench_env]   {_line(runs[-1])}")
    return {
        "kind": "cuegym.bench_env",
        "timestamp": timestamp(),
        "machine": machine_info(),
        "settings": {"ids": list(ids), "sizes": list(sizes), "quick": quick, "steps": steps, "budget_s": budget,
                     "seed": seed, "opponent": None, "pool": POOL, "target_outside_jit_frac": TARGET_OUTSIDE,
                     "compilation_cache": cache_dir_in_use()},
        "runs": runs,
        "peak_rss_mb": peak_rss_mb(),
        "wall_s": time.perf_counter() - t_run,
    }


def _line(r: dict) -> str:
    s = f"{r['steps_per_s']:.1f} env steps/s ({r['calls']} calls, {r['wall_s']:.1f} s, compile {r['compile_s']:.1f} s)"
    if r["mode"] == "single":
        s += (f"; outside jit {100 * r['outside_jit_frac_step']:.1f} % of env.step, "
              f"{100 * r['outside_jit_frac_with_resets']:.1f} % with resets")
    return s


def markdown(result: dict) -> str:
    """Markdown tables of a :func:`run` result."""
    m, st = result["machine"], result["settings"]
    sizes = st["sizes"]
    by = {(r["id"], r["mode"], r["envs"]): r for r in result["runs"]}
    ids = st["ids"]
    lines = [
        f"Env steps per second, opponent None, random shots ({m['cpu_count']} CPUs, JAX {m['jax']} {m['backend']}, "
        f"{result['timestamp']})",
        "",
        "| id | single (`make`) | " + " | ".join(f"`make_vec` {b}" for b in sizes) + " | "
        + " | ".join(f"functional {b}" for b in sizes) + " |",
        "|---" * (2 + 2 * len(sizes)) + "|",
    ]
    for env_id in ids:
        cells = [by[(env_id, "single", 1)]] + [by[(env_id, "vector", b)] for b in sizes] + \
            [by[(env_id, "functional", b)] for b in sizes]
        lines.append(f"| {env_id} | " + " | ".join(_fmt(r["steps_per_s"]) for r in cells) + " |")
    lines += [
        "",
        f"Single env: time outside the compiled program (target < {100 * st['target_outside_jit_frac']:.0f} %)",
        "",
        "| id | steps | resets | env.step ms | jitted ms | outside ms | outside % of env.step | with resets % "
        "| timer ms | compile s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for env_id in ids:
        r = by[(env_id, "single", 1)]
        lines.append(
            f"| {env_id} | {r['calls']} | {r['resets']} | {r['step_ms']:.3f} | {r['step_jit_ms']:.3f} "
            f"| {r['step_outside_ms']:.3f} | {100 * r['outside_jit_frac_step']:.1f} "
            f"| {100 * r['outside_jit_frac_with_resets']:.1f} | {r['timer_ms']:.3f} | {r['compile_s']:.1f} |"
        )
    lines += ["", "| id | mode | envs | calls | env steps | wall s | ms per call | outside jit % | compile s |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in result["runs"]:
        out = r.get("outside_jit_frac", r.get("outside_jit_frac_step"))
        lines.append(f"| {r['id']} | {r['mode']} | {r['envs']} | {r['calls']} | {r['env_steps']} | {r['wall_s']:.2f} "
                     f"| {r['ms_per_call']:.2f} | {'' if out is None else f'{100 * out:.1f}'} "
                     f"| {r['compile_s']:.1f} |")
    lines += ["", f"Whole run: {result['wall_s']:.0f} s, peak RSS {result['peak_rss_mb']:.0f} MiB."]
    return "\n".join(lines)


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bench_env", description="Env steps/s of every cuegym id (single, vector, "
                                "functional) and the single env's time outside the compiled step.")
    p.add_argument("--quick", action="store_true", help=f"vector sizes {' and '.join(map(str, QUICK_SIZES))}, "
                   "fewer steps")
    p.add_argument("--out", default="results/bench_env.json", help="the JSON; a .md is written beside it")
    p.add_argument("--ids", nargs="+", default=None, metavar="ID",
                   help="env ids (default: the five pyramid and drill ids; --first-step and --async: every registered id)")
    p.add_argument("--sizes", nargs="+", type=int, default=None, metavar="B",
                   help=f"vector sizes (default {' '.join(map(str, SIZES))}; --quick: "
                   f"{' '.join(map(str, QUICK_SIZES))})")
    p.add_argument("--steps", type=int, default=None, help="max calls per configuration (default: by size)")
    p.add_argument("--budget", type=float, default=None, help="seconds per configuration (default: by size)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-cache", action="store_true", help="leave JAX's persistent compilation cache off")
    p.add_argument("--first-step", action="store_true",
                   help="instead: the first step of each id in fresh processes, cold (empty cache) and warm "
                   "(a second process), and one env's resident memory (default ids: every registered id)")
    p.add_argument("--async", dest="async_pool", action="store_true",
                   help="instead: the sync vector env and cuegym.make_async (batch = tables / 4) side by side, "
                   "steps/s and lane efficiency (default ids: every registered id; sizes 64 256 1024; "
                   "out results/bench_async.json)")
    return p


def first_step_report(ids, out: str) -> int:
    """:func:`cuegym.tools.bench_first.cold_and_warm` for each id, written as JSON (and a
    markdown table beside it) to ``out``."""
    from cuegym.tools.bench_first import cold_and_warm, table
    from cuegym.tools.bench_report import machine_info, timestamp, write_report

    rows = {}
    for env_id in ids:
        print(f"{env_id}: cold and warm first step ...", file=sys.stderr, flush=True)
        rows[env_id] = cold_and_warm(env_id)
    result = {"benchmark": "first_step", "timestamp": timestamp(), "machine": machine_info(), "ids": rows}
    write_report(result, table(rows), out)
    return 0


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.steps is not None and args.steps < 1:
        raise ValueError(f"--steps: at least 1, got {args.steps}")
    if args.first_step:
        return first_step_report(args.ids or list(ENV_IDS), args.out)
    import jax

    from cuegym import physics  # noqa: F401  (first: XLA flags and float64 before JAX starts)
    from cuegym._cache import enable_compilation_cache

    if not args.no_cache and not jax.config.jax_compilation_cache_dir:
        enable_compilation_cache()
    if args.async_pool:
        from cuegym.tools.bench_async import main_async

        return main_async(args, args.ids or list(ENV_IDS))

    result = run(args.ids or list(IDS), args.sizes, args.quick, args.steps, args.budget, args.seed,
                 log=lambda msg: print(msg, file=sys.stderr, flush=True))
    from cuegym.tools.bench_report import write_report

    write_report(result, markdown(result), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
