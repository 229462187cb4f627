"""cuegym._heap.release hands the allocator's free memory back to the system: memory freed
under a block still in use stays resident until it is called (glibc on Linux)."""

import ctypes
import ctypes.util
import sys

import pytest

from cuegym import _heap


def resident_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc_trim is glibc's (Linux)")
def test_release_returns_freed_memory_held_below_a_live_block():
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    # 80 MB in 1 KB blocks (below glibc's mmap threshold, so in the heap), each touched
    blocks = [libc.malloc(1024) for _ in range(80_000)]
    for b in blocks:
        ctypes.memset(b, 1, 1024)
    keep = libc.malloc(1024)  # a live block above them: the heap's top cannot shrink past it
    for b in blocks:
        libc.free(b)
    held = resident_mb()
    assert _heap.release() is True
    after = resident_mb()
    libc.free(keep)
    assert held - after > 40, f"resident {held:.0f} MB before release, {after:.0f} MB after"
