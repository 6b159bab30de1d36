"""Self-play learner pieces: interleaved GAE with Alice's delayed reward, the demonstration filter, the
ABC gradient, and the past-opponent fraction."""

import mjx_envs

import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents.league import opponent_pool
from agents.ppo import losses
from agents.selfplay import asp


def _masked_gae_reference(r, v, m, term, trunc, gamma, lam):
  """Plain NumPy: cut the timeline into episodes after every terminal step; in each, credit every
  step's reward to the agent's latest own step at or before it, then run ordinary GAE over the own
  steps, where a truncated step only serves as the bootstrap value of the one before it."""
  T, N = r.shape
  adv = np.zeros((T, N))
  for n in range(N):
    ends = [t for t in range(T) if term[t, n]] + [T - 1]
    start = 0
    for end in ends:
      seg = range(start, end + 1)
      own = [t for t in seg if m[t, n]]
      rew = {t: 0.0 for t in own}
      for t in seg:
        prev = [s for s in own if s <= t]
        if prev:
          rew[prev[-1]] += r[t, n]
      nxt_v, nxt_a = 0.0, 0.0
      for t in reversed(own):
        if trunc[t, n]:
          nxt_v, nxt_a = v[t, n], 0.0
          continue
        a = rew[t] + gamma * nxt_v - v[t, n] + gamma * lam * nxt_a
        adv[t, n] = a
        nxt_v, nxt_a = v[t, n], a
      start = end + 1
  return adv


