import os

import pytest


def pytest_configure(config):
    # JAX's persistent compilation cache keeps repeated test runs (and CI reruns) fast.
    cache = os.environ.get("CUEGYM_CACHE_DIR", os.path.join(os.path.expanduser("~"), ".cache", "cuegym", "jax"))
    import cuegym.physics  # noqa: F401  (first: sets XLA flags before JAX starts)
    import jax

    jax.config.update("jax_compilation_cache_dir", cache)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)


@pytest.fixture(scope="session")
def tables():
    from cuegym.physics import TABLE_SPECS, get_table

    return {name: get_table(name) for name in TABLE_SPECS}
