import mjx_envs
from mjx_envs import wrappers

import sys
import time

import jax
import jax.numpy as jnp

name, variant = sys.argv[1], sys.argv[2]
mt = mjx_envs.make(name, envs_per_task=2, impl="c")
env = mt if variant == "bare" else wrappers.wrap_for_training(mt, mt.num_envs)
s = jax.jit(env.reset)(jax.random.PRNGKey(0))
a = jnp.zeros((mt.num_envs, 4))
f = jax.jit(env.step)
t0 = time.time()
low = f.lower(s, a)
t1 = time.time()
txt = low.as_text()
c = low.compile()
t2 = time.time()
print(
  f"{name} {variant}: lower {t1 - t0:.1f}s compile {t2 - t1:.1f}s stablehlo lines {txt.count(chr(10))}",
  flush=True,
)
