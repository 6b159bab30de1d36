"""The GPU suite: every figure that matters, in resumable parts that each fit a short GPU slot.

    python -m benchmarks.suite --out DIR                      # all unfinished parts, 9 minutes at most
    python -m benchmarks.suite --out DIR --budget-min 8 --part throughput-BlocksPush-1 --part train
    python -m benchmarks.suite --out DIR --list               # the parts and where each stands
    python -m benchmarks.suite --out DIR --report             # rewrite results.json / results.md only
    python -m benchmarks.suite --out DIR --size tiny          # seconds-sized, what tests/test_suite.py runs

Parts, in the order they run (the ones with a target first):
  throughput-<env>   MJX control steps/s of `jax.vmap(env.step)` in a scan (benchmarks/env_throughput.py),
                     at batch sizes 1024 x 4^k up to the first that does not fit in memory (the XLA
                     RESOURCE_EXHAUSTED error is recorded as the stopping point), with compile time, XLA's
                     memory per env and cost analysis (flops, bytes accessed), and a single-thread C MuJoCo
                     baseline. One per entry of THROUGHPUT; every registered env family must have one.
  ppo_vs_brax-<env>  our PPO against Brax's PPO in one process (benchmarks/ppo_vs_brax.py): training
                     steps/s, their ratio, and evaluation success at the same env steps.
  train-<config>     a headline training run: `train.py --config X --out DIR/runs/X --set
                     run.max_minutes=M --no-progress` as a subprocess, `--resume`d by a later invocation
                     while it has training budget left; reads its metrics.jsonl (time to the target,
                     final success, steps/s, compile times). One per entry of HEADLINE; a config that does
                     not exist yet is skipped with a note.

Resuming. Each part writes DIR/<part>.json atomically after every step of work (a throughput batch
size, a training session), so a killed run keeps what it had. A finished part is skipped (`--force`
redoes it); a partial one continues (the next batch size, `train.py --resume`). `--budget-min` bounds the
invocation: before each step of work the suite estimates its time (from what it has measured, else a
prior) and stops starting work that would not fit, and says what is left; the first step of an
invocation always runs, so every invocation makes progress. DIR/results.json merges every part;
DIR/results.md is the markdown (targets met / missed, then each part's table).

Targets (one H100): BlocksPush with 1 block >= 1,000,000 control steps/s at its best batch size; our
PPO >= 1.2x Brax PPO's training steps/s on FetchReach; FetchReach PPO to 0.9 eval success in under a
minute including compile. `--trace` also writes jax.profiler traces under DIR/trace/ (the best batch
size of each throughput part, one training chunk of our PPO).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import functools
import importlib.metadata
import json
import math
import os
import platform
import subprocess
import sys
import time
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
  sys.path.insert(0, REPO)

import mjx_envs

import jax
import numpy as np

from benchmarks import env_throughput as et

CONFIG_DIR = os.path.join(REPO, "configs")


# ------------------------------------------------------------------------------------------ registries
@dataclasses.dataclass(frozen=True)
class ThroughputEnv:
  """An env to measure: an env_throughput name (preset, registered, or `Blocks*-K` for K objects)."""

  name: str
  target_sps: float | None = None  # control steps/s at the best batch size (one H100)


@dataclasses.dataclass(frozen=True)
class PPOvsBrax:
  """A `benchmarks/ppo_vs_brax.py` comparison; `args[size]` are its command-line arguments."""

  env: str
  args: dict[str, tuple[str, ...]]
  target_ratio: float | None = None  # ours / Brax training steps/s


@dataclasses.dataclass(frozen=True)
class HeadlineRun:
  """A training run of configs/<config>.py through train.py.

  `budget_min`: training minutes in all (run.max_minutes, summed over invocations); the part is done when
  the run finishes or has used its budget. `target`: (metric, value) whose first crossing is timed;
  `target_minutes`: met if that crossing comes within this many minutes including compile. `sets`:
  `--set` overrides at sizes full and cpu; `tiny`: the overrides of `--size tiny` (seconds of training).
  """

  config: str
  target: tuple[str, float] | None = ("eval/success_rate", 0.9)
  budget_min: float = 7.0
  target_minutes: float | None = None
  sets: tuple[str, ...] = ()
  tiny: tuple[str, ...] = ()


# Throughput: every registered env family needs an entry (tests/test_suite.py checks); a new family
# adds its envs here.
THROUGHPUT = [
  ThroughputEnv("BlocksPush-1", target_sps=1_000_000),
  ThroughputEnv("FetchPush"),
  ThroughputEnv("BlocksPush-4"),
  ThroughputEnv("FetchReach"),
  ThroughputEnv("HideAndSeekQuadrant"),
  ThroughputEnv("metaworld/push-v3"),
  ThroughputEnv("HandReach"),
]

_PPO_TINY = (
  "--steps",
  "240",
  "--num-envs",
  "8",
  "--unroll",
  "5",
  "--minibatches",
  "2",
  "--epochs",
  "1",
  "--evals",
  "3",
  "--eval-envs",
  "8",
)
PPO_VS_BRAX = [
  PPOvsBrax(
    "FetchReach",
    target_ratio=1.2,
    args={
      "full": (
        "--steps",
        "4000000",
        "--num-envs",
        "2048",
        "--unroll",
        "10",
        "--minibatches",
        "8",
        "--epochs",
        "4",
        "--evals",
        "6",
        "--eval-envs",
        "1024",
      ),
      "cpu": (
        "--steps",
        "60000",
        "--num-envs",
        "128",
        "--unroll",
        "10",
        "--minibatches",
        "4",
        "--epochs",
        "4",
        "--evals",
        "4",
        "--eval-envs",
        "64",
      ),
      "tiny": _PPO_TINY,
    },
  ),
  PPOvsBrax(
    "BlocksPush",
    args={
      "full": (
        "--steps",
        "4000000",
        "--num-envs",
        "2048",
        "--unroll",
        "20",
        "--minibatches",
        "8",
        "--epochs",
        "3",
        "--evals",
        "6",
        "--eval-envs",
        "512",
      ),
      "cpu": (
        "--steps",
        "20000",
        "--num-envs",
        "64",
        "--unroll",
        "20",
        "--minibatches",
        "4",
        "--epochs",
        "3",
        "--evals",
        "4",
        "--eval-envs",
        "32",
      ),
      "tiny": _PPO_TINY,
    },
  ),
]

_TINY_PPO = (
  "agent.num_envs=16",
  "agent.unroll_length=5",
  "run.eval_every=1",
  "run.num_eval_envs=8",
  "agent.total_env_steps=240",
)
_TINY_DDPG = (
  "agent.num_envs=2",
  "agent.unroll_length=10",
  "agent.updates_per_cycle=2",
  "agent.batch_size=32",
  "agent.buffer_size=200",
  "agent.total_env_steps=60",
  "run.eval_every=1",
  "run.num_eval_envs=4",
)
# Headline training runs, in order. Each env family appends its configs (SAC+HER, Meta-World,
# hide-and-seek); a config not in configs/ yet is skipped with a note. The replay buffer stays out of
# DDPG/SAC checkpoints so that a run directory is small enough to carry between GPU sessions (a resume
# then starts from an empty buffer).
HEADLINE = [
  HeadlineRun("ppo_fetch_reach", budget_min=3.0, target_minutes=1.0, tiny=_TINY_PPO),
  # DDPG+HER sized for a GPU (256 envs, 640 updates per cycle): the issue's "0.9 within 5 minutes".
  HeadlineRun(
    "ddpg_her_fetch_push_gpu",
    budget_min=6.0,
    target_minutes=5.0,
    sets=("agent.checkpoint_buffer=False",),
    tiny=_TINY_DDPG + ("agent.checkpoint_buffer=False",),
  ),
  # The hand (issue 28's GPU item): DDPG+HER on HandManipulateBlockRotateZ under MJX, 512 envs.
  HeadlineRun(
    "ddpg_her_hand_block_rotate_z_gpu",
    budget_min=8.0,
    sets=("agent.checkpoint_buffer=False",),
    tiny=_TINY_DDPG + ("agent.checkpoint_buffer=False",),
  ),
  HeadlineRun(
    "sac_her_fetch_push",
    budget_min=7.0,
    sets=("agent.checkpoint_buffer=False",),
    tiny=_TINY_DDPG + ("agent.checkpoint_buffer=False",),
  ),
  HeadlineRun(
    "asp_blocks",
    target=("eval/success_rate", 0.5),
    budget_min=7.0,
    tiny=(
      "env.alice_steps=5",
      "env.bob_steps_per_object=10",
      "env.max_goals=1",
      "agent.num_minibatches=2",
      "agent.num_envs=4",
      "agent.update_epochs=1",
      "agent.hidden=(16,)",
      "agent.lstm_size=8",
      "agent.total_env_steps=150",
      "run.eval_every=1",
      "run.num_eval_envs=2",
    ),
  ),
  # Hide-and-seek: no success target; its figures are steps/s and how far the emergence
  # statistics (emergence.png, metrics.jsonl) went in the budget.
  HeadlineRun(
    "hns_quadrant",
    target=None,
    budget_min=8.0,
    tiny=(
      "agent.num_envs=4",
      "agent.unroll_length=20",
      "agent.num_minibatches=2",
      "agent.update_epochs=1",
      "agent.embed=16",
      "agent.heads=2",
      "agent.head_dim=8",
      "agent.dense=32",
      "agent.lstm_size=16",
      "agent.total_env_steps=160",
      "run.eval_every=1",
      "run.num_eval_envs=4",
    ),
  ),
  # Meta-World: the paper's MT10 figures (Table 1) as targets within an hour on one GPU: MT-SAC
  # 68.3%, MT-PPO 30.5% mean success over the ten tasks.
  HeadlineRun(
    "mtsac_mt10",
    target=("eval/success_rate", 0.683),
    budget_min=60.0,
    target_minutes=60.0,
    sets=("agent.checkpoint_buffer=False",),
    tiny=(
      "agent.num_envs=10",
      "agent.unroll_length=5",
      "agent.updates_per_cycle=1",
      "agent.batch_size=32",
      "agent.buffer_size=500",
      "agent.total_env_steps=100",
      "agent.hidden=[16]",
      "env.episode_length=10",
      "run.eval_every=1",
      "run.num_eval_envs=10",
      "agent.checkpoint_buffer=False",
    ),
  ),
  HeadlineRun(
    "mtppo_mt10",
    target=("eval/success_rate", 0.305),
    budget_min=60.0,
    target_minutes=60.0,
    tiny=(
      "agent.num_minibatches=2",
      "agent.num_envs=10",
      "agent.unroll_length=5",
      "agent.update_epochs=1",
      "agent.policy_hidden=[16]",
      "agent.value_hidden=[16]",
      "agent.total_env_steps=100",
      "env.episode_length=10",
      "run.eval_every=1",
      "run.num_eval_envs=10",
    ),
  ),
]

# Sizes: `full` for a GPU, `cpu` for a small run on a CPU, `tiny` for the test (seconds per step).
#   batch_sizes: the throughput ladder; call_s: aimed time of one timed call (scan steps are sized from
#   the previous batch size's rate, within [min_steps, max_steps]); prior_rate: the rate assumed before a
#   measurement; priors: seconds assumed for work not yet measured (budget estimates).
SIZES = {
  "full": dict(
    batch_sizes=[1024 * 4**k for k in range(7)],
    call_s=1.0,
    min_steps=5,
    max_steps=1000,
    prior_rate=1e5,
    repeats=3,
    c_seconds=1.0,
    throughput_envs=None,
    priors={"compile": 60.0, "ppo_vs_brax": 300.0, "train_overhead": 120.0},
  ),
  "cpu": dict(
    batch_sizes=[64, 1024],
    call_s=5.0,
    min_steps=2,
    max_steps=50,
    prior_rate=1000.0,
    repeats=2,
    c_seconds=1.0,
    throughput_envs=None,
    priors={"compile": 60.0, "ppo_vs_brax": 360.0, "train_overhead": 90.0},
  ),
  "tiny": dict(
    batch_sizes=[8, 16],
    call_s=0.2,
    min_steps=2,
    max_steps=4,
    prior_rate=1000.0,
    repeats=1,
    c_seconds=0.1,
    throughput_envs=["FetchReach"],
    ppo_vs_brax_envs=["FetchReach"],
    priors={"compile": 30.0, "ppo_vs_brax": 120.0, "train_overhead": 45.0},
  ),
}


# ------------------------------------------------------------------------------------------ parts
@dataclasses.dataclass(frozen=True)
class Part:
  name: str
  kind: str  # throughput | ppo_vs_brax | train
  spec: Any


def all_parts(size: str) -> list[Part]:
  """The parts of a size, in run order: those with a target first, then the rest."""
  sz = SIZES[size]
  tp = [
    Part(f"throughput-{t.name}", "throughput", t)
    for t in THROUGHPUT
    if sz["throughput_envs"] is None or t.name in sz["throughput_envs"]
  ]
  pvb = [
    Part(f"ppo_vs_brax-{p.env}", "ppo_vs_brax", p)
    for p in PPO_VS_BRAX
    if sz.get("ppo_vs_brax_envs") is None or p.env in sz["ppo_vs_brax_envs"]
  ]
  tr = [Part(f"train-{h.config}", "train", h) for h in HEADLINE]

  def targeted(p):
    return bool(
      getattr(p.spec, "target_sps", None)
      or getattr(p.spec, "target_ratio", None)
      or getattr(p.spec, "target_minutes", None)
    )

  ordered = tp + pvb + tr
  return [p for p in ordered if targeted(p)] + [p for p in ordered if not targeted(p)]


def select_parts(size: str, names: list[str] | None) -> list[Part]:
  """`--part` values: a part's name, or a kind (throughput, ppo_vs_brax, train) for all of that kind."""
  parts = all_parts(size)
  if not names:
    return parts
  chosen = []
  for n in names:
    hit = [p for p in parts if p.name == n or p.kind == n]
    if not hit:
      raise SystemExit(
        f"error: unknown part {n!r}; parts: {', '.join(p.name for p in parts)} "
        f"(or a kind: throughput, ppo_vs_brax, train)"
      )
    chosen += [p for p in hit if p not in chosen]
  return [p for p in parts if p in chosen]


