"""The Shadow hand's in-hand manipulation tasks (gymnasium-robotics 1.4.2's `HandManipulate*-v1`).

Registered (the reference's names without the version suffix; its ids are `-v1` for the MuJoCo-bindings
version used here, `-v0` for mujoco-py's, and `...Dense-v1` for the dense reward: here
`reward_type="dense"`):
- `HandManipulateBlockRotateZ`: target rotation about z only, position ignored;
- `HandManipulateBlockRotateParallel`: a random z rotation composed with one of the 24 axis-aligned
  rotations of the cube, position ignored;
- `HandManipulateBlockRotateXYZ`: a random rotation about a random axis, position ignored;
- `HandManipulateBlock` (and its alias `HandManipulateBlockFull`): a random rotation and a random
  target position.
- `HandManipulateEggRotate` (position ignored) and `HandManipulateEgg` (alias `HandManipulateEggFull`,
  random position): an egg (the reference's ellipsoid, semi-axes 0.03, 0.03, 0.04, density 1000:
  0.151 kg), rotations "xyz" for the goal and the initial offset.
- `HandManipulatePenRotate` and `HandManipulatePen` (alias `HandManipulatePenFull`): a pen (capsule,
  radius 0.008, half-length 0.1, density 1000: 0.0424 kg) whose body starts turned by the MuJoCo xyz
  Euler angles (-1, 1, 0); as the reference's pen env: no initial rotation (`randomize_initial_rotation`
  False), `ignore_z_target_rotation` True (the pen's rotation about its own axis is ignored: its z Euler
  angle), `distance_threshold` 0.05; the floor is at z = -0.2 (the reference's pen scene).

- The touch-sensor variants, `{T}_BooleanTouchSensors` and `{T}_ContinuousTouchSensors` for T in the
  reference's 8 (BlockRotateZ, BlockRotateParallel, BlockRotateXYZ, Block, EggRotate, Egg, PenRotate,
  Pen): config `touch_get_obs` "boolean" / "sensordata" (also "log", and "off" for the others). The
  model gets the reference's 92 touch sites (mjx_envs/hand/model.py TOUCH_SITES: world positions at
  qpos0, sizes and order equal to the reference's, checked 2026-11-26) with a MuJoCo `touch` sensor each;
  the observation [153] appends their readings (boolean: reading > 0; sensordata: the normal force in N;
  log: log(1 + reading)), as the reference's `MujocoManipulateTouchSensorsEnv._get_obs`. Its
  `touch_visualisation` (site colours) is not modelled.

Semantics (the reference's `MujocoManipulateEnv`, tests/fixtures/hand_manipulate_reference.*):
- The scene is HandReach's hand (mjx_envs/hand/model.py; 24 joints, 20 position servos, the wrist's two
  joints included: the reference's manipulate scenes mount the same hand) with a 5 cm block (box
  half-size 0.025, density 567: 0.0709 kg, condim 4, friction 1 / 0.005 / 0.0001) on a free joint with
  damping 0.01, starting at (1, 0.87, 0.2) above the palm; the floor catches a dropped block.
- Reset (`_reset_sim`): the hand's joints at 0 and at rest; the block's orientation is turned by an
  offset drawn per `target_rotation` (z: U(-pi, pi) about z; parallel: that composed with one of the 24
  parallel rotations; xyz and ignore: U(-pi, pi) about an axis drawn U(-1, 1)^3; fixed: none) when
  `randomize_initial_rotation`, its position jittered by N(0, 0.005^2) per axis when
  `randomize_initial_position` (not for target_position "fixed"); then 10 control steps with action 0
  (the servos at their ranges' centres) let it settle. The state is accepted if the block's centre is
  above z = 0.04 (still on the palm) and the physics did not diverge; otherwise it is drawn again (up to
  `reset_tries` draws, the last one kept: the reference retries without bound, and in 800 reference
  resets none was rejected).
- Goal [7] (`_sample_goal`, after the settling): position = the block's settled position (+ U(range)
  per axis for target_position "random", range [(-0.04, 0.04), (-0.06, 0.02), (0, 0.06)]); orientation
  drawn as the initial offset (z, parallel, xyz), as a unit quaternion (w, x, y, z).
- Action [20]: the servos' targets, absolute or relative (mjx_envs/hand/common.py).
- Observation [61]: hand joint positions [24], joint velocities [24], the block's free-joint velocity
  [6] (linear in the world frame, angular in the block's frame: MuJoCo's qvel), the block's position
  and quaternion [7]; achieved_goal [7] the block's position and quaternion, desired_goal [7].
- Distances (`goal_distance`): d_pos the Euclidean distance of the positions (0 for target_position
  "ignore"); d_rot = 2 arccos(clip(w, -1, 1)) with w the real part of q_a * conj(q_b) (0 for
  target_rotation "ignore"; with `ignore_z_target_rotation`, q_a's z Euler angle (the reference's xyz
  convention) is first replaced by q_b's). As the reference's, d_rot is NOT sign-invariant: q and -q,
  the same orientation, are 2 pi apart. Success: d_pos < 0.01 and d_rot < 0.1; sparse reward success - 1,
  dense -(10 d_pos + d_rot). 0.002 s x 20 substeps (25 Hz), 100-step episodes, no termination.

Parity (tests/mjx_envs/test_hand_manipulate.py; fixture by scripts/make_hand_manipulate_reference.py),
measured 2026-11-26:
- Rewards and success: equal on 3 x 96 goal pairs around both thresholds (position ignored; full;
  ignore_z), sparse rewards and success exactly, dense within 9.4e-7 (float32 against float64). The 24
  parallel rotations equal the reference's to 4.4e-8.
- The model is exact: our MJCF stepped by the reference's own mujoco 3.3.7 reproduces the reference's
  settling and 25-step trajectories to 1e-14 (checked by hand: scene XML from `env.xml`).
- C backend (mujoco 4.0.0 against the reference's 3.3.7; 3 start poses x 5 open-loop sequences x 25
  steps): after settling, hand joints within 3.2e-3 rad, block within 2.0e-4 m and 0.0099 (quaternion
  entries), its velocity within 0.028; after the first step 0.43 (angular velocity); over the 25 steps
  block positions within 0.0093 m (where it slides), quaternions within 0.093, hand joints within
  0.074 rad, every reward equal. The engines differ (mujoco 4's contacts), not the models: the same
  start in float64 under 4.0.0 gives the same gaps.
- Egg and pen (fixture section 5; C backend): their mass, inertia, friction, start pose, floor and
  defaults are the reference's. Rewards and success equal on 96 pairs each of Egg, PenRotate and Pen
  (the pen's positions 0-0.1 m apart, around its 0.05 m threshold). From the start pose, settled, then
  5 sequences x 25 steps: the pen equals the reference to 1.2e-7 (float32 rounding; its contacts are
  capsule-capsule and capsule-box, alike in mujoco 3.3.7 and 4.0.0). The egg (a capsule, below):
  settled within 2.2e-3 m, 0.020 (quaternion), hand 4.1e-3 rad; over the steps within 0.0103 m, 0.149
  and 0.116 rad; every reward equal. Resets (64 against 200): settled means within 1.9 mm (egg) and
  1.0 mm (pen) per axis, spreads within 20%; the pen's settled orientations' means within 0.0016.
- Resets (100 of ours against 200 of the reference's, HandManipulateBlock): settled positions' means
  within 2.5 mm per axis, spreads within 1.5x; goal offsets within the range; RotateZ goals and starts
  turn about z only; RotateParallel's put the world's z on one of the block's 6 axis directions.

Deliberate differences from the reference (each with its measured effect where there is one):
- The model's (mjx_envs/hand/model.py): no meshes, 4 of the 44 tendons, no hand-floor contact.
- The egg's collision geom is a capsule (radius 0.03, half-length 0.01: the ellipsoid's extents) with
  the ellipsoid's mass and inertia given explicitly: MJX-JAX (mujoco 4.0.0) has no ellipsoid-box
  collision (`mjx.put_model` raises NotImplementedError for the palm's boxes), and the C backend builds
  the MJX model too. Measured on the 5 sequences above (the reference's own mujoco 3.3.7): our MJCF
  with the ellipsoid reproduces the reference exactly (float32 fixture), with the capsule the gaps
  quoted above (2.2e-3 m settled, 0.0103 m and 0.149 over 25 steps), the same under mujoco 4.0.0: the
  whole egg gap is the capsule's. (With the ellipsoid, mujoco 4.0.0's own gap would be 3.9e-4 m and
  0.0054.) The egg's hidden inner ellipsoid (mass 0, no contact) is left out, as the block's.
- The pen's `object:top` / `object:bottom` sites are left out (never observed).
- The target is a mocap body with a visual-only box (the reference: a free body whose joint adds 7 qpos
  and 6 qvel, falling under gravity unless rendered; never observed, never in contact). The block's
  hidden inner box (mass 0, no contact) is left out.
- target_rotation "ignore" / "fixed": the reference's goal sampling fails for them (it calls
  mujoco-py's `data.get_joint_qpos`; JSON `fixed_rotation_error`); here the goal keeps the block's
  settled orientation, which is what the reference's code means.
- `ignore_z_target_rotation` is applied per goal on batches too (the reference's `euler_a[2] =
  euler_b[2]` indexes the batch axis of a batched call).
- Observations, goals and rewards are float32 (the reference: float64); d_rot is computed as
  2 atan2(|v|, w) of the normalised quaternions (see `goal_distance`), which equals the reference's
  2 arccos(w) for unit quaternions and keeps float32 exact near 0 (arccos: errors up to 1e-3 rad).
- The draws come from JAX's PRNG (not numpy's): equal distributions, different samples; Gaussians by
  the inverse normal CDF of uniforms.
"""

