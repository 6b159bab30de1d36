"""A scripted pick-and-place controller for the block world (no learning).

It solves push, pick-and-place and stack by picking each unplaced block in turn (stack: bottom level
first), turning the wrist to the block's yaw modulo 90 degrees, carrying it over its goal, turning to the
goal yaw, and lowering and releasing it (or holding it, for a goal in the air). It reads privileged state.
"""

from __future__ import annotations

from mjx_envs.blocks import goals as G
from mjx_envs.blocks.scene import BLOCK_HALF, TABLE_Z
from mjx_envs.scripted import Controller

import jax.numpy as jnp
import numpy as np

ABOVE, DESCEND, CLOSE, LIFT, CARRY, LOWER, RELEASE, RETREAT = range(8)
CARRY_Z = TABLE_Z + 0.16
GRASP_DEPTH = 0.012  # tcp this far below the block centre when grasping


def _yaw_mod90(quat):
  """Yaw of a block's horizontal face normal, defined modulo 90 degrees."""
  r = G._quat_to_mat(quat)  # pylint: disable=protected-access
  col = jnp.where(jnp.abs(r[2, 0]) < 0.7, r[:, 0], r[:, 1])
  return jnp.arctan2(col[1], col[0])


def _nearest_equivalent(target, current, period=np.pi / 2):
  """target + k * period closest to current, kept inside the wrist's [-pi, pi] range."""
  k = jnp.round((current - target) / period)
  out = target + k * period
  return jnp.where(out > np.pi, out - period, jnp.where(out < -np.pi, out + period, out))


def scripted_controller(env) -> Controller:
  """Controller for a `BlocksEnv` goal task (see `mjx_envs.scripted`)."""
  c = env.config
  n = env.num_objects

  def init(state):
    del state
    return {"phase": jnp.int32(ABOVE), "obj": jnp.int32(0), "timer": jnp.int32(0)}

  def act(carry, state):
    data, info = state.pipeline_state, state.info
    goal = info["goal"][:n]
    achieved = state.obs["achieved_goal"][:n]
    placed = env._placed(state.obs["achieved_goal"], info["goal"])[:n]  # pylint: disable=protected-access
    # Order of work: lowest goal first (bottom of a tower first), skipping placed blocks.
    order = jnp.argsort(goal[:, 2] + 10.0 * placed)
    phase, timer = carry["phase"], carry["timer"]
    obj = jnp.where(phase == ABOVE, order[0], carry["obj"])
    tcp = env.gripper.tcp_pos(data)
    wrist_yaw = info["wrist"][0]
    block = achieved[obj]
    target_pose = goal[obj]
    # Only pick-and-place has goals in the air; a tower's upper levels are put down and released.
    in_air = (target_pose[2] > TABLE_Z + BLOCK_HALF + 0.01) & (env.task == "pick_and_place")

    grasp_yaw = _nearest_equivalent(_yaw_mod90(block[3:]), wrist_yaw)
    # While carrying, turn by the block-to-goal yaw difference (mod 90) from the current wrist yaw.
    delta = _nearest_equivalent(_yaw_mod90(target_pose[3:]) - _yaw_mod90(block[3:]), 0.0)
    place_yaw = jnp.clip(wrist_yaw + delta, -np.pi, np.pi)
    above_block = block[:3] + jnp.array([0.0, 0.0, 0.1])
    grasp = block[:3] - jnp.array([0.0, 0.0, GRASP_DEPTH])
    over_goal = jnp.concatenate([target_pose[:2], jnp.array([jnp.maximum(CARRY_Z, target_pose[2])])])
    at_goal = target_pose[:3] - jnp.array([0.0, 0.0, GRASP_DEPTH - 0.004])

    lifted = jnp.concatenate([grasp[:2], jnp.array([CARRY_Z])])
    targets = jnp.stack(
      [above_block, grasp, grasp, lifted, over_goal, at_goal, at_goal, at_goal + jnp.array([0.0, 0.0, 0.1])]
    )
    target = targets[phase]
    yaw_target = jnp.where(phase <= CLOSE, grasp_yaw, jnp.where(phase <= LIFT, wrist_yaw, place_yaw))
    yaw_target = jnp.where(phase >= RELEASE, wrist_yaw, yaw_target)
    err = jnp.linalg.norm(target - tcp)
    yaw_err = jnp.abs(yaw_target - wrist_yaw)
    closed = (phase >= CLOSE) & (phase <= LOWER)

    near = err < jnp.where(phase == CARRY, 0.01, 0.006)
    advance = jnp.select(
      [
        phase == ABOVE,
        phase == DESCEND,
        phase == CLOSE,
        phase == LIFT,
        phase == CARRY,
        phase == LOWER,
        phase == RELEASE,
        phase == RETREAT,
      ],
      [
        near & (yaw_err < 0.03),
        near,
        timer >= 5,
        err < 0.02,
        near & (yaw_err < 0.03),
        near & ~in_air,
        timer >= 4,
        err < 0.02,
      ],
    )
    # A block that slipped out while lifting or carrying: start again on that block.
    lost = ((phase == LIFT) | (phase == CARRY)) & (jnp.linalg.norm(block[:3] - tcp) > 0.04)
    next_phase = jnp.where(advance, (phase + 1) % 8, phase)
    next_phase = jnp.where(lost, ABOVE, next_phase)
    timer = jnp.where(next_phase == phase, timer + 1, 0)

    a_pos = jnp.clip((target - tcp) / c["max_position_change"], -1.0, 1.0)
    a_yaw = jnp.clip((yaw_target - wrist_yaw) / c["max_rotation_change"], -1.0, 1.0)
    a_pitch = jnp.clip(-info["wrist"][1] / c["max_rotation_change"], -1.0, 1.0)
    a_finger = jnp.where(closed, -1.0, 1.0)
    action = jnp.concatenate([a_pos, jnp.stack([a_yaw, a_pitch, a_finger])])
    # Everything placed: back off upwards with open fingers and leave the scene alone.
    done = jnp.all(placed) & (phase <= DESCEND)
    action = jnp.where(done, jnp.array([0.0, 0.0, 0.5, 0.0, 0.0, 1.0]), action)
    if c["action_bins"] is not None:
      action = jnp.round((action + 1.0) / 2.0 * (c["action_bins"] - 1))
    return action, {
      "phase": next_phase.astype(jnp.int32),
      "obj": obj.astype(jnp.int32),
      "timer": timer.astype(jnp.int32),
    }

  return Controller(init, act)
