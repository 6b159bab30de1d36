"""hand-insert-v3: pick up a wooden block and put it down into the table's hole.

Reference: metaworld 3.1.1 `SawyerHandInsertEnvV3` (reward version v2), `sawyer_table_with_hole.xml`: the
model of sweep-into-v3 (tasks/sweep_into.py: the table top at z = 0.05 around a 5 cm deep hole, the block
of mass 0.01).

Reference facts used:
- rand_vec = [block xyz, goal xyz] from (-0.1, 0.6, 0.05, -0.04, 0.8, -0.0201) .. (0.1, 0.7, 0.05, 0.04,
  0.88, -0.0199); redrawn while block and goal are within 0.15 m in xy. hand_init_pos (0, 0.6, 0.2), hand
  and mocap bounds (-0.5, 0.4, -0.15) .. (0.5, 1, 0.5).
- reset_model: obj_init_pos = [rand x, rand y, 0.05] (init_config's z: the block's centre 2 cm into the
  table top, which pushes it up to rest on it), `_set_obj_xyz` puts it there; target_pos = rand_vec[3:]
  (below the hole's floor: the block's centre cannot get nearer than 0.04 in z).
- Observation: the block's body com and `data.body("obj").xquat` ([w, x, y, z]).
- Reward v2 (TARGET_RADIUS 0.05): in_place = tolerance(|obj - target|, (0, 0.05), margin |obj_init -
  target|, long_tail); object_grasped = the base `_gripper_caging_reward` (obj_radius 0.015,
  pad_success_thresh 0.05, object_reach_radius 0.01, xz_thresh 0.005, high density); reward =
  hamacher(grasped, in_place), + 1 + 7 in_place when |tcp - obj| < 0.02 and opening > 0; 10 when |obj -
  target| < 0.05. Info: success |obj - target| <= 0.05, near_object |tcp - obj| <= 0.03, grasp_success =
  touching_main_object and opening > 0 and obj z - 0.02 > obj_init z.

JAX equivalent of a contact check: touching_main_object as push-v3's (`push.touching`), info only.

Deliberate differences: those of sweep-into-v3's model (tasks/sweep_into.py).

Checks: reward and info parity on the fixture `metaworld_reference_objects`. `scripted` below (push-v3's
grip, lift the block above the table top, carry it over the goal, lower it into the hole): success 100/100
episodes (benchmarks/scripted_success.py, C backend, 500 steps).
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import TCP_BELOW_HAND
from mjx_envs.metaworld.tasks import push, sweep_into

import dataclasses

import jax.numpy as jnp

TARGET_RADIUS = 0.05
READS = push.READS
CARRY_Z = 0.1  # the block's centre while carried: above the table top (0.05) with its half-size to spare


def place(env, d, rand_vec):
  obj_init = jnp.concatenate([rand_vec[:2], jnp.full((1,), 0.05, jnp.float32)])
  d = push.set_free_pos(env, d, "objjoint", obj_init)
  return d, {"target_pos": rand_vec[3:6], "obj_init_pos": obj_init}


def objects(env, d):
  b = env.mj_model.body("obj").id
  return d.xipos[b], d.xquat[b]


def reward(obs, action, reads):
  """push-v3's terms (`push.puck_terms`: the same in_place and caging), this task's shaping."""
  tcp_to_obj, obj_to_target, in_place, grasped = push.puck_terms(obs, action, reads)
  rew = R.hamacher_product(grasped, in_place)
  rew = jnp.where((tcp_to_obj < 0.02) & (obs[..., 3] > 0), rew + 1.0 + 7.0 * in_place, rew)
  rew = jnp.where(obj_to_target < TARGET_RADIUS, 10.0, rew)
  return rew, push.puck_info(obs, reads, tcp_to_obj, obj_to_target, grasped, in_place, rew, TARGET_RADIUS)


def scripted(obs):
  """push-v3's grip (`push.grip_then`); once held: to CARRY_Z over the goal, then (within 1 cm of it in
  xy) down to the goal."""
  obj, goal = obs[..., 4:7], obs[..., 36:39]
  over = jnp.linalg.norm(obj[..., :2] - goal[..., :2], axis=-1, keepdims=True) < 0.01
  z = jnp.where(over, goal[..., 2:3], jnp.full_like(goal[..., 2:3], CARRY_Z))
  # carried at half speed: at full speed the arm's grip lost the puck in 27 of 100 episodes
  return push.grip_then(obs, jnp.concatenate([goal[..., :2], z + TCP_BELOW_HAND], -1), carry_speed=0.5)


TASK = dataclasses.replace(
  push.TASK,
  name="hand-insert-v3",
  objects_xml=sweep_into.OBJECTS_XML,
  hand_low=(-0.5, 0.40, -0.15),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.04, 0.8, -0.0201),
  goal_high=(0.04, 0.88, -0.0199),
  rand_low=(-0.1, 0.6, 0.05, -0.04, 0.8, -0.0201),
  rand_high=(0.1, 0.7, 0.05, 0.04, 0.88, -0.0199),
  place=place,
  objects=objects,
  reward=reward,
)
