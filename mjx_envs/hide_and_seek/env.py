"""Hide-and-seek on MJX: teams of sphere agents, boxes, ramps and walls; grab, lock, lidar and vision
(seed 004, "Emergent Tool Use From Multi-Agent Autocurricula"; SPEC section 4). Facts and numbers come
from the reference, OpenAI's multi-agent-emergence-environments (`mae_envs/envs/hide_and_seek.py` and the
modules and wrappers it composes); the models and code here are our own.

Multi-agent API (pure, jittable, vmappable over worlds; works with `mjx_envs.wrappers`):

    env = mjx_envs.make("HideAndSeekQuadrant")          # or "HideAndSeek" (random rooms)
    state = env.reset(key)                               # one world
    state = env.step(state, {"move": int [A, 3] in 0..10,   # force x, force y, torque z bins
                             "grab": [A] in {0, 1},         # hold the nearest object in front
                             "lock": [A] in {0, 1}})        # lock / unlock it
    state.reward                                         # [A] per-agent team reward
    state.obs                                            # dict of padded entity arrays, below

A = max hiders + max seekers: agent slots [0, max_hiders) are hiders, the rest seekers. An episode
enables a random subset (`n_hiders`, `n_seekers`, `n_boxes`, `n_ramps` are [min, max] ranges); absent
slots are parked and masked (`info["agent_on"]`, `box_on`, `ramp_on`), and get zero reward.

Observations (per agent i; entity features are zeroed where the mask is 0):
  self      [A, 11]     x, y, z, cos yaw, sin yaw, vx, vy, vz, yaw rate, hider flag, prep time left (1 -> 0)
  agents    [A, A, 10]  the other agents: x, y, z, cos, sin, vx, vy, vz, yaw rate, hider flag
  boxes     [A, B, 14]  x, y, z, cos, sin, vx, vy, vz, yaw rate, half-size x, y, z, locked, locked by my team
  ramps     [A, R, 11]  x, y, z, cos, sin, vx, vy, vz, yaw rate, locked, locked by my team
  *_mask    [A, .]      1 where entity j is present, is not i, is inside i's 135-degree vision cone and in
                        line of sight (a ray from i's centre to j's centre whose first hit is j: `mjx.ray`,
                        i's own body excluded)
  lidar     [A, 30]     ranges (m, capped at `lidar_range`) of rays evenly spaced in the world frame
  *_full, *_present     the same entity arrays unmasked, and masks of presence only: the omniscient view
                        for a value function

Reward (per step, after the preparation phase; zero during it): hiders +1 if no present seeker sees any
present hider, else -1; seekers the opposite; `out_penalty` (-10) for an agent outside the play area, and
(quadrant) for an agent holding an object that is outside it. During the preparation phase (the first
`prep_fraction` of the episode) seekers' actions are ignored.

Grab and lock act on the nearest object (box or ramp) that the agent sees (vision mask of the previous
observation: in the cone and in line of sight) within `grab_radius` (0.25 m, agent centre to the object's
box). Grab: a weld between agent and object, held while the action is 1 and the object stays in reach.
Lock: an agent pressing lock locks an unlocked object (its joints' ranges become its current pose); a
locked object unlocks when an agent of the locking team reaches it without pressing lock, unless a
teammate presses; the other team cannot unlock it. Ramps lock only where `lock_ramps` (not in quadrant).

metrics (running; read them on the last step): max_box_move, max_ramp_move, and the same at the end of
the preparation phase (`*_prep`), num_box_lock, num_ramp_lock (and `*_prep`), hidden_fraction (steps
after the preparation phase with every hider hidden, / steps after it so far), hider_reward,
seeker_reward (the step's team rewards), bad_action (1 when the step's action had NaN or out-of-range
entries: they are sanitised), out_of_area.

Physics: `impl` "auto" (C MuJoCo on a CPU, MJX-JAX on an accelerator), "c" or "jax". The per-world model
fields (`world_fields`: walls, box sizes with their bounding radii and boxes, inertias, joint ranges, weld
frames) go into the MJX model under "jax" and into the C backend's model copy under "c"; lidar and sight
are `mjx.ray` under "jax" and C's `mj_multiRay` on the same poses under "c" (equal at a reset). Under "c"
the backend turns C's midphase off for models with per-world geoms (it is built from the compiled poses).

Deliberate differences from the reference, and why:
- Play area: the package's 6 m floor; the outer walls are planes (cheap in MJX; the reference's are 4 m
  high boxes nothing climbs).
- The agent's joint damping is 25 (x, y, yaw) and 1 (z): the reference's agent XML (mujoco-worldgen's
  `particle_hinge`) is not in the indexed sources; its module lowers z damping to 1, which we keep. 25
  gives a top speed of 3.2 m/s under the reference's 90 N (gear 100 x 0.9) and 0.2 x 50 N friction. At
  damping 10 (8 m/s) impacts spun boxes at 20-28 rad/s and, with the tilting ramp and 4 solver
  iterations of the time, all 16 of 16 worlds diverged within 80 random steps (3 of 16 at damping 25).
  Friction 0.01 contacts (agent-agent, agent-wall, agent-ramp, ramp-wall) are frictionless (condim 1):
  it halves the contact rows; 0.2 contacts (floor, boxes) keep friction.
- Ramps turn about z only, as boxes do (the reference's also tilt): a light ramp launched by a
  full-speed agent tumbled, and its three-hinge chain then blew up at 90 degrees of pitch.
- The ramp is our own wedge of two boxes (see scene.py); the reference's ramp mesh is not in the indexed
  sources, and MJX's mesh contacts blew up under full-speed impacts.
- Heading: yaw 0 faces +x (the reference subtracts pi/2 to match its visual front).
- Grab and lock need the object in front and in sight; the reference lets lock act out of sight. Lock is
  team-specific; the reference's default is agent-specific.
- Lock and unlock act on the nearest object in reach only; the reference's "lock all" acts on every
  object in reach.
- Random-rooms layouts are drawn from a pre-generated set (`num_layouts`, seed `layout_seed`) by our own
  room generator (scene.random_rooms), not the reference's grid algorithm.
- Contacts are capped at `max_contacts` per condim group (MJX `max_contact_points`): the deepest are
  kept.
- Physics step: 0.0075 s x 10 substeps (the reference: 0.005 s x 15; the same 0.075 s control step),
  gravity -50 as the reference. Measured side by side (HideAndSeekQuadrant, 64 worlds x 80 random steps,
  2-core CPU): 0.005 x 15 with 48 contacts 133 control steps/s, 0.0075 x 10 with 32 contacts 259 (1.95x);
  neither diverged (largest speed 9.4 and 14.0 m/s or rad/s), and every scripted proof holds alike
  (benchmarks/hide_and_seek_proofs.py: the climb onto a box, standing on it, grab, lock, the force and
  friction path within 1 mm of the 1-D model). The scripted quadrant hiders: 0.88 and 0.78 of 32 episodes
  (the same 32; 0.83 of 100 on the reference's step). `sim_dt=0.005, n_substeps=15, max_contacts=48`
  restores the reference's step. Newton iterations 10 (6 or 8 let rare pile-ups launch a body at
  40-80 m/s under random actions).
"""

