"""Scripted hide-and-seek teams (no learning), the proof that walls and locked boxes block sight and
passage: in `HideAndSeekQuadrant`, the hiders drag the room's boxes into its doors during the
preparation phase and lock them; the seekers chase the nearest hider once they may move.

    policy = quadrant_policy(env)      # policy(state) -> actions dict, one world (vmap it for a batch)

The controllers read the true state (positions, doors, grabs), not the agents' observations.
"""

from __future__ import annotations

from mjx_envs.hide_and_seek import scene as S
from mjx_envs.hide_and_seek.env import N_BINS, NEUTRAL_BIN, HideAndSeekEnv

import itertools

import jax
import jax.numpy as jnp
import numpy as np

_STEP = 2 * S.ACTION_LIM / (N_BINS - 1)


def to_bins(ctrl):
  """Controls in [-0.9, 0.9] -> the nearest movement bins (int32)."""
  return jnp.clip(jnp.round(ctrl / _STEP) + NEUTRAL_BIN, 0, N_BINS - 1).astype(jnp.int32)


def drive(pos, vel, goal, gain: float = 4.0, damping: float = 0.4):
  """Force bins [..., 2] steering agents at `pos` [..., 2] with velocity `vel` towards `goal`."""
  return to_bins(jnp.clip(gain * (goal - pos) - damping * vel, -S.ACTION_LIM, S.ACTION_LIM))


def turn(yaw, target_yaw, gain: float = 2.0):
  """Torque bins [...] turning agents from `yaw` to face `target_yaw`."""
  err = jnp.mod(target_yaw - yaw + jnp.pi, 2 * jnp.pi) - jnp.pi
  return to_bins(jnp.clip(gain * err, -S.ACTION_LIM, S.ACTION_LIM))


def _facing(frm, to):
  d = to - frm
  return jnp.arctan2(d[..., 1], d[..., 0])


