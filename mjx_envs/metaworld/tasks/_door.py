"""The Meta-World safe and its door (metaworld 3.1.1 `objects/assets/doorlockB.xml` inside
`sawyer_xyz/sawyer_door_pull.xml`), shared by door-open-v3 and door-close-v3: one model, two tasks.

Reference facts kept:
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

Deliberate differences:
- The safe's walls and the door are children of one mocap body here, so MuJoCo's parent-child filter
  drops their contacts; the reference's safe is welded to the world, where that filter does not apply,
  and its door panel touches the safe's left wall once the door is open about 90 degrees (0.5 mm deep at
  -1.5708, door-close-v3's start: the soft contact swings the door back to -1.30 within 50 steps).
  `SAFE_PANEL_PAIR` is that contact as an explicit pair, with the reference's mixed parameters except the
  time constant, sqrt(2) x 0.01: MuJoCo 3.3.0 (the reference's) reports this box-box overlap at half its
  depth (0.5 of the 1 mm; 4.0.0, ours, the full 1 mm). With 0.01 the door swings to -1.284 (the reference
  -1.304); with 0.01414 (half the stiffness) to -1.303, faster at first (control step 10: -1.362, the
  reference -1.399; tests/mjx_envs/test_metaworld_press.py). door-close-v3 has the pair; door-open-v3
  (whose scripted door passes -1.57 only after its success) does not.
- No meshes: the safe, door and handle meshes (visual only in the reference) are not drawn; the
  collision geoms are visible instead, and `handle` is a visual-only box of the mesh's half-sizes at the
  mesh's compiled pose (so its xpos and xmat are the reference's).
- The handle's cylinders are capsules or a box (MJX has no cylinder-box collision and the hand's pads
  and claws are boxes): the shaft and the two grip bars are capsules of the cylinders' radii whose
  half-lengths are shortened by the radius, so that each spans the cylinder's length; the base disk
  (radius 0.028, half-height 0.012) is a box of the same area in cross-section (half-sides 0.025) and
  the same thickness.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import mat_to_quat_xyzw

import jax.numpy as jnp

DOOR_LINK_POS = (-0.185, -0.1, 0.0)
HANDLE_POS = (0.3757216301, -0.1071398955, 0.0000359487)  # in door_link, the reference's compiled pose
HANDLE_QUAT = (0.151171086, 0.6907584981, -0.1506209687, 0.6908786607)
HANDLE_HALF = (0.0227195639, 0.0697057183, 0.0969049991)

COL = (
  'contype="1" conaffinity="1" condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" friction="1 0.005 0.0001"'
)
f = lambda v: " ".join(repr(float(x)) for x in v)

SAFE_XML = f"""
        <geom name="safe_left" type="box" pos="-0.204 0 0" size="0.016 0.106 0.15" {COL} rgba="0.3 0.32 0.35 1"/>
        <geom type="box" pos="0.204 0 0" size="0.016 0.106 0.15" {COL} rgba="0.3 0.32 0.35 1"/>
        <geom type="box" pos="0 0 0.138" size="0.188 0.106 0.012" {COL} rgba="0.3 0.32 0.35 1"/>
        <geom type="box" pos="0 0 -0.138" size="0.189 0.106 0.012" {COL} rgba="0.3 0.32 0.35 1"/>
        <geom type="box" pos="0 0.094 0" size="0.188 0.012 0.126" {COL} rgba="0.3 0.32 0.35 1"/>"""

DOOR_XML = f"""
    <body name="door" mocap="true" pos="0 0.9 0.15">
      <body name="doorlockB">{SAFE_XML}
        <body name="door_link" pos="{f(DOOR_LINK_POS)}">
          <joint name="doorjoint" type="hinge" axis="0 0 1" range="-2 0" limited="true" damping="2"
                 armature="0.001"/>
          <inertial pos="0.2237015892 -0.0204280748 0" mass="2.2298222619"
                    quat="0.5554460704 0.5554338439 0.4375914688 0.4375918354"
                    diaginertia="0.0436175002 0.0373380064 0.0116903992"/>
          <geom name="handle" type="box" pos="{f(HANDLE_POS)}" quat="{f(HANDLE_QUAT)}"
                size="{f(HANDLE_HALF)}" contype="0" conaffinity="0" group="1" rgba="0 0 0 0"/>
          <geom name="door_panel" type="box" pos="0.185 0 0" size="0.18 0.01 0.123" {COL}
                rgba="0.4 0.42 0.45 1"/>
          <geom name="handle_base" type="box" pos="0.325 -0.006 0" size="0.025 0.012 0.025" {COL}
                rgba="0.75 0.75 0.75 1"/>
          <geom name="handle_shaft" type="capsule" euler="1.57 0 0" pos="0.325 -0.065 0" size="0.013 0.034"
                {COL} rgba="0.75 0.75 0.75 1"/>
          <geom name="handle_grip" type="capsule" euler="0 1.57 0" pos="0.381 -0.12 0" size="0.019 0.056"
                {COL} rgba="0.75 0.75 0.75 1"/>
          <geom name="handle_grip2" type="capsule" euler="0 1.57 0" pos="0.395 -0.12 0" size="0.023 0.031"
                {COL} rgba="0.75 0.75 0.75 1"/>
        </body>
      </body>
    </body>"""


# The panel against the safe's left wall (explicit, past the parent-child filter): the two `dl_col` geoms'
# mixed contact parameters, the time constant sqrt(2) x 0.01 (see the module docstring).
SAFE_PANEL_PAIR = (
  '<pair geom1="door_panel" geom2="safe_left" condim="3" friction="1 1 0.005 0.0001 0.0001" '
  'solref="0.01414 1" solimp="0.99 0.99 0.01"/>'
)


def place_door(env, d, rand_vec, angle: float):
  """The door body at rand_vec, doorjoint at `angle` at rest; returns (d, handle position at `angle`)."""
  m = env.mj_model
  mocap = int(m.body("door").mocapid[0])
  j = m.joint("doorjoint")
  a, v = int(j.qposadr[0]), int(j.dofadr[0])
  d = d.replace(
    mocap_pos=d.mocap_pos.at[mocap].set(rand_vec), qpos=d.qpos.at[a].set(angle), qvel=d.qvel.at[v].set(0.0)
  )
  c, s = jnp.cos(angle), jnp.sin(angle)
  hx, hy = HANDLE_POS[0], HANDLE_POS[1]
  handle = rand_vec + jnp.array(DOOR_LINK_POS) + jnp.array([c * hx - s * hy, s * hx + c * hy, HANDLE_POS[2]])
  return d, handle


def handle_objects(env, d):
  """(the `handle` geom's xpos, scipy's [x, y, z, w] of its xmat)."""
  g = env.mj_model.geom("handle").id
  return d.geom_xpos[g], mat_to_quat_xyzw(d.geom_xmat[g])


def door_qpos(env, d):
  return d.qpos[int(env.mj_model.joint("doorjoint").qposadr[0])]


# -- the locked door (door-lock-v3, door-unlock-v3) ---------------------------------------------------------
# The reference's `objects/assets/doorlockA.xml` in `sawyer_xyz/sawyer_door_lock.xml`: the same safe, the door
# fixed (no hinge: `door_link` at (-0.185, -0.1, 0), its collision boxes at the reference's places: panel,
# lock base, the handle's base, shaft and grip bars as the reference's boxes at z -0.05) and `lock_link` at
# (0.185, -0.018, 0.061) in door_link, a hinge about y (range [0, 1.57], damping 2, armature 0.001; 0: the
# lock's arm horizontal, pointing +x; 1.57: hanging down), one collision box of mass 0.001 (inertia from it,
# as the reference compiles it) and the sites `lockStartLock` (0.09, -0.04, 0.01) and `lockStartUnlock`
# (0.09, -0.04, -0.01). The lock's arm never meets the door's boxes (1 mm apart in y at every angle), so
# the parent-child filter (which the reference's world-welded door escapes) drops no contact here.
LOCK_LINK_POS = tuple(a + b for a, b in zip(DOOR_LINK_POS, (0.185, -0.018, 0.061)))  # in the door body
LOCK_BOX_Y = -0.024  # the arm's centre line, lock_link frame

LOCK_DOOR_XML = f"""
    <body name="door" mocap="true" pos="0 0.9 0.15">
      <body name="doorlockA">{SAFE_XML}
        <body name="door_link" pos="{f(DOOR_LINK_POS)}">
          <geom name="door_panel" type="box" pos="0.185 0 0" size="0.184 0.01 0.124" {COL} rgba="0.4 0.42 0.45 1"/>
          <geom type="box" pos="0.185 -0.009 0.061" size="0.047 0.013 0.047" {COL} rgba="0.75 0.75 0.75 1"/>
          <geom type="box" pos="0.325 -0.006 -0.05" size="0.028 0.012 0.028" {COL} rgba="0.75 0.75 0.75 1"/>
          <geom type="box" euler="1.57 0 0" pos="0.325 -0.065 -0.05" size="0.013 0.013 0.047" {COL}
                rgba="0.75 0.75 0.75 1"/>
          <geom type="box" euler="0 1.57 0" pos="0.381 -0.12 -0.05" size="0.019 0.019 0.075" {COL}
                rgba="0.75 0.75 0.75 1"/>
          <geom type="box" euler="0 1.57 0" pos="0.395 -0.12 -0.05" size="0.023 0.023 0.054" {COL}
                rgba="0.75 0.75 0.75 1"/>
          <body name="lock_link" pos="0.185 -0.018 0.061">
            <joint name="lock_joint" type="hinge" axis="0 1 0" range="0 1.57" limited="true" damping="2"
                   armature="0.001"/>
            <geom name="lock_geom" type="box" pos="0.042 -0.024 0" size="0.05 0.019 0.01" mass="0.001" {COL}
                  rgba="0.75 0.75 0.75 1"/>
            <site name="lockStartLock" pos="0.09 -0.04 0.01" size="0.005" rgba="1 1 1 1"/>
            <site name="lockStartUnlock" pos="0.09 -0.04 -0.01" size="0.005" rgba="0 0 0 1"/>
          </body>
        </body>
      </body>
    </body>"""


def lock_place(angle: float, target_offset):
  """place(env, d, rand_vec) of a lock task: the door body at rand_vec, the lock at `angle` at rest;
  obj_init_pos = lock_link's position (the hinge), target_pos = it + `target_offset`."""

  def place(env, d, rand_vec):
    m = env.mj_model
    j = m.joint("lock_joint")
    a, v = int(j.qposadr[0]), int(j.dofadr[0])
    d = d.replace(
      mocap_pos=d.mocap_pos.at[int(m.body("door").mocapid[0])].set(rand_vec),
      qpos=d.qpos.at[a].set(angle),
      qvel=d.qvel.at[v].set(0.0),
    )
    lock = rand_vec + jnp.array(LOCK_LINK_POS)
    target = lock + jnp.array(target_offset)
    return d, {"target_pos": target, "obj_init_pos": lock, "maxPullDist": jnp.linalg.norm(target - lock)}

  return place


