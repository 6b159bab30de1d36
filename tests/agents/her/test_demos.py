"""Learning from demonstrations (HERConfig.demo_episodes / demo_batch_size, CloningConfig.bc_weight and its
schedule): the expert's episodes are collected at init into their own buffer, every batch carries
demo_batch_size of them (relabelled like the rest), behaviour cloning with the Q filter pulls DDPG's and
SAC's actors towards the demonstrated actions, checkpoints without buffers re-collect them, and bad settings
are refused."""

import mjx_envs
from mjx_envs import scripted

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from compile_flags import USERS_EMITTERS

import train
from agents import experiment
from agents.her import ddpg, sac
from agents.her.ddpg import DDPGConfig, make_train
from agents.multitask.mtsac import MTSACConfig

DEMOS, DEMO_BATCH, BATCH = 6, 24, 64


@pytest.fixture(scope="module")
def reach():
  """FetchReach (C physics) with 6 expert episodes and a learner whose batches hold 24 of them."""
  env = mjx_envs.make("FetchReach")
  cfg = DDPGConfig(
    num_envs=2,
    unroll_length=50,
    buffer_size=1000,
    batch_size=BATCH,
    hidden=(32, 32),
    demo_episodes=DEMOS,
    demo_batch_size=DEMO_BATCH,
    bc_weight=100.0,
    updates_per_cycle=40,
  )
  algo = make_train(env, cfg)
  return env, algo, jax.jit(algo.init)(jax.random.PRNGKey(0))


def test_demos_are_the_experts_episodes(reach):
  env, algo, ts = reach
  d = ts.demos.data
  assert d["action"].shape == (DEMOS, 50, 4) and int(ts.demos.size) == DEMOS
  # One episode per segment: only the last step ends it, by the time limit (bootstrapped).
  np.testing.assert_array_equal(np.asarray(d["done"])[:, -1], 1.0)
  np.testing.assert_array_equal(np.asarray(d["truncation"])[:, -1], 1.0)
  assert float(jnp.sum(d["done"][:, :-1])) == 0.0
  # They are the expert's: its own rollout from the same resets ends where they end, and it succeeds.
  key_demo = jax.random.split(jax.random.split(jax.random.PRNGKey(0), 4)[3], 3)[1]
  _, trace = scripted.rollout(env, scripted.expert_for(env), key_demo, DEMOS)
  assert float(jnp.mean(trace["is_success"][-1])) == 1.0
  final = np.asarray(d["next_ag"][:, -1])
  goal = np.asarray(d["goal"][:, -1])
  assert np.all(np.linalg.norm(final - goal, axis=-1) < 0.05)
  # The normaliser has seen them: its observation means are theirs.
  obs_mean = np.asarray(d["obs"]).reshape(-1, 10).mean(0)
  np.testing.assert_allclose(np.asarray(ts.obs_norm.mean)[:10], obs_mean, rtol=1e-4, atol=1e-5)


def test_each_batch_ends_with_relabelled_demo_rows(reach):
  _, algo, ts = reach
  # An agent buffer of one cycle of its own (zeros), so that demo rows are told apart by their actions.
  buf = ts.buffer
  b = jax.jit(algo.sample)(buf.replace(size=jnp.ones((), jnp.int32)), jax.random.PRNGKey(1), ts.demos)
  flag = np.asarray(b["demo"])
  np.testing.assert_array_equal(flag, np.r_[np.zeros(BATCH - DEMO_BATCH), np.ones(DEMO_BATCH)])
  demo_actions = np.asarray(ts.demos.data["action"]).reshape(-1, 4)
  rows = np.asarray(b["action"])[flag == 1]
  assert all(np.any(np.all(np.isclose(demo_actions, r), -1)) for r in rows)
  assert np.all(np.asarray(b["action"])[flag == 0] == 0.0)
  # Relabelled like the rest: each demo row's goal is its episode's or one the expert achieved, and some
  # are achieved ones (FetchReach's expert lands exactly on most goals, so only some rows tell).
  asked = np.asarray(ts.demos.data["goal"][:, 0])
  achieved = np.asarray(ts.demos.data["next_ag"]).reshape(-1, 3)
  goals = np.asarray(b["goal"])[flag == 1]
  replaced = [not np.any(np.all(asked == g, -1)) for g in goals]
  assert all(np.any(np.all(np.r_[asked, achieved] == g, -1)) for g in goals)
  assert np.mean(replaced) > 0.1
  # SAC's batches carry the same rows (its noise added).
  s = sac.make_train(
    mjx_envs.make("FetchReach"),
    sac.SACConfig(
      num_envs=2, buffer_size=1000, batch_size=BATCH, demo_episodes=DEMOS, demo_batch_size=DEMO_BATCH
    ),
  )
  sb = jax.jit(s.sample)(buf.replace(size=jnp.ones((), jnp.int32)), jax.random.PRNGKey(1), ts.demos)
  np.testing.assert_array_equal(np.asarray(sb["demo"]), flag)


