"""train.py end to end: CLI errors, FetchReach learning with the full run directory, exact resume after
SIGKILL, and 2-device data parallelism matching 1 device."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import jax
import numpy as np
import pytest
from compile_flags import FAST_COMPILE

import agents
import train
from agents import experiment
from agents.common.checkpoint import Checkpointer
from agents.league import surgery

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.abspath(os.path.join(ROOT, ".jax_cache"))


def test_list_and_cli_errors(capsys):
  assert train.main(["--list"]) == 0
  assert "ppo_fetch_reach" in capsys.readouterr().out.split()


def test_list_describes_every_config(capsys):
  """`--list` gives each config one line of what it trains and one of its measured figure and time."""
  rows = train.describe_configs()
  assert [n for n, _, _ in rows] == train.list_configs()
  for name, what, measured in rows:
    assert what and len(what) <= 100, f"configs/{name}.py: its docstring's first line is the --list line"
    assert measured and len(measured) <= 100, f"configs/{name}.py: MEASURED (one line) is missing"
  assert train.main(["--list"]) == 0
  lines = capsys.readouterr().out.splitlines()
  assert len(lines) == len(rows) and all(" | " in line for line in lines)
  assert sum("(the default)" in line for line in lines) == 1
  with pytest.raises(SystemExit, match=r"unknown config key 'agent.learning_rat'.*agent.learning_rate"):
    train.main(["--set", "agent.learning_rat=1e-3", "--out", "/tmp/never"])
  with pytest.raises(SystemExit, match="unknown config 'nope'.*ppo_fetch_reach"):
    train.main(["--config", "nope"])
  with pytest.raises(SystemExit, match=r"env.num_objectz"):
    train.main(["--set", "env.num_objectz=2"])
  with pytest.raises(SystemExit, match="section.key=value"):
    train.main(["--set", "agent.learning_rate"])


def test_fetch_reach_learns_and_writes_run_directory(tmp_path):
  cfg = experiment.resolve(train.load_config("ppo_fetch_reach"))
  cfg = experiment.set_dotted(cfg, "agent.total_env_steps=38400")
  ts, row = train.run(cfg, "test", str(tmp_path), progress=False)
  assert row["eval/success_rate"] >= 0.9, row
  names = set(os.listdir(tmp_path))
  assert {"config.json", "metrics.jsonl", "learning_curve.png", "checkpoints", "tb"} <= names
  assert any(f.startswith("events") for f in os.listdir(tmp_path / "tb"))
  rows = [json.loads(l) for l in open(tmp_path / "metrics.jsonl")]
  for key in ("env_steps", "wall_s", "eval/success_rate", "eval/return", "train/sps"):
    assert key in rows[0]
  assert "compile/train_s" in rows[0]
  assert [r["env_steps"] for r in rows] == sorted(r["env_steps"] for r in rows)
  # The policy loads back from the run directory alone.
  act = experiment.load_policy(str(tmp_path))
  obs = jax.numpy.zeros((3, 13))
  assert act(obs, None).shape == (3, 4)
  # ... and from one small exported file (config, parameters, observation statistics) as well.
  path = agents.export_policy(str(tmp_path), str(tmp_path / "exported" / "reach.policy"))
  act_file, algo_file = agents.load_exported_policy(path)
  probe = jax.random.normal(jax.random.PRNGKey(5), (3, 13))
  np.testing.assert_allclose(act_file(probe, None), act(probe, None), atol=1e-6)
  assert algo_file.raw_env.action_size == 4 and os.path.getsize(path) < 200_000
  with pytest.raises(ValueError, match="not a policy file"):
    agents.load_exported_policy(str(tmp_path / "config.json"))
  # ... and evaluates from it alone (agents' public entry point), as well as the run's last evaluation.
  scores = agents.evaluate_run(str(tmp_path), seed=1, num_envs=32)
  assert scores["eval/success_rate"] >= 0.9 and "eval/return" in scores, scores
  # ... and restores under config changes its parameters do not depend on (rl2_adaptation's --set).
  algo_o, state_o = experiment.restore_run(str(tmp_path), overrides=("run.num_eval_envs=5",))
  algo_p, state_p = experiment.restore_run(str(tmp_path))
  assert algo_o.config.num_eval_envs == 5 != algo_p.config.num_eval_envs
  jax.tree.map(np.testing.assert_array_equal, state_o.params, state_p.params)
  with pytest.raises(ValueError, match="agent.learning_rat"):
    experiment.restore_run(str(tmp_path), overrides=("agent.learning_rat=1",))

  # Surgery: --resume with a wider policy and value net. The checkpoint is carried into the new
  # architecture with the same function (its deterministic actions are the old ones), training goes on
  # from there, and the run directory records it.
  new = experiment.set_dotted(
    cfg, "agent.total_env_steps=51200", "agent.policy_hidden=(96, 64)", "agent.value_hidden=(64, 80)"
  )
  obs = jax.random.normal(jax.random.PRNGKey(3), (16, 13))
  before = act(obs, None)
  _, new_algo = experiment.build(new)
  old_ts, _ = _final_params(str(tmp_path))
  migrated = surgery.migrate(cfg["agent"], new["agent"], old_ts, new_algo.init(jax.random.PRNGKey(0)))
  np.testing.assert_allclose(
    new_algo.policy(migrated.params, migrated.obs_norm)(obs, None), before, atol=1e-5
  )
  ts2, row2 = train.run(new, "test", str(tmp_path), resume=True, progress=False)
  assert ts2.params["policy"]["params"]["Core_0"]["Torso_0"]["MLP_0"]["Dense_0"]["kernel"].shape == (13, 96)
  assert json.load(open(tmp_path / "config.json"))["agent"]["policy_hidden"] == [96, 64]
  record = json.loads(open(tmp_path / "surgery.jsonl").readline())
  assert record["env_steps"] == 38400 and record["changed"] == {
    "policy_hidden": [[64, 64], [96, 64]],
    "value_hidden": [[64, 64], [64, 80]],
  }, record
  assert not (tmp_path / "changes.jsonl").exists()  # the architecture is surgery's record alone
  rows = [json.loads(l) for l in open(tmp_path / "metrics.jsonl")]
  assert rows[-1]["env_steps"] == 51200 and row2["eval/success_rate"] >= 0.9, rows[-1]  # no drop
  # The checkpoint from before the surgery still loads, migrated into the run's new architecture (what
  # the payoff matrix and the ratings of a surgered run use), acting as it did.
  old3, meta3 = experiment.restore_checkpoints(str(tmp_path), new, new_algo, [3])[3]
  assert meta3["chunks"] == 3
  np.testing.assert_allclose(new_algo.policy(old3.params, old3.obs_norm)(obs, None), before, atol=1e-5)
  # Warm start (run.init_from, what fine-tuning on another task uses): a fresh state takes the run's
  # latest parameters and observation statistics wherever they fit (here all of them), so it acts as the
  # trained run does; the optimiser starts fresh.
  fresh = new_algo.init(jax.random.PRNGKey(1))
  warm, record = experiment.warm_start(fresh, str(tmp_path))
  assert record["fresh"] == [] and record["checkpoint"] == "latest" and record["carried"]
  want = new_algo.policy(ts2.params, ts2.obs_norm)(obs, None)
  assert np.abs(new_algo.policy(fresh.params, fresh.obs_norm)(obs, None) - want).max() > 1e-3
  np.testing.assert_allclose(new_algo.policy(warm.params, warm.obs_norm)(obs, None), want, atol=1e-6)
  for x, y in zip(jax.tree.leaves(warm.opt_state), jax.tree.leaves(fresh.opt_state)):
    np.testing.assert_array_equal(x, y)
  with pytest.raises(ValueError, match="init_from.*no config.json"):
    experiment.warm_start(fresh, str(tmp_path / "nowhere"))
  # run.init_fresh: the named layers keep the fresh state's draws (the paper's re-initialised final
  # layers), every other array is the run's; a pattern matching nothing is refused by name.
  redo, rec2 = experiment.warm_start(fresh, str(tmp_path), keep_fresh=["policy/*/Dense_1/*"])
  assert rec2["reinitialised"] and all("Dense_1" in p for p in rec2["reinitialised"])
  assert (
    set(rec2["fresh"]) == set(rec2["reinitialised"]) and len(rec2["carried"]) == len(record["carried"]) - 2
  )
  for (p, x), y, z in zip(
    jax.tree_util.tree_leaves_with_path(redo.params),
    jax.tree.leaves(fresh.params),
    jax.tree.leaves(warm.params),
  ):
    np.testing.assert_array_equal(
      x, y if "Dense_1" in jax.tree_util.keystr(p) and "policy" in jax.tree_util.keystr(p) else z
    )
  with pytest.raises(ValueError, match=r"init_fresh.*Dense_7.*match no leaf"):
    experiment.warm_start(fresh, str(tmp_path), keep_fresh=["*/Dense_7/*"])


def test_build_takes_the_env_that_resolving_checked(monkeypatch):
  """Resolving a config builds its env (the env's own checks); `build` then takes that env rather than
  building it again (MT50's second build cost 4-6 s of a start), once: a second build builds anew."""
  import mjx_envs  # pylint: disable=import-outside-toplevel

  monkeypatch.setattr(experiment, "_ENVS_BUILT", set())
  monkeypatch.setattr(experiment, "_LAST_ENV", {})
  made, real = [], mjx_envs.make
  monkeypatch.setattr(mjx_envs, "make", lambda name, **kw: made.append(name) or real(name, **kw))
  cfg = experiment.resolve(train.load_config("ppo_fetch_reach"))
  assert made == ["FetchReach"]
  env, _ = experiment.build(cfg)
  assert made == ["FetchReach"]
  env2, _ = experiment.build(cfg)
  assert made == ["FetchReach"] * 2 and env2 is not env
  other = experiment.set_dotted(cfg, "env.episode_length=7")
  experiment.resolve(other)
  assert experiment.build(other)[0].episode_length == 7 and len(made) == 3


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")  # ffmpeg runs as a subprocess
def test_video_of_an_untrained_policy(tmp_path):
  """What `train.py --video` calls after training, on a 5-step episode of an untrained PPO policy."""
  import imageio.v3 as iio  # pylint: disable=import-outside-toplevel

  cfg = experiment.resolve(train.load_config("ppo_fetch_reach"))
  for assignment in ("agent.num_envs=4", "agent.episode_length=5"):
    cfg = experiment.set_dotted(cfg, assignment)
  _, algo = experiment.build(cfg)
  ts = jax.jit(algo.init)(jax.random.PRNGKey(0))
  path = experiment.record_video(
    algo, ts.params, ts.obs_norm, str(tmp_path / "video.mp4"), width=64, height=48
  )
  frames = iio.imread(path)
  assert frames.shape == (6 + 12, 48, 64, 3)  # reset + 5 steps, then the end held for 0.5 s at 25 fps
  assert frames.std() > 10


def _env():
  # train.py adds its own flags; the test suite's compile-speed flags (compile_flags.py) travel along.
  env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
  fast = [f for f in os.environ.get("XLA_FLAGS", "").split() if f in FAST_COMPILE]
  if fast:
    env["XLA_FLAGS"] = " ".join(fast)
  env.update(MJX_COMPILATION_CACHE=CACHE, JAX_PLATFORMS="cpu", PYTHONUNBUFFERED="1")
  return env


TINY = [
  "--set",
  "agent.num_envs=16",
  "--set",
  "agent.unroll_length=5",
  "--set",
  "run.eval_every=1",
  "--set",
  "run.num_eval_envs=8",
  "--steps",
  str(16 * 5 * 12),
  "--no-progress",
]


def _final_params(run_dir):
  ckpt = Checkpointer(run_dir)
  cfg = experiment.resolve(json.load(open(os.path.join(run_dir, "config.json"))))
  _, algo = experiment.build(cfg)
  state, meta = ckpt.restore(jax.eval_shape(algo.init, jax.random.PRNGKey(0)))
  ckpt.close()
  return state, meta


def test_resume_with_steps_extends_the_run_for_later_resumes(tmp_path):
  """--resume --steps N records N in config.json, so a later plain --resume continues to N; a resume of
  a run that has reached its total says so instead of exiting silently."""
  run_dir = str(tmp_path / "run")
  tiny = [a if a != str(16 * 5 * 12) else str(16 * 5 * 2) for a in TINY]
  train_py = [sys.executable, os.path.join(ROOT, "train.py"), "--devices", "1"]

  def run(*args):
    out = subprocess.run(
      train_py + list(args), check=True, env=_env(), cwd=ROOT, timeout=600, capture_output=True, text=True
    )
    return out.stdout

  run(*tiny, "--out", run_dir)
  out = run("--resume", run_dir, "--steps", str(16 * 5 * 4), "--no-progress")
  assert "agent.total_env_steps 160 -> 320" in out, out[-2000:]
  assert json.load(open(os.path.join(run_dir, "config.json")))["agent"]["total_env_steps"] == 320
  out = run("--resume", run_dir, "--no-progress", "--set", "run.max_minutes=30")
  assert "nothing to train: 320 env steps done" in out, out[-2000:]
  # A changed setting that keeps the architecture is recorded, so a later plain --resume keeps it.
  assert "resumed with changes at env step 320: run.max_minutes" in out and "-> 30" in out, out[-2000:]
  assert json.load(open(os.path.join(run_dir, "config.json")))["run"]["max_minutes"] == 30
  change = json.loads(open(os.path.join(run_dir, "changes.jsonl")).read())
  assert change["env_steps"] == 320 and list(change["changed"]) == ["run.max_minutes"]
  assert change["changed"]["run.max_minutes"][1] == 30
  steps = [json.loads(line)["env_steps"] for line in open(os.path.join(run_dir, "metrics.jsonl"))]
  assert steps == [80, 160, 240, 320]
  # A resume whose chunk is another size (here 2 updates, not 1) goes on from the env steps done.
  out = run("--resume", run_dir, "--steps", "640", "--set", "run.eval_every=2", "--no-progress")
  assert "nothing to train" not in out, out[-2000:]
  steps = [json.loads(line)["env_steps"] for line in open(os.path.join(run_dir, "metrics.jsonl"))]
  assert steps == [80, 160, 240, 320, 480, 640]

  # --video-of RUN_DIR@N: an episode of a chosen kept checkpoint's policy, and no training.
  import imageio.v3 as iio  # pylint: disable=import-outside-toplevel

  ckpt = Checkpointer(run_dir, max_to_keep=None)
  kept = ckpt.steps()
  ckpt.close()
  assert len(kept) >= 2, kept
  path = train.video_of_checkpoint(f"{run_dir}@{kept[0]}", width=64, height=48)
  assert path == os.path.join(run_dir, f"video-{kept[0]}.mp4")
  frames = iio.imread(path)
  assert frames.shape[1:] == (48, 64, 3) and frames.shape[0] > 12 and frames.std() > 10
  assert [json.loads(line)["env_steps"] for line in open(os.path.join(run_dir, "metrics.jsonl"))] == steps
  with pytest.raises(SystemExit, match=r"no checkpoint 999; kept: \["):
    train.video_of_checkpoint(f"{run_dir}@999")
  with pytest.raises(SystemExit, match="after '@' comes a checkpoint number"):
    train.video_of_checkpoint(f"{run_dir}@last")
  with pytest.raises(SystemExit, match="has no checkpoints"):
    train.video_of_checkpoint(str(tmp_path / "typo"))
  with pytest.raises(SystemExit, match="unknown"):
    train.video_of_checkpoint(run_dir, overrides=("agent.no_such_key=1",))
  with pytest.raises(SystemExit, match="changes the policy's shapes"):
    train.video_of_checkpoint(run_dir, overrides=("agent.policy_hidden=(8,)",))


def test_resume_after_sigkill_is_exact(tmp_path):
  """On 2 host devices (train.py's CPU default on a 2-core machine; forced here so any machine tests
  it): the count is stored in config.json and a resume without --devices uses it again."""
  full, killed = str(tmp_path / "full"), str(tmp_path / "killed")
  cmd = [sys.executable, os.path.join(ROOT, "train.py"), "--devices", "2"] + TINY
  out = subprocess.run(
    cmd + ["--out", full], check=True, env=_env(), cwd=ROOT, timeout=600, capture_output=True, text=True
  ).stdout
  assert "devices=2 x cpu" in out, out[-2000:]
  assert json.load(open(os.path.join(full, "config.json")))["run"]["devices"] == 2
  proc = subprocess.Popen(
    cmd + ["--out", killed], env=_env(), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
  )
  deadline = time.time() + 600
  ckpt_dir = os.path.join(killed, "checkpoints")
  while time.time() < deadline:
    done = [d for d in os.listdir(ckpt_dir) if d.isdigit()] if os.path.isdir(ckpt_dir) else []
    if done:
      break
    assert proc.poll() is None, proc.stdout.read().decode()[-2000:]
    time.sleep(0.05)
  proc.send_signal(signal.SIGKILL)
  proc.wait()
  state_k, meta_k = _final_params(killed)
  assert meta_k["chunks"] < 12, "the run finished before it could be killed"
  out = subprocess.run(
    [sys.executable, os.path.join(ROOT, "train.py"), "--resume", killed, "--no-progress"],
    check=True,
    env=_env(),
    cwd=ROOT,
    timeout=600,
    capture_output=True,
    text=True,
  ).stdout
  assert "devices=2 x cpu" in out, out[-2000:]
  a, meta_a = _final_params(full)
  b, meta_b = _final_params(killed)
  assert meta_a["chunks"] == meta_b["chunks"] == 12
  for x, y in zip(jax.tree.leaves(a.params), jax.tree.leaves(b.params)):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  for x, y in zip(jax.tree.leaves(a.obs_norm), jax.tree.leaves(b.obs_norm)):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  lines = open(os.path.join(killed, "metrics.jsonl")).read().splitlines()
  assert json.loads(lines[-1])["env_steps"] == 16 * 5 * 12


TWO_DEVICES = textwrap.dedent("""
    import os
    os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2"
    import mjx_envs, jax, numpy as np
    jax.config.update("jax_compilation_cache_dir", os.environ["MJX_COMPILATION_CACHE"])
    from agents import experiment
    from agents.common import sharding
    assert jax.device_count() == 2
    cfg = experiment.resolve({"env": {"name": "FetchReach"},
        "agent": {"num_envs": 16, "unroll_length": 5, "num_minibatches": 2, "update_epochs": 2,
                  "policy_hidden": (32, 32), "value_hidden": (32, 32)}})
    _, algo = experiment.build(cfg)
    key = jax.random.PRNGKey(0)
    step = lambda t: algo.train_many(t, 2)
    one = jax.jit(step)(jax.jit(algo.init, device=jax.devices()[0])(key))[0]
    mesh = sharding.data_mesh(16)
    shards = sharding.train_state_shardings(algo, mesh)
    ts2 = jax.jit(algo.init, out_shardings=shards)(key)
    assert len(ts2.env_state.obs.sharding.device_set) == 2
    two = jax.jit(step)(ts2)[0]
    for a, b in zip(jax.tree.leaves(one.params), jax.tree.leaves(two.params)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-4, atol=2e-5)
    diff = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) for a, b in
               zip(jax.tree.leaves(one.params), jax.tree.leaves(two.params)))
    print("MATCH max_abs_diff", diff)
    # Evaluation creates its own envs; under the mesh they are split over both devices too (the
    # compiled function then reduces across devices), with the same result for the same params.
    params, obs_norm = jax.device_get((one.params, one.obs_norm))
    ev1 = jax.jit(algo.evaluate, device=jax.devices()[0])(params, obs_norm, key)
    with jax.set_mesh(mesh):
      lowered = jax.jit(algo.evaluate).lower(params, obs_norm, key)
      ev2 = lowered.compile()(params, obs_norm, key)
    assert "all-reduce" in lowered.compile().as_text()
    for k in ev1:
        np.testing.assert_allclose(float(ev1[k]), float(ev2[k]), rtol=1e-5, atol=1e-6)
    print("EVAL MATCH", {k: float(v) for k, v in ev2.items()})
""")


def test_two_devices_match_one_device():
  env = _env()
  env["XLA_FLAGS"] = (
    env.get("XLA_FLAGS", "") + " --xla_cpu_enable_concurrency_optimized_scheduler=false"
  ).strip()
  proc = subprocess.run(
    [sys.executable, "-c", TWO_DEVICES], env=env, cwd=ROOT, capture_output=True, text=True, timeout=900
  )
  assert proc.returncode == 0, proc.stderr[-3000:]
  assert "MATCH" in proc.stdout and "EVAL MATCH" in proc.stdout


def test_public_entry_points_resolve():
  """Every name agents/__init__.py lists (lazily) exists in the module it points to."""
  for name in agents.__all__:
    assert callable(getattr(agents, name)) or isinstance(getattr(agents, name), dict), name
  with pytest.raises(AttributeError, match="no attribute 'nope'"):
    agents.nope  # noqa: B018


def test_learning_curve_shows_every_task_of_a_multi_task_run(tmp_path):
  """A multi-task run's learning_curve.png gets a third panel, one line per task's eval success; a
  single-task run keeps the two headline panels."""
  tasks = ("reach-v3", "push-v3", "door-open-v3")
  with open(tmp_path / "metrics.jsonl", "w") as f:
    for i in range(4):
      row = {"env_steps": 1000 * (i + 1), "eval/success_rate": 0.1 * i, "eval/return": float(i)}
      row.update({f"eval/success_rate/{t}": 0.1 * i * j for j, t in enumerate(tasks)})
      row["eval/trial/success_first/reach-v3"] = 0.5  # another per-task metric: not in the panel
      f.write(json.dumps(row) + "\n")
  fig = train.plot_curve(str(tmp_path))
  assert (tmp_path / "learning_curve.png").exists()
  assert len(fig.axes) == 3
  labels = sorted(line.get_label() for line in fig.axes[2].get_lines())
  assert labels == sorted(tasks)
  door = next(line for line in fig.axes[2].get_lines() if line.get_label() == "door-open-v3")
  np.testing.assert_allclose(door.get_ydata(), [0.2 * i for i in range(4)])
  single = tmp_path / "single"
  single.mkdir()
  with open(single / "metrics.jsonl", "w") as f:
    f.write(json.dumps({"env_steps": 1, "eval/success_rate": 0.5, "eval/return": 1.0}) + "\n")
  assert len(train.plot_curve(str(single)).axes) == 2


def test_resume_keeps_the_world_of_a_run_older_than_an_env_key(capsys):
  """A run's config.json without an env key added since (Meta-World's `arm`, `shared_code`) resumes in
  the world it trained in, not today's default; a config.json with the keys, and envs without them, are
  left as they are."""
  old = {"env": {"name": "MT10", "envs_per_task": 2}, "agent": {}, "run": {}}
  env = train._with_added_env_keys(old, "runs/x")["env"]
  assert env["arm"] is False and env["shared_code"] is False and env["envs_per_task"] == 2
  assert "predates env keys ['arm', 'shared_code']" in capsys.readouterr().out
  new = {"env": {"name": "MT10", "arm": True, "shared_code": True}}
  assert train._with_added_env_keys(new, "runs/x") == new
  fetch = {"env": {"name": "FetchReach"}}
  assert train._with_added_env_keys(fetch, "runs/x") == fetch
  single = train._with_added_env_keys({"env": {"name": "metaworld/reach-v3"}}, "runs/x")["env"]
  assert single["arm"] is False and "shared_code" not in single  # one task: no multi-task batch


def test_a_restored_run_older_than_an_env_key_keeps_its_world(tmp_path):
  """`experiment.run_config` (behind load_policy, evaluate_run, export_policy) fills the keys as a resume
  does: the committed RL² run of 2026-11-26 is read back on the free hand and the per-task build, not
  today's arm."""
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  src = os.path.join(root, "benchmarks/results/metaworld/2026-11-26/rl2_ml10_cpu_1h/config.json")
  with open(src) as f:
    cfg = json.load(f)
  assert "arm" not in cfg["env"] and "shared_code" not in cfg["env"]
  (tmp_path / "config.json").write_text(json.dumps(cfg))
  env = experiment.run_config(str(tmp_path))["env"]
  assert env["arm"] is False and env["shared_code"] is False and env["rl2_episodes"] == 3
  cfg["env"].update(arm=True, shared_code=True)
  (tmp_path / "config.json").write_text(json.dumps(cfg))
  env = experiment.run_config(str(tmp_path))["env"]
  assert env["arm"] is True and env["shared_code"] is True
  # An exported policy holds no env state: only the world's keys are filled.
  env = experiment.with_added_env_keys({"env": {"name": "ML10"}}, state=False)[0]["env"]
  assert env == {"name": "ML10", "arm": False}


def test_scheduled_change_equals_a_resume_with_the_change(tmp_path):
  """run.changes: one command that trains to 160 env steps, changes agent.ent_coef and goes on to 320
  gives the numbers of a run to 160 resumed with `--set agent.ent_coef=...`; changes.jsonl records the
  change, and a checkpoint from before it is read with the old setting (`checkpoint_config`)."""
  one, two = str(tmp_path / "one"), str(tmp_path / "two")
  tiny = [a if a != str(16 * 5 * 12) else str(16 * 5 * 4) for a in TINY]
  train_py = [sys.executable, os.path.join(ROOT, "train.py"), "--devices", "1", "--no-progress"]

  def run(*args):
    out = subprocess.run(
      train_py + list(args), env=_env(), cwd=ROOT, timeout=600, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return out.stdout

  # (A bad entry is refused before anything trains: tests/test_cli.py, BAD.)
  out = run(*tiny, "--out", one, "--set", 'run.changes=[[160, "agent.ent_coef=0.1"]]')
  assert "scheduled change (run.changes) at env step 160: agent.ent_coef 0.0 -> 0.1" in out, out[-2000:]
  run(*[a if a != str(16 * 5 * 4) else "160" for a in tiny], "--out", two)
  run("--resume", two, "--steps", "320", "--set", "agent.ent_coef=0.1")
  a, meta_a = _final_params(one)
  b, meta_b = _final_params(two)
  assert meta_a["env_steps"] == meta_b["env_steps"] == 320
  for x, y in zip(jax.tree.leaves((a.params, a.obs_norm)), jax.tree.leaves((b.params, b.obs_norm))):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  # The change mattered: without it the same run ends elsewhere (not a change that was ignored).
  run(*tiny, "--out", str(tmp_path / "plain"))
  c, _ = _final_params(str(tmp_path / "plain"))
  assert any(not np.array_equal(x, y) for x, y in zip(jax.tree.leaves(a.params), jax.tree.leaves(c.params)))
  steps = [json.loads(line)["env_steps"] for line in open(os.path.join(one, "metrics.jsonl"))]
  assert steps == [80, 160, 240, 320]
  change = json.loads(open(os.path.join(one, "changes.jsonl")).read())
  assert change["env_steps"] == 160 and change["changed"] == {"agent.ent_coef": [0.0, 0.1]}
  assert json.load(open(os.path.join(one, "config.json")))["agent"]["ent_coef"] == 0.1
  assert experiment.checkpoint_config(one, 2)["agent"]["ent_coef"] == 0.0  # trained before the change
  assert experiment.checkpoint_config(one)["agent"]["ent_coef"] == 0.1
  assert experiment.checkpoint_config(one, 4)["agent"]["ent_coef"] == 0.1
