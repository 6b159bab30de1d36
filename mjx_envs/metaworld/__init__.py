"""Meta-World (metaworld 3.1.1, `*-v3`) on MJX: the Sawyer family and MT10.

    env = mjx_envs.make("metaworld/reach-v3")            # one task; reset(key) -> State, step(state, a)
    mt = mjx_envs.make("MT10", envs_per_task=8)          # the ten MT10 tasks as one batch of 80 worlds

`mjx_envs/metaworld/sawyer.py` holds the family (world, hand, observation, resets, episode) and every
deliberate difference from the reference; `tasks/<task>.py` one task each (objects, rand_vec, reward,
success, scripted controller); `multitask.py` the MT10 batch.
"""

import functools

from mjx_envs import registry
from mjx_envs.metaworld import tasks as _tasks
from mjx_envs.metaworld.sawyer import SawyerEnv, Task, default_config
from mjx_envs.metaworld.multitask import MT10_TASKS, make_mt10, mt10_default_config


def make_task(name: str, **config) -> SawyerEnv:
  """The env of task `name` ("reach-v3") with config overrides (see `sawyer.default_config`)."""
  return SawyerEnv(_tasks.module(name).TASK, **config)


def scripted_controller(name: str):
  """The scripted controller of task `name`: act(obs [..., 39]) -> action [..., 4]."""
  return _tasks.module(name).scripted


def _register_all():
  for name in _tasks.available():
    key = f"metaworld/{name}"
    if key not in registry.registered():
      registry.register(key, functools.partial(make_task, name), default_config)
  if "MT10" not in registry.registered():
    registry.register("MT10", make_mt10, mt10_default_config)


_register_all()

__all__ = ["SawyerEnv", "Task", "make_task", "scripted_controller", "default_config", "MT10_TASKS"]
