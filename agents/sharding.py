"""Data parallelism with `jax.sharding`: env states are split over the local devices along the env axis,
everything else (params, optimiser and normaliser state, keys) is replicated.

`jit` then partitions the one compiled train step: each device steps its own envs, and the loss (a mean
over the global minibatch) makes XLA all-reduce the gradients, so every device applies the same averaged
update. With `jax.distributed.initialize()` the same code spans hosts (`jax.devices()` is then global).
"""

from __future__ import annotations

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
import numpy as np


def data_mesh(num_envs: int, devices=None) -> Mesh | None:
  """A 1-D 'data' mesh over `devices` (default: all), or None for a single device."""
  devices = list(devices if devices is not None else jax.devices())
  if len(devices) == 1:
    return None
  if num_envs % len(devices):
    raise ValueError(f"num_envs ({num_envs}) must be divisible by the device count ({len(devices)})")
  return Mesh(np.array(devices), ("data",))


def train_state_shardings(algo, mesh: Mesh | None):
  """A pytree of shardings matching `algo.init(key)`, or None (let jit decide) without a mesh."""
  if mesh is None:
    return None
  abstract = jax.eval_shape(algo.init, jax.random.PRNGKey(0))
  replicated = NamedSharding(mesh, P())
  split = NamedSharding(mesh, P("data"))
  out = jax.tree.map(lambda _: replicated, abstract)
  return out.replace(**{f: jax.tree.map(lambda _: split, getattr(abstract, f))
                        for f in algo.env_axis_fields})


def with_shardings(abstract, shardings):
  """Attaches shardings to a tree of ShapeDtypeStructs (restore targets)."""
  if shardings is None:
    return abstract
  return jax.tree.map(lambda a, s: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=s), abstract, shardings)
