"""handle-press-side-v3: press a handle down, its box turned to the robot's side (the handle along +x).

Reference: metaworld 3.1.1 `SawyerHandlePressSideEnvV3` (reward version v2), model
`sawyer_xyz/sawyer_handle_press_sideways.xml` (the box at euler (0, 0, 1.57)) with
`objects/assets/handle_press.xml`. Facts used: those of handle-press-v3 (`handle_press.py`: the reward,
info, reset and observation), except rand_vec's range, (-0.35, 0.65, -0.001) .. (-0.25, 0.75, 0.001), and
the goal space, the hand bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5).

Deliberate differences: the box's (`_handle.py`), the hand's (`sawyer.py`).

The scripted controller is handle-press-v3's. Measured (benchmarks/scripted_success.py, C backend, 100 episodes of 500
steps, 2026-11-26): 100/100; the reference's own policy in the reference succeeds at steps 34-51 (the
fixture's three scripted episodes). Parity (fixture `metaworld_reference_press`): reward and info within
the default 1e-4; the first observed handle pose: test_metaworld_parity.py's FIRST_OBS_ATOL.
"""

from __future__ import annotations

from mjx_envs.metaworld.tasks import _handle, handle_press

import dataclasses

EULER_Z = 1.57
READS = handle_press.READS
scripted = handle_press.scripted
reward = handle_press.reward

TASK = dataclasses.replace(
  handle_press.TASK,
  name="handle-press-side-v3",
  objects_xml=_handle.box_xml(EULER_Z),
  goal_low=(-0.5, 0.40, 0.05),
  goal_high=(0.5, 1.0, 0.5),
  rand_low=(-0.35, 0.65, -0.001),
  rand_high=(-0.25, 0.75, 0.001),
  place=handle_press.press_place(EULER_Z),
)
