"""RL² on ML10 with the paper's RL² settings, sized for one GPU; tested on its 5 held-out tasks.

SPEC section 3; Yu et al. 2019, appendix D.8 (Table 10): meta-batch 10 (the 10 train tasks), trials of 10
episodes of 500 steps, a hidden goal and no task id; PPO with lr 5e-4, clip 0.2, GAE lambda 0.95,
gamma 0.99, 10 epochs, entropy 5e-6, hidden size 256, tanh, std 0.5 at the start. The paper's batch is
10 tasks x 10 episodes x 500 steps (50k steps): here 10 worlds per task x one whole trial (5,000 steps)
per update, 10 minibatches of 10 worlds (the paper's 2e-4 gradient steps per env step). Differences: an LSTM (the paper: a GRU), a
learned std, an LSTM value net with reward normalisation (the paper: a linear feature baseline).
Evaluation: trials on the 5 test tasks (drawer-open, door-close, shelf-place, sweep-into, lever-pull),
eval/success_rate = the last episode's success averaged over tasks (per task: eval/success_rate/<task>);
the paper's RL²: 35.8% on ML10's test tasks. `rl2_ml10_cpu` is the CPU budget.
"""

import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "not run (needs a GPU); the paper's RL²: 35.8% on ML10's test tasks"

_ML1 = runpy.run_path(os.path.join(os.path.dirname(__file__), "rl2_ml1_push.py"))


def get_config():
  cfg = _ML1["get_config"]()  # the paper's RL² settings (Table 10 gives ML1, ML10 and ML45 the same)
  cfg["env"] = {"name": "ML10", "rl2_episodes": 10}
  cfg["agent"].update(num_envs=100, num_minibatches=10, total_env_steps=300_000_000)
  return cfg
