"""peg-insert-side-v3: pick up a peg lying on the table and push its head sideways into the hole of a box.

Reference: metaworld 3.1.1 `SawyerPegInsertionSideEnvV3` (reward version v2), `sawyer_peg_insertion_side.xml`
and `objects/assets/peg_block.xml`.

Reference facts used:
- rand_vec = [peg xyz, box xyz] from peg (0, 0.5, 0.02)..(0.2, 0.7, 0.02) and box (-0.35, 0.4, -0.001)..
  (-0.25, 0.7, 0.001); redrawn while peg and box are within 0.1 m in xy (never, with these ranges).
  hand_init_pos (0, 0.6, 0.2), hand_low (-0.5, 0.4, 0.05), hand_high (0.5, 1, 0.5); goal space = box space
  + (0.03, 0, 0.13).
- reset_model: peg_head_pos_init = site `pegHead` BEFORE the peg is placed (the peg resting at its model
  position (0, 0.6, 0.03) after the hand reset: read from the env's settled start); obj_init_pos =
  rand_vec[:3] (the peg's body position, z 0.02, its orientation kept); the box body moves to rand_vec[3:];
  target_pos = box + (0.03, 0, 0.13); objHeight = peg body com z after placing, heightTarget = objHeight
  + liftThresh (0.11); maxPlacingDist (v1 only). objHeight, heightTarget, maxPlacingDist are in ctx for the
  parity fixture; the v2 reward does not read them.
- Peg: body `peg` with mass 0.1 and diaginertia 1e5 (it practically cannot rotate), free joint damping
  0.005, geom `peg` a box 0.015 x 0.015 x 0.12 turned by euler (0, 1.57, 0) (long axis along x), MuJoCo's
  default contact parameters (friction 1 / 0.005 / 0.0001, condim 3); sites pegHead (-0.1, 0, 0), pegEnd
  (0.1, 0, 0), pegGrasp (0.03, 0, 0.01). Observation: site `pegGrasp` and scipy `as_quat` of its xmat.
- Box: body `box`, euler (0, 0, 1.57), collision boxes of class peg_block_col (condim 3, solref 0.01 1,
  solimp 0.99 0.99 0.01) leaving a 0.06 x 0.06 square hole through the box along world x, its centre 0.13
  above the box origin (z 0.10 .. 0.16, y within 0.03 of the box's); sites `hole` and the reward's
  collision-prism corners bottom_right_corner_collision_box_1/2, top_left_corner_collision_box_1/2.
- Reward v2: scale (1, 2, 2); obj_to_target = |(pegHead - target) scale|; in_place = tolerance(obj_to_target,
  (0, 0.07), margin |(peg_head_pos_init - target) scale|, long_tail), times (Hamacher) the two collision
  prisms' rect_prism_tolerance of pegHead; object_grasped = base `_gripper_caging_reward` (obj_radius 0.0075,
  pad_success_thresh 0.03, object_reach_radius 0.01, xz_thresh 0.005, high_density), set to 1 when
  |tcp - obj| < 0.08, opening > 0 and obj z - 0.01 > obj_init z (that same condition adds 1 + 5 in_place and
  is the info's grasp_success with 0.02 in place of 0.08); reward = hamacher(grasped, in_place) (+ ...);
  10 when obj_to_target <= 0.07.
  success = obj_to_target <= 0.07, near_object |tcp - obj| <= 0.03. No contact-force check in this task.

Deliberate differences:
- Box furniture is a mocap body placed through `mocap_pos` (the reference edits model.body_pos).
- The box's seven collision boxes are four here with the same hole: the floor block (0 .. 0.1, merged with
  the lower parts of the two end walls, which stand 4 mm beyond the floor block's x faces in the reference),
  the two blocks beside the hole (0.1 .. 0.16) and one ceiling block (0.16 .. 0.2: the reference's upper
  block and top plate). The outer faces move by at most 4 mm; the hole is exactly the reference's.
- The box's geoms do not collide with the table (contype 0; both are fixed).
- The peg rests where the reference's does within 0.1 mm (settled pegHead (-0.09993, 0.6, 0.01490) against
  the reference's (-0.1, 0.6, 0.01478)).

Checks: the reward and info reproduce the reference's on 720 states recorded from the reference running its
own scripted policy (fed the recorded obs, action and reads): max abs difference 7.6e-7 in the reward, 0 in
success / near_object / grasp_success. `scripted` below: success 100/100 within 300 steps (jax.lax.scan
over `Batch(env, 50)`, two keys; metrics["is_success"]; 500-step episodes can only count more), and 10/10
more within 300 steps; the reference's own scripted policy in the reference: 8/10 (its median first
success at step 121).
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks.push import move, scipy_quat_xyzw, set_free_pos

import jax.numpy as jnp
import mujoco
import numpy as np

TARGET_RADIUS = 0.07
LIFT_THRESH = 0.11
TARGET_OFFSET = (0.03, 0.0, 0.13)  # target_pos = box + this
SCALE = (1.0, 2.0, 2.0)
CORNERS = (
  "bottom_right_corner_collision_box_1",
  "top_left_corner_collision_box_1",
  "bottom_right_corner_collision_box_2",
  "top_left_corner_collision_box_2",
)

_COL = (
  'type="box" contype="0" conaffinity="1" condim="3" solref="0.01 1" solimp="0.99 0.99 0.01" '
  'rgba="0.6 0.45 0.3 1"'
)
OBJECTS_XML = f"""
    <body name="peg" pos="0 0.6 0.03">
      <freejoint name="pegjoint"/>
      <inertial pos="0 0 0" mass="0.1" diaginertia="100000 100000 100000"/>
      <geom name="peg" type="box" euler="0 1.57 0" size="0.015 0.015 0.12" rgba="0.3 1 0.3 1"/>
      <site name="pegHead" pos="-0.1 0 0" size="0.005" rgba="0.8 0 0 1"/>
      <site name="pegEnd" pos="0.1 0 0" size="0.005" rgba="0.8 0 0 1"/>
      <site name="pegGrasp" pos="0.03 0 0.01" size="0.005" rgba="0.8 0 0 1"/>
    </body>
    <body name="box" mocap="true" euler="0 0 1.57" pos="-0.3 0.6 0">
      <geom name="box_floor" {_COL} pos="0 0 0.05" size="0.1 0.096 0.05"/>
      <geom name="box_side_a" {_COL} pos="-0.065 0 0.13" size="0.035 0.096 0.03"/>
      <geom name="box_side_b" {_COL} pos="0.065 0 0.13" size="0.035 0.096 0.03"/>
      <geom name="box_ceiling" {_COL} pos="0 0 0.18" size="0.1 0.1 0.02"/>
      <site name="hole" pos="0 -0.096 0.13" size="0.005" rgba="0 0.8 0 1"/>
      <site name="bottom_right_corner_collision_box_1" pos="0.1 -0.11 0.01" size="0.0001"/>
      <site name="top_left_corner_collision_box_1" pos="-0.1 -0.15 0.096" size="0.0001"/>
      <site name="bottom_right_corner_collision_box_2" pos="0.1 -0.11 0.16" size="0.0001"/>
      <site name="top_left_corner_collision_box_2" pos="-0.1 -0.17 0.19" size="0.0001"/>
    </body>"""

READS = (
  "tcp_center",
  "left_pad",
  "right_pad",
  "target_pos",
  "obj_init_pos",
  "init_tcp",
  "peg_head_pos_init",
  "site:pegHead",
) + tuple(f"site:{c}" for c in CORNERS)


def _settled_head(env) -> np.ndarray:
  """Site pegHead in the env's settled start (where the reference reads peg_head_pos_init): the peg's
  settled position plus its settled orientation applied to the site's offset."""
  m = env.mj_model
  a = int(m.joint("pegjoint").qposadr[0])
  q = np.asarray(env._qpos0[a : a + 7], np.float64)
  off = np.zeros(3)
  mujoco.mju_rotVecQuat(off, np.asarray(m.site("pegHead").pos, np.float64), q[3:7])
  return (q[:3] + off).astype(np.float32)


