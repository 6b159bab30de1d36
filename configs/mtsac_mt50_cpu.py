"""MT-SAC on MT50 within a CPU budget: mtsac_mt50's learner at MT10's update budget, a 60-minute stop.

50 tasks x 2 worlds x 50 steps = 5,000 env steps per cycle, 500 updates (0.1 per env step) of 256 (MT10's
batch; mtsac_mt50's 1,280 per update is 5x MT10's gradient samples per env step), a 1M buffer. With these
settings 2026-11-28's run reached 0.33-0.34 from 1.2M to 1.95M env steps (2 h) and, resumed, 0.384-0.406
on 10 episodes per task at 3.0-3.7M (BENCHMARKS.md, "MT50 on the arm's worlds"); the figures before it took
1 world per task and batches of 1,280 (`--set env.envs_per_task=1 --set agent.num_envs=50 --set
agent.updates_per_cycle=250 --set agent.batch_size=1280`): 0.26-0.27 to 2.2M. Evaluations take 2 episodes per
task since 2026-12-03 (1 before: `--set run.num_eval_envs=50`).

The figures of MEASURED and BENCHMARKS.md up to 2026-11-27 were taken on the free hand of the worlds
before the arm (`mjx_envs/metaworld/sawyer.py`); `--set env.arm=false` reproduces those worlds.
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "0.398 on 10 episodes/task at 3.0-3.7M env steps (CPU, 2026-11-29); paper 38.5%"

_GPU = runpy.run_path(os.path.join(os.path.dirname(__file__), "mtsac_mt50.py"))


def get_config():
  cfg = copy.deepcopy(_GPU["get_config"]())
  cfg["env"].update(envs_per_task=2)
  cfg["agent"].update(
    num_envs=100, updates_per_cycle=500, batch_size=256, buffer_size=1_000_000, total_env_steps=5_000_000
  )
  # 2 evaluation episodes per task, as the training batch: the evaluation then shares the batch's traced
  # step (1 per task re-traced the 50 tasks' step code, 3.9 s of every start on an idle core;
  # BENCHMARKS.md "MT50's evaluation shares the training batch's step").
  cfg["run"].update(eval_every=10, num_eval_envs=100, max_minutes=60)
  return cfg
