"""The Meta-World button box (metaworld 3.1.1 `objects/assets/buttonbox.xml` inside the `sawyer_button_press*`
models), shared by button-press-topdown-v3, button-press-v3 and their wall variants: one box, mounted facing
up (the topdown tasks: the box body at euler (-1.57, 0, 0)) or facing the robot (euler 0).

Reference facts kept (box frame; the button slides along the box's -y):
- Box frame (collision boxes): (0, 0.012, +-0.072) half (0.12, 0.102, 0.048) and (+-0.073, 0.012, 0) half
  (0.047, 0.102, 0.024): a plate with a square hole for the button.
- Button (body `button`, child of the box): slide joint `btnbox_joint` along the box's -y, range
  [-0.06, 0], spring stiffness 0.5 towards springref 0.5 (it rests against its upper limit), damping 1,
  armature 0.001; inertial at (0, -0.1935, 0), mass 0.01, diaginertia 0.001; collision parts along the
  box's y: rod radius 0.021 half-length 0.039 at y -0.128, collar 0.026 / 0.008 at -0.166, cap 0.043 /
  0.011 at -0.183. Collision class: condim 3, solimp (0.99, 0.99, 0.01), solref (0.01, 1).
- Sites on the box: `buttonStart` (0, -0.1935, 0), `hole` (0, -0.1, 0). After placing the box the
  reference reads target_pos = site `hole`; `_obj_to_target_init` = maxDist = |hole - buttonStart| along
  the press axis (world z facing up, world y facing the robot): 0.0935.
- Observation: object position = `get_body_com("button")` (gymnasium's: the body frame's xpos) plus the
  task's offset to the cap's face ((0, 0, 0.193) facing up, (0, -0.193, 0) facing the robot); quaternion
  = `data.body("button").xquat` ([w, x, y, z]).
- The success thresholds need the button pushed beyond its 0.06 joint range (0.0695 m topdown, 0.073 m
  button-press): the reference's soft joint limit (and the soft contacts of the button's collar and cap
  with the box frame) give way under the hand's push.

Deliberate differences:
- The box is a mocap body placed through `data.mocap_pos` (the reference edits `model.body("box").pos`).
- Collision geometry, trimmed for MJX (which tests every candidate geom pair every substep, with no
  broad phase): the box frame's four plates are one box of their outer size (the cap, wider than the
  hole, covers the hole at every press depth, so the hand meets the same surfaces); it has contype 0 /
  conaffinity 1 (touched by moving geoms only). The button's rod and cap are boxes of the cylinders'
  half-sizes (MJX has no box-cylinder collision; the hand's pads and claws are boxes), with contype 2 so
  that they skip the table plane they can never reach; the collar (radius 0.026, between rod and cap,
  under the cap) has no collision. Candidate pairs: 16 box-box + 4 plane-box (the reference's geometry
  as boxes: 32 + 7). `btnGeom` (a mesh in the reference) is a visual-only cylinder; meshes are left out,
  visual-only geoms stand in for them.
- The button's collision with the box frame: in the reference the box's parts hang from bodies welded
  to the world, where MuJoCo's parent-child contact filter does not apply, so the collar and the cap can
  touch the frame once the button is pushed past its joint limit (collar at 0.068 m, cap at 0.082 m).
  Here the box is a mocap body, whose child contacts are filtered: only the (soft) joint limit stops
  the button.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task

import math

import jax.numpy as jnp
import numpy as np

HOLE_Y = -0.1  # site `hole`, box frame
START_Y = -0.1935  # site `buttonStart`, box frame

# the button: touched by the hand (contype 1) and not by the table plane (contype 2 shares no bit with the
# plane's conaffinity); the box: touched by moving geoms only
_COL = (
  'contype="2" conaffinity="1" condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" group="4" '
  'rgba="0.3 0.3 1 0"'
)
_FIXED = (
  'contype="0" conaffinity="1" condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" group="4" '
  'rgba="0.3 0.3 1 0"'
)
_VIS = 'contype="0" conaffinity="0" group="1" mass="0"'
_BLACK = 'rgba="0.15 0.15 0.15 1"'


def box_offset(euler_x: float, y: float) -> np.ndarray:
  """World offset of the box-frame point (0, y, 0) (box rotated `euler_x` about x)."""
  c, s = math.cos(euler_x), math.sin(euler_x)
  return np.array([0.0, y * c, y * s], np.float32)


def box_xml(euler_x: float, pos: str = "0 0.85 0.12") -> str:
  """The button box (body `box`, a mocap body at `pos`, rotated `euler_x` about x) with its button."""
  euler = f' euler="{euler_x} 0 0"' if euler_x else ""
  return f"""
    <body name="box" mocap="true" pos="{pos}"{euler}>
      <geom name="box_col" type="box" pos="0 0.012 0" size="0.12 0.102 0.12" {_FIXED}/>
      <geom name="box_top" type="box" pos="0 0.012 0.072" size="0.12 0.102 0.048" {_VIS} {_BLACK}/>
      <geom name="box_bottom" type="box" pos="0 0.012 -0.072" size="0.12 0.102 0.048" {_VIS} {_BLACK}/>
      <geom name="box_left" type="box" pos="-0.073 0.012 0" size="0.047 0.102 0.024" {_VIS} {_BLACK}/>
      <geom name="box_right" type="box" pos="0.073 0.012 0" size="0.047 0.102 0.024" {_VIS} {_BLACK}/>
      <geom name="box_rim" type="cylinder" euler="1.57 0 0" pos="0 -0.091 0" size="0.05 0.002"
            rgba="0.8 0.8 0.8 1" {_VIS}/>
      <site name="buttonStart" pos="0 -0.1935 0" size="0.005" rgba="0 0.8 0 1"/>
      <site name="hole" pos="0 -0.1 0" size="0.005" rgba="0 0.8 0 1"/>
      <body name="button">
        <inertial pos="0 -0.1935 0" mass="0.01" diaginertia="0.001 0.001 0.001"/>
        <joint name="btnbox_joint" type="slide" pos="0 0 0" axis="0 -1 0" limited="true" range="-0.06 0"
               springref="0.5" stiffness="0.5" damping="1" armature="0.001"/>
        <geom name="btnGeom" type="cylinder" euler="1.57 0 0" pos="0 -0.183 0" size="0.043 0.011"
              rgba="0.6 0 0 1" {_VIS}/>
        <geom name="btnCollar" type="cylinder" euler="1.57 0 0" pos="0 -0.166 0" size="0.026 0.008"
              {_BLACK} {_VIS}/>
        <geom name="btnRod" type="cylinder" euler="1.57 0 0" pos="0 -0.128 0" size="0.021 0.039"
              {_BLACK} {_VIS}/>
        <geom name="btn_col_rod" type="box" pos="0 -0.128 0" size="0.021 0.039 0.021" {_COL}/>
        <geom name="btn_col_cap" type="box" pos="0 -0.183 0" size="0.043 0.011 0.043" {_COL}/>
      </body>
    </body>"""


READS = ("tcp_center", "init_tcp", "target_pos", "_obj_to_target_init")

# The wall of the button tasks' wall variants (`objects/assets/wall.xml` in `sawyer_button_press_wall.xml`
# and `sawyer_button_press_topdown_wall.xml`): body `wall` at (0.1, y, 0) (y 0.6 facing the robot, 0.7
# topdown), fixed; a box of half-sizes (0.1, 0.01, 0.075) at (0, 0, 0.075): the visible one collides with
# nothing (class `wall_base`), the group-4 `wall_col` one has contype 0, conaffinity 1, condim 3, solref
# 0.01 1, solimp 0.99 0.99 0.01. Here: that one box, as the reference's collision box (not the other
# group's wall, tasks/_wall.py, which has other sizes and places).
WALL_HALF = (0.1, 0.01, 0.075)
WALL_TOP = 2 * WALL_HALF[2]  # 0.15


def wall_xml(y: float) -> str:
  return f"""
    <body name="wall" pos="0.1 {y} 0">
      <geom name="wall" type="box" pos="0 0 {WALL_HALF[2]}" size="{WALL_HALF[0]} {WALL_HALF[1]} {WALL_HALF[2]}"
            contype="0" conaffinity="1" condim="3" solref="0.01 1" solimp="0.99 0.99 0.01"
            rgba="0.65 0.3 0.25 1"/>
    </body>"""


class ButtonBox:
  """One mounting of the box: rotated `euler_x` about x, pressed along world `axis` (1: y, 2: z), the
  observed object the button's xpos + `obs_offset` (the cap's face, as the reference's task reads it)."""

  def __init__(self, euler_x: float, axis: int, obs_offset, pos: str):
    self.euler_x, self.axis, self.obs_offset = euler_x, axis, tuple(obs_offset)
    self.xml = box_xml(euler_x, pos)
    self.hole_offset = box_offset(euler_x, HOLE_Y)
    self.start_offset = box_offset(euler_x, START_Y)

  def place(self, env, d, rand_vec):
    """The box at rand_vec[:3]; ctx: target_pos = site `hole`, obj_init_pos = the box position,
    `_obj_to_target_init` = maxDist = |hole - buttonStart| along the press axis."""
    box = rand_vec[:3]
    mocap = env.mj_model.body("box").mocapid[0]
    d = d.replace(mocap_pos=d.mocap_pos.at[mocap].set(box))
    target = box + jnp.asarray(self.hole_offset)
    start = box + jnp.asarray(self.start_offset)
    dist = jnp.abs(target[self.axis] - start[self.axis])
    return d, {"target_pos": target, "obj_init_pos": box, "_obj_to_target_init": dist, "maxDist": dist}

  def objects(self, env, d):
    """(the button body's xpos + `obs_offset`, its xquat [w, x, y, z])."""
    b = env.mj_model.body("button").id
    return d.xpos[b] + jnp.asarray(self.obs_offset), d.xquat[b]


