"""lever-pull-v3: swing a lever up from pointing at the robot to pointing straight up.

Reference: metaworld 3.1.1 `SawyerLeverPullEnvV3` (reward version v2), its model
`sawyer_xyz/sawyer_lever_pull.xml` with `objects/assets/lever.xml`.

Facts taken from the reference (positions relative to the lever's base body `lever`; class `lever_base`:
joints armature 0.001, damping 2, limited; collision class `lever_col`: contype 1, conaffinity 1, condim 3,
solimp (0.99, 0.99, 0.01), solref (0.01, 1)):
- Base (fixed): boxes (0, 0, 0.125) half (0.041, 0.083, 0.125) and (0, 0, 0.013) half (0.05, 0.092,
  0.013); the round top, a cylinder along x radius 0.083 half-length 0.041 at (0, 0, 0.25).
- Arm `lever_link1` at (0.12, 0, 0.25): hinge `LeverAxis` about +x, range [0, 1.57] (the arm swings up at
  NEGATIVE angles, through its soft lower limit: the reference's arm is light, mass 0.004, and the hand
  pushes it to -1.45 and beyond); collision: hub (cylinder along x radius 0.038 half-length 0.016), rod
  (cylinder along y radius 0.012 half-length 0.1 at (0, -0.091, 0)), handle ball (sphere radius 0.03 at
  (0, -0.2, 0)), axle (cylinder along x radius 0.016 half-length 0.046 at (-0.025, 0, 0)); compiled
  inertial: mass 0.004 at (-0.00625, -0.07275, 0), quat (0.48444508, 0.51499567, -0.48449586,
  0.51512736), diaginertia (3.25245e-5, 3.18015e-5, 2.00499e-6). Site `leverStart` (0, -0.2, 0); the
  geom `objGeom` (the handle's mesh) at (0, -0.2, 0) with local quat (0.66250004, 0.66250004,
  -0.2471714, 0.2471714).
- rand_vec = the base's position, drawn from [(-0.1, 0.7, 0), (0.1, 0.8, 0)]; no rejection rule.
  obj_init_pos = rand_vec; _lever_pos_init = obj_init_pos + (0.12, -0.2, 0.25); target_pos = obj_init_pos
  + (0.12, 0, 0.45); maxPullDist = |target - obj_init_pos|. hand_init_pos (0, 0.4, 0.2); hand bounds
  (-0.5, 0.40, -0.15) .. (0.5, 1, 0.5) (also the mocap bounds and the goal space).
- Observation: object = site `leverStart`; quaternion = objGeom's orientation as scipy's [x, y, z, w].
- Reward v2: shoulder_to_lever = (obs[0:3] + (0, 0.055, 0.07) - obj) (4, 1, 4), its initial value from
  init_tcp and _lever_pos_init; ready_to_lift = tolerance(|shoulder_to_lever|, (0, 0.02), margin its
  initial norm, long_tail); lever_error = |-qpos - pi/2|; lever_engagement = tolerance(lever_error,
  (0, pi/48), margin pi/2 - pi/12, long_tail); in_place = tolerance(|obj - target|, (0, 0.04), margin
  |_lever_pos_init - target|, long_tail); reward = 10 hamacher(ready_to_lift, in_place). Info: success
  lever_error <= pi/24, near_object |shoulder_to_lever| < 0.03, grasp_success ready_to_lift > 0.9,
  grasp_reward ready_to_lift, in_place_reward lever_engagement, obj_to_target |shoulder_to_lever|.

Deliberate differences:
- The base is a mocap body placed through `data.mocap_pos` (the reference edits `model.body_pos`).
- Collision geometry for MJX (no box-cylinder collision; the hand's pads and claws are boxes): the ball
  stays a sphere; every cylinder is a box of its half-sizes (the rod a 2.4 cm square bar; the base's round
  top a box of its radius, its upper corners 3.4 cm beyond the round top, which the hand does not reach).
  The base's geoms have contype 0 / conaffinity 1, the arm's contype 2 (it skips the table plane).
- Meshes are left out: visual-only geoms stand in for them (objGeom a sphere at the handle, with the
  reference's local frame, which the observation reads).

The scripted controller (`scripted`, written for this model): lift the handle ball along its arc with
the wrist, from below. Measured (benchmarks/scripted_success.py, C backend, 100 episodes of 500 steps):
92/100 (2026-11-27, since the hand's wrist collides as the reference's does; 100/100 on 2026-11-26 pushing
with the pads, which the wrist now keeps from the ball); the reference's own policy in the reference
succeeds at step 70.
Parity (test_metaworld_parity.py, fixture `metaworld_reference_dials`): reward and info within the default
1e-4; first observed pose within 1.79e-2 m (the reference's first records in two episodes come after its
hand began lifting the arm).
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task, mat_to_quat_xyzw

import math

import jax.numpy as jnp

LEVER_RADIUS = 0.2
AXIS = (0.12, 0.0, 0.25)  # the hinge, base frame
OFFSET = (0.0, 0.055, 0.07)
SCALE = (4.0, 1.0, 4.0)
READS = ("init_tcp", "_lever_pos_init", "target_pos", "qpos:LeverAxis")

_C = 'condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" group="4" rgba="0.3 0.3 1 0"'
_FIX = f'contype="0" conaffinity="1" {_C}'
_MOVE = f'contype="2" conaffinity="1" {_C}'
_VIS = 'contype="0" conaffinity="0" group="1" mass="0"'
_GREY = 'rgba="0.65 0.65 0.65 1"'

LEVER_XML = f"""
    <body name="lever" mocap="true" pos="0 0.88 0">
      <geom name="lever_base_vis" type="box" pos="0 0 0.125" size="0.041 0.083 0.125" {_VIS} {_GREY}/>
      <geom name="lever_top_vis" type="cylinder" euler="0 1.57 0" pos="0 0 0.25" size="0.083 0.041" {_VIS} {_GREY}/>
      <geom name="lever_base_col" type="box" pos="0 0 0.125" size="0.041 0.083 0.125" {_FIX}/>
      <geom name="lever_top_col" type="box" pos="0 0 0.25" size="0.041 0.083 0.083" {_FIX}/>
      <geom name="lever_foot_col" type="box" pos="0 0 0.013" size="0.05 0.092 0.013" {_FIX}/>
      <body name="lever_link1" pos="{AXIS[0]} {AXIS[1]} {AXIS[2]}">
        <inertial pos="-0.00625 -0.07275 0" quat="0.48444508 0.51499567 -0.48449586 0.51512736" mass="0.004"
                  diaginertia="3.25244979e-5 3.18015149e-5 2.00498714e-6"/>
        <joint name="LeverAxis" type="hinge" axis="1 0 0" range="0 1.57" limited="true" damping="2"
               armature="0.001"/>
        <geom name="objGeom" type="sphere" pos="0 -0.2 0" quat="0.66250004 0.66250004 -0.2471714 0.2471714"
              size="0.03" {_VIS} rgba="0 0 0.5 1"/>
        <geom name="lever_rod_vis" type="cylinder" euler="1.57 0 0" pos="0 -0.091 0" size="0.012 0.1" {_VIS}
              rgba="0.35 0.35 0.35 1"/>
        <geom name="lever_hub_col" type="box" size="0.016 0.038 0.038" {_MOVE}/>
        <geom name="lever_rod_col" type="box" pos="0 -0.091 0" size="0.012 0.1 0.012" {_MOVE}/>
        <geom name="lever_ball_col" type="sphere" pos="0 -0.2 0" size="0.03" {_MOVE}/>
        <geom name="lever_axle_col" type="box" pos="-0.025 0 0" size="0.046 0.016 0.016" {_MOVE}/>
        <site name="leverStart" pos="0 -0.2 0" size="0.005" rgba="1 0 0 1"/>
      </body>
    </body>"""


def _qpos(env, d):
  return d.qpos[int(env.mj_model.joint("LeverAxis").qposadr[0])]


def place(env, d, rand_vec):
  m = env.mj_model
  pos = rand_vec[:3]
  j = m.joint("LeverAxis")
  d = d.replace(
    mocap_pos=d.mocap_pos.at[m.body("lever").mocapid[0]].set(pos),
    qpos=d.qpos.at[int(j.qposadr[0])].set(0.0),
    qvel=d.qvel.at[int(j.dofadr[0])].set(0.0),
  )
  target = pos + jnp.array([AXIS[0], 0.0, AXIS[2] + LEVER_RADIUS])
  return d, {
    "target_pos": target,
    "obj_init_pos": pos,
    "_lever_pos_init": pos + jnp.array([AXIS[0], -LEVER_RADIUS, AXIS[2]]),
    "maxPullDist": jnp.linalg.norm(target - pos),
  }


def objects(env, d):
  m = env.mj_model
  return d.site_xpos[m.site("leverStart").id], mat_to_quat_xyzw(d.geom_xmat[m.geom("objGeom").id])


def reads(env, d, ctx):
  del ctx
  return {"qpos:LeverAxis": _qpos(env, d)}


def reward(obs, action, reads):
  del action
  hand, lever = obs[..., 0:3], obs[..., 4:7]
  offset, scale = jnp.array(OFFSET), jnp.array(SCALE)
  shoulder = jnp.linalg.norm((hand + offset - lever) * scale, axis=-1)
  shoulder_init = jnp.linalg.norm((reads["init_tcp"] + offset - reads["_lever_pos_init"]) * scale, axis=-1)
  ready_to_lift = R.tolerance(shoulder, bounds=(0, 0.02), margin=shoulder_init, sigmoid="long_tail")
  lever_error = jnp.abs(-reads["qpos:LeverAxis"] - math.pi / 2)
  engagement = R.tolerance(
    lever_error, bounds=(0, math.pi / 48), margin=math.pi / 2 - math.pi / 12, sigmoid="long_tail"
  )
  target = reads["target_pos"]
  obj_to_target = jnp.linalg.norm(lever - target, axis=-1)
  margin = jnp.linalg.norm(reads["_lever_pos_init"] - target, axis=-1)
  in_place = R.tolerance(obj_to_target, bounds=(0, 0.04), margin=margin, sigmoid="long_tail")
  rew = 10 * R.hamacher_product(ready_to_lift, in_place)
  info = R.info(
    lever_error <= math.pi / 24,
    shoulder < 0.03,
    ready_to_lift > 0.9,
    ready_to_lift,
    engagement,
    shoulder,
    rew,
  )
  return rew, info


def scripted(obs):
  """Scripted controller (written for this model): lift the handle ball along its arc with the closed
  gripper. The hinge is goal - (0, 0, 0.2); the arm's direction u (in y-z) comes from the observed ball.
  The wrist's upper corner pushes the ball along the arc's tangent t (up, then towards +y): the hand goes
  to 2 cm behind the contact point along -t, first below the ball, then drives 4 cm past it along t (1 cm towards the hinge); it holds the ball once the arm
  is within 0.06 rad of vertical."""
  hand, ball, goal = obs[..., 0:3], obs[..., 4:7], obs[..., 36:39]
  axis = goal - jnp.array([0.0, 0.0, LEVER_RADIUS])
  rel = ball[..., 1:3] - axis[..., 1:3]
  u = rel / jnp.maximum(jnp.linalg.norm(rel, axis=-1, keepdims=True), 1e-6)
  t = jnp.stack([u[..., 1], -u[..., 0]], -1)  # (y, z) tangent of the upward swing: up at the start
  up = jnp.arctan2(rel[..., 1], -rel[..., 0])  # the arm's angle above horizontal
  # The wrist (sawyer.WRIST_BOXES: y +-0.05, top 0.0925 above the hand) does the pushing: while the arm
  # is low the ball rides on the wrist's top by its +y edge (a hand centred under the ball would press
  # the 10 cm-wide wrist against the lever's arm, which leaves the ball towards the hinge); as the swing
  # turns towards +y, the wrist's +y face pushes it at mid-height. Where the ball sits, from the hand:
  on_top, beside = jnp.array([0.04, 0.1225]), jnp.array([0.08, 0.07])
  contact = ball[..., 1:3] - (t[..., 1:2] ** 2 * on_top + t[..., 0:1] ** 2 * beside)
  pre = contact - 0.02 * t
  # drive past the contact point, less so near the top (the light arm follows the hand)
  # (2 cm at least: the arm's hand settles short of its target against the lever's weight)
  ahead = 0.02 + 0.02 * jnp.clip((math.pi / 2 - 0.03 - up) / 0.4, 0.0, 1.0)
  push = contact + ahead[..., None] * t
  hyz = hand[..., 1:3]
  aligned_x = jnp.abs(hand[..., 0] - ball[..., 0]) < 0.01
  near_pre = jnp.linalg.norm(hyz - pre, axis=-1) < 0.015
  behind = jnp.sum((hyz - contact) * t, -1) < 0.03
  normal = jnp.abs(jnp.sum((hyz - contact) * u, -1)) < 0.03
  engaged = aligned_x & behind & normal & ((jnp.sum((hyz - pre) * t, -1) > -0.01) | near_pre)
  # approach: under the ball's height minus 0.11 until in line (x, y), then up to `pre`
  below = jnp.stack([pre[..., 0], jnp.minimum(pre[..., 1], ball[..., 2] - 0.11)], -1)
  in_line = aligned_x & (jnp.abs(hand[..., 1] - pre[..., 0]) < 0.015)
  yz = jnp.where(engaged[..., None], push, jnp.where(in_line[..., None], pre, below))
  want = jnp.concatenate([ball[..., :1], yz], -1)
  move = jnp.clip((want - hand) * 25.0, -1.0, 1.0)
  return jnp.concatenate([move, jnp.ones(move.shape[:-1] + (1,))], -1)


TASK = Task(
  name="lever-pull-v3",
  objects_xml=LEVER_XML,
  hand_init_pos=(0.0, 0.4, 0.2),
  hand_low=(-0.5, 0.40, -0.15),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.5, 0.40, -0.15),
  goal_high=(0.5, 1.0, 0.5),
  rand_low=(-0.1, 0.7, 0.0),
  rand_high=(0.1, 0.8, 0.0),
  place=place,
  objects=objects,
  reward=reward,
  reads=reads,
)
