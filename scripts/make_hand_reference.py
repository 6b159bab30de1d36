"""Generate the gymnasium-robotics HandReach parity fixture (tests/fixtures/hand_reference.{npz,json}).

NOT run by the test suite: run by hand, once, in the reference virtualenv (gymnasium-robotics 1.4.2 on
mujoco 3.3.7, outside the repo; see scripts/make_fetch_reference.py for how it is built), from the repo
root:

    /work/refvenv/bin/python scripts/make_hand_reference.py

Deterministic: numpy generators with fixed seeds, env resets with fixed seeds. Contents (HandReach-v3,
the MuJoCo-bindings version; float64 unless said):

1. Rewards (N_PAIRS pairs of 15-D goals): ``ag``, ``dg`` [N, 15], ``dist`` [N] (the env's
   goal_distance), ``reward_sparse``, ``reward_dense``, ``is_success`` [N]; pairs built around the
   0.01 threshold (EDGE_DISTS), one exactly at it; ``batch_ag``, ``batch_dg`` [8, 4, 15] and
   ``batch_reward_sparse``, ``batch_reward_dense`` [8, 4]: one batched compute_reward call.
2. Resets (seeds 0..N_RESETS-1): ``reset_obs`` [R, 63], ``reset_dg`` [R, 15].
3. Open-loop sequences from the reset state of seed 0 (every reset starts from the same state): the
   actions ``seq_actions`` [S, T, 20] (zero; four constant random actions; three smooth random sequences;
   the extremes +1 and -1), and what they did: ``seq_qpos``, ``seq_qvel`` [S, T + 1, 24] (index 0 the
   reset), ``seq_tips`` [S, T + 1, 15] (the achieved goal), ``seq_reward`` [S, T], ``seq_ncon`` [S, T]
   (contacts after each step). Relative control fails in the reference (JSON
   ``relative_control_error``: its `_set_action` calls mujoco-py's API), so none is recorded.
4. Probes of the reference's model: over PROBE_EPISODES random-action episodes, the geom pairs that
   touched, the tendons whose limits were active and the lowest geom height (JSON ``probe``), the facts
   mjx_envs/hand/model.py's docstring cites.
5. Model facts (JSON ``model``): per joint name its range, damping, armature, frictionloss, margin;
   per body name its mass, inertia diagonal and centre of mass; per actuator its kp, ctrl and force
   ranges; the option settings; the initial qpos, initial goal and palm position.
"""

from __future__ import annotations

import collections
import json
import os
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
NPZ_PATH = os.path.join(OUT_DIR, "hand_reference.npz")
JSON_PATH = os.path.join(OUT_DIR, "hand_reference.json")

GYM_ID = "HandReach-v3"
SEED = 20261126
N_PAIRS = 256
N_RESETS = 200
T = 25  # steps per open-loop sequence
PROBE_EPISODES = 20
EDGE_DISTS = [0.0, 1e-4, 0.005, 0.0099, 0.00999, 0.01001, 0.0101, 0.011, 0.02, 0.05]


def _strip(name: str) -> str:
  return name.replace("robot0:", "")


def _sequences(rng) -> np.ndarray:
  """[S, T, 20] action sequences (see the module docstring)."""
  seqs = [np.zeros((T, 20))]
  seqs += [np.repeat(rng.uniform(-1, 1, (1, 20)), T, axis=0) for _ in range(4)]
  for _ in range(3):  # smooth: a random walk of small steps, clipped
    steps = rng.normal(0.0, 0.25, (T, 20))
    seqs.append(np.clip(np.cumsum(steps, axis=0) + rng.uniform(-0.5, 0.5, (1, 20)), -1, 1))
  seqs += [np.ones((T, 20)), -np.ones((T, 20))]
  return np.stack(seqs).astype(np.float32)


