"""Generate the Meta-World (metaworld 3.1.1, `*-v3`, reward version "v2") parity fixture for MT10.

This script is NOT run by the test suite. It is run by hand, once, in a separate reference virtualenv,
and its output is committed as a test fixture that `tests/mjx_envs/test_metaworld_parity.py` reads
with numpy alone:

    tests/fixtures/metaworld_reference.npz   (arrays, keys below; savez_compressed)
    tests/fixtures/metaworld_reference.json  (metadata: versions, per-task constants, read keys,
                                              rejection rules, sequence names)

How to regenerate (from the repo root; the reference venv lives OUTSIDE the repo and is not the
project's venv, whose mujoco is newer):

    python3.11 -m venv /work/mwvenv
    /work/mwvenv/bin/pip install "metaworld==3.1.1" packaging     # pulls mujoco 3.3.0, gymnasium 1.x
    MUJOCO_GL=egl /work/mwvenv/bin/python scripts/make_metaworld_reference.py

Other tasks (Meta-World part 2) go into fixtures of their own, one per group of task modules:

    MUJOCO_GL=egl /work/mwvenv/bin/python scripts/make_metaworld_reference.py \
      --tasks reach-wall-v3,push-wall-v3 --out metaworld_reference_walls

(their benchmark draws come from `metaworld.MT50(seed=SEED)`, reset seeds from the task's MT50 index);
`tests/mjx_envs/test_metaworld_parity.py` reads every `tests/fixtures/metaworld_reference*.json`.

It runs in about two minutes on one CPU core and is deterministic: the benchmark's tasks come from
`metaworld.MT10(seed=SEED)`, every other draw from numpy generators with fixed seeds.

Contents, for each MT10 task T (keys prefixed "T/"):

1. Reward records (N = N_RECORDS steps, from several episodes):
   episodes: the task's scripted policy (`metaworld.policies`) on 3 benchmark tasks (rand_vecs) of
   MT10(seed=SEED), the scripted policy with Gaussian action noise (sigma 0.5) on a 4th, uniform random
   actions on a 5th, zero actions on a 6th (30 steps); each runs until 10 steps after its first
   success or 250 steps. From them N_RECORDS steps are kept: the 6 steps around each scripted episode's first
   success (3 before, 3 from it: the success threshold), the rest spread evenly over all episodes.
   ``T/obs`` [N, 39]         the observation the reference's `evaluate_state` saw (clipped, float64)
   ``T/action`` [N, 4]       the action (already in [-1, 1], so what the reward saw)
   ``T/reward`` [N]          the reward `step` returned
   ``T/info/K`` [N]          every info value K (success, near_object, grasp_success, grasp_reward,
                             in_place_reward, obj_to_target, unscaled_reward), as float64
   ``T/reads/NAME`` [N, ...] every state quantity the reference's compute_reward/evaluate_state reads
                             (and a few more), named by the rule the task modules follow:
                               self._target_pos -> "target_pos"; self.X -> "X" (obj_init_pos, init_tcp,
                               init_left_pad, init_right_pad, hand_init_pos, maxDist, maxPushDist,
                               maxPullDist, _obj_to_target_init, peg_head_pos_init,
                               window_handle_pos_init, touching_main_object, ...);
                               self.tcp_center -> "tcp_center";
                               get_body_com("leftpad"/"rightpad") -> "left_pad"/"right_pad";
                               get_body_com("B") -> "body_com:B"; _get_site_pos("S") -> "site:S";
                               data.joint("J").qpos -> "qpos:J"; data.geom("G").xpos -> "geom_xpos:G";
                               data.body("B").xpos -> "body_xpos:B"
                             The JSON's tasks[T].reads lists the ones the reference's reward of T
                             actually reads; scalars are [N], vectors [N, 3].
                             NOTE init_left_pad / init_right_pad: the reference sets them to
                             `get_body_com("leftpad")`, a VIEW into data.xpos, so they are the LIVE pad
                             positions at every step (equal to left_pad / right_pad in every record);
                             that is what its pick-place reward reads.
   ``T/episode`` [N], ``T/step`` [N]  which episode (0..5, as above) and step (1-based) each came from
   ``T/episode_rand_vec`` [6, R]      each episode's rand_vec

2. Reset distribution (N_RESETS resets): the benchmark's own draw (`metaworld._make_tasks`: the env with
   its rand_vec unfrozen, numpy's global generator seeded, `reset()` redrawing until the task's rule
   accepts), seed RESET_SEED + task index:
   ``T/reset/rand_vec`` [M, R], ``T/reset/obj_init_pos`` [M, 3], ``T/reset/target_pos`` [M, 3],
   ``T/reset/hand`` [M, 4] (obs[0:4] after the reset), ``T/reset/init_tcp`` [M, 3]
   ``T/rand_low``, ``T/rand_high`` [R]   the task's `_random_reset_space`
   ``T/benchmark_rand_vecs`` [50, R]     the 50 vectors of MT10(seed=SEED)
   plus the constants ``T/hand_init_pos``, ``T/hand_low``, ``T/hand_high``, ``T/mocap_low``,
   ``T/mocap_high``, ``T/goal_low``, ``T/goal_high`` [3], ``T/max_path_length``.

3. Hand motion, for reach-v3 and push-v3 (H/ = "T/motion/"), from the reset state of benchmark task 0
   (``H/rand_vec``): MOTION_STEPS steps of each sequence in MOTION_NAMES (constant +-x, +-y, +-z at
   scales 1 and 0.5 with the gripper action 0; two smooth random sequences; the gripper closing
   (+1) then opening (-1) with the hand still):
   ``H/actions`` [S, T, 4], ``H/hand`` [S, T + 1, 3] (obs[0:3], index 0 = the reset), ``H/grip``
   [S, T + 1] (obs[3]), ``H/tcp`` [S, T + 1, 3], ``H/mocap`` [S, T + 1, 3] (the mocap target).
"""

