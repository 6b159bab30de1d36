"""Training wrappers: episode limits vs termination, fresh auto-resets, statistics, divergence resets."""

import mjx_envs
from mjx_envs import wrappers

import jax
import jax.numpy as jnp
import numpy as np
import pytest

N, T = 4, 3


@pytest.fixture(scope="module")
def wrapped():
  env = mjx_envs.make("BlocksPush")
  w = wrappers.wrap_for_training(env, num_envs=N, episode_length=T)
  return env, w, jax.jit(w.reset), jax.jit(w.step)


def test_truncation_and_fresh_auto_reset(wrapped):
  _, _, reset, step = wrapped
  state = reset(jax.random.PRNGKey(0))
  first_goals = np.asarray(state.obs["desired_goal"])
  zero = jnp.zeros((N, 6))
  for t in range(T):
    prev = state
    state = step(state, zero)
    if t < T - 1:
      assert float(state.done.max()) == 0.0
  np.testing.assert_array_equal(np.asarray(state.done), 1.0)
  np.testing.assert_array_equal(np.asarray(state.info["truncation"]), 1.0)  # time limit, not success
  np.testing.assert_array_equal(np.asarray(state.metrics["episode_length"]), T)
  np.testing.assert_array_equal(np.asarray(state.metrics["episode_done"]), 1.0)
  # final_obs is where the episode ended; obs already belongs to a FRESH episode with a new goal.
  np.testing.assert_allclose(np.asarray(state.info["final_obs"]["desired_goal"]), first_goals)
  new_goals = np.asarray(state.obs["desired_goal"])
  assert not np.any(np.all(np.isclose(new_goals, first_goals), axis=(1, 2)))
  np.testing.assert_array_equal(np.asarray(state.info["steps"]), 0)
  del prev
  # The next episode's statistics restart from zero.
  state = step(state, zero)
  np.testing.assert_array_equal(np.asarray(state.metrics["episode_length"]), 1)
  assert float(state.done.max()) == 0.0


def test_two_resets_draw_different_episodes(wrapped):
  _, _, reset, step = wrapped
  state = reset(jax.random.PRNGKey(5))
  goals = []
  for _ in range(2 * T):
    state = step(state, jnp.zeros((N, 6)))
    if float(state.done[0]):
      goals.append(np.asarray(state.obs["desired_goal"][0]))
  assert len(goals) == 2 and not np.allclose(goals[0], goals[1])


def test_diverged_env_is_reset_and_counted(wrapped):
  _, _, reset, step = wrapped
  state = reset(jax.random.PRNGKey(1))
  qvel = state.pipeline_state.qvel.at[0].set(jnp.nan)
  state = state.replace(pipeline_state=state.pipeline_state.replace(qvel=qvel))
  state = step(state, jnp.zeros((N, 6)))
  np.testing.assert_array_equal(np.asarray(state.info["diverged"]), [1, 0, 0, 0])
  np.testing.assert_array_equal(np.asarray(state.done), [1, 0, 0, 0])
  np.testing.assert_array_equal(np.asarray(state.info["truncation"]), [1, 0, 0, 0])
  for leaf in jax.tree.leaves((state.pipeline_state, state.obs)):
    if jnp.issubdtype(leaf.dtype, jnp.floating):
      assert np.all(np.isfinite(np.asarray(leaf)))
  assert np.all(np.isfinite(np.asarray(state.info["final_obs"]["observation"])))  # sanitised


def test_bad_action_shape_is_a_clear_error(wrapped):
  _, w, reset, _ = wrapped
  state = reset(jax.random.PRNGKey(0))
  with pytest.raises(ValueError, match=r"actions \[num_envs, 6\]"):
    w.step(state, jnp.zeros((N, 4)))


def test_flatten_goal_obs():
  obs = {
    "observation": jnp.ones((2, 5)),
    "desired_goal": jnp.zeros((2, 8, 7)),
    "achieved_goal": jnp.zeros((2, 8, 7)),
  }
  flat = wrappers.flatten_goal_obs(obs)
  assert flat.shape == (2, 5 + 56)
  np.testing.assert_array_equal(flat[:, :5], 1.0)
