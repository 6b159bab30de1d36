"""push-back-v3: pull a block on the table back towards the robot, to a goal on the table.

Reference: metaworld 3.1.1 `SawyerPushBackEnvV3` (reward version v2), `sawyer_push_back_v3.xml`.

Reference facts used:
- rand_vec = [block xyz, goal xyz] from (-0.1, 0.8, 0.02, -0.1, 0.6, 0.0199) .. (0.1, 0.85, 0.02, 0.1, 0.7,
  0.0201), redrawn while block and goal are within 0.15 m in xy. reset_model as push-v3's: obj_init_pos =
  [rand x, rand y, the block's geom z after the hand reset (at rest at its model position (0, 0.6,
  0.02))], target_pos = [goal x, goal y, that same z]. hand_init_pos (0, 0.6, 0.2), hand and mocap bounds
  (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5).
- Block: body `obj` (mass 0.75, diaginertia 1e5: it practically cannot turn), geom `objGeom` a BOX of
  half-sizes 0.02, friction 2 / 0.1 / 0.002, condim 4, solref 0.01 1, solimp 0.99 0.99 0.01. Observation:
  the geom's xpos and scipy's `as_quat` of its xmat.
- Reward v2 (OBJ_RADIUS 0.007, TARGET_RADIUS 0.05): in_place = tolerance(|obj - target|, (0, 0.05), margin
  |obj_init - target|, long_tail); object_grasped = this env's own `_gripper_caging_reward` (`caging`
  below: the signed pad gaps left_pad.y - obj.y and obj.y - right_pad.y within (0.007, 0.05) for caging and
  within (0.007, 0.010) for gripping, margins | |obj.y - init pad.y| - 0.05 | from the live "init" pads;
  x-z within 0.01 of the tcp, margin |obj_init - init_tcp|_xz - 0.01; gripping counts once caging > 0.95;
  (caging + gripping) / 2; the action is not read); reward = hamacher(grasped, in_place), + 1 + 5
  in_place when |tcp - obj| < 0.01, 0 < opening < 0.55 and the block is > 0.01 closer to the target than
  at the start; 10 when |obj - target| < 0.05. Info: success |obj - target| <= 0.07, near_object |tcp -
  obj| <= 0.03, grasp_success = touching_main_object and opening > 0 and obj z - 0.02 > obj_init z.

JAX equivalent of a contact check: touching_main_object as push-v3's (`push.touching`), info only.

Deliberate differences: none in the block (a box in the reference too); the table is sawyer.py's plane.

Checks: reward and info parity on the fixture `metaworld_reference_walls`: 40 records, max |difference|
4.9e-7 in the reward. Not covered by the records: the pulling bonus (|tcp - obj| < 0.01 with the
opening in (0, 0.55)); the reference's policy never reaches it (its fingers closed on the 4 cm block read
an opening of 0.66), nor did a reference run of a controller like ours (tcp at the block's centre,
closest 0.0165 m while the opening was below 0.55): that branch is checked by reading only.
`scripted` below (push-v3's grip, then drag the block to the goal): success 100/100 episodes
(benchmarks/scripted_success.py, C backend, 500 steps); the reference's own policy in the reference: 10/10.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import TCP_BELOW_HAND
from mjx_envs.metaworld.tasks import _block, push

import dataclasses

import jax.numpy as jnp

OBJ_RADIUS = 0.007
TARGET_RADIUS = 0.05
READS = push.READS + ("init_left_pad", "init_right_pad")

OBJECTS_XML = """
    <body name="obj" pos="0 0.6 0.02">
      <freejoint name="objjoint"/>
      <inertial pos="0 0 0" mass="0.75" diaginertia="100000 100000 100000"/>
      <geom name="objGeom" type="box" size="0.02 0.02 0.02" rgba="0.6 0.4 0.2 1" solimp="0.99 0.99 0.01"
            solref="0.01 1" friction="2 0.1 0.002" condim="4"/>
    </body>"""


def caging(obj, reads):
  """This env's own `_gripper_caging_reward` (see the docstring): tasks/_block.py's form with its margins."""
  return _block.caging(obj, reads, OBJ_RADIUS, OBJ_RADIUS + 0.003, 0.01)


def reward(obs, action, reads):
  del action
  obj, opened = obs[..., 4:7], obs[..., 3]
  tcp, target, init = reads["tcp_center"], reads["target_pos"], reads["obj_init_pos"]
  tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
  target_to_obj = jnp.linalg.norm(obj - target, axis=-1)
  target_to_obj_init = jnp.linalg.norm(init - target, axis=-1)
  in_place = R.tolerance(
    target_to_obj, bounds=(0, TARGET_RADIUS), margin=target_to_obj_init, sigmoid="long_tail"
  )
  grasped = caging(obj, reads)
  rew = R.hamacher_product(grasped, in_place)
  pulling = (tcp_to_obj < 0.01) & (opened > 0) & (opened < 0.55) & (target_to_obj_init - target_to_obj > 0.01)
  rew = jnp.where(pulling, rew + 1.0 + 5.0 * in_place, rew)
  rew = jnp.where(target_to_obj < TARGET_RADIUS, 10.0, rew)
  return rew, push.puck_info(obs, reads, tcp_to_obj, target_to_obj, grasped, in_place, rew, 0.07)


def scripted(obs):
  """push-v3's grip (`push.grip_then`: above the block, down, close), then drag it along the table to the
  goal, the tcp at the goal's height."""
  return push.grip_then(obs, obs[..., 36:39] + jnp.array([0.0, 0.0, TCP_BELOW_HAND]))


# push-v3's Task (hand, place, objects, reads, rule, touch geoms) with this task's block, ranges and reward
TASK = dataclasses.replace(
  push.TASK,
  name="push-back-v3",
  objects_xml=OBJECTS_XML,
  goal_low=(-0.1, 0.6, 0.0199),
  goal_high=(0.1, 0.7, 0.0201),
  rand_low=(-0.1, 0.8, 0.02, -0.1, 0.6, 0.0199),
  rand_high=(0.1, 0.85, 0.02, 0.1, 0.7, 0.0201),
  reward=reward,
)
