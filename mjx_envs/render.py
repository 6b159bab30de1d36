"""Offscreen rendering of env states and rollouts to RGB frames, and frames to MP4 or GIF.

  from mjx_envs.render import render, render_rollout, rollout, save_video
  frame = render(env, state)                          # [H, W, 3] uint8
  states = rollout(env, act, key, num_steps=50)       # State stacked on a leading time axis [51, ...]
  save_video(render_rollout(env, states), "rollout.mp4", fps=25)   # or "rollout.gif"

Frames come from `mujoco.Renderer` with the OpenGL backend named by `MUJOCO_GL`, read when `mujoco` is
first imported; `import mjx_envs` defaults it to EGL on a Linux machine without a display (see
`mjx_envs/_gl.py`). Goals are drawn as translucent ghosts added to the scene at render time (the physics
model is untouched): block-world goal poses (with their labelled faces for the flip task), the Fetch
success sphere, hide-and-seek's vision cones (`ghosts=False` leaves them out). Hide-and-seek frames also
show each world's walls, team colours and lock state (a copy of the model takes them per frame). `BlocksSelfPlay` shows the copy of the world of whoever acts, with Bob's goal as ghosts.
"""

from __future__ import annotations

from mjx_envs.blocks import selfplay as blocks_selfplay
from mjx_envs.blocks.env import BlocksEnv
from mjx_envs.blocks.scene import BLOCK_HALF, COLORS, face_markers
from mjx_envs.core import GoalEnv, MjxEnv, State
from mjx_envs.fetch.env import FetchEnv
from mjx_envs.hand.reach import HandReachEnv

import copy
import importlib
import os
import warnings
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import mujoco
import numpy as np

__all__ = ["render", "render_rollout", "rollout", "save_video", "check_backend", "CAMERA"]

