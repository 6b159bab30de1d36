"""Build mjx_envs/hand/reach_paths.npz: reachable fingertip goals on the way to each kind of meeting.

HandReach's learners never meet a single ring-finger goal (BENCHMARKS.md, "HandReach: where the plateau
is"). The env key `path_goal_probs` (mjx_envs/hand/reach.py) draws some training goals from this table
instead: points on the way from the initial pose to a meeting, the thumb's and the finger's tips those
that a constant action really reaches in a 50-step episode from the reset state (C MuJoCo, contacts and
gravity included). Measured (BENCHMARKS.md, "A curriculum on the way to the ring finger's meetings"):
trained on it SAC+HER meets no more ring goals; a policy trained without it already meets the paths'
ends and fails a few mm beyond them.

For each finger (fore, middle, ring, little): goals of that kind from the env's own `sample_goal` (the
reference's distribution), the IK and constant-action search of benchmarks/hand_reach_reachability.py
(`--hold --refine`), the first `--poses` whose constant action meets the goal (error under 0.01 m). Then
for alpha in `--alphas` levels over (0, 1] the action a0 + alpha * (a* - a0), a0 the action aimed at the
initial pose, is held for an episode and the thumb's and the partner's tips at its end recorded.

    python scripts/make_hand_reach_paths.py            # 5-6 minutes on the 2-core CPU

Output: `tips` [4 fingers, poses, alphas, 2 (partner, thumb), 3] float32, `alphas` [alphas], `errors`
[4, poses] (each pose's final 15-D error to its goal at alpha 1), `actions` [4, poses, 20] (the held
constant action a*, as ctrl), `a0` [20], `path_errors` [4, poses, alphas] (the 15-D error of the held
action's episode to the path goal, the other three tips at their initial positions, which sag under the
held action: up to 23 mm at alpha 0.1, under 1 cm from alpha 0.7; tests/test_hand_reach_by_finger.py
replays them),
`goals` [4, poses, 15] (the env's meeting goal each pose was solved for: `path_to_goal` levels lead on
from the path's end to it).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import mujoco
import numpy as np

from benchmarks import hand_reach_reachability as reach

OUT = os.path.join(
  os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "mjx_envs/hand/reach_paths.npz"
)


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--poses", type=int, default=8, help="reachable meeting poses kept per finger")
  p.add_argument("--alphas", type=int, default=10, help="levels of alpha over (0, 1]")
  p.add_argument("--goals", type=int, default=160, help="goals drawn to find them (all kinds)")
  p.add_argument("--seed", type=int, default=5)
  p.add_argument("--out", default=OUT)
  a = p.parse_args(argv)

  m, qpos0, qidx, joints, tips_ids, tendons, goals, initial = reach.ours(a.goals, a.seed)
  kinds = reach.goal_kind(goals, initial)
  rng = np.random.default_rng(a.seed)
  d = mujoco.MjData(m)
  d.qpos[:] = qpos0
  mujoco.mj_forward(m, d)
  lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
  a0 = np.clip(d.actuator_length.copy(), lo, hi)  # the action aimed at the initial pose
  alphas = np.arange(1, a.alphas + 1) / a.alphas

  table = np.zeros((4, a.poses, len(alphas), 2, 3), np.float32)
  errors = np.zeros((4, a.poses), np.float32)
  actions = np.zeros((4, a.poses, m.nu), np.float32)
  meeting_goals = np.zeros((4, a.poses, 15), np.float32)
  path_errors = np.zeros((4, a.poses, len(alphas)), np.float32)
  init5 = initial.reshape(5, 3)
  for f, name in enumerate(reach.FINGERS):
    kept = 0
    for goal in goals[kinds == f]:
      _, sol = reach.least_errors(
        m, qpos0, qidx, joints, tips_ids, tendons, goal[None], initial, 4, rng, 1.0, True
      )
      err, act = reach.hold_errors(
        m, qpos0, qidx, tips_ids, sol, reach.EPISODE_STEPS, reach.N_SUBSTEPS, refine=15
      )
      if err[name][0] >= reach.SUCCESS:
        continue
      for i, alpha in enumerate(alphas):
        tips = reach.held_episode(m, d, qpos0, tips_ids, a0 + alpha * (act[name][0] - a0))[0].reshape(5, 3)
        table[f, kept, i] = tips[[f, 4]]
        others = [j for j in range(4) if j != f]
        path_errors[f, kept, i] = np.linalg.norm(tips[others] - init5[others])
      errors[f, kept] = err[name][0]
      actions[f, kept] = act[name][0]
      meeting_goals[f, kept] = goal
      kept += 1
      print(f"{name}: pose {kept}/{a.poses}, error {1000 * err[name][0]:.1f} mm", flush=True)
      if kept == a.poses:
        break
    if kept < a.poses:
      raise SystemExit(f"{name}: only {kept} reachable goals among {a.goals}; raise --goals")
  np.savez_compressed(
    a.out,
    tips=table,
    alphas=alphas.astype(np.float32),
    errors=errors,
    actions=actions,
    a0=a0.astype(np.float32),
    path_errors=path_errors,
    goals=meeting_goals,
  )
  print(
    f"wrote {a.out}: tips {table.shape}; held actions' error to the path goals at most {1000 * path_errors.max():.1f} mm"
  )


if __name__ == "__main__":
  main()
