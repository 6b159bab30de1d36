"""Guard against the XLA:CPU scheduler stall.

On XLA:CPU (jax 0.10) a `lax.scan` over a vmapped `mjx.step` with 512 or more environments stalls with
the concurrency-optimised scheduler. Turning that scheduler off fixes it. XLA reads `XLA_FLAGS` once, when
the CPU client is created, so the flag must be in the environment before the first JAX computation; this
module is imported by `mjx_envs/__init__.py` (and by `train.py`) before anything touches a device.
"""

import os
import warnings

FLAG = "--xla_cpu_enable_concurrency_optimized_scheduler=false"
_FLAG_NAME = FLAG.split("=")[0]


def apply() -> bool:
  """Adds the flag to XLA_FLAGS unless the user set the option; returns True if the flag is in force."""
  flags = os.environ.get("XLA_FLAGS", "")
  if _FLAG_NAME in flags:  # the user's explicit choice wins
    return FLAG in flags
  os.environ["XLA_FLAGS"] = (flags + " " + FLAG).strip()
  if _cpu_backend_already_started():
    warnings.warn(
      "mjx_envs was imported after JAX had started its CPU backend, so XLA_FLAGS could not take "
      f"effect. Scans over 512+ vmapped envs may stall on CPU; set XLA_FLAGS='{FLAG}' before "
      "starting Python, or import mjx_envs before running any JAX computation.",
      RuntimeWarning,
      stacklevel=3,
    )
    return False
  return True


def _cpu_backend_already_started() -> bool:
  try:
    from jax._src import xla_bridge  # pylint: disable=import-outside-toplevel
  except ImportError:  # pragma: no cover - jax layout changed; assume the worst is not the case
    return False
  backends = getattr(xla_bridge, "_backends", {}) or {}
  return "cpu" in backends
