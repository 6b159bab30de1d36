"""Generate the gymnasium-robotics Fetch parity fixture.

This script is NOT run by the test suite. It is run by hand, once, in a separate
reference virtualenv, and its output is committed to the repo as a test fixture:

    tests/fixtures/fetch_reference.npz   (arrays; see key list below)
    tests/fixtures/fetch_reference.json  (metadata, version numbers, key shapes)

The tests compare the MJX Fetch environments in ``mjx_envs`` against these
recorded values; they only need numpy to read the fixture.

How to regenerate (from the repo root; the reference venv lives OUTSIDE the repo
and must not be the project's own venv, which uses a newer mujoco):

    python3 -m venv /work/refvenv
    /work/refvenv/bin/pip install "mujoco==3.3.7" "gymnasium-robotics==1.4.2" \
        "gymnasium==1.4.0" "numpy==2.4.6"
    /work/refvenv/bin/python scripts/make_fetch_reference.py

(gymnasium-robotics 1.4.2 fails to build the Fetch envs on mujoco >= 3.17, hence
the pinned mujoco 3.3.7.)  The output is deterministic: all random draws come
from numpy generators with fixed seeds and the env resets use fixed seeds.

Contents, for each ``E`` in FetchReach, FetchPush, FetchSlide, FetchPickAndPlace
(gym ids ``E-v4``, the MuJoCo-bindings versions registered by 1.4.2):

1. compute_reward parity (N = 256 pairs)
   ``E/ag``, ``E/dg`` [N,3]         achieved / desired goals (float64), drawn in
                                    the env's goal region, ~half within 0.05 m,
                                    including edge distances (0, 0.049, 0.0499,
                                    0.0501, 0.051, ...) and one pair at exactly
                                    the threshold (float64 distance == 0.05).
   ``E/dist`` [N]                   ||ag - dg|| (float64)
   ``E/is_edge`` [N] bool           pair was one of the hand-picked edge cases
   ``E/reward_sparse`` [N]          compute_reward of the reward_type='sparse' env
   ``E/reward_dense`` [N]           compute_reward of the reward_type='dense' env
   ``E/is_success`` [N]             env.unwrapped._is_success(ag_i, dg_i) per pair
   ``E/batch_ag``, ``E/batch_dg`` [8,4,3] and ``E/batch_reward_sparse``,
   ``E/batch_reward_dense``, ``E/batch_is_success`` [8,4]: one batched call.
2. reset statistics (seeds 0..199)
   ``E/reset_seeds`` [200], ``E/reset_obs`` [200,D], ``E/reset_ag`` [200,3],
   ``E/reset_dg`` [200,3]
3. action semantics: for each of the 5 constant actions in ``E/act_actions``
   [5,4] = [1,0,0,0], [0,1,0,0], [0,0,1,0], [0,0,0,1], [0,0,0,-1], the env is
   reset with seed 0 (the same initial state every time) and the action is
   applied for 10 steps.
   ``E/act_obs`` [5,11,D] (index 0 = the reset observation), ``E/act_ag``,
   ``E/act_dg`` [5,11,3], ``E/act_reward`` [5,10] (sparse), ``E/act_is_success``
   [5,10] (info['is_success']).
4. metadata as small arrays: ``E/dt``, ``E/timestep``, ``E/n_substeps``,
   ``E/max_episode_steps``, ``E/initial_gripper_xpos`` [3], ``E/height_offset``
   (NaN for Reach), ``E/target_range``, ``E/obj_range``, ``E/target_offset`` [3],
   ``E/distance_threshold``, ``E/gripper_extra_height``, ``E/has_object``,
   ``E/block_gripper``, ``E/target_in_the_air``, ``E/init_qpos`` [nq] and
   ``E/init_qvel`` [nv] (the state every reset starts from, before the object is
   placed).  The JSON sidecar repeats them together with the observation layout
   and the package versions.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from importlib import metadata as importlib_metadata

import numpy as np

warnings.filterwarnings("ignore")

import gymnasium as gym
import gymnasium_robotics

gym.register_envs(gymnasium_robotics)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(REPO_ROOT, "tests", "fixtures")
NPZ_PATH = os.path.join(OUT_DIR, "fetch_reference.npz")
JSON_PATH = os.path.join(OUT_DIR, "fetch_reference.json")

ENVS = ["FetchReach", "FetchPush", "FetchSlide", "FetchPickAndPlace"]
VERSION = "v4"
SEED = 20240601
N_PAIRS = 256
N_RESETS = 200
N_ACT_STEPS = 10
ACTIONS = np.array(
  [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, -1]],
  dtype=np.float32,
)
# Hand-picked distances around the 0.05 m threshold (and a few others).
EDGE_DISTS = [0.0, 1e-4, 0.01, 0.049, 0.0499, 0.04999, 0.05001, 0.0501, 0.051, 0.1]

OBS_LAYOUT_OBJECT = {
  "grip_pos": [0, 3],
  "object_pos": [3, 6],
  "object_rel_pos": [6, 9],
  "gripper_state": [9, 11],
  "object_rot": [11, 14],
  "object_velp": [14, 17],
  "object_velr": [17, 20],
  "grip_velp": [20, 23],
  "gripper_vel": [23, 25],
}
OBS_LAYOUT_REACH = {
  "grip_pos": [0, 3],
  "gripper_state": [3, 5],
  "grip_velp": [5, 8],
  "gripper_vel": [8, 10],
}
OBS_NOTES = (
  "Half-open index ranges [start, stop) into obs['observation']. "
  "grip_pos = site 'robot0:grip' xpos; object_pos = site 'object0' xpos; "
  "object_rel_pos = object_pos - grip_pos; gripper_state = qpos of "
  "[robot0:r_gripper_finger_joint, robot0:l_gripper_finger_joint] (joint order); "
  "object_rot = mat2euler(site 'object0' xmat); "
  "object_velp = (jacp(object0) @ qvel) * dt - grip_velp  (relative, scaled by dt); "
  "object_velr = (jacr(object0) @ qvel) * dt; "
  "grip_velp = (jacp(robot0:grip) @ qvel) * dt; "
  "gripper_vel = qvel of the two finger joints * dt; "
  "dt = n_substeps * model.opt.timestep = 0.04. "
  "achieved_goal = grip_pos (Reach) or object_pos (others)."
)


def _goal_region_sample(u, rng, n):
  """Sample n desired goals from (a superset-equal copy of) the env's goal region."""
  tr = float(u.target_range)
  base = np.asarray(u.initial_gripper_xpos[:3], dtype=np.float64)
  off = np.broadcast_to(np.asarray(u.target_offset, dtype=np.float64), (3,))
  g = base + rng.uniform(-tr, tr, size=(n, 3)) + off
  if u.has_object:
    g[:, 2] = float(u.height_offset)
    if u.target_in_the_air:
      air = rng.uniform(size=n) < 0.5
      g[air, 2] += rng.uniform(0.0, 0.45, size=int(air.sum()))
  return g


