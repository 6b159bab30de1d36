"""Entity self-attention for entity-centric policies (hide-and-seek, seed 004 appendix B): a residual
multi-head self-attention block over padded entities with a visibility mask, and masked mean pooling.

  x [..., N, D] entity embeddings, mask [..., N] (1 = the entity exists and may be attended to)
  ResidualSelfAttention(heads=4, head_dim=32)(x, mask) -> [..., N, D]   (permutation equivariant)
  masked_mean(x, mask) -> [..., D]                                     (permutation invariant)

Masked entities never influence an unmasked entity's output or the pooled vector: they are excluded as
attention keys, and a query with no key left gets no attention update (its residual input passes).
"""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp


class ResidualSelfAttention(nn.Module):
  """x + Dense(MultiHeadAttention(x, x, mask)), then LayerNorm (the paper's residual attention block)."""

  heads: int = 4
  head_dim: int = 32

  @nn.compact
  def __call__(self, x, mask):
    valid = mask > 0
    attn_mask = nn.make_attention_mask(valid, valid)  # [..., 1, N, N]
    y = nn.MultiHeadDotProductAttention(
      num_heads=self.heads, qkv_features=self.heads * self.head_dim, out_features=x.shape[-1]
    )(x, x, mask=attn_mask)
    # A query that may attend to nothing (no valid key) would average the masked keys: zero it instead.
    y = jnp.where(jnp.any(valid, -1)[..., None, None], y, 0.0)
    y = nn.Dense(x.shape[-1])(y)
    return nn.LayerNorm()(x + y)


def masked_mean(x, mask):
  """Mean of x [..., N, D] over the entities where mask [..., N] > 0; zeros where none is."""
  m = (mask > 0).astype(x.dtype)[..., None]
  return jnp.sum(jnp.where(m > 0, x, 0.0), -2) / jnp.maximum(jnp.sum(m, -2), 1.0)
