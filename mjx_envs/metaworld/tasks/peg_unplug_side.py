"""peg-unplug-side-v3: pull a plug sideways (+x) out of the socket of a wall box.

Reference: metaworld 3.1.1 `SawyerPegUnplugSideEnvV3` (reward version v2), `sawyer_peg_unplug_side.xml`,
`objects/assets/plug.xml` and `plug_wall.xml` (NOT peg-insert-side's peg and box: a different plug and
wall).

Reference facts used:
- rand_vec = the wall box's position from (-0.25, 0.6, -0.001) .. (-0.15, 0.8, 0.001) (no rejection rule);
  hand_init_pos (0, 0.6, 0.2), hand_low (-0.5, 0.4, 0.05), hand_high (0.5, 1, 0.5); goal space = box space
  + (0.194, 0, 0.131).
- reset_model: the box body moves to rand_vec; the plug's free joint to box + (0.044, 0, 0.131), identity
  orientation, at rest; obj_init_pos = site pegEnd then (box + (0.084, 0, 0.131)); target_pos = plug +
  (0.15, 0, 0); maxPlacingDist = |target - obj_init_pos| (v1 only; in ctx for the fixture).
- Plug: body `plug1` with a free joint (no damping), compiled mass 0.08 (inertia (1.3045e-4, 1.3045e-4,
  4.4152e-5) at (-0.012875, 0, 0), principal axes quat (0, 0.70713, 0, 0.70709)); collision geoms of
  class plug_col (condim 3, solref 0.01 1, solimp 0.99 0.99 0.01, friction 1 / 0.005 / 0.0001): sphere
  r 0.03 at (-0.035, 0, 0), a disk (cylinder r 0.045, half-length 0.007 along x) at (-0.013, 0, 0), sphere
  r 0.04 at (0.06, 0, 0), a box 0.035 x 0.038 x 0.038 (x y z half sizes once turned) at (0.025, 0, 0);
  sites pegHead (-0.04, 0, 0), pegEnd (0.04, 0, 0). Observation: site pegEnd and plug1's xquat
  ([w, x, y, z]).
- Wall: body `box`, its `plug_wall` child 0.099 up holding five plug_col boxes that leave a 0.044 x 0.044
  socket through the wall along x (box frame y within 0.022, z 0.109 .. 0.153 (0.099 + 0.01 .. 0.054)).
- Reward v2: obj = pegEnd; caging (obj_radius 0.025, pad_success_thresh 0.05, object_reach_radius 0.01,
  xz_thresh 0.005, desired_gripper_effort 0.8, high_density); in_place = tolerance(|obj - target|, (0,
  0.05), margin |obj_init - target|, long_tail); grasp_success = opening > 0.5 and obj x - obj_init x >
  0.015; reward = 2 grasped, 1 + 2 grasped + 5 in_place when grasp_success and |tcp - obj| < 0.035, 10
  when |obj - target| <= 0.05. success |obj - target| <= 0.07, near_object |tcp - obj| <= 0.03.

Deliberate differences:
- The wall is a mocap body placed through `mocap_pos` (the reference edits model.body_pos); its boxes do
  not collide with the table (contype 0; both fixed).
- The plug's disk (a cylinder in the reference) is a box of half sizes 0.007 x 0.04 x 0.04 (the disk's
  area; MJX-JAX's cylinder collisions are limited). It rests on the wall's face as the disk does.
- The plug's inertial is given explicitly as the reference's compiled one (its visual meshes dropped).

Checks (fixture `metaworld_reference_tools`): reward and every info value on the reference's recorded
states within the default 1e-4; reset ranges equal; the first observed plug pose within 1.01e-3 m and
1.02e-2 in the quaternion (the reference's plug is pushed out of the socket's sides as it settles; our
reset_to observes the placed pose). `scripted` below (benchmarks/scripted_success.py, C backend, 100
episodes of 500 steps, 2026-11-26): 100/100; it succeeds near step 70. The reference's own policy in the
reference: first successes at steps 98-124 in 4 of the fixture's 6 episodes.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks.push import move, set_free_pos

import jax.numpy as jnp

PLUG_FROM_BOX = (0.044, 0.0, 0.131)
END_FROM_PLUG = (0.04, 0.0, 0.0)
TARGET_FROM_PLUG = (0.15, 0.0, 0.0)

_COL = 'condim="3" solref="0.01 1" solimp="0.99 0.99 0.01" friction="1 0.005 0.0001"'
_WALL = f'type="box" contype="0" conaffinity="1" {_COL} rgba="0.6 0.6 0.6 1"'
OBJECTS_XML = f"""
    <body name="plug1" pos="-0.256 0.6 0.131">
      <freejoint name="plugjoint"/>
      <inertial pos="-0.012875 0 0" quat="0 0.70712515 0 0.70708842" mass="0.08"
                diaginertia="1.30451254e-04 1.30451250e-04 4.41516629e-05"/>
      <geom name="plug_tail" type="sphere" size="0.03" pos="-0.035 0 0" {_COL} rgba="0.65 0.51 0.24 1"/>
      <geom name="plug_disk" type="box" size="0.007 0.04 0.04" pos="-0.013 0 0" {_COL} rgba="0.25 0.25 0.25 1"/>
      <geom name="plug_head" type="sphere" size="0.04" pos="0.06 0 0" {_COL} rgba="0.25 0.25 0.25 1"/>
      <geom name="plug_body" type="box" size="0.035 0.038 0.038" pos="0.025 0 0" {_COL}
            rgba="0.25 0.25 0.25 1"/>
      <site name="pegHead" pos="-0.04 0 0" size="0.005" rgba="0.8 0 0 1"/>
      <site name="pegEnd" pos="0.04 0 0" size="0.005" rgba="0.8 0 0 1"/>
    </body>
    <body name="box" mocap="true" pos="-0.3 0.6 0">
      <body name="plug_wall" pos="0 0 0.099">
        <geom {_WALL} pos="0 0.061 0.032" size="0.025 0.039 0.022"/>
        <geom {_WALL} pos="0 0 0.077" size="0.025 0.1 0.023"/>
        <geom {_WALL} pos="0 0 -0.045" size="0.025 0.1 0.055"/>
        <geom {_WALL} pos="0 0.056 -0.016" size="0.025 0.045 0.011"/>
        <geom {_WALL} pos="0 -0.061 0.032" size="0.025 0.039 0.022"/>
        <site name="hole" pos="0.02 0 0.03" size="0.005" rgba="0 0.8 0 1"/>
      </body>
    </body>"""

READS = ("tcp_center", "target_pos", "obj_init_pos", "left_pad", "right_pad", "init_tcp")


def place(env, d, rand_vec):
  box = rand_vec[:3]
  plug = box + jnp.asarray(PLUG_FROM_BOX, jnp.float32)
  d = set_free_pos(env, d, "plugjoint", plug, (1.0, 0.0, 0.0, 0.0))
  mocap = env.mj_model.body("box").mocapid[0]
  d = d.replace(mocap_pos=d.mocap_pos.at[mocap].set(box))
  obj_init = plug + jnp.asarray(END_FROM_PLUG, jnp.float32)
  target = plug + jnp.asarray(TARGET_FROM_PLUG, jnp.float32)
  ctx = {
    "target_pos": target,
    "obj_init_pos": obj_init,
    "maxPlacingDist": jnp.linalg.norm(target - obj_init),
  }
  return d, ctx


def objects(env, d):
  m = env.mj_model
  return d.site_xpos[m.site("pegEnd").id], d.xquat[m.body("plug1").id]


def reward(obs, action, reads):
  obj, opened = obs[..., 4:7], obs[..., 3]
  tcp, target, init = reads["tcp_center"], reads["target_pos"], reads["obj_init_pos"]
  tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
  obj_to_target = jnp.linalg.norm(obj - target, axis=-1)
  grasped = R.gripper_caging_reward(
    action,
    obj,
    reads,
    obj_radius=0.025,
    pad_success_thresh=0.05,
    object_reach_radius=0.01,
    xz_thresh=0.005,
    desired_gripper_effort=0.8,
    high_density=True,
  )
  margin = jnp.linalg.norm(init - target, axis=-1)
  in_place = R.tolerance(obj_to_target, bounds=(0, 0.05), margin=margin, sigmoid="long_tail")
  grasp_success = (opened > 0.5) & (obj[..., 0] - init[..., 0] > 0.015)
  rew = 2.0 * grasped
  rew = jnp.where(grasp_success & (tcp_to_obj < 0.035), 1.0 + 2.0 * grasped + 5.0 * in_place, rew)
  rew = jnp.where(obj_to_target <= 0.05, 10.0, rew)
  return rew, R.info(
    obj_to_target <= 0.07, tcp_to_obj <= 0.03, grasp_success, grasped, in_place, obj_to_target, rew
  )


def scripted(obs):
  """Straddle the plug's body with the pads, close, and pull it out along +x.

  Memoryless phases (hand = obs[0:3], tcp 0.045 below it; pegEnd = obs[4:7], in the plug's body block):
  - the hand not over pegEnd (xy error > 0.02): go there 0.1 m above it, open;
  - over it and the tcp not yet down at pegEnd's height (within 0.02; the fingers stop on the plug's
    head about 1 cm above it): descend, open;
  - down: close; once the pads clamp the 0.076 m block (opening < 0.9; it settles near 0.84), move
    towards the goal + 0.05 m in x (past it).
  """
  hand, opening, obj, goal = obs[..., 0:3], obs[..., 3:4], obs[..., 4:7], obs[..., 36:39]
  tcp = hand - jnp.array([0.0, 0.0, 0.045])
  xy_err = jnp.linalg.norm(hand[..., :2] - obj[..., :2], axis=-1, keepdims=True)
  down = jnp.abs(tcp[..., 2:3] - obj[..., 2:3]) < 0.02
  over = xy_err < 0.02
  above = obj + jnp.array([0.0, 0.0, 0.145])
  at = obj + jnp.array([0.0, 0.0, 0.045])
  closed = opening < 0.9
  pull = hand + (goal + jnp.array([0.05, 0.0, 0.0]) - obj)
  to = jnp.where(over & down, jnp.where(closed, pull, hand), jnp.where(over, at, above))
  grip = jnp.where(over & down, 1.0, -1.0)
  return jnp.concatenate([move(hand, to, 25.0), grip], -1)


TASK = Task(
  name="peg-unplug-side-v3",
  objects_xml=OBJECTS_XML,
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.25 + 0.194, 0.6, -0.001 + 0.131),
  goal_high=(-0.15 + 0.194, 0.8, 0.001 + 0.131),
  rand_low=(-0.25, 0.6, -0.001),
  rand_high=(-0.15, 0.8, 0.001),
  place=place,
  objects=objects,
  reward=reward,
)
