"""Env steps/s of the reference packages CPU users run today (for BENCHMARKS.md).

Run INSIDE one of the side venvs below, never the project's own venv (their mujoco
versions clash with it); this file imports nothing from the project:

    /tmp/venvs/fetch/bin/python     benchmarks/reference_throughput.py fetch     [--steps N]
    /tmp/venvs/metaworld/bin/python benchmarks/reference_throughput.py metaworld [--steps N]
    /tmp/venvs/envpool/bin/python   benchmarks/reference_throughput.py envpool   [--steps N]

How the venvs are made (the recipes of scripts/make_fetch_reference.py and
scripts/make_metaworld_reference.py, placed under /tmp/venvs/; Python 3.11):

    python3.11 -m venv /tmp/venvs/fetch
    /tmp/venvs/fetch/bin/pip install "mujoco==3.3.7" "gymnasium-robotics==1.4.2" \
        "gymnasium==1.4.0" "numpy==2.4.6"

    python3.11 -m venv /tmp/venvs/metaworld
    /tmp/venvs/metaworld/bin/pip install "metaworld==3.1.1" packaging   # pulls mujoco 3.3.0

    python3.11 -m venv /tmp/venvs/envpool
    /tmp/venvs/envpool/bin/pip install "envpool==1.2.5"   # MuJoCo 3.6.0 linked into its .so

What is measured (all on CPU, random actions drawn from a seeded numpy generator
ahead of the timed loop, episode resets inside the timed loop):

fetch      gymnasium-robotics ``FetchPush-v4`` (20 physics substeps of 2 ms per env step,
           50-step episodes): one env stepped in a Python loop (``env.reset()`` when an
           episode ends), and ``gymnasium.vector.SyncVectorEnv`` / ``AsyncVectorEnv`` with
           2 envs (Async: 2 worker processes), autoreset_mode SAME_STEP.
metaworld  metaworld 3.1.1: MT10 built the README's way,
           ``gymnasium.make_vec('Meta-World/MT10', vector_strategy='sync'|'async', seed=42)``
           (one env per task, 10 envs; async = 10 worker processes), and the single task
           ``gymnasium.make('Meta-World/MT1', env_name='drawer-open-v3', seed=42)`` stepped
           in a Python loop.  5 substeps of 2.5 ms per env step, 500-step episodes.
envpool    EnvPool's native C++ Meta-World v3 (``envpool.make_gymnasium('MetaWorld/...')``),
           stepped through its Python API (``env.step``): single tasks (drawer-open, reach,
           pick-place) with 8 envs on 1 and 2 threads, and MT10 as ten pools (one per MT10
           task, 8 envs each, ``num_threads=2`` each): "seq" steps the pools one after the
           other (2 threads busy at a time), "overlap" sends actions to all ten pools first
           and then receives from all ten.

``steps`` in the output counts env steps (one action applied to one env), summed over
the envs of a vector env or pool; each measurement runs ``--reps`` times after a warm-up
and prints one JSON line per repetition plus a ``"stat": "median"`` line.  ``loadavg``
is the 1-minute load average at the start of the repetition (other work may share
the cores); ``cpu_seconds`` / ``env_steps_per_cpu_s`` use ``time.process_time()`` of
this process (all its threads; NOT the worker processes of AsyncVectorEnv), which is
less sensitive than wall time to other work on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
import warnings
from importlib import metadata as importlib_metadata

import numpy as np

warnings.filterwarnings("ignore")

MT10_TASKS = [
  "reach-v3",
  "push-v3",
  "pick-place-v3",
  "door-open-v3",
  "drawer-open-v3",
  "drawer-close-v3",
  "button-press-topdown-v3",
  "peg-insert-side-v3",
  "window-open-v3",
  "window-close-v3",
]
N_ACTION_BLOCK = 1024


def _version(dist: str) -> str:
  try:
    return importlib_metadata.version(dist)
  except importlib_metadata.PackageNotFoundError:
    return "n/a"


def _actions(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
  """A block of uniform random actions in [-1, 1], cycled by the timed loops."""
  return rng.uniform(-1.0, 1.0, size=(N_ACTION_BLOCK, *shape)).astype(np.float32)


def _emit(base: dict, rates: list[dict]) -> None:
  for i, r in enumerate(rates):
    print(json.dumps({**base, "rep": i, **r}), flush=True)
  med = statistics.median(r["env_steps_per_s"] for r in rates)
  cpus = [r["env_steps_per_cpu_s"] for r in rates if r["env_steps_per_cpu_s"]]
  if base.get("workers"):  # the work runs in worker processes: this process's CPU time says nothing
    cpus = []
  print(
    json.dumps(
      {
        **base,
        "stat": "median",
        "reps": len(rates),
        "env_steps_per_s": round(med, 1),
        "all_env_steps_per_s": [round(r["env_steps_per_s"], 1) for r in rates],
        "env_steps_per_cpu_s": round(statistics.median(cpus), 1) if cpus else None,
        "loadavg": [round(r["loadavg"], 2) for r in rates],
      }
    ),
    flush=True,
  )


def _run_reps(step_fn, n_iters: int, envs_per_iter: int, reps: int, warmup: int) -> list[dict]:
  """Time ``step_fn(i)`` for ``n_iters`` iterations, ``reps`` times, after ``warmup`` iterations."""
  for i in range(warmup):
    step_fn(i)
  out = []
  for _ in range(reps):
    load = os.getloadavg()[0]
    c0, t0 = time.process_time(), time.perf_counter()
    for i in range(n_iters):
      step_fn(i)
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    steps = n_iters * envs_per_iter
    out.append(
      {
        "steps": steps,
        "seconds": round(dt, 4),
        "env_steps_per_s": steps / dt,
        "cpu_seconds": round(cpu, 4),
        "env_steps_per_cpu_s": steps / cpu if cpu > 0 else None,
        "loadavg": load,
      }
    )
  return out


def _common(package: str, mujoco_version: str) -> dict:
  return {
    "package": package,
    "version": _version(package),
    "mujoco": mujoco_version,
    "python": platform.python_version(),
    "cpus": os.cpu_count(),
    "date": time.strftime("%Y-%m-%d"),
  }


# --------------------------------------------------------------------------- fetch
def _bench_vector(venv, seed, rng, args, record) -> None:
  """Times `venv.step` on random actions (`record`: the JSON line's fields), then closes `venv`."""
  n = venv.num_envs
  venv.reset(seed=seed)
  vacts = _actions(rng, venv.action_space.shape)

  def step_vec(i):
    venv.step(vacts[i % N_ACTION_BLOCK])

  iters = max(1, args.steps // n)
  _emit(record, _run_reps(step_vec, iters, n, args.reps, max(1, args.warmup // n)))
  venv.close()


def bench_fetch(args) -> None:
  import gymnasium as gym
  import gymnasium_robotics
  import mujoco

  gym.register_envs(gymnasium_robotics)
  env_id = "FetchPush-v4"
  common = _common("gymnasium-robotics", mujoco.__version__)
  common["gymnasium"] = _version("gymnasium")
  rng = np.random.default_rng(0)

  # Single env, plain Python loop.
  env = gym.make(env_id)
  env.reset(seed=0)
  substeps = int(env.unwrapped.n_substeps)
  acts = _actions(rng, env.action_space.shape)

  def step_single(i):
    _, _, term, trunc, _ = env.step(acts[i % N_ACTION_BLOCK])
    if term or trunc:
      env.reset()

  rates = _run_reps(step_single, args.steps, 1, args.reps, args.warmup)
  _emit(
    {
      **common,
      "env": env_id,
      "mode": "python-loop",
      "num_envs": 1,
      "threads": 1,
      "workers": 0,
      "substeps_per_env_step": substeps,
    },
    rates,
  )
  env.close()

  # gymnasium vector envs, 2 envs.
  n = 2
  for name, cls in (
    ("SyncVectorEnv", gym.vector.SyncVectorEnv),
    ("AsyncVectorEnv", gym.vector.AsyncVectorEnv),
  ):
    try:
      venv = cls(
        [lambda: gym.make(env_id) for _ in range(n)], autoreset_mode=gym.vector.AutoresetMode.SAME_STEP
      )
      _bench_vector(
        venv,
        0,
        rng,
        args,
        {
          **common,
          "env": env_id,
          "mode": name,
          "num_envs": n,
          "threads": 1 if name == "SyncVectorEnv" else n,
          "workers": 0 if name == "SyncVectorEnv" else n,
          "substeps_per_env_step": substeps,
        },
      )
    except Exception as e:  # report, keep going
      print(json.dumps({**common, "env": env_id, "mode": name, "error": repr(e)}), flush=True)


# ----------------------------------------------------------------------- metaworld
def bench_metaworld(args) -> None:
  import gymnasium as gym
  import metaworld  # noqa: F401  (registers the Meta-World/* ids)
  import mujoco

  common = _common("metaworld", mujoco.__version__)
  common["gymnasium"] = _version("gymnasium")
  rng = np.random.default_rng(0)

  # MT10 the README's way: one env per task in a gymnasium vector env.
  for strategy in ("sync", "async"):
    try:
      venv = gym.make_vec("Meta-World/MT10", vector_strategy=strategy, seed=42)
      n = venv.num_envs
      _bench_vector(
        venv,
        42,
        rng,
        args,
        {
          **common,
          "env": "Meta-World/MT10",
          "mode": f"make_vec-{strategy}",
          "num_envs": n,
          "threads": 1 if strategy == "sync" else n,
          "workers": 0 if strategy == "sync" else n,
          "substeps_per_env_step": 5,
        },
      )
    except Exception as e:
      print(
        json.dumps({**common, "env": "Meta-World/MT10", "mode": f"make_vec-{strategy}", "error": repr(e)}),
        flush=True,
      )

  # Single task in a plain Python loop.
  for task in args.mw_tasks:
    env = gym.make("Meta-World/MT1", env_name=task, seed=42)
    env.reset(seed=42)
    substeps = int(env.unwrapped.frame_skip)
    acts = _actions(rng, env.action_space.shape)

    def step_single(i, env=env, acts=acts):
      _, _, term, trunc, _ = env.step(acts[i % N_ACTION_BLOCK])
      if term or trunc:
        env.reset()

    rates = _run_reps(step_single, args.steps, 1, args.reps, args.warmup)
    _emit(
      {
        **common,
        "env": f"Meta-World/MT1:{task}",
        "mode": "python-loop",
        "num_envs": 1,
        "threads": 1,
        "workers": 0,
        "substeps_per_env_step": substeps,
      },
      rates,
    )
    env.close()


# ------------------------------------------------------------------------- envpool
def _envpool_mujoco_version() -> str:
  """MuJoCo is linked into EnvPool's extension; ask it through MuJoCo's C API."""
  try:
    import ctypes

    import envpool.mujoco as epm

    lib = ctypes.CDLL(os.path.join(os.path.dirname(epm.__file__), "robotics_envpool.so"))
    lib.mj_versionString.restype = ctypes.c_char_p
    return lib.mj_versionString().decode()
  except Exception:
    return "n/a"


def _ep_id(task: str) -> str:
  name, ver = task.rsplit("-", 1)
  return "MetaWorld/" + "".join(p[:1].upper() + p[1:] for p in name.split("-")) + "-" + ver


def bench_envpool(args) -> None:
  import envpool

  common = _common("envpool", _envpool_mujoco_version())
  rng = np.random.default_rng(0)
  n = args.envpool_envs

  # Single tasks, 1 and 2 threads.
  for task in args.ep_tasks:
    for threads in (1, 2):
      env = envpool.make_gymnasium(_ep_id(task), num_envs=n, num_threads=threads, seed=42)
      env.reset()
      acts = _actions(rng, (n, *env.action_space.shape))
      substeps = int(env.config["frame_skip"])

      def step_pool(i, env=env, acts=acts):
        env.step(acts[i % N_ACTION_BLOCK])

      iters = max(1, args.steps // n)
      rates = _run_reps(step_pool, iters, n, args.reps, max(1, args.warmup // n))
      _emit(
        {
          **common,
          "env": _ep_id(task),
          "mode": "pool-step",
          "num_envs": n,
          "threads": threads,
          "workers": 0,
          "substeps_per_env_step": substeps,
        },
        rates,
      )
      env.close()

  # MT10: ten pools, one per task, n envs each, 2 threads each.
  threads = 2
  pools = [
    envpool.make_gymnasium(_ep_id(t), num_envs=n, num_threads=threads, seed=42 + k)
    for k, t in enumerate(MT10_TASKS)
  ]
  for p in pools:
    p.reset()
  acts = _actions(rng, (len(pools), n, *pools[0].action_space.shape))
  env_ids = [np.arange(n, dtype=np.int32) for _ in pools]

  def step_seq(i):
    a = acts[i % N_ACTION_BLOCK]
    for k, p in enumerate(pools):
      p.step(a[k])

  def step_overlap(i):
    a = acts[i % N_ACTION_BLOCK]
    for k, p in enumerate(pools):
      p.send(a[k], env_ids[k])
    for p in pools:
      p.recv()

  iters = max(1, args.steps // (n * len(pools)))
  for mode, fn in (("mt10-seq", step_seq), ("mt10-overlap", step_overlap)):
    rates = _run_reps(fn, iters, n * len(pools), args.reps, max(1, args.warmup // (n * len(pools))))
    _emit(
      {
        **common,
        "env": "MetaWorld MT10 (10 pools)",
        "mode": mode,
        "num_envs": n * len(pools),
        "envs_per_task": n,
        "threads": threads,
        "workers": 0,
        "substeps_per_env_step": int(pools[0].config["frame_skip"]),
      },
      rates,
    )
  for p in pools:
    p.close()


def main() -> None:
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("suite", choices=["fetch", "metaworld", "envpool"])
  ap.add_argument("--steps", type=int, default=6000, help="env steps per repetition (summed over envs)")
  ap.add_argument("--reps", type=int, default=3)
  ap.add_argument("--warmup", type=int, default=500, help="env steps before timing")
  ap.add_argument("--mw-tasks", nargs="+", default=["drawer-open-v3"])
  ap.add_argument("--ep-tasks", nargs="+", default=["drawer-open-v3", "reach-v3", "pick-place-v3"])
  ap.add_argument("--envpool-envs", type=int, default=8, help="envs per pool (per task)")
  args = ap.parse_args()
  {"fetch": bench_fetch, "metaworld": bench_metaworld, "envpool": bench_envpool}[args.suite](args)


if __name__ == "__main__":
  sys.exit(main())
