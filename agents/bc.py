"""The clipped behavioural-cloning objective shared by Alice Behavioral Cloning (self-play) and PPO's
hindsight term (on-policy HER).

ABC (SPEC section 1): L = -E_{(s, g, a) in D} [ clip(pi(a|s,g) / pi_old(a|s,g), 1 - eps, 1 + eps) ],
the PPO surrogate with advantage 1: the likelihood of the demonstrated action is pushed up until the
ratio to the behaviour policy at collection time leaves [1 - eps, 1 + eps], then the gradient stops.
"""

from __future__ import annotations

import jax.numpy as jnp


def clipped_bc_loss(log_prob, old_log_prob, clip_eps: float = 0.2, mask=None):
  """-mean(clip(exp(log_prob - old_log_prob), 1 - eps, 1 + eps)) over the entries where mask is 1.

  log_prob, old_log_prob, mask: same shape (any). Returns (loss, fraction of masked entries clipped).
  With an all-zero mask the loss is 0 (and has zero gradient).
  """
  ratio = jnp.exp(log_prob - old_log_prob)
  mask = jnp.ones_like(ratio) if mask is None else mask.astype(ratio.dtype)
  n = jnp.maximum(jnp.sum(mask), 1.0)
  loss = -jnp.sum(jnp.clip(ratio, 1.0 - clip_eps, 1.0 + clip_eps) * mask) / n
  clipped = jnp.sum((jnp.abs(ratio - 1.0) > clip_eps) * mask) / n
  return loss, clipped
