import gc
import os
import sys

import pytest

# Every compiled XLA:CPU program maps one to two thousand memory regions (its kernels' code
# and data, measured: 1,800 for PotShot-v0's single-env step). Linux refuses a process more
# than vm.max_map_count regions (65,530 by default) and XLA then aborts the whole worker, so
# a test worker that keeps every program it compiled alive dies after about forty. After
# each test file (and each env id's class in tests/envs/test_api.py), past this many regions,
# the worker drops its compiled programs (jax.clear_caches() releases them); later tests
# reload theirs from the persistent cache.
MAP_BUDGET = 30_000

# The suite's time is mostly XLA compiling its programs (about 70 % in a profiled run). It
# compiles them without LLVM's optimisation passes (level 0) and with XLA's older loop emitters
# instead of the fusion emitters: the same operations in the same order, so the same bytes (the
# golden rollout hashes, written with the defaults, check it), at under half the compile time
# and a slower run of large batches (docs/determinism.md, "The test suite's compiler flags").
# CUEGYM_TEST_XLA_FLAGS replaces them ("" for XLA's defaults).
TEST_XLA_FLAGS = "--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=false"
os.environ["XLA_FLAGS"] = " ".join(
    f for f in (os.environ.get("XLA_FLAGS", ""), os.environ.get("CUEGYM_TEST_XLA_FLAGS", TEST_XLA_FLAGS)) if f)

# the shared helpers (env_api, physics_helpers) live beside this file; the tests below it
# import them by name from their layer folders
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def pytest_configure(config):
    # importing cuegym turns on JAX's persistent compilation cache as for any user
    # ($CUEGYM_CACHE_DIR, else ~/.cache/cuegym/jax; "off" opts out; cuegym._cache), which keeps
    # repeated test runs fast; the physics package first sets XLA's flags before JAX starts
    import cuegym.physics  # noqa: F401


def mapped_regions() -> int:
    """Memory regions mapped by this process (0 where /proc is not available)."""
    try:
        with open(f"/proc/{os.getpid()}/maps", "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def release_past_budget():
    if mapped_regions() > MAP_BUDGET:
        import jax

        jax.clear_caches()
        gc.collect()


@pytest.fixture(autouse=True, scope="module")
def release_compiled_programs():
    yield
    release_past_budget()


@pytest.fixture(scope="class")
def release_compiled_programs_per_class():
    """The same after each class that asks for it: tests/envs/test_api.py holds one class
    per env id in one module. (Not autouse: outside a class, pytest's class scope is each
    test function, which would drop a module's programs between its tests.)"""
    yield
    release_past_budget()


@pytest.fixture(scope="session")
def tables():
    from cuegym.physics import TABLE_SPECS, get_table

    return {name: get_table(name) for name in TABLE_SPECS}