def _unit(rng, n):
  v = rng.normal(size=(n, 3))
  return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _reward_pairs(u, rng):
  n_edge = len(EDGE_DISTS)
  n_rand = N_PAIRS - n_edge - 1
  n_near = n_rand // 2
  d = np.concatenate(
    [
      np.asarray(EDGE_DISTS),
      rng.uniform(0.0, 0.05, size=n_near),
      rng.uniform(0.05, 0.2, size=n_rand - n_near),
    ]
  )
  dg = _goal_region_sample(u, rng, len(d))
  ag = dg + d[:, None] * _unit(rng, len(d))
  # One pair whose float64 distance is exactly the threshold (0.05):
  # sparse reward is -(d > thr) = 0 and _is_success is (d < thr) = 0 there.
  ag = np.concatenate([ag, np.array([[0.05, 0.0, 0.0]])])
  dg = np.concatenate([dg, np.zeros((1, 3))])
  is_edge = np.zeros(N_PAIRS, dtype=bool)
  is_edge[:n_edge] = True
  is_edge[-1] = True
  return ag, dg, is_edge


def _meta(env, u):
  m = u.model
  return {
    "gym_id": env.spec.id,
    "dense_gym_id_equivalent": env.spec.id.replace("-", "Dense-"),
    "entry_point": str(env.spec.entry_point),
    "dt": float(u.dt),
    "timestep": float(m.opt.timestep),
    "n_substeps": int(u.n_substeps),
    "max_episode_steps": int(env.spec.max_episode_steps),
    "initial_gripper_xpos": [float(x) for x in u.initial_gripper_xpos],
    "height_offset": float(u.height_offset) if u.has_object else None,
    "target_range": float(u.target_range),
    "obj_range": float(u.obj_range),
    "target_offset": [float(x) for x in np.broadcast_to(np.asarray(u.target_offset, float), (3,))],
    "distance_threshold": float(u.distance_threshold),
    "gripper_extra_height": float(u.gripper_extra_height),
    "has_object": bool(u.has_object),
    "block_gripper": bool(u.block_gripper),
    "target_in_the_air": bool(u.target_in_the_air),
    "obs_dim": int(u.observation_space["observation"].shape[0]),
    "action_low": [float(x) for x in u.action_space.low],
    "action_high": [float(x) for x in u.action_space.high],
    "nq": int(m.nq),
    "nv": int(m.nv),
    "nu": int(m.nu),
    "nmocap": int(m.nmocap),
    "joint_names": [m.joint(i).name for i in range(m.njnt)],
    "actuator_names": [m.actuator(i).name for i in range(m.nu)],
    "actuator_ctrlrange": [[float(a), float(b)] for a, b in m.actuator_ctrlrange],
    "actuator_kp": [float(m.actuator_gainprm[i][0]) for i in range(m.nu)],
    "init_qpos": [float(x) for x in u.initial_qpos],
    "init_qvel": [float(x) for x in u.initial_qvel],
    "obs_layout": OBS_LAYOUT_OBJECT if u.has_object else OBS_LAYOUT_REACH,
  }


