"""Environment throughput: control steps per second of each physics impl, against C MuJoCo on the same model.

For each env, each physics impl of `--impls` (default `c,jax`: `mjx_envs.make(name, impl=...)`; "c" steps
C MuJoCo on the host through one host callback per batch, "jax" is MJX-JAX) and each batch size B,
this jits

    scan(N steps of jax.vmap(env.step)(state, action))      actions: uniform random in [-1, 1] (or zero)

compiles it once (`compile_s`, trace + lower + XLA compile, or a persistent-cache load), runs it once
to warm up, then times a second call with `block_until_ready`. Throughput is B * N / seconds in CONTROL
steps per second; every control step is `env.n_substeps` physics steps, all included. Every impl starts
from the same reset pool (`RESET_POOL` states of `reset(PRNGKey(0) split)`, tiled over the batch) and
draws the same random actions (the scan's key is PRNGKey(B)). The table puts the impls side by side,
with their ratio c / jax.

The C MuJoCo references, on the same `env.mj_model` (an impl="c" env's, its exact reset states):
  * 1 thread: a Python loop of `mujoco.mj_step` over ONE world, `env.n_substeps` per control step,
    started from an `env.reset` state, the gripper's mocap target moved by a random action each control
    step as the env does (`bench_c`).
  * N threads, the ceiling: B worlds stepped directly, without JAX, by a pool of as many threads as the C
    backend uses (`cphysics.default_threads()`), one MjData per thread: each control step writes the
    env's inputs (ctrl, mocap targets) into the worlds' float64 states, then per world mj_setState,
    `n_substeps` mj_step (Fetch and the block world: the mocap moved along its path, one mj_step per
    substep, as the backend does), mj_getState (`CeilingGroup`, `bench_c_ceiling`), at the batch sizes of
    `--ceiling-batch-sizes` (default 64, 1024). `c / ceiling` is what the impl="c" env keeps of it (the
    rest: JAX's env logic, the callback's transfers and merges, derived fields, rays).

Meta-World tasks (`metaworld/<task>-v3`) are timed the same way; their C MuJoCo loops move the hand's mocap
by a[:3] / 100 and set the finger servos as the env does. `MT10` times the ten tasks stepped together (one
compiled step over ten models; a batch size B is run as the nearest multiple of 10, B / 10 worlds per
task, shown as "B (worlds)"), against C MuJoCo stepping one world of each task in turn (the ceiling: B / 10
worlds of each task in turn, each task's over the thread pool). MT10 is not compiled under "jax" on a CPU
(over 40 minutes; `--mt10-jax` forces it). Hide-and-seek's C references are physics only (no rays, grab,
lock; the ceiling does write each world's own walls, boxes and joint ranges into its model, as the
backend does).

Big batches on CPU are slow (XLA:CPU throughput is roughly flat in B), so each config's timed call is
capped at `--max-call-seconds`: the number of scan steps for a batch size is cut using the rate the same
impl measured at the previous (smaller) batch size (`--prior-rate` before the first measurement), down
to `--min-steps`; a config whose predicted time at `--min-steps` exceeds `--skip-seconds` is skipped and
reported as such. The timed call is repeated (`--repeats`, while under the cap) and the median kept.
`--steps` and `--prior-rate` take one value or one per impl (`c=400,jax=50`): the C path is 20-200x faster.

    python benchmarks/env_throughput.py                                  # all default envs, c and jax
    python benchmarks/env_throughput.py --impls c --batch-sizes 1,64,1024
    python benchmarks/env_throughput.py --batch-sizes 1,16,256,1024,4096,8192 --envs BlocksPush-1
    python benchmarks/env_throughput.py --quick                          # impl c only
    python benchmarks/env_throughput.py --json runs/throughput.json

Env names: the predefined ones below (`--list`), any registered name (`mjx_envs.registered()`), or a
registered Blocks name with `-K` for K objects (e.g. BlocksPush-2, BlocksStack-3).
"""

from __future__ import annotations

import mjx_envs
from mjx_envs import cphysics
from mjx_envs.metaworld.multitask import MT10_TASKS

import argparse
import datetime
import json
import math
import os
import platform
import re
import sys
import time

import jax
import jax.numpy as jnp
import mujoco
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Benchmark name -> (registered env, config overrides).
PRESETS = {
  "BlocksPush-1": ("BlocksPush", {"num_objects": 1}),
  "BlocksPush-4": ("BlocksPush", {"num_objects": 4}),
  "BlocksStack-2": ("BlocksStack", {"num_objects": 2}),
  "FetchReach": ("FetchReach", {}),
  "FetchPush": ("FetchPush", {}),
  "FetchPickAndPlace": ("FetchPickAndPlace", {}),
  "FetchSlide": ("FetchSlide", {}),
  "HideAndSeekQuadrant": ("HideAndSeekQuadrant", {}),
  "HideAndSeek": ("HideAndSeek", {}),
  **{f"metaworld/{t}": (f"metaworld/{t}", {}) for t in MT10_TASKS},
  "MT10": ("MT10", {}),
  "MT50": ("MT50", {}),
  "HandReach": ("HandReach", {}),
}
DEFAULT_ENVS = list(PRESETS)
QUICK_ENVS = ["BlocksPush-1", "FetchPush"]
DEFAULT_BATCH_SIZES = [1, 64, 1024]  # the C-vs-MJX table; more with --batch-sizes
QUICK_BATCH_SIZES = [1, 64]
RESET_POOL = 64  # distinct reset states; a batch of B envs tiles them (random actions decorrelate them)


# ------------------------------------------------------------------------------------------ setup
def resolve(name: str):
  """Benchmark name -> (registered name, overrides)."""
  if name in PRESETS:
    return PRESETS[name]
  if name in mjx_envs.registered():
    return name, {}
  m = re.fullmatch(r"(Blocks\w*)-(\d+)", name)
  if m and m.group(1) in mjx_envs.registered():
    return m.group(1), {"num_objects": int(m.group(2))}
  raise SystemExit(f"unknown env {name!r}; presets: {list(PRESETS)}, registered: {mjx_envs.registered()}")


def device_info() -> dict:
  dev = jax.devices()[0]
  info = {
    "device": str(dev),
    "platform": dev.platform,
    "device_kind": getattr(dev, "device_kind", ""),
    "jax": jax.__version__,
    "mujoco": mujoco.__version__,
    "python": platform.python_version(),
    "cpu_model": cpu_model(),
    "cpu_count": os.cpu_count(),
    "xla_flags": os.environ.get("XLA_FLAGS", ""),
  }
  if dev.platform == "gpu":
    info["gpu_name"] = getattr(dev, "device_kind", "")
  return info


def cpu_model() -> str:
  model, family, mnum = "", "", ""
  try:
    with open("/proc/cpuinfo") as f:
      for line in f:
        key, _, val = line.partition(":")
        key, val = key.strip(), val.strip()
        if key == "model name" and not model:
          model = val
        elif key == "cpu family" and not family:
          family = val
        elif key == "model" and not mnum:
          mnum = val
  except OSError:
    return platform.processor() or "unknown"
  extra = f" (family {family}, model {mnum})" if family else ""
  return (model or platform.processor() or "unknown") + extra


