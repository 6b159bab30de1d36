"""The Sawyer world of Meta-World on MJX: table, mocap-driven hand, the 39-D observation, resets from
`rand_vec`, 500-step episodes, and the per-task reward. A task is a `Task` (one small module in
`mjx_envs/metaworld/tasks/` plus its objects' MJCF); `SawyerEnv(task, **config)` runs it.

Semantics follow metaworld 3.1.1 (`*-v3`, reward version "v2"): the reference's world coordinates (table
top at z = 0, robot base at y = 0, objects at y 0.4 .. 0.9), its hand (two slide fingers, r_close in
[0, 0.04] and l_close in [-0.03, 0], position servos kp 400 with armature 100 and damping 1000, pads of
the reference's sizes, friction 2 / 0.1 / 0.002 and contact softness), its control (action[:3] x 1/100
moves the mocap target, clipped to the task's mocap bounds; action[3] = gripper effort, the fingers' servo
targets [a, -a]), its timestep (0.0025 s) and frame skip (5): one control step is 0.0125 s.

Observation (float32 [39], index layout as the reference's):
  [0:3]   hand position (body `hand`)
  [3]     gripper opening: |rightclaw - leftclaw| / 0.1, clipped to [0, 1]
  [4:7]   object 1 position      [7:11] object 1 quaternion (each task's convention, as the reference's)
  [11:14] object 2 position      [14:18] object 2 quaternion (zeros where a task has one object)
  [18:36] the same 18 values from the previous step (at a reset: the current ones)
  [36:39] the goal position (MT setting: observable)
The whole vector is clipped to the reference's observation space (hand within its `_HAND_SPACE`).

`info` carries, per step, the reference's `evaluate_state` dict as float32: success, near_object,
grasp_success, grasp_reward, in_place_reward, obj_to_target, unscaled_reward (all 0 in a reset state:
the reference's reset returns no info); and `target` [3], `rand_vec`, `prev` [18], `reads` (the named state
quantities the reward reads, see `Task.reads`).
`metrics`: success (this step), is_success (success at any step of the episode so far: the benchmark
counts an episode as solved once it succeeds, its `terminate_on_success`; kept as `info['ever_success']`,
so that an auto-reset starts it again at 0), bad_action.

Resets draw `rand_vec` uniformly from the task's `rand_low`/`rand_high` (fresh for every episode), with
the task's own rejection rule (`Task.valid`), then place the objects and the goal from it. With
`fixed_rand_vecs=50` (the benchmark's protocol, `metaworld._make_tasks`: 50 vectors per task drawn once
by a seed) the vectors are drawn once from `rand_vec_seed` when the env is built, and each reset picks
one of them uniformly; `reset_to(rand_vec)` starts from a given one.

Deliberate differences from the reference, and why (measured effects: tests/mjx_envs/test_metaworld*.py
and BENCHMARKS.md, "Meta-World"):
- The arm (`arm=True`, the default since 2026-11-27): the reference's mocap weld drags the Sawyer's 7-DoF
  arm, and so does ours: its links' masses, inertias, joint ranges, damping and armature are the
  reference's compiled model's (`ARM_LINKS`), the weld its relative pose and torque scale, and the
  settled start is simulated as the reference's (from all joints at 0, 50 solver iterations). The arm's
  links do not collide (neither do the reference's, but for the wrist, below). Measured against the
  reference (2026-11-27): the hand's settled start within 0.2 mm (every task's init_tcp within 0.3 mm);
  the fixture's open-loop hand paths within 1.0 mm mean, 2.5 mm max, also where the stretched arm slows
  the hand; the transient after a stop (reach-v3, z -1 for 8 steps) within 0.9 mm rms; the reference's
  own scripted experts solve 493 of 500 episodes in ours (489 in the reference), every task within one
  episode of the reference's but soccer (8/10 against 10/10) and box-close (10 against 8).
- `arm=False`: the free hand of the project before that date, kept to reproduce the figures taken on it
  (MT10/MT50 training runs up to 2026-11-27). A free body with gravity compensation, frame aligned with
  the world, whose weld softness is fitted so that it follows constant actions at the reference's speed
  (`WELD_SOLREF`), with the arm's sag as a constant offset (`HAND_SAG_Z`). It lacks the arm's lag after
  a stop, its sideways pull and its slowing when stretched beyond y 0.7: hand paths 6.4 mm mean, 15.5 mm
  max, 9.3 cm beyond y 0.7; the experts solved 470 of 500 (dial-turn 0/30, door-unlock 4/30,
  handle-pull-side 15/30: the arm's dynamics, which a free hand on a weld does not reproduce).
- The arm's wrist collides, as the reference's `right_hand` mesh does, as two boxes on the hand
  (`WRIST_BOXES`); the rest of the arm (its other collision meshes only meet what the arm's links touch)
  is absent. Where the wrist rubs a box, MJX-JAX's box-box contact is not C's: stick-pull's wrist on the
  thermos's trim took one episode 5.1 cm from C's path in 138 steps (tests/mjx_envs/test_metaworld_sticks.py).
  With the free hand, the wrist made lever-pull's expert 0 -> 10 of 10 (the wrist lifts the lever), and
  the sag plate-slide-side and peg-insert-side 0 -> 10. tests/mjx_envs/test_metaworld_expert_replay.py
  replays the experts' recorded actions open-loop.
- The hand reset (the reference simulates 50 control steps with the mocap at `hand_init_pos` and the
  gripper opening) is simulated once, when the env is built, from the same start; every reset starts
  from that settled state (the arm with the velocities it has then, as the reference's; the free hand
  at rest), then places the objects.
- Fixed furniture the reference moves by editing the model (`model.body_pos` of a drawer, a door frame,
  a button box) is a mocap body here, placed per world through `data.mocap_pos`, so that a batch of
  worlds shares one model. MJX-JAX's kinematics alone would leave the bodies below a mocap body at the
  model's position; `MjxEnv.model_for` places them (mjx_envs/core.py; until that fix the drawer, door,
  button and window frames stayed at x = 0 in MJX and the drawer tasks' scripted success was 1-3 in 10).
  The goal marker is a visual-only mocap body.
- The table is a plane at z = 0 (the reference: a box whose top is at z = 0); objects cannot fall off.
- Cylinders that meet the box-shaped pads are boxes of the same half-sizes where MJX lacks the
  box-cylinder collision (each task module says where).
- Solver: Newton, `iterations` (default 10) and `ls_iterations` (default 10) against the reference's 50
  iterations; the same elliptic cones. The Newton Hessian of the cones is built block by block
  (mjx_envs/elliptic_newton.py: the same matrix as MJX's; MJX's dense loop made one step of 12 drawer
  worlds take 3.5 s on the CPU, 73 ms now).
"""

