"""Environment throughput: MJX control steps per second vs. plain C MuJoCo on the same model.

For each env and batch size B this jits

    scan(N steps of jax.vmap(env.step)(state, action))      actions: uniform random in [-1, 1] (or zero)

compiles it once (`compile_s`, trace + lower + XLA compile, or a persistent-cache load), runs it once
to warm up, then times a second call with `block_until_ready`. Throughput is B * N / seconds in CONTROL
steps per second; every control step is `env.n_substeps` physics steps, all included.

The same run times plain C MuJoCo on the same `env.mj_model` (single thread, `mujoco.mj_step` called
`env.n_substeps` times per control step, started from an `env.reset` state, the gripper's mocap target
moved by a random action each control step as the env does) and prints MJX / C per batch size.

Meta-World tasks (`metaworld/<task>-v3`) are timed the same way; their C MuJoCo loop moves the hand's mocap
by a[:3] / 100 and sets the finger servos as the env does. `MT10` times the ten tasks stepped together (one
compiled step over ten models; batch sizes that are multiples of 10, B / 10 worlds per task), against C
MuJoCo stepping one world of each task in turn.

Big batches on CPU are slow (XLA:CPU throughput is roughly flat in B), so each config's timed call is
capped at `--max-call-seconds`: the number of scan steps for a batch size is cut using the rate measured
at the previous (smaller) batch size (`--prior-rate` before the first measurement), down to
`--min-steps`; a config whose predicted time at `--min-steps` exceeds `--skip-seconds` is skipped and
reported as such. The timed call is repeated (`--repeats`, while under the cap) and the median kept.

    python benchmarks/env_throughput.py                                  # all default envs
    python benchmarks/env_throughput.py --batch-sizes 1,16,256,1024,4096,8192 --envs BlocksPush-1
    python benchmarks/env_throughput.py --quick
    python benchmarks/env_throughput.py --json runs/throughput.json

Env names: the predefined ones below (`--list`), any registered name (`mjx_envs.registered()`), or a
registered Blocks name with `-K` for K objects (e.g. BlocksPush-2, BlocksStack-3).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import sys
import time

import mjx_envs  # noqa: F401  first: sets the XLA:CPU flag before JAX starts (scan stall at >= 512 envs)
import jax
import jax.numpy as jnp
import mujoco
import numpy as np

from mjx_envs.metaworld.multitask import MT10_TASKS

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
}
DEFAULT_ENVS = list(PRESETS)
QUICK_ENVS = ["BlocksPush-1", "FetchPush"]
DEFAULT_BATCH_SIZES = [1, 16, 64, 256, 1024, 4096]
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
  info = {"device": str(dev), "platform": dev.platform, "device_kind": getattr(dev, "device_kind", ""),
          "jax": jax.__version__, "mujoco": mujoco.__version__, "python": platform.python_version(),
          "cpu_model": cpu_model(), "cpu_count": os.cpu_count(),
          "xla_flags": os.environ.get("XLA_FLAGS", "")}
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
      "sim_dt": float(m.opt.timestep), "n_substeps": int(env.n_substeps), "control_dt": float(env.dt),
      "iterations": int(m.opt.iterations), "ls_iterations": int(m.opt.ls_iterations),
      "solver": mujoco.mjtSolver(m.opt.solver).name.replace("mjSOL_", ""),
      "integrator": mujoco.mjtIntegrator(m.opt.integrator).name.replace("mjINT_", ""),
      "cone": mujoco.mjtCone(m.opt.cone).name.replace("mjCONE_", ""),
      "nq": int(m.nq), "nv": int(m.nv), "nu": int(m.nu), "ngeom": int(m.ngeom),
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
    from agents import sharding  # pylint: disable=import-outside-toplevel
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
          a = {"move": jnp.full_like(a["move"], 5), "grab": jnp.zeros_like(a["grab"]),
               "lock": jnp.zeros_like(a["lock"])}
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
    for k in ("argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes", "alias_size_in_bytes",
              "generated_code_size_in_bytes"):
      if hasattr(mem, k):
        out[k] = int(getattr(mem, k))
    if batch and "argument_size_in_bytes" in out:
      total = (out["argument_size_in_bytes"] + out["output_size_in_bytes"] + out.get("temp_size_in_bytes", 0)
               - out.get("alias_size_in_bytes", 0))
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


def bench_mjx(env, pool, batch: int, num_steps: int, actions: str, cache: CacheHits, repeats: int = 3,
              max_seconds: float = 10.0, devices=None) -> dict:
  """Compiles, warms up and times `num_steps` control steps of `batch` envs (see the module docstring),
  split over `devices` (default: one device). The result includes `xla_stats` of the compiled scan."""
  if devices is not None:
    from agents import sharding  # pylint: disable=import-outside-toplevel
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
  return {"batch": batch, "devices": len(devices) if devices else 1, "steps": num_steps,
          "compile_s": compile_s, "cache_hit": cache_hit,
          "warmup_s": warmup_s, "run_s": run_s, "run_times_s": times, "mjx_steps_per_s": steps / run_s,
          "mjx_substeps_per_s": steps * env.n_substeps / run_s, "diverged_frac": diverged, "xla": xla}


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


def bench_c_hide_and_seek(env, pool, actions: str, seconds: float, seed: int = 0) -> dict:
  """Single-thread C MuJoCo on the same model as the first reset world (its walls, box sizes, joint
  ranges written into a copy of env.mj_model): random movement bins each control step, then
  `n_substeps` mj_step. Physics only: the env's rays (sight, lidar), grab and lock are not in it."""
  import copy  # pylint: disable=import-outside-toplevel
  from mjx_envs.hide_and_seek.env import bins_to_ctrl  # pylint: disable=import-outside-toplevel
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
  return {"c_steps": total, "c_run_s": t_run, "c_steps_per_s": total / t_run,
          "c_substeps_per_s": total * env.n_substeps / t_run}


