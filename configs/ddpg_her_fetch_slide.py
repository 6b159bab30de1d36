"""DDPG+HER on FetchSlide: the FetchPush settings (configs/ddpg_her_fetch_push.py), a longer budget."""
import copy
import os
import runpy

_PUSH = runpy.run_path(os.path.join(os.path.dirname(__file__), "ddpg_her_fetch_push.py"))


def get_config():
  cfg = copy.deepcopy(_PUSH["get_config"]())
  cfg["env"]["name"] = "FetchSlide"
  cfg["agent"]["total_env_steps"] = 4_000_000
  return cfg
