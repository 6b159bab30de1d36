"""Does an RL² policy adapt within a trial? Success, return and time to success per episode of the trial.

RL² (`mjx_envs.trials`) plays K episodes of one task and goal with the LSTM state carried across them. A
policy that meta-learned does better in a trial's later episodes than in its first: it succeeds more
often, sooner, and earns more. The learners' logs give only the first and last episode's success at the
last step; this script gives every episode of the trial, and the two figures that show adaptation when
success alone does not (a policy that finds the goal by the reward's slope in every episode succeeds
as often in the first as in the last, but sooner in the last only if it remembers):

    python benchmarks/rl2_adaptation.py --run RUN_DIR [--split test] [--trials 200] [--json OUT]
    python benchmarks/rl2_adaptation.py --policy RUN/policy.msgpack --split train
    python benchmarks/rl2_adaptation.py --run RUN_DIR --split train --roll-objects   # goal read off objects?
    python benchmarks/rl2_adaptation.py --run RUN_DIR --set env.num_goals=50          # the benchmark's goals
    python benchmarks/rl2_adaptation.py --policy P --split train --trials 1000 --probe  # what it carries
    python benchmarks/rl2_adaptation.py --bounds reach-v3 --split test   # goal-blind best, expert's steps

Per episode k of the trial (1..K), over `--trials` fresh trials (the split's worlds, task-major): success
(the env's `is_success` at the episode's last step, as the learners log it), ever (success at any step of
the episode, the reference's evaluation), steps to the first success (the episode's length where never),
the return, and the return of the episode's first fifth (a policy that remembers where the reward was
earns it sooner). With `--probe`, what the policy carries into each episode: how much of the goal a
linear read-out of its LSTM state recovers (`goal_probe`). Actions are sampled unless `--deterministic`
(RL²'s evaluation samples: garage's meta-evaluator, and `agent.eval_deterministic`'s default for RL²). For a multi-task split (ML10, ML45)
each task's rows too.
"""

from __future__ import annotations

from mjx_envs import wrappers
from mjx_envs.metaworld import sawyer

import argparse
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run as a script too

from agents import experiment
from agents.common import evaluation


def roll_objects(obs):
  """obs [n, ...] with every world's object entries (`sawyer.OBJECT_SLICES`) taken from the next world's: the
  policy sees another world's objects where its own are. A policy that reads the goal off the objects'
  start (each of a task's fixed goal vectors also places its objects) loses its goals; one that finds the
  goal by the reward does not."""
  for s in sawyer.OBJECT_SLICES:
    obs = obs.at[:, s].set(jnp.roll(obs[:, s], 1, axis=0))
  return obs


def trial_steps(env, act, carry, key, episodes: int, inner: int, obs_map=None, keep_carry: bool = False):
  """One trial of every world of `env` (a batch of RL² trial envs) under a recurrent `act`; `obs_map`
  (obs [n, O] -> obs) changes what the policy sees, not the world.

  Returns (reward [K*L, n], success [K*L, n]): the step's reward and the env's success at that step; with
  `keep_carry` also (ends, goal): the policy's carry at the end of every episode (leaves [K, n, ...]: what
  it takes into the next one) and the trial's goal `info['target']` [n, 3] (None for an env without one)."""
  state = env.reset(key)

  def record(acc, state):
    # trial/success_last is the step's own success; is_success reads 0 on an episode's last step
    # before the trial's last (the episode restarts there), which would hide those episodes' ends.
    return acc, (state.reward, state.metrics["trial/success_last"])

  def episode(loop, keys):
    state, carry, _, out = evaluation.play(env, act, loop[0], keys, loop[1], obs_map, record)
    return (state, carry), (out, carry if keep_carry else None)

  keys = jax.random.split(jax.random.fold_in(key, 1), episodes * inner)
  _, ((reward, success), ends) = jax.lax.scan(
    episode, (state, carry), keys.reshape((episodes, inner) + keys.shape[1:])
  )
  reward, success = (x.reshape((episodes * inner,) + x.shape[2:]) for x in (reward, success))
  if keep_carry:
    return reward, success, ends, state.info.get("target")
  return reward, success


