"""handle-press-v3: press a handle, sticking out of a box facing the robot, down.

Reference: metaworld 3.1.1 `SawyerHandlePressEnvV3` (reward version v2), model
`sawyer_xyz/sawyer_handle_press.xml` with `objects/assets/handle_press.xml`. Facts used:
- The handle-press box (`_handle.py`, which holds its facts and deliberate differences), not rotated.
- rand_vec = the box position, uniform in (-0.1, 0.8, -0.001) .. (0.1, 0.9, 0.001) (no rejection rule);
  the handle at -0.001; target_pos = site `goalPress`; `_handle_init_pos` = site `handleStart` at the
  reset; maxDist = |handleStart z - target z| (read by no v2 reward; kept in ctx).
- hand_init_pos (0, 0.6, 0.2); hand bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5) (the mocap bounds too);
  goal space (-0.1, 0.55, 0.04) .. (0.1, 0.7, 0.08).
- Observation: object = site `handleStart` (the grip's top), quaternion zeros.
- Reward v2 (reads the live site, not the clipped observation): in_place = tolerance(|obj z - target z|,
  (0, 0.02), margin |(init z distance) - 0.02|, long_tail); reach = tolerance(|obj - tcp|, (0, 0.02),
  margin ||_handle_init_pos - init_tcp| - 0.02|, long_tail); reward = 10 hamacher(reach, in_place), 10
  where |obj z - target z| <= 0.02 (success). Info: near_object |obj - tcp| <= 0.05, grasp_success 1,
  grasp_reward reach, in_place_reward in_place.

Deliberate differences: the box's (`_handle.py`), the hand's (`sawyer.py`).

The scripted controller (written for this model): the gripper closed; the pads' bottom (the tcp) to 4 cm
above the grip's top, then down through it to 3 cm below the goal. Measured (benchmarks/scripted_success.py, C backend, 100 episodes of 500
steps, 2026-11-26): 100/100; the reference's own policy in the reference succeeds at steps 24-36 (the
fixture's three scripted episodes). Parity (fixture `metaworld_reference_press`): reward and info within
the default 1e-4; the first observed handle pose: test_metaworld_parity.py's FIRST_OBS_ATOL.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import _handle

import jax.numpy as jnp

RADIUS = 0.02  # the reference's TARGET_RADIUS and handle_radius
READS = ("site:handleStart", "tcp_center", "target_pos", "_handle_init_pos", "init_tcp")


def press_place(euler_z: float):
  """place(env, d, rand_vec) of a handle-press task."""

  def place(env, d, rand_vec):
    d = _handle.place_box(env, d, rand_vec, -0.001)
    target = rand_vec + jnp.asarray(_handle.site_offset(euler_z, "goalPress"))
    start = rand_vec + jnp.asarray(_handle.site_offset(euler_z, "handleStart", -0.001))
    ctx = {"target_pos": target, "obj_init_pos": rand_vec, "_handle_init_pos": start}
    return d, {**ctx, "maxDist": jnp.abs(start[2] - target[2])}

  return place


def reward(obs, action, reads):
  del obs, action
  obj, target, start = reads["site:handleStart"], reads["target_pos"], reads["_handle_init_pos"]
  target_to_obj = jnp.abs(obj[..., 2] - target[..., 2])
  in_place = R.within(target_to_obj, RADIUS, jnp.abs(start[..., 2] - target[..., 2]))
  tcp_to_obj = jnp.linalg.norm(obj - reads["tcp_center"], axis=-1)
  reach = R.within(tcp_to_obj, RADIUS, jnp.linalg.norm(start - reads["init_tcp"], axis=-1))
  success = target_to_obj <= RADIUS
  rew = 10 * jnp.where(success, 1.0, R.hamacher_product(reach, in_place))
  return rew, R.info(success, tcp_to_obj <= 0.05, 1.0 + 0 * rew, reach, in_place, target_to_obj, rew)


def scripted(obs):
  hand, obj, goal = obs[..., 0:3], obs[..., 4:7], obs[..., 36:39]
  tcp = hand - jnp.array([0.0, 0.0, 0.045])
  over = jnp.linalg.norm(tcp[..., :2] - obj[..., :2], axis=-1) < 0.01
  z = jnp.where(over, goal[..., 2] - 0.03, jnp.maximum(obj[..., 2] + 0.04, tcp[..., 2]))
  return _handle.move_tcp(hand, jnp.concatenate([obj[..., :2], z[..., None]], -1), 1.0)


TASK = Task(
  name="handle-press-v3",
  objects_xml=_handle.box_xml(0.0),
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.1, 0.55, 0.04),
  goal_high=(0.1, 0.70, 0.08),
  rand_low=(-0.1, 0.8, -0.001),
  rand_high=(0.1, 0.9, 0.001),
  place=press_place(0.0),
  objects=_handle.site_objects("handleStart"),
  reward=reward,
  reads=_handle.site_reads("handleStart"),
)
