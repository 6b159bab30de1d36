"""First-success steps of every scripted controller (MT50's tasks, 8 worlds each, 3 keys, 500 steps, C
backend, one MultiTask), with the arm or the free hand: the group tests' episode lengths.

    python first_success.py arm     # or: free
"""

from mjx_envs.metaworld import multitask, sawyer, tasks
from mjx_envs.metaworld.multitask import MultiTask

import sys

import jax
import jax.numpy as jnp
import numpy as np

arm = sys.argv[1] == "arm"
n = 8
names = [t for t in multitask.MT50_TASKS]
envs = [sawyer.SawyerEnv(tasks.module(t).TASK, impl="c", arm=arm) for t in names]
mt = MultiTask(envs, names, n)
ctrls = [tasks.module(t).scripted for t in names]


@jax.jit
def run(key):
  def body(s, _):
    acts = jnp.concatenate([c(o) for c, o in zip(ctrls, mt.split(s.obs[:, :39]))], 0)
    s = mt.step(s, acts)
    return s, s.metrics["success"]

  return jax.lax.scan(body, mt.reset(key), (), 500)[1]


res = {}
for k in (3, 5, 7):
  succ = np.asarray(run(jax.random.PRNGKey(k))).T.reshape(len(names), n, 500)
  for i, t in enumerate(names):
    first = [int(np.argmax(w > 0)) if w.any() else 999 for w in succ[i]]
    res.setdefault(t, []).extend(first)
for t in names:
  f = sorted(res[t])
  print(t, "first successes (sorted):", f[:3], "...", f[-6:])
