"""MT-SAC (agents/multitask/mtsac.py): per-task temperatures move independently (the loss, and one update of the
learner), the critic target takes the smaller twin and bootstraps through truncation (stored flags ->
discount -> target), config checks, and a short compiled run on a 2-task multi-task batch of reach copies
with finite losses and per-task rows, resumed exactly from a checkpoint round trip; the multi-head option
(one output layer per task)."""

from mjx_envs.metaworld import make_task
from mjx_envs.metaworld import tasks as mw_tasks
from mjx_envs.metaworld.multitask import MultiTask, TaskId

import copy
import math

import flax.core as flax_core
import flax.traverse_util as flax_traverse
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import train
from agents import experiment
from agents.common import replay
from agents.common.checkpoint import Checkpointer
from agents.her import sac
from agents.multitask import mtsac

SMALL = dict(
  num_envs=2,
  unroll_length=5,
  updates_per_cycle=2,
  batch_size=16,
  buffer_size=100,
  hidden=(16,),
  episode_length=8,
  num_eval_envs=2,
)


@pytest.fixture(scope="module")
def reach():
  return make_task("reach-v3")


@pytest.fixture(scope="module")
def two_task(reach):
  """A 2-task MultiTask of reach copies, 1 world each, and its MT-SAC learner."""
  env = MultiTask([reach, reach], ["a", "b"], 1)
  return env, mtsac.make_train(env, mtsac.MTSACConfig(**SMALL))


# --- the losses, as functions of arrays -------------------------------------------------------------
def test_per_task_temperature_loss_moves_each_task_by_its_own_transitions():
  log_alpha = jnp.log(jnp.array([0.5, 1.0, 2.0, 0.3]))
  task = jnp.array([0, 0, 1, 1, 1, 2])  # task 3 has no transition in the batch
  logp = jnp.array([1.0, 3.0, -6.0, -5.0, -7.0, 0.0])  # entropies: task 0 -2, task 1 6, task 2 0
  target = -1.0
  g = jax.grad(mtsac.per_task_temperature_loss)(log_alpha, task, logp, target)
  # d/d log_alpha_k = entropy_k - target: below the target (task 0) descent raises alpha, above it
  # (tasks 1, 2) lowers it; a task with no transition is left alone.
  np.testing.assert_allclose(g, [-2.0 + 1.0, 6.0 + 1.0, 0.0 + 1.0, 0.0], rtol=1e-6)
  # Task 0's transitions changing moves task 0's gradient only.
  g2 = jax.grad(mtsac.per_task_temperature_loss)(log_alpha, task, logp.at[0].set(-9.0), target)
  np.testing.assert_allclose(g2[1:], g[1:])
  assert g2[0] > g[0]
  # One task: SAC's temperature loss.
  one = jnp.zeros((1,)) + math.log(0.2)
  np.testing.assert_allclose(
    mtsac.per_task_temperature_loss(one, jnp.zeros(6, jnp.int32), logp, target),
    sac.temperature_loss(one[0], logp, target),
    rtol=1e-6,
  )


def test_task_ids_read_the_trailing_one_hot():
  obs = jnp.concatenate([jnp.ones((3, 5)), jax.nn.one_hot(jnp.array([2, 0, 1]), 3)], -1)
  np.testing.assert_array_equal(mtsac.task_ids(obs, 3), [2, 0, 1])
  np.testing.assert_array_equal(mtsac.task_ids(obs, 1), [0, 0, 0])


def test_critic_target_per_transition_alpha_min_twin_and_truncation():
  reward = jnp.array([1.0, 2.0, 3.0])
  discount = 1.0 - jnp.array([0.0, 1.0, 1.0]) * (1.0 - jnp.array([0.0, 1.0, 0.0]))  # -, truncated, terminated
  next_q = jnp.array([[10.0, 20.0, 30.0], [12.0, 15.0, 40.0]])
  next_logp = jnp.array([-1.0, 2.0, 0.5])
  alpha = jnp.array([0.5, 2.0, 1.0])  # each transition's task's alpha
  y = sac.critic_target(reward, discount, next_q, next_logp, alpha, 0.9)
  np.testing.assert_allclose(y, [1.0 + 0.9 * (10.0 + 0.5), 2.0 + 0.9 * (15.0 - 4.0), 3.0], rtol=1e-6)


