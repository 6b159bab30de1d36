"""The Fetch goal tasks in MJX: FetchReach, FetchPush, FetchSlide, FetchPickAndPlace.

Semantics follow gymnasium-robotics 1.4.2 (`Fetch*-v4`; recorded in tests/fixtures/fetch_reference.*):
same world coordinates (table top z ~= 0.4, initial gripper positions, goal and object regions), the same
25-D (Reach: 10-D) observation layout, the same sparse/dense reward and success test, 50-step episodes at
25 Hz, 4-D actions in [-1, 1] whose first three entries move the gripper by up to 0.05 m per step.

Scene (the reference's physics, since 2026-11-24): Fetch's gripper (`gripper_xml`: the reference's finger
boxes, masses, joint damping/armature, friction and kp-30000 finger servos) welded to a mocap target as in the
reference; the reference's table, a box the object rests on and can fall from onto the floor; one free 2 kg
object (a 5 cm cube; Slide: a flat square puck) with the reference's frictions (1; Slide 0.1); a visual-only
`target` site marks the desired goal. The 7-DoF arm is replaced by its reach: the mocap target is projected
into the set the reference's gripper reaches (SHOULDER). Collision geoms are primitives only.

Observation (`obs['observation']`, float32), index ranges as in the reference:
  [0:3] grip_pos        tcp (fingertip centre) position
  [3:6] object_pos      object centre                     (object tasks only, as are the next four)
  [6:9] object_rel_pos  object_pos - grip_pos
  [9:11] gripper_state  finger joint positions [right, left] (metres from the centre line, 0 .. 0.05)
  [11:14] object_rot    Euler angles of the object (gymnasium-robotics `mat2euler` convention)
  [14:17] object_velp   (object linear velocity - grip linear velocity) * dt
  [17:20] object_velr   object angular velocity (world frame) * dt
  [20:23] grip_velp     gripper linear velocity * dt
  [23:25] gripper_vel   finger joint velocities * dt
Reach: grip_pos, gripper_state, grip_velp, gripper_vel (10-D). `achieved_goal` is object_pos (Reach:
grip_pos); `desired_goal` is the goal, also kept in `info['goal']`.

Parity with gymnasium-robotics 1.4.2 is tested (tests/mjx_envs/test_fetch.py, "dynamics parity") against
open-loop action sequences recorded in the reference (tests/fixtures/fetch_dynamics_reference.*): the
same actions from the same start states in both. Measured (16 start states per sequence; BENCHMARKS.md,
"Fetch on the reference's physics"): the gripper path under smooth random actions is within 0.7-1.1 cm
(mean); pushing moves the 2 kg block 0.177 m against the reference's 0.183 m (median); grasping lifts it
0.169 m against 0.173 m; every edge push drops it to the floor in both; a struck Slide puck travels 0.794 m
against 0.797 m (median; per episode it stops 0.09 m from the reference's, median; 3 of 16 fall off the far
edge in both). Before 2026-11-25 it travelled 0.545 m (see Slide below).

Deliberate differences that remain, each with its measured effect:
- No arm: the reference's mocap drags a 7-DoF arm; ours drags the gripper alone, and the arm's reach is a
  clip of the mocap target (a sphere of radius 1.05 m about SHOULDER + REACH_CENTRE, x >= shoulder x -
  0.09, and the table top's height; fitted to the reference's constant-action probes, which end within
  +-0.015 m of the sphere). The arm's own collisions (its links on the table or the object) are absent,
  and the gripper cannot go below the table top's height beyond the table's edge (the reference's can).
  Gripper speed under a constant action: 0.031 m/step (the reference: 0.029-0.033, slowing to 0.024 as
  its arm stretches); the weld's solref is 0.016 (2 x sim_dt; the reference: 0.02 at its 0.002 s step),
  which gives that speed at our step. Within a control step the mocap moves linearly from its previous
  target to the new one (a target that jumps once per step makes the weld jerk the gripper into objects).
- Physics step: 0.008 s x 5 for Reach, Push and PickAndPlace, the reference's 0.002 s x 20 for Slide (the
  reference: 0.002 s x 20 for all; before 2026-11-24 Push/Slide used 0.004 s x 10), elliptic cones (the
  reference: pyramidal; with pyramidal cones MJX's box-box contacts made small objects jump and spin),
  Newton with 10 iterations and 10 line-search iterations (the reference: 100 / 50). With 4 / 8 (the setting
  before 2026-11-24, 1.38x faster) the solver left contacts with the 2 kg block unconverged: 1 of 32
  replayed reference pushes launched the block off the table (none in the reference), and the scripted Push
  expert fell to 0.81 (0.91 at 10 / 10).
- The gripper meets the table as a plane at the table top (cheap plane-box contacts); the object meets the
  table box (box-box). `table="plane"` (config) puts the object on an infinite plane too: cheaper, but
  the object never falls.
- Striking (Slide): the reference's arm carries momentum into the impact: its gripper meets the puck at
  ~0.73 m/s and sends it off at ~1.16 m/s. Slide therefore runs (config defaults, all of them keys) on
  the reference's step (0.002 s x 20), the reference's mocap semantics (`mocap="jump"`: the target is set
  once per control step, where the other tasks move it linearly over the substeps) and weld (time
  constant 0.02 s), and a gripper body of 45 kg (`gripper_mass`, SLIDE_ARM_MASS) standing in for the
  arm's inertia (its joints' armature and damping) behind the gripper, fitted to the strike. Measured on
  the fixture's 16 strikes (benchmarks/fetch_parity.py, 2026-11-25), median travel, ours / the reference's
  0.797 m: the old model (0.008 s x 5, interpolated mocap, 1.52 kg, weld 0.016) 0.537; the reference's
  step, jump and weld 0.630; + pyramidal cones and Newton 100 / 50 0.731; + 20 kg 0.785 (but 0.22 m median
  per-episode error, 5 falls against 3); elliptic with 10 / 20 / 35 / 45 kg: 0.657 / - / 0.766 / 0.794
  (0.09 m median per-episode error, 3 falls as the reference's). The price: the gripper's free path is
  within 1.4 cm (mean) of the reference's where it was within 1.0 cm, its fingers yield up to 1 cm
  under the jumping mocap (held by their servos only), and Slide's physics costs 4x the substeps.
- Locked fingers (Push/Slide/Reach): the reference sets them back to 0 after every step (its
  `_step_callback`); ours do so with `finger_reset=True`, and by default are held by their servos alone
  (they yield up to 1 cm under Slide's jumping mocap, 4 mm elsewhere). Measured 2026-11-26 (C physics,
  benchmarks/fetch_parity.py; benchmarks/results/envs/2026-11-26/): with the reset the strike's median
  travel is 0.772 m against 0.794 without (reference 0.797) and its per-episode error 0.084 m against
  0.093; Push's push 0.178 against 0.177 m (reference 0.183). The scripted Slide controller scores the same
  either way within noise (0.525 with, 0.51 without, the same 200 episodes), but it sits just above its
  0.50 bar (long strikes fall short near the reach limit), and on the test's 64 episodes it lands below
  the bar with the reset: the reset stays off by default until that controller has a margin. The same settings on Push/PickAndPlace (20 kg)
  made their push parity worse (0.172 against 0.177 m pushed, reference 0.183), so they keep theirs.
  MJX-JAX on Slide's settings (4 worlds, 10 random-action steps against C, 2026-11-25): positions within
  5 mm, but the struck puck's yaw drifts apart (0.35 rad after 10 steps; 0.06 with the 1.52 kg gripper):
  the engines resolve the heavy gripper's impacts on the low-friction puck differently. C is the
  reference there (it is the reference's engine).
- Slide: the puck is a flat square box (half-size 0.025 x 0.025 x 0.02) rather than a cylinder (radius
  0.025, half-height 0.02): MJX has no box-cylinder collision (the fingers are boxes). The reference's
  puck starts 6 mm inside its table and wobbles; ours rests on a table top lowered to match its height.
- Fingers: the servo target is the finger position + a[3], as the reference's `ctrl_set_action`, but the
  MJX servos settle a few mm differently (open after one step: 0.045 m against 0.041 m; on the block:
  0.022 against 0.024 m, the contact being softer). Push/Slide/Reach hold the fingers at 0 with their
  servos (target 0); the reference forces them to 0 (`finger_reset`, below).
- Reset does not simulate a settling period: the object is placed resting on the table (its centre at the
  reference's `height_offset`) and the gripper at the reference's initial position, at rest, fingers
  closed (the reference's arm has settled a few 1e-5 m away from `initial_gripper_xpos`).
- Object start positions are drawn as in the reference (initial gripper xy + U(-obj_range, obj_range),
  at least 0.1 m from the gripper) but jittably: 64 candidates are drawn and the first valid one is used
  (the chance that none is valid is below 1e-6 even for Slide; then the last one is pushed out to 0.1 m).
- Rewards and success are computed in float32. The reference computes the distance in float64; the only
  possible disagreement is for distances within float32 rounding (~1e-7 m) of the threshold (none in the
  fixture). At exactly the threshold both give sparse reward 0 (d > thr is false) and is_success 0
  (d < thr is false): reward -1 is NOT always 1 - is_success.
- The episode never terminates (`done` stays 0); the time limit is the wrappers' job (`episode_length`).

Before 2026-11-24 the tasks were "Fetch-like": 0.2 kg objects, halved frictions, an absolute finger
opening, an infinite table, a workspace box (for Slide, ending before the goal region) and 0.004 s x 10
physics for Push/Slide. Figures measured on that model (the physics-cost ones below, the learners' from
before 2026-11-24 in BENCHMARKS.md) do not carry over.

Physics cost (2026-11-23; BENCHMARKS.md, "Physics settings of the block world and Fetch (quiet machine,
2026-11-23)"). Every physics setting is a config key: `sim_dt`, `n_substeps`, `iterations`, `ls_iterations`,
`cone`, `condim` (3 or 4 for object and fingers; None: the reference's object 3, fingers 4) and `impl` ("jax"
or "warp", the optional [warp] extra). Since 2026-11-23 the object's condim is 3 as in gymnasium-robotics (it
was 4; the Slide puck already 3); nothing else changed. Measured side by side on the quiet 2-core CPU (batch
64, 20 steps, 3 alternating rounds) and guarded by the scripted experts (100 episodes; defaults: Push 1.00,
PickAndPlace 1.00, Slide 0.81):
- object condim 3 (the new default): FetchPush 0.98x, FetchPickAndPlace 1.16x; scripted 0.98, 1.00, 0.81.
- `condim=3` (fingers too): FetchPush 1.21-1.34x (constraint rows 104 -> 80); scripted 0.99, 1.00, 0.80.
  Opt-in: faster and within the bars, but the reference's finger contacts have torsional friction.
- `iterations=3, ls_iterations=6`: 1.20x; PickAndPlace 0.86, under its 0.90 bar. With `condim=3`: 1.50x;
  Push 0.89, PickAndPlace 0.77 (fail). `iterations=2, ls_iterations=4`: 1.66x; Push 0.36, PickAndPlace
  0.16, Slide 0.14 (fail). sim_dt 0.008 x 5 for Push (2.47x on a loaded machine with iterations 2) is the
  setting the Push default moved away from (an occasional flipped cube).
"""

