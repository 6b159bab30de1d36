"""plate-slide-back-v3: pull a plate out of the goal cage, back along the table to a goal nearer the robot.

Reference: metaworld 3.1.1 `SawyerPlateSlideBackEnvV3` (reward version v2), `sawyer_plate_slide.xml`; the plate
and the cage: `_plate.py` (facts and the differences: the cage's net meshes are boxes).

Reference facts used: rand_vec = [obj_init_pos, goal] from (0, 0.85, 0, -0.1, 0.6, 0.015) .. (0, 0.85, 0, 0.1,
0.6, 0.015); no rejection rule. reset_model: the plate's joints at (0, 0.15) (plate at (0, 0.75, 0.015),
half inside the cage); the cage stays at the model's (0, 0.85, 0) (the reference writes `data.xpos`, which
does not move it); obj_init_pos = rand_vec[:3] = (0, 0.85, 0) (not where the plate is), target_pos = the
goal. hand_init_pos (0, 0.6, 0.2), hand and mocap bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5).
Reward v2 (`_plate.reward_other`): in_place and object_grasped as plate-slide-v3's with both margins less
0.05; 1.5 object_grasped, or 2 + 7 in_place when the tcp is at z <= 0.03 and within 0.07 of the plate; 10
when |obj - target| < 0.05. Info as plate-slide-v3's.

Checks (parity, scripted success): `_plate.py`.
"""

from __future__ import annotations

from mjx_envs.metaworld.tasks._plate import READS, plate_task, reward_other, scripted  # noqa: F401

TASK = plate_task(
  "plate-slide-back-v3",
  cage_yaw=0.0,
  cage_pos=lambda rv: (0.0, 0.85, 0.0),
  plate_qpos=(0.0, 0.15),
  rand_low=(0.0, 0.85, 0.0, -0.1, 0.6, 0.015),
  rand_high=(0.0, 0.85, 0.0, 0.1, 0.6, 0.015),
  reward=reward_other,
)