# --- the learner ------------------------------------------------------------------------------------
def _filled_buffer(algo, done, truncation, task):
  """A buffer of one segment per env with the given per-step flags and obs one-hot of `task` [S]."""
  buf = algo.empty_buffer()
  S, L = buf.num_segments, algo.config.unroll_length
  keys = iter(jax.random.split(jax.random.PRNGKey(0), 10))
  data = {k: jax.random.normal(next(keys), v.shape) for k, v in buf.data.items()}
  one_hot = jax.nn.one_hot(task, algo.num_tasks)[:, None, :]
  for k in ("obs", "next_obs"):
    data[k] = data[k].at[..., -algo.num_tasks :].set(jnp.broadcast_to(one_hot, (S, L, algo.num_tasks)))
  data.update(
    done=jnp.broadcast_to(done, (S, L)),
    truncation=jnp.broadcast_to(truncation, (S, L)),
    valid=jnp.ones((S, L)),
    reward=jnp.broadcast_to(truncation, (S, L)),
  )
  return replay.add(buf, data)


def test_only_the_sampled_tasks_temperature_moves_and_targets_bootstrap_through_truncation(two_task):
  _, algo = two_task
  # Every stored step ends an episode by truncation except the last of each segment, a termination;
  # all transitions are task 0's ("a").
  L = algo.config.unroll_length
  done = jnp.ones((L,))
  truncation = jnp.ones((L,)).at[-1].set(0.0)
  S = algo.empty_buffer().num_segments
  buf = _filled_buffer(algo, done, truncation, jnp.zeros((S,), jnp.int32))
  b = jax.jit(algo.sample)(buf, jax.random.PRNGKey(1))
  # Truncated steps bootstrap (discount 1), terminated ones do not (the stored reward marks which is
  # which here: 1 truncated, 0 terminated); the batch has both, and an empty goal.
  np.testing.assert_array_equal(b["discount"], b["reward"])
  assert 0 < float(jnp.mean(b["discount"])) < 1
  assert b["goal"].shape == (algo.config.batch_size, 0)

  ts = jax.jit(algo.init)(jax.random.PRNGKey(2))
  params = ts.params
  # An entropy target far above any 4-d squashed Gaussian's entropy: task "a"'s alpha must rise.
  high = copy.copy(algo)
  high.target_entropy = 20.0
  batches = jax.tree.map(lambda x: x[None], b)
  grads, info = jax.jit(high.mean_grads)(params, high.target_params(params), ts.obs_norm, batches)
  new, _, _ = jax.jit(high.update)(params, ts.opt_state, high.target_params(params), ts.obs_norm, batches)
  assert grads["log_alpha"][0] < 0 and grads["log_alpha"][1] == 0
  assert new["log_alpha"][0] > params["log_alpha"][0]
  assert new["log_alpha"][1] == params["log_alpha"][1]

  # The critic target by hand: the smaller of the twin target critics at a' ~ pi(s'), minus task a's
  # alpha x log pi(a'|s'), discounted by the stored flags.
  feats = algo.normalize(ts.obs_norm, b["next_obs"])
  dist = algo.actor.apply(params["actor"], feats)
  next_a, next_logp = sac.squash(dist, b["next_noise"])
  q1, q2 = algo.critic.apply(ts.target["critic"], feats, next_a)
  alpha = float(jnp.exp(params["log_alpha"][0]))
  y = b["reward"] + algo.config.gamma * b["discount"] * (jnp.minimum(q1, q2) - alpha * next_logp)
  _, info = jax.jit(algo.grads)(params, ts.target, ts.obs_norm, b)
  np.testing.assert_allclose(float(info["q/target"]), float(jnp.mean(y)), rtol=1e-5, atol=1e-5)