def bench_c(env, family: str, pool, actions: str, seconds: float, seed: int = 0) -> dict:
  """Single-thread C MuJoCo on env.mj_model: control steps per second, started from a reset state.

  Each control step: the mocap target = tcp + 0.05 * a[:3] (clipped as the env does; Fetch moves it
  linearly over the substeps, as its env does), the finger ctrl from a[-1] (Fetch: the finger position + a[-1]), then `n_substeps` mj_step.
  """
  if family == "hide_and_seek":
    return bench_c_hide_and_seek(env, pool, actions, seconds, seed)
  if family == "metaworld":
    return bench_c_metaworld(env, pool, actions, seconds, seed)
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
  from mjx_envs.gripper import MAX_OPENING  # pylint: disable=import-outside-toplevel
  from mjx_envs.fetch.env import FINGER_CTRL_MAX  # pylint: disable=import-outside-toplevel
  rng = np.random.default_rng(seed)
  chunk = 50
  n_sub = env.n_substeps
  fracs = np.arange(1, n_sub + 1) / n_sub
  total, t_run = 0, 0.0
  while t_run < seconds:
    acts = (rng.uniform(-1.0, 1.0, (chunk, env.action_size)) if actions == "random"
            else np.zeros((chunk, env.action_size)))
    t0 = time.perf_counter()
    for a in acts:
      tcp = d.qpos[g.free_qpos:g.free_qpos + 3]
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
      d = mjx.get_data(m, first)
      mujoco.mj_forward(m, d)
  return {"c_steps": total, "c_run_s": t_run, "c_steps_per_s": total / t_run,
          "c_substeps_per_s": total * n_sub / t_run}


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
    acts = (rng.uniform(-1.0, 1.0, (chunk, 4)) if actions == "random" else np.zeros((chunk, 4)))
    t0 = time.perf_counter()
    for a in acts:
      d.mocap_pos[hand] = np.clip(d.mocap_pos[hand] + a[:3] * ACTION_SCALE, env.mocap_low, env.mocap_high)
      d.ctrl[:] = (a[3], -a[3])
      for _ in range(env.n_substeps):
        mujoco.mj_step(m, d)
    t_run += time.perf_counter() - t0
    total += chunk
  return {"c_steps": total, "c_run_s": t_run, "c_steps_per_s": total / t_run,
          "c_substeps_per_s": total * env.n_substeps / t_run}


