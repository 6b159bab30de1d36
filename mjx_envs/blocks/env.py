"""The tabletop block world of asymmetric self-play (SPEC section 1) as a pure-function MJX env.

Tasks (config `task`):
  None              goal-free world for a goal-setting agent (Alice): obs has no goal, reward 0.
  'push'            goals on the table, rotation compared modulo 90 degrees (cube symmetry).
  'flip'            goals turn another labelled face up; full rotation compared.
  'pick_and_place'  one goal block lifted 0.05-0.25 m; the others stay.
  'stack'           a tower of 2-4 blocks.

Action (6-D): 3-D relative gripper position, wrist yaw and pitch steps, relative finger opening.
Continuous in [-1, 1] by default; `action_bins=11` takes integer bins 0..10 per dimension instead.
The gripper's mocap target moves to the new pose in equal steps over the substeps, and is kept where the
gripper's lowest point (a pitched finger's edge) stays 3 mm above the table.

Observation (dict):
  robot [17]          tcp pos (3), tcp lin. vel (3), tcp quat (4), finger openings (2), finger vels (2),
                      wrist yaw and pitch targets (2), finger target (1)
  objects [S, 17]     per object: pos (3), quat (4), lin. vel (3), ang. vel (3; world frame), pos
                      relative to the tcp (3), gripped flag (1: touching both fingers); zero rows for
                      padding. S = 8 (MAX_OBJECTS, the paper's padded layout) or, with
                      `pad_objects=False`, num_objects: no padded rows
  object_mask [S]     1.0 for real objects
  observation [17+17S] robot + objects flattened (goal-independent, so hindsight relabelling is exact)
  achieved_goal [8,7], desired_goal [8,7]  (goal tasks only) position + quaternion per object; see
                      `goal_features` for the per-object goal inputs of SPEC section 1.

Reward (goal tasks), Bob's sparse reward: per object +1 on reaching its goal, -1 on leaving it again
(so the per-object sum over an episode is at most 1), and +5 on the step all objects are placed.
Written as a difference of "placed" indicators between the previous and current achieved goal, which
`compute_reward` takes through `info['prev_achieved_goal']`, so it is pure and re-scores relabelled goals.
"""

from __future__ import annotations

from mjx_envs import gripper as gripper_lib
from mjx_envs.blocks import goals as G
from mjx_envs.blocks.scene import BLOCK_HALF, MAX_OBJECTS, TABLE_HALF, TABLE_POS, TABLE_Z, scene_xml
from mjx_envs.core import ConfigError, GoalEnv, State, check_impl, sanitize_action

from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from brax import math as bmath

TASKS = (None, "push", "flip", "pick_and_place", "stack")
ROBOT_SIZE = 17
OBJECT_SIZE = 17
GRIP_CONTACT_DIST = 0.0  # a finger touches a block where their contact distance is <= this (metres)


def default_config() -> dict[str, Any]:
  return dict(
    task="push",
    num_objects=1,
    action_bins=None,  # None: continuous [-1, 1]; 11: multi-categorical bins
    episode_length=None,  # None: 200 steps per object (Bob's budget in the paper)
    sim_dt=0.008,
    n_substeps=5,  # control step = 0.04 s, as robogym
    iterations=5,  # constraint solver iterations (Newton; 4 until 2026-11-23, then 3;
    # 5 since 2026-11-24: impratio 3 diverges under pinches with fewer)
    ls_iterations=4,  # solver line-search iterations (6 before 2026-11-23)
    cone="pyramidal",  # friction cone: "pyramidal" or "elliptic"
    impratio=3.0,  # MuJoCo's friction-to-normal impedance ratio; 1 (before 2026-11-23) let a
    # held block creep down the pads (see scene.py's docstring)
    condim=3,  # block and finger contacts: 3 (sliding friction) or 4 (+ torsional;
    # before 2026-11-23). See scene.py's docstring for the measured cost.
    impl="auto",  # physics: "auto" (C MuJoCo on a CPU, MJX-JAX on GPU/TPU), "c", "jax"
    # or "warp" (the optional [warp] extra)
    warp_max_envs=None,  # impl="warp": the most envs in one batch (Warp's contact buffer;
    # None: 1024; train.py sets it from num_envs)
    max_position_change=0.05,  # metres per step at |action| = 1
    max_rotation_change=0.2,  # radians per step at |action| = 1
    max_finger_change=0.02,  # metres per step at |action| = 1
    action_smoothing=1.0,  # EMA weight of the new action; robogym uses 0.3
    table_portion=1.0,
    rotation=None,  # success compares rotations "full" or modulo the cube's 24 symmetries
    # ("symmetric"); None: by task (full for flip, symmetric otherwise)
    pos_threshold=0.04,
    rot_threshold=0.2,
    terminate_on_success=True,
    terminate_on_fall=True,
    # Rows of obs["objects"] / ["object_mask"]: True pads them to MAX_OBJECTS (the paper's layout, for
    # learners that mix worlds of several block counts); False gives num_objects rows. The object
    # encoder's cost is per row, so a 1-block world padded to 8 spends ~5x its network compute on
    # padding (BENCHMARKS.md, "Padded object rows"). Goals stay [MAX_OBJECTS, 7] either way.
    pad_objects=True,
  )


