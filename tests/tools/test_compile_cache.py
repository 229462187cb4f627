"""The persistent compilation cache is on by default for ``import cuegym`` (cuegym._cache):
its folder, the opt-out, a folder configured for JAX, an unwritable folder, and two processes
sharing one folder. Each case runs in a fresh interpreter, since JAX reads its cache settings
once per process."""

import os

import process_probe

# A small program, so that the cases test the folder handling and not the compile time.
PROBE = """
import json, sys, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import cuegym
import jax, jax.numpy as jnp
from jax import monitoring
from cuegym import _cache
hits = []
monitoring.register_event_listener(lambda name, **kw: hits.append(name) if name.endswith("cache_hits") else None)
y = jax.jit(lambda x: jnp.cumsum(jnp.sin(x) * 3.0) @ x)(jnp.arange(64.0))
print(json.dumps({"status": _cache.status(), "jax_dir": jax.config.jax_compilation_cache_dir, "y": float(y),
                  "hits": len(hits), "warnings": [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]}))
"""


def probe(env_updates, *, background=False):
    return process_probe.start(PROBE, env_updates) if background else process_probe.run(PROBE, env_updates)


def cache_files(folder):
    return [f for f in os.listdir(folder) if not f.startswith(".")] if os.path.isdir(folder) else []


def test_import_cuegym_turns_the_cache_on_in_cuegym_cache_dir(tmp_path):
    folder = tmp_path / "cache"
    first = probe({"CUEGYM_CACHE_DIR": str(folder)})
    assert first["status"] == {"folder": str(folder), "reason": "on"} and first["jax_dir"] == str(folder)
    assert cache_files(folder), "the compiled program was not written to the folder"
    second = probe({"CUEGYM_CACHE_DIR": str(folder)})
    assert second["hits"] >= 1 and second["y"] == first["y"]


def test_default_folder_is_under_the_home_cache(tmp_path):
    got = probe({"HOME": str(tmp_path)})
    assert got["status"]["folder"] == str(tmp_path / ".cache" / "cuegym" / "jax")


def test_off_opts_out(tmp_path):
    got = probe({"CUEGYM_CACHE_DIR": "off", "HOME": str(tmp_path)})
    assert got["status"]["folder"] is None and "off" in got["status"]["reason"] and not got["jax_dir"]
    assert not os.path.exists(tmp_path / ".cache" / "cuegym")


def test_a_folder_configured_for_jax_is_respected(tmp_path):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    got = probe({"CUEGYM_CACHE_DIR": str(ours), "JAX_COMPILATION_CACHE_DIR": str(theirs)})
    assert got["jax_dir"] == str(theirs) and got["status"]["folder"] == str(theirs)
    assert not os.path.exists(ours)


def test_an_unwritable_folder_warns_once_and_runs_without_a_cache(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    got = probe({"CUEGYM_CACHE_DIR": str(blocker / "cache")})
    assert got["status"]["folder"] is None and not got["jax_dir"]
    assert len(got["warnings"]) == 1 and "CUEGYM_CACHE_DIR" in got["warnings"][0]


def test_two_processes_share_one_folder(tmp_path):
    folder = str(tmp_path / "shared")
    procs = [probe({"CUEGYM_CACHE_DIR": folder}, background=True) for _ in range(2)]
    results = [process_probe.finish(p) for p in procs]
    assert results[0]["y"] == results[1]["y"] and not any(r["warnings"] for r in results)
    third = probe({"CUEGYM_CACHE_DIR": folder})
    assert third["hits"] >= 1 and third["y"] == results[0]["y"]