from __future__ import annotations

from mjx_envs.core import ConfigError, GoalEnv, State
from mjx_envs.hand import model as hand_model
from mjx_envs.hand.common import HandServos, check_keys, validate_common

from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from mujoco import mjx

OBJECT_POS = (1.0, 0.87, 0.2)  # the object's initial position (the reference's)
SETTLE_STEPS = 10  # control steps with action 0 at a reset
ON_PALM_Z = 0.04  # a reset is accepted if the object's centre is above this height
POSITION_NOISE = 0.005  # std of the initial position's jitter, per axis
N_UNIFORMS = 8  # uniforms per drawn pose: angle, axis [3], parallel index, position [3]
TARGET_POSITIONS = ("ignore", "fixed", "random")
TARGET_ROTATIONS = ("ignore", "fixed", "xyz", "z", "parallel")
# The reference's 24 parallel rotations (`rotations.get_parallel_rotations`), in its order, as xyz Euler
# angles in multiples of pi/2.
PARALLEL_EULERS = (
  (0, 0, 0), (0, 0, 1), (0, 0, -1), (0, 0, 2), (0, 1, 0), (0, 1, 1), (0, 1, -1), (0, 1, 2),
  (0, -1, 0), (0, -1, 1), (0, -1, -1), (0, -1, 2), (2, 0, 2), (2, 0, -1), (2, 0, 1), (2, 0, 0),
  (1, 0, 0), (1, 0, 1), (1, 0, -1), (1, 0, 2), (-1, 0, 2), (-1, 0, -1), (-1, 0, 1), (-1, 0, 0),
)  # fmt: skip