from __future__ import annotations

from mjx_envs import gripper as gripper_lib
from mjx_envs.core import (  # noqa: F401  goal_distance: re-exported, the Fetch tasks' distance
  ConfigError,
  DistanceGoalEnv,
  State,
  camera_xml,
  check_impl,
  goal_distance,
  sanitize_action,
)

import math
from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from mujoco import mjx

TASKS = ("FetchReach", "FetchPush", "FetchSlide", "FetchPickAndPlace")

# World coordinates from gymnasium-robotics 1.4.2 (tests/fixtures/fetch_reference.json).
INITIAL_GRIPPER_XPOS = {
  "FetchReach": (1.3418350177837588, 0.7491010367989072, 0.53472395086728),
  "FetchPush": (1.345540633869369, 0.7490243373018491, 0.41361670534668077),
  "FetchSlide": (0.992730444835332, 0.7490407777197047, 0.41266143973446284),
  "FetchPickAndPlace": (1.3419350171129487, 0.7491010522931141, 0.5347239580725716),
}
HEIGHT_OFFSET = {  # resting object centre z (the reference's `height_offset`)
  "FetchReach": None,
  "FetchPush": 0.4246997490299934,
  "FetchSlide": 0.4135363283543867,
  "FetchPickAndPlace": 0.4246997490299934,
}
OBJECT_HALF = {  # collision box half-sizes
  "FetchPush": (0.025, 0.025, 0.025),
  "FetchSlide": (0.025, 0.025, 0.02),
  "FetchPickAndPlace": (0.025, 0.025, 0.025),
}
TARGET_OFFSET = {
  "FetchReach": (0.0, 0.0, 0.0),
  "FetchPush": (0.0, 0.0, 0.0),
  "FetchSlide": (0.4, 0.0, 0.0),
  "FetchPickAndPlace": (0.0, 0.0, 0.0),
}
TABLE = {  # visual table box: centre xy and half extents xy (the reference's table0)
  "FetchReach": ((1.3, 0.75), (0.25, 0.35)),
  "FetchPush": ((1.3, 0.75), (0.25, 0.35)),
  "FetchSlide": ((1.32441906, 0.75018422), (0.625, 0.45)),
  "FetchPickAndPlace": ((1.3, 0.75), (0.25, 0.35)),
}
TABLE_TOP_Z = 0.4  # the reference's tables: boxes of half-height 0.2 centred at z = 0.2
# The object's collision box sits this far above its body origin, so that it rests on the table with its
# origin at the reference's `height_offset` (Slide: the reference's cylindrical puck rests 6.5 mm inside
# its table; Push/PickAndPlace: 0.3 mm).
OBJECT_GEOM_DZ = {t: TABLE_TOP_Z + OBJECT_HALF[t][2] - HEIGHT_OFFSET[t] for t in OBJECT_HALF}
# Physical parameters of gymnasium-robotics 1.4.2's model (tests/fixtures/fetch_dynamics_reference.json).
FRICTION = 1.0  # Push/PickAndPlace: object and table sliding friction (MuJoCo's default)
SLIDE_FRICTION = 0.1  # Slide: puck and table sliding friction
OBJECT_MASS = 2.0  # kg, object and puck
FINGER_HALF = (0.0135, 0.007, 0.0385)  # finger box half sizes: x (depth), y (thickness), z (length)
FINGER_GAP = 0.0009  # inner finger face to the centre line with the finger joint at 0
TIP_BELOW_TCP = 0.0185  # fingertips below the tcp (the reference's grip site is 0.02 from the link
# origin along the fingers, whose tips reach 0.0385)
PALM_HALF = (0.02, 0.05, 0.012)
FINGER_MASS = 4.0
FINGER_DAMPING = 1000.0  # finger slide joints: damping (N s/m) and armature (kg)
FINGER_ARMATURE = 100.0
FINGER_FRICTION = (1.0, 0.05, 0.01)
FINGER_KP = 30000.0  # position servos; ctrl = finger position + a[3], clipped to [0, FINGER_CTRL_MAX]
FINGER_CTRL_MAX = 0.2
GRIPPER_MASS = 1.5175  # the reference's gripper link (config `gripper_mass`; Slide: SLIDE_ARM_MASS)
# Slide: the gripper body's mass stands in for the reference's arm behind it (its joints' armature and
# damping); fitted to the reference's strike (median puck travel 0.795 m against 0.797 m; module docstring).
SLIDE_ARM_MASS = 45.0
# Slide's physics defaults, which replace the others' (module docstring, "Striking"): the reference's step,
# mocap semantics and weld, and the arm's inertia behind the gripper.
SLIDE_PHYSICS = {
  "sim_dt": 0.002,
  "n_substeps": 20,
  "gripper_mass": SLIDE_ARM_MASS,
  "weld_timeconst": 0.02,
  "mocap": "jump",
}
WELD_SOLREF = (0.016, 1.0)  # the reference: 0.02; 0.016 (2 x sim_dt) matches its gripper speed at 0.008 s
WELD_SOLIMP = (0.9, 0.95, 0.001)
# Contact bits (contype/conaffinity): the object meets the table box, the floor and the gripper; the
# gripper meets the object and a plane at the table top.
CONTACT_BITS = {"world": 1, "gripper": 2, "object": 4, "table_top": 8}
TABLE_PRESS = 0.005  # the tcp target may go this far below fingertips-on-the-table (the
# reference's Push/Slide start pressed ~5 mm into it)
MAX_POS_CHANGE = 0.05  # metres per unit action per control step
MIN_OBJECT_GRIPPER_DIST = 0.1
_N_CANDIDATES = 64
AIR_MAX = 0.45  # PickAndPlace: goal z += U(0, AIR_MAX) with probability air_prob

