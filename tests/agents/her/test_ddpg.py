"""DDPG+HER: relabelled sampling from a wrapped buffer, gradients averaged over grad_batches (DDPG's and
SAC's), FetchReach learning through train.py, exact resume (replay buffer included) and the option to leave
the buffer out of checkpoints."""

import mjx_envs

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.flatten_util import ravel_pytree

import train
from agents import experiment
from agents.common import normalize as N
from agents.common import replay
from agents.her import ddpg, sac
from agents.her.ddpg import DDPGConfig, make_train


def test_sample_relabels_within_segments_after_wrapping():
  env = mjx_envs.make("FetchReach")
  L = 6
  algo = make_train(env, DDPGConfig(num_envs=2, unroll_length=L, buffer_size=4 * L, batch_size=512))
  buf = algo.empty_buffer()
  assert buf.num_segments == 4
  for i in range(3):  # 6 segments into 4 slots
    seg = jax.tree.map(lambda x: jnp.zeros((2,) + x.shape[1:]), buf.data)
    ids = jnp.array([2 * i, 2 * i + 1], jnp.float32)
    # next_ag = (segment id, step, 0); the goal asked was far away; step 2 of each segment terminates.
    seg["next_ag"] = jnp.stack(
      jnp.broadcast_arrays(ids[:, None], jnp.arange(L)[None].astype(jnp.float32), jnp.zeros((2, L))), -1
    )
    seg["obs"] = seg["next_ag"][..., :1].repeat(10, -1)  # the step's segment id, to check the gather
    seg["goal"] = jnp.full((2, L, 3), 100.0)
    seg["done"] = seg["done"].at[:, 2].set(1.0).at[:, L - 1].set(1.0)
    seg["truncation"] = seg["truncation"].at[:, L - 1].set(1.0)
    seg["valid"] = jnp.ones((2, L))
    buf = replay.add(buf, seg)
  b = jax.jit(algo.sample)(buf, jax.random.PRNGKey(0))
  seg_id = np.asarray(b["obs"][:, 0])
  assert set(seg_id.tolist()) == {2.0, 3.0, 4.0, 5.0}  # the oldest two were overwritten
  g = np.asarray(b["goal"])
  relabelled = g[:, 0] != 100.0
  assert 0.7 < relabelled.mean() < 0.9  # future_p = 0.8
  np.testing.assert_array_equal(g[relabelled, 0], seg_id[relabelled])  # same segment
  # Future goals stay inside the episode: steps 0-2 or 3-5.
  assert np.all((g[relabelled, 1] <= 2) | (g[relabelled, 1] >= 3))
  # Rewards come from the env's compute_reward on the step's own next achieved goal.
  assert np.all(np.asarray(b["reward"])[~relabelled] == -1.0)
  assert set(np.asarray(b["discount"]).tolist()) == {0.0, 1.0}


def test_grad_batches_must_be_a_positive_integer():
  for bad in (0, -2, 2.0, True):
    with pytest.raises(ValueError, match="grad_batches must be an integer >= 1"):
      DDPGConfig(grad_batches=bad)
  cfg = experiment.resolve(train.load_config("ddpg_her_fetch_reach"))
  with pytest.raises(ValueError, match="agent.grad_batches must be >= 1, got 0"):
    experiment.set_dotted(cfg, "agent.grad_batches=0")
  with pytest.raises(ValueError, match="agent.grad_batches must be an integer, got 1.5"):
    experiment.set_dotted(cfg, "agent.grad_batches=1.5")


def _random_buffer(algo, key, cycles=3):
  """`algo`'s buffer after `cycles` cycles of random segments whose episodes end at random steps."""
  buf = algo.empty_buffer()
  n = algo.config.num_envs
  for k in jax.random.split(key, cycles):
    seg = jax.tree.map(lambda x: jax.random.normal(k, (n,) + x.shape[1:]), buf.data)
    seg.update(
      done=(jax.random.uniform(k, seg["done"].shape) < 0.2).astype(jnp.float32),
      truncation=jnp.zeros_like(seg["done"]),
      valid=jnp.ones_like(seg["done"]),
    )
    buf = replay.add(buf, seg)
  return buf