# The objects (the reference's manipulate_{block,egg,pen}.xml and their env classes): the collision geom
# (MJCF attributes), its density or an explicit inertial (mass, diagonal inertia), the body's initial
# orientation (MuJoCo xyz Euler angles), the floor's height, and the env class's defaults that differ.
RANGE = ((-0.04, 0.04), (-0.06, 0.02), (0.0, 0.06))  # every object's target position range
# The egg: the reference's ellipsoid (semi-axes 0.03, 0.03, 0.04, density 1000) as a capsule of the same
# extents (radius 0.03, half-length 0.01) with the ellipsoid's mass and inertia: MJX-JAX has no
# ellipsoid-box collision (the palm is boxes; mjx.put_model raises NotImplementedError), see the docstring.
EGG_AXES = (0.03, 0.03, 0.04)
EGG_MASS = 4.0 / 3.0 * np.pi * EGG_AXES[0] * EGG_AXES[1] * EGG_AXES[2] * 1000.0
EGG_INERTIA = tuple(
  EGG_MASS / 5.0 * (EGG_AXES[j] ** 2 + EGG_AXES[k] ** 2) for j, k in ((1, 2), (0, 2), (0, 1))
)
OBJECTS = {
  "block": {
    "target_position_range": RANGE,
    "geom": 'type="box" size="0.025 0.025 0.025"',
    "density": 567.0,
  },
  "egg": {
    "target_position_range": RANGE,
    "geom": 'type="capsule" size="0.03 0.01"',  # radius a, half-length c - a
    "inertial": (EGG_MASS, EGG_INERTIA),
  },
  "pen": {
    "target_position_range": RANGE,
    "geom": 'type="capsule" size="0.008 0.1"',
    "density": 1000.0,
    "euler": (-1.0, 1.0, 0.0),
    "floor_z": -0.2,
    # MujocoHandPenEnv's own defaults
    "randomize_initial_rotation": False,
    "ignore_z_target_rotation": True,
    "distance_threshold": 0.05,
  },
}
TASKS = {
  "HandManipulateBlockRotateZ": ("block", "ignore", "z"),
  "HandManipulateBlockRotateParallel": ("block", "ignore", "parallel"),
  "HandManipulateBlockRotateXYZ": ("block", "ignore", "xyz"),
  "HandManipulateBlockFull": ("block", "random", "xyz"),
  "HandManipulateBlock": ("block", "random", "xyz"),
  "HandManipulateEggRotate": ("egg", "ignore", "xyz"),
  "HandManipulateEggFull": ("egg", "random", "xyz"),
  "HandManipulateEgg": ("egg", "random", "xyz"),
  "HandManipulatePenRotate": ("pen", "ignore", "xyz"),
  "HandManipulatePenFull": ("pen", "random", "xyz"),
  "HandManipulatePen": ("pen", "random", "xyz"),
}
# The touch-sensor variants (the reference's names): the base task with `touch_get_obs` set.
TOUCH_GET_OBS = ("off", "boolean", "sensordata", "log")
TOUCH_OBS = {
  f"{base}_{kind}TouchSensors": mode
  for base in (
    "HandManipulateBlockRotateZ",
    "HandManipulateBlockRotateParallel",
    "HandManipulateBlockRotateXYZ",
    "HandManipulateBlock",
    "HandManipulateEggRotate",
    "HandManipulateEgg",
    "HandManipulatePenRotate",
    "HandManipulatePen",
  )
  for kind, mode in (("Boolean", "boolean"), ("Continuous", "sensordata"))
}
TASKS.update({name: TASKS[name.split("_")[0]] for name in TOUCH_OBS})
N_TOUCH = len(hand_model.TOUCH_SITES)


