"""TrueSkill ratings of self-play checkpoints (agents/league/ratings.py): the rating logic on synthetic game counts,
and the CLI on a tiny real run."""

import json
import math
import random
import shutil

import pytest

from agents import tournament as T
from agents.league import ratings as R
from agents.selfplay import holdout
from benchmarks import holdout_misses as hm


def _phi(x):
  return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _synthetic(alice_skill, bob_skill, games=64):
  """outcomes[(alice, bob)] = (Alice's wins, Bob's wins): the expected counts of a Thurstone model."""
  out = {}
  for a, sa in alice_skill.items():
    for b, sb in bob_skill.items():
      wa = round(games * _phi(sa - sb))
      out[(a, b)] = (wa, games - wa)
  return out


def test_schedule_spreads_each_pairs_wins_evenly_and_keeps_the_counts():
  games = list(R.schedule([(3, 4), (1, 5), (0, 2)]))
  assert len(games) == 11
  for i, (w, n) in enumerate([(3, 4), (1, 5), (0, 2)]):
    mine = [won for j, won in games if j == i]
    assert len(mine) == n and sum(mine) == w
  assert [j for j, _ in games[:3]] == [0, 1, 2]  # round robin
  assert [won for j, won in games if j == 0] == [False, True, True, True]  # no run of wins at one end


def test_spread_takes_the_earliest_and_latest_evenly():
  assert R.spread([50, 10, 20, 30, 40], 3) == [10, 30, 50]
  assert R.spread([1, 2, 3], 1) == [1]
  assert R.spread([1, 2], 4) == [1, 2]
  with pytest.raises(ValueError, match="at least 1"):
    R.spread([1, 2], 0)


def test_more_wins_against_the_references_is_a_higher_rating():
  refs = [R.trueskill_env().create_rating(mu=m) for m in (20.0, 25.0, 30.0)]
  strong = R.rate_against([(50, 64), (40, 64), (30, 64)], refs)
  weak = R.rate_against([(30, 64), (20, 64), (10, 64)], refs)
  assert strong.mu > weak.mu + 1.0
  none = R.rate_against([(0, 0), (0, 0), (0, 0)], refs)
  assert none.mu == R.trueskill_env().mu  # no games: the prior


def test_ratings_rise_over_improving_checkpoints_on_both_sides():
  ids = list(range(8))
  alice = {i: -1.0 + 0.3 * i for i in ids}
  bob = {i: -0.5 + 0.3 * i for i in ids}
  refs = R.spread(ids, 4)
  out = R.compute_ratings(_synthetic(alice, bob), refs, refs, ids)
  for side in ("bob", "alice"):
    mu = [out["checkpoints"][i][side]["mu"] for i in ids]
    assert all(b > a for a, b in zip(mu, mu[1:])), (side, mu)
    e = out["checkpoints"][3][side]
    assert math.isclose(e["conservative"], e["mu"] - 3 * e["sigma"])
    assert e["games"] == 4 * 64 and [v["reference"] for v in e["vs"]] == refs
  # The references' calibration also orders them.
  ref_mu = [out["references"]["bob"][i].mu for i in refs]
  assert ref_mu == sorted(ref_mu)
  # A better Alice wins more, so Bob's win rate against the reference Alices falls with their skill.
  vs = out["checkpoints"][0]["bob"]["vs"]
  assert vs[0]["win_rate"] > vs[-1]["win_rate"]


def test_ratings_do_not_depend_on_processing_order_or_on_the_other_checkpoints():
  ids = list(range(6))
  rng = random.Random(0)
  alice = {i: rng.gauss(0, 1) for i in ids}
  bob = {i: rng.gauss(0, 1) for i in ids}
  refs = [0, 2, 5]
  outcomes = _synthetic(alice, bob, games=40)
  base = R.compute_ratings(outcomes, refs, refs, ids)
  items = list(outcomes.items())
  rng.shuffle(items)
  order = ids[::-1]
  shuffled = R.compute_ratings(dict(items), refs[::-1], refs[::-1], order)
  assert shuffled["checkpoints"] == base["checkpoints"]
  # Rated alone, a checkpoint gets the same rating as among all the others.
  alone = R.compute_ratings(outcomes, refs, refs, [3])
  assert alone["checkpoints"][3] == base["checkpoints"][3]
  assert R.needed_pairs(refs, refs, [3]) == sorted(
    {(a, b) for a in refs for b in refs} | {(a, 3) for a in refs} | {(3, b) for b in refs}
  )
  with pytest.raises(KeyError, match="no game outcomes"):
    R.compute_ratings({}, refs, refs, [3])