@pytest.mark.parametrize("learner", [(ddpg, DDPGConfig), (sac, sac.SACConfig)], ids=["ddpg", "sac"])
def test_averaged_gradient_equals_the_gradient_of_the_concatenated_batches(learner):
  # Baselines' k MPI workers average k batches' gradients: that must be the gradient of one k x larger
  # batch holding the same samples (SAC's reparameterisation noise travels with its batch).
  mod, config = learner
  k, bs = 4, 16
  algo = mod.make_train(
    mjx_envs.make("FetchReach"),
    config(num_envs=2, unroll_length=5, buffer_size=40, batch_size=bs, grad_batches=k, hidden=(32, 32)),
  )
  key = jax.random.PRNGKey(0)
  buf = _random_buffer(algo, key)
  feats = jnp.zeros(13)
  params = algo.init_params(jax.random.PRNGKey(1), jax.random.PRNGKey(2), feats)
  # A target unlike the online nets and statistics unlike the identity, so every input matters.
  target = jax.tree.map(lambda x: x * 1.1, algo.target_params(params))
  obs_norm = N.update(N.init(feats), 2.0 + 3.0 * jax.random.normal(key, (64, 13)))
  batches = jax.jit(algo.sample_many)(buf, jax.random.PRNGKey(3))
  assert batches["obs"].shape == (k, bs, 10)
  assert not np.allclose(batches["obs"][0], batches["obs"][1])  # independent draws
  mean_grads = jax.jit(algo.mean_grads)
  g_avg, info_avg = mean_grads(params, target, obs_norm, batches)
  concat = jax.tree.map(lambda x: x.reshape((1, k * bs) + x.shape[2:]), batches)
  g_cat, info_cat = mean_grads(params, target, obs_norm, concat)
  chex.assert_trees_all_close(g_avg, g_cat, rtol=1e-4, atol=1e-7)
  chex.assert_trees_all_close(info_avg, info_cat, rtol=1e-4, atol=1e-7)
  # Not vacuous: the gradients are not zero and differ from those of the first batch alone.
  g_one, _ = jax.jit(algo.grads)(params, target, obs_norm, jax.tree.map(lambda x: x[0], batches))
  for part in g_avg:
    avg, one = (np.asarray(ravel_pytree(g[part])[0]) for g in (g_avg, g_one))
    assert np.linalg.norm(avg) > 0, part
    assert np.linalg.norm(one - avg) > 1e-3 * np.linalg.norm(avg), part


@pytest.fixture(scope="module")
def reach_cfg():
  cfg = experiment.resolve(train.load_config("ddpg_her_fetch_reach"))
  return experiment.set_dotted(cfg, "agent.buffer_size=100000")


@pytest.mark.slow  # a training run (the default tier must fit in 30 minutes)
def test_ddpg_her_solves_fetch_reach_and_resumes_exactly(reach_cfg, tmp_path):
  full_dir, half_dir = tmp_path / "full", tmp_path / "half"
  ts, row = train.run(reach_cfg, "ddpg", str(full_dir), progress=False)
  assert row["eval/success_rate"] >= 0.95, row
  assert row["env_steps"] == 20_000
  act = experiment.load_policy(str(full_dir))
  assert act(
    {
      "observation": jnp.zeros((2, 10)),
      "achieved_goal": jnp.zeros((2, 3)),
      "desired_goal": jnp.zeros((2, 3)),
    },
    None,
  ).shape == (2, 4)
  # Half the run, then a resume with the full config from its checkpoint.
  half = experiment.set_dotted(reach_cfg, "agent.total_env_steps=10000")
  train.run(half, "ddpg", str(half_dir), progress=False)
  ts2, row2 = train.run(reach_cfg, "ddpg", str(half_dir), resume=True, progress=False)
  assert row2["env_steps"] == 20_000
  chex.assert_trees_all_equal(ts.params, ts2.params)
  chex.assert_trees_all_equal(ts.buffer.data, ts2.buffer.data)


def test_checkpoint_can_leave_the_buffer_out(reach_cfg, tmp_path):
  cfg = experiment.set_dotted(reach_cfg, "agent.checkpoint_buffer=False")
  cfg = experiment.set_dotted(cfg, "agent.total_env_steps=2000")
  ts, _ = train.run(cfg, "ddpg", str(tmp_path), progress=False)
  size = sum(f.stat().st_size for f in (tmp_path / "checkpoints").rglob("*") if f.is_file())
  buffer_bytes = sum(x.nbytes for x in jax.tree.leaves(ts.buffer.data))
  assert size < buffer_bytes, (size, buffer_bytes)  # 3 checkpoints kept, none with the buffer
  _, algo = experiment.build(cfg)
  from agents.common.checkpoint import Checkpointer  # pylint: disable=import-outside-toplevel

  ckpt = Checkpointer(str(tmp_path))
  restored, _ = ckpt.restore(
    experiment.checkpoint_view(algo, jax.eval_shape(algo.init, jax.random.PRNGKey(0)))
  )
  ckpt.close()
  full = experiment.from_checkpoint(algo, restored)
  assert int(full.buffer.size) == 0
  chex.assert_trees_all_equal(full.params, ts.params)