from __future__ import annotations

import argparse
import json
import os
import warnings
from importlib import metadata as importlib_metadata

import numpy as np

warnings.filterwarnings("ignore")

import metaworld
import metaworld.policies as mw_policies

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(REPO_ROOT, "tests", "fixtures")
NPZ_PATH = os.path.join(OUT_DIR, "metaworld_reference.npz")
JSON_PATH = os.path.join(OUT_DIR, "metaworld_reference.json")

SEED = 0
RESET_SEED = 100
N_RECORDS = 40
N_RESETS = 300
MAX_STEPS = 250
ZERO_STEPS = 30
MOTION_STEPS = 40
MOTION_TASKS = ("reach-v3", "push-v3")
INFO_KEYS = (
  "success",
  "near_object",
  "grasp_success",
  "grasp_reward",
  "in_place_reward",
  "obj_to_target",
  "unscaled_reward",
)

POLICIES = {
  "reach-v3": "SawyerReachV3Policy",
  "push-v3": "SawyerPushV3Policy",
  "pick-place-v3": "SawyerPickPlaceV3Policy",
  "door-open-v3": "SawyerDoorOpenV3Policy",
  "drawer-open-v3": "SawyerDrawerOpenV3Policy",
  "drawer-close-v3": "SawyerDrawerCloseV3Policy",
  "button-press-topdown-v3": "SawyerButtonPressTopdownV3Policy",
  "peg-insert-side-v3": "SawyerPegInsertionSideV3Policy",
  "window-open-v3": "SawyerWindowOpenV3Policy",
  "window-close-v3": "SawyerWindowCloseV3Policy",
  # walls group (metaworld_reference_walls)
  "reach-wall-v3": "SawyerReachWallV3Policy",
  "push-wall-v3": "SawyerPushWallV3Policy",
  "pick-place-wall-v3": "SawyerPickPlaceWallV3Policy",
  "push-back-v3": "SawyerPushBackV3Policy",
  "plate-slide-v3": "SawyerPlateSlideV3Policy",
  "plate-slide-back-v3": "SawyerPlateSlideBackV3Policy",
  "plate-slide-side-v3": "SawyerPlateSlideSideV3Policy",
  "plate-slide-back-side-v3": "SawyerPlateSlideBackSideV3Policy",
}

