"""Success versus env steps and versus wall-clock for HER on the Fetch tasks (and PPO baselines).

Runs each named config through `train.run` under a wall-clock budget (or collects run directories
made earlier by train.py), then writes one JSON summary and one figure with both curves:

  python benchmarks/her_fetch.py --configs ddpg_her_fetch_reach,ddpg_her_fetch_push --minutes 30
  python benchmarks/her_fetch.py --collect runs/ddpg_her_fetch_push-2026... runs/ppo_fetch_push-...
  python benchmarks/her_fetch.py --configs ppo_fetch_push,ppo_her_fetch_push --seeds 0 1 2 --minutes 20

With `--seeds`, every config runs once per seed (`run.seed`), and the summary adds one row per config
over its seeds (mean, min and max of the final and best success): a comparison at equal wall-clock.
`--at-minutes M` adds each run's success at M minutes of training (its last evaluation by then; None if
the run ended earlier) and its mean over seeds: the comparison at a common wall-clock when runs were
given different budgets.

The summary lists, per run, the evaluation curve, the best and final success, the success at the
paper's checkpoints (1M and 2M env steps) and the first env step / wall-clock second at which
success reached 0.9 (and 0.95). Wall-clock counts training and evaluation, not compilation (which is
reported separately).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import jax  # pylint: disable=wrong-import-position
import matplotlib  # pylint: disable=wrong-import-position

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # pylint: disable=wrong-import-position

import train  # pylint: disable=wrong-import-position
from agents import experiment  # pylint: disable=wrong-import-position

CHECKPOINTS = (1_000_000, 2_000_000)
THRESHOLDS = (0.9, 0.95)


def summarize(run_dir: str, at_minutes: float | None = None) -> dict:
  """The curve and headline figures of one run directory (with `at_minutes`: "success_at_minutes", the
  last evaluation within that much training wall-clock; None where the run stopped before it)."""
  with open(os.path.join(run_dir, "config.json")) as f:
    cfg = json.load(f)
  rows = [json.loads(l) for l in open(os.path.join(run_dir, "metrics.jsonl"))]
  curve = [
    {"env_steps": r["env_steps"], "wall_s": r["wall_s"], "success": r["eval/success_rate"]} for r in rows
  ]
  out = {
    "run_dir": run_dir,
    "env": cfg["env"]["name"],
    "algo": cfg["agent"]["algo"],
    "description": cfg.get("description", ""),
    "agent": cfg["agent"],
    "curve": curve,
    "env_steps": curve[-1]["env_steps"],
    "wall_s": curve[-1]["wall_s"],
    "final_success": curve[-1]["success"],
    "best_success": max(p["success"] for p in curve),
    "train_sps_median": sorted(r["train/sps"] for r in rows)[len(rows) // 2],
    "compile_s": {k: rows[0][k] for k in ("compile/train_s", "compile/eval_s") if k in rows[0]},
    "seed": cfg.get("run", {}).get("seed"),
  }
  for s in CHECKPOINTS:
    before = [p["success"] for p in curve if p["env_steps"] <= s]
    out[f"success_at_{s // 1_000_000}M"] = before[-1] if before and curve[-1]["env_steps"] >= s else None
  for th in THRESHOLDS:
    hit = [p for p in curve if p["success"] >= th]
    out[f"first_{th}"] = {"env_steps": hit[0]["env_steps"], "wall_s": hit[0]["wall_s"]} if hit else None
  if at_minutes is not None:
    by = [p for p in curve if p["wall_s"] <= 60 * at_minutes]
    reached = curve[-1]["wall_s"] >= 60 * at_minutes * 0.98  # (the last evaluation lands just short)
    out["at_minutes"] = at_minutes
    out["success_at_minutes"] = by[-1]["success"] if by and reached else None
    out["env_steps_at_minutes"] = by[-1]["env_steps"] if by and reached else None
  return out


def over_seeds(summaries) -> list:
  """One row per description (config name) over its runs: seeds, and mean/min/max of final and best
  success, env steps and wall minutes."""
  groups = {}
  for s in summaries:
    groups.setdefault(s["description"] or s["algo"], []).append(s)
  rows = []
  for name, runs in groups.items():
    row = {"name": name, "env": runs[0]["env"], "seeds": [r["seed"] for r in runs]}
    for key in ("final_success", "best_success", "env_steps", "wall_s", "success_at_minutes"):
      v = [r[key] for r in runs if r.get(key) is not None]
      row[key] = {"mean": sum(v) / len(v), "min": min(v), "max": max(v)} if v else None
    rows.append(row)
  return rows


def plot(summaries, path):
  fig, axes = plt.subplots(1, 2, figsize=(11, 4))
  for s in summaries:
    a = s["agent"]
    # The run's name, task and the settings that tell same-named runs apart.
    label = (
      f"{s['description'] or s['algo']} ({s['env']}; {a.get('num_envs')} envs, batch "
      f"{a.get('batch_size', '-')} x {a.get('grad_batches', 1)}; seed {s.get('seed')})"
    )
    xs = [p["env_steps"] for p in s["curve"]]
    ys = [p["success"] for p in s["curve"]]
    axes[0].plot(xs, ys, label=label)
    axes[1].plot([p["wall_s"] / 60 for p in s["curve"]], ys, label=label)
  axes[0].set(xlabel="env steps", ylabel="eval success rate", ylim=(-0.02, 1.02))
  axes[1].set(xlabel="wall-clock minutes (excl. compile)", ylim=(-0.02, 1.02))
  axes[0].legend(fontsize=7)
  fig.tight_layout()
  fig.savefig(path, dpi=100)
  plt.close(fig)


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--configs", default="", help="comma-separated configs to train now")
  p.add_argument("--minutes", type=float, default=30.0, help="wall-clock budget per config")
  p.add_argument("--set", action="append", default=[], help="override for every config (as train.py)")
  p.add_argument("--collect", nargs="*", default=[], help="existing run directories to include")
  p.add_argument("--out", default=None, help="results directory (default benchmarks/results/her-fetch/DATE)")
  p.add_argument("--name", default="her_fetch", help="file name stem of the summary and figure")
  p.add_argument("--seeds", type=int, nargs="*", default=None, help="run every config once per seed")
  p.add_argument("--at-minutes", type=float, default=None, help="also report success at this training time")
  args = p.parse_args(argv)
  out = args.out or os.path.join(
    ROOT, "benchmarks", "results", "her-fetch", datetime.date.today().isoformat()
  )
  os.makedirs(out, exist_ok=True)
  train.enable_compilation_cache()
  run_dirs = list(args.collect)
  for name in filter(None, args.configs.split(",")):
    for seed in args.seeds if args.seeds else [None]:
      cfg = experiment.resolve(train.load_config(name))
      extra = [] if seed is None else [f"run.seed={seed}"]
      for kv in args.set + [f"run.max_minutes={args.minutes}", *extra]:
        cfg = experiment.set_dotted(cfg, kv)
      cfg["description"] = name
      run_dir = os.path.join(out, "runs", name if seed is None else f"{name}-s{seed}")
      train.run(cfg, name, run_dir, progress=False)
      run_dirs.append(run_dir)
  summaries = [summarize(d, args.at_minutes) for d in run_dirs]
  record = {
    "date": datetime.date.today().isoformat(),
    "device": str(jax.devices()[0]),
    "device_kind": jax.devices()[0].device_kind,
    "command": " ".join(sys.argv),
    "runs": summaries,
    "over_seeds": over_seeds(summaries),
  }
  with open(os.path.join(out, f"{args.name}.json"), "w") as f:
    json.dump(record, f, indent=1)
  plot(summaries, os.path.join(out, f"{args.name}.png"))
  print(
    "| run | task | algo | env steps | train min | final / best success | success @1M | first >= 0.9 (steps, train min) |"
  )
  print("|---|---|---|---:|---:|---|---|---|")
  for s in summaries:
    first = s["first_0.9"]
    print(
      f"| {s['description']} | {s['env']} | {s['algo']} | {s['env_steps']:,} | {s['wall_s'] / 60:.1f} | "
      f"{s['final_success']:.2f} / {s['best_success']:.2f} | {s['success_at_1M']} | "
      + (f"{first['env_steps']:,}, {first['wall_s'] / 60:.1f} |" if first else "not reached |")
    )
  at = args.at_minutes
  print(
    "\n| config | task | seeds | final success mean [min, max] | best mean | env steps mean | wall min |"
    + (f" success at {at:g} min, mean [min, max] |" if at is not None else "")
  )
  print("|---|---|---|---|---:|---:|---:|" + ("---|" if at is not None else ""))
  for g in record["over_seeds"]:
    f, b, a = g["final_success"], g["best_success"], g["success_at_minutes"]
    print(
      f"| {g['name']} | {g['env']} | {g['seeds']} | {f['mean']:.2f} [{f['min']:.2f}, {f['max']:.2f}] | "
      f"{b['mean']:.2f} | {g['env_steps']['mean']:,.0f} | {g['wall_s']['mean'] / 60:.1f} |"
      + ("" if at is None else (f" {a['mean']:.2f} [{a['min']:.2f}, {a['max']:.2f}] |" if a else " - |"))
    )
  for s in summaries:
    print(
      f"{s['description']:>24} {s['env']:>18}: final {s['final_success']:.2f} best {s['best_success']:.2f} "
      f"after {s['env_steps']} steps / {s['wall_s'] / 60:.1f} min; @1M {s['success_at_1M']} "
      f"first>=0.9 {s['first_0.9']}"
    )
  return 0


if __name__ == "__main__":
  sys.exit(main())
