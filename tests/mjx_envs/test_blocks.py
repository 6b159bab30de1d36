"""The block world in MJX: shapes, determinism, physics sanity, rewards, and the scripted-success bars."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mjx_envs
from mjx_envs import scripted
from mjx_envs.blocks import goals as G
from mjx_envs.blocks import goal_features, scripted_controller
from mjx_envs.blocks.scene import BLOCK_HALF, MAX_OBJECTS, TABLE_Z


@pytest.fixture(scope="module")
def env():
  return mjx_envs.make("BlocksPush", num_objects=2)


@pytest.fixture(scope="module")
def fns(env):
  return jax.jit(jax.vmap(env.reset)), jax.jit(jax.vmap(env.step))


@pytest.fixture(scope="module")
def batch(fns):
  return fns[0](jax.random.split(jax.random.PRNGKey(0), 16))


def test_shapes_and_dtypes(env, batch):
  obs = batch.obs
  assert obs["robot"].shape == (16, 17) and obs["objects"].shape == (16, MAX_OBJECTS, 17)
  assert obs["observation"].shape == (16, 17 + MAX_OBJECTS * 17)
  assert obs["achieved_goal"].shape == obs["desired_goal"].shape == (16, MAX_OBJECTS, 7)
  for v in obs.values():
    assert v.dtype == jnp.float32
  np.testing.assert_array_equal(obs["object_mask"][0], [1, 1, 0, 0, 0, 0, 0, 0])
  assert np.all(np.asarray(obs["objects"][:, 2:]) == 0.0)  # padding rows are zero
  assert batch.reward.shape == batch.done.shape == (16,)
  assert env.action_size == 6
  assert env.observation_size["objects"] == (MAX_OBJECTS, 17)
  assert goal_features(jax.tree.map(lambda x: x[0], obs)).shape == (MAX_OBJECTS, 14)
  assert goal_features(obs).shape == (16, MAX_OBJECTS, 14)


def test_different_keys_give_different_in_bounds_starts(batch):
  ag = np.asarray(batch.obs["achieved_goal"][:, :2])
  dg = np.asarray(batch.obs["desired_goal"][:, :2])
  low, high = G.placement_area(1.0)
  assert np.all(ag[..., :2] >= low) and np.all(ag[..., :2] <= high)
  np.testing.assert_allclose(ag[..., 2], TABLE_Z + BLOCK_HALF, atol=2e-3)
  assert len({tuple(np.round(x.ravel(), 4)) for x in ag}) == 16
  assert len({tuple(np.round(x.ravel(), 4)) for x in dg}) == 16
  gap = np.linalg.norm(ag[:, 0, :2] - ag[:, 1, :2], axis=-1)
  assert gap.min() > 2 * np.sqrt(2) * BLOCK_HALF  # non-overlapping at any yaw
  tcp = np.asarray(batch.obs["robot"][:, :3])
  assert np.all(tcp[:, 2] > TABLE_Z + 0.1) and len({tuple(np.round(t, 4)) for t in tcp}) == 16


def test_blocks_left_alone_stay_put(env, fns, batch):
  state = batch
  zero = jnp.zeros((16, 6))
  for _ in range(25):
    state = fns[1](state, zero)
  before = np.asarray(batch.obs["achieved_goal"][:, :2, :3])
  after = np.asarray(state.obs["achieved_goal"][:, :2, :3])
  np.testing.assert_allclose(after, before, atol=2e-3)
  assert float(state.metrics["off_table"].max()) == 0.0
  assert float(jnp.max(jnp.abs(state.pipeline_state.qvel))) < 0.5


def test_nan_and_out_of_range_actions_are_sanitised(fns, batch):
  action = jnp.zeros((16, 6)).at[0, 2].set(jnp.nan).at[1, 0].set(7.0).at[2, 5].set(-jnp.inf)
  state = fns[1](batch, action)
  bad = np.asarray(state.metrics["bad_action"])
  np.testing.assert_array_equal(bad[:4], [1, 1, 1, 0])
  assert all(np.all(np.isfinite(np.asarray(x))) for x in jax.tree.leaves(state.pipeline_state)
             if jnp.issubdtype(x.dtype, jnp.floating))
  # The clipped 7.0 moves the gripper no further than a full +1 step (0.05 m).
  moved = state.obs["robot"][1, 0] - batch.obs["robot"][1, 0]
  assert 0.0 < float(moved) <= 0.05 + 1e-3


@pytest.fixture(scope="module")
def push1_runs():
  env = mjx_envs.make("BlocksPush")
  ctrl = scripted_controller(env)
  run = jax.jit(lambda k: scripted.rollout(env, ctrl, k, 32, 100))
  return env, run


def test_scripted_push_bar_reward_and_determinism(push1_runs):
  env, run = push1_runs
  final, trace = run(jax.random.PRNGKey(1))
  success = np.asarray(scripted.episode_success(env, trace))
  assert success.mean() >= 0.9, success.mean()
  # Bob's reward on the first success step: +1 for the block, +5 for completing the goal.
  first = np.argmax(np.asarray(trace["is_success"]), axis=0)
  rewards = np.asarray(trace["reward"])
  for ep in np.nonzero(success)[0]:
    assert rewards[first[ep], ep] == 6.0
    assert rewards[:first[ep], ep].sum() == 0.0
    assert trace["done"][first[ep], ep] == 1.0  # the episode terminates on success
  # Same key, same trajectory; another key, another one.
  final2, trace2 = run(jax.random.PRNGKey(1))
  np.testing.assert_array_equal(np.asarray(final.pipeline_state.qpos), np.asarray(final2.pipeline_state.qpos))
  final3, _ = run(jax.random.PRNGKey(2))
  assert not np.allclose(np.asarray(final.pipeline_state.qpos), np.asarray(final3.pipeline_state.qpos))


def test_scripted_pick_and_place_bar():
  env = mjx_envs.make("BlocksPickAndPlace")
  rate = scripted.success_rate(env, scripted_controller(env), jax.random.PRNGKey(3), 32, 100)
  assert rate >= 0.9, rate


def test_scripted_stack_bar():
  env = mjx_envs.make("BlocksStack", num_objects=2)
  rate = scripted.success_rate(env, scripted_controller(env), jax.random.PRNGKey(4), 32, 180)
  assert rate >= 0.7, rate


def test_binned_actions_and_goal_free_world():
  env = mjx_envs.make("Blocks", num_objects=3, action_bins=11)
  state = jax.jit(env.reset)(jax.random.PRNGKey(0))
  assert set(state.obs) == {"robot", "objects", "object_mask", "observation"}  # Alice sees no goal
  step = jax.jit(env.step)
  up = jnp.array([5, 5, 10, 5, 5, 5])  # bin 10 = +1 on z, bin 5 = 0
  after = step(state, up)
  assert float(after.reward) == 0.0 and float(after.metrics["bad_action"]) == 0.0
  dz = float(after.obs["robot"][2] - state.obs["robot"][2])
  assert 0.02 < dz <= 0.05 + 1e-3
  out_of_range = step(state, jnp.array([5, 5, 11, 5, 5, 5]))
  assert float(out_of_range.metrics["bad_action"]) == 1.0
