"""Ball–cushion models, one module per paper; a table names its model
(``TableSpec.cushion``), and the simulator compiles that one alone.

* ``han_2005``: Han 2005, one impulse at the nose (closed form);
* ``mathavan_2010``: Mathavan et al. 2010, the impact integrated over the impulse with slip
  at the cushion and the table.

Which is the default and why: docs/physics.md ("Cushions").
"""

from __future__ import annotations

from cuegym.physics.cushion import han_2005, mathavan_2010

DEFAULT = "mathavan_2010"  # every table's model unless its spec names another (docs: why)
MODELS = {
    "han_2005": han_2005.rebound,
    "mathavan_2010": mathavan_2010.rebound,
}


def check_model(name) -> str:
    """``name`` if it names a cushion model, else ValueError naming ``cushion`` and the models."""
    if name not in MODELS:
        raise ValueError(f"cushion: unknown model {name!r}; one of {', '.join(MODELS)}")
    return name


def rebound(v, w, normal_xy, z, grounded, table):
    """Velocity and spin ((3,) each, [m/s], [rad/s]) after a cushion or jaw contact, by the
    table's model (``table.spec.cushion``): see each model's ``rebound``."""
    return MODELS[table.spec.cushion](v, w, normal_xy, z, grounded, table)
