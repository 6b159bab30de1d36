"""The reference's own scripted experts in our Meta-World worlds, beside the same experts in the reference.

The lead of `../shared/notes/metaworld.md`: metaworld 3.1.1's expert policies (`metaworld.policies`) are
functions of the 39-D observation, so they can drive our worlds unchanged. A task whose expert succeeds
in the reference but not in ours is a world that differs where a learner will feel it (a grip that does
not hold, an object that moves otherwise), even when the reward and the scripted controller we wrote for
it agree. Reads facts from the reference at run time; no reference code enters the project.

Runs in the project's venv. The experts run in the reference venv (metaworld 3.1.1, which pins mujoco
3.3.0: see `scripts/make_metaworld_reference.py` for how to build it), as a child process that answers
observations with actions over a pipe, one JSON line per step for the whole batch of episodes:

    python scripts/reference_experts.py --ref-python /work/mwvenv/bin/python --episodes 10 \
        --tasks peg-insert-side-v3,pick-place-v3 --json runs/experts.json

`--tasks all` (the default) runs every task module that exists. Our worlds run on the C backend, one
`Batch` of `--episodes` worlds per task, 500 steps, success at any step (the benchmark's evaluation);
the reference runs `--episodes` episodes of the same length on its MT1 tasks (one fixed rand_vec each,
its own draws), success at any step.
"""

from __future__ import annotations

import mjx_envs
from mjx_envs.metaworld import tasks as mw_tasks

import argparse
import json
import os
import subprocess
import sys
import time

import jax
import numpy as np

_SERVER = r"""
import json, sys, warnings
import numpy as np
import metaworld
from metaworld.policies import ENV_POLICY_MAP
warnings.filterwarnings("ignore")
policies = {}
for line in sys.stdin:
    msg = json.loads(line)
    if msg["cmd"] == "act":
        pol = policies.setdefault(msg["task"], ENV_POLICY_MAP[msg["task"]]())
        acts = [np.clip(pol.get_action(np.asarray(o, np.float64)), -1, 1).tolist() for o in msg["obs"]]
        print(json.dumps(acts), flush=True)
    elif msg["cmd"] == "reference":
        # The expert in the reference's own world: episodes on MT1's fixed tasks, success at any step.
        name, n, steps = msg["task"], msg["episodes"], msg["steps"]
        mt = metaworld.MT1(name, seed=msg["seed"])
        env = mt.train_classes[name]()
        pol = ENV_POLICY_MAP[name]()
        wins = 0
        for e in range(n):
            env.set_task(mt.train_tasks[e % len(mt.train_tasks)])
            obs, _ = env.reset(seed=msg["seed"] + e)
            ok = False
            for _ in range(steps):
                obs, _, _, trunc, info = env.step(np.clip(pol.get_action(obs), -1, 1))
                ok = ok or bool(info["success"])
                if ok or trunc:
                    break
            wins += ok
        print(json.dumps(wins), flush=True)
"""


def ours(name: str, server, episodes: int, steps: int, seed: int) -> int:
  """Success count of the reference's expert for `name` over `episodes` worlds of ours (C backend)."""
  env = mjx_envs.make(f"metaworld/{name}", impl="c", fixed_rand_vecs=50)
  reset = jax.jit(jax.vmap(env.reset))
  step = jax.jit(jax.vmap(env.step))
  s = reset(jax.random.split(jax.random.PRNGKey(seed), episodes))
  won = np.zeros(episodes, bool)
  for _ in range(steps):
    server.stdin.write(
      json.dumps({"cmd": "act", "task": name, "obs": np.asarray(s.obs[:, :39]).tolist()}) + "\n"
    )
    server.stdin.flush()
    s = step(s, jax.numpy.asarray(json.loads(server.stdout.readline()), jax.numpy.float32))
    won |= np.asarray(s.metrics["is_success"]) > 0
    if won.all():
      break
  return int(won.sum())


def main(argv=None) -> int:
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--ref-python", default="/work/mwvenv/bin/python", help="the reference venv's python")
  p.add_argument("--tasks", default="all", help="comma-separated v3 task names, or 'all'")
  p.add_argument("--episodes", type=int, default=10)
  p.add_argument("--steps", type=int, default=500)
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--json", help="write the table as JSON here")
  args = p.parse_args(argv)
  names = mw_tasks.available() if args.tasks == "all" else args.tasks.split(",")
  server = subprocess.Popen(
    [args.ref_python, "-c", _SERVER],
    stdin=subprocess.PIPE,
    stdout=subprocess.PIPE,
    text=True,
    env={**os.environ, "MUJOCO_GL": "egl"},
  )
  rows = []
  print("| task | the expert in ours | the expert in the reference |\n|---|---:|---:|")
  for name in names:
    t0 = time.time()
    n_ours = ours(name, server, args.episodes, args.steps, args.seed)
    msg = {
      "cmd": "reference",
      "task": name,
      "episodes": args.episodes,
      "steps": args.steps,
      "seed": args.seed,
    }
    server.stdin.write(json.dumps(msg) + "\n")
    server.stdin.flush()
    n_ref = json.loads(server.stdout.readline())
    rows.append({"task": name, "ours": n_ours, "reference": n_ref, "episodes": args.episodes})
    print(
      f"| {name} | {n_ours}/{args.episodes} | {n_ref}/{args.episodes} |  ({time.time() - t0:.0f} s)",
      flush=True,
    )
  server.stdin.close()
  server.wait()
  if args.json:
    with open(args.json, "w") as f:
      json.dump(
        {"episodes": args.episodes, "steps": args.steps, "seed": args.seed, "rows": rows}, f, indent=1
      )
  return 0


if __name__ == "__main__":
  sys.exit(main())
