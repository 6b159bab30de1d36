"""What a user meets first: every bad command-line value ends in one line naming the option or key, the
value and what is allowed, and a non-zero exit, before anything is built or compiled; good values pass;
the library path (`experiment.resolve`, `experiment.set_dotted`) raises the same errors; `import mjx_envs`
prints nothing."""

import mjx_envs

import json
import os
import subprocess
import sys

import pytest

import train
from agents import experiment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Reached(Exception):
  """Raised by the stand-in for train.run: validation passed."""


@pytest.fixture(autouse=True)
def nothing_builds(monkeypatch):
  """Nothing in this file may build an algorithm or compile: `train.run` and `experiment.build` fail."""

  def run(cfg, name, run_dir, **kwargs):
    raise Reached(cfg, name, run_dir, kwargs)

  def build(cfg):
    raise AssertionError("experiment.build called while validating a command line")

  monkeypatch.setattr(train, "run", run)
  monkeypatch.setattr(experiment, "build", build)
  # main's process-wide JAX settings (the cache directory, the CPU device count) would outlive this file
  # in its pytest worker.
  monkeypatch.setattr(train, "enable_compilation_cache", lambda *a, **k: None)
  monkeypatch.setattr(train, "setup_devices", lambda *a, **k: None, raising=False)


def fail(argv, capsys):
  """(exit code, message) of train.main(argv), which must exit with an error."""
  with pytest.raises(SystemExit) as e:
    train.main(argv)
  code = e.value.code
  if isinstance(code, str):  # SystemExit("error: ...") prints the message and exits with 1
    return 1, code
  return code, capsys.readouterr().err


