"""Experiment configs: resolution against defaults, dotted overrides, building, and `load_policy`.

An experiment config is a nested dict with three sections:
  env:   {"name": registered env name, ...any key of mjx_envs.default_config(name)}
  agent: {"algo": "ppo", "ddpg_her", "sac_her", "mtsac", "asp" or "mappo", ...any field of that algorithm's config dataclass}
  run:   {"seed", "eval_every", "num_eval_envs", ...host-loop settings, see RUN_DEFAULTS}
`resolve` fills every section with its defaults, so the resolved dict lists every valid key and
`set_dotted` can refuse unknown ones by name.
"""

from __future__ import annotations

import mjx_envs
from mjx_envs.hide_and_seek import transfer as hns_transfer
from mjx_envs.metaworld.multitask import ML10_TEST, ML10_TRAIN, ML45_TEST, ML45_TRAIN, MT10_TASKS, MT50_TASKS

import ast
import collections.abc
import copy
import dataclasses
import difflib
import json
import os
import types
import typing
from collections.abc import Mapping
from typing import Any

import jax
import numpy as np

from agents.common import optim, relabel
from agents.her import ddpg as ddpg_lib
from agents.her import sac as sac_lib
from agents.league import opponent_pool
from agents.mappo import train as mappo_lib
from agents.multitask import mtsac as mtsac_lib
from agents.ppo import losses
from agents.ppo import train as ppo_lib
from agents.selfplay import asp as asp_lib
from agents.selfplay import holdout

ConfigError = mjx_envs.ConfigError  # one error type (a ValueError) for every bad name, key or value

RUN_DEFAULTS = {
  "seed": 0,
  "eval_every": 10,  # train steps per host call; evaluation, logging, checkpoint after each
  "checkpoint_every": 1,  # in host calls
  "keep_checkpoints": 3,  # the newest N are kept (self-play keeps more for its payoff matrix)
  "num_eval_envs": 128,
  "max_minutes": 0,  # >0: stop (checkpointed, resumable) once this much wall-clock has passed
  "devices": 0,  # CPU: host devices the env batch is split over (0: one per core); the
  # count used is written here, so a resume uses it (it is part of the seed)
  "count_flops": True,  # log compute/flops_per_step and compute/pflops_days (agents.league.flops; counted
  # in a thread after the first chunk, in runs with 3 or more chunks left)
  "ratings_every": 0,  # self-play and hide-and-seek: TrueSkill ratings of the kept checkpoints
  # (agents.tournament) every N host calls, into ratings.json/.png; 0: off (python -m agents.tournament
  # ratings)
  "init_from": "",  # "RUN_DIR[@N]": a new run starts from that run's parameters wherever the layers
  # match (fine-tuning on another task, e.g. the hide-and-seek transfer suite; `warm_start`); or a policy
  # file of `export_policy` with the run's own layers; "": fresh
  "init_fresh": [],  # used with init_from only: patterns (fnmatch on "policy/params/Dense_0/kernel"-style paths) of
  # parameters that keep their fresh draws though the donor has them (the hide-and-seek paper re-draws
  # the final dense layer and layer norm before fine-tuning; `agents.league.surgery.transplant`)
  "changes": [],  # [[ENV_STEPS, "section.key=value", ...], ...]: env and agent settings that change during
  # the run, each at the first evaluation at or after its env steps, as a `--resume --set` there would
  # (the whole train state carried; changes.jsonl records it), in one command (`config_at`)
}
_RUN_TYPES = {**{k: type(v) for k, v in RUN_DEFAULTS.items()}, "max_minutes": float}  # types for `_merge`

ALGOS = {
  "ppo": (ppo_lib.PPOConfig, ppo_lib.make_train),
  "ddpg_her": (ddpg_lib.DDPGConfig, ddpg_lib.make_train),
  "sac_her": (sac_lib.SACConfig, sac_lib.make_train),
  "mtsac": (mtsac_lib.MTSACConfig, mtsac_lib.make_train),
  "asp": (asp_lib.ASPConfig, asp_lib.make_train),
  "mappo": (mappo_lib.MAPPOConfig, mappo_lib.make_train),
}


# --- value rules: (test, what is allowed) -----------------------------------------------------------
def _ge(low):
  return (lambda v: v >= low), f">= {low}"


def _gt(low):
  return (lambda v: v > low), f"> {low}"


def _within(low, high, high_open=False):
  return (
    (lambda v: low <= v < high) if high_open else (lambda v: low <= v <= high),
    f"in [{low}, {high}{')' if high_open else ']'}",
  )


def _one_of(choices):
  return (lambda v: v in choices), f"one of {list(choices)}"


def _each(rule):
  return (lambda v: all(rule[0](x) for x in v)), f"a list of values {rule[1]}"


def _holdout_tasks():
  def ok(tasks):
    try:
      return len(tasks) > 0 and all(holdout.parse_task(t) for t in tasks)
    except ValueError:
      return False

  tasks = [t for t in holdout.block_env.TASKS if t]
  return ok, f"a non-empty list of '<task>-<objects>' with a task in {tasks}, e.g. ['push-1']"


