"""Our PPO (`agents.ppo.train`) vs. Brax's PPO (`brax.training.agents.ppo.train`) on the same env, one process.

Both train on the SAME flat-observation env (`mjx_envs.wrappers.FlattenGoalObs` over the raw env: the
dict obs `observation` ++ flattened `desired_goal`), on one device, with the same number of envs, unroll
length, minibatches (Brax: `batch_size = num_envs / num_minibatches` trajectories per minibatch, so one
update consumes `num_envs * unroll` env steps for both), epochs (Brax: `num_updates_per_batch`), learning
rate, discount, GAE lambda, entropy cost, value-loss weight, PPO clip, gradient-norm clip, observation
normalisation (on) and network: tanh MLPs of the same sizes, a Gaussian policy with a state-independent
learned log-std (Brax: `distribution_type='normal'`, `noise_std_type='log'`, `init_noise_std =
exp(init_log_std)`), orthogonal(sqrt 2) hidden-layer init and orthogonal(0.01) for the policy mean.

Envs:
  FetchReach   reward_type='dense', agent settings of configs/ppo_fetch_reach.py
  BlocksPush   1 block, CONTINUOUS 6-D actions (Brax PPO has no multi-categorical distribution, so the
               paper's 11-bin actions of configs/ppo_blocks_push.py cannot be compared), flattened obs
               for both (our default would use the object encoder on the dict obs), no reward
               normalisation (Brax has none); otherwise the agent settings of configs/ppo_blocks_push.py

Brax env plumbing. Brax's default training wrapper (`envs.training.wrap`) auto-resets a finished env to
the state it was FIRST reset to and does not reset `state.info`, where our envs keep per-episode state
(the goal, Blocks' wrist/finger targets, previous action and previous achieved goal): every Brax env
would replay one start state and one goal forever, and on Blocks the stale info would be inconsistent
with the restored physics state. With `--brax-autoreset fresh` (default) we pass Brax a `wrap_env_fn`
that keeps Brax's VmapWrapper and EpisodeWrapper (its time limit, truncation flag and episode metrics)
but replaces AutoResetWrapper by `FreshAutoReset` below, which draws a fresh random reset (new start and
goal, fresh info) for every finished env, as our own AutoReset does. `--brax-autoreset brax` uses Brax's
stock wrapper instead (its known first-state reuse).

Both run in ONE process. By default they are interleaved chunk by chunk: our chunk i runs right after
Brax's timed epoch i (inside Brax's `policy_params_fn` callback, outside Brax's timer), so on a shared
machine both see the same load; `--sequential` trains ours fully, then Brax (`--brax-first`: reversed).

Timing. Training steps/s = env steps / wall time of the compiled training calls only (no compile, no
evaluation). The run is split into `--evals` chunks of whole updates (the same chunks for both; `--steps`
is rounded UP to whole chunks). Ours: `jit(train_many(ts, k))` is compiled ahead of time (`compile_s`:
trace + lower + XLA compile, or a persistent-cache load), then called once per chunk. Brax: one Brax
"epoch" per chunk (`num_evals = evals + 1`), timed by Brax's own per-epoch timer (`training/walltime`,
which excludes its evaluation and callbacks). Brax compiles inside its first timed epoch and, with
JAX 0.10, retraces its training epoch again in the second (the replicated training state's sharding
changes), so `compile_s` for Brax is the compile work JAX reports (its `/jax/core/compile/*` duration
events) inside Brax's timed epochs; `compile_s_est` in the JSON is the same estimated as the excess time
of those epochs over the steady rate. Steady steps/s = steps / time over the chunks with no compile
work (< 0.05 s of it); the tables and the ours/brax ratio use the chunks that are steady for BOTH
(normally chunks 3.., as Brax's first two epochs carry compile work); per-chunk rates are printed too.
`--report PATH` re-prints the tables of a saved JSON. The persistent compilation cache is on (`--cache-dir`); cache hits are
recorded in the JSON.

Evaluation, identical for both: the deterministic policy (Gaussian mean, clipped to [-1, 1] by the env)
on `--eval-envs` fresh envs, one full episode each, success = the final step's `is_success`
(`PPO.evaluate`'s protocol; Brax's params are evaluated with the same loop), at step 0 and after every
chunk, with the same evaluation keys for both. `--brax-own-eval` also runs Brax's evaluator and records
its `eval/episode_is_success` (is_success SUMMED over the episode) divided by the episode length.

    python benchmarks/ppo_vs_brax.py --env FetchReach --steps 100000 --num-envs 128 --unroll 10 \
        --minibatches 4 --epochs 4 --json runs/ppo_vs_brax_fetch_reach.json
    python benchmarks/ppo_vs_brax.py --env BlocksPush --steps 100000 --num-envs 128 --unroll 20 \
        --minibatches 4 --epochs 3 --json runs/ppo_vs_brax_blocks_push.json

Compatibility shims, for this process only: brax 0.14.2 calls `jax.device_put_replicated`, removed from
JAX 0.10's namespace (restored from jax._src.api); our envs return a new `metrics` dict each step, which
drops the `metrics['reward']` Brax's EvalWrapper adds (`BraxFlatEnv` carries it through).
"""

