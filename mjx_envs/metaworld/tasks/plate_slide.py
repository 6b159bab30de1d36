"""plate-slide-v3: slide a plate along the table into a goal cage in front of it.

Reference: metaworld 3.1.1 `SawyerPlateSlideEnvV3` (reward version v2), `sawyer_plate_slide.xml`; the plate and
the cage: `_plate.py` (facts and the differences: the cage's net meshes are boxes).

Reference facts used: rand_vec = [obj_init_pos, goal] from (0, 0.6, 0, -0.1, 0.85, 0) .. (0, 0.6, 0, 0.1, 0.9,
0); no rejection rule. reset_model: the plate's joints at (0, 0) (plate at (0, 0.6, 0.015)); the cage at
the goal (`model.body("puck_goal").pos`); target_pos = the goal (z 0: the 3-D distance keeps 0.015 of the
plate's height). hand_init_pos (0, 0.6, 0.2), hand and mocap bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5).
Reward v2 (`_plate.reward_slide`): in_place = tolerance(|obj - target|, (0, 0.05), margin |obj_init -
target|, long_tail), object_grasped = tolerance(|tcp - obj|, (0, 0.05), margin |init_tcp - obj_init|,
long_tail); 8 hamacher(grasped, in_place); 10 when |obj - target| < 0.05. Info: success |obj - target| <=
0.07, near_object |tcp - obj| <= 0.03, grasp_success 0, grasp_reward = object_grasped.

Checks (parity, scripted success): `_plate.py`.
"""

from __future__ import annotations

from mjx_envs.metaworld.tasks._plate import READS, plate_task, reward_slide, scripted  # noqa: F401

TASK = plate_task(
  "plate-slide-v3",
  cage_yaw=0.0,
  cage_pos=lambda rv: rv[3:],
  plate_qpos=(0.0, 0.0),
  rand_low=(0.0, 0.6, 0.0, -0.1, 0.85, 0.0),
  rand_high=(0.0, 0.6, 0.0, 0.1, 0.9, 0.0),
  reward=reward_slide,
)