def test_bad_run_directories_are_refused(tmp_path):
  with pytest.raises(FileNotFoundError, match="no config.json"):
    T.rate_run(str(tmp_path))
  (tmp_path / "config.json").write_text(json.dumps({"env": {"name": "FetchReach"}, "agent": {"algo": "ppo"}}))
  with pytest.raises(ValueError, match="not a self-play run"):
    T.rate_run(str(tmp_path))
  with pytest.raises(FileNotFoundError, match="no checkpoints"):
    T.checkpoint_steps(str(tmp_path))
  assert not (tmp_path / "checkpoints").exists()
  # `python -m agents.ratings` (the hide-and-seek issue's command) is `agents.tournament ratings`.
  from agents import ratings  # pylint: disable=import-outside-toplevel

  with pytest.raises(SystemExit, match="not a self-play run"):
    ratings.main([str(tmp_path)])
  with pytest.raises(SystemExit, match="no config.json"):
    ratings.main([str(tmp_path / "typo")])


@pytest.mark.slow  # a training run (the default tier must fit in 30 minutes)
def test_cli_rates_every_checkpoint_of_a_tiny_selfplay_run(tmp_path, capsys, monkeypatch):
  import train  # pylint: disable=import-outside-toplevel
  from agents import experiment  # pylint: disable=import-outside-toplevel

  run = tmp_path / "run"
  cfg = experiment.resolve(train.load_config("asp_blocks_cpu"))
  # 150-step games, 8 slots: 1200 env steps per update, one update per chunk, a checkpoint each.
  cfg = experiment.set_dotted(
    cfg,
    "agent.num_envs=8",
    "agent.num_minibatches=2",
    "agent.hidden=(16, 16)",
    "agent.total_env_steps=3600",
    "run.eval_every=1",
    "run.keep_checkpoints=5",
    "run.num_eval_envs=4",
    "run.ratings_every=2",
  )
  train.run(cfg, "asp", str(run), progress=False)
  # run.ratings_every=2: train.py rated the two checkpoints kept at its second host call, in-process.
  periodic = json.loads((run / "ratings.json").read_text())
  assert [c["step"] for c in periodic["checkpoints"]] == [1, 2]
  assert T.main(["ratings", str(run), "--references", "2"]) == 0
  out = json.loads((run / "ratings.json").read_text())
  assert [c["step"] for c in out["checkpoints"]] == [1, 2, 3]
  assert [c["env_steps"] for c in out["checkpoints"]] == [1200, 2400, 3600]
  assert out["references"]["steps"] == [1, 3]
  for c in out["checkpoints"]:
    for side in ("bob", "alice"):
      e = c[side]
      assert all(math.isfinite(e[k]) for k in ("mu", "sigma", "conservative")), e
      assert e["games"] >= 2 * 8 and [v["reference"] for v in e["vs"]] == [1, 3]
      assert sum(v["games"] for v in e["vs"]) == e["games"]
  # Every pair is played once: Bob of checkpoint 1 against reference Alice 3 is Alice 3's game against
  # reference Bob 1.
  vs = lambda step, side, ref: next(
    v for v in out["checkpoints"][step - 1][side]["vs"] if v["reference"] == ref
  )
  assert vs(1, "bob", 3)["games"] == vs(3, "alice", 1)["games"]
  assert vs(1, "bob", 3)["wins"] + vs(3, "alice", 1)["wins"] == vs(1, "bob", 3)["games"]
  assert (run / "ratings.png").stat().st_size > 5_000
  assert "env_steps" in capsys.readouterr().out

  # References from another run (a copy: the same policies, so the same games and ratings), the match
  # compiled once for all of it.
  ref = tmp_path / "ref"
  shutil.copytree(run, ref)
  other = T.rate_run(str(run), reference_run=str(ref), references=2, checkpoints=[2], write=False)
  assert other["checkpoints"][0] == out["checkpoints"][1]
  assert other["references"]["run"] == str(ref)
  algo = T.algo_for(experiment.resolve(json.loads((run / "config.json").read_text())))
  assert T.match_fn(algo)._cache_size() == 1  # pylint: disable=protected-access

  with pytest.raises(SystemExit, match=r"no checkpoint\(s\) \[7\]"):
    T.main(["ratings", str(run), "--checkpoints", "7"])

  # The holdout table: named tasks on named checkpoints, one row each; a task's episodes do not depend
  # on which other tasks share the table (task i keys with fold_in(key, i)).
  table = ["payoff", str(run), "--holdout", "--episodes", "2", "--max-goals", "1"]
  assert T.main([*table, "--tasks", "push-1", "flip-1", "--checkpoints", "1", "3"]) == 0
  out = json.loads((run / "holdout.json").read_text())
  assert list(out["checkpoints"]) == ["1", "3"] and out["max_goals"] == 1 and out["episodes_per_task"] == 2
  assert [r["env_steps"] for r in out["checkpoints"].values()] == [1200, 3600]
  for row in out["checkpoints"].values():
    assert 0.0 <= row["holdout/push-1"] <= 1.0 and 0.0 <= row["holdout/flip-1"] <= 1.0, row
  assert T.main([*table, "--tasks", "push-1", "--checkpoints", "3"]) == 0
  alone = json.loads((run / "holdout.json").read_text())["checkpoints"]["3"]
  assert alone["holdout/push-1"] == out["checkpoints"]["3"]["holdout/push-1"]
  assert (
    out["steps_per_object"] == json.loads((run / "config.json").read_text())["env"]["bob_steps_per_object"]
  )
  # A goal's budget overridden reaches the evaluation, and a 1-step budget cannot move a block to a push
  # goal (goal cells lie >= 0.09 m from the start).
  budgets = []
  inner = holdout.evaluate_suite_part
  monkeypatch.setattr(holdout, "evaluate_suite_part", lambda *a, **k: budgets.append(a[6]) or inner(*a, **k))
  assert T.main([*table, "--tasks", "push-1", "--checkpoints", "3", "--steps-per-object", "1"]) == 0
  short = json.loads((run / "holdout.json").read_text())
  assert budgets == [1] and short["steps_per_object"] == 1
  assert short["checkpoints"]["3"]["holdout/push-1"] == 0.0
  with pytest.raises(SystemExit, match="steps_per_object must be a positive integer, got 0"):
    T.main([*table, "--steps-per-object", "0"])
  # Where Bob misses (benchmarks/holdout_misses.py): one row per checkpoint and budget; a 1-step budget
  # solves nothing, and every miss is sorted into exactly one kind.
  misses_json = tmp_path / "misses.json"
  assert (
    hm.main(
      [
        str(run),
        "--checkpoints",
        "3",
        "--steps-per-object",
        "1",
        "3",
        "--episodes",
        "4",
        "--json",
        str(misses_json),
      ]
    )
    == 0
  )
  rows = json.loads(misses_json.read_text())["rows"]
  assert [(r["checkpoint"], r["steps_per_object"]) for r in rows] == [(3, 1), (3, 3)]
  assert rows[0]["success"] == 0.0 and rows[0]["misses"] == 4
  for r in rows:
    assert sum(r[f"miss_{k}"] for k in hm.KINDS) == pytest.approx(1.0 if r["misses"] else 0.0)
    # Goal cells lie >= 0.09 m from the block's start.
    assert r["median_start_distance_m"] > 0.09 and 0.0 <= r["end_at_another_goal"] <= 1.0
  with pytest.raises(SystemExit, match="holdout task must look like"):
    T.main([*table, "--tasks", "push-x"])
  with pytest.raises(SystemExit, match="leaves 4 placement cells; 5 are needed for 2 objects"):
    T.main([*table, "--tasks", "push-2", "--table-portion", "0.4"])
  with pytest.raises(SystemExit, match="go with --holdout"):
    T.main(["payoff", str(run), "--tasks", "push-1"])