def test_masked_gae_matches_reference_and_credits_alice_at_her_turn_end():
  rng = np.random.default_rng(0)
  T, N = 16, 4
  m = rng.random((T, N)) < 0.5
  r = rng.normal(size=(T, N))
  v = rng.normal(size=(T, N))
  term = rng.random((T, N)) < 0.2  # on the agent's steps or on others' (a game ending on Bob's)
  trunc = (rng.random((T, N)) < 0.15) & m
  assert np.any(term & ~m) and np.any(trunc)
  f = lambda x: jnp.asarray(x, jnp.float32)
  adv, ret = asp.masked_gae(f(r), f(v), f(m), f(term), 0.9, 0.8, f(trunc))
  ref = _masked_gae_reference(r, v, m, term, trunc, 0.9, 0.8)
  np.testing.assert_allclose(adv, ref, rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(ret, np.where(m & ~trunc, np.asarray(adv) + v, 0.0), rtol=1e-5, atol=1e-5)
  # Alice acts at steps 0-1, Bob at 2-4; her reward (6) is known at Bob's last step, 4.
  r = jnp.zeros((6, 1)).at[4, 0].set(6.0)
  mask = jnp.array([1, 1, 0, 0, 0, 0], jnp.float32)[:, None]
  adv, _ = asp.masked_gae(r, jnp.zeros((6, 1)), mask, jnp.zeros((6, 1)), 1.0, 1.0)
  np.testing.assert_allclose(adv[:, 0], [6, 6, 0, 0, 0, 0])
  # Her game ends there (terminal on Bob's step 4): the next game's reward at step 5 is not hers.
  r = r.at[5, 0].set(100.0)
  mask = mask.at[5, 0].set(1.0)
  adv, _ = asp.masked_gae(r, jnp.zeros((6, 1)), mask, jnp.zeros((6, 1)).at[4, 0].set(1.0), 1.0, 1.0)
  np.testing.assert_allclose(adv[:, 0], [6, 6, 0, 0, 0, 100])
  # An unfinished turn (steps 2-3, truncated) lends its first value (2.5) to step 1 and is not trained.
  mask = jnp.array([1, 1, 1, 1, 0, 0], jnp.float32)[:, None]
  v = jnp.array([0.0, 0.0, 2.5, 7.0, 0.0, 0.0])[:, None]
  cut = jnp.array([0, 0, 1, 1, 0, 0], jnp.float32)[:, None]
  adv, ret = asp.masked_gae(jnp.zeros((6, 1)), v, mask, jnp.zeros((6, 1)), 1.0, 1.0, cut)
  np.testing.assert_allclose(adv[:, 0], [2.5, 2.5, 0, 0, 0, 0])
  np.testing.assert_allclose(ret[:, 0], [2.5, 2.5, 0, 0, 0, 0])


def test_diverged_physics_is_a_truncation_for_both_agents():
  """One slot: Alice 0-1 (goal A), Bob 2-3 fails it; Alice 4-5 (goal B), Bob 6-7 and the physics diverges
  on step 7 (game over, no outcome); a new game's Alice 8-9 runs into the unroll's end. Bob's step 6
  bootstraps on step 7's value; Alice's turn 4-5, decided by nothing, is not trained and lends its value
  to her turn 0-1. (Before 2026-11-23 a divergence was an outcome: value 0 after it for both.)"""
  T = 10
  col = lambda *idx: jnp.zeros((T, 1)).at[jnp.array(idx), 0].set(1.0)
  acted = jnp.array([0, 0, 1, 1, 0, 0, 1, 1, 0, 0], jnp.int32)[:, None]
  traj = {
    "acted": acted,
    "game_over": col(7),
    "diverged": col(7),
    "goal_finished": col(3),
    "bob_turn_end": col(3),
  }
  no = jnp.zeros((1,), bool)
  mask, terminal, cut = asp.agent_steps(traj, no, no)
  np.testing.assert_array_equal(cut["alice"][:, 0], [0, 0, 0, 0, 1, 1, 0, 0, 1, 1])
  np.testing.assert_array_equal(cut["bob"][:, 0], [0, 0, 0, 0, 0, 0, 0, 1, 0, 0])
  np.testing.assert_array_equal(terminal["bob"][:, 0], col(3, 7)[:, 0])
  v = jnp.arange(1.0, T + 1)[:, None]
  r_alice = col(3) * 6.0
  adv_b, _ = asp.masked_gae(jnp.zeros((T, 1)), v, mask["bob"], terminal["bob"], 1.0, 1.0, cut["bob"])
  np.testing.assert_allclose(adv_b[6, 0], v[7, 0] - v[6, 0])  # bootstrapped, not 0 - v[6]
  assert float(adv_b[7, 0]) == 0.0
  adv_a, _ = asp.masked_gae(r_alice, v, mask["alice"], terminal["alice"], 1.0, 1.0, cut["alice"])
  np.testing.assert_allclose(adv_a[1, 0], 6.0 + v[4, 0] - v[1, 0])
  np.testing.assert_array_equal(adv_a[4:6, 0], [0.0, 0.0])


def test_demonstrations_come_only_from_goals_bob_failed():
  # One game: Alice turn (steps 0-1) -> goal A, Bob fails (2-3); Alice (4-5) -> goal B, Bob succeeds
  # (6-7); Alice (8-9) -> an invalid goal, game over.
  T = 10
  finished = jnp.zeros((T, 1)).at[3, 0].set(1).at[7, 0].set(1)
  failed = jnp.zeros((T, 1)).at[3, 0].set(1)
  goal = jnp.zeros((T, 1, 2)).at[2:4, 0].set(1.0).at[6:8, 0].set(2.0)
  has_next, fail, g = asp.next_outcome(finished, failed, goal)
  acted = jnp.array([0, 0, 1, 1, 0, 0, 1, 1, 0, 0])[:, None]
  demos = (acted == 0) * has_next * fail
  np.testing.assert_array_equal(demos[:, 0], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0])
  np.testing.assert_array_equal(g[:2, 0, 0], [1.0, 1.0])  # relabelled with the goal Alice set
  np.testing.assert_array_equal(g[4:6, 0, 0], [2.0, 2.0])
  np.testing.assert_array_equal(has_next[8:, 0], [0, 0])  # an invalid goal never finishes
  unfiltered = (acted == 0) * has_next
  np.testing.assert_array_equal(unfiltered[:, 0], [1, 1, 0, 0, 1, 1, 0, 0, 0, 0])
  # Auto-reset: a second game follows in the same slot (steps 10-13: Alice, then Bob fails). The first
  # game's invalid goal (game over at step 9) must not take the second game's outcome.
  pad = lambda x, tail: jnp.concatenate([x, tail], 0)
  finished2 = pad(finished, jnp.zeros((4, 1)).at[3, 0].set(1))
  failed2 = pad(failed, jnp.zeros((4, 1)).at[3, 0].set(1))
  goal2 = pad(goal, jnp.full((4, 1, 2), 3.0))
  over = jnp.zeros((14, 1)).at[9, 0].set(1).at[13, 0].set(1)
  has_next, fail, g = asp.next_outcome(finished2, failed2, goal2, over)
  np.testing.assert_array_equal(has_next[:, 0], [1] * 8 + [0, 0] + [1] * 4)
  np.testing.assert_array_equal(g[10:, 0, 0], [3.0] * 4)
  np.testing.assert_array_equal(asp.next_outcome(finished2, failed2, goal2)[0][8:10, 0], [1, 1])