# What each task's reference `compute_reward` / `evaluate_state` (reward version v2) reads beyond the
# observation and the action, by the naming rule (read off metaworld 3.1.1's sources).
READS = {
  "reach-v3": ["tcp_center", "target_pos", "hand_init_pos"],
  "push-v3": [
    "tcp_center",
    "target_pos",
    "obj_init_pos",
    "left_pad",
    "right_pad",
    "init_tcp",
    "touching_main_object",
  ],
  "pick-place-v3": [
    "tcp_center",
    "target_pos",
    "obj_init_pos",
    "left_pad",
    "right_pad",
    "init_left_pad",
    "init_right_pad",
    "init_tcp",
    "touching_main_object",
  ],
  "door-open-v3": ["qpos:doorjoint", "target_pos"],
  "drawer-open-v3": ["target_pos", "maxDist", "init_tcp"],
  "drawer-close-v3": ["tcp_center", "target_pos", "obj_init_pos", "init_tcp"],
  "button-press-topdown-v3": ["tcp_center", "init_tcp", "target_pos", "_obj_to_target_init"],
  "peg-insert-side-v3": [
    "tcp_center",
    "site:pegHead",
    "target_pos",
    "peg_head_pos_init",
    "site:bottom_right_corner_collision_box_1",
    "site:top_left_corner_collision_box_1",
    "site:bottom_right_corner_collision_box_2",
    "site:top_left_corner_collision_box_2",
    "left_pad",
    "right_pad",
    "obj_init_pos",
    "init_tcp",
  ],
  "window-open-v3": [
    "site:handleOpenStart",
    "tcp_center",
    "target_pos",
    "obj_init_pos",
    "window_handle_pos_init",
    "init_tcp",
  ],
  "window-close-v3": [
    "site:handleCloseStart",
    "tcp_center",
    "target_pos",
    "window_handle_pos_init",
    "init_tcp",
  ],
}
# walls group (metaworld_reference_walls)
_PUCK_CAGING = ["tcp_center", "target_pos", "obj_init_pos", "left_pad", "right_pad", "init_tcp"]
_PLATE = ["tcp_center", "target_pos", "obj_init_pos", "init_tcp"]
READS.update(
  {
    "reach-wall-v3": ["tcp_center", "target_pos", "hand_init_pos"],
    "push-wall-v3": _PUCK_CAGING + ["touching_main_object"],
    "pick-place-wall-v3": _PUCK_CAGING + ["touching_main_object"],
    "push-back-v3": _PUCK_CAGING + ["init_left_pad", "init_right_pad", "touching_main_object"],
    "plate-slide-v3": _PLATE,
    "plate-slide-back-v3": _PLATE,
    "plate-slide-side-v3": _PLATE,
    "plate-slide-back-side-v3": _PLATE,
  }
)
# Recorded for every task where the attribute exists (a superset of READS: a module may read these).
EXTRA_ATTRS = (
  "obj_init_pos",
  "init_tcp",
  "init_left_pad",
  "init_right_pad",
  "hand_init_pos",
  "maxDist",
  "maxPushDist",
  "maxPullDist",
  "maxPlacingDist",
  "maxReachDist",
  "_obj_to_target_init",
  "peg_head_pos_init",
  "window_handle_pos_init",
  "objHeight",
  "heightTarget",
  "liftThresh",
)
EXTRA_SITES = {
  "door-open-v3": [],
  "drawer-open-v3": [],
  "drawer-close-v3": [],
  "button-press-topdown-v3": ["site:hole", "site:buttonStart"],
  "peg-insert-side-v3": ["site:pegGrasp"],
}
EXTRA_JOINTS = {
  "drawer-open-v3": ["qpos:goal_slidey"],
  "drawer-close-v3": ["qpos:goal_slidey"],
  "button-press-topdown-v3": ["qpos:btnbox_joint"],
  "window-open-v3": ["qpos:window_slide"],
  "window-close-v3": ["qpos:window_slide"],
}
EXTRA_BODIES = {
  "reach-v3": ["body_com:obj"],
  "push-v3": ["body_com:obj"],
  "pick-place-v3": ["body_com:obj"],
  "drawer-open-v3": ["body_com:drawer_link"],
  "drawer-close-v3": ["body_com:drawer_link"],
  "button-press-topdown-v3": ["body_com:button"],
  "peg-insert-side-v3": ["body_com:peg"],
  "door-open-v3": ["geom_xpos:handle"],
}
# walls group: the puck's body com; the plate's slide joints and the goal cage's frame
EXTRA_BODIES.update(
  {t: ["body_com:obj"] for t in ("reach-wall-v3", "push-wall-v3", "pick-place-wall-v3", "push-back-v3")}
)
EXTRA_BODIES.update(
  {
    t: ["body_xpos:puck_goal"]
    for t in ("plate-slide-v3", "plate-slide-back-v3", "plate-slide-side-v3", "plate-slide-back-side-v3")
  }
)
EXTRA_JOINTS.update(
  {
    t: ["qpos:goal_slidex", "qpos:goal_slidey"]
    for t in ("plate-slide-v3", "plate-slide-back-v3", "plate-slide-side-v3", "plate-slide-back-side-v3")
  }
)
# press group (metaworld_reference_press): the button boxes, the doors and locks, the handle-press boxes
_BUTTON = ["tcp_center", "init_tcp", "target_pos", "_obj_to_target_init"]
_HANDLE_PRESS = ["site:handleStart", "tcp_center", "target_pos", "_handle_init_pos", "init_tcp"]
_HANDLE_PULL = ["tcp_center", "target_pos", "obj_init_pos", "left_pad", "right_pad", "init_tcp"]
_PRESS_GROUP = {
  # task: (policy, reads, extra recorded reads)
  "button-press-v3": ("SawyerButtonPressV3Policy", _BUTTON, ["body_com:button", "site:hole"]),
  "button-press-wall-v3": ("SawyerButtonPressWallV3Policy", _BUTTON, ["body_com:button", "site:hole"]),
  "button-press-topdown-wall-v3": (
    "SawyerButtonPressTopdownWallV3Policy",
    _BUTTON,
    ["body_com:button", "site:hole"],
  ),
  "door-close-v3": (
    "SawyerDoorCloseV3Policy",
    ["tcp_center", "target_pos", "obj_init_pos", "hand_init_pos"],
    ["geom_xpos:handle"],
  ),
  "door-lock-v3": (
    "SawyerDoorLockV3Policy",
    ["left_pad", "init_left_pad", "target_pos"],
    ["body_xpos:lock_link", "site:lockStartLock"],
  ),
  "door-unlock-v3": (
    "SawyerDoorUnlockV3Policy",
    ["init_tcp", "obj_init_pos", "target_pos"],
    ["body_xpos:lock_link", "site:lockStartUnlock"],
  ),
  "handle-press-v3": ("SawyerHandlePressV3Policy", _HANDLE_PRESS, ["site:handleRight", "site:handleCenter"]),
  "handle-press-side-v3": (
    "SawyerHandlePressSideV3Policy",
    _HANDLE_PRESS,
    ["site:handleRight", "site:handleCenter"],
  ),
  "handle-pull-v3": ("SawyerHandlePullV3Policy", _HANDLE_PULL, ["site:handleStart", "site:handleCenter"]),
  "handle-pull-side-v3": (
    "SawyerHandlePullSideV3Policy",
    _HANDLE_PULL,
    ["site:handleStart", "site:handleRight"],
  ),
}
POLICIES.update({t: p for t, (p, _, _) in _PRESS_GROUP.items()})
READS.update({t: list(r) for t, (_, r, _) in _PRESS_GROUP.items()})
EXTRA_BODIES.update({t: list(x) for t, (_, _, x) in _PRESS_GROUP.items()})
# objects group (metaworld_reference_objects): the block / ball / object tasks
_BLOCK_CAGING = ["tcp_center", "target_pos", "obj_init_pos", "left_pad", "right_pad", "init_tcp"]
_OBJECTS_GROUP = {
  # task: (policy, reads, extra recorded reads)
  "sweep-v3": (
    "SawyerSweepV3Policy",
    _BLOCK_CAGING + ["init_left_pad", "init_right_pad", "touching_main_object"],
    ["body_com:obj"],
  ),
  "sweep-into-v3": (
    "SawyerSweepIntoV3Policy",
    _BLOCK_CAGING + ["init_left_pad", "init_right_pad", "touching_main_object"],
    ["body_com:obj"],
  ),
  "soccer-v3": (
    "SawyerSoccerV3Policy",
    _BLOCK_CAGING + ["init_left_pad", "init_right_pad", "touching_main_object"],
    ["body_com:soccer_ball", "body_xpos:goal_whole"],
  ),
  "hand-insert-v3": ("SawyerHandInsertV3Policy", _BLOCK_CAGING + ["touching_main_object"], ["body_com:obj"]),
  "pick-out-of-hole-v3": ("SawyerPickOutOfHoleV3Policy", _BLOCK_CAGING, ["body_com:obj"]),
  "shelf-place-v3": (
    "SawyerShelfPlaceV3Policy",
    _BLOCK_CAGING + ["touching_main_object"],
    ["body_com:obj", "body_xpos:shelf"],
  ),
  "box-close-v3": ("SawyerBoxCloseV3Policy", ["target_pos"], ["body_com:top_link", "body_xpos:boxbody"]),
  "bin-picking-v3": ("SawyerBinPickingV3Policy", _BLOCK_CAGING + ["_target_to_obj_init"], ["body_com:obj"]),
}
POLICIES.update({t: p for t, (p, _, _) in _OBJECTS_GROUP.items()})
READS.update({t: list(r) for t, (_, r, _) in _OBJECTS_GROUP.items()})
EXTRA_BODIES.update({t: list(x) for t, (_, _, x) in _OBJECTS_GROUP.items()})
# The reference's rejection rule on a drawn rand_vec (reset_model's `while` loops), as data.
CONSTRAINTS = {
  "reach-v3": {"kind": "xy_distance_at_least", "a": [0, 1], "b": [3, 4], "min": 0.15},
  "push-v3": {"kind": "xy_distance_at_least", "a": [0, 1], "b": [3, 4], "min": 0.15},
  "pick-place-v3": {"kind": "xy_distance_at_least", "a": [0, 1], "b": [3, 4], "min": 0.15},
  "peg-insert-side-v3": {"kind": "xy_distance_at_least", "a": [0, 1], "b": [3, 4], "min": 0.1},
}
CONSTRAINTS.update(  # walls group
  {
    t: {"kind": "xy_distance_at_least", "a": [0, 1], "b": [3, 4], "min": 0.15}
    for t in ("reach-wall-v3", "push-wall-v3", "pick-place-wall-v3", "push-back-v3")
  }
)
# dials group (metaworld_reference_dials): the faucet, the dial, the coffee machine, the lever
_MUG_CAGING = ["tcp_center", "target_pos", "obj_init_pos", "left_pad", "right_pad", "init_tcp"]
_DIALS_GROUP = {
  # task: (policy, reads, extra recorded reads)
  "faucet-open-v3": (
    "SawyerFaucetOpenV3Policy",
    ["tcp_center", "target_pos", "obj_init_pos", "init_tcp"],
    ["qpos:knob_Joint_1", "site:handleStartOpen"],
  ),
  "faucet-close-v3": (
    "SawyerFaucetCloseV3Policy",
    ["tcp_center", "target_pos", "obj_init_pos", "init_tcp"],
    ["qpos:knob_Joint_1", "site:handleStartClose"],
  ),
  "dial-turn-v3": (
    "SawyerDialTurnV3Policy",
    ["tcp_center", "target_pos", "init_tcp", "dial_push_position"],
    ["qpos:knob_Joint_1", "body_com:dial"],
  ),
  "coffee-button-v3": (
    "SawyerCoffeeButtonV3Policy",
    ["tcp_center", "init_tcp", "target_pos"],
    ["site:buttonStart", "body_com:obj", "body_xpos:cmbutton"],
  ),
  "coffee-push-v3": ("SawyerCoffeePushV3Policy", _MUG_CAGING + ["touching_main_object"], ["body_com:obj"]),
  "coffee-pull-v3": ("SawyerCoffeePullV3Policy", _MUG_CAGING + ["touching_main_object"], ["body_com:obj"]),
  "lever-pull-v3": (
    "SawyerLeverPullV3Policy",
    ["init_tcp", "_lever_pos_init", "target_pos", "qpos:LeverAxis"],
    ["site:leverStart"],
  ),
}
POLICIES.update({t: p for t, (p, _, _) in _DIALS_GROUP.items()})
READS.update({t: list(r) for t, (_, r, _) in _DIALS_GROUP.items()})
EXTRA_BODIES.update({t: list(x) for t, (_, _, x) in _DIALS_GROUP.items()})
CONSTRAINTS.update(
  {
    t: {"kind": "xy_distance_at_least", "a": [0, 1], "b": [3, 4], "min": 0.15}
    for t in ("coffee-push-v3", "coffee-pull-v3")
  }
)


