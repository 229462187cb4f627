"""Tables: playing areas, pockets, spots and lines, ball and cloth parameters.

A table is a :class:`TableSpec`, the human-readable figures with their sources, compiled
into a :class:`Table` of fixed-shape float64 arrays (a JAX pytree; 18 cushion segments, 12
jaw circles, 6 pockets on every table, so one compiled simulator serves all of them).

Frame (docs/physics.md, "Frame"): x across the table in [0, W], y along it in [0, L], origin
at the head-left corner of the cushion noses; the head cushion is y = 0. Pockets HL, ML, FL,
FR, MR, HR (0..5); cushions head, foot, left-head, left-foot, right-head, right-foot (0..5).
Pocket geometry, friction and restitution defaults and their sources (Alciatore 2010;
Leckie and Greenspan 2005; Mathavan, Jackson and Parkin 2010): docs/physics.md.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax.numpy as jnp
import numpy as np

from cuegym.physics.cushion import DEFAULT as DEFAULT_CUSHION
from cuegym.physics.cushion import check_model
from cuegym.physics.vec import dot

MODEL_SEPARATOR = "@"  # "pool-9ft@mathavan_2010": a table with another cushion model

POCKETS = ("HL", "ML", "FL", "FR", "MR", "HR")
CUSHIONS = ("head", "foot", "left-head", "left-foot", "right-head", "right-foot")
NUM_SEGMENTS = 18  # 6 cushion noses + 2 throat walls per pocket
NUM_JAWS = 12  # 2 per pocket
NUM_POCKETS = 6


@dataclasses.dataclass(frozen=True)
class TableSpec:
    """Figures of one table, in SI units (metres, kilograms).

    ``corner_mouth`` / ``middle_mouth`` are the narrowest gaps between the jaws;
    ``*_jaw_radius`` the rounding radius of the jaw noses; ``cushion_height`` the height of
    the cushion nose above the bed. ``head_line`` is the house line (Russian games, pool) or
    the baulk line (snooker games), measured from the head cushion. ``cushion`` names the
    ball–cushion model (docs/physics.md, "Cushions").
    """

    name: str
    width: float
    length: float
    ball_diameter: float
    ball_mass: float
    corner_mouth: float
    middle_mouth: float
    corner_jaw_radius: float
    middle_jaw_radius: float
    cushion_height: float
    head_line: float
    d_radius: float = 0.0  # snooker D; 0 where the table has none
    mu_slide: float = 0.2
    mu_roll: float = 0.01
    mu_spin: float = 0.044
    e_ball: float = 0.95
    e_cushion: float = 0.85
    mu_cushion: float = 0.2
    e_table: float = 0.5
    cue_mass: float = 0.54
    cue_endmass: float = 0.010
    miscue_limit: float = 0.5
    cushion: str = DEFAULT_CUSHION  # the ball–cushion model (cuegym.physics.cushion.MODELS)
    sources: str = ""

    def __post_init__(self):
        check_model(self.cushion)

    @property
    def ball_radius(self) -> float:
        return self.ball_diameter / 2.0

    def spots(self) -> dict[str, tuple[float, float]]:
        """Named spots of the table, metres in the table frame."""
        w, length = self.width, self.length
        spots = {
            "front": (w / 2, self.head_line),
            "centre": (w / 2, length / 2),
            "rear": (w / 2, length - self.head_line),
        }
        if self.d_radius > 0:  # snooker layout (catalogue AMB-03, WPBSA positions)
            black_from_top = 0.324 * self.length / 3.5  # 324 mm on a 3500 mm table, scaled
            spots.update(
                {
                    "yellow": (w / 2 + self.d_radius, self.head_line),
                    "green": (w / 2 - self.d_radius, self.head_line),
                    "brown": (w / 2, self.head_line),
                    "blue": (w / 2, length / 2),
                    "pink": (w / 2, 0.75 * length),
                    "black": (w / 2, length - black_from_top),
                }
            )
        return spots

    def with_overrides(self, **changes) -> TableSpec:
        """A copy with some figures replaced (e.g. ``ball_diameter=0.067``)."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise ValueError(f"unknown table parameter(s) {sorted(unknown)}")
        return dataclasses.replace(self, **changes)


