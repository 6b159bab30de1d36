"""The hide-and-seek transfer suite (seed 004, section 6.2 and appendix C): five single-agent tasks in the
hide-and-seek world (same agent body, boxes, ramps, walls, grab, lock, lidar and vision), registered as

    HnsObjectCounting   HnsLockAndReturn   HnsSequentialLock   HnsBlueprint   HnsShelter

    env = mjx_envs.make("HnsBlueprint")
    state = env.reset(key)
    state = env.step(state, {"move": int [1, 3], "grab": [1], "lock": [1]})

Each is a `HideAndSeekEnv` (env.py) with one agent, the hider body (slot 0, no seekers, no preparation
phase), so the API, the physics and the observation dict are the game's (A = 1): `self`, `agents`,
`boxes`, `ramps`, their masks, `lidar` and the omniscient `*_full` / `*_present` arrays. As in the paper
(appendix C: "we add fake hider observations, preparation phase observations and set them all to 0")
the hider flag and the preparation time left read 0 in `self` (and the flag in `agents_full`). Rewards
are [1]; `info["success"]` and `metrics["is_success"]` (what `wrappers.EpisodeStats` reads on the last
step) are 1.0 on a step where the task counts as solved. Episode lengths are `env.episode_length`
(truncation is the wrappers' job); only Blueprint terminates early (`done` 1 on completion).

Tasks as implemented (numbers from the paper's appendix C unless marked "ours"):
- HnsObjectCounting (120 steps): the agent is pinned (joint ranges frozen) at (3, 0.8) facing +y. Six
  cubes wait hidden behind a wall (y = 4.6); one by one (every 10 steps from step 5) a cube appears in
  front of the agent at (3, 3.6) and slides over 8 steps to the left or the right (a fair coin each),
  where it disappears behind the occluding walls (y = 2.4, x < 2.4 and x > 3.6) and is stored out of
  sight. The boxes are scripted (locked at their scripted pose each step). Label: `info["label"]`, the
  number of cubes that went left (0..6), valid (`info["label_valid"]`) once all are hidden (step 64 on).
  The paper trains a classifier head on the frozen policy's LSTM state; the env computes no reward
  unless the action carries an optional `"count"` [1] (0..6): then reward 1 and success 1 on each step
  where the label is valid and the count equals it, else 0.
- HnsLockAndReturn (120 steps): random rooms with 6 rooms (5 inner walls with doors; our generator,
  scene.random_rooms, kept to layouts with exactly 6 rooms), one cube, no ramps. Reward: +5 when the box
  gets locked, -5 when it gets unlocked, -5 on the last step (t = episode_length) if it is unlocked, +1
  per step of success, plus 0.5 x the decrease of the agent's distance to its target (the box centre
  while unlocked, the start position while locked). Success: box locked and agent within 0.1 m (xy) of
  where it started.
- HnsSequentialLock (120 steps): the floor split into 3 rooms by 2 door-less walls (ours: one full
  wall x = a, a in [2, 4], and one wall y = b, b in [2, 4], across one side of it), a ramp in each room,
  4 cubes anywhere. A hidden random order (`info["order"]`): only the next box in order (the first not
  locked) can be locked; locked boxes can be unlocked (the game's rule). Reward +5 per box locked, -5 per
  box unlocked, +1 per step with all 4 locked, plus 0.5 x the decrease of the distance to the next box.
  Success: all 4 locked.
- HnsBlueprint (240 steps, ends early on completion): an empty room, 8 cubes, 1..4 construction sites
  (cube-sized squares, axis-aligned, not overlapping each other or the spawned boxes, centres in the
  middle 85% of the floor). Extra observations: `sites` [1, 4, 15] (the site's centre and its 4 corners,
  x y z each, z = the cube's half height) and `sites_mask` [1, 4]. Reward per step:
  -0.05 x mean over site corners i of the smooth minimum (alpha = -1.5) over box corners j of d_ij; on
  completion (every site has a box centre within 0.1 m and every site corner a box corner within 0.1
  m) +3 x k (k sites) and done. Success: completion.
- HnsShelter (150 steps): an empty room, 3 elongated and 5 cubic boxes, a static objective of diameter
  d ~ U[1.5, 2] m placed inside the middle 70% of the floor. 100 rays (25 per side) from evenly spaced
  points 1.01 grid cells in from the arena's edges aim at the objective's centre; reward -0.001 x the
  number of rays that reach it. Extra observation: `objective` [1, 4] (x, y, z, half width). Success
  (ours; the paper defines none): no ray reaches the objective.

Deliberate differences from the paper / reference, and why:
- Units: the package's 6 m floor (the reference's floor_size 6, grid 30; cubes 0.5 m). The paper's
  distances (0.1 m radii, 1.5-2 m diameter) are taken as metres on this floor.
- Shelter's objective is a square pillar (a wall-pool box, static) of the same footprint area as the
  cylinder (side d * sqrt(pi) / 2), 0.5 m tall like the reference's cylinder: the scene has no
  cylinder geom, and MJX's box-cylinder collisions are not supported. Its rays are analytic segment
  tests against the boxes and the agent (the room is empty, so nothing else can block them), not
  MuJoCo rays: C's mj_multiRay misses geoms whose bounding sphere holds the ray origin (seen here: an
  elongated box 0.77 m from the origin, rbound 0.87, missed by 8 of 100 rays that mj_ray and mjx.ray
  hit). Rays run at z = 0.25 m (mid-height of boxes and pillar; the reference's start at z = 0). The agent
  observes the objective (`objective`); the reference exposes it only through lidar.
- Object counting's script (walls, timings, storage slots) is ours: the paper gives only "pinned, 6
  boxes move left or right and disappear behind walls". Moving boxes are locked at scripted poses, so
  their velocities read ~0 and the lock flags are zeroed in the observation. The label and the
  optional `"count"` action stand in for the paper's supervised classifier head.
- Lock and Return's success is the current step's (a step in the radius with the box locked), so an
  episode's success is its last step's; the "-5 if unlocked at the end" needs t = episode_length (the
  TimeLimit the wrappers apply).
- Sequential lock's shaped reward targets the next box in the hidden order (the paper: "the same shaped
  distance reward as lock and return"); it leaks the order through the reward, not the observation.
  The room partition is our own; climbing over the 0.5 m walls on a ramp is physically possible in
  this scene (benchmarks/hide_and_seek_proofs.py climbs a 0.5 m box) but no test here drives it.
- Blueprint's dense reward is the negative of the paper's formula (its s_d * mean distance is a cost;
  the reference subtracts it). Distances are in the xy plane (box and site corners are footprint
  corners). Sites are all cube-sized (no elongated sites).
- The hider flag is 0 as in the paper; the agent keeps the hider body and colour. There is no
  out-of-area penalty (the outer walls keep the agent in).
"""

