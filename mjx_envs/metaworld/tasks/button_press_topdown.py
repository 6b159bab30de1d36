"""button-press-topdown-v3: press a button, mounted facing up in a box on the table, down from above.

Reference: metaworld 3.1.1 `SawyerButtonPressTopdownEnvV3` (reward version v2), its model
`sawyer_xyz/sawyer_button_press_topdown.xml` and `objects/assets/buttonbox.xml`.

Facts taken from the reference:
- The box (body `box`, euler (-1.57, 0, 0): its -y axis points up) stands at rand_vec = box position,
  drawn from [(-0.1, 0.8, 0.115), (0.1, 0.9, 0.115)]; no rejection rule. hand_init_pos (0, 0.4, 0.2),
  hand bounds (-0.5, 0.40, 0.05) .. (0.5, 1, 0.5) (also the mocap bounds and the goal space).
- Box frame (collision boxes, box frame): (0, 0.012, +-0.072) half (0.12, 0.102, 0.048) and
  (+-0.073, 0.012, 0) half (0.047, 0.102, 0.024): a plate with a square hole for the button.
- Button (body `button`, child of the box): slide joint `btnbox_joint` along the box's -y (world +z),
  range [-0.06, 0], spring stiffness 0.5 towards springref 0.5 (it rests against its upper limit),
  damping 1, armature 0.001; inertial at (0, -0.1935, 0), mass 0.01, diaginertia 0.001; collision
  parts along the box's y: rod radius 0.021 half-length 0.039 at y -0.128, collar 0.026 / 0.008 at
  -0.166, cap 0.043 / 0.011 at -0.183. Collision class: condim 3, solimp (0.99, 0.99, 0.01), solref
  (0.01, 1).
- Sites on the box: `buttonStart` (0, -0.1935, 0), `hole` (0, -0.1, 0). After placing the box the
  reference reads target_pos = site `hole`; `_obj_to_target_init` = maxDist = |hole z - buttonStart z|
  (0.0935).
- Observation: object position = `get_body_com("button")` (gymnasium's: the body frame's xpos) +
  (0, 0, 0.193), i.e. the top of the cap; quaternion = `data.body("button").xquat` ([w, x, y, z]).
- Reward v2 and `evaluate_state` as `reward` below; success when |target z - obj z| <= 0.024, which
  needs the button pushed 0.0695 m, beyond its 0.06 joint range: the reference's soft joint limit (and
  the soft contacts of the button's collar and cap with the box frame) give way under the hand's push.

Deliberate differences:
- The box is a mocap body placed through `data.mocap_pos` (the reference edits `model.body("box").pos`).
- Collision geometry, trimmed for MJX (which tests every candidate geom pair every substep, with no
  broad phase): the box frame's four plates are one box of their outer size (the cap, wider than the
  hole, covers the hole from above at every press depth, so the hand meets the same surfaces); it has
  contype 0 / conaffinity 1 (touched by moving geoms only). The button's rod and cap are boxes of the
  cylinders' half-sizes (MJX has no box-cylinder collision; the hand's pads and claws are boxes), with
  contype 2 so that they skip the table plane they can never reach; the collar (radius 0.026, between
  rod and cap, under the cap) has no collision. Candidate pairs: 16 box-box + 4 plane-box (the
  reference's geometry as boxes: 32 + 7). `btnGeom` (a mesh in the reference) is a visual-only
  cylinder; meshes are left out, visual-only geoms stand in for them.
- The button's collision with the box frame: in the reference the box's parts hang from bodies welded
  to the world, where MuJoCo's parent-child contact filter does not apply, so the collar and the cap can
  touch the frame once the button is pushed past its joint limit (collar at 0.068 m, cap at 0.082 m).
  Here the box is a mocap body, whose child contacts are filtered: only the (soft) joint limit stops
  the button.
- The hand's collision shape differs (see `sawyer.py`): the pads' bottoms are at the tcp, so the
  tcp rests on the cap's top (obj) while pressing; the reference's fingers rest ~2 cm lower.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task

import math

import jax.numpy as jnp
import numpy as np

BOX_EULER_X = -1.57
OBS_OFFSET = (0.0, 0.0, 0.193)  # obj = button xpos + this
SUCCESS_DIST = 0.024


def _box_offset(y: float) -> np.ndarray:
  """World offset of the box-frame point (0, y, 0) (box rotated BOX_EULER_X about x)."""
  c, s = math.cos(BOX_EULER_X), math.sin(BOX_EULER_X)
  return np.array([0.0, y * c, y * s], np.float32)


HOLE_OFFSET = _box_offset(-0.1)
START_OFFSET = _box_offset(-0.1935)

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

OBJECTS_XML = f"""
    <body name="box" mocap="true" pos="0 0.85 0.12" euler="{BOX_EULER_X} 0 0">
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


