"""benchmarks/selfplay_goal_kinds.py pairs each game's first valid goal with its outcome and sorts it by kind."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import selfplay_goal_kinds as gk

UP = [1.0, 0.0, 0.0, 0.0]
TIPPED = [np.cos(np.pi / 4), np.sin(np.pi / 4), 0.0, 0.0]  # a quarter turn about x: another face up


def _traj(T=8, G=3):
  z = lambda: np.zeros((T, G), np.float32)
  traj = {k: z() for k in ("goal_valid", "goal_index", "goal_finished", "goal_failed", "goal_distance")}
  traj["goal"] = np.tile(np.array([0, 0, 0] + UP, np.float32), (T, G, 8, 1))
  return traj


def test_first_goals_pairs_goals_with_outcomes_and_kinds():
  t = _traj()
  # Slot 0: a moved goal at t=1, solved at t=3; then its second goal (index 1) is not counted.
  t["goal_valid"][1, 0], t["goal_distance"][1, 0], t["goal_finished"][3, 0] = 1, 0.1, 1
  t["goal_valid"][4, 0], t["goal_index"][4, 0], t["goal_finished"][6, 0] = 1, 1, 1
  # Slot 1: a tipped goal, failed; then a new game's first goal, turned (moved 1 cm), its outcome unseen.
  t["goal_valid"][0, 1], t["goal"][0, 1, 0, 3:] = 1, TIPPED
  t["goal_finished"][2, 1], t["goal_failed"][2, 1] = 1, 1
  t["goal_valid"][5, 1], t["goal_distance"][5, 1] = 1, 0.01
  # Slot 2: no valid goal (an invalid goal ends a game with goal_finished 0).
  assert gk.first_goals(t, 1, 0.04) == [("moved", True), ("tipped", False)]
  t["goal_finished"][7, 1] = 1
  assert gk.first_goals(t, 1, 0.04)[-1] == ("turned", True)