def model_config(env) -> dict:
  m = env.mj_model
  cfg = getattr(env, "config", {})
  return {
    "sim_dt": float(m.opt.timestep),
    "n_substeps": int(env.n_substeps),
    "control_dt": float(env.dt),
    "iterations": int(m.opt.iterations),
    "ls_iterations": int(m.opt.ls_iterations),
    "solver": mujoco.mjtSolver(m.opt.solver).name.replace("mjSOL_", ""),
    "integrator": mujoco.mjtIntegrator(m.opt.integrator).name.replace("mjINT_", ""),
    "cone": mujoco.mjtCone(m.opt.cone).name.replace("mjCONE_", ""),
    "nq": int(m.nq),
    "nv": int(m.nv),
    "nu": int(m.nu),
    "ngeom": int(m.ngeom),
    "num_objects": int(getattr(env, "num_objects", cfg.get("num_objects", 1 if "obj_range" in cfg else 0))),
    "action_size": int(env.action_size),
  }


class CacheHits:
  """Counts JAX persistent compilation cache hits (monitoring event)."""

  def __init__(self):
    self.hits = 0
    try:
      jax.monitoring.register_event_listener(self._on_event)
      self.available = True
    except Exception:  # pylint: disable=broad-except
      self.available = False

  def _on_event(self, event, **_):
    if event == "/jax/compilation_cache/cache_hits":
      self.hits += 1


# ------------------------------------------------------------------------------------------ MJX
def reset_pool(env, seed: int):
  keys = jax.random.split(jax.random.PRNGKey(seed), RESET_POOL)
  return jax.block_until_ready(jax.jit(jax.vmap(env.reset))(keys))


def tile_batch(pool, batch: int, devices=None):
  """`batch` states cycled from the reset pool; with several `devices`, split along the env axis over
  them (data parallel, as train.py does: on CPU, one host device per core puts every core to work)."""
  idx = jnp.arange(batch) % RESET_POOL
  # Only leaves with the pool's leading axis are per-env: some leaves of a Warp `mjx.Data` (impl="warp")
  # stay unbatched under vmap (leading size 1) and are shared by every env as they are.
  state = jax.tree.map(lambda x: x[idx] if x.ndim and x.shape[0] == RESET_POOL else x, pool)
  if devices is not None and len(devices) > 1:
    from agents.common import sharding  # pylint: disable=import-outside-toplevel

    mesh = sharding.data_mesh(batch, devices)
    split = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("data"))
    state = jax.device_put(state, jax.tree.map(lambda x: split if x.size else None, state))
  return jax.block_until_ready(state)


def make_rollout(env, batch: int, num_steps: int, actions: str):
  step = jax.vmap(env.step)
  size = env.action_size
  multi_agent = hasattr(env, "random_action")  # hide-and-seek: a dict of per-agent actions

  def rollout(state, key):
    def body(s, k):
      if multi_agent:
        a = jax.vmap(env.random_action)(jax.random.split(k, batch))
        if actions == "zero":
          a = {
            "move": jnp.full_like(a["move"], 5),
            "grab": jnp.zeros_like(a["grab"]),
            "lock": jnp.zeros_like(a["lock"]),
          }
      elif actions == "zero":
        a = jnp.zeros((batch, size))
      else:
        a = jax.random.uniform(k, (batch, size), minval=-1.0, maxval=1.0)
      return step(s, a), None

    return jax.lax.scan(body, state, jax.random.split(key, num_steps))[0]

  return jax.jit(rollout)


def xla_stats(compiled, batch: int | None = None) -> dict:
  """What XLA says about a compiled function: `memory_analysis()` (argument, output, temp and alias bytes;
  with `batch`, their sum less the aliased bytes per env) and `cost_analysis()` (flops, transcendentals,
  bytes accessed). XLA's cost analysis counts a loop body ONCE, whatever its trip count: for a scan of
  env steps it is about one batched control step with each inner loop (substeps, solver iterations)
  counted once. Fields a backend does not report are left out."""
  out = {}
  try:
    mem = compiled.memory_analysis()
  except Exception:  # pylint: disable=broad-except  (not every backend implements it)
    mem = None
  if mem is not None:
    for k in (
      "argument_size_in_bytes",
      "output_size_in_bytes",
      "temp_size_in_bytes",
      "alias_size_in_bytes",
      "generated_code_size_in_bytes",
    ):
      if hasattr(mem, k):
        out[k] = int(getattr(mem, k))
    if batch and "argument_size_in_bytes" in out:
      total = (
        out["argument_size_in_bytes"]
        + out["output_size_in_bytes"]
        + out.get("temp_size_in_bytes", 0)
        - out.get("alias_size_in_bytes", 0)
      )
      out["bytes_per_env"] = total / batch
  try:
    cost = compiled.cost_analysis()
  except Exception:  # pylint: disable=broad-except
    cost = None
  if isinstance(cost, (list, tuple)):
    cost = cost[0] if cost else None
  if cost:
    for k in ("flops", "transcendentals", "bytes accessed"):
      if k in cost:
        out[k.replace(" ", "_")] = float(cost[k])
  return out


def bench_mjx(
  env,
  pool,
  batch: int,
  num_steps: int,
  actions: str,
  cache: CacheHits,
  repeats: int = 3,
  max_seconds: float = 10.0,
  devices=None,
) -> dict:
  """Compiles, warms up and times `num_steps` control steps of `batch` envs (see the module docstring),
  split over `devices` (default: one device). The result includes `xla_stats` of the compiled scan."""
  if devices is not None and getattr(env, "impl", None) == "c":
    # As train.py: C physics takes the whole batch on device 0 (a second host device only shuttles it,
    # and at drawer-open batch 1,024 one such run deadlocked in XLA's cross-device all-reduce).
    devices = None
  if devices is not None:
    from agents.common import sharding  # pylint: disable=import-outside-toplevel

    devices = sharding.usable_devices(batch, devices, nv=env.mj_model.nv)
  state = tile_batch(pool, batch, devices)
  fn = make_rollout(env, batch, num_steps, actions)
  key = jax.random.PRNGKey(batch)
  hits0 = cache.hits
  t0 = time.perf_counter()
  compiled = fn.lower(state, key).compile()
  compile_s = time.perf_counter() - t0
  xla = xla_stats(compiled, batch)
  cache_hit = (cache.hits > hits0) if cache.available else None
  t0 = time.perf_counter()
  out = jax.block_until_ready(compiled(state, key))  # warm-up (first run: allocation, page-in)
  warmup_s = time.perf_counter() - t0
  # Timed: the second call, then up to `repeats - 1` more while the timed total stays under
  # `max_seconds`; the median is reported (the machine may be shared), all times are kept.
  times = []
  while True:
    t0 = time.perf_counter()
    out = jax.block_until_ready(compiled(state, jax.random.fold_in(key, len(times) + 1)))
    times.append(time.perf_counter() - t0)
    if len(times) >= repeats or sum(times) + times[-1] > max_seconds:
      break
  run_s = float(np.median(times))
  diverged = float(jnp.mean(out.info["diverged"])) if "diverged" in out.info else float("nan")
  steps = batch * num_steps
  return {
    "batch": batch,
    "devices": len(devices) if devices else 1,
    "steps": num_steps,
    "compile_s": compile_s,
    "cache_hit": cache_hit,
    "warmup_s": warmup_s,
    "run_s": run_s,
    "run_times_s": times,
    "mjx_steps_per_s": steps / run_s,
    "mjx_substeps_per_s": steps * env.n_substeps / run_s,
    "diverged_frac": diverged,
    "xla": xla,
  }


