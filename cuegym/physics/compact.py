"""Work on the active elements of a batch only: gathered into chunks of fixed size.

Under ``vmap`` every lane computes every branch. Where only some elements need a costly
function (the quartics a screen could not clear, the lanes whose event is a ball contact),
:func:`apply_to_active` gathers those, applies the function a chunk at a time in a loop that
runs as many times as they fill chunks, and scatters the results back: static shapes, one
copy of the function in the program, and each element computed by the same operations as
without the gathering, so the same bytes. docs/physics.md ("Screened candidates").
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def chunk_size(size: int, fraction: int, least: int = 1) -> int:
    """Elements per chunk for a batch of ``size``: ``size / fraction`` rounded up, at
    least ``least``, at most ``size``."""
    return max(1, min(size, max(least, -(-size // fraction))))


def apply_to_active(fn, active, args, out, chunk: int):
    """``out`` with element k replaced by ``fn(*args)``'s element k wherever ``active[k]``.

    ``fn`` maps a batch of ``chunk`` elements (every leaf of ``args`` with a leading axis of
    that length) to a pytree shaped like ``out``'s leaves with that leading axis; ``active``
    (B,) bool; ``args`` and ``out`` pytrees of arrays with a leading axis of length B.
    The chunks are filled with the active elements in index order; the slots past the last
    one compute on a copy of element B - 1 and are dropped.
    """
    size = active.shape[0]
    # the active elements' indices in order, then `size` (past the end: dropped on scatter)
    order, count = active_indices(active, size + chunk)

    def one_chunk(state):
        k, acc = state
        idx = jax.lax.dynamic_slice(order, (k * chunk,), (chunk,))
        safe = jnp.minimum(idx, size - 1)
        res = fn(*jax.tree_util.tree_map(lambda x: x[safe], args))
        return k + 1, jax.tree_util.tree_map(lambda o, r: o.at[idx].set(r, mode="drop"), acc, res)

    chunks = (count + chunk - 1) // chunk
    return jax.lax.while_loop(lambda s: s[0] < chunks, one_chunk, (jnp.zeros((), jnp.int32), out))[1]


def active_indices(active, length: int):
    """((length,) int32, () int32): the indices of the True elements of ``active`` (B,)
    bool in increasing order, then B; and how many there are.

    ``jnp.nonzero(active, size=length, fill_value=B)``, at a fifth of its cost on XLA:CPU:
    each element's place is its running count (:func:`running_count`), and one scatter puts
    the indices there (``nonzero`` takes two cumulative sums and a histogram)."""
    size = active.shape[0]
    running = running_count(active)
    # the mask read back from the counts, not used again: XLA would fuse its computation (a
    # screen over every quartic of the batch) into each use, so it is used once
    steps = running - jnp.concatenate([jnp.zeros(1, jnp.int32), running[:-1]])
    place = jnp.where(steps > 0, running - 1, length)
    order = jnp.full(length, size, jnp.int32).at[place].set(
        jnp.arange(size, dtype=jnp.int32), mode="drop", unique_indices=True, indices_are_sorted=True)
    return order, running[-1]


_BLOCK = 32


def running_count(active):
    """(B,) int32: the number of True elements of ``active`` (B,) bool up to and including
    each.

    A cumulative sum by blocks: a block of 32 is summed by one product with a triangle of
    ones, and the blocks' totals, summed the same way, give their offsets. Counts are exact
    in float32 below 2^24 elements. XLA:CPU's cumulative sum (a reduce-window) costs five
    times as much."""
    size = active.shape[0]
    if size >= 2**24:
        return jnp.cumsum(active, dtype=jnp.int32)
    return _block_prefix(active.astype(jnp.float32)).astype(jnp.int32)


def _block_prefix(x):
    size = x.shape[0]
    blocks = -(-size // _BLOCK)
    triangle = (jnp.arange(_BLOCK)[:, None] <= jnp.arange(_BLOCK)[None, :]).astype(jnp.float32)
    rows = jnp.pad(x, (0, blocks * _BLOCK - size)).reshape(blocks, _BLOCK)
    # HIGHEST: no reduced-precision (TF32) products on an accelerator
    within = jnp.matmul(rows, triangle, precision=jax.lax.Precision.HIGHEST)
    if blocks == 1:
        return within[0, :size]
    totals = within[:, -1]
    offsets = _block_prefix(totals) - totals
    return (within + offsets[:, None]).reshape(-1)[:size]


def broadcast_lanes(axis_size: int, tree, batched):
    """``tree`` (a pytree) with every leaf that ``batched`` (the same structure of bools, as
    a batching rule receives it) marks unbatched broadcast to a leading axis of
    ``axis_size``: in a batching rule, every lane then has its own copy."""
    return jax.tree_util.tree_map(
        lambda x, b: x if b else jnp.broadcast_to(x, (axis_size, *jnp.shape(x))), tree, batched)


def where_active(fn, fraction: int):
    """``g(active, state, *rest)``: ``fn(state, *rest)`` where ``active`` () bool, else
    ``state`` unchanged (a pytree; ``fn`` returns one of the same structure).

    Alone, a ``lax.cond``. Under ``vmap`` (its own batching rule) only the active lanes
    run ``fn``, gathered ``B / fraction`` at a time (:func:`apply_to_active`), where
    JAX's own rule would run every lane and select.
    """

    @jax.custom_batching.custom_vmap
    def g(active, state, *rest):
        return jax.lax.cond(active, lambda: fn(state, *rest), lambda: state)

    @g.def_vmap
    def g_lanes(axis_size, in_batched, active, state, *rest):
        active, state, *rest = broadcast_lanes(axis_size, (active, state, *rest), tuple(in_batched))
        out = apply_to_active(jax.vmap(fn), active, (state, *rest), state, chunk_size(axis_size, fraction))
        return out, jax.tree_util.tree_map(lambda _: True, out)

    return g