def env_family(registered_name: str) -> str:
  """The family (package under mjx_envs/) that registered an env, e.g. 'blocks', 'fetch'."""
  factory = mjx_envs.registry.lookup(registered_name)[0]
  while isinstance(factory, functools.partial):
    factory = factory.func
  mod = factory.__module__.split(".")
  return mod[1] if len(mod) > 1 and mod[0] == "mjx_envs" else mod[0]


# ------------------------------------------------------------------------------------------ storage
def write_json(path: str, obj) -> None:
  """Atomic: a reader (or a killed run) sees the old file or the new one, never half of one."""
  tmp = f"{path}.tmp{os.getpid()}"
  with open(tmp, "w") as f:
    json.dump(obj, f, indent=1, default=str)
  os.replace(tmp, path)


def read_json(path: str):
  if not os.path.exists(path):
    return None
  with open(path) as f:
    return json.load(f)


def part_path(out: str, name: str) -> str:
  """DIR/<part>.json; a registered env's '/' (`metaworld/push-v3`) becomes '~' so the file stays in DIR."""
  return os.path.join(out, f"{name.replace('/', '~')}.json")


# ------------------------------------------------------------------------------------------ environment
def _version(dist: str) -> str:
  try:
    return importlib.metadata.version(dist)
  except importlib.metadata.PackageNotFoundError:
    return "not installed"