# ------------------------------------------------------------------------------------------ C MuJoCo
def c_target_clip(env, family: str):
  """A numpy function clipping the gripper's mocap target as the env does."""
  if family == "fetch":
    from mjx_envs.fetch.env import REACH_RADIUS  # pylint: disable=import-outside-toplevel

    c = np.asarray(env.reach_centre, np.float64)
    low = np.array([env.reach_x_min, -np.inf, env.reach_z_min])

    def clip(target):
      target = np.maximum(target, low)
      r = np.linalg.norm(target - c)
      return c + (target - c) * min(1.0, REACH_RADIUS / max(r, 1e-6))

    return clip
  from mjx_envs.blocks.scene import TABLE_HALF, TABLE_POS, TABLE_Z  # pylint: disable=import-outside-toplevel

  lo = np.array([TABLE_POS[0] - TABLE_HALF[0], TABLE_POS[1] - TABLE_HALF[1], TABLE_Z + 0.003])
  hi = np.array([TABLE_POS[0] + TABLE_HALF[0], TABLE_POS[1] + TABLE_HALF[1], TABLE_Z + 0.4])
  return lambda target: np.clip(target, lo, hi)


def c_rates(total: int, t_run: float, n_substeps: int) -> dict:
  """A C MuJoCo loop's figures: `total` control steps of `n_substeps` physics steps in `t_run` seconds."""
  return {
    "c_steps": total,
    "c_run_s": t_run,
    "c_steps_per_s": total / t_run,
    "c_substeps_per_s": total * n_substeps / t_run,
  }


def bench_c_hide_and_seek(env, pool, actions: str, seconds: float, seed: int = 0) -> dict:
  """Single-thread C MuJoCo on the same model as the first reset world (its walls, box sizes, joint
  ranges written into a copy of env.mj_model): random movement bins each control step, then
  `n_substeps` mj_step. Physics only: the env's rays (sight, lidar), grab and lock are not in it."""
  from mjx_envs.hide_and_seek.env import bins_to_ctrl  # pylint: disable=import-outside-toplevel

  import copy  # pylint: disable=import-outside-toplevel

  info = jax.tree.map(lambda x: np.asarray(x[0]), pool.info)
  mx = env.world_model(jax.tree.map(jnp.asarray, info))
  m = copy.deepcopy(env.mj_model)
  for field in ("geom_pos", "geom_size", "body_inertia", "jnt_range", "eq_data"):
    getattr(m, field)[:] = np.asarray(getattr(mx, field))
  d = mujoco.MjData(m)
  d.qpos[:] = np.asarray(pool.pipeline_state.qpos[0])
  mujoco.mj_forward(m, d)
  rng = np.random.default_rng(seed)
  chunk, total, t_run = 50, 0, 0.0
  A = env.num_agents
  while t_run < seconds:
    bins = rng.integers(0, 11, (chunk, A * 3)) if actions == "random" else np.full((chunk, A * 3), 5)
    ctrls = np.asarray(bins_to_ctrl(bins))
    t0 = time.perf_counter()
    for c in ctrls:
      d.ctrl[:] = c
      for _ in range(env.n_substeps):
        mujoco.mj_step(m, d)
    t_run += time.perf_counter() - t0
    total += chunk
  return c_rates(total, t_run, env.n_substeps)


def bench_c(env, family: str, pool, actions: str, seconds: float, seed: int = 0) -> dict:
  """Single-thread C MuJoCo on env.mj_model: control steps per second, started from a reset state.

  Each control step: the mocap target = tcp + 0.05 * a[:3] (clipped as the env does; Fetch moves it
  linearly over the substeps, as its env does), the finger ctrl from a[-1] (Fetch: the finger position + a[-1]), then `n_substeps` mj_step.
  """
  if family == "hide_and_seek":
    return bench_c_hide_and_seek(env, pool, actions, seconds, seed)
  if family == "metaworld":
    return bench_c_metaworld(env, pool, actions, seconds, seed)
  if family == "hand":
    return bench_c_hand(env, pool, actions, seconds, seed)
  m = env.mj_model
  first = jax.tree.map(lambda x: np.asarray(x[0]), pool.pipeline_state)
  # The reset's state only (resets compute positions, not the mass matrix: copying derived fields
  # with `mjx.get_data` handed C MuJoCo a zero inertia matrix); mj_forward derives the rest.
  d = mujoco.MjData(m)
  for field in ("qpos", "qvel", "ctrl", "mocap_pos", "mocap_quat"):
    getattr(d, field)[:] = getattr(first, field)
  mujoco.mj_forward(m, d)
  g = env.gripper
  clip = c_target_clip(env, family)
  interp = family == "fetch"
  locked = family == "fetch" and getattr(env, "block_gripper", False)
  from mjx_envs.fetch.env import FINGER_CTRL_MAX  # pylint: disable=import-outside-toplevel
  from mjx_envs.gripper import MAX_OPENING  # pylint: disable=import-outside-toplevel

  rng = np.random.default_rng(seed)
  chunk = 50
  n_sub = env.n_substeps
  fracs = np.arange(1, n_sub + 1) / n_sub
  total, t_run = 0, 0.0
  while t_run < seconds:
    acts = (
      rng.uniform(-1.0, 1.0, (chunk, env.action_size))
      if actions == "random"
      else np.zeros((chunk, env.action_size))
    )
    t0 = time.perf_counter()
    for a in acts:
      tcp = d.qpos[g.free_qpos : g.free_qpos + 3]
      target = clip(tcp + 0.05 * a[:3])
      if family == "fetch":  # the reference's effort-like fingers: servo target = position + a[3]
        fq = d.qpos[list(g.finger_qpos)]
        d.ctrl[:] = np.clip(fq + (0.0 if locked else a[-1]), 0.0, FINGER_CTRL_MAX)
      else:
        d.ctrl[:] = (a[-1] + 1.0) * 0.5 * MAX_OPENING
      if interp:
        start = d.mocap_pos[g.mocap].copy()
        for f in fracs:
          d.mocap_pos[g.mocap] = start + (target - start) * f
          mujoco.mj_step(m, d)
      else:
        d.mocap_pos[g.mocap] = target
        for _ in range(n_sub):
          mujoco.mj_step(m, d)
    t_run += time.perf_counter() - t0
    total += chunk
    if not (np.all(np.isfinite(d.qpos)) and np.all(np.isfinite(d.qvel))):  # diverged: start over
      mujoco.mj_resetData(m, d)
      for field in ("qpos", "qvel", "ctrl", "mocap_pos", "mocap_quat"):
        getattr(d, field)[:] = getattr(first, field)
      mujoco.mj_forward(m, d)
  return c_rates(total, t_run, n_sub)


