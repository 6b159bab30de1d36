"""The public face: names, config keys and values are checked with errors that name the problem."""

import mjx_envs

import pytest

EXPECTED = [
  "Blocks",
  "BlocksFlip",
  "BlocksPickAndPlace",
  "BlocksPush",
  "BlocksStack",
  "FetchPickAndPlace",
  "FetchPush",
  "FetchReach",
  "FetchSlide",
]


def test_all_families_registered():
  assert set(EXPECTED) <= set(mjx_envs.registered())


def test_unknown_name_lists_registered():
  with pytest.raises(ValueError, match="unknown environment 'BlocksPsh'") as err:
    mjx_envs.make("BlocksPsh")
  assert "BlocksPush" in str(err.value) and "FetchReach" in str(err.value)


def test_unknown_override_names_key_and_valid_keys():
  with pytest.raises(ValueError, match=r"num_object'\]") as err:
    mjx_envs.make("BlocksPush", num_object=2)
  assert "num_objects" in str(err.value)


@pytest.mark.parametrize(
  "name,overrides,match",
  [
    ("BlocksPush", {"num_objects": 0}, "num_objects"),
    ("BlocksPush", {"num_objects": 9}, "num_objects"),
    ("BlocksPush", {"num_objects": 2.5}, "num_objects"),
    ("BlocksStack", {"num_objects": 1}, "stack"),
    ("BlocksStack", {"num_objects": 5}, "stack"),
    ("BlocksPush", {"action_bins": 1}, "action_bins"),
    ("BlocksPush", {"sim_dt": -0.01}, "sim_dt"),
    ("BlocksPush", {"n_substeps": 0}, "n_substeps"),
    ("BlocksPush", {"table_portion": 0.05}, "table_portion"),
    ("BlocksPush", {"action_smoothing": 0.0}, "action_smoothing"),
  ],
)
def test_invalid_values(name, overrides, match):
  with pytest.raises(mjx_envs.ConfigError, match=match):
    mjx_envs.make(name, **overrides)


def test_default_config_lists_every_key():
  cfg = mjx_envs.default_config("BlocksPush")
  assert cfg["num_objects"] == 1 and "task" not in cfg  # the task is fixed by the name
  assert mjx_envs.default_config("BlocksStack")["num_objects"] == 2


@pytest.mark.parametrize(
  "name,overrides,match",
  [
    ("FetchReach", {"episode_length": 2.5}, r"'episode_length' must be an integer, got 2.5"),
    ("FetchReach", {"n_substeps": True}, r"'n_substeps' must be an integer, got True"),
    ("FetchReach", {"sim_dt": "fast"}, r"'sim_dt' must be a finite number, got 'fast'"),
    ("FetchReach", {"reward_type": 1}, r"'reward_type' must be a string, got 1"),
    ("BlocksPush", {"terminate_on_fall": 1}, r"'terminate_on_fall' must be True or False, got 1"),
    ("BlocksPush", {"action_bins": "11"}, r"'action_bins' must be None or a number, got '11'"),
  ],
)
def test_values_are_checked_against_the_default_type(name, overrides, match):
  with pytest.raises(mjx_envs.ConfigError, match=match):
    mjx_envs.make(name, **overrides)


def test_integral_floats_become_ints():
  """2e2 for an int key is an int (a command line or JSON may give a float); an int for a float key stays."""
  cfg = mjx_envs.check_config(
    "FetchReach", mjx_envs.default_config("FetchReach"), {"episode_length": 2e2, "distance_threshold": 1}
  )
  assert cfg["episode_length"] == 200 and isinstance(cfg["episode_length"], int)
  assert cfg["distance_threshold"] == 1