def test_behaviour_cloning_adds_the_q_filtered_action_error_of_the_demo_rows(reach):
  _, algo, ts = reach
  plain = make_train(algo.raw_env, algo.config.__class__(**{**algo.config.__dict__, "bc_weight": 0.0}))
  b = jax.jit(algo.sample)(ts.demos, jax.random.PRNGKey(2), ts.demos)  # every row an expert's action
  p, tgt, norm = ts.params, ts.target, ts.obs_norm
  g_bc, info = jax.jit(algo.grads)(p, tgt, norm, b)
  g_0, info0 = jax.jit(plain.grads)(p, tgt, norm, b)
  assert "loss/bc" in info and "loss/bc" not in info0
  # By hand: the demo rows whose action the critic rates above the actor's, their squared action error
  # summed over the action, averaged over the demo rows, times bc_weight.
  feats = algo._feats(norm, b["obs"], b["goal"])
  q = lambda a: algo.critic.apply(p["critic"], feats, a)
  keep = b["demo"] * (q(b["action"]) > q(algo.actor.apply(p["actor"], feats)))
  assert 0 < float(jnp.sum(keep)) < DEMO_BATCH  # the filter passes some rows and stops others

  def bc(ap):
    err = jnp.sum((algo.actor.apply(ap, feats) - b["action"]) ** 2, -1)
    return algo.config.bc_weight * jnp.sum(keep * err) / DEMO_BATCH

  expected = jax.tree.map(jnp.add, g_0["actor"], jax.grad(bc)(p["actor"]))
  chex.assert_trees_all_close(g_bc["actor"], expected, rtol=1e-3, atol=1e-5)
  chex.assert_trees_all_close(g_bc["critic"], g_0["critic"])  # the critic's loss is untouched
  np.testing.assert_allclose(float(info["demo/q_filter_pass"]), float(jnp.sum(keep)) / DEMO_BATCH, rtol=1e-6)
  # A batch with no demo rows clones nothing.
  no_demo = {**b, "demo": jnp.zeros_like(b["demo"])}
  chex.assert_trees_all_close(
    jax.jit(algo.grads)(p, tgt, norm, no_demo)[0], jax.jit(plain.grads)(p, tgt, norm, no_demo)[0]
  )
  # And training with it runs: three cycles, the metrics logged.
  _, m = jax.jit(lambda t: algo.train_many(t, 3))(ts)
  assert 0.0 <= float(m["demo/q_filter_pass"]) <= 1.0 and np.isfinite(float(m["loss/bc"]))


