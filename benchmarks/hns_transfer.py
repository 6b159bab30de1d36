"""The hide-and-seek transfer suite (seed 004, section 6.2, figure 6): fine-tuning from a hide-and-seek run
against training from scratch at the same env steps, and the object-counting probe.

  python benchmarks/hns_transfer.py runs --pretrained RUN_DIR[@N] --root /work/runs/transfer \\
      --steps 300000 | --steps HnsLockAndReturn=300000 HnsBlueprint=90000 ... [--eval-every 5 | TASK=N ...] \\
      [--tasks HnsBlueprint ...] [--seeds 0 1] [--max-minutes 9] [--parallel-arms] [--carry-all] \\
      [--arms scratch] [--set agent.learning_rate=3e-4 ...] --out DIR
  python benchmarks/hns_transfer.py summary --root /work/runs/transfer --out DIR     # transfer.json, .png
  python benchmarks/hns_transfer.py counting --pretrained RUN_DIR[@N] --episodes 1024 --out DIR

`runs` trains each RL task (HnsLockAndReturn, HnsSequentialLock, HnsBlueprint, HnsShelter) with
`train.py --config hns_transfer_cpu`, once from scratch and once with `run.init_from=RUN_DIR` (the layers
that match by name and shape carried over but the config's run.init_fresh, the paper's re-initialised
final dense layer and layer norm: agents.experiment.warm_start; --carry-all carries those too), both for
`--steps` env steps (agent.total_env_steps, per task if need be: the tasks' physics differ in cost;
`--max-minutes` is a safety cap, so both arms are compared at the steps they share), one after the
other, into ROOT/<task>-<scratch|finetuned>-s<seed> with a log beside each. A run that is already
complete is skipped and an interrupted one resumed, so the command can be re-run. Then `summary`: every
run's metrics.jsonl -> DIR/transfer.json (per task and arm: the evaluation curve, the final and best
evaluation return and success, at the env steps both arms reached) and DIR/transfer.png
(benchmarks.plots.transfer_figure), with DIR/counting.json's accuracies when it is there.

Both arms take the pretrained checkpoint's network sizes (`NETWORK_KEYS`, from its run's config), so that a
run of `hns_quadrant` (the paper's network, e.g. a GPU's) warm-starts the same network the scratch arm
trains; a `hns_quadrant_cpu` run gives the config's own sizes. `--set KEY=VALUE` adds any other override
to both arms.

`counting` is the paper's object-counting protocol (appendix C.1): the policy's parameters frozen, a
classification head (layer norm, dense 64, 7 classes: how many of the 6 boxes went left) trained on the
LSTM hidden state at the steps where HnsObjectCounting's label is valid (every box hidden), against the
same with the network's frozen random initial parameters. The agent is pinned and the task ignores its
actions (mjx_envs.hide_and_seek.transfer.ObjectCounting), so both networks watch the same episodes
(batched, jitted, the env's default physics). Episodes are split into a training and a held-out set; the
accuracy reported is the held-out one, over every valid step and at the last step. Chance is the
majority class of Binomial(6, 0.5): 3 boxes, 20/64 = 0.31. -> DIR/counting.json.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import mjx_envs  # first: the XLA:CPU flag
from mjx_envs import wrappers
from mjx_envs.hide_and_seek.env import NEUTRAL_BIN

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

from agents import experiment
from agents.common.networks import zero_carry
from agents.league import surgery
from agents.mappo.entity_net import EntityPolicy
from benchmarks.suite import read_metrics

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RL_TASKS = ("HnsLockAndReturn", "HnsSequentialLock", "HnsBlueprint", "HnsShelter")
ARMS = ("scratch", "finetuned")
CONFIG = "hns_transfer_cpu"
NUM_CLASSES = 7  # 0..6 boxes went left
CHANCE = 20 / 64  # P(3 of 6) under Binomial(6, 0.5): the majority class
# The paper's figure 6 (section 6.2 "Results"), hide-and-seek pretraining against random initialisation.
PAPER = {
  "HnsLockAndReturn": "pretrained slightly better than scratch (and than count-based)",
  "HnsSequentialLock": "pretrained slightly better than scratch (and than count-based)",
  "HnsBlueprint": "pretrained slightly better than scratch (and than count-based; 6 seeds)",
  "HnsShelter": "same final reward as scratch, learns slightly slower",
  "HnsObjectCounting": "pretrained slightly worse than count-based pretraining",
}
SWEEP_FILES = ("config.json", "metrics.jsonl", "init_from.json")  # what a results folder keeps of a run
# The entity network's sizes: both arms take the pretrained run's (module docstring).
NETWORK_KEYS = ("embed", "heads", "head_dim", "dense", "lstm_size")


# --- the RL runs ---------------------------------------------------------------------------------
def run_name(task: str, arm: str, seed: int) -> str:
  return f"{task}-{arm}-s{seed}"


def network_sets(pretrained: str) -> list[str]:
  """["agent.embed=128", ...]: the network sizes (NETWORK_KEYS) that checkpoint N of RUN_DIR (RUN_DIR[@N],
  as run.init_from reads it; no N: the latest) was trained with (`experiment.checkpoint_config`: a later
  `--resume --set` is undone); [] for an exported policy file (it carries no config: the config's sizes)."""
  if os.path.isfile(pretrained.partition("@")[0]):
    return []
  try:
    run_dir, step = experiment.checkpoint_spec(pretrained, "--pretrained")
  except ValueError as e:
    raise SystemExit(f"error: {e}") from None
  agent = experiment.checkpoint_config(run_dir, step)["agent"]
  return [f"agent.{k}={agent[k]}" for k in NETWORK_KEYS if k in agent]


def train_command(
  task,
  arm,
  seed,
  steps,
  run_dir,
  pretrained,
  max_minutes,
  resume=False,
  eval_every=None,
  carry_all=False,
  extra_sets=(),
):
  """The train.py command line of one run (a list for subprocess). The fine-tuned arm re-draws the
  config's run.init_fresh layers (the paper's final dense layer and layer norm); carry_all: it carries
  them too (the protocol of the 2026-11-26 runs). extra_sets: KEY=VALUE overrides of both arms (the
  pretrained run's network_sets, the caller's --set)."""
  cmd = [sys.executable, os.path.join(ROOT, "train.py")]
  if resume:
    return cmd + ["--resume", run_dir, "--no-progress"]
  cmd += ["--config", CONFIG, "--out", run_dir, "--no-progress", "--seed", str(seed), "--steps", str(steps)]
  sets = [f"env.name={task}", "run.count_flops=False", "run.keep_checkpoints=2", *extra_sets]
  if max_minutes:
    sets.append(f"run.max_minutes={max_minutes}")
  if eval_every:
    sets.append(f"run.eval_every={eval_every}")
  if arm == "finetuned":
    sets.append(f"run.init_from={pretrained}")
    if carry_all:
      sets.append("run.init_fresh=[]")
  for s in sets:
    cmd += ["--set", s]
  return cmd


def per_task(values, tasks, kind=int) -> dict:
  """["N"] (every task) or ["TASK=N", ...] (each task named; a lone "N" among them: the rest) -> {task: N}."""
  out, default = {}, None
  for v in values:
    task, eq, n = str(v).rpartition("=")
    if not eq:
      default = kind(float(n)) if kind is int else kind(n)
    elif task not in tasks:
      raise SystemExit(f"error: {v!r}: {task!r} is not one of {list(tasks)}")
    else:
      out[task] = kind(float(n)) if kind is int else kind(n)
  missing = [t for t in tasks if t not in out and default is None]
  if missing:
    raise SystemExit(f"error: no value for {missing} in {list(values)}")
  return {t: out.get(t, default) for t in tasks}


def run_all(
  pretrained,
  root,
  steps,
  tasks=RL_TASKS,
  seeds=(0,),
  max_minutes=0.0,
  eval_every=None,
  parallel_arms=False,
  carry_all=False,
  arms=ARMS,
  extra_sets=(),
):
  """Trains every (task, arm, seed) not yet complete, one after the other (module docstring). steps and
  eval_every: {task: value} (eval_every None: the config's). parallel_arms: a task's two arms run at the
  same time (their compiles overlap, and both train under the same load on a shared machine).
  extra_sets: KEY=VALUE overrides of both arms, after the pretrained run's network sizes."""
  os.makedirs(root, exist_ok=True)
  sets = [*network_sets(pretrained), *extra_sets]
  eval_every = eval_every or {}
  for seed in seeds:
    for task in tasks:
      procs = []
      for arm in arms:
        run_dir = os.path.join(root, run_name(task, arm, seed))
        rows = read_metrics(run_dir)
        if rows and rows[-1]["env_steps"] >= steps[task]:
          print(f"{run_dir}: complete ({rows[-1]['env_steps']} env steps), skipped", flush=True)
          continue
        resume = os.path.exists(os.path.join(run_dir, "config.json")) and bool(rows)
        cmd = train_command(
          task,
          arm,
          seed,
          steps[task],
          run_dir,
          pretrained,
          max_minutes,
          resume,
          eval_every.get(task),
          carry_all,
          sets,
        )
        print(f"{time.strftime('%H:%M:%S')} {' '.join(cmd[1:])}", flush=True)
        with open(run_dir + ".log", "a") as log:
          procs.append(
            (run_dir, time.time(), subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT))
          )
        if not parallel_arms:
          _wait(procs)
          procs = []
      _wait(procs)