def git_commit() -> str:
  """SUITE_COMMIT where set (a device's copy of the tree can carry a stale .git: the H200 slots of
  2026-11-26 read the session's starting commit), else the checkout's (with -dirty when tracked files
  changed)."""
  if os.environ.get("SUITE_COMMIT"):
    return os.environ["SUITE_COMMIT"]
  try:
    out = subprocess.run(
      ["git", "describe", "--always", "--dirty", "--abbrev=10"],
      cwd=REPO,
      capture_output=True,
      text=True,
      timeout=20,
      check=True,
    )
    return out.stdout.strip()
  except (OSError, subprocess.SubprocessError):
    return "unknown"


def environment() -> dict:
  """Device and software versions, date, commit: recorded in every part and in the markdown header."""
  dev = jax.devices()[0]
  return {
    "date": datetime.datetime.now().isoformat(timespec="seconds"),
    "commit": git_commit(),
    "platform": dev.platform,
    "device_kind": getattr(dev, "device_kind", ""),
    "device_count": jax.device_count(),
    "cpu_model": et.cpu_model(),
    "cpu_count": os.cpu_count(),
    "jax": jax.__version__,
    "jaxlib": _version("jaxlib"),
    "mujoco": _version("mujoco"),
    "mujoco-mjx": _version("mujoco-mjx"),
    "brax": _version("brax"),
    "python": platform.python_version(),
    "xla_flags": os.environ.get("XLA_FLAGS", ""),
    "load_avg_1m": os.getloadavg()[0],
  }  # a shared machine slows everything: keep the load with the figures


def device_peak_bytes() -> int | None:
  try:
    stats = jax.devices()[0].memory_stats()
  except Exception:  # pylint: disable=broad-except
    return None
  return int(stats["peak_bytes_in_use"]) if stats and "peak_bytes_in_use" in stats else None


def is_oom(err: BaseException) -> bool:
  """XLA's out-of-memory error (RESOURCE_EXHAUSTED), at compile time or at run time."""
  text = f"{type(err).__name__}: {err}"
  return "RESOURCE_EXHAUSTED" in text or "out of memory" in text.lower()


# ------------------------------------------------------------------------------------------ budget
class Budget:
  """The invocation's wall-clock budget. `allows(estimate)`: start a step of work only if it fits, except
  the invocation's first step, which always runs (so every invocation makes progress)."""

  def __init__(self, minutes: float, max_steps: int | None = None):
    self.t0 = time.time()
    self.seconds = 60.0 * minutes
    self.max_steps = max_steps
    self.steps = 0
    self.refused = []

  def remaining(self) -> float:
    return self.seconds - (time.time() - self.t0)

  def allows(self, estimate_s: float, what: str) -> bool:
    if self.max_steps is not None and self.steps >= self.max_steps:
      self.refused.append(f"{what} (--max-steps {self.max_steps} reached)")
      return False
    if self.steps > 0 and estimate_s > self.remaining():
      self.refused.append(f"{what} (estimated {estimate_s:.0f} s, {max(self.remaining(), 0):.0f} s left)")
      return False
    self.steps += 1
    return True


