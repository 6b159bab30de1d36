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
5. JSON ``model`` (the block's mass, inertia, geom size, friction, condim, joint damping; options;
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
T = 25  # steps per open-loop sequence
PROBE_EPISODES = 10


def _rand_quat(rng, n):
  q = rng.normal(size=(n, 4))
  return q / np.linalg.norm(q, axis=-1, keepdims=True)


def _reward_pairs(rng):
  """Goal pairs: dg a random pose near the block's start; ag offset by 0-0.02 m and 0-0.2 rad."""
  dg = np.concatenate(
    [np.array([1.0, 0.87, 0.17]) + rng.normal(0, 0.02, (N_PAIRS, 3)), _rand_quat(rng, N_PAIRS)], 1
  )
  dpos = np.concatenate([[0.0, 0.0099, 0.0101], rng.uniform(0, 0.02, N_PAIRS - 3)])
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
  env = gym.make("HandManipulateBlockRotateZ-v1")
  u = env.unwrapped
  env.reset(seed=0)
  angles = (0.3, -2.0)
  poses = np.array(
    [[1.0, 0.87, 0.2, np.cos(a / 2), 0.0, 0.0, np.sin(a / 2)] for a in angles]
    + [[1.003, 0.866, 0.2, *_rand_quat(rng, 1)[0]]]
  )
  goals = np.array([[1.0, 0.87, 0.17, np.cos(0.7), 0, 0, np.sin(0.7)]] * len(poses))
  actions = _sequences(rng)
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
  arrays = {f"dyn_{k}": np.stack(v) for k, v in out.items()}
  arrays.update(dyn_pose=poses, dyn_goal=goals, dyn_actions=actions)
  return arrays


def _resets():
  arrays, attempts = {}, {}
  for task in RESET_TASKS:
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
    arrays[f"reset_{task}_obs"] = np.stack(obs).astype(np.float32)
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


def main():
  rng = np.random.default_rng(SEED)
  arrays = {}
  ag, dg = _reward_pairs(rng)
  for name, (gid, kw) in VARIANTS.items():
    u = gym.make(gid, **kw).unwrapped
    ud = gym.make(gid, reward_type="dense", **kw).unwrapped
    arrays.update(
      {
        f"{name}_ag": ag,
        f"{name}_dg": dg,
        f"{name}_reward_sparse": np.array([u.compute_reward(a, g, {}) for a, g in zip(ag, dg)]),
        f"{name}_reward_dense": np.array([ud.compute_reward(a, g, {}) for a, g in zip(ag, dg)]),
        f"{name}_is_success": np.array([u._is_success(a, g) for a, g in zip(ag, dg)]),  # pylint: disable=protected-access
      }
    )
  full = gym.make("HandManipulateBlock-v1", reward_type="dense").unwrapped
  bag, bdg = ag[:32], dg[:32]  # the reference takes one batch axis only (its quat_mul)
  arrays.update(batch_ag=bag, batch_dg=bdg, batch_reward_dense=full.compute_reward(bag, bdg, {}))
  arrays["parallel_quats"] = np.array([rotations.euler2quat(r) for r in rotations.get_parallel_rotations()])
  resets, attempts = _resets()
  arrays.update(resets)
  arrays.update(_dynamics(rng))
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