from __future__ import annotations

import mjx_envs
from mjx_envs import wrappers

import argparse
import dataclasses
import datetime
import functools
import json
import math
import os
import platform
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from brax.envs.base import Wrapper as BraxWrapper
from brax.envs.wrappers import training as brax_training

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
  sys.path.insert(0, REPO)

from agents.ppo import train as ppo_lib
from benchmarks.env_throughput import xla_stats


def _jax_compat():
  """brax 0.14.2's trainers call `jax.device_put_replicated`, which JAX 0.10 removed from its public
  namespace (the implementation is still in jax._src.api). Restore it for this process only."""
  try:
    jax.device_put_replicated  # noqa: B018  pylint: disable=pointless-statement
  except AttributeError:
    from jax._src import api as _api  # pylint: disable=import-outside-toplevel

    jax.device_put_replicated = _api.device_put_replicated
    return True
  return False


JAX_SHIM = _jax_compat()


class CompileMeter:
  """Accumulates JAX's own compile-phase durations (tracing, lowering, XLA compile or persistent-cache
  load) and persistent-cache hits, so compile work inside a timed training call can be seen."""

  def __init__(self):
    self.secs = 0.0
    self.cache_hits = 0
    jax.monitoring.register_event_duration_secs_listener(self._on_duration)
    jax.monitoring.register_event_listener(self._on_event)

  def _on_duration(self, event, duration, **_):
    if event.startswith("/jax/core/compile/"):  # trace, lower, backend compile (incl. cache look-up)
      self.secs += float(duration)

  def _on_event(self, event, **_):
    if event == "/jax/compilation_cache/cache_hits":
      self.cache_hits += 1


METER = CompileMeter()
COMPILE_FREE_S = 0.05  # a chunk with less compile work than this counts as steady state

# env name -> (registered env, env overrides, our PPOConfig fields). Fields follow configs/ppo_fetch_reach.py
# and configs/ppo_blocks_push.py, adapted as described in the module docstring.
ENVS = {
  "FetchReach": (
    "FetchReach",
    {"reward_type": "dense"},
    dict(
      learning_rate=1e-3,
      gamma=0.95,
      gae_lambda=0.95,
      ent_coef=0.0,
      vf_coef=0.5,
      policy_hidden=(64, 64),
      value_hidden=(64, 64),
    ),
  ),
  "BlocksPush": (
    "BlocksPush",
    {"num_objects": 1, "action_bins": None, "episode_length": 100},
    dict(
      learning_rate=3e-4,
      gamma=0.998,
      gae_lambda=0.95,
      ent_coef=0.01,
      vf_coef=1.0,
      policy_hidden=(256,),
      value_hidden=(256,),
      normalize_reward=False,
    ),
  ),
}


