"""The asynchronous pool beside the sync vector env: env steps/s and lane efficiency per id and size.

    python experiments/bench_env.py --async [--ids ID ...] [--sizes 64 256 1024] [--out FILE]

For each id (opponent None, random shots) and number of tables N, ``gymnasium.make_vec``
(every call steps all N tables and waits for the slowest stroke) and ``cuegym.make_async``
with ``batch_size`` N / 4 (each ``recv`` returns the first quarter to finish, the rest run
on) are timed one after the other in the same process. Lane efficiency is the share of
the pool's lane-iterations that moved a stroke.
"""

from __future__ import annotations

import time

from cuegym.tools.bench_runs import action_pool, loop, rate, still

ASYNC_SIZES = (64, 256, 1024)
POOL = 16  # distinct batches of actions cycled through
BUDGET_S = {64: 8.0, 256: 10.0, 1024: 15.0}  # per configuration; at least one call


def _budget(size: int, budget: float | None) -> float:
    if budget is not None:
        return budget
    return BUDGET_S[min(BUDGET_S, key=lambda s: abs(s - size))]


def bench_sync(env_id: str, num_envs: int, budget_s: float, seed: int = 0) -> dict:
    """``gymnasium.make_vec(env_id, num_envs)``: env steps/s over ``budget_s`` seconds."""
    import gymnasium as gym

    venv = gym.make_vec(env_id, num_envs=num_envs)
    pool = action_pool(venv.action_space, POOL, seed, num_envs)
    t0 = time.perf_counter()
    venv.reset(seed=seed)
    venv.step(still(pool[0]))
    compile_s = time.perf_counter() - t0
    venv.reset(seed=seed)
    t0 = time.perf_counter()
    calls = loop(10**6, budget_s, lambda i: venv.step(pool[i % POOL]))
    wall = time.perf_counter() - t0
    venv.close()
    return {"mode": "sync", "envs": num_envs, "batch": num_envs, "compile_s": compile_s, **rate(calls, num_envs, wall)}


def bench_pool(env_id: str, num_envs: int, batch: int, budget_s: float, seed: int = 0) -> dict:
    """``cuegym.make_async(env_id, num_envs, batch)``: each call a ``send`` of the last
    batch's actions and a ``recv``; env steps/s over ``budget_s`` seconds, the lane
    efficiency, the loop iterations per call, the compiled time per iteration and the host's
    share of the wall time (outside the compiled calls: packing, checks, transfers)."""
    import gymnasium as gym
    import jax

    import cuegym

    env = cuegym.make_async(env_id, num_envs, batch, seed=seed)
    pool = action_pool(gym.vector.utils.batch_space(env.single_action_space, batch), POOL, seed, batch)
    t0 = time.perf_counter()
    env.async_reset()
    env.recv()
    env.send(still(pool[0]))
    env.recv()
    compile_s = time.perf_counter() - t0
    env.async_reset()
    env.recv()
    clock, busy = int(env.pool.clock), int(env.pool.busy)
    spent = [0.0]  # seconds inside the compiled send and recv, each blocked until its result

    def timed(fn):
        def call(*args):
            t = time.perf_counter()
            out = jax.block_until_ready(fn(*args))
            spent[0] += time.perf_counter() - t
            return out
        return call

    env.program = env.program._replace(send=timed(env.program.send), recv=timed(env.program.recv))

    def body(i):
        env.send(pool[i % POOL])
        env.recv()

    t0 = time.perf_counter()
    calls = loop(10**6, budget_s, body)
    wall = time.perf_counter() - t0
    iterations = int(env.pool.clock) - clock
    moved = int(env.pool.busy) - busy
    env.close()
    return {"mode": "async", "envs": num_envs, "batch": batch, "compile_s": compile_s, **rate(calls, batch, wall),
            "iterations_per_call": iterations / calls, "lane_efficiency": moved / max(iterations * num_envs, 1),
            "ms_per_iteration": 1e3 * spent[0] / max(iterations, 1), "host_frac": 1.0 - spent[0] / wall}


