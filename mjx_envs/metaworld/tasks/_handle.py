"""The Meta-World handle-press box (metaworld 3.1.1 `objects/assets/handle_press.xml` inside
`sawyer_xyz/sawyer_handle_press.xml` and `sawyer_handle_press_sideways.xml`), shared by handle-press-v3,
handle-press-side-v3, handle-pull-v3 and handle-pull-side-v3: one box, facing the robot (the box body not
rotated) or turned 1.57 about z (the side tasks; the handle then points along world +x).

Reference facts kept (box frame):
- The box (body `box`, the reference moves it through `model.body("box").pos`) with the sites `goalPress`
  (0, -0.216, 0.075) and `goalPull` (0, -0.216, 0.172); `handle_link` at (0, -0.05, 0.15) with a slide
  joint along z (range [-0.1, 0], damping 30, armature 0.001; 0 up, -0.1 down), its lever a box (0, -0.081,
  0) half (0.032, 0.075, 0.011) and its grip a cylinder along x at (0, -0.166, 0), radius 0.022, half-length
  0.07, each of mass 0.001; the sites `handleStart` (0, -0.166, 0.022), `handleRight` (0.05, -0.166, 0.014)
  and `handleCenter` (0, -0.12, 0) on the handle.
- Every collision geom of the box and the handle has the reference's `hdlprs_col` class: contype 0,
  conaffinity 1 (touched by the hand only; the handle never meets the box), condim 3, solimp 0.99 0.99
  0.01, solref 0.01 1.

Deliberate differences:
- The box is a mocap body placed through `data.mocap_pos`.
- The base's three collision meshes are boxes: each mesh's axis-aligned bounds in the box frame (the
  meshes are box-like: convex-hull volumes 93%, 93% and 98% of those boxes; the bounds' tops are the
  meshes' highest points, 0.22 m, where the meshes round off to 0.183 m at the front edge). The hand meets
  them only if it strays behind the handle.
- The grip's cylinder is a capsule along x of the cylinder's radius, spanning its length (half-length
  0.048 + radius 0.022): MJX has no box-cylinder collision and the pads are boxes.
- No meshes: the collision geoms are drawn.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

_COL = 'contype="0" conaffinity="1" condim="3" solimp="0.99 0.99 0.01" solref="0.01 1"'
HANDLE_LINK = (0.0, -0.05, 0.15)
SITES = {
  "goalPress": (0.0, -0.216, 0.075),
  "goalPull": (0.0, -0.216, 0.172),
  "handleStart": (0.0, -0.166, 0.022),  # on handle_link
  "handleRight": (0.05, -0.166, 0.014),
  "handleCenter": (0.0, -0.12, 0.0),
}


def box_xml(euler_z: float) -> str:
  euler = f' euler="0 0 {euler_z}"' if euler_z else ""
  s = SITES
  f = lambda k: " ".join(str(v) for v in s[k])
  return f"""
    <body name="box" mocap="true" pos="0 0.88 0"{euler}>
      <geom type="box" pos="0.0603 0 0.1098" size="0.026 0.11 0.1099" {_COL} rgba="0.55 0.55 0.55 1"/>
      <geom type="box" pos="-0.0607 0 0.1098" size="0.026 0.11 0.1099" {_COL} rgba="0.55 0.55 0.55 1"/>
      <geom type="box" pos="-0.0002 0.0277 0.1099" size="0.0349 0.0823 0.1099" {_COL} rgba="0.55 0.55 0.55 1"/>
      <geom type="box" pos="0 -0.082 0.014" size="0.035 0.028 0.014" {_COL} rgba="0.15 0.15 0.15 1"/>
      <site name="goalPress" pos="{f("goalPress")}" size="0.005" rgba="1 1 1 1"/>
      <site name="goalPull" pos="{f("goalPull")}" size="0.005" rgba="0 0 0 1"/>
      <body name="handle_link" pos="0 -0.05 0.15">
        <joint name="handle_joint" type="slide" axis="0 0 1" range="-0.1 0" limited="true" damping="30"
               armature="0.001"/>
        <geom name="lever" type="box" pos="0 -0.081 0" size="0.032 0.075 0.011" mass="0.001" {_COL}
              rgba="0.15 0.15 0.15 1"/>
        <geom name="grip" type="capsule" euler="0 1.57 0" pos="0 -0.166 0" size="0.022 0.048" mass="0.001"
              {_COL} rgba="0.5 0 0 1"/>
        <site name="handleStart" pos="{f("handleStart")}" size="0.005" rgba="0.8 0 0 1"/>
        <site name="handleRight" pos="{f("handleRight")}" size="0.005" rgba="0 0.8 0 1"/>
        <site name="handleCenter" pos="{f("handleCenter")}" size="0.01" rgba="0 0.8 0 1"/>
      </body>
    </body>"""


def _rot(euler_z: float, v) -> np.ndarray:
  c, s = np.cos(euler_z), np.sin(euler_z)
  return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1], v[2]], np.float32)


def site_offset(euler_z: float, site: str, q: float = 0.0) -> np.ndarray:
  """World offset from the box body of site `site` with the handle at joint position q."""
  v = np.array(SITES[site], np.float64)
  if site.startswith("handle"):
    v = v + np.array(HANDLE_LINK) + np.array([0.0, 0.0, q])
  return _rot(euler_z, v)


def place_box(env, d, rand_vec, q: float):
  """The box at rand_vec, the handle at joint position q at rest."""
  m = env.mj_model
  j = m.joint("handle_joint")
  a, v = int(j.qposadr[0]), int(j.dofadr[0])
  d = d.replace(
    mocap_pos=d.mocap_pos.at[int(m.body("box").mocapid[0])].set(rand_vec),
    qpos=d.qpos.at[a].set(q),
    qvel=d.qvel.at[v].set(0.0),
  )
  return d


def site_objects(site: str):
  """objects(env, d): (site `site`'s position, zeros(4): the reference's quaternion)."""

  def objects(env, d):
    return d.site_xpos[env.mj_model.site(site).id], jnp.zeros((4,), jnp.float32)

  return objects


def site_reads(site: str):
  """reads(env, d, ctx): {"site:<site>": its live position}."""

  def reads(env, d, ctx):
    del ctx
    return {f"site:{site}": d.site_xpos[env.mj_model.site(site).id]}

  return reads


def move_tcp(hand, want_tcp, grip, gain: float = 25.0, limit=1.0):
  """The action that moves the tcp (4.5 cm below the hand) towards want_tcp, with gripper effort grip."""
  tcp = hand - jnp.array([0.0, 0.0, 0.045])
  move = jnp.clip((want_tcp - tcp) * gain, -limit, limit)
  return jnp.concatenate([move, jnp.broadcast_to(grip, move.shape[:-1] + (1,))], -1)


def grasp_lift(obs, point, lift_to, depth: float = 0.02, closed: float = 0.8):
  """Clamp the handle at `point` [..., 3] between the pads (which close along y) and lift it until the
  point is at `lift_to` [...]: the gripper open, the tcp over the point, down to `depth` below it, close;
  once the opening (obs[3]) is below `closed` with the tcp there, lift slowly (the handle's damping)."""
  hand = obs[..., 0:3]
  tcp = hand - jnp.array([0.0, 0.0, 0.045])
  at_xy = jnp.linalg.norm(tcp[..., :2] - point[..., :2], axis=-1) < 0.012
  low = at_xy & (tcp[..., 2] < point[..., 2] - depth + 0.01)
  held = low & (obs[..., 3] < closed)
  z = jnp.where(
    held,
    lift_to - depth + 0.03,
    jnp.where(at_xy, point[..., 2] - depth, jnp.maximum(point[..., 2] + 0.05, tcp[..., 2])),
  )
  want = jnp.concatenate([point[..., :2], z[..., None]], -1)
  grip = jnp.where(low, 1.0, -1.0)[..., None]
  return move_tcp(hand, want, grip, limit=jnp.where(held, 0.4, 1.0)[..., None])
