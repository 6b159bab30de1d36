"""benchmarks/suite.py: the registries stay complete, the throughput ladder stops at out-of-memory and
continues where it stopped, and the whole suite runs at tiny size on CPU, stops at its budget, skips
finished parts and resumes partial ones (a throughput ladder, a train.py run stopped by time)."""

import mjx_envs

import json
import os

import jax
import pytest

from benchmarks import env_throughput as et
from benchmarks import suite

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.abspath(os.environ.get("MJX_TEST_CACHE", os.path.join(ROOT, ".jax_cache")))


def test_registries_cover_every_family_and_resolve():
  families = {suite.env_family(n) for n in mjx_envs.registered()}
  covered = {suite.env_family(et.resolve(t.name)[0]) for t in suite.THROUGHPUT}
  assert families <= covered, f"env families without a suite.THROUGHPUT entry: {families - covered}"
  for size in suite.SIZES:
    names = [p.name for p in suite.all_parts(size)]
    assert len(names) == len(set(names)), names
    for p in suite.PPO_VS_BRAX:
      assert size in p.args, (p.env, size)
  import train  # pylint: disable=import-outside-toplevel
  from agents import experiment  # pylint: disable=import-outside-toplevel

  for h in suite.HEADLINE:
    if not suite.config_exists(h.config):
      continue
    for sets in (h.sets, h.tiny):
      cfg = experiment.resolve(train.load_config(h.config))
      for s in sets:
        cfg = experiment.set_dotted(cfg, s)  # raises on an unknown key or a bad value
  with pytest.raises(SystemExit, match="unknown part 'nope'.*throughput-FetchReach"):
    suite.select_parts("tiny", ["nope"])


def test_throughput_ladder_stops_at_out_of_memory_and_continues(tmp_path, monkeypatch, capsys):
  """The ladder logic with the measurement faked: B=32 runs out of memory."""
  calls = []

  def fake_bench(env, pool, batch, num_steps, actions, cache, repeats, max_seconds, devices=None):
    calls.append(batch)
    if batch == 32:
      raise RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 123 bytes.")
    return {
      "batch": batch,
      "steps": num_steps,
      "compile_s": 1.0,
      "cache_hit": False,
      "run_s": 0.1,
      "mjx_steps_per_s": 100.0 * batch,
      "xla": {"bytes_per_env": 1000.0, "flops": 2e9},
    }

  monkeypatch.setattr(et, "bench_mjx", fake_bench)
  monkeypatch.setattr(et, "reset_pool", lambda env, seed: None)
  monkeypatch.setattr(et, "bench_c", lambda *a, **k: {"c_steps_per_s": 5000.0})
  out = str(tmp_path)
  args = ["--out", out, "--size", "tiny", "--part", "throughput-FetchReach", "--batch-sizes", "8,16,32,64"]

  merged = suite.main(args + ["--max-steps", "2"])
  part = merged["parts"]["throughput-FetchReach"]
  assert calls == [8, 16] and part["status"] == "partial" and merged["left"] == ["throughput-FetchReach"]
  assert "B=32 (--max-steps 2 reached)" in capsys.readouterr().out

  merged = suite.main(args)  # continues at 32, which runs out of memory: 64 is never tried
  part = merged["parts"]["throughput-FetchReach"]
  assert calls == [8, 16, 32] and part["status"] == "done" and merged["left"] == []
  assert part["stopped"]["batch"] == 32 and part["stopped"]["reason"] == "out of memory"
  assert [r["batch"] for r in part["rows"]] == [8, 16]
  assert part["best"] == {"batch": 16, "mjx_steps_per_s": 1600.0}
  md = open(os.path.join(out, "results.md")).read()
  assert "| FetchReach | 32 | - | - | stopped: out of memory |" in md
  assert "| FetchReach | 16 | 4 | 1.0 | 1,600 | 5,000 | 1,000 |" in md

  suite.main(args)  # finished: skipped
  assert calls == [8, 16, 32]
  assert "done earlier" in capsys.readouterr().out

  # Any other error is a bug, not the memory limit: the part fails and waits for --force.
  monkeypatch.setattr(et, "bench_mjx", lambda *a, **k: (_ for _ in ()).throw(TypeError("bad argument")))
  merged = suite.main(["--out", str(tmp_path / "bug"), "--size", "tiny", "--part", "throughput-FetchReach"])
  part = merged["parts"]["throughput-FetchReach"]
  assert part["status"] == "error" and "TypeError: bad argument" in part["note"]


def test_throughput_passes_each_family_to_its_c_baseline_and_keeps_only_raised_peaks(tmp_path, monkeypatch):
  """The C baseline is told the env's family (the 2026-11-26 GPU slot took hide-and-seek for Fetch), and a
  batch's peak bytes/env is recorded only where that batch raised the process's never-reset peak."""
  families = []
  monkeypatch.setattr(et, "reset_pool", lambda env, seed: None)
  monkeypatch.setattr(
    et, "bench_c", lambda env, family, *a, **k: families.append(family) or {"c_steps_per_s": 1.0}
  )
  monkeypatch.setattr(
    et,
    "bench_mjx",
    lambda env, pool, batch, *a, **k: {"batch": batch, "steps": 2, "compile_s": 1.0, "mjx_steps_per_s": 1e3},
  )
  peaks = iter([None, 800, 800, 900, 900, 900])  # (before, after) per batch: raised, raised, not raised
  monkeypatch.setattr(suite, "device_peak_bytes", lambda: next(peaks))
  args = ["--out", str(tmp_path), "--size", "cpu", "--batch-sizes", "4,8,16"]
  merged = suite.main(args + ["--part", "throughput-HideAndSeekQuadrant"])
  assert families == ["hide_and_seek"]
  rows = merged["parts"]["throughput-HideAndSeekQuadrant"]["rows"]
  assert [r.get("device_peak_bytes_per_env") for r in rows] == [200.0, 112.5, None]


