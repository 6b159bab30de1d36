"""The hide-and-seek arena's MJCF and its per-episode layouts (SPEC section 4; the reference is OpenAI's
multi-agent-emergence-environments, `mae_envs`).

One model holds the largest counts an env config allows (agents, boxes, ramps, inner wall segments); an
episode enables a subset. What differs between episodes lives in the env state, not in the model:

- inner walls are a pool of world-body boxes whose positions and sizes the state carries (`wall_pos`,
  `wall_size`); the env writes them into the MJX model's `geom_pos` / `geom_size` before each step. A
  pool wall an episode does not use sits 10 m under the floor (world geoms never collide with each other).
- every joint of an agent, box or ramp is a *limited* slide or hinge whose range the state carries
  (`jnt_range`): unlocked objects have a range no motion reaches; a locked object's range is its pose at
  the time of locking (the reference locks the same way, through joint limits); an entity an episode does
  not use is parked, frozen, high above the arena, where nothing meets it.
- boxes' sizes (cube or elongated) and inertias are per episode too (`geom_size`, `body_inertia`).

Sizes are the package's (`floor_size` 6 m, box 0.5 m, elongated 3.3 x 0.3 x 1.0 boxes, walls 0.5 m high
and one grid cell / 2 = 0.1 m thick, doors leaving a 0.5 m gap). The outer walls are four planes (cheap in
MJX, and infinitely high where the reference's are 4 m). The ramp is a 26.6-degree wedge of two
boxes (a sloped slab on a support; 1.0 x 0.5 m footprint, 0.55 m high at its top): it reaches a box's top,
so an agent can climb from it onto a box.
"""

from __future__ import annotations

from mjx_envs.core import camera_xml

import jax.numpy as jnp
import numpy as np

FLOOR_SIZE = 6.0  # play area [0, 6] x [0, 6] m (package: floor_size 6, grid 30)
CELL = 0.2  # the reference's placement grid cell (floor_size / grid_size)
WALL_HEIGHT = 0.5  # inner walls (reference `Wall` default height)
WALL_HALF_T = 0.05  # half thickness: walls are half a grid cell thick
DOOR = 0.5  # door gap: 2 cells plus the wall-end offsets of the reference
AGENT_RADIUS = 0.15
AGENT_MASS = 1.0
MOTOR_GEAR = 100.0
ACTION_LIM = 0.9  # the reference's action_lims for hide-and-seek
JOINT_DAMPING = (
  25.0  # tx, ty, rz: top speed (0.9 * 100 N - 10 N friction) / 25 = 3.2 m/s; tz is 1, as the reference's
)
BOX_HALF = 0.25  # 0.5 m cube
ELONGATED_HALF = (0.825, 0.075, 0.25)  # 3.3 x 0.3 x 1.0 box units
BOX_MASS = 1.0
RAMP_LENGTH, RAMP_WIDTH, RAMP_HEIGHT = 1.0, 0.5, 0.5
RAMP_MASS = 1.0
BOX_FRICTION = 0.2  # boxes and floor (box_floor_friction)
OTHER_FRICTION = 0.01  # agents, ramps, walls (other_friction)
PARK_Z = 20.0  # parked (disabled) entities hang frozen this high, one per slot
UNLOCKED = 1000.0  # joint range of a free joint: no motion reaches it
HIDER_RGBA = (66 / 255, 235 / 255, 244 / 255, 1.0)
SEEKER_RGBA = (1.0, 0.0, 0.0, 1.0)
BOX_RGBA = (0.95, 0.75, 0.2, 1.0)
RAMP_RGBA = (0.0, 0.5, 1.0, 1.0)
WALL_RGBA = (0.3, 0.65, 0.3, 1.0)
DECOR_GROUP = 3  # visual-only geoms: rays (lidar, sight) skip this group


RAMP_ANGLE = float(np.arctan2(RAMP_HEIGHT, RAMP_LENGTH))
RAMP_SLAB_T = 0.06  # thickness of the sloped slab
RAMP_LIP = RAMP_SLAB_T * float(np.cos(RAMP_ANGLE))  # the slab's top starts this high at the low end


