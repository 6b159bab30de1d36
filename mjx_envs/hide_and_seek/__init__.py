"""Hide-and-seek (seed 004; OpenAI's multi-agent-emergence-environments) on MJX: `HideAndSeekQuadrant`
(the quadrant game) and `HideAndSeek` (random rooms). See `mjx_envs/hide_and_seek/env.py` for the API,
the observations and every deliberate difference from the reference; `scripted.py` for scripted teams.

    env = mjx_envs.make("HideAndSeekQuadrant", n_seekers=[1, 1])
"""

from mjx_envs import registry
from mjx_envs.hide_and_seek.env import LAYOUTS, HideAndSeekEnv, default_config

import functools

NAMES = {"HideAndSeekQuadrant": "quadrant", "HideAndSeek": "random_rooms"}


def _defaults(layout):
  config = default_config(layout)
  del config["layout"]  # fixed by the name
  return config


def _factory(layout, **config):
  return HideAndSeekEnv(layout=layout, **config)


def _register_all():
  for name, layout in NAMES.items():
    if name not in registry.registered():
      registry.register(name, functools.partial(_factory, layout), functools.partial(_defaults, layout))


_register_all()

# The transfer suite (transfer.py): HnsObjectCounting, HnsLockAndReturn, HnsSequentialLock,
# HnsBlueprint, HnsShelter.
from mjx_envs.hide_and_seek import transfer  # noqa: E402

for _name, _cls in transfer.TASKS.items():
  if _name not in registry.registered():
    registry.register(_name, _cls, _cls.defaults)

__all__ = ["HideAndSeekEnv", "LAYOUTS", "NAMES", "default_config"]
