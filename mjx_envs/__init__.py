"""MuJoCo MJX environments as pure functions: `make(name, **overrides)`, `registered()`.

Importing this package first guards against the XLA:CPU scan stall (see `mjx_envs/_cpu.py`) and, on a
headless Linux machine, picks a MuJoCo GL backend for offscreen rendering (see `mjx_envs/_gl.py`), both
before JAX or MuJoCo start. Rendering and videos: `mjx_envs.render`.
"""

from mjx_envs import _cpu, _gl

_cpu.apply()
_gl.apply()  # before the first `import mujoco` (mjx_envs.core), which reads MUJOCO_GL


def _import_mjx_quietly():
  """Imports mujoco.mjx without the "Failed to import warp" / "Failed to import mujoco_warp" lines it
  prints on every import where Warp is not installed. Only impl="warp" needs Warp, and asking for it
  without it gets a clear error (`core.check_impl`). With Warp installed nothing is filtered (a broken
  install should be seen), and any other output of the import passes through."""
  import contextlib  # pylint: disable=import-outside-toplevel
  import importlib.util  # pylint: disable=import-outside-toplevel
  import io  # pylint: disable=import-outside-toplevel
  import sys  # pylint: disable=import-outside-toplevel

  if "mujoco.mjx" in sys.modules or importlib.util.find_spec("warp") is not None:
    return  # imported already (its lines are out), or Warp is installed: nothing to filter
  out = io.StringIO()
  try:
    with contextlib.redirect_stdout(out):
      import mujoco.mjx  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
  finally:  # also when the import fails: what it printed may explain why
    for line in out.getvalue().splitlines(keepends=True):
      if not line.startswith(("Failed to import warp:", "Failed to import mujoco_warp:")):
        sys.stdout.write(line)


_import_mjx_quietly()

# pylint: disable=wrong-import-position
from mjx_envs import blocks as _blocks  # noqa: E402, F401  registers the block world
from mjx_envs import fetch as _fetch  # noqa: E402, F401  registers the Fetch tasks
from mjx_envs import hand as _hand  # noqa: E402, F401  registers the Shadow hand tasks
from mjx_envs import hide_and_seek as _hide_and_seek  # noqa: E402, F401  registers the hide-and-seek games
from mjx_envs import metaworld as _metaworld  # noqa: E402, F401  registers Meta-World's tasks and MT10
from mjx_envs import wrappers  # noqa: E402
from mjx_envs.core import ConfigError, Env, GoalEnv, State, check_config  # noqa: E402, F401
from mjx_envs.registry import default_config, make, register, registered  # noqa: E402

__all__ = [
  "make",
  "registered",
  "register",
  "default_config",
  "Env",
  "GoalEnv",
  "State",
  "ConfigError",
  "wrappers",
]