def _wait(procs):
  for run_dir, t, proc in procs:
    rc = proc.wait()
    print(f"  {os.path.basename(run_dir)}: exit {rc} after {time.time() - t:.0f}s", flush=True)


def _at(rows, steps):
  return [r for r in rows if r["env_steps"] <= steps and "eval/success_rate" in r]


def summarize_run(run_dir: str, upto: int | None = None, window: int = 3) -> dict:
  """One run's metrics.jsonl -> {"env_steps", "wall_s", "curve": [{env_steps, return, success}],
  "final_return"/"final_success" (the mean of the last `window` evaluations up to `upto` env steps),
  "last_*" (the last one), "best_*" (the best one), "final_train_return"/"final_train_success" (the same
  window of the training episodes' means, where logged)}. The return is the lone agent's
  (eval/hider_return: transfer tasks play the hider body)."""
  rows = _at(read_metrics(run_dir), upto if upto is not None else float("inf"))
  if not rows:
    raise ValueError(f"{run_dir}: no evaluation rows" + (f" up to {upto} env steps" if upto else ""))
  ret = np.array([r["eval/hider_return"] for r in rows])
  suc = np.array([r["eval/success_rate"] for r in rows])
  out = {
    "run_dir": run_dir,
    "env_steps": int(rows[-1]["env_steps"]),
    "wall_s": round(float(rows[-1]["wall_s"]), 1),
    "evaluations": len(rows),
    "final_return": round(float(ret[-window:].mean()), 3),
    "final_success": round(float(suc[-window:].mean()), 3),
    "last_return": round(float(ret[-1]), 3),
    "last_success": round(float(suc[-1]), 3),
    "best_return": round(float(ret.max()), 3),
    "best_success": round(float(suc.max()), 3),
    "curve": [
      {"env_steps": int(r["env_steps"]), "return": float(a), "success": float(b)}
      for r, a, b in zip(rows, ret, suc)
    ],
  }
  train = [r["train/hider_return"] for r in rows if "train/hider_return" in r]
  if train:  # the training episodes of the last evaluations' chunks: many more than an evaluation's 32
    out["final_train_return"] = round(float(np.mean(train[-window:])), 3)
    out["final_train_success"] = round(
      float(np.mean([r.get("train/success", 0.0) for r in rows[-window:]])), 3
    )
  init = os.path.join(run_dir, "init_from.json")
  if os.path.exists(init):
    with open(init) as f:
      record = json.load(f)
    out["init_from"] = {"from": record["from"], "checkpoint": record["checkpoint"]}
    out["carried"], out["fresh"] = len(record["carried"]), record["fresh"]
    out["reinitialised"] = len(record.get("reinitialised", []))  # run.init_fresh's share of the fresh
  with open(os.path.join(run_dir, "config.json")) as f:
    out["seed"] = json.load(f)["run"]["seed"]
  return out


