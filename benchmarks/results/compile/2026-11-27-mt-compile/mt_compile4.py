import mjx_envs
from mjx_envs import wrappers

import sys
import time

import jax
import jax.numpy as jnp

name = sys.argv[1]
ZERO = {
  'act',
  'history',
  'qacc_warmstart',
  'plugin_state',
  'qfrc_applied',
  'xfrc_applied',
  'qacc',
  'act_dot',
  'userdata',
  'sensordata',
  'ximat',
  'xanchor',
  'xaxis',
  'ten_length',
  'cam_xpos',
  'cam_xmat',
  'subtree_com',
  'cvel',
  'cdof',
  'cdof_dot',
  'qfrc_bias',
  'qfrc_gravcomp',
  'qfrc_fluid',
  'qfrc_passive',
  'qfrc_actuator',
  'actuator_force',
  'actuator_length',
  'qfrc_smooth',
  'qfrc_inverse',
  'qfrc_constraint',
  'qacc_smooth',
}
orig_map = jax.tree.map
if sys.argv[2] == "skipzero":
  import mjx_envs.wrappers as W

  class TM:
    def __getattr__(self, k):
      return getattr(jax.tree, k)

    @staticmethod
    def map(f, a, *rest, **kw):
      if hasattr(a, "qpos") and rest:
        b = rest[0]
        return a.replace(
          **{
            k: (getattr(b, k) if k in ZERO else f(getattr(a, k), getattr(b, k)))
            for k in a.__dataclass_fields__
            if not k.startswith('_')
          },
          _impl=orig_map(f, a._impl, b._impl),
        )
      return orig_map(f, a, *rest, **kw)

  class J:
    def __getattr__(self, k):
      return getattr(jax, k)

    tree = TM()

  W.jax = J()
mt = mjx_envs.make(name, envs_per_task=2, impl="c")
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
  f"{name} {sys.argv[2]}: lower {t1 - t0:.1f}s compile {t2 - t1:.1f}s stablehlo lines {txt.count(chr(10))}",
  flush=True,
)