def run(ids, sizes=ASYNC_SIZES, budget: float | None = None, seed: int = 0, log=print) -> dict:
    """Sync and async, side by side, for each id and size (batch = size // 4)."""
    from cuegym.tools.bench_report import cache_dir_in_use, machine_info, peak_rss_mb, timestamp

    t_run = time.perf_counter()
    runs = []
    for env_id in ids:
        for size in sizes:
            b = _budget(size, budget)
            for name in ("sync", "async"):
                log(f"[bench_async] {env_id} {name} x{size} ...")
                one = (bench_sync(env_id, size, b, seed) if name == "sync"
                       else bench_pool(env_id, size, max(1, size // 4), b, seed))
                runs.append({"id": env_id, **one})
                log(f"[bench_async]   {runs[-1]['steps_per_s']:.0f} env steps/s")
    return {"kind": "cuegym.bench_async", "timestamp": timestamp(), "machine": machine_info(),
            "settings": {"ids": list(ids), "sizes": list(sizes), "batch": "size // 4", "budget_s": budget,
                         "seed": seed, "opponent": None, "compilation_cache": cache_dir_in_use()},
            "runs": runs, "peak_rss_mb": peak_rss_mb(), "wall_s": time.perf_counter() - t_run}


def markdown(result: dict) -> str:
    """The side-by-side table of a :func:`run` result."""
    m, st = result["machine"], result["settings"]
    by = {(r["id"], r["mode"], r["envs"]): r for r in result["runs"]}
    sizes = st["sizes"]
    lines = [f"Env steps per second, sync `make_vec` vs `make_async` (batch = tables / 4), opponent None, random "
             f"shots ({m['cpu_count']} CPUs, JAX {m['jax']} {m['backend']}, {result['timestamp']})", "",
             "| id | " + " | ".join(f"{n} tables: sync / async (× , lane eff.)" for n in sizes) + " |",
             "|---" * (1 + len(sizes)) + "|"]
    for env_id in st["ids"]:
        cells = []
        for n in sizes:
            s, a = by[(env_id, "sync", n)], by[(env_id, "async", n)]
            cells.append(f"{s['steps_per_s']:,.0f} / {a['steps_per_s']:,.0f} ({a['steps_per_s'] / s['steps_per_s']:.1f}×, "
                         f"{a['lane_efficiency']:.2f})")
        lines.append(f"| {env_id} | " + " | ".join(cells) + " |")
    lines += ["", "| id | mode | tables | batch | calls | wall s | ms per call | iterations per call | ms per iteration "
              "| host % | compile s |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in result["runs"]:
        it = f"{r['iterations_per_call']:.1f}" if "iterations_per_call" in r else ""
        ms_it = f"{r['ms_per_iteration']:.2f}" if "ms_per_iteration" in r else ""
        host = f"{100 * r['host_frac']:.0f}" if "host_frac" in r else ""
        lines.append(f"| {r['id']} | {r['mode']} | {r['envs']} | {r['batch']} | {r['calls']} | {r['wall_s']:.1f} "
                     f"| {r['ms_per_call']:.1f} | {it} | {ms_it} | {host} | {r['compile_s']:.1f} |")
    lines += ["", f"Whole run: {result['wall_s']:.0f} s, peak RSS {result['peak_rss_mb']:.0f} MiB."]
    return "\n".join(lines)


def main_async(args, ids) -> int:
    """``bench_env --async``: :func:`run` over ``ids`` with ``args``' sizes, budget, seed and out."""
    from cuegym.tools.bench_report import write_report

    sizes = tuple(args.sizes or ASYNC_SIZES)
    if any(n < 4 for n in sizes):
        raise ValueError(f"--sizes: at least 4 tables for the pool's batch of a quarter, got {list(sizes)}")
    result = run(ids, sizes, args.budget, args.seed,
                 log=lambda msg: print(msg, flush=True))
    write_report(result, markdown(result), args.out if args.out != "results/bench_env.json" else "results/bench_async.json")
    return 0

