"""The Fetch goal tasks (gymnasium-robotics semantics) in MJX: FetchReach, FetchPush, FetchSlide,
FetchPickAndPlace. See `mjx_envs/fetch/env.py` for the semantics and every deliberate difference from
the reference; `mjx_envs/fetch/scripted.py` for the scripted experts.

    env = mjx_envs.make("FetchPush", reward_type="dense")
"""

from mjx_envs import registry
from mjx_envs.fetch.env import TASKS, FetchEnv, default_config
from mjx_envs.fetch.scripted import scripted_controller

import functools


def _factory(task, **config):
  return FetchEnv(task, **config)


def _register_all():
  for task in TASKS:
    if task not in registry.registered():
      registry.register(task, functools.partial(_factory, task), functools.partial(default_config, task))


_register_all()

__all__ = ["FetchEnv", "TASKS", "default_config", "scripted_controller"]