# International Pyramid Committee table requirements (docs/physics.md, "Parameters"): playing area
# 3550 x 1775 mm, ball 68 mm / 285 g, corner mouth 72-73 mm, middle 82-83 mm, jaw rounding
# 5 mm (corners) and 11 mm (middles), cushion nose 42 mm above the slate. The cushion rubber
# rebound of 55 % is read as the ratio of rebound to impact kinetic energy, so the ball–cushion
# restitution is sqrt(0.55) = 0.74 (our reading; the requirement does not define the test).
PYRAMID_12FT = TableSpec(
    name="pyramid-12ft",
    width=1.775,
    length=3.550,
    ball_diameter=0.068,
    ball_mass=0.285,
    corner_mouth=0.0725,
    middle_mouth=0.0825,
    corner_jaw_radius=0.005,
    middle_jaw_radius=0.011,
    cushion_height=0.042,
    head_line=3.550 / 4,
    e_cushion=math.sqrt(0.55),
    sources="International Pyramid Committee table requirements; catalogue AMB-02 for lines",
)

# Rulebook (catalogue SN-02, SN-05, SN-08, SN-09): 3500 x 1750 mm, ball 52.5 mm, baulk line
# 700 mm, D radius 292 mm. Pocket openings are not in the rulebook; WPBSA templates are not
# published and openings of 80-86 mm circulate: 86 mm corners, 92 mm middles, jaws rounded
# (radius assumed 10 / 15 mm). Cushion nose at 7R/5, cushion restitution 0.98 and friction
# 0.14 (Mathavan et al. 2010, measured on snooker equipment). Ball mass 140 g (pooltool's
# snooker ball; WPBSA allows ±3 g).
SNOOKER_12FT = TableSpec(
    name="snooker-12ft",
    width=1.750,
    length=3.500,
    ball_diameter=0.0525,
    ball_mass=0.140,
    corner_mouth=0.086,
    middle_mouth=0.092,
    corner_jaw_radius=0.010,
    middle_jaw_radius=0.015,
    cushion_height=0.0525 / 2 * 7 / 5,
    head_line=0.700,
    d_radius=0.292,
    e_cushion=0.98,
    mu_cushion=0.14,
    sources="rulebook SN-02/05/08/09; pockets assumed (WPBSA templates unpublished)",
)


def _american_snooker(name: str, width: float, length: float, diameter: float) -> TableSpec:
    """Catalogue AS-02/AS-03: 1536 x 3072 or 1843 x 3686 mm tables, 52.8 or 54.4 mm balls.

    Baulk line and D scaled from the snooker table by length; ball mass scaled from the
    140 g snooker ball by volume; pocket openings scaled from the snooker figures by the
    ball diameter (the rulebook gives none).
    """
    scale = length / 3.5
    size = diameter / 0.0525
    return TableSpec(
        name=name,
        width=width,
        length=length,
        ball_diameter=diameter,
        ball_mass=round(0.140 * size**3, 4),
        corner_mouth=0.086 * size,
        middle_mouth=0.092 * size,
        corner_jaw_radius=0.010,
        middle_jaw_radius=0.015,
        cushion_height=diameter / 2 * 7 / 5,
        head_line=0.700 * scale,
        d_radius=0.292 * scale,
        e_cushion=0.98,
        mu_cushion=0.14,
        sources="rulebook AS-02/AS-03; lines, masses and pockets scaled from snooker",
    )


AMERICAN_SNOOKER_10FT = _american_snooker("american-snooker-10ft", 1.536, 3.072, 0.0528)
AMERICAN_SNOOKER_12FT = _american_snooker("american-snooker-12ft", 1.843, 3.686, 0.0544)

# WPA equipment specifications: 9-ft bed 2540 x 1270 mm, ball 57.15 mm (156-170 g), corner
# mouth 114.3-117.5 mm, side 127.0-130.2 mm, cushion nose at 62.5-64.5 % of the ball
# diameter. The WPA's straight angled facings are approximated by small jaw roundings.
POOL_9FT = TableSpec(
    name="pool-9ft",
    width=1.270,
    length=2.540,
    ball_diameter=0.05715,
    ball_mass=0.165,
    corner_mouth=0.115,
    middle_mouth=0.128,
    corner_jaw_radius=0.006,
    middle_jaw_radius=0.006,
    cushion_height=0.64 * 0.05715,
    head_line=2.540 / 4,
    sources="WPA equipment specifications",
)

