"""Meta-World part 2, the "tools" group (the plug and its wall socket; the group's other tasks have their own
files, below): ONE batched C-backend rollout of every task of the group whose module exists, each world
following its task's scripted controller; every task must meet the bar at this small count
(`benchmarks/scripted_success.py` runs 100 episodes of 500 steps against 0.90). Reward parity with the
reference: test_metaworld_parity.py (fixture `metaworld_reference_tools`)."""

from mjx_envs.metaworld import tasks

import jax
from metaworld_group import check_scripted_bars

# (stick-push, stick-pull and hammer: tests/mjx_envs/test_metaworld_sticks.py; basketball, assembly and
# disassemble: tests/mjx_envs/test_metaworld_assembly.py)
GROUP = ("peg-unplug-side-v3",)
N_SCRIPTED = 4  # episodes per task (the benchmark runs 100)
STEPS = 200  # of the 500: peg-unplug-side succeeds after 60-120 steps
BAR = 0.75  # per task at 4 episodes; the 0.90 bar is the benchmark's, over 100


def test_tools_group_scripted_bars():
  names = [t for t in GROUP if t in tasks.available()]
  assert names, "no task of the tools group is built"
  # (the checks: rewards in [0, 10]; every world starts a different episode; the bar; a successful
  # episode's reward reaches the task's top band, > 5)
  check_scripted_bars("tools", names, N_SCRIPTED, STEPS, jax.random.PRNGKey(7), BAR, 5.0)
