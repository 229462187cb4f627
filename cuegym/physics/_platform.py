"""Process-wide JAX settings the simulator's guarantees depend on.

* float64 (``jax_enable_x64``): contact times are polynomial roots and need the precision.
* No fused multiply-add on the XLA CPU backend. XLA lets LLVM contract a*b + c into one
  FMA, and whether it does depends on how a loop is vectorised, which depends on the batch
  size: the same shot alone and inside a batch then differ in the last bits and, through the
  event order, in their outcome. Capping the instruction set at AVX (vector units, no FMA)
  makes every batch size produce the same bytes, at no measurable cost here (measured: a
  snooker break, 312 events, 83 ms with FMA and 78 ms without). Set ``CUEGYM_XLA_CPU_ISA``
  to another XLA value, or to ``native`` to leave XLA alone. The flag only takes effect if
  it is set before JAX starts its CPU backend, so import cuegym before running JAX code.
"""

from __future__ import annotations

import os
import platform
import warnings


def configure() -> None:
    isa = os.environ.get("CUEGYM_XLA_CPU_ISA", "AVX")
    flags = os.environ.get("XLA_FLAGS", "")
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    if isa != "native" and x86 and "xla_cpu_max_isa" not in flags:
        started = False
        try:
            from jax._src import xla_bridge

            started = bool(getattr(xla_bridge, "_backends", {}))
        except Exception:  # private API moved: assume not started
            started = False
        if started:
            warnings.warn(
                "cuegym was imported after JAX started its CPU backend, so fused multiply-add "
                "stays enabled and batched and single simulations may differ in the last bits; "
                "import cuegym first (see cuegym.physics._platform)",
                RuntimeWarning,
                stacklevel=3,
            )
        else:
            os.environ["XLA_FLAGS"] = (flags + f" --xla_cpu_max_isa={isa}").strip()
    import jax

    jax.config.update("jax_enable_x64", True)
