"""benchmarks/her_fetch.py: a run directory's summary, and the per-config rows over seeds that make a
multi-seed comparison at equal wall-clock (no training: run directories written by hand)."""

import json

import pytest

from benchmarks import her_fetch


def _run(path, name, seed, successes, wall_per_row=60.0):
  path.mkdir(parents=True)
  cfg = {"description": name, "env": {"name": "FetchPush"}, "agent": {"algo": "ppo"}, "run": {"seed": seed}}
  (path / "config.json").write_text(json.dumps(cfg))
  rows = [
    {
      "env_steps": 1000 * (i + 1),
      "wall_s": wall_per_row * (i + 1),
      "eval/success_rate": s,
      "train/sps": 100.0,
    }
    for i, s in enumerate(successes)
  ]
  (path / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
  return str(path)


def test_rows_over_seeds_group_by_config(tmp_path):
  dirs = [
    _run(tmp_path / "a0", "ppo", 0, [0.1, 0.3]),
    _run(tmp_path / "a1", "ppo", 1, [0.5, 0.2]),
    _run(tmp_path / "b0", "ppo_her", 0, [0.0, 0.9], wall_per_row=30.0),
  ]
  summaries = [her_fetch.summarize(d) for d in dirs]
  assert [s["seed"] for s in summaries] == [0, 1, 0]
  assert summaries[2]["first_0.9"] == {"env_steps": 2000, "wall_s": 60.0}
  rows = {r["name"]: r for r in her_fetch.over_seeds(summaries)}
  assert rows["ppo"]["seeds"] == [0, 1] and rows["ppo_her"]["seeds"] == [0]
  assert rows["ppo"]["final_success"] == pytest.approx({"mean": 0.25, "min": 0.2, "max": 0.3})
  assert rows["ppo"]["best_success"] == pytest.approx({"mean": 0.4, "min": 0.3, "max": 0.5})
  assert rows["ppo_her"]["wall_s"]["mean"] == 60.0


def test_success_at_a_common_wall_clock(tmp_path):
  """--at-minutes: each run's last evaluation within that much training time; a run that stopped
  before it has none, and the row over seeds averages the runs that got there."""
  dirs = [
    _run(tmp_path / "a0", "ddpg", 1, [0.1, 0.2, 0.6, 0.9]),  # evaluations at 1, 2, 3, 4 min
    _run(tmp_path / "a1", "ddpg", 2, [0.0, 0.4, 0.5]),
    _run(tmp_path / "b0", "ppo", 0, [0.05]),  # stopped after 1 min
  ]
  summaries = [her_fetch.summarize(d, at_minutes=2.5) for d in dirs]
  assert [s["success_at_minutes"] for s in summaries] == [0.2, 0.4, None]
  assert summaries[0]["env_steps_at_minutes"] == 2000
  rows = {r["name"]: r for r in her_fetch.over_seeds(summaries)}
  assert rows["ddpg"]["success_at_minutes"] == pytest.approx({"mean": 0.3, "min": 0.2, "max": 0.4})
  assert rows["ppo"]["success_at_minutes"] is None
  assert "success_at_minutes" not in her_fetch.summarize(dirs[0])
