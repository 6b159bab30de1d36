"""The Meta-World round nut (a ring with a handle, the reference's "wrench") and its peg, metaworld 3.1.1
`sawyer_assembly_peg.xml` and `objects/assets/assembly_peg.xml`, shared by assembly-v3 (put the nut over the
peg) and disassemble-v3 (lift it off).

Reference facts kept (nut frame: the body `RoundNut`, model orientation quat (1, 0, 0, 1), i.e. turned
90 degrees about z, so that its handle points along world +x):
- Collision geoms of class asmbly_col (condim 3, solref 0.01 1, solimp 0.99 0.99 0.01, friction 1 / 0.005
  / 0.0001), contype / conaffinity 1: the ring, eight capsules r 0.019 half-length 0.015, tangential, their
  centres on a 0.048 m circle around the nut's origin (inner opening 0.029 m from the axis); the handle, a
  box half (0.019, 0.038, 0.016) at (0, -0.13, 0); the rod between them, a cylinder r 0.012 half-length 0.05
  along the nut's y at (0, -0.1, 0). Compiled inertial (the collision geoms' masses 8 x 0.02 + 0.04 + 0.02):
  mass 0.22 at (0, -0.0327, 0), principal inertia (1.1305e-3, 9.179e-4, 2.471e-4).
- Sites `RoundNut` (0, 0, 0) (the ring's centre, the reward's wrench_center) and `RoundNut-8` (0, -0.13, 0)
  (the handle's centre: the observed object position); observed quaternion = `data.body("RoundNut").xquat`
  ([w, x, y, z]; the reward's quaternion term wants (0.707, 0, 0, 0.707): the nut lying flat as modelled).
- Peg: body `peg`, a cylinder r 0.02 half-height 0.05 (contype / conaffinity 1, MuJoCo's default contact
  parameters), site `pegTop` 0.05 above its centre. The reset moves the peg by editing model.body_pos.
- The nut's free joint is the one `_set_obj_xyz` writes (position only: the orientation after the 50-step
  hand reset is kept).

Deliberate differences (the reference's collision geometry is already primitive: its meshes, the ring, the
handle and the rod, are visual only, contype 0; visual-only boxes stand in for them here):
- The peg is a mocap body placed through `mocap_pos`, and a CAPSULE r 0.02 of half-length 0.03 (the
  cylinder's radius and extent, its top rounded): MJX has no box-cylinder collision (the nut's handle and
  the hand's pads are boxes; capsule-capsule and capsule-box it has). The ring slides over it with the
  reference's 9 mm radial clearance; its rounded top guides a ring that arrives off-centre where the flat
  top would hold it up. contype 0 (fixed: touched by moving geoms only). Measured (C backend, 2026-11-26):
  the scripted assembly and disassemble episodes never touch the peg: with the reference's cylinders for the
  peg and the rod (C MuJoCo has the pairs; only MJX refuses the model) 50 episodes of each give the same
  first-success steps and final poses to 1e-4 m. A nut released level 3 cm above the peg's top with its
  ring's centre off the axis (8 directions per offset) ends around the peg (assembly's success) at offsets
  up to 12.5 mm with either peg; beyond that the capsule catches more: at 15 / 17.5 / 20 / 22.5 / 25 mm
  1 / 1 / 1 / 0.75 / 0.25 of the drops against the cylinder's 0.75 / 0.5 / 0.5 / 0.125 / 0 (the reference's
  own model in mujoco 3.3.0: 1 / 0.5 / 0.5 / 0.125 / 0); none past 27.5 mm.
- The nut's rod (a cylinder) is a capsule r 0.012 of half-length 0.038, spanning the cylinder's length.
  Most of it lies inside the handle box and the ring capsules; 2.5 cm of it is exposed between them.
- The nut is one body (the reference nests its geoms in a child `asmbly_peg` at the identity) with the
  reference's compiled inertial given explicitly (so the capsule rod does not change the mass properties).
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks.push import move, set_free_pos, settled_qpos

import jax.numpy as jnp

HANDLE_FROM_RING = (0.0, -0.13, 0.0)  # site RoundNut-8, nut frame
IDEAL_QUAT = (0.707, 0.0, 0.0, 0.707)
WRENCH_HANDLE_LENGTH = 0.02

_COL = (
  'contype="1" conaffinity="1" condim="3" solref="0.01 1" solimp="0.99 0.99 0.01" friction="1 0.005 0.0001"'
)
_RING = f'type="capsule" size="0.019 0.015" {_COL} rgba="0.65 0.65 0.65 1"'


def nut_xml(pos=(0.1, 0.6, 0.02)) -> str:
  """The nut (body `RoundNut`, free joint `nutjoint`) at `pos`, in its model orientation."""
  x, y, z = pos
  return f"""
    <body name="RoundNut" pos="{x} {y} {z}" quat="1 0 0 1">
      <freejoint name="nutjoint"/>
      <inertial pos="0 -0.0327272727 0" quat="0.4999998544 0.4999857196 -0.5000001452 0.5000142804"
                mass="0.22" diaginertia="0.0011305494 0.0009179071 0.0002471446"/>
      <geom {_RING} euler="1.57 0 0" pos="0.048 0 0"/>
      <geom {_RING} euler="0 1.57 0" pos="0 0.048 0"/>
      <geom {_RING} euler="1.57 0.785 0.785" pos="0.036 0.036 0"/>
      <geom {_RING} euler="1.57 0 0" pos="-0.048 0 0"/>
      <geom {_RING} euler="0 1.57 0" pos="0 -0.048 0"/>
      <geom {_RING} euler="1.57 -0.785 -0.785" pos="-0.036 0.036 0"/>
      <geom {_RING} euler="1.57 0.785 0.785" pos="-0.036 -0.036 0"/>
      <geom {_RING} euler="1.57 -0.785 -0.785" pos="0.036 -0.036 0"/>
      <geom name="WrenchHandle" type="box" size="0.019 0.038 0.016" pos="0 -0.13 0" {_COL} rgba="0 0.5 0 1"/>
      <geom name="WrenchRod" type="capsule" size="0.012 0.038" euler="1.57 0 0" pos="0 -0.1 0" {_COL}
            rgba="0.65 0.65 0.65 1"/>
      <site name="RoundNut" pos="0 0 0" size="0.002" rgba="1 0 0 1"/>
      <site name="RoundNut-8" pos="0 -0.13 0" size="0.005" rgba="1 1 1 1"/>
    </body>"""


PEG_XML = """
    <body name="peg" mocap="true" pos="0.1 0.8 0.05">
      <geom name="pegGeom" type="capsule" size="0.02 0.03" contype="0" conaffinity="1"
            friction="1 0.005 0.0001" rgba="1 0.3 0.3 1"/>
      <site name="pegTop" pos="0 0 0.05" size="0.005" rgba="0 0.8 0 1"/>
    </body>"""

OBJECTS_XML = nut_xml() + PEG_XML

READS = ("tcp_center", "left_pad", "right_pad", "target_pos", "obj_init_pos", "init_tcp", "site:RoundNut")


def place_nut_and_peg(env, d, nut_pos, peg_pos):
  """The nut's free joint at `nut_pos` (its settled orientation kept, at rest) and the peg at `peg_pos`."""
  d = set_free_pos(env, d, "nutjoint", nut_pos)
  mocap = env.mj_model.body("peg").mocapid[0]
  return d.replace(mocap_pos=d.mocap_pos.at[mocap].set(peg_pos))


