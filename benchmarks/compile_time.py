"""Where compile time goes: per jitted function of a train.py config, trace, lower and XLA-compile times,
the HLO size, and the time to the first training step.

    python -m benchmarks.compile_time                          # the default config, cold (no cache)
    python -m benchmarks.compile_time --config asp_blocks --parts eval
    python -m benchmarks.compile_time --cache DIR              # warm: a persistent cache at DIR
    python -m benchmarks.compile_time --json out.json
    cp benchmarks/compile_time.py OLD/benchmarks/ && (cd OLD && python -m benchmarks.compile_time)  # before

Cold means the persistent compilation cache is off for this process (`--cache` turns it on). The HLO
size is the op count of the optimised module XLA produced. Each function is timed as train.py builds it
(same shardings, same donation), so the sum is train.py's compile cost before the first step.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

import jax

import train
from agents import experiment
from agents.common import sharding


def _hlo_ops(compiled) -> int:
  try:
    text = compiled.as_text()
  except Exception:  # pylint: disable=broad-except  # some backends do not expose it
    return -1
  return len(re.findall(r"^\s*(?:ROOT\s+)?%?[\w.\-]+ = ", text, flags=re.M))


def time_function(name, fn, *args, **jit_kwargs):
  """Trace, lower and compile `jit(fn)(*args)`; returns a row of seconds and the compiled function."""
  t = time.perf_counter()
  traced = jax.jit(fn, **jit_kwargs).trace(*args)
  t_trace = time.perf_counter() - t
  t = time.perf_counter()
  lowered = traced.lower()
  t_lower = time.perf_counter() - t
  t = time.perf_counter()
  compiled = lowered.compile()
  t_compile = time.perf_counter() - t
  row = {
    "function": name,
    "trace_s": round(t_trace, 2),
    "lower_s": round(t_lower, 2),
    "compile_s": round(t_compile, 2),
    "total_s": round(t_trace + t_lower + t_compile, 2),
    "stablehlo_chars": len(lowered.as_text()),
    "hlo_ops": _hlo_ops(compiled),
  }
  print(
    f"  {name:<14} trace {t_trace:6.1f}s  lower {t_lower:5.1f}s  xla {t_compile:6.1f}s  "
    f"hlo ops {row['hlo_ops']}",
    flush=True,
  )
  return row, compiled


def measure(config: str, sets=(), parts=("init", "train", "eval")):
  """Rows for the config's init, train chunk and evaluation functions (as train.py compiles them)."""
  cfg, _ = train.make_config(train.parse_args(["--config", config] + [a for s in sets for a in ("--set", s)]))
  t0 = time.perf_counter()
  env, algo = experiment.build(cfg)
  build_s = time.perf_counter() - t0
  c, rc = algo.config, cfg["run"]
  # As train.py: C physics runs on one host device (its callback takes the whole batch on device 0).
  mesh = (
    sharding.data_mesh(c.num_envs, jax.devices()[:1])
    if train.physics_impl(env) == "c"
    else sharding.data_mesh(c.num_envs)
  )
  key = jax.random.PRNGKey(0)
  rows = [{"function": "build", "total_s": round(build_s, 2)}]
  row, init_c = time_function(
    "init", algo.init, key, out_shardings=sharding.train_state_shardings(algo, mesh)
  )
  rows.append(row)
  ts = init_c(key)
  first_step_s = None
  if "train" in parts:
    n = max(1, min(rc["eval_every"], c.num_updates))
    row, train_c = time_function("train_chunk", lambda t: algo.train_many(t, n), ts, donate_argnums=0)
    rows.append(row)
    t = time.perf_counter()
    ts, _ = train_c(ts)
    jax.block_until_ready(ts)
    rows.append({"function": "first_chunk_run", "total_s": round(time.perf_counter() - t, 2)})
    first_step_s = round(time.perf_counter() - t0, 2)
  if "eval" in parts:
    row, _ = time_function("evaluate", algo.evaluate, ts.params, ts.obs_norm, key)
    rows.append(row)
  # (An older checkout, with this file copied into it for a before/after, may predate evaluation parts.)
  eval_parts = getattr(train, "evaluation_parts", lambda _: {})(algo)
  if "eval_parts" in parts and len(eval_parts) > 1:
    # As train.py compiles them: each part its own function, all at once in threads (XLA compiles a
    # module on about one core, so on a multi-core host they overlap). Its own in-memory cache is off.
    jax.clear_caches()
    t = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(len(eval_parts)) as pool:
      futs = {n: pool.submit(time_function, n, f, ts.params, ts.obs_norm, key) for n, f in eval_parts.items()}
      for f in futs.values():
        rows.append(f.result()[0])
    rows.append({"function": "evaluate_parts_in_parallel", "total_s": round(time.perf_counter() - t, 2)})
  return {
    "config": config,
    "devices": [str(d) for d in jax.devices()],
    "rows": rows,
    "to_first_chunk_end_s": first_step_s,
  }


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--config", default=train.DEFAULT_CONFIG)
  p.add_argument("--set", action="append", default=[])
  p.add_argument(
    "--parts",
    default="init,train,eval,eval_parts",
    help="init, train, eval (evaluate as one function), eval_parts (its parts compiled in "
    "parallel, as train.py does, where an algorithm has several)",
  )
  p.add_argument("--cache", help="persistent compilation cache directory (default: off, a cold compile)")
  p.add_argument("--json", help="write the result here")
  a = p.parse_args(argv)
  if a.cache:
    train.enable_compilation_cache(a.cache)
  else:
    jax.config.update("jax_enable_compilation_cache", False)
  print(f"[{a.config}] devices={jax.devices()} cache={'on' if a.cache else 'off (cold)'}", flush=True)
  out = measure(a.config, a.set, tuple(a.parts.split(",")))
  print(json.dumps(out, indent=1))
  if a.json:
    with open(a.json, "w") as f:
      json.dump(out, f, indent=1)
  return 0


if __name__ == "__main__":
  sys.exit(main())