# objects group: sweep-into redraws while the block's xy is within 0.15 m of its fixed target (0, 0.84)
CONSTRAINTS["sweep-into-v3"] = {
  "kind": "xy_distance_to_point_at_least",
  "a": [0, 1],
  "point": [0.0, 0.84],
  "min": 0.15,
}


# tools group (metaworld_reference_tools): the plug, the sticks, the hammer, the ball, the ring and peg
_TOOLS_GROUP = {
  # task: (policy, reads, extra recorded reads)
  "peg-unplug-side-v3": (
    "SawyerPegUnplugSideV3Policy",
    ["tcp_center", "target_pos", "obj_init_pos", "left_pad", "right_pad", "init_tcp"],
    ["body_xpos:plug1", "site:pegHead"],
  ),
}
POLICIES.update({t: p for t, (p, _, _) in _TOOLS_GROUP.items()})
READS.update({t: list(r) for t, (_, r, _) in _TOOLS_GROUP.items()})
EXTRA_BODIES.update({t: list(x) for t, (_, _, x) in _TOOLS_GROUP.items()})

# assembly group (metaworld_reference_assembly): the basketball and its hoop, the round nut and its peg
_NUT = ["tcp_center", "target_pos", "obj_init_pos", "left_pad", "right_pad", "init_tcp", "site:RoundNut"]
_ASSEMBLY_GROUP = {
  # task: (policy, reads, extra recorded reads)
  "basketball-v3": (
    "SawyerBasketballV3Policy",
    ["tcp_center", "target_pos", "obj_init_pos", "left_pad", "right_pad", "init_tcp"],
    ["body_com:bsktball", "body_xpos:basket_goal"],
  ),
  "assembly-v3": ("SawyerAssemblyV3Policy", _NUT, ["body_com:RoundNut", "body_xpos:peg"]),
  "disassemble-v3": ("SawyerDisassembleV3Policy", _NUT, ["body_com:RoundNut", "body_xpos:peg"]),
}
POLICIES.update({t: p for t, (p, _, _) in _ASSEMBLY_GROUP.items()})
READS.update({t: list(r) for t, (_, r, _) in _ASSEMBLY_GROUP.items()})
EXTRA_BODIES.update({t: list(x) for t, (_, _, x) in _ASSEMBLY_GROUP.items()})
CONSTRAINTS.update(  # assembly group: the ball's / nut's xy and the hoop's / goal's draws
  {
    t: {"kind": "xy_distance_at_least", "a": [0, 1], "b": [3, 4], "min": m}
    for t, m in (("basketball-v3", 0.15), ("assembly-v3", 0.1), ("disassemble-v3", 0.1))
  }
)