from __future__ import annotations

from mjx_envs import tables
from mjx_envs.core import ConfigError, MjxEnv, State, camera_xml, check_impl, sanitize_action

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from mujoco import mjx

MAX_PATH_LENGTH = 500
GOAL_SLICE = slice(36, 39)  # the goal's entries of the 39-D observation (`observe`)
OBJECT_SLICES = (
  slice(4, 18),
  slice(22, 36),
)  # the objects' entries (2 x pos + quat), now and the step before
TIMESTEP = 0.0025
FRAME_SKIP = 5
ACTION_SCALE = 1.0 / 100
HAND_SPACE = ((-0.525, 0.348, -0.0525), (0.525, 1.025, 0.7))  # the reference's obs clip for the hand
TCP_BELOW_HAND = 0.045  # the end-effector sites are this far below the hand body
CLAW_Y = 0.05  # claws' y offset from the hand at rest
WELD_SOLREF = (0.02, 1.0)
HAND_MASS = 1.0
# The reference's arm sags: inside its workspace (mocap y <= 0.7) its hand settles 3.4-5.2 mm (median 3.9)
# below the mocap target and within 1 mm of it in x and y (27 held targets over x -0.3..0.3, y 0.45..0.75,
# z 0.05..0.3, measured in metaworld 3.1.1). At the mocap's floor (z 0.05) the reference's hand reaches
# z 0.046, so controllers and policies that press down (plate-slide-side's expert) depend on it. Ours
# settles this far below its target: the hand body starts there in the model, and the weld keeps the
# model's relative pose.
HAND_SAG_Z = -0.0039
# The reference's wrist (body `right_hand`, a collision mesh with MuJoCo's default contact parameters) sits
# just above the claws and touches objects the hand rises into or presses down on (lever-pull's lever is
# lifted by it). Its convex hull, measured in the hand's frame (world-aligned here), as two boxes (centre,
# half-sizes): the body, z 0.048 .. 0.0925 above the hand body, x -0.029 .. 0.0235, y within 0.05 (the hull
# reaches 0.053 only in a strip 3 cm long, and x -0.041 only near y = 0 at the top); and its rounded bottom,
# z 0.038 .. 0.048, x -0.022 .. 0.018, y within 0.046. Within 3 mm of the hull except at those strips.
WRIST_BOXES = (
  ((-0.00275, 0.0, 0.07025), (0.02625, 0.05, 0.02225)),
  ((-0.002, 0.0, 0.043), (0.02, 0.046, 0.005)),
)
# The Sawyer arm of the reference (`arm=True`): its links as metaworld 3.1.1's compiled model has them
# (xyz_base.xml): name, position and orientation in the parent link, mass, principal inertia, inertial
# frame (pos, quat), the hinge's range. Every joint turns about its link's z axis with damping 10 and
# armature 0.001; no link collides (the reference's arm geoms have contype 0, but for the wrist, which
# WRIST_BOXES model, and l6, whose contype 4 / conaffinity 2 meet no object of any task). The visual
# cylinders are the reference's invisible ones, shown here.
ARM_LINKS = (
  ("right_arm_base_link", (0, 0, 0), (1, 0, 0, 0), 2.0687, (0.007404, 0.006818, 0.006729),
   (-0.000624, -0.000028, 0.065404), (-0.209285, 0.674441, 0.227335, 0.670558), None, ((0.08, 0.12), (0, 0, 0.12))),
  ("right_l0", (0, 0, 0.08), (1, 0, 0, 0), 5.3213, (0.065159, 0.051094, 0.018622),
   (0.024366, 0.010969, 0.14363), (0.894823, 0.009, -0.170275, 0.412573), (-3.0503, 3.0503), None),
  ("right_l1", (0.081, 0.05, 0.237), (0.5, -0.5, 0.5, 0.5), 4.505, (0.022434, 0.022162, 0.00971),
   (-0.003085, -0.026811, 0.092521), (0.424888, 0.891987, 0.132364, -0.07943), (-3.8, -0.5), None),
  ("right_l2", (0, -0.14, 0.1425), (0.707107, 0.707107, 0, 0), 1.745, (0.025793, 0.025506, 0.002925),
   (-0.00016, -0.014967, 0.13582), (0.707831, -0.052476, 0.051601, 0.702537), (-3.0426, 3.0426), ((0.06, 0.17), (0, 0, 0.08))),
  ("right_l3", (0, -0.042, 0.26), (0.707107, -0.707107, 0, 0), 2.5097, (0.01024, 0.0097, 0.003696),
   (-0.004814, -0.0281, -0.084154), (0.902999, 0.385391, -0.08809, 0.168247), (-3.0439, 3.0439), None),
  ("right_l4", (0, -0.125, -0.1265), (0.707107, 0.707107, 0, 0), 1.1136, (0.013655, 0.013549, 0.001274),
   (-0.001884, 0.0069, 0.1341), (0.803612, 0.031257, -0.029833, 0.593582), (-2.9761, 2.9761), ((0.045, 0.15), (0, 0, 0.11))),
  ("right_l5", (0, 0.031, 0.275), (0.707107, -0.707107, 0, 0), 1.5625, (0.004741, 0.004229, 0.001907),
   (0.006113, -0.023697, 0.076416), (0.404076, 0.9135, 0.047312, 0.001583), (-2.9761, 2.9761), None),
  ("right_l6", (0, -0.11, 0.1053), (0.061625, 0.06163, -0.704416, 0.704416), 0.3292, (0.00036, 0.000311, 0.000215),
   (-0.000008, 0.008584, -0.004957), (0.479044, 0.515636, -0.513069, 0.491322), (-4.7124, 4.7124), ((0.055, 0.025), (0, 0.015, -0.01))),
)  # fmt: skip
ARM_DAMPING, ARM_ARMATURE = 10.0, 0.001
# The head rides on l0 (no joint of its own): it adds to the first joint's inertia. (pos, mass, inertia,
# inertial pos, inertial quat.)
ARM_HEAD = (
  (0, 0, 0.2965),
  1.5795,
  (0.0118334, 0.00827089, 0.00496574),
  (0.0053207, -2.6549e-05, 0.1021),
  (0.999993, 7.08405e-05, -0.00359857, -0.000626247),
)
# right_hand in l6 (massless), then the hand 0.12 m further along right_hand's z. The reference's hand
# frame has x pointing down (its mocap holds quat (1, 0, 1, 0)); ours is world-aligned, so our hand sits
# in right_hand turned by the reference's hand rotation times the inverse of that mocap rotation: 180
# degrees about y.
RIGHT_HAND_IN_L6 = ((0, 0, 0.0245), (0.707107, 0, 0, 0.707107))
HAND_IN_RIGHT_HAND = ((0, 0, 0.12), (0, 0, 1, 0))
# The reference's weld: body2's pose relative to the mocap is the identity, torques scaled by 5.
ARM_WELD_TORQUESCALE = 5.0
INFO_KEYS = (
  "success",
  "near_object",
  "grasp_success",
  "grasp_reward",
  "in_place_reward",
  "obj_to_target",
  "unscaled_reward",
)