from __future__ import annotations

from mjx_envs.core import ConfigError, State
from mjx_envs.hide_and_seek import scene as S
from mjx_envs.hide_and_seek.env import NEUTRAL_BIN, HideAndSeekEnv, _place, default_config

from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

# Keys of the game's config a transfer task exposes (physics, sensing; the rest are fixed per task).
_EXPOSED = (
  "episode_length",
  "grab_radius",
  "vision_cone_deg",
  "n_lidar",
  "lidar_range",
  "sim_dt",
  "n_substeps",
  "gravity",
  "iterations",
  "ls_iterations",
  "max_contacts",
  "max_qvel",
  "impl",
)
_SINGLE = dict(n_hiders=[1, 1], n_seekers=[0, 0], prep_fraction=0.0, door_dropout=0.0)
_EMPTY_ROOM = dict(max_rooms=1, num_layouts=1, layout_seed=0, lock_ramps=False, n_elongated=[0, 0])
_F = S.FLOOR_SIZE
_NOWHERE = [-9.0, -8.0, -9.0, -8.0]


class _TransferEnv(HideAndSeekEnv):
  """One hider, no seekers, no preparation phase; the task's reward, success and extra observations."""

  _min_seekers = 0
  is_transfer_task = True  # (agents.mappo reports the task's success instead of the game's)
  has_reward = True  # False: no reward without the optional "count" action (object counting)
  FIXED: dict[str, Any] = {}  # game config keys the task fixes
  TASK: dict[str, Any] = {}  # the task's own keys, with defaults (episode_length among them)

  @classmethod
  def defaults(cls) -> dict[str, Any]:
    base = default_config("random_rooms")
    return {**{k: base[k] for k in _EXPOSED}, **cls.TASK}

  def __init__(self, **config):
    c = {**self.defaults(), **config}
    unknown = set(c) - set(self.defaults())
    if unknown:
      raise ConfigError(f"{type(self).__name__}: unknown config keys {sorted(unknown)}")
    game = {k: c[k] for k in _EXPOSED}
    game.update(_SINGLE, **{k: v for k, v in self.FIXED.items() if k not in game})
    super().__init__(layout="random_rooms", **game)
    self.task = {k: c[k] for k in self.TASK if k not in _EXPOSED}

  # --- hooks for the tasks ---------------------------------------------------------------------
  def _task_reset(self, state: State, key: jax.Array) -> State:
    """The task's initial world and info keys (from the game's reset)."""
    del key
    return state

  def _task_pre(self, state: State) -> State:
    """The state the game's step starts from (scripted objects)."""
    return state

  def _task_action(self, state: State, action: Mapping[str, jax.Array]) -> dict[str, jax.Array]:
    del state
    return {k: action[k] for k in ("move", "grab", "lock")}

  def _task_reward(self, prev: State, state: State, action) -> tuple[jax.Array, jax.Array, dict, dict]:
    """(reward scalar, success bool, info updates, metric updates) of the step prev -> state."""
    raise NotImplementedError

  def _task_obs(self, obs: dict, info: Mapping[str, jax.Array]) -> dict:
    """The game's observation with the fake hider and preparation observations zeroed; tasks add keys."""
    del info
    obs = dict(obs)
    obs["self"] = obs["self"].at[:, 9:11].set(0.0)
    obs["agents_full"] = obs["agents_full"].at[..., 9].set(0.0)
    return obs

  def _task_metrics(self) -> tuple[str, ...]:
    return ()

  # --- API ---------------------------------------------------------------------------------------
  def reset(self, rng: jax.Array) -> State:
    k_game, k_task = jax.random.split(rng)
    state = self._task_reset(super().reset(k_game), k_task)
    info = {**state.info, "success": jnp.zeros(())}
    zero = jnp.zeros(())
    metrics = {**state.metrics, "is_success": zero, **{k: zero for k in self._task_metrics()}}
    return state.replace(obs=self._task_obs(state.obs, info), info=info, metrics=metrics)

  def step(self, state: State, action: Mapping[str, jax.Array]) -> State:
    self.check_action(action)
    game_action = self._task_action(state, action)
    new = super().step(self._task_pre(state), game_action)
    reward, success, info_up, metric_up = self._task_reward(state, new, action)
    terminated = info_up.pop("terminated", jnp.zeros(()))
    diverged = new.info["diverged"] > 0
    success = success & ~diverged
    info = {**new.info, **info_up, "success": success.astype(jnp.float32)}
    metrics = {**new.metrics, **metric_up, "is_success": success.astype(jnp.float32)}
    reward = jnp.where(diverged, 0.0, reward).astype(jnp.float32)
    done = jnp.maximum(new.done, terminated)
    obs = self._task_obs(new.obs, info)
    obs = jax.tree.map(lambda x: jnp.where(diverged, jnp.zeros_like(x), x), obs)
    return new.replace(obs=obs, reward=jnp.full((1,), reward), done=done, info=info, metrics=metrics)

  def with_poses(self, state: State, *args, **kwargs) -> State:
    """The game's `with_poses` (entities moved and at rest, locks cleared), with the task's observation."""
    state = super().with_poses(state, *args, **kwargs)
    return state.replace(obs=self._task_obs(state.obs, state.info))

  # --- helpers -----------------------------------------------------------------------------------
  def _agent_xy(self, state: State) -> jax.Array:
    return state.pipeline_state.qpos[self._agent_j[0, :2]]

  def _box_xy(self, state: State) -> jax.Array:
    return state.pipeline_state.qpos[self._obj_j[: self.n_boxes, :2]]

  def _unused_walls(self, n: int):
    pos, size = S.unused_wall()
    return jnp.tile(jnp.asarray(pos, jnp.float32), (n, 1)), jnp.tile(jnp.asarray(size, jnp.float32), (n, 1))

  def _walls_from_segments(self, segs) -> tuple[jax.Array, jax.Array]:
    """Wall pool (pos, size) [n_walls, 3] with `segs` [k, 4] first and the rest unused."""
    pos, size = S.wall_boxes(segs)
    k = pos.shape[0]
    upos, usize = self._unused_walls(self.n_walls - k)
    return jnp.concatenate([pos, upos]), jnp.concatenate([size, usize])

  def _locks(self, prev: State, state: State):
    """(locked now [B] bool, newly locked [B], newly unlocked [B]) of the boxes."""
    B = self.n_boxes
    now, was = state.info["locked"][:B] > 0, prev.info["locked"][:B] > 0
    return now, now & ~was, ~now & was