@dataclasses.dataclass
class Context:
  out: str
  size: str
  budget: Budget
  env: dict
  cache_dir: str
  trace: bool
  train_minutes: float | None
  batch_sizes: list[int] | None
  max_compile_s: float = 0.0  # the slowest compile measured in this invocation (budget estimates)
  max_train_overhead_s: float = 0.0  # the slowest train.py start-up + compile in this invocation


# ------------------------------------------------------------------------------------------ throughput
def run_throughput(part: Part, data: dict, ctx: Context) -> str:
  """Measures the batch-size ladder of one env from where `data` stopped; returns the part's status."""
  sz = SIZES[ctx.size]
  spec: ThroughputEnv = part.spec
  reg, over = et.resolve(spec.name)
  env = mjx_envs.make(reg, **over)
  family = env_family(reg)  # the C baseline's inputs differ per family (hide-and-seek: motor bins)
  data.update(
    env_name=spec.name,
    registered=reg,
    overrides=over,
    family=family,
    target_sps=spec.target_sps,
    config=et.model_config(env),
  )
  rows = data.setdefault("rows", [])
  ladder = ctx.batch_sizes or sz["batch_sizes"]
  data["batch_sizes"] = ladder
  save = lambda: write_json(part_path(ctx.out, part.name), data)
  cache = et.CacheHits()
  pool = None
  for b in ladder:
    if data.get("stopped") or any(r["batch"] == b for r in rows):
      continue
    measured = [r for r in rows if "mjx_steps_per_s" in r]
    rate = measured[-1]["mjx_steps_per_s"] if measured else sz["prior_rate"]
    n = int(min(sz["max_steps"], max(sz["min_steps"], sz["call_s"] * rate / b)))
    # The slowest compile seen for this env, else in this invocation (any env), else the size's prior.
    compile_est = max(
      [r["compile_s"] for r in measured], default=ctx.max_compile_s or sz["priors"]["compile"]
    )
    estimate = compile_est + (sz["repeats"] + 1) * n * b / rate + (10.0 if pool is None else 0.0)
    if not ctx.budget.allows(estimate, f"{part.name} B={b}"):
      return "partial" if rows else "todo"
    if pool is None:
      pool = et.reset_pool(env, seed=0)
      if "c_steps_per_s" not in data and sz["c_seconds"] > 0:
        data.update(et.bench_c(env, family, pool, "random", sz["c_seconds"]))
    peak_before = device_peak_bytes()
    try:
      r = et.bench_mjx(
        env, pool, b, n, "random", cache, sz["repeats"], max(2.0, 3 * sz["call_s"]), devices=jax.devices()
      )
    except Exception as e:  # pylint: disable=broad-except
      msg = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300] if str(e).strip() else ''}"
      data["stopped"] = {"batch": b, "reason": "out of memory" if is_oom(e) else "error", "error": msg}
      print(f"[{part.name}] B={b}: {data['stopped']['reason']}: {msg}", flush=True)
      del e
      save()
      break
    # The device's peak is the process's, never reset: it is this batch's only where this batch raised
    # it (else an earlier, larger part's peak would be divided by this batch size).
    peak = device_peak_bytes()
    if peak and (peak_before is None or peak > peak_before):
      r["device_peak_bytes"] = peak
      r["device_peak_bytes_per_env"] = peak / b
    rows.append(r)
    rows.sort(key=lambda x: x["batch"])
    ctx.max_compile_s = max(ctx.max_compile_s, r["compile_s"])
    print(
      f"[{part.name}] B={b} N={n}: compile {r['compile_s']:.1f} s, {r['mjx_steps_per_s']:,.0f} ctrl steps/s",
      flush=True,
    )
    save()
  measured = [r for r in rows if "mjx_steps_per_s" in r]
  stop = data.get("stopped") or {}
  if stop.get("reason") == "error" and not measured:
    # A bug, not the memory limit: the part failed, and waits for --force after the fix.
    raise RuntimeError(f"B={stop['batch']}: {stop['error']}")
  if measured:
    best = max(measured, key=lambda r: r["mjx_steps_per_s"])
    data["best"] = {"batch": best["batch"], "mjx_steps_per_s": best["mjx_steps_per_s"]}
    if spec.target_sps:
      data["best"]["target_met"] = best["mjx_steps_per_s"] >= spec.target_sps
    if ctx.trace and pool is not None:
      trace_rollout(env, pool, best, os.path.join(ctx.out, "trace", part.name))
      data["trace"] = os.path.relpath(os.path.join(ctx.out, "trace", part.name), ctx.out)
  save()
  return "done"


def trace_rollout(env, pool, row: dict, trace_dir: str) -> None:
  """A jax.profiler trace of one call of the rollout at `row`'s batch size and scan length."""
  b, n = row["batch"], row["steps"]
  state = et.tile_batch(pool, b)
  fn = et.make_rollout(env, b, n, "random").lower(state, jax.random.PRNGKey(0)).compile()
  jax.block_until_ready(fn(state, jax.random.PRNGKey(1)))
  jax.profiler.start_trace(trace_dir)
  jax.block_until_ready(fn(state, jax.random.PRNGKey(2)))
  jax.profiler.stop_trace()


# ------------------------------------------------------------------------------------------ PPO vs Brax
def run_ppo_vs_brax(part: Part, data: dict, ctx: Context) -> str:
  """One benchmarks/ppo_vs_brax.py run, in this process; keeps its whole result and a summary."""
  spec: PPOvsBrax = part.spec
  est = data.get("wall_s") or SIZES[ctx.size]["priors"]["ppo_vs_brax"]
  if not ctx.budget.allows(est, part.name):
    return "partial" if data.get("attempts") else "todo"
  from benchmarks import ppo_vs_brax  # pylint: disable=import-outside-toplevel  (imports brax)

  argv = ["--env", spec.env, *spec.args[ctx.size], "--cache-dir", ctx.cache_dir]
  if ctx.trace:
    argv += ["--trace", os.path.join(ctx.out, "trace", part.name)]
  data["argv"] = argv
  data["attempts"] = data.get("attempts", 0) + 1
  write_json(part_path(ctx.out, part.name), data)  # a killed attempt still counts, for the estimate
  t = time.time()
  out = ppo_vs_brax.main(argv)
  data["wall_s"] = time.time() - t
  ours, brax = out["ours"], out["brax"]
  n = min(len(ours["curve"]), len(brax["curve"]))
  data["summary"] = {
    "ours_sps": ours["common_sps"],
    "brax_sps": brax["common_sps"],
    "ratio": out["ratio_ours_over_brax"],
    "target_ratio": spec.target_ratio,
    "target_met": (out["ratio_ours_over_brax"] >= spec.target_ratio) if spec.target_ratio else None,
    "ours_compile_s": ours["compile_s"],
    "brax_compile_s": brax["compile_s"],
    "env_steps": [ours["curve"][i]["env_steps"] for i in range(n)],
    "ours_success": [ours["curve"][i]["success_rate"] for i in range(n)],
    "brax_success": [brax["curve"][i]["success_rate"] for i in range(n)],
    "ours_xla": ours.get("xla", {}),
  }
  data["result"] = out
  write_json(part_path(ctx.out, part.name), data)
  return "done"


