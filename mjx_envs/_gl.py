"""A default OpenGL backend for MuJoCo's offscreen renderer on machines without a display.

MuJoCo reads `MUJOCO_GL` once, when `mujoco` is first imported. Its default (GLFW) needs a window system,
so on a headless Linux machine (a server, a container, Colab) rendering fails unless `MUJOCO_GL` names a
headless backend. `mjx_envs/__init__.py` calls `apply()` before anything imports mujoco. A `MUJOCO_GL`
the user set always wins.
"""

import ctypes.util
import os
import sys


def apply():
  """Sets MUJOCO_GL on headless Linux if unset: 'egl' (GPU driver or Mesa) or else 'osmesa', whichever
  is installed. Returns the value now in force (None: MuJoCo's own default)."""
  if os.environ.get("MUJOCO_GL") or not sys.platform.startswith("linux"):
    return os.environ.get("MUJOCO_GL")
  if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
    return None
  pyopengl = os.environ.get("PYOPENGL_PLATFORM", "").lower()
  if pyopengl in ("egl", "osmesa"):  # MuJoCo's backends refuse a different PYOPENGL_PLATFORM
    backend = pyopengl
  elif _installed("EGL") and (_installed("OpenGL") or _installed("GL")):
    backend = "egl"
  elif _installed("OSMesa"):
    backend = "osmesa"
  else:
    # Neither: naming a missing backend would make `import mujoco` itself fail (in PyOpenGL), so
    # leave MuJoCo's default; rendering then fails with instructions (mjx_envs.render).
    return None
  os.environ["MUJOCO_GL"] = backend
  return backend


def _installed(name: str) -> bool:
  return ctypes.util.find_library(name) is not None
