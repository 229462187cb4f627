"""Figures of the training experiment (experiments/train.py): the learning curve.

    python experiments/plots.py RUN/evaluations.json [--out RUN/learning_curve.png]

Needs matplotlib (the ``render`` extra: ``pip install 'cuegym[render]'``); the Agg backend
is used, so no display is needed. Without matplotlib :func:`plot_learning_curve` returns
None and says why in :data:`NO_MATPLOTLIB`; the numbers stay in the JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

NO_MATPLOTLIB = ("matplotlib is not installed (pip install 'cuegym[render]'), so no learning-curve PNG was written; "
                 "the curve is in the evaluations JSON: draw it later with "
                 "`python experiments/plots.py RUN/evaluations.json`")


def have_matplotlib() -> bool:
    """Whether matplotlib imports here."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def plot_learning_curve(record: dict, path) -> str | None:
    """Draw the success rate and the mean episode reward of every evaluation against the
    training steps, with the uniform-random policy's figures as dashed lines.

    Args:
      record: the JSON written by experiments/train.py: ``evaluations`` (a list of
        ``{"steps", "mean_reward", "success_rate"}``), ``baseline`` (``mean_reward``,
        ``success_rate``) and ``config`` (``env``, ``algo``, ``seed``).
      path: the PNG to write.

    Returns the path written, or None when matplotlib is missing (:data:`NO_MATPLOTLIB`).
    """
    if not have_matplotlib():
        return None
    import matplotlib

    matplotlib.use("Agg")  # headless: the figure goes to a file only
    import matplotlib.pyplot as plt

    evals = record["evaluations"]
    steps = [e["steps"] for e in evals]
    base = record.get("baseline") or {}
    cfg = record.get("config", {})
    fig, (ax_s, ax_r) = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, key, label in ((ax_s, "success_rate", "success rate"), (ax_r, "mean_reward", "mean episode reward")):
        ax.plot(steps, [e[key] for e in evals], "o-", color="tab:blue", label=cfg.get("algo", "policy").upper())
        if key in base:
            ax.axhline(base[key], ls="--", color="tab:gray", label="uniform random")
        ax.set_xlabel("training steps")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    ax_s.legend(loc="best")
    fig.suptitle(f"{cfg.get('env', '')}  {cfg.get('table') or ''}  seed {cfg.get('seed', '')}".strip())
    fig.tight_layout()
    path = str(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="plots", description="Learning-curve PNG from experiments/train.py's JSON")
    p.add_argument("evaluations", help="the evaluations JSON of a training run")
    p.add_argument("--out", help="PNG path (default: learning_curve.png beside the JSON)")
    args = p.parse_args(argv)
    src = Path(args.evaluations)
    out = Path(args.out) if args.out else src.with_name("learning_curve.png")
    written = plot_learning_curve(json.loads(src.read_text()), out)
    if written is None:
        print(NO_MATPLOTLIB, file=sys.stderr)
        return 1
    print(f"wrote {written}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
