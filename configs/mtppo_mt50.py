"""MT-PPO on MT50 with the Meta-World paper's settings, sized for one GPU.

mtppo_mt10's learner (SPEC section 3: (512, 512) tanh, lr 5e-4, clip 0.2, GAE 0.97, gamma 0.99, entropy
5e-3, 16 epochs) at the paper's MT50 batch of ~500k env steps per update: 50 tasks x 200 worlds x 50
steps, in 100 minibatches of 100 worlds. The paper's MT-PPO: 35.4% on MT50.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "not run (needs a GPU); the paper's MT-PPO: 35.4% on MT50"

_MT10 = runpy.run_path(os.path.join(os.path.dirname(__file__), "mtppo_mt10.py"))


def get_config():
  cfg = copy.deepcopy(_MT10["get_config"]())
  cfg["env"]["name"] = "MT50"
  cfg["agent"].update(num_envs=10_000, num_minibatches=100, total_env_steps=250_000_000)
  cfg["run"].update(num_eval_envs=500)
  return cfg
