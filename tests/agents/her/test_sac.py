"""SAC+HER: its losses against hand-computed values, the tanh log-density against a numeric one, the
temperature's direction, config checks, and FetchReach learned through train.py well above a random
policy. (Gradients averaged over grad_batches: tests/agents/her/test_ddpg.py, for both learners.)"""

import mjx_envs

import json
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import train
from agents import experiment
from agents.common import normalize as N
from agents.common import replay
from agents.common.distributions import TanhNormal
from agents.common.evaluation import evaluate_policy
from agents.her import sac


def test_squash_log_prob_matches_the_numeric_density():
  mean = jnp.array([[0.3, -1.2, 0.0], [1.5, 0.1, -0.4]])
  log_std = jnp.array([[-0.5, 0.2, 0.0], [0.4, -1.0, -2.0]])
  noise = jnp.array([[0.7, -0.3, 1.1], [-0.2, 0.9, -1.5]])
  a, logp = sac.squash(TanhNormal(mean, log_std), noise)
  u = np.asarray(mean + jnp.exp(log_std) * noise, np.float64)
  np.testing.assert_allclose(a, np.tanh(u), rtol=1e-6)
  # The density of a = tanh(u) per dimension is the derivative of its CDF Phi((atanh(a) - m) / s),
  # taken here by central differences in float64, with no change-of-variables formula.
  m, s = np.asarray(mean, np.float64), np.exp(np.asarray(log_std, np.float64))
  cdf = np.vectorize(lambda x, m_, s_: 0.5 * (1.0 + math.erf((math.atanh(x) - m_) / (s_ * math.sqrt(2.0)))))
  h, x = 1e-6, np.tanh(u)
  density = (cdf(x + h, m, s) - cdf(x - h, m, s)) / (2 * h)
  np.testing.assert_allclose(logp, np.log(density).sum(-1), rtol=1e-4)
  # The correction matters here: the Gaussian's own log-density of u is far off.
  gauss = (-0.5 * ((u - m) / s) ** 2 - np.log(s) - 0.5 * math.log(2 * math.pi)).sum(-1)
  assert np.all(np.abs(np.asarray(logp) - gauss) > 0.5)


def test_critic_target_takes_the_smaller_twin_and_subtracts_the_entropy_term():
  reward = jnp.array([-1.0, 0.0, 0.0])
  discount = jnp.array([1.0, 0.0, 1.0])
  next_q = jnp.array(
    [
      [-3.0, -2.0, -0.5],  # critic 1
      [-5.0, -1.0, -0.7],
    ]
  )  # critic 2
  next_logp = jnp.array([0.5, -1.0, -3.0])
  y = sac.critic_target(reward, discount, next_q, next_logp, alpha=0.2, gamma=0.9)
  # -1 + 0.9 (min(-3, -5) - 0.2 * 0.5);  0 (terminal);  0.9 (min(-0.5, -0.7) - 0.2 * -3)
  np.testing.assert_allclose(y, [-1.0 + 0.9 * -5.1, 0.0, 0.9 * -0.1], rtol=1e-6)
  # The clip range: DDPG's [-1/(1-gamma), 0] widened by the entropy bonus alpha H per future step, with
  # H between target_entropy and action_size log 2; DDPG's range as alpha -> 0.
  lo, hi = sac.target_bounds(0.98, 0.1, 4, -4.0)
  np.testing.assert_allclose([lo, hi], [(-1.0 - 0.98 * 0.1 * 4) / 0.02, 0.98 * 0.1 * 4 * math.log(2) / 0.02])
  np.testing.assert_allclose(sac.target_bounds(0.98, 0.0, 4, -4.0), [-50.0, 0.0])


def test_actor_and_temperature_losses():
  q_pi = jnp.array([[-1.0, -4.0], [-2.0, -3.0]])  # [critic, sample]: min -2, -4
  logp = jnp.array([0.5, -1.0])
  # mean(alpha logp - min Q) = mean(0.1 + 2, -0.2 + 4)
  np.testing.assert_allclose(sac.actor_loss(q_pi, logp, 0.2), 2.95, rtol=1e-6)
  log_alpha = jnp.log(0.2)
  # -log_alpha mean(logp + target) = -log(0.2) mean(0.5 - 2, -1 - 2)
  np.testing.assert_allclose(sac.temperature_loss(log_alpha, logp, -2.0), -math.log(0.2) * -2.25, rtol=1e-6)
  # Its gradient is entropy - target = mean(-logp) - (-2) = 2.25 > 0: descent lowers alpha.
  np.testing.assert_allclose(jax.grad(sac.temperature_loss)(log_alpha, logp, -2.0), 2.25, rtol=1e-6)


