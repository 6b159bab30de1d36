"""Where Bob misses a holdout goal: position, rotation, or the block never touched.

Plays `--episodes` single-goal episodes of a holdout task (default push-1: the block upright at a new cell
with a random yaw, rotations compared modulo the cube's symmetries) with the deterministic Bob of each
checkpoint, for each goal budget in `--steps-per-object` (default: the run's turn), and sorts every
episode that ends without success by the block's state at the end of the budget:

  untouched      the block moved less than 1 cm from its start;
  position       within the rotation threshold, outside the position one (0.04 m);
  rotation       within the position threshold, outside the rotation one (0.2 rad);
  both           outside both.

It also gives the share of misses whose block was within the position threshold at some step, the
median final position and rotation errors of the misses, and the median block-to-goal distance at the
start (of all episodes and of the misses): a miss that ends further off than it began moved the block
away from its goal. Last, the median distance at the end from the blocks to their goal and to the goal of
another episode (one this episode was not shown): a Bob who follows his goals ends nearer his own.

    python benchmarks/holdout_misses.py RUN_DIR [--checkpoints 10 33] [--steps-per-object 50 200] \\
        [--task push-1] [--episodes 256] [--json OUT]
"""

from __future__ import annotations

import mjx_envs  # noqa: F401  first: sets the XLA:CPU flag before JAX starts
from mjx_envs.blocks import goals as G

import argparse
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from agents import tournament
from agents.selfplay import holdout

KINDS = ("untouched", "position", "rotation", "both")
UNTOUCHED_M = 0.01


def sort_misses(
  solved, pos_end, rot_end, moved, ever_pos_ok, pos_threshold, rot_threshold, pos_start=None
) -> dict:
  """Per-episode arrays [E] -> the success rate and, over the misses, each kind's share, the share that
  was within the position threshold at some step, and the median final errors (m, degrees); with
  `pos_start` (each episode's block-to-goal distance at the start), the median of all episodes' and of the
  misses' start distances beside it."""
  solved, ever_pos_ok = np.asarray(solved, bool), np.asarray(ever_pos_ok, bool)
  pos_end, rot_end, moved = (np.asarray(a, float) for a in (pos_end, rot_end, moved))
  miss = ~solved
  pos_ok, rot_ok = pos_end < pos_threshold, rot_end < rot_threshold
  kind = np.where(moved < UNTOUCHED_M, 0, np.where(rot_ok & ~pos_ok, 1, np.where(pos_ok & ~rot_ok, 2, 3)))
  n_miss = int(miss.sum())
  share = lambda m: float(m[miss].mean()) if n_miss else 0.0
  return {
    "episodes": int(solved.size),
    "success": float(solved.mean()),
    "misses": n_miss,
    **{f"miss_{k}": share(kind == i) for i, k in enumerate(KINDS)},
    "miss_ever_within_position": share(ever_pos_ok),
    "miss_median_position_error_m": float(np.median(pos_end[miss])) if n_miss else 0.0,
    "miss_median_rotation_error_deg": float(np.degrees(np.median(rot_end[miss]))) if n_miss else 0.0,
    **(
      {}
      if pos_start is None
      else {
        "median_start_distance_m": float(np.median(pos_start)),
        "miss_median_start_distance_m": float(np.median(np.asarray(pos_start)[miss])) if n_miss else 0.0,
      }
    ),
  }