TABLE_SPECS: dict[str, TableSpec] = {
    t.name: t
    for t in (PYRAMID_12FT, SNOOKER_12FT, AMERICAN_SNOOKER_10FT, AMERICAN_SNOOKER_12FT, POOL_9FT)
}


@dataclasses.dataclass(frozen=True, eq=False)
class Table:
    """A table compiled for the simulator: every field a float64 / int32 JAX array.

    Scalars (shape ()): width, length [m]; radius [m], mass [kg] of the balls; mu_slide,
    mu_roll, mu_spin, e_ball, e_cushion, mu_cushion, e_table (dimensionless); gravity
    [m/s^2]; cushion_height [m]; cue_mass, cue_endmass [kg]; miscue_limit [ball radii];
    head_line, centre_line [m] (y of the house/baulk line and the halfway line).

    Segments (S = 18): seg_a, seg_b (S, 2) end points of a cushion nose or throat wall,
    seg_n (S, 2) unit normal pointing to the side balls come from, seg_cushion (S,) cushion
    id or -1 for throat walls, seg_pocket (S,) pocket id for throat walls, else -1.
    Jaws (J = 12): jaw_c (J, 2) centres, jaw_r (J,) radii, jaw_pocket (J,) pocket ids.
    Pockets (P = 6): drop_q (P, 2) a point of the drop line, drop_n (P, 2) its unit normal
    pointing into the pocket, pocket_xy (P, 2) where a pocketed ball is drawn.

    A table is hashable (by its ``spec``) and passed to the jitted simulator as a static
    argument, so its figures are compile-time constants. That is a requirement, not a taste:
    with the figures as traced inputs XLA optimises the event loop differently at different
    batch sizes and a shot alone and the same shot in a batch differ in the last bits
    (found by ``tests/physics/test_determinism.py``). One compile per table.
    """

    spec: TableSpec
    width: jnp.ndarray
    length: jnp.ndarray
    radius: jnp.ndarray
    mass: jnp.ndarray
    mu_slide: jnp.ndarray
    mu_roll: jnp.ndarray
    mu_spin: jnp.ndarray
    e_ball: jnp.ndarray
    e_cushion: jnp.ndarray
    mu_cushion: jnp.ndarray
    e_table: jnp.ndarray
    gravity: jnp.ndarray
    cushion_height: jnp.ndarray
    cue_mass: jnp.ndarray
    cue_endmass: jnp.ndarray
    miscue_limit: jnp.ndarray
    head_line: jnp.ndarray
    centre_line: jnp.ndarray
    seg_a: jnp.ndarray
    seg_b: jnp.ndarray
    seg_n: jnp.ndarray
    seg_cushion: jnp.ndarray
    seg_pocket: jnp.ndarray
    jaw_c: jnp.ndarray
    jaw_r: jnp.ndarray
    jaw_pocket: jnp.ndarray
    drop_q: jnp.ndarray
    drop_n: jnp.ndarray
    pocket_xy: jnp.ndarray

    def __hash__(self):
        return hash(self.spec)

    def __eq__(self, other):
        return isinstance(other, Table) and other.spec == self.spec

    @property
    def contact_offset(self):
        """Horizontal distance from a cushion nose to the centre of a ball touching it [m].

        The nose touches the ball at height h above the bed, i.e. (h - R) above the centre,
        where the ball's horizontal radius is R cos(asin((h - R) / R)).
        """
        s = (self.cushion_height - self.radius) / self.radius
        return self.radius * jnp.sqrt(1.0 - s * s)

    def nose_gaps(self, xy):
        """For centres ``xy`` (..., 2) [m] and every cushion nose or throat wall segment s:
        (whether the centre lies along s's span (..., S) bool, its distance [m] from the
        line a touching ball's centre keeps, ``contact_offset`` out from the nose (..., S);
        negative behind it). The audit's escape band and the simulator's "touching a nose"
        both read it."""
        rel = xy[..., None, :] - self.seg_a
        span = self.seg_b - self.seg_a
        frac = dot(rel, span) * (1.0 / dot(span, span))
        return (frac >= 0) & (frac <= 1), dot(rel, self.seg_n) - self.contact_offset


