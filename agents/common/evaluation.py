"""Policy evaluation on fresh environments, shared by every algorithm."""

from __future__ import annotations

from mjx_envs import wrappers

import jax
import jax.numpy as jnp

from agents.common import sharding


def evaluate_policy(raw_env, episode_length: int, flatten: bool, act, key, num_envs: int, carry=None):
  """Runs `num_envs` fresh episodes of `raw_env` under `act` and averages their first episode.

  act(obs [n, ...], key) -> action [n, A] (step t's key: split(fold_in(key, 1), episode_length)[t], for
  a policy that samples; the reset keeps `key`); with `carry` (a recurrent policy's initial state, leaves
  [n, ...]) act(obs, key, carry) -> (action, carry). `flatten` hands the policy flattened goal
  observations. Returns {eval/success_rate, eval/return, eval/episode_length}, scalars; for a multi-task
  env (`mjx_envs.wrappers.batch`) also eval/success_rate/<task> and eval/return/<task>. An env whose
  metrics hold per-episode figures named "trial/..." (RL² trials, `mjx_envs.trials`: the first and last
  episode's success) adds them as eval/trial/... (and eval/trial/.../<task>), read where the episode ends.
  """

  def per_env(e):
    e = wrappers.EpisodeStats(wrappers.EpisodeLimit(e, episode_length))
    return wrappers.FlattenGoalObs(e) if flatten else e

  env = wrappers.batch(raw_env, num_envs, per_env)
  state = sharding.constrain_env_axis(env.reset(key))  # data-parallel under a mesh, as training is

  def first_end(loop, state):  # each world's figures where its first episode ends
    finished, acc = loop
    m = state.metrics
    first = (state.done > 0) & ~finished
    acc = {k: jnp.where(first, m[k if k.startswith("trial/") else f"episode_{k}"], v) for k, v in acc.items()}
    return (finished | (state.done > 0), acc), None

  trial_keys = tuple(k for k in state.metrics if k.startswith("trial/"))
  acc0 = {k: jnp.zeros((num_envs,)) for k in ("success", "return", "length") + trial_keys}
  keys = jax.random.split(jax.random.fold_in(key, 1), episode_length)
  _, _, (_, acc), _ = play(
    env, act, state, keys, carry, observe=first_end, acc=(jnp.zeros((num_envs,), bool), acc0)
  )
  out = {
    "eval/success_rate": jnp.mean(acc["success"]),
    "eval/return": jnp.mean(acc["return"]),
    "eval/episode_length": jnp.mean(acc["length"]),
  }
  out.update({f"eval/{k}": jnp.mean(acc[k]) for k in trial_keys})
  for i, name in enumerate(getattr(env, "task_names", ())):  # a multi-task env: worlds are task-major
    out[f"eval/success_rate/{name}"] = jnp.mean(env.split(acc["success"])[i])
    out[f"eval/return/{name}"] = jnp.mean(env.split(acc["return"])[i])
    out.update({f"eval/{k}/{name}": jnp.mean(env.split(acc[k])[i]) for k in trial_keys})
  return out


def play(env, act, state, keys, carry=None, obs_map=None, observe=None, acc=None):
  """Plays `act` on a batch of worlds `env` from `state`, one step per key of `keys` [T, 2].

  act(obs [n, ...], key) -> action [n, A]; with `carry` (a recurrent policy's state, leaves [n, ...])
  act(obs, key, carry) -> (action, carry). `obs_map` (obs -> obs) changes what the policy sees, not the
  world. After each step observe(acc, state) -> (acc, out) folds the new state into `acc` and emits a
  per-step output. Returns (state, carry, acc, outs), outs stacked over the T steps (None without
  `observe`). The one rollout loop of the evaluations (`evaluate_policy`, RL2's per-episode tables in
  benchmarks/rl2_adaptation.py)."""

  def body(loop, k_step):
    state, carry, acc = loop
    obs = state.obs if obs_map is None else obs_map(state.obs)
    if carry is None:
      action = act(obs, k_step)
    else:
      action, carry = act(obs, k_step, carry)
    state = env.step(state, action)
    acc, out = (acc, None) if observe is None else observe(acc, state)
    return (state, carry, acc), out

  (state, carry, acc), outs = jax.lax.scan(body, (state, carry, acc), keys)
  return state, carry, acc, outs