# The arm's reach (measured on gymnasium-robotics 1.4.2: constant actions in the 26 directions of
# {-1, 0, 1}^3 for 40 steps from the seed-0 start; tests/fixtures/fetch_dynamics_reference.*). The tcp stops
# on a sphere of radius 1.05 m (+-0.015 over 17 forward, sideways and vertical directions) centred
# 4 cm ahead of and 3 cm above the shoulder pan joint, and moving back it stops ~0.09 m behind the
# shoulder (the robot's body). The mocap target is projected into that set; z is also bounded by the
# table top (see TABLE_PRESS).
SHOULDER = {
  "FetchReach": (0.725, 0.744, 0.736),
  "FetchPush": (0.725, 0.744, 0.736),
  "FetchPickAndPlace": (0.725, 0.744, 0.736),
  "FetchSlide": (0.37, 0.744, 0.736),
}
REACH_CENTRE = (0.04, 0.0, 0.03)  # relative to the shoulder
REACH_RADIUS = 1.05
REACH_BACK = 0.09  # the tcp stays at x >= shoulder x - REACH_BACK


def default_config(task: str) -> dict[str, Any]:
  """Every config key of `task` and its default."""
  cfg = {
    "reward_type": "sparse",  # 'sparse' (-(d > threshold)) or 'dense' (-d)
    "distance_threshold": 0.05,  # metres
    "episode_length": 50,  # control steps (read by the wrappers)
    # MuJoCo timestep (s) and physics steps per control step (dt = sim_dt * n_substeps = 0.04 s).
    # Push and Slide need the finer step: at 0.008 s a pushed cube now and then flips over (a bad
    # box-box contact), and striking the puck precisely depends on clean contact dynamics.
    # (Slide: SLIDE_PHYSICS, the reference's own 0.002 s x 20: the strike's impact needs it.)
    "sim_dt": 0.008,
    "n_substeps": 5,
    "iterations": 10,  # constraint solver iterations (4 -> 10 on 2026-11-24, see the docstring)
    "ls_iterations": 10,  # solver line-search iterations
    "cone": "elliptic",  # friction cone: "elliptic" or "pyramidal" (see the module docstring)
    # Contact dimensionality of the object and the fingers: 3 (sliding friction) or 4 (+ torsional).
    # None: as gymnasium-robotics, object 3 and fingers 4 (a contact takes the larger: finger-object 4,
    # object-table 3). Before 2026-11-23 the object was 4 too (the Slide puck 3).
    "condim": None,
    # What the object rests on: "box", the reference's finite table (the object can fall off), or
    # "plane", an infinite table top (cheaper contacts; the object never falls).
    "table": "box",
    # The gripper body's mass (kg), and the weld that drags it to the mocap target (time constant, s).
    # Slide: the arm's inertia behind the gripper (SLIDE_ARM_MASS) and the reference's weld.
    "gripper_mass": GRIPPER_MASS,
    "weld_timeconst": WELD_SOLREF[0],
    # How the mocap target moves within a control step: "interpolate" (linearly from the last target to
    # the new one over the substeps) or "jump" (set once, as the reference's `mocap_set_action`).
    "mocap": "interpolate",
    # Push/Slide/Reach: set the locked fingers back to 0 after every step, as the reference's
    # `_step_callback` (True), or leave them to their servos (False, the default; see the docstring).
    "finger_reset": False,
    "impl": "auto",  # physics: "auto" (C MuJoCo on a CPU, MJX-JAX on GPU/TPU), "c",
    # "jax" or "warp" (the optional [warp] extra)
    "warp_max_envs": None,  # impl="warp": the most envs in one batch (Warp's contact buffer;
    # None: 1024; train.py sets it from num_envs)
    "target_range": 0.3 if task == "FetchSlide" else 0.15,
  }
  if task == "FetchSlide":
    cfg.update(SLIDE_PHYSICS)
  if task != "FetchReach":
    cfg["obj_range"] = 0.1 if task == "FetchSlide" else 0.15
  if task == "FetchPickAndPlace":
    cfg["air_prob"] = 0.5  # probability that the goal is lifted by U(0, 0.45)
  return cfg