def bench_c_hand(env, pool, actions: str, seconds: float, seed: int = 0) -> dict:
  """Single-thread C MuJoCo on a Shadow hand task's env.mj_model, as its env steps: the 20 servo targets
  from the action (`env.ctrl_for`, computed outside the timed part), then `n_substeps` mj_step."""
  m = env.mj_model
  first = jax.tree.map(lambda x: np.asarray(x[0]), pool.pipeline_state)
  d = mujoco.MjData(m)
  d.qpos[:] = first.qpos
  mujoco.mj_forward(m, d)
  rng = np.random.default_rng(seed)
  ctrl_of = jax.jit(jax.vmap(env.ctrl_for, in_axes=(None, 0)))  # absolute control: qpos is not read
  chunk, total, t_run = 50, 0, 0.0
  while t_run < seconds:
    acts = rng.uniform(-1.0, 1.0, (chunk, env.action_size)) if actions == "random" else np.zeros((chunk, 20))
    ctrls = np.asarray(ctrl_of(jnp.asarray(d.qpos, jnp.float32), jnp.asarray(acts, jnp.float32)))
    t0 = time.perf_counter()
    for c in ctrls:
      d.ctrl[:] = c
      mujoco.mj_step(m, d, env.n_substeps)
    t_run += time.perf_counter() - t0
    total += chunk
  return c_rates(total, t_run, env.n_substeps)


def bench_c_metaworld(env, pool, actions: str, seconds: float, seed: int = 0) -> dict:
  """Single-thread C MuJoCo on a Meta-World task's env.mj_model, as its env steps: the hand's mocap moves
  by a[:3] / 100 (clipped to the task's mocap bounds), the fingers' servo targets are [a3, -a3], then
  `n_substeps` mj_step. Physics only: the observation and reward are not in it."""
  from mjx_envs.metaworld.sawyer import ACTION_SCALE  # pylint: disable=import-outside-toplevel

  m = env.mj_model
  first = jax.tree.map(lambda x: np.asarray(x[0]), pool.pipeline_state)
  d = mujoco.MjData(m)
  for field in ("qpos", "qvel", "ctrl", "mocap_pos", "mocap_quat"):
    getattr(d, field)[:] = getattr(first, field)
  mujoco.mj_forward(m, d)
  hand = env.ids.hand_mocap
  rng = np.random.default_rng(seed)
  chunk, total, t_run = 50, 0, 0.0
  while t_run < seconds:
    acts = rng.uniform(-1.0, 1.0, (chunk, 4)) if actions == "random" else np.zeros((chunk, 4))
    t0 = time.perf_counter()
    for a in acts:
      d.mocap_pos[hand] = np.clip(d.mocap_pos[hand] + a[:3] * ACTION_SCALE, env.mocap_low, env.mocap_high)
      d.ctrl[:] = (a[3], -a[3])
      for _ in range(env.n_substeps):
        mujoco.mj_step(m, d)
    t_run += time.perf_counter() - t0
    total += chunk
  return c_rates(total, t_run, env.n_substeps)


def bench_c_multitask(env, actions: str, seconds: float, pools=None) -> dict:
  """C MuJoCo over a multi-task env's tasks, an equal share of `seconds` each: control steps of all tasks
  per second of all tasks (the single-thread cost of stepping one world of each task in turn). `pools`:
  each task's reset pool (default: made here)."""
  pools = pools or [reset_pool(t, seed=0) for t in env.tasks]
  rows = [bench_c_metaworld(t, p, actions, seconds / env.num_tasks) for t, p in zip(env.tasks, pools)]
  steps, secs = sum(r["c_steps"] for r in rows), sum(r["c_run_s"] for r in rows)
  n_sub = env.tasks[0].n_substeps
  return {
    "c_steps": steps,
    "c_run_s": secs,
    "c_steps_per_s": steps / secs,
    "c_substeps_per_s": steps * n_sub / secs,
  }


def bench_multitask(
  env, batch: int, num_steps: int, actions: str, cache: CacheHits, repeats: int = 3, max_seconds: float = 10.0
) -> dict:
  """`bench_mjx` for a multi-task env (MT10): `batch` worlds, batch / num_tasks per task, all tasks in one
  compiled step (each task's vmapped batch on its own model), one device."""
  n = batch // env.num_tasks
  mt = mjx_envs.wrappers.batch(env, n * env.num_tasks)  # per task (MultiTask), or one padded batch
  state = jax.block_until_ready(jax.jit(mt.reset)(jax.random.PRNGKey(0)))

  @jax.jit
  def rollout(state, key):
    def body(s, k):
      a = (
        jax.random.uniform(k, (mt.num_envs, mt.action_size), minval=-1.0, maxval=1.0)
        if actions == "random"
        else jnp.zeros((mt.num_envs, mt.action_size))
      )
      return mt.step(s, a), None

    return jax.lax.scan(body, state, jax.random.split(key, num_steps))[0]

  key = jax.random.PRNGKey(batch)
  hits0 = cache.hits
  t0 = time.perf_counter()
  compiled = rollout.lower(state, key).compile()
  compile_s = time.perf_counter() - t0
  t0 = time.perf_counter()
  jax.block_until_ready(compiled(state, key))
  warmup_s = time.perf_counter() - t0
  times = []
  while True:
    t0 = time.perf_counter()
    out = jax.block_until_ready(compiled(state, jax.random.fold_in(key, len(times) + 1)))
    times.append(time.perf_counter() - t0)
    if len(times) >= repeats or sum(times) + times[-1] > max_seconds:
      break
  run_s = float(np.median(times))
  steps = mt.num_envs * num_steps
  return {
    "batch": mt.num_envs,
    "devices": 1,
    "steps": num_steps,
    "compile_s": compile_s,
    "cache_hit": (cache.hits > hits0) if cache.available else None,
    "warmup_s": warmup_s,
    "run_s": run_s,
    "run_times_s": times,
    "mjx_steps_per_s": steps / run_s,
    "mjx_substeps_per_s": steps * env.tasks[0].n_substeps / run_s,
    "diverged_frac": float(jnp.mean(out.info["diverged"])),
    "xla": {},
  }


# ------------------------------------------------------------------------------------------ C ceiling
def state_part(m: mujoco.MjModel, part) -> slice:
  """Where `part` (an mjtState bit) lies in the mjSTATE_INTEGRATION vector (laid out by increasing bit)."""
  spec, bit = int(cphysics.SPEC), int(part)
  start = int(mujoco.mj_stateSize(m, spec & (bit - 1)))
  return slice(start, start + int(mujoco.mj_stateSize(m, bit)))