def place(env, d, rand_vec):
  peg, box = rand_vec[:3], rand_vec[3:]
  head_init = jnp.asarray(_settled_head(env), jnp.float32)
  d = set_free_pos(env, d, "pegjoint", peg)
  mocap = env.mj_model.body("box").mocapid[0]
  d = d.replace(mocap_pos=d.mocap_pos.at[mocap].set(box))
  target = box + jnp.asarray(TARGET_OFFSET, jnp.float32)
  height = peg[2]
  height_target = height + LIFT_THRESH
  ctx = {
    "target_pos": target,
    "obj_init_pos": peg,
    "peg_head_pos_init": head_init,
    "objHeight": height,
    "heightTarget": height_target,
    "maxPlacingDist": jnp.linalg.norm(jnp.concatenate([peg[:2], height_target[None]]) - target)
    + height_target,
  }
  return d, ctx


def objects(env, d):
  s = env.mj_model.site("pegGrasp").id
  return d.site_xpos[s], scipy_quat_xyzw(d.site_xmat[s])


def reads(env, d, ctx):
  m = env.mj_model
  return {f"site:{n}": d.site_xpos[m.site(n).id] for n in ("pegHead",) + CORNERS}


def reward(obs, action, reads):
  obj, opened = obs[..., 4:7], obs[..., 3]
  tcp, target, init = reads["tcp_center"], reads["target_pos"], reads["obj_init_pos"]
  head = reads["site:pegHead"]
  scale = jnp.asarray(SCALE, jnp.float32)
  tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
  obj_to_target = jnp.linalg.norm((head - target) * scale, axis=-1)
  margin = jnp.linalg.norm((reads["peg_head_pos_init"] - target) * scale, axis=-1)
  in_place = R.tolerance(obj_to_target, bounds=(0, TARGET_RADIUS), margin=margin, sigmoid="long_tail")
  box1 = R.rect_prism_tolerance(head, zero=reads[f"site:{CORNERS[0]}"], one=reads[f"site:{CORNERS[1]}"])
  box2 = R.rect_prism_tolerance(head, zero=reads[f"site:{CORNERS[2]}"], one=reads[f"site:{CORNERS[3]}"])
  in_place = R.hamacher_product(in_place, R.hamacher_product(box2, box1))
  grasped = R.gripper_caging_reward(
    action,
    obj,
    reads,
    obj_radius=0.0075,
    pad_success_thresh=0.03,
    object_reach_radius=0.01,
    xz_thresh=0.005,
    high_density=True,
  )
  lifted = (tcp_to_obj < 0.08) & (opened > 0) & (obj[..., 2] - 0.01 > init[..., 2])
  grasped = jnp.where(lifted, 1.0, grasped)
  rew = R.hamacher_product(grasped, in_place)
  rew = jnp.where(lifted, rew + 1.0 + 5.0 * in_place, rew)
  rew = jnp.where(obj_to_target <= TARGET_RADIUS, 10.0, rew)
  return rew, R.info(
    obj_to_target <= TARGET_RADIUS,
    tcp_to_obj <= 0.03,
    (tcp_to_obj < 0.02) & (opened > 0) & (obj[..., 2] - 0.01 > init[..., 2]),
    grasped,
    in_place,
    obj_to_target,
    rew,
  )