# The activations networks.MLP looks up by name in flax.linen.
ACTIVATIONS = (
  "celu",
  "elu",
  "gelu",
  "hard_sigmoid",
  "hard_silu",
  "hard_swish",
  "hard_tanh",
  "leaky_relu",
  "relu",
  "relu6",
  "selu",
  "sigmoid",
  "silu",
  "soft_sign",
  "softplus",
  "swish",
  "tanh",
)
_SHARED = {
  "num_envs": _ge(1),
  "total_env_steps": _ge(1),
  "num_eval_envs": _ge(1),
  "gamma": _within(0, 1),
  "obs_clip": _gt(0),
}
_OPTIM = {"lr_schedule": _one_of(optim.SCHEDULES), "lr_end_frac": _ge(0), "grad_clip_sqrt_v": _ge(0)}
_PPO_LIKE = {
  "num_minibatches": _ge(1),
  "update_epochs": _ge(1),
  "learning_rate": _gt(0),
  "gae_lambda": _within(0, 1),
  "clip_eps": _gt(0),
  "vf_coef": _ge(0),
  "ent_coef": _ge(0),
  "max_grad_norm": _gt(0),
  **_OPTIM,
  "ent_schedule": _one_of(optim.SCHEDULES),
  "ent_coef_end": _ge(0),
}
# The off-policy HER learners' shared settings (agents.her.ddpg.HERConfig).
_HER = {
  **_SHARED,
  **_OPTIM,
  "unroll_length": _ge(1),
  "episode_length": _ge(1),
  "updates_per_cycle": _ge(1),
  "batch_size": _ge(1),
  "grad_batches": _ge(1),
  "buffer_size": _ge(1),
  "actor_lr": _gt(0),
  "critic_lr": _gt(0),
  "polyak": _within(0, 1),
  "hidden": _each(_ge(1)),
  "random_eps": _within(0, 1),
  "obs_std_min": _gt(0),
  "replay_strategy": _one_of(relabel.STRATEGIES),
  "replay_k": _ge(0),
  "demo_episodes": _ge(0),
  "demo_batch_size": _ge(0),
}
_CLONING = {"bc_weight": _ge(0), "bc_until": _ge(0), "bc_half_life": _ge(0)}
RULES = {
  "ppo": {
    **_SHARED,
    **_PPO_LIKE,
    "unroll_length": _ge(1),
    "episode_length": _ge(1),
    "staleness": _ge(0),
    "vf_clip": _gt(0),
    "policy_hidden": _each(_ge(1)),
    "value_hidden": _each(_ge(1)),
    "activation": _one_of(ACTIVATIONS),
    "distribution": _one_of(("normal", "tanh_normal", "categorical")),
    "lstm_size": _ge(0),
    "hindsight_coef": _ge(0),
    "hindsight_clip": _gt(0),
    "hindsight_strategy": _one_of(relabel.STRATEGIES),
    "hindsight_form": _one_of(losses.FORMS),
  },
  "ddpg_her": {**_HER, **_CLONING, "noise_eps": _ge(0), "action_l2": _ge(0)},
  "sac_her": {
    **_HER,
    **_CLONING,
    "alpha_lr": _gt(0),
    "init_alpha": _gt(0),
  },  # target_entropy: any number, or None
  # Multi-task SAC on a plain env (Meta-World): no relabelling; num_tasks None (the env's) or >= 1.
  "mtsac": {
    **_HER,
    "alpha_lr": _gt(0),
    "init_alpha": _gt(0),
    "replay_strategy": _one_of(("none",)),
    "num_tasks": _ge(1),
  },
  "asp": {
    **_SHARED,
    **_PPO_LIKE,
    "unroll_length": _ge(0),
    "hidden": _each(_ge(1)),
    "lstm_size": _ge(0),
    "abc_coef": _ge(0),
    "abc_clip": _gt(0),
    "abc_form": _one_of(losses.FORMS),
    "past_opponent_prob": _within(0, 1, high_open=True),
    "pool_size": _ge(1),
    "pool_every": _ge(1),
    "opponent_sampling": _one_of(opponent_pool.SAMPLING),
    "pool_eta": _ge(0),
    "holdout_tasks": _holdout_tasks(),
    "holdout_max_goals": _ge(1),
  },
  "mappo": {
    **{k: v for k, v in _SHARED.items() if k != "obs_clip"},
    "num_minibatches": _ge(1),
    "update_epochs": _ge(1),
    "learning_rate": _gt(0),
    "gae_lambda": _within(0, 1),
    "clip_eps": _gt(0),
    "vf_coef": _ge(0),
    "ent_coef": _ge(0),
    "max_grad_norm": _gt(0),
    "lr_schedule": _one_of(optim.SCHEDULES),
    "lr_end_frac": _ge(0),
    "unroll_length": _ge(1),
    "bptt_length": _ge(1),
    "episode_length": _ge(1),
    "embed": _ge(1),
    "heads": _ge(1),
    "head_dim": _ge(1),
    "dense": _ge(1),
    "lstm_size": _ge(1),
    "team_spirit": _within(0, 1),
    "team_spirit_end": _within(0, 1),
    "past_opponent_prob": _within(0, 1),
    "pool_size": _ge(1),
    "pool_every": _ge(1),
    "opponent_sampling": _one_of(opponent_pool.SAMPLING),
    "pool_eta": _ge(0),
  },
  "run": {
    "seed": _within(0, 2**31, high_open=True),
    "eval_every": _ge(1),
    "checkpoint_every": _ge(1),
    "keep_checkpoints": _ge(1),
    "num_eval_envs": _ge(1),
    "max_minutes": _ge(0),
    "devices": _ge(0),
    "ratings_every": _ge(0),
  },
}


