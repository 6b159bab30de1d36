"""handle-pull-v3: pull a handle, sticking out of a box facing the robot, up from its lowest position.

Reference: metaworld 3.1.1 `SawyerHandlePullEnvV3` (reward version v2), model
`sawyer_xyz/sawyer_handle_press.xml` with `objects/assets/handle_press.xml` (handle-press-v3's). Facts used:
- The handle-press box (`_handle.py`, which holds its facts and deliberate differences), not rotated.
- rand_vec = the box position, uniform in (-0.1, 0.8, -0.001) .. (0.1, 0.9, 0.001) (no rejection rule);
  obj_init_pos = rand_vec (the box, not the handle); the handle at -0.1; target_pos = site `goalPull`.
- hand_init_pos (0, 0.6, 0.2); hand bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5) (the mocap bounds too);
  goal space (-0.1, 0.55, 0.04) .. (0.1, 0.7, 0.18).
- Observation: object = site `handleRight` (on the grip, 5 cm along +x from its middle), quaternion zeros.
- Reward v2: in_place = tolerance(|target z - obj z|, (0, 0.05), margin |target z - obj_init_pos z|,
  long_tail); grasped = the Sawyer caging reward (pad_success_thresh 0.05, obj_radius 0.022,
  object_reach_radius 0.01, xz_thresh 0.01, high_density); reward = hamacher(grasped, in_place), + 1 + 5
  in_place where |obj - tcp| < 0.035, obs[3] > 0 and obj y - 0.01 > obj_init_pos z (the reference compares
  y with z), 10 where |target z - obj z| < 0.05. Success: |target z - obj z| <= 0.05. Info: near_object
  |obj - tcp| <= 0.05, grasp_success obs[3] > 0 and obj z - 0.03 > obj_init_pos z, grasp_reward
  grasped, in_place_reward in_place.

Deliberate differences: the box's (`_handle.py`), the hand's (`sawyer.py`).

The scripted controller (written for this model): `_handle.grasp_lift` at the observed point (the grip's
end beyond the lever, where the pads, closing along y, can clamp the grip), lifting it to the goal.
Measured (benchmarks/scripted_success.py, C backend, 100 episodes of 500
steps, 2026-11-26): 100/100; the reference's own policy in the reference succeeds at steps 90-106 (the
fixture's three scripted episodes). Parity (fixture `metaworld_reference_press`): reward and info within
the default 1e-4; the first observed handle pose: test_metaworld_parity.py's FIRST_OBS_ATOL.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import _handle

import jax.numpy as jnp

TARGET_RADIUS = 0.05
READS = ("tcp_center", "target_pos", "obj_init_pos", "left_pad", "right_pad", "init_tcp")


def pull_place(euler_z: float, obj_site: str, obj_init_is_handle: bool):
  """place(env, d, rand_vec) of a handle-pull task: the handle down (-0.1), target = site `goalPull`;
  obj_init_pos the box position, or (the side task) the observed site at the reset."""

  def place(env, d, rand_vec):
    d = _handle.place_box(env, d, rand_vec, -0.1)
    target = rand_vec + jnp.asarray(_handle.site_offset(euler_z, "goalPull"))
    start = rand_vec + jnp.asarray(_handle.site_offset(euler_z, "handleStart", -0.1))
    init = (
      rand_vec + jnp.asarray(_handle.site_offset(euler_z, obj_site, -0.1)) if obj_init_is_handle else rand_vec
    )
    return d, {"target_pos": target, "obj_init_pos": init, "maxDist": jnp.abs(start[2] - target[2])}

  return place


def pull_reward(obs, action, reads, full: bool, pad_thresh: float, obj_radius: float, success_dist: float):
  """The two pull tasks' v2 reward: `full` measures the distance to the target in 3-D (the side task) rather
  than in z; the bonus's height test compares obj y (z with `full`) with obj_init_pos z, as the reference."""
  obj, target, init = obs[..., 4:7], reads["target_pos"], reads["obj_init_pos"]
  if full:
    target_to_obj = jnp.linalg.norm(obj - target, axis=-1)
    target_to_obj_init = jnp.linalg.norm(init - target, axis=-1)
  else:
    target_to_obj = jnp.abs(target[..., 2] - obj[..., 2])
    target_to_obj_init = jnp.abs(target[..., 2] - init[..., 2])
  in_place = R.tolerance(
    target_to_obj, bounds=(0, TARGET_RADIUS), margin=target_to_obj_init, sigmoid="long_tail"
  )
  grasped = R.gripper_caging_reward(action, obj, reads, obj_radius, pad_thresh, 0.01, 0.01, high_density=True)
  rew = R.hamacher_product(grasped, in_place)
  tcp_to_obj = jnp.linalg.norm(obj - reads["tcp_center"], axis=-1)
  height = obj[..., 2] if full else obj[..., 1]
  bonus = (tcp_to_obj < 0.035) & (obs[..., 3] > 0) & (height - 0.01 > init[..., 2])
  rew = jnp.where(bonus, rew + 1.0 + 5.0 * in_place, rew)
  rew = jnp.where(target_to_obj < TARGET_RADIUS, 10.0, rew)
  grasp_success = (obs[..., 3] > 0) & (obj[..., 2] - 0.03 > init[..., 2])
  return rew, R.info(
    target_to_obj <= success_dist, tcp_to_obj <= 0.05, grasp_success, grasped, in_place, target_to_obj, rew
  )


def reward(obs, action, reads):
  return pull_reward(obs, action, reads, False, 0.05, 0.022, TARGET_RADIUS)


def scripted(obs):
  obj, goal = obs[..., 4:7], obs[..., 36:39]
  point = obj + jnp.array([0.002, 0.0, -0.014])  # the grip's axis under handleRight
  return _handle.grasp_lift(obs, point, goal[..., 2] - 0.008)


TASK = Task(
  name="handle-pull-v3",
  objects_xml=_handle.box_xml(0.0),
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.1, 0.55, 0.04),
  goal_high=(0.1, 0.70, 0.18),
  rand_low=(-0.1, 0.8, -0.001),
  rand_high=(0.1, 0.9, 0.001),
  place=pull_place(0.0, "handleRight", False),
  objects=_handle.site_objects("handleRight"),
  reward=reward,
)