CAMERA = "overview"  # the named camera each family's MJCF defines
GHOST_ALPHA = 0.3
GHOST_SCALE = 1.2
GHOST_FACE_ALPHA = 0.8  # the flip labels must read through the block they overlap
_FETCH_GHOST_RGB = (0.1, 0.8, 0.2)
_HAND_GHOST_RGB = ((1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (1, 0, 1))  # ff, mf, rf, lf, th


def render(
  env, state: State, width: int = 480, height: int = 360, camera=None, index=0, ghosts: bool = True
) -> np.ndarray:
  """One frame [height, width, 3] uint8 of `state` (from `env.reset`/`env.step`, jitted or not).

  env: an mjx_envs env, wrapped or not. camera: a camera name or id of the model, or an
  `mujoco.MjvCamera`; None: the model's "overview" camera. index: for a batched state (leading env
  axes), the env to draw (an int, or a tuple for several axes). ghosts: draw the goal.
  """
  world, arrays = _view(env, state)
  one = {k: v[None] for k, v in _pick(arrays, 0, index).items()}
  return _render(world, one, width, height, camera, ghosts)[0]


def render_rollout(
  env, states, width: int = 480, height: int = 360, camera=None, index=0, ghosts: bool = True
) -> np.ndarray:
  """Frames [T, height, width, 3] uint8 of a rollout: `states` is a list of T states or one State
  stacked on a leading time axis (as `rollout` returns; then [T, N, ...] batches pick env `index`)."""
  if isinstance(states, (list, tuple)):
    world, views = None, []
    for s in states:
      world, arrays = _view(env, s)
      views.append(_pick(arrays, 0, index))
    arrays = {k: np.stack([v[k] for v in views]) for k in views[0]}
  else:
    world, arrays = _view(env, states)
    arrays = _pick(arrays, 1, index)
  return _render(world, arrays, width, height, camera, ghosts)


def rollout(env, act: Callable, key: jax.Array, num_steps: int) -> State:
  """Runs `act` for `num_steps` steps from `env.reset(key)` in one jitted scan.

  act(obs, key) -> action [A]; a recurrent policy (one with `act.initial_carry(batch_shape)`) is called
  act(obs, key, carry) -> (action, carry). Returns the states stacked on a leading axis
  [num_steps + 1, ...], the reset state first. Episodes are not reset: cut the frames at `done` if needed.
  """
  recurrent = hasattr(act, "initial_carry")

  @jax.jit
  def run(key):
    k_reset, k_act = jax.random.split(key)
    state = env.reset(k_reset)
    carry = act.initial_carry(()) if recurrent else None

    def body(loop, k):
      state, carry = loop
      if recurrent:
        action, carry = act(state.obs, k, carry)
      else:
        action = act(state.obs, k)
      state = env.step(state, action)
      return (state, carry), state

    _, states = jax.lax.scan(body, (state, carry), jax.random.split(k_act, num_steps))
    return jax.tree.map(lambda first, rest: jnp.concatenate([first[None], rest]), state, states)

  return run(key)


def save_video(frames: Sequence[np.ndarray] | np.ndarray, path: str, fps: float = 25.0) -> str:
  """Writes frames [T, H, W, 3] uint8 to `path`: H.264 MP4 (`.mp4`, through imageio-ffmpeg's own
  ffmpeg) or an endlessly looping GIF (`.gif`). Returns `path`."""
  import imageio.v2 as iio  # pylint: disable=import-outside-toplevel

  frames = np.asarray(frames, np.uint8)
  if frames.ndim != 4 or frames.shape[-1] != 3 or len(frames) == 0:
    raise ValueError(f"frames must be [T > 0, H, W, 3], got shape {frames.shape}")
  ext = os.path.splitext(path)[1].lower()
  if ext == ".gif":
    import imageio.v3 as iio3  # pylint: disable=import-outside-toplevel

    iio3.imwrite(path, frames, extension=".gif", duration=1000.0 / fps, loop=0)
  elif ext == ".mp4":
    # yuv420p (what players expect) needs even sizes; macro_block_size=2 pads at most one pixel.
    with warnings.catch_warnings():
      # JAX warns on any fork; imageio-ffmpeg's fork is followed at once by exec of ffmpeg.
      warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
      with iio.get_writer(path, fps=fps, codec="libx264", pixelformat="yuv420p", macro_block_size=2) as w:
        for frame in frames:
          w.append_data(frame)
  else:
    raise ValueError(f"save_video writes .mp4 or .gif, got {path!r}")
  return path


def check_backend() -> None:
  """Raises the renderer's error (naming MUJOCO_GL and the fixes) now if offscreen rendering cannot
  work, e.g. before a long training run that ends with a video."""
  with _renderer(mujoco.MjModel.from_xml_string("<mujoco/>"), 16, 16):
    pass


# --- internals -----------------------------------------------------------------------------------
def _view(env, state: State):
  """(the MjxEnv whose model draws the state, its numpy arrays: qpos, mocap_pos, mocap_quat, and goal and
  show_goal where there is a goal; each with the state's leading axes)."""
  env = getattr(env, "unwrapped", env)
  if isinstance(env, blocks_selfplay.BlocksSelfPlay):
    phase, acted = np.asarray(state.info["phase"]), np.asarray(state.info["acted"])
    # Whoever acts next; once the game is over, whoever acted last. Alice has no goal to show.
    bob = (phase == blocks_selfplay.BOB) | ((phase == blocks_selfplay.OVER) & (acted == blocks_selfplay.BOB))
    a, b = (_arrays(state.pipeline_state[who]) for who in ("alice", "bob"))
    arrays = {k: np.where(bob.reshape(bob.shape + (1,) * (a[k].ndim - bob.ndim)), b[k], a[k]) for k in a}
    return env.world, {**arrays, "show_goal": bob}
  if not isinstance(env, MjxEnv):
    raise TypeError(
      f"cannot render {type(env).__name__}: mjx_envs.render draws MjxEnv-based envs "
      "(the block world, its self-play game, the Fetch tasks and hide-and-seek)"
    )
  arrays = _arrays(state)
  if hasattr(env, "render_extras"):  # per-world model fields (hide-and-seek's walls, locks, teams)
    arrays.update({k: np.asarray(v) for k, v in env.render_extras(state).items()})
  # The goal-free block world (Alice's) keeps its start poses in info["goal"]: not a goal to draw.
  if isinstance(env, GoalEnv) and getattr(env, "is_goal_env", True) and "goal" in state.info:
    arrays["show_goal"] = np.ones(arrays["qpos"].shape[:-1], bool)
  return env, arrays


def _arrays(state: State):
  d = state.pipeline_state
  out = {k: np.asarray(getattr(d, k)) for k in ("qpos", "mocap_pos", "mocap_quat")}
  if "goal" in state.info:
    out["goal"] = np.asarray(state.info["goal"])
  return out


def _pick(arrays, keep: int, index):
  """Indexes the batch axes that follow the first `keep` (time) axes with `index`."""
  extra = arrays["qpos"].ndim - 1 - keep
  if extra <= 0:
    return arrays
  index = index if isinstance(index, tuple) else (index,)
  if len(index) != extra:
    raise ValueError(
      f"the state has {extra} batch axes (qpos {arrays['qpos'].shape}); "
      f"pass index= as a tuple of {extra} ints"
    )
  where = (slice(None),) * keep + index
  return {k: v[where] for k, v in arrays.items()}


def _render(env: MjxEnv, arrays, width, height, camera, ghosts) -> np.ndarray:
  model = env.mj_model
  if width > model.vis.global_.offwidth or height > model.vis.global_.offheight:
    model = copy.copy(model)  # a bigger offscreen buffer; visual settings only
    model.vis.global_.offwidth = max(width, model.vis.global_.offwidth)
    model.vis.global_.offheight = max(height, model.vis.global_.offheight)
  if camera is None:
    camera = CAMERA if mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, CAMERA) >= 0 else -1
  prepare = getattr(env, "render_prepare", None)  # writes a frame's per-world fields into the model
  decor = getattr(env, "render_decor", None)  # extra geoms to draw (e.g. vision cones)
  if prepare is not None and model is env.mj_model:
    model = copy.copy(model)  # the env's own model stays untouched
  data = mujoco.MjData(model)
  frames = np.empty((len(arrays["qpos"]), height, width, 3), np.uint8)
  with _renderer(model, width, height) as renderer:
    for t in range(len(frames)):
      frame = {k: v[t] for k, v in arrays.items()}
      if prepare is not None:
        prepare(model, frame)
      for k in ("qpos", "mocap_pos", "mocap_quat"):
        getattr(data, k)[:] = arrays[k][t]
      mujoco.mj_forward(model, data)
      renderer.update_scene(data, camera)
      if ghosts and "show_goal" in arrays and arrays["show_goal"][t]:
        _add_ghosts(renderer.scene, _ghosts(env, arrays["goal"][t]))
      if decor is not None and ghosts:
        _add_ghosts(renderer.scene, decor(frame))
      renderer.render(out=frames[t])
  return frames