BAD = [  # argv, strings the one-line message must contain (the option or key, the value, what is allowed)
  (["--steps", "-5"], ["--steps", "agent.total_env_steps", "-5", ">= 1"]),
  (["--steps", "2.5"], ["--steps", "agent.total_env_steps", "2.5", "integer"]),
  (["--steps", "nan"], ["agent.total_env_steps", "nan", "integer"]),
  (["--steps", "lots"], ["--steps", "lots"]),
  (["--num-envs", "0"], ["--num-envs", "agent.num_envs", "0", ">= 1"]),
  (["--num-envs", "abc"], ["--num-envs", "abc", "int"]),
  (["--seed", "-1"], ["--seed", "run.seed", "-1", "[0, 2147483648)"]),
  (["--resume", "/nonexistent/run"], ["--resume", "/nonexistent/run", "no such directory"]),
  (["--resume", ROOT + "/configs"], ["--resume", "configs", "no config.json"]),
  (["--config", "nosuch"], ["nosuch", "ppo_fetch_reach"]),
  (["--bogus-flag"], ["--bogus-flag"]),
  (["--set", "agent.learning_rate=fast"], ["agent.learning_rate", "fast", "number"]),
  (["--set", "agent.learning_rate=0"], ["agent.learning_rate", "0", "> 0"]),
  (["--set", "agent.learning_rate=inf"], ["agent.learning_rate", "inf", "finite number"]),
  (["--set", "agent.num_envs=2.5"], ["agent.num_envs", "2.5", "integer"]),
  (["--set", "agent.num_envs=True"], ["agent.num_envs", "True", "integer"]),
  (["--set", "agent.num_minibatches=3"], ["agent.num_minibatches", "3", "divide", "agent.num_envs"]),
  (["--set", "agent.num_minibatches=0"], ["agent.num_minibatches", "0", ">= 1"]),
  (["--set", "agent.normalize_obs=1"], ["agent.normalize_obs", "1", "True or False"]),
  (["--set", "agent.policy_hidden=64"], ["agent.policy_hidden", "64", "list"]),
  (["--set", "agent.policy_hidden=[64, 0]"], ["agent.policy_hidden", "[64, 0]", ">= 1"]),
  (["--set", "agent.policy_hidden=[64, 'x']"], ["agent.policy_hidden[1]", "'x'", "integer"]),
  (["--set", "agent.activation=relux"], ["agent.activation", "relux", "tanh"]),
  (["--set", "agent.distribution=beta"], ["agent.distribution", "beta", "tanh_normal"]),
  (["--set", "agent.distribution=categorical"], ["agent.distribution", "categorical", "action_bins"]),
  (["--set", "agent.lr_schedule=exponential"], ["agent.lr_schedule", "exponential", "cosine"]),
  (["--set", "agent.staleness=-1"], ["agent.staleness", "-1", ">= 0"]),
  (["--set", "agent.grad_clip_sqrt_v=-5"], ["agent.grad_clip_sqrt_v", "-5", ">= 0"]),
  (["--set", "agent.ent_schedule=step"], ["agent.ent_schedule", "step", "linear"]),
  (["--set", "run.ratings_every=-1"], ["run.ratings_every", "-1", ">= 0"]),
  (["--set", "agent.gamma=1.5"], ["agent.gamma", "1.5", "[0, 1]"]),
  (["--set", "agent.episode_length=0"], ["agent.episode_length", "0", ">= 1"]),
  (["--set", "agent.hindsight_strategy=past"], ["agent.hindsight_strategy", "past", "future"]),
  (["--set", "agent.hindsight=True", "--set", "agent.lstm_size=8"], ["agent.lstm_size", "8", "hindsight"]),
  (["--set", "agent.algo=nope"], ["agent.algo", "nope", "ddpg_her"]),
  (["--set", "agent.algo=asp"], ["agent.algo", "asp", "BlocksSelfPlay"]),
  (["--set", "run.eval_every=0"], ["run.eval_every", "0", ">= 1"]),
  (["--set", "run.num_eval_envs=0"], ["run.num_eval_envs", "0", ">= 1"]),
  (["--set", "run.max_minutes=-1"], ["run.max_minutes", "-1", ">= 0"]),
  (["--set", "run.keep_checkpoints=0"], ["run.keep_checkpoints", "0", ">= 1"]),
  (["--set", "run.seed=1.5"], ["run.seed", "1.5", "integer"]),
  (["--set", "env.reward_type=bogus"], ["reward_type", "bogus", "sparse"]),
  (["--set", "env.reward_type=1"], ["reward_type", "1", "string"]),
  (["--set", "env.distance_threshold=-1"], ["distance_threshold", "-1", "(0.0"]),
  (["--set", "env.episode_length=2.5"], ["episode_length", "2.5", "integer"]),
  (["--set", "env.name=Nope"], ["env.name", "Nope", "FetchReach"]),
  (["--set", "env.name=BlocksPush", "--set", "env.num_objects=9"], ["num_objects", "9"]),
  (["--set", "nosuch.key=1"], ["nosuch.key", "valid keys", "agent.learning_rate"]),
  (["--set", "agent.learning_rat=1e-3"], ["agent.learning_rat", "did you mean 'agent.learning_rate'"]),
  (["--set", "agent.learning_rate"], ["agent.learning_rate", "section.key=value"]),
  (
    ["--config", "ddpg_her_fetch_reach", "--set", "agent.buffer_size=100"],
    ["agent.buffer_size", "100", "agent.num_envs"],
  ),
  (["--config", "ddpg_her_fetch_reach", "--set", "agent.polyak=2"], ["agent.polyak", "2", "[0, 1]"]),
  (
    ["--config", "asp_blocks_cpu", "--set", "agent.opponent_sampling=elo"],
    ["agent.opponent_sampling", "elo", "quality"],
  ),
  (
    ["--config", "asp_blocks_cpu", "--set", "agent.past_opponent_prob=1.0"],
    ["agent.past_opponent_prob", "1.0", "[0, 1)"],
  ),
  (
    ["--config", "asp_blocks_cpu", "--set", "agent.holdout_tasks=['push-x']"],
    ["agent.holdout_tasks", "push-x", "push-1"],
  ),
  (["--set", "run.changes=[[100, 'agent.learning_rate=fast']]"], ["run.changes at 100 env steps", "fast"]),
  (["--set", "run.changes=[[100, 'env.name=FetchPush']]"], ["run.changes", "not env.name"]),
  (["--set", "run.changes=[[200, 'agent.ent_coef=0.1'], [100, 'agent.ent_coef=0']]"], ["increasing"]),
  (["--set", "run.changes=[100, 'agent.ent_coef=0.1']"], ["run.changes", "[ENV_STEPS"]),
]


