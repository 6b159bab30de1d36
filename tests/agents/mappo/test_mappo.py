"""Multi-agent PPO on hide-and-seek (agents.mappo.train): the policy is blind to what its agent cannot see and
the omniscient value function is not; frozen seekers give no gradient; train.py runs it end to end
(run directory, emergence.png, load_policy, video) and resumes exactly."""

import json
import os
import runpy

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import train
from agents import experiment
from agents.common.networks import zero_carry
from agents.mappo.entity_net import EntityPolicy, EntityValue

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

UPDATES_PER_CHUNK, CHUNKS = 2, 3
TINY = {
  "env": {"name": "HideAndSeekQuadrant"},
  "agent": {
    "algo": "mappo",
    "num_envs": 4,
    "unroll_length": 20,
    "bptt_length": 10,
    "num_minibatches": 2,
    "update_epochs": 2,
    "learning_rate": 1e-3,
    "embed": 16,
    "heads": 2,
    "head_dim": 8,
    "dense": 32,
    "lstm_size": 16,
    "total_env_steps": 4 * 20 * UPDATES_PER_CHUNK * CHUNKS,
  },
  "run": {"eval_every": UPDATES_PER_CHUNK, "num_eval_envs": 4, "count_flops": False},
}


@pytest.fixture(scope="module")
def setup():
  cfg = experiment.resolve(TINY)
  env, algo = experiment.build(cfg)
  ts = jax.jit(algo.init)(jax.random.PRNGKey(0))
  return cfg, env, algo, ts


def _hidden_box_obs(env, key):
  """A random observation of one world in which box 0 is hidden from every agent (zeroed, as the env
  masks it) and everything else is seen."""
  obs = jax.eval_shape(env.reset, jax.random.PRNGKey(0)).obs
  keys = jax.random.split(key, len(obs))
  obs = {k: jax.random.normal(kk, v.shape) for kk, (k, v) in zip(keys, sorted(obs.items()))}
  for k in ("agents", "boxes", "ramps"):
    obs[f"{k}_mask"] = jnp.ones(obs[f"{k}_mask"].shape)
    obs[f"{k}_present"] = jnp.ones(obs[f"{k}_present"].shape)
  obs["boxes_mask"] = obs["boxes_mask"].at[:, 0].set(0.0)
  for k in ("agents", "boxes", "ramps"):  # what is seen is the full entity; what is hidden, zeros
    obs[k] = obs[f"{k}_full"] * obs[f"{k}_mask"][..., None]
  return obs


def test_policy_blind_to_hidden_entities_value_not(setup):
  _, env, algo, _ = setup
  obs = _hidden_box_obs(env, jax.random.PRNGKey(3))
  moved = {**obs, "boxes_full": obs["boxes_full"].at[:, 0, :3].add(2.0)}  # the hidden box moves
  # What the value function reads differs from what the policy reads exactly where something is hidden.
  assert not np.allclose(obs["boxes_full"][:, 0], obs["boxes"][:, 0])
  np.testing.assert_array_equal(obs["boxes_full"][:, 1], obs["boxes"][:, 1])
  net = dict(embed=16, heads=2, head_dim=8, dense=32, lstm=16)
  carry = zero_carry((env.num_agents,), 16)
  pol, val, blind = EntityPolicy(**net), EntityValue(**net), EntityValue(**net, omniscient=False)
  pp, vp, bp = (m.init(jax.random.PRNGKey(i), obs, carry) for i, m in enumerate((pol, val, blind)))
  for k, v in pol.apply(pp, obs, carry)[0].items():
    np.testing.assert_allclose(pol.apply(pp, moved, carry)[0][k], v, atol=1e-6)
  assert np.max(np.abs(val.apply(vp, moved, carry)[0] - val.apply(vp, obs, carry)[0])) > 1e-4
  np.testing.assert_allclose(blind.apply(bp, moved, carry)[0], blind.apply(bp, obs, carry)[0], atol=1e-6)
  # A box the agents do see changes the policy.
  seen = {**obs, "boxes": obs["boxes"].at[:, 1, :3].add(2.0)}
  assert np.max(np.abs(pol.apply(pp, seen, carry)[0]["move"] - pol.apply(pp, obs, carry)[0]["move"])) > 1e-4
  # The learner's own nets are these, with the omniscient flag on by default.
  assert algo.value_net.omniscient and isinstance(algo.policy_net, EntityPolicy)


