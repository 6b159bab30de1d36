"""How many HandReach goals can the hand reach at all? An upper bound on any policy's success rate.

For each sampled goal (the env's own `sample_goal`, the reference's distribution) a bounded least-squares
IK over the 24 hand joints looks for joint positions whose fingertips meet the goal: C MuJoCo kinematics,
each joint within its range, the four distal couplings `T_?FJ1c` held within their tendon range
(`--slack` scales it), contacts ignored; the least 15-D fingertip error over several starts (the initial
pose, then random poses within the ranges). A goal counts as reachable when that error is under the
success threshold (0.01 m). Contacts can only remove poses, so the fraction reachable bounds the success
of any policy from above.

    python benchmarks/hand_reach_reachability.py --goals 400 [--uncoupled] [--json OUT]

The same IK on the reference's own hand (gymnasium-robotics 1.4.2's HandReach-v3, its model, its reset's
goals), run with the reference venv's python (mujoco, scipy, gymnasium-robotics; no jax needed):

    /work/refvenv/bin/python benchmarks/hand_reach_reachability.py --reference --goals 1000

Prints the fraction reachable and the median least error per kind of goal (the initial fingertips, or
the thumb meeting the fore, middle, ring or little finger).
"""

import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import mujoco
import numpy as np
import scipy.optimize

FINGERS = ("ff", "mf", "rf", "lf")
# Both tasks' episode: 50 control steps of 20 MuJoCo steps of 0.002 s (gymnasium-robotics' HandReach-v3).
EPISODE_STEPS, N_SUBSTEPS = 50, 20
SUCCESS = 0.01  # the tasks' threshold on the 15-D fingertip distance (m)


def goal_kind(goals, initial, tol: float = 1e-6):
  """[...] index of the finger (0-3, FINGERS' order) whose target in `goals` [..., 15] lies more than `tol`
  from its tip in `initial` [..., 15], the thumb's partner; -1 where none does (the initial goal)."""
  moved = np.linalg.norm(
    (np.asarray(goals) - np.asarray(initial)).reshape(*np.shape(goals)[:-1], 5, 3), axis=-1
  )
  moved = moved[..., :4] > tol  # the thumb moves in every meeting goal
  return np.where(moved.any(-1), np.argmax(moved, -1), -1)


def ours(n_goals: int, seed: int):
  """(model, qpos0 [nq], hand qpos addresses [24], hand joint ids [24], fingertip site ids [5], coupling
  tendon ids, goals [n, 15], initial fingertips [15]) of our HandReach under C MuJoCo."""
  import mjx_envs

  import jax

  env = mjx_envs.make("HandReach", impl="c").unwrapped
  m = env.mj_model
  qidx = np.asarray(env._qpos_idx)
  joints = [int(np.flatnonzero(m.jnt_qposadr == i)[0]) for i in qidx]
  goals = np.asarray(jax.vmap(env.sample_goal)(jax.random.split(jax.random.PRNGKey(seed), n_goals)))
  tendons = list(range(m.ntendon))  # our model's tendons are the four distal couplings
  return m, np.asarray(env._qpos0, np.float64), qidx, joints, env._tips, tendons, goals, env.initial_goal


def reference(n_goals: int, seed: int):
  """The same tuple as `ours` for gymnasium-robotics' HandReach-v3: its model, its goals (`reset(seed=seed
  + i)`), its couplings (the tendons `robot0:T_?FJ1c`; its other 40 tendons never bind inside the joint
  ranges)."""
  import gymnasium as gym
  import gymnasium_robotics

  gym.register_envs(gymnasium_robotics)
  env = gym.make("HandReach-v3").unwrapped
  goals = []
  for i in range(n_goals):
    env.reset(seed=seed + i)
    goals.append(env.goal.copy())
  m = env.model
  joints = list(range(m.njnt))  # HandReach's model is the hand alone
  tips = np.array([m.site(f"robot0:S_{f}tip").id for f in FINGERS + ("th",)])
  tendons = [t for t in range(m.ntendon) if m.tendon(t).name.endswith("J1c")]
  qpos0 = np.asarray(env.initial_qpos, np.float64)  # the state every reset starts from
  return m, qpos0, m.jnt_qposadr[joints], joints, tips, tendons, np.asarray(goals), env.initial_goal


