"""Generate the HandManipulate parity fixture (tests/fixtures/hand_manipulate_reference.{npz,json}).

NOT run by the test suite: run by hand, once, in the reference virtualenv (gymnasium-robotics 1.4.2 on
mujoco 3.3.7, outside the repo), from the repo root:

    /work/refvenv/bin/python scripts/make_hand_manipulate_reference.py

Deterministic (fixed seeds). Contents (the MuJoCo-bindings `-v1` envs; float64 unless said):

1. Rewards, per variant V in VARIANTS (RotateZ: position ignored; Full: position and rotation; IgnoreZ:
   Full with ignore_z_target_rotation): ``{V}_ag``, ``{V}_dg`` [N, 7] goal pairs built around the
   thresholds (positions 0-0.02 m apart, rotations 0-0.2 rad apart, some quaternions negated), and the
   env's ``{V}_reward_sparse``, ``{V}_reward_dense``, ``{V}_is_success`` [N] (one call per pair);
   ``batch_ag``, ``batch_dg`` [32, 7] with ``batch_reward_dense`` [32] (one batched call, Full; the
   reference takes one batch axis only).
2. ``parallel_quats`` [24, 4]: the reference's parallel rotations as quaternions, in its order.
3. Resets, per task T in RESET_TASKS (seeds 0..N_RESETS-1): ``reset_{T}_obs`` [R, 61],
   ``reset_{T}_dg`` [R, 7] (float32); JSON ``reset_attempts``: how many `_reset_sim` calls they took.
4. Dynamics from known start poses: for each pose in ``dyn_pose`` [P, 7] (the block's pose before the
   settling), the reference's own `_reset_sim` steps (10 control steps of action 0, mj_step) from the hand
   at 0, then ``dyn_goal`` [P, 7] is set and each of ``dyn_actions`` [S, T, 20] is stepped through
   `env.step`. Recorded: ``dyn_hand`` [P, S, T + 1, 24] (hand joints; index 0 the settled state),
   ``dyn_obj`` [P, S, T + 1, 7] (block pose), ``dyn_obj_vel`` [P, S, T + 1, 6], ``dyn_reward`` [P, S, T]
   (sparse), ``dyn_ncon`` [P, S, T].
5. The egg and the pen (from a second generator, seed SEED + 1, so that the block's arrays stay as
   they were): reward pairs per variant in OBJECT_VARIANTS as in 1 (the pen's positions 0-0.1 m apart,
   around its 0.05 m threshold); resets of OBJECT_RESET_TASKS as in 3; dynamics as in 4 from one start
   pose each (the object's initial pose, i.e. the body's), keys ``{obj}_dyn_*``; JSON ``objects``: each
   object's model facts as in 6 and its env's defaults.
6. JSON ``model`` (the block's mass, inertia, geom size, friction, condim, joint damping; options;
   n_substeps; thresholds; max_episode_steps), ``fixed_rotation_error`` (target_rotation "fixed"
   fails in the reference) and ``probe`` (over random-action episodes: the lowest bottom of the hand's
   moving colliding geoms, hand-floor contacts, block drops).
"""

from __future__ import annotations

import json
import os
import warnings
from importlib import metadata as importlib_metadata

import numpy as np

warnings.filterwarnings("ignore")

import gymnasium as gym
import gymnasium_robotics
import mujoco
from gymnasium_robotics.utils import rotations

gym.register_envs(gymnasium_robotics)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(REPO_ROOT, "tests", "fixtures")
NPZ_PATH = os.path.join(OUT_DIR, "hand_manipulate_reference.npz")
JSON_PATH = os.path.join(OUT_DIR, "hand_manipulate_reference.json")

SEED = 20261126
N_PAIRS = 96
N_RESETS = 200
RESET_TASKS = ("HandManipulateBlockRotateZ", "HandManipulateBlockRotateParallel", "HandManipulateBlock")
VARIANTS = {
  "RotateZ": ("HandManipulateBlockRotateZ-v1", {}),
  "Full": ("HandManipulateBlock-v1", {}),
  "IgnoreZ": ("HandManipulateBlock-v1", {"ignore_z_target_rotation": True}),
}
OBJECT_VARIANTS = {
  "Egg": ("HandManipulateEgg-v1", {}, 0.02),
  "PenRotate": ("HandManipulatePenRotate-v1", {}, 0.02),
  "Pen": ("HandManipulatePen-v1", {}, 0.1),
}  # (id, kwargs, the largest position offset of a pair)
OBJECT_RESET_TASKS = ("HandManipulateEgg", "HandManipulatePen")
OBJECT_DYN = {"egg": "HandManipulateEggRotate-v1", "pen": "HandManipulatePenRotate-v1"}
T = 25  # steps per open-loop sequence
PROBE_EPISODES = 10


