"""RL² = recurrent PPO on Meta-World trials (`env.rl2_episodes`): the LSTM state carries across the
episodes of a trial and is reset between trials; a train step and the held-out evaluation run, with
per-episode-index success in train/ and eval/ metrics. ML1 push, C physics, 4 worlds, short episodes."""

import mjx_envs

import warnings

import jax
import numpy as np
import pytest

from agents.ppo.train import PPOConfig, make_train

K, L, N = 2, 3, 4  # episodes per trial, steps per episode, worlds


def _ppo(unroll_length):
  env = mjx_envs.make("ML1", task="push-v3", rl2_episodes=K, episode_length=L, impl="c")
  cfg = PPOConfig(
    num_envs=N,
    unroll_length=unroll_length,
    num_minibatches=2,
    update_epochs=1,
    policy_hidden=(16,),
    value_hidden=(16,),
    lstm_size=8,
    total_env_steps=N * unroll_length,
    num_eval_envs=2,
  )
  return make_train(env, cfg)


@pytest.fixture(scope="module")
def ppo():
  return _ppo(L)  # a train step's rollout covers one episode: two steps make one trial


@pytest.mark.slow  # a train step of the recurrent PPO compiles in ~70 s on this 2-core CPU
def test_rl2_train_steps_carry_the_lstm_within_a_trial_and_reset_it_between(ppo):
  """Step 1 ends where the trial's first episode ends: no learner done, the LSTM state kept. Step 2 ends
  where the trial ends: one done per world (the learner's episodes are trials), the state zero."""
  ts = ppo.init(jax.random.PRNGKey(0))
  assert ts.env_state.obs.shape == (N, 39 + 4 + 2)
  step = jax.jit(ppo.train_step)
  ts, m1 = step(ts)
  h = np.asarray(ts.core["policy"][1])
  assert m1["train/episodes"] == 0 and np.abs(h).sum(-1).min() > 0
  np.testing.assert_array_equal(np.asarray(ts.env_state.obs[:, -1]), 1.0)  # the episode-done input
  np.testing.assert_array_equal(np.asarray(ts.env_state.info["trial_episode"]), 1)
  ts, m2 = step(ts)
  m2 = jax.device_get(m2)
  assert m2["train/episodes"] == N and np.isfinite(m2["loss/policy"]) and np.isfinite(m2["loss/value"])
  for k in ("train/trial/success_first", "train/trial/success_last"):
    assert 0.0 <= m2[k] <= 1.0, k
  np.testing.assert_array_equal(np.asarray(ts.core["policy"][0]), 0.0)
  np.testing.assert_array_equal(np.asarray(ts.core["policy"][1]), 0.0)
  np.testing.assert_array_equal(np.asarray(ts.env_state.info["trial_episode"]), 0)  # a new trial


@pytest.mark.slow
def test_rl2_held_out_evaluation(ppo):
  """Evaluation runs whole trials on the test split: success after adaptation (the last episode) and
  the first episode's, per task."""
  ts = ppo.init(jax.random.PRNGKey(0))
  assert ppo.raw_env.evaluation_env.spec.split == "test"
  ev = jax.device_get(jax.jit(ppo.evaluate)(ts.params, ts.obs_norm, jax.random.PRNGKey(2)))
  for k in ("eval/success_rate", "eval/trial/success_first", "eval/trial/success_last"):
    assert 0.0 <= ev[k] <= 1.0, k
  assert ev["eval/success_rate"] == ev["eval/trial/success_last"]
  assert "eval/success_rate/push-v3" in ev and "eval/trial/success_first/push-v3" in ev
  assert ev["eval/episode_length"] == K * L  # an evaluation episode is a whole trial


def test_trial_metrics_are_summarised_over_finished_trials():
  """train/trial/* average the per-episode figures over the trials that finished, weighted by them."""
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  from agents.common import episodes  # pylint: disable=import-outside-toplevel

  done = jnp.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
  first = jnp.array([[0.7, 1.0, 0.0], [0.0, 0.0, 0.0]]) * done  # step_stats masks by done
  stats = {k: jnp.zeros_like(done) for k in ("return", "success", "length", "bad_action", "diverged")}
  one = episodes.summarize({**stats, "done": done[:1], "trial/success_first": first[:1]})
  two = episodes.summarize({**stats, "done": done[1:], "trial/success_first": first[1:]})
  assert float(one["train/trial/success_first"]) == 0.5 and float(two["train/trial/success_first"]) == 0.0
  both = episodes.average_chunk(jax.tree.map(lambda a, b: jnp.stack([a, b]), one, two))
  np.testing.assert_allclose(float(both["train/trial/success_first"]), 1 / 3)


def test_resolve_checks_worlds_against_train_and_test_tasks():
  """num_envs must split evenly over the trained tasks, num_eval_envs over the held-out test tasks."""
  from agents import experiment  # pylint: disable=import-outside-toplevel

  env = {
    "name": "ML",
    "train_tasks": ["reach-v3", "push-v3"],
    "test_tasks": ["reach-v3", "push-v3", "pick-place-v3"],
  }
  agent = {"algo": "ppo", "num_envs": 4, "num_minibatches": 2, "lstm_size": 8}
  cfg = experiment.resolve({"env": {**env, "rl2_episodes": 2}, "agent": agent, "run": {"num_eval_envs": 6}})
  assert cfg["env"]["rl2_episodes"] == 2
  with pytest.raises(
    mjx_envs.ConfigError, match=r"run.num_eval_envs=4 must be a multiple of the 3 test tasks"
  ):
    experiment.resolve({"env": env, "agent": agent, "run": {"num_eval_envs": 4}})
  with pytest.raises(mjx_envs.ConfigError, match=r"agent.num_envs=4 must be a multiple of the 3 tasks"):
    experiment.resolve({"env": {**env, "split": "test"}, "agent": agent, "run": {"num_eval_envs": 6}})
  with pytest.raises(mjx_envs.ConfigError, match="episodes per trial|rl2_episodes must be >= 0"):
    experiment.resolve({"env": {**env, "rl2_episodes": -2}, "agent": agent, "run": {"num_eval_envs": 6}})


def test_windows_that_cut_trials_are_flagged_and_the_configs_hold_whole_trials():
  """Truncated BPTT gives the LSTM no gradient across a window's edge: RL² windows must hold whole trials,
  or the LSTM is never trained to carry one episode into the next. Making such a learner warns, and every
  rl2 config's window is a multiple of its trial."""
  from mjx_envs.metaworld import sawyer  # pylint: disable=import-outside-toplevel

  import train  # pylint: disable=import-outside-toplevel

  with pytest.warns(UserWarning, match=r"unroll_length=3, not a multiple of its trials' 6 steps"):
    _ppo(L)
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    whole = _ppo(K * L)
  # RL² evaluates its test trials sampling its actions (its exploration is part of what it learned), as
  # garage's meta-evaluator does; a plain env's evaluation takes the mode.
  assert whole.eval_deterministic is False
  plain = make_train(mjx_envs.make("ML1", task="push-v3", episode_length=L, impl="c"), PPOConfig(num_envs=N))
  assert plain.eval_deterministic is True
  for name in ("rl2_ml1_push", "rl2_ml1_push_cpu", "rl2_ml10", "rl2_ml10_cpu", "rl2_ml45", "rl2_ml45_cpu"):
    cfg = train.load_config(name)
    trial = cfg["env"]["rl2_episodes"] * cfg["env"].get("episode_length", sawyer.MAX_PATH_LENGTH)
    assert cfg["agent"]["unroll_length"] % trial == 0, name
