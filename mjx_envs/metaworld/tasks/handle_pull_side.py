"""handle-pull-side-v3: pull a handle up, its box turned to the robot's side (the handle along +x).

Reference: metaworld 3.1.1 `SawyerHandlePullSideEnvV3` (reward version v2), model
`sawyer_xyz/sawyer_handle_press_sideways.xml` (the box at euler (0, 0, 1.57)) with
`objects/assets/handle_press.xml`. Facts used: those of handle-pull-v3 (`handle_pull.py`), except:
- rand_vec from (-0.35, 0.65, 0) .. (-0.25, 0.75, 0); the goal space the hand bounds (-0.5, 0.4, 0.05) ..
  (0.5, 1, 0.5).
- Observation: object = site `handleCenter` (on the lever, 4.6 cm short of the grip's middle);
  obj_init_pos = that site at the reset (not the box).
- Reward v2: the distances to the target in 3-D; caging with pad_success_thresh 0.06, obj_radius 0.032;
  the bonus's height test obj z - 0.01 > obj_init_pos z. Success: |obj - target| <= 0.08 (10 below 0.05).

Deliberate differences: the box's (`_handle.py`), the hand's (`sawyer.py`).

The scripted controller (written for this model): `_handle.grasp_lift` clamping the lever (which runs
along x here, across the pads) at the observed point and lifting it. Measured (benchmarks/scripted_success.py, C backend, 100 episodes of 500
steps, 2026-11-26): 100/100; the reference's own policy in the reference succeeds at steps 66-78 (the
fixture's three scripted episodes). Parity (fixture `metaworld_reference_press`): reward and info within
the default 1e-4; the first observed handle pose: test_metaworld_parity.py's FIRST_OBS_ATOL.
"""

from __future__ import annotations

from mjx_envs.metaworld.tasks import _handle, handle_pull

import dataclasses

EULER_Z = 1.57
READS = handle_pull.READS


def reward(obs, action, reads):
  return handle_pull.pull_reward(obs, action, reads, True, 0.06, 0.032, 0.08)


def scripted(obs):
  obj, goal = obs[..., 4:7], obs[..., 36:39]
  return _handle.grasp_lift(obs, obj, goal[..., 2] - 0.02)


TASK = dataclasses.replace(
  handle_pull.TASK,
  name="handle-pull-side-v3",
  objects_xml=_handle.box_xml(EULER_Z),
  goal_low=(-0.5, 0.40, 0.05),
  goal_high=(0.5, 1.0, 0.5),
  rand_low=(-0.35, 0.65, 0.0),
  rand_high=(-0.25, 0.75, 0.0),
  place=handle_pull.pull_place(EULER_Z, "handleCenter", True),
  objects=_handle.site_objects("handleCenter"),
  reward=reward,
)
