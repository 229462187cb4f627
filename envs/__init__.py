"""cuegym: Gymnasium environments for cue sports over a JAX table simulator."""

__version__ = "0.1.0"
