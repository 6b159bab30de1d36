"""Shared test setup: the persistent compilation cache keeps re-runs of the MJX-heavy suite fast."""

import mjx_envs  # noqa: F401  first: applies the XLA:CPU scheduler flag before JAX starts

import os

import jax

_CACHE = os.environ.get("MJX_TEST_CACHE", os.path.join(os.path.dirname(__file__), "..", ".jax_cache"))
jax.config.update("jax_compilation_cache_dir", os.path.abspath(_CACHE))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