def _int_ge(task, cfg, key, low):
  v = cfg[key]
  if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
    raise ConfigError(f"{task}: config {key!r} must be an integer >= {low}, got {v!r}")


def _float_in(task, cfg, key, low, high, low_open=False):
  v = cfg[key]
  ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
  ok = ok and math.isfinite(float(v)) and (float(v) > low if low_open else float(v) >= low)
  ok = ok and float(v) <= high
  if not ok:
    bracket = "(" if low_open else "["
    raise ConfigError(f"{task}: config {key!r} must be a number in {bracket}{low}, {high}], got {v!r}")


def validate_config(task: str, cfg: Mapping[str, Any]) -> None:
  """Raises ConfigError naming the key for an invalid value."""
  if cfg["reward_type"] not in ("sparse", "dense"):
    raise ConfigError(f"{task}: config 'reward_type' must be 'sparse' or 'dense', got {cfg['reward_type']!r}")
  _float_in(task, cfg, "distance_threshold", 0.0, 10.0, low_open=True)
  _int_ge(task, cfg, "episode_length", 1)
  _float_in(task, cfg, "sim_dt", 0.0, 0.04, low_open=True)
  _int_ge(task, cfg, "n_substeps", 1)
  _int_ge(task, cfg, "iterations", 1)
  _int_ge(task, cfg, "ls_iterations", 1)
  _float_in(task, cfg, "gripper_mass", 0.0, 1000.0, low_open=True)
  _float_in(task, cfg, "weld_timeconst", 0.0, 1.0, low_open=True)
  if not isinstance(cfg["finger_reset"], (bool, np.bool_)):
    raise ConfigError(f"{task}: config 'finger_reset' must be True or False, got {cfg['finger_reset']!r}")
  if cfg["mocap"] not in ("interpolate", "jump"):
    raise ConfigError(f"{task}: config 'mocap' must be 'interpolate' or 'jump', got {cfg['mocap']!r}")
  if cfg["warp_max_envs"] is not None:
    _int_ge(task, cfg, "warp_max_envs", 1)
  _float_in(task, cfg, "target_range", 0.0, 1.0)
  if cfg["cone"] not in ("pyramidal", "elliptic"):
    raise ConfigError(f"{task}: config 'cone' must be 'pyramidal' or 'elliptic', got {cfg['cone']!r}")
  if cfg["condim"] is not None and (isinstance(cfg["condim"], bool) or cfg["condim"] not in (3, 4)):
    raise ConfigError(f"{task}: config 'condim' must be None, 3 or 4, got {cfg['condim']!r}")
  if cfg["table"] not in ("box", "plane"):
    raise ConfigError(f"{task}: config 'table' must be 'box' or 'plane', got {cfg['table']!r}")
  try:
    check_impl(cfg["impl"])
  except ConfigError as e:
    raise ConfigError(f"{task}: config 'impl': {e}") from None
  if "obj_range" in cfg:
    _float_in(task, cfg, "obj_range", 0.0, 1.0)
    # Some xy in the square must be >= 0.1 m from its centre.
    if float(cfg["obj_range"]) * math.sqrt(2.0) <= MIN_OBJECT_GRIPPER_DIST * 1.01:
      raise ConfigError(
        f"{task}: config 'obj_range' must exceed {MIN_OBJECT_GRIPPER_DIST / math.sqrt(2):.4f} "
        f"(objects start >= {MIN_OBJECT_GRIPPER_DIST} m from the gripper), "
        f"got {cfg['obj_range']!r}"
      )
  if "air_prob" in cfg:
    _float_in(task, cfg, "air_prob", 0.0, 1.0)