@pytest.mark.parametrize("target_entropy,rises", [(20.0, True), (-20.0, False)])
def test_temperature_rises_below_the_target_entropy_and_falls_above(target_entropy, rises):
  # A 4-d squashed Gaussian's entropy is below 4 log 2 < 20, and an untrained one's far above -20.
  cfg = sac.SACConfig(
    num_envs=2,
    unroll_length=5,
    buffer_size=40,
    batch_size=32,
    hidden=(16,),
    init_alpha=0.5,
    target_entropy=target_entropy,
  )
  algo = sac.make_train(mjx_envs.make("FetchReach"), cfg)
  buf = algo.empty_buffer()
  buf = replay.add(
    buf, jax.tree.map(lambda x: jax.random.normal(jax.random.PRNGKey(0), (2,) + x.shape[1:]), buf.data)
  )
  params = algo.init_params(jax.random.PRNGKey(1), jax.random.PRNGKey(2), jnp.zeros(13))
  opt_state = {k: opt.init(params[k]) for k, opt in algo.opts.items()}
  batches = algo.sample_many(buf, jax.random.PRNGKey(3))
  obs_norm = N.init(jnp.zeros(13))
  grads, _ = jax.jit(algo.mean_grads)(params, algo.target_params(params), obs_norm, batches)
  new, _, info = jax.jit(algo.update)(params, opt_state, algo.target_params(params), obs_norm, batches)
  assert -20.0 < float(info["sac/entropy"]) < 4 * math.log(2)
  np.testing.assert_allclose(grads["log_alpha"], info["sac/entropy"] - target_entropy, rtol=1e-5)
  assert float(info["sac/alpha"]) == pytest.approx(0.5)
  alpha = float(jnp.exp(new["log_alpha"]))
  assert (alpha > 0.5) if rises else (alpha < 0.5), alpha


def test_sac_config_errors():
  with pytest.raises(ValueError, match="init_alpha must be > 0"):
    sac.SACConfig(init_alpha=0.0)
  with pytest.raises(ValueError, match="grad_batches"):
    sac.SACConfig(grad_batches=0)
  cfg = experiment.resolve(train.load_config("sac_her_fetch_push"))
  assert cfg["agent"]["algo"] == "sac_her" and cfg["agent"]["target_entropy"] is None
  with pytest.raises(ValueError, match="unknown config key 'agent.noise_eps'"):  # a DDPG key
    experiment.set_dotted(cfg, "agent.noise_eps=0.1")
  with pytest.raises(ValueError, match="agent.alpha_lr must be > 0"):
    experiment.set_dotted(cfg, "agent.alpha_lr=0")
  with pytest.raises(ValueError, match="agent.buffer_size=100 must hold one cycle"):
    experiment.set_dotted(cfg, "agent.buffer_size=100")


@pytest.fixture(scope="module")
def reach_run(tmp_path_factory):
  """SAC+HER on FetchReach through train.py: 10,000 env steps, two batches averaged per update."""
  cfg = experiment.set_dotted(
    experiment.resolve(train.load_config("sac_her_fetch_reach")),
    "agent.buffer_size=100000",
    "agent.grad_batches=2",
    "agent.total_env_steps=10000",
    "run.count_flops=False",
  )
  run_dir = tmp_path_factory.mktemp("sac_reach")
  ts, row = train.run(cfg, "sac", str(run_dir), progress=False)
  return cfg, ts, row, run_dir


def _random_policy_success(env, num_envs=64):
  """Eval success of uniformly random actions (the policy's carry is its PRNG key)."""

  def act(obs, key, keys):
    del obs, key
    keys = jax.vmap(jax.random.split)(keys)
    uniform = lambda k: jax.random.uniform(k, (env.action_size,), minval=-1.0, maxval=1.0)
    return jax.vmap(uniform)(keys[:, 0]), keys[:, 1]

  run = jax.jit(
    lambda k: evaluate_policy(
      env, env.episode_length, True, act, k, num_envs, carry=jax.random.split(k, num_envs)
    )
  )
  return float(run(jax.random.PRNGKey(5))["eval/success_rate"])


@pytest.mark.slow  # a training run (the default tier must fit in 30 minutes)
def test_sac_her_learns_fetch_reach_well_above_a_random_policy(reach_run):
  cfg, _, row, run_dir = reach_run
  assert row["env_steps"] == 10_000
  random_success = _random_policy_success(mjx_envs.make("FetchReach", reward_type="sparse"))
  assert row["eval/success_rate"] >= 0.9 and row["eval/success_rate"] >= random_success + 0.6, (
    row,
    random_success,
  )
  # The temperature was learned and the data-quality figure counts both batches of every update.
  assert 0.0 < row["sac/alpha"] < cfg["agent"]["init_alpha"]
  assert row["data/sample_reuse"] == pytest.approx(256 * 2 * 40 / (8 * 50))
  # The checkpoint serves the policy: deterministic actions in [-1, 1].
  act = experiment.load_policy(str(run_dir))
  a = act(
    {"observation": jnp.zeros((2, 10)), "achieved_goal": jnp.zeros((2, 3)), "desired_goal": jnp.ones((2, 3))},
    None,
  )
  assert a.shape == (2, 4) and bool(jnp.all(jnp.abs(a) <= 1.0))
  # A new run warm-started from the exported policy (run.init_from=FILE; its target critics copies of
  # the carried ones) succeeds from its first evaluation on.
  path = experiment.export_policy(str(run_dir), str(run_dir / "exported.policy"))
  warm_cfg = experiment.set_dotted(
    cfg, f"run.init_from={path}", "agent.total_env_steps=800", "run.eval_every=1"
  )
  warm_dir = run_dir.parent / "sac_reach_warm"
  _, warm_row = train.run(warm_cfg, "sac_warm", str(warm_dir), progress=False)
  first = json.loads(open(warm_dir / "metrics.jsonl").readline())
  assert first["env_steps"] <= 800 and first["eval/success_rate"] >= 0.9, first
  assert json.load(open(warm_dir / "init_from.json"))["checkpoint"] == "policy file"