def _rand_quat(rng, n):
  q = rng.normal(size=(n, 4))
  return q / np.linalg.norm(q, axis=-1, keepdims=True)


def _reward_pairs(rng, max_dpos=0.02, threshold=0.01):
  """Goal pairs: dg a random pose near the block's start; ag offset by 0-max_dpos m and 0-0.2 rad."""
  dg = np.concatenate(
    [np.array([1.0, 0.87, 0.17]) + rng.normal(0, 0.02, (N_PAIRS, 3)), _rand_quat(rng, N_PAIRS)], 1
  )
  dpos = np.concatenate([[0.0, threshold - 1e-4, threshold + 1e-4], rng.uniform(0, max_dpos, N_PAIRS - 3)])
  drot = np.concatenate([[0.0, 0.0999, 0.1001], rng.uniform(0, 0.2, N_PAIRS - 3)])
  rng.shuffle(dpos)
  v = rng.normal(size=(N_PAIRS, 3))
  axis = rng.normal(size=(N_PAIRS, 3))
  axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
  turn = np.concatenate([np.cos(drot / 2)[:, None], np.sin(drot / 2)[:, None] * axis], 1)
  quat = rotations.quat_mul(turn, dg[:, 3:])
  quat[rng.uniform(size=N_PAIRS) < 0.15] *= -1  # the same orientation, the other sign
  ag = np.concatenate([dg[:, :3] + dpos[:, None] * v / np.linalg.norm(v, axis=-1, keepdims=True), quat], 1)
  return ag, dg


def _sequences(rng) -> np.ndarray:
  seqs = [np.zeros((T, 20))]
  seqs += [np.repeat(rng.uniform(-1, 1, (1, 20)), T, axis=0) for _ in range(2)]
  for _ in range(2):
    steps = rng.normal(0.0, 0.25, (T, 20))
    seqs.append(np.clip(np.cumsum(steps, axis=0) + rng.uniform(-0.5, 0.5, (1, 20)), -1, 1))
  return np.stack(seqs).astype(np.float32)


def _settle_from(u, pose):
  """The reference's `_reset_sim` with the block's pre-settling pose given instead of drawn."""
  m, d = u.model, u.data
  mujoco.mj_resetData(m, d)
  d.time = u.initial_time
  d.qpos[:] = np.copy(u.initial_qpos)
  d.qvel[:] = np.copy(u.initial_qvel)
  mujoco.mj_forward(m, d)
  u._utils.set_joint_qpos(m, d, "object:joint", pose)  # pylint: disable=protected-access
  for _ in range(10):
    u._set_action(np.zeros(20))  # pylint: disable=protected-access
    mujoco.mj_step(m, d, nstep=u.n_substeps)
  mujoco.mj_forward(m, d)


def _dynamics(rng):
  angles = (0.3, -2.0)
  poses = np.array(
    [[1.0, 0.87, 0.2, np.cos(a / 2), 0.0, 0.0, np.sin(a / 2)] for a in angles]
    + [[1.003, 0.866, 0.2, *_rand_quat(rng, 1)[0]]]
  )
  return _dynamics_from("HandManipulateBlockRotateZ-v1", poses, _sequences(rng), "dyn")


def _dynamics_from(gym_id, poses, actions, prefix):
  env = gym.make(gym_id)
  u = env.unwrapped
  env.reset(seed=0)
  goals = np.array([[1.0, 0.87, 0.17, np.cos(0.7), 0, 0, np.sin(0.7)]] * len(poses))
  out = {k: [] for k in ("hand", "obj", "obj_vel", "reward", "ncon")}
  for pose, goal in zip(poses, goals):
    per = {k: [] for k in out}
    for seq in actions:
      _settle_from(u, pose)
      u.goal = goal.copy()
      obs = u._get_obs()  # pylint: disable=protected-access
      hand, obj, vel, rew, ncon = (
        [obs["observation"][:24]],
        [obs["achieved_goal"]],
        [obs["observation"][48:54]],
        [],
        [],
      )
      for a in seq:
        obs, r, _, _, _ = env.step(a)
        hand.append(obs["observation"][:24])
        obj.append(obs["achieved_goal"])
        vel.append(obs["observation"][48:54])
        rew.append(r)
        ncon.append(u.data.ncon)
      for k, v in (("hand", hand), ("obj", obj), ("obj_vel", vel), ("reward", rew), ("ncon", ncon)):
        per[k].append(np.asarray(v))
    for k in out:
      out[k].append(np.stack(per[k]))
  arrays = {f"{prefix}_{k}": np.stack(v) for k, v in out.items()}
  if prefix != "dyn":  # section 5: float32 (the comparisons' tolerances are far coarser)
    arrays = {k: v.astype(np.float32) if v.dtype == np.float64 else v for k, v in arrays.items()}
  arrays.update({f"{prefix}_pose": poses, f"{prefix}_goal": goals, f"{prefix}_actions": actions})
  return arrays