def settled_nut_z(env):
  return settled_qpos(env, "nutjoint")[2]


def objects(env, d):
  m = env.mj_model
  return d.site_xpos[m.site("RoundNut-8").id], d.xquat[m.body("RoundNut").id]


def reads(env, d, ctx):
  return {"site:RoundNut": d.site_xpos[env.mj_model.site("RoundNut").id]}


def reward_quat(obs):
  """max(1 - |quat - (0.707, 0, 0, 0.707)| / 0.4, 0): the nut lying flat as modelled."""
  err = jnp.linalg.norm(obs[..., 7:11] - jnp.asarray(IDEAL_QUAT), axis=-1)
  return jnp.maximum(1.0 - err / 0.4, 0.0)


def grab_reward(obs, action, reads, snap_within=WRENCH_HANDLE_LENGTH / 2, **density):
  """The caging reward on the handle obs[4:7], its x snapped to the hand's within `snap_within` (the
  reference's `wrench_threshed`; half the handle length): obj_radius 0.015, pad_success_thresh 0.02,
  object_reach_radius 0.01, xz_thresh 0.01; `density`: medium_density=True or high_density=True."""
  hand, wrench = obs[..., 0:3], obs[..., 4:7]
  snap = jnp.abs(wrench[..., 0] - hand[..., 0]) < snap_within
  threshed = wrench.at[..., 0].set(jnp.where(snap, hand[..., 0], wrench[..., 0]))
  return R.gripper_caging_reward(
    action,
    threshed,
    reads,
    obj_radius=0.015,
    pad_success_thresh=0.02,
    object_reach_radius=0.01,
    xz_thresh=0.01,
    **density,
  )


