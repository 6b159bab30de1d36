"""door-open-v3: swing a safe's door open by its handle, towards the robot.

Reference: metaworld 3.1.1 `SawyerDoorEnvV3` (reward version v2), model `sawyer_xyz/sawyer_door_pull.xml`
with `objects/assets/doorlockB.xml`. Facts used:
- The safe and its door (`_door.py`, which holds their facts and deliberate differences).
- rand_vec = the door body's position, uniform in (0, 0.85, 0.15) .. (0.1, 0.95, 0.15) (no rejection
  rule); obj_init_pos = rand_vec; target_pos = obj_init_pos + (-0.3, -0.45, 0); doorjoint = 0;
  maxPullDist = |handle - target| in x-y at the reset (read by no v2 reward; kept in ctx).
- hand_init_pos (0, 0.6, 0.2); hand bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5); goal bounds (-0.3, 0.4,
  0.1499) .. (-0.2, 0.5, 0.1501).
- Reward (v2): grab = (clip(action[3], -1, 1) + 1) / 2; door = handle - (0.05, 0, 0); a log funnel
  `floor` around the handle that the hand should stay above (above_floor), in_place = tolerance(|hand -
  door - (0.05, 0.03, -0.01)|, (0, 0.06), margin 0.5, long_tail); ready = above_floor Hamacher in_place;
  opened = 0.2 [theta < -pi/90] + 0.8 tolerance(2 pi/3 + theta, (0, 0.5), margin pi/3, long_tail);
  reward = 2 (ready Hamacher grab) + 8 opened, 10 on success. Success: |handle_x - target_x| <= 0.08
  (the door opened about 80 degrees or more). Info: near_object ready, grasp_success grab >= 0.5,
  grasp_reward grab, in_place_reward opened, obj_to_target 0.
- READS "qpos:doorjoint" is the hinge angle as a scalar (the reference reads `.qpos.item()`).

Deliberate differences: the door model's (`_door.py`), the hand's (`sawyer.py`), and
- Measured effect of the armless hand: dragging the handle, it pushes the door past its soft -2 rad limit
  (q reaches -2.07 .. -2.61 with the scripted controller; the reference's arm, under its policy, -1.92);
  success comes at control step 60 .. 277, median 71 (reference: 84, 87 in two episodes).

The scripted controller is the reference policy (`SawyerDoorOpenV3Policy`) in JAX with its gain (p 25,
gripper closed). Measured: 100/100 episodes solved (500 steps, fresh rand_vecs, C MuJoCo on this env's
compiled model and solver settings, mocap/ctrl/obs as `SawyerEnv.step`); the MJX batch measurement was
not affordable on the shared 2-core CPU used.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import _door

import math

import jax.numpy as jnp

DOOR_LINK_POS, HANDLE_POS = _door.DOOR_LINK_POS, _door.HANDLE_POS
TARGET_OFFSET = (-0.3, -0.45, 0.0)
READS = ("target_pos", "qpos:doorjoint")
OBJECTS_XML = _door.DOOR_XML


def place(env, d, rand_vec):
  d, handle = _door.place_door(env, d, rand_vec, 0.0)
  target = rand_vec + jnp.array(TARGET_OFFSET)
  max_pull = jnp.linalg.norm(handle[:2] - target[:2])
  return d, {"target_pos": target, "obj_init_pos": rand_vec, "maxPullDist": max_pull}


objects = _door.handle_objects


def reads(env, d, ctx):
  del ctx
  return {"qpos:doorjoint": _door.door_qpos(env, d)}


def _reward_pos(obs, theta):
  hand = obs[..., 0:3]
  door = obs[..., 4:7] + jnp.array([-0.05, 0.0, 0.0])
  threshold = 0.12
  radius = jnp.linalg.norm(hand[..., :2] - door[..., :2], axis=-1)
  floor = jnp.where(radius <= threshold, 0.0, 0.04 * jnp.log(jnp.maximum(radius - threshold, 1e-30)) + 0.4)
  # the reference evaluates the tolerance only below the floor, where floor > hand z >= 0
  below = hand[..., 2] < floor
  safe_floor = jnp.where(below, floor, 1.0)
  above_floor = jnp.where(
    below,
    R.tolerance(safe_floor - hand[..., 2], bounds=(0.0, 0.01), margin=safe_floor / 2.0, sigmoid="long_tail"),
    1.0,
  )
  in_place = R.tolerance(
    jnp.linalg.norm(hand - door - jnp.array([0.05, 0.03, -0.01]), axis=-1),
    bounds=(0, threshold / 2.0),
    margin=0.5,
    sigmoid="long_tail",
  )
  ready = R.hamacher_product(above_floor, in_place)
  door_angle = -theta
  opened = 0.2 * (theta < -math.pi / 90.0).astype(jnp.float32) + 0.8 * R.tolerance(
    math.pi / 2.0 + math.pi / 6 - door_angle, bounds=(0, 0.5), margin=math.pi / 3.0, sigmoid="long_tail"
  )
  return ready, opened


def reward(obs, action, reads):
  theta = reads["qpos:doorjoint"]
  grab = (jnp.clip(action[..., 3], -1, 1) + 1.0) / 2.0
  ready, opened = _reward_pos(obs, theta)
  success = jnp.abs(obs[..., 4] - reads["target_pos"][..., 0]) <= 0.08
  rew = jnp.where(success, 10.0, 2.0 * R.hamacher_product(ready, grab) + 8.0 * opened)
  return rew, R.info(success, ready, grab >= 0.5, grab, opened, jnp.zeros_like(rew), rew)


def scripted(obs):
  """The reference policy: above the point 5 cm inboard of the handle, down beside it (the closed fingers
  between the grip bar and the door), then chase that point as the door swings towards the robot."""
  hand = obs[..., 0:3]
  door = obs[..., 4:7] + jnp.array([-0.05, 0.0, 0.0])
  far = jnp.linalg.norm(hand[..., :2] - door[..., :2], axis=-1, keepdims=True) > 0.12
  high = jnp.abs(hand[..., 2:3] - door[..., 2:3]) > 0.04
  to = jnp.where(
    far, door + jnp.array([0.06, 0.02, 0.2]), jnp.where(high, door + jnp.array([0.06, 0.02, 0.0]), door)
  )
  move = jnp.clip(25.0 * (to - hand), -1.0, 1.0)
  return jnp.concatenate([move, jnp.ones_like(move[..., :1])], -1)


TASK = Task(
  name="door-open-v3",
  objects_xml=OBJECTS_XML,
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.3, 0.4, 0.1499),
  goal_high=(-0.2, 0.5, 0.1501),
  rand_low=(0.0, 0.85, 0.15),
  rand_high=(0.1, 0.95, 0.15),
  place=place,
  objects=objects,
  reward=reward,
  reads=reads,
)
