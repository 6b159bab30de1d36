"""Goal generators, the success test and Bob's reward, as pure functions (no physics)."""

import mjx_envs
from mjx_envs.blocks import goals as G
from mjx_envs.blocks.scene import BLOCK_HALF, TABLE_Z

import jax
import jax.numpy as jnp
import numpy as np
import pytest


def _pose(x, y, z=TABLE_Z + BLOCK_HALF, yaw=0.0):
  return jnp.concatenate([jnp.array([x, y, z]), G.yaw_quat(jnp.float32(yaw))])


def test_rotation_distance_cube_symmetry():
  q0 = G.yaw_quat(jnp.float32(0.0))
  q90 = G.yaw_quat(jnp.float32(np.pi / 2))
  q30 = G.yaw_quat(jnp.float32(np.pi / 6))
  np.testing.assert_allclose(G.rotation_distance(q0, q90, symmetric=True), 0.0, atol=1e-3)
  np.testing.assert_allclose(G.rotation_distance(q0, q90, symmetric=False), np.pi / 2, atol=1e-3)
  np.testing.assert_allclose(G.rotation_distance(q0, q30, symmetric=True), np.pi / 6, atol=1e-3)
  # A 90-degree roll about x is a cube symmetry too, but not for labelled faces.
  roll = jnp.array([np.cos(np.pi / 4), np.sin(np.pi / 4), 0, 0])
  assert G.rotation_distance(q0, roll, True) < 1e-3
  np.testing.assert_allclose(G.rotation_distance(q0, roll, False), np.pi / 2, atol=1e-3)
  # Batch shapes broadcast.
  assert G.rotation_distance(jnp.tile(q0, (5, 8, 1)), jnp.tile(q30, (5, 8, 1)), True).shape == (5, 8)


@pytest.fixture(scope="module")
def push2():
  return mjx_envs.make("BlocksPush", num_objects=2)


def test_success_thresholds_and_padding(push2):
  goal = G.pad(jnp.stack([_pose(1.4, 0.7), _pose(1.5, 0.8)]))
  near = G.pad(jnp.stack([_pose(1.4 + 0.039, 0.7), _pose(1.5, 0.8, yaw=np.pi / 2 + 0.19)]))
  far = G.pad(jnp.stack([_pose(1.4 + 0.041, 0.7), _pose(1.5, 0.8)]))
  twisted = G.pad(jnp.stack([_pose(1.4, 0.7, yaw=0.21), _pose(1.5, 0.8)]))
  assert push2.is_success(near, goal) == 1.0
  assert push2.is_success(far, goal) == 0.0
  assert push2.is_success(twisted, goal) == 0.0
  batch = jnp.stack([near, far, twisted])
  np.testing.assert_array_equal(push2.is_success(batch, jnp.broadcast_to(goal, batch.shape)), [1, 0, 0])


def test_bob_reward_table(push2):
  """+1 per object reaching its goal, -1 on leaving, +5 when the last one is placed."""
  goal = G.pad(jnp.stack([_pose(1.4, 0.7), _pose(1.5, 0.8)]))
  away = G.pad(jnp.stack([_pose(1.2, 0.7), _pose(1.2, 0.9)]))
  one = G.pad(jnp.stack([_pose(1.4, 0.7), _pose(1.2, 0.9)]))
  r = lambda prev, now: float(push2.compute_reward(now, goal, {"prev_achieved_goal": prev}))
  assert r(away, away) == 0.0
  assert r(away, one) == 1.0  # first object reaches its goal
  assert r(one, one) == 0.0  # staying there earns nothing more
  assert r(one, away) == -1.0  # leaving it again
  assert r(one, goal) == 1.0 + 5.0  # second object placed completes the goal
  assert r(away, goal) == 2.0 + 5.0
  assert r(goal, goal) == 0.0  # the bonus is paid once
  assert r(goal, one) == -1.0
  # Vectorised over any batch shape.
  prev = jnp.stack([away, one, goal])
  now = jnp.stack([one, goal, goal])
  out = push2.compute_reward(now, jnp.broadcast_to(goal, now.shape), {"prev_achieved_goal": prev})
  np.testing.assert_array_equal(out, [1.0, 6.0, 0.0])


@pytest.mark.parametrize("task,n", [("push", 3), ("flip", 2), ("pick_and_place", 2), ("stack", 3)])
def test_goal_generators(task, n):
  keys = jax.random.split(jax.random.PRNGKey(3), 64)
  low, high = G.placement_area(1.0)

  def one(key):
    k1, k2 = jax.random.split(key)
    start = G.on_table(G.sample_cells(k1, n, 1.0), G.yaw_quat(jnp.zeros(n)))
    return start, G.make_goal(k2, task, start, n, 1.0)

  start, goal = jax.vmap(one)(keys)
  start, goal = np.asarray(start), np.asarray(goal)
  # Starts: in the area, on the table, pairwise non-overlapping at any yaw.
  assert np.all(start[..., :2] >= low - 1e-6) and np.all(start[..., :2] <= high + 1e-6)
  d = np.linalg.norm(start[:, :, None, :2] - start[:, None, :, :2], axis=-1) + np.eye(n) * 9
  assert d.min() > 2 * np.sqrt(2) * BLOCK_HALF
  z = goal[..., 2] - TABLE_Z - BLOCK_HALF
  if task == "push":
    np.testing.assert_allclose(z, 0.0, atol=1e-6)
    assert np.all(goal[..., :2] >= low - 0.02) and np.all(goal[..., :2] <= high + 0.02)
  if task == "flip":
    np.testing.assert_allclose(goal[..., :3], start[..., :3])
    rot = G.rotation_distance(jnp.asarray(start[..., 3:]), jnp.asarray(goal[..., 3:]), symmetric=False)
    assert np.all(np.asarray(rot) > 0.2)  # a different face is up
  if task == "pick_and_place":
    lifted = z > 1e-3
    assert np.all(lifted.sum(1) == 1)
    assert z[lifted].min() >= 0.05 - 1e-6 and z[lifted].max() <= 0.25 + 1e-6
    np.testing.assert_allclose(goal[~lifted], start[~lifted])
  if task == "stack":
    levels = np.sort(np.round(z / (2 * BLOCK_HALF)), axis=1)
    np.testing.assert_array_equal(levels, np.tile(np.arange(n), (64, 1)))
    np.testing.assert_allclose(goal[..., :2], np.repeat(goal[:, :1, :2], n, 1), atol=1e-6)


