"""MT-PPO on MT10 at a 2-core CPU's budget: mtppo_mt10's settings without the entropy term.

10 tasks x 20 worlds x 50 steps (10,000 steps) per update, 8 minibatches of whole worlds, 4 epochs;
evaluation on 5 episodes per task. No entropy term (`ent_coef=0`): the paper's implementation (garage's
`mtppo_metaworld_mt10`) adds the entropy to the reward with its gradient stopped and keeps the policy's
std within [0.5, 1.5], while a 5e-3 entropy term in this PPO's loss drove the std up (the entropy from
3.67 to 5.0 over 1.45M env steps on 2026-11-26, to 4.34 over 2.1M on 2026-11-29); up to 2.1M its success
equals the arm without it, so dropping it is for the std, not a measured gain. BENCHMARKS.md, "MT10: two
hours of MT-PPO on the arm's worlds", has the run and both arms.

Until 2026-11-29: 4 worlds per task (2,000 steps per update), 4 minibatches, 8 epochs, entropy 5e-3.

The figures of MEASURED and BENCHMARKS.md up to 2026-11-27 were taken on the free hand of the worlds
before the arm (`mjx_envs/metaworld/sawyer.py`); `--set env.arm=false` reproduces those worlds.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "MT10 0.30 (10 episodes/task, 7 checkpoints over 10-14.1M env steps), 100 min (CPU, 2026-11-29)"

_GPU = runpy.run_path(os.path.join(os.path.dirname(__file__), "mtppo_mt10.py"))


def get_config():
  cfg = copy.deepcopy(_GPU["get_config"]())
  cfg["agent"].update(
    num_envs=200, num_minibatches=8, update_epochs=4, ent_coef=0.0, total_env_steps=20_000_000
  )
  cfg["run"].update(eval_every=10, num_eval_envs=50)
  return cfg