def test_one_hot_reaches_the_networks_unnormalised(two_task):
  _, algo = two_task
  ts_norm = algo.init(jax.random.PRNGKey(0)).obs_norm
  feats = jnp.concatenate([jnp.full((2, 39), 3.0), jax.nn.one_hot(jnp.array([0, 1]), 2)], -1)
  out = algo.normalize(ts_norm, feats)
  np.testing.assert_array_equal(out[:, -2:], feats[:, -2:])


def test_short_run_is_finite_with_per_task_rows_and_resumes_exactly(two_task, tmp_path):
  _, algo = two_task
  step = jax.jit(lambda t: algo.train_many(t, 1))
  ts = jax.jit(algo.init)(jax.random.PRNGKey(0))
  ts1, m1 = step(ts)
  ts2, m2 = step(ts1)
  for m in (m1, m2):
    for k, v in m.items():
      assert np.isfinite(float(v)), k
  for k in (
    "loss/critic",
    "loss/actor",
    "loss/alpha",
    "sac/alpha/a",
    "sac/alpha/b",
    "train/return/a",
    "train/success_rate/b",
  ):
    assert k in m2, k
  # Episodes of 8 steps, 5 steps per cycle: each world has ended one by the second cycle.
  assert float(m2["train/episodes/a"]) == 1.0 and float(m2["train/episodes/b"]) == 1.0
  assert ts2.params["log_alpha"].shape == (2,)
  assert not np.array_equal(np.asarray(ts2.params["log_alpha"]), np.asarray(ts.params["log_alpha"]))
  # Exact resume: the state after one cycle through a checkpoint, then one more cycle.
  ckpt = Checkpointer(str(tmp_path))
  ckpt.save(1, experiment.checkpoint_view(algo, ts1), {"env_steps": 10, "wall_s": 0.0, "chunks": 1})
  ckpt.close()
  ckpt = Checkpointer(str(tmp_path))
  abstract = jax.eval_shape(algo.init, jax.random.PRNGKey(0))
  restored, meta = ckpt.restore(experiment.checkpoint_view(algo, abstract))
  ckpt.close()
  assert meta["chunks"] == 1
  resumed, _ = step(experiment.from_checkpoint(algo, restored))
  for a, b in zip(
    jax.tree.leaves((ts2.params, ts2.target, ts2.opt_state, ts2.obs_norm, ts2.buffer)),
    jax.tree.leaves((resumed.params, resumed.target, resumed.opt_state, resumed.obs_norm, resumed.buffer)),
  ):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


# --- configs ----------------------------------------------------------------------------------------
def test_configs_and_their_checks(reach):
  cfg = experiment.resolve(train.load_config("sac_metaworld_reach"))
  assert cfg["agent"]["algo"] == "mtsac" and cfg["agent"]["replay_strategy"] == "none"
  with pytest.raises(experiment.ConfigError, match="needs a Meta-World env"):
    experiment.resolve({"env": {"name": "FetchReach"}, "agent": {"algo": "mtsac"}})
  with pytest.raises(experiment.ConfigError, match="replay_strategy"):
    experiment.set_dotted(cfg, "agent.replay_strategy=future")
  with pytest.raises(experiment.ConfigError, match="clip_target"):
    experiment.set_dotted(cfg, "agent.clip_target=True")
  with pytest.raises(experiment.ConfigError, match="num_tasks"):
    experiment.set_dotted(cfg, "agent.num_tasks=3")
  # A single env with a task one-hot of 3 (as a MultiTask member sees it) and num_tasks given.
  algo = mtsac.make_train(TaskId(reach, 1, 3), mtsac.MTSACConfig(num_tasks=3, **SMALL))
  assert algo.num_tasks == 3 and algo.obs_example.shape == (42,)
  with pytest.raises(ValueError, match="num_tasks"):
    mtsac.make_train(MultiTask([reach, reach], ["a", "b"], 1), mtsac.MTSACConfig(num_tasks=3, **SMALL))
  with pytest.raises(ValueError, match="multiple"):
    mtsac.make_train(MultiTask([reach, reach], ["a", "b"], 1), mtsac.MTSACConfig(**{**SMALL, "num_envs": 3}))
  if set(mw_tasks.MT10) <= set(mw_tasks.available()):  # MT10 builds once all its tasks exist
    for name in ("mtsac_mt10", "mtsac_mt10_cpu"):
      mt = experiment.resolve(train.load_config(name))
      assert mt["agent"]["num_envs"] % 10 == 0 and mt["run"]["num_eval_envs"] % 10 == 0


