"""Record metaworld 3.1.1's meta-learning benchmarks (ML1, ML10, ML45) as a small JSON fixture.

NOT run by the test suite: run by hand in the reference virtualenv (see make_metaworld_reference.py)

    MUJOCO_GL=egl /work/mwvenv/bin/python scripts/make_metaworld_ml_reference.py

and commit tests/fixtures/metaworld_ml_reference.json, which tests/mjx_envs/test_metaworld_meta.py reads.
It holds, as the reference builds them: each benchmark's train and test task names in order, the number
of goals (rand_vecs) per task of each split, whether the goal is hidden in the observation (its
`partially_observable`), the observation's last three entries after a reset of an ML task, and whether
ML1's train and test goals share any vector (its test goals come from seed + 1).
"""

import json
import os
import pickle

import metaworld
import numpy as np

SEED = 0


def _rand_vecs(tasks):
  out = {}
  for t in tasks:
    out.setdefault(t.env_name, []).append(np.asarray(pickle.loads(t.data)["rand_vec"]))
  return {k: np.stack(v) for k, v in out.items()}


def main():
  out = {"version": metaworld.__version__ if hasattr(metaworld, "__version__") else "3.1.1", "seed": SEED}
  for name, bench in (("ML10", metaworld.ML10(seed=SEED)), ("ML45", metaworld.ML45(seed=SEED))):
    train, test = _rand_vecs(bench.train_tasks), _rand_vecs(bench.test_tasks)
    out[name] = {
      "train": list(bench.train_classes),
      "test": list(bench.test_classes),
      "goals_per_task": sorted({len(v) for v in list(train.values()) + list(test.values())}),
      "partially_observable": sorted(
        {bool(pickle.loads(t.data)["partially_observable"]) for t in bench.train_tasks}
      ),
    }
  ml1 = metaworld.ML1("push-v3", seed=SEED)
  train, test = _rand_vecs(ml1.train_tasks)["push-v3"], _rand_vecs(ml1.test_tasks)["push-v3"]
  env = ml1.train_classes["push-v3"]()
  env.set_task(ml1.train_tasks[0])
  obs, _ = env.reset()
  out["ML1"] = {
    "tasks": sorted(metaworld.ML1.ENV_NAMES),
    "train_goals": len(train),
    "test_goals": len(test),
    "unique_train_goals": int(len(np.unique(train, axis=0))),
    "shared_train_test_goals": int(sum(any(np.array_equal(a, b) for b in test) for a in train)),
    "obs_goal_after_reset": [float(x) for x in obs[-3:]],
    "obs_size": int(obs.shape[0]),
  }
  path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "metaworld_ml_reference.json")
  with open(path, "w") as f:
    json.dump(out, f, indent=1)
  print(json.dumps(out)[:400])


if __name__ == "__main__":
  main()