from __future__ import annotations

from mjx_envs.core import ConfigError, MjxEnv, State, check_impl
from mjx_envs.hide_and_seek import scene as S

from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from brax import math as brax_math
from mujoco import mjx

LAYOUTS = ("quadrant", "random_rooms")
N_BINS = 11
NEUTRAL_BIN = N_BINS // 2
QUADRANT_WALLS = 4  # pool sizes: two quadrant walls, each split by a door
ROOM_WALLS = 6  # up to 3 inner walls of random rooms, each split by a door
LIMITS = {"agents": 6, "boxes": 12, "ramps": 4}
_PLACE_TRIES = 32
_RAY_GROUPS = tuple(g != S.DECOR_GROUP for g in range(6))


def default_config(layout: str = "quadrant") -> dict[str, Any]:
  """Every config key of the layout, with its default (the reference's quadrant or full game)."""
  quadrant = layout == "quadrant"
  return dict(
    layout=layout,
    n_hiders=[2, 2] if quadrant else [1, 3],  # [min, max] per episode
    n_seekers=[2, 2] if quadrant else [1, 3],
    n_boxes=[2, 2] if quadrant else [3, 9],
    n_elongated=[0, 0] if quadrant else [3, 9],  # of the boxes, capped by the episode's box count
    n_ramps=[1, 1] if quadrant else [2, 2],
    episode_length=80 if quadrant else 240,
    prep_fraction=0.4,
    door_dropout=0.5 if quadrant else 0.0,  # quadrant: probability of one door instead of two
    hider_uniform_placement=False,  # quadrant: hiders spawn anywhere (else in the room)
    max_rooms=4,  # random_rooms: 1..max_rooms rooms
    num_layouts=256,  # random_rooms: size of the pre-generated set
    layout_seed=0,
    lock_ramps=not quadrant,
    grab_radius=0.25,
    vision_cone_deg=135.0,
    n_lidar=30,
    lidar_range=6.0,
    out_penalty=-10.0,
    sim_dt=0.0075,  # x 10 = the reference's 0.075 s control step, at
    n_substeps=10,  # half the cost of its 0.005 x 15 (see below)
    gravity=-50.0,
    iterations=10,  # Newton; 6 or 8 let pile-ups launch bodies at 40-80 m/s
    ls_iterations=10,
    max_contacts=32,
    max_qvel=100.0,
    impl="auto",  # "auto" (C MuJoCo on a CPU, MJX-JAX on GPU/TPU), "c"
    # or "jax" (MJX-Warp: no per-world model fields)
  )


def _check_range(name, value, low, high):
  if (
    not isinstance(value, (list, tuple))
    or len(value) != 2
    or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)
    or not low <= value[0] <= value[1] <= high
  ):
    raise ConfigError(f"{name} must be [min, max] integers with {low} <= min <= max <= {high}, got {value!r}")
  return int(value[0]), int(value[1])


