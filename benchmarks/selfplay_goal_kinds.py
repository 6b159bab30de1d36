"""What Alice's goals are, and which of them Bob solves: a self-play checkpoint's first goals by kind.

Plays `--batches` batches of the run's game (its own `num_envs` slots, the current Alice against the
current Bob, no past opponents) from one checkpoint and sorts every valid FIRST goal of a game (the block
starts upright at a reset, so the goal's own pose says what Alice did) into one kind:

  tipped   the block shows another face up (a flip: the training game compares full rotations);
  moved    upright, and some block moved >= the success threshold (0.04 m);
  turned   upright, moved less, so a turn about z of >= the threshold (0.2 rad) made it valid.

For each kind: its share of the valid first goals and Bob's success on them, against the zero-shot push
holdout (upright goals at a new cell with a random yaw: the "moved" kind's task, with rotations compared
modulo the cube's symmetries where the game compares them in full).

    python benchmarks/selfplay_goal_kinds.py RUN_DIR [--step N] [--batches 4] [--json OUT]
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
from agents import experiment, tournament

KINDS = ("tipped", "moved", "turned")


def first_goals(traj, n, pos_threshold):
  """[T, G] trajectory of `AsymmetricSelfPlay.play` -> list of (kind, solved) for every game's first valid
  goal whose outcome the unroll saw. Alice's valid goal (goal_valid) is followed, in the same slot, by its
  outcome (goal_finished, goal_failed) before the next goal is set."""
  valid, index = np.asarray(traj["goal_valid"]), np.asarray(traj["goal_index"])
  finished, failed = np.asarray(traj["goal_finished"]), np.asarray(traj["goal_failed"])
  goal, dist = np.asarray(traj["goal"]), np.asarray(traj["goal_distance"])
  up = np.asarray(G.up_face(jnp.asarray(goal[..., :n, 3:7])))  # [T, G, n]
  upright = int(G.up_face(jnp.array([1.0, 0.0, 0.0, 0.0])))  # the face up at a reset
  out = []
  for g in range(valid.shape[1]):
    pending = None
    for t in range(valid.shape[0]):
      if valid[t, g] and index[t, g] == 0:
        if np.any(up[t, g] != upright):
          pending = "tipped"
        else:
          pending = "moved" if dist[t, g] >= pos_threshold else "turned"
      if finished[t, g] and pending is not None:
        out.append((pending, not failed[t, g]))
        pending = None
  return out


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("run_dir")
  p.add_argument("--step", type=int, default=None, help="checkpoint (default: the latest)")
  p.add_argument("--batches", type=int, default=4)
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--json", default=None)
  args = p.parse_args(argv)

  cfg = experiment.run_config(args.run_dir)
  if cfg["agent"]["algo"] != "asp":
    raise SystemExit(
      f"{args.run_dir}: agent.algo is {cfg['agent']['algo']!r}; this needs a self-play run ('asp')"
    )
  algo = tournament.algo_for(cfg)
  steps = tournament.checkpoint_steps(args.run_dir)
  step = steps[-1] if args.step is None else args.step
  (state, meta) = experiment.restore_checkpoints(args.run_dir, cfg, algo, [step])[step]
  play = jax.jit(lambda ts, k: algo.play(ts, k, algo.no_past_opponents())[0])
  world = algo.raw_env.world
  rows = []
  for b in range(args.batches):
    traj = play(state, jax.random.fold_in(jax.random.PRNGKey(args.seed), b))
    rows += first_goals(traj, world.num_objects, world.config["pos_threshold"])
  total = len(rows)
  table = {}
  for kind in KINDS:
    solved = [s for k, s in rows if k == kind]
    table[kind] = {
      "goals": len(solved),
      "share": len(solved) / max(total, 1),
      "bob_success": float(np.mean(solved)) if solved else None,
    }
  result = {
    "run": args.run_dir,
    "checkpoint": step,
    "env_steps": meta.get("env_steps") if isinstance(meta, dict) else None,
    "first_goals": total,
    "bob_success_all": float(np.mean([s for _, s in rows])) if rows else None,
    "kinds": table,
  }
  print(
    f"{args.run_dir} checkpoint {step}: {total} valid first goals, Bob solves {result['bob_success_all']}"
  )
  for kind in KINDS:
    t = table[kind]
    rate = "-" if t["bob_success"] is None else f"{t['bob_success']:.3f}"
    print(f"  {kind:7s} {t['goals']:5d} goals ({t['share']:.2f})  Bob {rate}")
  if args.json:
    with open(args.json, "w") as f:
      json.dump(result, f, indent=1)
  return result


if __name__ == "__main__":
  main()