def test_the_networks_read_the_envs_policy_goal():
  """With HandReach's `seen_goal_min_separation`, the learner's network input carries the env's
  `policy_goal` of the goal, from dict and from flattened observations alike (evaluation flattens) and
  from stored (obs, goal) rows; the default reads the goal as it is."""
  kw = dict(num_envs=2, batch_size=8, buffer_size=400, episode_length=50)
  for sep in (0.0, 0.03):
    env = mjx_envs.make("HandReach", impl="c", seen_goal_min_separation=[0.0, 0.0, sep, 0.0])
    algo = sac.make_train(env, sac.SACConfig(**kw))
    hand = env.unwrapped
    goal = jnp.asarray(
      hand._meeting_goal(jax.random.PRNGKey(1), jnp.asarray(hand.initial_goal).reshape(5, 3), 2)
    )
    goal = goal.reshape(15)
    obs = dict(jax.eval_shape(hand.reset, jax.random.PRNGKey(0)).obs)
    obs = {k: jnp.full(v.shape, 0.5, v.dtype) for k, v in obs.items()}
    obs["desired_goal"] = goal
    want = np.concatenate([np.asarray(obs["observation"]), np.asarray(hand.policy_goal(goal))])
    np.testing.assert_array_equal(algo.features(obs), want)
    np.testing.assert_array_equal(algo.features(mjx_envs.wrappers.flatten_goal_obs(obs)), want)
    np.testing.assert_array_equal(algo._inputs(obs["observation"], goal), want)
    read = want[-15:].reshape(5, 3)
    gap = np.linalg.norm(read[2] - read[4])
    if sep:
      np.testing.assert_allclose(gap, sep, atol=1e-6)
    else:
      np.testing.assert_array_equal(read.reshape(-1), np.asarray(goal))
      assert gap < 0.0101


def test_warm_start_from_a_policy_file(tmp_path):
  """`run.init_from=POLICY_FILE` (`experiment.warm_start`): a fresh state takes an exported policy's
  parameters and observation statistics whole, its target critics copies of them; another network's file or a foreign file is refused by
  name."""
  from flax import serialization  # pylint: disable=import-outside-toplevel

  env = mjx_envs.make("FetchReach", impl="c")
  algo = sac.make_train(env, sac.SACConfig(num_envs=2, batch_size=8, buffer_size=400))
  donor, fresh = (jax.jit(algo.init)(jax.random.PRNGKey(k)) for k in (1, 2))
  blob = {
    "format": "mjx-goal-rl policy 1",
    "config": "{}",
    "params": serialization.to_state_dict(donor.params),
    "obs_norm": serialization.to_state_dict(donor.obs_norm),
  }
  path = tmp_path / "donor.policy"
  path.write_bytes(serialization.msgpack_serialize(blob))
  warm, record = experiment.warm_start(fresh, str(path), algo)
  assert record["checkpoint"] == "policy file" and record["fresh"] == [] and len(record["carried"]) > 4
  jax.tree.map(np.testing.assert_array_equal, warm.params, donor.params)
  # The target critics start as the carried critics (not the fresh draw's), in buffers of their own.
  jax.tree.map(np.testing.assert_array_equal, warm.target, algo.target_params(donor.params))
  assert all(
    t is not p for t, p in zip(jax.tree.leaves(warm.target), jax.tree.leaves(algo.target_params(warm.params)))
  )
  jax.tree.map(np.testing.assert_array_equal, warm.obs_norm, donor.obs_norm)
  jax.tree.map(np.testing.assert_array_equal, warm.buffer, fresh.buffer)
  differ = [
    bool(np.any(a != b)) for a, b in zip(jax.tree.leaves(fresh.params), jax.tree.leaves(donor.params))
  ]
  assert sum(differ) >= 4, differ  # the two draws' weights differ: the carry-over is seen
  wide = sac.make_train(env, sac.SACConfig(num_envs=2, batch_size=8, buffer_size=400, hidden=(32, 32)))
  with pytest.raises(ValueError, match="init_from.*not this run's"):
    experiment.warm_start(jax.jit(wide.init)(jax.random.PRNGKey(3)), str(path))
  (tmp_path / "other.bin").write_bytes(b"not msgpack at all")
  with pytest.raises(ValueError, match="init_from.*not a run directory or a policy file"):
    experiment.warm_start(fresh, str(tmp_path / "other.bin"))