def _resets(tasks=RESET_TASKS, full=True):
  """Section 3 (`full`), or section 5's smaller record: ``reset_{T}_obj`` [R, 13] the observation's object
  velocity and pose, ``reset_{T}_hand_vel`` [R] the largest |hand joint velocity|."""
  arrays, attempts = {}, {}
  for task in tasks:
    env = gym.make(f"{task}-v1")
    u = env.unwrapped
    orig, count = u._reset_sim, [0]  # pylint: disable=protected-access

    def counted(orig=orig, count=count):
      count[0] += 1
      return orig()

    u._reset_sim = counted  # pylint: disable=protected-access
    obs, dgs = [], []
    for seed in range(N_RESETS):
      o, _ = env.reset(seed=seed)
      obs.append(o["observation"])
      dgs.append(o["desired_goal"])
    obs = np.stack(obs).astype(np.float32)
    if full:
      arrays[f"reset_{task}_obs"] = obs
    else:
      arrays[f"reset_{task}_obj"] = obs[:, 48:]
      arrays[f"reset_{task}_hand_vel"] = np.abs(obs[:, 24:48]).max(-1)
    arrays[f"reset_{task}_dg"] = np.stack(dgs).astype(np.float32)
    attempts[task] = count[0]
  return arrays, attempts


def _probe(rng):
  env = gym.make("HandManipulateBlock-v1")
  u = env.unwrapped
  m, d = u.model, u.data
  floor = m.geom("floor0").id
  hand = [
    g
    for g in range(m.ngeom)
    if m.geom(g).name.startswith("robot0:C_") and m.body_weldid[m.geom_bodyid[g]] > 0
  ]
  lowest, hand_floor, drops, steps = np.inf, 0, 0, 0
  for ep in range(PROBE_EPISODES):
    env.reset(seed=2000 + ep)
    dropped = False
    for _ in range(100):
      env.step(rng.uniform(-1, 1, 20).astype(np.float32))
      steps += 1
      lowest = min(lowest, float(np.min(d.geom_xpos[hand, 2] - m.geom_rbound[hand])))
      for i in range(d.ncon):
        c = d.contact[i]
        if floor in (c.geom1, c.geom2) and (c.geom1 in hand or c.geom2 in hand):
          hand_floor += 1
      dropped = dropped or u.data.site_xpos[m.site("object:center").id][2] < 0.04
    drops += dropped
  return {
    "steps": steps,
    "lowest_hand_geom_bottom_z": lowest,
    "hand_floor_contacts": hand_floor,
    "episodes_block_dropped": int(drops),
    "episodes": PROBE_EPISODES,
  }


def _model_facts(u):
  m = u.model
  b, g, j = m.body("object").id, m.geom("object").id, m.joint("object:joint").id
  return {
    "object_mass": float(m.body_mass[b]),
    "object_inertia": [float(x) for x in m.body_inertia[b]],
    "object_size": [float(x) for x in m.geom_size[g]],
    "object_friction": [float(x) for x in m.geom_friction[g]],
    "object_condim": int(m.geom_condim[g]),
    "object_damping": float(m.dof_damping[m.jnt_dofadr[j]]),
    "object_pos0": [float(x) for x in m.body_pos[b]],
    "option": {
      "timestep": float(m.opt.timestep),
      "iterations": int(m.opt.iterations),
      "ls_iterations": int(m.opt.ls_iterations),
      "cone": int(m.opt.cone),
      "solver": int(m.opt.solver),
    },
    "n_substeps": int(u.n_substeps),
    "distance_threshold": float(u.distance_threshold),
    "rotation_threshold": float(u.rotation_threshold),
    "target_position_range": u.target_position_range.tolist(),
    "relative_control": bool(u.relative_control),
  }


def _rewards(name, u, ud, ag, dg):
  """The sparse env `u`'s and the dense env `ud`'s rewards and success on each pair (one call each)."""
  return {
    f"{name}_ag": ag,
    f"{name}_dg": dg,
    f"{name}_reward_sparse": np.array([u.compute_reward(a, g, {}) for a, g in zip(ag, dg)]),
    f"{name}_reward_dense": np.array([ud.compute_reward(a, g, {}) for a, g in zip(ag, dg)]),
    f"{name}_is_success": np.array([u._is_success(a, g) for a, g in zip(ag, dg)]),  # pylint: disable=protected-access
  }


