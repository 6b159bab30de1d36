"""Launch events in the full hide-and-seek game under random actions (C backend), per scene variant.

    python benchmarks/hns_launches.py --seed 0 base nolock nograb limit_0.02

Counts, over `--worlds` x `--steps` world steps of uniformly random actions (`HideAndSeekEnv.random_action`,
optionally without grabs or locks), the onsets of a speed above 50 (the largest |qvel| of a world, m/s or
rad/s, crossing 50 from below) and the world steps above it. Variants patch the scene's XML (solver and
joint-limit settings) without touching the env. BENCHMARKS.md "Hide-and-seek" has the figures.
"""

from __future__ import annotations

import mjx_envs
from mjx_envs.hide_and_seek import scene as S

import argparse
import json
import time

import jax
import jax.numpy as jnp
import numpy as np

# name -> (XML substitutions, env overrides, action filter: "nograb" / "nolock" / None)
VARIANTS = {
  "base": ([], {}, None),
  "nograb": ([], {}, "grab"),
  "nolock": ([], {}, "lock"),
  "reference_step": ([], {"sim_dt": 0.005, "n_substeps": 15}, None),
  "iterations_20": ([], {"iterations": 20, "ls_iterations": 20}, None),
  "limit_0.02": ([('solreflimit="0.015 1"', 'solreflimit="0.02 1"')], {}, None),
  "limit_0.04": ([('solreflimit="0.015 1"', 'solreflimit="0.04 1"')], {}, None),
  "margin0": ([('margin="0.001"', 'margin="0"')], {}, None),
}


def make(subs, overrides):
  original = S.scene_xml

  def patched(*a, **k):
    xml = original(*a, **k)
    for old, new in subs:
      if old not in xml:
        raise ValueError(f"the scene XML has no {old!r} to patch")
      xml = xml.replace(old, new)
    return xml

  S.scene_xml = patched
  try:
    return mjx_envs.make("HideAndSeek", impl="c", **overrides)
  finally:
    S.scene_xml = original


def count(env, drop, worlds, steps, seed, fast=50.0):
  """{onsets, steps above `fast`, largest speed, wall seconds} of one random-action rollout."""

  @jax.jit
  def roll(key):
    k0, k1 = jax.random.split(key)
    st = jax.vmap(env.reset)(jax.random.split(k0, worlds))

    def body(st, k):
      a = jax.vmap(env.random_action)(jax.random.split(k, worlds))
      if drop:
        a = dict(a, **{drop: jnp.zeros_like(a[drop])})
      st = jax.vmap(env.step)(st, a)
      return st, jnp.abs(st.pipeline_state.qvel).max(-1)

    return jax.lax.scan(body, st, jax.random.split(k1, steps))[1]

  t = time.time()
  qv = np.asarray(roll(jax.random.PRNGKey(seed)))  # [steps, worlds]
  above = qv > fast
  onsets = int(above[0].sum() + (above[1:] & ~above[:-1]).sum())
  return {
    "onsets": onsets,
    "steps_above": int(above.sum()),
    "speed_max": float(qv.max()),
    "world_steps": worlds * steps,
    "wall_s": round(time.time() - t, 1),
  }


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("variants", nargs="+", choices=sorted(VARIANTS))
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--worlds", type=int, default=32)
  p.add_argument("--steps", type=int, default=480)
  args = p.parse_args(argv)
  for name in args.variants:
    subs, overrides, drop = VARIANTS[name]
    r = count(make(subs, overrides), drop, args.worlds, args.steps, args.seed)
    print(json.dumps({"variant": name, "seed": args.seed, **r}), flush=True)


if __name__ == "__main__":
  main()