def test_a_registered_name_with_a_slash_keeps_its_part_file_in_the_out_dir(tmp_path, monkeypatch):
  """`throughput-metaworld/push-v3` (the 2026-11-27 H100 slot died writing DIR/throughput-metaworld/...)."""
  monkeypatch.setattr(et, "reset_pool", lambda env, seed: None)
  monkeypatch.setattr(et, "bench_c", lambda env, family, *a, **k: {"c_steps_per_s": 1.0})
  monkeypatch.setattr(
    et,
    "bench_mjx",
    lambda env, pool, batch, *a, **k: {"batch": batch, "steps": 2, "compile_s": 1.0, "mjx_steps_per_s": 1e3},
  )
  monkeypatch.setattr(suite, "device_peak_bytes", lambda: None)
  args = ["--out", str(tmp_path), "--size", "cpu", "--batch-sizes", "4"]
  merged = suite.main(args + ["--part", "throughput-metaworld/push-v3"])
  assert [r["batch"] for r in merged["parts"]["throughput-metaworld/push-v3"]["rows"]] == [4]
  assert sorted(p.name for p in tmp_path.glob("throughput-*.json")) == ["throughput-metaworld~push-v3.json"]
  suite.main(["--out", str(tmp_path), "--report"])  # reads the part back by its name
  merged = json.loads((tmp_path / "results.json").read_text())
  assert merged["parts"]["throughput-metaworld/push-v3"]["rows"][0]["mjx_steps_per_s"] == 1e3


@pytest.mark.slow
def test_tiny_suite_runs_stops_at_its_budget_and_resumes(tmp_path, monkeypatch):
  monkeypatch.setattr(suite, "HEADLINE", suite.HEADLINE + [suite.HeadlineRun("no_such_config")])
  out = str(tmp_path / "suite")
  base = [
    "--out",
    out,
    "--size",
    "tiny",
    "--cache-dir",
    CACHE,
    "--part",
    "throughput",
    "--part",
    "ppo_vs_brax",
    "--part",
    "train-ppo_fetch_reach",
    "--part",
    "train-no_such_config",
  ]

  # 1. A budget of 3 s: the first step of work (PPO vs Brax) always runs, nothing else starts.
  merged = suite.main(base + ["--budget-min", "0.05"])
  parts = merged["parts"]
  assert parts["ppo_vs_brax-FetchReach"]["status"] == "done"
  s = parts["ppo_vs_brax-FetchReach"]["summary"]
  assert (
    s["ours_sps"] > 0 and s["brax_sps"] > 0 and s["ratio"] == pytest.approx(s["ours_sps"] / s["brax_sps"])
  )
  assert len(s["ours_success"]) == len(s["brax_success"]) == len(s["env_steps"]) == 4
  assert s["ours_xla"]["flops"] > 0
  assert parts["train-no_such_config"]["status"] == "skipped"
  assert "does not exist yet" in parts["train-no_such_config"]["note"]
  assert set(merged["left"]) == {"train-ppo_fetch_reach", "throughput-FetchReach"}
  assert not os.path.exists(os.path.join(out, "throughput-FetchReach.json"))

  # 2. Two steps: a training session stopped by time after its first chunk, one batch size.
  merged = suite.main(base + ["--max-steps", "2", "--train-minutes", "0.001"])
  parts = merged["parts"]
  tr = parts["train-ppo_fetch_reach"]
  assert tr["status"] == "partial" and tr["sessions"][0]["stopped_by_time"], tr
  assert tr["summary"]["env_steps"] == 80 and tr["summary"]["compile_s"] > 0
  tp = parts["throughput-FetchReach"]
  assert tp["status"] == "partial" and [r["batch"] for r in tp["rows"]] == [8]
  row8 = tp["rows"][0]
  assert row8["mjx_steps_per_s"] > 0 and row8["xla"]["bytes_per_env"] > 0 and tp["c_steps_per_s"] > 0

  # 3. No limits: the finished comparison is skipped, the run resumes to its end, the ladder goes on.
  pvb_before = json.load(open(os.path.join(out, "ppo_vs_brax-FetchReach.json")))
  merged = suite.main(base + ["--budget-min", "30"])
  parts = merged["parts"]
  assert merged["left"] == []
  assert parts["ppo_vs_brax-FetchReach"] == pvb_before
  tr = parts["train-ppo_fetch_reach"]
  assert tr["status"] == "done" and tr["finished"] and [s["resume"] for s in tr["sessions"]] == [False, True]
  assert tr["summary"]["env_steps"] == 240 and tr["summary"]["evals"] == 3
  tp = parts["throughput-FetchReach"]
  assert tp["status"] == "done" and [r["batch"] for r in tp["rows"]] == [8, 16] and tp["rows"][0] == row8

  md = open(os.path.join(out, "results.md")).read()
  for text in (
    f"| cpu ({et.cpu_model()}",
    f"| {jax.__version__} |",
    "## Targets (one H100)",
    "our PPO / Brax PPO training steps/s (FetchReach)",
    "ppo_fetch_reach: eval/success_rate >= 0.9, incl. compile",
    "| FetchReach | 16 |",
    "| ppo_fetch_reach | done | 240 |",
    "no_such_config | skipped",
  ):
    assert text in md, text
  assert json.load(open(os.path.join(out, "results.json")))["parts"].keys() == parts.keys()
