"""A pytree of arrays as one int32 array of words, for the host fronts' compiled calls.

A compiled call costs the host a few microseconds per argument and per result on top of
its work: each leaf is checked and handed to the executable on the way in, wrapped in an
array object on the way out, and freed when the next call replaces it. A table's state is
about forty small leaves, so a single Gymnasium env spent more time on them than a lag
stroke takes to simulate. :class:`Packing` lays such a tree out as one array of int32
words instead, ``lead + (W,)``: the leaves grouped by dtype (8-byte dtypes first, then
4-byte, then 1-byte ones), each group's values flattened one after another and its bytes
read as words (a bool as one byte, four to a word, the last word zero-padded). Packing
and unpacking are bit casts, concatenates, slices and reshapes, all exact (a bool is
stored as 0 / 1 and read back as != 0). The same code runs traced (``jax.numpy``, in the
compiled program) and on the host (NumPy, for the rare reads of the state).
"""

from __future__ import annotations

import math

import jax
import numpy as np

ITEMSIZES = (8, 4, 1)  # bytes a value: float64, int64 / int32, uint32, float32 / bool, int8, uint8


class Packing:
    """The layout of the pytree ``template`` (leaves with ``shape`` and ``dtype``, e.g.
    :class:`jax.ShapeDtypeStruct`, without the leading axes) in ``width`` int32 words.
    Trees of that structure with any leading shape ``lead`` (a batch (B,), or () for one
    tree) pack to ``lead + (width,)``."""

    def __init__(self, template):
        leaves, self.treedef = jax.tree_util.tree_flatten(template)
        dtypes = {np.dtype(x.dtype) for x in leaves}
        for d in dtypes:
            if d.itemsize not in ITEMSIZES:
                raise TypeError(f"packing: dtype {d} not packed (item sizes {ITEMSIZES})")
        # groups: (dtype, first word, words, values); leaves: (group index, first value, stop, shape)
        self.dtypes = tuple(sorted(dtypes, key=lambda d: (-d.itemsize, d.name)))
        count = dict.fromkeys(self.dtypes, 0)
        self.slots = []
        for x in leaves:
            d, size = np.dtype(x.dtype), math.prod(x.shape)
            self.slots.append((self.dtypes.index(d), count[d], count[d] + size, tuple(x.shape)))
            count[d] += size
        self.groups, at = [], 0
        for d in self.dtypes:
            words = -(-count[d] * d.itemsize // 4)
            self.groups.append((d, at, words, count[d]))
            at += words
        self.width = at

    def pack(self, tree, xp=np):
        """The words ``lead + (width,)`` int32 of ``tree`` (``xp``: ``numpy`` on the host,
        ``jax.numpy`` traced). Raises TypeError for a leaf of another shape or dtype (a
        cast here would hide a state field changing type)."""
        leaves = self.treedef.flatten_up_to(tree)
        parts = [[] for _ in self.dtypes]
        lead = None
        for x, (g, _, _, shape) in zip(leaves, self.slots):
            x = xp.asarray(x)
            here = x.shape[:x.ndim - len(shape)]
            if x.shape[len(here):] != shape or np.dtype(x.dtype) != self.dtypes[g] or lead not in (None, here):
                raise TypeError(f"packing: leaf {x.shape} {x.dtype}, expected lead + {shape} {self.dtypes[g]}")
            lead = here
            parts[g].append(x.reshape(lead + (-1,)))
        words = [_to_words(xp.concatenate(p, axis=-1), n, xp) for p, (_, _, n, _) in zip(parts, self.groups)]
        return xp.concatenate(words, axis=-1) if words else xp.zeros(lead + (0,), np.int32)

    def unpack(self, words, copy: bool = False):
        """The tree in ``words`` (``lead + (width,)`` int32, NumPy or traced): each leaf
        ``lead + shape`` (with ``copy``, NumPy arrays of their own; a bool leaf is always
        one)."""
        values = [self._group(words, g) for g in range(len(self.groups))]
        lead = words.shape[:-1]
        leaves = []
        for g, a, b, shape in self.slots:
            x = values[g][..., a:b].reshape(lead + shape)
            leaves.append(np.array(x) if copy else x)
        return self.treedef.unflatten(leaves)

    def leaf(self, words, index: int):
        """Leaf ``index`` (in the tree's flattening order) of NumPy ``words``: its group
        decoded alone (a view where the dtype allows)."""
        g, a, b, shape = self.slots[index]
        return self._group(words, g)[..., a:b].reshape(words.shape[:-1] + shape)

    def zeros(self, lead: tuple = ()) -> np.ndarray:
        """The words of the tree of zeros (NumPy)."""
        return np.zeros(lead + (self.width,), np.int32)

    def _group(self, words, g):
        """Group ``g``'s values ``lead + (n,)`` in its dtype."""
        d, first, count, n = self.groups[g]
        w = words[..., first:first + count]
        if isinstance(w, np.ndarray):
            v = np.ascontiguousarray(w).view(np.int8 if d == np.bool_ else d)[..., :n]
        else:
            cast = jax.lax.bitcast_convert_type
            if d.itemsize == 8:  # two words a value
                v = cast(w.reshape(w.shape[:-1] + (count // 2, 2)), d)
            elif d.itemsize == 4:
                v = cast(w, d)
            else:  # four values a word
                v = cast(w, np.int8 if d == np.bool_ else d)
                v = v.reshape(v.shape[:-2] + (4 * count,))[..., :n]
        return v != 0 if d == np.bool_ else v


def _to_words(x, count: int, xp):
    """``x`` lead + (n,) of one dtype as ``count`` int32 words lead + (count,)."""
    d = np.dtype(x.dtype)
    if d == np.bool_:
        x = x.astype(np.int8)
    lead = x.shape[:-1]
    pad = count * 4 // x.dtype.itemsize - x.shape[-1]
    if pad:
        x = xp.concatenate([x, xp.zeros(lead + (pad,), x.dtype)], axis=-1)
    if xp is np:
        return np.ascontiguousarray(x).view(np.int32)
    if x.dtype.itemsize == 1:
        x = x.reshape(lead + (count, 4))
    w = jax.lax.bitcast_convert_type(x, np.int32)
    return w.reshape(lead + (count,))
