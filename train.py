#!/usr/bin/env python
"""Train anything with one command.

  python train.py                          # the default config (PPO on FetchReach)
  python train.py --list                   # list the configs in configs/
  python train.py --config NAME --set agent.learning_rate=1e-3 --steps 2e6 --num-envs 512 --seed 1
  python train.py --resume runs/DIR        # continue an interrupted run exactly
  python train.py --resume runs/DIR --steps 8e6   # extend a run to 8M env steps (kept in its config.json)
  python train.py --resume runs/DIR --set agent.hidden=(128,128)   # surgery: a new architecture, same skill
  python train.py --video                  # also render one episode of the trained policy to video.mp4
  python train.py --video-of runs/DIR@4    # just render checkpoint 4's policy to runs/DIR/video-4.mp4
  python train.py --set 'run.changes=[[5e5, "agent.ent_coef=0.01"]]'   # a change at 500k env steps

The run directory holds config.json, metrics.jsonl (one line per evaluation), TensorBoard events,
learning_curve.png, orbax checkpoints of the whole training state and, with --video, video.mp4. Uses a
GPU/TPU when JAX sees one.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import importlib.util
import json
import os
import sys
import threading
import time

START_TIME = time.time()  # the cold-start clock: train.py's first line, before JAX and MuJoCo load

import mjx_envs  # noqa: F401  # first: guards against the XLA:CPU scan stall before JAX starts
from mjx_envs import _cpu  # noqa: F401

import jax

from agents import experiment
from agents.common import sharding
from agents.common.checkpoint import Checkpointer
from agents.league import flops, surgery

ROOT = os.path.dirname(os.path.abspath(__file__))
CONFIG_DIR = os.path.join(ROOT, "configs")
DEFAULT_CONFIG = "ppo_fetch_reach"
# The two metrics of the progress line and learning_curve.png: (key, label); an algorithm may name its own.
HEADLINE = (("eval/success_rate", "success"), ("eval/return", "return"))


def list_configs():
  return sorted(f[:-3] for f in os.listdir(CONFIG_DIR) if f.endswith(".py") and not f.startswith("_"))


def _config_module(name: str):
  path = os.path.join(CONFIG_DIR, f"{name}.py")
  if not os.path.exists(path):
    raise SystemExit(f"error: unknown config {name!r}; available: {', '.join(list_configs())}")
  spec = importlib.util.spec_from_file_location(f"configs.{name}", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def load_config(name: str):
  """The raw config dict of configs/<name>.py (its get_config())."""
  return _config_module(name).get_config()


def describe_configs():
  """[(name, what it trains: its docstring's first line, its measured figure: its MEASURED string)] for every
  config; None where a config lacks one."""
  rows = []
  for name in list_configs():
    module = _config_module(name)
    doc = (module.__doc__ or "").strip().splitlines()
    rows.append((name, doc[0] if doc else None, getattr(module, "MEASURED", None)))
  return rows


def print_config_list():
  """`--list`: one line per config: its name, what it trains and its measured figure and time."""
  rows = describe_configs()
  width = max(len(n) for n, _, _ in rows) + 2
  for name, what, measured in rows:
    mark = " (the default)" if name == DEFAULT_CONFIG else ""
    print(f"{name:<{width}}{what or '(no description)'}{mark}  |  {measured or 'not yet measured'}")


class _Parser(argparse.ArgumentParser):
  """argparse with its errors on one line (the usage block buries them; --help has it)."""

  def error(self, message):
    self.exit(2, f"error: {message} (python train.py --help lists the options)\n")


def parse_args(argv=None):
  p = _Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--config", default=DEFAULT_CONFIG, help="a file in configs/ (without .py)")
  p.add_argument(
    "--list", action="store_true", help="list the configs (what each trains, its measured figure) and exit"
  )
  p.add_argument(
    "--set",
    action="append",
    default=[],
    metavar="SECTION.KEY=VALUE",
    help="override a config value; repeatable",
  )
  p.add_argument("--steps", type=float, help="total env steps (agent.total_env_steps)")
  p.add_argument("--num-envs", type=int, help="parallel training envs (agent.num_envs)")
  p.add_argument("--seed", type=int, help="run.seed")
  p.add_argument("--out", help="run directory (default runs/<config>-<time>)")
  p.add_argument("--resume", metavar="DIR", help="continue the run in DIR from its latest checkpoint")
  p.add_argument("--no-progress", action="store_true", help="plain log lines instead of a progress bar")
  p.add_argument(
    "--video",
    action="store_true",
    help="after training, render one deterministic episode to RUN_DIR/video.mp4 (self-play: "
    "Bob on the first holdout task); with --resume of a finished run, just the video",
  )
  p.add_argument(
    "--video-of",
    metavar="RUN_DIR[@N]",
    help="render one deterministic episode of a run's checkpoint N (default its latest; N as named in "
    "RUN_DIR/checkpoints) to RUN_DIR/video-N.mp4 (or --out FILE) and exit: no training",
  )
  p.add_argument(
    "--devices",
    type=int,
    metavar="N",
    help="CPU only: split the env batch over N host devices (run.devices; default 0: one per "
    "core, the largest count that divides agent.num_envs; 1 turns it off). The count is "
    "part of the seed: the same count reproduces a run exactly",
  )
  p.add_argument(
    "--distributed",
    action="store_true",
    help="call jax.distributed.initialize() first (multi-host; same code path)",
  )
  return p.parse_args(argv)


def make_config(args):
  """(resolved config, run name) from the command line. A bad value ends here, before anything is built or
  compiled, in SystemExit with one line naming the option or key, the value and what is allowed."""
  if args.resume:
    raw = _with_added_env_keys(_read_run_config(args.resume), args.resume)
    cfg = _or_exit(f"--resume {args.resume}: config.json: ", experiment.resolve, raw)
    name = cfg.get("description") or "resumed"
  else:
    cfg = _or_exit(f"--config {args.config}: ", experiment.resolve, load_config(args.config))
    name = args.config
  sets = list(args.set)
  flags = {}  # key -> the option that set it, for the error message
  # The flags go through the same checks as --set; repr keeps --steps 2.5 a float, refused, not truncated.
  for flag, key, value in (
    ("--steps", "agent.total_env_steps", args.steps),
    ("--num-envs", "agent.num_envs", args.num_envs),
    ("--seed", "run.seed", args.seed),
    ("--devices", "run.devices", args.devices),
  ):
    if value is not None:
      sets.append(f"{key}={value!r}")
      flags[key] = f"{flag} {value:g}: "
  # All at once: checked together, so `--num-envs 6 --set agent.num_minibatches=3` is fine in any order.
  try:
    cfg = experiment.set_dotted(cfg, *sets)
  except ValueError as e:
    prefix = next((p for k, p in flags.items() if str(e).startswith(k + " ")), "")
    raise SystemExit("error: " + prefix + " ".join(str(e).split())) from None
  _or_exit("", experiment.config_at, cfg, 2**62)  # every run.changes entry applies (checked, not kept)
  return cfg, name


def _or_exit(prefix, fn, *args):
  """fn(*args), with a ValueError (experiment.ConfigError, or one a config file's own code raises) turned
  into SystemExit with a one-line message."""
  try:
    return fn(*args)
  except ValueError as e:
    raise SystemExit("error: " + prefix + " ".join(str(e).split())) from None


def _with_added_env_keys(raw, run_dir):
  """`raw` (a run's config.json) with `experiment.ENV_KEYS_ADDED` filled in where it lacks them (printed)."""
  raw, added = experiment.with_added_env_keys(raw)
  if added:
    sets = " ".join(f"env.{k}={json.dumps(v)}" for k, v in added.items())
    print(f"--resume {run_dir}: its config.json predates env keys {sorted(added)}: resuming with {sets}")
  return raw


def _read_run_config(run_dir):
  if not os.path.isdir(run_dir):
    raise SystemExit(
      f"error: --resume {run_dir}: no such directory; --resume takes a run directory that "
      f"train.py wrote (runs/<config>-<time>)"
    )
  path = os.path.join(run_dir, "config.json")
  if not os.path.isfile(path):
    raise SystemExit(
      f"error: --resume {run_dir}: no config.json in it, so it is not a run directory that "
      f"train.py wrote (runs/<config>-<time>)"
    )
  try:
    with open(path) as f:
      return json.load(f)
  except (OSError, ValueError) as e:
    raise SystemExit(f"error: --resume {run_dir}: cannot read config.json: {e}") from None


def enable_compilation_cache(path: str | None = None):
  path = path or os.environ.get(
    "MJX_COMPILATION_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "mjx_goal_rl")
  )
  jax.config.update("jax_compilation_cache_dir", path)
  jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
  jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


class Logger:
  """metrics.jsonl + TensorBoard + a progress bar."""

  def __init__(self, run_dir, total_steps, start_steps, progress=True, headline=HEADLINE):
    self.headline = headline
    from tensorboardX import SummaryWriter  # pylint: disable=import-outside-toplevel

    self.path = os.path.join(run_dir, "metrics.jsonl")
    self.tb = SummaryWriter(os.path.join(run_dir, "tb"))
    self.bar = None
    if progress:
      from tqdm import tqdm  # pylint: disable=import-outside-toplevel

      self.bar = tqdm(
        total=total_steps,
        initial=start_steps,
        unit="step",
        unit_scale=True,
        dynamic_ncols=True,
        smoothing=0.3,
      )

  def log(self, row):
    with open(self.path, "a") as f:
      f.write(json.dumps(row) + "\n")
    for k, v in row.items():
      if isinstance(v, (int, float)) and k != "env_steps":
        self.tb.add_scalar(k, v, row["env_steps"])
    self.tb.flush()
    short = f"sps={row['train/sps']:.0f} " + " ".join(
      f"{label.replace(' ', '_')}={row[key]:.2f}" for key, label in self.headline
    )
    if self.bar is not None:
      self.bar.update(row["env_steps"] - self.bar.n)
      self.bar.set_postfix_str(short)
    else:
      print(f"[{row['env_steps']:>10d} steps {row['wall_s']:7.1f}s] {short}", flush=True)

  def message(self, text):
    (self.bar.write if self.bar is not None else print)(text)

  def close(self):
    if self.bar is not None:
      self.bar.close()
    self.tb.close()


def plot_curve(run_dir, headline=HEADLINE):
  """learning_curve.png from metrics.jsonl: the two headline metrics against env steps, and for a
  multi-task env (metrics `eval/success_rate/<task>`) a third panel with every task's success. Returns
  the Figure."""
  # A bare Figure: no pyplot, so the caller's backend (a notebook's inline one) is left alone.
  from matplotlib.figure import Figure  # pylint: disable=import-outside-toplevel

  rows = [json.loads(l) for l in open(os.path.join(run_dir, "metrics.jsonl"))]
  steps = [r["env_steps"] for r in rows]
  prefix = "eval/success_rate/"
  tasks = sorted({k[len(prefix) :] for r in rows for k in r if k.startswith(prefix)})
  fig = Figure(figsize=(15 if tasks else 10, 3.5))
  axes = fig.subplots(1, 3 if tasks else 2)
  for ax, (key, label) in zip(axes, headline):
    ax.plot(steps, [r[key] for r in rows])
    ax.set(
      xlabel="env steps",
      ylabel="eval " + label,
      **({"ylim": (-0.02, 1.02)} if key == "eval/success_rate" else {}),
    )
  if tasks:
    ax = axes[2]
    for task in tasks:
      ax.plot(steps, [r.get(prefix + task, float("nan")) for r in rows], lw=0.8, label=task)
    ax.set(xlabel="env steps", ylabel="eval success per task", ylim=(-0.02, 1.02))
    ax.legend(fontsize=6, ncol=1 + len(tasks) // 12, loc="upper left")
  fig.suptitle(os.path.basename(os.path.normpath(run_dir)))
  fig.tight_layout()
  fig.savefig(os.path.join(run_dir, "learning_curve.png"), dpi=100)
  return fig


def plot_selfplay(run_dir):
  """selfplay.png from a self-play run's metrics.jsonl: Alice's valid-goal rate, Bob's success by goal
  index, the ABC demonstration fraction, Bob's holdout success per task and the range of the opponent
  pools' quality scores, against env steps."""
  from matplotlib.figure import Figure  # pylint: disable=import-outside-toplevel

  rows = [json.loads(l) for l in open(os.path.join(run_dir, "metrics.jsonl"))]
  steps = [r["env_steps"] for r in rows]
  col = lambda k: [r.get(k, float("nan")) for r in rows]
  fig = Figure(figsize=(17.5, 3.5))
  axes = fig.subplots(1, 5)
  axes[0].plot(steps, col("alice/valid_goal_rate"))
  axes[0].set(xlabel="env steps", ylabel="Alice valid-goal rate", ylim=(-0.02, 1.02))
  goals = sorted(
    {k for r in rows for k in r if k.startswith("bob/success_goal_")}, key=lambda k: int(k.rsplit("_", 1)[1])
  )
  for k in goals:
    axes[1].plot(steps, col(k), label=f"goal {k.rsplit('_', 1)[1]}")
  axes[1].set(xlabel="env steps", ylabel="Bob success", ylim=(-0.02, 1.02))
  axes[1].legend(fontsize=7)
  axes[2].plot(steps, col("abc/demo_frac"))
  axes[2].set(xlabel="env steps", ylabel="ABC demos / Alice steps", ylim=(-0.02, 1.02))
  tasks = sorted({k for r in rows for k in r if k.startswith("holdout/")})
  for k in tasks:
    axes[3].plot(steps, col(k), marker=".", label=k.split("/", 1)[1])
  axes[3].set(xlabel="env steps", ylabel="holdout success", ylim=(-0.02, 1.02))
  axes[3].legend(fontsize=7)
  for agent, color in (("alice", "C1"), ("bob", "C0")):  # the opponent pool's quality scores, min to max
    if f"pool/{agent}/q_min" in rows[-1]:
      axes[4].fill_between(
        steps,
        col(f"pool/{agent}/q_min"),
        col(f"pool/{agent}/q_max"),
        color=color,
        alpha=0.4,
        label=f"past {agent}s",
      )
  axes[4].set(xlabel="env steps", ylabel="pool quality q (min-max)")
  axes[4].legend(fontsize=7)
  fig.suptitle(os.path.basename(os.path.normpath(run_dir)) + ": self-play")
  fig.tight_layout()
  fig.savefig(os.path.join(run_dir, "selfplay.png"), dpi=100)


def plot_emergence(run_dir):
  """emergence.png from a hide-and-seek run's metrics.jsonl, as seed 004's figure 3: the two teams'
  rewards, then the largest box and ramp movement and the number of locked boxes and ramps, each at the
  end of the preparation phase and of the episode, against env steps (training episodes, solid;
  evaluation episodes, dotted)."""
  from matplotlib.figure import Figure  # pylint: disable=import-outside-toplevel

  rows = [json.loads(l) for l in open(os.path.join(run_dir, "metrics.jsonl"))]
  steps = [r["env_steps"] for r in rows]
  col = lambda k: [r.get(k, float("nan")) for r in rows]
  fig = Figure(figsize=(17.5, 3.5))
  axes = fig.subplots(1, 5)
  for team, color in (("hider", "C0"), ("seeker", "C3")):
    axes[0].plot(steps, col(f"train/{team}_return"), color=color, label=f"{team}s")
    axes[0].plot(steps, col(f"eval/{team}_return"), color=color, ls=":")
  axes[0].axhline(0.0, color="0.7", lw=0.8)
  axes[0].set(xlabel="env steps", ylabel="episode reward per agent")
  axes[0].legend(fontsize=7)
  panels = (
    ("max_box_move", "max box movement (m)"),
    ("max_ramp_move", "max ramp movement (m)"),
    ("num_box_lock", "boxes locked"),
    ("num_ramp_lock", "ramps locked"),
  )
  for ax, (k, label) in zip(axes[1:], panels):
    ax.plot(steps, col(f"train/{k}_prep"), color="C2", label="end of preparation")
    ax.plot(steps, col(f"train/{k}"), color="C1", label="end of episode")
    ax.plot(steps, col(f"eval/{k}_prep"), color="C2", ls=":")
    ax.plot(steps, col(f"eval/{k}"), color="C1", ls=":")
    ax.set(xlabel="env steps", ylabel=label)
  axes[1].legend(fontsize=7)
  fig.suptitle(
    os.path.basename(os.path.normpath(run_dir)) + ": emergence (solid: training episodes, dotted: evaluation)"
  )
  fig.tight_layout()
  fig.savefig(os.path.join(run_dir, "emergence.png"), dpi=100)


def _fmt(compile_s):
  return ", ".join(f"{k} {v:.1f}s" for k, v in compile_s.items() if v is not None)


def evaluation_parts(algo):
  """{name: fn(params, obs_norm, key)}: the algorithm's evaluation as separately compiled parts."""
  return algo.evaluation_parts() if hasattr(algo, "evaluation_parts") else {"evaluate": algo.evaluate}


def evaluate_with(algo, futures, params, obs_norm, key):
  """Runs the compiled evaluation parts (waiting for their compiles) and combines their metrics."""
  outs = {name: futures[name].result()(params, obs_norm, key) for name in evaluation_parts(algo)}
  return algo.combine_evaluation(outs) if hasattr(algo, "combine_evaluation") else outs["evaluate"]


def compile_functions(algo, seed, mesh, updates_per_chunk, init=True, say=print, heartbeat_s=20.0):
  """Compiles `init`, the train chunk (`train_many` of `updates_per_chunk` updates) and `evaluate` at
  once, each in a thread, with the env batch split over `mesh`.

  XLA releases the GIL while it compiles, so on a multi-core host the three compiles overlap; the caller
  waits only for what it needs next (train starts before evaluation is compiled). Returns ({name: Future
  of the compiled function}, {name: seconds, filled in as each finishes}). Prints what it is compiling,
  then a line as each finishes and, every `heartbeat_s`, what is still compiling.
  """
  key = jax.random.PRNGKey(seed)
  abstract = jax.eval_shape(algo.init, key)
  shardings = sharding.train_state_shardings(algo, mesh, abstract)
  abstract = sharding.with_shardings(abstract, shardings)
  seconds = {
    **({"init": None} if init else {}),
    "train": None,
    **{name: None for name in evaluation_parts(algo)},
  }
  lock = threading.Lock()
  t0 = time.time()
  # Tracing holds the GIL: evaluation's trace (MT50's: 4-5 s) waits until train's program is lowered, so
  # that it does not delay the first train step; its compile still overlaps train's.
  train_lowered = threading.Event()
  eval_names = set(evaluation_parts(algo))

  def job(name, fn, args, **jit_kwargs):
    def go():
      if name in eval_names:
        train_lowered.wait()
      with jax.set_mesh(mesh) if mesh is not None else contextlib.nullcontext():
        try:
          lowered = jax.jit(fn, **jit_kwargs).lower(*args)
        finally:
          if name == "train":
            train_lowered.set()
        out = lowered.compile()
      with lock:
        seconds[name] = time.time() - t0
      say(f"  compiled {name} in {seconds[name]:.1f}s")
      return out

    return go

  jobs = {
    **({"init": job("init", algo.init, (key,), out_shardings=shardings)} if init else {}),
    "train": job("train", lambda t: algo.train_many(t, updates_per_chunk), (abstract,), donate_argnums=0),
    # An algorithm whose evaluation has independent parts (self-play: one world per holdout block
    # count) has them compiled as separate functions, in parallel; `evaluation` combines them.
    **{
      name: job(name, fn, (abstract.params, abstract.obs_norm, key))
      for name, fn in evaluation_parts(algo).items()
    },
  }
  say(
    f"  compiling {', '.join(jobs)} (cold: about a minute on a CPU; later runs load them from the "
    "persistent cache)"
  )
  pool = concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs), thread_name_prefix="compile")
  futures = {name: pool.submit(go) for name, go in jobs.items()}
  pool.shutdown(wait=False)

  def beat():
    while concurrent.futures.wait(list(futures.values()), timeout=heartbeat_s).not_done:
      with lock:
        left = [n for n, s in seconds.items() if s is None]
      if left:
        say(f"  still compiling {', '.join(left)} ({time.time() - t0:.0f}s)")

  threading.Thread(target=beat, daemon=True).start()
  return futures, seconds


def restore(algo, ckpt, mesh, seed, step=None, saved_by=None):
  """(train state, meta) of a checkpoint (default: the latest), placed as `algo`'s state is on `mesh`.
  saved_by: the algorithm of the run's stored config where its demonstrations differ from `algo`'s (a
  HER learner's `demo_fields` changed on --resume): the checkpoint is read in its shapes and the demos
  collected afresh for `algo`."""
  abstract = jax.eval_shape(algo.init, jax.random.PRNGKey(seed))
  abstract = sharding.with_shardings(abstract, sharding.train_state_shardings(algo, mesh, abstract))
  if saved_by is None:
    ts, meta = ckpt.restore(experiment.checkpoint_view(algo, abstract), step)
    return experiment.from_checkpoint(algo, ts), meta
  old = jax.eval_shape(saved_by.init, jax.random.PRNGKey(seed))
  old = sharding.with_shardings(old, sharding.train_state_shardings(saved_by, mesh, old))
  ts, meta = ckpt.restore(experiment.checkpoint_view(saved_by, old), step)
  ts = algo.recollect_demos(experiment.from_checkpoint(saved_by, ts))
  return jax.tree.map(lambda x, like: jax.device_put(x, like.sharding), ts, abstract), meta


def _plain(x):
  """`x` as config.json holds it: tuples and lists alike."""
  return json.loads(json.dumps(x))


def demos_changed(algo, old_cfg, cfg) -> list:
  """The demonstration settings (`algo.demo_fields`) that a --resume changes, as "agent.<key>"."""
  old, new = _plain(old_cfg["agent"]), _plain(cfg["agent"])
  default = lambda k: _plain(getattr(type(algo.config), k, None))  # a key older runs' config.json lacks
  return [
    f"agent.{k}" for k in getattr(algo, "demo_fields", ()) if old.get(k, default(k)) != new.get(k, default(k))
  ]


def resume_with_surgery(old_cfg, cfg, run_dir, ckpt, algo, fns, mesh, changed, name):
  """`--resume` with a changed architecture (`--set agent.hidden=...`, `agent.lstm_size=...`): the latest
  checkpoint restored in the architecture it was saved in, then carried into the new one by
  agents.league.surgery.migrate (the function unchanged; new weights from the new config's init, new optimiser
  moments zero). The run's config.json becomes the new config, and surgery.jsonl records the change."""
  _, old_algo = experiment.build(old_cfg)
  old_ts, meta = restore(old_algo, ckpt, mesh, old_cfg["run"]["seed"])
  fresh = fns["init"].result()(jax.random.PRNGKey(cfg["run"]["seed"]))
  ts = surgery.migrate(old_cfg["agent"], cfg["agent"], old_ts, fresh)
  ts = jax.tree.map(
    lambda x, like: jax.device_put(x, like.sharding), ts, fresh
  )  # as the compiled step expects
  diff = {k: [old_cfg["agent"][k], cfg["agent"][k]] for k in changed}
  log_config_change(run_dir, "surgery.jsonl", meta, diff, cfg, f"[{name}] surgery at env step", "agent.")
  return ts, meta


def log_config_change(run_dir, log, meta, diff, cfg, headline, prefix=""):
  """Prints `headline` with the env step and each change of `diff` ({key: [old, new]}), appends the
  record to RUN_DIR/`log` and makes `cfg` the run's config.json."""
  changes = ", ".join(f"{prefix}{k} {a} -> {b}" for k, (a, b) in diff.items())
  print(f"{headline} {meta['env_steps']}: {changes}", flush=True)
  with open(os.path.join(run_dir, log), "a") as f:
    f.write(json.dumps({"env_steps": meta["env_steps"], "chunks": meta["chunks"], "changed": diff}) + "\n")
  with open(os.path.join(run_dir, "config.json"), "w") as f:
    json.dump(cfg, f, indent=2)


def record_resume_changes(stored, cfg, run_dir, meta, name, skip=(), headline=None):
  """`--resume` with changed settings other than the architecture (`--set agent.bc_weight=0`,
  `run.max_minutes=...`), or a `run.changes` entry: the run's config.json becomes the new config, so that
  a later plain --resume goes on with them, and changes.jsonl records what changed at which env step.
  skip: keys recorded elsewhere (surgery's, "agent.hidden"); headline: what the printed line calls it."""
  old_cfg, cfg_json = _plain(stored), _plain(cfg)
  diff = {
    f"{section}.{k}": [old_cfg.get(section, {}).get(k), v]
    for section, values in cfg_json.items()
    if isinstance(values, dict)
    for k, v in values.items()
    if old_cfg.get(section, {}).get(k) != v
  }
  for k in ("agent.total_env_steps", *skip):  # the total is recorded on its own above
    diff.pop(k, None)
  if diff:
    what = headline or "resumed with changes"
    log_config_change(run_dir, "changes.jsonl", meta, diff, cfg, f"[{name}] {what} at env step")


def last_change_env_steps(run_dir) -> int:
  """The env steps of the last change changes.jsonl records (0: none): `run.changes` entries at or before
  it have been made (or overridden by a `--resume --set`)."""
  return max((r["env_steps"] for r in experiment.config_changes(run_dir)), default=0)


def checkpoint_env_steps(run_dir) -> int:
  """The env steps of a run directory's latest checkpoint (0: none yet)."""
  if not os.path.isdir(os.path.join(run_dir, "checkpoints")):
    return 0
  ckpt = Checkpointer(run_dir, max_to_keep=None)
  try:
    return ckpt.meta()["env_steps"] if ckpt.latest_step() is not None else 0
  finally:
    ckpt.close()


def rate_checkpoints(run_dir, algo, logger):
  """TrueSkill ratings of the run's kept checkpoints so far (agents.tournament; self-play's Alice and Bob,
  hide-and-seek's hiders and seekers) -> RUN_DIR/ratings.json/.png."""
  from agents import tournament  # pylint: disable=import-outside-toplevel

  t = time.time()
  out = tournament.rate_run(run_dir, algo=algo)
  last = out["checkpoints"][-1]
  first, second = out["sides"]
  logger.message(
    f"  ratings of {len(out['checkpoints'])} checkpoints in {time.time() - t:.0f}s: latest "
    f"{second.capitalize()} mu {last[second]['mu']:.1f}, {first.capitalize()} mu {last[first]['mu']:.1f} "
    "(ratings.png)"
  )


def count_flops(algo, seed, updates_per_chunk):
  """A Future of agents.league.flops.count of one train chunk (HLO cost analysis with loops counted as they
  run), computed in a thread (run starts it after the first chunk); rows log it once it is there."""
  abstract = jax.eval_shape(algo.init, jax.random.PRNGKey(seed))
  pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="flops")
  future = pool.submit(flops.count, lambda t: algo.train_many(t, updates_per_chunk), abstract)
  pool.shutdown(wait=False)
  return future


IMPL_NAMES = {"c": "C MuJoCo on the host (an XLA FFI call)", "jax": "MJX-JAX", "warp": "MuJoCo Warp"}


def physics_impl(env):
  """The resolved physics implementation of `env` (its members' for a multi-task env), or None."""
  inner = getattr(env, "tasks", None) or [getattr(env, "world", env)]
  impls = {getattr(getattr(e, "unwrapped", e), "impl", None) for e in inner}
  return impls.pop() if len(impls) == 1 else None


def run(
  cfg,
  name,
  run_dir,
  resume=False,
  progress=True,
  video=False,
  stop_at=None,
  session_start=None,
  scheduled=False,
):
  """The host loop: compiled chunks of train steps, then evaluate, log and checkpoint; with `video`, an
  episode of the final policy to RUN_DIR/video.mp4. stop_at: env steps (a `run.changes` entry's) after
  which the first evaluation checkpoints and returns; session_start: the time run.max_minutes counts from
  (default: now); scheduled: this resume applies a `run.changes` entry (what the log calls it)."""
  os.makedirs(run_dir, exist_ok=True)
  env, algo = experiment.build(cfg)
  n_envs = cfg["agent"]["num_envs"]
  # The largest batch a compiled function steps: training's, or evaluation's (self-play evaluates its
  # holdout tasks side by side, up to all of them in one batch).
  largest = max(n_envs, cfg["run"]["num_eval_envs"] * max(1, len(getattr(algo.config, "holdout_tasks", ()))))
  # A multi-task env (MT10) steps each task's own model on its own slice of the batch: the devices split
  # every task's worlds, so their count must divide the worlds per task.
  models = [t.mj_model for t in env.tasks] if hasattr(env, "tasks") else [getattr(env, "world", env).mj_model]
  nv = max(m.nv for m in models)
  per_split = n_envs // max(1, getattr(env, "num_tasks", 1))
  devices = sharding.usable_devices(per_split, jax.devices()[: cfg["run"]["devices"] or None], nv, largest)
  cap = getattr(algo, "cpu_max_devices", None)
  if physics_impl(env) == "c" and not cfg["run"]["devices"]:
    # C MuJoCo runs on the host for the whole batch (one callback, its own threads): a second host device
    # would only gather the batch to device 0 and scatter it back every step. --devices N still splits.
    cap = 1
  elif physics_impl(env) == "c" and cfg["run"]["devices"] > 1:
    print(
      f"[{name}] warning: C physics on {cfg['run']['devices']} host devices takes each batch on device 0 "
      "and gains nothing; one benchmark run of this kind deadlocked in XLA's cross-device all-reduce "
      "(BENCHMARKS.md, \"Throughput: the C backend, MJX-JAX and C MuJoCo stepped directly\"). "
      "Leave --devices out to run it on one.",
      flush=True,
    )
  if cap and devices[0].platform == "cpu" and len(devices) > cap:
    if cfg["run"]["devices"] > cap:
      raise SystemExit(
        f"error: run.devices={cfg['run']['devices']}: agent.algo={cfg['agent']['algo']!r} runs on "
        f"at most {cap} CPU device(s) (see {type(algo).__module__}.{type(algo).__name__})"
      )
    devices = devices[:cap]
  if cfg["run"]["devices"] and len(devices) != cfg["run"]["devices"]:
    raise SystemExit(
      f"error: run.devices={cfg['run']['devices']} but {len(devices)} device(s) can split "
      f"agent.num_envs={n_envs} here ({len(jax.devices())} available; on CPU, batches whose "
      f"solver work exceeds a core's share keep one core free: see agents/common/sharding.py)"
    )
  cfg = {**cfg, "run": {**cfg["run"], "devices": len(devices)}}  # the count in force, for --resume
  requested, impl = cfg["env"].get("impl"), physics_impl(env)
  if impl:
    why = f"auto on a {jax.default_backend()} backend" if requested == "auto" else "asked for"
    print(f"[{name}] physics: {IMPL_NAMES.get(impl, impl)} (env.impl={impl}, {why})", flush=True)
  if impl and requested == "auto":  # config.json records the choice: a resume steps the same physics
    cfg = {**cfg, "env": {**cfg["env"], "impl": impl}}
  stored = None
  if not resume:
    with open(os.path.join(run_dir, "config.json"), "w") as f:
      json.dump(cfg, f, indent=2)
  else:
    # A resume that extends the run (--steps) records the new total, so that a later plain --resume
    # continues to it instead of stopping at the old one.
    stored = experiment.run_config(run_dir)
    total = cfg["agent"].get("total_env_steps")
    if stored["agent"].get("total_env_steps") != total:
      print(f"[{name}] agent.total_env_steps {stored['agent'].get('total_env_steps')} -> {total}", flush=True)
      stored["agent"]["total_env_steps"] = total
      with open(os.path.join(run_dir, "config.json"), "w") as f:
        json.dump(stored, f, indent=2)
  c, rc = algo.config, cfg["run"]
  seed = rc["seed"]
  mesh = sharding.data_mesh(c.num_envs, devices)
  ckpt = Checkpointer(run_dir, max_to_keep=rc["keep_checkpoints"])
  resuming = resume and ckpt.latest_step() is not None
  # A chunk is run.eval_every updates, or what is left of the run when that is less (a resume that
  # extends a run by less than a chunk trains to its new total, not past it).
  done_updates = ckpt.meta()["env_steps"] // c.steps_per_update if resuming else 0
  updates_per_chunk = max(1, min(rc["eval_every"], c.num_updates - done_updates))
  print(
    f"[{name}] env={cfg['env']['name']} devices={len(devices)} x {devices[0].platform} "
    f"num_envs={c.num_envs} updates={c.num_updates} ({c.steps_per_update} steps each)",
    flush=True,
  )

  t0 = time.time()
  old_cfg = stored if resuming else None  # its architecture: what surgery compares against
  changed = surgery.changed_fields(old_cfg["agent"], cfg["agent"]) if resuming else []
  if changed and not getattr(algo, "supports_surgery", True):
    raise SystemExit(
      f"error: --resume {run_dir}: agent.{', agent.'.join(changed)} changed, but agent.algo="
      f"{cfg['agent']['algo']!r} has no surgery (agents/league/surgery.py); resume with its architecture"
    )
  fns, compile_s = compile_functions(algo, seed, mesh, updates_per_chunk, init=not resuming or bool(changed))
  flops_future = None  # started after the first chunk (see below)
  if resuming and changed:
    ts, meta = resume_with_surgery(old_cfg, cfg, run_dir, ckpt, algo, fns, mesh, changed, name)
    record_resume_changes(stored, cfg, run_dir, meta, name, skip=[f"agent.{k}" for k in changed])
  elif resuming:
    demo_change = demos_changed(algo, old_cfg, cfg)
    saved_by = experiment.build(old_cfg)[1] if demo_change else None
    ts, meta = restore(algo, ckpt, mesh, seed, saved_by=saved_by)
    if demo_change:
      print(f"[{name}] {', '.join(demo_change)} changed: the demonstrations collected afresh", flush=True)
    headline = "scheduled change (run.changes)" if scheduled else None
    record_resume_changes(stored, cfg, run_dir, meta, name, headline=headline)
  else:
    ts, meta = fns["init"].result()(jax.random.PRNGKey(seed)), {"env_steps": 0, "wall_s": 0.0, "chunks": 0}
    if rc["init_from"]:  # a fresh run only: a resume continues from its own checkpoint
      ts, record = experiment.warm_start(ts, rc["init_from"], algo, rc["init_fresh"])
      with open(os.path.join(run_dir, "init_from.json"), "w") as f:
        json.dump(record, f, indent=1)
      print(
        f"[{name}] warm start from {rc['init_from']}: {len(record['carried'])} arrays carried over, "
        f"{len(record['fresh'])} fresh ({len(record['reinitialised'])} of them by run.init_fresh; init_from.json)",
        flush=True,
      )
  compiled = fns["train"].result()
  to_first_step = time.time() - START_TIME
  compile_train = time.time() - t0
  print(
    f"[{name}] ready to train {to_first_step:.1f}s after start (compile: {_fmt(compile_s)}; "
    f"evaluation compiles alongside the first chunk)",
    flush=True,
  )

  steps_per_chunk = updates_per_chunk * c.steps_per_update
  # What is left is counted in env steps, not chunks: a resume may change the chunk's size (run.eval_every,
  # or a total_env_steps below it), and the run's chunk counter (checkpoint names, changes.jsonl) goes on.
  done = meta["env_steps"]
  left = max(0, c.num_updates - done_updates)
  num_chunks = -(-left // updates_per_chunk)
  headline = getattr(algo, "headline", HEADLINE)
  logger = Logger(run_dir, done + num_chunks * steps_per_chunk, done, progress, headline)
  if num_chunks == 0:
    print(
      f"[{name}] nothing to train: {meta['env_steps']} env steps done, agent.total_env_steps="
      f"{cfg['agent'].get('total_env_steps')}; --resume {run_dir} --steps N goes on to N",
      flush=True,
    )
  wall0 = time.time() - meta["wall_s"]
  # run.max_minutes counts this command's training time only (all its run.changes phases), not the run's
  session0 = session_start or time.time()
  row = None
  try:
    for i in range(num_chunks):
      chunk = meta["chunks"] + i  # the run's count of chunks before this one
      t = time.time()
      ts, m = compiled(ts)
      m = jax.device_get(m)
      sps = steps_per_chunk / (time.time() - t)
      k_eval = jax.random.fold_in(jax.random.PRNGKey(seed + 1), chunk)
      ev = jax.device_get(evaluate_with(algo, fns, ts.params, ts.obs_norm, k_eval))
      env_steps = done + (i + 1) * steps_per_chunk
      row = {
        "env_steps": env_steps,
        "wall_s": round(time.time() - wall0, 3),
        "train/sps": sps,
        **{k: float(v) for k, v in {**m, **ev}.items()},
      }
      # Counting FLOPs lowers every loop body of the train chunk (15-60 s of a core): started once the
      # first chunk has run, so it never delays the start, and only when 3 or more chunks are still to
      # come, where the figure is worth the CPU it takes from training.
      if rc["count_flops"] and flops_future is None and num_chunks - i - 1 >= 3:
        flops_future = count_flops(algo, seed, updates_per_chunk)
      if flops_future is not None and flops_future.done() and flops_future.exception() is None:
        per_step = flops_future.result()["flops"] / updates_per_chunk
        # The compute before this invocation comes from the checkpoint (it may have had another
        # architecture: surgery); a checkpoint without it is counted at today's cost per step.
        before = meta.get("pflops_days")
        if before is None:
          before = flops.pflops_days(per_step * (done // c.steps_per_update))
        row.update(
          {
            "compute/flops_per_step": per_step,
            "compute/pflops_days": before + flops.pflops_days(per_step * (i + 1) * updates_per_chunk),
          }
        )
      if chunk == 0 and meta["chunks"] == 0:
        row.update(
          {
            "compile/train_s": compile_s["train"],
            "compile/eval_s": max(compile_s[k] for k in evaluation_parts(algo)),
            "compile/init_s": compile_s.get("init"),
            "compile/wall_s": compile_train,
            "startup/first_step_s": to_first_step,
          }
        )
      logger.log(row)
      out_of_time = rc["max_minutes"] > 0 and time.time() - session0 >= 60 * rc["max_minutes"]
      changing = stop_at is not None and env_steps >= stop_at and i + 1 < num_chunks
      if (chunk + 1) % rc["checkpoint_every"] == 0 or i + 1 == num_chunks or out_of_time or changing:
        ckpt.save(
          chunk + 1,
          experiment.checkpoint_view(algo, ts),
          {
            "env_steps": env_steps,
            "wall_s": row["wall_s"],
            "chunks": chunk + 1,
            **({"pflops_days": row["compute/pflops_days"]} if "compute/pflops_days" in row else {}),
          },
        )
        rated = cfg["agent"]["algo"] in ("asp", "mappo")
        if rc["ratings_every"] and rated and (chunk + 1) % rc["ratings_every"] == 0:
          rate_checkpoints(run_dir, algo, logger)
      if out_of_time:
        print(
          f"[{name}] stopping at run.max_minutes={rc['max_minutes']}; --resume {run_dir} continues",
          flush=True,
        )
        break
      if changing:
        print(f"[{name}] env step {env_steps}: run.changes due at {stop_at}", flush=True)
        break
  finally:
    logger.close()
    ckpt.close()
  if os.path.exists(os.path.join(run_dir, "metrics.jsonl")):
    plot_curve(run_dir, headline)
    if cfg["agent"]["algo"] == "asp":
      plot_selfplay(run_dir)
    if cfg["agent"]["algo"] == "mappo":
      plot_emergence(run_dir)
  if video:
    t = time.time()
    path = experiment.record_video(
      algo, ts.params, ts.obs_norm, os.path.join(run_dir, "video.mp4"), seed=seed
    )
    print(f"[{name}] video of one evaluation episode: {path} ({time.time() - t:.0f}s)", flush=True)
  return ts, row


def setup_devices(args) -> int:
  """Gives JAX's CPU backend one device per core, or the count asked for (`--devices`, `--set
  run.devices=N`, or a resumed run's `run.devices`), before anything starts the backend, so that `run`
  can split the env batch over every core. Returns the CPU device count in force."""
  requested = args.devices
  for s in args.set:
    key, _, value = s.partition("=")
    if key.strip() == "run.devices" and value.strip().isdigit():
      requested = int(value)  # other values are refused by make_config with the usual message
  if requested is None and args.resume:
    try:
      with open(os.path.join(args.resume, "config.json")) as f:
        requested = json.load(f).get("run", {}).get("devices")
    except (OSError, ValueError, AttributeError):
      requested = None  # make_config reports the unreadable run directory
  if not isinstance(requested, int) or requested < 1:
    requested = sharding.usable_cores()  # 0 or unset: one per core; bad values are reported later
  return sharding.set_cpu_devices(requested)


def video_of_checkpoint(
  spec: str, out: str | None = None, seed: int = 0, overrides=(), width: int = 480, height: int = 360
) -> str:
  """`--video-of RUN_DIR[@N]`: one deterministic episode of checkpoint N's policy (`record_video`, as
  `--video` renders the final one) -> the video's path (RUN_DIR/video-N.mp4 unless `out`). `overrides`
  ('section.key=value', `--set`): settings the parameters' shapes do not depend on."""
  try:
    run_dir, step = experiment.checkpoint_spec(spec, "--video-of")
  except ValueError as e:
    raise SystemExit(f"error: {e}") from None
  ckpt = (
    Checkpointer(run_dir, max_to_keep=None) if os.path.isdir(os.path.join(run_dir, "checkpoints")) else None
  )
  if ckpt is None or not ckpt.steps():
    raise SystemExit(f"error: --video-of {spec!r}: {run_dir} has no checkpoints")
  try:
    kept = ckpt.steps()
    step = kept[-1] if step is None else step
    if step not in kept:
      raise SystemExit(f"error: --video-of {spec!r}: no checkpoint {step}; kept: {kept}")
    env_steps = ckpt.meta(step)["env_steps"]
  finally:
    ckpt.close()
  algo, state = experiment.restore_run(run_dir, step)
  if overrides:  # the checkpoint is read with the run's own config (the env state's structure is part of
    # it, e.g. under another physics impl), then played by the algorithm the overrides build
    try:
      _, algo = experiment.build(
        experiment.set_dotted(experiment.checkpoint_config(run_dir, step), *overrides)
      )
    except (experiment.ConfigError, ValueError) as e:
      raise SystemExit(f"error: --video-of {spec!r}: {e}") from None
    shapes = jax.eval_shape(algo.init, jax.random.PRNGKey(0)).params
    if jax.tree.structure(shapes) != jax.tree.structure(state.params) or any(
      a.shape != b.shape for a, b in zip(jax.tree.leaves(shapes), jax.tree.leaves(state.params))
    ):
      raise SystemExit(f"error: --video-of {spec!r}: --set {list(overrides)} changes the policy's shapes")
  path = out or os.path.join(run_dir, f"video-{step}.mp4")
  t = time.time()
  obs_norm = getattr(state, "obs_norm", None)
  experiment.record_video(algo, state.params, obs_norm, path, seed=seed, width=width, height=height)
  print(f"video of checkpoint {step} ({env_steps} env steps): {path} ({time.time() - t:.0f}s)", flush=True)
  return path


def main(argv=None):
  args = parse_args(argv)
  if args.list:
    print_config_list()
    return 0
  if args.distributed:
    jax.distributed.initialize()
  setup_devices(args)
  enable_compilation_cache()
  if args.video or args.video_of:  # fail before training, not after, if this machine cannot render
    from mjx_envs import render  # pylint: disable=import-outside-toplevel

    try:
      render.check_backend()
    except RuntimeError as e:
      raise SystemExit(f"error: --video{'-of' if args.video_of else ''}: {e}") from None
  if args.video_of:
    if args.resume or args.video:
      raise SystemExit("error: --video-of renders a checkpoint and trains nothing: drop --resume/--video")
    video_of_checkpoint(args.video_of, args.out, args.seed or 0, args.set)
    return 0
  cfg, name = make_config(args)
  if args.resume:
    run_dir = args.resume
  else:
    run_dir = args.out or os.path.join("runs", f"{name}-{time.strftime('%Y%m%d-%H%M%S')}")
    cfg["description"] = cfg.get("description") or name
  # run.changes: the run trains to each change, checkpoints, and goes on as a --resume with the change
  # would, so one command and its resumed halves give the same numbers.
  resume, scheduled, session_start = bool(args.resume), False, time.time()
  while True:
    done = checkpoint_env_steps(run_dir) if resume else 0
    due = experiment.config_at(cfg, done, since=last_change_env_steps(run_dir) if resume else 0)
    stop_at = experiment.next_change(cfg, done)
    if stop_at is not None and cfg["agent"].get("total_env_steps", float("inf")) <= stop_at:
      stop_at = None  # the run ends before the change
    _, row = run(
      due,
      name,
      run_dir,
      resume=resume,
      progress=not args.no_progress,
      video=args.video and stop_at is None,  # the final policy's
      stop_at=stop_at,
      session_start=session_start,
      scheduled=scheduled,
    )
    minutes = due["run"]["max_minutes"]
    out_of_time = minutes > 0 and time.time() - session_start >= 60 * minutes
    if stop_at is None or row is None or row["env_steps"] < stop_at or out_of_time:
      break  # done, or stopped by run.max_minutes (a --resume applies the change that is due)
    resume, scheduled, cfg = True, True, experiment.run_config(run_dir)
  if row is not None:
    print(
      f"done: {row['env_steps']} env steps in {row['wall_s']:.0f}s, "
      f"eval/success_rate={row['eval/success_rate']:.3f}; run directory: {run_dir}"
    )
  return 0


if __name__ == "__main__":
  sys.exit(main())