def valid(rand_vec):
  return jnp.linalg.norm(rand_vec[:2] - rand_vec[3:5]) >= 0.1


# The peg's head and centre relative to the observed pegGrasp site (the peg does not turn).
_HEAD_FROM_GRASP = jnp.array([-0.13, 0.0, -0.01])


def scripted(obs):
  """Grasp the peg, lift it, line its head up with the hole in front of the box, then push it in.

  Memoryless phases read from the observation (tcp = hand - 0.045 in z; pegGrasp = obs[4:7]; the hole's
  centre = the goal - (0.03, 0, 0) in x, at the goal's y and z):
  - hand not over pegGrasp (xy error > 0.02) and the peg not held: go there 0.1 m above the table, open;
  - over it: descend as low as the hand may go (tcp 5 mm above the table, the pads then cover the peg),
    open, and close once there;
  - held (opening < 0.4, i.e. the pads have clamped the 0.03 m peg, and pegGrasp within 0.04 of the tcp):
    lift straight up until pegGrasp is 0.05 above the table, then move the hand by the error of the peg's
    head (pegGrasp + (-0.13, 0, -0.01)) from its way-point: 0.15 m in front of the target at the hole's
    height until the head is within 0.012 m of the hole's axis in y and z, then 0.05 m past the target.
  """
  hand, opening, grasp, goal = obs[..., 0:3], obs[..., 3:4], obs[..., 4:7], obs[..., 36:39]
  tcp = hand - jnp.array([0.0, 0.0, 0.045])
  xy_err = jnp.linalg.norm(hand[..., :2] - grasp[..., :2], axis=-1, keepdims=True)
  held = (jnp.linalg.norm(tcp - grasp, axis=-1, keepdims=True) < 0.04) & (opening < 0.4)
  lifted = grasp[..., 2:3] > 0.05
  above = grasp + jnp.array([0.0, 0.0, 0.1])
  down = jnp.concatenate([grasp[..., :2], jnp.full_like(grasp[..., 2:3], 0.05)], -1)
  at_peg = (xy_err < 0.02) & (tcp[..., 2:3] < 0.012)
  head = grasp + _HEAD_FROM_GRASP
  front = goal + jnp.array([0.15, 0.0, 0.0])
  aligned = jnp.linalg.norm(head[..., 1:] - goal[..., 1:], axis=-1, keepdims=True) < 0.012
  way = jnp.where(aligned, goal - jnp.array([0.05, 0.0, 0.0]), front)
  # Before the peg is off the table, lift it straight up first (no dragging).
  lift_to = jnp.concatenate([hand[..., :2], jnp.full_like(hand[..., 2:3], 0.2)], -1)
  carry = jnp.where(lifted, hand + (way - head), lift_to)
  to = jnp.where(held, carry, jnp.where(xy_err > 0.02, above, jnp.where(at_peg, hand, down)))
  delta = move(hand, to, 25.0)
  grip = jnp.where(held | at_peg, 1.0, -1.0)
  return jnp.concatenate([delta, grip], -1)


TASK = Task(
  name="peg-insert-side-v3",
  objects_xml=OBJECTS_XML,
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.32, 0.4, 0.129),
  goal_high=(-0.22, 0.7, 0.131),
  rand_low=(0.0, 0.5, 0.02, -0.35, 0.4, -0.001),
  rand_high=(0.2, 0.7, 0.02, -0.25, 0.7, 0.001),
  place=place,
  objects=objects,
  reward=reward,
  reads=reads,
  valid=valid,
)
