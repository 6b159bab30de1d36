"""MT-PPO on MT50 at a 2-core CPU's budget: 20 worlds per task, the std bounded as garage does.

50 tasks x 20 worlds x 50 steps (50,000 steps) per update, 10 minibatches of whole worlds, 4 epochs, no
entropy term (mtppo_mt10_cpu's docstring says why), the policy's std within [0.5, 1.5] as garage bounds it;
evaluation on 2 episodes per task every 200k env steps.

These settings reached 0.108 / 0.102 on 10 episodes per task at 5M / 7M env steps (54 min, one seed);
with 5 worlds per task 0.038-0.076 at 5-6.9M with the bound and 0.028-0.040 without it (BENCHMARKS.md,
"MT50: the first MT-PPO runs"). The paper's MT-PPO: 35.4%, with 10,000 env steps per task per update.

Until 2026-11-29 11:00: 5 worlds per task, no std bound, evaluation every 125k env steps; before 08:00:
2 worlds per task, 5 minibatches, 8 epochs, entropy 5e-3.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "MT50 0.102 on 10 episodes/task at 7M env steps, 54 min (CPU, 2026-11-29); paper 35.4%"

_GPU = runpy.run_path(os.path.join(os.path.dirname(__file__), "mtppo_mt50.py"))


def get_config():
  cfg = copy.deepcopy(_GPU["get_config"]())
  cfg["agent"].update(
    num_envs=1000,
    num_minibatches=10,
    update_epochs=4,
    ent_coef=0.0,
    std_bounds=(0.5, 1.5),
    total_env_steps=20_000_000,
  )
  cfg["run"].update(eval_every=4, num_eval_envs=100)
  return cfg