def _renderer(model, width, height) -> mujoco.Renderer:
  try:
    return mujoco.Renderer(model, height, width)
  except Exception as e:  # the GL backends fail with ImportError, RuntimeError, mujoco.FatalError...
    wanted = os.environ.get("MUJOCO_GL", "")
    loaded = _loaded_backend(wanted)
    late = (
      f" mujoco was imported before MUJOCO_GL={wanted!r} was set and loaded "
      f"{loaded or 'its default (GLFW)'} instead: import mjx_envs (or set MUJOCO_GL) before mujoco."
      if loaded != wanted
      else ""
    )
    raise RuntimeError(
      f"mjx_envs.render: cannot create an offscreen MuJoCo renderer with "
      f"MUJOCO_GL={wanted or '(unset)'!r}: {type(e).__name__}: {e}\n{late.lstrip()}\n"
      "MUJOCO_GL picks the OpenGL backend and is read when `mujoco` is first imported (import mjx_envs "
      "before mujoco to get its default, EGL on a Linux machine without a display). Fixes: on a GPU "
      "or Mesa machine install EGL (apt-get install libegl1) and use MUJOCO_GL=egl; on a CPU machine "
      "without EGL install OSMesa (apt-get install libosmesa6) and set MUJOCO_GL=osmesa; with a "
      "display, MUJOCO_GL=glfw."
    ) from e


