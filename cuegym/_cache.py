"""JAX's persistent compilation cache for cuegym's entry points.

Compiling the simulator takes seconds per ball count; the persistent cache stores the
compiled executables on disk so that later runs (the command line, test runs, benchmarks)
load them instead. The folder is ``$CUEGYM_CACHE_DIR`` when that is set, else
``~/.cache/cuegym/jax``. Call :func:`enable_compilation_cache` before the first ``jit``.
"""

from __future__ import annotations

import os

ENV_VAR = "CUEGYM_CACHE_DIR"


def cache_dir() -> str:
    """The cache folder: ``$CUEGYM_CACHE_DIR`` or ``~/.cache/cuegym/jax``."""
    path = os.environ.get(ENV_VAR) or os.path.join(os.path.expanduser("~"), ".cache", "cuegym", "jax")
    return os.path.abspath(os.path.expanduser(path))


def enable_compilation_cache(path: str | None = None) -> str:
    """Turn on JAX's persistent compilation cache and return the folder it uses.

    Every compiled program is cached, however quick its compilation
    (``jax_persistent_cache_min_compile_time_secs = 0``). ``path`` overrides
    :func:`cache_dir`. The folder is created by JAX when it first writes.
    """
    import jax

    folder = os.path.abspath(os.path.expanduser(path)) if path else cache_dir()
    jax.config.update("jax_compilation_cache_dir", folder)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    return folder