def resolve(cfg: dict[str, Any]) -> dict[str, Any]:
  """A complete, checked config: every section filled with defaults.

  Raises ConfigError (a ValueError) naming the key, the value and what is allowed for an unknown section
  or key, a value of the wrong type (each is checked against its default's type: an int field takes an
  int or an integral float such as 2e6, a float field any finite number, a bool field True or False, a
  choice one of its choices), a value out of range, or settings that contradict each other (e.g.
  agent.num_minibatches not dividing agent.num_envs). The env's own values are checked by building the
  env: milliseconds, no tracing, but it starts JAX's backend (mjx.put_model), so process-wide JAX
  settings such as the CPU device count must come first.
  """
  if not isinstance(cfg, Mapping):
    raise ConfigError(f"a config is a dict with sections env, agent, run; got {type(cfg).__name__}")
  cfg = copy.deepcopy(dict(cfg))
  unknown = set(cfg) - {"env", "agent", "run", "description"}
  if unknown:
    raise ConfigError(f"unknown config section(s) {sorted(unknown)}; valid: env, agent, run, description")
  for section in ("env", "agent", "run"):
    if not isinstance(cfg.get(section, {}), Mapping):
      raise ConfigError(f"config section {section!r} must be a dict, got {cfg[section]!r}")
  env = _resolve_env(dict(cfg.get("env", {})))
  agent = _resolve_agent(dict(cfg.get("agent", {})), env)
  run = _merge("run", RUN_DEFAULTS, cfg.get("run", {}), _RUN_TYPES)
  _check_rules("run", run, RULES["run"])
  run["changes"] = _check_changes(run["changes"])
  if not all(isinstance(q, str) and q for q in run["init_fresh"]):
    raise ConfigError(
      f"run.init_fresh: a list of parameter path patterns (strings), got {run['init_fresh']!r}"
    )
  if env.get("impl") == "warp":
    if env["warp_max_envs"] is None:  # sized for this run's largest batch: no larger (Warp's CPU cost grows)
      env["warp_max_envs"] = max(agent["num_envs"], run["num_eval_envs"])
    for section, key in (("agent", "num_envs"), ("run", "num_eval_envs")):
      n = {"agent": agent, "run": run}[section][key]
      if n > env["warp_max_envs"]:
        raise ConfigError(
          f"{section}.{key}={n} exceeds env.warp_max_envs={env['warp_max_envs']} (MuJoCo "
          f"Warp's contact buffer is sized for that many envs): raise env.warp_max_envs"
        )
  # A meta-learning benchmark evaluates on its test split, whose tasks differ from the trained ones.
  for section, key, split in (("agent", "num_envs", None), ("run", "num_eval_envs", "test")):
    n, tasks = {"agent": agent, "run": run}[section][key], _num_tasks(env, split)
    if tasks > 1 and n % tasks:
      raise ConfigError(
        f"{section}.{key}={n} must be a multiple of the {tasks} "
        f"{'test tasks' if split and env['name'].startswith('ML') else 'tasks'} of {env['name']} "
        f"(worlds per task x tasks)"
      )
  return {"description": cfg.get("description", ""), "env": env, "agent": agent, "run": run}


def _check_changes(changes) -> list:
  """run.changes checked for form (each entry [ENV_STEPS >= 1, "env.KEY=VALUE" or "agent.KEY=VALUE", ...],
  env steps increasing) and normalised to lists; the assignments themselves are checked where they are
  applied (`config_at`, which train.py calls for every entry before it trains)."""
  form = 'a list of [ENV_STEPS, "section.key=value", ...] entries, e.g. [[352000, "env.x=1"]]'
  if not isinstance(changes, (list, tuple)):
    raise ConfigError(f"run.changes must be {form}; got {changes!r}")
  out, last = [], 0
  for entry in changes:
    if not isinstance(entry, (list, tuple)) or len(entry) < 2:
      raise ConfigError(
        f"run.changes: each entry must be [ENV_STEPS, 'section.key=value', ...]; got {entry!r}"
      )
    at = _check_hint("run.changes env steps", int, entry[0])
    if at < 1 or at <= last:
      raise ConfigError(f"run.changes: env steps must be >= 1 and increasing; got {at} after {last}")
    for a in entry[1:]:
      key = a.split("=", 1)[0].strip() if isinstance(a, str) and "=" in a else None
      if key is None or key.split(".")[0] not in ("env", "agent") or key in ("env.name", "agent.algo"):
        raise ConfigError(
          f"run.changes: {a!r} at {at} env steps: a change is 'env.KEY=VALUE' or 'agent.KEY=VALUE' "
          "(not env.name or agent.algo: a run keeps its env and learner)"
        )
    out.append([at, *entry[1:]])
    last = at
  return out


def config_at(cfg: dict[str, Any], env_steps: int, since: int = 0) -> dict[str, Any]:
  """`cfg` with every `run.changes` entry due by `env_steps` and after `since` applied (resolved; an
  unknown key or bad value raises ConfigError naming it). since: the env steps of the run's last recorded
  change (changes.jsonl), so that an entry made already is not made again over a later `--resume --set`
  of the same key."""
  for at, *assignments in cfg["run"]["changes"]:
    if since < at <= env_steps:
      try:
        cfg = set_dotted(cfg, *assignments)
      except ConfigError as e:
        raise ConfigError(f"run.changes at {at} env steps: {e}") from None
  return cfg


def next_change(cfg: dict[str, Any], env_steps: int) -> int | None:
  """The env steps of the first `run.changes` entry after `env_steps`, or None."""
  return next((at for at, *_ in cfg["run"]["changes"] if at > env_steps), None)


def _num_tasks(env_cfg, split: str | None = None) -> int:
  """The number of tasks a multi-task env (e.g. MT10) steps together; 1 for a single-task env. For a
  meta-learning benchmark (ML10, ML45, ML), those of `split` (default: the env's own `split`)."""
  name = env_cfg["name"]
  lists = {
    "ML10": (ML10_TRAIN, ML10_TEST),
    "ML45": (ML45_TRAIN, ML45_TEST),
    "ML": (env_cfg.get("train_tasks"), env_cfg.get("test_tasks")),
  }
  if name in lists:
    return len(lists[name][(split or env_cfg["split"]) == "test"])
  if name == "MT":
    return len(env_cfg.get("tasks") or ())
  return {"MT10": len(MT10_TASKS), "MT50": len(MT50_TASKS)}.get(name, 1)


