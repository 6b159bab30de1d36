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

Per episode k of the trial (1..K), over `--trials` fresh trials (the split's worlds, task-major): success
(the env's `is_success` at the episode's last step, as the learners log it), ever (success at any step of
the episode, the reference's evaluation), steps to the first success (the episode's length where never),
and the return. Actions are sampled unless `--deterministic` (RL²'s evaluation samples: garage's
meta-evaluator, and `agent.eval_deterministic`'s default for RL²). For a multi-task split (ML10, ML45)
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


def roll_objects(obs):
  """obs [n, ...] with every world's object entries (`sawyer.OBJECT_SLICES`) taken from the next world's: the
  policy sees another world's objects where its own are. A policy that reads the goal off the objects'
  start (each of a task's fixed goal vectors also places its objects) loses its goals; one that finds the
  goal by the reward does not."""
  for s in sawyer.OBJECT_SLICES:
    obs = obs.at[:, s].set(jnp.roll(obs[:, s], 1, axis=0))
  return obs


def trial_steps(env, act, carry, key, episodes: int, inner: int, obs_map=None):
  """One trial of every world of `env` (a batch of RL² trial envs) under a recurrent `act`; `obs_map`
  (obs [n, O] -> obs) changes what the policy sees, not the world.

  Returns (reward [K*L, n], success [K*L, n]): the step's reward and the env's success at that step."""
  state = env.reset(key)

  def body(loop, k_step):
    state, carry = loop
    action, carry = act(state.obs if obs_map is None else obs_map(state.obs), k_step, carry)
    state = env.step(state, action)
    # trial/success_last is the step's own success; is_success reads 0 on an episode's last step
    # before the trial's last (the episode restarts there), which would hide those episodes' ends.
    return (state, carry), (state.reward, state.metrics["trial/success_last"])

  _, (reward, success) = jax.lax.scan(
    body, (state, carry), jax.random.split(jax.random.fold_in(key, 1), episodes * inner)
  )
  return reward, success


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
  }


def adaptation(algo, act, split: str, trials: int, seed: int = 0, obs_map=None) -> dict:
  """{"all": episode_table, "<task>": ... per task of a multi-task split, "trials", "episodes", "inner"}."""
  raw = algo.raw_env if split == "train" else algo.raw_env.evaluation_env
  episodes, inner = raw.episodes, raw.inner_length
  num_tasks = getattr(raw, "num_tasks", 1)
  if trials % num_tasks:
    raise ValueError(f"--trials {trials}: must be a multiple of the split's {num_tasks} tasks")
  env = wrappers.batch(raw, trials)
  carry = act.initial_carry((trials,))
  reward, success = jax.jit(trial_steps, static_argnums=(0, 1, 4, 5, 6))(
    env, act, carry, jax.random.PRNGKey(seed), episodes, inner, obs_map
  )
  out = {"trials": trials, "episodes": episodes, "inner": inner, "split": split}
  out["all"] = episode_table(reward, success, episodes, inner)
  for i, name in enumerate(getattr(env, "task_names", ())):
    cols = np.asarray(env.split(jnp.arange(trials)))[i]  # this task's worlds (task-major)
    out[name] = episode_table(np.asarray(reward)[:, cols], np.asarray(success)[:, cols], episodes, inner)
  return out


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  src = p.add_mutually_exclusive_group(required=True)
  src.add_argument("--run", help="a run directory (its latest checkpoint, or --step)")
  src.add_argument("--policy", help="a policy file of agents.experiment.export_policy")
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
  p.add_argument("--json", default=None, help="also write the table here")
  args = p.parse_args(argv)
  if args.set and not args.run:
    raise SystemExit("rl2_adaptation: --set changes a run's config; give --run")
  if args.run:
    algo, state = experiment.restore_run(args.run, args.step, tuple(args.set))
    act = algo.policy(state.params, state.obs_norm, args.deterministic)
  else:
    act, algo = experiment.load_exported_policy(args.policy, args.deterministic)
  if not getattr(algo, "recurrent", False) or not hasattr(algo.raw_env, "episodes"):
    raise SystemExit("rl2_adaptation: the policy must be recurrent and its env RL² trials (env.rl2_episodes)")
  out = adaptation(algo, act, args.split, args.trials, args.seed, roll_objects if args.roll_objects else None)
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
      print(row.ljust(24) + "".join(f"{v:>9.3f}" if row != "return" else f"{v:>9.1f}" for v in vals))
  if args.json:
    with open(args.json, "w") as f:
      json.dump(out, f, indent=1)


if __name__ == "__main__":
  main()
