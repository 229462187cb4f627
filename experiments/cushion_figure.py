"""Rebound angle and speed against the incidence angle, every cushion model on one figure.

    python experiments/cushion_figure.py [--out docs/cushion_models.png] [--json results/cushion_models.json]

The conditions of Mathavan et al. 2010 (snooker ball 140.6 g, R 26.25 mm, cushion nose
36.75 mm, their measured e = 0.98 and mu_w = 0.14, cloth mu_s = 0.212), a ball meeting a
cushion at 1 and 2 m/s with no spin (stun) and rolling. Each of cuegym's models
(cuegym.physics.cushion) is drawn, and pooltool's Han 2005 and Mathavan 2010 functions where
pooltool is installed (docs/physics.md, "Agreement with pooltool"). docs/physics.md, "Cushions".
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from cuegym.physics import cushion as C
from cuegym.physics import get_spec
from cuegym.physics.tables import compile_table

PAPER = dict(ball_mass=0.1406, ball_diameter=0.0525, cushion_height=0.03675, e_cushion=0.98, mu_slide=0.212,
             mu_cushion=0.14)
INCIDENCE = np.arange(0.0, 86.0, 2.5)  # degrees from the cushion's normal
SPEEDS = (1.0, 2.0)
SPINS = ("stun", "rolling")


def ways_in(speed: float, spin: str, radius: float):
    """(A, 3) velocities and spins [m/s, rad/s] of balls meeting a cushion along +x."""
    a = np.radians(INCIDENCE)
    v = np.stack([speed * np.cos(a), speed * np.sin(a), 0 * a], 1)
    w = np.stack([-v[:, 1], v[:, 0], 0 * a], 1) / radius if spin == "rolling" else np.zeros_like(v)
    return v, w


def rebound_angle_speed(v_out):
    """Degrees from the cushion's outward normal and speeds [m/s] of velocities (A, 3)."""
    return np.degrees(np.arctan2(v_out[:, 1], -v_out[:, 0])), np.hypot(v_out[:, 0], v_out[:, 1])


def cuegym_curves(spec) -> dict:
    out = {}
    for model in C.MODELS:
        table = compile_table(spec.with_overrides(cushion=model))
        f = jax.jit(jax.vmap(lambda v, w, t=table, m=model: C.MODELS[m](v, w, jnp.array([-1.0, 0.0]), 0.0, True, t)))
        for speed in SPEEDS:
            for spin in SPINS:
                v, w = ways_in(speed, spin, spec.ball_radius)
                angle, sp = rebound_angle_speed(np.asarray(f(jnp.asarray(v), jnp.asarray(w))[0]))
                out[f"cuegym {model}|{speed}|{spin}"] = (angle.tolist(), sp.tolist())
    return out


def pooltool_curves(spec) -> dict:
    try:
        import pooltool  # noqa: F401
    except ImportError:
        return {}
    from cuegym.tools.compare_pooltool import pooltool_rebound

    out = {}
    for speed in SPEEDS:
        for spin in SPINS:
            v, w = ways_in(speed, spin, spec.ball_radius)
            for model in ("han_2005", "mathavan_2010"):
                rows = [pooltool_rebound(model, spec, vi, wi)[0] for vi, wi in zip(v, w)]
                angle, sp = rebound_angle_speed(np.array(rows))
                out[f"pooltool {model}|{speed}|{spin}"] = (angle.tolist(), sp.tolist())
    return out


def draw(curves: dict, path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 8), sharex=True)
    styles = {"cuegym mathavan_2010": ("C0", "-"), "cuegym han_2005": ("C1", "-"),
              "pooltool mathavan_2010": ("k", ":"),
              "pooltool han_2005": ("C3", ":")}
    for col, spin in enumerate(SPINS):
        for key, (angle, speed) in curves.items():
            name, v0, s = key.split("|")
            if s != spin:
                continue
            colour, line = styles[name]
            width = 2.2 if v0 == "1.0" else 1.0
            label = f"{name}, {v0} m/s"
            axes[0, col].plot(INCIDENCE, angle, color=colour, ls=line, lw=width, label=label)
            axes[1, col].plot(INCIDENCE, np.array(speed) / float(v0), color=colour, ls=line, lw=width, label=label)
        axes[0, col].plot(INCIDENCE, INCIDENCE, color="0.7", lw=0.8, label="mirror")
        axes[0, col].set_title(f"{spin} ball: rebound angle")
        axes[1, col].set_title(f"{spin} ball: rebound speed / incoming speed")
        axes[1, col].set_xlabel("incidence angle from the normal [deg]")
    axes[0, 0].set_ylabel("rebound angle [deg]")
    axes[1, 0].set_ylabel("speed ratio")
    axes[0, 1].legend(fontsize=7, loc="upper left")
    fig.suptitle("Cushion models at Mathavan et al. 2010's conditions (e 0.98, mu_w 0.14, mu_s 0.212)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/cushion_models.png")
    ap.add_argument("--json", default="results/cushion_models.json")
    args = ap.parse_args(argv)
    spec = get_spec("snooker-12ft").with_overrides(**PAPER)
    curves = {**cuegym_curves(spec), **pooltool_curves(spec)}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"incidence": INCIDENCE.tolist(), "conditions": PAPER, "curves": curves}))
    draw(curves, Path(args.out))
    print(f"wrote {args.out} and {args.json} ({len(curves)} curves)")
    for key, (angle, _) in sorted(curves.items()):
        if key.endswith("|1.0|rolling"):
            at = {float(a): round(angle[i], 2) for i, a in enumerate(INCIDENCE) if a in (20.0, 45.0, 70.0)}
            print(f"  {key:42s} rebound at 20/45/70 deg: {at}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
