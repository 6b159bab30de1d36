"""The faucet shared by faucet-open-v3 and faucet-close-v3 (the reference's `sawyer_xyz/sawyer_faucet.xml`
with `objects/assets/faucet.xml`): one model, two tasks, the handle turned the other way.

Facts taken from the reference (positions relative to the faucet's base body `faucetBase`; class
`faucet_base`: joints armature 0.001, damping 2, limited; collision class `faucet_col`: condim 3, solimp
(0.99, 0.99, 0.01), solref (0.01, 1); masses from the collision geoms at density 1000, its
`inertiagrouprange="4 5"`):
- Fixed stand `faucet_link`: cylinders radius 0.046 half-height 0.009 at (0, 0, 0.009) and radius 0.017
  half-height 0.044 at (0, 0, 0.061).
- Handle `faucet_link2` at (0, 0, 0.124): hinge `knob_Joint_1` about z, range [-1.57, 1.57], starting at 0
  (the handle pointing at the robot, -y). Collision: the neck, a cylinder radius 0.012 half-length 0.021
  along y at (0, -0.05, 0.001); the handle, a capsule radius 0.017 half-length 0.055 along y at
  (0, -0.12, 0.001); the head, a cylinder radius 0.032 half-height 0.02 at (0, 0, 0.001). Its compiled
  inertial (read off the reference's model): mass 0.268131, at (0, -0.05745, 0.001), quat
  (0.50003161, 0.49996839, -0.49996839, 0.50003161), diaginertia (1.1533695e-3, 1.1375849e-3, 6.82778e-5).
- Sites on the handle: `handleStartOpen` (-0.015, -0.175, 0), `handleStartClose` (0.015, -0.175, 0) (the
  tip's two sides). Turning the handle by +a moves the tip towards +x (open), by -a towards -x (close).
- Observation: object = the task's site + (0, 0, -0.01); quaternion = faucetBase's xquat ([w, x, y, z];
  the base does not turn: (1, 0, 0, 0)).

Deliberate differences:
- The base is a mocap body placed through `data.mocap_pos` (the reference edits `model.body_pos`).
- Collision geometry for MJX (no box-cylinder collision; the hand's pads and claws are boxes): the handle's
  capsule stays a capsule; the neck and the head are boxes of the cylinders' half-sizes (their corners
  reach 5 mm (neck) and 13 mm (head) further out than the round parts; the hand works at the handle's tip,
  12 cm or more from them); the stand's upright is a box of its half-sizes and the round foot (1.8 cm
  high, under the handle's tip only within its 4.6 cm radius of the axis) has no collision. The moving
  parts have contype 2 (they skip the table plane they never reach), the stand contype 0 / conaffinity 1.
  Measured effect: none on the scripted episodes (the hand touches the capsule only).
- Meshes are left out: visual-only geoms at the collision geoms' places stand in for them.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task

import jax.numpy as jnp

HANDLE_LENGTH = 0.175
TARGET_RADIUS = 0.07
LINK2_Z = 0.124
OPEN_SITE = (-0.015, -0.175, 0.0)
CLOSE_SITE = (0.015, -0.175, 0.0)
READS = ("tcp_center", "target_pos", "obj_init_pos", "init_tcp")

_C = 'condim="3" solimp="0.99 0.99 0.01" solref="0.01 1"'
_MOVE = f'contype="2" conaffinity="1" {_C} group="4" rgba="0.3 0.3 1 0"'
_FIX = f'contype="0" conaffinity="1" {_C} group="4" rgba="0.3 0.3 1 0"'
_VIS = 'contype="0" conaffinity="0" group="1" mass="0"'
_METAL = 'rgba="0.7 0.7 0.7 1"'
_RED = 'rgba="0.5 0.1 0.1 1"'

FAUCET_XML = f"""
    <body name="faucetBase" mocap="true" pos="0 0.8 0">
      <body name="faucet_link">
        <geom name="faucet_foot" type="cylinder" pos="0 0 0.009" size="0.046 0.009" {_VIS} {_METAL}/>
        <geom name="faucet_stem" type="cylinder" pos="0 0 0.061" size="0.017 0.044" {_VIS} {_METAL}/>
        <geom name="faucet_stem_col" type="box" pos="0 0 0.061" size="0.017 0.017 0.044" {_FIX}/>
        <body name="faucet_link2" pos="0 0 {LINK2_Z}">
          <inertial pos="0 -0.05744999 0.001" quat="0.50003161 0.49996839 -0.49996839 0.50003161"
                    mass="0.26813074" diaginertia="1.1533695e-3 1.13758489e-3 6.82777746e-5"/>
          <joint name="knob_Joint_1" type="hinge" axis="0 0 1" range="-1.57 1.57" limited="true"
                 armature="0.001" damping="2"/>
          <geom name="faucet_neck" type="cylinder" euler="1.57 0 0" pos="0 -0.05 0.001" size="0.012 0.021"
                {_VIS} {_METAL}/>
          <geom name="faucet_head" type="cylinder" pos="0 0 0.001" size="0.032 0.02" {_VIS} {_METAL}/>
          <geom name="faucet_handle" type="capsule" euler="1.57 0 0" pos="0 -0.12 0.001" size="0.017 0.055"
                {_VIS} {_RED}/>
          <geom name="faucet_neck_col" type="box" pos="0 -0.05 0.001" size="0.012 0.021 0.012" {_MOVE}/>
          <geom name="faucet_head_col" type="box" pos="0 0 0.001" size="0.032 0.032 0.02" {_MOVE}/>
          <geom name="faucet_handle_col" type="capsule" euler="1.57 0 0" pos="0 -0.12 0.001"
                size="0.017 0.055" {_MOVE}/>
          <site name="handleStartClose" pos="{CLOSE_SITE[0]} {CLOSE_SITE[1]} {CLOSE_SITE[2]}" size="0.01"
                rgba="0 0 0 1"/>
          <site name="handleStartOpen" pos="{OPEN_SITE[0]} {OPEN_SITE[1]} {OPEN_SITE[2]}" size="0.005"
                rgba="1 1 1 1"/>
        </body>
      </body>
    </body>"""


def place(env, d, rand_vec, sign: float):
  """The base at rand_vec, the handle at 0 at rest; target = base + (sign 0.175, 0, 0.125)."""
  m = env.mj_model
  pos = rand_vec[:3]
  j = m.joint("knob_Joint_1")
  d = d.replace(
    mocap_pos=d.mocap_pos.at[m.body("faucetBase").mocapid[0]].set(pos),
    qpos=d.qpos.at[int(j.qposadr[0])].set(0.0),
    qvel=d.qvel.at[int(j.dofadr[0])].set(0.0),
  )
  target = pos + jnp.array([sign * HANDLE_LENGTH, 0.0, 0.125])
  return d, {"target_pos": target, "obj_init_pos": pos, "maxPullDist": jnp.linalg.norm(target - pos)}


def objects_at(site: str):
  """A `Task.objects`: the site + (0, 0, -0.01) and faucetBase's xquat."""

  def objects(env, d):
    m = env.mj_model
    pos = d.site_xpos[m.site(site).id] + jnp.array([0.0, 0.0, -0.01])
    return pos, d.xquat[m.body("faucetBase").id]

  return objects


