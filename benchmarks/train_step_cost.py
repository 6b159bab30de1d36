"""Train-step cost: one config's compiled training step under several settings, measured side by side.

Each variant is the config with `--set`-style overrides (e.g. agent.lstm_size=64). Every variant's
`train_many(ts, --updates)` is compiled first; then the timed calls ALTERNATE between the variants,
`--repeats` rounds, so that the load of a shared machine hits all variants alike. Prints the median
seconds per train step, env steps/s and the ratio to the first variant (> 1: faster).

    python benchmarks/train_step_cost.py --config asp_blocks_cpu --variant 'mlp:' \\
        --variant 'lstm64:agent.lstm_size=64'
"""

from __future__ import annotations

import mjx_envs  # noqa: F401  first: sets the XLA:CPU flag before JAX starts

import argparse
import os
import sys
import time

import jax
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import train
from agents import experiment


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--config", required=True)
  p.add_argument(
    "--variant",
    action="append",
    required=True,
    help="label:key=value[,key=value...] (config overrides, may be empty); repeatable",
  )
  p.add_argument("--updates", type=int, default=2, help="train steps per timed call")
  p.add_argument("--repeats", type=int, default=3, help="alternating rounds of timed calls")
  args = p.parse_args(argv)
  base = experiment.resolve(train.load_config(args.config))
  runs = []
  for text in args.variant:
    label, sep, sets = text.partition(":")
    if not sep:
      raise SystemExit(f"--variant must be 'label:key=value,...', got {text!r}")
    cfg = experiment.set_dotted(base, *[s for s in sets.split(",") if s])
    _, algo = experiment.build(cfg)
    many = jax.jit(algo.train_many, static_argnums=1)
    t0 = time.perf_counter()
    ts = jax.block_until_ready(many(jax.jit(algo.init)(jax.random.PRNGKey(0)), args.updates)[0])
    print(f"# {label}: compiled and ran once in {time.perf_counter() - t0:.1f} s", flush=True)
    runs.append({"label": label, "many": many, "ts": ts, "times": [], "steps": algo.config.steps_per_update})
  for _ in range(args.repeats):
    for r in runs:
      t0 = time.perf_counter()
      r["ts"] = jax.block_until_ready(r["many"](r["ts"], args.updates)[0])
      r["times"].append((time.perf_counter() - t0) / args.updates)
  first = float(np.median(runs[0]["times"]))
  print(
    f"# {args.config}, {args.updates} train steps per call, {args.repeats} rounds; device {jax.devices()[0]}"
  )
  for r in runs:
    med = float(np.median(r["times"]))
    print(
      f"{r['label']}: {med:.3f} s per train step, {r['steps'] / med:,.0f} env steps/s, "
      f"ratio {first / med:.2f}"
    )
  return 0


if __name__ == "__main__":
  sys.exit(main())
