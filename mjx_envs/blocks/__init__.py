"""The tabletop block world of asymmetric self-play: a goal-free world, four holdout tasks, and the
Alice/Bob game itself (`BlocksSelfPlay`)."""

from mjx_envs.blocks import selfplay
from mjx_envs.blocks.env import BlocksEnv, default_config, goal_features
from mjx_envs.blocks.scripted import scripted_controller

import functools

_TASKS = {
  "Blocks": None,
  "BlocksPush": "push",
  "BlocksFlip": "flip",
  "BlocksPickAndPlace": "pick_and_place",
  "BlocksStack": "stack",
}


def _config(task):
  c = default_config()
  del c["task"]  # fixed by the registered name
  if task == "stack":
    c["num_objects"] = 2
  return c


def _register():
  from mjx_envs.registry import register  # pylint: disable=import-outside-toplevel

  for name, task in _TASKS.items():
    register(name, functools.partial(BlocksEnv, task=task), functools.partial(_config, task))
  register("BlocksSelfPlay", selfplay.BlocksSelfPlay, selfplay.default_config)


_register()

__all__ = ["BlocksEnv", "default_config", "goal_features", "scripted_controller"]