# ------------------------------------------------------------------------------------------ training runs
def config_exists(name: str) -> bool:
  return os.path.exists(os.path.join(CONFIG_DIR, f"{name}.py"))


def read_metrics(run_dir: str) -> list[dict]:
  path = os.path.join(run_dir, "metrics.jsonl")
  if not os.path.exists(path):
    return []
  rows = []
  with open(path) as f:
    for line in f:
      line = line.strip()
      if line:
        try:
          rows.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut by a kill
          pass
  return rows


def summarise_run(rows: list[dict], spec: HeadlineRun) -> dict:
  """Figures of a run from its metrics.jsonl rows: final success, steps/s, compile, time to the target."""
  if not rows:
    return {}
  first, last = rows[0], rows[-1]
  # Compile: the wall time of the (possibly overlapping) compiles where train.py logs it, else the sum.
  comp = first.get("compile/wall_s") or (first.get("compile/train_s") or 0.0) + (
    first.get("compile/eval_s") or 0.0
  )
  # Time to the target counts from the process start where train.py logs it (imports, model loading and
  # compile included), else from the start of compiling; wall_s counts from the first training step.
  before_training = first.get("startup/first_step_s") or comp
  sps = [r["train/sps"] for r in rows[1:]] or [rows[0]["train/sps"]]  # the first chunk may include warm-up
  s = {
    "env_steps": last["env_steps"],
    "train_wall_s": last["wall_s"],
    "compile_s": comp,
    "startup_to_first_step_s": first.get("startup/first_step_s"),
    "compile_train_s": first.get("compile/train_s"),
    "compile_eval_s": first.get("compile/eval_s"),
    "train_sps_median": float(np.median(sps)),
    "final_success": last.get("eval/success_rate"),
    "best_success": max(r.get("eval/success_rate", float("nan")) for r in rows),
    "evals": len(rows),
  }
  if spec.target:
    metric, value = spec.target
    hit = next((r for r in rows if r.get(metric, -math.inf) >= value), None)
    s["target"] = f"{metric} >= {value:g}"
    if hit is not None:
      s["target_env_steps"] = hit["env_steps"]
      s["target_wall_s"] = hit["wall_s"]
      s["target_wall_incl_compile_s"] = hit["wall_s"] + before_training
    if spec.target_minutes:
      s["target_minutes"] = spec.target_minutes
      s["target_met"] = hit is not None and s["target_wall_incl_compile_s"] <= 60 * spec.target_minutes
  return s