# --- hide-and-seek: hiders against seekers --------------------------------------------------------------

HNS_TINY = {  # tests/agents/mappo's tiny config: 4 worlds, 80-step episodes, a small entity net
  "env": {"name": "HideAndSeekQuadrant"},
  "agent": {
    "algo": "mappo",
    "num_envs": 4,
    "unroll_length": 20,
    "bptt_length": 10,
    "num_minibatches": 2,
    "update_epochs": 2,
    "embed": 16,
    "heads": 2,
    "head_dim": 8,
    "dense": 32,
    "lstm_size": 16,
    "total_env_steps": 480,
  },
  "run": {"eval_every": 2, "num_eval_envs": 4, "count_flops": False, "keep_checkpoints": 5},
}


def test_team_outcome_rule_the_higher_return_wins_equal_or_undecided_is_no_game():
  hider_return = [3.0, -2.0, 1.5, 4.0, -1.0]
  seeker_return = [-3.0, 2.0, 1.5, -4.0, 1.0]
  decided = [True, True, True, False, True]
  hiders, seekers = T.team_outcomes(hider_return, seeker_return, decided)
  assert hiders.tolist() == [True, False, False, False, False]
  assert seekers.tolist() == [False, True, False, False, True]
  hiders, seekers = T.team_outcomes(hider_return, seeker_return)  # all decided
  assert hiders.tolist() == [True, False, False, True, False]