def ramp_geoms():
  """The ramp's two boxes in its body frame: [(name, pos [3], half-size [3], euler [3])]. A sloped slab
  whose top runs from the low end (x = -length/2, z = lip) to the high end (x = +length/2, z = height +
  lip), and a support box under its upper half that leaves no gap an agent fits under. Primitives, not a
  convex mesh: MJX's sphere-mesh contact blew up under agents hitting a mesh wedge at full speed."""
  th, t, L, H, W = RAMP_ANGLE, RAMP_SLAB_T, RAMP_LENGTH, RAMP_HEIGHT, RAMP_WIDTH
  slab_half = np.array([np.hypot(L, H) / 2, W / 2, t / 2])
  slab_pos = np.array([t / 2 * np.sin(th), 0.0, H / 2 - t / 2 * np.cos(th) + RAMP_LIP])
  x0 = 0.05  # the support spans x in [x0, L/2], up to just under the slab's underside at x0
  top = RAMP_LIP + H * (x0 + L / 2) / L - t / np.cos(th) - 0.005
  support_half = np.array([(L / 2 - x0) / 2, W / 2, top / 2])
  support_pos = np.array([(L / 2 + x0) / 2, 0.0, top / 2])
  return [
    ("slab", slab_pos, slab_half, np.array([0.0, -th, 0.0])),
    ("support", support_pos, support_half, np.zeros(3)),
  ]


RAMP_HALF = np.array([RAMP_LENGTH / 2, RAMP_WIDTH / 2, (RAMP_HEIGHT + RAMP_LIP) / 2])  # bounding box,
RAMP_CENTRE = np.array([0.0, 0.0, (RAMP_HEIGHT + RAMP_LIP) / 2])  # centred here


def box_inertia(half, mass: float = BOX_MASS):
  """Principal inertia [..., 3] of solid boxes of half-sizes `half` [..., 3] (numpy or jax arrays)."""
  h2 = jnp.square(half)
  return (
    mass / 3.0 * jnp.stack([h2[..., 1] + h2[..., 2], h2[..., 0] + h2[..., 2], h2[..., 0] + h2[..., 1]], -1)
  )