def exact_states(env, pool) -> np.ndarray:
  """[RESET_POOL, nstate] float64 integration states of the reset pool: the exact C state an impl="c" env
  carries, else one built from the pool's qpos, qvel, ctrl, mocap and eq_active (zero warm start)."""
  ps = pool.pipeline_state
  if getattr(env, "impl", None) == "c":
    bits = np.ascontiguousarray(np.asarray(ps._impl.state), np.uint32)  # pylint: disable=protected-access
    return bits.view(np.float64).reshape(RESET_POOL, -1).copy()
  m = env.mj_model
  d = mujoco.MjData(m)
  out = np.zeros((RESET_POOL, mujoco.mj_stateSize(m, cphysics.SPEC)))
  for k in range(RESET_POOL):
    mujoco.mj_resetData(m, d)
    for field in ("qpos", "qvel", "ctrl", "mocap_pos", "mocap_quat", "eq_active"):
      getattr(d, field)[:] = np.asarray(getattr(ps, field)[k]).reshape(getattr(d, field).shape)
    mujoco.mj_getState(m, d, out[k], cphysics.SPEC)
  return out


class CeilingGroup:
  """`n` worlds of one model stepped by C MuJoCo directly (no JAX): the vectorised inputs of a control
  step (what the env computes from the action: ctrl and mocap targets, clipped as the env does) written
  into the [n, nstate] float64 states, then per world, in a thread pool (one MjData per thread):
  mj_setState, `n_substeps` mj_step (Fetch and the block world: the mocap moved along its float64 path,
  one mj_step per substep, as the C backend does; otherwise one mj_step(m, d, n_substeps)), mj_getState.
  Hide-and-seek worlds also get their own model fields (walls, boxes, joint ranges, weld frames) written
  into the thread's model copy first, as the backend does; its rays, grab and lock are not in it."""

  def __init__(self, env, family: str, pool, n: int, threads: int):
    import copy  # pylint: disable=import-outside-toplevel

    self.env, self.family, self.n = env, family, n
    m = self.m = env.mj_model
    self.nsub = int(env.n_substeps)
    idx = np.arange(n) % RESET_POOL
    self.state = np.ascontiguousarray(exact_states(env, pool)[idx])
    S = mujoco.mjtState
    self.sl_qpos, self.sl_ctrl = state_part(m, S.mjSTATE_QPOS), state_part(m, S.mjSTATE_CTRL)
    self.sl_mpos = state_part(m, S.mjSTATE_MOCAP_POS)
    self.fields = {}
    if family == "hide_and_seek":
      fields = jax.jit(jax.vmap(env.world_fields))(pool.info)
      self.fields = {
        k: np.asarray(v, np.float64)[idx].reshape((n,) + getattr(m, k).shape) for k, v in fields.items()
      }
    self.workers = []
    for _ in range(max(1, min(threads, n))):
      wm = copy.copy(m) if self.fields else m  # per-world model fields: a model copy per thread
      self.workers.append((wm, mujoco.MjData(wm)))
    self.path = None  # [nsub, n, 3] mocap path of the current control step (interpolating families)
    if family == "fetch":
      from mjx_envs.fetch.env import FINGER_CTRL_MAX, REACH_RADIUS  # pylint: disable=import-outside-toplevel

      self.finger_max, self.reach_radius = FINGER_CTRL_MAX, REACH_RADIUS
    elif family == "blocks":
      from mjx_envs.blocks.scene import TABLE_HALF, TABLE_POS, TABLE_Z  # pylint: disable=import-outside-toplevel

      self.lo = np.array([TABLE_POS[0] - TABLE_HALF[0], TABLE_POS[1] - TABLE_HALF[1], TABLE_Z + 0.003])
      self.hi = np.array([TABLE_POS[0] + TABLE_HALF[0], TABLE_POS[1] + TABLE_HALF[1], TABLE_Z + 0.4])

  def random_inputs(self, rng, actions: str) -> np.ndarray:
    """One control step's actions [n, action_size] (hide-and-seek: the motor ctrl of random bins)."""
    if self.family == "hide_and_seek":
      from mjx_envs.hide_and_seek.env import bins_to_ctrl  # pylint: disable=import-outside-toplevel

      k = self.m.nu
      bins = rng.integers(0, 11, (self.n, k)) if actions == "random" else np.full((self.n, k), 5)
      return np.asarray(bins_to_ctrl(bins), np.float64)
    size = self.env.action_size
    return rng.uniform(-1.0, 1.0, (self.n, size)) if actions == "random" else np.zeros((self.n, size))

  def write_inputs(self, a: np.ndarray):
    """The env's inputs of action `a` into the states (and the mocap path), vectorised over the worlds."""
    st, fam = self.state, self.family
    if fam == "hide_and_seek":
      st[:, self.sl_ctrl] = a
      return
    if fam == "hand":  # the servo targets of absolute control (HandReach's default)
      st[:, self.sl_ctrl] = np.asarray(
        jax.vmap(self.env.ctrl_for)(jnp.asarray(st[:, self.sl_qpos]), jnp.asarray(a))
      )
      return
    mpos = st[:, self.sl_mpos].reshape(self.n, -1, 3)
    if fam == "metaworld":
      from mjx_envs.metaworld.sawyer import ACTION_SCALE  # pylint: disable=import-outside-toplevel

      h = self.env.ids.hand_mocap
      mpos[:, h] = np.clip(mpos[:, h] + a[:, :3] * ACTION_SCALE, self.env.mocap_low, self.env.mocap_high)
      st[:, self.sl_mpos] = mpos.reshape(self.n, -1)
      st[:, self.sl_ctrl] = np.stack([a[:, 3], -a[:, 3]], -1)
      return
    g, env = self.env.gripper, self.env
    qpos = st[:, self.sl_qpos]
    tcp = qpos[:, g.free_qpos : g.free_qpos + 3]
    target = tcp + 0.05 * a[:, :3]
    if fam == "fetch":
      c = np.asarray(env.reach_centre, np.float64)
      target = np.maximum(target, [env.reach_x_min, -np.inf, env.reach_z_min])
      r = np.linalg.norm(target - c, axis=-1, keepdims=True)
      target = c + (target - c) * np.minimum(1.0, self.reach_radius / np.maximum(r, 1e-6))
      if getattr(env, "block_gripper", False):
        st[:, self.sl_ctrl] = 0.0
      else:
        st[:, self.sl_ctrl] = np.clip(qpos[:, list(g.finger_qpos)] + a[:, -1:], 0.0, self.finger_max)
    else:
      from mjx_envs.gripper import MAX_OPENING  # pylint: disable=import-outside-toplevel

      target = np.clip(target, self.lo, self.hi)
      st[:, self.sl_ctrl] = ((a[:, -1] + 1.0) * 0.5 * MAX_OPENING)[:, None]
    p0 = mpos[:, g.mocap]
    fracs = (np.arange(1, self.nsub + 1) / self.nsub)[:, None, None]
    self.path = p0[None] + (target - p0)[None] * fracs
    self.path[-1] = target

  def chunk(self, j: int, lo: int, hi: int):
    """Worlds lo..hi-1 on worker j's MjData."""
    m, d = self.workers[j]
    st, spec, nsub, path, fields = self.state, cphysics.SPEC, self.nsub, self.path, self.fields
    mid = self.env.gripper.mocap if path is not None else None
    dpos = d.mocap_pos
    for i in range(lo, hi):
      for name, v in fields.items():
        getattr(m, name)[...] = v[i]
      mujoco.mj_setState(m, d, st[i], spec)
      if path is None:
        mujoco.mj_step(m, d, nsub)
      else:
        for k in range(nsub):
          dpos[mid] = path[k, i]
          mujoco.mj_step(m, d)
      mujoco.mj_getState(m, d, st[i], spec)

  def step(self, a: np.ndarray, executor):
    self.write_inputs(a)
    chunks = len(self.workers)
    if executor is None or chunks <= 1:
      self.chunk(0, 0, self.n)
      return
    bounds = np.linspace(0, self.n, chunks + 1).astype(int)
    jobs = [
      executor.submit(self.chunk, j, lo, hi)
      for j, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:]))
      if hi > lo
    ]
    for job in jobs:
      job.result()


