"""Hand the heap that compiling freed back to the system.

Compiling or loading a program allocates a few hundred MB that are freed right after, but
glibc's allocator keeps freed memory in its arenas, so a process that has compiled an env
step holds it for good (PotShot-v0: 658 MB resident after the first step, 465 MB once
trimmed). :func:`release` asks glibc to return it (``malloc_trim``); elsewhere it does
nothing. docs/architecture.md ("Compiled programs") has the figures.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys


@functools.lru_cache(maxsize=1)
def _malloc_trim():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def release() -> bool:
    """Return the allocator's free memory to the system; True where it could (glibc)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