# ------------------------------------------------------------------------------------------ Brax plumbing
class FreshAutoReset(BraxWrapper):
  """Brax-side auto-reset with FRESH resets (see the module docstring); reset takes keys [num_envs, 2].

  Wraps Brax's EpisodeWrapper(VmapWrapper(env)). On a step where some env finished, every finished env
  gets the pipeline state, obs and env info of a fresh `reset` (new start and goal); Brax's episode
  bookkeeping in info (steps, truncation, episode_done, episode_metrics) and the finishing step's
  reward, done and metrics are kept, as Brax's own AutoResetWrapper keeps them.
  """

  # Keys of state.info that belong to Brax's wrappers (kept) rather than to the env (reset).
  BRAX_KEYS = ("steps", "truncation", "episode_done", "episode_metrics", "autoreset_key")

  def reset(self, rng):
    state = self.env.reset(rng)
    keys = jax.vmap(lambda k: jax.random.fold_in(k, 1))(rng)
    return state.replace(info={**state.info, "autoreset_key": keys})

  def step(self, state, action):
    info = dict(state.info)
    if "steps" in info:  # as Brax's AutoResetWrapper: a new episode counts from 0
      info["steps"] = jnp.where(state.done > 0, jnp.zeros_like(info["steps"]), info["steps"])
    keys = info["autoreset_key"]
    state = self.env.step(state.replace(done=jnp.zeros_like(state.done), info=info), action)
    done = state.done > 0

    def do_reset(state):
      split = jax.vmap(jax.random.split)(keys)
      fresh = self.env.reset(split[:, 0])

      def pick(new, old):
        return jnp.where(done.reshape(done.shape + (1,) * (old.ndim - done.ndim)), new, old)

      env_keys = [k for k in state.info if k not in self.BRAX_KEYS and k in fresh.info]
      info = dict(state.info)
      info.update(
        jax.tree.map(pick, {k: fresh.info[k] for k in env_keys}, {k: state.info[k] for k in env_keys})
      )
      info["autoreset_key"] = jnp.where(done[:, None], split[:, 1], keys)
      return state.replace(
        pipeline_state=jax.tree.map(pick, fresh.pipeline_state, state.pipeline_state),
        obs=jax.tree.map(pick, fresh.obs, state.obs),
        info=info,
      )

    def no_reset(state):
      return state.replace(info={**state.info, "autoreset_key": keys})

    return jax.lax.cond(jnp.any(done), do_reset, no_reset, state)


class BraxFlatEnv(wrappers.FlattenGoalObs):
  """`FlattenGoalObs` that also carries metric keys added from outside through a step: Brax's EvalWrapper
  adds `metrics['reward']` at reset and needs it back from `step`, but our envs return a fresh metrics
  dict each step. Same obs, reward and dynamics as `FlattenGoalObs`."""

  def step(self, state, action):
    out = super().step(state, action)
    return out.replace(metrics={**state.metrics, **out.metrics})


def fresh_wrap(env, episode_length=1000, action_repeat=1, randomization_fn=None):
  """`wrap_env_fn` for Brax: VmapWrapper -> EpisodeWrapper -> FreshAutoReset."""
  if randomization_fn is not None:
    raise ValueError("domain randomisation is not supported by this benchmark")
  return FreshAutoReset(
    brax_training.EpisodeWrapper(brax_training.VmapWrapper(env), episode_length, action_repeat)
  )


# ------------------------------------------------------------------------------------------ evaluation
def make_evaluator(flat_env, episode_length: int, num_envs: int):
  """jit(act_params, key) -> {success_rate, return, episode_length}: `PPO.evaluate`'s loop with any policy.

  `policy(params, obs) -> action`; one episode per env from a fresh reset, success = final step's
  is_success (the env's own `episode_success` from EpisodeStats).
  """
  env = wrappers.Batch(wrappers.EpisodeStats(wrappers.EpisodeLimit(flat_env, episode_length)), num_envs)

  def run(policy, params, key):
    state = env.reset(key)

    def body(carry, _):
      state, finished, acc = carry
      state = env.step(state, policy(params, state.obs))
      m = state.metrics
      first = (state.done > 0) & ~finished
      acc = {k: jnp.where(first, m[f"episode_{k}"], v) for k, v in acc.items()}
      return (state, finished | (state.done > 0), acc), None

    acc0 = {k: jnp.zeros((num_envs,)) for k in ("success", "return", "length")}
    (_, _, acc), _ = jax.lax.scan(body, (state, jnp.zeros((num_envs,), bool), acc0), (), episode_length)
    return {
      "success_rate": jnp.mean(acc["success"]),
      "return": jnp.mean(acc["return"]),
      "episode_length": jnp.mean(acc["length"]),
    }

  return run