@dataclasses.dataclass(frozen=True)
class Task:
  """One Meta-World task. A task module builds one of these.

  name:        the reference's name, e.g. "reach-v3" (registered as "metaworld/reach-v3")
  objects_xml: MJCF inside <worldbody> for the task's objects (bodies named as the reference's where
               the reward or observation reads them); fixed furniture as mocap bodies
  hand_init_pos, hand_low, hand_high, mocap_low, mocap_high, goal_low, goal_high: the reference's values
  rand_low, rand_high: bounds of `rand_vec` (the reference's `_random_reset_space`)
  place(env, data, rand_vec) -> (data, ctx): puts objects and furniture where `rand_vec` says (qpos,
               mocap_pos) and returns ctx = {"target_pos": [3], "obj_init_pos": [3], ...} constants of the
               episode; the env adds init_tcp, init_left_pad, init_right_pad, hand_init_pos
  objects(env, data) -> (pos [3k], quat [4k]) for the observation, k = 1 or 2
  reads(env, data, ctx) -> {name: array}: every state quantity `reward` reads beyond the observation
               (the env adds tcp_center, left_pad, right_pad and ctx's entries)
  reward(obs [39], action [4], reads) -> (reward in [0, 10], info {INFO_KEYS})
  valid(rand_vec) -> bool: the reference's rejection rule for a drawn vector (default: all valid)
  assets_xml:  extra MJCF for <asset>/<default> (optional)
  touch_geoms: geoms whose contacts with each finger pad the reward reads (`env.pad_forces`)
  contact_xml: extra MJCF inside <contact> (optional: explicit pairs the reference's contacts need)
  """

  name: str
  objects_xml: str
  hand_init_pos: tuple[float, float, float]
  hand_low: tuple[float, float, float]
  hand_high: tuple[float, float, float]
  goal_low: tuple[float, float, float]
  goal_high: tuple[float, float, float]
  rand_low: tuple[float, ...]
  rand_high: tuple[float, ...]
  place: Callable
  objects: Callable
  reward: Callable
  reads: Callable = lambda env, data, ctx: {}
  valid: Callable = lambda rand_vec: jnp.bool_(True)
  mocap_low: tuple[float, float, float] | None = None
  mocap_high: tuple[float, float, float] | None = None
  assets_xml: str = ""
  touch_geoms: tuple[str, ...] = ()
  contact_xml: str = ""


def default_config() -> dict[str, Any]:
  return {
    "episode_length": MAX_PATH_LENGTH,
    "sim_dt": TIMESTEP,
    "n_substeps": FRAME_SKIP,
    "iterations": 10,
    "ls_iterations": 10,
    "fixed_rand_vecs": 0,  # 0: a fresh rand_vec per episode; N > 0: N vectors drawn once (50: the
    # benchmark's protocol), each reset picks one
    "rand_vec_seed": 0,
    "impl": "auto",  # "auto" (C MuJoCo on a CPU, MJX-JAX on GPU/TPU), "c", "jax", "warp"
    "warp_max_envs": None,
    "arm": True,  # True: the reference's 7-joint arm carries the hand (see the module docstring)
  }


