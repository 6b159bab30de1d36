"""Would a table of precomputed episode starts shorten the multi-task compile? (2026-11-27; BENCHMARKS.md,
"What MT50's compile time is not"). No: measured, MT10 saves 3 s of 27, MT50 loses 23 s of 119.

With `fixed_rand_vecs=50` a Sawyer reset is a function of the vector's index alone, so every start can be
computed once (one jitted program for all tasks) and a reset becomes a gather from that table, taking the
reset's code out of the auto-resetting step. The table enters the programs as constants (~6 KB a world
under C, 300 KB a task). Prints each program's seconds, the StableHLO line count, and a checksum of the
observations after 501 steps (an auto-reset crossed) that must match between the variants.

    python reset_table.py MT10|MT50 base|table
"""

import mjx_envs
from mjx_envs import wrappers
from mjx_envs.metaworld import sawyer

import sys
import time

import jax
import jax.numpy as jnp


def main(name, variant):
  mt = mjx_envs.make(name, envs_per_task=2, impl="c", fixed_rand_vecs=50)
  if variant == "table":
    t0 = time.time()
    tables = jax.jit(lambda: [jax.vmap(e.reset_to)(jnp.asarray(e.fixed_rand_vecs)) for e in mt.tasks])()
    jax.block_until_ready(tables)
    print(f"table program {time.time() - t0:.1f}s", flush=True)
    for e, table in zip(mt.tasks, tables):
      e.start_table = table

    def reset(self, rng):
      idx = jax.random.randint(rng, (), 0, self.fixed_rand_vecs.shape[0])
      return jax.tree.map(lambda t: t[idx], self.start_table)

    sawyer.SawyerEnv.reset = reset
  env = wrappers.wrap_for_training(mt, mt.num_envs)
  t0 = time.time()
  s = jax.block_until_ready(jax.jit(env.reset)(jax.random.PRNGKey(0)))
  print(f"init {time.time() - t0:.1f}s", flush=True)
  a = jnp.zeros((mt.num_envs, 4))
  t0 = time.time()
  low = jax.jit(env.step).lower(s, a)
  t1 = time.time()
  lines = low.as_text().count("\n")
  low.compile()
  t2 = time.time()
  print(f"{name} {variant}: lower {t1 - t0:.1f}s compile {t2 - t1:.1f}s lines {lines}", flush=True)
  run = jax.jit(lambda s: jax.lax.scan(lambda s, _: (env.step(s, a), None), s, None, length=501)[0])
  print("checksum", float(jnp.sum(run(s).obs)), float(jnp.sum(s.obs)))


if __name__ == "__main__":
  main(sys.argv[1], sys.argv[2])
