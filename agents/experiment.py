"""Experiment configs: resolution against defaults, dotted overrides, building, and `load_policy`.

An experiment config is a nested dict with three sections:
  env:   {"name": registered env name, ...any key of mjx_envs.default_config(name)}
  agent: {"algo": "ppo", "ddpg_her" or "asp", ...any field of that algorithm's config dataclass}
  run:   {"seed", "eval_every", "num_eval_envs", ...host-loop settings, see RUN_DEFAULTS}
`resolve` fills every section with its defaults, so the resolved dict lists every valid key and
`set_dotted` can refuse unknown ones by name.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import json
import os
from typing import Any, Dict

import jax
import numpy as np

import mjx_envs
from agents import ddpg as ddpg_lib
from agents import holdout
from agents import selfplay as asp_lib
from agents import ppo as ppo_lib

RUN_DEFAULTS = {
    "seed": 0,
    "eval_every": 10,          # train steps per host call; evaluation, logging, checkpoint after each
    "checkpoint_every": 1,     # in host calls
    "keep_checkpoints": 3,     # the newest N are kept (self-play keeps more for its payoff matrix)
    "num_eval_envs": 128,
    "max_minutes": 0,          # >0: stop (checkpointed, resumable) once this much wall-clock has passed
}

ALGOS = {"ppo": (ppo_lib.PPOConfig, ppo_lib.make_train),
         "ddpg_her": (ddpg_lib.DDPGConfig, ddpg_lib.make_train),
         "asp": (asp_lib.ASPConfig, asp_lib.make_train)}


def resolve(cfg: Dict[str, Any]) -> Dict[str, Any]:
  """A complete config: every section filled with defaults; unknown keys raise a ValueError."""
  cfg = copy.deepcopy(cfg)
  unknown = set(cfg) - {"env", "agent", "run", "description"}
  if unknown:
    raise ValueError(f"unknown config section(s) {sorted(unknown)}; valid: env, agent, run, description")
  env = dict(cfg.get("env", {}))
  if "name" not in env:
    raise ValueError("config env.name is required")
  name = env.pop("name")
  env = {"name": name, **mjx_envs.check_config(name, mjx_envs.default_config(name), env)}
  agent = dict(cfg.get("agent", {}))
  algo = agent.pop("algo", "ppo")
  if algo not in ALGOS:
    raise ValueError(f"unknown agent.algo {algo!r}; valid: {sorted(ALGOS)}")
  fields = {f.name: f.default for f in dataclasses.fields(ALGOS[algo][0])}
  agent = {"algo": algo, **_merge("agent", fields, agent)}
  run = _merge("run", RUN_DEFAULTS, cfg.get("run", {}))
  return {"description": cfg.get("description", ""), "env": env, "agent": agent, "run": run}


def _merge(section, defaults, values):
  unknown = sorted(set(values) - set(defaults))
  if unknown:
    raise ValueError(f"unknown key(s) {[f'{section}.{k}' for k in unknown]}; valid keys: "
                     f"{sorted(f'{section}.{k}' for k in defaults)}")
  out = dict(defaults)
  out.update(values)
  return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}


def valid_keys(cfg: Dict[str, Any]):
  return sorted(f"{s}.{k}" for s in ("env", "agent", "run") for k in cfg[s])


def set_dotted(cfg: Dict[str, Any], assignment: str) -> Dict[str, Any]:
  """Applies 'section.key=value' (value parsed as a Python literal, else a string) to a resolved config."""
  if "=" not in assignment:
    raise ValueError(f"--set expects section.key=value, got {assignment!r}")
  key, raw = assignment.split("=", 1)
  parts = key.strip().split(".")
  if len(parts) != 2 or parts[0] not in ("env", "agent", "run") or parts[1] not in cfg[parts[0]]:
    raise ValueError(f"unknown config key {key!r}; valid keys: {valid_keys(cfg)}")
  try:
    value = ast.literal_eval(raw)
  except (ValueError, SyntaxError):
    value = raw
  cfg = copy.deepcopy(cfg)
  cfg[parts[0]][parts[1]] = value
  if parts == ["env", "name"]:
    return resolve({**cfg, "env": {"name": value}})
  return resolve(cfg)


def build(cfg: Dict[str, Any]):
  """(env, algorithm object) for a resolved config."""
  env_cfg = dict(cfg["env"])
  env = mjx_envs.make(env_cfg.pop("name"), **env_cfg)
  agent = dict(cfg["agent"])
  config_cls, make = ALGOS[agent.pop("algo")]
  agent = {k: tuple(v) if isinstance(v, list) else v for k, v in agent.items()}
  agent["num_eval_envs"] = cfg["run"]["num_eval_envs"]
  return env, make(env, config_cls(**agent))


def load_policy(run_dir: str, deterministic: bool = True, step: int | None = None):
  """act(obs, key) -> env action, from a run directory's config.json and latest (or `step`) checkpoint."""
  from agents.checkpoint import Checkpointer  # pylint: disable=import-outside-toplevel
  with open(os.path.join(run_dir, "config.json")) as f:
    cfg = resolve(json.load(f))
  _, algo = build(cfg)
  abstract = jax.eval_shape(algo.init, jax.random.PRNGKey(0))
  ckpt = Checkpointer(run_dir)
  state, _ = ckpt.restore(checkpoint_view(algo, abstract), step)
  ckpt.close()
  return algo.policy(state.params, state.obs_norm, deterministic)


def record_video(algo, params, obs_norm, path: str, seed: int = 0, width: int = 480,
                 height: int = 360) -> str:
  """Renders one episode of the deterministic policy to `path` (.mp4 or .gif); returns `path`.

  PPO and DDPG+HER: the training env for up to the episode length, cut where the episode ends.
  Self-play: Bob on the first holdout task, cut at his first success. A recurrent policy starts from
  its initial carry.
  """
  from mjx_envs import render  # pylint: disable=import-outside-toplevel
  act = algo.policy(params, obs_norm, True)
  if isinstance(algo, asp_lib.AsymmetricSelfPlay):
    env = holdout.make_holdout_env(algo.config.holdout_tasks[0], algo.holdout_world)
    num_steps = int(algo.raw_env.config["bob_steps_per_object"]) * env.num_objects
  else:
    env, num_steps = algo.raw_env, int(algo.episode_length)
  states = render.rollout(env, act, jax.random.PRNGKey(seed), num_steps)
  end = np.asarray(states.done) > 0
  if isinstance(algo, asp_lib.AsymmetricSelfPlay):  # the holdout env does not end on success
    end |= np.asarray(states.metrics["is_success"]) > 0
  length = int(np.argmax(end)) + 1 if end.any() else len(end)
  frames = render.render_rollout(env, jax.tree.map(lambda x: x[:length], states), width, height)
  fps = round(1.0 / env.dt)
  frames = np.concatenate([frames, np.repeat(frames[-1:], fps // 2, 0)])  # hold the end for 0.5 s
  return render.save_video(frames, path, fps)


def checkpoint_view(algo, state):
  """The part of a train state that checkpoints hold (an algorithm may leave e.g. its replay out)."""
  return algo.checkpoint_view(state) if hasattr(algo, "checkpoint_view") else state


def from_checkpoint(algo, restored):
  """A full train state from a restored `checkpoint_view`."""
  return algo.from_checkpoint(restored) if hasattr(algo, "from_checkpoint") else restored
