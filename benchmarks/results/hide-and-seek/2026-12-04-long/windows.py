"""The 2026-12-04 hour-long transfer runs read in windows of 512k env steps: training return, success, the
largest box move and the boxes locked (chunk means), and every evaluation's return and success.
Run: python windows.py ROOT RUN [RUN ...] [--json OUT]; ROOT/RUN holds metrics.jsonl."""

import argparse
import json
import os

import numpy as np

WINDOW = 512_000
KEYS = {
  "return": "train/hider_return",
  "success": "train/success",
  "box_move": "train/max_box_move",
  "box_lock": "train/num_box_lock",
  "sps": "train/sps",
}


def summarise(path):
  rows = [json.loads(line) for line in open(os.path.join(path, "metrics.jsonl"))]
  train = [r for r in rows if "train/hider_return" in r]
  steps = np.array([r["env_steps"] for r in train])
  windows = []
  for lo in range(0, int(steps[-1]), WINDOW):
    idx = np.nonzero((steps > lo) & (steps <= lo + WINDOW))[0]
    if idx.size:
      mean = {
        k: round(float(np.mean([train[i].get(key, np.nan) for i in idx])), 3) for k, key in KEYS.items()
      }
      windows.append({"to": int(min(lo + WINDOW, steps[-1])), **mean})
  evals = [
    {
      "env_steps": r["env_steps"],
      "return": round(r["eval/hider_return"], 2),
      "success": r.get("eval/success_rate"),
    }
    for r in rows
    if "eval/hider_return" in r
  ]
  return {"env_steps": int(steps[-1]), "wall_s": rows[-1]["wall_s"], "windows": windows, "evals": evals}


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("root")
  ap.add_argument("runs", nargs="+")
  ap.add_argument("--json")
  a = ap.parse_args()
  out = {run: summarise(os.path.join(a.root, run)) for run in a.runs}
  for run, r in out.items():
    print(run, r["env_steps"], r["wall_s"])
    for w in r["windows"]:
      print("  ", w)
  if a.json:
    with open(a.json, "w") as f:
      json.dump(out, f, indent=1)


if __name__ == "__main__":
  main()