# ------------------------------------------------------------------------------------------ runs
class OursRunner:
  """Our PPO, one chunk at a time: `setup()` (init, AOT compile, step-0 eval), `chunk(i)`, `result()`."""

  def __init__(self, flat_env, cfg: ppo_lib.PPOConfig, args, chunk_updates: int, eval_keys):
    self.cfg, self.args, self.eval_keys = cfg, args, eval_keys
    self.chunk_updates = chunk_updates
    self.ppo = ppo = ppo_lib.make_train(flat_env, cfg)
    assert not ppo.flatten, "ours must see the flat obs"
    self.ev = jax.jit(lambda params, obs_norm, key: ppo.evaluate(params, obs_norm, key, args.eval_envs))
    self.per_chunk = chunk_updates * cfg.steps_per_update
    self.chunk_s, self.chunk_compile_s, self.train_metrics, self.curve = [], [], [], []

  def _evaluate(self, i):
    m = jax.device_get(self.ev(self.ts.params, self.ts.obs_norm, self.eval_keys[i]))
    return {
      "success_rate": float(m["eval/success_rate"]),
      "return": float(m["eval/return"]),
      "episode_length": float(m["eval/episode_length"]),
    }

  def setup(self):
    t = time.perf_counter()
    self.ts = jax.jit(self.ppo.init)(jax.random.PRNGKey(self.args.seed))
    jax.block_until_ready(self.ts)
    self.init_s = time.perf_counter() - t
    t = time.perf_counter()
    hits = METER.cache_hits
    self.step = jax.jit(lambda ts: self.ppo.train_many(ts, self.chunk_updates)).lower(self.ts).compile()
    self.compile_s = time.perf_counter() - t
    self.compile_cache_hit = METER.cache_hits > hits
    self.xla = xla_stats(self.step)  # for profiling: flops and bytes of one update (loop bodies once)
    self.curve.append({"env_steps": 0, **self._evaluate(0)})

  def chunk(self, i):
    c0 = METER.secs
    t = time.perf_counter()
    self.ts, m = self.step(self.ts)
    jax.block_until_ready((self.ts, m))
    self.chunk_s.append(time.perf_counter() - t)
    if getattr(self.args, "trace", None) and i == self.args.evals - 1:
      # A jax.profiler trace (TensorBoard / Perfetto) of one more chunk, outside the timings; its result
      # is dropped.
      jax.profiler.start_trace(self.args.trace)
      jax.block_until_ready(self.step(self.ts))
      jax.profiler.stop_trace()
    self.chunk_compile_s.append(METER.secs - c0)
    self.train_metrics.append({k: float(v) for k, v in jax.device_get(m).items()})
    self.curve.append({"env_steps": (i + 1) * self.per_chunk, **self._evaluate(i + 1)})
    print(
      f"  ours  chunk {i + 1}/{self.args.evals}: {self.per_chunk / self.chunk_s[-1]:,.0f} steps/s  "
      f"eval success {self.curve[-1]['success_rate']:.3f} return {self.curve[-1]['return']:.2f}  "
      f"train success {self.train_metrics[-1]['train/success_rate']:.3f}",
      flush=True,
    )

  def result(self):
    return {
      "init_s": self.init_s,
      "compile_s": self.compile_s,
      "compile_cache_hit": self.compile_cache_hit,
      "chunk_s": self.chunk_s,
      "chunk_compile_s": self.chunk_compile_s,
      "steps_per_chunk": [self.per_chunk] * len(self.chunk_s),
      "curve": self.curve,
      "train_metrics": self.train_metrics,
      "xla": self.xla,
    }