def bench_c_ceiling(groups, threads: int, actions: str, seconds: float, seed: int = 0) -> dict:
  """C MuJoCo stepped directly with `threads` worker threads (`CeilingGroup`): one control step of every
  group in turn (MT10: one group per task, each its own model), repeated for `seconds` after one untimed
  step; the random actions are drawn outside the timed part. Control steps of all worlds per second."""
  from concurrent import futures  # pylint: disable=import-outside-toplevel

  rng = np.random.default_rng(seed)
  executor = futures.ThreadPoolExecutor(threads) if threads > 1 else None
  n = sum(g.n for g in groups)
  try:
    for g in groups:  # warm-up: threads started, pages touched
      g.step(g.random_inputs(rng, actions), executor)
    total, t_run = 0, 0.0
    while t_run < seconds:
      acts = [g.random_inputs(rng, actions) for g in groups]
      t0 = time.perf_counter()
      for g, a in zip(groups, acts):
        g.step(a, executor)
      t_run += time.perf_counter() - t0
      total += 1
  finally:
    if executor is not None:
      executor.shutdown()
  n_sub = groups[0].nsub
  return {
    "batch": n,
    "threads": threads,
    "ctrl_steps": total,
    "run_s": t_run,
    "steps_per_s": n * total / t_run,
    "substeps_per_s": n * total * n_sub / t_run,
  }


# ------------------------------------------------------------------------------------------ main
IMPLS = ("c", "jax", "warp")
DEFAULT_IMPLS = ["c", "jax"]
DEFAULT_STEPS = {"c": 200, "jax": 100, "warp": 100}
DEFAULT_PRIOR_RATE = {"c": 5000.0, "jax": 1000.0, "warp": 1000.0}
DEFAULT_CEILING_BATCH_SIZES = [64, 1024]


def fmt_rate(x):
  if x is None or (isinstance(x, float) and math.isnan(x)):
    return "-"
  return f"{x:,.0f}"


def fmt_ratio(x):
  if x is None or (isinstance(x, float) and math.isnan(x)):
    return "-"
  return f"{x:.2f}" if x < 100 else f"{x:.0f}"


def per_impl(spec, impls, default: dict, kind=float) -> dict:
  """'--steps 100' (every impl) or '--steps c=400,jax=50' (the others keep `default`)."""
  out = {i: default[i] for i in impls}
  if spec in (None, ""):
    return out
  spec = str(spec)
  if "=" not in spec:
    return {i: kind(spec) for i in impls}
  for part in spec.split(","):
    k, _, v = part.partition("=")
    if k.strip() not in IMPLS:
      raise SystemExit(f"unknown impl {k!r} in {spec!r}; choose from {IMPLS}")
    out[k.strip()] = kind(v)
  return out


def multitask_batch(b: int, num_tasks: int) -> int:
  """A multi-task env's batch nearest to `b` with the same worlds per task (at least one each)."""
  return max(1, round(b / num_tasks)) * num_tasks


def comparison_rows(results, ceilings, impls, batch_sizes, envs) -> list:
  """One row per (env, requested batch): each impl's result, the C references, and the ratios."""
  rows = []
  for name in envs:
    ref = ceilings.get(name, {})
    for b in batch_sizes:
      per = {r["impl"]: r for r in results if r["env"] == name and r["requested_batch"] == b}
      row = {
        "env": name,
        "requested_batch": b,
        "batch": next((r["batch"] for r in per.values() if "batch" in r), b),
        "impls": {i: per.get(i) for i in impls},
        "c_1thread_steps_per_s": ref.get("c_1thread", {}).get("c_steps_per_s"),
        "ceiling_threads": ref.get("threads"),
        "c_ceiling_steps_per_s": ref.get("by_batch", {}).get(b, {}).get("steps_per_s"),
      }
      rate = {i: r.get("mjx_steps_per_s") for i, r in per.items() if r and not r.get("skipped")}
      if rate.get("c") and rate.get("jax"):
        row["ratio_c_over_jax"] = rate["c"] / rate["jax"]
      if rate.get("c") and row["c_ceiling_steps_per_s"]:
        row["ratio_c_over_ceiling"] = rate["c"] / row["c_ceiling_steps_per_s"]
      rows.append(row)
  return rows


def markdown_table(table, impls) -> str:
  """The comparison table (`comparison_rows`), and a note per skipped config."""
  threads = next((r["ceiling_threads"] for r in table if r.get("ceiling_threads")), None)
  both = "c" in impls and "jax" in impls
  head = (
    ["env", "batch"]
    + [f"{i} ctrl steps/s" for i in impls]
    + (["c / jax"] if both else [])
    + ["C ceiling 1 thread", f"C ceiling {threads or 'N'} threads"]
    + (["c / ceiling"] if "c" in impls else [])
    + [f"compile s {i}" for i in impls]
    + ["scan steps " + "/".join(impls)]
  )
  rows = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
  notes = []
  for r in table:
    batch = str(r["requested_batch"]) + (f" ({r['batch']})" if r["batch"] != r["requested_batch"] else "")
    cells = [r["env"], batch]
    comp, steps = [], []
    for i in impls:
      x = r["impls"].get(i)
      if not x:
        cells.append("-")
        comp.append("-")
        steps.append("-")
      elif x.get("skipped"):
        cells.append(f"skipped [{len(notes) + 1}]")
        notes.append(f"[{len(notes) + 1}] {r['env']} B={r['requested_batch']} {i}: {x['skipped']}")
        comp.append("-")
        steps.append("-")
      else:
        cells.append(fmt_rate(x["mjx_steps_per_s"]))
        comp.append(f"{x['compile_s']:.1f}" + (" (cache)" if x.get("cache_hit") else ""))
        steps.append(str(x["steps"]))
    if both:
      cells.append(fmt_ratio(r.get("ratio_c_over_jax")))
    cells += [fmt_rate(r.get("c_1thread_steps_per_s")), fmt_rate(r.get("c_ceiling_steps_per_s"))]
    if "c" in impls:
      cells.append(fmt_ratio(r.get("ratio_c_over_ceiling")))
    cells += comp + ["/".join(steps)]
    rows.append("| " + " | ".join(cells) + " |")
  return "\n".join(rows + ([""] + notes if notes else []))