CONSTRAINTS.update(  # objects group: the xy distance between the object's and the goal's draws
  {
    t: {"kind": "xy_distance_at_least", "a": [0, 1], "b": [3, 4], "min": m}
    for t, m in (
      ("soccer-v3", 0.15),
      ("hand-insert-v3", 0.15),
      ("pick-out-of-hole-v3", 0.15),
      ("shelf-place-v3", 0.1),
      ("box-close-v3", 0.25),
    )
  }
)


# sticks group (metaworld_reference_sticks): the stick and the thermos, the hammer and the nail block
_STICK_CAGING = ["tcp_center", "target_pos", "obj_init_pos", "left_pad", "right_pad", "init_tcp"]
_STICKS_GROUP = {
  # task: (policy, reads, extra recorded reads)
  "stick-push-v3": (
    "SawyerStickPushV3Policy",
    _STICK_CAGING + ["stick_init_pos", "touching_main_object"],
    ["site:insertion", "site:stick_end", "qpos:obj_slidex", "qpos:obj_slidey"],
  ),
  "stick-pull-v3": (
    "SawyerStickPullV3Policy",
    _STICK_CAGING + ["stick_init_pos", "site:stick_end", "touching_main_object"],
    ["site:insertion", "qpos:obj_slidex", "qpos:obj_slidey"],
  ),
  "hammer-v3": (
    "SawyerHammerV3Policy",
    _STICK_CAGING + ["qpos:NailSlideJoint"],
    ["site:nailHead", "body_xpos:hammer"],
  ),
}
POLICIES.update({t: p for t, (p, _, _) in _STICKS_GROUP.items()})
READS.update({t: list(r) for t, (_, r, _) in _STICKS_GROUP.items()})
EXTRA_BODIES.update({t: list(x) for t, (_, _, x) in _STICKS_GROUP.items()})
CONSTRAINTS.update(  # the stick's and the goal's xy draws at least 0.1 apart
  {
    t: {"kind": "xy_distance_at_least", "a": [0, 1], "b": [3, 4], "min": 0.1}
    for t in ("stick-push-v3", "stick-pull-v3")
  }
)


