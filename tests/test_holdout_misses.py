"""benchmarks/holdout_misses.py sorts Bob's missed holdout goals by what was wrong at the end."""

import numpy as np
import pytest

from benchmarks import holdout_misses as hm


def test_misses_sorted_by_the_final_state_and_solved_episodes_left_out():
  # Episodes: solved; untouched; position missed; rotation missed; both missed; both missed (ever placed).
  solved = [True, False, False, False, False, False]
  pos_end = [0.01, 0.30, 0.10, 0.02, 0.20, 0.05]
  rot_end = [0.05, 0.50, 0.10, 0.40, 0.60, 0.30]
  moved = [0.20, 0.005, 0.15, 0.25, 0.10, 0.30]
  ever = [True, False, False, True, False, True]
  ep = dict(solved=solved, pos_end=pos_end, rot_end=rot_end, moved=moved, ever_pos_ok=ever)
  out = hm.sort_misses(ep, 0.04, 0.2)
  assert out["episodes"] == 6 and out["misses"] == 5 and out["success"] == pytest.approx(1 / 6)
  assert [out[f"miss_{k}"] for k in hm.KINDS] == pytest.approx([0.2, 0.2, 0.2, 0.4])
  assert out["miss_ever_within_position"] == pytest.approx(0.4)
  assert out["miss_median_position_error_m"] == pytest.approx(0.10)
  assert out["miss_median_rotation_error_deg"] == pytest.approx(np.degrees(0.40))
  assert "median_start_distance_m" not in out
  control = dict(
    pos_start=[0.10, 0.12, 0.30, 0.20, 0.15, 0.11],
    end_to_other=[0.2, 0.1, 0.3, 0.4, 0.5, 0.6],
    end_at_other=[False, True, False, False, False, False],
  )
  out = hm.sort_misses({**ep, **control}, 0.04, 0.2)
  assert out["median_start_distance_m"] == pytest.approx(0.135)
  assert out["miss_median_start_distance_m"] == pytest.approx(0.15)
  assert out["median_end_distance_to_goal_m"] == pytest.approx(0.075)
  assert out["median_end_distance_to_another_goal_m"] == pytest.approx(0.35)
  assert out["end_at_another_goal"] == pytest.approx(1 / 6)


def test_no_misses_gives_zero_shares():
  ep = dict(
    solved=[True, True], pos_end=[0.0, 0.0], rot_end=[0.0, 0.0], moved=[0.1, 0.1], ever_pos_ok=[True] * 2
  )
  out = hm.sort_misses(ep, 0.04, 0.2)
  assert out["success"] == 1.0 and out["misses"] == 0
  assert all(out[f"miss_{k}"] == 0.0 for k in hm.KINDS)


def test_bad_run_directory_is_refused(tmp_path):
  with pytest.raises(SystemExit, match="error"):
    hm.main([str(tmp_path / "nothing")])