# ------------------------------------------------------------------------------- quaternions (w, x, y, z)
def quat_mul(a: jax.Array, b: jax.Array) -> jax.Array:
  """[..., 4] x [..., 4] -> the Hamilton product a * b."""
  aw, ax, ay, az = jnp.moveaxis(a, -1, 0)
  bw, bx, by, bz = jnp.moveaxis(b, -1, 0)
  return jnp.stack(
    [
      aw * bw - ax * bx - ay * by - az * bz,
      aw * bx + ax * bw + ay * bz - az * by,
      aw * by - ax * bz + ay * bw + az * bx,
      aw * bz + ax * by - ay * bx + az * bw,
    ],
    axis=-1,
  )


def quat_from_angle_and_axis(angle: jax.Array, axis: jax.Array) -> jax.Array:
  """The unit quaternion of a rotation by `angle` about `axis` (any length)."""
  axis = axis / jnp.linalg.norm(axis, axis=-1, keepdims=True)
  q = jnp.concatenate([jnp.cos(angle / 2)[..., None], jnp.sin(angle / 2)[..., None] * axis], axis=-1)
  return q / jnp.linalg.norm(q, axis=-1, keepdims=True)


def euler2quat(euler: jax.Array) -> jax.Array:
  """[..., 3] Euler angles of the reference's convention (R = Rx(e0) Ry(e1) Rz(e2)) -> quaternions."""
  half = jnp.asarray(euler) / 2
  c, s = jnp.cos(half), jnp.sin(half)
  zero = jnp.zeros_like(c[..., 0])
  qx = jnp.stack([c[..., 0], s[..., 0], zero, zero], -1)
  qy = jnp.stack([c[..., 1], zero, s[..., 1], zero], -1)
  qz = jnp.stack([c[..., 2], zero, zero, s[..., 2]], -1)
  return quat_mul(quat_mul(qx, qy), qz)


