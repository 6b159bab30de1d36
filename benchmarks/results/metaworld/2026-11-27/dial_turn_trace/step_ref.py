import json
import warnings

import metaworld
import numpy as np

warnings.filterwarnings("ignore")
task = "reach-v3"
mt1 = metaworld.MT1(task, seed=0)
env = mt1.train_classes[task]()
env.set_task(mt1.train_tasks[0])
obs, _ = env.reset()
out = []
for t in range(40):
  a = np.array([0, 0, -1.0 if t < 8 else 0.0, 0.0])
  obs, *_ = env.step(a)
  out.append([float(obs[2]), float(env.data.mocap_pos[0][2])])
json.dump(out, open("/work/scratch/dial/step_ref.json", "w"))
