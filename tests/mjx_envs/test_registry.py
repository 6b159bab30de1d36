"""The public face: names, config keys and values are checked with errors that name the problem."""
import pytest

import mjx_envs

EXPECTED = ["Blocks", "BlocksFlip", "BlocksPickAndPlace", "BlocksPush", "BlocksStack",
            "FetchPickAndPlace", "FetchPush", "FetchReach", "FetchSlide"]


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


@pytest.mark.parametrize("name,overrides,match", [
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
])
def test_invalid_values(name, overrides, match):
  with pytest.raises(mjx_envs.ConfigError, match=match):
    mjx_envs.make(name, **overrides)


def test_default_config_lists_every_key():
  cfg = mjx_envs.default_config("BlocksPush")
  assert cfg["num_objects"] == 1 and "task" not in cfg  # the task is fixed by the name
  assert mjx_envs.default_config("BlocksStack")["num_objects"] == 2
