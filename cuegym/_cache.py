"""JAX's persistent compilation cache, on by default for every entry point.

Compiling a table's programs takes seconds to a minute; the cache keeps the compiled
executables on disk so that the next process loads them instead. ``import cuegym`` turns it
on (:func:`enable_default`) unless the user configured JAX's own cache folder, which is then
left alone. The folder is ``$CUEGYM_CACHE_DIR``, else ``~/.cache/cuegym/jax``;
``CUEGYM_CACHE_DIR=off`` opts out. A folder that cannot be written leaves the cache off with
one warning. docs/architecture.md ("Compiled programs") has the details.
"""

from __future__ import annotations

import os
import tempfile
import warnings

ENV_VAR = "CUEGYM_CACHE_DIR"
OFF = ("off", "none", "0", "false", "no")
"""Values of ``$CUEGYM_CACHE_DIR`` that turn the default cache off."""

_state = {"folder": None, "reason": "not configured yet"}


def cache_dir() -> str | None:
    """The cache folder: ``$CUEGYM_CACHE_DIR`` or ``~/.cache/cuegym/jax``; None when the
    variable says :data:`OFF`."""
    value = os.environ.get(ENV_VAR, "").strip()
    if value.lower() in OFF:
        return None
    path = value or os.path.join(os.path.expanduser("~"), ".cache", "cuegym", "jax")
    return os.path.abspath(os.path.expanduser(path))


def writable(folder: str) -> bool:
    """Whether ``folder`` exists or can be made, and a file can be written in it."""
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass
        return True
    except OSError:
        return False


def enable_compilation_cache(path: str | None = None) -> str | None:
    """Turn on JAX's persistent compilation cache in ``path`` (default :func:`cache_dir`)
    and return the folder. Every program is cached, however quick its compilation
    (``jax_persistent_cache_min_compile_time_secs = 0``). With no ``path`` and
    ``CUEGYM_CACHE_DIR=off`` nothing changes and None is returned."""
    import jax

    folder = os.path.abspath(os.path.expanduser(path)) if path else cache_dir()
    if folder is None:
        return None
    jax.config.update("jax_compilation_cache_dir", folder)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    _state.update(folder=folder, reason="on")
    return folder


def enable_default() -> str | None:
    """What ``import cuegym`` does: the cache in :func:`cache_dir` unless the user set JAX's
    own folder (``JAX_COMPILATION_CACHE_DIR`` or ``jax.config``), opted out, or the folder
    cannot be written (one warning). Returns the folder in use, or None."""
    import jax

    own = jax.config.jax_compilation_cache_dir
    if own:
        _state.update(folder=own, reason="the folder configured for JAX")
        return own
    folder = cache_dir()
    if folder is None:
        _state.update(folder=None, reason=f"off ({ENV_VAR}={os.environ.get(ENV_VAR)})")
        return None
    if not writable(folder):
        _state.update(folder=None, reason=f"off: {folder} cannot be written")
        warnings.warn(f"{ENV_VAR}: {folder} cannot be written; compiled programs will not be cached "
                      f"(set {ENV_VAR} to a writable folder, or to 'off')", RuntimeWarning, stacklevel=3)
        return None
    return enable_compilation_cache(folder)


def status() -> dict:
    """``{"folder": path or None, "reason": why}``: the cache this process uses."""
    return dict(_state)
