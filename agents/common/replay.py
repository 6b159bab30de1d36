"""An on-device circular replay buffer of fixed-length trajectory segments; pure and jittable.

HER needs, for each sampled transition, the rest of its episode (to draw a future goal), so the unit of
storage is a segment [L, ...] of consecutive steps of one env, not a single transition. Flat-transition
buffers (e.g. flashbax's item buffer) lose that structure and trajectory buffers sample windows that
straddle episodes, so we keep this small one. Capacity is counted in transitions:
`num_segments = capacity // L`; the oldest segment is overwritten first.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class SegmentBuffer:
  data: Any  # pytree, leaves [S, L, ...]
  insert: jax.Array  # int32 slot the next segment goes to
  size: jax.Array  # int32 number of filled slots (<= S)

  @property
  def num_segments(self) -> int:
    return jax.tree.leaves(self.data)[0].shape[0]


def init(example_segment: Any, capacity: int) -> SegmentBuffer:
  """An empty buffer for segments shaped like `example_segment` (leaves [L, ...], arrays or
  ShapeDtypeStructs) holding about `capacity` transitions."""
  L = jax.tree.leaves(example_segment)[0].shape[0]
  S = max(1, capacity // L)
  data = jax.tree.map(lambda x: jnp.zeros((S,) + tuple(x.shape), x.dtype), example_segment)
  return SegmentBuffer(data, jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32))


def add(buf: SegmentBuffer, segments: Any) -> SegmentBuffer:
  """Writes n segments (leaves [n, L, ...]) at the insert position, wrapping around."""
  n = jax.tree.leaves(segments)[0].shape[0]
  S = buf.num_segments
  if n > S:
    raise ValueError(f"adding {n} segments to a buffer of {S}; raise the buffer size")
  slots = (buf.insert + jnp.arange(n)) % S
  data = jax.tree.map(lambda d, x: d.at[slots].set(x.astype(d.dtype)), buf.data, segments)
  return SegmentBuffer(data, (buf.insert + n) % S, jnp.minimum(buf.size + n, S))


def sample_slots(buf: SegmentBuffer, key, batch: int) -> jax.Array:
  """[batch] slot indices drawn uniformly from the filled slots (the buffer must not be empty)."""
  return jax.random.randint(key, (batch,), 0, jnp.maximum(buf.size, 1))
