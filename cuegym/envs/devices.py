"""Tables spread over devices: the checked device list, the mesh on the table axis, and a
batched function run on every device's block of tables.

Each device runs the one-device program on its own contiguous block of tables
(``jax.shard_map``, the "Anakin" layout of Hessel et al., "Podracer architectures for
scalable reinforcement learning", arXiv:2104.06272): no table reads another's, so each
table's bytes are those of one device. docs/scale.md has the layout and its figures.
"""

from __future__ import annotations

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

TABLE_AXIS = "tables"
"""The mesh axis the tables are spread on."""


def resolve(devices=None, available=None) -> tuple:
    """The devices to spread tables over, as a tuple of ``jax.Device``: ``devices`` a
    sequence of ``jax.Device`` or of indices into ``available`` (default
    ``jax.local_devices()``), a single one of either, or None for all of ``available``.
    ValueError naming ``devices`` when the list is empty, names an index out of range or
    anything else, repeats a device, or mixes platforms (a CPU with a GPU)."""
    pool = tuple(jax.local_devices() if available is None else available)
    if devices is None:
        return pool
    if isinstance(devices, (int, np.integer)) or _is_device(devices):
        devices = [devices]
    try:
        items = list(devices)
    except TypeError:
        raise ValueError(f"devices: a list of jax.Device or of indices into jax.local_devices(), or None for all; "
                         f"got {devices!r}") from None
    if not items:
        raise ValueError("devices: an empty list; name one device or more, or None for all local devices")
    out = []
    for d in items:
        if isinstance(d, (int, np.integer)) and not isinstance(d, bool):
            if not 0 <= d < len(pool):
                raise ValueError(f"devices: index {d} outside 0..{len(pool) - 1} (the {len(pool)} devices available)")
            d = pool[d]
        elif not _is_device(d):
            raise ValueError(f"devices: jax.Device objects or indices into jax.local_devices(), got {d!r}")
        out.append(d)
    seen, repeated = set(), []
    for d in out:
        name = (d.platform, d.id)
        if name in seen:
            repeated.append(d)
        seen.add(name)
    if repeated:
        raise ValueError(f"devices: {', '.join(map(str, repeated))} named more than once; each device once")
    platforms = sorted({d.platform for d in out})
    if len(platforms) > 1:
        raise ValueError(f"devices: one platform, got {', '.join(platforms)} mixed; a table's program is compiled "
                         "for one kind of device")
    return tuple(out)


def _is_device(d) -> bool:
    # a jax.Device, or what stands for one (its platform and id): the checks read no more
    return isinstance(d, jax.Device) or (hasattr(d, "platform") and hasattr(d, "id"))


def table_mesh(devices) -> Mesh:
    """A one-axis mesh (:data:`TABLE_AXIS`) over ``devices``, in their order: device d
    holds the d-th block of tables."""
    return Mesh(np.asarray(devices, dtype=object), (TABLE_AXIS,))


def placement(devices, lanes: bool = True):
    """Where an argument of the spread program lives: with one device, that device; with
    more, the table axis split over them (``lanes``) or a copy on each (not ``lanes``)."""
    if len(devices) == 1:
        return devices[0]
    return NamedSharding(table_mesh(devices), P(TABLE_AXIS) if lanes else P())


def home(devices, named: bool, lanes: bool = True):
    """Where a front puts an argument of its program (``jax.device_put``'s device): None,
    JAX's default device uncommitted, when there is one device and the user named none;
    else :func:`placement`."""
    return None if len(devices) == 1 and not named else placement(devices, lanes)


def padded(num: int, count: int) -> int:
    """``num`` rounded up to a multiple of ``count``."""
    return -(-num // count) * count


def over_tables(fn, devices, lanes: tuple[bool, ...], num: int | None = None):
    """``fn`` jitted and run on each device's block of tables. ``fn`` takes batched
    arguments, those flagged in ``lanes`` with a leading table axis B (the others, such as
    the options, the same on every device) and returns trees whose every leaf has the
    table axis. With one device this is ``jax.jit(fn)``. With D devices, each runs ``fn``
    on B / D tables; a B that is not a multiple of D is padded with copies of the last
    table up to the next multiple and the results cut back to B (the copies' work is
    thrown away). ``num``, when the caller knows B and it is a multiple of D, fixes the
    arguments' and results' placement on the devices (host arrays go straight to their
    device, results stay there)."""
    if len(devices) == 1:
        return jax.jit(fn)
    d = len(devices)
    mesh = table_mesh(devices)
    specs = tuple(P(TABLE_AXIS) if lane else P() for lane in lanes)
    inner = jax.shard_map(fn, mesh=mesh, in_specs=specs, out_specs=P(TABLE_AXIS), check_vma=False)

    def call(*args):
        b = jax.tree_util.tree_leaves(args[lanes.index(True)])[0].shape[0]
        full = padded(b, d)
        if full == b:
            return inner(*args)
        grow = lambda x: jax.numpy.concatenate([x, jax.numpy.repeat(x[-1:], full - b, 0)])  # noqa: E731
        args = [jax.tree_util.tree_map(grow, a) if lane else a for a, lane in zip(args, lanes)]
        return jax.tree_util.tree_map(lambda x: x[:b], inner(*args))

    if num is not None and num % d == 0:
        return jax.jit(call, in_shardings=tuple(placement(devices, lane) for lane in lanes),
                       out_shardings=placement(devices))
    return jax.jit(call)
