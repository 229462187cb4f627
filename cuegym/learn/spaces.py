"""The gymnax spaces of the gymnax env: gymnax's own classes where gymnax is installed (its
trainers test ``isinstance`` on them), else small stand-ins with the same interface
(``sample(key)``, ``contains(x)``, ``shape``, ``dtype``; ``n`` or ``low`` / ``high``; a
tuple's ``spaces``)."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

try:
    from gymnax.environments import spaces as _gymnax_spaces
except ImportError:  # pragma: no cover - the [train] extra installs gymnax
    _gymnax_spaces = None


class Discrete(NamedTuple):
    """``n`` choices 0..n-1."""

    n: int
    shape: tuple = ()
    dtype: object = jnp.int32

    def sample(self, key):
        return jax.random.randint(key, (), 0, self.n).astype(self.dtype)

    def contains(self, x):
        return jnp.logical_and(x >= 0, x < self.n)


class Product(NamedTuple):
    """A tuple of ``spaces``, one action of each."""

    spaces: tuple

    def sample(self, key):
        keys = jax.random.split(key, len(self.spaces))
        return tuple(s.sample(k) for s, k in zip(self.spaces, keys))

    def contains(self, x):
        return jnp.all(jnp.stack([jnp.all(s.contains(v)) for s, v in zip(self.spaces, x)]))


class Box(NamedTuple):
    """Arrays of ``shape`` within [``low``, ``high``]."""

    low: float
    high: float
    shape: tuple
    dtype: object = jnp.float32

    def sample(self, key):
        lo = jnp.maximum(jnp.asarray(self.low, jnp.float32), -1e6)
        hi = jnp.minimum(jnp.asarray(self.high, jnp.float32), 1e6)
        return jax.random.uniform(key, self.shape, minval=lo, maxval=hi).astype(self.dtype)

    def contains(self, x):
        return jnp.all((x >= self.low) & (x <= self.high))


def discrete(n: int):
    """Discrete(n) of gymnax, or the stand-in."""
    return _gymnax_spaces.Discrete(n) if _gymnax_spaces is not None else Discrete(n)


def box(low, high, shape, dtype=jnp.float32):
    """Box(low, high, shape, dtype) of gymnax, or the stand-in."""
    if _gymnax_spaces is not None:
        return _gymnax_spaces.Box(low, high, shape, dtype)
    return Box(low, high, tuple(shape), dtype)


def product(parts):
    """Tuple(parts) of gymnax, or the stand-in."""
    if _gymnax_spaces is not None:
        return _gymnax_spaces.Tuple(list(parts))
    return Product(tuple(parts))
