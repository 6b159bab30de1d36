"""The Meta-World wooden block of sweep-v3 and sweep-into-v3 and their shared reward pieces.

Reference facts kept (metaworld 3.1.1):
- sweep-v3 (`sawyer_xyz/sawyer_sweep_v3.xml`, `objects/assets/block.xml`): body `obj` (free joint) at
  (0, 0.6, 0.02), its collision box `objGeom` of half-sizes 0.02 at (0, 0, 0.02) in the body's frame (in
  a child body, class `block_col`: mass 0.1, contype 1, conaffinity 1, condim 4, solimp 0.99 0.99 0.01,
  solref 0.01 1, default friction 1 0.005 0.0001); inertia from that geom alone (`inertiagrouprange` 4 5).
  So the body origin is the block's BOTTOM centre: it rests at z = 0. Observation: `data.body("obj")`'s
  xpos and xquat ([w, x, y, z]).
- sweep-into-v3 (`sawyer_xyz/sawyer_table_with_hole.xml`): body `obj` (free joint `objjoint`) at (0, 0.6,
  0.02), inertial mass 0.01, diaginertia 1e5 (it practically cannot turn), geom `objGeom` a box of
  half-sizes 0.02 at the body origin, friction 1 0.1 0.002, condim 4, solimp 0.99 0.99 0.01, solref 0.01
  1. Observation: the body com and scipy's `as_quat` of the geom's xmat.
- The two envs' own `_gripper_caging_reward` (`caging` below): push-back-v3's form with other margins
  (sweep: obj_radius 0.02, grip margin obj_radius + 0.01, x-z margin 0.005; sweep-into: obj_radius 0.02,
  grip margin obj_radius + 0.005, x-z margin 0.01); the action is not read.
- Both rewards: in_place = tolerance(|obj - target|, (0, 0.05), margin |obj_init - target|, long_tail);
  reward = 2 grasped + 6 hamacher(grasped, in_place); 10 when |obj - target| < 0.05. Info: success
  |obj - target| <= 0.05, near_object |tcp - obj| <= 0.03, grasp_success = touching_main_object and
  opening > 0 (no lift condition), grasp_reward, in_place_reward, obj_to_target, unscaled_reward.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.tasks import pick_place

import jax.numpy as jnp

OBJ_RADIUS = 0.02
TARGET_RADIUS = 0.05
READS = pick_place.READS  # the same quantities: the pads, their live "init" aliases, the contact flag
_COL = 'solimp="0.99 0.99 0.01" solref="0.01 1" condim="4" contype="1" conaffinity="1"'

SWEEP_XML = f"""
    <body name="obj" pos="0 0.6 0.02">
      <freejoint name="objjoint"/>
      <inertial pos="0 0 0.02" mass="0.1" diaginertia="2.66667e-05 2.66667e-05 2.66667e-05"/>
      <geom name="objGeom" type="box" pos="0 0 0.02" size="0.02 0.02 0.02" rgba="0.6 0.4 0.2 1" {_COL}
            friction="1 0.005 0.0001"/>
    </body>"""

SWEEP_INTO_XML = f"""
    <body name="obj" pos="0 0.6 0.02">
      <freejoint name="objjoint"/>
      <inertial pos="0 0 0" mass="0.01" diaginertia="100000 100000 100000"/>
      <geom name="objGeom" type="box" size="0.02 0.02 0.02" rgba="0.6 0.4 0.2 1" {_COL}
            friction="1 0.1 0.002"/>
    </body>"""


def caging(obj, reads, obj_radius, grip_margin, xz_margin, pad_margin=0.05, grip_above=0.95):
  """The block/puck envs' own `_gripper_caging_reward` without the action (sweep, sweep-into and
  push-back's form): the signed pad gaps left_pad.y - obj.y and obj.y - right_pad.y within (obj_radius,
  pad_margin) for caging and within (obj_radius, grip_margin) for gripping, margins | |obj.y - init
  pad.y| - pad_margin |; the tcp's x-z distance within xz_margin, margin |obj_init - init_tcp|_xz -
  xz_margin; gripping counts once caging > grip_above; (caging + gripping) / 2."""
  gaps = (reads["left_pad"][..., 1] - obj[..., 1], obj[..., 1] - reads["right_pad"][..., 1])
  inits = (reads["init_left_pad"], reads["init_right_pad"])
  margins = [jnp.abs(jnp.abs(obj[..., 1] - p[..., 1]) - pad_margin) for p in inits]

  def both(upper):
    left, right = (
      R.tolerance(g, bounds=(obj_radius, upper), margin=m, sigmoid="long_tail") for g, m in zip(gaps, margins)
    )
    return R.hamacher_product(right, left)

  y_caging, y_gripping = both(pad_margin), both(grip_margin)
  xz = jnp.array([0, 2])
  tcp_obj_xz = jnp.linalg.norm(reads["tcp_center"][..., xz] - obj[..., xz], axis=-1)
  margin_xz = (
    jnp.linalg.norm(reads["obj_init_pos"][..., xz] - reads["init_tcp"][..., xz], axis=-1) - xz_margin
  )
  xz_caging = R.tolerance(tcp_obj_xz, bounds=(0, xz_margin), margin=margin_xz, sigmoid="long_tail")
  cage = R.hamacher_product(y_caging, xz_caging)
  gripping = jnp.where(cage > grip_above, y_gripping, 0.0)
  return (cage + gripping) / 2


def sweep_reward(obs, reads, target, grasped):
  """sweep / sweep-into's reward and info, given the target [..., 3] and the caging term."""
  obj, opened = obs[..., 4:7], obs[..., 3]
  tcp = reads["tcp_center"]
  obj_to_target = jnp.linalg.norm(obj - target, axis=-1)
  tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
  in_place = R.tolerance(
    obj_to_target,
    bounds=(0, TARGET_RADIUS),
    margin=jnp.linalg.norm(reads["obj_init_pos"] - target, axis=-1),
    sigmoid="long_tail",
  )
  rew = 2 * grasped + 6 * R.hamacher_product(grasped, in_place)
  rew = jnp.where(obj_to_target < TARGET_RADIUS, 10.0, rew)
  return rew, R.info(
    obj_to_target <= TARGET_RADIUS,
    tcp_to_obj <= 0.03,
    (reads["touching_main_object"] > 0) & (opened > 0),
    grasped,
    in_place,
    obj_to_target,
    rew,
  )
