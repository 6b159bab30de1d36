"""Physics cost: throughput of one env under several physics settings, measured side by side.

Each variant is the same registered env built with different config overrides (e.g. the old and the new
solver settings, or impl="jax" vs impl="warp"). Every variant's rollout (`env_throughput.make_rollout`:
scan of N steps of the vmapped env step, random actions, same batch size and reset states) is compiled
first; then the timed calls ALTERNATE between the variants, `--repeats` rounds, so that the load of a
shared machine hits all variants alike. The median per variant and the ratio to the first variant are
printed (ratio > 1: faster than the first).

    python benchmarks/physics_cost.py --env BlocksPush-1 --batch 256 \\
        --variant 'old:{"iterations": 4, "ls_iterations": 6, "condim": 4}' --variant 'new:{}'
    python benchmarks/physics_cost.py --env FetchPush --batch 64 --variant 'jax:{}' \\
        --variant 'warp:{"impl": "warp"}'

Env names as in `env_throughput.py` (presets, registered names, Blocks*-K).
"""

from __future__ import annotations

import mjx_envs

import argparse
import datetime
import json
import os
import sys
import time

import jax
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import env_throughput as et


def parse_variant(text: str):
  """'label:{json overrides}' -> (label, dict)."""
  label, sep, body = text.partition(":")
  if not sep:
    raise SystemExit(f"--variant must be 'label:{{json}}', got {text!r}")
  return label, json.loads(body or "{}")


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--env", required=True)
  p.add_argument("--variant", action="append", required=True, help="label:{json overrides}; repeatable")
  p.add_argument("--batch", type=int, default=256)
  p.add_argument("--steps", type=int, default=20, help="control steps per timed call")
  p.add_argument("--repeats", type=int, default=5, help="alternating rounds of timed calls")
  p.add_argument("--cache-dir", default=os.path.join(et.REPO, ".jax_cache"))
  p.add_argument("--json", default=None)
  args = p.parse_args(argv)
  if args.cache_dir:
    jax.config.update("jax_compilation_cache_dir", args.cache_dir)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
  reg, base = et.resolve(args.env)
  variants = [parse_variant(v) for v in args.variant]
  print(
    f"# {args.env} batch {args.batch}, {args.steps} steps per call, {args.repeats} alternating rounds; "
    f"device {jax.devices()[0]}, jax {jax.__version__}",
    flush=True,
  )
  runs = []
  for label, over in variants:
    if over.get("impl") == "warp":  # Warp's contact buffer sized for this batch, no larger (as train.py)
      over = {"warp_max_envs": args.batch, **over}
    env = mjx_envs.make(reg, **{**base, **over})
    pool = et.reset_pool(env, seed=0)
    state = et.tile_batch(pool, args.batch)
    fn = et.make_rollout(env, args.batch, args.steps, "random")
    key = jax.random.PRNGKey(0)
    t0 = time.perf_counter()
    compiled = fn.lower(state, key).compile()
    compile_s = time.perf_counter() - t0
    out = jax.block_until_ready(compiled(state, key))  # warm-up
    d = out.pipeline_state
    runs.append(
      {
        "label": label,
        "overrides": over,
        "compile_s": compile_s,
        "times": [],
        "config": et.model_config(env),
        "ncon": int(d._impl.contact.dist.shape[-1]) if env.impl == "jax" else None,
        "nefc": int(d._impl.efc_J.shape[-2]) if env.impl == "jax" else None,
        "fn": compiled,
        "state": state,
      }
    )
    print(
      f"[{label}] {over}: compiled in {compile_s:.1f} s; contacts {runs[-1]['ncon']}, "
      f"constraint rows {runs[-1]['nefc']}",
      file=sys.stderr,
      flush=True,
    )
  for r in range(args.repeats):
    for run in runs:
      key = jax.random.PRNGKey(r + 1)
      t0 = time.perf_counter()
      out = jax.block_until_ready(run["fn"](run["state"], key))
      run["times"].append(time.perf_counter() - t0)
      run["diverged"] = float(np.mean(out.info["diverged"]))
  ref = None
  print("\n| variant | overrides | contacts | constraint rows | compile s | ctrl steps/s (median) | ratio |")
  print("|---|---|---:|---:|---:|---:|---:|")
  for run in runs:
    med = float(np.median(run["times"]))
    run["steps_per_s"] = args.batch * args.steps / med
    ref = ref or run["steps_per_s"]
    run["ratio"] = run["steps_per_s"] / ref
    print(
      f"| {run['label']} | `{json.dumps(run['overrides'])}` | {run['ncon']} | {run['nefc']} | "
      f"{run['compile_s']:.0f} | {run['steps_per_s']:,.0f} | {run['ratio']:.2f} |"
    )
  if args.json:
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
      json.dump(
        {
          "date": datetime.datetime.now().isoformat(timespec="seconds"),
          "argv": sys.argv,
          "env": args.env,
          "batch": args.batch,
          "steps": args.steps,
          "runs": [{k: v for k, v in r.items() if k not in ("fn", "state")} for r in runs],
        },
        f,
        indent=1,
        default=str,
      )
  return 0


if __name__ == "__main__":
  sys.exit(main())