def generate():
  arrays: dict[str, np.ndarray] = {}
  meta_all: dict[str, dict] = {}
  for k, name in enumerate(ENVS):
    gid = f"{name}-{VERSION}"
    rng = np.random.default_rng([SEED, k])
    env = gym.make(gid)  # reward_type='sparse' (default)
    env_dense = gym.make(gid, reward_type="dense")
    u, ud = env.unwrapped, env_dense.unwrapped
    assert u.reward_type == "sparse" and ud.reward_type == "dense"
    meta = _meta(env, u)
    meta_all[name] = meta
    p = f"{name}/"

    # ---- 1. compute_reward parity ----
    ag, dg, is_edge = _reward_pairs(u, rng)
    rs = np.asarray(u.compute_reward(ag, dg, {}))
    rd = np.asarray(ud.compute_reward(ag, dg, {}))
    succ = np.array([u._is_success(ag[i], dg[i]) for i in range(len(ag))])
    rs_pp = np.array([u.compute_reward(ag[i], dg[i], {}) for i in range(len(ag))])
    assert np.array_equal(rs, rs_pp.astype(rs.dtype))
    arrays.update(
      {
        p + "ag": ag,
        p + "dg": dg,
        p + "dist": np.linalg.norm(ag - dg, axis=-1),
        p + "is_edge": is_edge,
        p + "reward_sparse": rs,
        p + "reward_dense": rd,
        p + "is_success": succ,
      }
    )
    bdg = _goal_region_sample(u, rng, 32).reshape(8, 4, 3)
    bag = bdg + rng.uniform(0.0, 0.1, size=(8, 4, 1)) * _unit(rng, 32).reshape(8, 4, 3)
    b_succ = np.asarray(u._is_success(bag, bdg))
    assert b_succ.shape == (8, 4)
    arrays.update(
      {
        p + "batch_ag": bag,
        p + "batch_dg": bdg,
        p + "batch_reward_sparse": np.asarray(u.compute_reward(bag, bdg, {})),
        p + "batch_reward_dense": np.asarray(ud.compute_reward(bag, bdg, {})),
        p + "batch_is_success": b_succ,
      }
    )

    # ---- 2. reset statistics ----
    obs_l, ag_l, dg_l = [], [], []
    for s in range(N_RESETS):
      o, _ = env.reset(seed=s)
      obs_l.append(o["observation"])
      ag_l.append(o["achieved_goal"])
      dg_l.append(o["desired_goal"])
    arrays.update(
      {
        p + "reset_seeds": np.arange(N_RESETS, dtype=np.int64),
        p + "reset_obs": np.array(obs_l),
        p + "reset_ag": np.array(ag_l),
        p + "reset_dg": np.array(dg_l),
      }
    )

    # ---- 3. action semantics ----
    a_obs, a_ag, a_dg, a_rew, a_succ = [], [], [], [], []
    for a in ACTIONS:
      o, _ = env.reset(seed=0)
      seq_o, seq_ag, seq_dg = [o["observation"]], [o["achieved_goal"]], [o["desired_goal"]]
      rews, succs = [], []
      for _ in range(N_ACT_STEPS):
        o, r, term, trunc, info = env.step(a.copy())
        seq_o.append(o["observation"])
        seq_ag.append(o["achieved_goal"])
        seq_dg.append(o["desired_goal"])
        rews.append(r)
        succs.append(info["is_success"])
      a_obs.append(seq_o)
      a_ag.append(seq_ag)
      a_dg.append(seq_dg)
      a_rew.append(rews)
      a_succ.append(succs)
    a_obs = np.array(a_obs)
    # all five blocks must start from the identical reset state
    assert np.all(a_obs[:, 0] == a_obs[0, 0])
    arrays.update(
      {
        p + "act_actions": ACTIONS.copy(),
        p + "act_obs": a_obs,
        p + "act_ag": np.array(a_ag),
        p + "act_dg": np.array(a_dg),
        p + "act_reward": np.array(a_rew, dtype=np.float32),
        p + "act_is_success": np.array(a_succ, dtype=np.float32),
      }
    )

    # ---- 4. metadata as small arrays ----
    arrays.update(
      {
        p + "dt": np.float64(meta["dt"]),
        p + "timestep": np.float64(meta["timestep"]),
        p + "n_substeps": np.int64(meta["n_substeps"]),
        p + "max_episode_steps": np.int64(meta["max_episode_steps"]),
        p + "initial_gripper_xpos": np.array(meta["initial_gripper_xpos"]),
        p + "height_offset": np.float64(np.nan if meta["height_offset"] is None else meta["height_offset"]),
        p + "target_range": np.float64(meta["target_range"]),
        p + "obj_range": np.float64(meta["obj_range"]),
        p + "target_offset": np.array(meta["target_offset"]),
        p + "distance_threshold": np.float64(meta["distance_threshold"]),
        p + "gripper_extra_height": np.float64(meta["gripper_extra_height"]),
        p + "has_object": np.bool_(meta["has_object"]),
        p + "block_gripper": np.bool_(meta["block_gripper"]),
        p + "target_in_the_air": np.bool_(meta["target_in_the_air"]),
        p + "init_qpos": np.array(meta["init_qpos"]),
        p + "init_qvel": np.array(meta["init_qvel"]),
      }
    )
    env.close()
    env_dense.close()
  return arrays, meta_all


