"""HER relabeling on hand-built trajectories, and the circular segment buffer."""

import mjx_envs

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents.common import relabel, replay

L = 10


def _segments():
  """Three segments of 10 steps. next_ag[b, t] = (b, t, 0) marks where a goal came from.

  row 0: one episode truncated at step 9 (the segment's end).
  row 1: an episode terminated at step 3, a second one truncated at step 6, then a third that runs
         off the segment's edge.
  row 2: valid only for steps 0-6 (the buffer holds no more), with a done at step 4.
  """
  B = 3
  next_ag = jnp.stack(
    jnp.meshgrid(jnp.arange(B), jnp.arange(L), indexing="ij") + [jnp.zeros((B, L))], -1
  ).astype(jnp.float32)
  done = jnp.zeros((B, L)).at[0, 9].set(1).at[1, 3].set(1).at[1, 6].set(1).at[2, 4].set(1)
  valid = jnp.ones((B, L)).at[2, 7:].set(0)
  return next_ag, done, valid


def _episode_range(b, t):
  """(start, end) of the episode holding step t of row b in `_segments`, by hand."""
  table = {0: [(0, 9)], 1: [(0, 3), (4, 6), (7, 9)], 2: [(0, 4), (5, 6)]}
  for s, e in table[b]:
    if s <= t <= e:
      return s, e
  raise AssertionError


def test_episode_ids():
  _, done, valid = _segments()
  ids = np.asarray(relabel.episode_ids(done, valid))
  np.testing.assert_array_equal(ids[1], [0, 0, 0, 0, 1, 1, 1, 2, 2, 2])
  np.testing.assert_array_equal(ids[2], [0, 0, 0, 0, 0, 1, 1, -1, -1, -1])


@pytest.mark.parametrize("strategy", ["future", "final", "episode"])
def test_goals_come_from_the_same_episode(strategy):
  next_ag, done, valid = _segments()
  n = 4000
  rows = jnp.arange(n) % 3
  t = jax.random.randint(jax.random.PRNGKey(0), (n,), 0, 7)  # valid in every row
  batch_ag = next_ag[rows]
  goal, flag = relabel.relabel(
    jax.random.PRNGKey(1), batch_ag, done[rows], valid[rows], t, jnp.full((n, 3), -1.0), strategy, p=1.0
  )
  assert bool(jnp.all(flag))
  goal, rows, t = np.asarray(goal), np.asarray(rows), np.asarray(t)
  np.testing.assert_array_equal(goal[:, 0], rows)  # never another segment
  seen = set()
  for b, tt, g in zip(rows, t, goal[:, 1].astype(int)):
    s, e = _episode_range(b, tt)
    if strategy == "future":
      assert tt <= g <= e, (b, tt, g)
    elif strategy == "final":
      assert g == e, (b, tt, g)
    else:
      assert s <= g <= e, (b, tt, g)
    seen.add((b, tt, g))
  if strategy == "future":  # every later step of the episode is reachable, not just some
    for b in range(3):
      for tt in range(7):
        s, e = _episode_range(b, tt)
        assert {g for bb, t2, g in seen if bb == b and t2 == tt} == set(range(tt, e + 1))


def test_relabel_fraction_matches_future_p():
  next_ag, done, valid = _segments()
  n = 20000
  p = relabel.future_p(4)
  assert p == pytest.approx(0.8)
  rows = jnp.zeros((n,), jnp.int32)
  t = jnp.zeros((n,), jnp.int32)
  orig = jnp.full((n, 3), -1.0)
  goal, flag = relabel.relabel(
    jax.random.PRNGKey(2), next_ag[rows], done[rows], valid[rows], t, orig, "future", p
  )
  frac = float(jnp.mean(flag))
  assert abs(frac - p) < 4 * np.sqrt(p * (1 - p) / n), frac
  # Rows not relabelled keep their goal exactly.
  np.testing.assert_array_equal(np.asarray(goal)[~np.asarray(flag)], -1.0)


def test_random_and_none_strategies():
  next_ag, done, valid = _segments()
  n = 2000
  t = jnp.zeros((n,), jnp.int32)
  rows = jnp.arange(n) % 3
  goal, _ = relabel.relabel(
    jax.random.PRNGKey(3), next_ag[rows], done[rows], valid[rows], t, jnp.zeros((n, 3)), "random", 1.0
  )
  g = np.asarray(goal)
  # 'random' draws any valid step of any row, never an invalid one.
  assert len(set(g[:, 0])) == 3 and not np.any((g[:, 0] == 2) & (g[:, 1] >= 7))
  goal, flag = relabel.relabel(
    jax.random.PRNGKey(3), next_ag[rows], done[rows], valid[rows], t, jnp.zeros((n, 3)), "none", 1.0
  )
  assert not bool(flag.any()) and float(jnp.abs(goal).max()) == 0.0
  with pytest.raises(ValueError, match="unknown HER strategy 'nope'"):
    relabel.relabel(jax.random.PRNGKey(3), next_ag, done, valid, t[:3], jnp.zeros((3, 3)), "nope", 1.0)


def test_recomputed_rewards_use_the_env_reward():
  env = mjx_envs.make("FetchPush")
  ag = jnp.array([[1.0, 1.0, 0.5], [1.0, 1.0, 0.5]])
  goal = jnp.array([[1.0, 1.03, 0.5], [1.0, 1.2, 0.5]])
  np.testing.assert_array_equal(env.compute_reward(ag, goal, {}), [0.0, -1.0])
  dense = mjx_envs.make("FetchPush", reward_type="dense")
  np.testing.assert_allclose(dense.compute_reward(ag, goal, {}), [-0.03, -0.2], rtol=1e-5)


def test_buffer_wraps_and_keeps_segments_whole():
  seg = {"x": jax.ShapeDtypeStruct((L, 2), jnp.float32)}
  buf = replay.init(seg, capacity=4 * L)  # 4 segments
  assert buf.num_segments == 4
  add = jax.jit(replay.add)
  for i in range(6):  # 12 segments through a buffer of 4: wraps three times
    data = {
      "x": jnp.full((2, L, 2), float(i * 2))
      + jnp.arange(2.0)[:, None, None]
      + jnp.arange(L, dtype=jnp.float32)[None, :, None] / 100
    }
    buf = add(buf, data)
  assert int(buf.size) == 4 and int(buf.insert) == 0
  # The four newest segments (ids 8..11), each still in order within itself.
  ids = sorted(float(x) for x in buf.data["x"][:, 0, 0])
  assert ids == [8.0, 9.0, 10.0, 11.0]
  chex.assert_trees_all_close(
    buf.data["x"][:, :, 0] - buf.data["x"][:, :1, 0],
    jnp.broadcast_to(jnp.arange(L) / 100.0, (4, L)),
    atol=1e-6,
  )
  slots = replay.sample_slots(buf, jax.random.PRNGKey(0), 1000)
  assert set(np.asarray(slots).tolist()) == {0, 1, 2, 3}
  # A half-full buffer only samples filled slots.
  small = add(replay.init(seg, 4 * L), data)
  assert set(np.asarray(replay.sample_slots(small, jax.random.PRNGKey(0), 500)).tolist()) == {0, 1}
  with pytest.raises(ValueError, match="raise the buffer size"):
    replay.add(replay.init(seg, 4 * L), {"x": jnp.zeros((5, L, 2))})