def gripper_xml(pos, condim: int = 4, mass: float = GRIPPER_MASS) -> str:
  """MJCF for the mocap body and Fetch's gripper at `pos` (the `tcp` site, the reference's `robot0:grip`).

  The reference's gripper link, reduced to what touches the world: two box fingers (the reference's
  sizes, masses, joint damping and armature, friction 1 and torsional/rolling 0.05/0.01) that slide along
  y, and a palm box above them. The fingertips are TIP_BELOW_TCP below the tcp, as the reference's tips
  are below `robot0:grip`. Contact bits: fingers collide with the object and the table top; the palm
  with the object only (see CONTACT_BITS).
  """
  fx, fy, fz = FINGER_HALF
  px, py, pz = PALM_HALF
  x, y, z = pos
  fc = fz - TIP_BELOW_TCP  # finger centre height above the tcp
  palm_z = fc + fz + pz
  fr = f'friction="{FINGER_FRICTION[0]} {FINGER_FRICTION[1]} {FINGER_FRICTION[2]}"'
  joint = (
    f'type="slide" range="0 {gripper_lib.MAX_OPENING}" damping="{FINGER_DAMPING}" '
    f'armature="{FINGER_ARMATURE}" solreflimit="0.01 1" solimplimit="0.99 0.999 0.01"'
  )
  b = CONTACT_BITS
  finger_geom = (
    f'type="box" size="{fx} {fy} {fz}" mass="{FINGER_MASS}" {fr} rgba="0.2 0.2 0.2 1" '
    f'contype="{b["gripper"]}" conaffinity="{b["object"] | b["table_top"]}" condim="{condim}"'
  )
  return f"""
    <body name="mocap" mocap="true" pos="{x} {y} {z}"/>
    <body name="gripper" pos="{x} {y} {z}" gravcomp="1">
      <freejoint name="gripper_free"/>
      <inertial pos="0 0 {palm_z}" mass="{mass}" diaginertia="0.0024 0.0019 0.0013"/>
      <geom name="palm" type="box" size="{px} {py} {pz}" pos="0 0 {palm_z}" rgba="0.3 0.3 0.35 1"
            contype="{b["gripper"]}" conaffinity="{b["object"]}"/>
      <site name="tcp" pos="0 0 0" size="0.005" rgba="1 0 0 0.5" group="3"/>
      <body name="finger_l" pos="0 {FINGER_GAP + fy} {fc}" gravcomp="1">
        <joint name="finger_l" axis="0 1 0" {joint}/>
        <geom name="finger_l" {finger_geom}/>
      </body>
      <body name="finger_r" pos="0 {-FINGER_GAP - fy} {fc}" gravcomp="1">
        <joint name="finger_r" axis="0 -1 0" {joint}/>
        <geom name="finger_r" {finger_geom}/>
      </body>
    </body>"""


