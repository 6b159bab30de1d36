"""How many HandReach goals can the hand reach at all? An upper bound on any policy's success rate.

For each sampled goal (the env's own `sample_goal`, the reference's distribution) a bounded least-squares
IK over the 24 hand joints looks for joint positions whose fingertips meet the goal: C MuJoCo kinematics,
each joint within its range, the four distal couplings `T_?FJ1c` held within their tendon range
(`--slack` scales it), contacts ignored; the least 15-D fingertip error over several starts (the initial
pose, then random poses within the ranges). A goal counts as reachable when that error is under the success threshold (0.01 m). Contacts
can only remove poses, so the fraction reachable bounds the success of any policy from above.

    python benchmarks/hand_reach_reachability.py --goals 400 [--uncoupled] [--json OUT]

Prints the fraction reachable and the median least error per kind of goal (the initial fingertips, or
the thumb meeting the fore, middle, ring or little finger).
"""

import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import mjx_envs

import jax
import mujoco
import numpy as np
import scipy.optimize

FINGERS = ("ff", "mf", "rf", "lf")


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--goals", type=int, default=200, help="goals sampled (seed --seed)")
  p.add_argument("--starts", type=int, default=8, help="IK starts per goal (the first is the initial pose)")
  p.add_argument("--seed", type=int, default=1)
  p.add_argument("--uncoupled", action="store_true", help="let the coupled distal joints move freely")
  p.add_argument(
    "--slack", type=float, default=1.0, help="scale of the coupling tendons' range (0: J0 follows J1 exactly)"
  )
  p.add_argument("--json", default=None, help="write the per-kind figures here")
  a = p.parse_args(argv)

  env = mjx_envs.make("HandReach", impl="c").unwrapped
  m, d = env.mj_model, mujoco.MjData(env.mj_model)
  qidx = np.asarray(env._qpos_idx)
  joints = [int(np.flatnonzero(m.jnt_qposadr == i)[0]) for i in qidx]
  lo, hi = m.jnt_range[joints, 0], m.jnt_range[joints, 1]
  q0 = np.asarray(env._qpos0, np.float64)
  # Each coupling tendon: (index of J0, its coefficient, index of J1, its coefficient, half range).
  couplings = []
  for t in range(m.ntendon):
    adr = m.tendon_adr[t]
    (ja, ca), (jb, cb) = [(joints.index(m.wrap_objid[adr + i]), m.wrap_prm[adr + i]) for i in range(2)]
    couplings.append((ja, ca, jb, cb, a.slack * m.tendon_range[t][1]))
  coupled = not a.uncoupled

  def tips(q):
    d.qpos[:] = q0
    d.qpos[qidx] = q
    mujoco.mj_kinematics(m, d)
    return d.site_xpos[env._tips].reshape(-1).copy()

  def excess(q):  # how far each coupling tendon is outside its range
    return np.array([max(abs(ca * q[ja] + cb * q[jb]) - r, 0.0) for ja, ca, jb, cb, r in couplings])

  def residual(q, goal):
    r = tips(q) - goal
    return np.concatenate([r, 10.0 * excess(q)]) if coupled else r

  rng = np.random.default_rng(a.seed)
  goals = np.asarray(jax.vmap(env.sample_goal)(jax.random.split(jax.random.PRNGKey(a.seed), a.goals)))
  initial = env.initial_goal
  errors = collections.defaultdict(list)
  for goal in goals.astype(np.float64):
    moved = np.linalg.norm((goal - initial).reshape(5, 3), axis=1) > 1e-6
    kind = FINGERS[int(np.flatnonzero(moved[:4])[0])] if moved.any() else "initial"
    best = np.inf
    for s in range(a.starts):
      x0 = q0[qidx].clip(lo, hi) if s == 0 else rng.uniform(lo, hi)
      q = scipy.optimize.least_squares(residual, x0, args=(goal,), bounds=(lo, hi), max_nfev=400).x
      if not coupled or np.all(excess(q) <= 1e-5):
        best = min(best, float(np.linalg.norm(tips(q) - goal)))
      if best < 0.002:
        break
    errors[kind].append(best)

  out = {}
  for kind in ("initial",) + FINGERS:
    e = np.array(errors.get(kind, []))
    if len(e):
      out[kind] = {
        "goals": len(e),
        "reachable": float(np.mean(e < 0.01)),
        "median_error_m": float(np.median(e)),
      }
      print(
        f"{kind:8s} {len(e):4d} goals  reachable {out[kind]['reachable']:.2f}  median least error "
        f"{1000 * out[kind]['median_error_m']:.1f} mm"
      )
  every = np.concatenate([np.array(v) for v in errors.values()])
  out["all"] = {"goals": len(every), "reachable": float(np.mean(every < 0.01)), "coupled": coupled}
  out["slack"] = a.slack
  print(
    f"all      {len(every):4d} goals  reachable {out['all']['reachable']:.3f} (an upper bound on success)"
  )
  if a.json:
    with open(a.json, "w") as f:
      json.dump(out, f, indent=1)


if __name__ == "__main__":
  main()