def reward_at(offset):
  """The faucets' reward v2 with obj = obs[4:7] + `offset` (open: (-0.04, 0, 0.03), close: 0)."""

  def reward(obs, action, reads):
    del action
    obj = obs[..., 4:7] + jnp.asarray(offset)
    tcp, target, init = reads["tcp_center"], reads["target_pos"], reads["obj_init_pos"]
    target_to_obj = jnp.linalg.norm(obj - target, axis=-1)
    in_place = R.within(target_to_obj, TARGET_RADIUS, jnp.linalg.norm(init - target, axis=-1))
    tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
    reach = R.within(tcp_to_obj, 0.01, jnp.linalg.norm(init - reads["init_tcp"], axis=-1), "gaussian")
    rew = jnp.where(target_to_obj <= TARGET_RADIUS, 10.0, 2 * (2 * reach + 3 * in_place))
    ok = target_to_obj <= TARGET_RADIUS
    return rew, R.info(ok, tcp_to_obj <= 0.01, jnp.ones_like(rew), reach, in_place, target_to_obj, rew)

  return reward


def arc_push(
  hand,
  axis_xy,
  u,
  sign: float,
  radius: float,
  z_work,
  behind: float = 0.06,
  ahead: float = 0.04,
  inward: float = 0.015,
):
  """Scripted pushing of a lever arm about a vertical axis (written for these models; the dial's
  controller uses it too): the arm's point at `radius` from `axis_xy` [.., 2] along the unit direction
  `u` [.., 2] is pushed along the turn's tangent (sign +1: counter-clockwise seen from above) by the
  closed gripper. The hand first goes, above the arm, to a point `behind` back along the arc, comes down
  to `z_work`, then follows the arc: its target is a point `ahead` along the tangent, pulled `inward`
  towards the axis so that the pads stay on the arm."""
  tang = sign * jnp.stack([-u[..., 1], u[..., 0]], -1)
  tip = axis_xy + radius * u
  start = tip - behind * tang
  push = tip - inward * u + ahead * tang
  rel = hand[..., :2] - tip
  low = hand[..., 2] < z_work + 0.02
  engaged = low & (jnp.sum(rel * tang, -1) < 0.01) & (jnp.abs(jnp.sum(rel * u, -1)) < 0.05)
  above = jnp.linalg.norm(hand[..., :2] - start, axis=-1) > 0.015
  xy = jnp.where(engaged[..., None], push, start)
  z = jnp.where(engaged | ~above, z_work, z_work + 0.08)
  want = jnp.concatenate([xy, z[..., None]], -1)
  move = jnp.clip((want - hand) * 25.0, -1.0, 1.0)
  return jnp.concatenate([move, jnp.ones(move.shape[:-1] + (1,))], -1)