@dataclasses.dataclass(frozen=True)
class PocketGeometry:
    """Plain-numpy pocket layout, shared by the compiled table and by drawing code."""

    segments: list  # (a, b, n, cushion_id, pocket_id)
    jaws: list  # (centre, radius, pocket_id)
    drops: list  # (q, n, draw_xy)


def _corner_pocket(corner, e1, e2, mouth, rho, radius, pocket_id):
    """Jaws, throat walls and drop line of a corner pocket.

    ``e1``, ``e2``: unit vectors along the two cushions from the corner into the table.
    The jaw circles are tangent to the nose lines at distance d from the corner, offset
    outward by rho; their narrowest gap is sqrt(2) (d + rho) - 2 rho = mouth.
    """
    c, e1, e2 = (np.asarray(v, float) for v in (corner, e1, e2))
    d = (mouth + 2 * rho) / math.sqrt(2) - rho
    jaw1 = c + d * e1 - rho * e2
    jaw2 = c + d * e2 - rho * e1
    axis = -(e1 + e2) / math.sqrt(2)  # outward along the pocket
    n1 = (e2 - e1) / math.sqrt(2)  # from jaw1 towards the axis
    depth = 3 * radius
    w1 = jaw1 + rho * n1
    w2 = jaw2 - rho * n1
    walls = [
        (w1, w1 + depth * axis, n1, -1, pocket_id),
        (w2, w2 + depth * axis, -n1, -1, pocket_id),
    ]
    narrow_mid = (jaw1 + jaw2) / 2
    drop = (narrow_mid + radius * axis, axis, narrow_mid + 1.5 * radius * axis)
    return d, [(jaw1, rho, pocket_id), (jaw2, rho, pocket_id)], walls, drop


def _middle_pocket(mid, inward, along, mouth, rho, radius, pocket_id):
    """Jaws, throat walls and drop line of a middle pocket centred at ``mid`` on a long
    cushion; ``inward`` points into the table, ``along`` along the cushion."""
    mid, inward, along = (np.asarray(v, float) for v in (mid, inward, along))
    half = mouth / 2 + rho
    jaw1 = mid - half * along - rho * inward
    jaw2 = mid + half * along - rho * inward
    depth = 3 * radius
    w1 = jaw1 + rho * along
    w2 = jaw2 - rho * along
    walls = [
        (w1, w1 - depth * inward, along, -1, pocket_id),
        (w2, w2 - depth * inward, -along, -1, pocket_id),
    ]
    narrow_mid = mid - rho * inward
    drop = (narrow_mid - radius * inward, -inward, narrow_mid - 1.5 * radius * inward)
    return half, [(jaw1, rho, pocket_id), (jaw2, rho, pocket_id)], walls, drop


def pocket_geometry(spec: TableSpec) -> PocketGeometry:
    """Cushion segments, jaws and drop lines of a table in the table frame."""
    w, length, r = spec.width, spec.length, spec.ball_radius
    cm, cr, mm, mr = spec.corner_mouth, spec.corner_jaw_radius, spec.middle_mouth, spec.middle_jaw_radius
    corners = {  # pocket id -> (corner, along long cushion, along short cushion)
        0: ((0, 0), (0, 1), (1, 0)),
        2: ((0, length), (0, -1), (1, 0)),
        3: ((w, length), (0, -1), (-1, 0)),
        5: ((w, 0), (0, 1), (-1, 0)),
    }
    jaws, segs, drops = [], [], {}
    corner_d = {}
    for pid, (c, e_long, e_short) in corners.items():
        d, j, walls, drop = _corner_pocket(c, e_long, e_short, cm, cr, r, pid)
        corner_d[pid] = d
        jaws += j
        segs += walls
        drops[pid] = drop
    middles = {1: ((0, length / 2), (1, 0), (0, 1)), 4: ((w, length / 2), (-1, 0), (0, 1))}
    mid_half = {}
    for pid, (mid, inward, along) in middles.items():
        half, j, walls, drop = _middle_pocket(mid, inward, along, mm, mr, r, pid)
        mid_half[pid] = half
        jaws += j
        segs += walls
        drops[pid] = drop
    dc, hm = corner_d[0], mid_half[1]
    noses = [
        ((dc, 0), (w - dc, 0), (0, 1), 0),  # head
        ((dc, length), (w - dc, length), (0, -1), 1),  # foot
        ((0, dc), (0, length / 2 - hm), (1, 0), 2),  # left-head
        ((0, length / 2 + hm), (0, length - dc), (1, 0), 3),  # left-foot
        ((w, dc), (w, length / 2 - hm), (-1, 0), 4),  # right-head
        ((w, length / 2 + hm), (w, length - dc), (-1, 0), 5),  # right-foot
    ]
    segs = [(np.array(a, float), np.array(b, float), np.array(n, float), cid, -1) for a, b, n, cid in noses] + segs
    return PocketGeometry(segments=segs, jaws=jaws, drops=[drops[p] for p in range(NUM_POCKETS)])


