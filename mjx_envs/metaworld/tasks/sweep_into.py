"""sweep-into-v3: slide a wooden block across the table top into a square hole.

Reference: metaworld 3.1.1 `SawyerSweepIntoGoalEnvV3` (reward version v2), `sawyer_table_with_hole.xml`
(scene `basic_scene_b.xml`).

Reference facts used:
- rand_vec = [block xyz, goal xyz] from (-0.1, 0.6, 0.02, -0.001, 0.8399, 0.0199) .. (0.1, 0.7, 0.02, 0.001,
  0.8401, 0.0201); the goal part is NOT used: target_pos is always (0, 0.84, 0.02). The draw is redrawn
  while the block's xy is within 0.15 m of the target's (a rule against a fixed point).
  hand_init_pos (0, 0.6, 0.2), hand and mocap bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5).
- The table with the hole: the table's collision box has its top at z = 0 and four collision boxes (contype
  0, conaffinity 1, default solver parameters) of half-height 0.05 centred at z = 0 make a table top at
  z = 0.05 around a hole x -0.08 .. 0.08, y 0.76 .. 0.92 (5 cm deep): (0, 0.48) half (0.08, 0.28), (-+0.39,
  0.6) half (0.31, 0.4), (0, 0.96) half (0.08, 0.04).
- reset_model: obj_init_pos = [rand x, rand y, the block's com z after the hand reset] (it rests on the
  table top: 0.0699), `_set_obj_xyz` puts it there; maxPushDist. The reward's target is [0, 0.84, the
  block's current z]: success reads the xy distance alone.
- The block, its observation and the reward: tasks/_block.py (caging: obj_radius 0.02, grip margin 0.025,
  x-z margin 0.01).

Deliberate differences: the block's model position is (0, 0.6, 0.07), on the table top (the reference's
(0, 0.6, 0.02) is inside the top's box and is pushed out during the hand reset); the hole's bottom is
sawyer.py's table plane at z = 0.

Checks: reward and info parity on the fixture `metaworld_reference_objects`. `scripted` below (push-v3's
grip on the block, then carry it over the hole): success 100/100 episodes (benchmarks/scripted_success.py,
C backend, 500 steps).
"""

from __future__ import annotations

from mjx_envs.metaworld.sawyer import TCP_BELOW_HAND
from mjx_envs.metaworld.tasks import _block, push

import dataclasses

import jax.numpy as jnp

READS = _block.READS
GOAL = (0.0, 0.84, 0.02)
_TOP = 'contype="0" conaffinity="1" condim="3" rgba="0.55 0.42 0.3 1"'
# (x, y, half x, half y) of the table-top boxes around the hole (half-height 0.05, centred at z = 0)
TOP_BOXES = (
  (0.0, 0.48, 0.08, 0.28),
  (-0.39, 0.6, 0.31, 0.4),
  (0.39, 0.6, 0.31, 0.4),
  (0.0, 0.96, 0.08, 0.04),
)
OBJECTS_XML = _block.SWEEP_INTO_XML.replace('pos="0 0.6 0.02"', 'pos="0 0.6 0.07"') + "".join(
  f'\n    <geom type="box" pos="{x:g} {y:g} 0" size="{hx:g} {hy:g} 0.05" {_TOP}/>'
  for x, y, hx, hy in TOP_BOXES
)


def place(env, d, rand_vec):
  obj_init = jnp.concatenate([rand_vec[:2], push.settled_qpos(env, "objjoint")[2:3]])
  d = push.set_free_pos(env, d, "objjoint", obj_init)
  target = jnp.asarray(GOAL, jnp.float32)
  return d, {
    "target_pos": target,
    "obj_init_pos": obj_init,
    "maxPushDist": jnp.linalg.norm(obj_init[:2] - target[:2]),
  }


def objects(env, d):
  m = env.mj_model
  return d.xipos[m.body("obj").id], push.scipy_quat_xyzw(d.geom_xmat[m.geom("objGeom").id])


def reward(obs, action, reads):
  del action
  obj = obs[..., 4:7]
  target = jnp.concatenate([reads["target_pos"][..., :2], obj[..., 2:3]], -1)
  grasped = _block.caging(obj, reads, _block.OBJ_RADIUS, _block.OBJ_RADIUS + 0.005, 0.01)
  return _block.sweep_reward(obs, reads, target, grasped)


def valid(rand_vec):
  return jnp.linalg.norm(rand_vec[:2] - jnp.asarray(GOAL[:2], jnp.float32)) >= 0.15


def scripted(obs):
  """push-v3's grip (`push.grip_then`) on the block, then carry it, at its height, over the hole."""
  goal = obs[..., 36:39]
  carry = jnp.concatenate([goal[..., :2], obs[..., 6:7] + TCP_BELOW_HAND], -1)
  return push.grip_then(obs, carry)


# push-v3's Task (its hand: init (0, 0.6, 0.2), bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5)) with this task's pieces
TASK = dataclasses.replace(
  push.TASK,
  name="sweep-into-v3",
  objects_xml=OBJECTS_XML,
  goal_low=(-0.001, 0.8399, 0.0199),
  goal_high=(0.001, 0.8401, 0.0201),
  rand_low=(-0.1, 0.6, 0.02, -0.001, 0.8399, 0.0199),
  rand_high=(0.1, 0.7, 0.02, 0.001, 0.8401, 0.0201),
  place=place,
  objects=objects,
  reward=reward,
  valid=valid,
)