def quat2euler(q: jax.Array) -> jax.Array:
  """[..., 4] quaternions (any norm) -> the reference's xyz Euler angles (inverse of euler2quat)."""
  w, x, y, z = jnp.moveaxis(q, -1, 0)
  s = 2.0 / jnp.sum(q * q, axis=-1)
  r00, r01, r02 = 1 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)
  r10, r11, r12 = s * (x * y + w * z), 1 - s * (x * x + z * z), s * (y * z - w * x)
  r22 = 1 - s * (x * x + y * y)
  cy = jnp.sqrt(r22 * r22 + r12 * r12)
  regular = cy > 4 * np.finfo(np.float64).eps
  e0 = jnp.where(regular, jnp.arctan2(-r12, r22), 0.0)
  e1 = jnp.arctan2(r02, cy)
  e2 = jnp.where(regular, jnp.arctan2(-r01, r00), jnp.arctan2(r10, r11))
  return jnp.stack([e0, e1, e2], axis=-1)


def parallel_quats() -> np.ndarray:
  """[24, 4] the parallel rotations' quaternions, in the reference's order and signs."""
  return np.asarray(euler2quat(jnp.asarray(PARALLEL_EULERS, jnp.float32) * (jnp.pi / 2)), np.float32)


# ------------------------------------------------------------------------------------------- config
def default_config(task: str) -> dict[str, Any]:
  """Every config key of `task` and its default (the reference's `task`-v1)."""
  obj, target_position, target_rotation = TASKS[task]
  spec = OBJECTS[obj]
  return {
    "reward_type": "sparse",  # 'sparse' (success - 1) or 'dense' (-(10 d_pos + d_rot))
    "target_position": target_position,  # "ignore", "fixed" or "random"
    "target_rotation": target_rotation,  # "ignore", "fixed", "xyz", "z" or "parallel"
    # Offsets of a random target position from the settled object, per axis [low, high] (metres).
    "target_position_range": [list(r) for r in spec["target_position_range"]],
    "randomize_initial_position": True,
    "randomize_initial_rotation": spec.get("randomize_initial_rotation", True),
    # d_rot ignores the rotation about z (Euler xyz)
    "ignore_z_target_rotation": spec.get("ignore_z_target_rotation", False),
    "distance_threshold": spec.get("distance_threshold", 0.01),  # metres, on d_pos
    "rotation_threshold": 0.1,  # radians, on d_rot
    "episode_length": 100,  # control steps (read by the wrappers)
    "relative_control": False,  # servo targets relative to the current joint positions
    "sim_dt": 0.002,  # MuJoCo timestep (s); dt = sim_dt * n_substeps = 0.04 s
    "n_substeps": 20,
    "iterations": 20,  # Newton solver iterations (the reference's)
    "ls_iterations": 50,  # line-search iterations (MuJoCo's default, the reference's)
    "cone": "pyramidal",  # friction cone (the reference's)
    # Touch readings appended to the observation [N_TOUCH]: "off" (none, no sensors in the model),
    # "boolean" (reading > 0), "sensordata" (the normal force, N) or "log" (log(1 + reading)).
    "touch_get_obs": TOUCH_OBS.get(task, "off"),
    "reset_tries": 5,  # draws of an initial state before the last one is kept (see the docstring)
    "impl": "auto",  # physics: "auto" (C MuJoCo on a CPU, MJX-JAX on GPU/TPU), "c", "jax" or "warp"
    "warp_max_envs": None,  # impl="warp": the most envs in one batch (None: 1024)
  }


def validate_config(task: str, cfg: Mapping[str, Any]) -> None:
  """Raises ConfigError naming the key for an invalid value."""
  validate_common(task, cfg, thresholds=("distance_threshold", "rotation_threshold"))
  if cfg["target_position"] not in TARGET_POSITIONS:
    raise ConfigError(
      f"{task}: config 'target_position' must be one of {TARGET_POSITIONS}, got {cfg['target_position']!r}"
    )
  if cfg["target_rotation"] not in TARGET_ROTATIONS:
    raise ConfigError(
      f"{task}: config 'target_rotation' must be one of {TARGET_ROTATIONS}, got {cfg['target_rotation']!r}"
    )
  rng = cfg["target_position_range"]
  try:
    arr = np.asarray(rng, dtype=np.float64)
    ok = arr.shape == (3, 2) and np.isfinite(arr).all() and (arr[:, 0] <= arr[:, 1]).all()
  except (TypeError, ValueError):
    ok = False
  if not ok:
    raise ConfigError(
      f"{task}: config 'target_position_range' must be 3 pairs [low, high] with low <= high, got {rng!r}"
    )
  for key in ("randomize_initial_position", "randomize_initial_rotation", "ignore_z_target_rotation"):
    if not isinstance(cfg[key], (bool, np.bool_)):
      raise ConfigError(f"{task}: config {key!r} must be True or False, got {cfg[key]!r}")
  if cfg["touch_get_obs"] not in TOUCH_GET_OBS:
    raise ConfigError(
      f"{task}: config 'touch_get_obs' must be one of {TOUCH_GET_OBS}, got {cfg['touch_get_obs']!r}"
    )
  v = cfg["reset_tries"]
  if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
    raise ConfigError(f"{task}: config 'reset_tries' must be an integer >= 1, got {v!r}")