def play(algo, state, task: str, steps_per_object: int, episodes: int, key):
  """Single-goal episodes of holdout `task` with Bob's deterministic policy: per-episode arrays [E] of
  solved, final position error, final rotation error, the block's displacement, whether any block was
  ever within the position threshold (before a success), the start's position error, and the end's
  distance to the episode's goal and to another episode's (a goal it was not shown)."""
  env = holdout.make_holdout_env(task, algo.holdout_world)
  name, n = holdout.parse_task(task)
  cfg = env.config
  budget = steps_per_object * n
  symmetric = name != "flip"
  act = algo.policy(state.params, state.obs_norm)
  k_reset, k_goal, k_run = jax.random.split(key, 3)
  start = jax.vmap(env.reset)(jax.random.split(k_reset, episodes))
  first = jax.vmap(env._achieved)(start.pipeline_state)  # pylint: disable=protected-access
  goal = jax.vmap(lambda k, a: G.pad(G.make_goal(k, name, a[:n], n, cfg["table_portion"])))(
    jax.random.split(k_goal, episodes), first
  )
  s = start.replace(obs=dict(start.obs, desired_goal=goal), info={**start.info, "goal": goal})
  recurrent = hasattr(act, "initial_carry")

  steps_left = algo.raw_env.config["steps_left_obs"]

  def errors(st):
    a = env._achieved(st.pipeline_state)  # pylint: disable=protected-access
    pos = jnp.linalg.norm(a[:n, :3] - st.info["goal"][:n, :3], axis=-1)
    rot = G.rotation_distance(a[:n, 3:], st.info["goal"][:n, 3:], symmetric)
    return pos, rot, a

  def body(carry, kt):
    st, solved, ever, memory = carry
    k, t = kt
    obs = dict(st.obs, steps_left=jnp.full((episodes,), 1.0 - t / budget)) if steps_left else st.obs
    if recurrent:
      action, memory = act(obs, k, memory)
    else:
      action = act(obs, k)
    nxt = jax.vmap(env.step)(st, action)
    pos, rot, _ = jax.vmap(errors)(nxt)
    ok = jnp.all((pos < cfg["pos_threshold"]) & (rot < cfg["rot_threshold"]), -1)
    ever = ever | (~solved & jnp.all(pos < cfg["pos_threshold"], -1))
    # A solved episode keeps the state it was solved in (the holdout would move on to its next goal).
    nxt = jax.tree.map(lambda a, b: jnp.where(solved.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), st, nxt)
    return (nxt, solved | ok, ever, memory), None

  memory = act.initial_carry((episodes,)) if recurrent else None
  zeros = jnp.zeros((episodes,), bool)
  xs = (jax.random.split(k_run, budget), jnp.arange(budget))
  (end, solved, ever, _), _ = jax.lax.scan(body, (s, zeros, zeros, memory), xs)
  pos, rot, achieved = jax.vmap(errors)(end)
  moved = jnp.max(jnp.linalg.norm(achieved[:, :n, :3] - first[:, :n, :3], axis=-1), -1)
  start_pos = jnp.max(jax.vmap(errors)(s)[0], -1)
  # A control for goal-following: where the blocks end against the goal of the next episode (one Bob was
  # not shown, drawn the same way; ends are compared as they are, solved or not).
  shown = jnp.linalg.norm(achieved[:, :n, :3] - goal[:, :n, :3], axis=-1).max(-1)
  other_goal = jnp.roll(goal, 1, axis=0)
  other = jnp.linalg.norm(achieved[:, :n, :3] - other_goal[:, :n, :3], axis=-1).max(-1)
  placed = lambda g: jnp.all(
    G.object_success(achieved, g, cfg["pos_threshold"], cfg["rot_threshold"], symmetric)[:, :n], -1
  )
  return (
    solved,
    jnp.max(pos, -1),
    jnp.max(rot, -1),
    moved,
    ever,
    start_pos,
    shown,
    other,
    placed(goal),
    placed(other_goal),
  )


def main(argv=None) -> int:
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("run_dir")
  p.add_argument("--checkpoints", type=int, nargs="*", default=None, help="default: the latest")
  p.add_argument("--steps-per-object", type=int, nargs="*", default=None, help="default: the run's")
  p.add_argument("--task", default="push-1")
  p.add_argument("--episodes", type=int, default=256)
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--json", default=None)
  args = p.parse_args(argv)
  try:
    holdout.parse_task(args.task)
    algo, states, meta = tournament.load_run(args.run_dir, with_meta=True)
  except (FileNotFoundError, ValueError) as e:
    raise SystemExit(f"error: {e}") from None
  steps = args.checkpoints or [max(states)]
  missing = sorted(set(steps) - set(states))
  if missing:
    raise SystemExit(f"no checkpoint(s) {missing} in {args.run_dir}; available: {sorted(states)}")
  budgets = args.steps_per_object or [algo.raw_env.config["bob_steps_per_object"]]
  if any(b < 1 for b in budgets):
    raise SystemExit(f"error: --steps-per-object must be positive, got {budgets}")
  cfg = holdout.make_holdout_env(args.task, algo.holdout_world).config
  key = jax.random.PRNGKey(args.seed)
  rows = []
  for budget in budgets:
    run = jax.jit(lambda st, b=budget: play(algo, st, args.task, b, args.episodes, key))
    for s in steps:
      solved, pos, rot, moved, ever, start_pos, shown, other, at_goal, at_other = (
        np.asarray(a) for a in run(states[s])
      )
      row = sort_misses(solved, pos, rot, moved, ever, cfg["pos_threshold"], cfg["rot_threshold"], start_pos)
      row["median_end_distance_to_goal_m"] = float(np.median(shown))
      row["median_end_distance_to_another_goal_m"] = float(np.median(other))
      row["end_at_goal"] = float(at_goal.mean())  # placed at the end (a solved episode keeps its state)
      row["end_at_another_goal"] = float(at_other.mean())  # the chance of the same
      row = {
        "checkpoint": s,
        "env_steps": int(meta[s].get("env_steps", -1)),
        "steps_per_object": budget,
        **row,
      }
      rows.append(row)
      print(json.dumps(row))
  if args.json:
    with open(args.json, "w") as f:
      json.dump({"run": args.run_dir, "task": args.task, "seed": args.seed, "rows": rows}, f, indent=1)
  return 0


if __name__ == "__main__":
  sys.exit(main())
