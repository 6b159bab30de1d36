"""MJCF of the tabletop block world (robogym's rearrange scene, SPEC section 1), built for MJX.

The table top collides as a plane (cheap in MJX); its finite extent is enforced by the off-table test,
not by the physics. Blocks are boxes; the gripper is `mjx_envs.gripper`. Only the geom pairs that can
touch are enabled (contype/conaffinity bits), since MJX evaluates every candidate pair every step:
  bit 1: blocks and the table; bit 2: the fingers (which collide with blocks and the table).

Physics cost (2026-11-23; BENCHMARKS.md, "Physics settings of the block world and Fetch (quiet machine,
2026-11-23)"). Every physics setting is an env config key: `sim_dt`, `n_substeps`, `iterations`,
`ls_iterations`, `cone`, `condim` (blocks and fingers) and `impl` ("jax" or "warp"). Defaults: 0.008 s x 5,
pyramidal, jax, and since 2026-11-23 condim 3 (no torsional friction) with Newton iterations 3 (5 since
2026-11-24, below) / ls_iterations 4; the old physics (condim 4, 4 / 6) is one override away:
`make("BlocksPush", condim=4, iterations=4, ls_iterations=6)`. Why: the solve is most of the step's cost,
condim 3 cuts the constraint rows 168 -> 120 for the same 28 contacts (BlocksPush-1), and fewer iterations
shorten the solve. The guard is the scripted experts (benchmarks/scripted_success.py, 100 episodes):
iterations 2 / ls 4 drops BlocksPickAndPlace-1 to 0.86 (condim 4) or 0.80 (condim 3), below its 0.90 bar;
condim 3 alone, iterations 3 / ls 4 alone, 3 / 6 alone, and condim 3 with 3 / 4 all keep PickAndPlace-1,
Push-1 and Stack-2 at 1.00. The adopted setting is the cheapest of those; measured side by side against the
old one (BlocksPush-1, loaded 2-core CPU, BENCHMARKS.md): 1.51x at batch 64 (1,037 -> 1,567 control steps/s),
1.21x at batch 256 (687 -> 833). sim_dt 0.01 x 4 gave no gain (0.94x) and would soften the 0.01 s weld, which
MuJoCo clamps to 2 x timestep.

Grasp hold (config `impratio`, default 3 since 2026-11-23). With pyramidal cones and impratio 1 a held block
slid down the pads 10.7-11.1 mm in 4 s (a block grasped at yaw 0, 17 and 45 degrees, lifted 0.1 m). Measured
alternatives: elliptic cones 3.7-4.3 mm, but 0.57x the control steps/s (BlocksPush-1, batch 64); impratio 3
(pyramidal) 3.7-4.3 mm at no measurable cost, and all grasps held; impratio 5 and 10 (pyramidal) 1.8-3.1 mm
for straight grasps but dropped the 17-degree one; elliptic with impratio 10 blew up. Default since
2026-11-23: pyramidal, impratio 3; a resting two-block tower stays within 2 mm (tests/mjx_envs).

Solver iterations (BENCHMARKS.md, "Solver iterations against the pinch divergences"). impratio 3 made the
solver's 3 Newton iterations too few where the fingers pinch a block: the block squirts out past the
divergence guard (100 rad/s), which ends a self-play game. benchmarks/divergence_probe.py (1-block BlocksPush,
256 envs x 150 steps of extreme binned actions, seeds 0-2) counts the episodes that diverged: impratio 1 with
3 iterations 2 of 768; impratio 3 with 3 iterations 45 (ls_iterations 6: 45; condim 4: 41; sim_dt 0.004 x 10:
24), 4 iterations 11 (ls 4 or 6 alike), 5 iterations 3. Iterations cost nothing measurable under random
actions (the solve stops when it converges): 5 vs 3 gave 0.98x at batch 64 and 1.03x at batch 256
(BlocksPush-1). Default since 2026-11-24: iterations 5, ls_iterations 4; the held block's creep is unchanged
by it (3.7 / 4.2 mm in the hold test).
"""

from __future__ import annotations

from mjx_envs import gripper
from mjx_envs.core import camera_xml

import numpy as np

TABLE_POS = np.array([1.4508, 0.773, 0.453])
TABLE_HALF = np.array([0.6075, 0.7655, 0.0332])
TABLE_Z = float(TABLE_POS[2] + TABLE_HALF[2])  # top surface, 0.4862 m
BLOCK_HALF = 0.0254
MAX_OBJECTS = 8
COLORS = [
  (0.85, 0.1, 0.1),
  (0.1, 0.6, 0.15),
  (0.15, 0.3, 0.9),
  (0.95, 0.8, 0.1),
  (0.6, 0.2, 0.8),
  (0.1, 0.75, 0.8),
  (0.95, 0.5, 0.1),
  (0.55, 0.35, 0.2),
]
# Face labels for the flip task: +x, -x, +y, -y, +z, -z faces get these shades (visual only).
FACE_COLORS = [(1, 1, 1), (0, 0, 0), (1, 0.4, 0.7), (0.4, 1, 0.4), (1, 1, 0.3), (0.3, 0.3, 1)]