def hand_xml(pos, arm: bool = False) -> str:
  """The mocap target and the Sawyer hand at `pos`: two claws that slide along y, each carrying a pad,
  and the reference's end-effector sites 0.045 m below. `arm=False`: the hand is a free body
  (world-aligned frame, gravity compensated) welded to the mocap; `arm=True`: it is the end of the
  reference's 7-joint arm (`ARM_LINKS`), whose links the weld drags, as in the reference."""
  x, y, z = pos
  grav = "0" if arm else "1"
  # With the arm, the claws' and pads' inertias are the reference's compiled ones (pads massless).
  claw_inertia = "1e-6 1.2e-5 1.1e-5" if arm else "1e-5 1e-5 1e-5"
  pad_inertial = (
    'mass="1e-8" diaginertia="1e-12 1e-12 1e-12"' if arm else 'mass="0.01" diaginertia="1e-6 1e-6 1e-6"'
  )
  claw = 'type="box" size="0.015 0.003 0.045" condim="4" margin="0.001"'
  pad = (
    'type="box" size="0.015 0.003 0.045" condim="4" margin="0.001" friction="2 0.1 0.002" '
    'solimp="0.95 0.99 0.01" solref="0.01 1" contype="1" conaffinity="1"'
  )
  slide = 'type="slide" axis="0 1 0" armature="100" damping="1000" limited="true"'
  wrist = "\n      ".join(
    f'<geom name="wrist_col{i}" type="box" size="{h[0]} {h[1]} {h[2]}" pos="{c[0]} {c[1]} {c[2]}" condim="3" '
    'contype="1" conaffinity="1" group="3" rgba="0.3 0.3 0.3 0.4"/>'
    for i, (c, h) in enumerate(WRIST_BOXES)
  )
  inside = f"""
      <geom name="rail" type="box" size="0.005 0.055 0.005" pos="0 0 0.05" rgba="0.5 0.5 0.5 1"
            contype="0" conaffinity="0"/>
      <geom name="wrist" type="cylinder" size="0.03 0.04" pos="0 0 0.1" rgba="0.2 0.2 0.2 1"
            contype="0" conaffinity="0"/>
      {wrist}
      <site name="endEffector" pos="0 0 {-TCP_BELOW_HAND + 0.005}" size="0.01" rgba="1 1 1 0"/>
      <body name="rightclaw" pos="0 {-CLAW_Y} 0" gravcomp="{grav}">
        <inertial pos="0 0 0" mass="0.0162" diaginertia="{claw_inertia}"/>
        <joint name="r_close" range="0 0.04" {slide}/>
        <geom name="rightclaw_it" {claw} friction="1 0.005 0.0001" solimp="0.8 0.9 0.01" solref="0.02 1"
              rgba="1 1 1 1"/>
        <site name="rightEndEffector" pos="0 0 {-TCP_BELOW_HAND}" size="0.01" rgba="1 0 0 1"/>
        <body name="rightpad" pos="0 0.003 0" gravcomp="{grav}">
          <inertial pos="0 0 0" {pad_inertial}/>
          <geom name="rightpad_geom" {pad} rgba="1 1 1 1"/>
        </body>
      </body>
      <body name="leftclaw" pos="0 {CLAW_Y} 0" gravcomp="{grav}">
        <inertial pos="0 0 0" mass="0.0162" diaginertia="{claw_inertia}"/>
        <joint name="l_close" range="-0.03 0" {slide}/>
        <geom name="leftclaw_it" {claw} friction="1 0.005 0.0001" solimp="0.8 0.9 0.01" solref="0.02 1"
              rgba="0 1 1 1"/>
        <site name="leftEndEffector" pos="0 0 {-TCP_BELOW_HAND}" size="0.01" rgba="1 0 0 1"/>
        <body name="leftpad" pos="0 -0.003 0" gravcomp="{grav}">
          <inertial pos="0 0 0" {pad_inertial}/>
          <geom name="leftpad_geom" {pad} rgba="0 1 1 1"/>
        </body>
      </body>"""
  mocap = f'<body name="mocap" mocap="true" pos="{x} {y} {z}"/>'
  if not arm:
    return f"""
    {mocap}
    <body name="hand" pos="{x} {y} {z + HAND_SAG_Z}" gravcomp="1">
      <freejoint name="hand_free"/>
      <inertial pos="0 0 0" mass="{HAND_MASS}" diaginertia="0.002 0.002 0.002"/>{inside}
    </body>"""
  v = lambda t: " ".join(f"{a:g}" for a in t)
  tiny = '<inertial pos="0 0 0" mass="1e-8" diaginertia="1e-10 1e-10 1e-10"/>'
  # The reference's massless hand has its inertial frame 0.12 m along its own x (world +x here). That
  # point sets the hand's `body_invweight0`, hence the weld's softness (its efc_R): with the frame at the
  # hand's origin the weld is 2.8x stiffer in translation and the arm's settled pose differs by 3 mm.
  hand_inertial = '<inertial pos="0.12 0 0" mass="1e-8" diaginertia="1e-10 1e-10 1e-10"/>'
  (rh_pos, rh_quat), (h_pos, h_quat) = RIGHT_HAND_IN_L6, HAND_IN_RIGHT_HAND
  hpos, hmass, hinertia, hipos, hiquat = ARM_HEAD
  head = f"""
      <body name="head" pos="{v(hpos)}">
        <inertial pos="{v(hipos)}" quat="{v(hiquat)}" mass="{hmass}" diaginertia="{v(hinertia)}"/>
      </body>"""
  xml = f"""
    <body name="hand" pos="{v(h_pos)}" quat="{v(h_quat)}">
      {hand_inertial}{inside}
    </body>"""
  xml = f"""
    <body name="right_hand" pos="{v(rh_pos)}" quat="{v(rh_quat)}">
      {tiny}{xml}
    </body>"""
  for name, bpos, bquat, mass, inertia, ipos, iquat, rng, cyl in reversed(ARM_LINKS):
    joint = ""
    if rng is not None:
      joint = (
        f'<joint name="{name.replace("_l", "_j")}" axis="0 0 1" range="{v(rng)}" damping="{ARM_DAMPING}" '
        f'armature="{ARM_ARMATURE}"/>'
      )
    geom = ""
    if cyl is not None:
      (r, h), cpos = cyl
      geom = (
        f'<geom type="cylinder" size="{r} {h}" pos="{v(cpos)}" contype="0" conaffinity="0" '
        'rgba="0.5 0.1 0.1 1"/>'
      )
    xml = f"""
    <body name="{name}" pos="{v(bpos)}" quat="{v(bquat)}">
      <inertial pos="{v(ipos)}" quat="{v(iquat)}" mass="{mass}" diaginertia="{v(inertia)}"/>
      {joint}{geom}{head if name == "right_l0" else ""}{xml}
    </body>"""
  return f"""
    {mocap}{xml}"""