def goal_probe(features, goal, folds: int = 4, ridge: float = 1e-3) -> dict:
  """How much of the goal a linear read-out of `features` [n, F] (e.g. the LSTM state) recovers.

  Ridge regression of goal [n, G] on the standardised features, scored on held-out worlds (`folds`-fold
  cross-validation): r2, the mean over the goal's axes that vary of 1 - SSE / SST (0: no better than the
  goals' mean, 1: the goal exactly), and error / baseline, the mean distance of the read-out / of the goals'
  mean from the goal. Axes that do not vary (push's goal height) are left out of r2."""
  x = np.asarray(features, np.float64).reshape(len(goal), -1)
  g = np.asarray(goal, np.float64)
  n = len(g)
  if n < 2 * folds:
    raise ValueError(f"goal_probe: {n} worlds are too few for {folds} folds")
  x = np.concatenate([(x - x.mean(0)) / (x.std(0) + 1e-8), np.ones((n, 1))], 1)  # + the intercept
  pred, mean = np.zeros_like(g), np.zeros_like(g)
  for f in range(folds):
    test = np.arange(n) % folds == f
    xa = x[~test]
    w = np.linalg.solve(xa.T @ xa + ridge * len(xa) * np.eye(xa.shape[1]), xa.T @ g[~test])
    pred[test] = x[test] @ w
    mean[test] = g[~test].mean(0)
  varies = g.std(0) > 1e-6
  sse, sst = ((pred - g) ** 2).sum(0), ((mean - g) ** 2).sum(0)
  return {
    "r2": float(np.mean(1 - sse[varies] / sst[varies])) if varies.any() else 0.0,
    "error": float(np.linalg.norm(pred - g, axis=1).mean()),
    "baseline": float(np.linalg.norm(mean - g, axis=1).mean()),
  }


