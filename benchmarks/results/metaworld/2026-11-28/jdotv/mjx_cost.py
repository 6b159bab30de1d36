"""What the J̇v term costs MJX-JAX: the arm's drawer-open model, N worlds, a jitted vmapped mjx.step (one
substep, elliptic_newton's Hessian as the envs use it), lowered, compiled and stepped 5 times, with
`c_jdotv()` or without. One process per measurement (no persistent compilation cache: cold compiles);
run interleaved, e.g. `for w in without with without with; do python mjx_cost.py $w 8; done`
(output: mjx_cost.txt).
"""

from mjx_envs.elliptic_newton import fast_elliptic_newton
from mjx_envs.jdotv import c_jdotv
from mjx_envs.metaworld import sawyer
from mjx_envs.metaworld import tasks as T

import contextlib
import sys
import time

import jax
import jax.numpy as jnp
from mujoco import mjx

env = sawyer.SawyerEnv(T.module("drawer-open-v3").TASK, impl="jax", arm=True)
mx = env.mjx_model
with_term = sys.argv[1] == "with"
N = int(sys.argv[2])
dx = jax.vmap(lambda _: mjx.make_data(mx))(jnp.arange(N))
with fast_elliptic_newton(), c_jdotv() if with_term else contextlib.nullcontext():
  f = jax.jit(jax.vmap(lambda d: mjx.step(mx, d)))
  t = time.perf_counter()
  low = f.lower(dx)
  t1 = time.perf_counter()
  c = low.compile()
  t2 = time.perf_counter()
print(sys.argv[1:], f"lower {t1 - t:.1f} s compile {t2 - t1:.1f} s", flush=True)
out = jax.block_until_ready(c(dx))
t = time.perf_counter()
for _ in range(5):
  out = c(out)
jax.block_until_ready(out)
print(f"step {(time.perf_counter() - t) / 5 * 1e3:.1f} ms", flush=True)
