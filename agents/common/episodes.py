"""Training-time episode statistics, shared by every algorithm's rollout and chunk summaries."""

from __future__ import annotations

import jax.numpy as jnp

_WEIGHTED = ("train/return", "train/success_rate", "train/episode_length")


def step_stats(state):
  """Per-step statistics of a batched, wrapped env State (see `mjx_envs.wrappers`); leaves [N]."""
  m, zero = state.metrics, jnp.zeros_like(state.reward)
  done = m["episode_done"]
  return {
    "done": done,
    "return": m["episode_return"] * done,
    "success": m["episode_success"] * done,
    "length": m["episode_length"] * done,
    "bad_action": m.get("bad_action", zero),
    "diverged": state.info.get("diverged", zero),
    **task_ids(state),
    # Per-episode figures of an env's own (RL² trials: "trial/success_first", "trial/success_last").
    **{k: v * done for k, v in m.items() if k.startswith("trial/")},
  }


def task_ids(state):
  """{"task_id": [N]} for a multi-task env's state (its `info['task_id']`), else {}."""
  return {"task_id": state.info["task_id"]} if "task_id" in state.info else {}


def summarize(stats, task_names=()):
  """Stacked step_stats (any leading dims) -> train/* metrics over the episodes that finished; with
  `task_names` (a multi-task env's) also train/episodes|return|success_rate/<task> per task."""
  n_done = jnp.sum(stats["done"])
  denom = jnp.maximum(n_done, 1.0)
  out = {
    "train/episodes": n_done,
    "train/return": jnp.sum(stats["return"]) / denom,
    "train/success_rate": jnp.sum(stats["success"]) / denom,
    "train/episode_length": jnp.sum(stats["length"]) / denom,
    "train/bad_actions": jnp.sum(stats["bad_action"]),
    "train/physics_resets": jnp.sum(stats["diverged"]),
    **{f"train/{k}": jnp.sum(v) / denom for k, v in stats.items() if k.startswith("trial/")},
  }
  for i, name in enumerate(task_names):
    mask = (stats["task_id"] == i) * stats["done"]
    n = jnp.sum(mask)
    out[f"train/episodes/{name}"] = n
    out[f"train/return/{name}"] = jnp.sum(stats["return"] * mask) / jnp.maximum(n, 1.0)
    out[f"train/success_rate/{name}"] = jnp.sum(stats["success"] * mask) / jnp.maximum(n, 1.0)
  return out


def average_chunk(m, weighted=_WEIGHTED):
  """Metrics stacked over the train steps of one host call -> their means, with the episode statistics
  `weighted` weighted by the episodes each step finished."""
  w = m["train/episodes"]
  out = {k: jnp.mean(v) for k, v in m.items()}
  for k in tuple(weighted) + tuple(k for k in m if k.startswith("train/trial/")):
    out[k] = jnp.sum(m[k] * w) / jnp.maximum(jnp.sum(w), 1.0)
  out["train/episodes"] = jnp.sum(w)
  for k in m:  # per-task statistics (see `summarize`), weighted by that task's episodes
    if k.startswith(("train/return/", "train/success_rate/")):
      wt = m["train/episodes/" + k.split("/", 2)[2]]
      out[k] = jnp.sum(m[k] * wt) / jnp.maximum(jnp.sum(wt), 1.0)
    elif k.startswith("train/episodes/"):
      out[k] = jnp.sum(m[k])
  return out


def data_quality(sample_reuse, staleness):
  """OpenAI Five's data-quality metrics: `data/sample_reuse`, the number of gradient steps each sample
  is used in (its expected value, for a replay), and `data/staleness`, how many parameter versions (train
  steps) old the data is when it is used (its mean, for a replay)."""
  f = lambda x: jnp.asarray(x, jnp.float32)
  return {"data/sample_reuse": f(sample_reuse), "data/staleness": f(staleness)}


class StepBudget:
  """Mixed into algorithm configs with `num_envs`, `unroll_length` and `total_env_steps`: the env steps
  one train step takes, and the number of train steps in the run (train.py's units of progress)."""

  @property
  def steps_per_update(self) -> int:
    return self.num_envs * self.unroll_length

  @property
  def num_updates(self) -> int:
    return max(1, self.total_env_steps // self.steps_per_update)