# The default camera of `mjx_envs.render`: the placement area from the far side of the table.
CAMERA_EYE = (2.1, 0.3, 1.3)
CAMERA_TARGET = (1.4, 0.77, 0.5)


def face_markers(h: float = BLOCK_HALF):
  """The six face labels of a block of half-size `h`: (pos [3], box half-size [3], rgb), block frame."""
  t, s = 0.001, 0.6 * h
  out = []
  for k, (axis, sign) in enumerate([(0, 1), (0, -1), (1, 1), (1, -1), (2, 1), (2, -1)]):
    pos = [0.0, 0.0, 0.0]
    pos[axis] = sign * (h + t)
    size = [s, s, s]
    size[axis] = t
    out.append((pos, size, FACE_COLORS[k]))
  return out


def _face_markers(h: float) -> str:
  return "".join(
    f'<geom type="box" pos="{pos[0]} {pos[1]} {pos[2]}" size="{size[0]} {size[1]} {size[2]}" '
    f'rgba="{r} {g} {b} 1" contype="0" conaffinity="0" mass="0"/>'
    for pos, size, (r, g, b) in face_markers(h)
  )


def scene_xml(
  num_objects: int,
  sim_dt: float,
  iterations: int,
  ls_iterations: int,
  labelled_faces: bool = False,
  friction: float = 1.0,
  cone: str = "pyramidal",
  condim: int = 4,
  impratio: float = 1.0,
) -> str:
  """The whole model as an MJCF string. `condim` applies to the blocks and the fingers."""
  h = BLOCK_HALF
  blocks = []
  for i in range(num_objects):
    r, g, b = COLORS[i % len(COLORS)]
    x = TABLE_POS[0] - 0.3 + 0.08 * i
    blocks.append(f"""
    <body name="object{i}" pos="{x} {TABLE_POS[1]} {TABLE_Z + h}">
      <freejoint name="object{i}"/>
      <geom name="object{i}" type="box" size="{h} {h} {h}" mass="0.1" rgba="{r} {g} {b} 1"
            friction="{friction} 0.01 0.001" condim="{condim}" contype="1" conaffinity="3"/>
      {_face_markers(h) if labelled_faces else ""}
    </body>""")
  tx, ty, tz = TABLE_POS
  hx, hy, hz = TABLE_HALF
  grip_start = (tx - 0.2, ty, TABLE_Z + 0.2)
  goal_sites = "".join(
    f'<site name="goal{i}" type="box" size="{h} {h} {h}" pos="0 0 -1" '
    f'rgba="{COLORS[i % 8][0]} {COLORS[i % 8][1]} {COLORS[i % 8][2]} 0.3" group="2"/>'
    for i in range(num_objects)
  )
  return f"""
<mujoco model="blocks">
  <option timestep="{sim_dt}" iterations="{iterations}" ls_iterations="{ls_iterations}"
          cone="{cone}" impratio="{impratio}" integrator="implicitfast">
    <flag eulerdamp="disable"/>
  </option>
  <visual><global offwidth="640" offheight="480"/></visual>
  <worldbody>
    <!-- A wide spotlight: a directional light's shadow map leaves specks on the far floor. -->
    <light pos="{tx} {ty} 3.5" dir="0 0 -1" cutoff="70"/>
    {camera_xml("overview", CAMERA_EYE, CAMERA_TARGET)}
    <geom name="floor" type="plane" size="10 10 0.1" rgba="0.8 0.8 0.8 1" contype="0" conaffinity="0"/>
    <geom name="table_top" type="plane" pos="{tx} {ty} {TABLE_Z}" size="{hx} {hy} 0.01"
          rgba="0.6 0.45 0.3 1" contype="1" conaffinity="3" friction="{friction} 0.01 0.001"/>
    <geom name="table_body" type="box" pos="{tx} {ty} {tz - 0.001}" size="{hx} {hy} {hz}"
          rgba="0.5 0.38 0.25 1" contype="0" conaffinity="0"/>
    {goal_sites}
    {"".join(blocks)}
    {gripper.worldbody_xml(grip_start, friction=1.5, condim=condim)}
  </worldbody>
  <actuator>{gripper.actuator_xml()}</actuator>
  <equality>{gripper.equality_xml()}</equality>
  <contact>{gripper.contact_xml()}</contact>
</mujoco>"""