def weld_xml(arm: bool) -> str:
  """The mocap weld: the free hand keeps the model's relative pose (its sag below the target); the arm's
  hand is held at the mocap's pose, torques scaled as the reference's."""
  solref = f'solref="{WELD_SOLREF[0]} {WELD_SOLREF[1]}"'
  if not arm:
    return f'<weld body1="mocap" body2="hand" {solref}/>'
  return f'<weld body1="mocap" body2="hand" relpose="0 0 0 1 0 0 0" torquescale="{ARM_WELD_TORQUESCALE}" {solref}/>'


def build_xml(task: Task, sim_dt: float, iterations: int, ls_iterations: int, arm: bool = False) -> str:
  """The MJCF of `task`'s world: table plane and walls, hand, the goal marker and the task's objects."""
  camera = camera_xml("overview", (0.0, 0.0, 0.9), (0.0, 0.7, 0.05), fovy=50)
  corner = camera_xml("corner", (1.1, 0.3, 0.7), (0.0, 0.7, 0.05), fovy=45)
  return f"""
<mujoco model="metaworld_{task.name}">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="{sim_dt}" iterations="{iterations}" ls_iterations="{ls_iterations}" solver="Newton"
          cone="elliptic" jacobian="dense"/>
  <visual><global offwidth="640" offheight="480"/><headlight ambient="0.4 0.4 0.4"/></visual>
  <asset>
    <texture name="grid" type="2d" builtin="checker" rgb1="0.55 0.42 0.3" rgb2="0.5 0.38 0.27"
             width="64" height="64"/>
    <material name="table" texture="grid" texrepeat="8 8"/>
    {task.assets_xml}
  </asset>
  <worldbody>
    <light directional="true" diffuse="0.5 0.5 0.5" pos="0 0 3" dir="0 0 -1"/>
    <light directional="true" diffuse="0.3 0.3 0.3" pos="1 -1 1" dir="-1 1 -1"/>
    {camera}
    {corner}
    <geom name="table" type="plane" size="0.7 0.4 0.05" pos="0 0.6 0" material="table"
          contype="0" conaffinity="1" condim="3"/>
    <geom name="table_body" type="box" size="0.7 0.4 0.3" pos="0 0.6 -0.301" rgba="0.45 0.33 0.22 1"
          contype="0" conaffinity="0"/>
    <geom name="base" type="cylinder" size="0.1 0.15" pos="0 0 0.15" rgba="0.55 0.1 0.1 1"
          contype="0" conaffinity="0"/>
    {hand_xml(task.hand_init_pos, arm)}
    <body name="goal_marker" mocap="true" pos="0 0.8 0.2">
      <site name="goal" size="0.02" rgba="0.8 0 0 1"/>
    </body>
    {task.objects_xml}
  </worldbody>
  <actuator>
    <position name="r_close" joint="r_close" ctrlrange="-1 1" kp="400"/>
    <position name="l_close" joint="l_close" ctrlrange="-1 1" kp="400"/>
  </actuator>
  <equality>
    {weld_xml(arm)}
  </equality>
  <contact>
    <exclude body1="hand" body2="rightclaw"/>
    <exclude body1="hand" body2="leftclaw"/>
    <exclude body1="hand" body2="rightpad"/>
    <exclude body1="hand" body2="leftpad"/>
    {task.contact_xml}
  </contact>
</mujoco>"""