def _check_env_name(name):
  if not isinstance(name, str) or name not in mjx_envs.registered():
    raise ConfigError(
      f"env.name must be a registered environment, one of {mjx_envs.registered()}; got {name!r}"
    )
  return name


def _check_algo(algo):
  if not isinstance(algo, str) or algo not in ALGOS:
    raise ConfigError(f"agent.algo must be one of {sorted(ALGOS)}, got {algo!r}")
  return algo


def _resolve_env(env):
  if "name" not in env:
    raise ConfigError("config env.name is required; one of " + ", ".join(mjx_envs.registered()))
  name = _check_env_name(env.pop("name"))
  env = mjx_envs.check_config(name, mjx_envs.default_config(name), env)
  out = {"name": name, **{k: list(v) if isinstance(v, tuple) else v for k, v in env.items()}}
  key = _env_key(out)
  if key not in _ENVS_BUILT:
    try:
      built = mjx_envs.make(name, **env)  # the env's own range checks, in one place: its constructor
    except ConfigError as e:
      raise ConfigError(str(e) if str(e).startswith(name) else f"{name}: {e}") from None
    _ENVS_BUILT.add(key)
    _LAST_ENV.clear()
    _LAST_ENV[key] = built
  return out


def _env_key(env_cfg: Mapping[str, Any]) -> str:
  """A resolved env section (name included) as one string, equal for equal configs (tuples as lists)."""
  return json.dumps(
    {k: list(v) if isinstance(v, tuple) else v for k, v in env_cfg.items()}, sort_keys=True, default=repr
  )


# Env configs whose constructor has run without error in this process: building MT50 or ML45 (50 models,
# their MJX copies and C backends) takes 5-15 s, and a config is resolved several times on its way to
# training (train.py, --resume, config.json); the constructor is deterministic in its config.
_ENVS_BUILT: set[str] = set()
# The env that check built last, by its key: `build` takes it instead of building the same env again
# (envs are immutable; MT50's second build cost 4-6 s of a warm start). One entry, taken once.
_LAST_ENV: dict[str, Any] = {}


def _resolve_agent(agent, env):
  algo = _check_algo(agent.pop("algo", "ppo"))
  config_cls = ALGOS[algo][0]
  hints = typing.get_type_hints(config_cls)
  fields = {f.name: f.default for f in dataclasses.fields(config_cls)}
  agent = _merge("agent", fields, agent, {k: hints[k] for k in fields})
  _check_rules("agent", agent, RULES[algo])
  if algo in ("ppo", "asp") and agent["num_envs"] % agent["num_minibatches"]:
    raise ConfigError(
      f"agent.num_minibatches={agent['num_minibatches']} must divide "
      f"agent.num_envs={agent['num_envs']} (each minibatch takes whole envs)"
    )
  if (
    algo in ("ddpg_her", "sac_her", "mtsac")
    and agent["num_envs"] * agent["unroll_length"] > agent["buffer_size"]
  ):
    raise ConfigError(
      f"agent.buffer_size={agent['buffer_size']} must hold one cycle of agent.num_envs x "
      f"agent.unroll_length = {agent['num_envs'] * agent['unroll_length']} transitions"
    )
  if algo == "ppo" and agent["hindsight"] and agent["lstm_size"]:
    raise ConfigError(f"agent.hindsight=True needs agent.lstm_size=0 (no LSTM), got {agent['lstm_size']}")
  bins = env.get("action_bins")
  if algo == "ppo" and agent["distribution"] == "categorical" and not bins:
    raise ConfigError(
      f"agent.distribution='categorical' needs an env with binned actions "
      f"(env.action_bins, e.g. 11); env {env['name']} has action_bins={bins!r}"
    )
  if algo == "mtsac" and not (env["name"].startswith("metaworld/") or env["name"] in ("MT10", "MT50", "MT")):
    raise ConfigError(
      f"agent.algo='mtsac' needs a Meta-World env (a plain env with a flat observation): "
      f"'MT10', 'MT50', 'MT' (a set of tasks) or a single task 'metaworld/<task>'; got env.name={env['name']!r}"
    )
  if algo == "mtsac" and agent["clip_target"]:
    raise ConfigError(
      "agent.clip_target=True clips targets to the returns of sparse rewards in [-1, 0]; "
      "agent.algo='mtsac' learns Meta-World's dense rewards: set agent.clip_target=False"
    )
  mtsac_tasks = _num_tasks(env)
  if algo == "mtsac" and agent["num_tasks"] not in (None, mtsac_tasks):
    raise ConfigError(
      f"agent.num_tasks={agent['num_tasks']} but env {env['name']} has {mtsac_tasks} "
      f"task(s); leave it None (the env's)"
    )
  trainable_transfer = {n for n, cls in hns_transfer.TASKS.items() if cls.has_reward}
  if algo == "mappo" and not (env["name"].startswith("HideAndSeek") or env["name"] in trainable_transfer):
    raise ConfigError(
      f"agent.algo='mappo' needs a hide-and-seek env (HideAndSeekQuadrant, HideAndSeek) or a transfer "
      f"task ({', '.join(sorted(trainable_transfer))}); got env.name={env['name']!r}"
      + (" (a supervised probe, with no reward to learn from)" if env["name"] == "HnsObjectCounting" else "")
    )
  if algo == "asp" and (env["name"] != "BlocksSelfPlay" or not bins):
    raise ConfigError(
      f"agent.algo='asp' needs env.name='BlocksSelfPlay' with env.action_bins set (e.g. 11); "
      f"got env.name={env['name']!r}, env.action_bins={bins!r}"
    )
  try:  # the dataclass's own checks, as a backstop for any rule above that lags behind it
    config_cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in agent.items()})
  except (ValueError, TypeError) as e:
    raise ConfigError(f"agent ({algo}): {e}") from None
  return {"algo": algo, **agent}


