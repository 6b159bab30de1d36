"""A short CPU self-play run through train.py: Alice's valid-goal rate rises, Bob solves some of her
goals, Bob gets ABC demonstrations from the goals he failed, every game metric is logged, and the
holdout evaluation runs."""

import json

import numpy as np
import pytest

import train
from agents import experiment


@pytest.mark.slow  # a training run (the default tier must fit in 30 minutes)
def test_short_selfplay_run_alice_learns_to_set_valid_goals_and_bob_solves_some(tmp_path):
  cfg = experiment.resolve(train.load_config("asp_blocks_cpu"))
  # The 32-slot shape this test was sized for (the config's 128 slots would make it one chunk).
  cfg = experiment.set_dotted(
    cfg, "agent.total_env_steps=240000", "agent.num_envs=32", "agent.num_minibatches=4"
  )
  ts, row = train.run(cfg, "asp", str(tmp_path), progress=False)
  rows = [json.loads(l) for l in open(tmp_path / "metrics.jsonl")]
  assert len(rows) == 5 and rows[-1]["env_steps"] == 240000
  for key in (
    "alice/valid_goal_rate",
    "alice/out_of_zone_rate",
    "bob/success_goal_1",
    "bob/success_goal_2",
    "abc/demos",
    "loss/abc",
    "abc/clip_frac",
    "loss/bob_clip_frac",
    "alice/goal_distance",
    "holdout/push-1",
    "eval/success_rate",
    "opponents/past_bob_frac",
  ):
    assert key in row, key
  valid = [r["alice/valid_goal_rate"] for r in rows]
  assert np.mean(valid[-2:]) > np.mean(valid[:2]) + 0.15, valid
  bob = [r["bob/success_rate"] for r in rows]
  assert sum(b > 0 for b in bob) >= 2, bob
  # Finished games are replaced at once: more games end per chunk than its 10 updates x 32 slots.
  assert all(r["train/episodes"] > 10 * 32 for r in rows), [r["train/episodes"] for r in rows]
  assert all(r["abc/demos"] > 0 for r in rows)
  assert all(r["loss/abc"] < 0 for r in rows)  # -E[clipped ratio] over real demonstrations
  assert int(ts.pool["bob"].count) > 1  # snapshots were taken into the opponent pool
  assert all(r["pool/bob/size"] >= 1 and np.isfinite(r["pool/alice/q_min"]) for r in rows)
  assert (tmp_path / "selfplay.png").stat().st_size > 10_000  # the self-play figure beside the curve
  assert all(0 < r["abc/demo_frac"] <= 1 for r in rows)
  # Behaviour and loss use the same observation statistics: before each update's first gradient step
  # every PPO ratio is 1 (float noise aside; a batch's fresh statistics put it far off before 2026-11-23).
  for r in rows:
    assert r["loss/alice_ratio_dev_first"] < 1e-4 and r["loss/bob_ratio_dev_first"] < 1e-4, r