@pytest.mark.parametrize(
  "form,live",
  [
    ("clip", {1.1: True, 1.25: False, 0.7: False}),  # the paper's equation: dead on both sides
    ("min", {1.1: True, 1.25: False, 0.7: True}),  # its text (advantage 1): pulls up any r < 1 + eps
    ("nll", {1.1: True, 1.25: True, 0.7: True}),
  ],
)  # plain behavioural cloning: always pulls
def test_abc_forms_gradients(form, live):
  old = jnp.zeros(3)
  for ratio, alive in live.items():
    lp = jnp.full(3, np.log(ratio))
    g = jax.grad(lambda x: losses.bc_loss(x, old, 0.2, form=form)[0])(lp)
    assert bool(jnp.all(g < 0)) == alive and bool(jnp.all(g <= 0)), (form, ratio, g)
    loss = float(losses.bc_loss(lp, old, 0.2, form=form)[0])
    want = {"clip": -np.clip(ratio, 0.8, 1.2), "min": -min(ratio, 1.2), "nll": -np.log(ratio)}[form]
    np.testing.assert_allclose(loss, want, rtol=1e-6)
  # The no-clipping ablation is plain behavioural cloning: d(-log p)/d(log p) = -1/n, whatever the ratio.
  np.testing.assert_allclose(
    jax.grad(lambda x: losses.bc_loss(x, old, 0.2, form="nll")[0])(jnp.full(3, 2.0)), -1 / 3, rtol=1e-6
  )
  assert asp.ASPConfig(abc_clip=None).bc_form == "nll" and asp.ASPConfig().bc_form == asp.ASPConfig().abc_form
  with pytest.raises(ValueError, match="abc_form"):
    asp.ASPConfig(abc_form="ratio")
  # A masked-out demonstration with probability 0 (log p = -inf) adds nothing, not nan.
  lp = jnp.array([0.0, -jnp.inf])
  assert np.isfinite(float(losses.bc_loss(lp, jnp.zeros(2), 0.2, jnp.array([1.0, 0.0]), form)[0]))


@pytest.fixture(scope="module")
def algo():
  env = mjx_envs.make("BlocksSelfPlay", alice_steps=5, bob_steps_per_object=5, max_goals=2)
  return asp.make_train(env, asp.ASPConfig(num_envs=60000, num_minibatches=1, holdout_tasks=("push-1",)))


def test_past_opponent_fraction_is_twenty_percent(algo):
  # Three filled slots of equal quality: drawn uniformly (the quality rule's frequencies are
  # tests/agents/league/test_opponent_pool.py's).
  pool = opponent_pool.init({"w": jnp.zeros(2)}, 8)
  for step in (1, 2):
    pool = opponent_pool.add(pool, {"w": jnp.full(2, step)}, step)
  ts = types.SimpleNamespace(pool={"alice": pool, "bob": pool})
  past_alice, past_bob, ia, ib = algo.draw_opponents(ts, jax.random.PRNGKey(0))
  past_alice, past_bob = np.asarray(past_alice), np.asarray(past_bob)
  assert not np.any(past_alice & past_bob)
  # Among the games each agent learns from (where it is current), 20% face a past opponent.
  np.testing.assert_allclose(past_bob[~past_alice].mean(), 0.2, atol=0.01)
  np.testing.assert_allclose(past_alice[~past_bob].mean(), 0.2, atol=0.01)
  assert set(np.asarray(ia).tolist()) == {0, 1, 2} and set(np.asarray(ib).tolist()) == {0, 1, 2}


