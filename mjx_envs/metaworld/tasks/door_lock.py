"""door-lock-v3: turn a safe's lock down, from horizontal towards hanging.

Reference: metaworld 3.1.1 `SawyerDoorLockEnvV3` (reward version v2), model `sawyer_xyz/sawyer_door_lock.xml`
with `objects/assets/doorlockA.xml`. Facts used:
- The safe, its fixed door and the lock (`_door.py`, `LOCK_DOOR_XML`).
- rand_vec = the door body's position, uniform in (-0.1, 0.8, 0.15) .. (0.1, 0.85, 0.15) (no rejection
  rule); the lock at 0 (horizontal); the reference then steps the physics one control step (frame_skip
  substeps) and takes obj_init_pos = lock_link's xpos (a VIEW of the live array: the lock's hinge, which
  does not move) and target_pos = obj_init_pos + (0, -0.04, -0.1).
- hand_init_pos (0, 0.6, 0.2); hand bounds (-0.5, 0.4, -0.15) .. (0.5, 1, 0.5) (the mocap bounds and the
  goal space too).
- Observation: object = site `lockStartLock` (near the arm's end), quaternion = door_link's xquat.
- Reward v2: scale (0.25, 1, 0.5); tcp_to_obj = |(obj - left pad) scale|, its margin the same with
  init_left_pad (the reference's alias of the live left pad: the same number); near_lock =
  tolerance(tcp_to_obj, (0, 0.01), that margin, long_tail); lock_pressed = tolerance(|target z - obj z|,
  (0, 0.005), margin 0.1, long_tail); reward = 2 hamacher(max(obs[3], 0), near_lock) + 8 lock_pressed.
  Success: |target z - obj z| <= 0.02 (the lock turned about 1.17 rad or more). Info: near_object
  tcp_to_obj <= 0.05, grasp_success obs[3] > 0, grasp_reward near_lock, in_place_reward lock_pressed.

Deliberate differences: the lock model's (`_door.py`), the hand's (`sawyer.py`); the reset's one control
step of physics is not simulated (the lock, at rest against its limit, does not move in it).

The scripted controller (written for this model): `_door.push_lock`: the gripper closed, the pads' bottom
onto the arm's end from above, then pushing it down along its arc. Measured
(benchmarks/scripted_success.py, C backend, 100 episodes of 500 steps, 2026-11-26): 100/100; the
reference's own policy in the reference succeeds at steps 56-82 (the fixture's four policy episodes).
Parity (fixture `metaworld_reference_press`): reward and info within the default 1e-4; first observed
lock pose: test_metaworld_parity.py's FIRST_OBS_ATOL (the reference's lock settles in its first steps).
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import _door

import jax.numpy as jnp

TARGET_OFFSET = (0.0, -0.04, -0.1)
LOCK_LENGTH = 0.1
SCALE = (0.25, 1.0, 0.5)
READS = ("left_pad", "init_left_pad", "target_pos")


def reward(obs, action, reads):
  del action
  obj, scale = obs[..., 4:7], jnp.array(SCALE)
  tcp_to_obj = jnp.linalg.norm((obj - reads["left_pad"]) * scale, axis=-1)
  tcp_to_obj_init = jnp.linalg.norm((obj - reads["init_left_pad"]) * scale, axis=-1)
  obj_to_target = jnp.abs(reads["target_pos"][..., 2] - obj[..., 2])
  near_lock = R.tolerance(tcp_to_obj, bounds=(0, 0.01), margin=tcp_to_obj_init, sigmoid="long_tail")
  lock_pressed = R.tolerance(obj_to_target, bounds=(0, 0.005), margin=LOCK_LENGTH, sigmoid="long_tail")
  rew = 2 * R.hamacher_product(jnp.maximum(obs[..., 3], 0.0), near_lock) + 8 * lock_pressed
  return rew, _door.lock_info(obs, tcp_to_obj, obj_to_target, near_lock, lock_pressed, rew)


def scripted(obs):
  hinge = obs[..., 36:39] - jnp.array(TARGET_OFFSET)
  return _door.push_lock(obs, hinge, -1.0)


TASK = Task(
  name="door-lock-v3",
  objects_xml=_door.LOCK_DOOR_XML,
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, -0.15),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.5, 0.40, -0.15),
  goal_high=(0.5, 1.0, 0.5),
  rand_low=(-0.1, 0.8, 0.15),
  rand_high=(0.1, 0.85, 0.15),
  place=_door.lock_place(0.0, TARGET_OFFSET),
  objects=_door.lock_objects("lockStartLock"),
  reward=reward,
  reads=_door.lock_reads,
)
