"""push-v3: push (or drag) a puck across the table to a goal on the table.

Reference: metaworld 3.1.1 `SawyerPushEnvV3` (reward version v2), `sawyer_push_v3.xml`.

Reference facts used:
- rand_vec = [puck xyz, goal xyz] from obj (-0.1, 0.6, 0.02)..(0.1, 0.7, 0.02) and goal (-0.1, 0.8, 0.01)..
  (0.1, 0.9, 0.02); redrawn while puck and goal are within 0.15 m in xy. hand_init_pos (0, 0.6, 0.2),
  hand_low (-0.5, 0.4, 0.05), hand_high (0.5, 1, 0.5).
- reset_model: obj_init_pos = [rand x, rand y, z of the puck's body com after the hand reset] (the puck rests
  at its model position (0, 0.6, 0.02) when `_reset_hand` has run); target_pos = [goal x, goal y, that same
  z] (the goal's drawn z is discarded); objHeight = geom z after placing, heightTarget = objHeight + 0.04,
  maxPushDist = xy distance puck-goal, maxPlacingDist (v1 reward only; kept in ctx for the parity
  fixture).
- Puck: body `obj`, mass 0.75, diaginertia 8.80012e-4, geom `objGeom` radius 0.02 half-height 0.02,
  friction 1 / 0.1 / 0.002, condim 4, solref 0.01 1, solimp 0.99 0.99 0.01.
- Observation: obj pos = body com of `obj`; quaternion = scipy `Rotation.from_matrix(geom xmat).as_quat()`
  ([x, y, z, w], scipy's sign choice: the largest of x, y, z, w by Shepperd's rule is positive, NOT
  w >= 0; `scipy_quat_xyzw` below reproduces it).
- Reward v2: in_place = tolerance(|obj - target|, (0, 0.05), margin |obj_init - target|, long_tail);
  object_grasped = the base `_gripper_caging_reward` (obj_radius 0.015, pad_success_thresh 0.05,
  object_reach_radius 0.01, xz_thresh 0.005, high_density); reward = 2 grasped; if |tcp - obj| < 0.02 and
  opening > 0: reward = 2 reward + 1 + 5 in_place; 10 when |obj - target| < 0.05.
  Info: success |obj - target| <= 0.05, near_object |tcp - obj| <= 0.03, grasp_success = touching_main_object
  and opening > 0 and obj z - 0.02 > obj_init z.

JAX equivalent of a contact check: the reference's `touching_main_object` (a property: the summed normal
force `efc_force[contact.efc_address]` of the contacts between `leftpad_geom` and `objGeom` is > 0, and
the same for `rightpad_geom`) is computed by `touching(env, d, geom)` from the contact list (MJX's and its
`efc_force`, where inactive contacts in the fixed-size list carry zero force; under impl="c" C's own, the
same sum) and handed to the reward as `reads["touching_main_object"]` (1.0 / 0.0). With impl="warp" it is
0 (MJX-Warp exposes no contact list here); it enters only the info's grasp_success, never the reward.

Deliberate differences:
- The puck is a BOX of the cylinder's half-sizes (0.02 x 0.02 x 0.02): MJX has no box-cylinder collision
  and the pads are boxes. Its quaternion in the observation is that of the box geom (same frame as the
  reference's cylinder geom).
  The box rests 0.6 mm higher than the reference's cylinder (settled obj_init z 0.01997 against 0.01940:
  the reference's cylinder-on-table-box contact sinks deeper); target z follows it, as in the reference.
- The goal marker is the env's visual mocap site `goal`, not a model site edited per reset.

Checks: the reward and info reproduce the reference's on 720 states recorded from the
reference running its own scripted policy (fed the recorded obs, action and reads): max abs difference
2.4e-6 in the reward, 0 in success / near_object / grasp_success. `scripted` below: success 100/100
(jax.lax.scan of 500 steps over `Batch(env, 50)`, two keys plus 10 more episodes; metrics["is_success"]);
the reference's own scripted policy in the reference: 20/20.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task

import jax
import jax.numpy as jnp
import numpy as np

TARGET_RADIUS = 0.05

OBJECTS_XML = """
    <body name="obj" pos="0 0.6 0.02">
      <freejoint name="objjoint"/>
      <inertial pos="0 0 0" mass="0.75" diaginertia="8.80012e-04 8.80012e-04 8.80012e-04"/>
      <geom name="objGeom" type="box" size="0.02 0.02 0.02" rgba="1 0 0 1" solimp="0.99 0.99 0.01"
            solref="0.01 1" friction="1 0.1 0.002" condim="4"/>
    </body>"""

READS = (
  "tcp_center",
  "left_pad",
  "right_pad",
  "target_pos",
  "obj_init_pos",
  "init_tcp",
  "touching_main_object",
)


# -- helpers shared by this family's object tasks (push, pick_place, peg_insert_side) -------------------


def set_free_pos(env, d, joint: str, pos, quat=None):
  """qpos of free joint `joint` at `pos` [3] (orientation `quat` [w x y z], default: as it is), at rest
  (the reference's `_set_obj_xyz` writes the position and zeroes the velocities)."""
  j = env.mj_model.joint(joint)
  a, v = int(j.qposadr[0]), int(j.dofadr[0])
  qpos = d.qpos.at[a : a + 3].set(pos)
  if quat is not None:
    qpos = qpos.at[a + 3 : a + 7].set(jnp.asarray(quat, jnp.float32))
  return d.replace(qpos=qpos, qvel=d.qvel.at[v : v + 6].set(0.0))


def settled_qpos(env, joint: str) -> np.ndarray:
  """The free joint's qpos [7] in the env's settled start (model pose + the 50-step hand reset): where
  the reference's objects are when its `reset_model` reads them."""
  a = int(env.mj_model.joint(joint).qposadr[0])
  return np.asarray(env._qpos0[a : a + 7], np.float32)


def scipy_quat_xyzw(mat):
  """A rotation matrix [..., 3, 3] as scipy's `Rotation.from_matrix(mat).as_quat()`: [x, y, z, w] by
  Shepperd's rule (the largest of m00, m11, m22 and the trace picks the component computed first, which
  is positive), normalised."""
  m = mat
  tr = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
  choice = jnp.argmax(jnp.stack([m[..., 0, 0], m[..., 1, 1], m[..., 2, 2], tr], -1), -1)
  cands = []
  for i in range(3):
    j, k = (i + 1) % 3, (i + 2) % 3
    q = [None] * 4
    q[i] = 1 - tr + 2 * m[..., i, i]
    q[j] = m[..., j, i] + m[..., i, j]
    q[k] = m[..., k, i] + m[..., i, k]
    q[3] = m[..., k, j] - m[..., j, k]
    cands.append(jnp.stack(q, -1))
  cands.append(
    jnp.stack(
      [m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1], 1 + tr], -1
    )
  )
  cands = jnp.stack(cands, -2)  # [..., 4 choices, 4]
  q = jnp.take_along_axis(cands, choice[..., None, None], axis=-2)[..., 0, :]
  return q / jnp.linalg.norm(q, axis=-1, keepdims=True)