class HideAndSeekEnv(MjxEnv):
  """The hide-and-seek game; see the module docstring. Config keys: `default_config(layout)`."""

  # Hooks for single-agent variants (transfer.py): the fewest seekers allowed, the random-rooms wall
  # pool's size, and which objects the lock action may act on this step (`_lockable_now`).
  _min_seekers = 1
  _room_walls = ROOM_WALLS

  def __init__(self, **config):
    layout = config.get("layout", "quadrant")
    if layout not in LAYOUTS:
      raise ConfigError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    c = {**default_config(layout), **config}
    check_impl(c["impl"])
    if c["impl"] == "warp":
      raise ConfigError(
        "hide-and-seek runs on impl='c' or 'jax' (it edits model fields per world, "
        "which MJX-Warp does not take per world)"
      )
    self.hiders = _check_range("n_hiders", c["n_hiders"], 1, LIMITS["agents"] // 2)
    self.seekers = _check_range("n_seekers", c["n_seekers"], self._min_seekers, LIMITS["agents"] // 2)
    self.boxes = _check_range("n_boxes", c["n_boxes"], 0, LIMITS["boxes"])
    self.ramps = _check_range("n_ramps", c["n_ramps"], 0, LIMITS["ramps"])
    self.elongated = _check_range("n_elongated", c["n_elongated"], 0, LIMITS["boxes"])
    for key in (
      "episode_length",
      "n_substeps",
      "iterations",
      "ls_iterations",
      "n_lidar",
      "num_layouts",
      "max_rooms",
    ):
      if not isinstance(c[key], (int, np.integer)) or isinstance(c[key], bool) or c[key] < 1:
        raise ConfigError(f"{key} must be an int >= 1, got {c[key]!r}")
    if not isinstance(c["max_contacts"], int) or not (c["max_contacts"] == -1 or c["max_contacts"] >= 8):
      raise ConfigError(f"max_contacts must be -1 (no cap) or an int >= 8, got {c['max_contacts']!r}")
    if not 0.0 <= c["prep_fraction"] < 1.0:
      raise ConfigError(f"prep_fraction must be in [0, 1), got {c['prep_fraction']!r}")
    if not 0.0 <= c["door_dropout"] <= 1.0:
      raise ConfigError(f"door_dropout must be in [0, 1], got {c['door_dropout']!r}")
    if not 0.0 < c["vision_cone_deg"] <= 360.0:
      raise ConfigError(f"vision_cone_deg must be in (0, 360], got {c['vision_cone_deg']!r}")
    for key in ("grab_radius", "lidar_range", "sim_dt", "max_qvel"):
      if not c[key] > 0:
        raise ConfigError(f"{key} must be > 0, got {c[key]!r}")
    if c["gravity"] > 0:
      raise ConfigError(f"gravity must be <= 0 (m/s^2 along z), got {c['gravity']!r}")
    if self.boxes[1] + self.ramps[1] == 0:
      raise ConfigError("n_boxes and n_ramps are both [0, 0]: the game needs at least one box or ramp slot")
    if layout == "quadrant" and self.boxes[1] > 4:
      raise ConfigError(f"quadrant: n_boxes max is 4 (they spawn in the room), got {c['n_boxes']!r}")
    self.config = c
    self.layout = layout
    self.episode_length = int(c["episode_length"])
    self.prep_steps = int(round(c["prep_fraction"] * self.episode_length))
    self.n_hiders, self.n_seekers = self.hiders[1], self.seekers[1]
    self.num_agents = self.n_hiders + self.n_seekers
    self.n_boxes, self.n_ramps = self.boxes[1], self.ramps[1]
    self.n_objects = self.n_boxes + self.n_ramps
    self.n_walls = QUADRANT_WALLS if layout == "quadrant" else self._room_walls
    mj_model = mujoco.MjModel.from_xml_string(
      S.scene_xml(
        self.num_agents,
        self.n_boxes,
        self.n_ramps,
        self.n_walls,
        c["sim_dt"],
        c["gravity"],
        c["iterations"],
        c["ls_iterations"],
        c["max_contacts"],
      )
    )
    super().__init__(
      mj_model,
      c["n_substeps"],
      max_qvel=c["max_qvel"],
      impl=c["impl"],
      c_fields=("xpos", "xquat", "xmat", "xipos", "geom_xpos", "geom_xmat"),
    )
    m = mj_model
    A, B, R = self.num_agents, self.n_boxes, self.n_ramps
    self.hider_flag = np.arange(A) < self.n_hiders
    jid = lambda name: m.joint(name).id
    self._agent_j = np.array(
      [[jid(f"agent{i}_{a}") for a in ("tx", "ty", "tz", "rz")] for i in range(A)], np.int32
    ).reshape(A, 4)
    # Objects' joints (boxes, then ramps): x, y, z, yaw.
    names = [f"box{j}" for j in range(B)] + [f"ramp{k}" for k in range(R)]
    self._obj_j = np.array(
      [[jid(f"{n}_{a}") for a in ("tx", "ty", "tz", "rz")] for n in names], np.int32
    ).reshape(self.n_objects, 4)
    # All qpos / dof addresses equal joint ids here (only slide and hinge joints, one dof each).
    assert m.nq == m.nv == m.njnt
    self._agent_body = np.array([m.body(f"agent{i}").id for i in range(A)], np.int32)
    self._obj_body = np.array(
      [m.body(f"box{j}").id for j in range(B)] + [m.body(f"ramp{k}").id for k in range(R)], np.int32
    )
    self._box_geom = np.array([m.geom(f"box{j}").id for j in range(B)], np.int32)
    self._agent_geom = np.array(
      [[m.geom(f"agent{i}").id, m.geom(f"agent{i}_nose").id] for i in range(A)], np.int32
    ).reshape(A, 2)
    self._wall_geom = np.array([m.geom(f"wall{w}").id for w in range(self.n_walls)], np.int32)
    self._geom_body = np.append(m.geom_bodyid, -1).astype(np.int32)  # index -1 (no hit) reads -1
    self._weld = np.array(
      [[m.equality(f"grab{i}_{o}").id for o in range(self.n_objects)] for i in range(A)], np.int32
    ).reshape(A, self.n_objects)
    # The bounding box (centre, half-size) of each object in its body frame; boxes' half-sizes vary
    # per episode and come from the state.
    self._ramp_centre = np.tile(S.RAMP_CENTRE, (R, 1))
    self._lidar_dirs = np.stack(
      [np.cos(a := np.linspace(0, 2 * np.pi, c["n_lidar"], endpoint=False)), np.sin(a), np.zeros_like(a)], -1
    )
    self._half_cone = float(np.deg2rad(c["vision_cone_deg"]) / 2)
    self._cos_half_cone = float(np.cos(self._half_cone))
    self._lockable = np.array([True] * B + [bool(c["lock_ramps"])] * R)
    if layout == "random_rooms":
      rng = np.random.default_rng(c["layout_seed"])
      segs = [S.random_rooms(rng, c["max_rooms"]) for _ in range(c["num_layouts"])]
      self._layouts = tuple(jnp.asarray(a) for a in S.layout_arrays(segs, self.n_walls))
    park = np.array([S.park_position(s) for s in range(A + self.n_objects)], np.float32)
    self._park_agent, self._park_obj = park[:A], park[A:]

  # --- sizes -------------------------------------------------------------------------------------
  @property
  def action_size(self) -> int:
    """Per agent: 3 movement bins, grab, lock (the dict's entries; see `action_shapes`)."""
    return 5

  @property
  def action_shapes(self) -> dict[str, tuple]:
    return {"move": (self.num_agents, 3), "grab": (self.num_agents,), "lock": (self.num_agents,)}

  def check_action(self, action) -> None:
    if not isinstance(action, Mapping) or set(action) != {"move", "grab", "lock"}:
      raise ValueError(
        f"{type(self).__name__}: actions must be a dict with keys move [A, 3], grab [A], "
        f"lock [A] (A = {self.num_agents}); got {action if not isinstance(action, Mapping) else sorted(action)}"
      )
    for k, shape in self.action_shapes.items():
      got = tuple(np.shape(action[k]))
      if got[len(got) - len(shape) :] != shape:
        raise ValueError(f"{type(self).__name__}: action[{k!r}] must have trailing shape {shape}, got {got}")

  def random_action(self, key: jax.Array) -> dict[str, jax.Array]:
    """Uniform random actions for one world."""
    k1, k2, k3 = jax.random.split(key, 3)
    A = self.num_agents
    return {
      "move": jax.random.randint(k1, (A, 3), 0, N_BINS),
      "grab": jax.random.bernoulli(k2, 0.5, (A,)).astype(jnp.int32),
      "lock": jax.random.bernoulli(k3, 0.5, (A,)).astype(jnp.int32),
    }

  # --- model per world ---------------------------------------------------------------------------
  def world_fields(self, info: Mapping[str, jax.Array]) -> dict[str, jax.Array]:
    """The model fields of one world: this episode's walls, box sizes (with their bounding radii and
    boxes, which C MuJoCo's broadphase and rays read), box inertias, joint ranges (locks, parking) and
    grab welds, written into the shared model's arrays."""
    m = self.mjx_model
    box_size = info["box_size"]
    size = m.geom_size.at[self._wall_geom].set(info["wall_size"]).at[self._box_geom].set(box_size)
    boxes = np.concatenate([self._wall_geom, self._box_geom])
    half = size[boxes]
    return {
      "geom_pos": m.geom_pos.at[self._wall_geom].set(info["wall_pos"]),
      "geom_size": size,
      "geom_rbound": m.geom_rbound.at[boxes].set(jnp.linalg.norm(half, axis=-1)),
      "geom_aabb": m.geom_aabb.at[boxes].set(jnp.concatenate([jnp.zeros_like(half), half], -1)),
      "body_inertia": m.body_inertia.at[self._obj_body[: self.n_boxes]].set(S.box_inertia(box_size)),
      "jnt_range": info["jnt_range"],
      "eq_data": info["eq_data"],
    }

  def world_model(self, info: Mapping[str, jax.Array]) -> mjx.Model:
    """The MJX model of one world (`world_fields` written into `mjx_model`)."""
    return self.mjx_model.replace(**self.world_fields(info))

  # --- reset -------------------------------------------------------------------------------------
  def reset(self, rng: jax.Array) -> State:
    """A fresh layout, team sizes, object counts and non-overlapping spawn positions."""
    keys = jax.random.split(rng, 8)
    A, B, R, O = self.num_agents, self.n_boxes, self.n_ramps, self.n_objects
    wall_pos, wall_size = self._sample_walls(keys[0])
    n_h = jax.random.randint(keys[1], (), self.hiders[0], self.hiders[1] + 1)
    n_s = jax.random.randint(jax.random.fold_in(keys[1], 1), (), self.seekers[0], self.seekers[1] + 1)
    n_b = jax.random.randint(keys[2], (), self.boxes[0], self.boxes[1] + 1)
    n_r = jax.random.randint(jax.random.fold_in(keys[2], 1), (), self.ramps[0], self.ramps[1] + 1)
    slot = jnp.arange(A)
    agent_on = jnp.where(slot < self.n_hiders, slot < n_h, slot - self.n_hiders < n_s)
    box_on = jnp.arange(B) < n_b
    ramp_on = jnp.arange(R) < n_r
    box_size = self._sample_box_sizes(keys[3], n_b)

    # Spawn: boxes, ramps, then hiders and seekers, each clear of the walls and of what came before.
    half = jnp.concatenate(
      [
        box_size[:, :2],
        jnp.tile(jnp.asarray(S.RAMP_HALF[:2]), (R, 1)),
        jnp.full((A, 2), S.AGENT_RADIUS + 0.05),
      ]
    )
    on = jnp.concatenate([box_on, ramp_on, agent_on])
    regions = self._regions()
    xy = _place(keys[4], half, on, regions, wall_pos, wall_size)
    box_xy, ramp_xy, agent_xy = xy[:B], xy[B:O], xy[O:]
    yaw = jax.random.uniform(keys[5], (A,), minval=-np.pi, maxval=np.pi)

    qpos = jnp.zeros(self.mj_model.nq)
    agent_q = jnp.stack([agent_xy[:, 0], agent_xy[:, 1], jnp.full(A, S.AGENT_RADIUS), yaw], -1)
    park_a = jnp.concatenate([self._park_agent, jnp.zeros((A, 1))], -1)
    agent_q = jnp.where(agent_on[:, None], agent_q, park_a)
    qpos = qpos.at[self._agent_j].set(agent_q)
    box_q = jnp.concatenate([box_xy, box_size[:, 2:3], jnp.zeros((B, 1))], -1)
    ramp_q = jnp.concatenate([ramp_xy, jnp.zeros((R, 2))], -1)
    obj_on = jnp.concatenate([box_on, ramp_on])
    park_o = jnp.concatenate([self._park_obj, jnp.zeros((O, 1))], -1)
    obj_q = jnp.where(obj_on[:, None], jnp.concatenate([box_q, ramp_q]), park_o)
    qpos = qpos.at[self._obj_j].set(obj_q)

    # Joint ranges: free (+-UNLOCKED) for what plays, frozen at the pose for what is parked.
    jnt_range = jnp.tile(jnp.array([-S.UNLOCKED, S.UNLOCKED]), (self.mj_model.njnt, 1))
    frozen_a = jnp.stack([agent_q, agent_q], -1)
    jnt_range = jnt_range.at[self._agent_j].set(
      jnp.where(agent_on[:, None, None], jnt_range[self._agent_j], frozen_a)
    )
    info = {
      "wall_pos": wall_pos,
      "wall_size": wall_size,
      "box_size": box_size,
      "agent_on": agent_on.astype(jnp.float32),
      "box_on": box_on.astype(jnp.float32),
      "ramp_on": ramp_on.astype(jnp.float32),
      "locked": jnp.zeros(O),
      "lock_team": jnp.zeros(O),
      "lock_q": obj_q,
      "jnt_range": jnt_range,
      "eq_data": jnp.asarray(self.mj_model.eq_data),
      "grabbed": jnp.full(A, -1, jnp.int32),
      "t": jnp.zeros((), jnp.int32),
      "obj_start": obj_q[:, :3],
      "hidden_steps": jnp.zeros(()),
      "diverged": jnp.zeros(()),
    }
    data, obs, info = self._settle(self.make_data().replace(qpos=qpos), info)
    zero = jnp.zeros(())
    metrics = {
      k: zero
      for k in (
        "max_box_move",
        "max_ramp_move",
        "max_box_move_prep",
        "max_ramp_move_prep",
        "num_box_lock",
        "num_ramp_lock",
        "num_box_lock_prep",
        "num_ramp_lock_prep",
        "hidden_fraction",
        "hider_reward",
        "seeker_reward",
        "bad_action",
        "out_of_area",
      )
    }
    return State(data, obs, jnp.zeros(A), zero, metrics, info)

  def _sample_walls(self, key):
    if self.layout == "random_rooms":
      pos, size = self._layouts
      idx = jax.random.randint(key, (), 0, pos.shape[0])
      return pos[idx], size[idx]
    # Quadrant: the room is x in [3, 6], y in [0, 3]; a wall along x = 3 and one along y = 3, each with a
    # door (centre 0.6 m or more from its ends); with probability door_dropout one of them has none.
    k1, k2, k3, k4 = jax.random.split(key, 4)
    f, h = S.FLOOR_SIZE, S.FLOOR_SIZE / 2
    c_v = jax.random.uniform(k1, (), minval=0.6, maxval=h - 0.6)
    c_h = jax.random.uniform(k2, (), minval=h + 0.6, maxval=f - 0.6)
    one_door = jax.random.uniform(k3) < self.config["door_dropout"]
    closed = jax.random.bernoulli(k4)  # which wall loses its door
    gap_v = jnp.where(one_door & closed, 0.0, S.DOOR / 2)
    gap_h = jnp.where(one_door & ~closed, 0.0, S.DOOR / 2)
    t = S.WALL_HALF_T
    segs = jnp.array([[h, 0.0, h, 0.0], [h, 0.0, h, h + t], [h - t, h, 0.0, h], [0.0, h, f, h]])
    segs = segs.at[0, 3].set(c_v - gap_v).at[1, 1].set(c_v + gap_v)
    segs = segs.at[2, 2].set(c_h - gap_h).at[3, 0].set(c_h + gap_h)
    return S.wall_boxes(segs)

  def _sample_box_sizes(self, key, n_b):
    """Half-sizes [B, 3]: the first n_elongated boxes elongated (some along x, the rest along y)."""
    B = self.n_boxes
    cube = jnp.full((B, 3), S.BOX_HALF)
    if self.elongated[1] == 0 or B == 0:
      return cube
    k1, k2 = jax.random.split(key)
    hi = jnp.minimum(self.elongated[1], n_b)
    lo = jnp.minimum(self.elongated[0], hi)
    n_e = jax.random.randint(k1, (), lo, hi + 1)
    n_x = jax.random.randint(k2, (), 0, n_e + 1)
    j = jnp.arange(B)[:, None]
    ex, ey, ez = S.ELONGATED_HALF
    along_x, along_y = jnp.array([ex, ey, ez]), jnp.array([ey, ex, ez])
    return jnp.where(j < n_x, along_x, jnp.where(j < n_e, along_y, cube))

  def _regions(self):
    """Per spawned entity (boxes, ramps, agents): allowed rectangle [xmin, xmax, ymin, ymax] and an
    excluded one (where it must not be)."""
    B, R, A = self.n_boxes, self.n_ramps, self.num_agents
    f, h, t = S.FLOOR_SIZE, S.FLOOR_SIZE / 2, S.WALL_HALF_T
    arena = [0.0, f, 0.0, f]
    nowhere = [-9.0, -8.0, -9.0, -8.0]
    if self.layout == "random_rooms":
      return jnp.array([arena] * (B + R + A)), jnp.array([nowhere] * (B + R + A))
    room = [h + t, f, 0.0, h - t]
    hider = arena if self.config["hider_uniform_placement"] else room
    allowed = [room] * B + [arena] * R + [hider] * self.n_hiders + [arena] * self.n_seekers
    excluded = [nowhere] * (B + R + self.n_hiders) + [[h - t, f, 0.0, h + t]] * self.n_seekers
    return jnp.array(allowed), jnp.array(excluded)

  def _object_ranges(self, info, locked):
    """jnt_range with every object's joints free, frozen at `lock_q` where locked or parked."""
    obj_on = jnp.concatenate([info["box_on"], info["ramp_on"]]) > 0
    frozen = (locked > 0) | ~obj_on
    q = info["lock_q"]
    free = jnp.broadcast_to(jnp.array([-S.UNLOCKED, S.UNLOCKED]), q.shape + (2,))
    ranges = jnp.where(frozen[:, None, None], jnp.stack([q, q], -1), free)
    return info["jnt_range"].at[self._obj_j].set(ranges)

  def with_poses(
    self, state: State, agent_pose=None, object_pose=None, wall_pos=None, wall_size=None
  ) -> State:
    """`state` with entities moved and at rest: agent_pose [A, 4] and object_pose [O, 4] rows (x, y, z,
    yaw; objects: boxes then ramps) replace the present entities' poses where not NaN; wall_pos /
    wall_size [W, 3] replace the inner walls. For scripted scenes and tests; jittable."""
    info = dict(state.info)
    q = state.pipeline_state.qpos
    for rows, joints, on in (
      (agent_pose, self._agent_j, info["agent_on"]),
      (object_pose, self._obj_j, jnp.concatenate([info["box_on"], info["ramp_on"]])),
    ):
      if rows is not None:
        rows = jnp.asarray(rows, jnp.float32)
        keep = jnp.isnan(rows) | (on[:, None] <= 0)
        q = q.at[joints].set(jnp.where(keep, q[joints], rows))
    if wall_pos is not None:
      info["wall_pos"] = jnp.asarray(wall_pos, jnp.float32)
    if wall_size is not None:
      info["wall_size"] = jnp.asarray(wall_size, jnp.float32)
    obj_q = q[self._obj_j]
    info.update(lock_q=obj_q, obj_start=obj_q[:, :3], locked=jnp.zeros_like(info["locked"]))
    data = state.pipeline_state.replace(qpos=q, qvel=jnp.zeros_like(state.pipeline_state.qvel))
    data, obs, info = self._settle(data, info)
    return state.replace(pipeline_state=data, obs=obs, info=info)

  def _settle(self, data, info):
    """A fresh or edited world's (data with its kinematics, obs, info with object ranges and sight),
    from qpos and info's unlocked objects (`lock_q` their poses)."""
    info["jnt_range"] = self._object_ranges(info, info["locked"])
    fields = self.world_fields(info)
    data = self.reset_forward(data, model_fields=fields)
    obs, info["visible"] = self._observe(fields, data, info)
    return data, obs, info

  def door_centres(self, state: State):
    """Quadrant: (centres [2, 2] of the doors in the x = 3 wall and the y = 3 wall, open [2] bool)."""
    if self.layout != "quadrant":
      raise ValueError("door_centres is defined for the quadrant layout")
    pos, size = state.info["wall_pos"], state.info["wall_size"]
    h = S.FLOOR_SIZE / 2
    v_lo, v_hi = pos[..., 0, 1] + size[..., 0, 1], pos[..., 1, 1] - size[..., 1, 1]
    h_lo, h_hi = pos[..., 2, 0] + size[..., 2, 0], pos[..., 3, 0] - size[..., 3, 0]
    centres = jnp.stack(
      [
        jnp.stack([jnp.full_like(v_lo, h), (v_lo + v_hi) / 2], -1),
        jnp.stack([(h_lo + h_hi) / 2, jnp.full_like(h_lo, h)], -1),
      ],
      -2,
    )
    return centres, jnp.stack([v_hi - v_lo > 0.1, h_hi - h_lo > 0.1], -1)

  # --- rendering (mjx_envs.render) ---------------------------------------------------------------
  def render_extras(self, state: State) -> dict[str, jax.Array]:
    """The per-world fields a frame needs beyond qpos (any leading batch / time axes)."""
    keys = ("wall_pos", "wall_size", "box_size", "locked", "lock_team", "agent_on", "box_on", "ramp_on")
    return {k: state.info[k] for k in keys}

  def render_prepare(self, model, frame) -> None:
    """Writes one frame's walls, box sizes, team colours and lock state into a copy of the MjModel."""
    m = model
    m.geom_pos[self._wall_geom] = frame["wall_pos"]
    m.geom_size[self._wall_geom] = frame["wall_size"]
    m.geom_size[self._box_geom] = frame["box_size"]
    for i in range(self.num_agents):
      rgba = S.HIDER_RGBA if self.hider_flag[i] else S.SEEKER_RGBA
      body, nose = self._agent_geom[i]
      m.geom_rgba[body] = (*rgba[:3], float(frame["agent_on"][i]))
      m.geom_rgba[nose, 3] = float(frame["agent_on"][i])
    on = np.concatenate([frame["box_on"], frame["ramp_on"]])
    for o in range(self.n_objects):
      base = S.BOX_RGBA if o < self.n_boxes else S.RAMP_RGBA
      if frame["locked"][o] > 0:  # locked: the locking team's colour, darkened
        team = S.HIDER_RGBA if frame["lock_team"][o] > 0 else S.SEEKER_RGBA
        base = tuple(0.55 * t for t in team[:3]) + (1.0,)
      body = self._obj_body[o]
      for g in np.nonzero(m.geom_bodyid == body)[0]:
        m.geom_rgba[g] = (*base[:3], float(on[o]))

  def render_decor(self, frame):
    """Vision cones: two 1 m rays at the cone's edges from each present agent, in its team colour."""
    out = []
    half = self._half_cone
    for i in range(self.num_agents):
      if frame["agent_on"][i] <= 0:
        continue
      x, y, z, yaw = (frame["qpos"][j] for j in self._agent_j[i])
      rgba = (*(S.HIDER_RGBA if self.hider_flag[i] else S.SEEKER_RGBA)[:3], 0.6)
      for edge in (yaw - half, yaw + half):
        c, s_ = np.cos(edge), np.sin(edge)
        mat = np.array([[c, -s_, 0], [s_, c, 0], [0, 0, 1]], float).ravel()
        pos = np.array([x + 0.5 * c, y + 0.5 * s_, z + 0.1])
        out.append((mujoco.mjtGeom.mjGEOM_BOX, [0.5, 0.008, 0.008], pos, mat, rgba))
    return out

  # --- step --------------------------------------------------------------------------------------
  def step(self, state: State, action: Mapping[str, jax.Array]) -> State:
    self.check_action(action)
    c = self.config
    info = dict(state.info)
    data = state.pipeline_state
    A, O = self.num_agents, self.n_objects
    move, grab, lock, bad = _sanitize(action)
    in_prep = info["t"] < self.prep_steps
    agent_on = info["agent_on"] > 0
    active = agent_on & ~(in_prep & ~jnp.asarray(self.hider_flag))  # frozen seekers, absent agents
    move = jnp.where(active[:, None], move, NEUTRAL_BIN)
    grab, lock = grab & active, lock & active

    # Grab and lock: the nearest object seen (last observation's masks) within the radius.
    dist = self._object_distance(data, info)  # [A, O]
    obj_on = jnp.concatenate([info["box_on"], info["ramp_on"]]) > 0
    reach = info["visible"][:, A:] & (dist <= c["grab_radius"]) & obj_on[None] & active[:, None]
    has = jnp.any(reach, -1)
    nearest = jnp.argmin(jnp.where(reach, dist, jnp.inf), -1)
    grabbed = jnp.where(grab & has, nearest, -1)
    info["eq_data"] = self._grab_welds(data, info, grabbed)
    eq_active = (grabbed[:, None] == jnp.arange(O)[None]).reshape(-1)
    eq_active = jnp.zeros(self.mj_model.neq, bool).at[self._weld.reshape(-1)].set(eq_active)
    info["grabbed"] = grabbed
    self._lock(data, info, lock, has, nearest, dist)

    ctrl = bins_to_ctrl(move).reshape(-1)
    fields = self.world_fields(info)
    data = self.physics_step(data.replace(eq_active=eq_active), ctrl=ctrl, model_fields=fields)
    diverged = self.diverged(data)

    obs, visible = self._observe(fields, data, info)
    info["visible"] = visible
    t = info["t"] + 1
    info["t"] = t
    hider, seeker = jnp.asarray(self.hider_flag), ~jnp.asarray(self.hider_flag)
    seen = jnp.any(visible[:, :A] & (seeker & agent_on)[:, None] & (hider & agent_on)[None, :])
    team = jnp.where(seen, -1.0, 1.0).astype(jnp.float32)
    rewarded = ~in_prep
    reward = jnp.where(hider, team, -team) * rewarded * agent_on.astype(jnp.float32)
    pos = self._positions(data)
    out = _outside(pos["agent"]) & agent_on
    held_out = jnp.zeros(A, bool)
    if self.layout == "quadrant":
      obj_pos = jnp.concatenate([pos["box"], pos["ramp"]])
      obj_out = _outside(obj_pos) & obj_on
      held_out = (grabbed >= 0) & obj_out[jnp.maximum(grabbed, 0)]
    reward = reward + c["out_penalty"] * (out | held_out)
    info["hidden_steps"] = info["hidden_steps"] + (rewarded & ~seen)
    info["diverged"] = diverged.astype(jnp.float32)

    metrics = dict(state.metrics)
    moved = jnp.linalg.norm(jnp.concatenate([pos["box"], pos["ramp"]]) - info["obj_start"], axis=-1)
    box_moves = jnp.where(obj_on[: self.n_boxes], moved[: self.n_boxes], 0.0)
    ramp_moves = jnp.where(obj_on[self.n_boxes :], moved[self.n_boxes :], 0.0)
    metrics["max_box_move"] = jnp.max(box_moves, initial=0.0)
    metrics["max_ramp_move"] = jnp.max(ramp_moves, initial=0.0)
    locked = info["locked"] * obj_on
    metrics["num_box_lock"] = jnp.sum(locked[: self.n_boxes])
    metrics["num_ramp_lock"] = jnp.sum(locked[self.n_boxes :])
    prep_end = t == self.prep_steps
    for k in ("max_box_move", "max_ramp_move", "num_box_lock", "num_ramp_lock"):
      metrics[k + "_prep"] = jnp.where(prep_end, metrics[k], metrics[k + "_prep"])
    metrics["hidden_fraction"] = info["hidden_steps"] / jnp.maximum(t - self.prep_steps, 1)
    metrics["hider_reward"] = team * rewarded
    metrics["seeker_reward"] = -team * rewarded
    metrics["bad_action"] = bad
    metrics["out_of_area"] = jnp.sum(out).astype(jnp.float32)
    reward = jnp.where(diverged, 0.0, reward)
    obs = jax.tree.map(lambda x: jnp.where(diverged, jnp.zeros_like(x), jnp.nan_to_num(x)), obs)
    return state.replace(
      pipeline_state=data,
      obs=obs,
      reward=reward,
      done=diverged.astype(jnp.float32),
      metrics=metrics,
      info=info,
    )

  def _grab_welds(self, data, info, grabbed):
    """eq_data with each new grab's weld set to the current relative pose of agent and object."""
    A = self.num_agents
    prev = info["grabbed"]
    new = (grabbed >= 0) & (grabbed != prev)
    ob = jnp.asarray(self._obj_body)[jnp.maximum(grabbed, 0)]
    ab = jnp.asarray(self._agent_body)
    x1, q1, r1 = data.xpos[ab], data.xquat[ab], data.xmat[ab]
    x2, q2 = data.xpos[ob], data.xquat[ob]
    # MJX's weld: body1's point data[3:6] meets body2's point data[0:3]; orientation q1 * relpose = q2.
    rel = jnp.einsum("aji,aj->ai", r1, x2 - x1)
    relq = jax.vmap(brax_math.quat_mul)(jax.vmap(brax_math.quat_inv)(q1), q2)
    eq_data = info["eq_data"]
    row = jnp.concatenate(
      [jnp.zeros((A, 3)), rel, relq, jnp.ones((A, 1)), jnp.zeros((A, eq_data.shape[1] - 11))], -1
    )
    idx = jnp.asarray(self._weld)[jnp.arange(A), jnp.maximum(grabbed, 0)]
    current = eq_data[idx]
    return eq_data.at[idx].set(jnp.where(new[:, None], row, current))

  def _lock(self, data, info, lock, has, nearest, dist):
    """Updates info's locked, lock_team, lock_q and jnt_range from this step's lock actions."""
    O = self.n_objects
    team = jnp.asarray(self.hider_flag, jnp.float32)
    at = has[:, None] & (nearest[:, None] == jnp.arange(O)[None])  # [A, O]: agent i reaches object o
    at = at & self._lockable_now(info)[None]
    locked, lock_team = info["locked"] > 0, info["lock_team"]
    same = team[:, None] == lock_team[None]
    press = at & lock[:, None]
    lock_new = ~locked & jnp.any(press, 0)
    keep = locked & jnp.any(press & same, 0)
    unlock = locked & jnp.any(at & ~lock[:, None] & same, 0) & ~keep
    # The new lock's team: the nearest pressing agent's.
    closest = jnp.argmin(jnp.where(press, dist, jnp.inf), 0)
    new_team = team[closest]
    q = data.qpos[jnp.asarray(self._obj_j)]
    info["lock_q"] = jnp.where(lock_new[:, None], q, info["lock_q"])
    info["lock_team"] = jnp.where(lock_new, new_team, lock_team)
    info["locked"] = ((locked & ~unlock) | lock_new).astype(jnp.float32)
    info["jnt_range"] = self._object_ranges(info, info["locked"])

  def _lockable_now(self, info):
    """[O] bool: the objects lock and unlock may act on this step (the game: lockable ones)."""
    del info
    return jnp.asarray(self._lockable)

  def _object_distance(self, data, info):
    """[A, O] distance from each agent's centre to each object's bounding box (0 inside)."""
    p = data.xpos[jnp.asarray(self._agent_body)]
    ob = jnp.asarray(self._obj_body)
    x, r = data.xpos[ob], data.xmat[ob]
    centre = jnp.concatenate([jnp.zeros((self.n_boxes, 3)), jnp.asarray(self._ramp_centre)])
    half = jnp.concatenate([info["box_size"], jnp.tile(jnp.asarray(S.RAMP_HALF), (self.n_ramps, 1))])
    c = x + jnp.einsum("oij,oj->oi", r, centre)
    local = jnp.einsum("oji,aoj->aoi", r, p[:, None] - c[None])
    return jnp.linalg.norm(jnp.maximum(jnp.abs(local) - half[None], 0.0), axis=-1)

  # --- observation -------------------------------------------------------------------------------
  def _positions(self, data):
    q = data.qpos
    return {
      "agent": q[self._agent_j[:, :3]],
      "box": q[self._obj_j[: self.n_boxes, :3]],
      "ramp": q[self._obj_j[self.n_boxes :, :3]],
    }

  def _observe(self, fields, data, info):
    """(obs dict, visible [A, A + O]) of `data`; `fields`: the world's model fields (`world_fields`)."""
    c = self.config
    A, B, O = self.num_agents, self.n_boxes, self.n_objects
    q, v = data.qpos, data.qvel
    aj, oj = self._agent_j, self._obj_j
    yaw = q[aj[:, 3]]
    hider = jnp.asarray(self.hider_flag, jnp.float32)
    agent_f = jnp.concatenate(
      [q[aj[:, :3]], jnp.cos(yaw)[:, None], jnp.sin(yaw)[:, None], v[aj], hider[:, None]], -1
    )  # [A, 10]
    locked = info["locked"]
    bj = oj[:B]
    box_yaw = q[bj[:, 3]]
    box_f = jnp.concatenate(
      [
        q[bj[:, :3]],
        jnp.cos(box_yaw)[:, None],
        jnp.sin(box_yaw)[:, None],
        v[bj],
        info["box_size"],
        locked[:B, None],
      ],
      -1,
    )  # [B, 13]
    rj = oj[B:]
    ramp_yaw = q[rj[:, 3]]
    ramp_f = jnp.concatenate(
      [q[rj[:, :3]], jnp.cos(ramp_yaw)[:, None], jnp.sin(ramp_yaw)[:, None], v[rj], locked[B:, None]], -1
    )  # [R, 10]
    my_team_lock = (locked[None] > 0) & (info["lock_team"][None] == hider[:, None])  # [A, O]

    # Sight and lidar: one batch of rays per agent, its own body excluded.
    origin = data.xpos[jnp.asarray(self._agent_body)]  # [A, 3]
    rb = jnp.asarray(self._obj_body[B:])
    ramp_centre = data.xpos[rb] + data.xmat[rb] @ jnp.asarray(S.RAMP_CENTRE)
    targets = jnp.concatenate([origin, data.xpos[jnp.asarray(self._obj_body[:B])], ramp_centre])
    target_body = np.concatenate([self._agent_body, self._obj_body])
    to = targets[None] - origin[:, None]  # [A, A+O, 3]
    to = to / jnp.maximum(jnp.linalg.norm(to, axis=-1, keepdims=True), 1e-6)
    dirs = jnp.concatenate(
      [jnp.broadcast_to(jnp.asarray(self._lidar_dirs, jnp.float32), (A,) + self._lidar_dirs.shape), to], 1
    )  # [A, L+A+O, 3]
    if self.impl == "c":  # mj_multiRay per agent on the step's geom poses
      geoms = tuple(g for g in range(6) if _RAY_GROUPS[g])
      dist, geom = self.cphysics.rays(data, origin, dirs, geoms, self._agent_body, fields)
    else:
      m = self.mjx_model.replace(**fields)
      out = [
        jax.vmap(
          lambda vec, i=i: mjx.ray(m, data, origin[i], vec, _RAY_GROUPS, bodyexclude=int(self._agent_body[i]))
        )(dirs[i])
        for i in range(A)
      ]
      dist, geom = jnp.stack([o[0] for o in out]), jnp.stack([o[1] for o in out])
    L = self._lidar_dirs.shape[0]
    d_l = dist[:, :L]
    lidar = jnp.where((d_l < 0) | (d_l > c["lidar_range"]), c["lidar_range"], d_l)  # [A, L]
    los = jnp.asarray(self._geom_body)[geom[:, L:]] == jnp.asarray(target_body)[None]  # [A, A+O]
    heading = jnp.stack([jnp.cos(yaw), jnp.sin(yaw)], -1)
    to2 = targets[None, :, :2] - origin[:, None, :2]
    unit = to2 / jnp.maximum(jnp.linalg.norm(to2, axis=-1, keepdims=True), 1e-6)
    in_cone = jnp.einsum("ak,aek->ae", heading, unit) >= self._cos_half_cone - 1e-6
    present = jnp.concatenate([info["agent_on"], info["box_on"], info["ramp_on"]]) > 0
    not_self = jnp.concatenate([~jnp.eye(A, dtype=bool), jnp.ones((A, O), bool)], -1)
    present = present[None] & not_self & (info["agent_on"][:, None] > 0)
    visible = in_cone & los & present  # [A, A + O]

    prep_left = jnp.maximum(0.0, 1.0 - info["t"] / max(self.prep_steps, 1))
    self_f = jnp.concatenate([agent_f[:, :9], hider[:, None], jnp.full((A, 1), prep_left)], -1)
    agents_full = jnp.broadcast_to(agent_f[None], (A, A, agent_f.shape[-1]))
    boxes_full = jnp.concatenate(
      [jnp.broadcast_to(box_f[None], (A,) + box_f.shape), my_team_lock[:, :B, None]], -1
    )
    ramps_full = jnp.concatenate(
      [jnp.broadcast_to(ramp_f[None], (A,) + ramp_f.shape), my_team_lock[:, B:, None]], -1
    )
    f32 = lambda x: x.astype(jnp.float32)
    mask = lambda full, vis: full * vis[..., None]
    obs = {
      "self": self_f,
      "agents": mask(agents_full, visible[:, :A]),
      "agents_mask": f32(visible[:, :A]),
      "boxes": mask(boxes_full, visible[:, A : A + B]),
      "boxes_mask": f32(visible[:, A : A + B]),
      "ramps": mask(ramps_full, visible[:, A + B :]),
      "ramps_mask": f32(visible[:, A + B :]),
      "lidar": lidar,
      "agents_full": agents_full,
      "agents_present": f32(present[:, :A]),
      "boxes_full": boxes_full,
      "boxes_present": f32(present[:, A : A + B]),
      "ramps_full": ramps_full,
      "ramps_present": f32(present[:, A + B :]),
    }
    return obs, visible


# --- helpers -----------------------------------------------------------------------------------------
def bins_to_ctrl(move):
  """Movement bins (int, 0..10) -> motor controls in [-0.9, 0.9] (the reference's DiscretizeActionWrapper)."""
  return (-S.ACTION_LIM + move * (2 * S.ACTION_LIM / (N_BINS - 1))).astype(jnp.float32)


def _place(key, half, on, regions, wall_pos, wall_size):
  """xy [N, 2] for N rectangles of half-extents `half` [N, 2], in order: each inside its allowed
  rectangle, outside its excluded one, clear of the walls and of the earlier ones that are `on`. Tries
  `_PLACE_TRIES` candidates and keeps the first that fits (the first candidate if none does)."""
  allowed, excluded = regions
  n = half.shape[0]
  wall_lo, wall_hi = wall_pos[:, :2] - wall_size[:, :2], wall_pos[:, :2] + wall_size[:, :2]
  placed_lo = jnp.full((n, 2), 1e3)
  placed_hi = jnp.full((n, 2), 1e3)
  out = []
  for e, k in enumerate(jax.random.split(key, n)):
    h = half[e]
    lo = jnp.stack([allowed[e, 0], allowed[e, 2]]) + h
    hi = jnp.stack([allowed[e, 1], allowed[e, 3]]) - h
    cand = jax.random.uniform(k, (_PLACE_TRIES, 2), minval=lo, maxval=jnp.maximum(hi, lo + 1e-3))
    c_lo, c_hi = cand - h, cand + h
    overlap = lambda a_lo, a_hi: jnp.any(
      jnp.all((c_lo[:, None] < a_hi[None]) & (a_lo[None] < c_hi[:, None]), -1), -1
    )
    ex_lo, ex_hi = jnp.stack([excluded[e, 0], excluded[e, 2]]), jnp.stack([excluded[e, 1], excluded[e, 3]])
    bad = overlap(wall_lo, wall_hi) | overlap(placed_lo, placed_hi) | overlap(ex_lo[None], ex_hi[None])
    xy = cand[jnp.argmin(bad)]
    out.append(xy)
    placed_lo = placed_lo.at[e].set(jnp.where(on[e], xy - h, 1e3))
    placed_hi = placed_hi.at[e].set(jnp.where(on[e], xy + h, 1e3))
  return jnp.stack(out)


def _outside(pos):
  """[N] True where a position is outside the play area."""
  return jnp.any((pos[:, :2] < 0.0) | (pos[:, :2] > S.FLOOR_SIZE), -1)


def _sanitize(action):
  """Clean (move int [A, 3], grab bool [A], lock bool [A]) and 1.0 if anything was NaN or out of range."""
  move = jnp.asarray(action["move"])
  if jnp.issubdtype(move.dtype, jnp.floating):
    ok = jnp.isfinite(move) & (move == jnp.round(move))
    move = jnp.where(jnp.isfinite(move), jnp.round(move), NEUTRAL_BIN)
  else:
    ok = jnp.ones(move.shape, bool)
  ok = ok & (move >= 0) & (move <= N_BINS - 1)
  move = jnp.clip(move, 0, N_BINS - 1).astype(jnp.int32)
  flags, oks = [], [jnp.all(ok)]
  for k in ("grab", "lock"):
    x = jnp.asarray(action[k])
    fin = jnp.isfinite(x) if jnp.issubdtype(x.dtype, jnp.floating) else jnp.ones(x.shape, bool)
    oks.append(jnp.all(fin & ((x == 0) | (x == 1))))
    flags.append(fin & (x > 0.5) if jnp.issubdtype(x.dtype, jnp.floating) else x > 0)
  bad = ~(oks[0] & oks[1] & oks[2])
  return move, flags[0], flags[1], bad.astype(jnp.float32)