def object_xml(obj: str) -> str:
  """MJCF of the object (a free body at OBJECT_POS) and its target (a visual-only mocap body)."""
  spec = OBJECTS[obj]
  pos = " ".join(str(x) for x in OBJECT_POS)
  euler = " ".join(str(x) for x in spec.get("euler", (0.0, 0.0, 0.0)))
  bits = hand_model.OBJECT_CONTYPE
  if "inertial" in spec:
    mass, inertia = spec["inertial"]
    inertial = f'<inertial pos="0 0 0" mass="{mass!r}" diaginertia="{" ".join(repr(x) for x in inertia)}"/>'
    density = ""
  else:
    inertial, density = "", f'density="{spec["density"]}"'
  return f"""
<body name="object" pos="{pos}" euler="{euler}">
  <joint name="object:joint" type="free" damping="0.01"/>
  {inertial}
  <geom name="object" {spec["geom"]} {density} condim="4" contype="{bits}"
        conaffinity="{bits}" rgba="0.85 0.55 0.2 1"/>
  <site name="object:center" pos="0 0 0" size="0.01" rgba="1 0 0 0"/>
</body>
<body name="target" pos="{pos}" euler="{euler}" mocap="true">
  <geom name="target" {spec["geom"]} contype="0" conaffinity="0" group="2" rgba="0.85 0.55 0.2 0.4"/>
</body>"""


