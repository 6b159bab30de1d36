"""The holdout suite evaluates the tasks that share a block count in one batch (one compiled MJX step for
all of them); each task's figures must be exactly those of the task evaluated alone."""

from mjx_envs.blocks import env as block_env

import jax
import jax.numpy as jnp
import numpy as np

from agents.selfplay import holdout

# Loose thresholds so that random goals succeed often enough for the rates to differ from 0 and 1:
# position within 15 cm, rotation free except that flip compares without the cube's symmetries.
WORLD = dict(block_env.default_config(), pos_threshold=0.15, rot_threshold=2.5)
KW = dict(num_episodes=8, steps_per_object=3, max_goals=3)


def _act(obs, key):
  del key  # deterministic: drift towards the first block's goal, so the blocks get nudged
  to_goal = obs["desired_goal"][:, 0, :3] - obs["robot"][:, :3]
  return jnp.concatenate([jnp.clip(10 * to_goal, -1, 1), jnp.zeros((to_goal.shape[0], 3))], -1)


def test_grouped_suite_matches_each_task_alone():
  tasks = ("push-1", "flip-1", "pick_and_place-1")
  key = jax.random.PRNGKey(4)
  suite = jax.jit(lambda k: holdout.evaluate_suite(tasks, WORLD, _act, k, **KW))(key)
  rates = [float(suite[f"holdout/{t}"]) for t in tasks]
  assert len(set(rates)) > 1 or 0.0 < rates[0] < 1.0, rates  # the check below is not vacuous
  for i, name in enumerate(tasks[:2]):
    env = holdout.make_holdout_env(name, WORLD)
    alone = jax.jit(lambda k, env=env: holdout.evaluate_task(env, _act, k, **KW))(jax.random.fold_in(key, i))
    assert float(alone["success_rate"]) == float(suite[f"holdout/{name}"]), name
  np.testing.assert_allclose(float(suite["eval/success_rate"]), np.mean(rates), rtol=1e-6)

  # A recurrent act (a self-play Bob with an LSTM) gets its state threaded through every step, from
  # `initial_carry` at the episode's start through all of its goals, and acts as the memoryless one.
  seen = []

  def recurrent(obs, key, carry):
    jax.debug.callback(lambda c: seen.append(np.asarray(c)), carry, ordered=True)
    return _act(obs, key), carry + 1

  recurrent.initial_carry = lambda shape: jnp.zeros(shape, jnp.int32)
  env = holdout.make_holdout_env("push-1", WORLD)
  out = jax.jit(lambda k: holdout.evaluate_task(env, recurrent, k, **KW))(jax.random.fold_in(key, 0))
  assert float(out["success_rate"]) == float(suite["holdout/push-1"])
  steps = KW["max_goals"] * KW["steps_per_object"]
  np.testing.assert_array_equal(np.stack(seen), np.tile(np.arange(steps)[:, None], (1, KW["num_episodes"])))