def touching(env, d, geom: str) -> jax.Array:
  """The reference's `touching_object(geom)`: both pads press on `geom` (summed normal force > 0 over
  their contacts), as 1.0 / 0.0. `geom` must be in the task's `touch_geoms`."""
  left, right = env.pad_forces(d, geom)
  return ((left > 0) & (right > 0)).astype(jnp.float32)


def move(hand, to, p):
  """The reference policies' `move`: a proportional step towards `to`, clipped to [-1, 1]."""
  return jnp.clip((to - hand) * p, -1.0, 1.0)


# -- the task --------------------------------------------------------------------------------------------


def place(env, d, rand_vec):
  obj_z = settled_qpos(env, "objjoint")[2]
  obj_init = jnp.concatenate([rand_vec[:2], jnp.full((1,), obj_z, jnp.float32)])
  target = jnp.concatenate([rand_vec[3:5], jnp.full((1,), obj_z, jnp.float32)])
  d = set_free_pos(env, d, "objjoint", obj_init)
  height = obj_init[2]  # objGeom's z after placing (geom at the body origin)
  height_target = height + 0.04
  ctx = {
    "target_pos": target,
    "obj_init_pos": obj_init,
    "objHeight": height,
    "heightTarget": height_target,
    "maxPushDist": jnp.linalg.norm(obj_init[:2] - target[:2]),
    "maxPlacingDist": jnp.linalg.norm(jnp.concatenate([obj_init[:2], height_target[None]]) - target)
    + height_target,
  }
  return d, ctx


def objects(env, d):
  m = env.mj_model
  return d.xipos[m.body("obj").id], scipy_quat_xyzw(d.geom_xmat[m.geom("objGeom").id])


def reads(env, d, ctx):
  return {"touching_main_object": touching(env, d, "objGeom")}


def puck_terms(obs, action, reads, high_density=True):
  """The puck tasks' terms: |tcp - obj|, |obj - target|, in_place = tolerance(|obj - target|, (0, 0.05),
  margin |obj_init - target|, long_tail) and the base `_gripper_caging_reward` (obj_radius 0.015,
  pad_success_thresh 0.05, object_reach_radius 0.01, xz_thresh 0.005, `high_density` as given)."""
  obj = obs[..., 4:7]
  tcp, target, init = reads["tcp_center"], reads["target_pos"], reads["obj_init_pos"]
  tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
  target_to_obj = jnp.linalg.norm(obj - target, axis=-1)
  in_place = R.tolerance(
    target_to_obj,
    bounds=(0, TARGET_RADIUS),
    margin=jnp.linalg.norm(init - target, axis=-1),
    sigmoid="long_tail",
  )
  grasped = R.gripper_caging_reward(
    action,
    obj,
    reads,
    obj_radius=0.015,
    pad_success_thresh=0.05,
    object_reach_radius=0.01,
    xz_thresh=0.005,
    high_density=high_density,
  )
  return tcp_to_obj, target_to_obj, in_place, grasped


