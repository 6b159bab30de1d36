"""What the J̇v term costs MJX-JAX: drawer-open with the arm, impl="jax", 8 worlds, a jitted env.step
(5 substeps), compiled and timed with `c_jdotv()` and with MJX's own rows (core.c_jdotv swapped for a null
context), interleaved A B A B in one process. A plain script sets no persistent compilation cache, so every
compile is cold.

    python benchmarks/results/metaworld/2026-11-28/jdotv/mjx_cost.py
"""

import mjx_envs
from mjx_envs import core, jdotv

import contextlib
import time

import jax
import jax.numpy as jnp

N, STEPS = 8, 20


def measure(with_term):
  core.c_jdotv = jdotv.c_jdotv if with_term else contextlib.nullcontext
  env = mjx_envs.make("metaworld/drawer-open-v3", impl="jax")
  state = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), N))
  step = jax.jit(jax.vmap(env.step))
  act = jnp.zeros((N, env.action_size))
  t = time.perf_counter()
  compiled = step.lower(state, act).compile()
  compile_s = time.perf_counter() - t
  state = jax.block_until_ready(compiled(state, act))
  t = time.perf_counter()
  for k in range(STEPS):
    state = compiled(state, act.at[:, 0].set(0.5 * (-1) ** (k // 5)))
  jax.block_until_ready(state)
  return compile_s, (time.perf_counter() - t) / STEPS


for with_term in (True, False, True, False):
  c, s = measure(with_term)
  print(
    f"{'with J̇v' if with_term else 'MJX own '}: compile {c:.1f} s, step {s * 1e3:.1f} ms ({N} worlds)",
    flush=True,
  )
