"""The environment registry: `register`, `registered`, `default_config`, `make`.

It sits below the families: each family package (blocks/, fetch/, hide_and_seek/, metaworld/) imports
this module to register its names, and the package `mjx_envs` re-exports the functions. Nothing here
imports a family, so the layers import one way only.
"""

from __future__ import annotations

from mjx_envs.core import ConfigError, Env, check_config

from collections.abc import Callable
from typing import Any

_REGISTRY: dict[str, tuple[Callable[..., Env], Callable[[], dict[str, Any]]]] = {}


def register(name: str, factory: Callable[..., Env], default_config: Callable[[], dict[str, Any]]):
  """Registers `factory(**config)` under `name`; `default_config()` lists every valid key."""
  if name in _REGISTRY:
    raise ValueError(f"environment {name!r} is already registered")
  _REGISTRY[name] = (factory, default_config)


def registered() -> list[str]:
  """The names `make` accepts, sorted."""
  return sorted(_REGISTRY)


def default_config(name: str) -> dict[str, Any]:
  """The full config of env `name`, every key `make` accepts as an override."""
  return dict(lookup(name)[1]())


def make(name: str, **overrides) -> Env:
  """Builds env `name`; `overrides` replace keys of `default_config(name)`.

  Raises ConfigError (a ValueError) for an unknown name, an unknown key or an invalid value.
  """
  factory, defaults = lookup(name)
  return factory(**check_config(name, defaults(), overrides))


def lookup(name: str):
  """(factory, default_config) of a registered name; ConfigError naming the registered ones if unknown."""
  if name not in _REGISTRY:
    raise ConfigError(f"unknown environment {name!r}; registered environments: {registered()}")
  return _REGISTRY[name]
