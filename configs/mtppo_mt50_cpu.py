"""MT-PPO on MT50 at a 2-core CPU's budget: mtppo_mt10_cpu's recipe on the 50 tasks.

50 tasks x 5 worlds x 50 steps (12,500 steps) per update, 10 minibatches of whole worlds, 4 epochs, no
entropy term (mtppo_mt10_cpu's docstring says why); evaluation on 2 episodes per task.

On MT50 this recipe learns slowly: 0.03-0.06 up to 6.4M env steps, forgetting its early tasks as the std
shrinks; with `--set "agent.std_bounds=(0.5,1.5)"` (garage's bound) 0.05-0.08 to 6.9M (BENCHMARKS.md, "MT50:
the first MT-PPO runs"). Each update holds 250 env steps per task (the paper's: 10,000).

Until 2026-11-29: 2 worlds per task (5,000 steps per update), 5 minibatches, 8 epochs, entropy 5e-3.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "MT50 0.03-0.08 at 6-7M env steps, 1 h each, std bound or not (CPU, 2026-11-29)"

_GPU = runpy.run_path(os.path.join(os.path.dirname(__file__), "mtppo_mt50.py"))


def get_config():
  cfg = copy.deepcopy(_GPU["get_config"]())
  cfg["agent"].update(
    num_envs=250, num_minibatches=10, update_epochs=4, ent_coef=0.0, total_env_steps=20_000_000
  )
  cfg["run"].update(eval_every=10, num_eval_envs=100)
  return cfg