class HandManipulateEnv(HandServos, GoalEnv):
  """A HandManipulate task; build it with `mjx_envs.make("HandManipulateBlockRotateZ", **overrides)`."""

  action_size = 20

  def __init__(self, task: str, **config):
    if task not in TASKS:
      raise ConfigError(f"unknown hand manipulate task {task!r}; one of {sorted(TASKS)}")
    check_keys(task, config, default_config(task))
    cfg = {**default_config(task), **config}
    validate_config(task, cfg)
    self.task = task
    self.object = TASKS[task][0]
    self.config = dict(cfg)
    self.reward_type = cfg["reward_type"]
    self.target_position = cfg["target_position"]
    self.target_rotation = cfg["target_rotation"]
    self.target_position_range = np.asarray(cfg["target_position_range"], np.float32)
    self.randomize_initial_position = bool(cfg["randomize_initial_position"])
    self.randomize_initial_rotation = bool(cfg["randomize_initial_rotation"])
    self.ignore_z_target_rotation = bool(cfg["ignore_z_target_rotation"])
    self.distance_threshold = float(cfg["distance_threshold"])
    self.rotation_threshold = float(cfg["rotation_threshold"])
    self.episode_length = int(cfg["episode_length"])
    self.relative_control = bool(cfg["relative_control"])
    self.reset_tries = int(cfg["reset_tries"])
    self.touch_get_obs = cfg["touch_get_obs"]
    touch = self.touch_get_obs != "off"
    self.xml = hand_model.scene_xml(
      task,
      sim_dt=float(cfg["sim_dt"]),
      iterations=int(cfg["iterations"]),
      ls_iterations=int(cfg["ls_iterations"]),
      cone=cfg["cone"],
      worldbody_extra=object_xml(self.object),
      object_floor=True,
      floor_z=float(OBJECTS[self.object].get("floor_z", 0.0)),
      touch_sensors=touch,
    )
    # The observation reads qpos and qvel only; the body poses serve rendering and tools.
    super().__init__(
      mujoco.MjModel.from_xml_string(self.xml),
      int(cfg["n_substeps"]),
      impl=cfg["impl"],
      warp_max_envs=cfg["warp_max_envs"],
      c_fields=("xpos", "xquat", "sensordata") if touch else ("xpos", "xquat"),
    )
    m = self.mj_model
    self._setup_servos(m)
    joint = m.joint("object:joint")
    self._obj_qpos = int(joint.qposadr[0])
    self._obj_qvel = int(joint.dofadr[0])
    self._target_mocap = int(m.body_mocapid[m.body("target").id])
    # Hand joints at 0, the object at OBJECT_POS in its initial orientation (the body's).
    self._qpos0 = np.array(m.qpos0, np.float32)
    self._parallel = parallel_quats()

  # ---------------------------------------------------------------- distances and rewards
  def goal_distance(self, goal_a: jax.Array, goal_b: jax.Array) -> tuple[jax.Array, jax.Array]:
    """[..., 7] x [..., 7] -> (d_pos, d_rot) [...], float32 (the module docstring's definitions)."""
    a, b = jnp.asarray(goal_a, jnp.float32), jnp.asarray(goal_b, jnp.float32)
    zero = jnp.zeros(a.shape[:-1], jnp.float32)
    d_pos = zero if self.target_position == "ignore" else jnp.linalg.norm(a[..., :3] - b[..., :3], axis=-1)
    if self.target_rotation == "ignore":
      return d_pos, zero
    qa, qb = a[..., 3:], b[..., 3:]
    if self.ignore_z_target_rotation:
      ea, eb = quat2euler(qa), quat2euler(qb)
      qa = euler2quat(jnp.concatenate([ea[..., :2], eb[..., 2:]], axis=-1))
    # 2 arccos(w) of qa * conj(qb), as 2 atan2(|v|, w) of the normalised quaternions' product (w, v):
    # the same angle for unit quaternions, but exact in float32 near 0, where arccos of a float32 w
    # is off by up to 1e-3 rad.
    qa = qa / jnp.linalg.norm(qa, axis=-1, keepdims=True)
    qb = qb / jnp.linalg.norm(qb, axis=-1, keepdims=True)
    diff = quat_mul(qa, qb * jnp.array([1.0, -1.0, -1.0, -1.0], jnp.float32))
    return d_pos, 2.0 * jnp.arctan2(jnp.linalg.norm(diff[..., 1:], axis=-1), diff[..., 0])

  def is_success(self, achieved_goal, desired_goal):
    d_pos, d_rot = self.goal_distance(achieved_goal, desired_goal)
    return ((d_pos < self.distance_threshold) & (d_rot < self.rotation_threshold)).astype(jnp.float32)

  def compute_reward(self, achieved_goal, desired_goal, info=None):
    if self.reward_type == "sparse":
      return self.is_success(achieved_goal, desired_goal) - 1.0
    d_pos, d_rot = self.goal_distance(achieved_goal, desired_goal)
    return -(10.0 * d_pos + d_rot)

  # ---------------------------------------------------------------- sampling
  # Every draw of a reset comes from ONE jax.random.uniform call (N_UNIFORMS per pose), Gaussians by the
  # inverse normal CDF: each threefry call adds about a second to the compile of a vmapped reset.
  def _rotation(self, u: jax.Array) -> jax.Array:
    """A rotation [4] drawn per `target_rotation` from uniforms u [5]: about z (angle U(-pi, pi)), that
    then a parallel rotation, or about an axis U(-1, 1)^3."""
    angle = (2 * u[0] - 1) * jnp.pi
    if self.target_rotation in ("z", "parallel"):
      q = quat_from_angle_and_axis(angle, jnp.array([0.0, 0.0, 1.0]))
      if self.target_rotation == "parallel":
        index = jnp.minimum(jnp.floor(u[4] * 24).astype(jnp.int32), 23)
        q = quat_mul(q, jnp.asarray(self._parallel)[index])
      return q
    return quat_from_angle_and_axis(angle, 2 * u[1:4] - 1)

  def initial_object(self, key: jax.Array) -> jax.Array:
    """The object's initial pose [7] before settling (the reference's `_reset_sim` draws)."""
    return self._initial_object(jax.random.uniform(key, (N_UNIFORMS,)))

  def _initial_object(self, u: jax.Array) -> jax.Array:
    pos = jnp.asarray(OBJECT_POS, jnp.float32)
    quat = jnp.asarray(self._qpos0[self._obj_qpos + 3 : self._obj_qpos + 7])
    if self.randomize_initial_rotation and self.target_rotation != "fixed":
      quat = quat_mul(quat, self._rotation(u[:5]))
    if self.randomize_initial_position and self.target_position != "fixed":
      pos = pos + POSITION_NOISE * jax.scipy.special.ndtri(jnp.clip(u[5:8], 1e-7, 1 - 1e-7))
    return jnp.concatenate([pos, quat / jnp.linalg.norm(quat)])

  def sample_goal(self, key: jax.Array, object_qpos: jax.Array) -> jax.Array:
    """The reference's `_sample_goal` from the settled object pose [7]: [7]."""
    return self._goal(jax.random.uniform(key, (N_UNIFORMS,)), object_qpos)

  def _goal(self, u: jax.Array, object_qpos: jax.Array) -> jax.Array:
    pos = object_qpos[:3]
    if self.target_position == "random":
      lo, hi = self.target_position_range[:, 0], self.target_position_range[:, 1]
      pos = pos + lo + u[5:8] * (hi - lo)
    if self.target_rotation in ("ignore", "fixed"):
      quat = object_qpos[3:]
    else:
      quat = self._rotation(u[:5])
    return jnp.concatenate([pos, quat / jnp.linalg.norm(quat)]).astype(jnp.float32)

  # ---------------------------------------------------------------- observations
  def _obs(self, d: mjx.Data, goal: jax.Array):
    obj = d.qpos[self._obj_qpos : self._obj_qpos + 7]
    vel = d.qvel[self._obj_qvel : self._obj_qvel + 6]
    parts = [self.hand_obs(d), vel, obj]
    if self.touch_get_obs != "off":  # the model's only sensors: the touch sensors, TOUCH_SITES' order
      touch = d.sensordata
      if self.touch_get_obs == "boolean":
        touch = (touch > 0.0).astype(jnp.float32)
      elif self.touch_get_obs == "log":
        touch = jnp.log1p(touch)
      parts.append(touch)
    observation = jnp.concatenate(parts)
    return {
      "observation": observation.astype(jnp.float32),
      "achieved_goal": obj.astype(jnp.float32),
      "desired_goal": goal.astype(jnp.float32),
    }

  # ---------------------------------------------------------------- reset / step
  def settle(self, object_qpos: jax.Array) -> tuple[mjx.Data, jax.Array]:
    """From the hand at 0 and the object at `object_qpos` [7], at rest: SETTLE_STEPS control steps with
    action 0. Returns (the data, whether the object stayed on the palm and the physics is sound)."""
    qpos = jnp.asarray(self._qpos0).at[self._obj_qpos : self._obj_qpos + 7].set(object_qpos)
    data = self.make_data().replace(qpos=qpos, ctrl=jnp.zeros(self.mj_model.nu, jnp.float32))
    zero = jnp.zeros(self.action_size, jnp.float32)

    def body(_, d):
      return self.physics_step(d, ctrl=self.ctrl_for(d.qpos, zero))

    data = jax.lax.fori_loop(0, SETTLE_STEPS, body, data)
    ok = (data.qpos[self._obj_qpos + 2] > ON_PALM_Z) & ~self.diverged(data)
    return data, ok

  def reset(self, rng: jax.Array) -> State:
    u = jax.random.uniform(rng, (self.reset_tries + 1, N_UNIFORMS))  # a row per draw, the last the goal's

    def attempt(carry):
      _, _, i = carry
      data, ok = self.settle(self._initial_object(u[i]))
      return data, ok, i + 1

    def again(carry):
      return ~carry[1] & (carry[2] < self.reset_tries)

    data, _, _ = jax.lax.while_loop(again, attempt, (self.make_data(), jnp.bool_(False), jnp.int32(0)))
    goal = self._goal(u[-1], data.qpos[self._obj_qpos : self._obj_qpos + 7])
    return self.start_from(data, goal)

  def start_from(self, data: mjx.Data, goal: jax.Array) -> State:
    """The start State of settled `data` with `goal` [7]; the target body shows the goal (moved 0.15 m
    along x when the position is ignored, as the reference's render callback)."""
    goal = jnp.asarray(goal, jnp.float32)
    shift = jnp.array([0.15 if self.target_position == "ignore" else 0.0, 0.0, 0.0], jnp.float32)
    data = data.replace(
      mocap_pos=data.mocap_pos.at[self._target_mocap].set(goal[:3] + shift),
      mocap_quat=data.mocap_quat.at[self._target_mocap].set(goal[3:]),
    )
    return self.start_state(data, self._obs(data, goal), goal)

  @property
  def observation_size(self):
    n = 61 + (N_TOUCH if self.touch_get_obs != "off" else 0)
    return {"observation": (n,), "achieved_goal": (7,), "desired_goal": (7,)}