@functools.lru_cache(maxsize=None)
def compile_table(spec: TableSpec) -> Table:
    """Turn a :class:`TableSpec` into the simulator's array form."""
    geo = pocket_geometry(spec)
    f = lambda x: jnp.asarray(x, dtype=jnp.float64)  # noqa: E731
    i = lambda x: jnp.asarray(x, dtype=jnp.int32)  # noqa: E731
    assert len(geo.segments) == NUM_SEGMENTS and len(geo.jaws) == NUM_JAWS
    return Table(
        spec=spec,
        width=f(spec.width),
        length=f(spec.length),
        radius=f(spec.ball_radius),
        mass=f(spec.ball_mass),
        mu_slide=f(spec.mu_slide),
        mu_roll=f(spec.mu_roll),
        mu_spin=f(spec.mu_spin),
        e_ball=f(spec.e_ball),
        e_cushion=f(spec.e_cushion),
        mu_cushion=f(spec.mu_cushion),
        e_table=f(spec.e_table),
        gravity=f(9.81),
        cushion_height=f(spec.cushion_height),
        cue_mass=f(spec.cue_mass),
        cue_endmass=f(spec.cue_endmass),
        miscue_limit=f(spec.miscue_limit),
        head_line=f(spec.head_line),
        centre_line=f(spec.length / 2),
        seg_a=f([s[0] for s in geo.segments]),
        seg_b=f([s[1] for s in geo.segments]),
        seg_n=f([s[2] for s in geo.segments]),
        seg_cushion=i([s[3] for s in geo.segments]),
        seg_pocket=i([s[4] for s in geo.segments]),
        jaw_c=f([j[0] for j in geo.jaws]),
        jaw_r=f([j[1] for j in geo.jaws]),
        jaw_pocket=i([j[2] for j in geo.jaws]),
        drop_q=f([d[0] for d in geo.drops]),
        drop_n=f([d[1] for d in geo.drops]),
        pocket_xy=f([d[2] for d in geo.drops]),
    )


def get_spec(name: str, **overrides) -> TableSpec:
    """The :class:`TableSpec` called ``name``, with optional figure overrides. A name
    ``TABLE@MODEL`` is table TABLE with the cushion model MODEL (its spec's ``name`` is the
    whole name, so it finds the same table again)."""
    base, _, model = name.partition(MODEL_SEPARATOR)
    if base not in TABLE_SPECS:
        raise ValueError(f"unknown table {base!r}; known tables: {', '.join(TABLE_SPECS)}")
    spec = TABLE_SPECS[base]
    if model:
        spec = spec.with_overrides(name=with_cushion(base, model), cushion=check_model(model))
    return spec.with_overrides(**overrides) if overrides else spec


def with_cushion(table: str, model: str | None) -> str:
    """The name of table ``table`` with cushion model ``model`` (None: the table's own):
    ``TABLE@MODEL``, or ``TABLE`` where the model is the table's default."""
    base = table.partition(MODEL_SEPARATOR)[0]
    if model is None:
        return table
    check_model(model)
    default = TABLE_SPECS[base].cushion if base in TABLE_SPECS else DEFAULT_CUSHION
    return base if model == default else f"{base}{MODEL_SEPARATOR}{model}"


def get_table(name: str, **overrides) -> Table:
    """The compiled :class:`Table` called ``name`` (see :data:`TABLE_SPECS`)."""
    return compile_table(get_spec(name, **overrides))