# ==================================================================================== object counting
_PIN = (3.0, 0.8)  # the agent, facing +y
_SPAWN = (3.0, 3.6)  # where a box appears
_ENDS = ((1.5, 3.6), (4.5, 3.6))  # left, right: hidden from the agent
_OCCLUDERS = ((0.0, 2.4, 2.4, 2.4), (3.6, 2.4, _F, 2.4), (1.4, 4.6, 4.6, 4.6))  # left, right, garage
_GARAGE_X = 1.625 + 0.55 * np.arange(6)  # waiting boxes, behind the garage wall
_GARAGE_Y = 5.2
_STORE = np.array([(x, y) for y in (2.9, 3.45, 4.0) for x in (0.35, 0.9)])  # left storage; right: mirrored


class ObjectCounting(_TransferEnv):
  """Pinned agent; 6 boxes go left or right behind walls; predict how many went left. See the module."""

  has_reward = False  # only with the optional "count" action: a probe for a trained policy, not an RL task
  FIXED = dict(_EMPTY_ROOM, n_boxes=[6, 6], n_ramps=[0, 0])
  TASK = dict(episode_length=120, first_step=5, move_steps=8)

  def __init__(self, **config):
    super().__init__(**config)
    for k in ("first_step", "move_steps"):
      if not isinstance(self.task[k], int) or self.task[k] < 1:
        raise ConfigError(f"{k} must be an int >= 1, got {self.task[k]!r}")
    self.period = self.task["move_steps"] + 2
    self.all_hidden_step = self.task["first_step"] + 5 * self.period + self.task["move_steps"] + 1

  def check_action(self, action) -> None:
    if isinstance(action, Mapping) and "count" in action:
      action = {k: v for k, v in action.items() if k != "count"}
    super().check_action(action)

  def _sample_walls(self, key):
    del key
    return self._walls_from_segments(jnp.asarray(_OCCLUDERS, jnp.float32))

  def _lockable_now(self, info):
    del info
    return jnp.zeros(self.n_objects, bool)

  def _script(self, t, left):
    """Box poses [6, 4] at step t: waiting, sliding from the spawn point to its side, stored."""
    k = jnp.arange(6)
    s = t - (self.task["first_step"] + k * self.period)
    garage = jnp.stack([jnp.asarray(_GARAGE_X), jnp.full(6, _GARAGE_Y)], -1)
    spawn = jnp.asarray(_SPAWN)
    end = jnp.where(left[:, None], jnp.asarray(_ENDS[0]), jnp.asarray(_ENDS[1]))
    # Storage slot: the number of earlier boxes that went the same way.
    same = left[None, :] == left[:, None]
    slot = jnp.sum(same & (k[None, :] < k[:, None]), -1)
    store = jnp.asarray(_STORE)[slot]
    store = jnp.where(left[:, None], store, jnp.stack([_F - store[:, 0], store[:, 1]], -1))
    frac = jnp.clip(s / self.task["move_steps"], 0.0, 1.0)[:, None]
    slide = spawn + frac * (end - spawn)
    xy = jnp.where((s < 0)[:, None], garage, jnp.where((s <= self.task["move_steps"])[:, None], slide, store))
    return jnp.concatenate([xy, jnp.full((6, 1), S.BOX_HALF), jnp.zeros((6, 1))], -1)

  def _task_reset(self, state, key):
    info = dict(state.info)
    left = jax.random.bernoulli(key, 0.5, (6,))
    pin = jnp.array([[_PIN[0], _PIN[1], S.AGENT_RADIUS, np.pi / 2]], jnp.float32)
    info["jnt_range"] = info["jnt_range"].at[self._agent_j].set(jnp.stack([pin, pin], -1))
    info["went_left"] = left.astype(jnp.float32)
    info["label"] = jnp.sum(left).astype(jnp.int32)
    info["label_valid"] = jnp.zeros(())
    state = state.replace(info=info)
    return self.with_poses(state, agent_pose=pin, object_pose=self._script(jnp.zeros((), jnp.int32), left))

  def _task_pre(self, state):
    info = dict(state.info)
    pose = self._script(info["t"] + 1, info["went_left"] > 0)
    B = self.n_boxes
    data = state.pipeline_state
    qpos = data.qpos.at[self._obj_j].set(pose)
    qvel = data.qvel.at[self._obj_j].set(0.0)
    info["lock_q"] = pose
    info["locked"] = jnp.ones(B)
    info["lock_team"] = jnp.ones(B)
    info["jnt_range"] = self._object_ranges(info, info["locked"])
    return state.replace(pipeline_state=data.replace(qpos=qpos, qvel=qvel), info=info)

  def _task_action(self, state, action):
    zero = jnp.zeros(1, jnp.int32)
    return {"move": jnp.full((1, 3), NEUTRAL_BIN, jnp.int32), "grab": zero, "lock": zero}

  def _task_obs(self, obs, info):
    obs = super()._task_obs(obs, info)
    for k in ("boxes", "boxes_full"):
      obs[k] = obs[k].at[..., 12:14].set(0.0)  # scripted boxes are held by locks: not the agent's
    return obs

  def _task_metrics(self):
    return ("label", "boxes_seen")

  def _task_reward(self, prev, state, action):
    valid = state.info["t"] >= self.all_hidden_step
    if isinstance(action, Mapping) and "count" in action:
      count = jnp.asarray(action["count"]).reshape(-1)[0]
      success = valid & (jnp.round(count).astype(jnp.int32) == state.info["label"])
    else:
      success = jnp.zeros((), bool)
    info = {"label_valid": valid.astype(jnp.float32)}
    metrics = {
      "label": state.info["label"].astype(jnp.float32),
      "boxes_seen": jnp.sum(state.obs["boxes_mask"]),
      "num_box_lock": jnp.zeros(()),
    }
    return success.astype(jnp.float32), success, info, metrics