def least_errors(m, qpos0, qidx, joints, tips_ids, tendons, goals, initial, starts, rng, slack, coupled):
  """{kind: [least 15-D fingertip error per goal]} (kinds: "initial" or the finger meeting the thumb)."""
  d = mujoco.MjData(m)
  lo, hi = m.jnt_range[joints, 0], m.jnt_range[joints, 1]
  # Each coupling tendon: (index of J0, its coefficient, index of J1, its coefficient, half range).
  couplings = []
  for t in tendons:
    adr = m.tendon_adr[t]
    (ja, ca), (jb, cb) = [(joints.index(m.wrap_objid[adr + i]), m.wrap_prm[adr + i]) for i in range(2)]
    couplings.append((ja, ca, jb, cb, slack * m.tendon_range[t][1]))

  def tips(q):
    d.qpos[:] = qpos0
    d.qpos[qidx] = q
    mujoco.mj_kinematics(m, d)
    return d.site_xpos[tips_ids].reshape(-1).copy()

  def excess(q):  # how far each coupling tendon is outside its range
    return np.array([max(abs(ca * q[ja] + cb * q[jb]) - r, 0.0) for ja, ca, jb, cb, r in couplings])

  def residual(q, goal):
    r = tips(q) - goal
    return np.concatenate([r, 10.0 * excess(q)]) if coupled else r

  errors, solutions = collections.defaultdict(list), collections.defaultdict(list)
  for goal in goals.astype(np.float64):
    k = int(goal_kind(goal, initial))
    kind = FINGERS[k] if k >= 0 else "initial"
    best, best_q = np.inf, qpos0[qidx].clip(lo, hi)
    for s in range(starts):
      x0 = qpos0[qidx].clip(lo, hi) if s == 0 else rng.uniform(lo, hi)
      q = scipy.optimize.least_squares(residual, x0, args=(goal,), bounds=(lo, hi), max_nfev=400).x
      if not coupled or np.all(excess(q) <= 1e-5):
        e = float(np.linalg.norm(tips(q) - goal))
        if e < best:
          best, best_q = e, q
      if best < 0.002:
        break
    errors[kind].append(best)
    solutions[kind].append((goal, best_q))
  return errors, solutions


def held_episode(m, d, qpos0, tips_ids, ctrl, n_steps=EPISODE_STEPS, n_substeps=N_SUBSTEPS):
  """(fingertips [15], actuator lengths [nu]) at the end of an episode from the reset state (`qpos0`, at
  rest) holding the constant `ctrl` for `n_steps` control steps of `n_substeps` MuJoCo steps (data `d`)."""
  mujoco.mj_resetData(m, d)
  d.qpos[:] = qpos0
  mujoco.mj_forward(m, d)
  d.ctrl[:] = ctrl
  for _ in range(n_steps):
    mujoco.mj_step(m, d, nstep=n_substeps)
  return d.site_xpos[tips_ids].reshape(-1).copy(), d.actuator_length.copy()