def park_position(slot: int) -> tuple[float, float, float]:
  """Where the parked entity of joint-slot `slot` hangs: above the arena, each at its own height."""
  return (0.5 + 0.6 * (slot % 9), 0.5 + 0.6 * (slot // 9 % 9), PARK_Z + 1.5 * slot)


def scene_xml(
  n_agents: int,
  n_boxes: int,
  n_ramps: int,
  n_walls: int,
  sim_dt: float,
  gravity: float,
  iterations: int,
  ls_iterations: int,
  max_contacts: int = -1,
) -> str:
  """The arena with `n_agents` agents (the first ones hiders), `n_boxes` boxes, `n_ramps` ramps and a pool
    of `n_walls` inner wall boxes. Names: agent{i}, box{j}, ramp{k}, wall{w}; joints {name}_tx/ty/tz/rz
  ; welds grab{i}_{o} (agent i holds object o: boxes first, then ramps)."""
  f = FLOOR_SIZE
  lim = f'limited="true" range="{-UNLOCKED} {UNLOCKED}" margin="0.001"'

  def ramp_body_geoms(k):
    return "".join(
      f'<geom name="ramp{k}_{n}" type="box" pos="{p[0]:.5f} {p[1]:.5f} {p[2]:.5f}" '
      f'size="{h[0]:.5f} {h[1]:.5f} {h[2]:.5f}" euler="{e[0]:.5f} {e[1]:.5f} {e[2]:.5f}" '
      f'mass="{RAMP_MASS / 2}" condim="1" friction="{OTHER_FRICTION} 0.005 0.0001" '
      f'rgba="{" ".join(map(str, RAMP_RGBA))}"/>'
      for n, p, h, e in ramp_geoms()
    )

  def joints(name, damping=0.0, damping_z=0.0):
    """Slides x, y, z and a hinge about z, all limited (the range per world: locks, parking)."""
    return "".join(
      f'<joint name="{name}_{a}" type="{t}" axis="{ax}" damping="{d}" {lim}/>'
      for a, t, ax, d in (
        ("tx", "slide", "1 0 0", damping),
        ("ty", "slide", "0 1 0", damping),
        ("tz", "slide", "0 0 1", damping_z),
        ("rz", "hinge", "0 0 1", damping),
      )
    )

  bodies = []
  for i in range(n_agents):
    # Geoms and joints of every movable thing start at the world origin: qpos = world position.
    bodies.append(f"""
    <body name="agent{i}">
      {joints(f"agent{i}", JOINT_DAMPING, 1.0)}
      <geom name="agent{i}" type="sphere" size="{AGENT_RADIUS}" mass="{AGENT_MASS}"
            friction="{OTHER_FRICTION} 0.005 0.0001" condim="1" rgba="0.5 0.5 0.5 1"/>
      <geom name="agent{i}_nose" type="sphere" size="0.05" pos="{AGENT_RADIUS} 0 0.05" mass="0"
            contype="0" conaffinity="0" group="{DECOR_GROUP}" rgba="0.1 0.1 0.1 1"/>
    </body>""")
  for j in range(n_boxes):
    bodies.append(f"""
    <body name="box{j}">
      {joints(f"box{j}")}
      <geom name="box{j}" type="box" size="{BOX_HALF} {BOX_HALF} {BOX_HALF}" mass="{BOX_MASS}"
            friction="{BOX_FRICTION} 0.005 0.0001" rgba="{' '.join(map(str, BOX_RGBA))}"/>
    </body>""")
  for k in range(n_ramps):
    bodies.append(f"""
    <body name="ramp{k}">
      {joints(f"ramp{k}")}
      {ramp_body_geoms(k)}
    </body>""")
  walls = "".join(
    f'<geom name="wall{w}" type="box" pos="0 0 -10" size="0.1 0.1 {WALL_HEIGHT / 2}" '
    f'friction="{OTHER_FRICTION} 0.005 0.0001" condim="1" rgba="{" ".join(map(str, WALL_RGBA))}"/>'
    for w in range(n_walls)
  )
  objects = [f"box{j}" for j in range(n_boxes)] + [f"ramp{k}" for k in range(n_ramps)]
  welds = "".join(
    f'<weld name="grab{i}_{o}" body1="agent{i}" body2="{name}" active="false" solref="0.02 1"/>'
    for i in range(n_agents)
    for o, name in enumerate(objects)
  )
  # Outer walls: planes facing into the arena (a plane's normal is its frame's +z).
  # Rays see a plane only within its size (collisions do not): 2 m high, the arena's length.
  planes = [
    ("wall_west", (0, f / 2, 1), "0 1.5708 0", (1, f / 2)),
    ("wall_east", (f, f / 2, 1), "0 -1.5708 0", (1, f / 2)),
    ("wall_south", (f / 2, 0, 1), "-1.5708 0 0", (f / 2, 1)),
    ("wall_north", (f / 2, f, 1), "1.5708 0 0", (f / 2, 1)),
  ]
  outer = "".join(
    f'<geom name="{n}" type="plane" pos="{p[0]} {p[1]} {p[2]}" euler="{e}" size="{z[0]} {z[1]} 0.1" '
    f'friction="{OTHER_FRICTION} 0.005 0.0001" condim="1" rgba="0.3 0.65 0.3 0.25"/>'
    for n, p, e, z in planes
  )
  top = camera_xml("overview", (f / 2, f / 2 - 0.01, 8.5), (f / 2, f / 2, 0), fovy=45)
  side = camera_xml("perspective", (f / 2, -3.2, 5.2), (f / 2, f / 2 - 0.5, 0), fovy=50)
  return f"""
<mujoco model="hide_and_seek">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="{sim_dt}" gravity="0 0 {gravity}" iterations="{iterations}"
          ls_iterations="{ls_iterations}"/>
  <default><joint solreflimit="{2 * sim_dt:g} 1"/></default>
  <visual><global offwidth="960" offheight="720"/><quality shadowsize="2048"/>
    <headlight ambient="0.45 0.45 0.45" diffuse="0.4 0.4 0.4"/></visual>
  <asset>
    <texture name="grid" type="2d" builtin="checker" rgb1=".92 .92 .9" rgb2=".85 .85 .82"
             width="300" height="300" mark="edge" markrgb=".7 .7 .7"/>
    <material name="grid" texture="grid" texrepeat="15 15" texuniform="false"/>
  </asset>
  <worldbody>
    <light pos="{f / 2} {f / 2} 8" dir="0 0 -1" directional="true" diffuse=".8 .8 .8"/>
    {top}{side}
    <geom name="floor" type="plane" pos="{f / 2} {f / 2} 0" size="{f / 2} {f / 2} 0.1" material="grid"
          friction="{BOX_FRICTION} 0.005 0.0001"/>
    {outer}
    {walls}
    {''.join(bodies)}
  </worldbody>
  <equality>{welds}</equality>
  <custom><numeric name="max_contact_points" data="{max_contacts}"/></custom>
  <actuator>
    {
    ''.join(
      f'<motor joint="agent{i}_{a}" gear="{MOTOR_GEAR}" ctrlrange="{-ACTION_LIM} {ACTION_LIM}"/>'
      for i in range(n_agents)
      for a in ("tx", "ty", "rz")
    )
  }
  </actuator>
</mujoco>"""


# --- layouts -------------------------------------------------------------------------------------------
def wall_boxes(segs):
  """Wall boxes (pos [..., 3], half-size [..., 3]) along axis-aligned centre lines [..., 4]
  (x0, y0, x1, y1); numpy or jax arrays (the quadrant's doors are drawn under jit)."""
  segs = jnp.asarray(segs, jnp.float32)
  x0, y0, x1, y1 = (segs[..., k] for k in range(4))
  hx = jnp.maximum(jnp.abs(x1 - x0) / 2, WALL_HALF_T)
  hy = jnp.maximum(jnp.abs(y1 - y0) / 2, WALL_HALF_T)
  z = jnp.full_like(x0, WALL_HEIGHT / 2)
  return jnp.stack([(x0 + x1) / 2, (y0 + y1) / 2, z], -1), jnp.stack([hx, hy, z], -1)


def unused_wall() -> tuple[np.ndarray, np.ndarray]:
  """A pool wall an episode does not use: under the floor, out of every ray's and body's way."""
  return np.array([0.0, 0.0, -10.0]), np.array([0.1, 0.1, WALL_HEIGHT / 2])


def random_rooms(
  rng: np.random.Generator, max_rooms: int = 4, min_room: float = 6 * CELL, door: float = DOOR
) -> list:
  """One random-rooms layout: the arena split into 1..`max_rooms` rooms by axis-aligned walls, each
  with one door. Returns wall segments [(x0, y0, x1, y1)] (centre lines, at most 2 per inner wall).

  Our own generator (the reference's draws walls between parallel walls on its 30-cell grid, rooms at
  least 6 cells): rooms are rectangles; each new wall splits a random splittable room across its full
  width or height, at least `min_room` from the room's sides, and gets a `door`-wide gap at a random
  place along it, 0.2 m or more from its ends.
  """
  n_rooms = int(rng.integers(1, max_rooms + 1))
  rooms = [(0.0, 0.0, FLOOR_SIZE, FLOOR_SIZE)]
  segments = []
  for _ in range(n_rooms - 1):
    options = [
      (r, axis)
      for r, room in enumerate(rooms)
      for axis in (0, 1)
      if room[2 + axis] - room[axis] >= 2 * min_room
    ]
    if not options:
      break
    r, axis = options[int(rng.integers(len(options)))]
    x0, y0, x1, y1 = rooms.pop(r)
    lo, hi = (x0, x1) if axis == 0 else (y0, y1)
    cut = float(np.round(rng.uniform(lo + min_room, hi - min_room) / CELL) * CELL)
    # The wall runs across the room (along the other axis), from side to side.
    a0, a1 = (y0, y1) if axis == 0 else (x0, x1)
    d = float(rng.uniform(a0 + 2 * WALL_HALF_T + 0.1, a1 - door - 2 * WALL_HALF_T - 0.1))
    parts = [(a0, d), (d + door, a1)]
    for p0, p1 in parts:
      segments.append((cut, p0, cut, p1) if axis == 0 else (p0, cut, p1, cut))
    if axis == 0:
      rooms += [(x0, y0, cut, y1), (cut, y0, x1, y1)]
    else:
      rooms += [(x0, y0, x1, cut), (x0, cut, x1, y1)]
  return segments


def layout_arrays(segments_list, n_walls: int) -> tuple[np.ndarray, np.ndarray]:
  """Pool arrays (pos [L, n_walls, 3], half-size [L, n_walls, 3]) of a list of L layouts."""
  pos = np.zeros((len(segments_list), n_walls, 3), np.float32)
  size = np.zeros((len(segments_list), n_walls, 3), np.float32)
  for l, segments in enumerate(segments_list):
    if len(segments) > n_walls:
      raise ValueError(f"layout {l} has {len(segments)} wall segments; the pool holds {n_walls}")
    for w in range(n_walls):
      pos[l, w], size[l, w] = (
        (np.asarray(a) for a in wall_boxes(segments[w])) if w < len(segments) else unused_wall()
      )
  return pos, size