def _merge(section, defaults, values, types):
  """defaults updated with values: unknown keys refused; each value checked against types[key], a type
  hint (int, float, bool, str, `X | None`, Sequence[X]), and normalised (2e6 -> 2000000, tuple -> list)."""
  unknown = sorted(set(values) - set(defaults))
  if unknown:
    raise ConfigError(
      f"unknown key(s) {[f'{section}.{k}' for k in unknown]}; valid keys: "
      f"{sorted(f'{section}.{k}' for k in defaults)}"
    )
  out = dict(defaults)
  out.update({k: _check_hint(f"{section}.{k}", types[k], v) for k, v in values.items()})
  return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}


def _check_hint(key, hint, value):
  """`value` checked against a type hint (see `_merge`), or a ConfigError naming key, value and type."""
  origin, args = typing.get_origin(hint), typing.get_args(hint)
  if origin in (typing.Union, types.UnionType) and type(None) in args:
    if value is None:
      return None
    rest = [a for a in args if a is not type(None)]
    hint = rest[0] if len(rest) == 1 else typing.Any
    origin, args = typing.get_origin(hint), typing.get_args(hint)
  if origin in (collections.abc.Sequence, list, tuple):
    if not isinstance(value, (list, tuple)):
      raise ConfigError(f"{key} must be a list, got {value!r}")
    return [_check_hint(f"{key}[{i}]", args[0] if args else typing.Any, v) for i, v in enumerate(value)]
  defaults = {int: 0, float: 0.0, bool: False, str: ""}
  if hint not in defaults:
    return value
  try:
    return mjx_envs.core.coerce_like(defaults[hint], value)
  except TypeError as e:
    raise ConfigError(f"{key} must be {e}, got {value!r}") from None


def _check_rules(section, values, rules):
  for k, (test, allowed) in rules.items():
    v = values[k]
    if v is not None and not test(v):
      raise ConfigError(f"{section}.{k} must be {allowed}, got {v!r}")


def valid_keys(cfg: dict[str, Any]):
  """Every 'section.key' that `set_dotted` accepts on `cfg` (its env's and its algorithm's keys)."""
  return sorted(f"{s}.{k}" for s in ("env", "agent", "run") for k in _section_keys(cfg, s))


def _section_keys(cfg, section):
  if section == "run":
    return set(RUN_DEFAULTS)
  if section == "env":
    name = cfg.get("env", {}).get("name")
    return {"name"} | (set(mjx_envs.default_config(name)) if name in mjx_envs.registered() else set())
  algo = cfg.get("agent", {}).get("algo", "ppo")
  return {"algo"} | ({f.name for f in dataclasses.fields(ALGOS[algo][0])} if algo in ALGOS else set())


def _parse_value(raw: str):
  """A --set value: a Python literal (1e-3, (64, 64), None, 'x'); true/false/null/none in any case; else
  the string itself."""
  try:
    return ast.literal_eval(raw)
  except (ValueError, SyntaxError):
    words = {"true": True, "false": False, "null": None, "none": None}
    return words.get(raw.strip().lower(), raw)


def set_dotted(cfg: dict[str, Any], *assignments: str) -> dict[str, Any]:
  """Applies 'section.key=value' assignments in order (each value parsed as a Python literal, else taken
  as a string) and returns the config resolved, so checked (see `resolve`) once all are applied: pass
  together the ones that only make sense together (agent.num_envs=6 and agent.num_minibatches=3). A new
  env.name or agent.algo starts that section afresh from its defaults, as the old one's keys need not
  exist in the new one; except that a new algorithm of the same family keeps what the config changed in
  the settings the two share (ddpg_her -> sac_her keeps a config's batch_size=2048 and total_env_steps,
  the fields of their common HERConfig that differ from DDPG's defaults; each takes its own defaults
  for the rest, e.g. its exploration)."""
  cfg = copy.deepcopy(dict(cfg))
  for assignment in assignments:
    if not isinstance(assignment, str) or "=" not in assignment:
      raise ConfigError(f"--set expects section.key=value, got {assignment!r}")
    key, raw = assignment.split("=", 1)
    parts = key.strip().split(".")
    if (
      len(parts) != 2
      or parts[0] not in ("env", "agent", "run")
      or parts[1] not in _section_keys(cfg, parts[0])
    ):
      close = difflib.get_close_matches(key.strip(), valid_keys(cfg), n=1)
      hint = f"did you mean {close[0]!r}? " if close else ""
      raise ConfigError(f"unknown config key {key.strip()!r}; {hint}valid keys: {valid_keys(cfg)}")
    section, name = parts
    value = _parse_value(raw)
    cfg[section] = dict(cfg.get(section, {}))
    if (section, name) in (("env", "name"), ("agent", "algo")):
      (_check_env_name if section == "env" else _check_algo)(value)  # before its keys are looked up
      if value != cfg[section].get(name):
        kept = _family_changes(cfg[section].get(name), value, cfg[section]) if section == "agent" else {}
        cfg[section] = {name: value, **kept}
    else:
      cfg[section][name] = value
  return resolve(cfg)


