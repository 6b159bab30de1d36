"""The optional LSTM core: state resets at episode ends, truncated BPTT over the unroll, and the
recurrent path through rollout, train step, evaluation, checkpoints and load_policy."""

import mjx_envs

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import train
from agents import experiment
from agents.common import normalize as N
from agents.ppo.train import PPOConfig, make_train

H = 16


@pytest.fixture(scope="module")
def ppo():
  return make_train(
    mjx_envs.make("FetchReach", episode_length=5),
    PPOConfig(
      num_envs=4,
      unroll_length=8,
      num_minibatches=2,
      update_epochs=2,
      policy_hidden=(32,),
      value_hidden=(32,),
      lstm_size=H,
      total_env_steps=64,
    ),
  )


def _params(ppo, key):
  one = jnp.zeros((13,))
  core = ppo.initial_core(())
  kp, kv = jax.random.split(key)
  return {
    "policy": ppo.policy_net.init(kp, one, core["policy"]),
    "value": ppo.value_net.init(kv, one, core["value"]),
  }


def test_unroll_resets_state_at_episode_ends(ppo):
  """Outputs depend on the initial state only until the env's first done; after it they are identical."""
  T, n = 6, 3
  key = jax.random.PRNGKey(0)
  params = _params(ppo, key)
  norm = N.init(jnp.zeros((13,)))
  feats = jax.random.normal(jax.random.PRNGKey(1), (T, n, 13))
  next_feats = jax.random.normal(jax.random.PRNGKey(2), (T, n, 13))
  dones = jnp.zeros((T, n)).at[2, 0].set(1.0).at[0, 2].set(1.0)
  core0 = jax.tree.map(lambda z: jax.random.normal(jax.random.PRNGKey(3), z.shape), ppo.initial_core((n,)))
  zero = ppo.initial_core((n,))
  out_a, v_a, nv_a, end_a = ppo.unroll(params, norm, feats, dones, core0, next_feats)
  out_b, v_b, nv_b, end_b = ppo.unroll(params, norm, feats, dones, zero, next_feats)
  mean_a, mean_b = out_a[0], out_b[0]
  # Env 0: different through step 2 (its done step), equal from step 3 on.
  assert not np.allclose(mean_a[:3, 0], mean_b[:3, 0])
  np.testing.assert_allclose(mean_a[3:, 0], mean_b[3:, 0], rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(v_a[3:, 0], v_b[3:, 0], rtol=1e-5, atol=1e-6)
  # Env 1 never resets, so the initial state matters throughout; env 2 reset after step 0.
  assert not np.allclose(mean_a[:, 1], mean_b[:, 1])
  np.testing.assert_allclose(mean_a[1:, 2], mean_b[1:, 2], rtol=1e-5, atol=1e-6)
  # The LSTM state actually carries information: same inputs at different times give different outputs.
  assert not np.allclose(mean_b[3, 1], mean_b[4, 1])
  # The final state continues the sequence: feeding step T with it equals a longer unroll.
  feats2 = jnp.concatenate([feats, feats[:1]])
  dones2 = jnp.concatenate([dones, jnp.zeros((1, n))])
  out_c, _, _, _ = ppo.unroll(params, norm, feats2, dones2, core0)
  one_more, _, _, _ = ppo.unroll(params, norm, feats[:1], jnp.zeros((1, n)), end_a)
  np.testing.assert_allclose(out_c[0][T], one_more[0][0], rtol=1e-5, atol=1e-6)
  # V(next_feats[t]) continues from the pre-reset state of step t.
  nf_eq = jnp.concatenate([feats[1:], feats[:1]])
  _, v_s, nv_s, _ = ppo.unroll(params, norm, feats, jnp.zeros((T, n)), core0, nf_eq)
  np.testing.assert_allclose(nv_s[:-1], v_s[1:], rtol=1e-5, atol=1e-6)
  # Truncated BPTT: no gradient flows from after a reset to inputs before it.
  g = jax.grad(lambda f: ppo.unroll(params, norm, f, dones, core0)[1][4, 0])(feats)
  assert np.all(np.asarray(g[:3, 0]) == 0.0) and np.any(np.asarray(g[3:5, 0]) != 0.0)


def test_rollout_log_probs_match_the_recomputed_unroll(ppo):
  """The loss re-runs the LSTM from the stored start state; at the rollout's parameters it must give
  exactly the log-probs the rollout sampled with, episode resets inside the unroll included."""

  def check(ts, key):
    _, end_core, traj, _ = ppo.rollout(ts, key)
    p_out, _, _, end = ppo.unroll(ts.params, ts.obs_norm, traj.feats, traj.done, ts.core)
    return traj, ppo._dist(p_out).log_prob(traj.action), end_core, end  # pylint: disable=protected-access

  ts = jax.jit(ppo.init)(jax.random.PRNGKey(0))
  traj, log_prob, rollout_core, unroll_core = jax.jit(check)(ts, jax.random.PRNGKey(1))
  assert float(traj.done.sum()) >= 4  # episode_length 5 < unroll 8: every env resets inside the unroll
  np.testing.assert_allclose(log_prob, traj.log_prob, rtol=1e-4, atol=1e-4)
  chex.assert_trees_all_close(rollout_core["policy"], unroll_core["policy"], rtol=1e-5, atol=1e-5)


def test_recurrent_config_trains_checkpoints_and_loads(tmp_path):
  cfg = experiment.resolve(train.load_config("ppo_fetch_reach"))
  for kv in (
    "agent.lstm_size=16",
    "agent.num_envs=16",
    "agent.total_env_steps=640",
    "agent.policy_hidden=[32]",
    "agent.value_hidden=[32]",
    "run.eval_every=2",
    "run.num_eval_envs=8",
  ):
    cfg = experiment.set_dotted(cfg, kv)
  ts, row = train.run(cfg, "lstm", str(tmp_path), progress=False)
  assert np.isfinite(row["loss/policy"]) and np.isfinite(row["eval/return"])
  assert ts.core["policy"][0].shape == (16, 16)
  assert np.any(np.asarray(ts.core["value"][1]) != 0.0)
  act = experiment.load_policy(str(tmp_path))
  carry = act.initial_carry((3,))
  a1, carry = act(jnp.ones((3, 13)), None, carry)
  a2, _ = act(jnp.ones((3, 13)), None, carry)
  assert a1.shape == (3, 4) and not np.allclose(a1, a2)
