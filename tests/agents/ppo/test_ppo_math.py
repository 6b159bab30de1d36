"""PPO's maths against plain NumPy references: GAE (with truncation), losses, normaliser, distributions."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents.common import distributions as D
from agents.common import normalize as N
from agents.ppo.losses import clipped_surrogate, gae, value_loss


def gae_reference(r, v, v_next, done, trunc, gamma, lam):
  T, n = r.shape
  adv = np.zeros((T, n))
  for j in range(n):
    last = 0.0
    for t in reversed(range(T)):
      term = done[t, j] and not trunc[t, j]
      delta = r[t, j] + gamma * (0.0 if term else v_next[t, j]) - v[t, j]
      last = delta + gamma * lam * (0.0 if done[t, j] else 1.0) * last
      adv[t, j] = last
  return adv


def test_gae_matches_numpy_with_truncation_and_termination():
  rng = np.random.default_rng(0)
  T, n = 12, 5
  r, v, v_next = rng.normal(size=(3, T, n))
  done = np.zeros((T, n))
  trunc = np.zeros((T, n))
  done[3, 0] = trunc[3, 0] = 1  # truncated: bootstraps from the final observation
  done[5, 1] = 1  # terminated: no bootstrap
  done[[2, 7], 2] = 1
  trunc[7, 2] = 1
  adv, ret = gae(*(jnp.asarray(x, jnp.float32) for x in (r, v, v_next, done, trunc)), 0.97, 0.9)
  ref = gae_reference(r, v, v_next, done, trunc, 0.97, 0.9)
  np.testing.assert_allclose(adv, ref, rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(ret, ref + v, rtol=1e-5, atol=1e-5)
  # Truncation and termination really differ at the boundary step.
  assert adv[3, 0] == pytest.approx(r[3, 0] + 0.97 * v_next[3, 0] - v[3, 0], abs=1e-5)
  assert adv[5, 1] == pytest.approx(r[5, 1] - v[5, 1], abs=1e-5)


def test_clipped_surrogate_hand_computed():
  logp_old = jnp.zeros(4)
  ratios = jnp.array([0.5, 1.0, 1.1, 1.5])
  adv = jnp.array([1.0, -2.0, 1.0, 1.0])
  loss, frac = clipped_surrogate(jnp.log(ratios), logp_old, adv, 0.2)
  # min(r*A, clip(r)*A): 0.5 (0.5 < 0.8*1 -> min is 0.5), -2, 1.1, 1.2 (clipped)
  assert float(loss) == pytest.approx(-(0.5 - 2.0 + 1.1 + 1.2) / 4, abs=1e-6)
  assert float(frac) == pytest.approx(0.5)


def test_value_loss_clipping():
  v, old, ret = jnp.array([2.0]), jnp.array([0.0]), jnp.array([1.0])
  assert float(value_loss(v, old, ret, None)) == pytest.approx(0.5)
  # clipped value 0.5 -> (0.5-1)^2 = 0.25; max(1, 0.25) = 1 -> 0.5
  assert float(value_loss(v, old, ret, 0.5)) == pytest.approx(0.5)
  v = jnp.array([-1.0])  # unclipped err 4, clipped -0.5 -> err 2.25; max = 4
  assert float(value_loss(v, old, ret, 0.5)) == pytest.approx(2.0)


def test_normaliser_statistics_and_clipping():
  rng = np.random.default_rng(1)
  a = rng.normal(3.0, 2.0, size=(40, 50, 4)).astype(np.float32)
  feats = {
    "robot": jnp.asarray(a),
    "objects": jnp.asarray(a[..., None, :].repeat(2, -2)),
    "object_mask": jnp.ones((40, 50, 2)),
  }
  state = N.init(jax.tree.map(lambda x: x[0, 0], feats))
  state = N.update(state, {k: v[:20] for k, v in feats.items()})
  state = N.update(state, {k: v[20:] for k, v in feats.items()})
  flat = a.reshape(-1, 4)
  np.testing.assert_allclose(state.mean["robot"], flat.mean(0), rtol=1e-4)
  np.testing.assert_allclose(state.std["robot"], flat.std(0), rtol=1e-3)
  out = N.normalize(
    state,
    {
      "robot": jnp.array([[3.0, 3, 3, 1e6]]),
      "objects": jnp.zeros((1, 2, 4)),
      "object_mask": jnp.array([[1.0, 0.0]]),
    },
  )
  assert float(out["robot"][0, 3]) == 5.0  # clipped to +-5
  np.testing.assert_array_equal(out["object_mask"], [[1.0, 0.0]])  # the mask is not normalised


def test_gaussian_maths():
  mean, log_std = jnp.array([0.3, -1.0]), jnp.array([0.1, -0.5])
  d = D.Normal(mean, log_std)
  x = jnp.array([0.5, -0.2])
  std = np.exp(np.asarray(log_std))
  ref = float(
    np.sum(-0.5 * ((np.asarray(x) - np.asarray(mean)) / std) ** 2 - np.log(std) - 0.5 * math.log(2 * math.pi))
  )
  assert float(d.log_prob(x)) == pytest.approx(ref, rel=1e-5)
  assert float(d.entropy()) == pytest.approx(np.sum(0.5 * np.log(2 * np.pi * np.e * std**2)), rel=1e-5)
  o = D.Normal(jnp.array([0.0, 0.0]), jnp.array([0.0, 0.0]))
  ref_kl = float(np.sum(np.log(1 / std) + (std**2 + np.asarray(mean) ** 2) / 2 - 0.5))
  assert float(d.kl(o)) == pytest.approx(ref_kl, rel=1e-5)
  assert float(d.kl(d)) == pytest.approx(0.0, abs=1e-6)
  # Monte-Carlo check of KL.
  samples = mean + std * jax.random.normal(jax.random.PRNGKey(0), (200_000, 2))
  mc = jnp.mean(d.log_prob(samples) - o.log_prob(samples))
  assert float(mc) == pytest.approx(ref_kl, rel=2e-2)


def test_tanh_gaussian_log_prob_is_a_density():
  d = D.TanhNormal(jnp.array([0.4]), jnp.array([-0.3]))
  a = jnp.linspace(-0.999, 0.999, 20001)
  u = jnp.arctanh(a)[:, None]
  density = jnp.exp(d.log_prob(u))
  integral = float(jnp.sum(density) * (a[1] - a[0]))
  assert integral == pytest.approx(1.0, abs=5e-3)
  # Change of variables by hand for one point.
  u0 = jnp.array([0.7])
  ref = float(D.Normal(d.mean, d.log_std).log_prob(u0)) - math.log(1 - math.tanh(0.7) ** 2)
  assert float(d.log_prob(u0)) == pytest.approx(ref, rel=1e-5)
  assert float(d.kl(D.TanhNormal(jnp.array([0.0]), jnp.array([0.0])))) == pytest.approx(
    float(D.Normal(d.mean, d.log_std).kl(D.Normal(jnp.array([0.0]), jnp.array([0.0]))))
  )


def test_multi_categorical_maths():
  logits = jnp.array([[1.0, 0.0, -1.0], [0.5, 0.5, 0.0]])
  d = D.MultiCategorical(logits)
  p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
  x = jnp.array([0, 2])
  assert float(d.log_prob(x)) == pytest.approx(np.log(p[0, 0]) + np.log(p[1, 2]), rel=1e-5)
  assert float(d.entropy()) == pytest.approx(-np.sum(p * np.log(p)), rel=1e-5)
  q_logits = jnp.zeros((2, 3))
  q = np.full((2, 3), 1 / 3)
  assert float(d.kl(D.MultiCategorical(q_logits))) == pytest.approx(np.sum(p * np.log(p / q)), rel=1e-5)
  samples = jax.vmap(d.sample)(jax.random.split(jax.random.PRNGKey(0), 50_000))
  freq = np.mean(np.asarray(samples)[:, 0] == 0)
  assert freq == pytest.approx(p[0, 0], abs=0.01)
  assert np.array_equal(np.asarray(d.mode()), [0, 0])