def _family_changes(old_algo, new_algo, agent: dict[str, Any]) -> dict[str, Any]:
  """The settings of `agent` (an `old_algo` section) that a switch to `new_algo` keeps: the fields of the
  most specific config dataclass both algorithms' configs derive from (none for PPO against the HER
  family) whose value differs from `old_algo`'s default."""
  if old_algo not in ALGOS:
    return {}
  old_cls, new_cls = ALGOS[old_algo][0], ALGOS[new_algo][0]
  shared = next((c for c in old_cls.__mro__ if dataclasses.is_dataclass(c) and c in new_cls.__mro__), None)
  if shared is None:
    return {}
  defaults = {f.name: f.default for f in dataclasses.fields(old_cls)}
  norm = lambda v: tuple(v) if isinstance(v, list) else v  # JSON's lists against the defaults' tuples
  return {
    f.name: agent[f.name]
    for f in dataclasses.fields(shared)
    if f.name in agent and norm(agent[f.name]) != norm(defaults.get(f.name))
  }


def build(cfg: dict[str, Any]):
  """(env, algorithm object) for a resolved config."""
  env_cfg = dict(cfg["env"])
  env = _LAST_ENV.pop(_env_key(env_cfg), None)
  if env is None:
    env = mjx_envs.make(env_cfg.pop("name"), **env_cfg)
  agent = dict(cfg["agent"])
  config_cls, make = ALGOS[agent.pop("algo")]
  agent = {k: tuple(v) if isinstance(v, list) else v for k, v in agent.items()}
  agent["num_eval_envs"] = cfg["run"]["num_eval_envs"]
  return env, make(env, config_cls(**agent))


def restore_run(run_dir: str, step: int | None = None, overrides: tuple[str, ...] = ()):
  """(algorithm, train state) of a run directory's latest (or `step`) checkpoint. `overrides`:
  'section.key=value' changes to the run's config (`set_dotted`) before the algorithm is built, for
  settings the parameters' shapes do not depend on (e.g. env.num_goals: evaluate on other goals)."""
  from agents.common.checkpoint import Checkpointer  # pylint: disable=import-outside-toplevel

  cfg = checkpoint_config(run_dir, step)
  _, algo = build(set_dotted(cfg, *overrides) if overrides else cfg)
  abstract = jax.eval_shape(algo.init, jax.random.PRNGKey(0))
  ckpt = Checkpointer(run_dir)
  state, _ = ckpt.restore(checkpoint_view(algo, abstract), step)
  ckpt.close()
  return algo, state


def warm_start(ts, spec: str, algo=None, keep_fresh=()):
  """`run.init_from`: a fresh train state `ts` whose parameters (and observation statistics, where there
  are some) are taken from another run's checkpoint wherever the layers match by path and shape
  (`agents.league.surgery.transplant`; the rest keep their fresh draws, the optimiser starts fresh).
  spec: "RUN_DIR" (its latest checkpoint) or "RUN_DIR@N" (the checkpoint after N host calls, as named
  in RUN_DIR/checkpoints). keep_fresh (`run.init_fresh`): patterns of parameters that keep their fresh
  draws all the same. With `algo` (the learner of `ts`), target networks (DDPG/SAC+HER's, MT-SAC's)
  start as copies of the carried parameters, not of the fresh draw. -> (ts, record) with record
  {"from", "checkpoint", "carried", "fresh", "reinitialised"}."""
  from agents.league import surgery  # pylint: disable=import-outside-toplevel

  surgery.check_patterns(ts.params, keep_fresh, f"run.init_fresh={list(keep_fresh)!r}:")
  if os.path.isfile(spec):  # a policy file of export_policy: its parameters and statistics
    out, record = _warm_start_from_policy_file(ts, spec, keep_fresh)
  else:
    out, record = _warm_start_from_run(ts, spec, keep_fresh)
  if algo is not None and getattr(out, "target", None) is not None and hasattr(algo, "target_params"):
    # Own buffers: the train step donates params and targets both.
    out = out.replace(
      target=_placed_like(jax.tree.map(lambda x: x.copy(), algo.target_params(out.params)), ts.target)
    )
  return out, record


def checkpoint_spec(spec: str, what: str) -> tuple[str, int | None]:
  """ "RUN_DIR" or "RUN_DIR@N" (the checkpoint after N host calls, as named in RUN_DIR/checkpoints) ->
  (RUN_DIR, N or None for the latest). `what` names the option in the error for a bad N."""
  run_dir, _, step = spec.partition("@")
  if step and not step.isdigit():
    raise ValueError(f"{what}={spec!r}: after '@' comes a checkpoint number, got {step!r}")
  return run_dir, int(step) if step else None


def _warm_start_from_run(ts, spec: str, keep_fresh=()):
  """`warm_start` from a run directory's checkpoint: the layers that match by path and shape, but
  `keep_fresh`'s."""
  from agents.league import surgery  # pylint: disable=import-outside-toplevel

  run_dir, step = checkpoint_spec(spec, "run.init_from")
  try:
    _, donor = restore_run(run_dir, step)
  except FileNotFoundError as e:
    raise ValueError(f"run.init_from={spec!r}: {e}") from None
  params, record = surgery.transplant(ts.params, donor.params, keep_fresh=keep_fresh)
  out = ts.replace(params=params)
  if getattr(ts, "obs_norm", None) is not None and getattr(donor, "obs_norm", None) is not None:
    norm, norm_record = surgery.transplant(ts.obs_norm, donor.obs_norm, "obs_norm")
    out = out.replace(obs_norm=norm)
    for k in ("carried", "fresh"):
      record[k] += norm_record[k]
  return _placed_like(out, ts), {"from": run_dir, "checkpoint": "latest" if step is None else step, **record}


