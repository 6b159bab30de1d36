"""Payoff matrix and standalone holdout evaluation of self-play checkpoints.

  python -m agents.payoff RUN_DIR                 # Bob success of every Bob checkpoint (columns) against
                                                  # every Alice checkpoint (rows) -> RUN_DIR/payoff.png/.json
  python -m agents.payoff RUN_DIR --holdout       # Bob's holdout suite on the latest checkpoint
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

from agents import experiment
from agents.checkpoint import Checkpointer


def load_run(run_dir: str):
  """(algo, {step: TrainState}) for every checkpoint of a self-play run directory."""
  cfg = experiment.run_config(run_dir)
  _, algo = experiment.build(cfg)
  ckpt = Checkpointer(run_dir, max_to_keep=None)
  steps = [int(s) for s in ckpt.manager.all_steps()]
  ckpt.close()
  # A checkpoint from before a surgery comes back migrated into the run's current architecture.
  states = {s: st for s, (st, _) in experiment.restore_checkpoints(run_dir, cfg, algo, steps).items()}
  if not states:
    raise FileNotFoundError(f"no checkpoints in {run_dir}")
  return algo, states


def bob_success(algo, alice_state, bob_state, key):
  """Bob's success rate over the goals he attempted, current Alice of one state vs Bob of another."""
  ts = alice_state.replace(agents={"alice": alice_state.agents["alice"], "bob": bob_state.agents["bob"]})
  G = algo.config.num_envs
  no = jnp.zeros((G,), bool)
  zero = jnp.zeros((G,), jnp.int32)
  traj, _ = algo.play(ts, key, (no, no, zero, zero))
  return jnp.sum(traj["bob_success"]) / jnp.maximum(jnp.sum(traj["bob_turn_end"]), 1.0)


def payoff_matrix(algo, states, key):
  """[alice i, bob j] -> Bob's success rate; states is a list of TrainStates."""
  play = jax.jit(lambda a, b, k: bob_success(algo, a, b, k))
  return np.array([[float(play(a, b, jax.random.fold_in(key, i * len(states) + j)))
                    for j, b in enumerate(states)] for i, a in enumerate(states)])


def plot_payoff(matrix, steps, path):
  # A bare Figure: no pyplot, so the caller's backend (a notebook's inline one) is left alone.
  from matplotlib.figure import Figure  # pylint: disable=import-outside-toplevel
  fig = Figure(figsize=(5, 4))
  ax = fig.subplots()
  im = ax.imshow(matrix, vmin=0, vmax=1, cmap="viridis", origin="lower")
  ax.set(xticks=range(len(steps)), yticks=range(len(steps)), xticklabels=steps, yticklabels=steps,
         xlabel="Bob checkpoint", ylabel="Alice checkpoint", title="Bob success rate")
  fig.colorbar(im)
  fig.tight_layout()
  fig.savefig(path, dpi=100)


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("run_dir")
  p.add_argument("--holdout", action="store_true", help="run Bob's holdout suite on the latest checkpoint")
  p.add_argument("--episodes", type=int, default=None, help="holdout episodes per task")
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--checkpoints", type=int, nargs="*", default=None, help="steps to use (default: all)")
  args = p.parse_args(argv)
  algo, states = load_run(args.run_dir)
  steps = sorted(states) if args.checkpoints is None else sorted(args.checkpoints)
  missing = sorted(set(steps) - set(states))
  if missing:
    raise SystemExit(f"no checkpoint(s) {missing} in {args.run_dir}; available: {sorted(states)}")
  key = jax.random.PRNGKey(args.seed)
  if args.holdout:
    ts = states[steps[-1]]
    out = jax.jit(algo.evaluate, static_argnums=3)(ts.params, ts.obs_norm, key, args.episodes)
    out = {k: float(v) for k, v in out.items()}
    print(json.dumps({"checkpoint": steps[-1], **out}, indent=1))
    return 0
  matrix = payoff_matrix(algo, [states[s] for s in steps], key)
  with open(os.path.join(args.run_dir, "payoff.json"), "w") as f:
    json.dump({"checkpoints": steps, "bob_success": matrix.tolist()}, f)
  plot_payoff(matrix, steps, os.path.join(args.run_dir, "payoff.png"))
  print(np.array2string(matrix, precision=2))
  return 0


if __name__ == "__main__":
  sys.exit(main())