# ==================================================================================== lock and return
class LockAndReturn(_TransferEnv):
  """Find and lock the box in 6 random rooms, return to the start. See the module docstring."""

  _room_walls = 10  # 5 inner walls, each split by a door
  # The game's own pool is one layout; __init__ replaces it with `num_layouts` of exactly `n_rooms` rooms.
  FIXED = dict(
    n_boxes=[1, 1],
    n_ramps=[0, 0],
    n_elongated=[0, 0],
    lock_ramps=False,
    max_rooms=6,
    num_layouts=1,
    layout_seed=0,
  )
  TASK = dict(
    episode_length=120,
    n_rooms=6,
    num_layouts=256,
    layout_seed=0,
    success_radius=0.1,
    lock_bonus=5.0,
    shaped_scale=0.5,
  )

  def __init__(self, **config):
    super().__init__(**config)
    n_rooms, want = int(self.task["n_rooms"]), int(self.task["num_layouts"])
    if not 1 <= n_rooms <= 6 or want < 1:
      raise ConfigError(f"n_rooms must be in 1..6 and num_layouts >= 1, got {n_rooms}, {want}")
    rng = np.random.default_rng(self.task["layout_seed"])
    segs, tries = [], 0
    while len(segs) < want:
      tries += 1
      if tries > 200 * want:
        raise ConfigError(f"could not draw {want} layouts with {n_rooms} rooms")
      try:
        s = S.random_rooms(rng, n_rooms)
      except ValueError:  # scene.random_rooms: a room exactly 2 * min_room wide can round to an empty range
        continue
      if len(s) == 2 * (n_rooms - 1):
        segs.append(s)
    self._layouts = tuple(jnp.asarray(a) for a in S.layout_arrays(segs, self.n_walls))

  def _task_reset(self, state, key):
    del key
    info = dict(state.info)
    info["start"] = self._agent_xy(state)
    return state.replace(info=info)

  def _task_metrics(self):
    return ("box_locked", "dist_to_start")

  def _task_reward(self, prev, state, action):
    c = self.task
    locked, new, gone = (x[0] for x in self._locks(prev, state))
    a0, a = self._agent_xy(prev), self._agent_xy(state)
    b0, b = self._box_xy(prev)[0], self._box_xy(state)[0]
    start = state.info["start"]
    d_start = jnp.linalg.norm(a - start)
    shaped = jnp.where(
      locked,
      jnp.linalg.norm(a0 - start) - d_start,
      jnp.linalg.norm(a0 - b0) - jnp.linalg.norm(a - b),
    )
    success = locked & (d_start < c["success_radius"])
    last = state.info["t"] >= self.episode_length
    reward = (
      c["lock_bonus"] * (new.astype(jnp.float32) - gone - (last & ~locked))
      + success
      + c["shaped_scale"] * shaped
    )
    metrics = {"box_locked": locked.astype(jnp.float32), "dist_to_start": d_start}
    return reward, success, {}, metrics


