"""The entity attention block: permutation equivariance, and masked entities have no effect."""
import jax
import jax.numpy as jnp
import numpy as np

from agents.attention import ResidualSelfAttention, masked_mean


def _setup(n=6, d=16):
  x = jax.random.normal(jax.random.PRNGKey(0), (2, n, d))
  mask = jnp.array([[1, 1, 0, 1, 0, 1], [1, 0, 0, 0, 0, 0]], jnp.float32)
  block = ResidualSelfAttention(heads=4, head_dim=8)
  return block, block.init(jax.random.PRNGKey(1), x, mask), x, mask


def test_permutation_equivariant():
  block, params, x, mask = _setup()
  out = block.apply(params, x, mask)
  perm = jnp.array([3, 0, 5, 1, 4, 2])
  out_p = block.apply(params, x[:, perm], mask[:, perm])
  np.testing.assert_allclose(out_p, out[:, perm], rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(masked_mean(out_p, mask[:, perm]), masked_mean(out, mask), rtol=1e-5, atol=1e-5)


def test_masked_entities_have_no_effect():
  block, params, x, mask = _setup()
  out = block.apply(params, x, mask)
  junk = jnp.where(mask[..., None] > 0, x, 50.0 * jax.random.normal(jax.random.PRNGKey(2), x.shape))
  out_j = block.apply(params, junk, mask)
  keep = mask > 0
  np.testing.assert_allclose(out_j[keep], out[keep], rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(masked_mean(out_j, mask), masked_mean(out, mask), rtol=1e-5, atol=1e-5)
  # A visible entity's features do matter, to the others too.
  moved = block.apply(params, x.at[0, 1].add(1.0), mask)
  assert not np.allclose(moved[0, 0], out[0, 0])


def test_no_visible_entity_is_finite_and_pools_to_zero():
  block, params, x, _ = _setup()
  none = jnp.zeros((2, 6))
  out = block.apply(params, x, none)
  assert np.isfinite(np.asarray(out)).all()
  np.testing.assert_array_equal(masked_mean(out, none), np.zeros((2, 16)))