def reward(obs, action, reads):
  opened = obs[..., 3]
  tcp_to_obj, target_to_obj, in_place, grasped = puck_terms(obs, action, reads)
  rew = 2 * grasped
  rew = jnp.where((tcp_to_obj < 0.02) & (opened > 0), 2 * rew + 1.0 + 5.0 * in_place, rew)
  rew = jnp.where(target_to_obj < TARGET_RADIUS, 10.0, rew)
  return rew, puck_info(obs, reads, tcp_to_obj, target_to_obj, grasped, in_place, rew, TARGET_RADIUS)


def puck_info(obs, reads, tcp_to_obj, obj_to_target, grasped, in_place, rew, success_radius):
  """The puck tasks' `evaluate_state` info: success |obj - target| <= success_radius, near_object |tcp -
  obj| <= 0.03, grasp_success = touching_main_object and opening > 0 and obj z - 0.02 > obj_init z."""
  obj, opened = obs[..., 4:7], obs[..., 3]
  lifted = obj[..., 2] - 0.02 > reads["obj_init_pos"][..., 2]
  grasp = (reads["touching_main_object"] > 0) & (opened > 0) & lifted
  return R.info(
    obj_to_target <= success_radius, tcp_to_obj <= 0.03, grasp, grasped, in_place, obj_to_target, rew
  )


def valid(rand_vec):
  return jnp.linalg.norm(rand_vec[:2] - rand_vec[3:5]) >= 0.15


def scripted(obs):
  """Above the puck, down around it, close the gripper, then drag it along the table to the goal.

  Memoryless phases read from the observation (tcp = hand - 0.045 in z):
  - hand not over the puck (xy error > 0.02) and the puck not held: go there, the tcp 0.08 m above the
    puck's centre, open; - over it: descend (tcp to the puck's centre), open;
  - tcp at the puck: close (effort 1); once the gripper has closed on it (opening < 0.8), move the
    hand towards the goal, the tcp at the goal's height (the goal is on the table; success is 3-D).
  """
  goal = obs[..., 36:39]
  return grip_then(obs, goal + jnp.array([0.0, 0.0, 0.045]))


def grip_then(obs, carry_to, carry_speed: float = 1.0):
  """The puck controllers' grip (push-v3's phases above): go above the puck, descend, close on it; once
  it is held, move the hand towards `carry_to` [..., 3] (a hand position), still closing, with actions
  at most `carry_speed` (a fast carry can shake the puck out of the arm's grip)."""
  hand, opening, obj = obs[..., 0:3], obs[..., 3:4], obs[..., 4:7]
  tcp = hand - jnp.array([0.0, 0.0, 0.045])
  xy_err = jnp.linalg.norm(hand[..., :2] - obj[..., :2], axis=-1, keepdims=True)
  z_err = jnp.abs(tcp[..., 2:3] - obj[..., 2:3])
  held = (jnp.linalg.norm(tcp - obj, axis=-1, keepdims=True) < 0.03) & (opening < 0.8)
  above = obj + jnp.array([0.0, 0.0, 0.045 + 0.08])
  down = obj + jnp.array([0.0, 0.0, 0.045])
  at_obj = (xy_err < 0.02) & (z_err < 0.012)
  # At the puck the hand keeps aiming at the grasp height while the fingers close: the arm's hand, told to
  # stay where it is, drifts up by a centimetre as it settles and then grips the puck's top edge.
  to = jnp.where(held, carry_to, jnp.where(xy_err > 0.02, above, down))
  # Keep the hand over the puck while it descends: the xy target is the puck's until it is held.
  delta = move(hand, to, 25.0)
  delta = jnp.where(held, jnp.clip(delta, -carry_speed, carry_speed), delta)
  grip = jnp.where(held | at_obj, 1.0, -1.0)
  return jnp.concatenate([delta, grip], -1)


TASK = Task(
  name="push-v3",
  objects_xml=OBJECTS_XML,
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.1, 0.8, 0.01),
  goal_high=(0.1, 0.9, 0.02),
  rand_low=(-0.1, 0.6, 0.02, -0.1, 0.8, 0.01),
  rand_high=(0.1, 0.7, 0.02, 0.1, 0.9, 0.02),
  place=place,
  objects=objects,
  reward=reward,
  reads=reads,
  valid=valid,
  touch_geoms=("objGeom",),
)