def run_brax(
  flat_env,
  cfg: ppo_lib.PPOConfig,
  args,
  chunk_updates: int,
  eval_keys,
  episode_length: int,
  between_epochs=None,
):
  """Brax's PPO; `between_epochs(i)` (optional) runs after Brax's i-th timed epoch, outside its timer."""
  import flax.linen as nn  # pylint: disable=import-outside-toplevel
  from brax.training.agents.ppo import networks as ppo_networks  # pylint: disable=import-outside-toplevel
  from brax.training.agents.ppo import train as brax_ppo  # pylint: disable=import-outside-toplevel

  orth = jax.nn.initializers.orthogonal
  network_factory = functools.partial(
    ppo_networks.make_ppo_networks,
    policy_hidden_layer_sizes=tuple(cfg.policy_hidden),
    value_hidden_layer_sizes=tuple(cfg.value_hidden),
    activation=getattr(nn, cfg.activation),
    distribution_type="normal",
    noise_std_type="log",
    init_noise_std=float(math.exp(cfg.init_log_std)),
    policy_network_kernel_init_fn=orth,
    policy_network_kernel_init_kwargs={"scale": math.sqrt(2.0)},
    value_network_kernel_init_fn=orth,
    value_network_kernel_init_kwargs={"scale": math.sqrt(2.0)},
    mean_kernel_init_fn=orth,
    mean_kernel_init_kwargs={"scale": 0.01},
  )
  total = args.evals * chunk_updates * cfg.steps_per_update
  settings = dict(
    num_timesteps=total,
    num_evals=args.evals + 1,
    episode_length=episode_length,
    action_repeat=1,
    num_envs=cfg.num_envs,
    unroll_length=cfg.unroll_length,
    batch_size=cfg.num_envs // cfg.num_minibatches,
    num_minibatches=cfg.num_minibatches,
    num_updates_per_batch=cfg.update_epochs,
    learning_rate=cfg.learning_rate,
    discounting=cfg.gamma,
    gae_lambda=cfg.gae_lambda,
    entropy_cost=cfg.ent_coef,
    vf_loss_coefficient=cfg.vf_coef,
    clipping_epsilon=cfg.clip_eps,
    max_grad_norm=cfg.max_grad_norm,
    normalize_advantage=cfg.normalize_advantages,
    normalize_observations=cfg.normalize_obs,
    reward_scaling=1.0,
    num_eval_envs=args.eval_envs,
    deterministic_eval=True,
    run_evals=args.brax_own_eval,
    seed=args.seed,
    max_devices_per_host=1,
  )
  extra = {}
  if args.brax_autoreset == "fresh":
    extra["wrap_env_fn"] = fresh_wrap

  progress, snapshots = [], []
  holder = {"marks": []}  # marks: (where, step, METER.secs, METER.cache_hits) at every callback

  def progress_fn(step, metrics):
    holder["marks"].append(("progress", int(step), METER.secs, METER.cache_hits))
    progress.append((int(step), {k: float(np.asarray(v)) for k, v in metrics.items()}))
    if step > 0:
      p = progress[-1][1]
      print(
        f"  brax  step {step}: {p.get('training/sps', float('nan')):,.0f} steps/s (brax timer)", flush=True
      )

  def policy_params_fn(step, make_policy, params):
    holder["marks"].append(("params", int(step), METER.secs, METER.cache_hits))
    holder["make_policy"] = make_policy
    snapshots.append((int(step), jax.device_get(params)))
    if between_epochs is not None and step > 0:
      between_epochs(len(snapshots) - 2)
      holder["marks"].append(("between", int(step), METER.secs, METER.cache_hits))

  t = time.perf_counter()
  make_policy, params, _ = brax_ppo.train(
    environment=BraxFlatEnv(flat_env.env),
    network_factory=network_factory,
    progress_fn=progress_fn,
    policy_params_fn=policy_params_fn,
    **settings,
    **extra,
  )
  total_s = time.perf_counter() - t

  # Per-epoch training times from Brax's own cumulative timer.
  train_points = [(s, m) for s, m in progress if "training/walltime" in m]
  walls = [m["training/walltime"] for _, m in train_points]
  chunk_s = [walls[0]] + [b - a for a, b in zip(walls, walls[1:])]
  steps = [s for s, _ in train_points]
  per_chunk = [steps[0]] + [b - a for a, b in zip(steps, steps[1:])]
  # Compile work inside each training epoch: from the callback before it to its policy_params_fn call
  # (Brax calls policy_params_fn right after the timed epoch, before its evaluation and progress_fn).
  marks = holder["marks"]
  chunk_compile_s, chunk_cache_hits = [], []
  for i, mk in enumerate(marks):
    if mk[0] == "params" and mk[1] > 0:
      chunk_compile_s.append(mk[2] - marks[i - 1][2])
      chunk_cache_hits.append(mk[3] - marks[i - 1][3])

  evaluator = make_evaluator(flat_env, episode_length, args.eval_envs)

  def policy(p, obs):
    return holder["make_policy"](p, deterministic=True)(obs, jax.random.PRNGKey(0))[0]

  ev = jax.jit(functools.partial(evaluator, policy))
  curve = []
  by_step = dict(snapshots)
  eval_steps = sorted(by_step)
  for i, s in enumerate(eval_steps):
    m = jax.device_get(ev(by_step[s], eval_keys[i]))
    point = {"env_steps": s, **{k: float(v) for k, v in m.items()}}
    own = [pm for ps, pm in progress if ps == s and "eval/episode_is_success" in pm]
    if own:
      point["brax_eval_success_step_fraction"] = own[-1]["eval/episode_is_success"] / max(
        own[-1]["eval/avg_episode_length"], 1.0
      )
      point["brax_eval_episode_reward"] = own[-1]["eval/episode_reward"]
    curve.append(point)
  del params
  return {
    "settings": {
      **settings,
      "wrap_env_fn": extra.get("wrap_env_fn", None) and "fresh_wrap",
      "network": "make_ppo_networks(distribution_type='normal', noise_std_type='log', "
      "orthogonal inits, activation=" + cfg.activation + ")",
    },
    "total_s": total_s,
    "chunk_s": chunk_s,
    "steps_per_chunk": per_chunk,
    "chunk_compile_s": chunk_compile_s,
    "chunk_cache_hits": chunk_cache_hits,
    "curve": curve,
    "training_metrics": [m for _, m in train_points],
  }


