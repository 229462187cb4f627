"""Say when a first call compiles: the ``cuegym`` logger at INFO, once per program and process.

A cold compile of a game's step takes seconds to a minute and looks like a hang; the message
names the program, the time to expect and where later runs load it from. Notebook users turn
the messages on with ``cuegym.compile_log.show()`` (or ``logging.basicConfig(level="INFO")``);
the command line and the experiments turn them on themselves. After each first call the
heap the compiler freed is handed back to the system (:mod:`cuegym._heap`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time

from cuegym import _heap

logger = logging.getLogger("cuegym")

_announced: set[str] = set()
_local = threading.local()
_listening = {"on": False}


def _on_event(name: str, **_):
    if name == "/jax/compilation_cache/cache_hits":
        _local.hits = getattr(_local, "hits", 0) + 1
    elif name == "/jax/compilation_cache/compile_requests_use_cache":
        _local.requests = getattr(_local, "requests", 0) + 1


def _listen():
    if not _listening["on"]:
        from jax import monitoring

        monitoring.register_event_listener(_on_event)
        _listening["on"] = True


def show(level: int = logging.INFO) -> None:
    """Print the ``cuegym`` logger's messages at ``level`` and above on stderr (one line
    for a notebook or script; a handler is added once)."""
    logger.setLevel(level)
    if not any(getattr(h, "_cuegym", False) for h in logger.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        handler._cuegym = True
        logger.addHandler(handler)


@contextlib.contextmanager
def first_call(what: str, cold_s: float):
    """Wrap the first call of a compiled program named ``what`` (for example ``"the step of
    cuegym/Snooker-v0, 1 table"``), whose cold compile takes about ``cold_s`` seconds: logs
    before and after it, once per ``what`` in this process; later calls pass through."""
    if what in _announced:
        yield
        return
    _announced.add(what)
    _listen()
    from cuegym import _cache

    folder = _cache.status()["folder"]
    where = f"the cache in {folder}" if folder else "nowhere (the persistent cache is off)"
    logger.info("compiling %s: about %.0f s the first time; later runs load it from %s", what, cold_s, where)
    _local.hits = _local.requests = 0
    start = time.perf_counter()
    yield
    took = time.perf_counter() - start
    _heap.release()  # the compiler's freed memory, a few hundred MB, back to the system
    hits, requests = _local.hits, _local.requests
    if requests and hits == requests:
        logger.info("%s: loaded from the cache in %.1f s", what, took)
    else:
        logger.info("%s: ready in %.1f s (%d of %d programs from the cache)", what, took, hits, requests)