def episode_table(reward, success, episodes: int, inner: int) -> dict:
  """Per-episode figures from trial_steps' [K*L, n] arrays: lists of K values each, averaged over worlds."""
  r = np.asarray(reward).reshape(episodes, inner, -1)
  s = np.asarray(success).reshape(episodes, inner, -1) > 0
  ever = s.any(1)
  first = np.where(ever, s.argmax(1) + 1, inner)  # steps to the first success; the episode's length if none
  return {
    "success": s[:, -1].mean(1).round(4).tolist(),
    "ever": ever.mean(1).round(4).tolist(),
    "steps_to_success": first.mean(1).round(2).tolist(),
    "return": r.sum(1).mean(1).round(2).tolist(),
    "return_first_fifth": r[:, : max(inner // 5, 1)].sum(1).mean(1).round(2).tolist(),
  }


def adaptation(algo, act, split: str, trials: int, seed: int = 0, obs_map=None, probe: bool = False) -> dict:
  """{"all": episode_table, "<task>": ... per task of a multi-task split, "trials", "episodes", "inner"}.

  probe: also what the policy carries into each episode, in "all": goal_memory_r2 and goal_memory_error
  (`goal_probe` of the carry entering episode k on the trial's goal; episode 1's is the zero carry) and
  goal_memory_baseline (the error of guessing the goals' mean). Over a multi-task split the read-out may
  name the task rather than the goal. Wants many trials (>= 500: the carry has 2 x lstm_size entries)."""
  raw = algo.raw_env if split == "train" else algo.raw_env.evaluation_env
  episodes, inner = raw.episodes, raw.inner_length
  num_tasks = getattr(raw, "num_tasks", 1)
  if trials % num_tasks:
    raise ValueError(f"--trials {trials}: must be a multiple of the split's {num_tasks} tasks")
  env = wrappers.batch(raw, trials)
  carry = act.initial_carry((trials,))
  reward, success, *ends = jax.jit(trial_steps, static_argnums=(0, 1, 4, 5, 6, 7))(
    env, act, carry, jax.random.PRNGKey(seed), episodes, inner, obs_map, probe
  )
  out = {"trials": trials, "episodes": episodes, "inner": inner, "split": split}
  out["all"] = episode_table(reward, success, episodes, inner)
  if probe:
    ends, goal = ends
    if goal is None:
      raise ValueError("--probe: the env keeps no goal (info['target'])")
    flat = lambda c: np.concatenate([np.asarray(x).reshape(trials, -1) for x in jax.tree.leaves(c)], 1)
    entering = [flat(carry)] + [flat(jax.tree.map(lambda x, k=k: x[k], ends)) for k in range(episodes - 1)]
    probes = [goal_probe(f, goal) for f in entering]
    for key in ("r2", "error", "baseline"):
      out["all"][f"goal_memory_{key}"] = [round(p[key], 4) for p in probes]
  for i, name in enumerate(getattr(env, "task_names", ())):
    cols = np.asarray(env.split(jnp.arange(trials)))[i]  # this task's worlds (task-major)
    out[name] = episode_table(np.asarray(reward)[:, cols], np.asarray(success)[:, cols], episodes, inner)
  return out


def goal_bounds(
  task: str, split: str = "test", num_goals: int = 50, radius: float = 0.05, seed: int = 0
) -> dict:
  """What adapting can add on an ML1 task: the two ends of the scale for a policy with a hidden goal.

  blind: the best success of a goal-blind policy, the share of the split's goals within `radius` (the
  task's success radius: reach and push 0.05, pick-place 0.07) of one fixed point (the best of the goals
  and their box's centre; 2,000 resets, as the split draws them). expert_steps / expert_ever: the scripted
  expert, which sees the goal (`metaworld/<task>`, goals drawn from the task's range), its mean steps to
  the first success and its success at any step over 64 episodes of the split's episode length."""
  import mjx_envs  # pylint: disable=import-outside-toplevel
  from mjx_envs import scripted  # pylint: disable=import-outside-toplevel

  n = 2000
  raw = mjx_envs.make("ML1", task=task, split=split, num_goals=num_goals, impl="c")
  goals = np.asarray(jax.jit(wrappers.batch(raw, n).reset)(jax.random.PRNGKey(seed)).info["target"])
  unique = np.unique(goals, axis=0)
  cands = np.concatenate([unique[:: max(1, len(unique) // 1000)], [(goals.min(0) + goals.max(0)) / 2]])
  blind = max(float((np.linalg.norm(goals - c, axis=1) <= radius).mean()) for c in cands)
  env = mjx_envs.make(f"metaworld/{task}", impl="c")
  steps = raw.episode_length
  _, trace = jax.jit(lambda k: scripted.rollout(env, scripted.expert_for(env), k, 64, steps))(
    jax.random.PRNGKey(seed)
  )
  expert = episode_table(trace["reward"], trace["is_success"], 1, steps)  # one episode per world
  return {"task": task, "split": split, "num_goals": num_goals, "radius": radius, "blind": round(blind, 4),
          "expert_steps": expert["steps_to_success"][0], "expert_ever": expert["ever"][0]}  # fmt: skip


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  src = p.add_mutually_exclusive_group(required=True)
  src.add_argument("--run", help="a run directory (its latest checkpoint, or --step)")
  src.add_argument("--policy", help="a policy file of agents.experiment.export_policy")
  src.add_argument(
    "--bounds",
    metavar="TASK",
    help="no policy: an ML1 task's goal-blind best success and its scripted expert's steps (`goal_bounds`)",
  )
  p.add_argument("--radius", type=float, default=0.05, help="--bounds: the task's success radius (m)")
  p.add_argument("--num-goals", type=int, default=50, help="--bounds: the split's number of goals")
  p.add_argument("--step", type=int, default=None, help="the run's checkpoint (chunks); default the latest")
  p.add_argument(
    "--set",
    action="append",
    default=[],
    metavar="SECTION.KEY=VALUE",
    help="change the run's config before building (--run only), e.g. env.num_goals=50: the benchmark's goals",
  )
  p.add_argument("--split", choices=("train", "test"), default="test")
  p.add_argument("--trials", type=int, default=100)
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--deterministic", action="store_true", help="the policy's mode instead of samples")
  p.add_argument(
    "--roll-objects",
    action="store_true",
    help="each world's policy sees the next world's object entries (does it read the goal off them?)",
  )
  p.add_argument(
    "--probe",
    action="store_true",
    help="also how much of the goal a linear read-out of the carry entering each episode recovers (use >= 500 trials)",
  )
  p.add_argument("--json", default=None, help="also write the table here")
  args = p.parse_args(argv)
  if args.set and not args.run:
    raise SystemExit("rl2_adaptation: --set changes a run's config; give --run")
  if args.bounds:
    out = goal_bounds(args.bounds, args.split, args.num_goals, args.radius, args.seed)
    print(json.dumps(out))
    if args.json:
      with open(args.json, "w") as f:
        json.dump(out, f, indent=1)
    return
  if args.run:
    algo, state = experiment.restore_run(args.run, args.step, tuple(args.set))
    act = algo.policy(state.params, state.obs_norm, args.deterministic)
  else:
    act, algo = experiment.load_exported_policy(args.policy, args.deterministic)
  if not getattr(algo, "recurrent", False) or not hasattr(algo.raw_env, "episodes"):
    raise SystemExit("rl2_adaptation: the policy must be recurrent and its env RL² trials (env.rl2_episodes)")
  obs_map = roll_objects if args.roll_objects else None
  out = adaptation(algo, act, args.split, args.trials, args.seed, obs_map, args.probe)
  out["roll_objects"] = args.roll_objects
  out["source"] = args.run or args.policy
  out["set"] = args.set
  out["deterministic"] = args.deterministic
  rolled = ", objects rolled" if args.roll_objects else ""
  print(
    f"{out['source']}: {args.split} split{rolled}, {args.trials} trials of {out['episodes']} x {out['inner']} steps"
  )
  header = "episode of the trial".ljust(24) + "".join(f"{k + 1:>9}" for k in range(out["episodes"]))
  for name in [k for k in out if isinstance(out[k], dict)]:
    print(f"\n{name}\n{header}")
    for row, vals in out[name].items():
      print(
        row.ljust(24) + "".join(f"{v:>9.3f}" if not row.startswith("return") else f"{v:>9.1f}" for v in vals)
      )
  if args.json:
    with open(args.json, "w") as f:
      json.dump(out, f, indent=1)


if __name__ == "__main__":
  main()
