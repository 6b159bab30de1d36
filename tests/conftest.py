"""Shared test setup: the persistent compilation cache keeps re-runs of the MJX-heavy suite fast, and
XLA compiles at its lowest backend optimisation level, because the suite is compile-bound."""

import os

# The default tier spends most of its time in XLA:CPU compiles, and programs with C-physics host
# callbacks never enter the persistent cache (jax skips writing them), so each compiles cold in every
# process. Backend optimisation level 0 halves those compiles (hide-and-seek's tiny training run in
# notebook 06: 132 s -> 75 s, same returns) and leaves the semantics alone; tests compare runs made under
# the same flags. MJX_TEST_FULL_OPT=1 (or an explicit level in XLA_FLAGS) tests at XLA's default.
FAST_COMPILE = "--xla_backend_optimization_level=0"
if os.environ.get("MJX_TEST_FULL_OPT") != "1" and "xla_backend_optimization_level" not in os.environ.get(
  "XLA_FLAGS", ""
):
  os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + FAST_COMPILE).strip()

import mjx_envs  # noqa: E402, F401  before JAX starts: applies the XLA:CPU scheduler flag

import jax  # noqa: E402

_CACHE = os.environ.get("MJX_TEST_CACHE", os.path.join(os.path.dirname(__file__), "..", ".jax_cache"))
jax.config.update("jax_compilation_cache_dir", os.path.abspath(_CACHE))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
