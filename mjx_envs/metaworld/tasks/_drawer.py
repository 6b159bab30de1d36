"""The Meta-World drawer (metaworld 3.1.1 `objects/assets/drawer.xml` inside `sawyer_xyz/sawyer_drawer.xml`),
shared by drawer-open-v3 and drawer-close-v3: one model, two tasks.

Reference facts kept:
- Body tree: `drawer` (the furniture the reference moves through `model.body("drawer").pos`; here a mocap
  body placed per world through `data.mocap_pos`) > `drawercase_link` at (0, 0, 0.084) > `drawer_link` at
  (0, -0.01, 0.006) with the slide joint `goal_slidey` (axis y, range [-0.16, 0], damping 2, armature
  0.001; 0 = closed, negative = pulled out towards the robot).
- Collision geoms (the reference's group-4 `drawer_col` class: condim 3, solimp 0.99 0.99 0.01, solref
  0.01 1, default friction 1 0.005 0.0001): the case's five boxes and the drawer's five boxes at the
  reference's positions and half-sizes; the handle's three capsules (radius 0.009: two posts along y at
  x = +-0.05, y = -0.12 with half-length 0.03, the bar along x at y = -0.15 with half-length 0.05).
- drawer_link's inertia as the reference compiles it (`inertiafromgeom` over its group-4 geoms' masses:
  0.38 kg, centre (0, -0.06158, -0.00211), principal moments and frame below). The case's mass is
  irrelevant: it is fixed (mocap).
- The reference's `get_body_com("drawer_link")` is gymnasium's `data.body(...).xpos` (the body frame,
  not its centre of mass): the observation's handle point is drawer_link's frame origin plus an offset.

Deliberate differences:
- No meshes: the reference's visual meshes (case, drawer, handle) are replaced by the collision geoms
  made visible; `objGeom` (the handle mesh, read by no reward) is a visual-only box at the handle.
- Contacts between the drawer's parts are filtered out (contype 2, conaffinity 1 on every drawer geom:
  each still collides with the hand's pads and claws, contype = conaffinity = 1, but not with the other
  drawer geoms): with the reference's clearances (>= 2 mm on every side) and one slide degree of
  freedom the case and the drawer never touch, so this only removes their box-box pairs from MJX's
  collision step.
"""

from __future__ import annotations

from mjx_envs.metaworld.tasks.push import move  # noqa: F401  (the drawer controllers' step)

DRAWER_CASE_POS = (0.0, 0.0, 0.084)
DRAWER_LINK_POS = (0.0, -0.01, 0.006)
# drawer_link frame relative to the drawer body at joint position 0
LINK_OFFSET = tuple(a + b for a, b in zip(DRAWER_CASE_POS, DRAWER_LINK_POS))

_COL = (
  'contype="2" conaffinity="1" condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" friction="1 0.005 0.0001"'
)

DRAWER_XML = f"""
    <body name="drawer" mocap="true" pos="0 0.9 0">
      <body name="drawercase_link" pos="{DRAWER_CASE_POS[0]} {DRAWER_CASE_POS[1]} {DRAWER_CASE_POS[2]}">
        <geom type="box" pos="-0.11 0 0" size="0.008 0.1 0.084" {_COL} rgba="0.4 0.65 0.4 1"/>
        <geom type="box" pos="0.11 0 0" size="0.008 0.1 0.084" {_COL} rgba="0.4 0.65 0.4 1"/>
        <geom type="box" pos="0 0.092 -0.008" size="0.102 0.008 0.076" {_COL} rgba="0.4 0.65 0.4 1"/>
        <geom type="box" pos="0 -0.008 -0.07" size="0.102 0.092 0.014" {_COL} rgba="0.4 0.65 0.4 1"/>
        <geom type="box" pos="0 0 0.076" size="0.102 0.1 0.008" {_COL} rgba="0.4 0.65 0.4 1"/>
        <body name="drawer_link" pos="{DRAWER_LINK_POS[0]} {DRAWER_LINK_POS[1]} {DRAWER_LINK_POS[2]}">
          <joint name="goal_slidey" type="slide" axis="0 1 0" range="-0.16 0" limited="true" damping="2"
                 armature="0.001"/>
          <inertial pos="0 -0.0615789474 -0.0021052632" mass="0.38"
                    quat="0.5055068688 0.4944107168 -0.4944313328 0.5055279475"
                    diaginertia="0.0039295264 0.0027495894 0.0017083904"/>
          <geom name="objGeom" type="box" pos="0 -0.128 0" size="0.06 0.03 0.01" contype="0" conaffinity="0"
                group="1" rgba="0 0 0 0"/>
          <geom type="box" pos="0 -0.082 0.008" size="0.1 0.008 0.052" {_COL} rgba="0.19 0.38 0.2 1"/>
          <geom type="box" pos="0 0.082 0.008" size="0.1 0.008 0.052" {_COL} rgba="0.19 0.38 0.2 1"/>
          <geom type="box" pos="-0.092 0 0.008" size="0.008 0.074 0.052" {_COL} rgba="0.19 0.38 0.2 1"/>
          <geom type="box" pos="0.092 0 0.008" size="0.008 0.074 0.052" {_COL} rgba="0.19 0.38 0.2 1"/>
          <geom type="box" pos="0 0 -0.052" size="0.1 0.09 0.008" {_COL} rgba="0.19 0.38 0.2 1"/>
          <geom type="capsule" euler="1.571 0 0" pos="-0.05 -0.12 0" size="0.009 0.03" {_COL}
                rgba="0.75 0.75 0.75 1"/>
          <geom type="capsule" euler="0 1.57 0" pos="0 -0.15 0" size="0.009 0.05" {_COL}
                rgba="0.75 0.75 0.75 1"/>
          <geom type="capsule" euler="1.57 0 0" pos="0.05 -0.12 0" size="0.009 0.03" {_COL}
                rgba="0.75 0.75 0.75 1"/>
        </body>
      </body>
    </body>"""


def place_drawer(env, d, drawer_pos, slide: float = 0.0):
  """Puts the drawer body at `drawer_pos` [3] (its mocap) and its slide joint at `slide`, at rest."""
  m = env.mj_model
  mocap = int(m.body("drawer").mocapid[0])
  j = m.joint("goal_slidey")
  a, v = int(j.qposadr[0]), int(j.dofadr[0])
  return d.replace(
    mocap_pos=d.mocap_pos.at[mocap].set(drawer_pos), qpos=d.qpos.at[a].set(slide), qvel=d.qvel.at[v].set(0.0)
  )


def link_xpos(env, d):
  """drawer_link's frame origin in the world [3] (the reference's `get_body_com("drawer_link")`)."""
  return d.xpos[env.mj_model.body("drawer_link").id]


def link_xquat(env, d):
  """drawer_link's orientation [w, x, y, z] (the reference's `data.body("drawer_link").xquat`)."""
  return d.xquat[env.mj_model.body("drawer_link").id]