def turn_controller(obs, sign: float, site_x: float):
  """Scripted controller (written for this model): turn the handle by pushing its tip sideways with the
  closed gripper (`arc_push` at 0.16 from the axis, the tcp 3 mm above the handle's centre line). The
  axis is goal - (sign 0.175, 0, 0.125); the handle's direction is read from the observed site.

  sign +1 turns towards +x (open), -1 towards -x (close); site_x: the observed site's x in the handle's
  frame (OPEN_SITE / CLOSE_SITE)."""
  hand, obj, goal = obs[..., 0:3], obs[..., 4:7], obs[..., 36:39]
  axis = goal - jnp.array([sign * HANDLE_LENGTH, 0.0, 0.125])
  rel = obj[..., :2] - axis[..., :2]
  # the site sits site_x off the centre line, at 0.175 along it
  ang = jnp.arctan2(rel[..., 1], rel[..., 0]) - jnp.arctan2(-HANDLE_LENGTH, site_x) + jnp.arctan2(-1.0, 0.0)
  u = jnp.stack([jnp.cos(ang), jnp.sin(ang)], -1)
  z_work = axis[..., 2] + LINK2_Z + 0.001 + 0.045 + 0.003
  return arc_push(hand, axis[..., :2], u, sign, 0.16, z_work)


def task(name: str, sign: float, site: str, offset, rand_low, rand_high) -> Task:
  return Task(
    name=name,
    objects_xml=FAUCET_XML,
    hand_init_pos=(0.0, 0.4, 0.2),
    hand_low=(-0.5, 0.40, -0.15),
    hand_high=(0.5, 1.0, 0.5),
    goal_low=(-0.5, 0.40, -0.15),
    goal_high=(0.5, 1.0, 0.5),
    rand_low=rand_low,
    rand_high=rand_high,
    place=lambda env, d, rv: place(env, d, rv, sign),
    objects=objects_at(site),
    reward=reward_at(offset),
  )