@pytest.mark.parametrize("argv,needles", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_command_line_gives_one_line(argv, needles, capsys):
  code, message = fail(argv, capsys)
  assert code != 0
  assert message.strip().count("\n") == 0, message
  assert message.startswith("error: "), message
  for needle in needles:
    assert needle in message, (needle, message)


def test_bad_resume_config_json(tmp_path, capsys):
  (tmp_path / "config.json").write_text("{not json")
  code, message = fail(["--resume", str(tmp_path)], capsys)
  assert code != 0 and "--resume" in message and "config.json" in message and "\n" not in message.strip()
  cfg = experiment.resolve(train.load_config("ppo_fetch_reach"))
  cfg["agent"]["num_envs"] = 0
  (tmp_path / "config.json").write_text(json.dumps(cfg))
  code, message = fail(["--resume", str(tmp_path)], capsys)
  assert code != 0 and "config.json" in message and "agent.num_envs must be >= 1, got 0" in message


def reached(argv):
  with pytest.raises(Reached) as e:
    train.main(argv)
  return e.value.args


@pytest.mark.parametrize("name", train.list_configs())
def test_every_config_resolves(name):
  cfg = experiment.resolve(train.load_config(name))
  assert experiment.resolve(cfg) == cfg  # a resolved config (config.json) resolves to itself
  assert reached(["--config", name])[0] == cfg | {"description": name}


def _readme_commands():
  text = open(os.path.join(ROOT, "README.md")).read()
  lines = [l.split("#")[0].split() for l in text.splitlines() if l.startswith("python train.py")]
  return [l[2:] for l in lines if "--resume" not in l and "--list" not in l]


@pytest.mark.parametrize("argv", _readme_commands(), ids=" ".join)
def test_readme_commands_pass_validation(argv):
  cfg = reached(argv)[0]
  for assignment in [a for i, a in enumerate(argv) if i and argv[i - 1] == "--set"]:
    key, value = assignment.split("=", 1)
    section, name = key.split(".")
    assert str(cfg[section][name]) == str(experiment._parse_value(value))  # pylint: disable=protected-access


def test_flags_and_sets_are_checked_together():
  """The flags land in the config as their keys, converted (2e6 -> int) and checked together with --set,
  so a combination that is only valid as a whole is accepted in any order."""
  cfg, name, _, _ = reached(
    [
      "--num-envs",
      "6",
      "--set",
      "agent.num_minibatches=3",
      "--steps",
      "2e6",
      "--seed",
      "7",
      "--set",
      "agent.normalize_obs=false",
    ]
  )
  assert name == "ppo_fetch_reach"
  assert cfg["agent"]["num_envs"] == 6 and cfg["agent"]["num_minibatches"] == 3
  assert cfg["agent"]["total_env_steps"] == 2_000_000 and isinstance(cfg["agent"]["total_env_steps"], int)
  assert cfg["run"]["seed"] == 7 and cfg["agent"]["normalize_obs"] is False


def test_resume_of_a_run_directory(tmp_path):
  cfg = experiment.resolve(train.load_config("ddpg_her_fetch_reach"))
  cfg["description"] = "mine"
  (tmp_path / "config.json").write_text(json.dumps(cfg))
  got, name, run_dir, kwargs = reached(["--resume", str(tmp_path)])
  assert got == cfg and name == "mine" and run_dir == str(tmp_path) and kwargs["resume"] is True


# --- the library path ------------------------------------------------------------------------------
@pytest.mark.parametrize(
  "cfg,match",
  [
    ([], "a config is a dict"),
    ({"env": {"name": "FetchReach"}, "agnet": {}}, r"unknown config section\(s\) \['agnet'\]"),
    ({"env": "FetchReach"}, "section 'env' must be a dict"),
    ({"agent": {}}, "env.name is required"),
    ({"env": {"name": ["FetchReach"]}}, "env.name must be a registered environment"),
    ({"env": {"name": "FetchReach"}, "agent": {"algo": ["ppo"]}}, "agent.algo must be one of"),
    (
      {"env": {"name": "FetchReach"}, "agent": {"num_envs": "many"}},
      "agent.num_envs must be an integer, got 'many'",
    ),
    (
      {"env": {"name": "FetchReach"}, "agent": {"vf_clip": "x"}},
      "agent.vf_clip must be a finite number, got 'x'",
    ),
    ({"env": {"name": "FetchReach"}, "agent": {"vf_clip": -1.0}}, r"agent.vf_clip must be > 0, got -1.0"),
    (
      {"env": {"name": "FetchReach"}, "agent": {"algo": "ddpg_her", "clip_eps": 0.2}},
      "unknown key.*agent.clip_eps",
    ),
    ({"env": {"name": "FetchReach"}, "run": {"eval_every": 0}}, "run.eval_every must be >= 1, got 0"),
    ({"env": {"name": "FetchReach", "n_substeps": True}}, "'n_substeps' must be an integer, got True"),
    (
      {"env": {"name": "BlocksPush", "action_bins": "11"}},
      "'action_bins' must be None or a number, got '11'",
    ),
    ({"env": {"name": "BlocksPush", "terminate_on_fall": 0}}, "'terminate_on_fall' must be True or False"),
  ],
)
def test_resolve_raises_config_error(cfg, match):
  with pytest.raises(mjx_envs.ConfigError, match=match):
    experiment.resolve(cfg)


def test_resolve_normalises_values():
  cfg = experiment.resolve(
    {
      "env": {"name": "FetchReach", "episode_length": 40.0},
      "agent": {"total_env_steps": 1e5, "policy_hidden": (32, 32), "vf_clip": None},
      "run": {"max_minutes": 0.5},
    }
  )
  assert cfg["env"]["episode_length"] == 40 and isinstance(cfg["env"]["episode_length"], int)
  assert cfg["agent"]["total_env_steps"] == 100_000 and isinstance(cfg["agent"]["total_env_steps"], int)
  assert cfg["agent"]["policy_hidden"] == [32, 32] and cfg["agent"]["vf_clip"] is None
  assert cfg["run"]["max_minutes"] == 0.5


def test_set_dotted():
  cfg = experiment.resolve(train.load_config("ppo_fetch_reach"))
  with pytest.raises(mjx_envs.ConfigError, match="agent.learning_rate must be a finite number, got 'fast'"):
    experiment.set_dotted(cfg, "agent.learning_rate=fast")
  with pytest.raises(mjx_envs.ConfigError, match="agent.num_minibatches=3 must divide agent.num_envs=128"):
    experiment.set_dotted(cfg, "agent.num_minibatches=3")
  assert experiment.set_dotted(cfg, "agent.num_envs=6", "agent.num_minibatches=3")["agent"]["num_envs"] == 6
  # A new algorithm or env starts its section from that one's defaults.
  ddpg = experiment.set_dotted(cfg, "agent.algo=ddpg_her", "agent.batch_size=64")
  assert ddpg["agent"]["algo"] == "ddpg_her" and ddpg["agent"]["batch_size"] == 64
  assert "clip_eps" not in ddpg["agent"]
  blocks = experiment.set_dotted(cfg, "env.name=BlocksPush", "env.num_objects=2")
  assert blocks["env"] == {**mjx_envs.default_config("BlocksPush"), "name": "BlocksPush", "num_objects": 2}
  asp = experiment.set_dotted(cfg, "agent.algo=asp", "env.name=BlocksSelfPlay")  # valid only together
  assert asp["agent"]["algo"] == "asp"
  # Within a family the config's changes to the shared settings stay: her_hand_reach_cpu (DDPG+HER with
  # batch 2,048, 3M steps, std floor 1e-2) as SAC+HER keeps them, and takes SAC's own exploration.
  her = experiment.resolve(train.load_config("her_hand_reach_cpu"))
  sac = experiment.set_dotted(her, "agent.algo=sac_her")["agent"]
  assert (sac["batch_size"], sac["total_env_steps"], sac["obs_std_min"]) == (2048, 3_000_000, 0.01), sac
  sac_defaults = experiment.set_dotted(
    experiment.resolve(train.load_config("ddpg_her_fetch_push")), "agent.algo=sac_her"
  )
  assert sac["random_eps"] == sac_defaults["agent"]["random_eps"] != her["agent"]["random_eps"]
  assert "noise_eps" not in sac and "alpha_lr" in sac
  assert cfg == experiment.resolve(train.load_config("ppo_fetch_reach"))  # the input is left alone


def test_config_at_applies_the_changes_due_and_not_made():
  cfg = experiment.resolve(
    {
      "env": {"name": "FetchReach"},
      "run": {"changes": [[100, "agent.ent_coef=0.1"], [300, "agent.ent_coef=0.2"]]},
    }
  )
  assert cfg["run"]["changes"] == [[100, "agent.ent_coef=0.1"], [300, "agent.ent_coef=0.2"]]
  ent = lambda *a, **k: experiment.config_at(cfg, *a, **k)["agent"]["ent_coef"]
  assert [ent(99), ent(100), ent(299), ent(300)] == [0.0, 0.1, 0.1, 0.2]
  # A change already recorded (changes.jsonl at 150) is not made again over a later --resume --set.
  assert ent(200, since=150) == 0.0 and ent(300, since=150) == 0.2
  assert experiment.next_change(cfg, 0) == 100 and experiment.next_change(cfg, 100) == 300
  assert experiment.next_change(cfg, 300) is None


def test_rules_name_real_fields():
  """A rule for a field that does not exist would never fire: every rule names a field of its algorithm."""
  for algo, (config_cls, _) in experiment.ALGOS.items():
    fields = {f.name for f in __import__("dataclasses").fields(config_cls)}
    assert set(experiment.RULES[algo]) <= fields, set(experiment.RULES[algo]) - fields
  assert set(experiment.RULES["run"]) <= set(experiment.RUN_DEFAULTS)


def test_import_prints_nothing():
  """MJX prints "Failed to import warp" on import where Warp is absent; a user who did not ask for Warp
  should see nothing."""
  out = subprocess.run(
    [sys.executable, "-c", "import mjx_envs"],
    cwd=ROOT,
    capture_output=True,
    text=True,
    check=True,
    timeout=120,
  )
  assert "Failed to import" not in out.stdout + out.stderr, out.stdout + out.stderr
  assert out.stdout == "", out.stdout
