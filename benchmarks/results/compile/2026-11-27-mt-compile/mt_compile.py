"""Compile time of a multi-task batch's step, by variant (2026-11-27; BENCHMARKS.md, "What MT50's compile
time is not"). No compilation cache; prints lowering and compile seconds and the StableHLO line count.

    python mt_compile.py MT10|MT50 VARIANT

VARIANT: base (the training-wrapped step), noreward (every task's reward and reads constant), bare (the
step alone, no wrappers), stepreset (the bare step and reset merged by `where`, as a batch-level
AutoReset would), skipzero (AutoReset not merging the state fields the C backend leaves at zero).
"""

import mjx_envs
from mjx_envs import wrappers
from mjx_envs.metaworld import sawyer

import dataclasses
import sys
import time

import jax
import jax.numpy as jnp

# mjx.Data fields the C backend never fills for a Sawyer world (zero, or zero-size)
ZERO = set(
  "act history qacc_warmstart plugin_state qfrc_applied xfrc_applied qacc act_dot userdata sensordata ximat "
  "xanchor xaxis ten_length cam_xpos cam_xmat subtree_com cvel cdof cdof_dot qfrc_bias qfrc_gravcomp "
  "qfrc_fluid qfrc_passive qfrc_actuator actuator_force actuator_length qfrc_smooth qfrc_inverse "
  "qfrc_constraint qacc_smooth".split()
)


def constant_reward(obs, action, reads):
  z = jnp.zeros((), jnp.float32)
  return z, {k: z for k in sawyer.INFO_KEYS}


def skip_zero_fields():
  """AutoReset's tree.map (in mjx_envs.wrappers) made to keep the zero fields of a Data as they are."""
  orig = jax.tree.map

  def tree_map(f, a, *rest, **kw):
    if hasattr(a, "qpos") and rest:
      b = rest[0]
      fields = {
        k: getattr(b, k) if k in ZERO else f(getattr(a, k), getattr(b, k))
        for k in a.__dataclass_fields__
        if not k.startswith("_")
      }
      fields["_impl"] = orig(f, a._impl, b._impl)
      return a.replace(**fields)
    return orig(f, a, *rest, **kw)

  class Tree:
    def __getattr__(self, k):
      return getattr(jax.tree, k)

    map = staticmethod(tree_map)

  class Jax:
    def __getattr__(self, k):
      return getattr(jax, k)

    tree = Tree()

  wrappers.jax = Jax()


def main(name, variant):
  if variant == "skipzero":
    skip_zero_fields()
  mt = mjx_envs.make(name, envs_per_task=2, impl="c")
  if variant == "noreward":
    for t in mt.tasks:
      t.unwrapped.task = dataclasses.replace(
        t.unwrapped.task, reward=constant_reward, reads=lambda e, d, c: {}
      )
  a = jnp.zeros((mt.num_envs, 4))
  if variant in ("bare", "stepreset"):
    env = mt
  else:
    env = wrappers.wrap_for_training(mt, mt.num_envs)
  s = jax.jit(env.reset)(jax.random.PRNGKey(0))
  if variant == "stepreset":

    def fn(s, a, k):
      s2, r = mt.step(s, a), mt.reset(k)
      done = s2.done > 0
      pick = lambda x, y: (
        jnp.where(done.reshape(done.shape + (1,) * (x.ndim - 1)), y, x)
        if x.ndim >= 1 and x.shape[:1] == done.shape
        else x
      )
      return jax.tree.map(pick, s2, r)

    args = (s, a, jax.random.PRNGKey(1))
  else:
    fn, args = env.step, (s, a)
  t0 = time.time()
  low = jax.jit(fn).lower(*args)
  t1 = time.time()
  txt = low.as_text()
  low.compile()
  t2 = time.time()
  print(f"{name} {variant}: lower {t1 - t0:.1f}s compile {t2 - t1:.1f}s stablehlo lines {txt.count(chr(10))}")


if __name__ == "__main__":
  main(sys.argv[1], sys.argv[2])