def valid(rand_vec):
  """Both nut tasks redraw while rand_vec[:2] and rand_vec[3:5] are within 0.1 m in xy."""
  return jnp.linalg.norm(rand_vec[:2] - rand_vec[3:5]) >= 0.1


def nut_task(name, place, reward, **ranges) -> Task:
  """A nut task: the nut and the peg, the Sawyer's usual hand bounds, the observation, reads and rejection
  rule above; `ranges`: hand_init_pos, goal_low, goal_high, rand_low, rand_high."""
  return Task(
    name=name,
    objects_xml=OBJECTS_XML,
    hand_low=(-0.5, 0.40, 0.05),
    hand_high=(0.5, 1.0, 0.5),
    place=place,
    objects=objects,
    reward=reward,
    reads=reads,
    valid=valid,
    **ranges,
  )


def nut_info(success, quat, grab, in_place, rew):
  """The nut tasks' info: near_object is the quaternion term, grasp_success grab >= 0.5, obj_to_target 0."""
  rew = jnp.asarray(rew, jnp.float32)
  return R.info(success, quat, grab >= 0.5, grab, in_place, jnp.zeros_like(rew), rew)


# -- the scripted controllers' shared part ----------------------------------------------------------------


def _rotate(q, v):
  """Vector v [3] rotated by the unit quaternion q [..., 4] ([w, x, y, z])."""
  w, u = q[..., :1], q[..., 1:]
  v = jnp.broadcast_to(jnp.asarray(v, q.dtype), u.shape)
  t = 2 * jnp.cross(u, v)
  return v + w * t + jnp.cross(u, t)


def ring_centre(obs):
  """The ring's centre from the observation: the handle's position minus the nut's handle offset turned
  by its quaternion."""
  return obs[..., 4:7] - _rotate(obs[..., 7:11], HANDLE_FROM_RING)


GRASP_IN = 0.012  # the grasp point: this far from the handle's centre towards the ring
HAND_ABOVE_HANDLE = 0.03  # the hand's height over the handle's centre when grasping (pads around it)


def grip_then(obs, carry):
  """Grasp the nut's handle, then follow `carry(obs, hand) -> hand target` once it is held.

  Memoryless phases read from the observation: not over the grasp point (xy error > 0.01) and not holding
  the nut: go there, the hand 0.08 m above the handle, open; over it: descend to HAND_ABOVE_HANDLE over the
  handle's centre (the mocap stops at 0.05: the lowest the hand goes), open; there: close; held (opening
  < 0.6 and the handle within 0.02 of where the grasp put it): `carry`, still closing."""
  hand, opening, handle = obs[..., 0:3], obs[..., 3:4], obs[..., 4:7]
  ring = ring_centre(obs)
  along = handle[..., :2] - ring[..., :2]
  along = along / jnp.maximum(jnp.linalg.norm(along, axis=-1, keepdims=True), 1e-6)
  grasp_xy = handle[..., :2] - GRASP_IN * along
  grasp = jnp.concatenate([grasp_xy, handle[..., 2:3] + HAND_ABOVE_HANDLE], -1)
  xy_err = jnp.linalg.norm(hand[..., :2] - grasp_xy, axis=-1, keepdims=True)
  held = (jnp.linalg.norm(hand - grasp, axis=-1, keepdims=True) < 0.02) & (opening < 0.6)
  above = grasp + jnp.array([0.0, 0.0, 0.05])
  at = (xy_err < 0.01) & (hand[..., 2:3] < jnp.maximum(grasp[..., 2:3], 0.05) + 0.008)
  to = jnp.where(held, carry(obs, hand), jnp.where(xy_err > 0.01, above, jnp.where(at, hand, grasp)))
  delta = move(hand, to, 25.0)
  grip = jnp.where(held | at, 1.0, -1.0)
  return jnp.concatenate([delta, grip], -1)