def _rollout(env, actions) -> dict:
  u = env.unwrapped
  out = collections.defaultdict(list)
  for seq in actions:
    obs, _ = env.reset(seed=0)
    qpos, qvel, tips, rew, ncon = (
      [obs["observation"][:24]],
      [obs["observation"][24:48]],
      [obs["achieved_goal"]],
      [],
      [],
    )
    for a in seq:
      obs, r, _, _, _ = env.step(a)
      qpos.append(obs["observation"][:24])
      qvel.append(obs["observation"][24:48])
      tips.append(obs["achieved_goal"])
      rew.append(r)
      ncon.append(u.data.ncon)
    for k, v in (("qpos", qpos), ("qvel", qvel), ("tips", tips), ("reward", rew), ("ncon", ncon)):
      out[k].append(np.asarray(v))
  return {k: np.stack(v) for k, v in out.items()}


def _probe(env, rng) -> dict:
  u = env.unwrapped
  m, d = u.model, u.data
  pairs, tendons, lowest, steps = collections.Counter(), collections.Counter(), np.inf, 0
  for ep in range(PROBE_EPISODES):
    env.reset(seed=1000 + ep)
    for _ in range(50):
      env.step(rng.uniform(-1, 1, 20).astype(np.float32))
      steps += 1
      for i in range(d.ncon):
        c = d.contact[i]
        pairs[f"{_strip(m.geom(c.geom1).name)}-{_strip(m.geom(c.geom2).name)}"] += 1
      for i in range(d.nefc):
        if d.efc_type[i] == mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON:
          tendons[_strip(m.tendon(d.efc_id[i]).name)] += 1
      # colliding geoms on moving bodies (a fixed body is welded to the world: weld id 0)
      hand = [g for g in range(m.ngeom) if m.body_weldid[m.geom_bodyid[g]] > 0 and m.geom_contype[g]]
      lowest = min(lowest, float(np.min(d.geom_xpos[hand, 2] - m.geom_rbound[hand])))
  return {
    "steps": steps,
    "contact_pairs_steps": dict(pairs),
    "active_tendon_limits_steps": dict(tendons),
    "lowest_geom_bottom_z": lowest,  # bounding-sphere bottom of the moving colliding geoms
    "n_tendons": int(m.ntendon),
    "n_pairs": int(m.npair),
  }


def _model_facts(u) -> dict:
  m = u.model
  joints = {}
  for j in range(m.njnt):
    dof = m.jnt_dofadr[j]
    joints[_strip(m.joint(j).name)] = {
      "range": [float(x) for x in m.jnt_range[j]],
      "axis": [float(x) for x in m.jnt_axis[j]],
      "damping": float(m.dof_damping[dof]),
      "armature": float(m.dof_armature[dof]),
      "frictionloss": float(m.dof_frictionloss[dof]),
      "margin": float(m.jnt_margin[j]),
    }
  bodies = {
    _strip(m.body(b).name): {
      "mass": float(m.body_mass[b]),
      "inertia": [float(x) for x in m.body_inertia[b]],
      "ipos": [float(x) for x in m.body_ipos[b]],
    }
    for b in range(1, m.nbody)
  }
  actuators = {
    _strip(m.actuator(i).name): {
      "joint": _strip(m.joint(m.actuator_trnid[i, 0]).name),
      "kp": float(m.actuator_gainprm[i, 0]),
      "ctrlrange": [float(x) for x in m.actuator_ctrlrange[i]],
      "forcerange": [float(x) for x in m.actuator_forcerange[i]],
    }
    for i in range(m.nu)
  }
  geoms = {
    _strip(m.geom(g).name): {"type": int(m.geom_type[g]), "size": [float(x) for x in m.geom_size[g]]}
    for g in range(m.ngeom)
    if m.geom_contype[g] and m.geom_bodyid[g] > 1
  }
  return {
    "joints": joints,
    "bodies": bodies,
    "actuators": actuators,
    "collision_geoms": geoms,
    "option": {
      "timestep": float(m.opt.timestep),
      "iterations": int(m.opt.iterations),
      "ls_iterations": int(m.opt.ls_iterations),
      "solver": int(m.opt.solver),
      "cone": int(m.opt.cone),
      "integrator": int(m.opt.integrator),
    },
    "joint_names": [_strip(m.joint(j).name) for j in range(m.njnt)],
    "initial_qpos": [float(x) for x in u.initial_qpos],
    "initial_goal": [float(x) for x in u.initial_goal],
    "palm_xpos": [float(x) for x in u.palm_xpos],
    "n_substeps": int(u.n_substeps),
    "dt": float(u.dt),
    "relative_control": bool(u.relative_control),
    "distance_threshold": float(u.distance_threshold),
  }


