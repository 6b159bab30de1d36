"""benchmarks/hns_training.py compare: runs side by side at equal world steps, the phase timing and the
pool arm's record against past versions (no training: run directories written by hand)."""

import json

import pytest

from benchmarks import hns_training


def _run(path, seekers, past=None):
  path.mkdir(parents=True)
  rows = []
  for i, s in enumerate(seekers):
    row = {
      "env_steps": 100 * (i + 1),
      "wall_s": 60.0 * (i + 1),
      "train/seeker_return": s,
      "train/hider_return": -s,
      "eval/hidden_fraction": 0.5,
      "train/max_box_move_prep": 0.1 * i,
      "train/num_box_lock_prep": 0.0,
    }
    if past is not None:
      row.update({"train/past_episodes": past[i][0], "train/past_wins": past[i][1]})
    rows.append(row)
  (path / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
  return str(path)


def test_compare_times_the_seekers_phase_and_aligns_rows(tmp_path):
  slow = _run(tmp_path / "a", [-34, -34, -30, -26, -20, -14])
  fast = _run(tmp_path / "b", [-34, -10, -10, -10], past=[(4, 1), (4, 3), (2, 2), (0, 0)])
  out = tmp_path / "cmp.json"
  res = hns_training.compare({"nopool": slow, "pool": fast}, every=200, window=2, out=str(out))
  # Two-evaluation trailing means: slow -34, -34, -32, -28, -23, -17; fast -34, -22, -10, -10.
  assert res["nopool"]["timing"] == {
    "seekers_reach_-25": 500,
    "seekers_reach_-20": 600,
    "seekers_reach_-15": None,
  }
  assert res["pool"]["timing"] == {
    "seekers_reach_-25": 200,
    "seekers_reach_-20": 300,
    "seekers_reach_-15": 300,
  }
  assert [r["world_steps"] for r in res["nopool"]["rows"]] == [200, 400, 600]
  assert [r["world_steps"] for r in res["pool"]["rows"]] == [200, 400]
  assert res["nopool"]["rows"][1]["train/seeker_return"] == pytest.approx(-28.0)
  assert res["pool"]["rows"][0]["train/hider_return"] == pytest.approx(22.0)
  assert res["pool"]["past_win_rate"] == pytest.approx(0.6) and res["pool"]["past_episodes"] == 10
  assert "past_win_rate" not in res["nopool"]
  # Fast: means -34, -22, -10, -10 never fall; slow: a climb with no fall either. A swing below:
  assert res["pool"]["hider_recovery"]["hiders_rise"] == 0.0
  swing = _run(tmp_path / "c", [-34, -10, -10, -20, -30, -12])  # means -34, -22, -10, -15, -25, -21
  rec = hns_training.compare({"swing": swing}, every=200, window=2)["swing"]["hider_recovery"]
  assert rec["seekers_peak"] == -10 and rec["peak_at"] == 300
  assert rec["seekers_trough"] == -25 and rec["trough_at"] == 500 and rec["hiders_rise"] == 15
  assert rec["spread"] == 7.07  # sd of (-20, -30) at the trough, rounded; (-10, -10) at the peak: 0
  assert json.loads(out.read_text())["runs"]["pool"]["timing"] == res["pool"]["timing"]


def test_compare_refuses_arguments_without_a_name(tmp_path):
  with pytest.raises(SystemExit):
    hns_training.main(["compare", str(tmp_path)])
