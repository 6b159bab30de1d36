"""Learners for goal-conditioned and self-play RL, each one compiled training step over pure-function envs.

The layout, by role (lower layers never import upper ones):

  common/      shared by every learner: networks, action distributions, observation normalisers, replay,
               episode statistics, evaluation, optimiser practice, checkpoints, device sharding
  league/      OpenAI Five's training practice: opponent pool, TrueSkill ratings, surgery, team spirit,
               compute accounting
  ppo/         PPO (feed-forward or recurrent, optional hindsight term) and the on-policy losses
  her/         off-policy learners with hindsight relabelling: DDPG+HER, SAC+HER, the relabel function
  multitask/   MT-SAC (Meta-World MT10)
  selfplay/    asymmetric self-play (Alice and Bob) with Alice Behavioral Cloning; the holdout suite
  mappo/       multi-agent PPO with entity attention (hide-and-seek)
  experiment   configs: resolve against defaults, dotted overrides, build a trainer, load a policy
  tournament   a self-play run's checkpoints against each other: ratings, payoff matrix
  ratings      `python -m agents.ratings RUN_DIR`: tournament's ratings command under its own name

Public entry points (also importable from their modules):

  cfg = agents.resolve({"env": {"name": "FetchReach"}, "agent": {"algo": "ppo"}})  # checked, complete
  env, algo = agents.build(cfg)             # algo.init(key) -> TrainState; algo.train_many(ts, n)
  act = agents.load_policy("runs/ppo_fetch_reach-...")   # act(obs, key) -> action, from a run directory
  metrics = agents.evaluate_run("runs/ppo_fetch_reach-...")   # {"eval/success_rate": ..., ...}
  agents.export_policy("runs/her_hand_reach_cpu-...", "hand_reach.policy")   # ~1 MB: config + params
  act, algo = agents.load_exported_policy("hand_reach.policy")   # no run directory needed
  metrics = agents.evaluate_policy(env, episode_length, flatten, act, key, num_envs)  # any act function
"""

from __future__ import annotations

import importlib

# Lazy (PEP 562): `import agents.common.replay` must not build the whole stack, and experiment imports
# every learner.
_EXPORTS = {
  "resolve": "agents.experiment",
  "set_dotted": "agents.experiment",
  "build": "agents.experiment",
  "load_policy": "agents.experiment",
  "evaluate_run": "agents.experiment",
  "export_policy": "agents.experiment",
  "load_exported_policy": "agents.experiment",
  "ALGOS": "agents.experiment",
  "ConfigError": "agents.experiment",
  "evaluate_policy": "agents.common.evaluation",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name):
  if name in _EXPORTS:
    return getattr(importlib.import_module(_EXPORTS[name]), name)
  raise AttributeError(f"module 'agents' has no attribute {name!r}")


def __dir__():
  return sorted(list(globals()) + list(_EXPORTS))