def config_table(configs) -> str:
  rows = [
    "| env | sim_dt (s) | n_substeps | control dt (s) | solver | iterations | ls_iterations | "
    "integrator | cone | nv | ngeom |",
    "|---|---:|---:|---:|---|---:|---:|---|---|---:|---:|",
  ]
  for name, c in configs.items():
    rows.append(
      f"| {name} | {c['sim_dt']:g} | {c['n_substeps']} | {c['control_dt']:g} | {c['solver']} | "
      f"{c['iterations']} | {c['ls_iterations']} | {c['integrator']} | {c['cone']} | {c['nv']} | "
      f"{c['ngeom']} |"
    )
  return "\n".join(rows)


def parse_args(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--envs", default=None, help=f"comma-separated (default: {','.join(DEFAULT_ENVS)})")
  p.add_argument(
    "--impls",
    default=None,
    help=f"comma-separated physics impls, measured side by side, in this column order (default: "
    f"{','.join(DEFAULT_IMPLS)}; with --quick: c)",
  )
  p.add_argument(
    "--batch-sizes",
    default=None,
    help=f"comma-separated (default: {','.join(map(str, DEFAULT_BATCH_SIZES))})",
  )
  p.add_argument(
    "--steps",
    default=None,
    help="control steps per timed scan: N for every impl or e.g. c=400,jax=50 (default "
    + ",".join(f"{k}={v}" for k, v in DEFAULT_STEPS.items())
    + "; --quick: 20)",
  )
  p.add_argument("--min-steps", type=int, default=2, help="fewest scan steps a capped config may use")
  p.add_argument(
    "--max-call-seconds",
    type=float,
    default=10.0,
    help="cap on one timed call; big batches use fewer scan steps to stay under it",
  )
  p.add_argument(
    "--skip-seconds",
    type=float,
    default=60.0,
    help="skip a config whose call is predicted to take longer than this at --min-steps",
  )
  p.add_argument(
    "--prior-rate",
    default=None,
    help="assumed ctrl steps/s for sizing an env's first batch size (before a measurement): a "
    "number for every impl or e.g. c=5000,jax=1000 (default "
    + ",".join(f"{k}={v:g}" for k, v in DEFAULT_PRIOR_RATE.items())
    + ")",
  )
  p.add_argument(
    "--repeats",
    type=int,
    default=3,
    help="timed calls per config (median reported), fewer if over --max-call-seconds",
  )
  p.add_argument("--actions", choices=("random", "zero"), default="random")
  p.add_argument(
    "--c-seconds",
    type=float,
    default=2.0,
    help="seconds of C MuJoCo timing per env (1-thread baseline) and per ceiling batch size",
  )
  p.add_argument("--no-c", action="store_true", help="skip the C MuJoCo baseline and ceiling")
  p.add_argument(
    "--ceiling-batch-sizes",
    default=None,
    help="batch sizes (of --batch-sizes) at which to time the threaded C ceiling, or 'all' "
    f"(default: {','.join(map(str, DEFAULT_CEILING_BATCH_SIZES))})",
  )
  p.add_argument(
    "--ceiling-threads",
    type=int,
    default=0,
    help="threads of the C ceiling (default 0: the C backend's, cphysics.default_threads())",
  )
  p.add_argument(
    "--mt10-jax",
    action="store_true",
    help="also compile MT10 under impl=jax on a CPU (skipped by default: over 40 minutes)",
  )
  p.add_argument(
    "--quick",
    action="store_true",
    help=f"fast subset: envs {','.join(QUICK_ENVS)}, batch sizes "
    f"{','.join(map(str, QUICK_BATCH_SIZES))}, impls c, 20 steps (explicit flags win)",
  )
  p.add_argument(
    "--cache-dir", default=os.path.join(REPO, ".jax_cache"), help="persistent compilation cache ('' disables)"
  )
  p.add_argument("--json", default=None, help="write results to this path")
  p.add_argument("--list", action="store_true", help="list preset env names and exit")
  p.add_argument(
    "--devices",
    type=int,
    default=0,
    help="split each batch over N devices (default 0: on CPU one host device per core, on an "
    "accelerator all of them; the largest count dividing the batch is used)",
  )
  return p.parse_args(argv)


def family_of(reg: str, multi: bool) -> str:
  return (
    "fetch"
    if reg.startswith("Fetch")
    else "hide_and_seek"
    if reg.startswith("HideAndSeek")
    else "metaworld"
    if reg.startswith("metaworld/")
    else "hand"
    if reg.startswith("Hand")
    else "multitask"
    if multi
    else "blocks"
  )


def c_references(bname, reg, env, pool, batch_sizes, ceiling_batches, args) -> dict:
  """The C MuJoCo references of one env (an impl="c" env): the single-thread loop (`bench_c`,
  `bench_c_multitask`) and the threaded ceiling (`bench_c_ceiling`) at each of `ceiling_batches`."""
  multi = hasattr(env, "task_names")
  family = family_of(reg, multi)
  members = env.tasks if multi else [env]
  pools = [reset_pool(t, seed=0) for t in env.tasks] if multi else [pool]
  threads = (
    args.ceiling_threads or getattr(members[0].cphysics, "threads", None) or cphysics.default_threads()
  )
  c1 = (
    bench_c_multitask(env, args.actions, args.c_seconds, pools)
    if multi
    else bench_c(env, family, pool, args.actions, args.c_seconds)
  )
  print(
    f"[{bname}] C MuJoCo, 1 thread: {c1['c_steps_per_s']:,.0f} ctrl steps/s "
    f"({c1['c_substeps_per_s']:,.0f} mj_step/s)",
    file=sys.stderr,
    flush=True,
  )
  out = {"c_1thread": c1, "threads": threads, "by_batch": {}}
  for b in batch_sizes:
    if b not in ceiling_batches:
      continue
    n = multitask_batch(b, env.num_tasks) // env.num_tasks if multi else b
    groups = [
      CeilingGroup(t, "metaworld" if multi else family, p, n, threads) for t, p in zip(members, pools)
    ]
    r = bench_c_ceiling(groups, threads, args.actions, args.c_seconds)
    out["by_batch"][b] = r
    print(
      f"[{bname}] C ceiling B={r['batch']}, {threads} threads: {r['steps_per_s']:,.0f} ctrl steps/s "
      f"({r['substeps_per_s']:,.0f} mj_step/s)",
      file=sys.stderr,
      flush=True,
    )
  return out


def main(argv=None):
  args = parse_args(argv)
  if args.list:
    for k, (name, over) in PRESETS.items():
      print(f"{k}: make({name!r}, **{over})")
    return 0
  envs = args.envs.split(",") if args.envs else (QUICK_ENVS if args.quick else DEFAULT_ENVS)
  impls = args.impls.split(",") if args.impls else (["c"] if args.quick else DEFAULT_IMPLS)
  bad = [i for i in impls if i not in IMPLS] or ([impls] if len(set(impls)) < len(impls) else [])
  if bad:
    raise SystemExit(f"--impls: {bad} (choose distinct ones of {IMPLS})")
  batch_sizes = sorted(
    {int(b) for b in args.batch_sizes.split(",")}
    if args.batch_sizes
    else (QUICK_BATCH_SIZES if args.quick else DEFAULT_BATCH_SIZES)
  )
  ceiling_batches = (
    set(batch_sizes)
    if args.ceiling_batch_sizes == "all"
    else {int(b) for b in args.ceiling_batch_sizes.split(",")}
    if args.ceiling_batch_sizes
    else set(DEFAULT_CEILING_BATCH_SIZES)
  )
  steps = per_impl(args.steps, impls, {i: 20 for i in IMPLS} if args.quick else DEFAULT_STEPS, int)
  prior = per_impl(args.prior_rate, impls, DEFAULT_PRIOR_RATE)
  if args.cache_dir:
    jax.config.update("jax_compilation_cache_dir", args.cache_dir)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
  cache = CacheHits()
  from agents.common import sharding  # pylint: disable=import-outside-toplevel

  sharding.set_cpu_devices(args.devices or sharding.usable_cores())  # before the backend starts
  devices = jax.devices()[: args.devices or None]

  dev = device_info()
  on_cpu = dev["platform"] == "cpu"
  print(
    f"# device: {dev['device']} | platform: {dev['platform']} | kind: {dev['device_kind']} | "
    f"CPU: {dev['cpu_model']} x {dev['cpu_count']} cores",
    flush=True,
  )
  print(f"# jax {dev['jax']}, mujoco {dev['mujoco']}, XLA_FLAGS={dev['xla_flags']!r}", flush=True)
  print(
    f"# envs {envs}, impls {impls}, batch sizes {batch_sizes}, steps {steps} (capped at "
    f"{args.max_call_seconds:g} s per call), actions {args.actions}; C ceiling at "
    f"{sorted(ceiling_batches & set(batch_sizes))}",
    flush=True,
  )

  results, configs, ceilings, t_start = [], {}, {}, time.perf_counter()
  for bname in envs:
    reg, over = resolve(bname)
    # "c" first (its env gives the C references), then the others; the table keeps the --impls order.
    for impl in sorted(impls, key=lambda i: i != "c"):
      base = {"env": bname, "registered": reg, "overrides": over, "impl": impl}
      if impl == "jax" and reg.startswith("MT") and on_cpu and not args.mt10_jax:
        why = "MT10's MJX-JAX programs take over 40 min to compile on a CPU (--mt10-jax runs them)"
        results += [{**base, "requested_batch": b, "skipped": why} for b in batch_sizes]
        print(f"[{bname}] {impl}: skipped: {why}", file=sys.stderr, flush=True)
        continue
      t0 = time.perf_counter()
      env = mjx_envs.make(reg, impl=impl, **over)
      multi = hasattr(env, "task_names")  # MT10: tasks stepped together
      configs.setdefault(bname, model_config(env.tasks[0] if multi else env))
      pool = None if multi else reset_pool(env, seed=0)
      print(
        f"[{bname}] {impl}: made, reset pool of {RESET_POOL} in {time.perf_counter() - t0:.1f} s",
        file=sys.stderr,
        flush=True,
      )
      if not args.no_c and bname not in ceilings:
        c_env = env if impl == "c" else mjx_envs.make(reg, impl="c", **over)
        c_pool = pool if impl == "c" or multi else reset_pool(c_env, seed=0)
        ceilings[bname] = c_references(bname, reg, c_env, c_pool, batch_sizes, ceiling_batches, args)
        del c_env, c_pool
      c = ceilings.get(bname, {}).get("c_1thread", {})
      rate = None  # last measured rate of this impl, to size the next batch (before one: --prior-rate)
      for b in batch_sizes:
        bb = multitask_batch(b, env.num_tasks) if multi else b
        row = {**base, "requested_batch": b, "batch": bb, **c}
        est = rate or prior[impl]
        n = min(steps[impl], max(args.min_steps, int(args.max_call_seconds * est / bb)))
        predicted = n * bb / est
        if predicted > args.skip_seconds:
          row["skipped"] = f"predicted {predicted:.0f} s per call > {args.skip_seconds:g} s"
          print(f"[{bname}] {impl} B={bb}: {row['skipped']}", file=sys.stderr, flush=True)
          results.append(row)
          continue
        try:
          r = (
            bench_multitask(env, bb, n, args.actions, cache, args.repeats, args.max_call_seconds)
            if multi
            else bench_mjx(
              env, pool, bb, n, args.actions, cache, args.repeats, args.max_call_seconds, devices
            )
          )
        except Exception as e:  # pylint: disable=broad-except  (e.g. out of memory)
          row["skipped"] = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
          print(f"[{bname}] {impl} B={bb}: failed: {row['skipped']}", file=sys.stderr, flush=True)
          results.append(row)
          continue
        rate = r["mjx_steps_per_s"]
        row.update(r)
        if c:
          row["ratio_mjx_over_c"] = rate / c["c_steps_per_s"]
        results.append(row)
        print(
          f"[{bname}] {impl} B={bb} N={n} on {r['devices']} device(s): compile {r['compile_s']:.1f} s"
          f"{' (cache hit)' if r['cache_hit'] else ''}, warm-up {r['warmup_s']:.2f} s, "
          f"run {r['run_s']:.2f} s -> {rate:,.0f} ctrl steps/s"
          + (f", {impl}/C(1 thread) {row['ratio_mjx_over_c']:.2f}" if c else ""),
          file=sys.stderr,
          flush=True,
        )
      del env, pool

  total = time.perf_counter() - t_start
  table = comparison_rows(results, ceilings, impls, batch_sizes, envs)
  print()
  print("## Configuration\n")
  print(config_table(configs))
  print("\n## Throughput (control steps per second, all substeps included)\n")
  print(markdown_table(table, impls))
  print(f"\nTotal wall time {total:.0f} s.")
  if args.json:
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
      json.dump(
        {
          "date": datetime.datetime.now().isoformat(timespec="seconds"),
          "argv": sys.argv,
          "device": dev,
          "impls": impls,
          "steps": steps,
          "actions": args.actions,
          "max_call_seconds": args.max_call_seconds,
          "configs": configs,
          "results": results,
          "c_references": ceilings,
          "table": table,
          "total_wall_s": total,
        },
        f,
        indent=1,
        default=str,
      )
    print(f"wrote {args.json}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