def quadrant_policy(env: HideAndSeekEnv):
  """policy(state) -> actions for one quadrant world: hiders block the doors with the boxes and lock
  them, then hide in the room's corner farthest from the doors; seekers chase the nearest hider."""
  if env.layout != "quadrant":
    raise ValueError("quadrant_policy drives the quadrant layout")
  A, B = env.num_agents, env.n_boxes
  H = env.n_hiders
  if B < 2 or H < 2:
    raise ValueError("quadrant_policy needs at least 2 hiders and 2 boxes")
  aj, oj = env._agent_j, env._obj_j  # pylint: disable=protected-access
  h = S.FLOOR_SIZE / 2
  inset = S.WALL_HALF_T + S.BOX_HALF + 0.01
  hiders = np.arange(H)
  perms = np.array(list(itertools.permutations(range(2))))

  def policy(state):
    d, info = state.pipeline_state, state.info
    q, v = d.qpos, d.qvel
    pos, yaw, vel = q[aj[:, :2]], q[aj[:, 3]], v[aj[:, :2]]
    box = q[oj[:B, :2]]
    centres, open_ = env.door_centres(state)
    # The box poses that plug the doors, from inside the room, 1 cm short of the wall.
    plug = centres + jnp.array([[inset, 0.0], [0.0, -inset]])
    # Two doors: boxes 0, 1 to the doors by the cheaper matching; one door: the nearer box goes, the
    # other box's target is where it stands.
    cost = jnp.array([jnp.sum(jnp.linalg.norm(box[p] - plug, axis=-1)) for p in perms])
    door_of_box = jnp.asarray(perms)[jnp.argmin(cost)]  # [2]
    target = plug[door_of_box]
    needed = open_[door_of_box]
    only = jnp.argmax(open_)
    nearer = jnp.argmin(jnp.linalg.norm(box[:2] - plug[only], axis=-1))
    one = jnp.sum(open_) == 1
    needed = jnp.where(one, jnp.arange(2) == nearer, needed)
    target = jnp.where(one, jnp.where((jnp.arange(2) == nearer)[:, None], plug[only], box[:2]), target)
    # Hiders to boxes by the cheaper matching.
    hcost = jnp.array([jnp.sum(jnp.linalg.norm(pos[hiders[:2]][p] - box[:2], axis=-1)) for p in perms])
    box_of_hider = jnp.asarray(perms)[jnp.argmin(hcost)]  # [2]

    locked = info["locked"][:2] > 0
    placed = (jnp.linalg.norm(box[:2] - target, axis=-1) < 0.08) | locked | ~needed
    moves, grabs, locks, torques = [], [], [], []
    spots = jnp.array([[S.FLOOR_SIZE - 0.45, 0.45], [h + 0.45, 0.45], [S.FLOOR_SIZE - 0.45, h - 0.45]])
    far = jnp.min(
      jnp.linalg.norm(spots[:, None] - jnp.where(open_[:, None], centres, 1e3)[None], axis=-1), -1
    )
    hide = spots[jnp.argmax(far)]
    for i in range(2):
      b = box_of_hider[i]
      p, bx, tgt = pos[i], box[b], target[b]
      direction = (tgt - bx) / jnp.maximum(jnp.linalg.norm(tgt - bx), 1e-6)
      behind = bx - direction * (
        S.BOX_HALF * (jnp.abs(direction[0]) + jnp.abs(direction[1])) + S.AGENT_RADIUS + 0.04
      )
      # Come round the box rather than through it: aim beside it first while on its far side.
      side = jnp.array([-direction[1], direction[0]])
      side = jnp.where(jnp.dot(p - bx, side) < 0, -side, side)
      far_side = jnp.dot(p - bx, direction) > -0.1
      approach = jnp.where(far_side, bx + side * 0.55 - direction * 0.2, behind)
      holding = info["grabbed"][i] == b
      err = jnp.mod(_facing(p, bx) - yaw[i] + jnp.pi, 2 * jnp.pi) - jnp.pi
      # Grab squarely (the box dead ahead), so that the welded box keeps its heading while dragged.
      at_box = (jnp.linalg.norm(p - behind) < 0.1) & (jnp.abs(err) < 0.2)
      drag_goal = p + (tgt + direction * 0.02 - bx)
      goal = jnp.where(placed[b], hide + jnp.array([0.0, 0.4 * i]), jnp.where(holding, drag_goal, approach))
      moves.append(drive(p, vel[i], goal))
      face = jnp.where(placed[b] & locked[b], _facing(p, goal), _facing(p, bx))
      # While dragging, hold the heading: turning would swing the welded box.
      torques.append(jnp.where(holding & ~placed[b], NEUTRAL_BIN, turn(yaw[i], face)))
      grabs.append((~placed[b] & (holding | at_box)).astype(jnp.int32))
      locks.append((placed[b] & needed[b]).astype(jnp.int32))
    move = jnp.full((A, 3), NEUTRAL_BIN, jnp.int32)
    move = move.at[:2, :2].set(jnp.stack(moves)).at[:2, 2].set(jnp.stack(torques))
    grab = jnp.zeros(A, jnp.int32).at[:2].set(jnp.stack(grabs))
    lock = jnp.zeros(A, jnp.int32).at[:2].set(jnp.stack(locks))
    # Extra hiders hide; seekers chase the nearest present hider.
    if H > 2:
      move = move.at[2:H, :2].set(drive(pos[2:H], vel[2:H], hide))
    on = info["agent_on"] > 0
    hider_pos = jnp.where(on[:H, None], pos[:H], 1e3)
    for s in range(H, A):
      nearest = hider_pos[jnp.argmin(jnp.linalg.norm(hider_pos - pos[s], axis=-1))]
      move = move.at[s, :2].set(drive(pos[s], vel[s], nearest, gain=10.0))
      move = move.at[s, 2].set(turn(yaw[s], _facing(pos[s], nearest)))
    return {"move": move, "grab": grab, "lock": lock}

  return policy


def seekers_chase(env: HideAndSeekEnv):
  """policy(state) -> actions: hiders stand still, seekers chase the nearest hider (any layout)."""
  A, H = env.num_agents, env.n_hiders
  aj = env._agent_j  # pylint: disable=protected-access

  def policy(state):
    q, v = state.pipeline_state.qpos, state.pipeline_state.qvel
    pos, yaw, vel = q[aj[:, :2]], q[aj[:, 3]], v[aj[:, :2]]
    on = state.info["agent_on"] > 0
    hider_pos = jnp.where(on[:H, None], pos[:H], 1e3)
    nearest = hider_pos[jnp.argmin(jnp.linalg.norm(hider_pos[None] - pos[:, None], axis=-1), -1)]
    move = jnp.concatenate(
      [drive(pos, vel, nearest, gain=10.0), turn(yaw, _facing(pos, nearest))[:, None]], -1
    )
    move = jnp.where((jnp.arange(A) < H)[:, None], NEUTRAL_BIN, move)
    return {"move": move, "grab": jnp.zeros(A, jnp.int32), "lock": jnp.zeros(A, jnp.int32)}

  return policy


def rollout(env, policy, state, num_steps: int):
  """Runs `policy(state) -> actions` for `num_steps` steps (jittable; vmap over worlds outside).
  Returns (final state, the stacked states after each step)."""

  def body(s, _):
    s = env.step(s, policy(s))
    return s, s

  return jax.lax.scan(body, state, None, length=num_steps)
