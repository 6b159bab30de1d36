"""pick-place-v3: pick a puck up from the table and bring it to a goal in the air.

Reference: metaworld 3.1.1 `SawyerPickPlaceEnvV3` (reward version v2), `sawyer_pick_place_v3.xml`.

Reference facts used:
- rand_vec = [puck xyz, goal xyz] from obj (-0.1, 0.6, 0.02)..(0.1, 0.7, 0.02) and goal (-0.1, 0.8, 0.05)..
  (0.1, 0.9, 0.3); redrawn while puck and goal are within 0.15 m in xy. hand_init_pos (0, 0.6, 0.2),
  hand_low (-0.5, 0.4, 0.05), hand_high (0.5, 1, 0.5).
- reset_model: obj_init_pos = rand_vec[:3] (z = 0.02 as drawn), target_pos = rand_vec[3:]; init_tcp,
  init_left_pad, init_right_pad read after the hand reset; objHeight = geom z after placing, heightTarget
  = objHeight + 0.04, maxPlacingDist and maxPushDist (v1 reward only; kept in ctx for the parity fixture).
- Puck: as push-v3 (body `obj`, mass 0.75, geom `objGeom` radius 0.02 half-height 0.02, friction
  1 / 0.1 / 0.002, condim 4, solref 0.01 1, solimp 0.99 0.99 0.01). Observation: body com of `obj`,
  scipy `as_quat` of the geom's xmat ([x, y, z, w], scipy's sign choice).
- Reward v2: in_place = tolerance(|obj - target|, (0, 0.05), margin |obj_init - target|, long_tail);
  object_grasped = this env's OWN `_gripper_caging_reward` (signed pad-object y gaps left_pad.y - obj.y and
  obj.y - right_pad.y within (0.015, 0.05), margins from init_left_pad / init_right_pad, x-z within 0.005,
  always high density); reward = hamacher(grasped, in_place); + 1 + 5 in_place when |tcp - obj| < 0.02,
  opening > 0 and obj z - 0.01 > obj_init z; 10 when |obj - target| < 0.05.
  Info: success |obj - target| <= 0.07, near_object |tcp - obj| <= 0.03, grasp_success =
  touching_main_object and opening > 0 and obj z - 0.02 > obj_init z.

JAX equivalent of a contact check: `touching_main_object` (both pads press on `objGeom`, summed normal
contact force > 0) from MJX's contact list, as in push-v3 (`push.touching`); only the info's
grasp_success reads it.

Deliberate differences:
- The puck is a BOX of the cylinder's half-sizes (0.02 x 0.02 x 0.02): MJX has no box-cylinder collision
  and the pads are boxes.

Checks: the reward and info reproduce the reference's on 720 states recorded from the
reference running its own scripted policy: max abs difference 9.5e-7 in the reward, 0 in success /
near_object / grasp_success (1 in 83 % of those states; there the reference's own contact flag is
fed in). The JAX contact check itself fires in our simulation: grasp_success is 1 at some step of every
scripted episode below. `scripted` below: success 100/100 within 250 steps (jax.lax.scan over
`Batch(env, 50)`, two keys; metrics["is_success"]; 500-step episodes can only count more), and 10/10
over 500 steps; the reference's own scripted policy in the reference: 10/10.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks.push import (
  OBJECTS_XML,
  grip_then,
  puck_info,
  scipy_quat_xyzw,
  set_free_pos,
  touching,
)

import jax.numpy as jnp

TARGET_RADIUS = 0.05

READS = (
  "tcp_center",
  "left_pad",
  "right_pad",
  "target_pos",
  "obj_init_pos",
  "init_tcp",
  "init_left_pad",
  "init_right_pad",
  "touching_main_object",
)


def place(env, d, rand_vec):
  obj_init, target = rand_vec[:3], rand_vec[3:]
  d = set_free_pos(env, d, "objjoint", obj_init)
  height = obj_init[2]
  height_target = height + 0.04
  ctx = {
    "target_pos": target,
    "obj_init_pos": obj_init,
    "objHeight": height,
    "heightTarget": height_target,
    "maxPlacingDist": jnp.linalg.norm(jnp.concatenate([obj_init[:2], height_target[None]]) - target)
    + height_target,
    "maxPushDist": jnp.linalg.norm(obj_init[:2] - target[:2]),
  }
  return d, ctx


def objects(env, d):
  m = env.mj_model
  return d.xipos[m.body("obj").id], scipy_quat_xyzw(d.geom_xmat[m.geom("objGeom").id])


def reads(env, d, ctx):
  return {"touching_main_object": touching(env, d, "objGeom")}


def caging_reward(action, obj, reads):
  """This env's own `_gripper_caging_reward` (its arguments are ignored there: pad margin 0.05, x-z margin
  0.005, obj_radius 0.015, high density)."""
  pad_margin, xz_margin, radius = 0.05, 0.005, 0.015
  left, right = reads["left_pad"], reads["right_pad"]
  right_margin = jnp.abs(jnp.abs(obj[..., 1] - reads["init_right_pad"][..., 1]) - pad_margin)
  left_margin = jnp.abs(jnp.abs(obj[..., 1] - reads["init_left_pad"][..., 1]) - pad_margin)
  right_caging = R.tolerance(
    obj[..., 1] - right[..., 1], bounds=(radius, pad_margin), margin=right_margin, sigmoid="long_tail"
  )
  left_caging = R.tolerance(
    left[..., 1] - obj[..., 1], bounds=(radius, pad_margin), margin=left_margin, sigmoid="long_tail"
  )
  y_caging = R.hamacher_product(left_caging, right_caging)
  xz = jnp.array([0, 2])
  tcp_obj_xz = jnp.linalg.norm(reads["tcp_center"][..., xz] - obj[..., xz], axis=-1)
  margin_xz = (
    jnp.linalg.norm(reads["obj_init_pos"][..., xz] - reads["init_tcp"][..., xz], axis=-1) - xz_margin
  )
  xz_caging = R.tolerance(tcp_obj_xz, bounds=(0, xz_margin), margin=margin_xz, sigmoid="long_tail")
  closed = jnp.clip(action[..., -1], 0.0, 1.0)
  caging = R.hamacher_product(y_caging, xz_caging)
  gripping = jnp.where(caging > 0.97, closed, 0.0)
  return (R.hamacher_product(caging, gripping) + caging) / 2


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
  grasped = caging_reward(action, obj, reads)
  rew = R.hamacher_product(grasped, in_place)
  lifted = (tcp_to_obj < 0.02) & (opened > 0) & (obj[..., 2] - 0.01 > init[..., 2])
  rew = jnp.where(lifted, rew + 1.0 + 5.0 * in_place, rew)
  rew = jnp.where(obj_to_target < TARGET_RADIUS, 10.0, rew)
  return rew, puck_info(obs, reads, tcp_to_obj, obj_to_target, grasped, in_place, rew, 0.07)


def valid(rand_vec):
  return jnp.linalg.norm(rand_vec[:2] - rand_vec[3:5]) >= 0.15


def scripted(obs):
  """Above the puck, down around it, close the gripper, then carry it to the goal.

  Memoryless phases read from the observation (tcp = hand - 0.045 in z): not over the puck (xy error >
  0.02) and not holding it: go 0.08 m above it, open; over it: descend until the tcp is at the puck's
  centre, open; there: close (effort 1) and hold still; once the gripper has closed on it (opening < 0.8,
  the puck within 0.03 of the tcp): move the tcp to the goal, still closing.
  """
  return grip_then(obs, obs[..., 36:39] + jnp.array([0.0, 0.0, 0.045]))


TASK = Task(
  name="pick-place-v3",
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
  reads=reads,
  valid=valid,
  touch_geoms=("objGeom",),
)