def _random_quats(key, shape):
  """[*shape, 4] uniform random rotations."""
  q = jax.random.normal(key, shape + (4,))
  return q / jnp.linalg.norm(q, axis=-1, keepdims=True)


def _up_axis(quat):
  """[...] int 0..5 (+x, -x, +y, -y, +z, -z): the block's face closest to pointing up, from R alone."""
  up = np.asarray(G._quat_to_mat(jnp.asarray(quat)))[..., 2, :]  # world z in the block's frame
  axis = np.argmax(np.abs(up), -1)
  return 2 * axis + (np.take_along_axis(up, axis[..., None], -1)[..., 0] < 0)


def _next_goals(task, n, num=256):
  """Second holdout goals, from (a) exactly where the first goal put the blocks and (b) the first goal
  with block 0 held in the air at a random tilt: (current [2, num, n, 7], goal [2, num, n, 7])."""

  def one(key):
    k0, k1, k2, k3, k4, k5 = jax.random.split(key, 6)
    start = G.on_table(G.sample_cells(k0, n, 1.0), G.yaw_quat(jax.random.uniform(k1, (n,), maxval=6.3)))
    first = G.make_goal(k2, task, start, n, 1.0)
    held = first.at[0, 2].add(jax.random.uniform(k4, (), minval=0.01, maxval=0.2))
    held = held.at[0, 3:].set(_random_quats(k5, ()))
    cur = jnp.stack([first, held])
    return cur, jax.vmap(lambda c: G.make_goal(k3, task, c, n, 1.0))(cur)

  cur, goal = jax.jit(jax.vmap(one, out_axes=1))(jax.random.split(jax.random.PRNGKey(5), num))
  return np.asarray(cur), np.asarray(goal)


@pytest.mark.parametrize("n", [2, 3])
def test_pick_and_place_next_goal_keeps_others_on_the_table(n):
  """A block left in the air (by the previous goal, or held tilted) must come down in the next goal
  unless it is the one chosen: one gripper cannot hold two blocks up at once."""
  cur, goal = _next_goals("pick_and_place", n)
  z = goal[..., 2] - TABLE_Z - BLOCK_HALF
  lifted = z > 1e-3
  assert np.all(lifted.sum(-1) == 1), f"{np.sum(lifted.sum(-1) > 1)} of {lifted[..., 0].size} goals lift >1"
  rest = ~lifted
  np.testing.assert_allclose(z[rest], 0.0, atol=1e-6)
  np.testing.assert_allclose(goal[rest][:, :2], cur[rest][:, :2], atol=1e-6)  # straight below
  # Resting orientations: a face exactly up; the same face as now, and a resting block keeps its pose.
  up = np.asarray(G._quat_to_mat(jnp.asarray(goal[rest][:, 3:])))[:, 2, :]
  np.testing.assert_allclose(np.abs(up).max(-1), 1.0, atol=1e-5)
  np.testing.assert_array_equal(_up_axis(goal[rest][:, 3:]), _up_axis(cur[rest][:, 3:]))
  was_resting = rest & (cur[..., 2] - TABLE_Z - BLOCK_HALF < 1e-6)
  np.testing.assert_allclose(goal[was_resting], cur[was_resting], atol=1e-5)
  # Not vacuous: often a block in the air now is not the one chosen next.
  left_up = (cur[..., 2] - TABLE_Z - BLOCK_HALF > 1e-3) & ~lifted
  assert np.all(left_up.any(-1).mean(-1) > 0.3), left_up.any(-1).mean(-1)


@pytest.mark.parametrize("n", [1, 2])
def test_flip_next_goal_turns_another_face_up(n):
  """Every block's goal shows a face other than the one up now, also after a previous flip (the turn
  is relative to the current pose, not to the upright one), resting where the block is."""
  cur, goal = _next_goals("flip", n)
  same = _up_axis(goal[..., 3:]) == _up_axis(cur[..., 3:])
  assert not same.any(), f"{same.sum()} of {same.size} flip goals keep the current face up"
  np.testing.assert_allclose(goal[..., 2], TABLE_Z + BLOCK_HALF, atol=1e-6)
  np.testing.assert_allclose(goal[..., :2], cur[..., :2], atol=1e-6)
  # The five other faces are all drawn, about equally often.
  counts = np.bincount(((_up_axis(goal[..., 3:]) - _up_axis(cur[..., 3:])) % 6).ravel(), minlength=6)
  assert counts[0] == 0 and counts[1:].min() > 0.5 * counts[1:].mean(), counts
