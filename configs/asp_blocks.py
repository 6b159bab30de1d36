"""Asymmetric self-play with ABC on the block world, paper-sized for one GPU (Tables 2-3).

Table 2's settings (gamma 0.998, lambda 0.95, lr 3e-4, entropy 0.01, PPO clip 0.2, sample reuse 3, value
weight 1, ABC weight 0.5, ABC clip 0.2), Table 3's turns (Alice 100 steps, Bob 200 steps per object), 5
goals per game, 1 block, binned actions, and robogym's action scale (0.1 m per unit position step) and
smoothing (0.3: the EMA weight of the new action). See asp_blocks_cpu for the CPU-sized run.

Where ours differ from the paper's tables, and why:
- Batch: Table 3's "batch size 4096" is per optimiser step on a 1,856-CPU rollout fleet. Here one train
  step collects 256 games x 1,500 steps = 384,000 env steps and splits them into 8 minibatches of 32 games
  (48,000 steps; whole games, so that Alice's delayed reward and Bob's turns stay inside one minibatch).
  Minibatches of 4,096 steps would mean ~94 optimiser steps per epoch on strongly correlated data.
- Memory: policy and value nets each get an LSTM (agent.lstm_size 256; the paper gives no width). Each
  agent's state lasts a game, and Bob's spans his turns of it (agents.selfplay.asp).
- Gradient clipping: the paper lists none; we keep PPO's usual global-norm clip at 0.5 (agent.max_grad_norm)
  as a guard for the large ABC gradients early in training.
"""

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "H200: 9.6k env steps/s, holdout 0.00 at 2.3M env steps (2026-11-27); asp_blocks_cpu: Bob 6.3%"


def get_config():
  return {
    "env": {
      "name": "BlocksSelfPlay",
      "num_objects": 1,
      "pad_objects": False,  # 1 object row, not 8: ~1.65x the train steps/s on the CPU
      "action_bins": 11,
      "alice_steps": 100,
      "bob_steps_per_object": 200,
      "max_goals": 5,
      "max_position_change": 0.1,
      "action_smoothing": 0.3,
    },
    "agent": {
      "algo": "asp",
      "num_envs": 256,
      "num_minibatches": 8,
      "update_epochs": 3,
      "total_env_steps": 400_000_000,
      "hidden": (256, 256),
      "lstm_size": 256,  # "memory (LSTM)", B.4; its width is not given: ours, the torso's
      "abc": True,
      "abc_coef": 0.5,
      "abc_clip": 0.2,
    },
    "run": {"seed": 0, "eval_every": 5, "num_eval_envs": 32, "keep_checkpoints": 10},
  }
