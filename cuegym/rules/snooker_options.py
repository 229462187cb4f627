"""Rule options of the snooker referees (SN and, through the same judge, AS).

The original text decides every default; where established practice (WPBSA) reads a rule
differently, an option gives the practice:

* ``miss_restore`` (SN-58): ``"cue_ball"`` (default, «вернуть биток на исходную позицию»)
  returns the cue ball only; ``"every_ball"`` (WPBSA) restores the whole position.
* ``last_red`` (SN-25, SN-26, SN-35, AS-22, AS-23, AS-30, AMB-34): ``"in_order"`` (default,
  «в порядке возрастания»): the yellow is on; ``"nominated"`` (WPBSA): any colour first.
* ``replay_free_ball`` (SN-61, SN-68, AMB-37): ``"incoming_only"`` (default);
  ``"offender_too"`` (WPBSA) gives the free ball also to an offender asked to play again.

:func:`snooker_options` builds and checks them; the referee takes them as a static argument
(``judge(..., opts=...)``, ``choose(..., opts=...)``). Decisions and quotations:
docs/rules.md, "Snooker options".
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

ALLOWED = {
    "miss_restore": ("cue_ball", "every_ball"),
    "last_red": ("in_order", "nominated"),
    "replay_free_ball": ("incoming_only", "offender_too"),
}
"""Each option's allowed values, the default (the original's reading) first."""


class SnookerOptions(NamedTuple):
    """The options (static, hashable); the defaults are the original's readings."""

    miss_restore: str = "cue_ball"
    last_red: str = "in_order"
    replay_free_ball: str = "incoming_only"


DEFAULT = SnookerOptions()
WPBSA = SnookerOptions(miss_restore="every_ball", last_red="nominated", replay_free_ball="offender_too")
"""Every option set to the professional (WPBSA) practice."""


def snooker_options(**values) -> SnookerOptions:
    """A checked :class:`SnookerOptions`: an unknown option or value raises ValueError
    naming the option and what is allowed."""
    for name, value in values.items():
        if name not in ALLOWED:
            raise ValueError(f"snooker option {name!r} is unknown; one of {', '.join(ALLOWED)}")
        if value not in ALLOWED[name]:
            raise ValueError(f"snooker option {name}: {value!r} is not one of {', '.join(ALLOWED[name])}")
    return SnookerOptions(**values)


def check(opts: SnookerOptions) -> SnookerOptions:
    """``opts`` itself, after checking every field (for options built directly)."""
    return snooker_options(**opts._asdict())


def cue_ball_back(xy, on, prev_xy, prev_on, radius, cue: int = 0):
    """SN-58 read literally: the cue ball goes back to where it was before the miss and
    every other ball stays where the miss left it. A ball the miss moved onto the cue
    ball's old place would overlap it, so that ball goes back too (and so on, a ball
    overlapping a ball put back): the fewest balls that make the position possible.

    ``xy`` (N, 2) [m], ``on`` (N,) bool: the position after the miss; ``prev_xy``,
    ``prev_on``: before it. Returns (xy, on)."""
    n = xy.shape[0]
    ids = jnp.arange(n)
    back = ids == cue

    def spread(_, back):
        pos = jnp.where(back[:, None], prev_xy, xy)
        placed = jnp.where(back, prev_on, on)
        d2 = jnp.sum((pos[:, None] - pos[None]) ** 2, -1)
        clash = placed[:, None] & placed[None] & (d2 < (2 * radius) ** 2 * (1 - 1e-9)) & (ids[:, None] != ids[None])
        return back | jnp.any(clash & back[None, :], 1)

    back = jax.lax.fori_loop(0, n, spread, back)
    return jnp.where(back[:, None], prev_xy, xy), jnp.where(back, prev_on, on)
