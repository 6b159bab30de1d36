"""Placements, goal generators and the success test of the block world. Pure JAX.

A goal (and an achieved goal) is an array [MAX_OBJECTS, 7]: position (3) and quaternion (4, w first) per
object. Padded slots hold PAD = (0, 0, 0, 1, 0, 0, 0) on both sides, so they always count as reached.
"""

from __future__ import annotations

from mjx_envs.blocks.scene import BLOCK_HALF, MAX_OBJECTS, TABLE_HALF, TABLE_POS, TABLE_Z

import itertools

import jax
import jax.numpy as jnp
import numpy as np
from brax import math as bmath

# NumPy, not jnp: a module-level jnp array would start JAX's backend at import, before train.py can give
# the CPU backend one device per core.
PAD = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], np.float32)
CELL = 0.1  # placement grid: blocks in distinct cells, jittered, never overlap at any yaw
_JITTER = 0.5 * (CELL - 2 * np.sqrt(2) * BLOCK_HALF) - 1e-3


def _cube_group() -> np.ndarray:
  """The 24 proper rotations that map a cube onto itself: signed permutation matrices, det +1."""
  mats = []
  for perm in itertools.permutations(range(3)):
    for signs in itertools.product([1, -1], repeat=3):
      m = np.zeros((3, 3))
      for r, (c, s) in enumerate(zip(perm, signs)):
        m[r, c] = s
      if np.isclose(np.linalg.det(m), 1.0):
        mats.append(m)
  return np.stack(mats)


CUBE_GROUP = np.asarray(_cube_group(), np.float32)  # [24, 3, 3]


def placement_area(table_portion: float):
  """(low [2], high [2]) of the xy placement area, centred on the table (SPEC section 1)."""
  span = np.array([0.5 * 2 * TABLE_HALF[0], 0.38 * 2 * TABLE_HALF[1]]) * table_portion
  centre = TABLE_POS[:2]
  return centre - span / 2, centre + span / 2


def grid_shape(table_portion: float):
  low, high = placement_area(table_portion)
  nx, ny = np.floor((high - low) / CELL).astype(int)
  return int(nx), int(ny)


def sample_cells(key, num: int, table_portion: float) -> jax.Array:
  """`num` distinct jittered cell centres [num, 2] in the placement area (non-overlapping blocks)."""
  nx, ny = grid_shape(table_portion)
  low, high = placement_area(table_portion)
  k1, k2 = jax.random.split(key)
  cells = jax.random.choice(k1, nx * ny, (num,), replace=False)
  ix, iy = cells // ny, cells % ny
  # Centre the grid inside the area.
  origin = jnp.asarray(low) + 0.5 * (jnp.asarray(high - low) - jnp.array([nx, ny]) * CELL)
  centres = origin + (jnp.stack([ix, iy], -1) + 0.5) * CELL
  return centres + jax.random.uniform(k2, (num, 2), minval=-_JITTER, maxval=_JITTER)


def yaw_quat(yaw: jax.Array) -> jax.Array:
  """[..., 4] quaternion of a rotation by `yaw` about +z."""
  return jnp.stack([jnp.cos(yaw / 2), jnp.zeros_like(yaw), jnp.zeros_like(yaw), jnp.sin(yaw / 2)], -1)


def on_table(xy: jax.Array, quat: jax.Array, z_extra: jax.Array | float = 0.0) -> jax.Array:
  """[n, 7] poses resting on the table top (plus `z_extra`)."""
  z = jnp.full(xy.shape[:-1] + (1,), TABLE_Z + BLOCK_HALF) + jnp.asarray(z_extra)[..., None]
  return jnp.concatenate([xy, z, quat], -1)


def pad(poses: jax.Array) -> jax.Array:
  """[n, 7] -> [MAX_OBJECTS, 7] with PAD rows."""
  n = poses.shape[0]
  return jnp.concatenate([poses, jnp.tile(PAD, (MAX_OBJECTS - n, 1))], 0)