def hold_errors(m, qpos0, qidx, tips_ids, solutions, n_steps, n_substeps, rounds=6, refine=0):
  """({kind: [15-D fingertip error after an episode of a constant action aimed at the IK pose]}, {kind:
  [that best constant action, 20]}), contacts and gravity included.

  A constant action is one a policy can send. The servos are weak (kp 1-5 against gravity), so the action
  that holds a pose is not the pose itself: starting from each actuator's length at the IK pose (its
  joint's angle or its coupling tendon's length), each round runs an episode from the reset state (qpos0,
  at rest: `n_steps` control steps of `n_substeps` MuJoCo steps) and moves the targets by what the
  actuators fell short of (an integral correction, clipped to the control range). The error is the
  fingertips' distance to the goal at an episode's end, as the task scores it, the least over `rounds`.
  Contacts that block the pose (neighbouring fingers, the thumb against a finger) keep it above the
  kinematic error. With `refine` > 0 a goal still missed gets a least-squares search over the constant
  action (at most `refine` evaluations besides its finite differences), scored on whole episodes."""
  d = mujoco.MjData(m)
  lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]

  def episode(ctrl):
    return held_episode(m, d, qpos0, tips_ids, ctrl, n_steps, n_substeps)

  errors, actions = collections.defaultdict(list), collections.defaultdict(list)
  for kind, pairs in solutions.items():
    for goal, q in pairs:
      mujoco.mj_resetData(m, d)
      d.qpos[:] = qpos0
      d.qpos[qidx] = q
      mujoco.mj_forward(m, d)
      target = d.actuator_length.copy()
      ctrl, best, best_ctrl = np.clip(target, lo, hi), np.inf, None
      for _ in range(rounds):
        tips, length = episode(ctrl)
        e = float(np.linalg.norm(tips - goal))
        if e < best:
          best, best_ctrl = e, ctrl
        ctrl = np.clip(ctrl + (target - length), lo, hi)
      if refine and best >= SUCCESS:
        # Contact moves the fingers off the kinematic pose: search the constant action itself, on the
        # episode's outcome (finite differences of whole episodes, within the control range).
        fit = scipy.optimize.least_squares(
          lambda c: episode(c)[0] - goal, best_ctrl, bounds=(lo, hi), diff_step=1e-2, max_nfev=refine
        )
        e = float(np.linalg.norm(episode(fit.x)[0] - goal))
        if e < best:
          best, best_ctrl = e, fit.x
      errors[kind].append(best)
      actions[kind].append(np.asarray(best_ctrl, np.float64))
  return errors, actions


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--goals", type=int, default=200, help="goals sampled (seed --seed)")
  p.add_argument("--starts", type=int, default=8, help="IK starts per goal (the first is the initial pose)")
  p.add_argument("--seed", type=int, default=1)
  p.add_argument("--reference", action="store_true", help="gymnasium-robotics' hand and goals, not ours")
  p.add_argument("--uncoupled", action="store_true", help="let the coupled distal joints move freely")
  p.add_argument(
    "--slack", type=float, default=1.0, help="scale of the coupling tendons' range (0: J0 follows J1 exactly)"
  )
  p.add_argument(
    "--hold",
    action="store_true",
    help="score each IK pose held as servo targets for an episode, contacts included (not kinematics)",
  )
  p.add_argument(
    "--refine", type=int, default=0, help="with --hold: least-squares evaluations per missed goal"
  )
  p.add_argument("--kinds", default=None, help="comma-separated goal kinds to score (initial,ff,mf,rf,lf)")
  p.add_argument("--json", default=None, help="write the per-kind figures here")
  a = p.parse_args(argv)

  world = (reference if a.reference else ours)(a.goals, a.seed)
  rng = np.random.default_rng(a.seed)
  if a.kinds:  # score only these kinds of goal (the ring finger's, say): keep the rest out of the IK
    keep = set(a.kinds.split(","))
    initial = world[-1]
    kinds = goal_kind(world[-2], initial)
    names = np.array([FINGERS[k] if k >= 0 else "initial" for k in kinds])
    world = (*world[:-2], world[-2][np.isin(names, list(keep))], initial)
  errors, solutions = least_errors(*world, a.starts, rng, a.slack, not a.uncoupled)
  if a.hold:
    m, qpos0, qidx, _, tips_ids = world[:5]
    errors, _ = hold_errors(m, qpos0, qidx, tips_ids, solutions, EPISODE_STEPS, N_SUBSTEPS, refine=a.refine)

  out = {}
  for kind in ("initial",) + FINGERS:
    e = np.array(errors.get(kind, []))
    if len(e):
      out[kind] = {
        "goals": len(e),
        "reachable": float(np.mean(e < SUCCESS)),
        "median_error_m": float(np.median(e)),
      }
      print(
        f"{kind:8s} {len(e):4d} goals  reachable {out[kind]['reachable']:.2f}  median least error "
        f"{1000 * out[kind]['median_error_m']:.1f} mm"
      )
  every = np.concatenate([np.array(v) for v in errors.values()])
  out["all"] = {"goals": len(every), "reachable": float(np.mean(every < SUCCESS)), "coupled": not a.uncoupled}
  out["measure"] = "a constant action for an episode, contacts included" if a.hold else "kinematic IK"
  out["refine"] = a.refine
  out["slack"] = a.slack
  out["model"] = "gymnasium-robotics 1.4.2 HandReach-v3" if a.reference else "mjx_envs HandReach (C MuJoCo)"
  bound = "a constant action reaches them: a lower bound" if a.hold else "an upper bound on success"
  print(f"all      {len(every):4d} goals  reachable {out['all']['reachable']:.3f} ({bound})")
  if a.json:
    with open(a.json, "w") as f:
      json.dump(out, f, indent=1)


if __name__ == "__main__":
  main()