def summarise(res):
  """(steady steps/s over the chunks without compile work, steps/s over all chunks, steady chunk ids)."""
  chunk_s, steps, comp = res["chunk_s"], res["steps_per_chunk"], res["chunk_compile_s"]
  all_sps = sum(steps) / sum(chunk_s)
  steady = [i for i, c in enumerate(comp) if c < COMPILE_FREE_S]
  if not steady:  # fall back to everything after the first chunk
    steady = list(range(1, len(chunk_s))) or [0]
  sps = sum(steps[i] for i in steady) / sum(chunk_s[i] for i in steady)
  return sps, all_sps, steady


def device_info() -> dict:
  dev = jax.devices()[0]
  import brax  # pylint: disable=import-outside-toplevel
  import mujoco  # pylint: disable=import-outside-toplevel

  cpu = platform.processor()
  try:
    with open("/proc/cpuinfo") as f:
      cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), cpu)
  except OSError:
    pass
  return {
    "device": str(dev),
    "platform": dev.platform,
    "device_kind": getattr(dev, "device_kind", ""),
    "num_devices": jax.device_count(),
    "cpu_model": cpu,
    "cpu_count": os.cpu_count(),
    "jax": jax.__version__,
    "brax": getattr(brax, "__version__", "?"),
    "mujoco": mujoco.__version__,
    "python": platform.python_version(),
    "xla_flags": os.environ.get("XLA_FLAGS", ""),
    "device_put_replicated_shim": JAX_SHIM,
  }


def _rate(r, chunks):
  return sum(r["steps_per_chunk"][i] for i in chunks) / sum(r["chunk_s"][i] for i in chunks)