def lock_objects(site: str):
  """objects(env, d) of a lock task: (site `site`'s position, door_link's xquat [w, x, y, z])."""

  def objects(env, d):
    m = env.mj_model
    return d.site_xpos[m.site(site).id], d.xquat[m.body("door_link").id]

  return objects


def lock_reads(env, d, ctx):
  """The reference's obj_init_pos of the lock tasks is a view of lock_link's live xpos."""
  del ctx
  return {"obj_init_pos": d.xpos[env.mj_model.body("lock_link").id]}


def push_lock(obs, hinge, sign: float, behind: float = 0.035, ahead: float = 0.04, y_off: float = LOCK_BOX_Y):
  """Turn the lock by pushing its tip (obs[4:7], a site near the arm's end) along its path about `hinge`
  [..., 3] (sign +1: towards 0, unlocking; -1: towards 1.57, locking). The gripper closed; the pads' bottom
  (the tcp, 4.5 cm below the hand) goes to `behind` the tip on its path, from above when far, then pushes
  to `ahead` of it, following the tip as the arm turns. The tcp works at y = hinge y + `y_off`."""
  hand, tip = obs[..., 0:3], obs[..., 4:7]
  tcp = hand - jnp.array([0.0, 0.0, 0.045])
  rx, rz = tip[..., 0] - hinge[..., 0], tip[..., 2] - hinge[..., 2]
  n = jnp.sqrt(rx**2 + rz**2) + 1e-6
  dx, dz = sign * -rz / n, sign * rx / n  # the tip's direction of travel
  y = hinge[..., 1] + y_off
  start = jnp.stack([tip[..., 0] - behind * dx, y, tip[..., 2] - behind * dz], -1)
  push = jnp.stack([tip[..., 0] + ahead * dx, y, tip[..., 2] + ahead * dz], -1)
  # pushing: the tcp behind the tip on its path (within 5 cm) and within 2 cm of that path
  ex, ez = tcp[..., 0] - tip[..., 0], tcp[..., 2] - tip[..., 2]
  along, across = ex * dx + ez * dz, jnp.abs(ex * dz - ez * dx)
  on_path = (along > -0.05) & (along < 0.01) & (across < 0.02) & (jnp.abs(tcp[..., 1] - y) < 0.01)
  near_start = jnp.linalg.norm(tcp - start, axis=-1) < 0.012
  pushing = (on_path | near_start)[..., None]
  far = (jnp.linalg.norm(tcp[..., :2] - start[..., :2], axis=-1) > 0.02)[..., None]
  over = jnp.stack([start[..., 0], start[..., 1], jnp.maximum(start[..., 2] + 0.06, tcp[..., 2])], -1)
  want = jnp.where(pushing, push, jnp.where(far, over, start))
  move = jnp.clip((want - tcp) * 25.0, -1.0, 1.0)
  return jnp.concatenate([move, jnp.ones_like(move[..., :1])], -1)


def lock_info(obs, near_dist, obj_to_target, near_reward, in_place, rew):
  """The lock tasks' `evaluate_state` dict."""
  return R.info(
    obj_to_target <= 0.02, near_dist <= 0.05, obs[..., 3] > 0, near_reward, in_place, obj_to_target, rew
  )
