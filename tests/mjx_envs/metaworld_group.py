"""The Meta-World part-2 group tests' shared check (test_metaworld_<group>.py): ONE batched C-backend
rollout of a group's tasks, each world following its task's scripted controller, and the checks every
group makes of it."""

from mjx_envs.metaworld.multitask import scripted_rollout

import numpy as np


def check_scripted_bars(group, names, n, steps, key, bar, top_band):
  """Runs `names` (n worlds each, `steps` steps from reset(key)) and asserts: rewards finite and in [0, 10];
  every world starts its own episode (a distinct rand_vec); each task's success rate (success at any step)
  >= `bar`; every successful episode's reward reaches above `top_band`. Returns (mt, first State, last
  State, rewards [steps, T*n], {task: rate})."""
  mt, s0, s, rew = scripted_rollout(names, n, steps, key, impl="c")
  rew = np.asarray(rew)
  assert np.all(np.isfinite(rew)) and np.all((rew >= 0) & (rew <= 10))
  rv = np.asarray(s0.info["rand_vec"]).reshape(len(names), n, -1)
  for t, name in enumerate(names):
    assert len({tuple(np.round(v, 6)) for v in rv[t]}) == n, name
  ok = np.asarray(mt.split(s.metrics["is_success"]))
  rates = dict(zip(names, ok.mean(-1).round(3).tolist()))
  print(f"{group} group, scripted success ({n} episodes of {steps} steps, C backend):", rates)
  assert all(r >= bar for r in rates.values()), rates
  assert np.all(rew.max(0).reshape(len(names), n)[ok > 0] > top_band), rates
  return mt, s0, s, rew, rates
