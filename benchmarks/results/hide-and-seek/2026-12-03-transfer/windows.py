"""The 2026-12-03 transfer runs read at equal env steps: each run's training-episode return and success
(chunk means, every chunk's ~hundreds of episodes against an evaluation's 32) averaged over windows of
env steps, and the first env steps at which a 5-chunk running mean of the training return reaches each
threshold. Run: python windows.py ROOT [--json OUT]; ROOT holds <task>-<arm>-s<seed>/metrics.jsonl."""

import argparse
import glob
import json
import os

import numpy as np

WINDOW = 256_000
THRESHOLDS = {
  "HnsLockAndReturn": (-3, -2, -1, 0),
  "HnsSequentialLock": (0.5, 1, 1.5, 2),
  "HnsBlueprint": (-18, -16, -14, -12),
  "HnsShelter": (-7.5, -7, -6),
}


def read(run):
  rows = [json.loads(l) for l in open(os.path.join(run, "metrics.jsonl"))]
  return [r for r in rows if "train/hider_return" in r]


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("root")
  ap.add_argument("--json")
  a = ap.parse_args()
  out = {}
  runs = sorted(glob.glob(os.path.join(a.root, "Hns*-s*")))
  runs = [r for r in runs if os.path.isdir(r)]
  by_task = {}
  for run in runs:
    task, arm, seed = os.path.basename(run).split("-")
    by_task.setdefault(task, []).append((arm, seed, run))
  for task, entries in by_task.items():
    common = min(read(run)[-1]["env_steps"] for _, _, run in entries)
    edges = list(range(0, common + 1, WINDOW))
    if edges[-1] < common:
      edges.append(common)
    for arm, seed, run in entries:
      rows = [r for r in read(run) if r["env_steps"] <= common]
      steps = np.array([r["env_steps"] for r in rows])
      ret = np.array([r["train/hider_return"] for r in rows])
      suc = np.array([r.get("train/success", 0.0) for r in rows])
      windows = []
      for lo, hi in zip(edges[:-1], edges[1:]):
        m = (steps > lo) & (steps <= hi)
        if m.any():
          windows.append(
            {
              "to": int(hi),
              "return": round(float(ret[m].mean()), 2),
              "success": round(float(suc[m].mean()), 4),
            }
          )
      run_mean = np.convolve(ret, np.ones(5) / 5, "valid") if len(ret) >= 5 else np.zeros(0)
      reach = {}
      for th in THRESHOLDS.get(task, ()):
        hit = np.nonzero(run_mean >= th)[0]
        reach[str(th)] = int(steps[hit[0] + 4]) if hit.size else None
      out[f"{task}-{arm}-s{seed[1:]}"] = {
        "common_env_steps": int(common),
        "windows": windows,
        "first_reach": reach,
      }
      print(task, arm, seed, "to", common, " ".join(f"{w['return']:+.2f}" for w in windows), reach)
  if a.json:
    with open(a.json, "w") as f:
      json.dump(out, f, indent=1)


if __name__ == "__main__":
  main()
