"""The quality-scored opponent pool (agents.league.opponent_pool): sampling frequencies, the score update on a
hand-worked example, capacity and oldest-first eviction; and self-play's game outcomes that drive it."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents.league import opponent_pool as P
from agents.selfplay import asp as selfplay


def _pool(qualities, capacity=None):
  pool = P.init({"w": jnp.zeros(())}, capacity or len(qualities))
  for i in range(1, len(qualities)):
    pool = P.add(pool, {"w": jnp.float32(i)}, i)
  return pool.replace(quality=pool.quality.at[: len(qualities)].set(jnp.asarray(qualities, jnp.float32)))


def test_sampling_frequencies_follow_exp_quality():
  q = [0.0, 1.0, -1.0, 0.5]
  pool = _pool(q, capacity=6)  # two empty slots: never drawn
  idx = np.asarray(P.sample(pool, jax.random.PRNGKey(0), (200_000,)))
  freq = np.bincount(idx, minlength=6) / idx.size
  want = np.exp(q) / np.exp(q).sum()
  np.testing.assert_allclose(freq[:4], want, atol=0.005)
  assert freq[4:].sum() == 0
  uni = np.bincount(np.asarray(P.sample(pool, jax.random.PRNGKey(1), (100_000,), uniform=True)), minlength=6)
  np.testing.assert_allclose(uni[:4] / 1e5, 0.25, atol=0.006)
  assert uni[4:].sum() == 0


def test_quality_update_hand_worked():
  # Pool of N = 2 with q = (0, ln 3): p = (1/4, 3/4). The current agent wins 2 games against slot 0 and
  # one against slot 1, loses one against slot 1 (no change): q0 -= 2 * 0.01 / (2 * 1/4) = 0.04,
  # q1 -= 0.01 / (2 * 3/4) = 0.00667.
  pool = _pool([0.0, np.log(3.0)], capacity=4)
  np.testing.assert_allclose(P.probs(pool)[:2], [0.25, 0.75], rtol=1e-6)
  out = P.update_quality(pool, jnp.array([0, 0, 1, 1]), jnp.array([1, 1, 1, 0]), eta=0.01)
  np.testing.assert_allclose(out.quality[:2], [-0.04, np.log(3.0) - 0.01 / 1.5], rtol=1e-5)
  # Games that did not use the pool pass wins 0: nothing moves.
  same = P.update_quality(pool, jnp.array([1, 0]), jnp.zeros(2))
  np.testing.assert_array_equal(same.quality, pool.quality)


def test_add_uses_max_quality_keeps_capacity_and_evicts_oldest():
  pool = _pool([0.0, -0.3, 0.2], capacity=3)  # full
  assert int(P.size(pool)) == 3
  pool = P.add(pool, {"w": jnp.float32(10.0)}, 10)
  assert int(P.size(pool)) == 3 and pool.capacity == 3
  # The oldest (slot 0, added at 0) was evicted; the newcomer gets the best score in the pool (0.2).
  np.testing.assert_allclose(pool.quality, [0.2, -0.3, 0.2])
  np.testing.assert_array_equal(pool.added_at, [10, 1, 2])
  assert float(pool.snapshots["w"][0]) == 10.0
  pool = P.add(pool, {"w": jnp.float32(11.0)}, 11)
  np.testing.assert_array_equal(pool.added_at, [10, 11, 2])  # then slot 1, the next oldest
  kept = P.add(pool, {"w": jnp.float32(12.0)}, 12, take=False)
  np.testing.assert_array_equal(kept.added_at, pool.added_at)
  assert int(kept.count) == int(pool.count)
  s = P.summary(pool)
  assert s["added_at"] == [2, 10, 11] and len(s["quality"]) == 3
  np.testing.assert_allclose(sum(s["prob"]), 1.0, rtol=1e-6)
  with pytest.raises(ValueError, match="capacity"):
    P.init({"w": jnp.zeros(())}, 0)


def test_game_outcomes():
  # One slot, 8 steps: game 1 ends at t=2 with a failed goal (Alice wins); game 2 ends at t=4 with no
  # failure (Bob wins); game 3 is cut by diverged physics at t=6 (no outcome); game 4 is still running.
  z = np.zeros((8, 1), np.float32)
  failed, over, div = z.copy(), z.copy(), z.copy()
  failed[1] = 1
  over[[2, 4, 6]] = 1
  div[6] = 1
  failed[5] = 1  # the diverged game's failure must not leak into game 4
  a, b = selfplay.game_outcomes(
    {"goal_failed": jnp.asarray(failed), "game_over": jnp.asarray(over), "diverged": jnp.asarray(div)}
  )
  np.testing.assert_array_equal(a, [1.0])
  np.testing.assert_array_equal(b, [1.0])
