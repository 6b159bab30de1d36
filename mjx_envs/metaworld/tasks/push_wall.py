"""push-wall-v3: bring a puck on the table to a goal on the table behind a wall.

Reference: metaworld 3.1.1 `SawyerPushWallEnvV3` (reward version v2), `sawyer_push_wall_v3.xml`.

Reference facts used:
- rand_vec = [puck xyz, goal xyz] from (-0.05, 0.6, 0.015, -0.05, 0.85, 0.01) .. (0.05, 0.65, 0.015, 0.05,
  0.9, 0.02), redrawn while puck and goal are within 0.15 m in xy (never, with these ranges: kept).
  reset_model as push-v3's: obj_init_pos = [rand x, rand y, the puck's geom z after the hand reset (it
  rests at its model position)], target_pos = [goal x, goal y, that same z]; the drawn z's are unused.
  hand_init_pos (0, 0.6, 0.2), hand and mocap bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5).
- The puck: push-v3's (cylinder radius 0.02, half-height 0.02, mass 0.75); observation: the geom's xpos
  and scipy's `as_quat` of its xmat. The wall: `_wall.py`.
- Reward v2: midpoint = (-0.05, 0.77, obj z) (around the wall's free end, x < -0.02); in_place_part1 =
  tolerance(|(obj - midpoint) * (3, 1, 1)|, (0, 0.05), margin |(obj_init - midpoint) * (3, 1, 1)|,
  long_tail); in_place_part2 = tolerance(|obj - target|, (0, 0.05), margin |obj_init - target|,
  long_tail); object_grasped = the base `_gripper_caging_reward` (obj_radius 0.015, pad_success_thresh
  0.05, object_reach_radius 0.01, xz_thresh 0.005, high_density); reward = 2 grasped; when |tcp - obj|
  < 0.02 and opening > 0: 2 grasped + 1 + 4 part1, and if obj y > 0.75: 2 grasped + 5 + 3 part2; 10 when
  |obj - target| < 0.05. Info: success |obj - target| <= 0.07 (not push-v3's 0.05), near_object |tcp -
  obj| <= 0.03, grasp_success = touching_main_object and opening > 0 and obj z - 0.02 > obj_init z,
  grasp_reward = grasped, in_place_reward = part2.

JAX equivalent of a contact check: touching_main_object as push-v3's (`push.touching`), info only.

Deliberate differences: the puck is a box of the cylinder's half-sizes (push-v3's); the wall one box.

Checks: reward and info parity on the fixture `metaworld_reference_walls`: 40 records (both shaping
branches, obj y below and above 0.75, among them), max |difference| 1.8e-6 in the reward, success and
grasp_success exact. `scripted` below (it lifts
the puck over the wall rather than around it): success 100/100 episodes (benchmarks/
scripted_success.py, C backend, 500 steps); the reference's own policy in the reference: 10/10.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import TCP_BELOW_HAND, Task
from mjx_envs.metaworld.tasks import push
from mjx_envs.metaworld.tasks._wall import HAND, PUCK_HIGH, PUCK_LOW, WALL_BACK_Y, WALL_TOP, WALL_XML

import jax.numpy as jnp

TARGET_RADIUS = 0.05
READS = push.READS
OBJECTS_XML = push.OBJECTS_XML + WALL_XML

PUCK_HALF = 0.02
CARRY_Z = WALL_TOP + PUCK_HALF + 0.03  # the puck's centre while it crosses the wall
CROSS_Y = WALL_BACK_Y + PUCK_HALF + 0.02  # the puck's centre past the wall (its rear pad too)


def midpoint_tolerance(obj, init, midpoint, scale):
  """in_place_part1 of the wall tasks: |(obj - midpoint) * scale| against its value at obj_init."""
  scale = jnp.asarray(scale, jnp.float32)
  return R.tolerance(
    jnp.linalg.norm((obj - midpoint) * scale, axis=-1),
    bounds=(0, TARGET_RADIUS),
    margin=jnp.linalg.norm((init - midpoint) * scale, axis=-1),
    sigmoid="long_tail",
  )


def wall_terms(obs, action, reads, midpoint, scale, high_density):
  """obj, opening, |tcp - obj|, |obj - target|, in_place_part1 (towards `midpoint` [..., 3], axes scaled by
  `scale`), in_place_part2 and the caging reward (`push.puck_terms`) of the two puck wall tasks."""
  obj, opened, init = obs[..., 4:7], obs[..., 3], reads["obj_init_pos"]
  tcp_to_obj, obj_to_target, part2, grasped = push.puck_terms(obs, action, reads, high_density)
  part1 = midpoint_tolerance(obj, init, midpoint, scale)
  return obj, opened, tcp_to_obj, obj_to_target, part1, part2, grasped


def reward(obs, action, reads):
  z = obs[..., 6]
  midpoint = jnp.stack([jnp.full_like(z, -0.05), jnp.full_like(z, 0.77), z], -1)
  obj, opened, tcp_to_obj, obj_to_target, part1, part2, grasped = wall_terms(
    obs, action, reads, midpoint, (3.0, 1.0, 1.0), high_density=True
  )
  near = (tcp_to_obj < 0.02) & (opened > 0)
  rew = jnp.where(
    near,
    jnp.where(obj[..., 1] > 0.75, 2 * grasped + 5.0 + 3.0 * part2, 2 * grasped + 1.0 + 4.0 * part1),
    2 * grasped,
  )
  rew = jnp.where(obj_to_target < TARGET_RADIUS, 10.0, rew)
  return rew, push.puck_info(obs, reads, tcp_to_obj, obj_to_target, grasped, part2, rew, 0.07)


def over_the_wall(obs):
  """Grip the puck as push-v3's controller does (`push.grip_then`), lift it straight up until its bottom
  clears the wall, carry it at that height until it is past the wall (y > CROSS_Y), then bring it to the
  goal (tcp at the goal). Memoryless phases read from the observation."""
  hand, obj, goal = obs[..., 0:3], obs[..., 4:7], obs[..., 36:39]
  below = jnp.array([0.0, 0.0, TCP_BELOW_HAND])
  # The hand's height that puts the puck (not the tcp) at CARRY_Z: the puck sags in the grip, by 1.1 cm
  # below the tcp in C MuJoCo and 1.6 cm in MJX-JAX (free hand, 2026-11-28), and aiming the tcp at CARRY_Z
  # left MJX-JAX's puck under the `low` bar, lifting for ever at the wall.
  carry_hand_z = hand[..., 2:3] + CARRY_Z - obj[..., 2:3]
  lift = jnp.concatenate([obj[..., :2], carry_hand_z], -1)
  cross = jnp.concatenate([goal[..., :1], jnp.maximum(goal[..., 1:2], CROSS_Y + 0.02), carry_hand_z], -1)
  low = (obj[..., 2:3] < CARRY_Z - 0.015) & (obj[..., 1:2] < WALL_BACK_Y)
  before = obj[..., 1:2] < CROSS_Y
  return push.grip_then(obs, jnp.where(before, jnp.where(low, lift, cross), goal + below))


scripted = over_the_wall


def puck_wall_task(name, goal_low, goal_high, place, reward):
  """push-wall-v3's and pick-place-wall-v3's Task: the puck (push-v3's) and the wall."""
  return Task(
    name=name,
    objects_xml=OBJECTS_XML,
    **HAND,
    goal_low=goal_low,
    goal_high=goal_high,
    rand_low=PUCK_LOW + goal_low,
    rand_high=PUCK_HIGH + goal_high,
    place=place,
    objects=push.objects,
    reward=reward,
    reads=push.reads,
    valid=push.valid,
    touch_geoms=("objGeom",),
  )


TASK = puck_wall_task("push-wall-v3", (-0.05, 0.85, 0.01), (0.05, 0.9, 0.02), push.place, reward)