def test_sac_clones_its_mean_action_where_the_twin_minimum_prefers_the_demo(reach):
  env, algo, ts = reach
  fields = {k: v for k, v in algo.config.__dict__.items() if k in sac.SACConfig.__dataclass_fields__}
  cfg = sac.SACConfig(**{**fields, "random_eps": 0.0})
  cloning = sac.make_train(env, cfg)
  plain = sac.make_train(env, sac.SACConfig(**{**fields, "random_eps": 0.0, "bc_weight": 0.0}))
  st = jax.jit(cloning.init)(jax.random.PRNGKey(3))
  b = jax.jit(cloning.sample)(st.demos, jax.random.PRNGKey(4), st.demos)
  p, tgt, norm = st.params, st.target, st.obs_norm
  # The critic's gradient must not see the cloning term: compared at 1e-6, under the users' emitters.
  g_bc, info = jax.jit(cloning.grads, compiler_options=USERS_EMITTERS)(p, tgt, norm, b)
  g_0, info0 = jax.jit(plain.grads, compiler_options=USERS_EMITTERS)(p, tgt, norm, b)
  assert "loss/bc" in info and "loss/bc" not in info0
  feats = cloning._feats(norm, b["obs"], b["goal"])
  q_min = lambda a: jnp.min(cloning.critic.apply(p["critic"], feats, a), 0)
  a_pi, _ = sac.squash(cloning.actor.apply(p["actor"], feats), b["noise"])
  keep = b["demo"] * (q_min(b["action"]) > q_min(a_pi))
  assert 0 < float(jnp.sum(keep)) < DEMO_BATCH

  def bc(ap):
    err = jnp.sum((jnp.tanh(cloning.actor.apply(ap, feats).mean) - b["action"]) ** 2, -1)
    return cfg.bc_weight * jnp.sum(keep * err) / DEMO_BATCH

  expected = jax.tree.map(jnp.add, g_0["actor"], jax.grad(bc)(p["actor"]))
  chex.assert_trees_all_close(g_bc["actor"], expected, rtol=1e-3, atol=1e-5)
  chex.assert_trees_all_close((g_bc["critic"], g_bc["log_alpha"]), (g_0["critic"], g_0["log_alpha"]))
  np.testing.assert_allclose(float(info["demo/q_filter_pass"]), float(jnp.sum(keep)) / DEMO_BATCH, rtol=1e-6)


def test_cloning_on_original_goals_skips_the_relabelled_demo_rows(reach):
  _, algo, ts = reach
  cfg = algo.config.__class__(**{**algo.config.__dict__, "bc_original_goals": True})
  only = make_train(algo.raw_env, cfg)
  b = jax.jit(algo.sample)(ts.demos, jax.random.PRNGKey(2), ts.demos)
  relabelled = np.asarray(b["relabelled"])
  assert set(np.unique(relabelled)) == {0.0, 1.0}  # HER's future_p 0.8: both kinds in the batch
  p, tgt, norm = ts.params, ts.target, ts.obs_norm
  _, info_all = jax.jit(algo.grads)(p, tgt, norm, b)
  _, info_orig = jax.jit(only.grads)(p, tgt, norm, b)
  # The same Q filter on fewer rows, over the same count of demo rows.
  feats = algo._feats(norm, b["obs"], b["goal"])
  q = lambda a: algo.critic.apply(p["critic"], feats, a)
  passes = np.asarray(b["demo"] * (q(b["action"]) > q(algo.actor.apply(p["actor"], feats))))
  np.testing.assert_allclose(float(info_all["demo/q_filter_pass"]), passes.sum() / DEMO_BATCH, rtol=1e-6)
  expected = (passes * (1 - relabelled)).sum() / DEMO_BATCH
  np.testing.assert_allclose(float(info_orig["demo/q_filter_pass"]), expected, rtol=1e-6)
  assert float(info_orig["demo/q_filter_pass"]) < float(info_all["demo/q_filter_pass"])


def test_the_cloning_weight_holds_then_halves(reach):
  _, algo, ts = reach
  cfg = algo.config.__class__(**{**algo.config.__dict__, "bc_until": 1000, "bc_half_life": 250})
  assert [float(cfg.bc_scale(t)) for t in (0, 1000, 1250, 1500, 3500)] == [1.0, 1.0, 0.5, 0.25, 2.0**-10]
  at_once = algo.config.__class__(**{**algo.config.__dict__, "bc_until": 1000})
  assert [float(at_once.bc_scale(t)) for t in (1000, 1001)] == [1.0, 0.0]
  assert float(algo.config.bc_scale(10**9)) == 1.0  # no schedule: the weight throughout
  scheduled = make_train(algo.raw_env, cfg)
  plain = make_train(algo.raw_env, algo.config.__class__(**{**algo.config.__dict__, "bc_weight": 0.0}))
  b = jax.jit(algo.sample)(ts.demos, jax.random.PRNGKey(2), ts.demos)
  p, tgt, norm = ts.params, ts.target, ts.obs_norm
  grads = jax.jit(scheduled.grads)
  g_full, g_half, g_none = (grads(p, tgt, norm, b, jnp.int32(t))[0]["actor"] for t in (500, 1250, 10**7))
  g_0 = jax.jit(plain.grads)(p, tgt, norm, b)[0]["actor"]
  chex.assert_trees_all_close(g_none, g_0, atol=1e-6)
  halfway = jax.tree.map(lambda f, z: z + 0.5 * (f - z), g_full, g_0)
  chex.assert_trees_all_close(g_half, halfway, rtol=1e-4, atol=1e-6)
  # In training the cycle's env steps drive it: 2 envs x 50 steps a cycle, so cycle 15 is at 1,500.
  late = ts.replace(updates=jnp.int32(14))
  _, m = jax.jit(lambda t: scheduled.train_many(t, 1))(late)
  assert float(m["demo/bc_scale"]) == 0.25


