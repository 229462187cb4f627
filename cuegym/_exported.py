"""Traced programs kept on disk beside the compiled ones, so that a new process skips tracing.

JAX's persistent cache (:mod:`cuegym._cache`) keeps compiled executables, but a new process
must still trace and lower a program before it can look one up, and for an env step that is
most of a warm start (PotShot-v0: 2.7 s tracing and 0.6 s lowering against 1.1 s loading the
executable). :func:`exported_jit` exports a program once with ``jax.export`` (its StableHLO,
serialized) into ``<cache folder>/cuegym-exported/``; later processes deserialize it instead
of tracing. Every process runs the deserialized program, the one that exported it too, so
results do not depend on which process traced it. docs/architecture.md ("Compiled programs")
has the key and the fallbacks.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import threading

import jax
import numpy as np

from cuegym import _cache
from cuegym._io import write_atomic

logger = logging.getLogger("cuegym")

FOLDER = "cuegym-exported"
"""The subfolder of the compilation cache's folder that holds the exported programs."""

TRACE_SETTINGS = ("CUEGYM_ROOTS_ITERATION", "CUEGYM_XLA_CPU_ISA", "XLA_FLAGS")
"""Environment variables a trace or its compilation reads: part of every key."""

JAX_SETTINGS = ("jax_enable_x64", "jax_threefry_partitionable", "jax_default_prng_impl",
                "jax_numpy_dtype_promotion", "jax_default_matmul_precision")
"""JAX settings that change what a trace produces: part of every key."""


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """SHA-256 of every ``.py`` file of the installed cuegym package (paths and bytes): any
    edit to the package gives every program a new key."""
    return tree_digest(os.path.dirname(os.path.abspath(__file__)))


def tree_digest(root: str) -> str:
    """SHA-256 of the relative paths and contents of the ``.py`` files under ``root``."""
    h = hashlib.sha256()
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                h.update(os.path.relpath(path, root).encode())
                with open(path, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def program_key(name: str, static: tuple, avals: tuple) -> str:
    """The file name (no folder) of program ``name`` traced with ``static`` (a tuple of
    strings: what the program closes over) for arguments of ``avals`` ((shape, dtype) each)."""
    import jaxlib

    parts = [name, repr(static), repr(avals), source_digest(), jax.__version__, jaxlib.__version__,
             jax.default_backend()]
    parts += [f"{k}={os.environ.get(k, '')}" for k in TRACE_SETTINGS]
    parts += [f"{k}={getattr(jax.config, k, None)}" for k in JAX_SETTINGS]
    digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return f"{safe}-{digest[:32]}.jaxexport"


def _avals(sig: tuple) -> tuple:
    """A signature of :meth:`ExportedJit.__call__` as plain values ((shape, dtype name) each)
    for the file's key."""
    return tuple((tuple(shape), str(dtype)) for shape, dtype in sig)


class ExportedJit:
    """A jitted function of arrays whose traced program is kept on disk (see the module
    docstring); called like the function, with arrays (NumPy or JAX: anything with ``shape``
    and ``dtype``). ``how`` maps each argument signature seen ((shape, dtype name) each) to
    ``"exported"`` (traced here and written), ``"loaded"`` (read from the folder) or
    ``"jit"`` (plain ``jax.jit``: no cache folder, or exporting failed)."""

    def __init__(self, fn, name: str, static: tuple):
        self.fn, self.name, self.static = fn, name, tuple(static)
        self.how: dict[tuple, str] = {}
        self._calls: dict[tuple, object] = {}
        self._lock = threading.Lock()

    def __call__(self, *args):
        # every step passes here: the signature is the arrays' own shape and dtype objects
        # (1 us), made into the file's key only when a new one is resolved
        sig = tuple((a.shape, a.dtype) for a in args)
        call = self._calls.get(sig)
        if call is None:
            with self._lock:
                call = self._calls.get(sig) or self._resolve(_avals(sig), sig)
        return call(*args)

    def _resolve(self, avals: tuple, sig: tuple):
        folder = _cache.status()["folder"]
        exported, how = None, "jit"
        if folder is not None:
            path = os.path.join(folder, FOLDER, program_key(self.name, self.static, avals))
            exported, how = _load(path), "loaded"
            if exported is None:
                exported, how = _export(self.fn, avals, path), "exported"
        if exported is None:
            call, how = jax.jit(self.fn), "jit"
        else:
            call = jax.jit(exported.call)
        self._calls[sig], self.how[avals] = call, how
        return call


def _load(path: str):
    """The exported program in ``path``, or None (absent, or unreadable: it is traced again
    and the file replaced)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    try:
        from jax import export

        return export.deserialize(bytearray(data))
    except Exception as err:  # a truncated or foreign file: trace again
        logger.debug("exported program %s unreadable (%s); tracing it again", path, err)
        return None


def _export(fn, sig: tuple, path: str):
    """``fn`` exported for arguments ``sig`` and written to ``path``; None where it cannot
    be exported or serialized (the caller then runs a plain ``jax.jit``)."""
    try:
        from jax import export

        shapes = [jax.ShapeDtypeStruct(shape, np.dtype(dtype)) for shape, dtype in sig]
        exported = export.export(jax.jit(fn))(*shapes)
        data = exported.serialize()
    except Exception as err:  # an op jax.export refuses, or flatbuffers missing
        logger.debug("program %s not exported (%s); tracing it in every process", path, err)
        return None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, bytes(data))
    except OSError as err:  # the folder was writable at import; if no longer, run it anyway
        logger.debug("exported program %s not written (%s)", path, err)
    return exported


def exported_jit(fn, name: str, static: tuple) -> ExportedJit:
    """``fn`` (a function of arrays returning arrays) jitted, its traced program exported to
    the cache folder once and loaded by later processes. ``name`` names the program in its
    file; ``static`` (tuple of strings) must describe everything ``fn`` closes over that is
    not in cuegym's own source (a game's definition, a table's figures), since a change there
    must give a new key."""
    return ExportedJit(fn, name, static)