def _reward_pairs(u, rng):
  n_edge = len(EDGE_DISTS)
  n_rand = N_PAIRS - n_edge - 1
  d = np.concatenate(
    [EDGE_DISTS, rng.uniform(0, 0.01, n_rand // 2), rng.uniform(0.01, 0.05, n_rand - n_rand // 2)]
  )
  dg = np.asarray(u.initial_goal) + rng.normal(0, 0.01, (len(d), 15))
  v = rng.normal(size=(len(d), 15))
  ag = dg + d[:, None] * v / np.linalg.norm(v, axis=-1, keepdims=True)
  exact = np.zeros((1, 15))
  exact[0, 0] = 0.01  # float64 distance exactly the threshold: sparse 0, success 0
  return np.concatenate([ag, exact]), np.concatenate([dg, np.zeros((1, 15))])


def main():
  rng = np.random.default_rng(SEED)
  env = gym.make(GYM_ID)
  dense = gym.make(GYM_ID, reward_type="dense")
  u = env.unwrapped
  env.reset(seed=0)
  arrays = {}
  ag, dg = _reward_pairs(u, rng)
  arrays.update(
    ag=ag,
    dg=dg,
    dist=np.linalg.norm(ag - dg, axis=-1),
    reward_sparse=np.array([u.compute_reward(a, g, {}) for a, g in zip(ag, dg)]),
    reward_dense=np.array([dense.unwrapped.compute_reward(a, g, {}) for a, g in zip(ag, dg)]),
    is_success=np.array([u._is_success(a, g) for a, g in zip(ag, dg)]),  # pylint: disable=protected-access
  )
  bag, bdg = ag[:32].reshape(8, 4, 15), dg[:32].reshape(8, 4, 15)
  arrays.update(
    batch_ag=bag,
    batch_dg=bdg,
    batch_reward_sparse=u.compute_reward(bag, bdg, {}),
    batch_reward_dense=dense.unwrapped.compute_reward(bag, bdg, {}),
  )
  obs, dgs = [], []
  for seed in range(N_RESETS):
    o, _ = env.reset(seed=seed)
    obs.append(o["observation"])
    dgs.append(o["desired_goal"])
  arrays.update(reset_obs=np.stack(obs), reset_dg=np.stack(dgs))
  actions = _sequences(rng)
  arrays["seq_actions"] = actions
  arrays.update({f"seq_{k}": v for k, v in _rollout(env, actions).items()})
  # relative_control=True fails in 1.4.2's MuJoCo-bindings env: its `_set_action` calls mujoco-py's
  # `data.get_joint_qpos`, which MjData lacks. Recorded as a fact; nothing to replay.
  try:
    _rollout(gym.make(GYM_ID, relative_control=True), actions[:1])
    relative_error = None
  except AttributeError as e:
    relative_error = f"{type(e).__name__}: {e}"
  probe = _probe(gym.make(GYM_ID), rng)
  meta = {
    "generated_by": "scripts/make_hand_reference.py",
    "gym_id": GYM_ID,
    "versions": {
      p: importlib_metadata.version(p) for p in ("gymnasium-robotics", "gymnasium", "mujoco", "numpy")
    },
    "seed": SEED,
    "T": T,
    "relative_control_error": relative_error,
    "edge_dists": EDGE_DISTS,
    "max_episode_steps": int(env.spec.max_episode_steps),
    "model": _model_facts(u),
    "probe": probe,
    "keys": {k: list(v.shape) for k, v in arrays.items()},
  }
  os.makedirs(OUT_DIR, exist_ok=True)
  np.savez_compressed(NPZ_PATH, **arrays)
  with open(JSON_PATH, "w") as f:
    json.dump(meta, f, indent=1)
  print(f"wrote {NPZ_PATH} ({os.path.getsize(NPZ_PATH)} bytes) and {JSON_PATH}")
  print(json.dumps(probe, indent=1))


if __name__ == "__main__":
  main()
