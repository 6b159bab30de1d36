"""RL² on Meta-World ML1 push-v3 with the paper's RL² settings, sized for one GPU.

SPEC section 3; Yu et al. 2019, appendix D.8 (Table 10): trials of 10 episodes ("roll-outs per task") of
500 steps, one sampled goal per trial, the goal hidden; a recurrent policy trained with PPO: lr 5e-4,
clip 0.2, GAE lambda 0.95, gamma 0.99, 10 epochs, entropy 5e-6, hidden size 256, tanh, std 0.5 at the
start. A batch of 25 trials x 10 episodes x 500 steps (125k steps) per meta-batch in the paper: here 250
worlds x one whole trial (5,000 steps) per update, so that BPTT spans the trial (windows of 500 steps
before 2026-11-28 cut every trial at its episodes' edges: `agents/ppo/train.py`), in 25 minibatches of 10
worlds x 10 epochs: the paper's 2e-4 gradient steps per env step.
Differences: an LSTM (the paper: a GRU), a learned std (the paper's is fixed at 0.5), an LSTM value net
with reward normalisation (the paper: a linear feature baseline). Evaluation: the 50 held-out test goals,
eval/success_rate = success of a trial's last episode (after adaptation); eval/trial/success_first the
first's. The paper's Figure 4 reports RL² on ML1 push; `--set env.task=reach-v3` (or pick-place-v3)
runs its other two ML1 tasks; `rl2_ml1_push_cpu` is the CPU budget.
"""

import math

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "not run (needs a GPU); the paper's RL² on ML1 push: its Figure 4 (test success)"


def get_config():
  return {
    "env": {"name": "ML1", "task": "push-v3", "rl2_episodes": 10},
    "agent": {
      "algo": "ppo",
      "num_envs": 250,
      "unroll_length": 10 * 500,  # one whole trial
      "num_minibatches": 25,
      "update_epochs": 10,
      "total_env_steps": 100_000_000,
      "learning_rate": 5e-4,
      "gamma": 0.99,
      "gae_lambda": 0.95,
      "clip_eps": 0.2,
      "ent_coef": 5e-6,
      "policy_hidden": (256,),
      "value_hidden": (256,),
      "lstm_size": 256,
      "activation": "tanh",
      "init_log_std": math.log(0.5),
      "normalize_reward": True,
    },
    "run": {"seed": 0, "eval_every": 10, "num_eval_envs": 50},
  }
