"""Where MT50's bare step compile goes (SharedMultiTask, C physics, 2 worlds per task): every task's
reward as it is (`full`), with its reads kept live but its arithmetic dropped (`reads`), or constant
(`const`). Run each mode in a fresh process with an empty compilation cache:

    MJX_COMPILATION_CACHE=$(mktemp -d) python benchmarks/results/metaworld/2026-11-28/reward_compile_split.py full
"""

import mjx_envs
from mjx_envs.metaworld import sawyer

import sys
import time

import jax
import jax.numpy as jnp


def reads_only(obs, action, reads):
  del action
  live = sum(jnp.sum(jnp.asarray(v, jnp.float32)) for v in jax.tree.leaves(reads))
  return live * 0 + obs[0], {k: obs[0] for k in sawyer.INFO_KEYS}


def constant(obs, action, reads):
  del action, reads
  return obs[0] * 0, {k: obs[0] * 0 for k in sawyer.INFO_KEYS}


def main(mode: str) -> None:
  mt = mjx_envs.make("MT50", envs_per_task=2, impl="c")
  swap = {"full": None, "reads": reads_only, "const": constant}[mode]
  if swap is not None:
    for t in mt.tasks:
      object.__setattr__(t.task, "reward", swap)
  state = jax.jit(mt.reset)(jax.random.PRNGKey(0))
  t0 = time.perf_counter()
  lowered = jax.jit(mt.step).lower(state, jnp.zeros((mt.num_envs, 4)))
  t1 = time.perf_counter()
  lowered.compile()
  t2 = time.perf_counter()
  print(f"{mode}: lower {t1 - t0:.1f} s, compile {t2 - t1:.1f} s, {lowered.as_text().count(chr(10))} lines")


if __name__ == "__main__":
  main(sys.argv[1])
