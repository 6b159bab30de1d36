"""Meta-World's meta-learning benchmarks (mjx_envs/metaworld/meta.py) and RL² trials (mjx_envs/trials.py):
the reference's splits (tests/fixtures/metaworld_ml_reference.json, recorded from metaworld 3.1.1 by
scripts/make_metaworld_ml_reference.py), the hidden goal, fixed and disjoint goal sets, the trial
wrapper's bookkeeping, and bad input. C physics, a few worlds: seconds."""

from __future__ import annotations

import mjx_envs
from mjx_envs import trials, wrappers
from mjx_envs.metaworld import meta, multitask
from mjx_envs.metaworld import tasks as mw_tasks

import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

REF = json.loads((pathlib.Path(__file__).parents[1] / "fixtures" / "metaworld_ml_reference.json").read_text())


@pytest.fixture(scope="module")
def ml1():
  return mjx_envs.make("ML1", task="push-v3", split="train", impl="c")


def test_splits_are_the_references():
  assert list(multitask.ML10_TRAIN) == REF["ML10"]["train"]
  assert list(multitask.ML10_TEST) == REF["ML10"]["test"]
  assert list(multitask.ML45_TRAIN) == REF["ML45"]["train"]
  assert list(multitask.ML45_TEST) == REF["ML45"]["test"]
  assert sorted(multitask.MT50_TASKS) == REF["ML1"]["tasks"]  # ML1 takes any of the 50
  assert REF["ML10"]["goals_per_task"] == REF["ML45"]["goals_per_task"] == [50]
  assert REF["ML1"]["train_goals"] == REF["ML1"]["test_goals"] == 50
  defaults = mjx_envs.default_config("ML10")
  assert defaults["num_goals"] == 50 and defaults["split"] == "train"


def test_goal_hidden_no_task_id_fixed_goals(ml1):
  """Goal entries zero (the reference's partially_observable), 39-D (no one-hot), every reset's goal one
  of the split's 50 fixed ones; train and test goal sets disjoint and the same on every build."""
  assert REF["ML1"]["obs_goal_after_reset"] == [0.0, 0.0, 0.0] and REF["ML1"]["obs_size"] == 39
  assert ml1.observation_size == 39 and ml1.task_names == ("push-v3",)
  env = wrappers.batch(ml1, 4)
  s = jax.jit(env.reset)(jax.random.PRNGKey(1))
  s = jax.jit(env.step)(s, jnp.ones((4, 4)) * 0.5)
  assert s.obs.shape == (4, 39)
  np.testing.assert_array_equal(np.asarray(s.obs[:, 36:39]), 0.0)
  assert np.all(np.linalg.norm(np.asarray(s.info["target"]), axis=-1) > 0.1)  # the goal exists, unseen
  np.testing.assert_array_equal(np.asarray(s.info["task_id"]), 0)
  train = ml1.tasks[0].unwrapped.fixed_rand_vecs
  test = ml1.evaluation_env.tasks[0].unwrapped.fixed_rand_vecs
  assert train.shape == test.shape == (50, 6)
  assert len(np.unique(train, axis=0)) == 50 == len(np.unique(test, axis=0))
  assert not (train[:, None] == test[None]).all(-1).any()
  rv = np.asarray(s.info["rand_vec"])
  assert all((train == r).all(-1).any() for r in rv)
  assert not any((test == r).all(-1).any() for r in rv)
  again = meta.draw_goals(ml1.tasks[0].unwrapped, 50, meta.task_goal_seed(0, "push-v3", "train"))
  np.testing.assert_array_equal(again, train)  # fixed: the same seed draws the same 50
  assert ml1.evaluation_env.spec.split == "test" and ml1.evaluation_env.evaluation_env is ml1.evaluation_env


