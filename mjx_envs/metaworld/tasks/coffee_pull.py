"""coffee-pull-v3: move the mug along the table from under the coffee machine's spout to a goal in front of it.

Reference: metaworld 3.1.1 `SawyerCoffeePullEnvV3` (reward version v2). Its own facts: rand_vec drawn from
[(-0.05, 0.7, -0.001, -0.1, 0.55, -0.001), (0.05, 0.75, 0.001, 0.1, 0.65, 0.001)]; the machine 0.22 behind the mug's
start; goal space (-0.1, 0.55, -0.001) .. (0.1, 0.65, 0.001). The rest (the machine and mug, their differences, the mug
tasks' reset rule, observation and reward) is shared with coffee-push-v3: `_coffee.py`.

The scripted controller: `_coffee.mug_scripted` (grip the mug, carry it along the table). Measured
(benchmarks/scripted_success.py, C backend, 100 episodes of 500 steps, 2026-11-26): 100/100, first successes
at steps 58-68 (8 episodes).
Parity (test_metaworld_parity.py, fixture `metaworld_reference_dials`): reward and info within the default
1e-4; first observed pose within 5 mm / quaternion 0.045 (the reference's mug rests 3 mm into its table and
starts yawed by its model's first drop).
"""

from __future__ import annotations

from mjx_envs.metaworld.tasks import _coffee

READS = _coffee.MUG_READS
reward = _coffee.mug_reward
scripted = _coffee.mug_scripted

TASK = _coffee.mug_task(
  "coffee-pull-v3",
  "start",
  rand_low=(-0.05, 0.7, -0.001, -0.1, 0.55, -0.001),
  rand_high=(0.05, 0.75, 0.001, 0.1, 0.65, 0.001),
  goal_low=(-0.1, 0.55, -0.001),
  goal_high=(0.1, 0.65, 0.001),
)
