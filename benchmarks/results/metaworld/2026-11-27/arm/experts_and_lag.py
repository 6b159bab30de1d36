"""The arm against the free hand (2026-11-27): every SawyerEnv built with arm=ARM (patched), then either the
hand's lag behind its mocap target after a stop (reach-v3, z -1 for 8 steps; the reference's curve from
`dial_turn_trace/step_ref.py`, written to /work/scratch/dial/step_ref.json), or the reference's experts
(`scripts/reference_experts.py`, the reference venv at /work/mwvenv).

    python experts_and_lag.py lag arm            # or: lag free
    python experts_and_lag.py experts arm all 10 # or a comma-separated task list
"""

import json
import sys

sys.path.insert(0, "/work/main")
sys.path.insert(0, "/work/main/scripts")
from mjx_envs.metaworld import sawyer

ARM = sys.argv[2] == "arm"
_init = sawyer.SawyerEnv.__init__


def _patched(self, task, **config):
  _init(self, task, **{**config, "arm": ARM})


sawyer.SawyerEnv.__init__ = _patched
import mjx_envs

import jax
import jax.numpy as jnp
import numpy as np

if sys.argv[1] == "lag":
  ref = json.load(open("/work/scratch/dial/step_ref.json"))
  r = np.array([1000 * (a - c) for a, c in ref[:20]])
  env = mjx_envs.make("metaworld/reach-v3", impl="c")
  s = env.reset(jax.random.PRNGKey(0))
  step = jax.jit(env.step)
  out = []
  for t in range(20):
    s = step(s, jnp.array([0, 0, -1.0 if t < 8 else 0.0, 0.0]))
    out.append(1000 * (float(s.obs[2]) - float(s.pipeline_state.mocap_pos[0][2])))
  c = np.array(out)
  print("ref ", np.round(r[[0, 3, 5, 7, 8, 9, 10, 12, 15]], 1))
  print(
    "ours",
    np.round(c[[0, 3, 5, 7, 8, 9, 10, 12, 15]], 1),
    "rms",
    round(float(np.sqrt(np.mean((c - r) ** 2))), 2),
  )
else:
  import reference_experts as R

  R.main(
    [
      "--episodes",
      sys.argv[4],
      "--tasks",
      sys.argv[3],
      "--json",
      f"/work/scratch/arm/experts_{sys.argv[2]}_{sys.argv[3][:40]}.json",
    ]
  )