FACING_UP = ButtonBox(-1.57, 2, (0.0, 0.0, 0.193), "0 0.85 0.12")  # the topdown tasks
FACING_ROBOT = ButtonBox(0.0, 1, (0.0, -0.193, 0.0), "0 0.9 0.12")


def task(name: str, box: ButtonBox, reward, rand_low, rand_high, extra_xml: str = "") -> Task:
  """A button task: the reference's hand start (0, 0.4, 0.2) and bounds (-0.5, 0.40, 0.05) .. (0.5, 1,
  0.5), which are also its mocap bounds and goal space; no rejection rule."""
  low, high = (-0.5, 0.40, 0.05), (0.5, 1.0, 0.5)
  return Task(
    name=name,
    objects_xml=box.xml + extra_xml,
    hand_init_pos=(0.0, 0.4, 0.2),
    hand_low=low,
    hand_high=high,
    goal_low=low,
    goal_high=high,
    rand_low=rand_low,
    rand_high=rand_high,
    place=box.place,
    objects=box.objects,
    reward=reward,
  )


def press_terms(obs, reads, box: ButtonBox, near_bound: float):
  """The v2 rewards' shared terms: (tcp_to_obj, obj_to_target along the press axis, near_button,
  button_pressed)."""
  axis = box.axis
  obj = obs[..., 4:7]
  tcp_to_obj = jnp.linalg.norm(obj - reads["tcp_center"], axis=-1)
  tcp_to_obj_init = jnp.linalg.norm(obj - reads["init_tcp"], axis=-1)
  obj_to_target = jnp.abs(reads["target_pos"][..., axis] - obj[..., axis])
  near_button = R.tolerance(tcp_to_obj, bounds=(0, near_bound), margin=tcp_to_obj_init, sigmoid="long_tail")
  button_pressed = R.tolerance(
    obj_to_target, bounds=(0, 0.005), margin=reads["_obj_to_target_init"], sigmoid="long_tail"
  )
  return tcp_to_obj, obj_to_target, near_button, button_pressed


def info(obs, tcp_to_obj, obj_to_target, near_button, button_pressed, rew, success_dist: float):
  """The button tasks' `evaluate_state` dict."""
  return R.info(
    obj_to_target <= success_dist,
    tcp_to_obj <= 0.05,
    obs[..., 3] > 0,
    near_button,
    button_pressed,
    obj_to_target,
    rew,
  )
