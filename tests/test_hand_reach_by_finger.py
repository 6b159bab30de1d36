"""benchmarks/hand_reach_by_finger.py: every goal gets exactly one kind, in the proportions of the
reference's goal sampling (the initial tips 10% of the time, else one of the four fingers at random), and
each kind's mean squared action is the policy's."""

import mjx_envs
from mjx_envs.hand import reach

import jax.numpy as jnp
import numpy as np

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


def test_curriculum_goals_replay_as_the_script_recorded_them():
  """`path_goal_probs`' table (mjx_envs/hand/reach_paths.npz): an oracle that holds each goal's recorded
  constant action a0 + alpha (a* - a0) in the env's own episodes (`by_path`, C backend) lands the thumb
  and the ring finger on the table's tips, so it succeeds exactly where the script measured the other
  three tips within 1 cm of their initial positions (`path_errors`: the servos sag under a0, up to 23 mm
  at alpha 0.1, within 1 cm from alpha 0.7; a trained policy holds them and meets every goal up to alpha
  0.8). A policy that holds a0 meets none past alpha 0.3: the goals lead away from the initial pose."""
  env = mjx_envs.make("HandReach", impl="c").unwrapped
  paths = reach.load_paths()
  tips, alphas, actions, a0, path_errors = (
    paths[k] for k in ("tips", "alphas", "actions", "a0", "path_errors")
  )
  tips, actions, path_errors = tips[2], actions[2], path_errors[2]
  keys = tips.reshape(-1, 6)  # [poses * alphas, partner and thumb tips]
  ctrl = (a0 + alphas[None, :, None] * (actions[:, None] - a0)).reshape(-1, 20)
  action = jnp.asarray((ctrl - env._ctrl_centre) / env._ctrl_half)  # pylint: disable=protected-access

  def oracle(obs, key):
    pair = obs["desired_goal"].reshape(-1, 5, 3)[:, [2, 4]].reshape(-1, 6)
    return action[jnp.argmin(jnp.abs(pair[:, None] - keys[None]).max(-1), axis=1)]

  out = B.by_path(oracle, "ring", reps=1)
  assert out["alpha"] == [float(a) for a in alphas] and out["goals"] == tips.shape[0]
  expected = (path_errors < 0.01).mean(0)  # [alphas]
  assert expected[-1] == 1.0 and expected[0] == 0.0, expected  # the table as recorded
  np.testing.assert_allclose(out["success"], expected)
  hold = jnp.asarray((a0 - env._ctrl_centre) / env._ctrl_half)  # pylint: disable=protected-access
  still = B.by_path(
    lambda obs, key: jnp.broadcast_to(hold, (obs["desired_goal"].shape[0], 20)), "ring", reps=1
  )
  assert max(still["success"][3:]) == 0.0, still
