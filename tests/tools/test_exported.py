"""Traced programs kept on disk (cuegym._exported): a second process loads the program
instead of tracing it and computes the same bytes; two processes exporting at once leave one
readable file; an unreadable file is traced again and replaced; the key changes with what a
trace depends on; with the cache off, a plain jit. The env's host programs go through it."""

import os
import shutil

import numpy as np
import process_probe

from cuegym import _cache, _exported

# A small program, so that the cases test the folder handling and not the compile time.
PROBE = """
import json, sys
import cuegym
import jax, jax.numpy as jnp, numpy as np
from cuegym import _cache, _exported
f = _exported.exported_jit(lambda x, n: (jnp.cumsum(jnp.sin(x) * 3.0) @ x) * n, "probe", ("v1",))
y = f(jnp.arange(64.0), jnp.asarray(2, jnp.int32))
print(json.dumps({"how": list(f.how.values()), "y": np.asarray(y).tobytes().hex()}))
"""


def probe(folder, *, background=False):
    env = {"CUEGYM_CACHE_DIR": str(folder)}
    return process_probe.start(PROBE, env) if background else process_probe.run(PROBE, env)


def exported_files(folder):
    sub = os.path.join(folder, _exported.FOLDER)
    return sorted(f for f in os.listdir(sub) if not f.startswith(".")) if os.path.isdir(sub) else []


def test_a_second_process_loads_the_program_and_computes_the_same_bytes(tmp_path):
    first = probe(tmp_path)
    assert first["how"] == ["exported"]
    files = exported_files(tmp_path)
    assert len(files) == 1 and files[0].startswith("probe-") and files[0].endswith(".jaxexport")
    second = probe(tmp_path)
    assert second["how"] == ["loaded"] and second["y"] == first["y"]
    assert exported_files(tmp_path) == files


def test_two_processes_exporting_at_once_leave_one_readable_file(tmp_path):
    procs = [probe(tmp_path, background=True) for _ in range(2)]
    results = [process_probe.finish(p) for p in procs]
    assert results[0]["y"] == results[1]["y"]
    assert len(exported_files(tmp_path)) == 1
    third = probe(tmp_path)
    assert third["how"] == ["loaded"] and third["y"] == results[0]["y"]


def test_an_unreadable_file_is_traced_again_and_replaced(tmp_path):
    first = probe(tmp_path)
    (name,) = exported_files(tmp_path)
    path = tmp_path / _exported.FOLDER / name
    path.write_bytes(b"not an exported program")
    again = probe(tmp_path)
    assert again["how"] == ["exported"] and again["y"] == first["y"]
    assert probe(tmp_path)["how"] == ["loaded"]


def test_with_the_cache_off_it_is_a_plain_jit():
    got = probe("off")
    assert got["how"] == ["jit"]


def test_the_key_changes_with_what_a_trace_depends_on(monkeypatch):
    avals = (((3, 4), "float64"),)
    key = _exported.program_key("step", ("game", "table"), avals)
    assert key == _exported.program_key("step", ("game", "table"), avals)
    assert key != _exported.program_key("step", ("game", "other table"), avals)
    assert key != _exported.program_key("step", ("game", "table"), (((5, 4), "float64"),))
    assert key != _exported.program_key("step", ("game", "table"), (((3, 4), "float32"),))
    assert key != _exported.program_key("reset", ("game", "table"), avals)
    monkeypatch.setenv("CUEGYM_ROOTS_ITERATION", "unrolled")
    assert key != _exported.program_key("step", ("game", "table"), avals)
    monkeypatch.delenv("CUEGYM_ROOTS_ITERATION")
    monkeypatch.setattr(_exported, "source_digest", lambda: "an edited package")
    assert key != _exported.program_key("step", ("game", "table"), avals)


def test_the_source_digest_changes_with_any_module(tmp_path):
    """A copy of the package digests alike; one byte changed in a deep module, or a module
    added, changes it."""
    root = os.path.dirname(_exported.__file__)
    copy = tmp_path / "cuegym"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert _exported.tree_digest(str(copy)) == _exported.tree_digest(root) == _exported.source_digest()
    module = copy / "physics" / "roots.py"
    module.write_bytes(module.read_bytes().replace(b"_NEWTON_STEPS = 24", b"_NEWTON_STEPS = 25"))
    edited = _exported.tree_digest(str(copy))
    assert edited != _exported.source_digest()
    (copy / "envs" / "extra.py").write_text("X = 1\n")
    assert _exported.tree_digest(str(copy)) not in (edited, _exported.source_digest())


def test_the_env_host_programs_are_exported_or_loaded():
    """A built-in env's reset runs the kept program (a plain jit where the session runs with
    the cache off), with the bytes of the plain jitted function."""
    import jax

    from cuegym.envs import functional as F
    from cuegym.envs.host_program import flat_program

    flat = flat_program("lag", "pyramid-12ft")
    assert isinstance(flat.step, _exported.ExportedJit) and isinstance(flat.reset, _exported.ExportedJit)
    state, _ = flat.packing.unpack(flat.packing.zeros((2,)))
    keys = np.asarray(jax.random.split(jax.random.PRNGKey(3), 2))
    rows = np.zeros((2, flat.record_width + flat.packing.width), np.int32)
    rows[:, flat.record_width:] = flat.packing.pack((state, keys))
    opts = flat.options.pack(F.options(F.FuncEnv(task="lag")))
    kept = np.asarray(flat.reset(rows, opts))
    plain = np.asarray(jax.jit(flat.reset.fn)(rows, opts))
    kept_how = {"exported", "loaded"} if _cache.status()["folder"] else {"jit"}  # CUEGYM_CACHE_DIR=off
    assert set(flat.reset.how.values()) <= kept_how
    assert kept.tobytes() == plain.tobytes()
