"""Meta-World part 2, the "assembly" group (the basketball and its hoop, the round nut and its peg): ONE
batched C-backend rollout of the group's tasks, each world following its task's scripted controller; every
task must meet the bar at this small count (`benchmarks/scripted_success.py` runs 100 episodes of 500 steps
against 0.90). Reward parity with the reference: test_metaworld_parity.py (fixture
`metaworld_reference_assembly`)."""

from mjx_envs.metaworld import tasks

import jax
import numpy as np
import pytest
from metaworld_group import check_scripted_bars, mjx_jax_against_c

GROUP = ("basketball-v3", "assembly-v3", "disassemble-v3")
N_SCRIPTED = 4  # episodes per task (the benchmark runs 100)
STEPS = 150  # of the 500: the controllers succeed after 60-95 steps
BAR = 0.75  # per task at 4 episodes; the 0.90 bar is the benchmark's, over 100


def test_assembly_group_scripted_bars():
  names = [t for t in GROUP if t in tasks.available()]
  assert names == list(GROUP), names
  # a successful episode's reward reaches 10: each of the three sets it on success
  mt, _, s, _, _ = check_scripted_bars("assembly", names, N_SCRIPTED, STEPS, jax.random.PRNGKey(3), BAR, 9.9)
  # and the controllers hold the result: the ball over the ring, the nut around the peg, the nut lifted
  # off it at the last step (success there, not only once)
  held = np.asarray(mt.split(s.metrics["success"]))
  assert np.all(held.mean(-1) >= BAR), dict(zip(names, held.mean(-1).round(3).tolist()))


# MJX-JAX (slow tier: one multi-minute CPU compile per task): the ball over the hoop's capsule ring, the nut's
# capsule ring around the capsule peg, closed-loop from the same resets as C, each until it has succeeded.
MJX_STEPS = {"basketball-v3": 90, "assembly-v3": 110, "disassemble-v3": 90}
MJX_OBS_ATOL = 0.02  # m, hand and object positions, C against MJX-JAX over the closed loop: measured
# 2026-11-26 5.2e-4 (basketball), 1.5e-3 (assembly), 7.3e-4 (disassemble), all succeeding in both; 432 s for
# the three on the crowded CPU


@pytest.mark.slow
@pytest.mark.parametrize("task", GROUP)
def test_assembly_mjx_jax_follows_c(task):
  gap, success = mjx_jax_against_c(task, MJX_STEPS[task], jax.random.PRNGKey(5))
  assert gap < MJX_OBS_ATOL, (task, gap)
  assert np.all(success["c"] == 1) and np.all(success["jax"] == 1), (task, success)