def test_frozen_seekers_give_no_gradient(setup):
  """In the preparation phase seekers are frozen: their steps are masked, so scrambling their actions,
  behaviour log-probs, advantages and value targets leaves the gradient as it is; scrambling a hider's
  step changes it."""
  _, _, algo, ts = setup

  @jax.jit
  def probe(ts, key):
    _, _, traj, _, _, _ = algo.rollout(ts, key)
    k1, k2 = jax.random.split(key)
    adv, targets = jax.random.normal(k1, traj.reward.shape), jax.random.normal(k2, traj.reward.shape)
    (seq, a, t), starts = algo._sequences(traj, adv, targets)  # pylint: disable=protected-access

    def grads(which):
      sel = which > 0
      action = {
        k: jnp.where(sel[..., None], (x + 3) % (11 if k == "move" else 2), x) for k, x in seq.action.items()
      }
      s = seq.replace(action=action, log_prob=jnp.where(sel, seq.log_prob - 2.0, seq.log_prob))
      g, _ = jax.grad(algo.loss, has_aux=True)(
        ts.params, s, jnp.where(sel, 5 * a + 3, a), jnp.where(sel, t + 9, t), starts, 0.01
      )
      return g

    return traj.active, grads(jnp.zeros_like(seq.active)), grads(1 - seq.active), grads(seq.active)

  active, g, g_frozen, g_active = probe(ts, jax.random.PRNGKey(1))
  hider = np.asarray(algo.hider)
  assert algo.config.unroll_length <= algo.prep_steps  # the whole rollout is preparation
  np.testing.assert_array_equal(np.asarray(active), np.broadcast_to(hider, active.shape))
  for x, y in zip(jax.tree.leaves(g), jax.tree.leaves(g_frozen)):
    np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-7)
  diff = max(float(np.max(np.abs(x - y))) for x, y in zip(jax.tree.leaves(g), jax.tree.leaves(g_active)))
  assert diff > 1e-4


def _rows(run_dir):
  return [json.loads(l) for l in open(os.path.join(run_dir, "metrics.jsonl"))]


