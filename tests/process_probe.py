"""Run a snippet of Python in a fresh interpreter with the cache variables of this process
removed and some set, and read the JSON it prints last: for what JAX reads once per process
(its cache settings, the traced programs on disk). Used by tests/tools/test_compile_cache.py
and tests/tools/test_exported.py."""

import json
import os
import subprocess
import sys

CACHE_VARIABLES = ("CUEGYM_CACHE_DIR", "JAX_COMPILATION_CACHE_DIR")


def start(code: str, env_updates: dict) -> subprocess.Popen:
    """The snippet running in the background (read it with :func:`finish`)."""
    env = {k: v for k, v in os.environ.items() if k not in CACHE_VARIABLES}
    env.update(env_updates)
    return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish(proc: subprocess.Popen, timeout: float = 300) -> dict:
    """The JSON the snippet printed last; fails with its stderr if it exited non-zero."""
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])


def run(code: str, env_updates: dict) -> dict:
    """:func:`start` then :func:`finish`."""
    return finish(start(code, env_updates))
