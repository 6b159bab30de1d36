"""benchmarks/hand_reach_by_finger.py: every goal gets exactly one kind, in the proportions of the
reference's goal sampling (the initial tips 10% of the time, else one of the four fingers at random), and
each kind's mean squared action is the policy's."""

import jax.numpy as jnp

from benchmarks import hand_reach_by_finger as B


def test_kinds_partition_the_goals_in_the_samplers_proportions():
  n = 256
  out = B.by_finger(lambda obs, key: jnp.full((n, 20), 0.5), episodes=n, seed=1)
  counts = {k: out[k]["goals"] for k in ("initial", *B.KINDS)}
  assert sum(counts.values()) == n, counts
  assert 8 <= counts["initial"] <= 48, counts  # 10% of 256: 25.6, sd 4.8
  for k in B.KINDS:
    assert 35 <= counts[k] <= 85, counts  # 22.5%: 57.6, sd 6.7
  for row in out.values():
    assert row["success"] is None or 0.0 <= row["success"] <= 1.0
    assert abs(row["action_sq"] - 0.25) < 1e-6, row  # a constant 0.5 on every one of the 20 actions
