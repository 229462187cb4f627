"""The README's main job: train PPO on PotShot-v0, evaluate it against the baseline agents
on the same layouts, write one table and the learning curve.

    python experiments/main_job.py [--steps 60000] [--menu-steps 8192] [--shots 300] [--search-shots 60]
        [--jax-minutes 2] [--frame-minutes 0.5] [--ghost-frames 4] [--search-frames 1] [--out results/main]

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
5. Whole frames (:func:`frame_section`): ``--frame-minutes`` of self-play PPO over the
   asynchronous pool on Russian pyramid, then the agent cuegym ships for the game against
   the ghost and the search (outputs in ``OUT/frames``).
6. ``OUT/main_job.md`` and ``OUT/main_job.json``: pot rate with a 95 % interval and the time
   per decision, one row per policy; the frames' win rates.
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
        menu_steps: int = 8192, frame_minutes: float = 0.5, frames: tuple = (4, 1)) -> dict:
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
    frame = frame_section(out / "frames", seed, frame_minutes, *frames) if frame_minutes > 0 else None
    report = {"kind": "cuegym.main_job", "env": "cuegym/PotShot-v0", "table": TABLE, "noise": NOISE,
              "eval_seed": EVAL_SEED, "train": record["train"], "learning_curve": str(out / "train" / "learning_curve.png"),
              "rows": rows, "frames": frame, "wall_s": round(time.perf_counter() - t0, 1)}
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


FRAME_GAME = "cuegym/RussianPyramid-v0"
FRAME_SEED = 500_000  # frames the shipped agent never trained on (its training deals from JAX keys)


def frame_section(out: Path, seed: int, minutes: float, ghost_frames: int, search_frames: int) -> dict:
    """Whole frames: ``minutes`` of self-play PPO over the asynchronous pool on Russian
    pyramid (:mod:`cuegym.learn.pool_ppo`; its steps/s), then the agent cuegym ships for the
    game (``cuegym.agents.pretrained``) in frames against the ghost and the search
    (``experiments/evaluate.py``'s frames, seeds ``FRAME_SEED`` + f)."""
    from cuegym.learn import ppo
    from cuegym.learn.train import run as train_jax

    spec = {"env": FRAME_GAME, "action": "menu", "observation": "flat", "opponent": "self", "rollout": "pool",
            "options": {"noise": NOISE}}
    cfg = ppo.Config(num_envs=64, num_steps=8, pool_batch=16)
    res = train_jax(spec, cfg, minutes=minutes, seed=seed, out=out / "selfplay", eval_episodes=0,
                    measure_env_speed=False)
    training = {"steps": res["steps"], "steps_per_s": res["steps_per_s"], "compile_s": res["compile_seconds"]}
    print(json.dumps({"self-play": training}), flush=True)
    agents = _load("evaluate")
    rows = []
    for other, n in (("ghost", ghost_frames), ("search", search_frames)):
        if n > 0:
            rep = agents.run_frames([FRAME_GAME], [("pretrained", other)], n, seed=FRAME_SEED, noise=NOISE,
                                    out=str(out / f"pretrained_{other}"), log=lambda *_: None)
            rows += rep["rows"]
            print(json.dumps({k: rows[-1][k] for k in ("pair", "frames", "win_rate", "ci95")}), flush=True)
    return {"game": FRAME_GAME, "selfplay": training, "rows": rows}


def frames_markdown(frame: dict) -> list:
    t = frame["selfplay"]
    lines = ["", f"{frame['game'].removeprefix('cuegym/')}: self-play over the pool, {t['steps']} steps at "
             f"{t['steps_per_s']} steps/s (compiled in {t['compile_s']:.0f} s); the shipped agent's frames "
             f"(seeds {FRAME_SEED} + f):", "",
             "| pair | frames | win rate | 95 % CI | s / decision (shipped / other) |", "|---|---|---|---|---|"]
    for r in frame["rows"]:
        s = r["median_frame_s_per_decision"]
        lines.append(f"| {r['pair'][0]} v {r['pair'][1]} | {r['frames']} | {r['win_rate']:.3f} | "
                     f"{r['ci95'][0]:.3f}–{r['ci95'][1]:.3f} | {s[0]:.3f} / {s[1]:.3f} |")
    return lines


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
    if report.get("frames"):
        lines += frames_markdown(report["frames"])
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from cuegym import compile_log

    compile_log.show()  # say when a program compiles (the first step waits for it)
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=30_000, help="PPO training steps")
    p.add_argument("--menu-steps", type=int, default=8192, help="steps of SB3's MaskablePPO on the shot menu")
    p.add_argument("--shots", type=int, default=300, help="evaluation episodes of PPO, random and ghost")
    p.add_argument("--search-shots", type=int, default=60, help="evaluation episodes of the search agent (~0.7 s each)")
    p.add_argument("--jax-minutes", type=float, default=1.5, help="training budget of the JAX menu PPO")
    p.add_argument("--frame-minutes", type=float, default=0.5,
                   help="self-play training on Russian pyramid frames over the pool (0: no frame section)")
    p.add_argument("--ghost-frames", type=int, default=4, help="frames of the shipped agent against the ghost")
    p.add_argument("--search-frames", type=int, default=1, help="frames of the shipped agent against the search")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="results/main")
    args = p.parse_args(argv)
    if args.jax_minutes <= 0:
        p.error(f"--jax-minutes: more than 0, got {args.jax_minutes}")
    for name in ("steps", "menu_steps", "shots", "search_shots"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')}: at least 1, got {getattr(args, name)}")
    for name in ("frame_minutes", "ghost_frames", "search_frames"):
        if getattr(args, name) < 0:
            p.error(f"--{name.replace('_', '-')}: at least 0, got {getattr(args, name)}")
    os.environ.setdefault("CUEGYM_CACHE_DIR", str(HERE.parent / ".jax_cache"))
    report = run(args.steps, args.shots, args.search_shots, Path(args.out), args.seed, args.jax_minutes,
                 args.menu_steps, args.frame_minutes, (args.ghost_frames, args.search_frames))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