def _warm_start_from_policy_file(ts, path: str, keep_fresh=()):
  """`warm_start` from a file of `export_policy` (parameters and observation statistics, no optimiser or
  target networks): the layers must be the run's own; every array is carried over but `keep_fresh`'s."""
  from flax import serialization  # pylint: disable=import-outside-toplevel

  from agents.league import surgery  # pylint: disable=import-outside-toplevel

  blob = _read_policy_file(path)
  if blob is None:
    raise ValueError(f"run.init_from={path!r}: not a run directory or a policy file of export_policy")
  try:
    params = serialization.from_state_dict(ts.params, blob["params"])
    obs_norm = serialization.from_state_dict(ts.obs_norm, blob["obs_norm"])
    jax.tree.map(lambda a, b: _same_shape(a, b, path), ts.params, params)
  except (ValueError, KeyError, TypeError) as e:
    raise ValueError(f"run.init_from={path!r}: its layers are not this run's ({e})") from None
  params, record = surgery.transplant(ts.params, params, keep_fresh=keep_fresh)
  out = _placed_like(ts.replace(params=params, obs_norm=obs_norm), ts)
  return out, {"from": path, "checkpoint": "policy file", **record}


def _read_policy_file(path: str) -> dict | None:
  """The contents of a file of `export_policy` ({format, config, params, obs_norm}), or None for any
  other file."""
  from flax import serialization  # pylint: disable=import-outside-toplevel

  with open(path, "rb") as f:
    raw = f.read()
  try:
    blob = serialization.msgpack_restore(raw)
  except Exception:  # msgpack's own errors name no file
    return None
  return blob if isinstance(blob, dict) and blob.get("format") == "mjx-goal-rl policy 1" else None


def _placed_like(tree, like):
  """`tree` with its arrays where `like`'s live (as the compiled step expects them)."""
  return jax.tree.map(lambda x, l: jax.device_put(x, l.sharding) if hasattr(l, "sharding") else x, tree, like)


def _same_shape(a, b, path):
  if a.shape != b.shape:
    raise ValueError(f"shape {b.shape} in {path}, {a.shape} in this run")


def load_policy(run_dir: str, deterministic: bool = True, step: int | None = None):
  """act(obs, key) -> env action, from a run directory's config.json and latest (or `step`) checkpoint
  (a recurrent policy: act(obs, key, carry) -> (action, carry), with `act.initial_carry(batch_shape)`)."""
  algo, state = restore_run(run_dir, step)
  return algo.policy(state.params, state.obs_norm, deterministic)


def export_policy(run_dir: str, path: str, step: int | None = None) -> str:
  """Writes the policy of a run directory's latest (or `step`) checkpoint to one small file at `path`:
  the run's resolved config, its parameters and observation statistics (msgpack; no optimiser, target
  networks, replay buffer or env state, so a trained DDPG+HER policy is ~1 MB where its checkpoint is
  hundreds). `load_exported_policy(path)` turns it back into `act`. Returns `path`."""
  from flax import serialization  # pylint: disable=import-outside-toplevel

  _, state = restore_run(run_dir, step)
  blob = {
    "format": "mjx-goal-rl policy 1",
    "config": json.dumps(checkpoint_config(run_dir, step)),
    "params": serialization.to_state_dict(jax.device_get(state.params)),
    "obs_norm": serialization.to_state_dict(jax.device_get(state.obs_norm)),
  }
  os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
  with open(path, "wb") as f:
    f.write(serialization.msgpack_serialize(blob))
  return path


def load_exported_policy(path: str, deterministic: bool = True):
  """(act, algo) from a file of `export_policy`: act(obs, key) -> action (recurrent: act(obs, key,
  carry) as `load_policy`), algo the algorithm object its config builds (its env: `algo.raw_env`)."""
  from flax import serialization  # pylint: disable=import-outside-toplevel

  blob = _read_policy_file(path)
  if blob is None:
    raise ValueError(f"{path}: not a policy file of agents.experiment.export_policy")
  _, algo = build(resolve(with_added_env_keys(json.loads(blob["config"]), state=False)[0]))
  like = jax.eval_shape(algo.init, jax.random.PRNGKey(0))
  params = serialization.from_state_dict(like.params, blob["params"])
  obs_norm = serialization.from_state_dict(like.obs_norm, blob["obs_norm"])
  return algo.policy(params, obs_norm, deterministic), algo


def evaluate_run(run_dir: str, seed: int = 0, step: int | None = None, num_envs: int | None = None):
  """The algorithm's own evaluation (what train.py logs as eval/*) of a run directory's latest (or `step`)
  checkpoint on fresh envs: {metric name: float}, e.g. eval/success_rate, eval/return (per task for a
  multi-task env; Bob's holdout suite for self-play). num_envs: evaluation envs (default run.num_eval_envs)."""
  algo, state = restore_run(run_dir, step)
  evaluate = jax.jit(algo.evaluate, static_argnums=3)
  out = evaluate(state.params, state.obs_norm, jax.random.PRNGKey(seed), num_envs)
  return {k: float(v) for k, v in jax.device_get(out).items()}


def surgeries(run_dir: str):
  """The architecture changes a run went through (train.py's surgery.jsonl), oldest first: a list of
  {"env_steps", "chunks" (the checkpoint it started from), "changed": {field: [old, new]}}."""
  return config_changes(run_dir, "surgery.jsonl")


def config_changes(run_dir: str, log: str = "changes.jsonl"):
  """The records of one of a run's change logs (train.py's changes.jsonl: settings changed on --resume or
  by `run.changes`; surgery.jsonl: architectures), oldest first, in the form `surgeries` describes."""
  path = os.path.join(run_dir, log)
  if not os.path.exists(path):
    return []
  with open(path) as f:
    return [json.loads(line) for line in f if line.strip()]


