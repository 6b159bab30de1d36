"""benchmarks/rl2_adaptation.py: per-episode figures of an RL² trial line up with the trial's episodes.

A policy that ignores what it saw plays every episode of a trial alike (each restarts from the trial's
start state), so its per-episode returns are equal; one whose carry counts the episodes and acts only in
the last makes the last episode differ. The table's reductions are checked on arrays made by hand."""

import mjx_envs
from mjx_envs import wrappers

import jax
import jax.numpy as jnp
import numpy as np

from benchmarks import rl2_adaptation as B

K, L, N = 3, 12, 4


def _env():
  raw = mjx_envs.make("ML1", task="reach-v3", rl2_episodes=K, episode_length=L, impl="c")
  return wrappers.batch(raw, N)


def _policy(act_in_last: bool):
  def act(obs, key, carry):
    del key
    done_flag = obs[:, -1]  # RL²'s input: 1 on the first step of every episode after the first
    episode = carry + done_flag
    move = jnp.where((episode >= K - 1) & act_in_last, 1.0, 0.0)
    return jnp.stack([move, move, 0 * move, 0 * move], -1), episode

  return act


def test_episodes_line_up_with_the_trials_restarts():
  env = _env()
  run = jax.jit(B.trial_steps, static_argnums=(0, 1, 4, 5))
  carry = jnp.zeros((N,))
  still = B.episode_table(*run(env, _policy(False), carry, jax.random.PRNGKey(0), K, L), K, L)
  # The same start, the same (zero) actions: every episode of the trial earns the same return.
  np.testing.assert_allclose(still["return"], [still["return"][0]] * K, rtol=1e-5)
  moved = B.episode_table(*run(env, _policy(True), carry, jax.random.PRNGKey(0), K, L), K, L)
  np.testing.assert_allclose(moved["return"][: K - 1], still["return"][: K - 1], rtol=1e-5)
  assert abs(moved["return"][-1] - still["return"][-1]) > 1e-3, (moved, still)
  # keep_carry: the same steps, and the carry each episode ends with (this policy's: the episode's index).
  reward, success, ends, goal = jax.jit(B.trial_steps, static_argnums=(0, 1, 4, 5, 6, 7))(
    env, _policy(True), carry, jax.random.PRNGKey(0), K, L, None, True
  )
  assert B.episode_table(reward, success, K, L) == moved
  np.testing.assert_array_equal(np.asarray(ends), np.repeat(np.arange(K)[:, None], N, 1))
  assert goal.shape == (N, 3)


def test_table_reductions():
  success = np.zeros((2 * 5, 2))  # 2 episodes of 5 steps, 2 worlds
  success[3:5, 0] = 1  # world 0: first success at step 4 of episode 1, still there at its end
  success[6, 1] = 1  # world 1: success at step 2 of episode 2 only, gone by its end
  reward = np.ones_like(success)
  t = B.episode_table(reward, success, 2, 5)
  assert t["success"] == [0.5, 0.0]
  assert t["ever"] == [0.5, 0.5]
  assert t["steps_to_success"] == [(4 + 5) / 2, (5 + 2) / 2]
  assert t["return"] == [5.0, 5.0]


def test_roll_objects_moves_only_the_objects_entries():
  obs = jnp.arange(3 * 45, dtype=jnp.float32).reshape(3, 45)  # 39 + RL²'s 4 + 2
  out = np.asarray(B.roll_objects(obs))
  moved = np.zeros(45, bool)
  for s in (slice(4, 18), slice(22, 36)):  # both positions and quaternions, now and the step before
    moved[s] = True
  np.testing.assert_array_equal(out[:, ~moved], np.asarray(obs)[:, ~moved])  # hand, gripper, goal, RL²'s
  np.testing.assert_array_equal(out[1, moved], np.asarray(obs)[0, moved])  # world 1 sees world 0's
  np.testing.assert_array_equal(out[0, moved], np.asarray(obs)[2, moved])


def test_goal_probe_reads_a_linear_code_and_not_noise():
  rng = np.random.default_rng(0)
  n = 400
  goal = rng.uniform(size=(n, 3))
  goal[:, 2] = 0.5  # an axis that never varies (push's goal height) is left out of r2
  code = np.concatenate([goal @ rng.normal(size=(3, 16)), rng.normal(size=(n, 16))], 1)
  held = B.goal_probe(code, goal)
  assert held["r2"] > 0.99 and held["error"] < 0.1 * held["baseline"], held
  for feats in (rng.normal(size=(n, 32)), np.zeros((n, 8))):  # noise, and episode 1's zero carry
    none = B.goal_probe(feats, goal)
    assert none["r2"] < 0.1 and none["error"] > 0.9 * none["baseline"], none


def test_goal_bounds_of_ml1_reach():
  # Reach's goals fill a 20 x 10 x 25 cm box: one fixed point lies within 5 cm of few of them, and the
  # expert, which sees the goal, gets there in about 30 steps (ours: 27 on average, 2026-11-28).
  b = B.goal_bounds("reach-v3", "test", 50, 0.05)
  assert 0.0 < b["blind"] < 0.3, b
  assert b["expert_ever"] == 1.0 and 15 < b["expert_steps"] < 40, b
