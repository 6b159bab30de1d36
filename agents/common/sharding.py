"""Data parallelism with `jax.sharding`: env states are split over the local devices along the env axis,
everything else (params, optimiser and normaliser state, keys) is replicated.

`jit` then partitions the one compiled train step: each device steps its own envs, and the loss (a mean
over the global minibatch) makes XLA all-reduce the gradients, so every device applies the same averaged
update. With `jax.distributed.initialize()` the same code spans hosts (`jax.devices()` is then global).
"""

from __future__ import annotations

import os

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P


def data_mesh(num_envs: int, devices=None) -> Mesh | None:
  """A 1-D 'data' mesh over `devices` (default: all), or None for a single device."""
  devices = list(devices if devices is not None else jax.devices())
  if len(devices) == 1:
    return None
  if num_envs % len(devices):
    raise ValueError(f"num_envs ({num_envs}) must be divisible by the device count ({len(devices)})")
  return Mesh(np.array(devices), ("data",))


def train_state_shardings(algo, mesh: Mesh | None, abstract=None):
  """A pytree of shardings matching `algo.init(key)` (`abstract`: its `jax.eval_shape`, if the caller
  has it), or None (let jit decide) without a mesh."""
  if mesh is None:
    return None
  if abstract is None:
    abstract = jax.eval_shape(algo.init, jax.random.PRNGKey(0))
  replicated = NamedSharding(mesh, P())
  split = NamedSharding(mesh, P("data"))
  out = jax.tree.map(lambda _: replicated, abstract)
  # Zero-size leaves (an LSTM state of width 0, MJX's empty `act`) stay replicated: XLA hands them back
  # replicated whatever was asked, and a compiled step must see the shardings it will be given.
  return out.replace(
    **{
      f: jax.tree.map(lambda a: split if a.size else replicated, getattr(abstract, f))
      for f in algo.env_axis_fields
    }
  )


def with_shardings(abstract, shardings):
  """Attaches shardings to a tree of ShapeDtypeStructs (restore targets)."""
  if shardings is None:
    return abstract
  return jax.tree.map(lambda a, s: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=s), abstract, shardings)


def usable_cores() -> int:
  """CPU cores this process may run on (its affinity mask where the OS has one)."""
  try:
    return len(os.sched_getaffinity(0))
  except AttributeError:  # pragma: no cover - macOS, Windows
    return os.cpu_count() or 1


# jaxlib's CPU LAPACK kernels (the Cholesky of MJX's Newton solver) split a batch into tasks on XLA's
# intra-op thread pool once batch x cost-per-matrix reaches this much work (cost ~ n^3 / 3 for a Cholesky),
# and the calling pool thread blocks until they finish. With one host device per core, every pool thread
# can be such a caller at once: a deadlock (measured: BlocksPush-1, nv 14, 2 devices x 256 envs hangs for
# good, 2 x 128 runs). One device fewer than the pool's threads always leaves a thread to do the tasks.
LAPACK_SPLIT_WORK = 200_000


def lapack_splits(per_device_batch: int, nv: int) -> bool:
  """Whether a batched nv x nv Cholesky of `per_device_batch` matrices is split over the thread pool."""
  return per_device_batch * max(1, -(-(nv**3) // 3)) >= LAPACK_SPLIT_WORK


def usable_devices(
  num_envs: int, devices=None, nv: int | None = None, largest_batch: int | None = None
) -> list:
  """The first k of `devices` (default: all), k the largest count that divides `num_envs`, so that any
  config runs data-parallel on as many devices as its env batch allows.

  With `nv` (the model's degrees of freedom) on CPU: if a device's share of `largest_batch` (default
  `num_envs`; pass the largest batch any compiled function steps, e.g. evaluation's) makes the solver's
  batched Cholesky split over the intra-op pool, k is also kept below the core count (see
  LAPACK_SPLIT_WORK: one device per core could deadlock)."""
  devices = list(devices if devices is not None else jax.devices())
  k = len(devices)
  while k > 1 and num_envs % k:
    k -= 1
  if nv and k > 1 and devices[0].platform == "cpu":
    batch = max(num_envs, largest_batch or 0)
    if lapack_splits(-(-batch // k), nv) and k >= usable_cores():
      k = max(1, usable_cores() - 1)
      while k > 1 and num_envs % k:
        k -= 1
  return devices[:k]


def set_cpu_devices(n: int) -> int:
  """Makes JAX's CPU backend expose `n` devices (one per core); call before JAX starts its backends.

  Harmless on GPU/TPU, where the accelerator stays the default backend. If the CPU backend has already
  started (a notebook, a test process), its device count stays and is returned.
  """
  from mjx_envs import _cpu  # pylint: disable=import-outside-toplevel

  if _cpu._cpu_backend_already_started():  # pylint: disable=protected-access
    return len(jax.devices("cpu"))
  jax.config.update("jax_num_cpu_devices", int(n))
  return int(n)


def constrain_env_axis(tree):
  """Splits the leading (env) axis of every array in `tree` over the ambient mesh's 'data' axis.

  Inside `jax.set_mesh(mesh)` this makes a computation that creates its own env batch (evaluation)
  run data-parallel like training; with no mesh, or a leaf that does not divide, it is the identity.
  """
  mesh = jax.sharding.get_abstract_mesh()
  if mesh.empty or "data" not in mesh.axis_names or mesh.shape["data"] == 1:
    return tree
  n = mesh.shape["data"]

  def one(x):
    if getattr(x, "ndim", 0) >= 1 and x.shape[0] % n == 0:
      return jax.lax.with_sharding_constraint(x, P("data"))
    return x

  return jax.tree.map(one, tree)