# ==================================================================================== sequential lock
class SequentialLock(_TransferEnv):
  """Lock 4 boxes in a hidden order across 3 door-less rooms with a ramp each. See the module."""

  FIXED = dict(_EMPTY_ROOM, n_boxes=[4, 4], n_ramps=[3, 3])
  TASK = dict(episode_length=120, lock_bonus=5.0, shaped_scale=0.5)

  def _sample_walls(self, key):
    k1, k2, k3 = jax.random.split(key, 3)
    cell = S.CELL
    a = jnp.round(jax.random.uniform(k1, (), minval=2.0, maxval=4.0) / cell) * cell
    b = jnp.round(jax.random.uniform(k2, (), minval=2.0, maxval=4.0) / cell) * cell
    right = jax.random.bernoulli(k3)  # the side of x = a that y = b divides
    x0, x1 = jnp.where(right, a, 0.0), jnp.where(right, _F, a)
    segs = jnp.stack([jnp.stack([a, 0.0, a, _F]), jnp.stack([x0, b, x1, b])])
    return self._walls_from_segments(segs)

  def _rooms(self, wall_pos):
    """[3, 4] rooms (xmin, xmax, ymin, ymax): the undivided side, then the divided side's two."""
    a, b, right = wall_pos[0, 0], wall_pos[1, 1], wall_pos[1, 0] > wall_pos[0, 0]
    whole = jnp.where(right, jnp.stack([0.0, a, 0.0, _F]), jnp.stack([a, _F, 0.0, _F]))
    x0, x1 = jnp.where(right, a, 0.0), jnp.where(right, _F, a)
    return jnp.stack([whole, jnp.stack([x0, x1, 0.0, b]), jnp.stack([x0, x1, b, _F])])

  def _task_reset(self, state, key):
    k_order, k_place = jax.random.split(key)
    info = dict(state.info)
    B, R = self.n_boxes, self.n_ramps
    arena = jnp.array([[0.0, _F, 0.0, _F]])
    allowed = jnp.concatenate([jnp.tile(arena, (B, 1)), self._rooms(info["wall_pos"]), arena])
    excluded = jnp.tile(jnp.asarray(_NOWHERE), (B + R + 1, 1))
    half = jnp.concatenate(
      [
        jnp.full((B, 2), S.BOX_HALF),
        jnp.tile(jnp.asarray(S.RAMP_HALF[:2], jnp.float32), (R, 1)),
        jnp.full((1, 2), S.AGENT_RADIUS + 0.05),
      ]
    )
    xy = _place(
      k_place, half, jnp.ones(B + R + 1, bool), (allowed, excluded), info["wall_pos"], info["wall_size"]
    )
    obj = jnp.concatenate(
      [
        xy[: B + R],
        jnp.concatenate([jnp.full((B, 1), S.BOX_HALF), jnp.zeros((R, 1))]),
        jnp.zeros((B + R, 1)),
      ],
      -1,
    )
    agent = jnp.concatenate([xy[B + R :], jnp.full((1, 1), S.AGENT_RADIUS), jnp.full((1, 1), jnp.nan)], -1)
    info["order"] = jax.random.permutation(k_order, B)
    state = self.with_poses(state.replace(info=info), agent_pose=agent, object_pose=obj)
    return state

  def _next(self, info):
    """(index of the next box to lock, all locked)."""
    locked = info["locked"][: self.n_boxes] > 0
    in_order = locked[info["order"]]
    return info["order"][jnp.argmin(in_order)], jnp.all(locked)

  def _lockable_now(self, info):
    nxt, done = self._next(info)
    boxes = ((jnp.arange(self.n_boxes) == nxt) & ~done) | (info["locked"][: self.n_boxes] > 0)
    return jnp.concatenate([boxes, jnp.zeros(self.n_ramps, bool)])

  def _task_metrics(self):
    return ("n_locked",)

  def _task_reward(self, prev, state, action):
    c = self.task
    locked, new, gone = self._locks(prev, state)
    nxt, all_locked = self._next(state.info)
    a0, a = self._agent_xy(prev), self._agent_xy(state)
    b0, b = self._box_xy(prev)[nxt], self._box_xy(state)[nxt]
    shaped = jnp.where(all_locked, 0.0, jnp.linalg.norm(a0 - b0) - jnp.linalg.norm(a - b))
    reward = c["lock_bonus"] * (jnp.sum(new) - jnp.sum(gone)) + all_locked + c["shaped_scale"] * shaped
    return reward, all_locked, {}, {"n_locked": jnp.sum(locked).astype(jnp.float32)}