# --- multi-head networks ----------------------------------------------------------------------------
def _with_head_moved(tree, head: int, num_heads: int):
  """`tree` with every multi-head output layer's (kernel [H, num_heads * k], bias) columns of `head`
  moved by 0.5 (the layers of `MultiHeadMLP`; the trunk's layers are left as they are)."""
  flat = flax_traverse.flatten_dict(flax_core.unfreeze(tree))
  out = {}
  for path, v in flat.items():
    if path[-3:-1] == ("MultiHeadMLP_0", "Dense_0"):
      k = v.shape[-1] // num_heads
      v = v.at[..., head * k : (head + 1) * k].add(0.5)
    out[path] = v
  return flax_traverse.unflatten_dict(out)


def test_multihead_gives_each_task_its_own_output_layer(two_task):
  env, _ = two_task
  algo = mtsac.make_train(env, mtsac.MTSACConfig(**SMALL, multihead=True))
  ts = jax.jit(algo.init)(jax.random.PRNGKey(0))
  feats = jnp.concatenate([jax.random.normal(jax.random.PRNGKey(1), (2, 39)), jnp.eye(2)], -1)
  action = jnp.full((2, 4), 0.3)
  actor, critic = ts.params["actor"], ts.params["critic"]
  # one output layer per task: 2 tasks x (mean, log std) of 4 actions; 2 tasks x 1 Q per critic
  shapes = {p[-3:]: v.shape for p, v in flax_traverse.flatten_dict(flax_core.unfreeze(actor)).items()}
  assert shapes[("MultiHeadMLP_0", "Dense_0", "kernel")] == (16, 16)
  base = algo.actor.apply(actor, feats)
  moved = algo.actor.apply(_with_head_moved(actor, 1, 2), feats)
  np.testing.assert_array_equal(np.asarray(moved.mean[0]), np.asarray(base.mean[0]))  # task a: its head
  assert not np.allclose(np.asarray(moved.mean[1]), np.asarray(base.mean[1]))  # task b: the moved head
  q = algo.critic.apply(critic, feats, action)
  q_moved = algo.critic.apply(_with_head_moved(critic, 0, 2), feats, action)
  assert q.shape == (2, 2)
  np.testing.assert_array_equal(np.asarray(q_moved[:, 1]), np.asarray(q[:, 1]))
  assert not np.allclose(np.asarray(q_moved[:, 0]), np.asarray(q[:, 0]))
  # the plain MT-SAC (one output layer for every task) is unchanged by the option's existence
  plain = mtsac.make_train(env, mtsac.MTSACConfig(**SMALL))
  assert "MultiHeadMLP_0" not in str(jax.tree_util.tree_structure(plain.init(jax.random.PRNGKey(0)).params))
  # and the learner trains with it: one compiled cycle, finite
  _, m = jax.jit(lambda t: algo.train_many(t, 1))(ts)
  for k, v in m.items():
    assert np.isfinite(float(v)), k