def _objects(rng):
  """Section 5: the egg's and the pen's rewards, resets, dynamics and model facts."""
  arrays, facts = {}, {}
  for name, (gid, kw, max_dpos) in OBJECT_VARIANTS.items():
    u = gym.make(gid, **kw).unwrapped
    ud = gym.make(gid, reward_type="dense", **kw).unwrapped
    ag, dg = _reward_pairs(rng, max_dpos, u.distance_threshold)
    arrays.update(_rewards(name, u, ud, ag, dg))
  resets, attempts = _resets(OBJECT_RESET_TASKS, full=False)
  arrays.update(resets)
  for obj, gid in OBJECT_DYN.items():
    u = gym.make(gid).unwrapped
    adr = u.model.jnt_qposadr[u.model.joint("object:joint").id]
    pose = np.array(u.model.qpos0[adr : adr + 7])  # the body's pose: the reset's pose before its draws
    arrays.update(_dynamics_from(gid, pose[None], _sequences(rng), f"{obj}_dyn"))
    facts[obj] = {
      **_model_facts(u),
      "randomize_initial_rotation": bool(u.randomize_initial_rotation),
      "ignore_z_target_rotation": bool(u.ignore_z_target_rotation),
      "floor_z": float(u.model.geom_pos[u.model.geom("floor0").id][2]),
      "object_quat0": [float(x) for x in u.model.body_quat[u.model.body("object").id]],
      "object_geom_type": int(u.model.geom_type[u.model.geom("object").id]),
    }
  return arrays, attempts, facts


def main():
  rng = np.random.default_rng(SEED)
  arrays = {}
  ag, dg = _reward_pairs(rng)
  for name, (gid, kw) in VARIANTS.items():
    u = gym.make(gid, **kw).unwrapped
    ud = gym.make(gid, reward_type="dense", **kw).unwrapped
    arrays.update(_rewards(name, u, ud, ag, dg))
  full = gym.make("HandManipulateBlock-v1", reward_type="dense").unwrapped
  bag, bdg = ag[:32], dg[:32]  # the reference takes one batch axis only (its quat_mul)
  arrays.update(batch_ag=bag, batch_dg=bdg, batch_reward_dense=full.compute_reward(bag, bdg, {}))
  arrays["parallel_quats"] = np.array([rotations.euler2quat(r) for r in rotations.get_parallel_rotations()])
  resets, attempts = _resets()
  arrays.update(resets)
  arrays.update(_dynamics(rng))
  obj_arrays, obj_attempts, obj_facts = _objects(np.random.default_rng(SEED + 1))
  arrays.update(obj_arrays)
  attempts.update(obj_attempts)
  try:
    gym.make("HandManipulateBlock-v1", target_rotation="fixed").reset(seed=0)
    fixed_error = None
  except Exception as e:  # pylint: disable=broad-except
    fixed_error = f"{type(e).__name__}: {e}"
  env = gym.make("HandManipulateBlock-v1")
  meta = {
    "generated_by": "scripts/make_hand_manipulate_reference.py",
    "versions": {
      p: importlib_metadata.version(p) for p in ("gymnasium-robotics", "gymnasium", "mujoco", "numpy")
    },
    "seed": SEED,
    "T": T,
    "variants": {k: [v[0], v[1]] for k, v in VARIANTS.items()},
    "reset_tasks": list(RESET_TASKS),
    "object_variants": {k: [v[0], v[1]] for k, v in OBJECT_VARIANTS.items()},
    "object_reset_tasks": list(OBJECT_RESET_TASKS),
    "objects": obj_facts,
    "reset_attempts": attempts,
    "n_resets": N_RESETS,
    "fixed_rotation_error": fixed_error,
    "max_episode_steps": int(env.spec.max_episode_steps),
    "model": _model_facts(env.unwrapped),
    "probe": _probe(rng),
    "keys": {k: list(v.shape) for k, v in arrays.items()},
  }
  os.makedirs(OUT_DIR, exist_ok=True)
  np.savez_compressed(NPZ_PATH, **arrays)
  with open(JSON_PATH, "w") as f:
    json.dump(meta, f, indent=1)
  print(f"wrote {NPZ_PATH} ({os.path.getsize(NPZ_PATH)} bytes) and {JSON_PATH}")
  print(json.dumps({k: meta[k] for k in ("reset_attempts", "fixed_rotation_error", "probe")}, indent=1))


if __name__ == "__main__":
  main()