def make_env(**config) -> BlocksEnv:
  return BlocksEnv(**config)


class BlocksEnv(GoalEnv):
  """Block world; see the module docstring. Config keys: `default_config()`."""

  def __init__(self, **config):
    c = {**default_config(), **config}
    if c["task"] not in TASKS:
      raise ConfigError(f"task must be one of {TASKS}, got {c['task']!r}")
    n = c["num_objects"]
    if not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_OBJECTS:
      raise ConfigError(f"num_objects must be an int in 1..{MAX_OBJECTS}, got {n!r}")
    if c["task"] == "stack" and not 2 <= n <= 4:
      raise ConfigError(f"num_objects must be 2..4 for the stack task, got {n}")
    if c["action_bins"] is not None and (not isinstance(c["action_bins"], int) or c["action_bins"] < 2):
      raise ConfigError(f"action_bins must be None or an int >= 2, got {c['action_bins']!r}")
    for key in (
      "sim_dt",
      "max_position_change",
      "max_rotation_change",
      "max_finger_change",
      "pos_threshold",
      "rot_threshold",
    ):
      if not c[key] > 0:
        raise ConfigError(f"{key} must be > 0, got {c[key]!r}")
    if not 0 < c["action_smoothing"] <= 1:
      raise ConfigError(f"action_smoothing must be in (0, 1], got {c['action_smoothing']!r}")
    for key in ("n_substeps", "iterations", "ls_iterations", "warp_max_envs"):
      if key == "warp_max_envs" and c[key] is None:
        continue
      if not isinstance(c[key], int) or c[key] < 1:
        raise ConfigError(f"{key} must be an int >= 1, got {c[key]!r}")
    if not isinstance(c["pad_objects"], bool):
      raise ConfigError(f"pad_objects must be True or False, got {c['pad_objects']!r}")
    if c["rotation"] not in (None, "full", "symmetric"):
      raise ConfigError(f"rotation must be None, 'full' or 'symmetric', got {c['rotation']!r}")
    if c["cone"] not in ("pyramidal", "elliptic"):
      raise ConfigError(f"cone must be 'pyramidal' or 'elliptic', got {c['cone']!r}")
    impratio = c["impratio"]
    if isinstance(impratio, bool) or not isinstance(impratio, (int, float)) or not impratio >= 1:
      raise ConfigError(f"impratio must be a number >= 1, got {c['impratio']!r}")
    if c["condim"] not in (3, 4) or isinstance(c["condim"], bool):
      raise ConfigError(f"condim must be 3 or 4, got {c['condim']!r}")
    check_impl(c["impl"])
    if not 0.1 * n <= c["table_portion"] <= 1.0:
      raise ConfigError(f"table_portion must be in [0.1 * num_objects, 1], got {c['table_portion']}")
    nx, ny = G.grid_shape(c["table_portion"])
    if nx * ny < 2 * n + 1:
      raise ConfigError(
        f"table_portion={c['table_portion']} leaves {nx * ny} placement cells; "
        f"{2 * n + 1} are needed for {n} objects"
      )
    self.config = c
    self.task = c["task"]
    self.num_objects = int(n)
    self.episode_length = int(c["episode_length"] or 200 * n)
    self.symmetric = c["rotation"] == "symmetric" if c["rotation"] else self.task != "flip"
    mj_model = mujoco.MjModel.from_xml_string(
      scene_xml(
        n,
        c["sim_dt"],
        c["iterations"],
        c["ls_iterations"],
        labelled_faces=self.task == "flip",
        cone=c["cone"],
        condim=c["condim"],
        impratio=c["impratio"],
      )
    )
    # Contacts read (`_gripped`): left finger - block i, then right finger - block i, for each block.
    blocks = [[mj_model.geom(f"object{i}").id] for i in range(n)]
    pairs = [([mj_model.geom("finger_l").id], b) for b in blocks] + [
      ([mj_model.geom("finger_r").id], b) for b in blocks
    ]
    super().__init__(
      mj_model,
      c["n_substeps"],
      impl=c["impl"],
      warp_max_envs=c["warp_max_envs"],
      c_fields=("xquat", "site_xpos", "site_xmat", "geom_xpos", "geom_xmat"),
      contact_pairs=pairs,
    )
    self.gripper = gripper_lib.Gripper.from_model(mj_model)
    self._obj_qpos = np.array([mj_model.joint(f"object{i}").qposadr[0] for i in range(n)])
    self._obj_qvel = np.array([mj_model.joint(f"object{i}").dofadr[0] for i in range(n)])
    self._data0 = None

  # --- sizes -------------------------------------------------------------------------------------
  @property
  def action_size(self) -> int:
    return 6

  @property
  def is_goal_env(self) -> bool:
    return self.task is not None

  # --- reset -------------------------------------------------------------------------------------
  def reset(self, rng: jax.Array) -> State:
    """Random non-overlapping blocks, a random gripper pose above the table, a fresh goal."""
    k_cells, k_yaw, k_grip, k_goal = jax.random.split(rng, 4)
    n = self.num_objects
    xy = G.sample_cells(k_cells, n, self.config["table_portion"])
    yaw = jax.random.uniform(k_yaw, (n,), minval=-np.pi, maxval=np.pi)
    start = G.on_table(xy, G.yaw_quat(yaw))
    low, high = G.placement_area(self.config["table_portion"])
    grip_xy = jax.random.uniform(k_grip, (2,), minval=low, maxval=high)
    grip_pos = jnp.concatenate([grip_xy, jnp.array([TABLE_Z + 0.15])])
    grip_quat = jnp.array([1.0, 0.0, 0.0, 0.0])
    finger = jnp.float32(gripper_lib.MAX_OPENING * 0.8)

    qpos = jnp.asarray(self.mj_model.qpos0)
    qpos = qpos.at[self._obj_qpos[:, None] + np.arange(7)].set(start)
    qpos = self.gripper.set_pose(qpos, grip_pos, grip_quat)
    qpos = qpos.at[np.array(self.gripper.finger_qpos)].set(finger)
    data = self.make_data().replace(
      qpos=qpos,
      ctrl=jnp.full((self.mj_model.nu,), finger),
      mocap_pos=grip_pos[None],
      mocap_quat=grip_quat[None],
    )
    data = self.reset_forward(data)

    goal = G.pad(
      G.make_goal(k_goal, self.task, start, n, self.config["table_portion"]) if self.task else start
    )
    info = {
      "wrist": jnp.zeros(2),
      "finger_target": finger,
      "prev_action": jnp.zeros(6),
      "start": G.pad(start),
      "goal": goal,
      "diverged": jnp.zeros(()),
    }
    achieved = self._achieved(data)
    info["prev_achieved_goal"] = achieved
    obs = self._obs(data, info)
    zero = jnp.zeros(())
    metrics = {"is_success": zero, "objects_placed": zero, "bad_action": zero, "off_table": zero}
    return State(data, obs, zero, zero, metrics, info)

  # --- step --------------------------------------------------------------------------------------
  def step(self, state: State, action: jax.Array) -> State:
    c = self.config
    info = state.info
    action, bad = self._decode_action(action)
    a = c["action_smoothing"] * action + (1 - c["action_smoothing"]) * info["prev_action"]
    data = state.pipeline_state
    wrist = jnp.clip(
      info["wrist"] + a[3:5] * c["max_rotation_change"],
      jnp.array([-np.pi, -np.pi / 4]),
      jnp.array([np.pi, np.pi / 4]),
    )
    finger = jnp.clip(info["finger_target"] + a[5] * c["max_finger_change"], 0.0, gripper_lib.MAX_OPENING)
    quat = bmath.quat_mul(G.yaw_quat(wrist[0]), bmath.quat_rot_axis(jnp.array([1.0, 0.0, 0.0]), wrist[1]))
    tcp = self.gripper.tcp_pos(data)
    target = tcp + a[:3] * c["max_position_change"]
    # Keep the gripper's lowest point (not just the tcp: a pitched wrist puts a finger's outer edge below
    # it) 3 mm above the table, for the commanded orientation and the wider of the current and commanded
    # finger openings (the fingers move during the step).
    opening = jnp.maximum(finger, jnp.max(self.gripper.fingers(data)))
    floor = TABLE_Z + 0.003 - gripper_lib.lowest_point(quat, opening)
    lo = jnp.stack([TABLE_POS[0] - TABLE_HALF[0], TABLE_POS[1] - TABLE_HALF[1], floor])
    hi = jnp.array([TABLE_POS[0] + TABLE_HALF[0], TABLE_POS[1] + TABLE_HALF[1], TABLE_Z + 0.4])
    target = jnp.clip(target, lo, hi)
    # The mocap target moves to the new pose in equal steps over the substeps, not in one jump (which
    # makes the stiff weld jerk the gripper into the blocks), as in the Fetch env.
    data = self.physics_step(
      data,
      ctrl=jnp.full((self.mj_model.nu,), finger),
      mocap_pos=target[None],
      mocap_quat=quat[None],
      interpolate_mocap=True,
    )
    diverged = self.diverged(data)
    info = {
      **info,
      "wrist": wrist,
      "finger_target": finger,
      "prev_action": a,
      "diverged": diverged.astype(jnp.float32),
    }

    achieved = self._achieved(data)
    placed = self._placed(achieved, info["goal"])
    success = jnp.all(placed)
    off = self._off_table(achieved)
    reward = self.compute_reward(achieved, info["goal"], info) if self.is_goal_env else jnp.zeros(())
    info["prev_achieved_goal"] = achieved
    done = jnp.zeros((), bool)
    if self.is_goal_env and c["terminate_on_success"]:
      done = done | success
    if c["terminate_on_fall"]:
      done = done | jnp.any(off)
    obs = jax.tree.map(lambda x: jnp.nan_to_num(x, posinf=0.0, neginf=0.0), self._obs(data, info))
    metrics = {
      **state.metrics,
      "is_success": success.astype(jnp.float32),
      "objects_placed": jnp.sum(placed[: self.num_objects]).astype(jnp.float32),
      "bad_action": bad,
      "off_table": jnp.any(off).astype(jnp.float32),
    }
    return state.replace(
      pipeline_state=data, obs=obs, reward=reward, done=done.astype(jnp.float32), metrics=metrics, info=info
    )

  def _decode_action(self, action):
    action = jnp.asarray(action)
    bins = self.config["action_bins"]
    if bins is None:
      return sanitize_action(action.astype(jnp.float32))
    # Integer bins: non-finite -> middle bin, out-of-range -> clipped; both counted.
    a = action.astype(jnp.float32)
    clean, bad = sanitize_action(a, 0.0, bins - 1)
    clean = jnp.where(jnp.isfinite(a), clean, (bins - 1) / 2)
    return jnp.round(clean) / (bins - 1) * 2.0 - 1.0, bad

  # --- goals and rewards -------------------------------------------------------------------------
  def compute_reward(self, achieved_goal, desired_goal, info: Mapping[str, Any]):
    """Bob's sparse reward [...] for goals [..., 8, 7]; needs info['prev_achieved_goal'] [..., 8, 7]."""
    now = self._placed(achieved_goal, desired_goal)
    before = self._placed(info["prev_achieved_goal"], desired_goal)
    per_object = jnp.sum(now.astype(jnp.float32) - before.astype(jnp.float32), -1)
    completed = jnp.all(now, -1) & ~jnp.all(before, -1)
    return per_object + 5.0 * completed.astype(jnp.float32)

  def is_success(self, achieved_goal, desired_goal):
    """1.0 where every object is within the thresholds; goals [..., 8, 7]."""
    return jnp.all(self._placed(achieved_goal, desired_goal), -1).astype(jnp.float32)

  def _placed(self, achieved, desired):
    return G.object_success(
      achieved, desired, self.config["pos_threshold"], self.config["rot_threshold"], self.symmetric
    )

  def _off_table(self, achieved):
    pos = achieved[: self.num_objects, :3]
    below = pos[:, 2] < 0.75 * TABLE_Z
    outside = jnp.any(jnp.abs(pos[:, :2] - TABLE_POS[:2]) > TABLE_HALF[:2], -1)
    return below | outside

  # --- observations ------------------------------------------------------------------------------
  def _achieved(self, data) -> jax.Array:
    poses = data.qpos[self._obj_qpos[:, None] + np.arange(7)]
    return G.pad(poses)

  def _obs(self, data, info) -> dict[str, jax.Array]:
    g = self.gripper
    n = self.num_objects
    tcp = g.tcp_pos(data)
    fingers = g.fingers(data)
    poses = data.qpos[self._obj_qpos[:, None] + np.arange(7)]
    vels = data.qvel[self._obj_qvel[:, None] + np.arange(6)]
    # A free joint's angular velocity (qvel[3:6]) is in the body frame; report it in the world frame,
    # as robogym and the Fetch env do.
    vels = jnp.concatenate([vels[:, :3], jax.vmap(bmath.rotate)(vels[:, 3:], poses[:, 3:])], -1)
    rel = poses[:, :3] - tcp
    objects = jnp.concatenate([poses, vels, rel, self._gripped(data, rel)[:, None]], -1)
    rows = MAX_OBJECTS if self.config["pad_objects"] else n
    objects = jnp.concatenate([objects, jnp.zeros((rows - n, OBJECT_SIZE))], 0)
    mask = (jnp.arange(rows) < n).astype(jnp.float32)
    robot = jnp.concatenate(
      [
        tcp,
        g.tcp_vel(data),
        data.xquat[self.mj_model.body("gripper").id],
        fingers,
        g.finger_vel(data),
        info["wrist"],
        info["finger_target"][None],
      ]
    )
    obs = {
      "robot": robot,
      "objects": objects,
      "object_mask": mask,
      "observation": jnp.concatenate([robot, objects.reshape(-1)]),
    }
    if self.is_goal_env:
      obs["achieved_goal"] = self._achieved(data)
      obs["desired_goal"] = info["goal"]
    return obs

  def _gripped(self, data, rel) -> jax.Array:
    """[n] 1.0 for each block touching both fingers, as the paper's observation (from the contacts of
    the last substep); `rel` [n, 3]: block positions relative to the tcp (used by the Warp fallback)."""
    if self.impl == "warp":
      # MJX-Warp keeps one contact buffer for the whole vmapped batch, which one env cannot pick its own
      # contacts from: keep the geometric test (the block sits between the pads and both are closed on
      # it; it misses diagonal grasps).
      g = self.gripper
      fingers = g.fingers(data)
      local = jnp.einsum("ji,nj->ni", g.tcp_xmat(data), rel)
      between = (jnp.abs(local[:, 0]) < BLOCK_HALF) & (jnp.abs(local[:, 2] - 0.02) < 0.03)
      pinched = jnp.abs(local[:, 1]) + BLOCK_HALF + 0.004 > jnp.max(fingers)
      return (between & pinched & (jnp.max(fingers) < BLOCK_HALF + 0.004)).astype(jnp.float32)
    # MJX: every candidate geom pair has its slots, with dist > 0 when apart; C: the contact list.
    dist, _ = self.pair_contacts(data)
    touching = dist <= GRIP_CONTACT_DIST
    left, right = touching[: self.num_objects], touching[self.num_objects :]
    return (left & right).astype(jnp.float32)


GOAL_FEATURES = 14  # the width of goal_features' rows


def goal_features(obs: Mapping[str, jax.Array]) -> jax.Array:
  """Per-object goal inputs [..., S, 14] for Bob (SPEC section 1): desired pos (3) and quat (4), position
  relative to the goal (3) and the relative rotation quaternion (4). Zero rows for padding. S, the rows
  of `object_mask`, is 8 or num_objects (`pad_objects`); the goals' [8, 7] rows are cut to it."""
  mask = obs["object_mask"]
  rows = mask.shape[-1]
  ag, dg = obs["achieved_goal"][..., :rows, :], obs["desired_goal"][..., :rows, :]
  rel_pos = dg[..., :3] - ag[..., :3]
  rel_rot = jnp.vectorize(bmath.relative_quat, signature="(4),(4)->(4)")(ag[..., 3:], dg[..., 3:])
  feats = jnp.concatenate([dg, rel_pos, rel_rot], -1)
  return feats * mask[..., None]
