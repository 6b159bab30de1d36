import mjx_envs
from mjx_envs import wrappers
from mjx_envs.metaworld import sawyer

import dataclasses
import sys
import time

import jax
import jax.numpy as jnp

name, variant = sys.argv[1], sys.argv[2]
jax.config.update("jax_compilation_cache_dir", None) if False else None
mt = mjx_envs.make(name, envs_per_task=2, impl="c")


def trivial_reward(obs, action, reads):
  z = jnp.zeros((), jnp.float32)
  return z, {k: z for k in sawyer.INFO_KEYS}


if "noreward" in variant:
  for t in mt.tasks:
    t.unwrapped.task = dataclasses.replace(t.unwrapped.task, reward=trivial_reward, reads=lambda e, d, c: {})
env = wrappers.wrap_for_training(mt, mt.num_envs)
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