# ==================================================================================== blueprint
def _square_corners(xy, half, yaw):
  """[N, 4, 2] footprint corners of squares/rectangles: centres [N, 2], half-sizes [N, 2], yaw [N]."""
  signs = jnp.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
  local = signs[None] * half[:, None, :]
  c, s = jnp.cos(yaw)[:, None], jnp.sin(yaw)[:, None]
  x = c * local[..., 0] - s * local[..., 1]
  y = s * local[..., 0] + c * local[..., 1]
  return xy[:, None, :] + jnp.stack([x, y], -1)


class Blueprint(_TransferEnv):
  """Push boxes onto 1..4 construction sites. See the module docstring."""

  FIXED = dict(_EMPTY_ROOM, n_boxes=[8, 8], n_ramps=[0, 0])
  TASK = dict(
    episode_length=240,
    n_sites=[1, 4],
    alpha=-1.5,
    dense_scale=0.05,
    site_radius=0.1,
    complete_scale=3.0,
    site_middle=0.85,
  )

  def __init__(self, **config):
    super().__init__(**config)
    lo, hi = self.task["n_sites"]
    if not 1 <= lo <= hi <= 4:
      raise ConfigError(f"n_sites must be [min, max] with 1 <= min <= max <= 4, got {self.task['n_sites']!r}")
    if not self.task["alpha"] < 0:
      raise ConfigError(f"alpha must be < 0, got {self.task['alpha']!r}")
    self.max_sites = int(hi)

  def _task_reset(self, state, key):
    k_n, k_place = jax.random.split(key)
    info = dict(state.info)
    K, B = self.max_sites, self.n_boxes
    lo, hi = self.task["n_sites"]
    n = jax.random.randint(k_n, (), lo, hi + 1)
    site_on = jnp.arange(K) < n
    m = (1.0 - self.task["site_middle"]) / 2 * _F
    allowed = jnp.concatenate(
      [
        jnp.tile(jnp.array([[m, _F - m, m, _F - m]]), (K, 1)),
        jnp.tile(jnp.array([[0.0, _F, 0.0, _F]]), (B + 1, 1)),
      ]
    )
    excluded = jnp.tile(jnp.asarray(_NOWHERE), (K + B + 1, 1))
    half = jnp.concatenate([jnp.full((K + B, 2), S.BOX_HALF), jnp.full((1, 2), S.AGENT_RADIUS + 0.05)])
    on = jnp.concatenate([site_on, jnp.ones(B + 1, bool)])
    xy = _place(k_place, half, on, (allowed, excluded), info["wall_pos"], info["wall_size"])
    info["site_xy"] = xy[:K]
    info["site_on"] = site_on.astype(jnp.float32)
    boxes = jnp.concatenate([xy[K : K + B], jnp.full((B, 1), S.BOX_HALF), jnp.zeros((B, 1))], -1)
    agent = jnp.concatenate([xy[K + B :], jnp.full((1, 1), S.AGENT_RADIUS), jnp.full((1, 1), jnp.nan)], -1)
    return self.with_poses(state.replace(info=info), agent_pose=agent, object_pose=boxes)

  def site_corners(self, info):
    """[K, 4, 2] corners of the construction sites (axis-aligned, cube-sized)."""
    K = self.max_sites
    return _square_corners(info["site_xy"], jnp.full((K, 2), S.BOX_HALF), jnp.zeros(K))

  def _task_obs(self, obs, info):
    obs = super()._task_obs(obs, info)
    K = self.max_sites
    z = jnp.full((K, 1), S.BOX_HALF)
    corners = jnp.concatenate([self.site_corners(info), jnp.full((K, 4, 1), S.BOX_HALF)], -1)
    sites = jnp.concatenate([info["site_xy"], z, corners.reshape(K, 12)], -1) * info["site_on"][:, None]
    obs["sites"] = sites[None]
    obs["sites_mask"] = info["site_on"][None]
    return obs

  def _task_metrics(self):
    return ("sites_done", "corner_dist")

  def _task_reward(self, prev, state, action):
    c = self.task
    info = state.info
    q = state.pipeline_state.qpos
    B = self.n_boxes
    box_xy = self._box_xy(state)
    box_yaw = q[self._obj_j[:B, 3]]
    box_on = info["box_on"] > 0
    box_c = _square_corners(box_xy, info["box_size"][:, :2], box_yaw).reshape(-1, 2)  # [4B, 2]
    corner_on = jnp.repeat(box_on, 4)
    site_on = info["site_on"] > 0
    site_c = self.site_corners(info).reshape(-1, 2)  # [4K, 2]
    site_c_on = jnp.repeat(site_on, 4)
    d = jnp.linalg.norm(site_c[:, None] - box_c[None], axis=-1)  # [4K, 4B]
    w = jnp.where(corner_on[None], jnp.exp(c["alpha"] * (d - jnp.min(d, -1, keepdims=True))), 0.0)
    smooth = jnp.sum(d * w, -1) / jnp.maximum(jnp.sum(w, -1), 1e-12)
    n_corners = jnp.maximum(jnp.sum(site_c_on), 1)
    mean_d = jnp.sum(jnp.where(site_c_on, smooth, 0.0)) / n_corners
    centre_d = jnp.linalg.norm(info["site_xy"][:, None] - box_xy[None], axis=-1)
    centre_ok = jnp.min(jnp.where(box_on[None], centre_d, jnp.inf), -1) < c["site_radius"]
    corner_ok = jnp.min(jnp.where(corner_on[None], d, jnp.inf), -1) < c["site_radius"]
    sites_ok = centre_ok & jnp.all(corner_ok.reshape(-1, 4), -1)
    complete = jnp.all(sites_ok | ~site_on)
    k = jnp.sum(site_on)
    reward = -c["dense_scale"] * mean_d + complete * c["complete_scale"] * k
    metrics = {
      "sites_done": jnp.sum(sites_ok & site_on) / jnp.maximum(k, 1),
      "corner_dist": mean_d,
    }
    return reward, complete, {"terminated": complete.astype(jnp.float32)}, metrics


