"""Small vector helpers written as elementwise arithmetic.

``jnp.dot`` on short vectors becomes an XLA ``dot`` whose CPU lowering depends on the batch
size (different summation and fused multiply-add order), so a shot simulated alone and the
same shot inside a batch would differ in the last bits. Explicit products and sums lower to
the same elementwise code at every batch size, which keeps results byte-identical.
"""

import jax
import jax.numpy as jnp


def dot(a, b):
    """Dot product over the last axis (length 2 or 3), summed left to right."""
    out = a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]
    if a.shape[-1] == 3:
        out = out + a[..., 2] * b[..., 2]
    return out


def norm(a):
    return jnp.sqrt(dot(a, a))


def pick_lanes(mask, a, b):
    """Per lane of a batch (leading axis, ``mask`` (B,) bool): the lane of pytree ``a``
    where ``mask`` is set, else the lane of ``b``."""
    return jax.tree_util.tree_map(lambda x, y: jnp.where(mask.reshape(mask.shape + (1,) * (x.ndim - 1)), x, y), a, b)