def report(out):
  """Prints the markdown tables of a result dict (also `--report PATH` for a saved JSON); adds the
  same-chunk rates and ratio to `out`."""
  rows = {k: out[k] for k in ("ours", "brax") if k in out}
  a, dev = out["args"], out["device"]
  if len(rows) == 2:
    # Compare over the chunks that are steady for BOTH (Brax's first two epochs carry compile work).
    common = sorted(set(rows["ours"]["steady_chunks"]) & set(rows["brax"]["steady_chunks"]))
    out["common_steady_chunks"] = common
    for r in rows.values():
      r["common_sps"] = _rate(r, common)
    out["ratio_ours_over_brax"] = rows["ours"]["common_sps"] / rows["brax"]["common_sps"]
  else:
    for r in rows.values():
      r["common_sps"] = r["steady_sps"]
  print()
  print(
    f"### {out['env']}: {out['total_env_steps']:,} env steps each, {a['num_envs']} envs x unroll "
    f"{a['unroll']}, {a['minibatches']} minibatches, {a['epochs']} epochs, {out.get('mode', '')}, "
    f"device {dev['platform']} ({dev['cpu_model']})"
  )
  print()
  chunks = out.get("common_steady_chunks")
  label = f"chunks {[c + 1 for c in chunks]}" if chunks else "steady chunks"
  print(
    f"| algo | train steps/s ({label}) | per-chunk steps/s | compile s | final eval success | "
    "final eval return |"
  )
  print("|---|---:|---|---:|---:|---:|")
  for k, r in rows.items():
    c = r["curve"][-1]
    per = ", ".join(f"{st / t:,.0f}" for st, t in zip(r["steps_per_chunk"], r["chunk_s"]))
    print(
      f"| {k} | {r['common_sps']:,.0f} | {per} | {r['compile_s']:.1f} | {c['success_rate']:.3f} | "
      f"{c['return']:.2f} |"
    )
  if len(rows) == 2:
    print(f"\nsteps/s ratio ours / brax (same chunks): {out['ratio_ours_over_brax']:.2f}")
  print()
  print("| env steps | " + " | ".join(f"{k} eval success | {k} eval return" for k in rows) + " |")
  print("|---:|" + "---:|---:|" * len(rows))
  n = min(len(r["curve"]) for r in rows.values())
  for i in range(n):
    st = next(iter(rows.values()))["curve"][i]["env_steps"]
    cells = " | ".join(
      f"{r['curve'][i]['success_rate']:.3f} | {r['curve'][i]['return']:.2f}" for r in rows.values()
    )
    print(f"| {st:,} | {cells} |")


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--env", choices=sorted(ENVS), default="FetchReach")
  p.add_argument(
    "--steps",
    type=int,
    default=100_000,
    help="env steps per algorithm (rounded up to whole chunks of updates)",
  )
  p.add_argument("--num-envs", type=int, default=128)
  p.add_argument("--unroll", type=int, default=10)
  p.add_argument("--minibatches", type=int, default=4)
  p.add_argument("--epochs", type=int, default=4)
  p.add_argument("--evals", type=int, default=6, help="training chunks; evaluation after each (and at 0)")
  p.add_argument("--eval-envs", type=int, default=128)
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--brax-autoreset", choices=("fresh", "brax"), default="fresh")
  p.add_argument("--brax-own-eval", action="store_true", help="also run Brax's evaluator (slower)")
  p.add_argument("--only", choices=("both", "ours", "brax"), default="both")
  p.add_argument(
    "--sequential",
    action="store_true",
    help="train ours, then Brax (default: interleaved "
    "chunk by chunk, ours' chunk i right after Brax's epoch i, so both see the same load)",
  )
  p.add_argument("--brax-first", action="store_true", help="with --sequential: train Brax first")
  p.add_argument(
    "--cache-dir",
    default=os.path.join(REPO, ".jax_cache"),
    help="persistent compilation cache ('' to disable)",
  )
  p.add_argument("--json", default=None)
  p.add_argument(
    "--trace",
    default=None,
    metavar="DIR",
    help="write a jax.profiler trace of our last training chunk under DIR",
  )
  p.add_argument("--report", default=None, metavar="PATH", help="print the tables of a saved JSON and exit")
  args = p.parse_args(argv)
  if args.report:
    with open(args.report) as f:
      out = json.load(f)
    report(out)
    return out

  if args.cache_dir:
    jax.config.update("jax_compilation_cache_dir", args.cache_dir)
  name, env_over, agent = ENVS[args.env]
  raw = mjx_envs.make(name, **env_over)
  flat_env = wrappers.FlattenGoalObs(raw)
  episode_length = int(raw.episode_length)
  cfg = ppo_lib.PPOConfig(
    num_envs=args.num_envs,
    unroll_length=args.unroll,
    num_minibatches=args.minibatches,
    update_epochs=args.epochs,
    num_eval_envs=args.eval_envs,
    distribution="normal",
    **agent,
  )
  updates = max(1, math.ceil(args.steps / cfg.steps_per_update))
  chunk_updates = math.ceil(updates / args.evals)
  total_steps = args.evals * chunk_updates * cfg.steps_per_update
  cfg = dataclasses.replace(cfg, total_env_steps=total_steps)
  eval_keys = jax.random.split(jax.random.PRNGKey(10_000 + args.seed), args.evals + 1)

  dev = device_info()
  print(
    f"device: {dev['device']} ({dev['platform']}, {dev['cpu_model']}, {dev['cpu_count']} cpus); "
    f"jax {dev['jax']}, brax {dev['brax']}, mujoco {dev['mujoco']}"
  )
  print(
    f"env {args.env} {env_over}: flat obs {flat_env.observation_size}, action {raw.action_size}, "
    f"episode {episode_length}; {total_steps:,} env steps each = {args.evals} chunks x "
    f"{chunk_updates} updates x {cfg.steps_per_update} steps",
    flush=True,
  )

  out = {
    "date": datetime.date.today().isoformat(),
    "device": dev,
    "env": args.env,
    "env_config": env_over,
    "args": vars(args),
    "total_env_steps": total_steps,
    "chunk_updates": chunk_updates,
    "ours_config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(cfg).items()},
  }
  rows = {}

  def finish_ours(runner):
    ours = runner.result()
    ours["steady_sps"], ours["all_sps"], ours["steady_chunks"] = summarise(ours)
    out["ours"] = rows["ours"] = ours

  def finish_brax(bx):
    bx["steady_sps"], bx["all_sps_incl_compile"], bx["steady_chunks"] = summarise(bx)
    # Compile inside Brax's timed epochs: measured (JAX's compile events) and estimated (epoch time minus
    # its steps at the steady rate), over the epochs that had compile work.
    bx["compile_s"] = sum(bx["chunk_compile_s"])
    bx["compile_s_est"] = sum(
      max(0.0, bx["chunk_s"][i] - bx["steps_per_chunk"][i] / bx["steady_sps"])
      for i in range(len(bx["chunk_s"]))
      if i not in bx["steady_chunks"]
    )
    out["brax"] = rows["brax"] = bx

  out["load_avg_start"] = os.getloadavg()
  mode = "interleaved" if (args.only == "both" and not args.sequential) else "sequential"
  out["mode"] = mode
  if mode == "interleaved":
    # Ours' chunk i runs right after Brax's timed epoch i (in Brax's policy_params_fn callback), so both
    # see the same machine load, chunk by chunk.
    print("setting up ours ...", flush=True)
    runner = OursRunner(flat_env, cfg, args, chunk_updates, eval_keys)
    runner.setup()
    print(f"training brax (autoreset={args.brax_autoreset}) interleaved with ours ...", flush=True)
    bx = run_brax(flat_env, cfg, args, chunk_updates, eval_keys, episode_length, between_epochs=runner.chunk)
    finish_ours(runner)
    finish_brax(bx)
  else:
    todo = {"both": ["ours", "brax"], "ours": ["ours"], "brax": ["brax"]}[args.only]
    for which in todo[::-1] if args.brax_first else todo:
      print(f"training {which} ...", flush=True)
      if which == "ours":
        runner = OursRunner(flat_env, cfg, args, chunk_updates, eval_keys)
        runner.setup()
        for i in range(args.evals):
          runner.chunk(i)
        finish_ours(runner)
      else:
        finish_brax(run_brax(flat_env, cfg, args, chunk_updates, eval_keys, episode_length))
  rows = {k: rows[k] for k in ("ours", "brax") if k in rows}
  out["load_avg_end"] = os.getloadavg()
  print(
    f"mode: {out['mode']}; load average at start {out['load_avg_start'][0]:.2f}, "
    f"at end {out['load_avg_end'][0]:.2f}"
  )

  report(out)
  if args.json:
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
      json.dump(out, f, indent=1, default=str)
    print(f"\nwrote {args.json}")
  return out


if __name__ == "__main__":
  main()