@pytest.mark.slow  # a training run (the default tier must fit in 30 minutes)
@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")  # ffmpeg runs as a subprocess
def test_train_py_runs_logs_emergence_and_resumes_exactly(setup, tmp_path):
  cfg, _, algo, ts0 = setup
  full, cut = str(tmp_path / "full"), str(tmp_path / "cut")
  ts_full, row = train.run(cfg, "test", full, progress=False)
  rows = _rows(full)
  assert [r["env_steps"] for r in rows] == [
    algo.config.steps_per_update * UPDATES_PER_CHUNK * (i + 1) for i in range(CHUNKS)
  ]
  for key in (
    "train/hider_return",
    "train/seeker_return",
    "eval/hider_return",
    "eval/seeker_return",
    "eval/success_rate",
    "train/max_box_move_prep",
    "eval/num_box_lock",
    "loss/value",
    "train/sps",
  ):
    assert all(np.isfinite(r[key]) for r in rows), key
  assert sum(r["train/episodes"] for r in rows) == 4  # every world ended its 80-step episode once
  assert all(r["train/bad_actions"] == 0 and r["train/physics_resets"] == 0 for r in rows)
  assert {"emergence.png", "learning_curve.png", "config.json", "checkpoints"} <= set(os.listdir(full))

  # The seekers' reward moves away from its starting value: the same evaluation (same key, same
  # worlds) before and after training.
  key = jax.random.PRNGKey(7)
  evaluate = jax.jit(algo.evaluate)
  before, after = evaluate(ts0.params, None, key), evaluate(ts_full.params, None, key)
  assert abs(float(after["eval/seeker_return"]) - float(before["eval/seeker_return"])) > 0.1, (before, after)

  # Interrupted after its first chunk (run.max_minutes), then resumed: the same parameters, value
  # statistics, LSTM states and metrics as the uninterrupted run.
  stop = {**cfg, "run": {**cfg["run"], "max_minutes": 1e-6}}
  train.run(stop, "test", cut, progress=False)
  assert len(_rows(cut)) == 1
  ts_cut, _ = train.run(cfg, "test", cut, resume=True, progress=False)
  for x, y in zip(
    jax.tree.leaves((ts_full.params, ts_full.ret_norm, ts_full.core)),
    jax.tree.leaves((ts_cut.params, ts_cut.ret_norm, ts_cut.core)),
  ):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  a, b = _rows(full)[-1], _rows(cut)[-1]
  assert a["env_steps"] == b["env_steps"]
  for k in ("eval/seeker_return", "train/seeker_return", "loss/policy", "eval/max_box_move"):
    assert a[k] == b[k], k

  # The trained policy loads back from the run directory and acts for every agent of a world.
  act = experiment.load_policy(full)
  obs = jax.tree.map(lambda x: x[:2], ts_full.env_state.obs)
  action, carry = act(obs, None, act.initial_carry((2,)))
  n_agents = algo.num_agents
  assert action["move"].shape == (2, n_agents, 3) and action["grab"].shape == (2, n_agents)
  assert carry[0].shape == (2, n_agents, 16)

  # --video: an episode with both teams.
  import imageio.v3 as iio  # pylint: disable=import-outside-toplevel

  path = experiment.record_video(algo, ts_full.params, None, str(tmp_path / "video.mp4"), width=64, height=48)
  frames = iio.imread(path)
  assert frames.shape[1:] == (48, 64, 3) and len(frames) >= algo.episode_length and frames.std() > 10

  # An architecture change on --resume is refused by name: the entity nets have no surgery.
  wider = experiment.set_dotted(cfg, "agent.lstm_size=32")
  with pytest.raises(SystemExit, match="agent.lstm_size changed.*no surgery"):
    train.run(wider, "test", cut, resume=True, progress=False)

  # Past opponents (agent.past_opponent_prob): a snapshot joins the pool every pool_every train steps,
  # the quality scores move by the current team's wins, and the counts are logged.
  from agents.league import opponent_pool  # pylint: disable=import-outside-toplevel

  pcfg = experiment.set_dotted(cfg, "agent.past_opponent_prob=1", "agent.pool_every=1", "agent.pool_size=4")
  ts_p, _ = train.run(pcfg, "test", str(tmp_path / "pool"), progress=False)
  assert int(opponent_pool.size(ts_p.pool)) == 4 and int(ts_p.pool.count) == 1 + UPDATES_PER_CHUNK * CHUNKS
  for x, y in zip(jax.tree.leaves(ts_p.params["policy"]), jax.tree.leaves(opponent_pool.get(ts_p.pool, 2))):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))  # the newest snapshot: slot 6 % 4
  prow = _rows(str(tmp_path / "pool"))
  # Every world's episode had a past team (probability 1); rows average their chunk's train steps.
  assert sum(r["train/past_episodes"] for r in prow) * UPDATES_PER_CHUNK == pytest.approx(4)
  assert all("pool/q_max" in r for r in prow)
  assert all(0 <= r["train/past_wins"] <= r["train/past_episodes"] for r in prow)

  # Fine-tuning on a transfer task (run.init_from) with hns_transfer_cpu's run.init_fresh (the paper's
  # re-initialised final dense layer and layer norm, in both nets): every other layer of the game's nets
  # carries over, the task's own entities (Blueprint's sites) get fresh ones; the run trains and reports
  # the task's success.
  reinit = runpy.run_path(os.path.join(ROOT, "configs", "hns_transfer_cpu.py"))["PAPER_REINIT"]
  tcfg = experiment.set_dotted(
    cfg,
    "env.name=HnsBlueprint",
    f"run.init_from={full}",
    f"run.init_fresh={list(reinit)!r}",
    "agent.total_env_steps=160",
    "run.eval_every=2",
  )
  warm = str(tmp_path / "warm")
  train.run(tcfg, "test", warm, progress=False)
  record = json.load(open(os.path.join(warm, "init_from.json")))
  redrawn = set(record["reinitialised"])
  assert {p for p in record["fresh"] if p not in redrawn} and all(
    "_sites" in p for p in record["fresh"] if p not in redrawn
  ), record["fresh"]
  for net in ("policy", "value"):  # Dense_4 and LayerNorm_4, kernel/bias and scale/bias, in each net
    assert sum(f"['{net}']" in p and ("Dense_4" in p or "LayerNorm_4" in p) for p in redrawn) == 4, redrawn
  assert redrawn <= set(record["fresh"]) and not any("_4'" in p for p in record["carried"])
  for part in ("ResidualSelfAttention", "OptimizedLSTMCell", "Dense_0"):  # attention, memory, heads
    assert any(part in p for p in record["carried"]), part
  row = _rows(warm)[-1]
  assert np.isfinite(row["eval/success_rate"]) and "train/success" in row and "train/hider_return" in row


