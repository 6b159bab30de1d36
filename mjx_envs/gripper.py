"""A parallel-jaw gripper driven through a mocap weld, shared by the Fetch tasks and the block world.

The gripper is a free body with gravity compensation, welded to a mocap body; moving the mocap target
drags it through the (soft) weld constraint, as in robogym and gymnasium-robotics. Two fingers slide
along the gripper's y axis under position servos. Collision geoms are primitives (boxes) only.

Frame: the fingers hang below the palm along -z; `tcp` is the point between the fingertip pads.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from brax import math as bmath
from mujoco import mjx

FINGER_HALF = (0.008, 0.007, 0.03)  # x (depth), y (thickness), z (length)
PALM_HALF = (0.02, 0.065, 0.012)
MAX_OPENING = 0.05  # each finger's inner face, metres from the centre line


def worldbody_xml(pos, friction: float = 1.5, kp: float = 300.0, condim: int = 4) -> str:
  """MJCF for the mocap body and the gripper body, placed at `pos` (tcp position).

  `condim` is the fingers' contact dimensionality (4: sliding + torsional friction; 3: sliding only).
  """
  fx, fy, fz = FINGER_HALF
  px, py, pz = PALM_HALF
  x, y, z = pos
  palm_z = 2 * fz + pz  # palm sits on top of the fingers; tcp is at the fingertips (z = 0)
  del kp
  return f"""
    <body name="mocap" mocap="true" pos="{x} {y} {z}"/>
    <body name="gripper" pos="{x} {y} {z}" gravcomp="1">
      <freejoint name="gripper_free"/>
      <inertial pos="0 0 {palm_z}" mass="0.5" diaginertia="0.002 0.002 0.002"/>
      <geom name="palm" type="box" size="{px} {py} {pz}" pos="0 0 {palm_z}" rgba="0.3 0.3 0.35 1"
            contype="2" conaffinity="0"/>
      <site name="tcp" pos="0 0 0" size="0.005" rgba="1 0 0 0.5" group="3"/>
      <body name="finger_l" pos="0 {fy} {fz}" gravcomp="1">
        <joint name="finger_l" type="slide" axis="0 1 0" range="0 {MAX_OPENING}" damping="2"
               armature="0.05"/>
        <geom name="finger_l" type="box" size="{fx} {fy} {fz}" mass="0.1" friction="{friction} 0.01 0.001"
              rgba="0.2 0.2 0.2 1" contype="2" conaffinity="1" condim="{condim}"/>
      </body>
      <body name="finger_r" pos="0 {-fy} {fz}" gravcomp="1">
        <joint name="finger_r" type="slide" axis="0 -1 0" range="0 {MAX_OPENING}" damping="2"
               armature="0.05"/>
        <geom name="finger_r" type="box" size="{fx} {fy} {fz}" mass="0.1" friction="{friction} 0.01 0.001"
              rgba="0.2 0.2 0.2 1" contype="2" conaffinity="1" condim="{condim}"/>
      </body>
    </body>"""


def _box_corners(half, centre) -> np.ndarray:
  """[8, 3] corners of a box."""
  signs = np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1], indexing="ij")).reshape(3, -1).T
  return np.asarray(centre) + signs * np.asarray(half)


# Gripper-frame corners of the collision boxes: the left finger at opening 0 (the right one mirrors it in
# y; opening moves both outwards), and the palm.
_FINGER_CORNERS = _box_corners(FINGER_HALF, (0.0, FINGER_HALF[1], FINGER_HALF[2]))
_PALM_CORNERS = _box_corners(PALM_HALF, (0.0, 0.0, 2 * FINGER_HALF[2] + PALM_HALF[2]))


def lowest_point(quat: jax.Array, opening: jax.Array) -> jax.Array:
  """[] height of the gripper's lowest point (a corner of a finger or the palm) relative to the tcp, for
  orientation `quat` [4] (w, x, y, z) and both fingers `opening` metres open; <= 0."""
  side = np.repeat([1.0, -1.0], 8)
  fingers = jnp.stack(
    [
      np.tile(_FINGER_CORNERS[:, 0], 2),
      side * (np.tile(_FINGER_CORNERS[:, 1], 2) + opening),
      np.tile(_FINGER_CORNERS[:, 2], 2),
    ],
    -1,
  )  # [16, 3]
  points = jnp.concatenate([fingers, _PALM_CORNERS], 0)  # [24, 3]
  return jnp.min(jax.vmap(bmath.rotate, (0, None))(points, quat)[:, 2])


def actuator_xml(kp: float = 300.0) -> str:
  return f"""
    <position name="finger_l" joint="finger_l" kp="{kp}" kv="10" ctrlrange="0 {MAX_OPENING}"/>
    <position name="finger_r" joint="finger_r" kp="{kp}" kv="10" ctrlrange="0 {MAX_OPENING}"/>"""


def equality_xml() -> str:
  # Stiff enough to follow the target within one 0.04 s control step, soft enough to stay stable.
  return '<weld body1="mocap" body2="gripper" solref="0.01 1" solimp="0.95 0.99 0.001"/>'


def contact_xml() -> str:
  return '<exclude body1="finger_l" body2="finger_r"/>'


@dataclasses.dataclass(frozen=True)
class Gripper:
  """Addresses of the gripper in a compiled model."""

  free_qpos: int  # start of the free joint's 7 qpos
  free_qvel: int  # start of its 6 qvel
  finger_qpos: tuple  # (left, right) qpos addresses
  finger_qvel: tuple
  tcp_site: int
  mocap: int  # mocap index (into data.mocap_pos)

  @classmethod
  def from_model(cls, m: mujoco.MjModel) -> Gripper:
    jf = m.joint("gripper_free")
    jl, jr = m.joint("finger_l"), m.joint("finger_r")
    return cls(
      free_qpos=int(jf.qposadr[0]),
      free_qvel=int(jf.dofadr[0]),
      finger_qpos=(int(jl.qposadr[0]), int(jr.qposadr[0])),
      finger_qvel=(int(jl.dofadr[0]), int(jr.dofadr[0])),
      tcp_site=m.site("tcp").id,
      mocap=int(m.body("mocap").mocapid[0]),
    )

  def tcp_pos(self, d: mjx.Data) -> jax.Array:
    """[3] fingertip-centre position."""
    return d.site_xpos[self.tcp_site]

  def tcp_xmat(self, d: mjx.Data) -> jax.Array:
    return d.site_xmat[self.tcp_site]

  def tcp_vel(self, d: mjx.Data) -> jax.Array:
    """[3] linear velocity of the gripper body (free joint's translational dofs)."""
    return d.qvel[self.free_qvel : self.free_qvel + 3]

  def fingers(self, d: mjx.Data) -> jax.Array:
    """[2] finger openings (metres from the centre line)."""
    return d.qpos[jnp.array(self.finger_qpos)]

  def finger_vel(self, d: mjx.Data) -> jax.Array:
    return d.qvel[jnp.array(self.finger_qvel)]

  def set_pose(self, qpos: jax.Array, pos: jax.Array, quat: jax.Array) -> jax.Array:
    """Places the gripper's free joint (tcp at `pos`) in a qpos vector."""
    return qpos.at[self.free_qpos : self.free_qpos + 7].set(jnp.concatenate([pos, quat]))
