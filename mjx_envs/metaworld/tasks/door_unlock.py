"""door-unlock-v3: turn a safe's hanging lock up to horizontal.

Reference: metaworld 3.1.1 `SawyerDoorUnlockEnvV3` (reward version v2), model `sawyer_xyz/sawyer_door_lock.xml`
with `objects/assets/doorlockA.xml` (door-lock-v3's). Facts used:
- The safe, its fixed door and the lock (`_door.py`, `LOCK_DOOR_XML`).
- rand_vec = the door body's position, uniform in (-0.1, 0.8, 0.15) .. (0.1, 0.85, 0.15) (no rejection
  rule); the lock set to 1.5708 (hanging); obj_init_pos = lock_link's xpos (a VIEW of the live array: the
  lock's hinge, which does not move); target_pos = obj_init_pos + (0.1, -0.04, 0).
- hand_init_pos (0, 0.6, 0.2); hand bounds (-0.5, 0.4, -0.15) .. (0.5, 1, 0.5) (the mocap bounds too); goal
  space (0, 0.64, 0.21) .. (0.2, 0.7, 0.2111).
- Observation: object = site `lockStartUnlock` (near the arm's end), quaternion = door_link's xquat.
- Reward v2: the "shoulder" = hand + (0, 0.055, 0.07); scale (0.25, 1, 0.5); ready_to_push =
  tolerance(|(shoulder - obj) scale|, (0, 0.02), margin |(init_tcp + offset - obj_init_pos) scale|,
  long_tail); pushed = tolerance(|target x - obj x|, (0, 0.005), margin 0.1, long_tail); reward = 2
  ready_to_push + 8 pushed. Success: |target x - obj x| <= 0.02 (the lock within about 0.37 rad of
  horizontal). Info: near_object |(shoulder - obj) scale| <= 0.05, grasp_success obs[3] > 0,
  grasp_reward ready_to_push, in_place_reward pushed.

Deliberate differences: the lock model's (`_door.py`), the hand's (`sawyer.py`).

The scripted controller (written for this model): `_door.push_lock`: the gripper closed, the pads beside
the hanging arm's end (on the side away from the door's handle), then pushing it along its arc up to
horizontal. Measured
(benchmarks/scripted_success.py, C backend, 100 episodes of 500 steps, 2026-11-26): 100/100; the
reference's own policy in the reference succeeds at steps 40-60 (the fixture's four policy episodes).
Parity (fixture `metaworld_reference_press`): reward and info within the default 1e-4; first observed
lock pose: test_metaworld_parity.py's FIRST_OBS_ATOL (the reference's lock settles in its first steps).
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import _door

import jax.numpy as jnp

TARGET_OFFSET = (0.1, -0.04, 0.0)
LOCK_LENGTH = 0.1
SHOULDER = (0.0, 0.055, 0.07)
SCALE = (0.25, 1.0, 0.5)
READS = ("init_tcp", "obj_init_pos", "target_pos")
UNLOCK_Y = _door.LOCK_BOX_Y - 0.024


def reward(obs, action, reads):
  del action
  lock, offset, scale = obs[..., 4:7], jnp.array(SHOULDER), jnp.array(SCALE)
  shoulder_to_lock = jnp.linalg.norm((obs[..., 0:3] + offset - lock) * scale, axis=-1)
  shoulder_to_lock_init = jnp.linalg.norm(
    (reads["init_tcp"] + offset - reads["obj_init_pos"]) * scale, axis=-1
  )
  ready = R.tolerance(shoulder_to_lock, bounds=(0, 0.02), margin=shoulder_to_lock_init, sigmoid="long_tail")
  obj_to_target = jnp.abs(reads["target_pos"][..., 0] - lock[..., 0])
  pushed = R.tolerance(obj_to_target, bounds=(0, 0.005), margin=LOCK_LENGTH, sigmoid="long_tail")
  rew = 2 * ready + 8 * pushed
  return rew, _door.lock_info(obs, shoulder_to_lock, obj_to_target, ready, pushed, rew)


def scripted(obs):
  hinge = obs[..., 36:39] - jnp.array(TARGET_OFFSET)
  # 2.4 cm further from the door than the lock arm's centre line (door-lock's): the arm's hand pulls
  # towards the door while it pushes along x, and at the centre line its wrist met the door (24/100).
  return _door.push_lock(obs, hinge, 1.0, y_off=UNLOCK_Y)


TASK = Task(
  name="door-unlock-v3",
  objects_xml=_door.LOCK_DOOR_XML,
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, -0.15),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(0.0, 0.64, 0.21),
  goal_high=(0.2, 0.7, 0.2111),
  rand_low=(-0.1, 0.8, 0.15),
  rand_high=(0.1, 0.85, 0.15),
  place=_door.lock_place(1.5708, TARGET_OFFSET),
  objects=_door.lock_objects("lockStartUnlock"),
  reward=reward,
  reads=_door.lock_reads,
)
