"""Compile time and steps/s of Meta-World's multi-task batches on the C backend: MT10 against MT50, each
as `MultiTask` (every task's code traced on its own) and as `SharedMultiTask` (the shared code traced once;
`mjx_envs/metaworld/shared.py`), side by side in one process, no compilation cache. The meta-learning
benchmarks too (`--envs ML10,ML45`: `MetaLearning` against `SharedMetaLearning`, with RL²'s trials of
`--rl2-episodes`).

For each benchmark and build: the training-wrapped batch (EpisodeLimit, EpisodeStats, AutoReset;
`wrappers.wrap_for_training`), its reset and its step compiled (lowering + XLA compile seconds, StableHLO
lines), then `--steps` steps of random actions in one jitted scan (ctrl steps/s = worlds x steps / s,
the best of `--repeats`).

    python benchmarks/mt_compile.py                                   # MT10, MT50; 2 worlds per task
    python benchmarks/mt_compile.py --envs-per-task 10 --json runs/mt_compile.json
    python benchmarks/mt_compile.py --envs ML10,ML45 --envs-per-task 1 --rl2-episodes 3
    python benchmarks/mt_compile.py --envs MT50 --per-task        # each task's own code in the shared step

`--per-task`: the StableHLO lines of the code the shared batch's step traces once per task (the task's
reward with its reads, on its own worlds), each lowered alone, beside the whole step's lines: what MT50's
program holds that MT10's does not.
"""

from __future__ import annotations

import mjx_envs
from mjx_envs import wrappers

import argparse
import datetime
import functools
import json
import os
import time

import jax
import jax.numpy as jnp

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(
  name: str, shared: bool, envs_per_task: int, steps: int, repeats: int, rl2_episodes: int = 0
) -> dict:
  """One row: compile seconds of the wrapped reset and step, and ctrl steps/s of a scan of `steps`."""
  t0 = time.perf_counter()
  trials = {"rl2_episodes": rl2_episodes} if name.startswith("ML") else {}
  mt = mjx_envs.make(name, envs_per_task=envs_per_task, impl="c", shared_code=shared, **trials)
  env = wrappers.wrap_for_training(mt, mt.num_envs)
  build_s = time.perf_counter() - t0
  key = jax.random.PRNGKey(0)
  t0 = time.perf_counter()
  reset = jax.jit(env.reset).lower(key)
  t1 = time.perf_counter()
  reset = reset.compile()
  t2 = time.perf_counter()
  state = reset(key)
  action = jnp.zeros((mt.num_envs, 4))
  t3 = time.perf_counter()
  lowered = jax.jit(env.step).lower(state, action)
  t4 = time.perf_counter()
  lines = lowered.as_text().count("\n")
  lowered.compile()
  t5 = time.perf_counter()

  @jax.jit
  def run(state, key):
    def body(s, k):
      return env.step(s, jax.random.uniform(k, (mt.num_envs, 4), minval=-1.0, maxval=1.0)), None

    return jax.lax.scan(body, state, jax.random.split(key, steps))[0]

  jax.block_until_ready(run(state, key))  # compile (not reported: the step's compile is above)
  best = float("inf")
  for r in range(repeats):
    t = time.perf_counter()
    state = jax.block_until_ready(run(state, jax.random.PRNGKey(r + 1)))
    best = min(best, time.perf_counter() - t)
  return {
    "env": name,
    "build": type(mt).__name__,
    "worlds": mt.num_envs,
    "build_s": build_s,
    "reset_lower_s": t1 - t0,
    "reset_compile_s": t2 - t1,
    "step_lower_s": t4 - t3,
    "step_compile_s": t5 - t4,
    "step_stablehlo_lines": lines,
    "ctrl_steps_per_s": mt.num_envs * steps / best,
  }


def per_task_lines(name: str, envs_per_task: int) -> dict:
  """{task: StableHLO lines of its per-task step code (`SharedMultiTask.task_reward`: reward and reads on
  its worlds), lowered alone} for a SharedMultiTask batch, plus "_step" (the whole unwrapped step's lines)
  and "_lower_s"."""
  mt = mjx_envs.make(name, envs_per_task=envs_per_task, impl="c", shared_code=True)
  state = jax.jit(mt.reset)(jax.random.PRNGKey(0))
  d, obs = state.pipeline_state, state.obs[:, :39]
  action = jnp.zeros((mt.num_envs, 4))
  out, t0 = {}, time.perf_counter()
  n = mt.envs_per_task
  for i in range(mt.num_tasks):
    s, own = slice(i * n, (i + 1) * n), functools.partial(mt.task_reward, i)
    text = jax.jit(own).lower(d, state.info["ctx"][s], obs[s], action[s]).as_text()
    out[mt.tasks[i].task.name] = text.count("\n")
  out["_lower_s"] = time.perf_counter() - t0
  out["_step"] = jax.jit(mt.step).lower(state, action).as_text().count("\n")
  return out


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--envs", default="MT10,MT50")
  p.add_argument("--envs-per-task", type=int, default=2)
  p.add_argument("--steps", type=int, default=100, help="scan length of the steps/s measurement")
  p.add_argument("--repeats", type=int, default=3)
  p.add_argument("--builds", default="shared,plain", help="shared (SharedMultiTask), plain (MultiTask)")
  p.add_argument("--rl2-episodes", type=int, default=0, help="ML envs: RL² trials of this many episodes")
  p.add_argument("--json", default=None)
  p.add_argument("--per-task", action="store_true", help="each task's own step code, StableHLO lines")
  args = p.parse_args(argv)
  jax.config.update("jax_enable_compilation_cache", False)
  if args.per_task:
    for name in args.envs.split(","):
      lines = per_task_lines(name, args.envs_per_task)
      tasks = {k: v for k, v in lines.items() if not k.startswith("_")}
      print(
        f"{name}: the whole step {lines['_step']:,} StableHLO lines; per-task code {sum(tasks.values()):,} in all"
      )
      for task, n in sorted(tasks.items(), key=lambda kv: -kv[1]):
        print(f"  {task:32s} {n:6,}")
      if args.json:
        with open(args.json, "w") as f:
          json.dump({"env": name, "envs_per_task": args.envs_per_task, "lines": lines}, f, indent=1)
    return
  rows = []
  print(
    "| env | build | worlds | reset: lower + compile s | step: lower + compile s | step StableHLO lines | ctrl steps/s |"
  )
  print("|---|---|---:|---:|---:|---:|---:|")
  for name in args.envs.split(","):
    for build in args.builds.split(","):
      r = measure(name, build == "shared", args.envs_per_task, args.steps, args.repeats, args.rl2_episodes)
      rows.append(r)
      print(
        f"| {r['env']} | {r['build']} | {r['worlds']} | {r['reset_lower_s']:.1f} + {r['reset_compile_s']:.1f} | "
        f"{r['step_lower_s']:.1f} + {r['step_compile_s']:.1f} | {r['step_stablehlo_lines']:,} | "
        f"{r['ctrl_steps_per_s']:,.0f} |",
        flush=True,
      )
  if args.json:
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "args": vars(args)}
    with open(args.json, "w") as f:
      json.dump({"meta": meta, "rows": rows}, f, indent=1)


if __name__ == "__main__":
  main()