def bench_c_multitask(env, actions: str, seconds: float) -> dict:
  """C MuJoCo over a multi-task env's tasks, an equal share of `seconds` each: control steps of all tasks
  per second of all tasks (the single-thread cost of stepping one world of each task in turn)."""
  rows = [bench_c_metaworld(t, reset_pool(t, seed=0), actions, seconds / env.num_tasks) for t in env.tasks]
  steps, secs = sum(r["c_steps"] for r in rows), sum(r["c_run_s"] for r in rows)
  n_sub = env.tasks[0].n_substeps
  return {"c_steps": steps, "c_run_s": secs, "c_steps_per_s": steps / secs, "c_substeps_per_s": steps * n_sub / secs}


def bench_multitask(env, batch: int, num_steps: int, actions: str, cache: CacheHits, repeats: int = 3,
                    max_seconds: float = 10.0) -> dict:
  """`bench_mjx` for a multi-task env (MT10): `batch` worlds, batch / num_tasks per task, all tasks in one
  compiled step (each task's vmapped batch on its own model), one device."""
  n = batch // env.num_tasks
  mt = env.with_members(lambda e: mjx_envs.wrappers.Batch(e, n), n)
  state = jax.block_until_ready(jax.jit(mt.reset)(jax.random.PRNGKey(0)))

  @jax.jit
  def rollout(state, key):
    def body(s, k):
      a = (jax.random.uniform(k, (mt.num_envs, mt.action_size), minval=-1.0, maxval=1.0)
           if actions == "random" else jnp.zeros((mt.num_envs, mt.action_size)))
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
  return {"batch": mt.num_envs, "devices": 1, "steps": num_steps, "compile_s": compile_s,
          "cache_hit": (cache.hits > hits0) if cache.available else None, "warmup_s": warmup_s,
          "run_s": run_s, "run_times_s": times, "mjx_steps_per_s": steps / run_s,
          "mjx_substeps_per_s": steps * env.tasks[0].n_substeps / run_s,
          "diverged_frac": float(jnp.mean(out.info["diverged"])), "xla": {}}


# ------------------------------------------------------------------------------------------ main
def fmt_rate(x):
  if x is None or (isinstance(x, float) and math.isnan(x)):
    return "-"
  return f"{x:,.0f}"


def markdown_table(results) -> str:
  rows = ["| env | batch | scan steps | compile s | MJX ctrl steps/s | C ctrl steps/s (1 thread) | MJX / C |",
          "|---|---:|---:|---:|---:|---:|---:|"]
  for r in results:
    if r.get("skipped"):
      rows.append(f"| {r['env']} | {r['batch']} | - | - | skipped: {r['skipped']} | "
                  f"{fmt_rate(r.get('c_steps_per_s'))} | - |")
      continue
    comp = f"{r['compile_s']:.1f}" + (" (cache)" if r.get("cache_hit") else "")
    ratio = f"{r['ratio_mjx_over_c']:.2f}" if "ratio_mjx_over_c" in r else "-"
    rows.append(f"| {r['env']} | {r['batch']} | {r['steps']} | {comp} | {fmt_rate(r['mjx_steps_per_s'])} | "
                f"{fmt_rate(r.get('c_steps_per_s'))} | {ratio} |")
  return "\n".join(rows)