def build_xml(
  task: str,
  sim_dt: float,
  iterations: int,
  ls_iterations: int,
  cone: str = "elliptic",
  condim=None,
  table: str = "box",
  gripper_mass: float = GRIPPER_MASS,
  weld_timeconst: float = WELD_SOLREF[0],
) -> str:
  """The MJCF of `task`; `cone`, `condim`, `table`, `gripper_mass` and `weld_timeconst` as the config keys
  of the same names."""
  has_object = task != "FetchReach"
  gx, gy, gz = INITIAL_GRIPPER_XPOS[task]
  slide = task == "FetchSlide"
  friction = SLIDE_FRICTION if slide else FRICTION
  (tx, ty), (thx, thy) = TABLE[task]
  table_z = TABLE_TOP_Z
  # The default camera of `mjx_envs.render`: the table and goal region, from the far side.
  k = 1.25 if slide else 0.9
  camera = camera_xml(
    "overview", (tx + 0.8 * k, ty - 0.5 * k, table_z + 0.2 + 0.6 * k), (tx, ty, table_z + 0.15)
  )
  b = CONTACT_BITS
  # table="plane": the object meets the (infinite) table-top plane instead of the box.
  obj_aff = b["gripper"] | (b["world"] if table == "box" else b["table_top"])
  obj = ""
  obj_condim = condim or 3
  finger_condim = condim or 4
  if has_object:
    hx, hy, hz = OBJECT_HALF[task]
    ox, oy = gx + 0.15, gy  # placeholder; reset places the object
    rgba = "0.2 0.4 0.9 1" if slide else "0.9 0.2 0.2 1"
    obj = f"""
    <body name="object0" pos="{ox} {oy} {HEIGHT_OFFSET[task]}">
      <freejoint name="object0:joint"/>
      <geom name="object0" type="box" size="{hx} {hy} {hz}" pos="0 0 {OBJECT_GEOM_DZ[task]}" mass="{OBJECT_MASS}"
            friction="{friction} 0.005 0.0001" condim="{obj_condim}" rgba="{rgba}"
            contype="{b["object"]}" conaffinity="{obj_aff}"/>
      <site name="object0" pos="0 0 0" size="0.005" rgba="1 0 0 1" group="3"/>
    </body>"""
  # The table is a box the object rests on and can fall from (box-box contacts); the gripper meets only
  # a plane at the table top (cheap plane-box contacts), which it cannot leave: the reach clip keeps it
  # above the table top's height.
  return f"""
<mujoco model="{task}">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="{sim_dt}" iterations="{iterations}" ls_iterations="{ls_iterations}"
          cone="{cone}" integrator="implicitfast">
    <flag eulerdamp="disable"/>
  </option>
  <visual><global offwidth="640" offheight="480"/></visual>
  <worldbody>
    <light pos="1.3 0.75 3.5" dir="0 0 -1" cutoff="70"/>  <!-- see the block world's scene.py -->
    {camera}
    <geom name="floor" type="plane" size="10 10 0.1" pos="1 0.75 0" rgba="0.8 0.8 0.8 1"
          contype="{b["world"]}" conaffinity="0"/>
    <geom name="table" type="box" size="{thx} {thy} {table_z / 2}" pos="{tx} {ty} {table_z / 2}"
          rgba="0.6 0.5 0.4 1" friction="{friction} 0.005 0.0001" contype="{b["world"]}" conaffinity="0"/>
    <geom name="table_top" type="plane" size="{thx} {thy} 0.05" pos="{tx} {ty} {table_z}" rgba="0 0 0 0"
          friction="{friction} 0.005 0.0001" contype="{b["table_top"]}" conaffinity="0"/>
    <body name="target" mocap="true" pos="{gx} {gy} {gz}">
      <site name="target" type="sphere" size="0.02" rgba="1 0 0 0.5"/>
    </body>
    {gripper_xml((gx, gy, gz), condim=finger_condim, mass=gripper_mass)}
    {obj}
  </worldbody>
  <actuator>
    <position name="finger_l" joint="finger_l" kp="{FINGER_KP}" ctrlrange="0 {FINGER_CTRL_MAX}"/>
    <position name="finger_r" joint="finger_r" kp="{FINGER_KP}" ctrlrange="0 {FINGER_CTRL_MAX}"/>
  </actuator>
  <equality>
    <weld body1="mocap" body2="gripper" solref="{weld_timeconst} {WELD_SOLREF[1]}"
          solimp="{WELD_SOLIMP[0]} {WELD_SOLIMP[1]} {WELD_SOLIMP[2]}"/>
  </equality>
  <contact>{gripper_lib.contact_xml()}</contact>
</mujoco>"""


def mat2euler(mat: jax.Array) -> jax.Array:
  """gymnasium-robotics `rotations.mat2euler` ([..., 3, 3] -> [..., 3]), in JAX."""
  eps4 = np.finfo(np.float32).eps * 4.0
  cy = jnp.sqrt(mat[..., 2, 2] * mat[..., 2, 2] + mat[..., 1, 2] * mat[..., 1, 2])
  cond = cy > eps4
  ez = jnp.where(
    cond, -jnp.arctan2(mat[..., 0, 1], mat[..., 0, 0]), -jnp.arctan2(-mat[..., 1, 0], mat[..., 1, 1])
  )
  ey = -jnp.arctan2(-mat[..., 0, 2], cy)
  ex = jnp.where(cond, -jnp.arctan2(mat[..., 1, 2], mat[..., 2, 2]), 0.0)
  return jnp.stack([ex, ey, ez], axis=-1)


