"""soccer-v3: get a soccer ball into a small goal on the table.

Reference: metaworld 3.1.1 `SawyerSoccerEnvV3` (reward version v2), `sawyer_soccer.xml` (objects
`soccer_ball.xml`, `soccer_goal.xml`).

Reference facts used:
- rand_vec = [ball xyz, goal xyz] from (-0.1, 0.6, 0.03, -0.1, 0.8, 0) .. (0.1, 0.7, 0.03, 0.1, 0.9, 0);
  redrawn while ball and goal are within 0.15 m in xy. hand_init_pos (0, 0.6, 0.2), hand and mocap bounds
  (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5).
- reset_model: target_pos = rand_vec[3:]; obj_init_pos = [rand x, rand y, 0.03]; the goal body
  `goal_whole` moved to target_pos (`model.body_pos`); `_set_obj_xyz(obj_init_pos)`; maxPushDist.
- Ball: body `soccer_ball` (free joint) at (0, 0.6, 0.03); its collision sphere `objGeom` radius 0.026,
  mass 0.04 (inertia from it alone), class `soccer_col`: contype 1, conaffinity 1, condim 3, solimp 0.99
  0.99 0.01, solref 0.01 1, default friction 1 0.005 0.0001. Observation: the body com and scipy's
  `as_quat` of the body's xmat.
- Goal: four collision meshes `goal_col1` .. `goal_col4` (class `soccer_col`; 8 vertices each: boxes) in
  body `soccer_goal` at the origin of `goal_whole`: two side walls, the back net, the top bar.
- Reward v2 (OBJ_RADIUS 0.013, TARGET_RADIUS 0.07): with x scaled by 3, target_to_obj = |(obj - target)
  (3, 1, 1)| and in_place = tolerance(target_to_obj, (0, 0.07), margin |(obj - obj_init) (3, 1, 1)|,
  long_tail) (the margin is the ball's CURRENT distance from its start); past the goal line (obj y >
  target y - 0.1) and more than 0.1 from the goal's centre in x, in_place -= 2 (obj y - line) / (1 - line),
  clipped to [0, 1]; object_grasped = tasks/_block.py's caging (obj_radius 0.013, grip margin 0.023, x-z
  margin 0.005); reward = 3 grasped + 6.5 in_place; 10 when the scaled distance < 0.07.
  Info: success |obj - target| <= 0.07 (unscaled), near_object |tcp - obj| <= 0.03, grasp_success =
  touching_main_object and opening > 0 and obj z - 0.02 > obj_init z; obj_to_target unscaled.

JAX equivalent of a contact check: touching_main_object as push-v3's (`push.touching`), info only.

Deliberate differences:
- The goal's four collision meshes are BOXES: each mesh's bounding box in the geom's (principal) frame, at
  its position and orientation, read from the reference's compiled model (`GOAL_BOXES`; the meshes have 8
  vertices each). The visual meshes are left out. The goal is a mocap body placed per world.

Checks: reward and info parity on the fixture `metaworld_reference_objects`. `scripted` below (grip the
ball low, at its equator, carry it in front of the goal, then into it): success 100/100 episodes
(benchmarks/scripted_success.py, C backend, 500 steps).
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import TCP_BELOW_HAND
from mjx_envs.metaworld.tasks import _block, push

import dataclasses

import jax.numpy as jnp

OBJ_RADIUS = 0.013
TARGET_RADIUS = 0.07
BALL_RADIUS = 0.026
READS = _block.READS
_COL = (
  'contype="1" conaffinity="1" condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" friction="1 0.005 0.0001"'
)
# (pos, quat [w x y z], half-sizes) in the goal's frame
GOAL_BOXES = (
  ((0.09647, -0.01965, 0.07756), (0.99237, 0.12326, 0.0, 0.0), (0.00623, 0.06166, 0.09555)),
  ((0.0, 0.03122, 0.0825), (0.42074, 0.56831, 0.42074, 0.56831), (0.00715, 0.08834, 0.1027)),
  ((-0.09647, -0.01965, 0.07756), (0.99237, 0.12326, 0.0, 0.0), (0.00623, 0.06166, 0.09555)),
  ((0.00023, -0.02508, 0.15932), (0.0, 0.70711, 0.0, 0.70711), (0.00568, 0.03859, 0.09047)),
)


def _v(t):
  return " ".join(f"{float(x):g}" for x in t)


OBJECTS_XML = (
  f"""
    <body name="soccer_ball" pos="0 0.6 0.03">
      <freejoint name="objjoint"/>
      <inertial pos="0 0 0" mass="0.04" diaginertia="1.0816e-05 1.0816e-05 1.0816e-05"/>
      <geom name="objGeom" type="sphere" size="{BALL_RADIUS}" {_COL} rgba="0.85 0.85 0.85 1"/>
    </body>
    <body name="goal_whole" mocap="true" pos="0 0.9 0">"""
  + "".join(
    f'\n      <geom type="box" pos="{_v(p)}" quat="{_v(q)}" size="{_v(h)}" {_COL} rgba="0 0.4 0.6 0.6"/>'
    for p, q, h in GOAL_BOXES
  )
  + "\n    </body>"
)


def place(env, d, rand_vec):
  obj_init = jnp.concatenate([rand_vec[:2], jnp.full((1,), 0.03, jnp.float32)])
  target = rand_vec[3:6]
  d = push.set_free_pos(env, d, "objjoint", obj_init)
  goal = int(env.mj_model.body("goal_whole").mocapid[0])
  d = d.replace(mocap_pos=d.mocap_pos.at[goal].set(target))
  return d, {
    "target_pos": target,
    "obj_init_pos": obj_init,
    "maxPushDist": jnp.linalg.norm(obj_init[:2] - target[:2]),
  }


def objects(env, d):
  b = env.mj_model.body("soccer_ball").id
  return d.xipos[b], push.scipy_quat_xyzw(d.xmat[b].reshape(3, 3))


def reward(obs, action, reads):
  del action
  obj = obs[..., 4:7]
  tcp, target, init = reads["tcp_center"], reads["target_pos"], reads["obj_init_pos"]
  scale = jnp.array([3.0, 1.0, 1.0])
  tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
  target_to_obj = jnp.linalg.norm((obj - target) * scale, axis=-1)
  in_place = R.tolerance(
    target_to_obj,
    bounds=(0, TARGET_RADIUS),
    margin=jnp.linalg.norm((obj - init) * scale, axis=-1),
    sigmoid="long_tail",
  )
  line = target[..., 1] - 0.1
  wide = (obj[..., 1] > line) & (jnp.abs(obj[..., 0] - target[..., 0]) > 0.1)
  in_place = jnp.where(wide, jnp.clip(in_place - 2 * ((obj[..., 1] - line) / (1 - line)), 0.0, 1.0), in_place)
  grasped = _block.caging(obj, reads, OBJ_RADIUS, OBJ_RADIUS + 0.01, 0.005)
  rew = 3 * grasped + 6.5 * in_place
  rew = jnp.where(target_to_obj < TARGET_RADIUS, 10.0, rew)
  obj_to_target = jnp.linalg.norm(obj - target, axis=-1)
  return rew, push.puck_info(obs, reads, tcp_to_obj, obj_to_target, grasped, in_place, rew, TARGET_RADIUS)


def valid(rand_vec):
  return jnp.linalg.norm(rand_vec[:2] - rand_vec[3:5]) >= 0.15


GRIP_TCP_Z = 0.008  # the pads' bottom while gripping: below the ball's equator (0.026)
FRONT = 0.12  # the point in front of the goal's mouth (-y) where the ball is lined up
INSIDE = 0.02  # the ball's stop, this far in front of the goal's origin (its back net is 0.024 behind)


def scripted(obs):
  """Grip the ball with the pads around its equator (push-v3's grip, `push.grip_then`, aimed
  ball z - GRIP_TCP_Z lower), carry it to FRONT in front of the goal's mouth, lined up in x, then in along
  +y to INSIDE in front of the goal's origin, 1 cm above the table."""
  ball, goal = obs[..., 4:7], obs[..., 36:39]
  low = obs.at[..., 6].add(GRIP_TCP_Z - BALL_RADIUS)
  hand_z = jnp.full_like(goal[..., :1], GRIP_TCP_Z + 0.01 + TCP_BELOW_HAND)
  lined_up = (jnp.abs(ball[..., :1] - goal[..., :1]) < 0.015) | (
    ball[..., 1:2] > goal[..., 1:2] - FRONT + 0.02
  )
  front = jnp.concatenate([goal[..., :1], goal[..., 1:2] - FRONT, hand_z], -1)
  inside = jnp.concatenate([goal[..., :1], goal[..., 1:2] - INSIDE, hand_z], -1)
  return push.grip_then(low, jnp.where(lined_up, inside, front))


# push-v3's Task (its hand: init (0, 0.6, 0.2), bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5)) with this task's pieces
TASK = dataclasses.replace(
  push.TASK,
  name="soccer-v3",
  objects_xml=OBJECTS_XML,
  goal_low=(-0.1, 0.8, 0.0),
  goal_high=(0.1, 0.9, 0.0),
  rand_low=(-0.1, 0.6, 0.03, -0.1, 0.8, 0.0),
  rand_high=(0.1, 0.7, 0.03, 0.1, 0.9, 0.0),
  place=place,
  objects=objects,
  reward=reward,
  valid=valid,
)