def run_train(part: Part, data: dict, ctx: Context) -> str:
  """One session of a headline training run: a new train.py run, or `--resume` of the stopped one."""
  spec: HeadlineRun = part.spec
  data["config"] = spec.config
  if not config_exists(spec.config):
    data["note"] = f"configs/{spec.config}.py does not exist yet"
    return "skipped"
  run_dir = os.path.join(ctx.out, "runs", spec.config)
  data["run_dir"] = os.path.relpath(run_dir, ctx.out)
  sessions = data.setdefault("sessions", [])
  if not sessions and os.path.exists(run_dir):  # left by a redone part: train.py would append to it
    import shutil  # pylint: disable=import-outside-toplevel

    shutil.rmtree(run_dir)
  rows = read_metrics(run_dir)
  used_min = rows[-1]["wall_s"] / 60 if rows else 0.0
  left_min = spec.budget_min - used_min
  # Start-up and compile: as this run's earlier sessions took, else as much as any run's in this
  # invocation, at least the size's prior.
  overhead = max(
    [s["process_s"] - s.get("train_s", 0.0) for s in sessions],
    default=max(SIZES[ctx.size]["priors"]["train_overhead"], ctx.max_train_overhead_s),
  )
  if sessions and left_min <= 0:
    data["note"] = f"training budget of {spec.budget_min:g} min used"
    return "done"
  # This session's training minutes: what is left of the run's budget, of this invocation's budget (after
  # the start-up and compile overhead) and of --train-minutes; the invocation's first step gets at least
  # half a minute.
  minutes = min(left_min, (ctx.budget.remaining() - overhead - 5.0) / 60)
  if ctx.train_minutes is not None:
    minutes = min(minutes, ctx.train_minutes)
  floor = min(0.5, left_min, ctx.train_minutes or 0.5)  # a shorter session is not worth its start-up
  if ctx.budget.steps == 0:
    minutes = max(minutes, floor)
  elif minutes < floor:
    ctx.budget.refused.append(
      f"{part.name} (needs {overhead:.0f} s of start-up and compile plus "
      f"{60 * floor:.0f} s of training; {max(ctx.budget.remaining(), 0):.0f} s left)"
    )
    return "partial" if sessions else "todo"
  if not ctx.budget.allows(overhead + 60 * minutes, part.name):
    return "partial" if sessions else "todo"
  ckpt = os.path.join(run_dir, "checkpoints")
  resume = bool(sessions) and os.path.isdir(ckpt) and bool(os.listdir(ckpt))
  sets = spec.tiny if ctx.size == "tiny" else spec.sets
  cmd = [sys.executable, os.path.join(REPO, "train.py")]
  cmd += ["--resume", run_dir] if resume else ["--config", spec.config, "--out", run_dir]
  for s in () if resume else sets:  # a resumed run keeps its config.json
    cmd += ["--set", s]
  cmd += ["--set", f"run.max_minutes={minutes:.4f}", "--no-progress"]
  os.makedirs(run_dir, exist_ok=True)
  # This process keeps its device memory (the throughput parts' pool): the run grows its own as it needs
  # instead of asking for XLA's default 75% of the card, which fails (a wall of allocator errors) first.
  env = dict(
    os.environ,
    MJX_COMPILATION_CACHE=ctx.cache_dir,
    PYTHONUNBUFFERED="1",
    XLA_PYTHON_CLIENT_PREALLOCATE=os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE", "false"),
  )
  print(f"[{part.name}] {' '.join(cmd[1:])}", flush=True)
  t = time.time()
  session = {"cmd": cmd[1:], "resume": resume, "max_minutes": minutes, "started": ctx.env["date"]}
  sessions.append(session)
  with open(os.path.join(run_dir, "suite_log.txt"), "a") as log:
    proc = subprocess.Popen(
      cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    stopped_by_time = False
    try:
      for line in proc.stdout:
        log.write(line)
        if "stopping at run.max_minutes" in line:
          stopped_by_time = True
        if not line.startswith(("Failed to import", "WARNING")):
          print(f"  {line}", end="", flush=True)
      rc = proc.wait()
    except KeyboardInterrupt:
      # The slot's hard timeout (gpu_slot.sh sends SIGINT) fell inside this session, e.g. a cold compile
      # or the last chunk's overrun of run.max_minutes: keep what the run logged and checkpointed.
      try:
        proc.wait(timeout=20)
      except subprocess.TimeoutExpired:
        proc.kill()
      new_rows = read_metrics(run_dir)
      session.update(rc=None, process_s=time.time() - t, stopped_by_time=True, interrupted=True)
      session["train_s"] = (
        (new_rows[-1]["wall_s"] - (rows[-1]["wall_s"] if rows else 0.0)) if new_rows else 0.0
      )
      data["summary"] = summarise_run(new_rows, spec)
      data["note"] = "interrupted by the slot's timeout; the next invocation resumes it"
      data["status"] = "partial"
      write_json(part_path(ctx.out, part.name), data)
      raise
  new_rows = read_metrics(run_dir)
  session.update(
    rc=rc,
    process_s=time.time() - t,
    stopped_by_time=stopped_by_time,
    train_s=(new_rows[-1]["wall_s"] - (rows[-1]["wall_s"] if rows else 0.0)) if new_rows else 0.0,
  )
  ctx.max_train_overhead_s = max(ctx.max_train_overhead_s, session["process_s"] - session["train_s"])
  data["summary"] = summarise_run(new_rows, spec)
  if rc != 0:
    session["error"] = f"train.py exited with {rc}; see {data['run_dir']}/suite_log.txt"
    data["note"] = session["error"]
    write_json(part_path(ctx.out, part.name), data)
    return "error"
  finished = not stopped_by_time
  spent = bool(new_rows) and new_rows[-1]["wall_s"] / 60 >= spec.budget_min
  data["finished"] = finished
  data["note"] = (
    "run finished"
    if finished
    else f"training budget of {spec.budget_min:g} min used"
    if spent
    else "stopped by time; the next invocation resumes it"
  )
  write_json(part_path(ctx.out, part.name), data)
  return "done" if finished or spent else "partial"


RUNNERS = {"throughput": run_throughput, "ppo_vs_brax": run_ppo_vs_brax, "train": run_train}


# ------------------------------------------------------------------------------------------ report
def _fmt(x, spec=",.0f", none="-"):
  if x is None or (isinstance(x, float) and math.isnan(x)):
    return none
  return format(x, spec)


def _met(flag) -> str:
  return "-" if flag is None else ("**met**" if flag else "**missed**")


def targets(parts: dict[str, dict]) -> list[dict]:
  """The targets' rows: what, the target, the measured value and met / missed (None: not measured)."""
  out = []
  for t in THROUGHPUT:
    if t.target_sps:
      d = parts.get(f"throughput-{t.name}", {})
      best = d.get("best")
      out.append(
        {
          "what": f"{t.name} throughput at its best batch size",
          "target": f">= {t.target_sps:,.0f} ctrl steps/s",
          "measured": (f"{best['mjx_steps_per_s']:,.0f} (B={best['batch']})" if best else "not measured"),
          "met": (best["mjx_steps_per_s"] >= t.target_sps) if best else None,
          "device": d.get("env", {}).get("device_kind"),
        }
      )
  for p in PPO_VS_BRAX:
    if p.target_ratio:
      d = parts.get(f"ppo_vs_brax-{p.env}", {})
      s = d.get("summary")
      out.append(
        {
          "what": f"our PPO / Brax PPO training steps/s ({p.env})",
          "target": f">= {p.target_ratio:g}x",
          "measured": f"{s['ratio']:.2f}x" if s else "not measured",
          "met": s["target_met"] if s else None,
          "device": d.get("env", {}).get("device_kind"),
        }
      )
  for h in HEADLINE:
    if h.target_minutes and h.target:
      d = parts.get(f"train-{h.config}", {})
      s = d.get("summary") or {}
      t = s.get("target_wall_incl_compile_s")
      meas = (
        f"{t:.0f} s"
        if t is not None
        else ("not reached" if s else ("config missing" if d.get("status") == "skipped" else "not measured"))
      )
      out.append(
        {
          "what": f"{h.config}: {h.target[0]} >= {h.target[1]:g}, incl. compile",
          "target": f"< {60 * h.target_minutes:g} s",
          "measured": meas,
          "met": s.get("target_met") if s else None,
          "device": d.get("env", {}).get("device_kind"),
        }
      )
  return out


def markdown(meta: dict, parts: dict[str, dict], order: list[Part]) -> str:
  """results.md: header (device, versions, date, commit), targets, then each kind of part."""
  env = meta.get("env", {})
  L = [
    "# Benchmark suite results",
    "",
    f"Size `{meta.get('size')}`. Last invocation {env.get('date')}, commit `{env.get('commit')}`.",
    "",
    "| device | platform | devices | jax | jaxlib | mujoco | mujoco-mjx | brax | python |",
    "|---|---|---:|---|---|---|---|---|---|",
  ]
  seen = []
  for d in [p.get("env") for p in parts.values() if p.get("env")] + [env]:
    key = (d.get("device_kind"), d.get("jax"), d.get("mujoco-mjx"))
    if key not in seen:
      seen.append(key)
      kind = d.get("device_kind")
      if d.get("platform") == "cpu":
        kind = f"{kind} ({d.get('cpu_model')}, {d.get('cpu_count')} cores)"
      L.append(
        f"| {kind} | {d.get('platform')} | {d.get('device_count')} | {d.get('jax')} | "
        f"{d.get('jaxlib')} | {d.get('mujoco')} | {d.get('mujoco-mjx')} | {d.get('brax')} | "
        f"{d.get('python')} |"
      )
  L += [
    "",
    "## Targets (one H100)",
    "",
    "| what | target | measured | met | device |",
    "|---|---|---|---|---|",
  ]
  for t in targets(parts):
    L.append(f"| {t['what']} | {t['target']} | {t['measured']} | {_met(t['met'])} | {t['device'] or '-'} |")

  L += [
    "",
    "## Env throughput (control steps/s, every substep included)",
    "",
    "| env | batch | scan steps | compile s | ctrl steps/s | C MuJoCo 1 thread | bytes/env (XLA) | "
    "peak bytes/env | GFLOP per batched step (XLA) | target |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  ]
  for p in order:
    d = parts.get(p.name)
    if p.kind != "throughput" or not d:
      continue
    best = d.get("best", {})
    for r in d.get("rows", []):
      x = r.get("xla", {})
      tgt = ""
      if d.get("target_sps") and r["batch"] == best.get("batch"):
        tgt = f"best; >= {d['target_sps']:,.0f}: {_met(best.get('target_met'))}"
      elif r["batch"] == best.get("batch"):
        tgt = "best"
      comp = f"{r['compile_s']:.1f}" + (" (cache)" if r.get("cache_hit") else "")
      gflop = _fmt(x.get("flops", None) and x["flops"] / 1e9, ".3g")
      L.append(
        f"| {d['env_name']} | {r['batch']:,} | {r['steps']} | {comp} | {_fmt(r['mjx_steps_per_s'])} | "
        f"{_fmt(d.get('c_steps_per_s'))} | {_fmt(x.get('bytes_per_env'))} | "
        f"{_fmt(r.get('device_peak_bytes_per_env'))} | {gflop} | {tgt} |"
      )
    if d.get("stopped"):
      s = d["stopped"]
      L.append(f"| {d['env_name']} | {s['batch']:,} | - | - | stopped: {s['reason']} | | | | | |")
  L += [
    "",
    "XLA's cost analysis counts each loop body once (one control step, each substep and solver "
    "iteration once); its flops are a per-iteration figure, not a total.",
  ]

  L += [
    "",
    "## PPO vs Brax PPO (same env, same device, one process)",
    "",
    "| env | ours steps/s | Brax steps/s | ours / Brax | target | ours compile s | Brax compile s | "
    "env steps | ours success | Brax success |",
    "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|",
  ]
  for p in order:
    d = parts.get(p.name)
    if p.kind != "ppo_vs_brax" or not d or "summary" not in d:
      continue
    s = d["summary"]
    tgt = f">= {s['target_ratio']:g}x: {_met(s['target_met'])}" if s.get("target_ratio") else "-"
    L.append(
      f"| {p.spec.env} | {_fmt(s['ours_sps'])} | {_fmt(s['brax_sps'])} | {s['ratio']:.2f} | {tgt} | "
      f"{s['ours_compile_s']:.1f} | {s['brax_compile_s']:.1f} | {s['env_steps'][-1]:,} | "
      f"{s['ours_success'][-1]:.3f} | {s['brax_success'][-1]:.3f} |"
    )
  for p in order:
    d = parts.get(p.name)
    if p.kind == "ppo_vs_brax" and d and "summary" in d:
      s = d["summary"]
      L += [
        "",
        f"Eval success at equal env steps, {p.spec.env}: "
        + ", ".join(
          f"{st:,}: {a:.2f} / {b:.2f}"
          for st, a, b in zip(s["env_steps"], s["ours_success"], s["brax_success"])
        )
        + " (ours / Brax)",
      ]

  L += [
    "",
    "## Headline training runs",
    "",
    "| config | status | env steps | training s | compile s | train steps/s | final success | "
    "best success | target | reached at (incl. compile) | met |",
    "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---|",
  ]
  for p in order:
    d = parts.get(p.name)
    if p.kind != "train" or not d:
      continue
    s = d.get("summary") or {}
    if not s:
      L.append(f"| {p.spec.config} | {d.get('status')}: {d.get('note', '')} | | | | | | | | | |")
      continue
    reached = (
      f"{s['target_wall_incl_compile_s']:.0f} s ({s['target_env_steps']:,} steps)"
      if "target_wall_incl_compile_s" in s
      else "not reached"
    )
    met = f"< {60 * s['target_minutes']:g} s: {_met(s.get('target_met'))}" if s.get("target_minutes") else "-"
    L.append(
      f"| {p.spec.config} | {d.get('status')} | {s['env_steps']:,} | {s['train_wall_s']:.0f} | "
      f"{s['compile_s']:.1f} | {_fmt(s['train_sps_median'])} | {_fmt(s['final_success'], '.3f')} | "
      f"{_fmt(s['best_success'], '.3f')} | {s.get('target', '-')} | {reached} | {met} |"
    )

  L += [
    "",
    "## Parts",
    "",
    "| part | status | device | last started | load average (1 min) then | note |",
    "|---|---|---|---|---:|---|",
  ]
  for p in order:
    d = parts.get(p.name) or {}
    e = d.get("env", {})
    L.append(
      f"| {p.name} | {d.get('status', 'not started')} | {e.get('device_kind', '-')} | "
      f"{e.get('date', '-')} | {_fmt(e.get('load_avg_1m'), '.1f')} | {d.get('note', '')} |"
    )
  return "\n".join(L) + "\n"


def write_report(out: str, size: str, env: dict) -> dict:
  """Merges DIR/<part>.json into DIR/results.json and writes DIR/results.md; returns the merged dict."""
  order = all_parts(size)
  parts = {p.name: d for p in order if (d := read_json(part_path(out, p.name))) is not None}
  meta = {"size": size, "env": env}
  merged = {"meta": meta, "targets": targets(parts), "parts": parts}
  write_json(os.path.join(out, "results.json"), merged)
  with open(os.path.join(out, "results.md.tmp"), "w") as f:
    f.write(markdown(meta, parts, order))
  os.replace(os.path.join(out, "results.md.tmp"), os.path.join(out, "results.md"))
  return merged


# ------------------------------------------------------------------------------------------ main
def parse_args(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--out", required=True, help="results directory (created; a later run continues in it)")
  p.add_argument(
    "--budget-min",
    type=float,
    default=9.0,
    help="wall-clock minutes for this invocation: no new work starts that would not fit",
  )
  p.add_argument(
    "--part",
    action="append",
    default=None,
    help="a part name or kind (throughput, ppo_vs_brax, train); repeatable; default all",
  )
  p.add_argument(
    "--size",
    choices=sorted(SIZES),
    default=None,
    help="full (an accelerator; the default there), cpu (a small CPU run; the default on a CPU) or tiny "
    "(the test); a DIR keeps the size it was started with",
  )
  p.add_argument("--tiny", action="store_true", help="same as --size tiny")
  p.add_argument("--force", action="store_true", help="redo the selected parts even if finished")
  p.add_argument(
    "--batch-sizes", default=None, help="comma-separated throughput ladder (overrides the size's)"
  )
  p.add_argument(
    "--train-minutes",
    type=float,
    default=None,
    help="cap on each headline run's training minutes in this invocation",
  )
  p.add_argument(
    "--max-steps",
    type=int,
    default=None,
    help="start at most this many steps of work (batch sizes, comparisons, training sessions)",
  )
  p.add_argument("--trace", action="store_true", help="also write jax.profiler traces under DIR/trace/")
  p.add_argument(
    "--cache-dir",
    default=os.path.join(REPO, ".jax_cache"),
    help="persistent compilation cache, also passed to train.py ('' disables)",
  )
  p.add_argument("--list", action="store_true", help="list the parts and their status, then exit")
  p.add_argument("--report", action="store_true", help="only rewrite results.json and results.md")
  args = p.parse_args(argv)
  if args.tiny:
    if args.size not in (None, "tiny"):
      p.error("--tiny contradicts --size " + args.size)
    args.size = "tiny"
  if args.budget_min <= 0:
    p.error(f"--budget-min must be positive, got {args.budget_min:g}")
  return args


def main(argv=None) -> dict:
  """Runs the selected unfinished parts within the budget; returns the merged results."""
  args = parse_args(argv)
  from agents.common import sharding  # pylint: disable=import-outside-toplevel

  sharding.set_cpu_devices(sharding.usable_cores())  # CPU: throughput over every core, as train.py does
  os.makedirs(args.out, exist_ok=True)
  meta_path = os.path.join(args.out, "suite.json")
  meta = read_json(meta_path) or {}
  size = args.size or meta.get("size") or ("cpu" if jax.devices()[0].platform == "cpu" else "full")
  if meta.get("size") and meta["size"] != size:
    raise SystemExit(
      f"error: {args.out} holds a size-{meta['size']} suite; --size {size} needs another --out"
    )
  env = environment()
  if args.cache_dir:
    jax.config.update("jax_compilation_cache_dir", os.path.abspath(args.cache_dir))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
  parts = select_parts(size, args.part)
  if args.list or args.report:
    for p in all_parts(size):
      d = read_json(part_path(args.out, p.name)) or {}
      print(f"{p.name:40s} {d.get('status', 'not started'):12s} {d.get('note', '')}")
    if args.report:
      write_report(args.out, size, meta.get("env", env))
    return {}
  meta.update(size=size, env=env)
  meta.setdefault("invocations", []).append(
    {"date": env["date"], "commit": env["commit"], "argv": argv if argv is not None else sys.argv[1:]}
  )
  write_json(meta_path, meta)
  print(
    f"# suite size {size} -> {args.out}: {env['device_kind']} ({env['platform']}), jax {env['jax']}, "
    f"mujoco-mjx {env['mujoco-mjx']}, brax {env['brax']}, commit {env['commit']}; budget "
    f"{args.budget_min:g} min",
    flush=True,
  )
  budget = Budget(args.budget_min, args.max_steps)
  ctx = Context(
    out=args.out,
    size=size,
    budget=budget,
    env=env,
    cache_dir=os.path.abspath(args.cache_dir or os.path.join(args.out, ".jax_cache")),
    trace=args.trace,
    train_minutes=args.train_minutes,
    batch_sizes=[int(b) for b in args.batch_sizes.split(",")] if args.batch_sizes else None,
  )
  left = []
  for p in parts:
    path = part_path(args.out, p.name)
    data = read_json(path)
    if data and data.get("status") == "done" and not args.force:
      print(f"[{p.name}] done earlier ({data.get('env', {}).get('date')}); skipped", flush=True)
      continue
    if data and data.get("status") == "error" and not args.force:
      # Not retried by itself: GPU time is scarce, and a broken part would eat every slot's budget.
      print(
        f"[{p.name}] failed earlier ({data.get('note')}); skipped, --force --part {p.name} retries it",
        flush=True,
      )
      continue
    if (
      data is None
      or args.force
      or (p.kind == "throughput" and data.get("env", {}).get("device_kind") != env["device_kind"])
    ):
      # New, redone, or a partial ladder from another kind of device (its figures would not mix): fresh.
      data = {"part": p.name, "kind": p.kind}
    # The environment as this part starts: its time and the load now (a shared machine slows everything).
    data["env"] = dict(
      env, date=datetime.datetime.now().isoformat(timespec="seconds"), load_avg_1m=os.getloadavg()[0]
    )
    try:
      status = RUNNERS[p.kind](p, data, ctx)
    except Exception as e:  # pylint: disable=broad-except  (one part's failure must not lose the others)
      import traceback  # pylint: disable=import-outside-toplevel

      traceback.print_exc()
      status, data["note"] = "error", f"{type(e).__name__}: {str(e)[:300]}"
    if status == "todo":  # not started for lack of budget: leave no file behind
      left.append(p.name)
      continue
    data["status"] = status
    if status == "done" and p.kind != "train":
      data.pop("note", None)
    write_json(path, data)
    if status in ("partial", "todo"):
      left.append(p.name)
    print(f"[{p.name}] {status}", flush=True)
  merged = write_report(args.out, size, env)
  took = time.time() - budget.t0
  print(f"# {took / 60:.1f} of {args.budget_min:g} min used; results in {args.out}/results.md", flush=True)
  if left:
    print("# left for a later invocation: " + ", ".join(left), flush=True)
    for r in budget.refused:
      print(f"#   not started: {r}", flush=True)
  else:
    print("# every selected part is done or skipped", flush=True)
  merged["left"] = left
  return merged


if __name__ == "__main__":
  main()
