"""Field checks shared by the viewer's document checker and its converters.

Each check raises ValueError naming the field, ``field: what it must be, got ...``
(docs/viewer.md).
"""

from __future__ import annotations

import json
import math
import re

FORMAT = 1
KINDS = ("frame", "simulate", "suggest")
COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
SHOT_FIELDS = ("phi", "speed", "a", "b", "theta")
MAX_BALLS = 64


def is_num(x) -> bool:
    """A finite int or float (not a bool)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def need(cond: bool, field: str, what: str, got=None) -> None:
    """ValueError ``field: what, got ...`` unless ``cond``."""
    if not cond:
        tail = "" if got is None else f", got {_short(got)}"
        raise ValueError(f"{field}: {what}{tail}")


def _short(x) -> str:
    text = json.dumps(x) if not isinstance(x, str) else repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def check_table(name) -> str:
    """``name`` when it is a table name; ValueError naming ``table`` otherwise."""
    from cuegym.envs import render as R

    need(isinstance(name, str), "table", "a table name (str)", name)
    try:
        R.check_table_name(name)
    except ValueError as e:
        raise ValueError(f"table: {str(e).split(': ', 1)[-1]}") from None
    return name
