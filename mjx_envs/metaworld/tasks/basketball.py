"""basketball-v3: pick a ball up from the table and hold it over the ring of a basketball hoop.

Reference: metaworld 3.1.1 `SawyerBasketballEnvV3` (reward version v2), `sawyer_basketball.xml`,
`objects/assets/basketball.xml` and `basketballhoop.xml`.

Reference facts used:
- rand_vec = [ball xyz, hoop xyz] from ball (-0.1, 0.6, 0.0299)..(0.1, 0.7, 0.0301) and hoop (-0.1, 0.85,
  0)..(0.1, 0.9 + 1e-7, 0); redrawn while ball and hoop are within 0.15 m in xy (never, with these ranges).
  hand_init_pos (0, 0.6, 0.2), hand_low (-0.5, 0.4, 0.05), hand_high (0.5, 1, 0.5); goal space = hoop space
  + (0, -0.083, 0.2499 .. 0.2501).
- reset_model: obj_init_pos = [rand x, rand y, 0.03] (the drawn z is discarded: the previous obj_init_pos's
  z, 0.03 from the first reset on); the hoop body `basket_goal` moves to rand_vec[3:]; target_pos = site
  `goal` = hoop + (0, -0.083, 0.25) (the ring's centre); the ball's free joint to obj_init_pos, its
  orientation kept, at rest. (Its objHeight, heightTarget and maxPlacingDist are the v1 reward's: left
  out.)
- Ball: body `bsktball` with a free joint, collision sphere `objGeom` r 0.03, mass 0.1 (inertia 3.6e-5),
  class basketball_col (condim 3, solref 0.01 1, solimp 0.99 0.99 0.01, friction 1 / 0.005 / 0.0001).
  Observation: `get_body_com("bsktball")` and `data.body("bsktball").xquat` ([w, x, y, z]).
- Hoop (basketball_col): backboard box half (0.1, 0.01, 0.07) at z 0.29; pole cylinder r 0.007 half-height
  0.108 at z 0.118; foot cylinder r 0.013 half-height 0.005 at z 0.005; the ring `hooplink` at (0, -0.083,
  0.25): eight capsules r 0.01 half-length 0.016 around a 0.045 m circle (z -0.001) and the bracket box half
  (0.01, 0.014, 0.004) at (0, 0.06, 0).
- Reward v2: target = target_pos with z forced to 0.3; scale (1, 1, 2); obj_to_target = |(obj - target)
  scale|; in_place = tolerance(obj_to_target, (0, 0.08), margin |(obj_init - target) scale|, long_tail);
  object_grasped = base `_gripper_caging_reward` (obj_radius 0.025, pad_success_thresh 0.06,
  object_reach_radius 0.01, xz_thresh 0.005, high_density), set to 1 when |tcp - obj| < 0.035, opening > 0
  and obj z - 0.01 > obj_init z (that condition also adds 1 + 5 in_place); reward = hamacher(grasped,
  in_place) (+ ...); 10 when obj_to_target < 0.08. Info: success obj_to_target <= 0.08, near_object
  |tcp - obj| <= 0.05, grasp_success = opening > 0 and obj z - 0.03 > obj_init z. No contact check.

Deliberate differences:
- The hoop is a mocap body placed through `mocap_pos` (the reference edits model.body_pos); its geoms have
  contype 0 (touched by moving geoms only). The reference's collision geometry is already primitive (its
  meshes are visual only, contype 0; here visual-only boxes and cylinders stand in for them); two of its
  cylinders change for MJX, which has no box-cylinder collision (the hand's pads and claws are boxes): the
  pole is a capsule r 0.007 of half-length 0.101 (the cylinder's extent, ends rounded) and the foot a box of
  the cylinder's half-sizes (0.013 x 0.013 x 0.005). Neither is where the ball or the hand goes in a
  scripted episode; the ring and the backboard, which they meet, are the reference's shapes. Measured (C
  backend, 2026-11-26): with the reference's two cylinders instead (C MuJoCo has the pairs; only MJX refuses
  the model) 50 scripted episodes give the same first-success steps and final poses to 1e-4 m.
- The ball is one body (the reference nests a massless `bsktball` over its `basketball` child).

Checks (fixture `metaworld_reference_assembly`): the reward and every info value on the reference's 40
recorded states within 8.9e-7 (success, near_object, grasp_success exactly); reset ranges and the rejection
rule equal; the first observed ball pose within 1.3e-4 m. `scripted` below (benchmarks/scripted_success.py,
C backend, 100 episodes of 500 steps, 2026-11-26): 100/100; it succeeds near step 70. The reference's own
policy in the reference: first successes at steps 86-102 in 4 of the fixture's 6 episodes.
MJX-JAX (tests/mjx_envs/test_metaworld_assembly.py, slow tier): closed-loop scripted from the same resets
as C over 90 steps, the hand and object positions within 5.2e-4 m of C's; both succeed.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks.push import move, set_free_pos

import jax.numpy as jnp

TARGET_RADIUS = 0.08
OBJ_Z = 0.03
TARGET_FROM_HOOP = (0.0, -0.083, 0.25)
REWARD_TARGET_Z = 0.3

_COL = 'condim="3" solref="0.01 1" solimp="0.99 0.99 0.01" friction="1 0.005 0.0001"'
_HOOP = f'contype="0" conaffinity="1" {_COL}'
_RING = f'type="capsule" size="0.01 0.016" {_HOOP} rgba="0.6 0 0 1"'
_VIS = 'contype="0" conaffinity="0" group="1"'
OBJECTS_XML = f"""
    <body name="bsktball" pos="0 0.6 0.03">
      <freejoint name="balljoint"/>
      <inertial pos="0 0 0" mass="0.1" diaginertia="3.6e-5 3.6e-5 3.6e-5"/>
      <geom name="objGeom" type="sphere" size="0.03" contype="1" conaffinity="1" {_COL}
            rgba="0.7 0.35 0 1"/>
    </body>
    <body name="basket_goal" mocap="true" pos="0 0.9 0">
      <geom name="backboard" type="box" size="0.1 0.01 0.07" pos="0 0 0.29" {_HOOP} rgba="0.85 0.85 0.85 1"/>
      <geom name="backboard_square" type="box" size="0.037 0.001 0.023" pos="0 -0.011 0.29" {_VIS}
            rgba="0.6 0 0 1"/>
      <geom name="pole" type="capsule" size="0.007 0.101" pos="0 0 0.118" {_HOOP} rgba="0.65 0.65 0.65 1"/>
      <geom name="pole_foot" type="box" size="0.013 0.013 0.005" pos="0 0 0.005" {_HOOP}
            rgba="0.65 0.65 0.65 1"/>
      <body name="hooplink" pos="0 -0.083 0.25">
        <geom name="ring_bracket" type="box" size="0.01 0.014 0.004" pos="0 0.06 0" {_HOOP} rgba="0.6 0 0 1"/>
        <geom {_RING} euler="1.571 0.785 0" pos="0.031 0.032 -0.001"/>
        <geom {_RING} euler="0 1.57 0" pos="0 0.045 -0.001"/>
        <geom {_RING} euler="1.57 0 0" pos="0.044 0 -0.001"/>
        <geom {_RING} euler="1.57 0 0" pos="-0.044 0 -0.001"/>
        <geom {_RING} euler="0 1.57 0" pos="0 -0.045 -0.001"/>
        <geom {_RING} euler="1.57 -0.785 0" pos="-0.031 0.032 -0.001"/>
        <geom {_RING} euler="1.57 0.785 0" pos="-0.031 -0.032 -0.001"/>
        <geom {_RING} euler="1.57 -0.785 0" pos="0.031 -0.032 -0.001"/>
        <site name="hoop" size="0.01" rgba="1 0 0 1"/>
      </body>
    </body>"""

READS = ("tcp_center", "left_pad", "right_pad", "target_pos", "obj_init_pos", "init_tcp")


def place(env, d, rand_vec):
  obj_init = jnp.concatenate([rand_vec[:2], jnp.full((1,), OBJ_Z, jnp.float32)])
  hoop = rand_vec[3:6]
  d = set_free_pos(env, d, "balljoint", obj_init)
  mocap = env.mj_model.body("basket_goal").mocapid[0]
  d = d.replace(mocap_pos=d.mocap_pos.at[mocap].set(hoop))
  return d, {"target_pos": hoop + jnp.asarray(TARGET_FROM_HOOP, jnp.float32), "obj_init_pos": obj_init}


def objects(env, d):
  b = env.mj_model.body("bsktball").id
  return d.xipos[b], d.xquat[b]


def reward(obs, action, reads):
  obj, opened = obs[..., 4:7], obs[..., 3]
  tcp, init = reads["tcp_center"], reads["obj_init_pos"]
  target = reads["target_pos"].at[..., 2].set(REWARD_TARGET_Z)
  scale = jnp.array([1.0, 1.0, 2.0])
  obj_to_target = jnp.linalg.norm((obj - target) * scale, axis=-1)
  margin = jnp.linalg.norm((init - target) * scale, axis=-1)
  in_place = R.tolerance(obj_to_target, bounds=(0, TARGET_RADIUS), margin=margin, sigmoid="long_tail")
  tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
  grasped = R.gripper_caging_reward(
    action,
    obj,
    reads,
    obj_radius=0.025,
    pad_success_thresh=0.06,
    object_reach_radius=0.01,
    xz_thresh=0.005,
    high_density=True,
  )
  lifted = (tcp_to_obj < 0.035) & (opened > 0) & (obj[..., 2] - 0.01 > init[..., 2])
  grasped = jnp.where(lifted, 1.0, grasped)
  rew = R.hamacher_product(grasped, in_place)
  rew = jnp.where(lifted, rew + 1.0 + 5.0 * in_place, rew)
  rew = jnp.where(obj_to_target < TARGET_RADIUS, 10.0, rew)
  return rew, R.info(
    obj_to_target <= TARGET_RADIUS,
    tcp_to_obj <= 0.05,
    (opened > 0) & (obj[..., 2] - 0.03 > init[..., 2]),
    grasped,
    in_place,
    obj_to_target,
    rew,
  )


def valid(rand_vec):
  return jnp.linalg.norm(rand_vec[:2] - rand_vec[3:5]) >= 0.15


CARRY_Z = 0.32  # the ball's centre while it is carried: its bottom above the ring (z 0.26) and the hoop's
# reward target (z 0.3, in_place's z doubled) within reach


def scripted(obs):
  """Grasp the ball, lift it straight up, carry it over the ring, lower it to the reward's target height.

  Memoryless phases read from the observation (tcp = hand - 0.045 in z; the goal = the ring's centre):
  - not over the ball (xy error > 0.015) and not holding it: go there, the hand 0.1 m above the ball, open;
  - over it: descend until the hand is 0.02 above the ball's centre (the pads around its equator, the hand
    at its lowest, 0.05, for a ball on the table), then close;
  - held (opening < 0.75 and the ball within 0.06 of the hand's xy-z grasp point): lift straight up until
    the ball is at CARRY_Z - 0.02, then move the ball over the ring at CARRY_Z, then down to 0.3.
  """
  hand, opening, ball, goal = obs[..., 0:3], obs[..., 3:4], obs[..., 4:7], obs[..., 36:39]
  grasp_off = jnp.array([0.0, 0.0, 0.02])
  xy_err = jnp.linalg.norm(hand[..., :2] - ball[..., :2], axis=-1, keepdims=True)
  held = (jnp.linalg.norm(hand - (ball + grasp_off), axis=-1, keepdims=True) < 0.03) & (opening < 0.75)
  above = ball + jnp.array([0.0, 0.0, 0.1])
  down = ball + grasp_off
  at_ball = (xy_err < 0.015) & (hand[..., 2:3] < jnp.maximum(down[..., 2:3], 0.05) + 0.008)
  high = ball[..., 2:3] > CARRY_Z - 0.02
  over = jnp.linalg.norm(ball[..., :2] - goal[..., :2], axis=-1, keepdims=True) < 0.02
  lift_to = jnp.concatenate([hand[..., :2], jnp.full_like(hand[..., 2:3], CARRY_Z + 0.04)], -1)
  ring_at = jnp.concatenate(
    [goal[..., :2], jnp.where(over, REWARD_TARGET_Z, CARRY_Z) + 0 * goal[..., 2:3]], -1
  )
  carry = jnp.where(high | over, hand + (ring_at - ball), lift_to)
  to = jnp.where(held, carry, jnp.where(xy_err > 0.015, above, jnp.where(at_ball, hand, down)))
  delta = move(hand, to, 25.0)
  grip = jnp.where(held | at_ball, 1.0, -1.0)
  return jnp.concatenate([delta, grip], -1)


TASK = Task(
  name="basketball-v3",
  objects_xml=OBJECTS_XML,
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.1, 0.85 - 0.083, 0.2499),
  goal_high=(0.1, 0.9 + 1e-7 - 0.083, 0.2501),
  rand_low=(-0.1, 0.6, 0.0299, -0.1, 0.85, 0.0),
  rand_high=(0.1, 0.7, 0.0301, 0.1, 0.9 + 1e-7, 0.0),
  place=place,
  objects=objects,
  reward=reward,
  valid=valid,
)
