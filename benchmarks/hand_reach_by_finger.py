"""A trained HandReach policy's success by the kind of goal: which finger the thumb is sent to meet.

HandReach's goals (the reference's `_sample_goal`) are either the initial fingertips (10%) or the thumb
and one of the fore, middle, ring or little fingers meeting near a point in front of the palm. The
overall success rate hides which of these a learner has not learned; `benchmarks/hand_reach_reachability.py`
gives the same split for what any controller can reach (ring: 0.75 of its goals, the others 1.00).

    python benchmarks/hand_reach_by_finger.py --policy RUN/policy.msgpack --episodes 512 [--json OUT]
    python benchmarks/hand_reach_by_finger.py --run RUN_DIR          # its latest checkpoint
    python benchmarks/hand_reach_by_finger.py --expert               # the scripted expert (the demos')
    python benchmarks/hand_reach_by_finger.py --run RUN_DIR --path ring [--path-to-goal 5]

`--path FINGER` also scores the policy at every level of the training curriculum's table on the way to
that finger's meetings (`env.path_goal_probs`, mjx_envs/hand/reach_paths.npz), and with
`--path-to-goal N` on N levels from each path's end to its real meeting goal. Each row of the table
has the kind's median 15-D error too: how far the misses are.

The policy acts deterministically on fresh episodes (C backend); success is the reference's: the 15-D
fingertip error under 0.01 m at the episode's last step. A goal's kind is the env's
(`HandReachEnv.goal_kind`: the finger whose target lies away from its initial tip; none, the initial goal).
"""

from __future__ import annotations

import mjx_envs
from mjx_envs import scripted
from mjx_envs.hand import reach

import argparse
import json
import os
import sys

import jax
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run as a script too

from agents import experiment

KINDS = ("fore", "middle", "ring", "little")  # the meeting goals: HandReachEnv.GOAL_KINDS[1:]
LAST_STEPS = 10  # action_sq averages the episode's last steps: the pose the policy holds


def by_finger(act, episodes: int, seed: int = 0) -> dict:
  """{kind: {"goals", "success"}} and "all" for `episodes` fresh HandReach episodes under `act`."""
  env = mjx_envs.make("HandReach", impl="c")

  @jax.jit
  def run(key):
    k_reset, k_act = jax.random.split(key)
    s0 = jax.vmap(env.reset)(jax.random.split(k_reset, episodes))

    def body(carry, _):
      s, k = carry
      k, sub = jax.random.split(k)
      a = act(s.obs, sub)
      return (jax.vmap(env.step)(s, a), k), a

    (s, _), acts = jax.lax.scan(body, (s0, k_act), None, length=env.episode_length)
    return s.obs["achieved_goal"], s.obs["desired_goal"], acts

  return table(env, *run(jax.random.PRNGKey(seed)))


def by_path(act, finger: str, reps: int = 1, seed: int = 0, to_goal: int = 0) -> dict:
  """{"alpha": [levels], "success": [per level], "goals": per level}: `act` on the goals of the curriculum
  table of `finger` (mjx_envs/hand/reach_paths.npz, `path_goal_probs`): every meeting pose at every alpha,
  then `to_goal` levels on to the meeting goal (labelled 1 + beta), `reps` episodes each (more than 1 only
  for a stochastic `act`: the env's episodes from a goal are deterministic). Tells how far along the way
  to a meeting a policy gets."""
  env = mjx_envs.make("HandReach", impl="c").unwrapped
  table = reach.path_goals(env.initial_goal, to_goal)[KINDS.index(finger)]  # [poses, levels, 15]
  poses, n_levels = table.shape[:2]
  goals = np.repeat(table.reshape(poses * n_levels, 15), reps, axis=0)
  ok = np.linalg.norm(final_tips(act, goals, seed) - goals, axis=-1) < 0.01
  ok = ok.reshape(poses, n_levels, reps).mean(axis=(0, 2))
  levels = [float(x) for x in reach.load_paths()["alphas"]] + [
    1.0 + (b + 1) / to_goal for b in range(to_goal)
  ]
  return {"finger": finger, "alpha": levels, "success": [float(x) for x in ok], "goals": poses * reps}


def final_tips(act, goals: np.ndarray, seed: int = 0) -> np.ndarray:
  """[n, 15] fingertips at the end of one HandReach episode per goal of `goals` [n, 15] (the reset state
  with that goal, `act(obs, key)` for the episode's 50 steps; C backend)."""
  env = mjx_envs.make("HandReach", impl="c").unwrapped

  @jax.jit
  def run(goals, key):
    s = jax.vmap(env.reset_to)(goals)

    def body(carry, _):
      s, k = carry
      k, sub = jax.random.split(k)
      return (jax.vmap(env.step)(s, act(s.obs, sub)), k), None

    (s, _), _ = jax.lax.scan(body, (s, key), None, length=env.episode_length)
    return s.obs["achieved_goal"]

  return np.asarray(run(jax.numpy.asarray(goals, jax.numpy.float32), jax.random.PRNGKey(seed)))


