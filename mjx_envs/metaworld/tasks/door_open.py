"""door-open-v3: swing a safe's door open by its handle, towards the robot.

Reference: metaworld 3.1.1 `SawyerDoorEnvV3` (reward version v2), model `sawyer_xyz/sawyer_door_pull.xml`
with `objects/assets/doorlockB.xml`. Facts used:
- Body tree: `door` (the furniture the reference moves through `model.body("door").pos`; here a mocap
  body placed per world through `data.mocap_pos`) > `doorlockB` (the safe: five boxes, group-4 `dl_col`
  class: condim 3, solimp 0.99 0.99 0.01, solref 0.01 1, default friction) > `door_link` at (-0.185,
  -0.1, 0) with the hinge `doorjoint` (axis z, range [-2, 0], damping 2, armature 0.001; negative opens
  the free end towards the robot).
- door_link's collision geoms at the reference's places (panel box, the handle's base disk, shaft and two
  grip bars) and its inertia as the reference compiles it (`inertiafromgeom` over group 4 with density
  1000: 2.2298 kg, centre (0.2237, -0.0204, 0), principal moments and frame below).
- Geom `handle` (a visual mesh in the reference, read by the observation) at the pose the reference's
  compiler gives it (the mesh's inertial frame): pos (0.37572, -0.10714, 3.6e-5), quat (0.15117, 0.69076,
  -0.15062, 0.69088) in door_link. Observation object: its xpos, and scipy's `as_quat` [x, y, z, w] of
  its xmat.
- rand_vec = the door body's position, uniform in (0, 0.85, 0.15) .. (0.1, 0.95, 0.15) (no rejection
  rule); obj_init_pos = rand_vec; target_pos = obj_init_pos + (-0.3, -0.45, 0); doorjoint = 0;
  maxPullDist = |handle - target| in x-y at the reset (read by no v2 reward; kept in ctx).
- hand_init_pos (0, 0.6, 0.2); hand bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5); goal bounds (-0.3, 0.4,
  0.1499) .. (-0.2, 0.5, 0.1501).
- Reward (v2): grab = (clip(action[3], -1, 1) + 1) / 2; door = handle - (0.05, 0, 0); a log funnel
  `floor` around the handle that the hand should stay above (above_floor), in_place = tolerance(|hand -
  door - (0.05, 0.03, -0.01)|, (0, 0.06), margin 0.5, long_tail); ready = above_floor Hamacher in_place;
  opened = 0.2 [theta < -pi/90] + 0.8 tolerance(2 pi/3 + theta, (0, 0.5), margin pi/3, long_tail);
  reward = 2 (ready Hamacher grab) + 8 opened, 10 on success. Success: |handle_x - target_x| <= 0.08
  (the door opened about 80 degrees or more). Info: near_object ready, grasp_success grab >= 0.5,
  grasp_reward grab, in_place_reward opened, obj_to_target 0.
- READS "qpos:doorjoint" is the hinge angle as a scalar (the reference reads `.qpos.item()`).

Deliberate differences:
- No meshes: the safe, door and handle meshes (visual only in the reference) are not drawn; the
  collision geoms are visible instead, and `handle` is a visual-only box of the mesh's half-sizes at the
  mesh's compiled pose (so its xpos and xmat are the reference's).
- The handle's cylinders are capsules or a box (MJX has no cylinder-box collision and the hand's pads
  and claws are boxes): the shaft and the two grip bars are capsules of the cylinders' radii whose
  half-lengths are shortened by the radius, so that each spans the cylinder's length; the base disk
  (radius 0.028, half-height 0.012) is a box of the same area in cross-section (half-sides 0.025) and
  the same thickness.
- Measured effect of the armless hand: dragging the handle, it pushes the door past its soft -2 rad limit
  (q reaches -2.07 .. -2.61 with the scripted controller; the reference's arm, under its policy, -1.92);
  success comes at control step 60 .. 277, median 71 (reference: 84, 87 in two episodes).

The scripted controller is the reference policy (`SawyerDoorOpenV3Policy`) in JAX with its gain (p 25,
gripper closed). Measured: 100/100 episodes solved (500 steps, fresh rand_vecs, C MuJoCo on this env's
compiled model and solver settings, mocap/ctrl/obs as `SawyerEnv.step`); the MJX batch measurement was
not affordable on the shared 2-core CPU used.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task, mat_to_quat_xyzw

import math

import jax.numpy as jnp

DOOR_LINK_POS = (-0.185, -0.1, 0.0)
HANDLE_POS = (0.3757216301, -0.1071398955, 0.0000359487)  # in door_link, the reference's compiled pose
HANDLE_QUAT = (0.151171086, 0.6907584981, -0.1506209687, 0.6908786607)
HANDLE_HALF = (0.0227195639, 0.0697057183, 0.0969049991)
TARGET_OFFSET = (-0.3, -0.45, 0.0)
READS = ("target_pos", "qpos:doorjoint")

_COL = (
  'contype="1" conaffinity="1" condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" friction="1 0.005 0.0001"'
)
_f = lambda v: " ".join(repr(float(x)) for x in v)

OBJECTS_XML = f"""
    <body name="door" mocap="true" pos="0 0.9 0.15">
      <body name="doorlockB">
        <geom type="box" pos="-0.204 0 0" size="0.016 0.106 0.15" {_COL} rgba="0.3 0.32 0.35 1"/>
        <geom type="box" pos="0.204 0 0" size="0.016 0.106 0.15" {_COL} rgba="0.3 0.32 0.35 1"/>
        <geom type="box" pos="0 0 0.138" size="0.188 0.106 0.012" {_COL} rgba="0.3 0.32 0.35 1"/>
        <geom type="box" pos="0 0 -0.138" size="0.189 0.106 0.012" {_COL} rgba="0.3 0.32 0.35 1"/>
        <geom type="box" pos="0 0.094 0" size="0.188 0.012 0.126" {_COL} rgba="0.3 0.32 0.35 1"/>
        <body name="door_link" pos="{_f(DOOR_LINK_POS)}">
          <joint name="doorjoint" type="hinge" axis="0 0 1" range="-2 0" limited="true" damping="2"
                 armature="0.001"/>
          <inertial pos="0.2237015892 -0.0204280748 0" mass="2.2298222619"
                    quat="0.5554460704 0.5554338439 0.4375914688 0.4375918354"
                    diaginertia="0.0436175002 0.0373380064 0.0116903992"/>
          <geom name="handle" type="box" pos="{_f(HANDLE_POS)}" quat="{_f(HANDLE_QUAT)}"
                size="{_f(HANDLE_HALF)}" contype="0" conaffinity="0" group="1" rgba="0 0 0 0"/>
          <geom name="door_panel" type="box" pos="0.185 0 0" size="0.18 0.01 0.123" {_COL}
                rgba="0.4 0.42 0.45 1"/>
          <geom name="handle_base" type="box" pos="0.325 -0.006 0" size="0.025 0.012 0.025" {_COL}
                rgba="0.75 0.75 0.75 1"/>
          <geom name="handle_shaft" type="capsule" euler="1.57 0 0" pos="0.325 -0.065 0" size="0.013 0.034"
                {_COL} rgba="0.75 0.75 0.75 1"/>
          <geom name="handle_grip" type="capsule" euler="0 1.57 0" pos="0.381 -0.12 0" size="0.019 0.056"
                {_COL} rgba="0.75 0.75 0.75 1"/>
          <geom name="handle_grip2" type="capsule" euler="0 1.57 0" pos="0.395 -0.12 0" size="0.023 0.031"
                {_COL} rgba="0.75 0.75 0.75 1"/>
        </body>
      </body>
    </body>"""


def place(env, d, rand_vec):
  m = env.mj_model
  mocap = int(m.body("door").mocapid[0])
  j = m.joint("doorjoint")
  a, v = int(j.qposadr[0]), int(j.dofadr[0])
  d = d.replace(
    mocap_pos=d.mocap_pos.at[mocap].set(rand_vec), qpos=d.qpos.at[a].set(0.0), qvel=d.qvel.at[v].set(0.0)
  )
  target = rand_vec + jnp.array(TARGET_OFFSET)
  handle = rand_vec + jnp.array(DOOR_LINK_POS) + jnp.array(HANDLE_POS)  # at doorjoint = 0
  max_pull = jnp.linalg.norm(handle[:2] - target[:2])
  return d, {"target_pos": target, "obj_init_pos": rand_vec, "maxPullDist": max_pull}


def objects(env, d):
  g = env.mj_model.geom("handle").id
  return d.geom_xpos[g], mat_to_quat_xyzw(d.geom_xmat[g])


def reads(env, d, ctx):
  del ctx
  return {"qpos:doorjoint": d.qpos[int(env.mj_model.joint("doorjoint").qposadr[0])]}


def _reward_pos(obs, theta):
  hand = obs[..., 0:3]
  door = obs[..., 4:7] + jnp.array([-0.05, 0.0, 0.0])
  threshold = 0.12
  radius = jnp.linalg.norm(hand[..., :2] - door[..., :2], axis=-1)
  floor = jnp.where(radius <= threshold, 0.0, 0.04 * jnp.log(jnp.maximum(radius - threshold, 1e-30)) + 0.4)
  # the reference evaluates the tolerance only below the floor, where floor > hand z >= 0
  below = hand[..., 2] < floor
  safe_floor = jnp.where(below, floor, 1.0)
  above_floor = jnp.where(
    below,
    R.tolerance(safe_floor - hand[..., 2], bounds=(0.0, 0.01), margin=safe_floor / 2.0, sigmoid="long_tail"),
    1.0,
  )
  in_place = R.tolerance(
    jnp.linalg.norm(hand - door - jnp.array([0.05, 0.03, -0.01]), axis=-1),
    bounds=(0, threshold / 2.0),
    margin=0.5,
    sigmoid="long_tail",
  )
  ready = R.hamacher_product(above_floor, in_place)
  door_angle = -theta
  opened = 0.2 * (theta < -math.pi / 90.0).astype(jnp.float32) + 0.8 * R.tolerance(
    math.pi / 2.0 + math.pi / 6 - door_angle, bounds=(0, 0.5), margin=math.pi / 3.0, sigmoid="long_tail"
  )
  return ready, opened


def reward(obs, action, reads):
  theta = reads["qpos:doorjoint"]
  grab = (jnp.clip(action[..., 3], -1, 1) + 1.0) / 2.0
  ready, opened = _reward_pos(obs, theta)
  success = jnp.abs(obs[..., 4] - reads["target_pos"][..., 0]) <= 0.08
  rew = jnp.where(success, 10.0, 2.0 * R.hamacher_product(ready, grab) + 8.0 * opened)
  f = lambda b: b.astype(jnp.float32)
  info = {
    "success": f(success),
    "near_object": ready,
    "grasp_success": f(grab >= 0.5),
    "grasp_reward": grab,
    "in_place_reward": opened,
    "obj_to_target": jnp.zeros_like(rew),
    "unscaled_reward": rew,
  }
  return rew, info


def scripted(obs):
  """The reference policy: above the point 5 cm inboard of the handle, down beside it (the closed fingers
  between the grip bar and the door), then chase that point as the door swings towards the robot."""
  hand = obs[..., 0:3]
  door = obs[..., 4:7] + jnp.array([-0.05, 0.0, 0.0])
  far = jnp.linalg.norm(hand[..., :2] - door[..., :2], axis=-1, keepdims=True) > 0.12
  high = jnp.abs(hand[..., 2:3] - door[..., 2:3]) > 0.04
  to = jnp.where(
    far, door + jnp.array([0.06, 0.02, 0.2]), jnp.where(high, door + jnp.array([0.06, 0.02, 0.0]), door)
  )
  move = jnp.clip(25.0 * (to - hand), -1.0, 1.0)
  return jnp.concatenate([move, jnp.ones_like(move[..., :1])], -1)


TASK = Task(
  name="door-open-v3",
  objects_xml=OBJECTS_XML,
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.3, 0.4, 0.1499),
  goal_high=(-0.2, 0.5, 0.1501),
  rand_low=(0.0, 0.85, 0.15),
  rand_high=(0.1, 0.95, 0.15),
  place=place,
  objects=objects,
  reward=reward,
  reads=reads,
)