def test_only_successful_demos_are_drawn_when_asked(reach):
  _, algo, ts = reach
  buf = jax.device_get(ts.demos)
  success = jnp.array([False, True, False, True, True, False])
  kept = ddpg.kept_first(ts.demos, success)
  assert int(kept.size) == 3
  actions = np.asarray(buf.data["action"])
  np.testing.assert_array_equal(np.asarray(kept.data["action"])[:3], actions[np.array([1, 3, 4])])
  # Draws come from the first `size` segments only: each sampled demo row's action is one of theirs.
  rows = jax.jit(algo.sample)(kept, jax.random.PRNGKey(5), kept)
  drawn = np.asarray(rows["action"])
  kept_rows = actions[np.array([1, 3, 4])].reshape(-1, actions.shape[-1])
  other_rows = actions[np.array([0, 2, 5])].reshape(-1, actions.shape[-1])
  near = lambda a, pool: np.min(np.abs(pool - a).max(-1))
  assert all(near(a, kept_rows) == 0 for a in drawn)
  assert any(near(a, other_rows) > 0 for a in drawn)
  none = ddpg.kept_first(ts.demos, jnp.zeros(6, bool))
  assert int(none.size) == 1  # a row to sample, never an empty draw
  # In the learner: FetchReach's expert succeeds, so all its episodes stay.
  cfg = algo.config.__class__(**{**algo.config.__dict__, "demo_successes_only": True})
  demos = jax.jit(make_train(algo.raw_env, cfg).collect_demos)(jax.random.PRNGKey(0))
  assert int(demos.size) == DEMOS


def test_a_checkpoint_without_buffers_recollects_the_demos(reach):
  _, algo, ts = reach
  small = make_train(
    algo.raw_env, algo.config.__class__(**{**algo.config.__dict__, "checkpoint_buffer": False})
  )
  view = small.checkpoint_view(ts)
  assert view.buffer is None and view.demos is None
  whole = small.from_checkpoint(view)
  assert int(whole.demos.size) == DEMOS
  assert np.all(np.isfinite(np.asarray(whole.demos.data["action"])))


def test_bad_demo_settings_are_refused():
  with pytest.raises(ValueError, match="go together"):
    DDPGConfig(demo_episodes=10)
  with pytest.raises(ValueError, match="must be below batch_size"):
    DDPGConfig(demo_episodes=10, demo_batch_size=256, batch_size=256)
  with pytest.raises(ValueError, match="clones demonstrations"):
    DDPGConfig(bc_weight=1.0)
  with pytest.raises(ValueError, match="MT-SAC has no behaviour cloning"):
    MTSACConfig(demo_episodes=10, demo_batch_size=8, bc_weight=1.0)
  with pytest.raises(ValueError, match="bc_half_life needs bc_until"):
    DDPGConfig(demo_episodes=10, demo_batch_size=8, bc_weight=1.0, bc_half_life=100)
  with pytest.raises(ValueError, match="env steps >= 0"):
    DDPGConfig(demo_episodes=10, demo_batch_size=8, bc_weight=1.0, bc_until=-1)
  with pytest.raises(ValueError, match="HandManipulateEnv has no scripted expert"):
    make_train(
      mjx_envs.make("HandManipulateBlockRotateZ"), DDPGConfig(num_envs=2, demo_episodes=2, demo_batch_size=8)
    )
  cfg = experiment.resolve(train.load_config("ddpg_her_fetch_reach"))
  with pytest.raises(ValueError, match="agent.demo_episodes must be >= 0"):
    experiment.set_dotted(cfg, "agent.demo_episodes=-1")