def test_team_spirit_blends_each_agents_training_reward_with_its_teams(setup):
  """tau 1: each present agent learns from its team's mean reward over the present agents (absent agents
  get 0); tau 0 (the default): the env's rewards, untouched; an annealed tau runs from start to end."""
  from agents.league.team_spirit import team_rewards  # pylint: disable=import-outside-toplevel

  cfg, env, algo, _ = setup
  hider = np.asarray(env.hider_flag, bool)
  A = len(hider)
  assert hider.any() and (~hider).any()
  rng = np.random.default_rng(0)
  present = (rng.random((6, 3, A)) < 0.7).astype(np.float32)
  present[0] = 1.0
  reward = rng.normal(size=(6, 3, A)).astype(np.float32) * present  # the env gives absent agents 0

  # Default: tau 0 throughout, so the rewards are the env's (not even blended); the blend at tau 0 is
  # the identity too.
  assert algo.config.team_spirit == 0.0 and not algo.uses_team_spirit
  assert algo.training_rewards(reward, present, algo.team_spirit_at(0)) is reward
  np.testing.assert_array_equal(
    np.asarray(team_rewards(reward, algo.team, 0.0, zero_sum=False, mask=present)), reward
  )

  _, full = experiment.build(experiment.set_dotted(cfg, "agent.team_spirit=1"))
  assert full.uses_team_spirit and float(full.team_spirit_at(5)) == 1.0
  got = np.asarray(full.training_rewards(reward, present, full.team_spirit_at(0)))
  for team in (hider, ~hider):
    on = present * team
    mean = np.sum(reward * on, -1, keepdims=True) / np.maximum(np.sum(on, -1, keepdims=True), 1.0)
    want = np.where(on > 0, mean, 0.0)
    np.testing.assert_allclose(got[..., team], want[..., team], rtol=1e-6, atol=1e-6)
  # Zero-sum between the teams is the env's business: with tau 1, a team's blended rewards sum to its
  # own rewards' sum (nothing moves across teams).
  for team in (hider, ~hider):
    np.testing.assert_allclose(
      np.sum(got[..., team], -1), np.sum(reward[..., team], -1), rtol=1e-5, atol=1e-5
    )

  _, annealed = experiment.build(
    experiment.set_dotted(cfg, "agent.team_spirit=0.3", "agent.team_spirit_end=1")
  )
  n = annealed.config.num_updates
  taus = [float(annealed.team_spirit_at(jnp.int32(u))) for u in (0, 1, n - 1, n + 3)]
  np.testing.assert_allclose(taus, [0.3, 0.3 + 0.7 / (n - 1), 1.0, 1.0], rtol=1e-6)
  # OpenAI Five's schedule, 0 -> 1: the env's own rewards at the first update, the team's mean at the last.
  _, five = experiment.build(experiment.set_dotted(cfg, "agent.team_spirit=0", "agent.team_spirit_end=1"))
  assert five.uses_team_spirit
  m = five.config.num_updates
  taus = [float(five.team_spirit_at(jnp.int32(u))) for u in (0, m // 2, m - 1)]
  np.testing.assert_allclose(taus, [0.0, (m // 2) / (m - 1), 1.0], rtol=1e-6, atol=1e-7)
  np.testing.assert_allclose(
    np.asarray(five.training_rewards(reward, present, five.team_spirit_at(0))), reward, atol=1e-7
  )
  last = np.asarray(five.training_rewards(reward, present, five.team_spirit_at(m - 1)))
  np.testing.assert_allclose(last, got, rtol=1e-6, atol=1e-6)

  with pytest.raises(experiment.ConfigError, match=r"agent.team_spirit must be in \[0, 1\]"):
    experiment.set_dotted(cfg, "agent.team_spirit=1.5")
  from agents.mappo.train import MAPPOConfig  # pylint: disable=import-outside-toplevel

  with pytest.raises(ValueError, match=r"team_spirit_end must be in \[0, 1\]"):
    MAPPOConfig(team_spirit_end=-0.1)


@pytest.mark.slow  # two rollouts of their own compile (~110 s on a core): the default tier must fit in 30 min
def test_past_opponents_play_one_team_masked_out_of_the_update(setup):
  """agent.past_opponent_prob=1: in every world one team (drawn per episode) acts with the pool's past
  version and gives no gradient; another past version changes only the past team's first actions.
  Episodes that end redraw the teams and count for the pool's quality scores."""
  cfg, _, algo, ts = setup
  assert not algo.uses_pool and ts.pool is None and ts.opponents is None  # the default: no pool at all
  pcfg = experiment.set_dotted(
    cfg, "agent.past_opponent_prob=1", "agent.pool_every=1", "agent.episode_length=15"
  )
  _, palgo = experiment.build(pcfg)
  pts = jax.jit(palgo.init)(jax.random.PRNGKey(0))
  # The same parameters and worlds as without the pool (its draws take a key of their own).
  for x, y in zip(jax.tree.leaves(ts.params), jax.tree.leaves(pts.params)):
    np.testing.assert_array_equal(x, y)
  noisy = jax.tree.map(
    lambda x: x + 0.5 * jax.random.normal(jax.random.PRNGKey(5), x.shape), pts.pool.snapshots
  )

  @jax.jit
  def probe(pts, noisy):
    k, kp = jax.random.PRNGKey(1), jax.random.PRNGKey(2)
    same = palgo.rollout(pts, k, kp)
    other = palgo.rollout(pts.replace(pool=pts.pool.replace(snapshots=noisy)), k, kp)
    return same, other

  same, other = probe(pts, noisy)
  traj, stats, past = same[2], same[3], same[5]
  team = np.asarray(palgo.team)  # [A] 1 hiders, 0 seekers
  opp1, opp2 = np.asarray(pts.opponents), np.asarray(past["opponents"])
  assert np.all(opp1 >= 0) and np.all(opp2 >= 0)  # probability 1: every episode has a past team
  # The whole rollout is the preparation phase (seekers frozen), episodes end after step 14 and redraw.
  assert palgo.config.unroll_length <= palgo.prep_steps
  hider = np.asarray(palgo.hider) > 0.5
  active = np.asarray(traj.active) > 0
  for t in range(palgo.config.unroll_length):
    opp = opp1 if t < 15 else opp2
    np.testing.assert_array_equal(active[t], hider[None] & (team[None] != opp[:, None]), err_msg=f"t={t}")
  ended = np.asarray(stats["past_episode"])
  assert ended[14].sum() == palgo.config.num_envs and ended.sum() == palgo.config.num_envs
  assert np.all(np.asarray(stats["past_win"]) <= ended)
  # A different past version changes the first actions of the past team only.
  past_team = team[None] == opp1[:, None]  # [N, A]
  moved = np.zeros_like(past_team)
  for k, a in traj.action.items():
    b = np.asarray(other[2].action[k][0])
    a0 = np.asarray(a[0])
    np.testing.assert_array_equal(a0[~past_team], b[~past_team], err_msg=k)
    moved |= np.any(a0 != b, -1)
  assert moved[past_team].any()
  # (The train step's pool updates are checked in the slow tier's training run.)
  with pytest.raises(experiment.ConfigError, match="past_opponent_prob"):
    experiment.set_dotted(cfg, "agent.past_opponent_prob=1.5")


def test_transfer_tasks_train_through_mappo_with_their_own_entities(setup):
  """The transfer suite through the same learner: Blueprint's sites and Shelter's objective get layers of
  their own in the entity nets, every other layer has the game's name and shape (what a warm start
  matches by), the train step reports the task's success; object counting is refused by name."""
  from agents.league import surgery  # pylint: disable=import-outside-toplevel

  cfg, _, algo, ts = setup
  for task, extra in (("HnsBlueprint", "sites"), ("HnsShelter", "objective"), ("HnsLockAndReturn", None)):
    _, talgo = experiment.build(experiment.set_dotted(cfg, f"env.name={task}"))
    assert talgo.transfer and not algo.transfer
    tts = jax.eval_shape(talgo.init, jax.random.PRNGKey(0))
    fresh = jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), tts.params)
    _, record = surgery.transplant(fresh, ts.params)
    want = {f"Dense_{extra}", f"LayerNorm_{extra}"} if extra else set()
    names = {n for p in record["fresh"] for n in want if f"'{n}'" in p}
    # Dense kernel and bias, LayerNorm scale and bias, in the policy and in the value function.
    assert names == want and len(record["fresh"]) == (8 if extra else 0), (task, record["fresh"])
    assert talgo.headline[0] == ("eval/success_rate", "success")
    if task == "HnsBlueprint":  # (traced, not run: the slow tier trains one)
      _, m = jax.eval_shape(talgo.train_step, tts)
      ev = jax.eval_shape(lambda p, k: talgo.evaluate(p, None, k), tts.params, jax.random.PRNGKey(0))
      assert "train/success" in m and "eval/success_rate" in ev
  with pytest.raises(experiment.ConfigError, match="HnsObjectCounting.*no reward"):
    experiment.set_dotted(cfg, "env.name=HnsObjectCounting")