def place(env, d, rand_vec):
  box = rand_vec[:3]
  mocap = env.mj_model.body("box").mocapid[0]
  d = d.replace(mocap_pos=d.mocap_pos.at[mocap].set(box))
  target = box + jnp.asarray(HOLE_OFFSET)
  start = box + jnp.asarray(START_OFFSET)
  dist = jnp.abs(target[2] - start[2])
  return d, {"target_pos": target, "obj_init_pos": box, "_obj_to_target_init": dist, "maxDist": dist}


def objects(env, d):
  b = env.mj_model.body("button").id
  return d.xpos[b] + jnp.asarray(OBS_OFFSET), d.xquat[b]


def reward(obs, action, reads):
  del action
  obj = obs[..., 4:7]
  tcp = reads["tcp_center"]
  tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
  tcp_to_obj_init = jnp.linalg.norm(obj - reads["init_tcp"], axis=-1)
  obj_to_target = jnp.abs(reads["target_pos"][..., 2] - obj[..., 2])
  tcp_closed = 1 - obs[..., 3]
  near_button = R.tolerance(tcp_to_obj, bounds=(0, 0.01), margin=tcp_to_obj_init, sigmoid="long_tail")
  button_pressed = R.tolerance(
    obj_to_target, bounds=(0, 0.005), margin=reads["_obj_to_target_init"], sigmoid="long_tail"
  )
  rew = 5 * R.hamacher_product(tcp_closed, near_button)
  rew = rew + jnp.where(tcp_to_obj <= 0.03, 5 * button_pressed, 0.0)
  f = lambda b: b.astype(jnp.float32)
  info = {
    "success": f(obj_to_target <= SUCCESS_DIST),
    "near_object": f(tcp_to_obj <= 0.05),
    "grasp_success": f(obs[..., 3] > 0),
    "grasp_reward": near_button,
    "in_place_reward": button_pressed,
    "obj_to_target": obj_to_target,
    "unscaled_reward": rew,
  }
  return rew, info


def scripted(obs):
  """Gripper closed; hover 5 cm above the cap until the hand is over it (xy within 1.2 cm), then lower
  the pads (their bottoms are at the tcp, 0.045 m below the hand) to 1.5 cm below the goal (the `hole`
  site, observed): the cap follows them down past the button's soft joint limit and stops near the
  goal."""
  hand, obj, goal = obs[..., 0:3], obs[..., 4:7], obs[..., 36:39]
  # with the gripper closed the tcp sits 5 mm to +y of the hand: centre the pads on the cap
  want_xy = obj[..., :2] - jnp.array([0.0, 0.005])
  err_xy = jnp.linalg.norm(hand[..., :2] - want_xy, axis=-1)
  above = obj[..., 2] + 0.045 + 0.05
  press = goal[..., 2] + 0.045 - 0.015
  low = hand[..., 2] < obj[..., 2] + 0.045 + 0.02
  descend = (err_xy < 0.012) | (low & (err_xy < 0.03))
  z = jnp.where(descend, press, jnp.maximum(above, hand[..., 2]))
  want = jnp.concatenate([want_xy, z[..., None]], -1)
  move = jnp.clip((want - hand) * 25.0, -1.0, 1.0)
  return jnp.concatenate([move, jnp.ones(move.shape[:-1] + (1,))], -1)


TASK = Task(
  name="button-press-topdown-v3",
  objects_xml=OBJECTS_XML,
  hand_init_pos=(0.0, 0.4, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.5, 0.40, 0.05),
  goal_high=(0.5, 1.0, 0.5),
  rand_low=(-0.1, 0.8, 0.115),
  rand_high=(0.1, 0.9, 0.115),
  place=place,
  objects=objects,
  reward=reward,
)
