import mjx_envs

import sys
import time

import jax
import jax.numpy as jnp

name = sys.argv[1]
mt = mjx_envs.make(name, envs_per_task=2, impl="c")
s = jax.jit(mt.reset)(jax.random.PRNGKey(0))
a = jnp.zeros((mt.num_envs, 4))


def both(s, a, k):
  s2 = mt.step(s, a)
  r = mt.reset(k)
  done = s2.done > 0
  return jax.tree.map(
    lambda x, y: (
      jnp.where(done.reshape(done.shape + (1,) * (x.ndim - 1)), y, x)
      if x.ndim >= 1 and x.shape[:1] == done.shape
      else x
    ),
    s2,
    r,
  )


f = jax.jit(both)
t0 = time.time()
low = f.lower(s, a, jax.random.PRNGKey(1))
t1 = time.time()
txt = low.as_text()
c = low.compile()
t2 = time.time()
print(
  f"{name} bare step+reset: lower {t1 - t0:.1f}s compile {t2 - t1:.1f}s stablehlo lines {txt.count(chr(10))}",
  flush=True,
)