def test_custom_set_and_bad_input():
  ml = mjx_envs.make("ML", train_tasks=["reach-v3", "push-v3"], test_tasks=["pick-place-v3"], impl="c")
  assert ml.task_names == ("reach-v3", "push-v3") and ml.evaluation_env.task_names == ("pick-place-v3",)
  s = jax.jit(wrappers.batch(ml, 4).reset)(jax.random.PRNGKey(0))
  np.testing.assert_array_equal(np.asarray(s.info["task_id"]), [0, 0, 1, 1])
  np.testing.assert_array_equal(np.asarray(s.obs[:, 36:39]), 0.0)
  with pytest.raises(mjx_envs.ConfigError, match="unknown Meta-World tasks"):
    mjx_envs.make("ML1", task="push-v2")
  with pytest.raises(mjx_envs.ConfigError, match="unknown Meta-World tasks.*'reach'"):
    mjx_envs.make("ML", train_tasks=["reach"], test_tasks=["push-v3"])
  with pytest.raises(mjx_envs.ConfigError, match="split must be one of"):
    mjx_envs.make("ML1", task="push-v3", split="validation")
  with pytest.raises(mjx_envs.ConfigError, match="rl2_episodes must be >= 0"):
    mjx_envs.make("ML1", task="push-v3", rl2_episodes=-1)
  with pytest.raises(mjx_envs.ConfigError, match="episodes per trial must be an integer >= 1"):
    trials.Trials(mjx_envs.make("metaworld/reach-v3", impl="c"), 0)
  with pytest.raises(mjx_envs.ConfigError, match="repeat"):
    mjx_envs.make("ML", train_tasks=["reach-v3", "reach-v3"], test_tasks=["push-v3"])
  for name, lists in (("ML10", ("ML10_TRAIN", "ML10_TEST")), ("ML45", ("ML45_TRAIN", "ML45_TEST"))):
    needed = [t for lst in lists for t in getattr(multitask, lst)]
    missing = [t for t in dict.fromkeys(needed) if t not in mw_tasks.available()]
    if missing:  # refused by name until every task of the benchmark exists
      with pytest.raises(
        mjx_envs.ConfigError, match=rf"{name}: tasks \[.*{missing[0]}.*\] are not built yet"
      ):
        mjx_envs.make(name)
    else:  # every task built: the held-out split builds, the reference's test tasks in its order
      test = mjx_envs.make(name, split="test", impl="c")
      assert list(test.task_names) == REF[name]["test"] and test.observation_size == 39


def test_trials_carry_the_task_and_append_rl2_inputs():
  """K = 3 episodes of 4 steps: the goal stays within a trial and the world restarts between its
  episodes; (a, r / 10, d) appended; the learner's done only at the trial's end; a new trial (auto-reset)
  draws a new goal; per-episode-index success in info."""
  K, L, N = 3, 4, 4
  ml = mjx_envs.make("ML1", task="reach-v3", rl2_episodes=K, episode_length=L, impl="c")
  assert ml.observation_size == 39 + 4 + 2 and ml.episode_length == K * L
  env = wrappers.wrap_for_training(ml, N)
  step = jax.jit(env.step)
  s = jax.jit(env.reset)(jax.random.PRNGKey(3))
  np.testing.assert_array_equal(np.asarray(s.obs[:, 39:]), 0.0)
  goal0, hand0 = np.asarray(s.info["target"]), np.asarray(s.obs[:, :3])
  acts = jnp.tile(jnp.array([[1.0, -0.5, 0.25, 0.3]]), (N, 1))
  for t in range(1, K * L + 1):
    prev_ep = np.asarray(s.info["trial_episode"])
    s = step(s, acts * (1 + (t == 1)))  # the first action is out of range: appended clipped
    end_of_episode = t % L == 0
    o = np.asarray(
      s.info["final_obs"]
    )  # the obs the step produced (at the trial's end, before the auto-reset)
    np.testing.assert_allclose(o[:, 39:43], np.clip(np.asarray(acts) * (1 + (t == 1)), -1, 1))
    np.testing.assert_allclose(o[:, 43], np.asarray(s.reward) / 10, rtol=1e-6)
    np.testing.assert_array_equal(o[:, 44], float(end_of_episode))
    assert np.all(np.asarray(s.done) == float(t == K * L)), t
    if t < K * L:
      np.testing.assert_array_equal(np.asarray(s.info["target"]), goal0)  # the task and goal stay
      np.testing.assert_array_equal(np.asarray(s.info["trial_episode"]), prev_ep + end_of_episode)
      if end_of_episode:  # the world restarted: the hand is back where the trial began
        np.testing.assert_allclose(np.asarray(s.obs[:, :3]), hand0, atol=1e-6)
        np.testing.assert_array_equal(np.asarray(s.info["steps"]), t)  # one learner episode goes on
      else:
        # moved on, not restarted: the arm's hand moves ~1 mm in an episode's first control step (the
        # reference's: 1.0 mm, the parity fixture's +x@1), more after
        assert np.all(np.abs(np.asarray(s.obs[:, :3]) - hand0).max(-1) > 5e-4)
  assert np.asarray(s.info["trial_success"]).shape == (N, K)
  assert np.all(np.asarray(s.info["truncation"]) == 0.0)  # the trial's end is a termination
  # After the auto-reset: a new trial, fresh goals, RL² entries zero.
  np.testing.assert_array_equal(np.asarray(s.obs[:, 39:]), 0.0)
  assert not np.allclose(np.asarray(s.info["target"]), goal0)
  np.testing.assert_array_equal(np.asarray(s.info["trial_episode"]), 0)


