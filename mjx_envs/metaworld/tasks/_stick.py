"""The stick and the thermos, shared by stick-push-v3 and stick-pull-v3 (the reference's
`sawyer_xyz/sawyer_stick_obj.xml` with `objects/assets/stick.xml` and `thermos.xml`): one model, two tasks.

Facts taken from the reference (metaworld 3.1.1):
- Stick: body `stick` (free joint; model pose (-0.15, 0.75, 0.02)) whose child carries the collision box
  `objGeom`, half-sizes (0.05, 0.02, 0.02), mass 0.02 (compiled inertia (5.333e-6, 1.933e-5, 1.933e-5)),
  class stick_col: condim 4, solimp (0.998, 0.998, 0.001), solref (0.02, 1), friction (1, 0.005, 1e-4);
  site `stick_end` at (0.05, 0, 0). `objGeom` is the tasks' "main object" (`touching_main_object`).
  Observation: the body's position (xpos) and scipy's `as_quat` of its xmat.
- Thermos: body `object` fixed at (0.2, 0.6, 0) (its `get_body_com` is the tasks' obj_init_pos, a constant);
  its child slides on `obj_slidex` / `obj_slidey` (range [-0.2, 0.2], damping 1, armature 0.001); compiled
  inertial mass 3.2678034 at (0, -0.00200502, 0.14315478). Collision class therm_col (contype 1,
  conaffinity 1, condim 3, solimp (0.99, 0.99, 0.01), solref (0.01, 1)): the body, a cylinder radius 0.06
  half-height 0.1 at z 0.14; the base, a cylinder radius 0.062 half-height 0.02 at z 0.02; the trim, a mesh
  disk (radius 0.0515, half-thickness 0.0022) at z 0.2422; the cap, a mesh (radius 0.047, half-height
  0.0478) at z 0.2922; the handle's loop: boxes (0, -0.135, 0.132) half (0.01, 0.005, 0.068) (the outer
  bar), (0, -0.09, 0.195) and (0, -0.09, 0.069) half (0.01, 0.04, 0.005) (its top and bottom). Site
  `insertion` (0, -0.09, 0.132): the loop's centre. The thermos does not touch the table in the reference
  (no contact at rest: its base's bottom is at the table's top).

Deliberate differences (collision geometry for MJX, which has no box-cylinder or box-mesh collision; the
stick and the pads are boxes):
- The thermos's body cylinder is a CAPSULE of its radius (0.06) spanning its height (half-length 0.04 +
  the radius = 0.1): the same round side from z 0.10 to 0.18, where the stick meets it (pull: the stick at
  0.114 .. 0.154; push: the scripted stick at 0.10 .. 0.14), rounded ends below 0.10 and above 0.18 (the
  reference's flat ends). The stick pushing on its side moves it as the cylinder does (along the contact
  normal, so an off-centre push also slides it in y).
- The base, the trim and the cap are boxes of their half-sizes (the stick and the hand stay above the base
  and below the trim in both tasks' scripted motions).
- The thermos's geoms have contype 2 (conaffinity 1): they touch the stick and the hand but not the table
  (as in the reference, where its base rests on the table without contact).
- The thermos's inertial is the reference's compiled one, given explicitly; meshes are left out (the
  collision shapes are drawn instead). The stick is one body (the reference's free body `stick` is massless,
  its child at its origin carries the box: the same frame and mass).
Measured effect of the capsule and the boxes: the same model with the reference's cylinders (body, base,
trim and cap as cylinders of its sizes; C MuJoCo has those collisions), both tasks' scripted controllers, 10
episodes each, 2026-11-26: the same first-success steps in every episode (stick-push 52-55, stick-pull
65-77); the thermos's path identical until the stick meets it, then stick-push's within 1.0 cm on average
(4.8 cm at most, at step 60, while it is pushed at speed; both end at the slide's end, x 0.4), stick-pull's
handle within 3 mm on average (1.2 cm at most) at step 80.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import push
from mjx_envs.metaworld.tasks.push import move, scipy_quat_xyzw, set_free_pos, touching

import jax.numpy as jnp

THERMOS_BASE = (0.2, 0.6, 0.0)  # body `object`: the tasks' obj_init_pos
INSERTION = (0.0, -0.09, 0.132)  # site `insertion` in the thermos's frame
STICK_Z = 0.02  # the stick's z at the reset (its half-height: resting on the table)

_STICK_COL = 'condim="4" solimp="0.998 0.998 0.001" solref="0.02 1" friction="1 0.005 0.0001"'
_THERM = (
  'contype="2" conaffinity="1" condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" friction="1 0.005 0.0001"'
)
_GREEN = 'rgba="0.45 0.56 0.52 1"'
_METAL = 'rgba="0.85 0.85 0.85 1"'
XML = f"""
    <body name="stick" pos="-0.15 0.75 0.02">
      <freejoint name="stickjoint"/>
      <inertial pos="0 0 0" mass="0.02" diaginertia="5.33333e-6 1.93333e-5 1.93333e-5"/>
      <geom name="objGeom" type="box" size="0.05 0.02 0.02" {_STICK_COL} rgba="0.15 0.3 0.5 1"/>
      <site name="stick_end" pos="0.05 0 0" size="0.01" rgba="0 0.8 0 1"/>
    </body>
    <body name="object" pos="{THERMOS_BASE[0]} {THERMOS_BASE[1]} {THERMOS_BASE[2]}">
      <body name="thermos">
        <inertial pos="0 -0.00200502 0.14315478" quat="0.99999858 -0.0016873 0 0" mass="3.2678034"
                  diaginertia="0.0286943 0.02793744 0.00627956"/>
        <joint name="obj_slidex" type="slide" axis="1 0 0" range="-0.2 0.2" limited="true" damping="1"
               armature="0.001"/>
        <joint name="obj_slidey" type="slide" axis="0 1 0" range="-0.2 0.2" limited="true" damping="1"
               armature="0.001"/>
        <geom name="therm_body" type="capsule" pos="0 0 0.14" size="0.06 0.04" {_THERM} {_GREEN}/>
        <geom name="therm_base" type="box" pos="0 0 0.02" size="0.062 0.062 0.02" {_THERM} {_METAL}/>
        <geom name="therm_trim" type="box" pos="0 0 0.2422" size="0.0515 0.0515 0.0022" {_THERM} {_METAL}/>
        <geom name="therm_cap" type="box" pos="0 0 0.2922" size="0.047 0.047 0.0478" {_THERM} {_METAL}/>
        <geom name="therm_bar" type="box" pos="0 -0.135 0.132" size="0.01 0.005 0.068" {_THERM} {_METAL}/>
        <geom name="therm_loop_top" type="box" pos="0 -0.09 0.195" size="0.01 0.04 0.005" {_THERM} {_METAL}/>
        <geom name="therm_loop_bottom" type="box" pos="0 -0.09 0.069" size="0.01 0.04 0.005" {_THERM}
              {_METAL}/>
        <site name="insertion" pos="{INSERTION[0]} {INSERTION[1]} {INSERTION[2]}" size="0.005" rgba="1 0 0 1"/>
      </body>
    </body>"""


def place(env, d, stick_xy, thermos_qpos):
  """The stick at (stick_xy, STICK_Z), its orientation as the settled start left it (the reference's
  `_set_stick_xyz` writes the position only), at rest; the thermos's slides at `thermos_qpos` (2,), at rest.
  Returns (d, stick_init_pos)."""
  stick = jnp.concatenate([stick_xy, jnp.full((1,), STICK_Z, jnp.float32)])
  d = set_free_pos(env, d, "stickjoint", stick)
  m = env.mj_model
  qpos, qvel = d.qpos, d.qvel
  for k, name in enumerate(("obj_slidex", "obj_slidey")):
    j = m.joint(name)
    qpos = qpos.at[int(j.qposadr[0])].set(thermos_qpos[k])
    qvel = qvel.at[int(j.dofadr[0])].set(0.0)
  return d.replace(qpos=qpos, qvel=qvel), stick


def task_place(thermos_qpos, target_z=None):
  """A stick task's `place`: rand_vec = (stick xyz, goal xyz); the stick at the drawn x-y (`place`), the
  thermos's slides at `thermos_qpos`; target_pos = (goal x, goal y, `target_z`, default the stick's z);
  obj_init_pos = THERMOS_BASE (the reference's `get_body_com("object")`), stick_init_pos."""

  def place_(env, d, rand_vec):
    d, stick = place(env, d, rand_vec[:2], thermos_qpos)
    z = stick[2:3] if target_z is None else jnp.full((1,), target_z, jnp.float32)
    ctx = {
      "target_pos": jnp.concatenate([rand_vec[3:5], z]),
      "obj_init_pos": jnp.asarray(THERMOS_BASE, jnp.float32),
      "stick_init_pos": stick,
    }
    return d, ctx

  return place_


def objects(env, d, insertion_offset):
  """(the stick's position and scipy quaternion, the `insertion` site + `insertion_offset` and zeros)."""
  m = env.mj_model
  stick = m.body("stick").id
  pos = jnp.concatenate(
    [d.xpos[stick], d.site_xpos[m.site("insertion").id] + jnp.asarray(insertion_offset, jnp.float32)]
  )
  quat = jnp.concatenate([scipy_quat_xyzw(d.xmat[stick].reshape(3, 3)), jnp.zeros((4,), jnp.float32)])
  return pos, quat


READS = (*push.READS, "stick_init_pos")  # push-v3's caging reads and touching_main_object


def reads(env, d, ctx):
  """touching_main_object (both pads press on `objGeom`, as push-v3's) and the `stick_end` site."""
  return {
    "touching_main_object": touching(env, d, "objGeom"),
    "site:stick_end": d.site_xpos[env.mj_model.site("stick_end").id],
  }


def caging(action, stick, reads, obj_radius, init):
  """The Sawyer caging reward at `stick` (pad_success_thresh 0.05, object_reach_radius 0.01, xz_thresh
  0.01, high density), its margins from `init` (stick-push's own copy reads stick_init_pos, the base
  class's obj_init_pos)."""
  return R.gripper_caging_reward(
    action,
    stick,
    {**reads, "obj_init_pos": init},
    obj_radius=obj_radius,
    pad_success_thresh=0.05,
    object_reach_radius=0.01,
    xz_thresh=0.01,
    high_density=True,
  )


def valid(rand_vec):
  """The reference's rule: the stick's and the goal's xy draws at least 0.1 apart."""
  return jnp.linalg.norm(rand_vec[:2] - rand_vec[3:5]) >= 0.1


# -- scripted control ----------------------------------------------------------------------------------------
HELD_OPENING = 0.8  # the gripper closed on the 4 cm stick reads about 0.4, fully open 1.0
GRIP_DZ = -0.015  # the tcp this far below the stick's centre: the pads' bottoms 5 mm above the table


def grip_then(obs, grip_dx, stick_to):
  """Grip the stick `grip_dx` along it from its centre, then move the hand so that the stick's centre goes
  to `stick_to(obs)` [..., 3] (the hand's offset from the stick kept).

  Memoryless phases (hand = obs[0:3], tcp 0.045 below it; stick = obs[4:7]):
  - not over the grip point (xy error > 0.012) and not holding: go there 8 cm above, open;
  - over it: descend until the tcp is GRIP_DZ below the stick's centre, open; there, centred on it in y
    within 3 mm (the pads then meet its sides together: a light stick pushed on by one pad above its
    centre of friction with the table rolls over), close;
  - held (opening < HELD_OPENING, the grip point within 3 cm of the tcp): carry, still closing.
  """
  hand, opening, stick = obs[..., 0:3], obs[..., 3:4], obs[..., 4:7]
  tcp = hand - jnp.array([0.0, 0.0, 0.045])
  g = stick + jnp.array([grip_dx, 0.0, GRIP_DZ])
  xy_err = jnp.linalg.norm(hand[..., :2] - g[..., :2], axis=-1, keepdims=True)
  y_err = jnp.abs(hand[..., 1:2] - g[..., 1:2])
  z_err = jnp.abs(tcp[..., 2:3] - g[..., 2:3])
  held = (opening < HELD_OPENING) & (jnp.linalg.norm(tcp - g, axis=-1, keepdims=True) < 0.03)
  at = (xy_err < 0.006) & (y_err < 0.003) & (z_err < 0.006)
  above = g + jnp.array([0.0, 0.0, 0.045 + 0.08])
  down = g + jnp.array([0.0, 0.0, 0.045])
  carry = hand + (stick_to(obs) - stick)
  to = jnp.where(held, carry, jnp.where(xy_err > 0.012, above, jnp.where(at, hand, down)))
  grip = jnp.where(held | at, 1.0, -1.0)
  return jnp.concatenate([move(hand, to, 25.0), grip], -1)


def stick_task(name, rand_low, rand_high, goal_low, goal_high, hand_low, place_, objects_, reward_, reads_):
  return Task(
    name=name,
    objects_xml=XML,
    hand_init_pos=(0.0, 0.6, 0.2),
    hand_low=hand_low,
    hand_high=(0.5, 1.0, 0.5),
    goal_low=goal_low,
    goal_high=goal_high,
    rand_low=rand_low,
    rand_high=rand_high,
    place=place_,
    objects=objects_,
    reward=reward_,
    reads=reads_,
    valid=valid,
    touch_geoms=("objGeom",),
  )