def test_bad_config_errors():
  env = mjx_envs.make("BlocksSelfPlay")
  with pytest.raises(ValueError, match="holdout task must look like"):
    asp.ASPConfig(holdout_tasks=("juggle-1",))
  with pytest.raises(ValueError, match="BlocksSelfPlay"):
    asp.make_train(mjx_envs.make("BlocksPush"), asp.ASPConfig())
  # The game takes only binned actions: the env's config check refuses continuous ones by name.
  with pytest.raises(ValueError, match="'action_bins' must be an integer, got None"):
    mjx_envs.make("BlocksSelfPlay", action_bins=None)
  assert env.episode_length == 5 * (100 + 200)


def _synthetic(algo, T=4, G=2):
  """A hand-made game trajectory: Alice acts at steps 0-1, Bob at 2-3; game 0's goal is failed by Bob,
  game 1's is solved."""
  k = jax.random.split(jax.random.PRNGKey(0), 8)
  # robot: the world's 17 inputs and the game's steps-left clock (agents.common.normalize.features).
  robot = jnp.concatenate([jax.random.normal(k[0], (T, G, 17)), jax.random.uniform(k[6], (T, G, 1))], -1)
  fa = {
    "robot": robot,
    "objects": jax.random.normal(k[1], (T, G, 8, 17)),
    "object_mask": jnp.zeros((T, G, 8)).at[..., 0].set(1.0),
  }
  ag = jax.random.normal(k[2], (T, G, 8, 7))
  goal = jax.random.normal(k[3], (T, G, 8, 7))
  fb = algo.features("bob", {**fa, "achieved_goal": ag, "desired_goal": goal})
  acted = jnp.array([0, 0, 1, 1])[:, None] * jnp.ones((1, G), jnp.int32)
  end = jnp.zeros((T, G)).at[3].set(1.0)
  return {
    "fa": fa,
    "fb": fb,
    "alice_ag": ag,
    "goal": goal,
    "acted": acted,
    "act_a": jax.random.randint(k[4], (T, G, 6), 0, 11),
    "act_b": jax.random.randint(k[5], (T, G, 6), 0, 11),
    "lp_a": jnp.zeros((T, G)),
    "lp_b": jnp.zeros((T, G)),
    "alice_reward": end * jnp.array([6.0, 1.0]),
    "bob_reward": end * jnp.array([0.0, 6.0]),
    "alice_turn_end": jnp.zeros((T, G)).at[1].set(1.0),
    "bob_turn_end": end,
    "goal_finished": end,
    "goal_failed": end * jnp.array([1.0, 0.0]),
    "bob_achieved": jax.random.normal(k[2], (T, G, 8, 7)) + 3.0,
    "bob_relabel": end * jnp.array([1.0, 0.0]),  # game 0's failed turn moved the block
    "game_over": end,
    "diverged": jnp.zeros((T, G)),
  }


@pytest.fixture(scope="module")
def small_env():
  return mjx_envs.make("BlocksSelfPlay", alice_steps=2, bob_steps_per_object=2, max_goals=1)


def _build(env, **kw):
  algo = asp.make_train(
    env, asp.ASPConfig(num_envs=2, num_minibatches=1, hidden=(16,), holdout_tasks=("push-1",), **kw)
  )
  return algo, algo.init(jax.random.PRNGKey(0))