# ==================================================================================== shelter
class Shelter(_TransferEnv):
  """Shield a static pillar from 100 rays with 8 boxes. See the module docstring."""

  FIXED = dict(_EMPTY_ROOM, n_boxes=[8, 8], n_elongated=[3, 3], n_ramps=[0, 0])
  TASK = dict(
    episode_length=150,
    diameter=[1.5, 2.0],
    rays_per_side=25,
    reward_scale=0.001,
    placement_middle=0.7,
    ray_height=0.25,
  )

  def __init__(self, **config):
    super().__init__(**config)
    d0, d1 = self.task["diameter"]
    if not 0 < d0 <= d1 <= 2.5:
      raise ConfigError(
        f"diameter must be [min, max] with 0 < min <= max <= 2.5, got {self.task['diameter']!r}"
      )
    n = int(self.task["rays_per_side"])
    lo, hi = 1.01 * S.CELL, _F - 1.01 * S.CELL
    off = np.arange(n) / n * (hi - lo)
    pts = np.concatenate(
      [
        np.stack([lo + off, np.full(n, lo)], -1),
        np.stack([np.full(n, hi), lo + off], -1),
        np.stack([hi - off, np.full(n, hi)], -1),
        np.stack([np.full(n, lo), hi - off], -1),
      ]
    )
    self.ray_starts = np.concatenate([pts, np.full((4 * n, 1), self.task["ray_height"])], -1).astype(
      np.float32
    )

  def _sample_walls(self, key):
    k1, k2 = jax.random.split(key)
    d0, d1 = self.task["diameter"]
    d = jax.random.uniform(k1, (), minval=d0, maxval=d1)
    h = d * np.sqrt(np.pi) / 4  # half side of the square of the cylinder's footprint area
    margin = (1.0 - self.task["placement_middle"]) / 2 * _F
    lo, hi = margin + h, jnp.maximum(_F - margin - h, margin + h)
    xy = jax.random.uniform(k2, (2,), minval=lo, maxval=hi)
    z = S.WALL_HEIGHT / 2
    upos, usize = self._unused_walls(self.n_walls - 1)
    pos = jnp.concatenate([jnp.stack([xy[0], xy[1], z])[None], upos])
    size = jnp.concatenate([jnp.stack([h, h, z])[None], usize])
    return pos, size

  def _task_obs(self, obs, info):
    obs = super()._task_obs(obs, info)
    obs["objective"] = jnp.concatenate([info["wall_pos"][0], info["wall_size"][0, :1]])[None]
    return obs

  def rays_reaching(self, state: State) -> jax.Array:
    """How many of the rays reach the pillar: segments from each start point to the pillar's centre at
    `ray_height`, blocked where they cross a present box (oriented box, exact slab test) or the agent
    (its sphere's section at that height). Analytic, so "c" and "jax" agree (see the module docstring)."""
    info = state.info
    q = state.pipeline_state.qpos
    z = self.task["ray_height"]
    start = jnp.asarray(self.ray_starts[:, :2])  # [N, 2]
    to = info["wall_pos"][0, :2] - start
    length = jnp.linalg.norm(to, axis=-1)
    u = to / length[:, None]
    B = self.n_boxes
    bq = q[self._obj_j[:B]]  # [B, 4]
    half = info["box_size"]
    c, s_ = jnp.cos(bq[:, 3]), jnp.sin(bq[:, 3])
    rot = jnp.stack([jnp.stack([c, -s_], -1), jnp.stack([s_, c], -1)], -2)  # [B, 2, 2] body -> world
    p = jnp.einsum("bji,nbj->nbi", rot, start[:, None] - bq[None, :, :2])  # [N, B, 2] in the box frame
    v = jnp.einsum("bji,nj->nbi", rot, u)
    v = jnp.where(jnp.abs(v) < 1e-9, 1e-9, v)
    t1, t2 = (-half[None, :, :2] - p) / v, (half[None, :, :2] - p) / v
    t_in = jnp.max(jnp.minimum(t1, t2), -1)
    t_out = jnp.min(jnp.maximum(t1, t2), -1)
    level = (jnp.abs(z - bq[:, 2]) <= half[:, 2]) & (info["box_on"] > 0)
    hit_box = (t_in <= t_out) & (t_out >= 0) & (t_in <= length[:, None]) & level[None]
    a = q[self._agent_j[0, :3]]
    rho2 = S.AGENT_RADIUS**2 - (z - a[2]) ** 2
    t = jnp.clip(jnp.einsum("nk,nk->n", a[None, :2] - start, u), 0.0, length)
    gap2 = jnp.sum((start + t[:, None] * u - a[:2]) ** 2, -1)
    hit_agent = (rho2 > 0) & (gap2 <= rho2) & (info["agent_on"][0] > 0)
    return jnp.sum(~(jnp.any(hit_box, -1) | hit_agent))

  def _task_metrics(self):
    return ("rays_reaching",)

  def _task_reward(self, prev, state, action):
    n = self.rays_reaching(state)
    reward = -self.task["reward_scale"] * n
    return reward, n == 0, {}, {"rays_reaching": n.astype(jnp.float32)}


TASKS = {
  "HnsObjectCounting": ObjectCounting,
  "HnsLockAndReturn": LockAndReturn,
  "HnsSequentialLock": SequentialLock,
  "HnsBlueprint": Blueprint,
  "HnsShelter": Shelter,
}
