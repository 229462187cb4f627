"""The built-in ghost against itself on a batch of tables: how often it fouls, which clauses
rule its strokes, and how many balls it counts.

B tables of the functional env (:mod:`cuegym.envs.functional`), keys ``split(PRNGKey(--seed),
B)``, play ``--decisions`` decisions each, both sides by :func:`cuegym.envs.functional.ghost_action`
under the env's execution noise; decision d steps with ``split(PRNGKey(1000 + 100 * seed +
d), B)``. A stroke counts when the table was live before it and a stroke was played (not a
removal or a foul answer). Prints one JSON line per game: strokes, fouls, balls counted for
the striker (``EnvState.potted``) and the ten clauses most often applied.

``--pot-cap`` sets ``cuegym.envs.ghost_safety.MAX_POT_SPEED`` (Americanka's ceiling on a pot
raised to its miss speed) before anything is traced, to compare ceilings side by side:

    python experiments/ghost_selfplay.py --games americanka --tables 128 --decisions 16 --seed 1 --pot-cap 4
    python experiments/ghost_selfplay.py --games americanka --tables 128 --decisions 16 --seed 1
"""

from __future__ import annotations

import argparse
import collections
import json
import time


def selfplay(game: str, tables: int, decisions: int, seed: int, noise: float = 1.0) -> dict:
    """Counts over ``tables`` x ``decisions`` decisions of ``game`` (a functional task name)."""
    import jax
    import numpy as np

    from cuegym.envs import functional as F
    from cuegym.rules import catalogue

    env = F.FuncEnv(task=game, noise=noise)

    def decide(state, key):
        return F.step(env, state, F.ghost_action(env, state), key)

    step = jax.jit(jax.vmap(decide))
    state = jax.jit(jax.vmap(lambda k: F.init(env, k)))(jax.random.split(jax.random.PRNGKey(seed), tables))
    strokes = fouls = counted = 0
    clauses = np.zeros(len(catalogue.CLAUSES), np.int64)
    t0 = time.perf_counter()
    for d in range(decisions):
        live = ~(np.asarray(state.terminated) | np.asarray(state.truncated))
        state = step(state, jax.random.split(jax.random.PRNGKey(1000 + 100 * seed + d), tables))
        played = live & (np.asarray(state.last_shot)[:, 2] > 0)  # speed 0: no stroke was played
        strokes += int(played.sum())
        fouls += int((np.asarray(state.foul) & played).sum())
        counted += int((np.asarray(state.potted).sum(-1) * played).sum())
        clauses += (np.asarray(state.clauses) & played[:, None]).sum(0)
    top = collections.Counter({c.id: int(n) for c, n in zip(catalogue.CLAUSES, clauses) if n}).most_common(10)
    return {"game": game, "tables": tables, "decisions": decisions, "seed": seed, "noise": noise,
            "strokes": strokes, "fouls": fouls, "counted": counted, "clauses": dict(top),
            "seconds": round(time.perf_counter() - t0, 1)}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", nargs="+", default=["russian-pyramid", "americanka", "moscow-pyramid"],
                   help="task names (cuegym.envs.registry.GAMES)")
    p.add_argument("--tables", type=int, default=64)
    p.add_argument("--decisions", type=int, default=12)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--noise", type=float, default=1.0)
    p.add_argument("--pot-cap", type=float, default=None, help="Americanka's pot speed ceiling [m/s], (0, 10]")
    args = p.parse_args(argv)
    if args.pot_cap is not None:
        if not 0 < args.pot_cap <= 10:
            p.error(f"--pot-cap: a speed in (0, 10] m/s, got {args.pot_cap}")
        from cuegym.envs import ghost_safety

        ghost_safety.MAX_POT_SPEED = args.pot_cap  # read when the programs are traced, below
    for game in args.games:
        print(json.dumps({**selfplay(game, args.tables, args.decisions, args.seed, args.noise),
                          "pot_cap": args.pot_cap}), flush=True)


if __name__ == "__main__":
    main()
