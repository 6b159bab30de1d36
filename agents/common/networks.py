"""Flax networks: MLPs, and the permutation-invariant object encoder of the block world.

Inputs are the *preprocessed* observations of `agents.common.normalize.preprocess`: either a flat array
[..., O] or a dict with `robot` [..., R], `objects` [..., M, F] and `object_mask` [..., M].
"""

from __future__ import annotations

from collections.abc import Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp


class MLP(nn.Module):
  """Dense layers with `activation` between them; no activation after the last if `out` is set."""

  hidden: Sequence[int]
  out: int | None = None
  activation: str = "tanh"
  out_scale: float = 1.0

  @nn.compact
  def __call__(self, x):
    act = getattr(nn, self.activation)
    for h in self.hidden:
      x = act(nn.Dense(h, kernel_init=nn.initializers.orthogonal(jnp.sqrt(2.0)))(x))
    if self.out is not None:
      x = nn.Dense(self.out, kernel_init=nn.initializers.orthogonal(self.out_scale))(x)
    return x


class MultiHeadMLP(nn.Module):
  """An MLP trunk shared by all heads, then one linear head of `out` units per head:
  (x [..., D], head [..., num_heads] one-hot) -> [..., out], the head that `head` names. Multi-task
  learners' multi-head networks (one head per task, Meta-World+'s multi-head SAC)."""

  hidden: Sequence[int]
  out: int
  num_heads: int
  activation: str = "tanh"
  out_scale: float = 1.0

  @nn.compact
  def __call__(self, x, head):
    h = MLP(self.hidden, activation=self.activation)(x)
    y = nn.Dense(self.out * self.num_heads, kernel_init=nn.initializers.orthogonal(self.out_scale))(h)
    y = y.reshape(y.shape[:-1] + (self.num_heads, self.out))
    # A one-hot's zeros times the other heads: exactly the named head's output (finite weights).
    return jnp.einsum("...ho,...h->...o", y, head.astype(y.dtype))


def task_mlp(hidden: Sequence[int], out: int, num_heads: int, activation: str, x, feats):
  """Inside a compact module: MLP(hidden, out)(x) [..., out], or with num_heads > 1 a `MultiHeadMLP`
  whose head is the task named by the one-hot id that ends `feats` [..., F] (its last num_heads entries).
  One output layer keeps the plain MLP's parameter names, so single-head checkpoints are unchanged."""
  if num_heads > 1:
    return MultiHeadMLP(hidden, out, num_heads, activation)(x, feats[..., -num_heads:])
  return MLP(hidden, out=out, activation=activation)(x)


class ObjectEncoder(nn.Module):
  """Per-object embedding, masked max-pool over objects, concatenated with the robot embedding.

  Permutation invariant in the object slots; padded slots (mask 0) never win the max.
  """

  embed: int = 64
  activation: str = "tanh"

  @nn.compact
  def __call__(self, obs):
    robot = MLP((self.embed,), activation=self.activation)(obs["robot"])
    per_obj = jnp.concatenate(
      [obs["objects"], jnp.broadcast_to(robot[..., None, :], obs["objects"].shape[:-1] + robot.shape[-1:])],
      -1,
    )
    emb = MLP((self.embed, self.embed), activation=self.activation)(per_obj)
    mask = obs["object_mask"][..., None] > 0
    pooled = jnp.max(jnp.where(mask, emb, -1e9), axis=-2)
    pooled = jnp.where(jnp.any(mask, axis=-2), pooled, 0.0)
    return jnp.concatenate([robot, pooled], -1)


class Torso(nn.Module):
  """Flat array -> MLP; dict -> ObjectEncoder -> MLP."""

  hidden: Sequence[int]
  activation: str = "tanh"

  @nn.compact
  def __call__(self, obs):
    x = ObjectEncoder(activation=self.activation)(obs) if isinstance(obs, dict) else obs
    return MLP(self.hidden, activation=self.activation)(x)


def zero_carry(batch_shape, size: int):
  """The LSTM state (c, h), each [*batch_shape, size], that every episode starts from."""
  z = jnp.zeros(tuple(batch_shape) + (size,), jnp.float32)
  return (z, z)


def next_carry(old, new, reset, own=None):
  """The LSTM state after one step, leaves [B, H]: `new` where `own` [B] (default: everywhere), else `old`
  (an agent that did not act keeps its state); zero where `reset` [B] (its episode ended with this step)."""
  if own is not None:
    new = jax.tree.map(lambda o, n: jnp.where(own[..., None] > 0, n, o), old, new)
  keep = (1.0 - reset)[..., None]
  return jax.tree.map(lambda z: z * keep, new)


class Core(nn.Module):
  """Torso, then optionally an LSTM cell (`lstm` > 0): (obs, carry) -> (features, carry).

  Features: the torso's output [..., hidden[-1]]; with an LSTM, concat([torso output, h]) [..., hidden[-1]
  + lstm], a skip connection around the cell. The skip is what lets `agents.league.surgery` add an LSTM to a
  trained net without changing what it computes: the head keeps its rows for the torso output and gets
  zero rows for h. Were the head to read h alone, the cell would sit between torso and head and no
  choice of its weights reproduces the old function. Without an LSTM the carry passes through
  untouched, so callers treat both kinds alike.
  """

  hidden: Sequence[int]
  activation: str = "tanh"
  lstm: int = 0

  @nn.compact
  def __call__(self, obs, carry=None):
    x = Torso(self.hidden, self.activation)(obs)
    if self.lstm:
      carry, h = nn.OptimizedLSTMCell(self.lstm)(carry, x)
      x = jnp.concatenate([x, h], -1)
    return x, carry


class PolicyNet(nn.Module):
  """(obs, carry) -> (distribution parameters, carry).

  Parameters are (mean [A], log_std [A]) or logits [A, bins]; carry is the LSTM state (c, h), or
  whatever was passed (None) when `lstm` is 0.
  """

  action_size: int
  hidden: Sequence[int]
  bins: int | None = None
  activation: str = "tanh"
  init_log_std: float = -0.5
  lstm: int = 0

  @nn.compact
  def __call__(self, obs, carry=None):
    x, carry = Core(self.hidden, self.activation, self.lstm)(obs, carry)
    if self.bins:
      logits = MLP((), out=self.action_size * self.bins, out_scale=0.01)(x)
      return logits.reshape(logits.shape[:-1] + (self.action_size, self.bins)), carry
    mean = MLP((), out=self.action_size, out_scale=0.01)(x)
    log_std = self.param("log_std", nn.initializers.constant(self.init_log_std), (self.action_size,))
    return (mean, jnp.broadcast_to(log_std, mean.shape)), carry


class ValueNet(nn.Module):
  """(obs, carry) -> (V(obs) [...], carry); see PolicyNet for the carry."""

  hidden: Sequence[int]
  activation: str = "tanh"
  lstm: int = 0

  @nn.compact
  def __call__(self, obs, carry=None):
    x, carry = Core(self.hidden, self.activation, self.lstm)(obs, carry)
    return MLP((), out=1, out_scale=1.0)(x)[..., 0], carry


def param_count(params) -> int:
  return int(sum(x.size for x in jax.tree.leaves(params)))