def test_ratings_of_a_hide_and_seek_run_rate_hiders_against_seekers(tmp_path):
  """Three checkpoints (fresh policies of different seeds, written as train.py writes them): every one is
  rated as hiders and as seekers against the references, with the same machinery and format as self-play."""
  import jax  # pylint: disable=import-outside-toplevel

  from agents import experiment  # pylint: disable=import-outside-toplevel
  from agents.common.checkpoint import Checkpointer  # pylint: disable=import-outside-toplevel

  run = tmp_path / "hns"
  run.mkdir()
  cfg = experiment.resolve(HNS_TINY)
  (run / "config.json").write_text(json.dumps(cfg, indent=2))
  algo = T.algo_for(cfg)
  init = jax.jit(algo.init)
  ckpt = Checkpointer(str(run), max_to_keep=None)
  for step in (1, 2, 3):
    ts = init(jax.random.PRNGKey(step))
    ckpt.save(
      step, experiment.checkpoint_view(algo, ts), {"env_steps": 160 * step, "wall_s": 0.0, "chunks": step}
    )
  ckpt.close()

  assert T.main(["ratings", str(run), "--references", "2"]) == 0
  out = json.loads((run / "ratings.json").read_text())
  assert out["sides"] == ["hider", "seeker"]
  assert [c["step"] for c in out["checkpoints"]] == [1, 2, 3]
  assert [c["env_steps"] for c in out["checkpoints"]] == [160, 320, 480]
  assert out["references"]["steps"] == [1, 3]
  assert [r["step"] for r in out["references"]["hider"]] == [1, 3]
  assert [r["step"] for r in out["references"]["seeker"]] == [1, 3]
  assert "alice" not in out["checkpoints"][0] and "bob" not in out["checkpoints"][0]
  decided = 0
  for c in out["checkpoints"]:
    for side in ("hider", "seeker"):
      e = c[side]
      assert all(math.isfinite(e[k]) for k in ("mu", "sigma", "conservative")), e
      assert [v["reference"] for v in e["vs"]] == [1, 3]
      assert sum(v["games"] for v in e["vs"]) == e["games"] <= 2 * 4  # one episode of 4 worlds per pair
      decided += e["games"]
  assert decided > 0
  # A pair is played once: the seekers of checkpoint 1 against the reference hiders of 3 is the same
  # game as the hiders of 3 against the reference seekers of 1.
  vs = lambda step, side, ref: next(
    v for v in out["checkpoints"][step - 1][side]["vs"] if v["reference"] == ref
  )
  assert vs(1, "seeker", 3)["games"] == vs(3, "hider", 1)["games"]
  assert vs(1, "seeker", 3)["wins"] + vs(3, "hider", 1)["wins"] == vs(1, "seeker", 3)["games"]
  assert (run / "ratings.png").stat().st_size > 5_000
  assert "Hider" in T.format_table(out) and "Seeker" in T.format_table(out)
  assert T.match_fn(algo)._cache_size() == 1  # pylint: disable=protected-access
  with pytest.raises(SystemExit, match="not a self-play run"):  # Bob's payoff matrix is self-play's only
    T.main(["payoff", str(run)])


@pytest.mark.slow  # a training run (the default tier must fit in 30 minutes)
def test_train_py_rates_a_hide_and_seek_run_periodically(tmp_path):
  import train  # pylint: disable=import-outside-toplevel
  from agents import experiment  # pylint: disable=import-outside-toplevel

  run = tmp_path / "run"
  # 2 train steps of 80 world steps per host call, 3 calls, a checkpoint each; ratings after the second.
  cfg = experiment.set_dotted(experiment.resolve(HNS_TINY), "run.ratings_every=2")
  train.run(cfg, "hns", str(run), progress=False)
  out = json.loads((run / "ratings.json").read_text())
  assert out["sides"] == ["hider", "seeker"]
  assert [c["step"] for c in out["checkpoints"]] == [1, 2]
  assert [c["env_steps"] for c in out["checkpoints"]] == [160, 320]
  for c in out["checkpoints"]:
    assert {"hider", "seeker"} <= set(c) and all(math.isfinite(c[s]["mu"]) for s in ("hider", "seeker"))
  assert (run / "ratings.png").exists()