@pytest.mark.slow  # a training run (the default tier must fit in 30 minutes)
def test_ablation_flags_change_what_bob_learns_from(small_env):
  no = jnp.zeros((2,), bool)
  opp = (no, no, jnp.zeros((2,), jnp.int32), jnp.zeros((2,), jnp.int32))
  algo, ts = _build(small_env)
  traj = _synthetic(algo)
  data, norms = algo.batches(ts, traj, opp)
  # Filtered: only Alice's steps of game 0 (the goal Bob failed) are demonstrations.
  np.testing.assert_array_equal(data["demo"]["mask"], [[1, 0], [1, 0], [0, 0], [0, 0]])
  unfiltered, _ = _build(small_env, demo_filter=False)
  d2, _ = unfiltered.batches(ts, traj, opp)
  np.testing.assert_array_equal(d2["demo"]["mask"], [[1, 1], [1, 1], [0, 0], [0, 0]])
  # Game 0 against a past Bob: his failure says nothing of the current Bob, so no demonstrations from it,
  # unless past_bob_demos asks for them.
  past_bob = (no, jnp.array([True, False]), opp[2], opp[3])
  d3, _ = algo.batches(ts, traj, past_bob)
  np.testing.assert_array_equal(d3["demo"]["mask"], np.zeros((4, 2)))
  keep, _ = _build(small_env, past_bob_demos=True)
  np.testing.assert_array_equal(keep.batches(ts, traj, past_bob)[0]["demo"]["mask"], data["demo"]["mask"])
  # Relabelled with the goal the turn produced, in Bob's input format.
  np.testing.assert_allclose(data["demo"]["feats"]["objects"][0, 0, 0, 17:24], traj["goal"][3, 0, 0])

  def bob_grad(a, demo_old):
    d = {**data, "demo": {**data["demo"], "old_lp": demo_old}}
    g, _ = jax.grad(a.loss, has_aux=True)(ts.params, norms, d)
    return g["bob"]["policy"]

  # Demonstrations whose ratio is far above 1 + eps: ABC's clip stops their gradient (either form);
  # without the clip (abc_clip=None: behavioural cloning) they pull; without ABC (abc=False) they never count.
  high = data["demo"]["old_lp"] - 1.0
  with_abc = bob_grad(algo, data["demo"]["old_lp"])
  clipped = bob_grad(algo, high)
  no_clip, _ = _build(small_env, abc_clip=None)
  no_abc, _ = _build(small_env, abc=False)
  ppo_only = bob_grad(no_abc, data["demo"]["old_lp"])
  diff = lambda a, b: float(sum(jnp.abs(x - y).sum() for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b))))
  assert diff(with_abc, ppo_only) > 0  # ABC adds a term at ratio 1
  assert diff(clipped, ppo_only) < 1e-6  # ... which the clip removes above 1 + eps
  assert diff(bob_grad(no_clip, high), ppo_only) > 0
  assert diff(bob_grad(no_abc, high), ppo_only) < 1e-6


def test_bob_hindsight_relabels_his_failed_turns(small_env):
  """bob_hindsight: Bob's steps of a turn he failed but in which he moved the block become demonstrations
  relabelled with where he left it, in his input format; they add a gradient only when the weight is on."""
  no = jnp.zeros((2,), bool)
  opp = (no, no, jnp.zeros((2,), jnp.int32), jnp.zeros((2,), jnp.int32))
  plain, ts = _build(small_env)
  algo, _ = _build(small_env, bob_hindsight=0.5)
  traj = _synthetic(algo)
  data, norms = algo.batches(ts, traj, opp)
  assert "hindsight" not in plain.batches(ts, traj, opp)[0]  # off: nothing built, nothing computed
  hs = data["hindsight"]
  np.testing.assert_array_equal(hs["mask"], [[0, 0], [0, 0], [1, 0], [1, 0]])  # Bob's steps of game 0
  objects = hs["feats"]["objects"][2:4, 0, 0]
  np.testing.assert_allclose(objects[:, :17], traj["fb"]["objects"][2:4, 0, 0, :17])  # his own view
  np.testing.assert_allclose(objects[:, 17:24], jnp.stack([traj["bob_achieved"][3, 0, 0]] * 2))  # relabelled
  np.testing.assert_allclose(  # position relative to the new goal, from his block at each step
    objects[:, 24:27], traj["bob_achieved"][3, 0, 0, :3] - traj["fb"]["objects"][2:4, 0, 0, :3], rtol=1e-5
  )
  np.testing.assert_array_equal(hs["action"], traj["act_b"])

  def bob_grad(a):
    g, info = jax.grad(a.loss, has_aux=True)(ts.params, norms, data)
    return g["bob"]["policy"], info

  diff = lambda a, b: float(sum(jnp.abs(x - y).sum() for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b))))
  with_hs, info = bob_grad(algo)
  assert diff(with_hs, bob_grad(plain)[0]) > 0 and np.isfinite(float(info["loss/bob_hindsight"]))
  # A game Bob solved, or a turn that left the block where it was, gives none.
  none = {**traj, "bob_relabel": jnp.zeros_like(traj["bob_relabel"])}
  assert float(algo.batches(ts, none, opp)[0]["hindsight"]["mask"].sum()) == 0.0
  with pytest.raises(ValueError, match="bob_hindsight must be >= 0"):
    asp.ASPConfig(bob_hindsight=-1.0)
