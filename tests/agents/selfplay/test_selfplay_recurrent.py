"""Self-play with an LSTM core: each agent's memory advances on its own steps only,
Bob's lasts all his turns of a game, nothing crosses from one game to the next, and the learner's
unroll reproduces exactly what the rollout acted with (every PPO ratio 1 before the first update)."""

import mjx_envs

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents.selfplay import asp

A, B = 0, 1  # mjx_envs.blocks.selfplay.ALICE, BOB


def _build(env, **kw):
  cfg = dict(
    num_envs=8,
    num_minibatches=2,
    hidden=(16,),
    lstm_size=8,
    holdout_tasks=("push-1",),
    num_eval_envs=2,
    holdout_max_goals=2,
  )
  cfg.update(kw)
  return asp.make_train(env, asp.ASPConfig(**cfg))


@pytest.fixture(scope="module")
def env():
  # Thresholds at float noise: the block's settling alone "moves" it (a valid goal), and Bob's copy,
  # settling the same way, often "solves" it, so random agents play games of two goals, both Bob's turns.
  return mjx_envs.make(
    "BlocksSelfPlay",
    alice_steps=4,
    bob_steps_per_object=4,
    max_goals=2,
    table_portion=0.4,
    pos_threshold=1e-6,
    rot_threshold=1e-6,
  )


def test_memory_follows_own_steps_and_lasts_a_game(env):
  algo = _build(env)
  ts = algo.init(jax.random.PRNGKey(0))
  # One game of two goals (Alice 0-1, Bob 2-3, Alice 4-5, Bob 6-7), then a second game from step 8.
  acted = jnp.array([A, A, B, B, A, A, B, B, A, A, B, B])
  over = jnp.zeros(12).at[7].set(1.0)
  T = acted.shape[0]
  obs = jax.eval_shape(env.reset, jax.random.PRNGKey(0)).obs["bob"]
  one = algo.features("bob", jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), obs))
  keys = iter(jax.random.split(jax.random.PRNGKey(1), 8))
  feats = jax.tree.map(lambda x: jax.random.normal(next(keys), (T, 1) + x.shape), one)
  params, norm = ts.agents["bob"].params["value"], ts.obs_norm["bob"]

  def values(f, own_code=B):
    own = (acted == own_code).astype(jnp.float32)[:, None]
    return np.asarray(algo.unroll(algo.value_net, params, norm, f, own, over[:, None])[:, 0])

  def nudge(t):
    return jax.tree.map(lambda x: x.at[t].add(1.0), feats)

  base = values(feats)
  # Bob's second turn (6-7) remembers his first (step 2); his memory does not change on Alice's steps
  # (4-5), and the next game (8-) starts afresh.
  changed = np.abs(values(nudge(2)) - base) > 1e-6
  np.testing.assert_array_equal(changed, [0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0])
  assert not np.any(np.abs(values(nudge(4)) - base)[5:] > 1e-6)
  # Alice's memory likewise spans her turns (0-1 -> 4-5) but no game boundary.
  changed = np.abs(values(nudge(0), A) - values(feats, A)) > 1e-6
  np.testing.assert_array_equal(changed, [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0])
  # Without an LSTM every step stands alone.
  flat = _build(env, lstm_size=0)
  p0 = flat.init(jax.random.PRNGKey(0)).agents["bob"].params["value"]
  own = (acted == B).astype(jnp.float32)[:, None]
  out = lambda f: np.asarray(flat.unroll(flat.value_net, p0, norm, f, own, over[:, None])[:, 0])
  np.testing.assert_array_equal(np.abs(out(nudge(2)) - out(feats)) > 1e-6, np.eye(T)[2])


@pytest.fixture(scope="module")
def trained(env):
  algo = _build(env)
  ts = algo.init(jax.random.PRNGKey(0))
  traj, opp = jax.jit(algo.play)(ts, jax.random.PRNGKey(3))
  data, _ = jax.jit(algo.batches)(ts, traj, opp)
  ts1, metrics = jax.jit(algo.train_step)(ts)
  return algo, ts, traj, opp, data, ts1, metrics


def test_learner_unroll_reproduces_the_rollout(trained):
  algo, ts, traj, opp, data, _, _ = trained
  assert float(jnp.sum(traj["acted"] == B)) > 20, "no Bob turns: the check below would be vacuous"
  for agent, lp, past in (("alice", traj["lp_a"], opp[0]), ("bob", traj["lp_b"], opp[1])):
    d = data[agent]
    lp_of = lambda reset: algo.unroll_dist(
      ts.agents[agent].params["policy"], ts.obs_norm[agent], d["feats"], d["own"], reset
    ).log_prob(d["action"])
    own = (np.asarray(d["own"]) > 0) & ~np.asarray(past)[None]  # the current agent's steps
    np.testing.assert_allclose(np.asarray(lp_of(d["reset"]))[own], np.asarray(lp)[own], atol=1e-5)
    # The memory carries over the agent's turns of a game: resetting it at each turn's end instead gives
    # other log-probs on the later turns (so the rollout did not reset it there either).
    later = own & (np.asarray(traj["goal_index"]) > 0)
    assert later.sum() >= 4, (agent, later.sum())
    cut = np.asarray(lp_of(jnp.maximum(d["reset"], traj[f"{agent}_turn_end"])))
    assert np.abs(cut - np.asarray(lp))[later].max() > 1e-4, agent


def test_recurrent_train_step_and_holdout(trained):
  algo, ts, _, _, _, ts1, metrics = trained
  assert metrics["loss/alice_ratio_dev_first"] < 1e-4 and metrics["loss/bob_ratio_dev_first"] < 1e-4, metrics
  assert all(np.isfinite(float(v)) for v in metrics.values())
  moved = jax.tree.map(lambda a, b: float(jnp.max(jnp.abs(a - b))), ts.params, ts1.params)
  assert moved["bob"]["policy"]["params"]["Core_0"]["OptimizedLSTMCell_0"]["ii"]["kernel"] > 0
  # Bob's holdout episodes run the recurrent policy, its state lasting all goals of an episode.
  act = algo.policy(ts1.params, ts1.obs_norm)
  assert hasattr(act, "initial_carry")
  out = jax.jit(algo.evaluate, static_argnums=3)(ts1.params, ts1.obs_norm, jax.random.PRNGKey(0), 2)
  assert 0.0 <= float(out["holdout/push-1"]) <= 1.0
