import json
import sys
import warnings

import metaworld
import numpy as np

warnings.filterwarnings("ignore")
from metaworld.policies.sawyer_dial_turn_v3_policy import SawyerDialTurnV3Policy

task = sys.argv[1] if len(sys.argv) > 1 else "dial-turn-v3"
mt1 = metaworld.MT1(task, seed=0)
env = mt1.train_classes[task]()
env.set_task(mt1.train_tasks[0])
obs, _ = env.reset()
pol = SawyerDialTurnV3Policy()
rows = []
rv = env._last_rand_vec.tolist()
for t in range(150):
  a = pol.get_action(obs)
  obs, r, term, trunc, info = env.step(a)
  rows.append(
    {
      "t": t,
      "hand": obs[:3].tolist(),
      "obj": obs[4:7].tolist(),
      "mocap": env.data.mocap_pos[0].tolist(),
      "angle": float(env.data.joint("knob_Joint_1").qpos[0]),
      "success": info["success"],
      "a": np.asarray(a).tolist(),
    }
  )
json.dump({"rand_vec": rv, "rows": rows}, open("/work/scratch/dial/ref.json", "w"))
print(rv, [(r["t"], round(r["angle"], 3), [round(x, 4) for x in r["hand"]]) for r in rows[::10]])
