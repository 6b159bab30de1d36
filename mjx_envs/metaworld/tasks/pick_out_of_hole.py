"""pick-out-of-hole-v3: lift a puck out of a hole in a raised table top and bring it to a goal in the air.

Reference: metaworld 3.1.1 `SawyerPickOutOfHoleEnvV3` (reward version v2), `sawyer_pick_out_of_hole.xml`.

Reference facts used:
- rand_vec = [puck xyz, goal xyz] from (0, 0.75, 0.02, -0.1, 0.5, 0.15) .. (0, 0.75, 0.02, 0.1, 0.6, 0.3)
  (the puck always starts at (0, 0.75, 0.02)); redrawn while puck and goal are within 0.15 m in xy.
  hand_init_pos (0, 0.6, 0.2), hand and mocap bounds (-0.5, 0.4, -0.05) .. (0.5, 1, 0.5).
- reset_model: obj_init_pos = rand_vec[:3], `_set_obj_xyz`; target_pos = rand_vec[3:].
- The raised table top: four collision boxes (contype 0, conaffinity 1, solref 0.005 0.1) of half-height
  0.027 centred at z 0.027 over the table (top at z = 0.054), around a hole x -0.15 .. 0.15, y 0.65 ..
  0.95 whose floor is the table at z = 0: (0, 0.425) half (0.7, 0.225), (0, 0.975) half (0.15, 0.025),
  (-+0.425, 0.825) half (0.275, 0.175).
- Puck: body `obj` (free joint `objjoint`), inertial mass 0.01, diaginertia 1e5 (it cannot turn), geom
  `objGeom` a cylinder of radius 0.02 and half-height 0.02, friction 1 0.1 0.002, condim 4, solimp 0.99
  0.99 0.01, solref 0.01 1. Observation: the body com and `data.body("obj").xquat` ([w, x, y, z]).
- Reward v2: in_place = tolerance(|obj - target|, (0, 0.02), margin |obj_init - target|, long_tail); the
  floor funnel: radius = |tcp_xy - obj_init_xy|, floor = 0 within 0.03 else 0.015 log(radius - 0.03) +
  0.15, above_floor = 1 when tcp z >= floor else tolerance(floor - tcp z, (0, 0.01), margin 0.02,
  long_tail); object_grasped = the base `_gripper_caging_reward` (obj_radius 0.015, pad_success_thresh
  0.02, object_reach_radius 0.01, xz_thresh 0.03, desired_gripper_effort 0.1, high density); reward =
  hamacher(grasped, in_place); grasp_success = |tcp - obj| < 0.04 and obj z - 0.02 > obj_init z and
  opening >= 0.33, then + 1 + 5 hamacher(in_place, above_floor); 10 when |obj - target| < 0.05 (the base
  TARGET_RADIUS; the class's own _TARGET_RADIUS 0.02 is unused). Info: success |obj - target| <= 0.07,
  near_object |tcp - obj| <= 0.03, grasp_success as above (no contact check).

Deliberate differences:
- The puck is a BOX of the cylinder's half-sizes (0.02 x 0.02 x 0.02), as push-v3's: MJX has no
  box-cylinder collision and the pads are boxes.

Checks: reward and info parity on the fixture `metaworld_reference_objects`. `scripted` below (push-v3's
grip in the hole, straight up out of it, then to the goal): success 100/100 episodes
(benchmarks/scripted_success.py, C backend, 500 steps).
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import TCP_BELOW_HAND, Task
from mjx_envs.metaworld.tasks import push

import jax.numpy as jnp

TARGET_RADIUS = 0.05
READS = ("tcp_center", "left_pad", "right_pad", "target_pos", "obj_init_pos", "init_tcp")
_TOP = 'contype="0" conaffinity="1" condim="3" solref="0.005 0.1" rgba="0.55 0.42 0.3 1"'
# (x, y, half x, half y) of the raised top's boxes around the hole (half-height 0.027, centred at z 0.027)
TOP_BOXES = (
  (0.0, 0.425, 0.7, 0.225),
  (0.0, 0.975, 0.15, 0.025),
  (-0.425, 0.825, 0.275, 0.175),
  (0.425, 0.825, 0.275, 0.175),
)
OBJECTS_XML = """
    <body name="obj" pos="0 0.6 0.02">
      <freejoint name="objjoint"/>
      <inertial pos="0 0 0" mass="0.01" diaginertia="100000 100000 100000"/>
      <geom name="objGeom" type="box" size="0.02 0.02 0.02" rgba="1 0 0 1" solimp="0.99 0.99 0.01"
            solref="0.01 1" friction="1 0.1 0.002" condim="4"/>
    </body>""" + "".join(
  f'\n    <geom type="box" pos="{x:g} {y:g} 0.027" size="{hx:g} {hy:g} 0.027" {_TOP}/>'
  for x, y, hx, hy in TOP_BOXES
)
LIFT_Z = 0.1  # the puck's centre before it leaves the hole's column (the top is at 0.054)


def place(env, d, rand_vec):
  d = push.set_free_pos(env, d, "objjoint", rand_vec[:3])
  return d, {"target_pos": rand_vec[3:6], "obj_init_pos": rand_vec[:3]}


def objects(env, d):
  b = env.mj_model.body("obj").id
  return d.xipos[b], d.xquat[b]


def reward(obs, action, reads):
  obj = obs[..., 4:7]
  tcp, target, init = reads["tcp_center"], reads["target_pos"], reads["obj_init_pos"]
  obj_to_target = jnp.linalg.norm(obj - target, axis=-1)
  tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
  in_place = R.tolerance(
    obj_to_target, bounds=(0, 0.02), margin=jnp.linalg.norm(init - target, axis=-1), sigmoid="long_tail"
  )
  radius = jnp.linalg.norm(tcp[..., :2] - init[..., :2], axis=-1)
  floor = jnp.where(radius <= 0.03, 0.0, 0.015 * jnp.log(jnp.maximum(radius - 0.03, 1e-12)) + 0.15)
  above_floor = jnp.where(
    tcp[..., 2] >= floor,
    1.0,
    R.tolerance(jnp.maximum(floor - tcp[..., 2], 0.0), bounds=(0.0, 0.01), margin=0.02, sigmoid="long_tail"),
  )
  grasped = R.gripper_caging_reward(
    action,
    obj,
    reads,
    obj_radius=0.015,
    pad_success_thresh=0.02,
    object_reach_radius=0.01,
    xz_thresh=0.03,
    desired_gripper_effort=0.1,
    high_density=True,
  )
  rew = R.hamacher_product(grasped, in_place)
  grasp = (tcp_to_obj < 0.04) & (obj[..., 2] - 0.02 > init[..., 2]) & ~(obs[..., 3] < 0.33)
  rew = jnp.where(grasp, rew + 1.0 + 5.0 * R.hamacher_product(in_place, above_floor), rew)
  rew = jnp.where(obj_to_target < TARGET_RADIUS, 10.0, rew)
  return rew, R.info(obj_to_target <= 0.07, tcp_to_obj <= 0.03, grasp, grasped, in_place, obj_to_target, rew)


def valid(rand_vec):
  return jnp.linalg.norm(rand_vec[:2] - rand_vec[3:5]) >= 0.15


def scripted(obs):
  """push-v3's grip (`push.grip_then`) on the puck in the hole; once held: straight up until the puck is at
  LIFT_Z, then to the goal."""
  hand, obj, goal = obs[..., 0:3], obs[..., 4:7], obs[..., 36:39]
  low = obj[..., 2:3] < LIFT_Z
  up = jnp.concatenate([hand[..., :2], jnp.full_like(hand[..., 2:3], LIFT_Z + 0.03 + TCP_BELOW_HAND)], -1)
  return push.grip_then(obs, jnp.where(low, up, goal + jnp.array([0.0, 0.0, TCP_BELOW_HAND])))


TASK = Task(
  name="pick-out-of-hole-v3",
  objects_xml=OBJECTS_XML,
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, -0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.1, 0.5, 0.15),
  goal_high=(0.1, 0.6, 0.3),
  rand_low=(0.0, 0.75, 0.02, -0.1, 0.5, 0.15),
  rand_high=(0.0, 0.75, 0.02, 0.1, 0.6, 0.3),
  place=place,
  objects=objects,
  reward=reward,
  valid=valid,
)
