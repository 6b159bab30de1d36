"""hammer-v3: pick a hammer up from the table and drive a nail into a block with it.

Reference: metaworld 3.1.1 `SawyerHammerEnvV3` (reward version v2), `sawyer_hammer.xml`
(`objects/assets/hammer.xml`, `hammerblock.xml`).

Reference facts used:
- rand_vec = the hammer's position from (-0.1, 0.4, 0) .. (0.1, 0.5, 0) (no rejection rule); hand_init_pos
  (0, 0.4, 0.2), hand and mocap bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5); goal space (0.2399, 0.7399,
  0.109) .. (0.2401, 0.7401, 0.111).
- reset_model: the block (body `box`) at (0.24, 0.85, 0) on every reset; target_pos = its site `goal`
  (0, -0.11, 0.11) in the block's frame, i.e. (0.24, 0.74, 0.11); nail_init_pos = site `nailHead`;
  obj_init_pos = rand_vec; the hammer's free joint moved to rand_vec (z 0: its handle 2 cm and its head
  3.8 cm into the table) at rest, its ORIENTATION LEFT AS IT IS (it rests tilted after the hand reset's
  settling from its model pose (0, 0.6, 0.02)); heightTarget = 0 + liftThresh 0.09 (v1 only; in ctx).
- Hammer: body `hammerbody` (free joint) with child `hammer` at its origin; collision class hmr_col
  (condim 3, solimp 0.99 0.99 0.01, solref 0.01 1, friction 1 / 0.005 / 1e-4): the handle `HammerHandle`, a
  capsule radius 0.02, half-length 0.14 along x (mass 0.1, the reference's "main object"); the head at x
  0.16: a cylinder radius 0.026 half-length 0.025 along x (mass 0.2), cylinders along y at y +-0.026
  (radius 0.02, half-length 0.015, mass 0.1 each) and at y +-0.056 (radius 0.038, half-length 0.016, mass
  0.3 each: the faces, the striking one at y +0.072). Compiled inertial: mass 1.1 at (0.14545455, 0, 0),
  quat (-2.599e-5, 0.70703583, -2.598e-5, 0.70717772), diaginertia (5.51808e-3, 3.67168e-3, 2.40685e-3).
  Observation: the body `hammer`'s position (its origin, the handle's centre) and xquat ([w, x, y, z]).
- Block `hammerblock` (fixed): boxes (0, 0, 0.172) half (0.1, 0.1, 0.048), (+-0.058, 0, 0.11) half (0.042,
  0.1, 0.014), (0, 0, 0.048) half (0.1, 0.1, 0.048) (a slot for the nail between them). Nail `nail_link` at
  (0, -0.21, 0.11): slide joint `NailSlideJoint` along +y, range [0, 0.1], damping 2, armature 0.001;
  collision: the head, a cylinder radius 0.03 half-length 0.009 along y at its origin, and the shaft, a
  cylinder radius 0.01 half-length 0.06 along y at (0, 0.057, 0); compiled inertial mass 0.08859291 at (0,
  0.02425532, 0), diaginertia (1.2937e-4, 1.2937e-4, 2.479e-5). Observation object 2: nail_link's position
  and xquat.
- Reward v2: hammer_head = hammer + (0.16, 0.06, 0); hammer_threshed = hammer with x replaced by the hand's
  x where |hammer x - hand x| < 0.07; reward_quat = max(1 - |obs[7:11] - (1, 0, 0, 0)| / 0.4, 0);
  reward_grab = the base `_gripper_caging_reward` at hammer_threshed (obj_radius 0.015, pad_success_thresh
  0.02, object_reach_radius 0.01, xz_thresh 0.01, high_density; margins from obj_init_pos); in_place = 0.1
  (hammer_head z > 0.02) + 0.9 tolerance(|target - hammer_head|, (0, 0.02), margin 0.2, long_tail); reward
  = (2 grab + 6 in_place) reward_quat, 10 where the nail's qpos > 0.09 and reward > 5. Info: success = nail
  qpos > 0.09 (alone), near_object = reward_quat, grasp_success = grab >= 0.5, grasp_reward = grab,
  in_place_reward = in_place, obj_to_target = 0.

Deliberate differences (collision geometry for MJX, which has no box-cylinder collision; the pads and the
block are boxes):
- The head's two faces (radius 0.038) are the reference's cylinders, and so is the nail's head, but they
  collide through explicit pairs only (`CONTACT_XML`: faces-table, faces-nail head, handle-nail head,
  with the geoms' mixed parameters): MJX has cylinder-plane and cylinder-cylinder collisions. The pads,
  the claws and the block do not touch them (in the reference they can; the scripted grip holds the
  handle, 6 cm from the head's nearest part). With the faces as boxes (a first try) the hammer balanced
  flat on them after the hand reset; with the round faces it settles tilted 3.4 deg onto the handle's
  end, as the reference's (settled z 0.02844 m, quaternion y -0.02979; the reference's 0.0284, -0.0297).
- The head's three other cylinders (the neck along x, radius 0.026, and the two collars, radius 0.02)
  are boxes of their half-sizes (they never reach the table: the faces are wider). The inertial is given
  explicitly as the reference's compiled one (so the boxes' volumes do not change it).
- The nail's shaft is a box of its half-sizes, colliding with moving geoms only (contype 0): the
  reference's shaft slides in the block's slot with 4-6 mm to spare and its slide joint cannot leave it.
- The block is a static body (the reference moves it to the same place on every reset), its boxes contype 0.
- Meshes are left out (visual geoms of the collision shapes stand in).
Measured effect of the boxes and the pairs: the same model with every reference cylinder (neck, collars,
nail shaft) and all contacts of the faces and the nail's head (C MuJoCo has those collisions), the scripted
controller, 10 episodes, 2026-11-26: the same first-success steps in every episode (64-74); the hammer's
path identical until it strikes the nail (step 60), then within 2.8 mm on average at step 70 (the nail's
travel within 2.2 cm while it is driven); afterwards the hammer, knocked loose, goes its own way.

Checks (fixture `metaworld_reference_sticks`): reward and every info value on the reference's recorded
states within the default 1e-4; reset ranges equal; the first observed hammer pose within 5.37e-2 m and
2.52e-2 in the quaternion (its reset puts the hammer 2-3.8 cm into the table and the reference's records
come after it rose, or after its policy lifted it; our reset_to observes the placed pose). `scripted`
below (benchmarks/scripted_success.py, C backend, 100 episodes of 500 steps, 2026-11-26): 100/100; the
nail is in near step 65. The reference's own policy in the reference: first successes near step 100.
MJX-JAX (tests/mjx_envs/test_metaworld_sticks.py, slow tier): the scripted loop follows C within 2.1e-3 m
over 100 steps and succeeds.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import _nut, push
from mjx_envs.metaworld.tasks.push import move, set_free_pos

import jax.numpy as jnp

BLOCK_POS = (0.24, 0.85, 0.0)
TARGET = (0.24, 0.74, 0.11)  # the block's site `goal`
NAIL_HEAD = (0.24, 0.635, 0.11)  # site `nailHead` at the reset
HANDLE_HALF = 0.07  # the reference's HAMMER_HANDLE_LENGTH / 2
HEAD_FROM_HAMMER = (0.16, 0.06, 0.0)

_COL = 'condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" friction="1 0.005 0.0001"'
_HMR = f'contype="1" conaffinity="1" {_COL}'
_METAL = 'rgba="0.65 0.65 0.65 1"'
_WOOD = 'rgba="0.6 0.45 0.3 1"'
_FIX = f'type="box" contype="0" conaffinity="1" {_COL} {_WOOD}'
_PAIRED = f'contype="0" conaffinity="0" {_COL}'  # cylinders: in the explicit pairs below only
OBJECTS_XML = f"""
    <body name="hammer" pos="0 0.6 0.02">
      <freejoint name="hammerjoint"/>
      <inertial pos="0.14545455 0 0" quat="-0.00002599 0.70703583 -0.00002598 0.70717772" mass="1.1"
                diaginertia="0.00551808 0.00367168 0.00240685"/>
      <geom name="HammerHandle" type="capsule" size="0.02 0.14" euler="0 1.57 0" {_HMR} rgba="0.65 0 0 1"/>
      <geom name="HammerHead" type="box" pos="0.16 0 0" size="0.025 0.026 0.026" {_HMR} {_METAL}/>
      <geom name="hammer_neck_r" type="box" pos="0.16 0.026 0" size="0.02 0.015 0.02" {_HMR} {_METAL}/>
      <geom name="hammer_face" type="cylinder" euler="1.57 0 0" pos="0.16 0.056 0" size="0.038 0.016"
            {_PAIRED} {_METAL}/>
      <geom name="hammer_back" type="cylinder" euler="1.57 0 0" pos="0.16 -0.056 0" size="0.038 0.016"
            {_PAIRED} {_METAL}/>
      <geom name="hammer_neck_l" type="box" pos="0.16 -0.026 0" size="0.02 0.015 0.02" {_HMR} {_METAL}/>
    </body>
    <body name="box" pos="{BLOCK_POS[0]} {BLOCK_POS[1]} {BLOCK_POS[2]}">
      <geom {_FIX} pos="0 0 0.172" size="0.1 0.1 0.048"/>
      <geom {_FIX} pos="0.058 0 0.11" size="0.042 0.1 0.014"/>
      <geom {_FIX} pos="-0.058 0 0.11" size="0.042 0.1 0.014"/>
      <geom {_FIX} pos="0 0 0.048" size="0.1 0.1 0.048"/>
      <site name="nailHead" pos="0 -0.215 0.11" size="0.005" rgba="0.8 0 0 1"/>
      <site name="hammer_goal" pos="0 -0.11 0.11" size="0.005" rgba="0 0.8 0 1"/>
      <body name="nail_link" pos="0 -0.21 0.11">
        <inertial pos="0 0.02425532 0" quat="0.7071989 0.70701465 0 0" mass="0.08859291"
                  diaginertia="0.00012937 0.00012937 0.00002479"/>
        <joint name="NailSlideJoint" type="slide" axis="0 1 0" range="0 0.1" limited="true" damping="2"
               armature="0.001"/>
        <geom name="nail_head" type="cylinder" euler="1.57 0 0" size="0.03 0.009" {_PAIRED} {_METAL}/>
        <geom name="nail_shaft" type="box" pos="0 0.057 0" size="0.01 0.06 0.01" contype="0" conaffinity="1"
              {_COL} {_METAL}/>
      </body>
    </body>"""

# The cylinders' contacts (MJX has cylinder-plane and cylinder-cylinder collisions, not cylinder-box): the
# faces with the table and the nail's head, the nail's head with the handle; the mixed parameters of the
# geoms' (hmr_col against the table's defaults: solref and solimp averaged, friction the larger).
_TABLE_MIX = 'condim="3" friction="1 1 0.005 0.0001 0.0001" solref="0.015 1" solimp="0.945 0.97 0.0055"'
_HMR_MIX = 'condim="3" friction="1 1 0.005 0.0001 0.0001" solref="0.01 1" solimp="0.99 0.99 0.01"'
CONTACT_XML = f"""
    <pair geom1="hammer_face" geom2="table" {_TABLE_MIX}/>
    <pair geom1="hammer_back" geom2="table" {_TABLE_MIX}/>
    <pair geom1="hammer_face" geom2="nail_head" {_HMR_MIX}/>
    <pair geom1="hammer_back" geom2="nail_head" {_HMR_MIX}/>
    <pair geom1="HammerHandle" geom2="nail_head" {_HMR_MIX}/>"""

READS = (*push.READS[:6], "qpos:NailSlideJoint")  # push's caging reads, no touching_main_object


def place(env, d, rand_vec):
  """The hammer's position at rand_vec, its orientation as the settled start left it, at rest; the nail
  out (qpos 0, at rest)."""
  d = set_free_pos(env, d, "hammerjoint", rand_vec[:3])
  j = env.mj_model.joint("NailSlideJoint")
  d = d.replace(qpos=d.qpos.at[int(j.qposadr[0])].set(0.0), qvel=d.qvel.at[int(j.dofadr[0])].set(0.0))
  ctx = {
    "target_pos": jnp.asarray(TARGET, jnp.float32),
    "obj_init_pos": rand_vec[:3],
    "nail_init_pos": jnp.asarray(NAIL_HEAD, jnp.float32),
    "heightTarget": rand_vec[2] + 0.09,
  }
  return d, ctx


def objects(env, d):
  m = env.mj_model
  hammer, nail = m.body("hammer").id, m.body("nail_link").id
  return (
    jnp.concatenate([d.xpos[hammer], d.xpos[nail]]),
    jnp.concatenate([d.xquat[hammer], d.xquat[nail]]),
  )


def reads(env, d, ctx):
  j = env.mj_model.joint("NailSlideJoint")
  return {"qpos:NailSlideJoint": d.qpos[int(j.qposadr[0])]}


def reward(obs, action, reads):
  hammer = obs[..., 4:7]
  head = hammer + jnp.asarray(HEAD_FROM_HAMMER, jnp.float32)
  err = jnp.linalg.norm(obs[..., 7:11] - jnp.array([1.0, 0.0, 0.0, 0.0]), axis=-1)
  reward_quat = jnp.maximum(1.0 - err / 0.4, 0.0)
  # the caging reward at the handle, its x snapped to the hand's within half its length (the reference's
  # hammer_threshed: the wrench's of assembly-v3 with the hammer's length)
  grab = _nut.grab_reward(obs, action, reads, snap_within=HANDLE_HALF, high_density=True)
  lifted = (head[..., 2] > 0.02).astype(jnp.float32)
  dist = jnp.linalg.norm(reads["target_pos"] - head, axis=-1)
  in_place = 0.1 * lifted + 0.9 * R.tolerance(dist, bounds=(0, 0.02), margin=0.2, sigmoid="long_tail")
  rew = (2.0 * grab + 6.0 * in_place) * reward_quat
  success = reads["qpos:NailSlideJoint"] > 0.09
  rew = jnp.where(success & (rew > 5.0), 10.0, rew)
  return rew, R.info(success, reward_quat, grab >= 0.5, grab, in_place, jnp.zeros_like(rew), rew)


GRIP_X = 0.06  # the grip's x on the handle from the hammer's origin (the centre of mass is at 0.145)
# the tcp (the pads' bottom edges) this far below the handle's axis: the pads cover its whole diameter (with the
# tcp at the axis they held its upper half by their edges, two contacts each in C MuJoCo and one in MJX-JAX,
# where the hammer then slipped through the closing pads)
GRIP_DZ = -0.015
HELD_OPENING = 0.7
STRIKE_Y = 0.68  # the hammer's origin y to drive towards (its face then 2.2 cm past the nail's full travel)


def scripted(obs):
  """Grip the handle, lift the hammer to the nail's height in line with it, then drive it in along +y.

  Memoryless phases (hand = obs[0:3], tcp 0.045 below it; hammer origin = obs[4:7]; the grip point is
  GRIP_X along the handle):
  - not over the grip point (xy error > 0.015) and not holding: go there 8 cm above, open;
  - over it: descend until the tcp is at the handle's height, open; there: close;
  - held (opening < HELD_OPENING, the grip point within 3 cm of the tcp): move so that the hammer's
    origin is at the nail's x - 0.16 (the face's centre in line with the nail) and the nail's height,
    keeping y; once within 1.5 cm of that line in x-z, drive along +y to STRIKE_Y, still closing.
  """
  hand, opening, hammer = obs[..., 0:3], obs[..., 3:4], obs[..., 4:7]
  tcp = hand - jnp.array([0.0, 0.0, 0.045])
  grip_at = hammer + jnp.array([GRIP_X, 0.0, GRIP_DZ])
  xy_err = jnp.linalg.norm(hand[..., :2] - grip_at[..., :2], axis=-1, keepdims=True)
  z_err = jnp.abs(tcp[..., 2:3] - grip_at[..., 2:3])
  held = (opening < HELD_OPENING) & (xy_err < 0.03) & (z_err < 0.03)
  at = (xy_err < 0.015) & (z_err < 0.01)
  above = grip_at + jnp.array([0.0, 0.0, 0.045 + 0.08])
  down = grip_at + jnp.array([0.0, 0.0, 0.045])
  # the hammer's origin where its striking face meets the nail's head, and past it by the nail's travel
  line = jnp.array([NAIL_HEAD[0] - HEAD_FROM_HAMMER[0], 0.0, NAIL_HEAD[2]])
  off = hand - hammer  # the grip's offset from the hammer's origin
  lined = jnp.linalg.norm((hammer - line)[..., jnp.array([0, 2])], axis=-1, keepdims=True) < 0.015
  to_line = jnp.concatenate([line[0:1] + off[..., 0:1], hand[..., 1:2], line[2:3] + off[..., 2:3]], -1)
  strike = jnp.concatenate(
    [to_line[..., 0:1], jnp.full_like(hand[..., 1:2], STRIKE_Y) + off[..., 1:2], to_line[..., 2:3]], -1
  )
  to = jnp.where(
    held, jnp.where(lined, strike, to_line), jnp.where(xy_err > 0.015, above, jnp.where(at, hand, down))
  )
  grip = jnp.where(held | at, 1.0, -1.0)
  return jnp.concatenate([move(hand, to, 25.0), grip], -1)


TASK = Task(
  name="hammer-v3",
  objects_xml=OBJECTS_XML,
  hand_init_pos=(0.0, 0.4, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(0.2399, 0.7399, 0.109),
  goal_high=(0.2401, 0.7401, 0.111),
  rand_low=(-0.1, 0.4, 0.0),
  rand_high=(0.1, 0.5, 0.0),
  place=place,
  objects=objects,
  reward=reward,
  reads=reads,
  contact_xml=CONTACT_XML,
)