class SawyerEnv(MjxEnv):
  """One Meta-World task on MJX; build it with `mjx_envs.make("metaworld/<task>-v3", **overrides)`."""

  action_size = 4

  def __init__(self, task: Task, **config):
    cfg = {**default_config(), **config}
    unknown = sorted(set(cfg) - set(default_config()))
    if unknown:
      raise ConfigError(f"metaworld/{task.name}: unknown config key(s) {unknown}")
    check_impl(cfg["impl"])
    for key in ("episode_length", "n_substeps", "iterations", "ls_iterations"):
      if int(cfg[key]) < 1:
        raise ConfigError(f"metaworld/{task.name}: {key} must be >= 1, got {cfg[key]!r}")
    if not 0 < float(cfg["sim_dt"]) <= 0.02:
      raise ConfigError(f"metaworld/{task.name}: sim_dt must be in (0, 0.02], got {cfg['sim_dt']!r}")
    if int(cfg["fixed_rand_vecs"]) < 0:
      raise ConfigError(
        f"metaworld/{task.name}: fixed_rand_vecs must be >= 0, got {cfg['fixed_rand_vecs']!r}"
      )
    self.task = task
    self.name = task.name
    self.config = dict(cfg)
    self.episode_length = int(cfg["episode_length"])
    self.arm = bool(cfg["arm"])
    self.xml = build_xml(
      task, float(cfg["sim_dt"]), int(cfg["iterations"]), int(cfg["ls_iterations"]), arm=self.arm
    )
    mj_model = mujoco.MjModel.from_xml_string(self.xml)
    # Contacts the reward reads: (left pad, g), (right pad, g) for each of the task's touch geoms.
    pads = [[mj_model.geom(p).id] for p in ("leftpad_geom", "rightpad_geom")]
    pairs = [(pad, [mj_model.geom(g).id]) for g in task.touch_geoms for pad in pads]
    super().__init__(
      mj_model,
      n_substeps=int(cfg["n_substeps"]),
      impl=cfg["impl"],
      warp_max_envs=cfg["warp_max_envs"],
      contact_pairs=pairs,
      c_fields=("xpos", "xquat", "xmat", "xipos", "site_xpos", "site_xmat", "geom_xpos", "geom_xmat"),
    )
    m = mj_model
    self.ids = _Ids(m)
    self.mocap_low = np.asarray(task.mocap_low or task.hand_low, np.float32)
    self.mocap_high = np.asarray(task.mocap_high or task.hand_high, np.float32)
    self.hand_init_pos = np.asarray(task.hand_init_pos, np.float32)
    self.rand_low = np.asarray(task.rand_low, np.float32)
    self.rand_high = np.asarray(task.rand_high, np.float32)
    goal_low, goal_high = np.asarray(task.goal_low, np.float32), np.asarray(task.goal_high, np.float32)
    inf = np.full(14, np.inf, np.float32)
    hand_lo, hand_hi = (np.asarray(v, np.float32) for v in HAND_SPACE)
    self.obs_low = np.concatenate([hand_lo, [-1.0], -inf, hand_lo, [-1.0], -inf, goal_low]).astype(np.float32)
    self.obs_high = np.concatenate([hand_hi, [1.0], inf, hand_hi, [1.0], inf, goal_high]).astype(np.float32)
    self._qpos0, self._qvel0, self._mocap_pos0, self._mocap_quat0, self._ctrl0 = self._settled_hand(m)
    n = int(cfg["fixed_rand_vecs"])
    self.fixed_rand_vecs = None
    if n:
      # Drawn by an eager vmap (~50 ms a task): kept on disk for the next start (`tables`; MT50's 50 tasks
      # 2.5 s of its build).
      draw = lambda: {
        "v": jax.vmap(self.sample_rand_vec)(
          jax.random.split(jax.random.PRNGKey(int(cfg["rand_vec_seed"])), n)
        )
      }
      self.fixed_rand_vecs = tables.cached(
        "metaworld-fixed-rand-vecs", (task.name, sorted(cfg.items())), draw
      )["v"]

  # -- construction ---------------------------------------------------------------------------------

  def _settled_hand(self, m: mujoco.MjModel):
    """The reference's `_reset_hand`: 50 control steps with the mocap at hand_init_pos and the gripper
    opening (ctrl [-1, 1]), simulated once here in C MuJoCo from the model's initial state. The free
    hand starts at its target and every episode at rest; the arm starts, as the reference's, from all
    joints at 0 with the reference's 50 solver iterations, and keeps the velocity it has after the 50
    steps (the reference's arm is still moving when an episode starts)."""
    d = mujoco.MjData(m)
    hand = self.ids
    d.mocap_pos[hand.hand_mocap] = self.hand_init_pos
    if not self.arm:
      d.qpos[hand.hand_qpos : hand.hand_qpos + 3] = self.hand_init_pos + np.array([0, 0, HAND_SAG_Z])
    d.ctrl[:] = [-1.0, 1.0]
    iterations = m.opt.iterations
    if self.arm:
      m.opt.iterations = 50
    mujoco.mj_forward(m, d)
    for _ in range(50 * self.n_substeps):
      mujoco.mj_step(m, d)
    m.opt.iterations = iterations
    qvel = np.array(d.qvel) if self.arm else np.zeros_like(d.qvel)
    return (
      np.array(d.qpos, np.float32),
      qvel.astype(np.float32),
      np.array(d.mocap_pos, np.float32),
      np.array(d.mocap_quat, np.float32),
      np.array(d.ctrl, np.float32),
    )

  def pad_forces(self, d: mjx.Data, geom: str) -> tuple[jax.Array, jax.Array]:
    """The summed normal contact force of the (left pad, right pad) on task touch geom `geom`."""
    _, force = self.pair_contacts(d)
    k = self.task.touch_geoms.index(geom)
    return force[2 * k], force[2 * k + 1]

  # -- rand_vec ---------------------------------------------------------------------------------------

  def sample_rand_vec(self, key: jax.Array) -> jax.Array:
    """A vector drawn uniformly from [rand_low, rand_high] that the task's `valid` accepts: 64
    candidates, the first valid one (the reference redraws until one is valid; none valid in 64 is
    below 1e-9 for every MT10 task, and then the last one is used)."""
    return self.rand_vec_from(unit_candidates(key, self.rand_low.shape[0]))

  def rand_vec_from(self, unit: jax.Array) -> jax.Array:
    """`sample_rand_vec` from its uniform draws `unit` [64, R] in [0, 1) (`unit_candidates`)."""
    lo, hi = jnp.asarray(self.rand_low), jnp.asarray(self.rand_high)
    cands = jnp.maximum(lo, unit * (hi - lo) + lo)  # jax.random.uniform's own scaling, bit for bit
    ok = jax.vmap(self.task.valid)(cands)
    idx = jnp.where(jnp.any(ok), jnp.argmax(ok), cands.shape[0] - 1)
    return cands[idx]

  # -- observation and reward -------------------------------------------------------------------------

  def tcp_center(self, d: mjx.Data) -> jax.Array:
    """Midpoint of the two end-effector sites [3] (the reference's `tcp_center`)."""
    return tcp_center(d, self.ids)

  def hand_obs(self, d: mjx.Data) -> jax.Array:
    """The hand's 4 current values: position [3], gripper opening [1] (the same bodies in every task)."""
    i = self.ids
    gap = jnp.clip(jnp.linalg.norm(d.xpos[i.rightclaw] - d.xpos[i.leftclaw]) / 0.1, 0.0, 1.0)
    return jnp.concatenate([d.xpos[i.hand], gap[None]])

  def objects_obs(self, d: mjx.Data) -> jax.Array:
    """The task's 14 current values: objects' positions and quaternions (zeros for a missing object)."""
    pos, quat = self.task.objects(self, d)
    k = pos.shape[0] // 3
    parts = [jnp.concatenate([pos[3 * j : 3 * j + 3], quat[4 * j : 4 * j + 4]]) for j in range(k)]
    return jnp.concatenate(parts + [jnp.zeros((14 - 7 * k,))])

  def current_obs(self, d: mjx.Data) -> jax.Array:
    """The 18 current values: hand [3], gripper opening [1], objects' positions and quaternions [14]."""
    return jnp.concatenate([self.hand_obs(d), self.objects_obs(d)]).astype(jnp.float32)

  def observe(self, cur: jax.Array, prev: jax.Array, target: jax.Array) -> jax.Array:
    """[39] = clip([cur, prev, target]) to the reference's observation space."""
    return observe(cur, prev, target, self.obs_low, self.obs_high)

  def reward_reads(self, d: mjx.Data, ctx: Mapping[str, jax.Array]) -> dict[str, jax.Array]:
    """Every state quantity a reward reads beyond the observation, by name (see `Task.reads`)."""
    i = self.ids
    base = {
      "tcp_center": self.tcp_center(d),
      "left_pad": d.xipos[i.leftpad],
      "right_pad": d.xipos[i.rightpad],
    }
    # The reference's `init_left_pad`/`init_right_pad` are `get_body_com(...)` views into its live
    # `data.xpos`, so they always equal the pads' current positions (metaworld 3.1.1; the parity fixture
    # records them equal on every step). Parity keeps that: pick-place's caging margins read them.
    live = {"init_left_pad": base["left_pad"], "init_right_pad": base["right_pad"]}
    return {**base, **ctx, **live, **self.task.reads(self, d, ctx)}

  # -- reset and step ---------------------------------------------------------------------------------

  def reset(self, rng: jax.Array) -> State:
    return self.reset_to(self.rand_vec_of(rng))

  def rand_vec_of(self, rng: jax.Array) -> jax.Array:
    """A reset's `rand_vec`: one of the fixed vectors (`fixed_rand_vecs`), else a fresh draw."""
    if self.fixed_rand_vecs is not None:
      return jnp.asarray(self.fixed_rand_vecs)[fixed_index(rng, self.fixed_rand_vecs.shape[0])]
    return self.sample_rand_vec(rng)

  def reset_to(self, rand_vec: jax.Array) -> State:
    """The episode that `rand_vec` [R] defines (objects and goal), from the settled hand."""
    d, ctx = self.placed(self.make_data(), rand_vec)
    d = self.reset_forward(d)
    ctx = start_ctx(d, ctx, self.ids, self.hand_init_pos)
    cur = self.current_obs(d)
    target = ctx["target_pos"]
    return start_state(d, ctx, target, cur, self.observe(cur, cur, target), rand_vec)

  def placed(self, d: mjx.Data, rand_vec: jax.Array) -> tuple[mjx.Data, dict]:
    """A reset's state before its kinematics: `d` (this model's reset-state data, or a padded copy of
    it: `mjx_envs.metaworld.shared`) at the settled hand, the objects and goal placed from `rand_vec`;
    and the task's context (float32 values)."""
    d = d.replace(
      qpos=d.qpos.at[: self._qpos0.shape[0]].set(self._qpos0),
      qvel=d.qvel.at[: self._qvel0.shape[0]].set(self._qvel0),
      mocap_pos=d.mocap_pos.at[: self._mocap_pos0.shape[0]].set(self._mocap_pos0),
      mocap_quat=d.mocap_quat.at[: self._mocap_quat0.shape[0]].set(self._mocap_quat0),
      ctrl=jnp.asarray(self._ctrl0),
    )
    d, ctx = self.task.place(self, d, jnp.asarray(rand_vec, jnp.float32))
    ctx = {k: jnp.asarray(v, jnp.float32) for k, v in ctx.items()}
    return d.replace(mocap_pos=d.mocap_pos.at[self.ids.goal_mocap].set(ctx["target_pos"])), ctx

  def step(self, state: State, action: jax.Array) -> State:
    d0 = state.pipeline_state
    action, bad, mocap_pos, ctrl = step_inputs(
      d0, action, self.ids.hand_mocap, self.mocap_low, self.mocap_high
    )
    d = self.physics_step(d0, ctrl=ctrl, mocap_pos=mocap_pos)
    ctx = state.info["ctx"]
    cur = self.current_obs(d)
    obs = self.observe(cur, state.info["prev"], ctx["target_pos"])
    reward, info = self.task.reward(obs, action, self.reward_reads(d, ctx))
    return step_state(state, d, cur, obs, reward, info, bad, self.diverged(d))

  @property
  def observation_size(self):
    return 39