# Env settings added after runs were written, each with the value that gives the world such a run trained
# in. A run's config.json (and an exported policy's config) holds every env setting of its day, so a key
# it lacks is newer than the run: a resume, a restore or a loaded policy keeps the run's world instead of
# taking today's default (which would change the world under a trained policy, or the state its
# checkpoints hold).
ENV_KEYS_ADDED = {
  "arm": False,  # Meta-World's Sawyer arm (2026-11-27); before it, the free hand
  "shared_code": False,  # Meta-World's padded batches (MT 2026-11-28, ML later that day); before: per task
}
# Of those, the keys that change only the layout of the env's state (what a checkpoint holds), not the
# world: a policy without its env state (an exported one) takes today's default.
STATE_LAYOUT_KEYS = ("shared_code",)


def with_added_env_keys(raw: Any, state: bool = True) -> tuple[Any, dict[str, Any]]:
  """(`raw` with the ENV_KEYS_ADDED its env has and it lacks, each set to the value of the run's day;
  {the keys filled: value}). `raw`: a run's config as written (config.json, or an exported policy's);
  anything that is not such a config comes back as it is, for `resolve` to name the problem. state=False
  (no checkpointed env state to restore): the STATE_LAYOUT_KEYS are left to their defaults."""
  env = raw.get("env") if isinstance(raw, dict) else None
  if not isinstance(env, dict) or env.get("name") not in mjx_envs.registered():
    return raw, {}
  defaults = mjx_envs.registry.lookup(env["name"])[1]()
  keys = {k: v for k, v in ENV_KEYS_ADDED.items() if state or k not in STATE_LAYOUT_KEYS}
  added = {k: v for k, v in keys.items() if k in defaults and k not in env}
  return ({**raw, "env": {**env, **added}} if added else raw), added


def checkpoint_config(run_dir: str, step: int | None = None) -> dict[str, Any]:
  """The config a run directory's checkpoint `step` (None: the latest) was trained with: config.json less
  the changes recorded in changes.jsonl at or after that checkpoint (`run.changes`, `--resume --set`), so
  that a checkpoint written before e.g. a goal view was turned on is read without it. Architecture
  changes (surgery.jsonl) are `restore_checkpoints`' to undo."""
  cfg = run_config(run_dir)
  later = [r for r in config_changes(run_dir) if r["chunks"] >= step] if step is not None else []
  if not later:
    return cfg
  cfg = copy.deepcopy(cfg)
  for r in reversed(later):  # the latest change undone first
    for key, (old, _) in r["changed"].items():
      section, name = key.split(".", 1)
      cfg[section][name] = old
  return resolve(cfg)


def run_config(run_dir: str) -> dict[str, Any]:
  """The resolved config.json of a train.py run directory (FileNotFoundError if there is none)."""
  path = os.path.join(run_dir, "config.json")
  if not os.path.isfile(path):
    raise FileNotFoundError(f"{run_dir}: no config.json, so not a run directory that train.py wrote")
  with open(path) as f:
    return resolve(with_added_env_keys(json.load(f))[0])


def restore_checkpoints(run_dir: str, cfg: dict[str, Any], algo, steps):
  """{step: (train state in `algo`'s architecture, meta)} for checkpoints `steps` of a run whose config is
  now `cfg`.

  A checkpoint written before a surgery (`--resume` with a changed architecture) is restored in the
  architecture it was saved in and carried through each later surgery by `agents.league.surgery.migrate`,
  which keeps its function, so checkpoints of a surgered run can meet in one game (payoff, ratings).
  Each architecture's algorithm, restore target and migration donor is built once for all steps."""
  from agents.common.checkpoint import Checkpointer  # pylint: disable=import-outside-toplevel
  from agents.league import surgery  # pylint: disable=import-outside-toplevel

  records = surgeries(run_dir)
  chains = {}  # number of later surgeries -> (configs oldest first, their algos, restore target, donors)

  def chain(n):
    if n not in chains:
      cfgs = [cfg]
      for r in reversed(records[len(records) - n :]):  # the configs as they were, latest surgery first
        cfgs.insert(
          0, {**cfgs[0], "agent": {**cfgs[0]["agent"], **{k: old for k, (old, _) in r["changed"].items()}}}
        )
      algos = [build(c)[1] for c in cfgs[:-1]] + [algo]
      target = checkpoint_view(algos[0], jax.eval_shape(algos[0].init, jax.random.PRNGKey(0)))
      donors = [a.init(jax.random.PRNGKey(c["run"]["seed"])) for a, c in zip(algos[1:], cfgs[1:])]
      chains[n] = (cfgs, algos, target, donors)
    return chains[n]

  ckpt = Checkpointer(run_dir, max_to_keep=None)
  out = {}
  try:
    for step in steps:
      cfgs, algos, target, donors = chain(sum(r["chunks"] >= step for r in records))
      state, meta = ckpt.restore(target, step)
      state = from_checkpoint(algos[0], state)
      for old_cfg, new_cfg, donor in zip(cfgs, cfgs[1:], donors):
        state = surgery.migrate(old_cfg["agent"], new_cfg["agent"], state, donor)
      out[step] = (state, meta)
  finally:
    ckpt.close()
  return out


def record_video(
  algo, params, obs_norm, path: str, seed: int = 0, width: int = 480, height: int = 360
) -> str:
  """Renders one episode of the deterministic policy to `path` (.mp4 or .gif); returns `path`.

  PPO, DDPG+HER and SAC+HER: the training env for up to the episode length, cut where the episode ends.
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