def config_table(configs) -> str:
  rows = ["| env | sim_dt (s) | n_substeps | control dt (s) | solver | iterations | ls_iterations | "
          "integrator | cone | nv | ngeom |",
          "|---|---:|---:|---:|---|---:|---:|---|---|---:|---:|"]
  for name, c in configs.items():
    rows.append(f"| {name} | {c['sim_dt']:g} | {c['n_substeps']} | {c['control_dt']:g} | {c['solver']} | "
                f"{c['iterations']} | {c['ls_iterations']} | {c['integrator']} | {c['cone']} | {c['nv']} | "
                f"{c['ngeom']} |")
  return "\n".join(rows)


def parse_args(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--envs", default=None, help=f"comma-separated (default: {','.join(DEFAULT_ENVS)})")
  p.add_argument("--batch-sizes", default=None,
                 help=f"comma-separated (default: {','.join(map(str, DEFAULT_BATCH_SIZES))})")
  p.add_argument("--steps", type=int, default=None, help="control steps per timed scan (default 100)")
  p.add_argument("--min-steps", type=int, default=2, help="fewest scan steps a capped config may use")
  p.add_argument("--max-call-seconds", type=float, default=10.0,
                 help="cap on one timed call; big batches use fewer scan steps to stay under it")
  p.add_argument("--skip-seconds", type=float, default=60.0,
                 help="skip a config whose call is predicted to take longer than this at --min-steps")
  p.add_argument("--prior-rate", type=float, default=1000.0,
                 help="assumed MJX ctrl steps/s for sizing an env's first batch size (before a measurement)")
  p.add_argument("--repeats", type=int, default=3,
                 help="timed calls per config (median reported), fewer if over --max-call-seconds")
  p.add_argument("--actions", choices=("random", "zero"), default="random")
  p.add_argument("--c-seconds", type=float, default=2.0, help="seconds of C MuJoCo timing per env")
  p.add_argument("--no-c", action="store_true", help="skip the C MuJoCo baseline")
  p.add_argument("--quick", action="store_true",
                 help=f"fast subset: envs {','.join(QUICK_ENVS)}, batch sizes "
                      f"{','.join(map(str, QUICK_BATCH_SIZES))}, 20 steps (explicit flags win)")
  p.add_argument("--cache-dir", default=os.path.join(REPO, ".jax_cache"),
                 help="persistent compilation cache ('' disables)")
  p.add_argument("--json", default=None, help="write results to this path")
  p.add_argument("--list", action="store_true", help="list preset env names and exit")
  p.add_argument("--devices", type=int, default=0,
                 help="split each batch over N devices (default 0: on CPU one host device per core, on an "
                      "accelerator all of them; the largest count dividing the batch is used)")
  return p.parse_args(argv)


def main(argv=None):
  args = parse_args(argv)
  if args.list:
    for k, (name, over) in PRESETS.items():
      print(f"{k}: make({name!r}, **{over})")
    return 0
  envs = (args.envs.split(",") if args.envs else (QUICK_ENVS if args.quick else DEFAULT_ENVS))
  batch_sizes = sorted({int(b) for b in args.batch_sizes.split(",")} if args.batch_sizes else
                       (QUICK_BATCH_SIZES if args.quick else DEFAULT_BATCH_SIZES))
  steps = args.steps or (20 if args.quick else 100)
  if args.cache_dir:
    jax.config.update("jax_compilation_cache_dir", args.cache_dir)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
  cache = CacheHits()
  from agents import sharding  # pylint: disable=import-outside-toplevel
  sharding.set_cpu_devices(args.devices or sharding.usable_cores())  # before the backend starts
  devices = jax.devices()[:args.devices or None]

  dev = device_info()
  print(f"# device: {dev['device']} | platform: {dev['platform']} | kind: {dev['device_kind']} | "
        f"CPU: {dev['cpu_model']} x {dev['cpu_count']} cores", flush=True)
  print(f"# jax {dev['jax']}, mujoco {dev['mujoco']}, XLA_FLAGS={dev['xla_flags']!r}", flush=True)
  print(f"# envs {envs}, batch sizes {batch_sizes}, steps {steps} (capped at {args.max_call_seconds:g} s "
        f"per call), actions {args.actions}", flush=True)

  results, configs, t_start = [], {}, time.perf_counter()
  for bname in envs:
    reg, over = resolve(bname)
    env = mjx_envs.make(reg, **over)
    multi = hasattr(env, "with_members")  # MT10: tasks stepped together
    family = ("fetch" if reg.startswith("Fetch") else "hide_and_seek" if reg.startswith("HideAndSeek")
              else "metaworld" if reg.startswith("metaworld/") else "multitask" if multi else "blocks")
    configs[bname] = model_config(env.tasks[0] if multi else env)
    t0 = time.perf_counter()
    pool = None if multi else reset_pool(env, seed=0)
    print(f"[{bname}] reset pool of {RESET_POOL} in {time.perf_counter() - t0:.1f} s", file=sys.stderr,
          flush=True)
    c = {}
    if not args.no_c:
      c = (bench_c_multitask(env, args.actions, args.c_seconds) if multi
           else bench_c(env, family, pool, args.actions, args.c_seconds))
      print(f"[{bname}] C MuJoCo: {c['c_steps_per_s']:,.0f} ctrl steps/s "
            f"({c['c_substeps_per_s']:,.0f} mj_step/s)", file=sys.stderr, flush=True)
    rate = None  # last measured MJX rate, to size the next batch (before one: --prior-rate)
    for b in batch_sizes:
      row = {"env": bname, "registered": reg, "overrides": over, "batch": b, **c}
      est = rate or args.prior_rate
      n = min(steps, max(args.min_steps, int(args.max_call_seconds * est / b)))
      predicted = n * b / est
      if predicted > args.skip_seconds:
        row["skipped"] = f"predicted {predicted:.0f} s per call > {args.skip_seconds:g} s"
        print(f"[{bname}] B={b}: {row['skipped']}", file=sys.stderr, flush=True)
        results.append(row)
        continue
      if multi and b % env.num_tasks:
        row["skipped"] = f"batch {b} is not a multiple of the {env.num_tasks} tasks"
        results.append(row)
        continue
      try:
        r = (bench_multitask(env, b, n, args.actions, cache, args.repeats, args.max_call_seconds) if multi
             else bench_mjx(env, pool, b, n, args.actions, cache, args.repeats, args.max_call_seconds, devices))
      except Exception as e:  # pylint: disable=broad-except  (e.g. out of memory)
        row["skipped"] = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
        print(f"[{bname}] B={b}: failed: {row['skipped']}", file=sys.stderr, flush=True)
        results.append(row)
        continue
      rate = r["mjx_steps_per_s"]
      row.update(r)
      if c:
        row["ratio_mjx_over_c"] = rate / c["c_steps_per_s"]
      results.append(row)
      print(f"[{bname}] B={b} N={n} on {r['devices']} device(s): compile {r['compile_s']:.1f} s"
            f"{' (cache hit)' if r['cache_hit'] else ''}, warm-up {r['warmup_s']:.2f} s, "
            f"run {r['run_s']:.2f} s -> {rate:,.0f} ctrl steps/s"
            + (f", MJX/C {row['ratio_mjx_over_c']:.2f}" if c else ""), file=sys.stderr, flush=True)

  total = time.perf_counter() - t_start
  print()
  print("## Configuration\n")
  print(config_table(configs))
  print("\n## Throughput (control steps per second, all substeps included)\n")
  print(markdown_table(results))
  print(f"\nTotal wall time {total:.0f} s.")
  if args.json:
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
      json.dump({"date": datetime.datetime.now().isoformat(timespec="seconds"), "argv": sys.argv,
                 "device": dev, "steps": steps, "actions": args.actions,
                 "max_call_seconds": args.max_call_seconds, "configs": configs, "results": results,
                 "total_wall_s": total}, f, indent=1, default=str)
    print(f"wrote {args.json}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