# Rotations that turn each labelled face up, and that face's outward normal in the block's frame (the
# body vector they map to +z). The five turns come first, the identity last, so that a block resting
# upright draws the same goals as it did when only the turns were drawn.
_FACE_TURNS = np.array(
  [  # (w, x, y, z)
    [np.cos(np.pi / 4), np.sin(np.pi / 4), 0, 0],
    [np.cos(np.pi / 4), -np.sin(np.pi / 4), 0, 0],
    [np.cos(np.pi / 4), 0, np.sin(np.pi / 4), 0],
    [np.cos(np.pi / 4), 0, -np.sin(np.pi / 4), 0],
    [0, 1, 0, 0],
    [1, 0, 0, 0],
  ],
  np.float32,
)  # [6, 4]
_FACE_NORMALS = np.array(
  [[0, 1, 0], [0, -1, 0], [-1, 0, 0], [1, 0, 0], [0, 0, -1], [0, 0, 1]], np.float32
)  # [6, 3]: +y, -y, -x, +x, -z, +z


def _up_in_body(quat: jax.Array) -> jax.Array:
  """[..., 3] world +z in the block's frame, for quaternions [..., 4] (R^T e_z: row 2 of R)."""
  return _quat_to_mat(quat)[..., 2, :]


def up_face(quat: jax.Array) -> jax.Array:
  """[...] int: index into _FACE_NORMALS of the face closest to pointing up, for quaternions [..., 4]."""
  return jnp.argmax(_up_in_body(quat) @ jnp.asarray(_FACE_NORMALS).T, -1)


def _other_face_up(key, quat: jax.Array) -> jax.Array:
  """[n, 4] a turn per block that puts a face up other than the one up now (quat [n, 4]), uniformly
  among the five others; to be composed as yaw * turn. Relative to the current pose, not to the
  upright one: after a flip the block already shows another face, and that face must not come again."""
  n = quat.shape[0]
  new = (up_face(quat) + 1 + jax.random.randint(key, (n,), 0, 5)) % 6
  return jnp.asarray(_FACE_TURNS)[new]


def rest(poses: jax.Array) -> jax.Array:
  """[n, 7] the poses [n, 7] set down on the table: same xy, rest height, and the tilt removed by the
  smallest rotation that turns the face closest to up exactly up (same face up, same heading).

  A block resting on the table keeps its pose (z to the nominal rest height); one in the air (held, or
  left lifted by a previous goal) gets the resting pose straight below it, reachable by setting it down.
  """
  r = _quat_to_mat(poses[:, 3:])  # [n, 3, 3]; columns: the block's axes in the world
  k = jnp.argmax(jnp.abs(r[:, 2, :]), -1)
  up = jnp.take_along_axis(r, k[:, None, None], 2)[..., 0]  # [n, 3] that axis in the world
  up = up * jnp.sign(up[:, 2:3])
  # Shortest arc from `up` to +z: (1 + up.z, up x z), normalised; up.z >= 1/sqrt(3), so never singular.
  align = jnp.stack([1 + up[:, 2], up[:, 1], -up[:, 0], jnp.zeros_like(up[:, 0])], -1)
  align = align / jnp.linalg.norm(align, axis=-1, keepdims=True)
  return on_table(poses[:, :2], jax.vmap(bmath.quat_mul)(align, poses[:, 3:]))