RAND_CANDIDATES = 64  # candidate rand_vecs per draw (`SawyerEnv.sample_rand_vec`)


def unit_candidates(key: jax.Array, size: int) -> jax.Array:
  """The uniform draws [64, size] in [0, 1) behind a `sample_rand_vec` of a task with `size`-long
  rand_vecs: the same for every task of that length (a multi-task batch draws them once for all)."""
  return jax.random.uniform(key, (RAND_CANDIDATES, size))


def fixed_index(key: jax.Array, n: int) -> jax.Array:
  """Which of `n` fixed rand_vecs a reset with `key` starts from (the same rule for every task)."""
  return jax.random.randint(key, (), 0, n)


def observe(cur: jax.Array, prev: jax.Array, target: jax.Array, low, high) -> jax.Array:
  """[39] = clip([cur [18], prev [18], target [3]], low, high): the observation."""
  return jnp.clip(jnp.concatenate([cur, prev, target]), low, high).astype(jnp.float32)


def tcp_center(d: mjx.Data, ids: _Ids) -> jax.Array:
  """Midpoint of the two end-effector sites [3] (the reference's `tcp_center`)."""
  return (d.site_xpos[ids.right_ee] + d.site_xpos[ids.left_ee]) / 2


def start_ctx(d: mjx.Data, ctx: Mapping[str, jax.Array], ids: _Ids, hand_init_pos) -> dict:
  """A reset's context after its kinematics: the task's `ctx` and the start's hand and pads."""
  return {
    **ctx,
    "init_tcp": tcp_center(d, ids),
    "init_left_pad": d.xipos[ids.leftpad],
    "init_right_pad": d.xipos[ids.rightpad],
    "hand_init_pos": jnp.asarray(hand_init_pos),
  }


