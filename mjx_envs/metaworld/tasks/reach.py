"""reach-v3: move the tcp within 0.05 m of a goal in the air; a puck lies on the table as a distractor.

Reference: metaworld 3.1.1 `SawyerReachEnvV3` (reward version v2). rand_vec = [object xyz, goal xyz],
redrawn while the object and the goal are within 0.15 m in xy. The object's quaternion in the
observation is scipy's [x, y, z, w] of its geom frame. The puck (a cylinder in the reference) is a box
of the same half-sizes: nothing in this task touches it on purpose.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task, body_quat_xyzw
from mjx_envs.metaworld.tasks.push import set_free_pos

import jax.numpy as jnp

TARGET_RADIUS = 0.05
READS = ("tcp_center", "target_pos", "hand_init_pos")

OBJECTS_XML = """
    <body name="obj" pos="0 0.6 0.02">
      <freejoint name="objjoint"/>
      <inertial pos="0 0 0" mass="0.75" diaginertia="8.80012e-04 8.80012e-04 8.80012e-04"/>
      <geom name="objGeom" type="box" size="0.02 0.02 0.02" rgba="1 0 0 1" solimp="0.99 0.99 0.01"
            solref="0.01 1" friction="1 0.1 0.002" condim="4"/>
    </body>"""


def place(env, d, rand_vec):
  obj, goal = rand_vec[:3], rand_vec[3:]
  d = set_free_pos(env, d, "objjoint", obj, (1.0, 0.0, 0.0, 0.0))
  return d, {"target_pos": goal, "obj_init_pos": obj}


def objects(env, d):
  b = env.mj_model.body("obj").id
  return d.xpos[b], body_quat_xyzw(d, b)


def reward(obs, action, reads):
  del obs, action
  tcp, target = reads["tcp_center"], reads["target_pos"]
  tcp_to_target = jnp.linalg.norm(tcp - target, axis=-1)
  margin = jnp.linalg.norm(reads["hand_init_pos"] - target, axis=-1)
  in_place = R.tolerance(tcp_to_target, bounds=(0, TARGET_RADIUS), margin=margin, sigmoid="long_tail")
  return 10 * in_place, R.info(
    tcp_to_target <= 0.05,
    tcp_to_target,
    jnp.ones_like(tcp_to_target),
    tcp_to_target,
    in_place,
    tcp_to_target,
    10 * in_place,
  )


def valid(rand_vec):
  return jnp.linalg.norm(rand_vec[:2] - rand_vec[3:5]) >= 0.15


def scripted(obs):
  """Move the hand so that the tcp (0.045 m below it) meets the goal: a proportional step."""
  hand, goal = obs[..., 0:3], obs[..., 36:39]
  delta = goal + jnp.array([0.0, 0.0, 0.045]) - hand
  move = jnp.clip(delta * 50.0, -1.0, 1.0)
  return jnp.concatenate([move, jnp.zeros(move.shape[:-1] + (1,))], -1)


TASK = Task(
  name="reach-v3",
  objects_xml=OBJECTS_XML,
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.1, 0.8, 0.05),
  goal_high=(0.1, 0.9, 0.3),
  rand_low=(-0.1, 0.6, 0.02, -0.1, 0.8, 0.05),
  rand_high=(0.1, 0.7, 0.02, 0.1, 0.9, 0.3),
  place=place,
  objects=objects,
  reward=reward,
  valid=valid,
)