def test_demo_goal_kinds_keep_only_those_goals():
  """HandReach's expert episodes filtered to the thumb-ring meetings: the drawn ones all have a ring
  goal (and the kind of a goal is the finger sent to meet the thumb)."""
  env = mjx_envs.make("HandReach")
  hand = env.unwrapped
  goals = jax.vmap(hand.sample_goal)(jax.random.split(jax.random.PRNGKey(3), 400))
  kinds = np.asarray(hand.goal_kind(goals))
  assert set(kinds.tolist()) == set(range(5))
  initial = np.asarray(hand.initial_goal, np.float32).reshape(5, 3)
  moved = np.linalg.norm(np.asarray(goals).reshape(-1, 5, 3) - initial, axis=-1) > 1e-3
  np.testing.assert_array_equal(moved[kinds == 0].any(-1), False)
  for k in range(1, 5):  # the thumb and finger k-1 only
    assert np.all(moved[kinds == k][:, [k - 1, 4]]) and not np.any(
      np.delete(moved[kinds == k], [k - 1, 4], 1)
    )
  cfg = DDPGConfig(
    num_envs=2, unroll_length=50, buffer_size=1000, batch_size=BATCH, hidden=(8,),
    demo_episodes=16, demo_batch_size=DEMO_BATCH, demo_goal_kinds=("ring",),
  )  # fmt: skip
  demos = jax.jit(make_train(env, cfg).collect_demos)(jax.random.PRNGKey(0))
  n = int(demos.size)
  all_kinds = np.asarray(hand.goal_kind(demos.data["goal"][:, 0]))
  assert 0 < n < 16 and n == int(np.sum(all_kinds == 3))
  np.testing.assert_array_equal(all_kinds[:n], 3)
  with pytest.raises(ValueError, match=r"unknown goal kind\(s\) \['thumb'\]"):
    make_train(env, DDPGConfig(demo_episodes=4, demo_batch_size=8, demo_goal_kinds=("thumb",)))
  with pytest.raises(ValueError, match="GOAL_KINDS"):
    make_train(
      mjx_envs.make("FetchReach"), DDPGConfig(demo_episodes=4, demo_batch_size=8, demo_goal_kinds=("ring",))
    )


def test_a_resume_with_other_demo_settings_collects_them_afresh(reach, tmp_path):
  """train.py --resume with a changed demo setting (agent.demo_fields): the checkpoint is read in the shapes
  it was saved in and the demonstrations collected for the new config; other changes keep the saved demos."""
  from agents.common import sharding
  from agents.common.checkpoint import Checkpointer

  env, algo, ts = reach
  ckpt = Checkpointer(str(tmp_path))
  ckpt.save(1, algo.checkpoint_view(ts), {"env_steps": 0})
  old_cfg = {"agent": {"demo_episodes": DEMOS, "bc_weight": 100.0}}
  assert train.demos_changed(algo, old_cfg, {"agent": {"demo_episodes": DEMOS, "bc_weight": 0.0}}) == []
  new_cfg = {"agent": {"demo_episodes": 4, "bc_weight": 100.0}}
  assert train.demos_changed(algo, old_cfg, new_cfg) == ["agent.demo_episodes"]
  # A key that an older run's config.json lacks counts as its default.
  assert train.demos_changed(algo, old_cfg, {"agent": {**old_cfg["agent"], "demo_goal_kinds": []}}) == []
  fewer = make_train(env, algo.config.__class__(**{**algo.config.__dict__, "demo_episodes": 4}))
  mesh = sharding.data_mesh(algo.config.num_envs, jax.devices()[:1])
  restored, _ = train.restore(fewer, ckpt, mesh, seed=0, saved_by=algo)
  assert int(restored.demos.size) == 4 and restored.demos.data["action"].shape[0] == 4
  chex.assert_trees_all_equal(restored.params, ts.params)
  np.testing.assert_array_equal(np.asarray(restored.buffer.data["obs"]), np.asarray(ts.buffer.data["obs"]))
  same, _ = train.restore(algo, ckpt, mesh, seed=0)
  np.testing.assert_array_equal(np.asarray(same.demos.data["action"]), np.asarray(ts.demos.data["action"]))
  ckpt.close()
