"""The README's main job: train PPO on PotShot-v0, evaluate it against the baseline agents
on the same layouts, write one table and the learning curve.

    python experiments/main_job.py [--steps 60000] [--menu-steps 8192] [--shots 300] [--search-shots 60]
        [--jax-minutes 2] [--out results/main]

1. ``experiments/train.py`` trains PPO (stable-baselines3, the ShotOnly wrapper, 8 tables at
   once) on ``cuegym/PotShot-v0`` on ``pool-9ft`` at noise 1.0 and evaluates it every 10,000
   steps on ``--shots`` fixed episodes (seeds ``EVAL_SEED + k``); outputs in ``OUT/train``
   (``model.zip``, ``evaluations.json``, ``learning_curve.png``).
2. ``experiments/train.py --action menu --algo maskable_ppo`` trains sb3-contrib's MaskablePPO
   on the shot menu (``gymnasium.make(id, action="menu")``, the illegal candidates masked)
   for ``--menu-steps`` and evaluates it, and a uniform legal candidate, on the same
   ``--shots`` episodes (``menu_rows``; outputs in ``OUT/train_menu``).
3. ``experiments/evaluate.py``'s evaluation plays the random, ghost-ball and search
   agents (:mod:`cuegym.agents`) on the same episodes (the single env seeded
   ``EVAL_SEED + k`` deals the layout of sub-env k of the vector env seeded ``EVAL_SEED``).
4. ``cuegym.learn.train.run`` trains the JAX-native PPO on the shot menu (``action="menu"``)
   for ``--jax-minutes`` and evaluates it and the ghost on the same 1,000 seeded episodes of
   its gymnax env (outputs in ``OUT/train_jax``).
5. ``OUT/main_job.md`` and ``OUT/main_job.json``: pot rate with a 95 % interval and the time
   per decision, one row per policy.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
EVAL_SEED = 1_000_000
TABLE = "pool-9ft"
NOISE = 1.0


def _load(name: str):
    """An experiments/ script as a module (experiments/ is not a package)."""
    module_name = f"cuegym_experiments_{name}"  # not a bare "evaluate" or "train" another package may own
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = mod
    spec.loader.exec_module(mod)
    return mod


def run(steps: int, shots: int, search_shots: int, out: Path, seed: int = 0, jax_minutes: float = 2.0,
        menu_steps: int = 8192) -> dict:
    """Train, evaluate, write the outputs; returns the JSON record."""
    train, agents = _load("train"), _load("evaluate")
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    cfg = train.Config(env="cuegym/PotShot-v0", algo="ppo", steps=steps, seed=seed, table=TABLE, noise=NOISE,
                       eval_every=max(steps // 6, 1), eval_episodes=shots, eval_seed=EVAL_SEED,
                       out=str(out / "train"))
    record = train.train(cfg)
    last = record["evaluations"][-1]
    rows = []
    for policy, ev in (("uniform random shot (ShotOnly Box)", record["baseline"]), (f"PPO, {last['steps']} steps", last)):
        k = round(ev["success_rate"] * ev["episodes"])
        rows.append({"policy": policy, "shots": ev["episodes"], "pots": k, "rate": ev["success_rate"],
                     "ci95": list(agents.wilson(k, ev["episodes"])), "median_decision_s": None})
    rows += menu_rows(out / "train_menu", menu_steps, shots, seed)
    for name in ("random", "ghost", "search"):
        n = search_shots if name == "search" else shots
        r = agents.evaluate(name, TABLE, NOISE, n, EVAL_SEED, {})
        rows.append({"policy": f"{name} agent", "shots": n, "pots": r["pots"], "rate": r["rate"], "ci95": r["ci95"],
                     "median_decision_s": r["median_decision_s"]})
        print(json.dumps(rows[-1]), flush=True)
    rows += jax_menu_rows(out / "train_jax", seed, jax_minutes)
    report = {"kind": "cuegym.main_job", "env": "cuegym/PotShot-v0", "table": TABLE, "noise": NOISE,
              "eval_seed": EVAL_SEED, "train": record["train"], "learning_curve": str(out / "train" / "learning_curve.png"),
              "rows": rows, "wall_s": round(time.perf_counter() - t0, 1)}
    (out / "main_job.json").write_text(json.dumps(report, indent=1) + "\n")
    (out / "main_job.md").write_text(markdown(report))
    return report


def menu_rows(out: Path, steps: int, shots: int, seed: int) -> list:
    """Train SB3's MaskablePPO on the shot menu (8 tables) and return the rows of a uniform
    legal candidate and of the policy, on the seeded episodes of the rows above."""
    train, agents = _load("train"), _load("evaluate")
    t0 = time.perf_counter()
    cfg = train.Config(env="cuegym/PotShot-v0", algo="maskable_ppo", action="menu", steps=steps, seed=seed,
                       table=TABLE, noise=NOISE, eval_every=max(steps // 4, 1), eval_episodes=shots,
                       eval_seed=EVAL_SEED, out=str(out))
    record = train.train(cfg)
    last = record["evaluations"][-1]
    rows = []
    for policy, ev in (("uniform legal candidate (shot menu)", record["baseline"]),
                       (f"SB3 PPO on the shot menu (MaskablePPO), {last['steps']} steps", last)):
        k = round(ev["success_rate"] * ev["episodes"])
        rows.append({"policy": policy, "shots": ev["episodes"], "pots": k, "rate": ev["success_rate"],
                     "ci95": list(agents.wilson(k, ev["episodes"])), "median_decision_s": None})
    rows[-1]["wall_s"] = round(time.perf_counter() - t0, 1)  # train and evaluations
    print(json.dumps(rows[-1]), flush=True)
    return rows


def jax_menu_rows(out: Path, seed: int, minutes: float) -> list:
    """Train the JAX-native PPO on the shot menu and return its row and the ghost's on the
    same episodes of the gymnax env (their layouts differ from the rows above)."""
    from cuegym.learn import ppo
    from cuegym.learn.train import run as train_jax

    spec = {"env": "cuegym/PotShot-v0", "action": "menu", "observation": "flat", "opponent": None,
            "options": {"table": TABLE, "noise": NOISE}}
    res = train_jax(spec, ppo.Config(), minutes=minutes, seed=seed, out=out, eval_episodes=1000)
    rows = []
    for name, label in (("policy", f"PPO in JAX on the shot menu, {res['steps']} steps"),
                        ("ghost", "ghost agent, on the JAX PPO's episodes")):
        n = res["episodes"]
        rows.append({"policy": label, "shots": n, "pots": round(res[f"{name}_success"] * n),
                     "rate": res[f"{name}_success"], "ci95": res[f"{name}_success_95"], "median_decision_s": None})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def markdown(report: dict) -> str:
    lines = [f"PotShot-v0 on {report['table']}, noise {report['noise']:g}: pot rate on the same seeded layouts "
             f"(seeds {report['eval_seed']} + k); whole job {report['wall_s']:.0f} s", "",
             "| policy | shots | pot rate | 95 % CI | median s / decision |", "|---|---|---|---|---|"]
    for r in report["rows"]:
        t = "" if r["median_decision_s"] is None else f"{r['median_decision_s']:.3f}"
        lines.append(f"| {r['policy']} | {r['shots']} | {r['rate']:.3f} | {r['ci95'][0]:.3f}–{r['ci95'][1]:.3f} | {t} |")
    lines += ["", "The last two rows play the gymnax env's own 1,000 seeded episodes (the same for both), not the "
              "layouts of the rows above.", "", f"Learning curves: `{report['learning_curve']}`, "
              f"`{report['learning_curve'].replace('/train/', '/train_menu/')}`, "
              f"`{report['learning_curve'].replace('/train/', '/train_jax/')}`"]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from cuegym import compile_log

    compile_log.show()  # say when a program compiles (the first step waits for it)
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=60_000, help="PPO training steps")
    p.add_argument("--menu-steps", type=int, default=8192, help="steps of SB3's MaskablePPO on the shot menu")
    p.add_argument("--shots", type=int, default=300, help="evaluation episodes of PPO, random and ghost")
    p.add_argument("--search-shots", type=int, default=60, help="evaluation episodes of the search agent (~0.7 s each)")
    p.add_argument("--jax-minutes", type=float, default=2.0, help="training budget of the JAX menu PPO")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="results/main")
    args = p.parse_args(argv)
    if args.jax_minutes <= 0:
        p.error(f"--jax-minutes: more than 0, got {args.jax_minutes}")
    for name in ("steps", "menu_steps", "shots", "search_shots"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')}: at least 1, got {getattr(args, name)}")
    os.environ.setdefault("CUEGYM_CACHE_DIR", str(HERE.parent / ".jax_cache"))
    report = run(args.steps, args.shots, args.search_shots, Path(args.out), args.seed, args.jax_minutes,
                 args.menu_steps)
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
