"""door-close-v3: swing a safe's open door shut.

Reference: metaworld 3.1.1 `SawyerDoorCloseEnvV3` (reward version v2), model `sawyer_xyz/sawyer_door_pull.xml`
with `objects/assets/doorlockB.xml` (door-open-v3's). Facts used:
- The safe and its door (`_door.py`, which holds their facts and deliberate differences).
- rand_vec = the door body's position, uniform in (0, 0.85, 0.15) .. (0.1, 0.95, 0.15) (no rejection
  rule); obj_init_pos = rand_vec; target_pos = obj_init_pos + (0.2, -0.2, 0) (where the handle is when the
  door is shut); doorjoint = -1.5708 (the door open, its free end towards the robot); maxPullDist =
  |handle - target| in x-y at the reset (read by no v2 reward; kept in ctx).
- hand_init_pos (-0.5, 0.6, 0.2); hand bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5); goal bounds (0.2, 0.65,
  0.1499) .. (0.3, 0.75, 0.1501).
- Reward (v2): in_place = tolerance(|obj - target|, (0, 0.05), margin |obj_init_pos - target|, gaussian);
  hand_in_place = tolerance(|tcp - target|, (0, 0.0125), margin |hand_init_pos - obj| + 0.1, gaussian);
  reward = 3 hand_in_place + 6 in_place, 10 where |obj - target| < 0.05. Success: |obj - target| <= 0.08.
  Info: obj_to_target |obj - target|, in_place_reward hand_in_place, near_object 0, grasp_success and
  grasp_reward 1.

Deliberate differences: the door model's (`_door.py`; with its explicit pair of the door panel and the
safe's left wall, which swings the open door back to about -1.30 rad in the first 40 steps, as the
reference's does), the hand's (`sawyer.py`).

The scripted controller (written for this model): it reads the door's angle from the handle and the goal
(the hinge is at goal + (-0.385, 0.1, 0)); the gripper closed, the hand 5 cm above the door's mid-height
goes to 6 cm off the panel's outer face (the handle's side), 0.2 m from the hinge, then pushes through
that face towards the closed position, following the panel as it turns. Measured
(benchmarks/scripted_success.py, C backend, 100 episodes of 500 steps, 2026-11-26): 100/100; the
reference's own policy in the reference succeeds at steps 57-75 (the fixture's three scripted episodes).
Parity (fixture `metaworld_reference_press`): reward and info within the default 1e-4; the first
observed handle pose differs by the reference's swing before its first records (test_metaworld_parity.py's
FIRST_OBS_ATOL).
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import _door

import math

import jax.numpy as jnp

TARGET_OFFSET = (0.2, -0.2, 0.0)
OPEN_ANGLE = -1.5708
TARGET_RADIUS = 0.05
READS = ("tcp_center", "target_pos", "obj_init_pos", "hand_init_pos")
# the hinge relative to the target: DOOR_LINK_POS - TARGET_OFFSET
HINGE_FROM_TARGET = tuple(a - b for a, b in zip(_door.DOOR_LINK_POS, TARGET_OFFSET))
HANDLE_ANGLE = math.atan2(_door.HANDLE_POS[1], _door.HANDLE_POS[0])  # the handle's bearing in door_link


def place(env, d, rand_vec):
  d, handle = _door.place_door(env, d, rand_vec, OPEN_ANGLE)
  target = rand_vec + jnp.array(TARGET_OFFSET)
  max_pull = jnp.linalg.norm(handle[:2] - target[:2])
  return d, {"target_pos": target, "obj_init_pos": rand_vec, "maxPullDist": max_pull}


def reward(obs, action, reads):
  del action
  obj, target = obs[..., 4:7], reads["target_pos"]
  tcp_to_target = jnp.linalg.norm(reads["tcp_center"] - target, axis=-1)
  obj_to_target = jnp.linalg.norm(obj - target, axis=-1)
  in_place_margin = jnp.linalg.norm(reads["obj_init_pos"] - target, axis=-1)
  in_place = R.tolerance(obj_to_target, bounds=(0, TARGET_RADIUS), margin=in_place_margin, sigmoid="gaussian")
  hand_margin = jnp.linalg.norm(reads["hand_init_pos"] - obj, axis=-1) + 0.1
  hand_in_place = R.tolerance(
    tcp_to_target, bounds=(0, 0.25 * TARGET_RADIUS), margin=hand_margin, sigmoid="gaussian"
  )
  rew = jnp.where(obj_to_target < TARGET_RADIUS, 10.0, 3 * hand_in_place + 6 * in_place)
  one = jnp.ones_like(rew)
  return rew, R.info(obj_to_target <= 0.08, 0 * one, one, one, hand_in_place, obj_to_target, rew)


def scripted(obs, radius: float = 0.2, standoff: float = 0.06, push: float = 0.05):
  hand, handle, goal = obs[..., 0:3], obs[..., 4:7], obs[..., 36:39]
  hinge = goal + jnp.array(HINGE_FROM_TARGET)
  rel = handle - hinge
  alpha = jnp.arctan2(rel[..., 1], rel[..., 0]) - HANDLE_ANGLE  # the door's angle
  ex = jnp.stack([jnp.cos(alpha), jnp.sin(alpha)], -1)  # along the panel
  ey = jnp.stack([-jnp.sin(alpha), jnp.cos(alpha)], -1)  # the closing direction (the handle is on -ey)
  h = hand[..., :2] - hinge[..., :2]
  along = jnp.sum(h * ex, -1, keepdims=True)
  off = jnp.sum(h * ey, -1, keepdims=True)  # < 0: the handle's side
  ready = (off < -0.02) & (jnp.abs(along - radius) < 0.03)
  base = hinge[..., :2] + radius * ex
  xy = jnp.where(ready, base + push * ey, base - standoff * ey)
  z = hinge[..., 2:3] + 0.05
  want = jnp.concatenate([xy, z], -1)
  move = jnp.clip((want - hand) * 25.0, -1.0, 1.0)
  return jnp.concatenate([move, jnp.ones_like(move[..., :1])], -1)


TASK = Task(
  name="door-close-v3",
  objects_xml=_door.DOOR_XML,
  hand_init_pos=(-0.5, 0.6, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(0.2, 0.65, 0.1499),
  goal_high=(0.3, 0.75, 0.1501),
  rand_low=(0.0, 0.85, 0.15),
  rand_high=(0.1, 0.95, 0.15),
  place=place,
  objects=_door.handle_objects,
  reward=reward,
  contact_xml=_door.SAFE_PANEL_PAIR,
)
