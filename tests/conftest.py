"""Shared test setup: the persistent compilation cache keeps re-runs of the MJX-heavy suite fast, and
XLA compiles with the fast-compile flags of compile_flags.py, because the suite is compile-bound."""

import os

from compile_flags import FAST_COMPILE

if os.environ.get("MJX_TEST_FULL_OPT") != "1" and "xla_backend_optimization_level" not in os.environ.get(
  "XLA_FLAGS", ""
):
  os.environ["XLA_FLAGS"] = " ".join((os.environ.get("XLA_FLAGS", ""),) + FAST_COMPILE).strip()

import mjx_envs  # noqa: F401  before JAX starts: applies the XLA:CPU scheduler flag

import jax

_CACHE = os.environ.get("MJX_TEST_CACHE", os.path.join(os.path.dirname(__file__), "..", ".jax_cache"))
jax.config.update("jax_compilation_cache_dir", os.path.abspath(_CACHE))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