def make_goal(key, task: str, start: jax.Array, num_objects: int, table_portion: float) -> jax.Array:
  """Goal poses [num_objects, 7] for holdout `task`, given the blocks' current poses `start`
  [num_objects, 7] (at reset, or where a previous goal left them in holdout evaluation).

    push            every block resting on the table at a new cell, random yaw.
    flip            every block resting on the table at its current xy, random yaw, with a face up that
                    differs from the one up now (so every goal needs a flip, also after a previous one).
    pick_and_place  one random block lifted 0.05-0.25 m above a new cell, random yaw; the others resting
                    where they are (`rest`), so a block left in the air by a previous goal comes down and
                    at most one block is ever in the air.
    stack           a tower of all blocks on one new cell, random order and yaws.

  Goal cells are drawn distinct from the start cells, so placing one block never lands on another.
  """
  n = num_objects
  k_cells, k_yaw, k_pick, k_h, k_face = jax.random.split(key, 5)
  yaw = jax.random.uniform(k_yaw, (n,), minval=-np.pi, maxval=np.pi)
  if task == "push":
    return on_table(_goal_cells(k_cells, start, n, table_portion), yaw_quat(yaw))
  if task == "flip":
    quat = jax.vmap(bmath.quat_mul)(yaw_quat(yaw), _other_face_up(k_face, start[:, 3:7]))
    return on_table(start[:, :2], quat)
  if task == "pick_and_place":
    which = jax.random.randint(k_pick, (), 0, n)
    lift = jax.random.uniform(k_h, (), minval=0.05, maxval=0.25)
    xy = _goal_cells(k_cells, start, n, table_portion)
    lifted = on_table(xy, yaw_quat(yaw), z_extra=lift)
    return jnp.where((jnp.arange(n) == which)[:, None], lifted, rest(start[:, :7]))
  if task == "stack":
    xy = _goal_cells(k_cells, start, 1, table_portion)
    order = jax.random.permutation(k_pick, n)  # order[i] = which block sits at level i
    level = jnp.argsort(order)
    z_extra = 2 * BLOCK_HALF * level
    return on_table(jnp.broadcast_to(xy, (n, 2)), yaw_quat(yaw), z_extra=z_extra)
  raise ValueError(f"unknown task {task!r}")


def _goal_cells(key, start, n, table_portion):
  """Distinct cells, none within one cell of a start position."""
  cand = sample_cells(
    key, min(grid_shape(table_portion)[0] * grid_shape(table_portion)[1], 3 * n + 8), table_portion
  )
  far = jnp.all(jnp.linalg.norm(cand[:, None, :] - start[None, :, :2], axis=-1) > 0.09, axis=1)
  # Stable order: free candidates first (argsort of ~far keeps their original random order).
  idx = jnp.argsort(~far, stable=True)[:n]
  return cand[idx]


def rotation_distance(q1: jax.Array, q2: jax.Array, symmetric: bool) -> jax.Array:
  """Minimal rotation angle [...] between quaternions [..., 4]; modulo the cube group if symmetric."""
  r1 = _quat_to_mat(q1)
  r2 = _quat_to_mat(q2)
  rel = jnp.einsum("...ji,...jk->...ik", r1, r2)  # R1^T R2
  if symmetric:
    traces = jnp.einsum("...ij,gji->...g", rel, CUBE_GROUP)  # trace(rel @ S) for each S
    trace = jnp.max(traces, -1)
  else:
    trace = jnp.trace(rel, axis1=-2, axis2=-1)
  return jnp.arccos(jnp.clip((trace - 1.0) / 2.0, -1.0, 1.0))


def _quat_to_mat(q):
  q = q / jnp.maximum(jnp.linalg.norm(q, axis=-1, keepdims=True), 1e-9)
  return jnp.vectorize(bmath.quat_to_3x3, signature="(4)->(3,3)")(q)


def object_success(
  achieved: jax.Array, desired: jax.Array, pos_threshold: float, rot_threshold: float, symmetric: bool
) -> jax.Array:
  """[..., MAX_OBJECTS] bool: each object within `pos_threshold` m and `rot_threshold` rad."""
  dpos = jnp.linalg.norm(achieved[..., :3] - desired[..., :3], axis=-1)
  drot = rotation_distance(achieved[..., 3:], desired[..., 3:], symmetric)
  return (dpos < pos_threshold) & (drot < rot_threshold)
