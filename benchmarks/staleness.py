"""Staleness experiment (OpenAI Five, "data quality"): PPO trained on data collected by the parameters of
k train steps ago (`agent.staleness=k`), the paper's asynchronous-rollout setting made exact and
configurable. Each (k, seed) is a full `train.py` run of the same config; the script prints, per k, the
env steps (and wall seconds) to the first evaluation at or above --target, the final success and the
area under the success curve, and writes staleness.png (success against env steps) and staleness.json.

    python benchmarks/staleness.py --out /tmp/stale --staleness 0 1 4 8 16 --seeds 0 1
"""

from __future__ import annotations

import mjx_envs  # noqa: F401  first: sets the XLA:CPU flag before JAX starts

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import train
from agents import experiment


def summarize(rows, target):
  steps = np.array([r["env_steps"] for r in rows])
  succ = np.array([r["eval/success_rate"] for r in rows])
  hit = np.nonzero(succ >= target)[0]
  return {
    "steps_to_target": int(steps[hit[0]]) if hit.size else None,
    "wall_to_target": float(rows[hit[0]]["wall_s"]) if hit.size else None,
    "final": float(succ[-1]),
    "auc": float(np.trapezoid(succ, steps) / (steps[-1] - steps[0] or 1)),
    "staleness_logged": float(np.mean([r["data/staleness"] for r in rows])),
    "steps": steps.tolist(),
    "success": succ.tolist(),
  }


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--config", default="ppo_fetch_reach")
  p.add_argument("--out", required=True)
  p.add_argument("--staleness", type=int, nargs="+", default=[0, 1, 4, 8, 16])
  p.add_argument("--seeds", type=int, nargs="+", default=[0])
  p.add_argument("--set", action="append", default=[], help="extra config overrides (section.key=value)")
  p.add_argument("--target", type=float, default=0.9)
  args = p.parse_args(argv)
  train.setup_devices(train.parse_args([]))
  train.enable_compilation_cache()
  base = experiment.resolve(train.load_config(args.config))
  results = {}
  for k in args.staleness:
    for seed in args.seeds:
      run_dir = os.path.join(args.out, f"k{k}-s{seed}")
      cfg = experiment.set_dotted(base, *args.set, f"agent.staleness={k}", f"run.seed={seed}")
      if not os.path.exists(os.path.join(run_dir, "metrics.jsonl")):
        train.run(cfg, f"staleness-{k}", run_dir, progress=False)
      rows = [json.loads(l) for l in open(os.path.join(run_dir, "metrics.jsonl"))]
      results[f"{k}/{seed}"] = {"k": k, "seed": seed, **summarize(rows, args.target)}
      r = results[f"{k}/{seed}"]
      print(
        f"k={k:3d} seed={seed}: steps to {args.target} {r['steps_to_target']}, final {r['final']:.2f}, "
        f"auc {r['auc']:.3f}, logged staleness {r['staleness_logged']:.2f}",
        flush=True,
      )
  with open(os.path.join(args.out, "staleness.json"), "w") as f:
    json.dump({"config": args.config, "sets": args.set, "target": args.target, "runs": results}, f)
  print(
    f"\n| staleness k | seeds | env steps to {args.target} (each seed) | final success (mean) | "
    "area under success curve (mean) |\n|---|---|---|---|---|"
  )
  for k in args.staleness:
    rs = [r for r in results.values() if r["k"] == k]
    print(
      f"| {k} | {len(rs)} | {', '.join(str(r['steps_to_target']) for r in rs)} | "
      f"{np.mean([r['final'] for r in rs]):.2f} | {np.mean([r['auc'] for r in rs]):.3f} |"
    )
  from matplotlib.figure import Figure  # pylint: disable=import-outside-toplevel

  fig = Figure(figsize=(6, 4))
  ax = fig.subplots()
  cmap = {k: c for k, c in zip(args.staleness, ["C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7"])}
  for r in results.values():
    ax.plot(
      r["steps"],
      r["success"],
      color=cmap.get(r["k"], "k"),
      alpha=0.8,
      label=f"k={r['k']}" if r["seed"] == args.seeds[0] else None,
    )
  ax.set(
    xlabel="env steps",
    ylabel="eval success rate",
    ylim=(-0.02, 1.02),
    title=f"{args.config}: PPO with data k train steps stale",
  )
  ax.legend(fontsize=8)
  fig.tight_layout()
  fig.savefig(os.path.join(args.out, "staleness.png"), dpi=100)
  return 0


if __name__ == "__main__":
  sys.exit(main())
