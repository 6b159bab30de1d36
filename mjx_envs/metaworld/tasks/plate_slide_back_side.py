"""plate-slide-back-side-v3: pull a plate sideways out of a goal cage on the robot's left, to a goal at +x.

Reference: metaworld 3.1.1 `SawyerPlateSlideBackSideEnvV3` (reward version v2), `sawyer_plate_slide_sideway.xml`;
the plate and the cage: `_plate.py` (facts and the differences: the cage's net meshes are boxes).

Reference facts used: rand_vec = [obj_init_pos, goal] from (-0.25, 0.6, 0, -0.05, 0.6, 0.015) .. (-0.25, 0.6, 0,
0.15, 0.6, 0.015); no rejection rule. reset_model: the cage at obj_init_pos = rand_vec[:3] = (-0.25, 0.6, 0)
(`model.body("puck_goal").pos`), turned 1.57 rad about z; the plate's joints at (-0.15, 0) (plate at
(-0.15, 0.6, 0.015), in the cage's mouth); target_pos = the goal. hand_init_pos (0, 0.6, 0.2), hand and
mocap bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5). Reward v2 and info: plate-slide-back-v3's
(`_plate.reward_other`).

Checks (parity, scripted success): `_plate.py`.
"""

from __future__ import annotations

from mjx_envs.metaworld.tasks._plate import READS, SIDEWAYS, plate_task, reward_other, scripted  # noqa: F401

TASK = plate_task(
  "plate-slide-back-side-v3",
  cage_yaw=SIDEWAYS,
  cage_pos=lambda rv: rv[:3],
  plate_qpos=(-0.15, 0.0),
  rand_low=(-0.25, 0.6, 0.0, -0.05, 0.6, 0.015),
  rand_high=(-0.25, 0.6, 0.0, 0.15, 0.6, 0.015),
  reward=reward_other,
)
