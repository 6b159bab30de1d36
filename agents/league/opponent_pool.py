"""A fixed-capacity pool of past agents with quality scores (OpenAI Five, appendix "Opponent sampling";
SPEC section 5), as a pytree that lives in a train state, on device.

  pool = init(snapshot, capacity)            # slot 0 holds `snapshot`; quality 0
  idx = sample(pool, key, (G,))              # P(i) proportional to exp(q_i) over the filled slots
  opp = get(pool, idx)                       # the snapshots, leaves [G, ...]
  pool = update_quality(pool, idx, wins)     # q_i <- q_i - eta / (N p_i) for every win over i
  pool = add(pool, snapshot, step, take)     # into the oldest slot, with q = max of the pool's scores

A snapshot is any pytree (parameters with their observation statistics). `N` is the number of filled
slots and `p_i` the sampling probability that drew the opponent. An opponent the current agent keeps
beating loses quality and is drawn less; a new snapshot starts at the best quality, so it is drawn
often until it has been beaten. With a batch of games, the updates of all the games the current agent
won are summed, each with the p_i the opponents were drawn with (the same as applying them one after
another with p frozen for the batch, as the paper's workers report games against a fixed pool).
`uniform=True` samples the filled slots uniformly, the rule before 2026-11-24, kept for comparison.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from flax import struct

ETA = 0.01  # the paper's quality learning rate
SAMPLING = ("quality", "uniform")  # how a learner draws from a pool: p_i ~ exp(q_i), or uniformly


@struct.dataclass
class Pool:
  snapshots: Any  # leaves [capacity, ...]
  quality: jax.Array  # [capacity] float32; meaningless beyond the filled slots
  added_at: jax.Array  # [capacity] int32: the learner step at which each slot was filled (-1: empty)
  count: jax.Array  # int32: snapshots added so far (the filled slots are min(count, capacity))

  @property
  def capacity(self) -> int:
    return self.quality.shape[-1]


def init(snapshot, capacity: int, step=0) -> Pool:
  """A pool holding `snapshot` in slot 0 (the other slots hold copies, never drawn until filled)."""
  if capacity < 1:
    raise ValueError(f"pool capacity must be >= 1, got {capacity}")
  snaps = jax.tree.map(lambda x: jnp.broadcast_to(x, (capacity,) + jnp.shape(x)), snapshot)
  added = jnp.full((capacity,), -1, jnp.int32).at[0].set(step)
  return Pool(snaps, jnp.zeros((capacity,), jnp.float32), added, jnp.ones((), jnp.int32))


def size(pool: Pool) -> jax.Array:
  """Filled slots (int32)."""
  return jnp.minimum(pool.count, pool.capacity)


def filled(pool: Pool) -> jax.Array:
  """[capacity] bool."""
  return jnp.arange(pool.capacity) < size(pool)


def probs(pool: Pool, uniform: bool = False) -> jax.Array:
  """[capacity] sampling probabilities: softmax of the quality scores (or uniform) over filled slots."""
  logits = jnp.zeros_like(pool.quality) if uniform else pool.quality
  return jax.nn.softmax(jnp.where(filled(pool), logits, -jnp.inf))


def sample(pool: Pool, key, shape=(), uniform: bool = False) -> jax.Array:
  """Slot indices of `shape`, drawn with `probs`."""
  return jax.random.choice(key, pool.capacity, shape, p=probs(pool, uniform))


def get(pool: Pool, idx) -> Any:
  """The snapshots at slot indices `idx` (any shape): leaves [*idx.shape, ...]."""
  return jax.tree.map(lambda x: x[idx], pool.snapshots)


def update_quality(pool: Pool, idx, wins, eta: float = ETA, p=None) -> Pool:
  """q_i <- q_i - eta / (N p_i) for each of the current agent's wins over opponent i.

  idx: slot indices of the opponents faced (any shape); wins: how many games the current agent won
  against each (same shape; 0 where it did not win, or the game did not use the pool). `p`: the
  probabilities the opponents were drawn with (default: `probs(pool)`)."""
  p = probs(pool) if p is None else p
  n = size(pool).astype(jnp.float32)
  idx, wins = jnp.ravel(idx), jnp.ravel(wins).astype(jnp.float32)
  step = eta / (n * jnp.maximum(p[idx], 1e-12)) * wins
  return pool.replace(quality=pool.quality.at[idx].add(-step))


def add(pool: Pool, snapshot, step=0, take=True) -> Pool:
  """Adds `snapshot` (where `take`, a traced bool) in the oldest slot, evicting it when the pool is full,
  with quality = the largest score in the pool."""
  slot = pool.count % pool.capacity
  q_new = jnp.max(jnp.where(filled(pool), pool.quality, -jnp.inf))
  put = lambda a, v: jnp.where(take, a.at[slot].set(v), a)
  return Pool(
    jax.tree.map(put, pool.snapshots, snapshot),
    put(pool.quality, q_new),
    put(pool.added_at, jnp.asarray(step, jnp.int32)),
    pool.count + jnp.asarray(take, jnp.int32),
  )


def metrics(pool: Pool, prefix: str, uniform: bool = False) -> dict:
  """Scalars for logging (finite, to be averaged over train steps): the pool's size, the spread of its
  quality scores, and the sampling distribution's largest probability and entropy (log N when uniform).
  The whole score vector is `summary`'s. `uniform`: the pool is drawn from uniformly (p_max, entropy)."""
  p = probs(pool, uniform)
  on = filled(pool)
  return {
    f"{prefix}/size": size(pool),
    f"{prefix}/p_max": jnp.max(p),
    f"{prefix}/entropy": -jnp.sum(jnp.where(on, p * jnp.log(jnp.maximum(p, 1e-30)), 0.0)),
    f"{prefix}/q_max": jnp.max(jnp.where(on, pool.quality, -jnp.inf)),
    f"{prefix}/q_min": jnp.min(jnp.where(on, pool.quality, jnp.inf)),
  }


def summary(pool: Pool) -> dict:
  """Host-side record of the filled slots: {"quality", "prob", "added_at"} as lists, oldest slot first."""
  import numpy as np  # pylint: disable=import-outside-toplevel

  q, p, at, on = (
    np.asarray(x) for x in jax.device_get((pool.quality, probs(pool), pool.added_at, filled(pool)))
  )
  order = np.argsort(np.where(on, at, np.iinfo(np.int32).max), kind="stable")[: int(on.sum())]
  return {"quality": q[order].tolist(), "prob": p[order].tolist(), "added_at": at[order].tolist()}