def test_trial_success_per_episode_index():
  """A scripted policy that acts only in the trial's last episode: success_first 0, success_last 1."""
  K, L = 2, 150
  ml = mjx_envs.make("ML1", task="reach-v3", rl2_episodes=K, episode_length=L, impl="c")
  done, first, last, ep_success, reward, _ = _expert_in_last_episode(ml, K, L)
  assert done[-1].all() and not done[:-1].any()
  np.testing.assert_array_equal(first[-1], 0.0)
  np.testing.assert_array_equal(last[-1], 1.0)
  np.testing.assert_array_equal(ep_success[-1], 1.0)  # the learner's success: the last episode's

  # The success bonus (a shaping outside the protocol): +b on every step from an episode's first success
  # on, in the reward and in the RL² input's previous reward; success itself unchanged.
  b = 5.0
  shaped = mjx_envs.make(
    "ML1", task="reach-v3", rl2_episodes=K, episode_length=L, impl="c", rl2_success_bonus=b
  )
  done_b, _, last_b, _, reward_b, prev_r_b = _expert_in_last_episode(shaped, K, L)
  np.testing.assert_array_equal(done_b, done)
  np.testing.assert_array_equal(last_b, last)
  bonus = reward_b - reward
  np.testing.assert_allclose(bonus, b * last_b, atol=1e-4)  # success_last: the episode's success so far
  assert bonus[:L].max() == 0.0 and np.allclose(bonus[-1], b)  # none in the first episode; at the end, all
  assert np.all(np.diff(bonus[L:], axis=0) >= -1e-4)  # once earned, kept to the episode's end
  np.testing.assert_allclose(prev_r_b, reward_b / 10, rtol=1e-5, atol=1e-6)
  with pytest.raises(mjx_envs.ConfigError, match="success_bonus must be a finite number >= 0"):
    trials.Trials(mjx_envs.make("metaworld/reach-v3", impl="c"), 2, success_bonus=-1.0)
  with pytest.raises(mjx_envs.ConfigError, match="rl2_success_bonus shapes RL²'s trials"):
    mjx_envs.make("ML1", task="reach-v3", rl2_success_bonus=1.0)


def _expert_in_last_episode(ml, K, L):
  """Rolls 2 worlds of `ml` (trials of K episodes of L steps) with the scripted expert acting only in the
  last episode: per step [K * L, 2] done, success first / last (the current episode's success so far), the
  learner's episode success, reward, and the RL² input's previous reward."""
  env = wrappers.wrap_for_training(ml, 2)
  expert = mjx_envs.metaworld.scripted_policy("reach-v3")

  @jax.jit
  def run(key):
    s0 = env.reset(key)

    def body(s, _):
      # The goal is hidden from the observation: the expert reads it from info (the benchmark's goal).
      obs = s.obs[:, :39].at[:, 36:39].set(s.info["target"])
      a = jnp.where((s.info["trial_episode"] == K - 1)[:, None], jax.vmap(expert)(obs), 0.0)
      s = env.step(s, a)
      return s, (
        s.done,
        s.metrics["trial/success_first"],
        s.metrics["trial/success_last"],
        s.metrics["episode_success"],
        s.reward,
        s.info["final_obs"][:, 43],
      )

    return jax.lax.scan(body, s0, None, length=K * L)[1]

  return tuple(np.asarray(x) for x in run(jax.random.PRNGKey(0)))