def by_finger_expert(episodes: int, seed: int = 0) -> dict:
  """`by_finger` for HandReach's scripted expert (`mjx_envs.scripted.expert_for`, a controller with a
  state of its own), C backend."""
  env = mjx_envs.make("HandReach", impl="c")
  expert = scripted.expert_for(env)

  @jax.jit
  def run(key):
    s, trace = scripted.rollout(env, expert, key, episodes)
    return s.obs["achieved_goal"], s.obs["desired_goal"], trace["action"]

  return table(env, *run(jax.random.PRNGKey(seed)))


def table(env, tips, goal, actions=None) -> dict:
  """The by-kind table of episodes' final fingertips and goals (each [episodes, 15]) of HandReach `env`.

  With `actions` [steps, episodes, 20], each row also has "action_sq": the mean squared action over the
  episodes' last LAST_STEPS steps. It tells a policy that holds still on a kind of goal (the learners'
  ring-finger goals: 0.02, against the expert's 0.47) from one that presses and misses."""
  hand = env.unwrapped
  assert hand.GOAL_KINDS == ("initial", *KINDS), hand.GOAL_KINDS
  tips, goal = np.asarray(tips), np.asarray(goal)
  error = np.linalg.norm(tips - goal, axis=-1)
  success = error < 0.01
  kind = np.asarray(hand.goal_kind(goal))
  sq = None if actions is None else np.mean(np.square(np.asarray(actions)[-LAST_STEPS:]), axis=(0, 2))

  def row(sel):
    r = {"goals": int(sel.sum()), "success": float(success[sel].mean()) if sel.any() else None}
    r["median_error_m"] = float(np.median(error[sel])) if sel.any() else None  # how far the misses are
    if sq is not None:
      r["action_sq"] = float(sq[sel].mean()) if sel.any() else None
    return r

  out = {"all": row(np.ones(len(goal), bool))}
  for i, name in enumerate(hand.GOAL_KINDS):
    out[name] = row(kind == i)
  return out


def main(argv=None) -> int:
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  src = p.add_mutually_exclusive_group(required=True)
  src.add_argument("--policy", help="a policy file of agents.experiment.export_policy")
  src.add_argument("--run", help="a train.py run directory (its latest checkpoint)")
  src.add_argument("--expert", action="store_true", help="the scripted expert (mjx_envs/hand/scripted.py)")
  p.add_argument("--episodes", type=int, default=512)
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--json", help="write the table here")
  p.add_argument(
    "--path",
    choices=KINDS,
    help="also: success along the curriculum's way to this finger's meetings (by alpha)",
  )
  p.add_argument(
    "--path-to-goal", type=int, default=0, help="with --path: levels on from its end to the goals"
  )
  args = p.parse_args(argv)
  if args.expert:
    out = by_finger_expert(args.episodes, args.seed)
  else:
    act = experiment.load_exported_policy(args.policy)[0] if args.policy else experiment.load_policy(args.run)
    out = by_finger(act, args.episodes, args.seed)
    if args.path:
      path = by_path(act, args.path, seed=args.seed, to_goal=args.path_to_goal)
      print(f"on the way to the {args.path} finger's meetings ({path['goals']} episodes per alpha):")
      print("  " + "  ".join(f"{a:.2f}: {v:.2f}" for a, v in zip(path["alpha"], path["success"])))
  print(
    "| goal | episodes | success | median error (mm) | mean squared action, last steps |\n|---|---:|---:|---:|---:|"
  )
  fmt = lambda v: "-" if v is None else f"{v:.2f}"
  for name, row in out.items():
    mm = None if row["median_error_m"] is None else 1000 * row["median_error_m"]
    print(f"| {name} | {row['goals']} | {fmt(row['success'])} | {fmt(mm)} | {fmt(row.get('action_sq'))} |")
  if args.json:
    with open(args.json, "w") as f:
      json.dump(
        {
          "source": args.policy or args.run or "scripted expert",
          "episodes": args.episodes,
          "seed": args.seed,
          **out,
          **({"path": path} if args.path and not args.expert else {}),
        },
        f,
        indent=1,
      )
  return 0


if __name__ == "__main__":
  raise SystemExit(main())
