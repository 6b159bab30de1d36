"""bin-picking-v3: pick a cube out of one bin and drop it into the other.

Reference: metaworld 3.1.1 `SawyerBinPickingEnvV3` (reward version v2), `sawyer_bin_picking.xml` (objects
`objA.xml`, `binA.xml`, `binB.xml`).

Reference facts used:
- rand_vec = [cube xyz, goal xyz] from (-0.21, 0.65, 0.02, 0.1199, 0.699, -0.001) .. (-0.03, 0.75, 0.02,
  0.1201, 0.701, 0.001); only the cube's xy is used; no rejection rule. hand_init_pos (0, 0.6, 0.2), hand
  and mocap bounds (-0.5, 0.4, 0.07) .. (0.5, 1, 0.5).
- reset_model: obj_init_pos = [rand x, rand y, the cube body's z after the hand reset (it rests on the start
  bin's floor)], `_set_obj_xyz`; target_pos = `get_body_com("bin_goal")` = (0.12, 0.7, 0) (fixed).
- Cube: body `obj` (free joint) at (-0.12, 0.7, 0.04), child `objA` with the collision box of half-sizes
  0.02, mass 0.1 (class `obj_col`: contype 1, conaffinity 1, condim 4, solimp 0.99 0.99 0.01, solref 0.01 1,
  default friction). Observation: `get_body_com("obj")` (gymnasium's body xpos) and the body's xquat.
- Bins `bin_start` at (-0.12, 0.7, 0) and `bin_goal` at (0.12, 0.7, 0), fixed: each four walls 0.06 high
  and a floor 0.01 thick (class `bin_col`: contype 0, conaffinity 1, condim 3, solimp 0.99 0.99 0.01,
  solref 0.01 1; `BIN_BOXES`).
- Reward v2: in_place = tolerance(|obj - target|, (0, 0.05), margin `_target_to_obj_init` (|obj -
  target| at the episode's first reward evaluation), long_tail); the floor = the lower of two funnels about
  obj_init and the target (0 within 0.03 of the centre in xy, else 0.02 log(radius - 0.03) + 0.2);
  above_floor = 1 when hand z >= floor else tolerance(floor - hand z, (0, 0.01), margin 0.05, long_tail);
  object_grasped = the base `_gripper_caging_reward` (obj_radius 0.015, pad_success_thresh 0.05,
  object_reach_radius 0.01, xz_thresh 0.01, desired_gripper_effort 0.7, high density); reward =
  hamacher(grasped, in_place); grasp_success = |obj - hand| < 0.04, opening >= 0.43 and obj z - 0.02 >
  obj_init z, then + 1 + 5 hamacher(above_floor, in_place); 10 when |obj - target| < 0.05. Info: success
  |obj - target| <= 0.05, near_object = |obj - hand| < 0.04, grasp_success as above.

Deliberate differences: `_target_to_obj_init` is computed at the reset, from the placed cube at rest (the
reference's, at its first step, sees the same pose unless the hand touches the cube in that step); the
visual meshes are left out.

Checks: reward and info parity on the fixture `metaworld_reference_objects`. `scripted` below (push-v3's
grip, 6 mm off a cube's centre when it lies against a wall, up over the walls, over the goal bin, down):
success 97/100 episodes (benchmarks/scripted_success.py, C backend, 500 steps; 86/100 without the offset
once the hand kept the arm's 3.9 mm sag, 95/100 before).
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import TCP_BELOW_HAND
from mjx_envs.metaworld.tasks import box_close, push

import dataclasses

import jax.numpy as jnp

TARGET_RADIUS = 0.05
READS = push.READS[:6] + ("_target_to_obj_init",)  # push-v3's but the contact flag
TARGET = (0.12, 0.7, 0.0)
START_BIN_X = -0.12  # the start bin's centre in x (its walls' inner faces 0.09 from it)
_BIN = 'contype="0" conaffinity="1" condim="3" solimp="0.99 0.99 0.01" solref="0.01 1"'
BIN_BOXES = box_close.BOX_BOXES  # the same walls and floor as box-close-v3's box


def _bin(name, x, rgba):
  boxes = "".join(
    f'\n      <geom type="box" pos="{p[0]:g} {p[1]:g} {p[2]:g}" size="{h[0]:g} {h[1]:g} {h[2]:g}" {_BIN} rgba="{rgba}"/>'
    for p, h in BIN_BOXES
  )
  return f'\n    <body name="{name}" pos="{x:g} 0.7 0">{boxes}\n    </body>'


OBJECTS_XML = (
  """
    <body name="obj" pos="-0.12 0.7 0.04">
      <freejoint name="objjoint"/>
      <inertial pos="0 0 0" mass="0.1" diaginertia="2.66667e-05 2.66667e-05 2.66667e-05"/>
      <geom name="objGeom" type="box" size="0.02 0.02 0.02" contype="1" conaffinity="1" condim="4"
            solimp="0.99 0.99 0.01" solref="0.01 1" rgba="0 1 0 1"/>
    </body>"""
  + _bin("bin_start", START_BIN_X, "0.8 0 0 1")
  + _bin("bin_goal", 0.12, "0 0 0.8 1")
)
CARRY_Z = 0.12  # the cube's centre while it crosses the walls (their tops at 0.06)


def place(env, d, rand_vec):
  obj_init = jnp.concatenate([rand_vec[:2], push.settled_qpos(env, "objjoint")[2:3]])
  d = push.set_free_pos(env, d, "objjoint", obj_init)
  target = jnp.asarray(TARGET, jnp.float32)
  return d, {
    "target_pos": target,
    "obj_init_pos": obj_init,
    "_target_to_obj_init": jnp.linalg.norm(obj_init - target),
  }


def objects(env, d):
  b = env.mj_model.body("obj").id
  return d.xpos[b], d.xquat[b]


def reward(obs, action, reads):
  hand, obj = obs[..., 0:3], obs[..., 4:7]
  target, init = reads["target_pos"], reads["obj_init_pos"]
  target_to_obj = jnp.linalg.norm(obj - target, axis=-1)
  in_place = R.tolerance(
    target_to_obj, bounds=(0, TARGET_RADIUS), margin=reads["_target_to_obj_init"], sigmoid="long_tail"
  )

  def funnel(centre):
    radius = jnp.linalg.norm(hand[..., :2] - centre[..., :2], axis=-1)
    return jnp.where(radius > 0.03, 0.02 * jnp.log(jnp.maximum(radius - 0.03, 1e-12)) + 0.2, 0.0)

  floor = jnp.minimum(funnel(init), funnel(target))
  above_floor = jnp.where(
    hand[..., 2] >= floor,
    1.0,
    R.tolerance(jnp.maximum(floor - hand[..., 2], 0.0), bounds=(0.0, 0.01), margin=0.05, sigmoid="long_tail"),
  )
  grasped = R.gripper_caging_reward(
    action,
    obj,
    reads,
    obj_radius=0.015,
    pad_success_thresh=0.05,
    object_reach_radius=0.01,
    xz_thresh=0.01,
    desired_gripper_effort=0.7,
    high_density=True,
  )
  rew = R.hamacher_product(grasped, in_place)
  near = jnp.linalg.norm(obj - hand, axis=-1) < 0.04
  grasp = near & (obj[..., 2] - 0.02 > init[..., 2]) & ~(obs[..., 3] < 0.43)
  rew = jnp.where(grasp, rew + 1.0 + 5.0 * R.hamacher_product(above_floor, in_place), rew)
  rew = jnp.where(target_to_obj < TARGET_RADIUS, 10.0, rew)
  return rew, R.info(target_to_obj <= TARGET_RADIUS, near, grasp, grasped, in_place, target_to_obj, rew)


def scripted(obs):
  """push-v3's grip (`push.grip_then`); once held: up to CARRY_Z, over the goal bin's centre, then down
  into it (within 2 cm of the centre in xy)."""
  hand, obj, goal = obs[..., 0:3], obs[..., 4:7], obs[..., 36:39]
  over = jnp.linalg.norm(obj[..., :2] - goal[..., :2], axis=-1, keepdims=True) < 0.02
  low = obj[..., 2:3] < CARRY_Z - 0.02
  up = jnp.concatenate([hand[..., :2], jnp.full_like(hand[..., 2:3], CARRY_Z + TCP_BELOW_HAND)], -1)
  across = jnp.concatenate([goal[..., :2], jnp.full_like(hand[..., 2:3], CARRY_Z + TCP_BELOW_HAND)], -1)
  down = goal + jnp.array([0.0, 0.0, 0.04 + TCP_BELOW_HAND])
  to = jnp.where(over, down, jnp.where(low & ~over, up, across))
  # A cube against an x wall of the start bin is gripped up to 6 mm off its centre towards the bin's
  # middle, so that the claws (x +-0.015) come down clear of the wall instead of catching its top edge.
  off = START_BIN_X - obj[..., 0:1]
  shift = jnp.clip(off, -0.006, 0.006) * (jnp.abs(off) > 0.06)
  return push.grip_then(obs.at[..., 4:5].add(shift), to)


# push-v3's Task (its hand init (0, 0.6, 0.2)) with this task's pieces
TASK = dataclasses.replace(
  push.TASK,
  name="bin-picking-v3",
  objects_xml=OBJECTS_XML,
  hand_low=(-0.5, 0.40, 0.07),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(0.1199, 0.699, -0.001),
  goal_high=(0.1201, 0.701, 0.001),
  rand_low=(-0.21, 0.65, 0.02, 0.1199, 0.699, -0.001),
  rand_high=(-0.03, 0.75, 0.02, 0.1201, 0.701, 0.001),
  place=place,
  objects=objects,
  reward=reward,
  valid=lambda rand_vec: jnp.bool_(True),
  reads=lambda env, d, ctx: {},
  touch_geoms=(),
)
