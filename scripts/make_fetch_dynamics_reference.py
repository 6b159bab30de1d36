"""Generate the gymnasium-robotics Fetch *dynamics* parity fixture.

Companion of ``scripts/make_fetch_reference.py`` (which it leaves untouched).
Like that script it is NOT run by the test suite: it is run by hand, once, in a
separate reference virtualenv, and its output is committed as a test fixture:

    tests/fixtures/fetch_dynamics_reference.npz   (arrays; keys below)
    tests/fixtures/fetch_dynamics_reference.json  (physical parameters of the
        reference model, summary numbers, package versions, key shapes/dtypes)

Purpose: open-loop dynamics parity.  Action sequences are produced by small
closed-loop scripts that run IN THE REFERENCE (reading its observations); the
actions actually applied are recorded together with the reference's response.
A parity test resets our env to the same start state (seed k: the recorded
object position and goal), replays ``actions`` open-loop and compares its
trajectory with the recorded one.  Every recorded action is float32 in [-1, 1]
and is exactly the array that was passed to ``env.step``.

How to regenerate (from the repo root; the reference venv lives OUTSIDE the
repo and must not be the project's own venv, which uses a newer mujoco):

    python3 -m venv /work/refvenv
    /work/refvenv/bin/pip install "mujoco==3.3.7" "gymnasium-robotics==1.4.2" \
        "gymnasium==1.4.0" "numpy==2.4.6"
    nice /work/refvenv/bin/python scripts/make_fetch_dynamics_reference.py

Runs in well under a minute on one core.  Output is deterministic: every random
draw comes from a numpy generator with a fixed seed, the env resets use fixed
seeds and the controllers are deterministic functions of the observations.

Units: positions in metres (world frame), time in env steps (one env step =
n_substeps * timestep = 20 * 0.002 s = 0.04 s), quaternions (w, x, y, z).
One action a in [-1,1]^4: a[:3] * 0.05 m is added to the *current* gripper_link
position to give the mocap target (the mocap is reset to the gripper body every
step), a[3] is the finger command (PickAndPlace only: position actuators with
ctrl = finger qpos + a[3], clipped to ctrlrange [0, 0.2]; Reach/Push/Slide have
block_gripper=True: the fingers are forced to qpos 0 after every step).

Array keys.  ``E`` is one of FetchReach, FetchPush, FetchSlide,
FetchPickAndPlace (gym ids ``E-v4``); K = 16 start states, T = 50 steps
(``T_S`` below), D = obs dim (10 Reach, 25 others).  "object" keys exist only
for Push, Slide, PickAndPlace.

1. Start states: row k of every ``E/<seq>/...`` array starts from
   ``env.reset(seed=k)``, k = 0..15 (to reproduce it: the fixed robot state
   every reset starts from, the object at ``object_qpos`` and the goal
   ``dg``; ``qpos``/``qvel`` give the whole reference state).
   ``E/start/seeds`` [K] int64          the reset seeds (0..15)
   ``E/start/obs`` [K,D] float64        obs['observation'] after reset
   ``E/start/ag``, ``E/start/dg`` [K,3] float64  achieved / desired goal
   ``E/start/object_qpos`` [K,7] float64 qpos of 'object0:joint' (xyz, quat
                                        wxyz) after reset; object only
   ``E/start/qpos`` [K,nq], ``E/start/qvel`` [K,nv] float64  full MuJoCo state
                                        after reset (reference joint order,
                                        see JSON physics.joint_names)

2. Open-loop sequences ``E/<seq>/`` with seq in
   FetchReach: zero, free | FetchPush: zero, free, push, edge |
   FetchSlide: zero, free, strike | FetchPickAndPlace: zero, free, grasp,
   pnp_push.  Common keys, index 0 of the
   T+1 axis is the reset state, index t+1 the state after action t:
   ``actions`` [K,T,4] float32          the applied actions, in [-1, 1]
   ``grip_pos`` [K,T+1,3] float32       site 'robot0:grip' xpos (= obs[0:3])
   ``gripper_state`` [K,T+1,2] float32  finger joint qpos [right, left] (m)
   ``object_pos`` [K,T+1,3] float32     site 'object0' xpos (= obs[3:6]); object
   ``object_quat`` [K,T+1,4] float32    object0:joint qpos[3:7] (w,x,y,z); object
   ``obs`` [K,T+1,D] float32            the full obs['observation']
   ``reward`` [K,T] float32             sparse reward returned by step
   ``is_success`` [K,T] float32         info['is_success'] returned by step
   ``phase`` [K,T] int8                 controller phase that chose action t
                                        (names in JSON sequences.<seq>.phases)
   ``seeds`` [K] int64                  reset seed of each row (= 0..15)
   Sequence-specific:
   zero      a = 0 for T steps: the baseline drift of the reference (the
             soft mocap weld lets the gripper sag a little every step; in
             Push/Slide the fingers start 2.5-3 mm inside the table and the
             table pushes the gripper up; the Slide
             puck starts ~6 mm inside the table and creeps ~0.1 mm/step).
   free      smooth pseudo-random gripper motion: per row and axis a sum of 3
             sinusoids, a_i(t) = sum_j w_ij sin(2 pi f_ij t + p_ij), f in
             [0.01, 0.12] cycles/step, sum_j |w_ij| <= 1 (a[3] too).  For the
             object tasks a draw whose object trajectory departs by > 1 mm
             from the `zero` one is rejected and redrawn (deterministic), so
             `free` is contact-free with the object (the fingers may still
             touch the table).
             ``E/free/draw`` [K] int64 index of the accepted draw;
             ``E/free/object_moved`` [K] bool (object tasks; all False when
             a clean draw was found).
   push      (FetchPush) fingers closed (a[3] = -1, blocked anyway): lift to
             object z + 0.07, move above the point 0.06 m behind the object
             opposite the push direction (unit xy vector object -> goal),
             descend to object-centre height, push along the direction with
             |a_xy| = 0.4 for 15 steps, then a = 0 (hold).
             ``E/push/direction`` [K,2] float32  unit push direction (xy).
   edge      (FetchPush) as push, but the direction is the nearest table
             edge among +x (far side), -y, +y (the -x side faces the robot);
             pushes with |a_xy| = 0.5 until the object centre is 0.04 m past
             the edge (or 30 push steps), then lifts the gripper (a_z = 0.5,
             4 steps) and holds (a = 0);
             the object falls to the floor (object z vs time).
             ``E/edge/direction`` [K,2] float32; ``E/edge/edge_coord`` [K]
             float32 coordinate of the chosen edge along its axis (x or y).
   grasp     (FetchPickAndPlace) open fingers (a[3] = +1), move above the
             object (z + 0.08), descend until the grip site is at object
             centre height, close (a[:3] = 0, a[3] = -1) for 6 steps, lift with
             a = (0, 0, 0.5, -1) until grip z >= start object z + 0.15, then
             hold with a = (0, 0, 0, -1).
   pnp_push  (FetchPickAndPlace) the push sequence with closed fingers
             (a[3] = -1): here the fingers are actuated, not blocked.
             ``E/pnp_push/direction`` [K,2] float32.
   strike    (FetchSlide) go to the point 0.07 m behind the puck opposite
             the goal direction with the grip site 0.012 m above the puck
             centre (fingertips clear of the table, not of the puck); when
             the straight xy path passes within 0.07 m of the puck, first via
             a side waypoint (phase "around").  Strike: a_xy = direction /
             max|direction| (one component = 1, full speed) for 2 steps,
             retreat a_xy = -0.5 x that for 2 steps, then a = 0 while the
             puck slides, to T = 50.
             ``E/strike/direction`` [K,2] float32; ``E/strike/around`` [K]
             bool (approach went round the puck).

3. Constant-action probes, from ``env.reset(seed=0)`` for every task, P = 26
   directions of {-1,0,1}^3 minus zero (a[3] = 0), T_P = 30 steps each:
   ``E/probe/directions`` [26,3] int8   the constant a[:3]
   ``E/probe/actions`` [26,T_P,4] float32
   ``E/probe/grip_pos`` [26,T_P+1,3] float32, ``E/probe/gripper_state``
   [26,T_P+1,2], ``E/probe/obs`` [26,T_P+1,D], ``E/probe/object_pos``
   [26,T_P+1,3] and ``E/probe/object_quat`` [26,T_P+1,4] (object tasks; the
   gripper may hit the object or the table, e.g. -z in Push/Slide starts on it).
   ``E/probe/reach`` [26] float32       max over t of the displacement from the
                                        start along the unit direction (m)
   ``E/probe/step_speed`` [26,T_P] float32  |grip_pos[t+1] - grip_pos[t]| (m/step)

JSON sidecar: ``versions``; ``constants`` (K, T, T_P, seeds); per task
``physics`` (read from the compiled env.unwrapped.model after reset(seed=0):
option, object, table, fingers, finger actuators, weld, arm joints, arm link
masses, body tree from the world to the gripper, shoulder / gripper world
positions, contype/conaffinity of every geom, which geom pairs are excluded),
``sequences`` (phase names, parameters), ``summary`` (the numbers the script
prints) and ``keys`` (shape and dtype of every array).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import warnings
from importlib import metadata as importlib_metadata

import numpy as np

warnings.filterwarnings("ignore")

import gymnasium as gym
import gymnasium_robotics
import mujoco

gym.register_envs(gymnasium_robotics)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(REPO_ROOT, "tests", "fixtures")
NPZ_PATH = os.path.join(OUT_DIR, "fetch_dynamics_reference.npz")
JSON_PATH = os.path.join(OUT_DIR, "fetch_dynamics_reference.json")

VERSION = "v4"
SEED = 20240602
K = 16
T_S = 50
T_P = 30
TASKS = {
  "FetchReach": ["zero", "free"],
  "FetchPush": ["zero", "free", "push", "edge"],
  "FetchSlide": ["zero", "free", "strike"],
  "FetchPickAndPlace": ["zero", "free", "grasp", "pnp_push"],
}
PROBE_DIRS = np.array([d for d in itertools.product((-1, 0, 1), repeat=3) if any(d)], dtype=np.int8)
# Push table (Push/PickAndPlace/Reach): centre (1.3, 0.75), half sizes 0.25 x 0.35
# (read back from the model in _table_edges; these names are only for the docstring).

PHASES = {
  "zero": ["zero"],
  "free": ["free"],
  "push": ["lift", "over", "down", "push", "hold"],
  "edge": ["lift", "over", "down", "push", "retreat", "hold"],
  "pnp_push": ["lift", "over", "down", "push", "hold"],
  "grasp": ["above", "descend", "close", "lift", "hold"],
  "strike": ["around", "behind", "strike", "retreat", "hold"],
}
FREE_MAX_DRAWS = 64
STRIKE_CLEARANCE = 0.07
STRIKE_BEHIND = 0.07
STRIKE_STEPS = 2
STRIKE_DZ = 0.012


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------


def _f(x):
  return [float(v) for v in np.ravel(x)]


def _name(m, objtype, i):
  n = mujoco.mj_id2name(m, objtype, i)
  return n if n is not None else ""


def _goto(grip, target, vmax=1.0):
  """Proportional position step towards target, as an action in [-vmax, vmax]^3."""
  a = (np.asarray(target, float) - np.asarray(grip, float)) / 0.05
  m = np.max(np.abs(a))
  if m > vmax:
    a = a * (vmax / m)
  return a


def _act(xyz, g):
  a = np.concatenate([np.asarray(xyz, float), [float(g)]])
  return np.clip(a, -1.0, 1.0).astype(np.float32)


def _unit2(v):
  v = np.asarray(v, float)[:2]
  n = np.linalg.norm(v)
  return v / n if n > 1e-9 else np.array([1.0, 0.0])


class Recorder:
  """Steps the reference env and records what a parity test needs."""

  def __init__(self, env):
    self.env = env
    self.u = env.unwrapped
    m = self.u.model
    self.has_object = bool(self.u.has_object)
    self.fq = [
      int(m.jnt_qposadr[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, n)])
      for n in ("robot0:r_gripper_finger_joint", "robot0:l_gripper_finger_joint")
    ]
    if self.has_object:
      self.oq = int(m.jnt_qposadr[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, "object0:joint")])

  def reset(self, seed):
    o, _ = self.env.reset(seed=int(seed))
    self.obs = [o["observation"].copy()]
    self.gs = [self.u.data.qpos[self.fq].copy()]
    self.oquat = [self.u.data.qpos[self.oq + 3 : self.oq + 7].copy()] if self.has_object else []
    self.actions, self.rewards, self.succ, self.phases = [], [], [], []
    return o

  def step(self, a, phase=0):
    a = np.asarray(a, np.float32)
    assert a.shape == (4,) and np.all(np.abs(a) <= 1.0)
    # unwrapped step: same physics as the TimeLimit-wrapped env, no truncation bookkeeping
    o, r, _, _, info = self.u.step(a.copy())
    self.actions.append(a.copy())
    self.rewards.append(float(r))
    self.succ.append(float(info["is_success"]))
    self.phases.append(int(phase))
    self.obs.append(o["observation"].copy())
    self.gs.append(self.u.data.qpos[self.fq].copy())
    if self.has_object:
      self.oquat.append(self.u.data.qpos[self.oq + 3 : self.oq + 7].copy())
    return o

  def record(self):
    obs = np.array(self.obs)
    rec = {
      "actions": np.array(self.actions, np.float32),
      "grip_pos": obs[:, 0:3].astype(np.float32),
      "gripper_state": np.array(self.gs, np.float32),
      "obs": obs.astype(np.float32),
      "reward": np.array(self.rewards, np.float32),
      "is_success": np.array(self.succ, np.float32),
      "phase": np.array(self.phases, np.int8),
    }
    if self.has_object:
      rec["object_pos"] = obs[:, 3:6].astype(np.float32)
      rec["object_quat"] = np.array(self.oquat, np.float32)
    return rec


def _stack(recs):
  return {k: np.stack([r[k] for r in recs]) for k in recs[0]}


def _table(u):
  m = u.model
  gid = [i for i in range(m.ngeom) if _name(m, mujoco.mjtObj.mjOBJ_BODY, m.geom_bodyid[i]) == "table0"][0]
  centre = np.array(u.data.geom_xpos[gid])
  half = np.array(m.geom_size[gid])
  return centre, half


# --------------------------------------------------------------------------
# closed-loop scripts (run in the reference; their actions are recorded)
# --------------------------------------------------------------------------


def run_zero(rec, seed, T=T_S):
  rec.reset(seed)
  for _ in range(T):
    rec.step(np.zeros(4, np.float32), 0)
  return rec.record()


def run_free(rec, seed, rng_seed, zero_obj=None):
  """Smooth pseudo-random motion; redraw while the object gets moved.

  "Moved" is measured against zero_obj, the object trajectory of the same
  start state under a = 0 (the Slide puck creeps ~0.1 mm/step on its own).
  """
  for draw in range(FREE_MAX_DRAWS):
    rng = np.random.default_rng([rng_seed, seed, draw])
    w = rng.uniform(0.2, 1.0, size=(4, 3))
    w *= rng.uniform(0.5, 1.0, size=(4, 1)) / w.sum(axis=1, keepdims=True)
    w *= rng.choice([-1.0, 1.0], size=(4, 3))
    f = rng.uniform(0.01, 0.12, size=(4, 3))
    p = rng.uniform(0.0, 2 * np.pi, size=(4, 3))
    t = np.arange(T_S)[:, None, None]
    acts = np.sum(w * np.sin(2 * np.pi * f * t + p), axis=-1)  # [T,4]
    acts = np.clip(acts, -1.0, 1.0).astype(np.float32)
    rec.reset(seed)
    for a in acts:
      rec.step(a, 0)
    r = rec.record()
    moved = False
    if rec.has_object:
      moved = bool(np.max(np.linalg.norm(r["object_pos"] - zero_obj, axis=-1)) > 1e-3)
    if not moved:
      break
  return r, draw, moved


def run_push(rec, seed, direction=None, v_push=0.4, n_push=15, behind=0.06, g=-1.0, edge=None, T=T_S):
  """Lift, go behind the object, descend, push along `direction`, hold.

  edge: None, or (axis, coord, sign) -> push until the object centre is 0.04 m
  past the edge (at most 30 push steps), then retreat upwards.
  """
  o = rec.reset(seed)
  obs = o["observation"]
  obj0 = obs[3:6].copy()
  if direction is None:
    direction = _unit2(o["desired_goal"][:2] - obj0[:2])
  d3 = np.array([direction[0], direction[1], 0.0])
  z_safe = obj0[2] + 0.07
  start_xy = obj0[:2] - behind * direction
  phase, k_phase = 0, 0
  for _ in range(T):
    grip, obj = obs[0:3], obs[3:6]
    if phase == 0:  # lift
      tgt = np.array([grip[0], grip[1], z_safe]) if k_phase == 0 else tgt  # noqa: F821  (set at k_phase 0)
      a = _goto(grip, tgt)
      done = abs(grip[2] - z_safe) < 0.01 or k_phase >= 8
    elif phase == 1:  # over
      tgt = np.array([start_xy[0], start_xy[1], z_safe])
      a = _goto(grip, tgt)
      done = np.linalg.norm(grip[:2] - start_xy) < 0.008 or k_phase >= 20
    elif phase == 2:  # down
      tgt = np.array([start_xy[0], start_xy[1], obj0[2]])
      a = _goto(grip, tgt, vmax=0.6)
      done = abs(grip[2] - obj0[2]) < 0.006 or k_phase >= 10
    elif phase == 3:  # push
      a = v_push * d3 + np.array([0, 0, _goto(grip, [0, 0, obj0[2]])[2] * 0.5])
      a[2] = np.clip(a[2], -0.2, 0.2)
      if edge is None:
        done = k_phase + 1 >= n_push
      else:
        axis, coord, sign = edge
        done = sign * (obj[axis] - coord) > 0.04 or k_phase + 1 >= 30
    elif phase == 4 and edge is not None:  # retreat (edge only): lift
      a = np.array([0.0, 0.0, 0.5])
      done = k_phase + 1 >= 4
    else:  # hold
      a = np.zeros(3)
      done = False
    obs = rec.step(_act(a, g), phase)["observation"]
    k_phase += 1
    if done:
      phase, k_phase = phase + 1, 0
  return rec.record(), direction


def run_grasp(rec, seed, T=T_S):
  o = rec.reset(seed)
  obs = o["observation"]
  obj0 = obs[3:6].copy()
  phase, k_phase = 0, 0
  for _ in range(T):
    grip, obj = obs[0:3], obs[3:6]
    if phase == 0:  # above, fingers opening
      tgt = np.array([obj[0], obj[1], obj0[2] + 0.08])
      a, g = _goto(grip, tgt), 1.0
      done = np.linalg.norm(grip - tgt) < 0.008 or k_phase >= 20
    elif phase == 1:  # descend, fingers open
      tgt = np.array([obj[0], obj[1], obj0[2]])
      a, g = _goto(grip, tgt, vmax=0.5), 1.0
      done = np.linalg.norm(grip - tgt) < 0.005 or k_phase >= 12
    elif phase == 2:  # close while still
      a, g = np.zeros(3), -1.0
      done = k_phase + 1 >= 6
    elif phase == 3:  # lift
      a, g = np.array([0.0, 0.0, 0.5]), -1.0
      done = grip[2] >= obj0[2] + 0.15 or k_phase + 1 >= 15
    else:  # hold
      a, g = np.zeros(3), -1.0
      done = False
    obs = rec.step(_act(a, g), phase)["observation"]
    k_phase += 1
    if done:
      phase, k_phase = phase + 1, 0
  return rec.record()


def run_strike(rec, seed, behind=STRIKE_BEHIND, n_strike=STRIKE_STEPS, n_retreat=2, T=T_S):
  """Go behind the puck (around it if needed), strike at full speed, retreat, wait.

  The gripper travels with the grip site STRIKE_DZ above the puck centre: the
  fingertips clear the table but not the puck, so the approach goes round the
  puck through a side waypoint when the straight xy path passes within
  STRIKE_CLEARANCE of it.
  """
  o = rec.reset(seed)
  obs = o["observation"]
  obj0 = obs[3:6].copy()
  direction = _unit2(o["desired_goal"][:2] - obj0[:2])
  full = direction / np.max(np.abs(direction))
  z = obj0[2] + STRIKE_DZ
  start_xy = obj0[:2] - behind * direction
  g0 = obs[0:2].copy()
  seg = start_xy - g0
  lam = np.clip(np.dot(obj0[:2] - g0, seg) / max(np.dot(seg, seg), 1e-12), 0.0, 1.0)
  around = bool(np.linalg.norm(g0 + lam * seg - obj0[:2]) < STRIKE_CLEARANCE)
  perp = np.array([-direction[1], direction[0]])
  if np.dot(g0 - obj0[:2], perp) < 0:
    perp = -perp
  way_xy = obj0[:2] + STRIKE_CLEARANCE * 1.3 * perp - 0.5 * behind * direction
  phase, k_phase = (0 if around else 1), 0
  for _ in range(T):
    grip = obs[0:3]
    if phase == 0:  # around: side waypoint
      a = _goto(grip, [way_xy[0], way_xy[1], z])
      done = np.linalg.norm(grip[:2] - way_xy) < 0.02 or k_phase + 1 >= 12
    elif phase == 1:  # behind
      a = _goto(grip, [start_xy[0], start_xy[1], z])
      done = np.linalg.norm(grip - np.array([start_xy[0], start_xy[1], z])) < 0.008 or k_phase + 1 >= 15
    elif phase == 2:  # strike
      a = np.array([full[0], full[1], 0.0])
      done = k_phase + 1 >= n_strike
    elif phase == 3:  # retreat
      a = np.array([-0.5 * full[0], -0.5 * full[1], 0.0])
      done = k_phase + 1 >= n_retreat
    else:
      a = np.zeros(3)
      done = False
    obs = rec.step(_act(a, 0.0), phase)["observation"]
    k_phase += 1
    if done:
      phase, k_phase = phase + 1, 0
  return rec.record(), direction, around


def edge_plan(u, obj_xy):
  """Nearest table edge among +x, -y, +y: (direction, (axis, coord, sign))."""
  c, h = _table(u)
  cands = [
    (c[0] + h[0] - obj_xy[0], np.array([1.0, 0.0]), (0, c[0] + h[0], 1.0)),
    (obj_xy[1] - (c[1] - h[1]), np.array([0.0, -1.0]), (1, c[1] - h[1], -1.0)),
    (c[1] + h[1] - obj_xy[1], np.array([0.0, 1.0]), (1, c[1] + h[1], 1.0)),
  ]
  _, d, e = min(cands, key=lambda x: x[0])
  return d, e


def run_probes(rec):
  recs, reach, speed = [], [], []
  for d in PROBE_DIRS:
    a = np.array([d[0], d[1], d[2], 0], np.float32)
    rec.reset(0)
    for _ in range(T_P):
      rec.step(a, 0)
    r = rec.record()
    gp = r["obs"][:, 0:3].astype(np.float64)
    ud = d / np.linalg.norm(d)
    reach.append(np.max((gp - gp[0]) @ ud))
    speed.append(np.linalg.norm(np.diff(gp, axis=0), axis=-1))
    recs.append(r)
  out = _stack(recs)
  out.pop("reward"), out.pop("is_success"), out.pop("phase")
  out["directions"] = PROBE_DIRS.copy()
  out["reach"] = np.array(reach, np.float32)
  out["step_speed"] = np.array(speed, np.float32)
  return out


# --------------------------------------------------------------------------
# physical parameters of the reference model
# --------------------------------------------------------------------------


def physics(u):
  m, d = u.model, u.data
  O = mujoco.mjtObj
  J, B, G, A = O.mjOBJ_JOINT, O.mjOBJ_BODY, O.mjOBJ_GEOM, O.mjOBJ_ACTUATOR
  bid = lambda n: mujoco.mj_name2id(m, B, n)
  jid = lambda n: mujoco.mj_name2id(m, J, n)

  def geom_info(i):
    return {
      "name": _name(m, G, i),
      "body": _name(m, B, m.geom_bodyid[i]),
      "type": mujoco.mjtGeom(m.geom_type[i]).name,
      "size": _f(m.geom_size[i]),
      "pos_world": _f(d.geom_xpos[i]),
      "friction": _f(m.geom_friction[i]),
      "condim": int(m.geom_condim[i]),
      "solref": _f(m.geom_solref[i]),
      "solimp": _f(m.geom_solimp[i]),
      "margin": float(m.geom_margin[i]),
      "gap": float(m.geom_gap[i]),
      "contype": int(m.geom_contype[i]),
      "conaffinity": int(m.geom_conaffinity[i]),
      "priority": int(m.geom_priority[i]),
    }

  def joint_info(n):
    i = jid(n)
    dof = m.jnt_dofadr[i]
    return {
      "name": n,
      "type": mujoco.mjtJoint(m.jnt_type[i]).name,
      "limited": bool(m.jnt_limited[i]),
      "range": _f(m.jnt_range[i]),
      "damping": float(m.dof_damping[dof]),
      "armature": float(m.dof_armature[dof]),
      "frictionloss": float(m.dof_frictionloss[dof]),
      "stiffness": float(m.jnt_stiffness[i]),
      "springref": float(m.qpos_spring[m.jnt_qposadr[i]]),
      "solref_limit": _f(m.jnt_solref[i]),
      "solimp_limit": _f(m.jnt_solimp[i]),
      "axis": _f(m.jnt_axis[i]),
      "body": _name(m, B, m.jnt_bodyid[i]),
      "qpos_after_reset": float(d.qpos[m.jnt_qposadr[i]]),
    }

  def body_info(i):
    return {
      "name": _name(m, B, i),
      "parent": _name(m, B, m.body_parentid[i]),
      "pos_local": _f(m.body_pos[i]),
      "quat_local": _f(m.body_quat[i]),
      "mass": float(m.body_mass[i]),
      "inertia": _f(m.body_inertia[i]),
      "ipos": _f(m.body_ipos[i]),
      "joints": [_name(m, J, j) for j in range(m.njnt) if m.jnt_bodyid[j] == i],
      "xpos_after_reset": _f(d.xpos[i]),
    }

  opt = m.opt
  out = {
    "option": {
      "timestep": float(opt.timestep),
      "n_substeps": int(u.n_substeps),
      "env_dt": float(u.dt),
      "gravity": _f(opt.gravity),
      "integrator": mujoco.mjtIntegrator(opt.integrator).name,
      "cone": mujoco.mjtCone(opt.cone).name,
      "solver": mujoco.mjtSolver(opt.solver).name,
      "iterations": int(opt.iterations),
      "ls_iterations": int(opt.ls_iterations),
      "noslip_iterations": int(opt.noslip_iterations),
      "tolerance": float(opt.tolerance),
      "impratio": float(opt.impratio),
      "timestep_x_substeps": float(opt.timestep * u.n_substeps),
      "warmstart_enabled": not bool(opt.disableflags & mujoco.mjtDisableBit.mjDSBL_WARMSTART),
      "disableflags": int(opt.disableflags),
      "enableflags": int(opt.enableflags),
    },
    "block_gripper": bool(u.block_gripper),
    "joint_names": [_name(m, J, i) for i in range(m.njnt)],
    "nq": int(m.nq),
    "nv": int(m.nv),
  }
  if u.has_object:
    ob = bid("object0")
    og = [i for i in range(m.ngeom) if m.geom_bodyid[i] == ob][0]
    out["object"] = {
      "body_mass": float(m.body_mass[ob]),
      "body_inertia": _f(m.body_inertia[ob]),
      "geom": geom_info(og),
      "joint": joint_info("object0:joint"),
    }
  tb = bid("table0")
  out["table"] = [geom_info(i) for i in range(m.ngeom) if m.geom_bodyid[i] == tb]
  out["floor"] = [geom_info(i) for i in range(m.ngeom) if _name(m, G, i) == "floor0"]
  fingers = ["robot0:r_gripper_finger_joint", "robot0:l_gripper_finger_joint"]
  out["finger_joints"] = [joint_info(n) for n in fingers]
  out["finger_geoms"] = []
  for n in ["robot0:r_gripper_finger_link", "robot0:l_gripper_finger_link"]:
    b = bid(n)
    for i in range(m.ngeom):
      if m.geom_bodyid[i] == b:
        gi = geom_info(i)
        gi["body_mass"] = float(m.body_mass[b])
        gi["body_inertia"] = _f(m.body_inertia[b])
        gi["pos_local"] = _f(m.geom_pos[i])
        out["finger_geoms"].append(gi)
  out["finger_actuators"] = [
    {
      "name": _name(m, A, i),
      "joint": _name(m, J, m.actuator_trnid[i, 0]),
      "kp": float(m.actuator_gainprm[i, 0]),
      "gainprm": _f(m.actuator_gainprm[i, :3]),
      "biasprm": _f(m.actuator_biasprm[i, :3]),
      "biastype": mujoco.mjtBias(m.actuator_biastype[i]).name,
      "gaintype": mujoco.mjtGain(m.actuator_gaintype[i]).name,
      "ctrllimited": bool(m.actuator_ctrllimited[i]),
      "ctrlrange": _f(m.actuator_ctrlrange[i]),
      "forcelimited": bool(m.actuator_forcelimited[i]),
      "forcerange": _f(m.actuator_forcerange[i]),
      "gear": float(m.actuator_gear[i, 0]),
    }
    for i in range(m.nu)
  ]
  out["finger_actuators_note"] = (
    "none in this model: the env sets block_gripper=True and forces finger qpos to 0 after every step"
    if m.nu == 0
    else "ctrl_i = qpos(finger joint of actuator i) + a[3] (both fingers), clipped by MuJoCo to ctrlrange"
  )
  out["weld"] = [
    {
      "body1": _name(m, B, m.eq_obj1id[i]),
      "body2": _name(m, B, m.eq_obj2id[i]),
      "solref": _f(m.eq_solref[i]),
      "solimp": _f(m.eq_solimp[i]),
      "data": _f(m.eq_data[i]),
    }
    for i in range(m.neq)
    if m.eq_type[i] == mujoco.mjtEq.mjEQ_WELD
  ]
  mb = bid("robot0:mocap")
  out["mocap"] = {
    "body": "robot0:mocap",
    "body_mass": float(m.body_mass[mb]),
    "geoms_contype": [int(m.geom_contype[i]) for i in range(m.ngeom) if m.geom_bodyid[i] == mb],
    "mocap_quat_command": [1.0, 0.0, 1.0, 0.0],
    "action_scale_m": 0.05,
  }
  arm = [
    "robot0:torso_lift_joint",
    "robot0:shoulder_pan_joint",
    "robot0:shoulder_lift_joint",
    "robot0:upperarm_roll_joint",
    "robot0:elbow_flex_joint",
    "robot0:forearm_roll_joint",
    "robot0:wrist_flex_joint",
    "robot0:wrist_roll_joint",
  ]
  out["arm_joints"] = [joint_info(n) for n in arm]
  out["other_robot_joints"] = [
    joint_info(n) for n in out["joint_names"] if n.startswith("robot0:") and n not in arm and n not in fingers
  ]
  # body chain world -> gripper_link (+ the fingers)
  chain, b = [], bid("robot0:gripper_link")
  while b != 0:
    chain.append(b)
    b = m.body_parentid[b]
  chain = chain[::-1] + [bid(n) for n in ["robot0:r_gripper_finger_link", "robot0:l_gripper_finger_link"]]
  out["body_tree_to_gripper"] = [body_info(i) for i in chain]
  arm_links = [
    "robot0:shoulder_pan_link",
    "robot0:shoulder_lift_link",
    "robot0:upperarm_roll_link",
    "robot0:elbow_flex_link",
    "robot0:forearm_roll_link",
    "robot0:wrist_flex_link",
    "robot0:wrist_roll_link",
    "robot0:gripper_link",
    "robot0:r_gripper_finger_link",
    "robot0:l_gripper_finger_link",
  ]
  out["arm_link_masses"] = {n: float(m.body_mass[bid(n)]) for n in arm_links}
  out["shoulder_pan_link_xpos"] = _f(d.xpos[bid("robot0:shoulder_pan_link")])
  out["shoulder_lift_link_xpos"] = _f(d.xpos[bid("robot0:shoulder_lift_link")])
  out["gripper_link_xpos"] = _f(d.xpos[bid("robot0:gripper_link")])
  out["gripper_link_xquat"] = _f(d.xquat[bid("robot0:gripper_link")])
  sid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, "robot0:grip")
  out["grip_site_xpos"] = _f(d.site_xpos[sid])
  out["grip_site_pos_local"] = _f(m.site_pos[sid])
  out["initial_gripper_xpos"] = _f(u.initial_gripper_xpos)
  out["grip_to_shoulder_pan_dist"] = float(
    np.linalg.norm(d.site_xpos[sid] - d.xpos[bid("robot0:shoulder_pan_link")])
  )
  # collisions
  robot_bodies = {i for i in range(m.nbody) if _name(m, B, i).startswith("robot0:")}
  table_geoms = [i for i in range(m.ngeom) if m.geom_bodyid[i] == tb]
  arm_geoms = [i for i in range(m.ngeom) if m.geom_bodyid[i] in robot_bodies]
  exclude_pairs = []
  for sig in m.exclude_signature:
    b1, b2 = int(sig) >> 16, int(sig) & 0xFFFF
    exclude_pairs.append([_name(m, B, b1), _name(m, B, b2)])

  def collides(g1, g2):
    filt = (m.geom_contype[g1] & m.geom_conaffinity[g2]) or (m.geom_contype[g2] & m.geom_conaffinity[g1])
    b1, b2 = _name(m, B, m.geom_bodyid[g1]), _name(m, B, m.geom_bodyid[g2])
    return bool(filt) and [b1, b2] not in exclude_pairs and [b2, b1] not in exclude_pairs

  out["collision"] = {
    "robot_geoms": [
      {
        "name": _name(m, G, i) or _name(m, B, m.geom_bodyid[i]),
        "body": _name(m, B, m.geom_bodyid[i]),
        "type": mujoco.mjtGeom(m.geom_type[i]).name,
        "contype": int(m.geom_contype[i]),
        "conaffinity": int(m.geom_conaffinity[i]),
        "collides_with_table": any(collides(i, t) for t in table_geoms),
      }
      for i in arm_geoms
    ],
    "excluded_body_pairs": exclude_pairs,
    "arm_geoms_collide_with_table": any(collides(i, t) for i in arm_geoms for t in table_geoms),
    "note": "collides = (contype_a & conaffinity_b or contype_b & conaffinity_a) and the body pair is "
    "not excluded; "
    "bodies joined by a joint to their parent also never collide with the parent (MuJoCo parent filter)",
  }
  return out


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def generate():
  arrays: dict[str, np.ndarray] = {}
  meta: dict[str, dict] = {}
  for ti, (name, seqs) in enumerate(TASKS.items()):
    gid = f"{name}-{VERSION}"
    env = gym.make(gid)
    u = env.unwrapped
    rec = Recorder(env)
    p = f"{name}/"
    summ: dict = {}
    seq_meta: dict = {}

    # ---- physics (after reset(seed=0)) ----
    env.reset(seed=0)
    phys = physics(u)

    # ---- start states ----
    st = {"obs": [], "ag": [], "dg": [], "qpos": [], "qvel": [], "object_qpos": []}
    for k in range(K):
      o, _ = env.reset(seed=k)
      st["obs"].append(o["observation"])
      st["ag"].append(o["achieved_goal"])
      st["dg"].append(o["desired_goal"])
      st["qpos"].append(u.data.qpos.copy())
      st["qvel"].append(u.data.qvel.copy())
      if u.has_object:
        st["object_qpos"].append(u.data.qpos[rec.oq : rec.oq + 7].copy())
    arrays[p + "start/seeds"] = np.arange(K, dtype=np.int64)
    for key in ["obs", "ag", "dg", "qpos", "qvel"] + (["object_qpos"] if u.has_object else []):
      arrays[p + "start/" + key] = np.array(st[key], np.float64)

    # ---- sequences ----
    for seq in seqs:
      recs, extra = [], {}
      if seq == "zero":
        for k in range(K):
          recs.append(run_zero(rec, k))
        seq_meta[seq] = {"T": T_S}
      elif seq == "free":
        draws, moved = [], []
        for k in range(K):
          zobj = arrays[p + "zero/object_pos"][k] if u.has_object else None
          r, dr, mv = run_free(rec, k, SEED + ti, zobj)
          recs.append(r), draws.append(dr), moved.append(mv)
        extra["draw"] = np.array(draws, np.int64)
        if u.has_object:
          extra["object_moved"] = np.array(moved, bool)
        seq_meta[seq] = {"T": T_S, "max_draws": FREE_MAX_DRAWS, "freq_range": [0.01, 0.12]}
      elif seq in ("push", "pnp_push"):
        dirs = []
        for k in range(K):
          r, dvec = run_push(rec, k)
          recs.append(r), dirs.append(dvec)
        extra["direction"] = np.array(dirs, np.float32)
        seq_meta[seq] = {
          "T": T_S,
          "behind_m": 0.06,
          "push_speed_action": 0.4,
          "push_steps": 15,
          "lift_above_object_m": 0.07,
          "gripper_cmd": -1.0,
        }
      elif seq == "edge":
        dirs, coords = [], []
        for k in range(K):
          o, _ = env.reset(seed=k)
          dvec, e = edge_plan(u, o["observation"][3:5])
          r, _ = run_push(rec, k, direction=dvec, v_push=0.5, edge=e)
          recs.append(r), dirs.append(dvec), coords.append(e[1])
        extra["direction"] = np.array(dirs, np.float32)
        extra["edge_coord"] = np.array(coords, np.float32)
        c, h = _table(u)
        seq_meta[seq] = {
          "T": T_S,
          "behind_m": 0.06,
          "push_speed_action": 0.5,
          "max_push_steps": 30,
          "past_edge_m": 0.04,
          "table_centre": _f(c),
          "table_half_size": _f(h),
          "edges": "+x (far), -y, +y; the -x edge faces the robot and is not used",
        }
      elif seq == "grasp":
        for k in range(K):
          recs.append(run_grasp(rec, k))
        seq_meta[seq] = {
          "T": T_S,
          "above_m": 0.08,
          "close_steps": 6,
          "lift_action_z": 0.5,
          "lift_to_m_above_start": 0.15,
        }
      elif seq == "strike":
        dirs, lifts = [], []
        for k in range(K):
          r, dvec, lf = run_strike(rec, k)
          recs.append(r), dirs.append(dvec), lifts.append(lf)
        extra["direction"] = np.array(dirs, np.float32)
        extra["around"] = np.array(lifts, bool)
        seq_meta[seq] = {
          "T": T_S,
          "behind_m": STRIKE_BEHIND,
          "strike_steps": STRIKE_STEPS,
          "retreat_steps": 2,
          "retreat_action": -0.5,
          "grip_above_puck_centre_m": STRIKE_DZ,
          "go_around_if_path_within_m": STRIKE_CLEARANCE,
        }
      seq_meta[seq]["phases"] = PHASES[seq]
      out = _stack(recs)
      out.update(extra)
      out["seeds"] = np.arange(K, dtype=np.int64)
      assert out["actions"].shape == (K, T_S, 4)
      assert np.all(np.abs(out["actions"]) <= 1.0)
      # every row starts from the recorded start state
      assert np.array_equal(out["obs"][:, 0], arrays[p + "start/obs"].astype(np.float32))
      for key, v in out.items():
        arrays[p + seq + "/" + key] = v

    # ---- probes ----
    pr = run_probes(rec)
    for key, v in pr.items():
      arrays[p + "probe/" + key] = v

    summ = summarize_task(name, arrays, u)
    meta[name] = {"gym_id": gid, "physics": phys, "sequences": seq_meta, "summary": summ}
    env.close()
  return arrays, meta


def summarize_task(name, arrays, u):
  p = f"{name}/"
  s: dict = {}
  sp = arrays[p + "probe/step_speed"]
  reach = arrays[p + "probe/reach"]
  dirs = arrays[p + "probe/directions"]
  s["probe_step_speed_mean_m"] = float(sp.mean())
  s["probe_step_speed_max_m"] = float(sp.max())
  s["probe_step_speed_mean_first10_m"] = float(sp[:, :10].mean())
  s["probe_reach_m"] = {str(d.astype(int).tolist()): round(float(r), 4) for d, r in zip(dirs, reach)}
  gp = arrays[p + "probe/grip_pos"]
  s["probe_final_step_speed_m"] = {
    str(d.astype(int).tolist()): round(float(v), 4) for d, v in zip(dirs, sp[:, -1])
  }
  s["probe_reach_saturated"] = {str(d.astype(int).tolist()): bool(v < 0.005) for d, v in zip(dirs, sp[:, -1])}
  s["probe_reach_note"] = (
    "reach = max displacement along the unit direction within T_P = 30 steps; where the last step still "
    "moved >= 5 mm (saturated False) it is a lower bound (the arm slides along its workspace boundary)"
  )
  sh = np.asarray(
    u.data.xpos[mujoco.mj_name2id(u.model, mujoco.mjtObj.mjOBJ_BODY, "robot0:shoulder_pan_link")]
  )
  s["probe_max_grip_dist_from_shoulder_pan_m"] = float(np.linalg.norm(gp - sh, axis=-1).max())
  s["probe_axis"] = {}
  for ax, lab in enumerate("xyz"):
    for sign in (-1, 1):
      d = np.zeros(3, int)
      d[ax] = sign
      i = int(np.where((dirs == d).all(axis=1))[0][0])
      s["probe_axis"][("+" if sign > 0 else "-") + lab] = {
        "reach_m": round(float(reach[i]), 4),
        "speed_step1_m": round(float(sp[i, 0]), 5),
        "speed_step2_m": round(float(sp[i, 1]), 5),
        "speed_max_m": round(float(sp[i].max()), 5),
        "final_grip_pos": [round(float(v), 4) for v in gp[i, -1]],
      }
  zg = arrays[p + "zero/grip_pos"].astype(np.float64)
  s["zero"] = {
    "grip_drift_final_mean_m": [float(v) for v in (zg[:, -1] - zg[:, 0]).mean(0)],
    "grip_drift_step1_mean_m": [float(v) for v in (zg[:, 1] - zg[:, 0]).mean(0)],
  }
  if u.has_object:
    zo = arrays[p + "zero/object_pos"].astype(np.float64)
    s["zero"]["object_drift_final_mean_m"] = [float(v) for v in (zo[:, -1] - zo[:, 0]).mean(0)]
    s["zero"]["object_drift_final_max_norm_m"] = float(np.linalg.norm(zo[:, -1] - zo[:, 0], axis=-1).max())
  fr = arrays[p + "free/grip_pos"]
  fs = np.linalg.norm(np.diff(fr, axis=1), axis=-1)
  s["free_step_speed_mean_m"] = float(fs.mean())
  s["free_step_speed_max_m"] = float(fs.max())
  if u.has_object:
    s["free_rows_object_moved"] = int(arrays[p + "free/object_moved"].sum())
    s["free_draws"] = arrays[p + "free/draw"].tolist()
  for seq in ("push", "pnp_push"):
    if p + seq + "/object_pos" in arrays:
      op = arrays[p + seq + "/object_pos"].astype(np.float64)
      disp = op[:, -1] - op[:, 0]
      dvec = arrays[p + seq + "/direction"].astype(np.float64)
      along = np.sum(disp[:, :2] * dvec, axis=-1)
      s[seq] = {
        "object_disp_mean_m": float(np.linalg.norm(disp[:, :2], axis=-1).mean()),
        "object_disp_min_m": float(np.linalg.norm(disp[:, :2], axis=-1).min()),
        "object_disp_max_m": float(np.linalg.norm(disp[:, :2], axis=-1).max()),
        "object_disp_along_dir_mean_m": float(along.mean()),
        "object_final_z_min": float(op[:, -1, 2].min()),
        "success_final_frac": float(arrays[p + seq + "/is_success"][:, -1].mean()),
      }
  if p + "grasp/object_pos" in arrays:
    op = arrays[p + "grasp/object_pos"].astype(np.float64)
    lift = op[:, -1, 2] - op[:, 0, 2]
    gsf = arrays[p + "grasp/gripper_state"][:, -1]
    s["grasp"] = {
      "lift_final_mean_m": float(lift.mean()),
      "lift_final_min_m": float(lift.min()),
      "lift_final_max_m": float(lift.max()),
      "lift_max_over_time_mean_m": float((op[:, :, 2].max(1) - op[:, 0, 2]).mean()),
      "rows_lifted_over_0.1m": int((lift > 0.1).sum()),
      "grip_minus_object_z_final_mean_m": float(
        (arrays[p + "grasp/grip_pos"][:, -1, 2] - op[:, -1, 2]).mean()
      ),
      "finger_qpos_final_mean": [float(v) for v in gsf.mean(0)],
      "success_final_frac": float(arrays[p + "grasp/is_success"][:, -1].mean()),
    }
  if p + "strike/object_pos" in arrays:
    op = arrays[p + "strike/object_pos"].astype(np.float64)
    trav = np.linalg.norm(op[:, -1, :2] - op[:, 0, :2], axis=-1)
    sp_obj = np.linalg.norm(np.diff(op[:, :, :2], axis=1), axis=-1)
    s["strike"] = {
      "puck_travel_mean_m": float(trav.mean()),
      "puck_travel_min_m": float(trav.min()),
      "puck_travel_max_m": float(trav.max()),
      "puck_peak_speed_mean_m_per_step": float(sp_obj.max(1).mean()),
      "puck_still_at_end_rows": int((sp_obj[:, -1] < 5e-4).sum()),
      "puck_final_speed_max_m_per_step": float(sp_obj[:, -1].max()),
      "strike_first_step_per_row": [int(np.argmax(ph == 2)) for ph in arrays[p + "strike/phase"]],
      "around_rows": int(arrays[p + "strike/around"].sum()),
      "puck_off_table_rows": int((op[:, -1, 2] < 0.3).sum()),
      "success_final_frac": float(arrays[p + "strike/is_success"][:, -1].mean()),
    }
  if p + "edge/object_pos" in arrays:
    op = arrays[p + "edge/object_pos"].astype(np.float64)
    z = op[:, :, 2]
    fell = z[:, -1] < 0.1
    first = [int(np.argmax(zz < zz[0] - 0.01)) if (zz < zz[0] - 0.01).any() else -1 for zz in z]
    s["edge"] = {
      "object_final_z_mean": float(z[:, -1].mean()),
      "object_final_z_max": float(z[:, -1].max()),
      "rows_fallen_to_floor": int(fell.sum()),
      "first_drop_step_per_row": first,
    }
  return s


def print_summary(meta):
  for mt in meta.values():
    s = mt["summary"]
    print(f"=== {mt['gym_id']}")
    print(
      f"  probes: step speed mean {s['probe_step_speed_mean_m']:.4f} "
      f"max {s['probe_step_speed_max_m']:.4f} m/step"
    )
    for k, v in s["probe_axis"].items():
      print(
        f"    {k}: reach {v['reach_m']:.3f} m, speed step1 {v['speed_step1_m']:.4f} step2 "
        f"{v['speed_step2_m']:.4f} max {v['speed_max_m']:.4f}, final {v['final_grip_pos']}"
      )
    print(f"  reach per direction (m): {s['probe_reach_m']}")
    print(
      f"  saturated within {T_P} steps: {[k for k, v in s['probe_reach_saturated'].items() if v]}; "
      f"max grip distance from shoulder_pan_link {s['probe_max_grip_dist_from_shoulder_pan_m']:.3f} m"
    )
    print(
      f"  free: step speed mean {s['free_step_speed_mean_m']:.4f} max {s['free_step_speed_max_m']:.4f}"
      + (
        f"; rows with object moved {s['free_rows_object_moved']}; draws {s['free_draws']}"
        if "free_draws" in s
        else ""
      )
    )
    for k in ("zero", "push", "pnp_push", "grasp", "strike", "edge"):
      if k in s:
        print(
          f"  {k}: "
          + ", ".join(
            f"{a}={np.round(b, 4).tolist() if isinstance(b, (list, float)) else b}" for a, b in s[k].items()
          )
        )


def main():
  arrays, meta = generate()
  os.makedirs(OUT_DIR, exist_ok=True)
  np.savez_compressed(NPZ_PATH, **arrays)
  versions = {
    pkg: importlib_metadata.version(pkg) for pkg in ["gymnasium-robotics", "gymnasium", "mujoco", "numpy"]
  }
  versions["python"] = sys.version.split()[0]
  doc = {
    "generated_by": "scripts/make_fetch_dynamics_reference.py",
    "versions": versions,
    "constants": {
      "K": K,
      "T": T_S,
      "T_probe": T_P,
      "seed": SEED,
      "start_seeds": list(range(K)),
      "probe_seed": 0,
      "tasks": TASKS,
    },
    "units": "metres, env steps (0.04 s), quaternions wxyz; actions float32 in [-1,1]",
    "envs": meta,
    "keys": {k: {"shape": list(np.shape(v)), "dtype": str(np.asarray(v).dtype)} for k, v in arrays.items()},
  }
  with open(JSON_PATH, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
  print_summary(meta)
  print(f"versions: {versions}")
  print(
    f"wrote {NPZ_PATH} ({os.path.getsize(NPZ_PATH)} bytes), {JSON_PATH} ({os.path.getsize(JSON_PATH)} bytes)"
  )


if __name__ == "__main__":
  main()