# Every key of a world's info: the reward's INFO_KEYS and what start_state adds (step_state writes them
# all again). Wrappers add their own entries, which neither function reads.
STATE_INFO_KEYS = INFO_KEYS + ("target", "rand_vec", "prev", "ctx", "diverged", "ever_success")


def start_state(
  d: mjx.Data, ctx, target: jax.Array, cur: jax.Array, obs: jax.Array, rand_vec: jax.Array
) -> State:
  """A reset's State (one world): info values at 0, the context, the goal `target` [3], the current
  values as `prev`."""
  zero = jnp.zeros((), jnp.float32)
  # The reward's info values start at 0: the reference's reset returns no info, and evaluating the
  # task's reward here would put a second copy of it into every auto-resetting step program (the reset
  # was larger than the step itself, the larger part of MT50's compile time).
  info = {k: zero for k in INFO_KEYS}
  info.update(
    {
      "target": target,
      "rand_vec": jnp.asarray(rand_vec, jnp.float32),
      "prev": cur,
      "ctx": ctx,
      "diverged": zero,
      "ever_success": zero,
    }
  )
  metrics = {"success": zero, "is_success": zero, "bad_action": zero}
  return State(pipeline_state=d, obs=obs, reward=zero, done=zero, metrics=metrics, info=info)


def step_inputs(d0: mjx.Data, action: jax.Array, hand_mocap: int, low, high):
  """A step's inputs (one world): (sanitised action [4], bad-action flag, mocap_pos, ctrl [2])."""
  action, bad = sanitize_action(action)
  target = jnp.clip(d0.mocap_pos[hand_mocap] + action[:3] * ACTION_SCALE, low, high)
  return action, bad, d0.mocap_pos.at[hand_mocap].set(target), jnp.stack([action[3], -action[3]])


def step_state(state: State, d: mjx.Data, cur, obs, reward, info, bad, diverged) -> State:
  """A step's State (one world) from the stepped data, the current values, the observation, the task's
  reward and info, the bad-action flag and the divergence flag."""
  info = {k: jnp.asarray(info[k], jnp.float32) for k in INFO_KEYS}
  # A diverged world ends its episode (a truncation); its numbers are not used.
  reward = jnp.where(diverged, 0.0, reward).astype(jnp.float32)
  success = jnp.where(diverged, 0.0, info["success"])
  obs = jnp.where(diverged, state.obs, obs)
  # Success at any step so far lives in info, which an auto-reset replaces with the fresh episode's:
  # kept in metrics alone (before 2026-11-27) it carried over into every later episode of a world, so
  # training success rates read 1 once a world had succeeded once (evaluations were not affected).
  ever = jnp.maximum(state.info["ever_success"], success)
  info.update(
    {
      "target": state.info["target"],
      "rand_vec": state.info["rand_vec"],
      "prev": cur,
      "ctx": state.info["ctx"],
      "diverged": diverged.astype(jnp.float32),
      "ever_success": ever,
    }
  )
  metrics = {"success": success, "is_success": ever, "bad_action": bad}
  return State(
    pipeline_state=d, obs=obs, reward=reward, done=diverged.astype(jnp.float32), metrics=metrics, info=info
  )


@dataclasses.dataclass(frozen=True)
class _Ids:
  """Indices into the model the env reads."""

  hand: int
  rightclaw: int
  leftclaw: int
  rightpad: int
  leftpad: int
  right_ee: int
  left_ee: int
  hand_mocap: int
  goal_mocap: int
  hand_qpos: int

  def __init__(self, m: mujoco.MjModel):
    set_ = lambda k, v: object.__setattr__(self, k, int(v))
    for b in ("hand", "rightclaw", "leftclaw", "rightpad", "leftpad"):
      set_(b, m.body(b).id)
    set_("right_ee", m.site("rightEndEffector").id)
    set_("left_ee", m.site("leftEndEffector").id)
    set_("hand_mocap", m.body("mocap").mocapid[0])
    set_("goal_mocap", m.body("goal_marker").mocapid[0])
    # The free hand's joint (-1 when the arm carries the hand).
    free = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, "hand_free")
    set_("hand_qpos", m.jnt_qposadr[free] if free >= 0 else -1)


def body_quat_xyzw(d: mjx.Data, body: int) -> jax.Array:
  """A body's world orientation as [x, y, z, w] (scipy's `as_quat`, which some reference tasks use)."""
  q = d.xquat[body]
  return jnp.concatenate([q[1:], q[:1]])


def mat_to_quat_xyzw(mat: jax.Array) -> jax.Array:
  """A rotation matrix [3, 3] as a unit quaternion [x, y, z, w] with w >= 0 (scipy's convention)."""
  w = jnp.sqrt(jnp.maximum(0.0, 1 + mat[0, 0] + mat[1, 1] + mat[2, 2])) / 2
  x = jnp.sqrt(jnp.maximum(0.0, 1 + mat[0, 0] - mat[1, 1] - mat[2, 2])) / 2
  y = jnp.sqrt(jnp.maximum(0.0, 1 - mat[0, 0] + mat[1, 1] - mat[2, 2])) / 2
  z = jnp.sqrt(jnp.maximum(0.0, 1 - mat[0, 0] - mat[1, 1] + mat[2, 2])) / 2
  x = jnp.copysign(x, mat[2, 1] - mat[1, 2])
  y = jnp.copysign(y, mat[0, 2] - mat[2, 0])
  z = jnp.copysign(z, mat[1, 0] - mat[0, 1])
  return jnp.stack([x, y, z, w])
