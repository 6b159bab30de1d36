"""Cold and warm start of `train.py`, and its training speed, per host-device count, side by side.

Each trial launches `python train.py --config C --devices N --out DIR ...` as a fresh process and
timestamps its output lines: `first_row_s` is the time from launch to the first logged evaluation row
(imports, env build, compiles, the first train chunk and its evaluation), `ready_s` the time train.py
reports from its first line to the first train step (`startup/first_step_s`), and `sps` the mean
training steps/s over the rows after the first (compile-free). A cold trial uses a fresh, empty
persistent compilation cache; a warm trial re-runs with the cache the cold one filled. Trials of the
different device counts alternate, so a noisy machine affects them alike.

    python -m benchmarks.startup                              # default config, devices 1 and 2, cold + warm
    python -m benchmarks.startup --devices 1,2 --repeats 2 --steps 102400 --json out.json
    python -m benchmarks.startup --train-py /path/to/other/checkout/train.py   # an older revision
    python -m benchmarks.startup --train-py train.py --train-py /tmp/base/train.py:0  # side by side

`--train-py` repeats: the trials of every checkout and device count alternate in one run. `PATH:COUNTS`
gives a checkout its own device counts; 0 omits the flag (an older checkout without `--devices` runs
with its own defaults).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def trial(train_py, config, devices, steps, cache, out, extra=()):
  """One run of train.py; returns its timings."""
  cmd = [
    sys.executable,
    train_py,
    "--config",
    config,
    "--steps",
    str(steps),
    "--out",
    out,
    "--no-progress",
    *extra,
  ]
  if devices:
    cmd += ["--devices", str(devices)]
  env = dict(os.environ, MJX_COMPILATION_CACHE=cache, PYTHONUNBUFFERED="1")
  t0 = time.perf_counter()
  proc = subprocess.Popen(
    cmd,
    cwd=os.path.dirname(os.path.abspath(train_py)),
    env=env,
    stdout=subprocess.PIPE,
    stderr=subprocess.STDOUT,
    text=True,
  )
  first_row, lines = None, []
  for line in proc.stdout:
    lines.append(line.rstrip())
    if first_row is None and line.lstrip().startswith("[") and " steps " in line and "sps=" in line:
      first_row = time.perf_counter() - t0
  proc.wait()
  total = time.perf_counter() - t0
  if proc.returncode:
    raise RuntimeError(f"{' '.join(cmd)} failed:\n" + "\n".join(lines[-30:]))
  rows = [json.loads(l) for l in open(os.path.join(out, "metrics.jsonl"))]
  sps = [r["train/sps"] for r in rows[1:]] or [rows[0]["train/sps"]]
  return {
    "devices": devices,
    "first_row_s": round(first_row, 2),
    "total_s": round(total, 2),
    "ready_s": rows[0].get("startup/first_step_s"),
    "compile_train_s": rows[0].get("compile/train_s"),
    "compile_eval_s": rows[0].get("compile/eval_s"),
    "sps": round(sum(sps) / len(sps), 1),
    "final_success": rows[-1]["eval/success_rate"],
    "env_steps": rows[-1]["env_steps"],
  }


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--config", default="ppo_fetch_reach")
  p.add_argument("--devices", default="1,2", help="comma-separated host-device counts; 0: omit the flag")
  p.add_argument("--steps", type=int, default=38400)
  p.add_argument("--repeats", type=int, default=1)
  p.add_argument("--no-warm", action="store_true", help="cold trials only")
  p.add_argument("--train-py", action="append", help="PATH[:COUNTS]; repeatable (default: this checkout)")
  p.add_argument("--json")
  a = p.parse_args(argv)
  results = []
  load_start = os.getloadavg()  # a busy machine slows every trial: record how busy it was
  combos = []
  for spec in a.train_py or [os.path.join(REPO, "train.py")]:
    path, _, counts = spec.partition(":")
    combos += [(os.path.abspath(path), int(d)) for d in (counts or a.devices).split(",")]
  for rep in range(a.repeats):
    order = combos if rep % 2 == 0 else combos[::-1]
    for train_py, n in order:
      tmp = tempfile.mkdtemp(prefix="startup-")
      try:
        cache = os.path.join(tmp, "cache")
        for kind in ("cold",) if a.no_warm else ("cold", "warm"):
          r = trial(train_py, a.config, n, a.steps, cache, os.path.join(tmp, kind))
          r.update(kind=kind, repeat=rep, train_py=train_py)
          results.append(r)
          print(json.dumps(r), flush=True)
      finally:
        shutil.rmtree(tmp, ignore_errors=True)
  out = {
    "config": a.config,
    "date": time.strftime("%Y-%m-%d %H:%M"),
    "cores": len(os.sched_getaffinity(0)),
    "load_avg_start": load_start,
    "load_avg_end": os.getloadavg(),
    "trials": results,
  }
  if a.json:
    with open(a.json, "w") as f:
      json.dump(out, f, indent=1)
  return 0


if __name__ == "__main__":
  sys.exit(main())
