"""shelf-place-v3: pick a block up from the table and put it on a shelf.

Reference: metaworld 3.1.1 `SawyerShelfPlaceEnvV3` (reward version v2), `sawyer_shelf_placing.xml`
(`objects/assets/shelf.xml`).

Reference facts used:
- rand_vec = [block xyz, goal xyz] from (-0.1, 0.5, 0.019, -0.1, 0.8, 0.299) .. (0.1, 0.6, 0.021, 0.1, 0.9,
  0.301); redrawn while block and goal are within 0.1 m in xy. hand_init_pos (0, 0.6, 0.2), hand and mocap
  bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5).
- reset_model: the shelf body moves to rand_vec[3:] - (0, 0, 0.3) (`model.body_pos`); target_pos = the
  shelf's `goal` site (0, 0, 0.3 in the shelf's frame) + that, i.e. rand_vec[3:]; obj_init_pos = [rand x,
  rand y, the block's com z after the hand reset (at rest at its model position (0, 0.6, 0.02))];
  `_set_obj_xyz`.
- Block: body `obj` (free joint `objjoint`), inertial mass 0.01, diaginertia 1e5, geom `objGeom` a box of
  half-sizes 0.02, friction 2 0.1 0.002, condim 4, solimp 0.99 0.99 0.01, solref 0.01 1. Observation: the
  body com and scipy's `as_quat` of the geom's xmat.
- Shelf: seven collision boxes (class `shelf_col`: contype 0, conaffinity 1, condim 3, solimp 0.99 0.99
  0.01, solref 0.01 1; `SHELF_BOXES`): two sides, the top, two boards (tops at z 0.25 and 0.06), the back
  and the base; its opening faces the robot (-y).
- Reward v2 (TARGET_RADIUS 0.05): in_place = tolerance(|obj - target|, (0, 0.05), margin |obj_init -
  target|, long_tail); object_grasped = the base `_gripper_caging_reward` (obj_radius 0.02,
  pad_success_thresh 0.05, object_reach_radius 0.01, xz_thresh 0.01, plain density); reward =
  hamacher(grasped, in_place); with 0 < obj z < 0.24 and |obj x - target x| < 0.15: in front of the shelf
  (target y - 0.15 < obj y < target y) in_place -= hamacher((obj y - (target y - 0.15)) / 0.15, (0.24 -
  obj z) / 0.24), clipped to [0, 1]; behind it (obj y > target y) in_place = 0; + 1 + 5 in_place when |tcp
  - obj| < 0.025, opening > 0 and obj z - 0.01 > obj_init z; 10 when |obj - target| < 0.05. Info: success
  |obj - target| <= 0.07, near_object |tcp - obj| <= 0.03, grasp_success = touching_main_object and
  opening > 0 and obj z - 0.02 > obj_init z.

JAX equivalent of a contact check: touching_main_object as push-v3's (`push.touching`), info only.

Deliberate differences: the shelf's visual meshes are left out (its collision boxes are the reference's);
the shelf is a mocap body placed per world.

Checks: reward and info parity on the fixture `metaworld_reference_objects`. `scripted` below (push-v3's
grip, up to the goal's height 0.2 m in front of the shelf, lined up in x, then in): success 100/100
episodes (benchmarks/scripted_success.py, C backend, 500 steps; 88/100 from 0.15 m, where the wrist meets the
shelf's underside).
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import TCP_BELOW_HAND
from mjx_envs.metaworld.tasks import push

import dataclasses

import jax.numpy as jnp

TARGET_RADIUS = 0.05
READS = push.READS
_COL = 'contype="0" conaffinity="1" condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" rgba="0.6 0.45 0.3 1"'
# (pos, half-sizes) in the shelf's frame
SHELF_BOXES = (
  ((-0.11, 0.0, 0.32), (0.01, 0.1, 0.32)),
  ((0.11, 0.0, 0.32), (0.01, 0.1, 0.32)),
  ((0.0, 0.0, 0.65), (0.12, 0.1, 0.01)),
  ((0.0, -0.015, 0.24), (0.1, 0.095, 0.01)),
  ((0.0, -0.015, 0.05), (0.1, 0.095, 0.01)),
  ((0.0, 0.09, 0.32), (0.1, 0.01, 0.32)),
  ((0.0, -0.008, 0.021), (0.1, 0.088, 0.021)),
)


def _v(t):
  return " ".join(f"{float(x):g}" for x in t)


OBJECTS_XML = (
  """
    <body name="obj" pos="0 0.6 0.02">
      <freejoint name="objjoint"/>
      <inertial pos="0 0 0" mass="0.01" diaginertia="100000 100000 100000"/>
      <geom name="objGeom" type="box" size="0.02 0.02 0.02" rgba="0 0 1 1" solimp="0.99 0.99 0.01"
            solref="0.01 1" friction="2 0.1 0.002" condim="4"/>
    </body>
    <body name="shelf" mocap="true" pos="0 0.8 0">"""
  + "".join(f'\n      <geom type="box" pos="{_v(p)}" size="{_v(h)}" {_COL}/>' for p, h in SHELF_BOXES)
  + "\n    </body>"
)
GOAL_IN_SHELF = 0.3  # the `goal` site's z in the shelf's frame
FRONT = 0.2  # where the block is lined up in front of the shelf (-y of the goal): the wrist (y +0.05) clears the shelf's front edge (0.1 before the goal)


def place(env, d, rand_vec):
  obj_init = jnp.concatenate([rand_vec[:2], push.settled_qpos(env, "objjoint")[2:3]])
  shelf_pos = rand_vec[3:6] - jnp.array([0.0, 0.0, GOAL_IN_SHELF])
  d = push.set_free_pos(env, d, "objjoint", obj_init)
  shelf = int(env.mj_model.body("shelf").mocapid[0])
  d = d.replace(mocap_pos=d.mocap_pos.at[shelf].set(shelf_pos))
  return d, {"target_pos": shelf_pos + jnp.array([0.0, 0.0, GOAL_IN_SHELF]), "obj_init_pos": obj_init}


def objects(env, d):
  m = env.mj_model
  return d.xipos[m.body("obj").id], push.scipy_quat_xyzw(d.geom_xmat[m.geom("objGeom").id])


def reward(obs, action, reads):
  obj, opened = obs[..., 4:7], obs[..., 3]
  tcp, target, init = reads["tcp_center"], reads["target_pos"], reads["obj_init_pos"]
  obj_to_target = jnp.linalg.norm(obj - target, axis=-1)
  tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
  in_place = R.tolerance(
    obj_to_target,
    bounds=(0, TARGET_RADIUS),
    margin=jnp.linalg.norm(init - target, axis=-1),
    sigmoid="long_tail",
  )
  grasped = R.gripper_caging_reward(
    action, obj, reads, obj_radius=0.02, pad_success_thresh=0.05, object_reach_radius=0.01, xz_thresh=0.01
  )
  rew = R.hamacher_product(grasped, in_place)
  x, y, z = obj[..., 0], obj[..., 1], obj[..., 2]
  ty = target[..., 1]
  below = (0.0 < z) & (z < 0.24) & (target[..., 0] - 0.15 < x) & (x < target[..., 0] + 0.15)
  front = below & (ty - 3 * TARGET_RADIUS < y) & (y < ty)
  loss = R.hamacher_product((y - (ty - 3 * TARGET_RADIUS)) / (3 * TARGET_RADIUS), (0.24 - z) / 0.24)
  in_place = jnp.where(front, jnp.clip(in_place - loss, 0.0, 1.0), in_place)
  in_place = jnp.where(below & (y > ty), 0.0, in_place)
  lifted = (tcp_to_obj < 0.025) & (opened > 0) & (z - 0.01 > init[..., 2])
  rew = jnp.where(lifted, rew + 1.0 + 5.0 * in_place, rew)
  rew = jnp.where(obj_to_target < TARGET_RADIUS, 10.0, rew)
  return rew, push.puck_info(obs, reads, tcp_to_obj, obj_to_target, grasped, in_place, rew, 0.07)


def valid(rand_vec):
  return jnp.linalg.norm(rand_vec[:2] - rand_vec[3:5]) >= 0.1


def scripted(obs):
  """push-v3's grip (`push.grip_then`); once held: to FRONT in front of the goal at its height, then (lined
  up in x and high enough) in to the goal."""
  obj, goal = obs[..., 4:7], obs[..., 36:39]
  lined_up = (jnp.abs(obj[..., :1] - goal[..., :1]) < 0.015) & (obj[..., 2:3] > goal[..., 2:3] - 0.02)
  # Where the hand must be for the block to be there: the block can sit off the claws' centre along x
  # (the pads close along y; the arm's carry shifts it by up to ~1.5 cm), so the hand targets carry that
  # offset in x; in z the tcp's height above the block is taken as the grip's nominal 4.5 cm.
  grip_dx = jnp.concatenate([obs[..., 0:1] - obj[..., :1], jnp.zeros_like(obj[..., 1:])], -1)
  front = goal + grip_dx + jnp.array([0.0, -FRONT, TCP_BELOW_HAND])
  inside = goal + grip_dx + jnp.array([0.0, 0.0, TCP_BELOW_HAND])
  # carried at half speed: at full speed the arm's grip lost the block in 69 of 100 episodes
  return push.grip_then(
    obs, jnp.where(lined_up | (obj[..., 1:2] > goal[..., 1:2] - FRONT + 0.02), inside, front), carry_speed=0.5
  )


# push-v3's Task (its hand: init (0, 0.6, 0.2), bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5)) with this task's pieces
TASK = dataclasses.replace(
  push.TASK,
  name="shelf-place-v3",
  objects_xml=OBJECTS_XML,
  goal_low=(-0.1, 0.8, 0.299),
  goal_high=(0.1, 0.9, 0.301),
  rand_low=(-0.1, 0.5, 0.019, -0.1, 0.8, 0.299),
  rand_high=(0.1, 0.6, 0.021, 0.1, 0.9, 0.301),
  place=place,
  objects=objects,
  reward=reward,
  valid=valid,
)
