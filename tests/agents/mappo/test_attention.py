"""The entity attention block: permutation equivariance, and masked entities have no effect."""

import jax
import jax.numpy as jnp
import numpy as np

from agents.mappo.attention import ResidualSelfAttention, masked_mean


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


def test_entity_torso_policy_blind_to_hidden_entities_critic_not():
  """On a real hide-and-seek observation: the policy's torso ignores what its agent cannot see; the
  omniscient critic's torso reads it."""
  import mjx_envs  # pylint: disable=import-outside-toplevel

  from agents.mappo.entity_net import EntityTorso  # pylint: disable=import-outside-toplevel

  env = mjx_envs.make("HideAndSeekQuadrant")
  obs = jax.eval_shape(env.reset, jax.random.PRNGKey(0)).obs
  keys = jax.random.split(jax.random.PRNGKey(3), len(obs))
  obs = {k: jax.random.normal(kk, v.shape) for kk, (k, v) in zip(keys, sorted(obs.items()))}
  for k in ("agents", "boxes", "ramps"):  # box 0 hidden from every agent, the rest seen
    obs[f"{k}_mask"] = jnp.ones(obs[f"{k}_mask"].shape)
    obs[f"{k}_present"] = jnp.ones(obs[f"{k}_present"].shape)
  obs["boxes_mask"] = obs["boxes_mask"].at[:, 0].set(0.0)
  policy, critic = EntityTorso(embed=32, dense=64), EntityTorso(embed=32, dense=64, omniscient=True)
  pp, cp = policy.init(jax.random.PRNGKey(0), obs), critic.init(jax.random.PRNGKey(0), obs)
  changed = {
    **obs,
    "boxes": obs["boxes"].at[:, 0].add(3.0),
    "boxes_full": obs["boxes_full"].at[:, 0].add(3.0),
  }
  assert policy.apply(pp, obs).shape == (env.num_agents, 64)
  np.testing.assert_allclose(policy.apply(pp, changed), policy.apply(pp, obs), rtol=1e-5, atol=1e-5)
  assert not np.allclose(critic.apply(cp, changed), critic.apply(cp, obs))
  # Permuting the boxes (and their masks) changes nothing either way.
  perm = jnp.array([1, 0])
  swapped = {**obs, **{k: obs[k][:, perm] for k in ("boxes", "boxes_mask", "boxes_full", "boxes_present")}}
  np.testing.assert_allclose(critic.apply(cp, swapped), critic.apply(cp, obs), rtol=1e-5, atol=1e-5)
