"""The full hide-and-seek game, multi-agent PPO at the paper's settings, sized for one GPU.

Random rooms (1-4), 1-3 hiders and 1-3 seekers drawn per episode, 3-9 boxes (3-9 of them elongated), 2
ramps that can be locked, 240-step episodes with a 40% preparation phase (the env's `HideAndSeek`
defaults; SPEC section 4). The paper's policy and PPO (seed 004 appendix B): entity attention (embedding
128, 4 heads x 32), dense 256, LSTM 256, an omniscient value function; gamma 0.998, lambda 0.95, lr 3e-4,
clip 0.2, gradient clip 5, entropy 0.01, BPTT over chunks of 10 steps. Sized for one GPU: 512 worlds x
half an episode (120 steps) per train step = 61,440 world steps, up to 6 agents each: 6,144-36,864 chunks
of 10 agent steps per batch at 1-3 agents a team. The paper's batches were 32k-64k chunks on a cluster,
and it found 8k and 16k never converged: raise `agent.num_envs` as far as the card allows. Its fort
building took ~25 M episodes; this config is the GPU command, not a CPU one (`hns_full_cpu` is).
"""

import copy
import os
import runpy

# For `train.py --list`: the measured figure, its device and date (BENCHMARKS.md has the run).
MEASURED = "not run (needs a GPU); hns_full_cpu is the CPU run"

_QUADRANT = runpy.run_path(os.path.join(os.path.dirname(__file__), "hns_quadrant.py"))


def get_config():
  # hns_quadrant's network and PPO (the paper's); the full game's longer episodes and fewer worlds.
  cfg = copy.deepcopy(_QUADRANT["get_config"]())
  cfg["env"] = {"name": "HideAndSeek"}
  cfg["agent"].update(num_envs=512, unroll_length=120)
  cfg["run"].update(num_eval_envs=128)
  return cfg