def _loaded_backend(default: str) -> str:
  """The MUJOCO_GL that mujoco read when it was imported (a private detail; `default` if not found)."""
  for name in ("mujoco.rendering.classic.gl_context", "mujoco.gl_context"):  # newer, older layouts
    try:
      return getattr(importlib.import_module(name), "_MUJOCO_GL", default)
    except ImportError:
      continue
  return default


def _ghosts(env: MjxEnv, goal: np.ndarray):
  """(mjtGeom type, size [3], pos [3], rotation matrix [9], rgba [4]) of the goal's ghost geoms."""
  out = []
  if isinstance(env, BlocksEnv):
    for i in range(env.num_objects):
      pos, mat = goal[i, :3].astype(np.float64), np.empty(9)
      mujoco.mju_quat2Mat(mat, goal[i, 3:].astype(np.float64))
      # A shell a little bigger than the block, so a block at its goal does not z-fight its ghost.
      out.append(
        (
          mujoco.mjtGeom.mjGEOM_BOX,
          [GHOST_SCALE * BLOCK_HALF] * 3,
          pos,
          mat,
          (*COLORS[i % len(COLORS)], GHOST_ALPHA),
        )
      )
      if not env.symmetric:  # flip: the ghost's labelled faces show which face goes up
        rot = mat.reshape(3, 3)
        for offset, size, rgb in face_markers(GHOST_SCALE * BLOCK_HALF):
          out.append((mujoco.mjtGeom.mjGEOM_BOX, size, pos + rot @ offset, mat, (*rgb, GHOST_FACE_ALPHA)))
  elif isinstance(env, HandReachEnv):  # each fingertip's goal, as the reference's target sites
    for i, rgb in enumerate(_HAND_GHOST_RGB):
      pos = goal[3 * i : 3 * i + 3].astype(np.float64)
      out.append((mujoco.mjtGeom.mjGEOM_SPHERE, [0.005] * 3, pos, np.eye(3).ravel(), (*rgb, 0.8)))
  elif isinstance(env, FetchEnv):  # the success region around the target
    out.append(
      (
        mujoco.mjtGeom.mjGEOM_SPHERE,
        [env.distance_threshold] * 3,
        goal.astype(np.float64),
        np.eye(3).ravel(),
        (*_FETCH_GHOST_RGB, GHOST_ALPHA),
      )
    )
  return out


def _add_ghosts(scene: mujoco.MjvScene, ghosts) -> None:
  for kind, size, pos, mat, rgba in ghosts:
    if scene.ngeom >= scene.maxgeom:
      return
    geom = scene.geoms[scene.ngeom]
    mujoco.mjv_initGeom(
      geom,
      kind,
      np.asarray(size, np.float64),
      np.asarray(pos, np.float64),
      np.asarray(mat, np.float64),
      np.asarray(rgba, np.float32),
    )
    # mjv_initGeom (MuJoCo 4.0) leaves objtype, objid and segid as the slot held them: a fresh scene's
    # slots are uninitialised memory, often a freed scene's geoms. With a model geom's (objtype, objid)
    # left there, mjr_render drew the ghost differently (24 pixels of a 160 x 120 FetchPush frame, the
    # render-test failures), in about half the processes; set to "no object" no run differed.
    geom.objtype, geom.objid, geom.segid = mujoco.mjtObj.mjOBJ_UNKNOWN, -1, -1
    geom.category = mujoco.mjtCatBit.mjCAT_DECOR
    scene.ngeom += 1
