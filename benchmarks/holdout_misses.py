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
away from its goal. Last, a control for goal-following: the median distance at the end from the blocks
to their goal and to the goal of another episode (one this episode was not shown), and the share of
episodes that end placed at that other goal, the chance level of the success rate: a Bob who follows his
goals ends nearer his own, and succeeds more often than that.

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


def sort_misses(ep: dict, pos_threshold: float, rot_threshold: float) -> dict:
  """Per-episode arrays [E] (`play`'s: solved, pos_end, rot_end, moved, ever_pos_ok, and optionally
  pos_start, end_to_other, end_at_other) -> the success rate and, over the misses, each kind's share,
  the share within the position threshold at some step and the median final errors (m, degrees); with
  the optional arrays, the start's and the end's median distances to the goal (all episodes; the start's
  also over the misses), the end's to another episode's goal, and the share placed at that goal."""
  solved, ever = np.asarray(ep["solved"], bool), np.asarray(ep["ever_pos_ok"], bool)
  pos_end, rot_end, moved = (np.asarray(ep[k], float) for k in ("pos_end", "rot_end", "moved"))
  miss = ~solved
  n_miss = int(miss.sum())
  pos_ok, rot_ok = pos_end < pos_threshold, rot_end < rot_threshold
  kind = np.where(moved < UNTOUCHED_M, 0, np.where(rot_ok & ~pos_ok, 1, np.where(pos_ok & ~rot_ok, 2, 3)))
  share = lambda m: float(m[miss].mean()) if n_miss else 0.0
  median_miss = lambda a: float(np.median(a[miss])) if n_miss else 0.0
  out = {
    "episodes": int(solved.size),
    "success": float(solved.mean()),
    "misses": n_miss,
    **{f"miss_{k}": share(kind == i) for i, k in enumerate(KINDS)},
    "miss_ever_within_position": share(ever),
    "miss_median_position_error_m": median_miss(pos_end),
    "miss_median_rotation_error_deg": float(np.degrees(median_miss(rot_end))),
  }
  if "pos_start" in ep:
    start = np.asarray(ep["pos_start"], float)
    out.update(
      median_start_distance_m=float(np.median(start)),
      miss_median_start_distance_m=median_miss(start),
      median_end_distance_to_goal_m=float(np.median(pos_end)),
      median_end_distance_to_another_goal_m=float(np.median(ep["end_to_other"])),
      end_at_another_goal=float(np.mean(ep["end_at_other"])),  # the chance level of `success`
    )
  return out


def play(algo, state, task: str, steps_per_object: int, episodes: int, key) -> dict:
  """Single-goal episodes of holdout `task` with Bob's deterministic policy -> per-episode arrays [E]:
  solved, pos_end / rot_end (the end's largest block error), moved (the largest block displacement),
  ever_pos_ok (every block within the position threshold at some step before a success), pos_start (the
  start's error), and, for the goal-following control, end_to_other / end_at_other (the end's distance
  to, and placement at, the goal of the next episode: one this episode was not shown, drawn alike). A
  solved episode keeps the state it was solved in, as the holdout moves on to its next goal there."""
  env = holdout.make_holdout_env(task, algo.holdout_world)
  name, n = holdout.parse_task(task)
  cfg = env.config
  thresholds = (cfg["pos_threshold"], cfg["rot_threshold"], name != "flip")
  budget = steps_per_object * n
  act = algo.policy(state.params, state.obs_norm)
  recurrent = hasattr(act, "initial_carry")
  steps_left = algo.raw_env.config["steps_left_obs"]
  k_reset, k_goal, k_run = jax.random.split(key, 3)
  start = jax.vmap(env.reset)(jax.random.split(k_reset, episodes))
  first = jax.vmap(env._achieved)(start.pipeline_state)  # pylint: disable=protected-access
  goal = jax.vmap(lambda k, a: G.pad(G.make_goal(k, name, a[:n], n, cfg["table_portion"])))(
    jax.random.split(k_goal, episodes), first
  )
  s = start.replace(obs=dict(start.obs, desired_goal=goal), info={**start.info, "goal": goal})
  achieved = lambda st: jax.vmap(env._achieved)(st.pipeline_state)[:, :n]  # pylint: disable=protected-access
  distance = lambda a, g: jnp.max(jnp.linalg.norm(a[..., :3] - g[:, :n, :3], axis=-1), -1)
  placed = lambda a, g: jnp.all(G.object_success(a, g[:, :n], *thresholds), -1)

  def body(carry, kt):
    st, solved, ever, memory = carry
    k, t = kt
    obs = dict(st.obs, steps_left=jnp.full((episodes,), 1.0 - t / budget)) if steps_left else st.obs
    action, memory = act(obs, k, memory) if recurrent else (act(obs, k), memory)
    nxt = jax.vmap(env.step)(st, action)
    a = achieved(nxt)
    ever = ever | (~solved & (distance(a, goal) < cfg["pos_threshold"]))
    nxt = jax.tree.map(lambda x, y: jnp.where(solved.reshape((-1,) + (1,) * (x.ndim - 1)), x, y), st, nxt)
    return (nxt, solved | placed(a, goal), ever, memory), None

  memory = act.initial_carry((episodes,)) if recurrent else None
  zeros = jnp.zeros((episodes,), bool)
  xs = (jax.random.split(k_run, budget), jnp.arange(budget))
  (end, solved, ever, _), _ = jax.lax.scan(body, (s, zeros, zeros, memory), xs)
  a = achieved(end)
  other = jnp.roll(goal, 1, axis=0)
  return {
    "solved": solved,
    "pos_end": distance(a, goal),
    "rot_end": jnp.max(G.rotation_distance(a[..., 3:], goal[:, :n, 3:], thresholds[2]), -1),
    "moved": distance(a, first),
    "ever_pos_ok": ever,
    "pos_start": distance(first[:, :n], goal),
    "end_to_other": distance(a, other),
    "end_at_other": placed(a, other),
  }


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
      ep = {k: np.asarray(v) for k, v in run(states[s]).items()}
      row = sort_misses(ep, cfg["pos_threshold"], cfg["rot_threshold"])
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
