"""Action distributions with log-prob, entropy and KL: diagonal Gaussian, tanh-Gaussian, multi-categorical.

Each is a small pytree (flax.struct) built from network outputs; all methods broadcast over leading
batch dimensions. `sample` returns the *raw* action that `log_prob` scores; `to_env` maps it to what the
environment takes (clipped / squashed / integer bins).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from flax import struct

_LOG_2PI = math.log(2 * math.pi)


@struct.dataclass
class Normal:
  """Diagonal Gaussian over [..., A]; the env receives the sample clipped to [-1, 1]."""

  mean: jax.Array
  log_std: jax.Array

  def sample(self, key):
    return self.mean + jnp.exp(self.log_std) * jax.random.normal(key, self.mean.shape)

  def mode(self):
    return self.mean

  def log_prob(self, x):
    z = (x - self.mean) * jnp.exp(-self.log_std)
    return jnp.sum(-0.5 * z * z - self.log_std - 0.5 * _LOG_2PI, -1)

  def entropy(self):
    return jnp.sum(self.log_std + 0.5 * (1.0 + _LOG_2PI), -1) * jnp.ones(self.mean.shape[:-1])

  def kl(self, other: Normal):
    """KL(self || other)."""
    var, ovar = jnp.exp(2 * self.log_std), jnp.exp(2 * other.log_std)
    return jnp.sum(
      other.log_std - self.log_std + (var + (self.mean - other.mean) ** 2) / (2 * ovar) - 0.5, -1
    )

  @staticmethod
  def to_env(x):
    return jnp.clip(x, -1.0, 1.0)


@struct.dataclass
class TanhNormal(Normal):
  """tanh of a diagonal Gaussian. Samples stay in pre-tanh space u; the env receives tanh(u)."""

  def mode(self):
    return self.mean

  def log_prob(self, u):
    # change of variables a = tanh(u): log|da/du| = log(1 - tanh(u)^2), written stably.
    log_det = 2.0 * (math.log(2.0) - u - jax.nn.softplus(-2.0 * u))
    return super().log_prob(u) - jnp.sum(log_det, -1)

  def entropy(self, key=None):
    """Gaussian entropy plus E[log|det J|], estimated with one sample (exact KL below needs no sample)."""
    base = super().entropy()
    if key is None:
      u = self.mean
    else:
      u = Normal.sample(self, key)
    log_det = 2.0 * (math.log(2.0) - u - jax.nn.softplus(-2.0 * u))
    return base + jnp.sum(log_det, -1)

  def kl(self, other):
    # An invertible map leaves KL unchanged: KL of the squashed = KL of the underlying Gaussians.
    return super().kl(other)

  @staticmethod
  def to_env(u):
    return jnp.tanh(u)


@struct.dataclass
class MultiCategorical:
  """Independent categoricals over [..., A] dims of K bins each; logits [..., A, K]."""

  logits: jax.Array

  def _logp(self):
    return jax.nn.log_softmax(self.logits, -1)

  def sample(self, key):
    return jax.random.categorical(key, self.logits, -1)

  def mode(self):
    return jnp.argmax(self.logits, -1)

  def log_prob(self, x):
    x = x.astype(jnp.int32)
    return jnp.sum(jnp.take_along_axis(self._logp(), x[..., None], -1)[..., 0], -1)

  def entropy(self):
    logp = self._logp()
    return -jnp.sum(jnp.exp(logp) * logp, (-2, -1))

  def kl(self, other: MultiCategorical):
    logp, logq = self._logp(), other._logp()
    return jnp.sum(jnp.exp(logp) * (logp - logq), (-2, -1))

  @staticmethod
  def to_env(x):
    return x.astype(jnp.int32)


@struct.dataclass
class Product:
  """Independent distributions over the entries of a dict action (hide-and-seek's move, grab and lock):
  `parts` {name: distribution}; sample, mode and to_env act per entry; log-prob and entropy sum."""

  parts: dict

  def sample(self, key):
    keys = jax.random.split(key, len(self.parts))
    return {k: d.sample(kk) for (k, d), kk in zip(sorted(self.parts.items()), keys)}

  def mode(self):
    return {k: d.mode() for k, d in self.parts.items()}

  def log_prob(self, x):
    return sum(d.log_prob(x[k]) for k, d in self.parts.items())

  def entropy(self):
    return sum(d.entropy() for d in self.parts.values())

  def kl(self, other: Product):
    return sum(d.kl(other.parts[k]) for k, d in self.parts.items())

  def to_env(self, x):
    return {k: d.to_env(x[k]) for k, d in self.parts.items()}
