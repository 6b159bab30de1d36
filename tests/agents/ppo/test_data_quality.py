"""Data-quality practice: PPO's staleness ring (the rollout acts with the parameters of k train steps
ago), the sample-reuse and staleness metrics, and the scheduled entropy weight."""

import mjx_envs

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents.common import episodes, replay
from agents.her import ddpg
from agents.ppo import train as ppo


@pytest.fixture(scope="module")
def env():
  return mjx_envs.make("FetchReach")


@pytest.mark.parametrize("k", [0, 1, 3])
def test_behaviour_ring_gives_the_parameters_of_k_steps_ago(env, k):
  algo = ppo.make_train(env, ppo.PPOConfig(num_envs=4, num_minibatches=1, staleness=k, total_env_steps=10**6))
  version = lambda v: {"w": jnp.float32(v)}
  ring = jax.tree.map(
    lambda x: jnp.broadcast_to(x, (k,) + x.shape), {"params": version(0), "obs_norm": version(0)}
  )
  ts = ppo.TrainState(
    params=version(0),
    opt_state=None,
    obs_norm=version(0),
    ret_norm=None,
    ret_acc=None,
    core=None,
    env_state=None,
    key=None,
    updates=jnp.int32(0),
    behaviour=ring if k else None,
  )
  for u in range(12):
    params, norm = algo.behaviour_policy(ts)
    assert float(params["w"]) == max(u - k, 0) and float(norm["w"]) == max(u - k, 0), (u, k)
    # A train step: the ring takes this step's version, then the parameters move on.
    ts = ts.replace(
      behaviour=algo._push_behaviour(ts),
      params=version(u + 1),
      obs_norm=version(u + 1),
      updates=jnp.int32(u + 1),
    )


def test_ppo_config_and_metrics(env):
  with pytest.raises(ValueError, match="staleness"):
    ppo.PPOConfig(staleness=-1)
  with pytest.raises(ValueError, match="ent_schedule"):
    ppo.PPOConfig(ent_schedule="exp")
  algo = ppo.make_train(
    env,
    ppo.PPOConfig(
      num_envs=4,
      num_minibatches=1,
      total_env_steps=4 * 16 * 10,
      ent_coef=0.01,
      ent_schedule="linear",
      ent_coef_end=0.001,
    ),
  )
  assert algo.config.num_updates == 10
  np.testing.assert_allclose([float(algo.ent_coef(u)) for u in (0, 5, 10)], [0.01, 0.0055, 0.001], rtol=1e-5)
  m = episodes.data_quality(4, 0)
  assert float(m["data/sample_reuse"]) == 4.0 and float(m["data/staleness"]) == 0.0


def test_std_bounds_clip_the_gaussian_and_stop_its_gradient_outside(env):
  """std_bounds (garage's min_std / max_std): the policy's std is clipped into the bounds in every
  distribution PPO builds (rollout, loss, evaluation), and the log std gets a gradient only inside."""
  with pytest.raises(ValueError, match="std_bounds"):
    ppo.PPOConfig(std_bounds=(1.5, 0.5))
  with pytest.raises(ValueError, match="categorical"):
    ppo.PPOConfig(distribution="categorical", std_bounds=(0.5, 1.5))
  free = ppo.make_train(env, ppo.PPOConfig(num_envs=4, num_minibatches=1, total_env_steps=640))
  bounded = ppo.make_train(
    env, ppo.PPOConfig(num_envs=4, num_minibatches=1, total_env_steps=640, std_bounds=(0.5, 1.5))
  )
  mean = jnp.zeros((3, 4))
  log_std = jnp.log(jnp.array([0.1, 0.7, 3.0, 1.0]))[None].repeat(3, 0)
  np.testing.assert_allclose(np.exp(free._dist((mean, log_std)).log_std), np.exp(log_std), rtol=1e-6)
  np.testing.assert_allclose(
    np.exp(bounded._dist((mean, log_std)).log_std[0]), [0.5, 0.7, 1.5, 1.0], rtol=1e-6
  )
  grad = jax.grad(lambda ls: bounded._dist((mean, ls)).entropy().sum())(log_std)
  np.testing.assert_array_equal(np.asarray(grad), [[0.0, 1.0, 0.0, 1.0]] * 3)


def test_ddpg_staleness_is_the_age_of_sampled_segments(env):
  algo = ddpg.make_train(env, ddpg.DDPGConfig(num_envs=2, unroll_length=5, buffer_size=40, batch_size=64))
  # 8 segment slots; 3 cycles of 2 segments written: slots 0-1 (cycle 0, age 2), 2-3 (age 1), 4-5 (age 0).
  buf = algo.empty_buffer()
  for _ in range(3):
    buf = replay.add(buf, jax.tree.map(lambda x: jnp.zeros((2,) + x.shape[1:], x.dtype), buf.data))
  buf = buf.replace(data={**buf.data, "valid": jnp.ones_like(buf.data["valid"])})
  batch = algo.sample(buf, jax.random.PRNGKey(0))
  # Which slot each row came from is not returned; the ages can only be 0, 1 or 2 and all three occur.
  assert set(np.unique(np.asarray(batch["age"])).tolist()) == {0.0, 1.0, 2.0}
