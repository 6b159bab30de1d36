"""Physics stability of the block world under hard, policy-like actions: how many episodes diverge.

A trained Alice learns to pinch blocks and squirt them out at > 100 rad/s (the divergence guard,
`MjxEnv.max_qvel`), which ends the game (mjx_envs.blocks.selfplay). This probe drives `--batch` 1-block
BlocksPush envs with binned actions pushed to the extremes (70% of dimensions at bin 0 or 10 each step)
for `--steps` steps and counts the episodes that diverged, per physics variant and seed, with the degree
of freedom that exceeded the guard first (the block's rotation, in every case measured so far).

    python benchmarks/divergence_probe.py --variant 'impratio1:{"impratio": 1.0}' \\
        --variant 'impratio3:{"impratio": 3.0}' --seeds 0 1 2

Figures: BENCHMARKS.md, "An hour with and without ABC" and "Solver iterations against the pinch
divergences"; the grasp-hold trade-off: benchmarks/results/selfplay/NOTES.md, "The divergence probe".
"""

from __future__ import annotations

import mjx_envs

import argparse
import json

import jax
import jax.numpy as jnp
import numpy as np


def probe(overrides, seed: int, batch: int, steps: int):
  """-> (episodes diverged, [nv] count of the dof that first exceeded the guard, the dofs' joint names)."""
  env = mjx_envs.make(
    "BlocksPush",
    num_objects=1,
    action_bins=11,
    terminate_on_success=False,
    terminate_on_fall=False,
    table_portion=0.4,
    **overrides,
  )

  def run(key):
    state = jax.vmap(env.reset)(jax.random.split(key, batch))

    def body(s, k):
      k_bin, k_hard = jax.random.split(k)
      a = jax.random.randint(k_bin, (batch, 6), 0, 11)
      a = jnp.where(jax.random.uniform(k_hard, (batch, 6)) < 0.7, jnp.where(a > 5, 10, 0), a)
      s = jax.vmap(env.step)(s, a)
      return s, (s.info["diverged"], jnp.argmax(jnp.abs(s.pipeline_state.qvel), -1))

    return jax.lax.scan(body, state, jax.random.split(key, steps))[1]

  diverged, worst = (np.asarray(x) for x in jax.jit(run)(jax.random.PRNGKey(seed)))
  hit = diverged.max(0) > 0
  first = diverged.argmax(0)
  dofs = np.bincount([worst[first[i], i] for i in np.where(hit)[0]], minlength=env.mj_model.nv)
  names = [env.mj_model.joint(env.mj_model.dof_jntid[k]).name for k in range(env.mj_model.nv)]
  return int(hit.sum()), dofs, names


def main():
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument(
    "--variant",
    action="append",
    required=True,
    metavar="NAME:JSON",
    help="a name and the env config overrides, e.g. 'new:{}'; repeat to compare",
  )
  p.add_argument("--seeds", type=int, nargs="+", default=[0])
  p.add_argument("--batch", type=int, default=256)
  p.add_argument("--steps", type=int, default=150)
  args = p.parse_args()
  for spec in args.variant:
    name, _, overrides = spec.partition(":")
    total = 0
    for seed in args.seeds:
      n, dofs, names = probe(json.loads(overrides or "{}"), seed, args.batch, args.steps)
      total += n
      first = {}  # per joint (a free joint has 6 dofs): rotation dofs are its last 3
      for k, c in enumerate(dofs):
        if c:
          key = f"{names[k]}[{k - names.index(names[k])}]"
          first[key] = int(c)
      print(f"{name} seed {seed}: {n} of {args.batch} episodes diverged; first over the guard: {first}")
    print(f"{name}: {total} of {args.batch * len(args.seeds)} episodes diverged in all")


if __name__ == "__main__":
  main()