def summarize(arrays, meta_all):
  for name in ENVS:
    p = f"{name}/"
    m = meta_all[name]
    D = arrays[p + "reset_obs"].shape[1]
    print(f"=== {m['gym_id']}  obs_dim={D}")
    print(
      f"  dt={m['dt']} timestep={m['timestep']} n_substeps={m['n_substeps']} "
      f"max_steps={m['max_episode_steps']} thr={m['distance_threshold']}"
    )
    print(f"  initial_gripper_xpos={np.array(m['initial_gripper_xpos'])} height_offset={m['height_offset']}")
    print(f"  target_range={m['target_range']} obj_range={m['obj_range']} target_offset={m['target_offset']}")
    dg = arrays[p + "reset_dg"]
    print(f"  reset dg min={dg.min(0)} max={dg.max(0)}")
    if m["has_object"]:
      ho = m["height_offset"]
      above = np.mean(dg[:, 2] > ho + 1e-9)
      print(f"  frac dg above table (z > height_offset): {above:.3f}")
      op = arrays[p + "reset_obs"][:, 3:6]
      print(f"  reset object_pos min={op.min(0)} max={op.max(0)}")
    succ = arrays[p + "is_success"]
    print(
      f"  pairs: frac success={succ.mean():.3f} sparse==-(1-succ) on non-boundary: "
      f"{np.array_equal(arrays[p + 'reward_sparse'][:-1], -(1 - succ[:-1]))}"
    )
    ao = arrays[p + "act_obs"]
    gp = ao[:, :, 0:3]
    for i, a in enumerate(arrays[p + "act_actions"]):
      disp = np.diff(gp[i], axis=0)
      gs = slice(*m["obs_layout"]["gripper_state"])
      print(
        f"  action {a.astype(int).tolist()}: grip disp/step x,y,z (first 3 / last) "
        f"{np.round(disp[:3], 4).tolist()} / {np.round(disp[-1], 4).tolist()}; "
        f"finger qpos t0={np.round(ao[i, 0, gs], 5).tolist()} t1={np.round(ao[i, 1, gs], 5).tolist()} "
        f"t10={np.round(ao[i, -1, gs], 5).tolist()}"
      )


def main():
  arrays, meta_all = generate()
  os.makedirs(OUT_DIR, exist_ok=True)
  np.savez_compressed(NPZ_PATH, **arrays)
  versions = {
    pkg: importlib_metadata.version(pkg) for pkg in ["gymnasium-robotics", "gymnasium", "mujoco", "numpy"]
  }
  versions["python"] = sys.version.split()[0]
  doc = {
    "generated_by": "scripts/make_fetch_reference.py",
    "versions": versions,
    "seed": SEED,
    "n_pairs": N_PAIRS,
    "n_resets": N_RESETS,
    "n_act_steps": N_ACT_STEPS,
    "actions": ACTIONS.tolist(),
    "edge_dists": EDGE_DISTS,
    "obs_layout_notes": OBS_NOTES,
    "envs": meta_all,
    "keys": {k: {"shape": list(np.shape(v)), "dtype": str(np.asarray(v).dtype)} for k, v in arrays.items()},
  }
  with open(JSON_PATH, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
  summarize(arrays, meta_all)
  print(f"versions: {versions}")
  print(
    f"wrote {NPZ_PATH} ({os.path.getsize(NPZ_PATH)} bytes), {JSON_PATH} ({os.path.getsize(JSON_PATH)} bytes)"
  )


if __name__ == "__main__":
  main()
