"""The Shadow Dexterous Hand tasks of the multi-goal benchmark (gymnasium-robotics 1.4.2's physics).

So far: the hand's model (`mjx_envs/hand/model.py`: our MJCF from the reference's numbers, with its
deliberate differences and their measured effects) and `HandReach` (`mjx_envs/hand/reach.py`: semantics,
differences, parity figures); the scripted expert in `mjx_envs/hand/scripted.py`; the manipulate
tasks' Block family (`mjx_envs/hand/manipulate.py`: HandManipulateBlockRotateZ, ...RotateParallel,
...RotateXYZ, HandManipulateBlock and its alias HandManipulateBlockFull), the egg's (HandManipulateEggRotate,
HandManipulateEgg, alias HandManipulateEggFull) and the pen's (HandManipulatePenRotate, HandManipulatePen,
alias HandManipulatePenFull), and the `..._BooleanTouchSensors` / `..._ContinuousTouchSensors` variants of
the reference's 8; the reference's `-v1` ids.

    env = mjx_envs.make("HandReach", reward_type="dense")
"""

from mjx_envs import registry
from mjx_envs.hand import manipulate
from mjx_envs.hand.manipulate import HandManipulateEnv
from mjx_envs.hand.reach import HandReachEnv, default_config
from mjx_envs.hand.scripted import scripted_controller

import functools

TASKS = ("HandReach", *manipulate.TASKS)


def _register_all():
  if "HandReach" not in registry.registered():
    registry.register("HandReach", HandReachEnv, default_config)
  for task in manipulate.TASKS:
    if task not in registry.registered():
      registry.register(
        task, functools.partial(HandManipulateEnv, task), functools.partial(manipulate.default_config, task)
      )


_register_all()

__all__ = ["HandManipulateEnv", "HandReachEnv", "TASKS", "default_config", "scripted_controller"]
