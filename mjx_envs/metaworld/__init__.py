"""Meta-World (metaworld 3.1.1, `*-v3`) on MJX: the Sawyer family and MT10.

    env = mjx_envs.make("metaworld/reach-v3")            # one task; reset(key) -> State, step(state, a)
    mt = mjx_envs.make("MT10", envs_per_task=8)          # the ten MT10 tasks as one batch of 80 worlds
    mt = mjx_envs.make("MT", tasks=["reach-v3", "push-wall-v3"])   # any set of tasks; "MT50": all 50
    ml = mjx_envs.make("ML1", task="push-v3", split="train")   # meta-learning: goal hidden, no task id;
    ml = mjx_envs.make("ML10", split="test")                     # "ML45"; "ML": train_tasks=, test_tasks=

`mjx_envs/metaworld/sawyer.py` holds the family (world, hand, observation, resets, episode) and every
deliberate difference from the reference; `tasks/<task>.py` one task each (objects, rand_vec, reward,
success, scripted controller); `multitask.py` the MT10 batch; `meta.py` ML1/ML10/ML45 (+ RL² trials).
"""

from mjx_envs import registry, scripted
from mjx_envs.metaworld import tasks as _tasks
from mjx_envs.metaworld.meta import (
  custom_ml_default_config,
  make_ml,
  make_ml1,
  make_ml10,
  make_ml45,
  ml1_default_config,
  ml_default_config,
)
from mjx_envs.metaworld.multitask import (
  ML10_TEST,
  ML10_TRAIN,
  ML45_TEST,
  ML45_TRAIN,
  MT10_TASKS,
  MT50_TASKS,
  make_mt,
  make_mt10,
  make_mt50,
  mt10_default_config,
  mt_default_config,
)
from mjx_envs.metaworld.sawyer import SawyerEnv, Task, default_config

import functools


def make_task(name: str, **config) -> SawyerEnv:
  """The env of task `name` ("reach-v3") with config overrides (see `sawyer.default_config`)."""
  return SawyerEnv(_tasks.module(name).TASK, **config)


def scripted_policy(name: str):
  """Task `name`'s scripted controller as a function of the observation: act(obs [..., 39]) -> [..., 4]."""
  return _tasks.module(name).scripted


def scripted_controller(env: SawyerEnv) -> scripted.Controller:
  """`mjx_envs.scripted`'s controller interface for a task env (no memory: it reads the observation)."""
  act = scripted_policy(env.name)
  return scripted.Controller(init=lambda state: (), act=lambda carry, state: (act(state.obs[:39]), carry))


def _register_all():
  for name in _tasks.available():
    key = f"metaworld/{name}"
    if key not in registry.registered():
      registry.register(key, functools.partial(make_task, name), default_config)
  if "MT10" not in registry.registered():
    registry.register("MT10", make_mt10, mt10_default_config)
    registry.register("MT50", make_mt50, mt10_default_config)
    registry.register("MT", make_mt, mt_default_config)  # your own set: tasks=[...]
  if "ML1" not in registry.registered():
    registry.register("ML1", make_ml1, ml1_default_config)
    registry.register("ML10", make_ml10, ml_default_config)
    registry.register("ML45", make_ml45, ml_default_config)
    registry.register("ML", make_ml, custom_ml_default_config)  # your own: train_tasks=, test_tasks=


_register_all()

__all__ = [
  "SawyerEnv",
  "Task",
  "make_task",
  "scripted_policy",
  "scripted_controller",
  "default_config",
  "MT10_TASKS",
  "MT50_TASKS",
  "ML10_TRAIN",
  "ML10_TEST",
  "ML45_TRAIN",
  "ML45_TEST",
  "make_mt",
  "make_mt10",
  "make_mt50",
  "make_ml",
  "make_ml1",
  "make_ml10",
  "make_ml45",
]
