"""box-close-v3: pick a box's lid up by its handle and put it on the box.

Reference: metaworld 3.1.1 `SawyerBoxCloseEnvV3` (reward version v2), `sawyer_box.xml` (objects `box.xml`,
`boxtop.xml`).

Reference facts used:
- rand_vec = [lid xyz, goal xyz] from (-0.05, 0.5, 0.02, -0.1, 0.7, 0.133) .. (0.05, 0.55, 0.02, 0.1, 0.8,
  0.133); redrawn while lid and goal are within 0.25 m in xy. hand_init_pos (0, 0.6, 0.2), hand and mocap
  bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5).
- reset_model: target_pos = rand_vec[3:]; the box body `boxbody` moves to (target x, target y, its com z: 0)
  (`model.body_pos`); `frame_skip` physics steps; `_set_obj_xyz([rand x, rand y, 0.02])` puts the lid's
  free body there (orientation kept: the model's quat (1, 0, 0, 1), a quarter turn about z).
- Box: five collision boxes (class `box_col`: contype 0, conaffinity 1, condim 3, solimp 0.99 0.99 0.01,
  solref 0.01 1): four walls 0.06 high and the floor (`BOX_BOXES`).
- Lid: body `boxbodytop` (free joint) with child `top_link` at (0, 0, 0.075): the compiled inertial (mass
  0.25 at (0, 0, 0.03128), principal inertia (1.80277e-3, 1.39052e-3, 1.0901e-3), iquat (0.50001408,
  0.49998591, -0.49998591, 0.50001408)); collision geoms (class `top_col`: contype 1, conaffinity 1, condim
  4, solimp 0.99 0.99 0.01, solref 0.01 1): the plate and four rims (boxes), the handle bar along the lid's
  y and its two posts (capsules of radius 0.008) (`LID_BOXES`, `LID_CAPSULES`); and the visual mesh of the
  plate, which collides too (contype 1, conaffinity 1, condim 3). Observation: `get_body_com("top_link")`,
  which is gymnasium's `data.body(...).xpos`: the body's ORIGIN (0.031 below its com), and its xquat ([w,
  x, y, z]).
- Reward v2 (reads the observation, the action and target_pos only): grab = (clip(a[3]) + 1) / 2; quat =
  max(1 - |obs[7:11] - (0.707, 0, 0, 0.707)| / 0.2, 0); lid = obs[4:7] + (0, 0, 0.02); the floor funnel
  about the lid (radius = |hand_xy - lid_xy|, floor = 0 within 0.02 else 0.04 log(radius - 0.02) + 0.4;
  above_floor = 1 when hand z >= floor else tolerance(floor - hand z, (0, 0.01), margin floor / 2,
  long_tail)); ready = hamacher(above_floor, tolerance(|hand - lid|, (0, 0.02), margin 0.5, long_tail));
  lifted = 0.2 [lid z > 0.04] + 0.8 tolerance(|(target - lid) (1, 1, 3)|, (0, 0.05), margin 0.25,
  long_tail); reward = (2 hamacher(grab, ready) + 8 lifted, or 10 when |obs[4:7] - target| < 0.08) x quat.
  Info: success |obs[4:7] - target| < 0.08, near_object = ready, grasp_success = grab >= 0.5,
  grasp_reward = grab, in_place_reward = lifted, obj_to_target = 0, unscaled_reward = reward.

Deliberate differences:
- The visual meshes are left out except the plate's, which collides in the reference: it is a BOX, its
  mesh's bounding box in the geom's principal frame (half-sizes (0.115, 0.115, 0.0117) at (0, 0, -0.0041);
  the reference's compiled geom). The handle's mesh (`BoxHandleGeom`, the reference's main object for a
  contact check no reward here reads) is left out: its collision capsules stay.
- The box is a mocap body placed per world.

Checks: reward and info parity on the fixture `metaworld_reference_objects`. `scripted` below (grip the
handle bar, straight up, then over the box to the goal): success 100/100 episodes
(benchmarks/scripted_success.py, C backend, 500 steps).
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import TCP_BELOW_HAND
from mjx_envs.metaworld.tasks import push

import dataclasses

import jax.numpy as jnp

READS = ("target_pos",)
_BOX = 'contype="0" conaffinity="1" condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" rgba="0.6 0.45 0.3 1"'
_TOP = 'contype="1" conaffinity="1" condim="4" solimp="0.99 0.99 0.01" solref="0.01 1" rgba="0.7 0.55 0.4 1"'
BOX_BOXES = (
  ((0.0, -0.095, 0.03), (0.1, 0.005, 0.03)),
  ((0.0, 0.095, 0.03), (0.1, 0.005, 0.03)),
  ((0.095, 0.0, 0.03), (0.005, 0.09, 0.03)),
  ((-0.095, 0.0, 0.03), (0.005, 0.09, 0.03)),
  ((0.0, 0.0, 0.005), (0.1, 0.1, 0.005)),
)
LID_BOXES = (
  ((0.11, 0.0, -0.008), (0.005, 0.115, 0.008)),
  ((0.0, 0.0, 0.003), (0.115, 0.115, 0.003)),
  ((-0.11, 0.0, -0.008), (0.005, 0.115, 0.008)),
  ((0.0, -0.11, -0.008), (0.115, 0.005, 0.008)),
  ((0.0, 0.11, -0.008), (0.115, 0.005, 0.008)),
)
# (pos, euler, half-length), radius 0.008: the bar (along the lid's y) and its two posts
LID_CAPSULES = (
  ((0.0, 0.0, 0.082), (1.57, 0.0, 0.0), 0.05),
  ((0.0, -0.05, 0.043), (0, 0, 0), 0.035),
  ((0.0, 0.05, 0.043), (0, 0, 0), 0.035),
)
COM_Z = 0.03128  # top_link's com above its origin (the observation is the origin)
HANDLE_Z = 0.082  # the bar's axis above top_link's origin


def _v(t):
  return " ".join(f"{float(x):g}" for x in t)


OBJECTS_XML = (
  """
    <body name="boxbody" mocap="true" pos="0 0.8 0">"""
  + "".join(f'\n      <geom type="box" pos="{_v(p)}" size="{_v(h)}" {_BOX}/>' for p, h in BOX_BOXES)
  + f"""
    </body>
    <body name="boxbodytop" pos="0 0.8 0" quat="1 0 0 1">
      <freejoint name="objjoint"/>
      <body name="top_link" pos="0 0 0.075">
        <inertial pos="0 0 {COM_Z}" quat="0.50001408 0.49998591 -0.49998591 0.50001408" mass="0.25"
                  diaginertia="0.00180277 0.00139052 0.0010901"/>
        <geom name="lid_plate" type="box" pos="0 0 -0.0041" size="0.115 0.115 0.0117" contype="1"
              conaffinity="1" condim="3" rgba="0.7 0.55 0.4 1"/>"""
  + "".join(f'\n        <geom type="box" pos="{_v(p)}" size="{_v(h)}" {_TOP}/>' for p, h in LID_BOXES)
  + "".join(
    f'\n        <geom type="capsule" pos="{_v(p)}" euler="{_v(e)}" size="0.008 {h:g}" {_TOP}/>'
    for p, e, h in LID_CAPSULES
  )
  + """
      </body>
    </body>"""
)


def place(env, d, rand_vec):
  target = rand_vec[3:6]
  box = int(env.mj_model.body("boxbody").mocapid[0])
  d = d.replace(mocap_pos=d.mocap_pos.at[box].set(jnp.concatenate([target[:2], jnp.zeros((1,))])))
  obj_init = jnp.concatenate([rand_vec[:2], jnp.full((1,), 0.02, jnp.float32)])
  d = push.set_free_pos(env, d, "objjoint", obj_init)
  return d, {"target_pos": target, "obj_init_pos": obj_init}


def objects(env, d):
  b = env.mj_model.body("top_link").id
  return d.xpos[b], d.xquat[b]


def reward(obs, action, reads):
  hand, target = obs[..., 0:3], reads["target_pos"]
  grab = jnp.clip((jnp.clip(action[..., 3], -1, 1) + 1.0) / 2.0, 0.0, 1.0)
  quat = jnp.maximum(
    1.0 - jnp.linalg.norm(obs[..., 7:11] - jnp.array([0.707, 0, 0, 0.707]), axis=-1) / 0.2, 0.0
  )
  lid = obs[..., 4:7] + jnp.array([0.0, 0.0, 0.02])
  radius = jnp.linalg.norm(hand[..., :2] - lid[..., :2], axis=-1)
  floor = jnp.where(radius <= 0.02, 0.0, 0.04 * jnp.log(jnp.maximum(radius - 0.02, 1e-12)) + 0.4)
  above_floor = jnp.where(
    hand[..., 2] >= floor,
    1.0,
    R.tolerance(floor - hand[..., 2], bounds=(0.0, 0.01), margin=floor / 2.0, sigmoid="long_tail"),
  )
  near = R.tolerance(jnp.linalg.norm(hand - lid, axis=-1), bounds=(0, 0.02), margin=0.5, sigmoid="long_tail")
  ready = R.hamacher_product(above_floor, near)
  err = jnp.linalg.norm((target - lid) * jnp.array([1.0, 1.0, 3.0]), axis=-1)
  lifted = 0.2 * (lid[..., 2] > 0.04) + 0.8 * R.tolerance(
    err, bounds=(0, 0.05), margin=0.25, sigmoid="long_tail"
  )
  success = jnp.linalg.norm(obs[..., 4:7] - target, axis=-1) < 0.08
  rew = jnp.where(success, 10.0, 2.0 * R.hamacher_product(grab, ready) + 8.0 * lifted) * quat
  return rew, R.info(success, ready, grab >= 0.5, grab, lifted, jnp.zeros_like(rew), rew)


def valid(rand_vec):
  return jnp.linalg.norm(rand_vec[:2] - rand_vec[3:5]) >= 0.25


GRIP_BELOW_BAR = 0.008  # the tcp (the pads' bottom) this far below the bar's axis
HAND_OFF_Y = -0.005  # the hand this far from the bar in y: the fingers close unevenly (left 0.03, right 0.04)
CLEAR_Z = 0.1  # the lid's origin before it moves over the box (its rims, 0.016 below, clear the walls)
CLOSED = 0.35  # the opening once the fingers are shut on the bar (fully closed: 0.3)


def scripted(obs):
  """Memoryless phases read from the observation (the bar = the observed origin + HANDLE_Z; the grip
  point: the tcp GRIP_BELOW_BAR below the bar, the hand HAND_OFF_Y beside it): not over the grip point and
  not holding: 0.08 above it, open; over it: down, open; there: close and hold still; closed on the bar
  (opening < CLOSED, the tcp within 2 cm of the grip point): straight up until the origin is at CLEAR_Z, then
  the origin to the goal."""
  hand, opening, lid, goal = obs[..., 0:3], obs[..., 3:4], obs[..., 4:7], obs[..., 36:39]
  grip_at = HANDLE_Z - GRIP_BELOW_BAR
  hand_at = lid + jnp.array([0.0, HAND_OFF_Y, grip_at + TCP_BELOW_HAND])
  err = hand - hand_at
  xy_err = jnp.linalg.norm(err[..., :2], axis=-1, keepdims=True)
  held = (jnp.linalg.norm(err, axis=-1, keepdims=True) < 0.02) & (opening < CLOSED)
  at = (xy_err < 0.01) & (jnp.abs(err[..., 2:3]) < 0.008)
  above = hand_at + jnp.array([0.0, 0.0, 0.08])
  up = jnp.concatenate(
    [hand[..., :2], jnp.full_like(hand[..., 2:3], CLEAR_Z + 0.02 + grip_at + TCP_BELOW_HAND)], -1
  )
  carry = jnp.where(
    lid[..., 2:3] < CLEAR_Z, up, goal + jnp.array([0.0, HAND_OFF_Y, grip_at + TCP_BELOW_HAND])
  )
  to = jnp.where(held, carry, jnp.where(xy_err > 0.01, above, jnp.where(at, hand, hand_at)))
  grip = jnp.where(held | at, 1.0, -1.0)
  return jnp.concatenate([push.move(hand, to, 25.0), grip], -1)


# push-v3's Task (its hand: init (0, 0.6, 0.2), bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5)) with this task's pieces
TASK = dataclasses.replace(
  push.TASK,
  name="box-close-v3",
  objects_xml=OBJECTS_XML,
  goal_low=(-0.1, 0.7, 0.133),
  goal_high=(0.1, 0.8, 0.133),
  rand_low=(-0.05, 0.5, 0.02, -0.1, 0.7, 0.133),
  rand_high=(0.05, 0.55, 0.02, 0.1, 0.8, 0.133),
  place=place,
  objects=objects,
  reward=reward,
  valid=valid,
  reads=lambda env, d, ctx: {},
  touch_geoms=(),
)
