"""How many control steps the scripted pick-and-place expert needs on push-1 holdout goals.

The push-1 holdout of `asp_blocks_cpu` gives Bob 50 steps per goal (its `bob_steps_per_object`; the paper
gives 200). This measures the budget a deliberate, privileged controller uses: 200 episodes of the
holdout's push-1 world (table portion 0.4), 200 steps each, the step of each episode's first success.

    python benchmarks/results/selfplay/2026-12-02/expert_push_steps.py --json OUT.json
"""

from mjx_envs import scripted

import argparse
import json

import jax
import numpy as np

from agents.selfplay.holdout import make_holdout_env

p = argparse.ArgumentParser()
p.add_argument("--episodes", type=int, default=200)
p.add_argument("--json", default=None)
args = p.parse_args()
env = make_holdout_env("push-1", {"table_portion": 0.4, "action_bins": 11})
ctrl = scripted.expert_for(env)
_, trace = jax.jit(lambda k: scripted.rollout(env, ctrl, k, args.episodes, 200))(jax.random.PRNGKey(0))
s = np.asarray(trace["is_success"])  # [200 steps, episodes]
first = np.where(s.any(0), s.argmax(0) + 1, np.inf)  # the step of the first success
solved = first[np.isfinite(first)]
out = {
  "episodes": args.episodes,
  "solved_within": {str(b): float(np.mean(first <= b)) for b in (25, 35, 50, 75, 100, 200)},
  "steps_percentiles": {str(q): float(np.percentile(solved, q)) for q in (10, 25, 50, 75, 90, 100)},
}
print(json.dumps(out, indent=1))
if args.json:
  with open(args.json, "w") as f:
    json.dump(out, f, indent=1)