def quat2mat(q: jax.Array) -> jax.Array:
  """Unit quaternion (w, x, y, z) -> rotation matrix [3, 3]."""
  q = q / jnp.linalg.norm(q)
  w, x, y, z = q[0], q[1], q[2], q[3]
  return jnp.array(
    [
      [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]
  )


class FetchEnv(DistanceGoalEnv):
  """One of the four Fetch tasks; build it with `mjx_envs.make(task, **overrides)`."""

  action_size = 4

  def __init__(self, task: str, **config):
    if task not in TASKS:
      raise ConfigError(f"unknown Fetch task {task!r}; one of {TASKS}")
    cfg = {**default_config(task), **config}
    unknown = sorted(set(cfg) - set(default_config(task)))
    if unknown:
      raise ConfigError(f"{task}: unknown config key(s) {unknown}")
    validate_config(task, cfg)
    self.task = task
    self.config = dict(cfg)
    self.reward_type = cfg["reward_type"]
    self.distance_threshold = float(cfg["distance_threshold"])
    self.episode_length = int(cfg["episode_length"])
    self.has_object = task != "FetchReach"
    self.block_gripper = task != "FetchPickAndPlace"
    self.finger_reset = self.block_gripper and bool(cfg["finger_reset"])
    self.target_range = float(cfg["target_range"])
    self.obj_range = float(cfg.get("obj_range", 0.15))
    self.air_prob = float(cfg.get("air_prob", 0.0))
    self.target_offset = np.asarray(TARGET_OFFSET[task], np.float32)
    self.initial_gripper_xpos = np.asarray(INITIAL_GRIPPER_XPOS[task], np.float32)
    self.height_offset = HEIGHT_OFFSET[task]

    self.xml = build_xml(
      task,
      float(cfg["sim_dt"]),
      int(cfg["iterations"]),
      int(cfg["ls_iterations"]),
      cone=cfg["cone"],
      condim=cfg["condim"],
      table=cfg["table"],
      gripper_mass=float(cfg["gripper_mass"]),
      weld_timeconst=float(cfg["weld_timeconst"]),
    )
    self.interpolate_mocap = cfg["mocap"] == "interpolate"
    mj_model = mujoco.MjModel.from_xml_string(self.xml)
    super().__init__(
      mj_model,
      n_substeps=int(cfg["n_substeps"]),
      impl=cfg["impl"],
      warp_max_envs=cfg["warp_max_envs"],
      c_fields=("site_xpos",),
    )  # obs: qpos, qvel

    self.gripper = gripper_lib.Gripper.from_model(mj_model)
    self._target_mocap = int(mj_model.body("target").mocapid[0])
    self._table_z = float(mj_model.geom("table_top").pos[2])
    if self.has_object:
      jo = mj_model.joint("object0:joint")
      self._obj_qpos = int(jo.qposadr[0])
      self._obj_qvel = int(jo.dofadr[0])
    self.reach_centre = np.asarray(SHOULDER[task], np.float32) + np.asarray(REACH_CENTRE, np.float32)
    self.reach_x_min = float(SHOULDER[task][0] - REACH_BACK)
    self.reach_z_min = self._table_z + TIP_BELOW_TCP - TABLE_PRESS

    qpos0 = np.array(mj_model.qpos0, np.float32)
    g = self.gripper
    qpos0[g.free_qpos : g.free_qpos + 7] = np.concatenate([self.initial_gripper_xpos, [1, 0, 0, 0]])
    qpos0[list(g.finger_qpos)] = 0.0
    self._qpos0 = qpos0
    self._mocap_pos0 = np.array(mj_model.body_pos[mj_model.body_mocapid >= 0], np.float32)
    self._mocap_pos0[g.mocap] = self.initial_gripper_xpos

  def clip_to_reach(self, target: jax.Array) -> jax.Array:
    """[3] mocap target -> the nearest point the arm reaches (see SHOULDER): above the table top's
    height, not behind the robot's body, within the reach sphere (radial projection)."""
    target = jnp.maximum(target, jnp.array([self.reach_x_min, -jnp.inf, self.reach_z_min]))
    c = jnp.asarray(self.reach_centre)
    r = jnp.linalg.norm(target - c)
    return c + (target - c) * jnp.minimum(1.0, REACH_RADIUS / jnp.maximum(r, 1e-6))

  def reach_x_max(self, y, z):
    """The farthest x the tcp reaches at (y, z) (the sphere's front; the Slide expert's room)."""
    c = self.reach_centre
    return c[0] + jnp.sqrt(jnp.maximum(REACH_RADIUS**2 - (y - c[1]) ** 2 - (z - c[2]) ** 2, 0.0))

  # ---------------------------------------------------------------- sampling
  def sample_object_xy(self, key):
    """Object start xy: gripper xy + U(-obj_range, obj_range)^2, >= 0.1 m from the gripper."""
    centre = jnp.asarray(self.initial_gripper_xpos[:2])
    offs = jax.random.uniform(key, (_N_CANDIDATES, 2), minval=-self.obj_range, maxval=self.obj_range)
    dist = jnp.linalg.norm(offs, axis=-1)
    ok = dist >= MIN_OBJECT_GRIPPER_DIST
    idx = jnp.argmax(ok)
    off = offs[idx]
    # Practically never: no valid candidate; push the last one out to the minimum distance.
    last = offs[-1]
    pushed = last / jnp.maximum(jnp.linalg.norm(last), 1e-6) * MIN_OBJECT_GRIPPER_DIST
    off = jnp.where(jnp.any(ok), off, pushed)
    return centre + off

  def sample_goal(self, key):
    k_xyz, k_air, k_h = jax.random.split(key, 3)
    goal = (
      jnp.asarray(self.initial_gripper_xpos)
      + jax.random.uniform(k_xyz, (3,), minval=-self.target_range, maxval=self.target_range)
      + jnp.asarray(self.target_offset)
    )
    if self.has_object:
      z = jnp.float32(self.height_offset)
      if self.task == "FetchPickAndPlace":
        air = jax.random.uniform(k_air) < self.air_prob
        z = z + jnp.where(air, jax.random.uniform(k_h, minval=0.0, maxval=AIR_MAX), 0.0)
      goal = goal.at[2].set(z)
    return goal

  # ---------------------------------------------------------------- observations
  def _obs(self, d: mjx.Data, goal: jax.Array):
    g = self.gripper
    dt = self.dt
    grip_pos = d.qpos[g.free_qpos : g.free_qpos + 3]
    grip_velp = d.qvel[g.free_qvel : g.free_qvel + 3] * dt
    fq = jnp.array([g.finger_qpos[1], g.finger_qpos[0]])  # [right, left] like the reference
    fv = jnp.array([g.finger_qvel[1], g.finger_qvel[0]])
    gripper_state = d.qpos[fq]
    gripper_vel = d.qvel[fv] * dt
    if self.has_object:
      object_pos = d.qpos[self._obj_qpos : self._obj_qpos + 3]
      rot = quat2mat(d.qpos[self._obj_qpos + 3 : self._obj_qpos + 7])
      object_rot = mat2euler(rot)
      object_velp = d.qvel[self._obj_qvel : self._obj_qvel + 3] * dt - grip_velp
      object_velr = rot @ d.qvel[self._obj_qvel + 3 : self._obj_qvel + 6] * dt
      observation = jnp.concatenate(
        [
          grip_pos,
          object_pos,
          object_pos - grip_pos,
          gripper_state,
          object_rot,
          object_velp,
          object_velr,
          grip_velp,
          gripper_vel,
        ]
      )
      achieved = object_pos
    else:
      observation = jnp.concatenate([grip_pos, gripper_state, grip_velp, gripper_vel])
      achieved = grip_pos
    return {
      "observation": observation.astype(jnp.float32),
      "achieved_goal": achieved.astype(jnp.float32),
      "desired_goal": goal.astype(jnp.float32),
    }

  # ---------------------------------------------------------------- reset / step
  def reset(self, rng: jax.Array) -> State:
    k_obj, k_goal = jax.random.split(rng)
    object_qpos = None
    if self.has_object:
      xy = self.sample_object_xy(k_obj)
      object_qpos = jnp.concatenate([xy, jnp.array([self.height_offset, 1.0, 0.0, 0.0, 0.0], jnp.float32)])
    return self.reset_to(self.sample_goal(k_goal), object_qpos)

  def reset_to(self, goal: jax.Array, object_qpos: jax.Array | None = None) -> State:
    """The start state with a given goal [3] and object pose [7] (position, quaternion w-x-y-z; object
    tasks only), everything else as `reset`: e.g. to replay a gymnasium-robotics episode from its start."""
    qpos = jnp.asarray(self._qpos0)
    if self.has_object:
      if object_qpos is None:
        raise ValueError(f"{self.task}: reset_to needs the object's pose (object_qpos, [7])")
      object_qpos = jnp.asarray(object_qpos, jnp.float32)
      if object_qpos.shape != (7,):
        raise ValueError(f"{self.task}: object_qpos must have shape (7,), got {object_qpos.shape}")
      qpos = qpos.at[self._obj_qpos : self._obj_qpos + 7].set(object_qpos)
    goal = jnp.asarray(goal, jnp.float32)
    if goal.shape != (3,):
      raise ValueError(f"{self.task}: goal must have shape (3,), got {goal.shape}")
    mocap_pos = jnp.asarray(self._mocap_pos0).at[self._target_mocap].set(goal)
    data = self.make_data()
    data = data.replace(qpos=qpos, mocap_pos=mocap_pos, ctrl=jnp.zeros(self.mj_model.nu, jnp.float32))
    data = self.reset_forward(data)
    return self.start_state(data, self._obs(data, goal), goal)

  def step(self, state: State, action: jax.Array) -> State:
    action, bad = sanitize_action(action)
    d = state.pipeline_state
    g = self.gripper
    goal = state.info["goal"]
    tcp = d.qpos[g.free_qpos : g.free_qpos + 3]
    target = self.clip_to_reach(tcp + MAX_POS_CHANGE * action[:3])
    # Fingers as the reference's `ctrl_set_action`: each servo's target is its finger's position plus
    # a[3] (clipped to the control range), an effort-like command. Push/Slide/Reach hold them closed (the
    # reference forces them to 0).
    if self.block_gripper:
      ctrl = jnp.zeros(self.mj_model.nu, jnp.float32)
    else:
      ctrl = jnp.clip(d.qpos[jnp.array(g.finger_qpos)] + action[3], 0.0, FINGER_CTRL_MAX).astype(jnp.float32)
    # Within the control step the mocap moves linearly from its last target to the new one (config
    # `mocap`; Slide: it jumps there, as the reference's).
    d = self.physics_step(
      d, ctrl=ctrl, mocap_pos=d.mocap_pos.at[g.mocap].set(target), interpolate_mocap=self.interpolate_mocap
    )
    if self.finger_reset:
      # The reference's `_step_callback`: locked fingers are set back to 0 after every step (positions
      # only, their velocities stay). The observation reads qpos, and the next step recomputes every
      # derived field from it, so no forward pass is needed here (the reference runs one).
      d = d.replace(qpos=d.qpos.at[jnp.array(g.finger_qpos)].set(0.0))
    return self.next_state(state, d, self._obs(d, goal), bad)

  @property
  def observation_size(self):
    n = 25 if self.has_object else 10
    return {"observation": (n,), "achieved_goal": (3,), "desired_goal": (3,)}
