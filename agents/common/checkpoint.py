"""Orbax checkpoints of a whole training state plus the host loop's progress.

A checkpoint holds the full `TrainState` (params, optimiser state, normalisers, env states, RNG key,
update counter) and a JSON record of the host loop (env steps, wall time). Orbax writes each step to a
temporary directory and renames it when complete, so a run killed while saving leaves the previous
checkpoint intact; we keep that property by only ever going through `CheckpointManager`.
"""

from __future__ import annotations

import os
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp


class Checkpointer:
  """Save/restore (TrainState, meta dict) under `directory/checkpoints/<step>`."""

  def __init__(self, directory: str, max_to_keep: int = 3):
    path = os.path.abspath(os.path.join(directory, "checkpoints"))
    self.manager = ocp.CheckpointManager(
      path, options=ocp.CheckpointManagerOptions(max_to_keep=max_to_keep, create=True)
    )

  def save(self, step: int, state: Any, meta: dict[str, Any]) -> None:
    self.manager.save(
      step,
      args=ocp.args.Composite(state=ocp.args.StandardSave(_nonempty(state)), meta=ocp.args.JsonSave(meta)),
    )
    self.manager.wait_until_finished()

  def latest_step(self):
    return self.manager.latest_step()

  def steps(self) -> list[int]:
    """The kept checkpoints' steps, in order."""
    return sorted(self.manager.all_steps())

  def meta(self, step: int | None = None) -> dict[str, Any]:
    """The meta dict of checkpoint `step` (default: the latest) alone, without its state."""
    step = self.latest_step() if step is None else step
    if step is None:
      raise FileNotFoundError(f"no checkpoint in {self.manager.directory}")
    return self.manager.restore(step, args=ocp.args.Composite(meta=ocp.args.JsonRestore())).meta

  def restore(self, abstract_state: Any, step: int | None = None) -> tuple[Any, dict[str, Any]]:
    """Restores onto the structure (and shardings) of `abstract_state` (e.g. `jax.eval_shape(init)`)."""
    step = self.latest_step() if step is None else step
    if step is None:
      raise FileNotFoundError(f"no checkpoint in {self.manager.directory}")
    abstract_state = _with_default_sharding(abstract_state)
    out = self.manager.restore(
      step,
      args=ocp.args.Composite(
        state=ocp.args.StandardRestore(_nonempty(abstract_state)), meta=ocp.args.JsonRestore()
      ),
    )
    leaves, treedef = jax.tree.flatten(abstract_state)
    restored = [
      out.state[str(i)] if _size(x) else jnp.zeros(x.shape, x.dtype, device=x.sharding)
      for i, x in enumerate(leaves)
    ]
    return jax.tree.unflatten(treedef, restored), out.meta

  def close(self):
    self.manager.close()


def _with_default_sharding(abstract_state: Any) -> Any:
  """Leaves without a sharding (a plain `jax.eval_shape`) are restored onto the default device, so that a
  checkpoint written by a run split over several devices (train.py's CPU default) loads in a process
  with one (a notebook's `load_policy`)."""
  device = jax.sharding.SingleDeviceSharding(jax.devices()[0])

  def one(x):
    if getattr(x, "sharding", None) is not None:
      return x
    return jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=device)

  return jax.tree.map(one, abstract_state)


def _size(x) -> int:
  return int(np.prod(x.shape))


def _nonempty(state: Any) -> dict[str, Any]:
  """Leaves by flat index, without zero-size arrays (orbax refuses them; e.g. mjx.Data.act)."""
  return {str(i): x for i, x in enumerate(jax.tree.leaves(state)) if _size(x)}


def abstract_like(state: Any) -> Any:
  """ShapeDtypeStructs (with shardings) of a concrete state, as a restore target."""
  return jax.tree.map(ocp.utils.to_shape_dtype_struct, state)