def summary(root: str, out: str | None = None, tasks=RL_TASKS) -> dict:
  """Every run under `root` -> {"tasks": {task: {"compared_at", "paper", arm: [run summaries]}},
  "counting": (out/counting.json, when there)}; written to out/transfer.json and out/transfer.png."""
  names = sorted(
    d
    for d in os.listdir(root)
    if os.path.isdir(os.path.join(root, d)) and read_metrics(os.path.join(root, d))
  )
  result = {"root": root, "config": CONFIG, "tasks": {}}
  result["title"] = f"Hide-and-seek transfer suite ({CONFIG}): fine-tuned from a hide-and-seek run vs scratch"
  for task in tasks:
    dirs = {arm: [os.path.join(root, d) for d in names if d.startswith(f"{task}-{arm}-s")] for arm in ARMS}
    if not all(dirs.values()):
      continue
    # Both arms at the env steps every run of the task reached (max_minutes may cut a run short).
    common = min(read_metrics(d)[-1]["env_steps"] for ds in dirs.values() for d in ds)
    entry = {"compared_at": common, "paper": PAPER[task]}
    for arm, ds in dirs.items():
      entry[arm] = [summarize_run(d, common) for d in ds]
    result["tasks"][task] = entry
  if out:
    os.makedirs(out, exist_ok=True)
    counting = os.path.join(out, "counting.json")
    if os.path.exists(counting):
      with open(counting) as f:
        result["counting"] = json.load(f)
    with open(os.path.join(out, "transfer.json"), "w") as f:
      json.dump(result, f, indent=1)
    from benchmarks import plots  # pylint: disable=import-outside-toplevel

    plots.transfer_figure(result, os.path.join(out, "transfer.png"))
  return result


