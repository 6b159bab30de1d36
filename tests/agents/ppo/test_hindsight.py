"""The clipped-BC objective shared by ABC and PPO's hindsight term, and PPO+hindsight itself."""

import mjx_envs

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import train
from agents import experiment
from agents.ppo import losses
from agents.ppo.train import PPOConfig, Transition, make_train


def test_clip_form_bc_loss_values_and_gradient():
  lp = jnp.log(jnp.array([1.0, 1.1, 1.5, 0.5]))
  old = jnp.zeros(4)
  loss, clipped = losses.bc_loss(lp, old, 0.2, form="clip")
  np.testing.assert_allclose(loss, -(1.0 + 1.1 + 1.2 + 0.8) / 4, rtol=1e-6)
  np.testing.assert_allclose(clipped, 0.5)
  # Only unclipped ratios carry gradient, d(-r)/d(log r) = -r / n.
  g = jax.grad(lambda x: losses.bc_loss(x, old, 0.2, form="clip")[0])(lp)
  np.testing.assert_allclose(g, [-0.25, -1.1 / 4, 0.0, 0.0], rtol=1e-5)
  mask = jnp.array([0.0, 1.0, 0.0, 0.0])
  np.testing.assert_allclose(losses.bc_loss(lp, old, 0.2, mask, "clip")[0], -1.1, rtol=1e-6)
  assert float(losses.bc_loss(lp, old, 0.2, jnp.zeros(4), "clip")[0]) == 0.0


@pytest.fixture(scope="module")
def ppo():
  return make_train(
    mjx_envs.make("FetchReach"),
    PPOConfig(
      num_envs=2,
      unroll_length=6,
      num_minibatches=1,
      hindsight=True,
      hindsight_whole_episodes=False,
      policy_hidden=(16,),
      value_hidden=(16,),
    ),
  )


def test_hindsight_demos_relabel_failed_episodes_only(ppo):
  T, n = 6, 2
  feats = jax.random.normal(jax.random.PRNGKey(0), (T, n, 13))
  # env 0: an episode ending at step 2 in success, then one that has not succeeded by the unroll's end;
  # env 1: one episode, failed.
  done = jnp.zeros((T, n)).at[2, 0].set(1.0)
  success = jnp.zeros((T, n)).at[2, 0].set(1.0)
  next_ag = jnp.stack(
    jnp.broadcast_arrays(
      jnp.arange(T, dtype=jnp.float32)[:, None], jnp.arange(n, dtype=jnp.float32)[None], jnp.zeros((T, n))
    ),
    -1,
  )
  action = jax.random.normal(jax.random.PRNGKey(1), (T, n, 4))
  traj = Transition(
    feats,
    action,
    jnp.zeros((T, n)),
    jnp.zeros((T, n)),
    jnp.zeros((T, n)),
    done,
    jnp.zeros((T, n)),
    feats,
    {"next_ag": next_ag, "success": success},
  )
  ts = jax.jit(ppo.init)(jax.random.PRNGKey(0))
  demos = ppo.hindsight_demos(ts.params, ts.obs_norm, traj, jax.random.PRNGKey(2))
  np.testing.assert_array_equal(demos.mask[:, 0], [0, 0, 0, 1, 1, 1])
  np.testing.assert_array_equal(demos.mask[:, 1], 1)
  goal = np.asarray(demos.feats[..., -3:])
  t = np.arange(T)[:, None]
  assert np.all(goal[..., 1] == np.arange(n)[None])  # from the same env's segment
  assert np.all(goal[..., 0] >= t)  # from a later step (future)
  assert np.all(goal[3:, 0, 0] >= 3)  # of the same episode
  chex.assert_trees_all_equal(demos.feats[..., :-3], feats[..., :-3])  # only the goal changes
  expect = ppo.distribution(ts.params["policy"], ts.obs_norm, demos.feats).log_prob(action)
  np.testing.assert_allclose(demos.old_log_prob, expect, rtol=1e-6)


def test_hindsight_needs_a_flat_goal_env():
  with pytest.raises(ValueError, match="hindsight needs a goal env"):
    make_train(mjx_envs.make("BlocksPush"), PPOConfig(hindsight=True, num_envs=4))


def test_hindsight_judges_whole_episodes_by_default():
  """An unroll that cuts episodes is refused unless asked for (hindsight_whole_episodes=False)."""
  env = mjx_envs.make("FetchReach")
  with pytest.raises(ValueError, match="multiple of the episode length"):
    make_train(env, PPOConfig(num_envs=2, num_minibatches=1, unroll_length=10, hindsight=True))
  make_train(env, PPOConfig(num_envs=2, num_minibatches=1, unroll_length=100, hindsight=True))


def test_ppo_hindsight_trains_behind_its_switch(tmp_path):
  cfg = experiment.resolve(train.load_config("ppo_her_fetch_push"))
  for kv in (
    "env.name='FetchReach'",
    "agent.num_envs=32",
    "agent.num_minibatches=2",
    "agent.total_env_steps=1280",
    "agent.policy_hidden=[32]",
    "agent.value_hidden=[32]",
    "agent.unroll_length=10",
    "agent.episode_length=10",
    "run.eval_every=2",
    "run.num_eval_envs=8",
  ):
    cfg = experiment.set_dotted(cfg, kv)
  assert cfg["agent"]["hindsight"] is True
  _, row = train.run(cfg, "ppo_her", str(tmp_path), progress=False)
  assert 0.0 < row["hindsight/demo_frac"] <= 1.0
  assert np.isfinite(row["loss/hindsight"]) and row["loss/hindsight"] < 0.0
  # The rollout's and the loss's observation statistics agree: every ratio is 1 before the first step.
  assert row["loss/ratio_dev_first"] < 1e-4, row["loss/ratio_dev_first"]
