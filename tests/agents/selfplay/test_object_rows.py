"""Object rows without padding (`pad_objects=False`): the same observation and the same policy, minus the
padded rows the object encoder would otherwise compute on; and a 1-block normaliser serves 2-block
holdouts."""

from mjx_envs.blocks import env as block_env
from mjx_envs.core import ConfigError

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents.common import normalize as N
from agents.common.networks import PolicyNet


def _obs(pad, n=2):
  env = block_env.BlocksEnv(num_objects=n, action_bins=11, table_portion=0.6, pad_objects=pad)
  state = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(3), 16))
  return state.obs


@pytest.fixture(scope="module")
def both():
  return _obs(True), _obs(False)


def test_rows_are_the_padded_rows_without_the_padding(both):
  padded, plain = both
  assert padded["objects"].shape == (16, 8, 17) and plain["objects"].shape == (16, 2, 17)
  np.testing.assert_array_equal(plain["objects"], padded["objects"][:, :2])
  np.testing.assert_array_equal(plain["object_mask"], np.ones((16, 2)))
  np.testing.assert_array_equal(padded["object_mask"][:, 2:], 0.0)
  assert plain["observation"].shape == (16, 17 + 2 * 17)
  # Goals keep their [8, 7] layout; Bob's goal inputs are cut to the object rows.
  assert plain["desired_goal"].shape == (16, 8, 7)
  gp, gq = block_env.goal_features(padded), block_env.goal_features(plain)
  assert gq.shape == (16, 2, 14)
  np.testing.assert_array_equal(gq, gp[:, :2])
  assert float(jnp.abs(gq).max()) > 0.1  # not vacuous: real goal inputs


def test_the_policy_is_the_same_function_on_either_layout(both):
  padded, plain = both
  fp, fq = N.features(padded), N.features(plain)
  sp = N.update(N.init(jax.tree.map(lambda x: x[0], fp)), fp)
  sq = N.update(N.init(jax.tree.map(lambda x: x[0], fq)), fq)
  # The real rows' statistics do not depend on the padding.
  np.testing.assert_allclose(sp.mean["objects"][:2], sq.mean["objects"], rtol=1e-6)
  np.testing.assert_allclose(sp.std["objects"][:2], sq.std["objects"], rtol=1e-6)
  net = PolicyNet(6, (32, 32), bins=11)
  xp, xq = N.normalize(sp, fp), N.normalize(sq, fq)
  params = net.init(jax.random.PRNGKey(0), xq)  # the same parameters serve both: none is per row
  lp, _ = net.apply(params, xp)
  lq, _ = net.apply(params, xq)
  np.testing.assert_allclose(lp, lq, rtol=1e-5, atol=1e-6)
  assert float(jnp.std(lq)) > 1e-4  # not vacuous: the logits vary


def test_one_row_statistics_serve_any_number_of_blocks(both):
  one, two = N.features(_obs(False, n=1)), N.features(both[1])
  s1 = N.update(N.init(jax.tree.map(lambda x: x[0], one)), one)
  x2 = N.normalize(s1, two)  # a 1-block Bob on a 2-block holdout: each block normalised as the one
  for row in range(2):
    want = jnp.clip((two["objects"][:, row] - s1.mean["objects"][0]) / s1.std["objects"][0], -5, 5)
    np.testing.assert_allclose(x2["objects"][:, row], want, rtol=1e-6)
  s2 = N.update(N.init(jax.tree.map(lambda x: x[0], two)), two)
  with pytest.raises(ValueError, match="3 object rows, the normaliser's statistics 2"):
    N.normalize(s2, N.features(_obs(False, n=3)))


def test_pad_objects_is_validated():
  with pytest.raises(ConfigError, match="pad_objects"):
    block_env.BlocksEnv(pad_objects="no")
