"""What the shot menu costs per table of a batch: ``vmap(menu)`` against ``menu_batch``.

    python experiments/profile_menu.py [--envs cuegym/RussianPyramid-v0 ...] [--tables 256]
                                       [--decisions 6] [--reps 3] [--out results/menu_speed.json]

Each env's tables are dealt and played ``--decisions`` random decisions on (mid-frame
layouts, some with the ball in hand); then, on the same tables, ``vmap(ghost_plans)``
against :func:`cuegym.agents.baselines.ghost_plans_batch` and ``vmap(menu)`` against
:func:`cuegym.agents.menu.menu_batch`, each jitted, the pairs called in turn ``--reps``
times (the best call counts, so that the machine's other load weighs on both alike).
Writes JSON (ms per table, the share in hand, whether the two give the same bytes, the
machine) and prints a table. docs/agents.md ("The shot menu's cost").
"""

from __future__ import annotations

import argparse
import json
import time

import jax
import numpy as np

from cuegym._io import write_atomic
from cuegym.agents import menu as M
from cuegym.agents.baselines import ball_in_hand, ghost_plans, ghost_plans_batch
from cuegym.envs import functional as F
from cuegym.learn import gymnax_env
from cuegym.tools.bench_report import machine_info, timestamp

ENVS = ("cuegym/RussianPyramid-v0", "cuegym/Americanka-v0", "cuegym/Snooker-v0", "cuegym/Golf-v0")


def mid_frame(env_id: str, tables: int, decisions: int, seed: int = 0):
    """(functional env, states with a leading axis ``tables``) after ``decisions`` random
    decisions from the deal."""
    env, params = gymnax_env.make(env_id, action="menu", opponent=None)
    f = env.func
    states = jax.jit(jax.vmap(lambda k: F.init(f, k, params.opts)))(jax.random.split(jax.random.PRNGKey(seed), tables))
    step = jax.jit(jax.vmap(lambda s, k: F.step(f, s, F.random_action(f, s, k), k, params.opts)))
    for i in range(decisions):
        states = step(states, jax.random.split(jax.random.PRNGKey(seed + i + 1), tables))
    return f, jax.block_until_ready(states)  # not counted in the first program's compile time


def same(a, b) -> bool:
    """Whether two pytrees of arrays hold the same bytes."""
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    return len(la) == len(lb) and all(np.asarray(x).tobytes() == np.asarray(y).tobytes() for x, y in zip(la, lb))


def race(fns: dict, states, reps: int, tables: int):
    """ms per table of each of ``fns`` on ``states`` (best of ``reps`` calls, taken in
    turn), its compile time [s] and its outputs."""
    out, ms, compile_s = {}, {}, {}
    for name, fn in fns.items():
        t = time.perf_counter()
        out[name] = jax.block_until_ready(fn(states))
        compile_s[name] = time.perf_counter() - t
        ms[name] = float("inf")
    for _ in range(reps):
        for name, fn in fns.items():
            t = time.perf_counter()
            jax.block_until_ready(fn(states))
            ms[name] = min(ms[name], (time.perf_counter() - t) / tables * 1e3)
    return ms, compile_s, out


def profile(env_id: str, tables: int, decisions: int, reps: int) -> dict:
    f, states = mid_frame(env_id, tables, decisions)
    pots = M.POTS
    plans_ms, plans_c, plans = race({
        "vmap_ghost_plans": jax.jit(jax.vmap(lambda s: ghost_plans(f, s, pots))),
        "ghost_plans_batch": jax.jit(lambda s: ghost_plans_batch(f, s, pots)),
    }, states, reps, tables)
    menu_ms, menu_c, menus = race({
        "vmap_menu": jax.jit(jax.vmap(lambda s: M.menu(f, s))),
        "menu_batch": jax.jit(lambda s: M.menu_batch(f, s)),
    }, states, reps, tables)
    return {
        "env_id": env_id,
        "in_hand_share": float(np.mean(np.asarray(ball_in_hand(states.game.phase)))),
        "ms_per_table": {**plans_ms, **menu_ms},
        "compile_s": {k: round(v, 1) for k, v in {**plans_c, **menu_c}.items()},
        "identical": {"ghost_plans": same(plans["vmap_ghost_plans"], plans["ghost_plans_batch"]),
                      "menu": same(menus["vmap_menu"], menus["menu_batch"])},
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", nargs="+", default=list(ENVS))
    ap.add_argument("--tables", type=int, default=256)
    ap.add_argument("--decisions", type=int, default=6, help="random decisions played from the deal")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default="results/menu_speed.json")
    args = ap.parse_args(argv)
    rows = []
    print(f"{'env':28s} {'in hand':>7s} {'plans vmap':>10s} {'batch':>7s} {'menu vmap':>10s} {'batch':>7s}  same")
    for env_id in args.envs:
        row = profile(env_id, args.tables, args.decisions, args.reps)
        rows.append(row)
        t = row["ms_per_table"]
        print(f"{env_id:28s} {row['in_hand_share']:7.2f} {t['vmap_ghost_plans']:10.3f} {t['ghost_plans_batch']:7.3f} "
              f"{t['vmap_menu']:10.3f} {t['menu_batch']:7.3f}  {all(row['identical'].values())}", flush=True)
    out = {"tables": args.tables, "decisions": args.decisions, "reps": args.reps, "unit": "ms per table",
           "envs": rows, "machine": machine_info(), "timestamp": timestamp()}
    if args.out:
        write_atomic(args.out, json.dumps(out, indent=2))
    return 0 if all(all(r["identical"].values()) for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
