"""Hide-and-seek (seed 004; OpenAI's multi-agent-emergence-environments) on MJX: `HideAndSeekQuadrant`
(the quadrant game), `HideAndSeek` (random rooms) and the transfer suite (`transfer.py`: HnsObjectCounting,
HnsLockAndReturn, HnsSequentialLock, HnsBlueprint, HnsShelter). See `mjx_envs/hide_and_seek/env.py` for the API,
the observations and every deliberate difference from the reference; `scripted.py` for scripted teams.

    env = mjx_envs.make("HideAndSeekQuadrant", n_seekers=[1, 1])
"""

from mjx_envs import registry
from mjx_envs.hide_and_seek import transfer
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
  games = {n: (functools.partial(_factory, l), functools.partial(_defaults, l)) for n, l in NAMES.items()}
  tasks = {n: (cls, cls.defaults) for n, cls in transfer.TASKS.items()}
  for name, (factory, defaults) in {**games, **tasks}.items():
    if name not in registry.registered():
      registry.register(name, factory, defaults)


_register_all()

__all__ = ["HideAndSeekEnv", "LAYOUTS", "NAMES", "default_config"]
