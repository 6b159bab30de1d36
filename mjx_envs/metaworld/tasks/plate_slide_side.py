"""plate-slide-side-v3: slide a plate sideways along the table into a goal cage to the robot's left (-x).

Reference: metaworld 3.1.1 `SawyerPlateSlideSideEnvV3` (reward version v2), `sawyer_plate_slide_sideway.xml`;
the plate and the cage: `_plate.py` (facts and the differences: the cage's net meshes are boxes).

Reference facts used: rand_vec = [obj_init_pos, goal] from (0, 0.6, 0, -0.3, 0.54, 0) .. (0, 0.6, 0, -0.25,
0.66, 0); no rejection rule. reset_model: the plate's joints at (0, 0) (plate at (0, 0.6, 0.015)); the cage
stays at the model's (-0.3, 0.6, 0), turned 1.57 rad about z (its opening towards +x; the reference writes
`data.xpos`, which does not move it); target_pos = the goal, beyond the plate's joint range (x >= -0.2,
y >= 0.6): success needs the fingers to push it past its soft limit. hand_init_pos (0, 0.6, 0.2), hand and
mocap bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5). Reward v2 and info: plate-slide-back-v3's
(`_plate.reward_other`).

Checks (parity, scripted success): `_plate.py`.
"""

from __future__ import annotations

from mjx_envs.metaworld.tasks._plate import READS, SIDEWAYS, plate_task, reward_other, scripted  # noqa: F401

TASK = plate_task(
  "plate-slide-side-v3",
  cage_yaw=SIDEWAYS,
  cage_pos=lambda rv: (-0.3, 0.6, 0.0),
  plate_qpos=(0.0, 0.0),
  rand_low=(0.0, 0.6, 0.0, -0.3, 0.54, 0.0),
  rand_high=(0.0, 0.6, 0.0, -0.25, 0.66, 0.0),
  reward=reward_other,
)