def motion_sequences():
  """{name: actions [MOTION_STEPS, 4]}: the hand-motion sequences."""
  seqs = {}
  for scale in (1.0, 0.5):
    for axis, an in enumerate("xyz"):
      for sign, sn in ((1, "+"), (-1, "-")):
        a = np.zeros((MOTION_STEPS, 4))
        a[:, axis] = sign * scale
        seqs[f"{sn}{an}@{scale:g}"] = a
  rng = np.random.default_rng(7)
  for k in range(2):
    noise = rng.uniform(-1, 1, (MOTION_STEPS + 8, 4))
    kernel = np.ones(8) / 8
    smooth = np.stack([np.convolve(noise[:, j], kernel, mode="valid")[:MOTION_STEPS] for j in range(4)], -1)
    smooth = np.clip(smooth * 2.5, -1, 1)
    seqs[f"smooth{k}"] = smooth
  grip = np.zeros((MOTION_STEPS, 4))
  grip[: MOTION_STEPS // 2, 3] = 1.0
  grip[MOTION_STEPS // 2 :, 3] = -1.0
  seqs["grip_close_open"] = grip
  return seqs


def read_value(env, name):
  """The state quantity `name` (naming rule in the docstring) of the reference env, float64."""
  if name == "tcp_center":
    v = env.tcp_center
  elif name == "left_pad":
    v = env.get_body_com("leftpad")
  elif name == "right_pad":
    v = env.get_body_com("rightpad")
  elif name == "target_pos":
    v = env._target_pos
  elif name == "touching_main_object":
    v = float(env.touching_main_object)
  elif name.startswith("site:"):
    v = env._get_site_pos(name[5:])
  elif name.startswith("qpos:"):
    v = env.data.joint(name[5:]).qpos.item()
  elif name.startswith("body_com:"):
    v = env.get_body_com(name[9:])
  elif name.startswith("geom_xpos:"):
    v = env.data.geom(name[10:]).xpos
  elif name.startswith("body_xpos:"):
    v = env.data.body(name[10:]).xpos
  else:
    v = getattr(env, name)
  return np.array(v, np.float64).copy()


def all_reads(env, task):
  names = list(READS[task])
  for a in EXTRA_ATTRS:
    if a not in names and getattr(env, a, None) is not None:
      names.append(a)
  for n in ("tcp_center", "left_pad", "right_pad", "target_pos"):
    if n not in names:
      names.append(n)
  names += [
    n
    for n in EXTRA_SITES.get(task, []) + EXTRA_JOINTS.get(task, []) + EXTRA_BODIES.get(task, [])
    if n not in names
  ]
  if task in ("push-v3", "pick-place-v3") and "touching_main_object" not in names:
    names.append("touching_main_object")
  out = {}
  for n in names:
    try:
      out[n] = read_value(env, n)
    except (KeyError, AttributeError, ValueError, TypeError):
      if n in READS[task]:
        raise
  return out


def make_env(mt, task, idx):
  env = mt.train_classes[task]()
  tasks = [t for t in mt.train_tasks if t.env_name == task]
  env.set_task(tasks[idx])
  return env, tasks


def run_episode(env, policy, mode, rng):
  """Steps until 10 after the first success or MAX_STEPS; [(obs, action, reward, info, reads)], first
  success step index (or None)."""
  obs, _ = env.reset()
  task = env._task_name_for_fixture
  out, first = [], None
  for t in range(MAX_STEPS if mode != "zero" else ZERO_STEPS):
    if mode == "scripted":
      a = policy.get_action(obs)
    elif mode == "noisy":
      a = policy.get_action(obs) + rng.normal(0, 0.5, 4)
    elif mode == "random":
      a = rng.uniform(-1, 1, 4)
    else:
      a = np.zeros(4)
    a = np.clip(np.asarray(a, np.float64), -1, 1).astype(np.float32)
    obs, r, _, _, info = env.step(a)
    out.append(
      (
        np.array(obs, np.float64),
        a.astype(np.float64),
        float(r),
        {k: float(info[k]) for k in INFO_KEYS},
        all_reads(env, task),
      )
    )
    if first is None and info["success"]:
      first = t
    if first is not None and t >= first + 10:
      break
  return out, first


def reward_records(mt, task, arrays, meta):
  policy = getattr(mw_policies, POLICIES[task])()
  rng = np.random.default_rng(1234)
  modes = ["scripted", "scripted", "scripted", "noisy", "random", "zero"]
  episodes, firsts, rvs = [], [], []
  for e, mode in enumerate(modes):
    env, _ = make_env(mt, task, e)
    env._task_name_for_fixture = task
    steps, first = run_episode(env, policy, mode, rng)
    episodes.append(steps)
    firsts.append(first)
    rvs.append(np.array(env._last_rand_vec, np.float64))
    env.close()
  picks = []
  for e in range(3):
    if firsts[e] is not None:
      picks += [(e, t) for t in range(max(firsts[e] - 3, 0), min(firsts[e] + 3, len(episodes[e])))]
  pool = [(e, t) for e in range(len(episodes)) for t in range(len(episodes[e])) if (e, t) not in picks]
  rest = N_RECORDS - len(picks)
  idx = np.linspace(0, len(pool) - 1, rest).round().astype(int)
  picks += [pool[i] for i in idx]
  picks.sort()
  recs = [episodes[e][t] for e, t in picks]
  arrays[f"{task}/obs"] = np.stack([r[0] for r in recs])
  arrays[f"{task}/action"] = np.stack([r[1] for r in recs])
  arrays[f"{task}/reward"] = np.array([r[2] for r in recs])
  for k in INFO_KEYS:
    arrays[f"{task}/info/{k}"] = np.array([r[3][k] for r in recs])
  for name in recs[0][4]:
    arrays[f"{task}/reads/{name}"] = np.stack([r[4][name] for r in recs])
  arrays[f"{task}/episode"] = np.array([e for e, _ in picks])
  arrays[f"{task}/step"] = np.array([t + 1 for _, t in picks])
  arrays[f"{task}/episode_rand_vec"] = np.stack(rvs)
  meta["episodes"] = modes
  meta["first_success_step"] = [None if f is None else f + 1 for f in firsts]
  meta["n_success_records"] = int(arrays[f"{task}/info/success"].sum())
  meta["reads_recorded"] = sorted(recs[0][4])


def reset_distribution(mt, task, k, arrays):
  env, tasks = make_env(mt, task, 0)
  env._freeze_rand_vec = False
  np.random.seed(  # noqa: NPY002  metaworld samples from NumPy's global generator
    RESET_SEED + k
  )
  rv, oip, tp, hand, tcp = [], [], [], [], []
  for _ in range(N_RESETS):
    obs, _ = env.reset()
    rv.append(np.array(env._last_rand_vec, np.float64))
    oip.append(np.array(env.obj_init_pos, np.float64))
    tp.append(np.array(env._target_pos, np.float64))
    hand.append(obs[:4].copy())
    tcp.append(np.array(env.init_tcp, np.float64))
  p = f"{task}/reset"
  arrays[f"{p}/rand_vec"], arrays[f"{p}/obj_init_pos"], arrays[f"{p}/target_pos"] = map(
    np.stack, (rv, oip, tp)
  )
  arrays[f"{p}/hand"], arrays[f"{p}/init_tcp"] = np.stack(hand), np.stack(tcp)
  arrays[f"{task}/rand_low"] = np.array(env._random_reset_space.low, np.float64)
  arrays[f"{task}/rand_high"] = np.array(env._random_reset_space.high, np.float64)
  arrays[f"{task}/benchmark_rand_vecs"] = np.stack(
    [np.array(__import__("pickle").loads(t.data)["rand_vec"], np.float64) for t in tasks]
  )
  for name in ("hand_init_pos", "hand_low", "hand_high", "mocap_low", "mocap_high"):
    arrays[f"{task}/{name}"] = np.array(getattr(env, name), np.float64)
  arrays[f"{task}/goal_low"] = np.array(env.goal_space.low, np.float64)
  arrays[f"{task}/goal_high"] = np.array(env.goal_space.high, np.float64)
  arrays[f"{task}/max_path_length"] = np.array(env.max_path_length)
  consts = {
    n: arrays[f"{task}/{n}"].tolist()
    for n in (
      "hand_init_pos",
      "hand_low",
      "hand_high",
      "mocap_low",
      "mocap_high",
      "goal_low",
      "goal_high",
      "rand_low",
      "rand_high",
    )
  }
  consts.update(
    max_path_length=int(env.max_path_length),
    frame_skip=int(env.frame_skip),
    timestep=float(env.model.opt.timestep),
    action_scale=float(env.action_scale),
    TARGET_RADIUS=float(env.TARGET_RADIUS),
    env_class=type(env).__name__,
  )
  env.close()
  return consts


def hand_motion(mt, task, arrays):
  seqs = motion_sequences()
  p = f"{task}/motion"
  acts, hands, grips, tcps, mocaps = [], [], [], [], []
  for actions in seqs.values():
    env, _ = make_env(mt, task, 0)
    obs, _ = env.reset()
    h, g, c, m = [obs[:3].copy()], [obs[3]], [env.tcp_center.copy()], [env.data.mocap_pos[0].copy()]
    for a in actions:
      obs, *_ = env.step(a.astype(np.float32))
      h.append(obs[:3].copy()), g.append(obs[3]), c.append(env.tcp_center.copy())
      m.append(env.data.mocap_pos[0].copy())
    acts.append(actions), hands.append(np.stack(h)), grips.append(np.array(g)), tcps.append(np.stack(c))
    mocaps.append(np.stack(m))
    rv = np.array(env._last_rand_vec, np.float64)
    env.close()
  arrays[f"{p}/actions"] = np.stack(acts)
  arrays[f"{p}/hand"] = np.stack(hands)
  arrays[f"{p}/grip"] = np.stack(grips)
  arrays[f"{p}/tcp"] = np.stack(tcps)
  arrays[f"{p}/mocap"] = np.stack(mocaps)
  arrays[f"{p}/rand_vec"] = rv
  return list(seqs)


def main(argv=None):
  p = argparse.ArgumentParser(description="Write a Meta-World parity fixture (see the module docstring).")
  p.add_argument(
    "--tasks",
    default=None,
    help="comma-separated v3 task names (default: MT10's ten, into metaworld_reference.*); tasks outside "
    "MT10 come from MT50(seed=SEED) and need --out",
  )
  p.add_argument(
    "--out", default=None, help="fixture base name in tests/fixtures (e.g. metaworld_reference_walls)"
  )
  args = p.parse_args(argv)
  mt10 = metaworld.MT10(seed=SEED)
  if args.tasks is None:
    mt, tasks, name = mt10, list(mt10.train_classes), "MT10"
    assert set(tasks) <= set(POLICIES), tasks
  else:
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    unknown = [t for t in tasks if t not in POLICIES or t not in READS]
    if unknown:
      raise SystemExit(f"no POLICIES / READS entry for {unknown}: add them first")
    if set(tasks) <= set(mt10.train_classes):
      mt, name = mt10, "MT10"
    else:
      mt, name = metaworld.MT50(seed=SEED), "MT50"
    if args.out is None and (name != "MT10" or set(tasks) != set(mt10.train_classes)):
      raise SystemExit("--out is required with --tasks (the MT10 fixture keeps its name)")
  npz_path, json_path = NPZ_PATH, JSON_PATH
  if args.out:
    npz_path = os.path.join(OUT_DIR, args.out + ".npz")
    json_path = os.path.join(OUT_DIR, args.out + ".json")
  order = list(mt.train_classes)
  arrays, meta = {}, {"tasks": {}}
  for task in tasks:
    k = order.index(task)  # the reset seed's offset: the task's index in the benchmark's order
    print(task, flush=True)
    m = {"reads": READS[task], "constraint": CONSTRAINTS.get(task)}
    reward_records(mt, task, arrays, m)
    m["constants"] = reset_distribution(mt, task, k, arrays)
    if task in MOTION_TASKS:
      m["motion_sequences"] = hand_motion(mt, task, arrays)
    meta["tasks"][task] = m
    print("  first success", m["first_success_step"], "success records", m["n_success_records"], flush=True)
  meta.update(
    {
      "versions": {p: importlib_metadata.version(p) for p in ("metaworld", "mujoco", "gymnasium", "numpy")},
      "benchmark": f"metaworld.{name}(seed={SEED}); reward_function_version v2 (default)",
      "mt10_order" if name == "MT10" else "task_order": tasks,
      "n_records": N_RECORDS,
      "n_resets": N_RESETS,
      "reset_seed": RESET_SEED,
      "motion_tasks": list(MOTION_TASKS),
      "motion_steps": MOTION_STEPS,
      "info_keys": list(INFO_KEYS),
      "notes": [
        "init_left_pad / init_right_pad are views of data.xpos in metaworld 3.1.1 "
        "(get_body_com returns a view): the live pad positions, equal to left_pad / right_pad",
        "reads are recorded after step()'s mj_forward, i.e. as evaluate_state saw them",
        "reset/* come from unfrozen resets (the benchmark's _make_tasks draw), numpy seeded "
        f"with reset_seed + the task's {name} index",
      ],
      "naming_rule": "self._target_pos -> target_pos; self.X -> X; tcp_center; get_body_com(leftpad/rightpad)"
      " -> left_pad/right_pad; get_body_com(B) -> body_com:B; _get_site_pos(S) -> site:S; "
      "data.joint(J).qpos -> qpos:J; data.geom(G).xpos -> geom_xpos:G; "
      "data.body(B).xpos -> body_xpos:B",
      "keys": {k: list(v.shape) for k, v in sorted(arrays.items())},
    }
  )
  os.makedirs(OUT_DIR, exist_ok=True)
  np.savez_compressed(npz_path, **arrays)
  with open(json_path, "w") as f:
    json.dump(meta, f, indent=1, sort_keys=False)
  print(
    "wrote", npz_path, os.path.getsize(npz_path), "bytes;", json_path, os.path.getsize(json_path), "bytes"
  )


if __name__ == "__main__":
  main()