def table(result: dict) -> str:
  """A markdown table of `summary`'s result: one row per task and arm (mean over seeds)."""
  lines = [
    "| task | arm | seeds | env steps | final return | best return | final success | best success |",
    "|---|---|---|---|---|---|---|---|",
  ]
  for task, entry in result["tasks"].items():
    for arm in ARMS:
      runs = entry[arm]
      m = lambda k: np.mean([r[k] for r in runs])
      lines.append(
        f"| {task} | {arm} | {len(runs)} | {entry['compared_at']:,} | {m('final_return'):.2f} | "
        f"{m('best_return'):.2f} | {m('final_success'):.2f} | {m('best_success'):.2f} |"
      )
  return "\n".join(lines)


# --- object counting ---------------------------------------------------------------------------------
class CountingHead(nn.Module):
  """The paper's classification head: LSTM state [..., H] -> layer norm, dense 64, relu -> logits [..., 7]."""

  @nn.compact
  def __call__(self, x):
    x = nn.relu(nn.Dense(64)(nn.LayerNorm()(x)))
    return nn.Dense(NUM_CLASSES)(x)


def counting_features(env, net, param_sets, key, episodes: int, batch: int, num_steps: int | None = None):
  """Plays `episodes` episodes of HnsObjectCounting (`env`, raw) in batches of `batch`, feeding each
  observation to the policy network `net` (EntityPolicy) under every parameter set in `param_sets`
  ({name: params}) -> ({name: LSTM hidden state h [n, H]}, labels [n] int, episode index [n] int), one row
  per (episode, step) where the label is valid. The env ignores the pinned agent's actions, so the
  networks only watch: the same episodes for every parameter set. num_steps: default env.episode_length."""
  T = int(num_steps or env.episode_length)
  batched = wrappers.Batch(env, batch)
  zero = jnp.zeros((batch, 1), jnp.int32)
  action = {"move": jnp.full((batch, 1, 3), NEUTRAL_BIN, jnp.int32), "grab": zero, "lock": zero}  # ignored

  @jax.jit
  def play(k):
    state = batched.reset(k)
    carries = {n: zero_carry((batch, 1), net.lstm) for n in param_sets}

    def body(loop, _):
      state, carries = loop
      new, hs = {}, {}
      for n, p in param_sets.items():
        _, new[n] = net.apply(p, state.obs, carries[n])
        hs[n] = new[n][1][:, 0]  # h of (c, h): [batch, H]
      out = (hs, state.info["label"], state.info["label_valid"])
      return (batched.step(state, action), new), out

    _, (hs, label, valid) = jax.lax.scan(body, (state, carries), None, T)
    return hs, label, valid  # [T, batch, ...]

  feats = {n: [] for n in param_sets}
  labels, index = [], []
  n_batches = -(-episodes // batch)
  for b, k in enumerate(jax.random.split(key, n_batches)):
    hs, label, valid = jax.device_get(play(k))
    e_idx, t_idx = np.nonzero(valid.T > 0)  # episode-major: each episode's rows in time order
    for n in param_sets:
      feats[n].append(hs[n][t_idx, e_idx])
    labels.append(label[t_idx, e_idx])
    index.append(e_idx + b * batch)
  keep = np.concatenate(index) < episodes
  feats = {n: np.concatenate(v)[keep] for n, v in feats.items()}
  return feats, np.concatenate(labels)[keep].astype(np.int32), np.concatenate(index)[keep]


def train_head(x_train, y_train, key, steps: int = 2000, minibatch: int = 1024, lr: float = 1e-3):
  """Fits a CountingHead on features [n, H] and labels [n] by Adam on minibatches -> its parameters."""
  k_init, k_mb = jax.random.split(key)
  params = jax.jit(CountingHead().init)(k_init, jnp.zeros((1, x_train.shape[1])))
  mb = min(minibatch, x_train.shape[0])
  return _fit(params, jnp.asarray(x_train), jnp.asarray(y_train), k_mb, steps, mb, lr)


@functools.partial(jax.jit, static_argnums=(4, 5, 6))
def _fit(params, x, y, key, steps, mb, lr):
  opt = optax.adam(lr)

  def loss(p, xb, yb):
    return optax.softmax_cross_entropy_with_integer_labels(CountingHead().apply(p, xb), yb).mean()

  def step(carry, k):
    p, s = carry
    idx = jax.random.choice(k, x.shape[0], (mb,), replace=False)
    upd, s = opt.update(jax.grad(loss)(p, x[idx], y[idx]), s, p)
    return (optax.apply_updates(p, upd), s), None

  (p, _), _ = jax.lax.scan(step, (params, opt.init(params)), jax.random.split(key, steps))
  return p


def head_accuracy(params, x, y) -> float:
  """Accuracy of a CountingHead's most likely class on features [n, H] against labels [n]."""
  return float(_accuracy(params, jnp.asarray(x), jnp.asarray(y)))


@jax.jit
def _accuracy(params, x, y):
  return jnp.mean(jnp.argmax(CountingHead().apply(params, x), -1) == y)


def counting_probe(
  env,
  net,
  param_sets,
  key,
  episodes: int = 1024,
  batch: int = 128,
  test_frac: float = 0.25,
  head_steps: int = 2000,
  num_steps: int | None = None,
) -> dict:
  """The probe for every parameter set ({name: policy params}) on the same episodes: `counting_features`,
  then `fit_heads` (its dict)."""
  k_play, k_heads = jax.random.split(key)
  feats, y, ep = counting_features(env, net, param_sets, k_play, episodes, batch, num_steps)
  return fit_heads(feats, y, ep, k_heads, test_frac, head_steps)


def fit_heads(feats, y, ep, key, test_frac: float = 0.25, head_steps: int = 2000) -> dict:
  """Counting heads on `counting_features`' output ({name: [n, H]}, labels [n], episode [n]), trained on
  a random (1 - test_frac) of the episodes -> {name: {"test_acc" (the held-out episodes, every valid step),
  "test_acc_last" (their last step), "train_acc"}, "episodes", "train_episodes", "test_episodes",
  "valid_steps" (per episode), "majority_train" (the held-out accuracy of always answering the training
  set's most common count), "chance", "label_counts"}."""
  k_split, k_head = jax.random.split(key)
  episodes = int(ep.max()) + 1
  n_test = max(1, int(round(episodes * test_frac)))
  test_eps = np.asarray(jax.random.permutation(k_split, episodes))[:n_test]
  test = np.isin(ep, test_eps)
  last = np.zeros_like(test)  # each episode's last valid row (rows are episode-major, in time order)
  last[np.r_[np.nonzero(np.diff(ep))[0], len(ep) - 1]] = True
  majority = int(np.bincount(y[~test], minlength=NUM_CLASSES).argmax())
  out = {
    "episodes": episodes,
    "train_episodes": episodes - n_test,
    "test_episodes": n_test,
    "valid_steps": int(len(y) // episodes),
    "majority_train": round(float(np.mean(y[test] == majority)), 4),
    "chance": round(CHANCE, 4),
    "label_counts": np.bincount(y[last], minlength=NUM_CLASSES).tolist(),
    "head": "layer norm, dense 64 relu, dense 7 (softmax); Adam 1e-3, minibatch 1024",
    "head_steps": head_steps,
  }
  for name, x in feats.items():
    p = train_head(x[~test], y[~test], k_head, head_steps)
    out[name] = {
      "test_acc": round(head_accuracy(p, x[test], y[test]), 4),
      "test_acc_last": round(head_accuracy(p, x[test & last], y[test & last]), 4),
      "train_acc": round(head_accuracy(p, x[~test], y[~test]), 4),
    }
  return out


def pretrained_policy(spec: str):
  """(policy params, network sizes) of a hide-and-seek run "RUN_DIR[@N]" (its latest or N-th checkpoint)."""
  algo, state = experiment.restore_run(*experiment.checkpoint_spec(spec, "--pretrained"))
  c = algo.config
  sizes = dict(embed=c.embed, heads=c.heads, head_dim=c.head_dim, dense=c.dense, lstm=c.lstm_size)
  return state.params["policy"], sizes


def counting(
  pretrained: str, episodes: int, out: str | None, seed: int = 0, batch: int = 128, head_steps=2000
):
  """The object-counting comparison (module docstring): the pretrained policy against the same network's
  random initialisation -> the probe's dict (also out/counting.json)."""
  t0 = time.time()
  donor, sizes = pretrained_policy(pretrained)
  env = mjx_envs.make("HnsObjectCounting")
  net = EntityPolicy(**sizes)
  obs = jax.eval_shape(env.reset, jax.random.PRNGKey(0)).obs  # one world: leaves [1 agent, ...]
  one = jax.tree.map(lambda s: jnp.zeros((1,) + s.shape, s.dtype), obs)
  fresh = jax.jit(net.init)(jax.random.PRNGKey(seed + 100), one, zero_carry((1, 1), sizes["lstm"]))
  trained, record = surgery.transplant(fresh, donor)
  result = counting_probe(
    env,
    net,
    {"pretrained": trained, "random": fresh},
    jax.random.PRNGKey(seed),
    episodes,
    batch,
    head_steps=head_steps,
  )
  result.update(
    pretrained_run=pretrained,
    network=sizes,
    carried=len(record["carried"]),
    fresh=record["fresh"],
    physics=env.impl,
    paper=PAPER["HnsObjectCounting"],
    seconds=round(time.time() - t0, 1),
  )
  print(json.dumps(result, indent=1), flush=True)
  if out:
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "counting.json"), "w") as f:
      json.dump(result, f, indent=1)
  return result


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  sub = p.add_subparsers(dest="cmd", required=True)
  r = sub.add_parser("runs")
  r.add_argument("--pretrained", required=True, help="RUN_DIR[@N] of a hide-and-seek run")
  r.add_argument("--root", required=True, help="where the run directories go")
  r.add_argument(
    "--steps", nargs="+", required=True, help="env steps per run (agent.total_env_steps): N, or TASK=N each"
  )
  r.add_argument("--eval-every", nargs="+", default=[], help="run.eval_every: N, or TASK=N each")
  r.add_argument("--tasks", nargs="+", default=list(RL_TASKS), choices=RL_TASKS)
  r.add_argument("--seeds", nargs="+", type=int, default=[0])
  r.add_argument("--max-minutes", type=float, default=0.0, help="a safety cap per run (run.max_minutes)")
  r.add_argument("--parallel-arms", action="store_true", help="a task's two arms at the same time")
  r.add_argument(
    "--arms", nargs="+", default=list(ARMS), choices=ARMS, help="e.g. scratch only, on another core"
  )
  r.add_argument(
    "--carry-all", action="store_true", help="fine-tuned: carry the paper's re-initialised layers too"
  )
  r.add_argument(
    "--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help="an override of both arms"
  )
  r.add_argument("--out", help="the summary's folder (default ROOT)")
  s = sub.add_parser("summary")
  s.add_argument("--root", required=True)
  s.add_argument("--out", help="default ROOT")
  c = sub.add_parser("counting")
  c.add_argument("--pretrained", required=True)
  c.add_argument("--episodes", type=int, default=1024)
  c.add_argument("--batch", type=int, default=128)
  c.add_argument("--head-steps", type=int, default=2000)
  c.add_argument("--seed", type=int, default=0)
  c.add_argument("--out")
  a = p.parse_args(argv)
  if a.cmd == "counting":
    counting(a.pretrained, a.episodes, a.out, a.seed, a.batch, a.head_steps)
    return
  if a.cmd == "runs":
    steps = per_task(a.steps, a.tasks)
    every = per_task(a.eval_every, a.tasks) if a.eval_every else None
    run_all(
      a.pretrained,
      a.root,
      steps,
      a.tasks,
      a.seeds,
      a.max_minutes,
      every,
      a.parallel_arms,
      a.carry_all,
      a.arms,
      a.sets,
    )
  result = summary(a.root, a.out or a.root)
  print(table(result))


if __name__ == "__main__":
  main()
