"""The object encoder is permutation invariant and ignores padded slots; heads have the right shapes."""

import jax
import jax.numpy as jnp
import numpy as np

from agents.common.networks import ObjectEncoder, PolicyNet, ValueNet


def _obs(key, n_real=3):
  k1, k2 = jax.random.split(key)
  mask = (jnp.arange(8) < n_real).astype(jnp.float32)
  objects = jax.random.normal(k2, (8, 31)) * mask[:, None]
  return {"robot": jax.random.normal(k1, (17,)), "objects": objects, "object_mask": mask}


def test_object_encoder_permutation_invariant_and_masked():
  obs = _obs(jax.random.PRNGKey(0))
  enc = ObjectEncoder()
  params = enc.init(jax.random.PRNGKey(1), obs)
  out = enc.apply(params, obs)
  perm = jnp.array([2, 0, 1, 3, 4, 5, 6, 7])
  shuffled = {**obs, "objects": obs["objects"][perm], "object_mask": obs["object_mask"][perm]}
  np.testing.assert_allclose(enc.apply(params, shuffled), out, rtol=1e-6)
  # Garbage in padded slots changes nothing.
  junk = {**obs, "objects": obs["objects"].at[5:].set(100.0)}
  np.testing.assert_allclose(enc.apply(params, junk), out, rtol=1e-6)
  # A real object's features do matter.
  moved = {**obs, "objects": obs["objects"].at[0].add(1.0)}
  assert not np.allclose(enc.apply(params, moved), out)


def test_heads():
  obs = jax.tree.map(lambda x: jnp.stack([x, x]), _obs(jax.random.PRNGKey(2)))
  pol = PolicyNet(6, (32,), bins=11)
  logits, carry = pol.apply(pol.init(jax.random.PRNGKey(0), obs), obs)
  assert logits.shape == (2, 6, 11) and carry is None
  gauss = PolicyNet(4, (32,))
  flat = jnp.zeros((5, 13))
  (mean, log_std), _ = gauss.apply(gauss.init(jax.random.PRNGKey(0), flat), flat)
  assert mean.shape == log_std.shape == (5, 4)
  val = ValueNet((32,))
  assert val.apply(val.init(jax.random.PRNGKey(0), obs), obs)[0].shape == (2,)
