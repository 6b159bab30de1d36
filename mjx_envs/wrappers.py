"""Wrappers: episode limits, episode statistics, batching, auto-reset, goal flattening.

`wrap_for_training(env, num_envs?)` composes the usual stack:

  EpisodeLimit -> EpisodeStats -> Batch (vmap) -> AutoReset

after which `reset(key)` takes ONE key and returns a batch of `num_envs` states, and `step` takes actions
of shape [num_envs, action_size]. All wrappers are pure and jittable.

Keys the stack adds to `state.info` (per env):
  steps [int32]        control steps in the current episode
  truncation [f32]     1.0 when the step ended the episode by the time limit (or divergence), not by
                       termination; bootstrap on these
  final_obs            the observation the finished episode ended on (equal to `obs` when not done);
                       `obs` already belongs to the fresh episode after an auto-reset
and to `state.metrics`:
  episode_return, episode_length, episode_success   running values; read them where `done` is 1
  episode_done [f32]   1.0 on the last step of an episode
"""

from __future__ import annotations

from mjx_envs.core import Env

from collections.abc import Mapping, Sequence

import jax
import jax.numpy as jnp


class Wrapper(Env):
  """Forwards everything to the wrapped env."""

  def __init__(self, env: Env):
    self.env = env

  def reset(self, rng):
    return self.env.reset(rng)

  def step(self, state, action):
    return self.env.step(state, action)

  @property
  def observation_size(self):
    return self.env.observation_size

  @property
  def action_size(self):
    return self.env.action_size

  @property
  def unwrapped(self):
    return self.env.unwrapped

  def __getattr__(self, name):
    if name == "env":  # not yet set: avoid infinite recursion during unpickling
      raise AttributeError(name)
    return getattr(self.env, name)


class EpisodeLimit(Wrapper):
  """Ends episodes after `episode_length` steps as a truncation, distinct from termination."""

  def __init__(self, env: Env, episode_length: int):
    super().__init__(env)
    if int(episode_length) < 1:
      raise ValueError(f"episode_length must be >= 1, got {episode_length}")
    self.episode_length = int(episode_length)

  def reset(self, rng):
    state = self.env.reset(rng)
    # Shaped like `done`: one world here, or a whole batch for an env that batches natively.
    shape = jnp.shape(state.done)
    info = {**state.info, "steps": jnp.zeros(shape, jnp.int32), "truncation": jnp.zeros(shape)}
    return state.replace(info=info)

  def step(self, state, action):
    steps = state.info["steps"] + 1
    state = self.env.step(state, action)
    terminated = state.done > 0
    diverged = state.info.get("diverged", jnp.zeros(())) > 0
    out_of_time = steps >= self.episode_length
    # A diverged env has no meaningful terminal value either, so it counts as a truncation.
    truncation = (out_of_time | diverged) & ~(terminated & ~diverged)
    done = terminated | out_of_time | diverged
    info = {**state.info, "steps": steps, "truncation": truncation.astype(jnp.float32)}
    return state.replace(done=done.astype(jnp.float32), info=info)


class EpisodeStats(Wrapper):
  """Tracks each episode's return, length and success (the last step's `metrics['is_success']`)."""

  def reset(self, rng):
    state = self.env.reset(rng)
    zero = jnp.zeros(jnp.shape(state.done))  # one world, or a natively batched env's batch
    # A multi-agent env's reward has an agent axis: so has its return.
    metrics = {
      **state.metrics,
      "episode_return": jnp.zeros_like(state.reward),
      "episode_length": zero,
      "episode_success": zero,
      "episode_done": zero,
    }
    return state.replace(metrics=metrics)

  def step(self, state, action):
    ret = state.metrics["episode_return"]
    length = state.metrics["episode_length"]
    # A new episode starts on the step after `episode_done`.
    fresh = state.metrics["episode_done"] > 0
    ret = jnp.where(fresh, 0.0, ret)
    length = jnp.where(fresh, 0.0, length)
    state = self.env.step(state, action)
    metrics = {
      **state.metrics,
      "episode_return": ret + state.reward,
      "episode_length": length + 1.0,
      "episode_success": state.metrics.get("is_success", jnp.zeros(jnp.shape(state.done))),
      "episode_done": state.done,
    }
    return state.replace(metrics=metrics)


class Batch(Wrapper):
  """vmaps reset and step. `reset` takes keys of shape [num_envs, ...] (or one key and `num_envs`)."""

  def __init__(self, env: Env, num_envs: int | None = None):
    super().__init__(env)
    self.num_envs = num_envs

  def reset(self, rng):
    if self.num_envs is not None and rng.shape in ((2,), ()):
      rng = jax.random.split(rng, self.num_envs)
    return jax.vmap(self.env.reset)(rng)

  def step(self, state, action):
    if isinstance(action, Mapping):  # a multi-agent env's dict of per-agent arrays: [num_envs, A, ...]
      self.env.unwrapped.check_action(action)
      sizes = {k: v.shape[0] if getattr(v, "ndim", 0) else None for k, v in action.items()}
      n = state.done.shape[0]
      if any(s != n for s in sizes.values()):
        raise ValueError(
          f"batched step expects every action entry to lead with num_envs={n}, got leading sizes {sizes}"
        )
    elif action.ndim != 2 or action.shape[-1] != self.env.action_size:
      raise ValueError(f"batched step expects actions [num_envs, {self.env.action_size}], got {action.shape}")
    return jax.vmap(self.env.step)(state, action)


class AutoReset(Wrapper):
  """On a batched env: replaces every finished env by a FRESH random reset (new state and goal).

  The reset is computed only on steps where some env finished (a `lax.cond` on the batch), so
  synchronised fixed-length episodes pay for it once per episode.

  `final_info` names info keys whose values on the finishing step a learner needs (events such as a
  game's last reward): they are also kept in `info["final"]`, which the reset does not overwrite.
  """

  def __init__(self, env: Env, final_info: Sequence[str] = ()):
    super().__init__(env)
    self.final_info = tuple(final_info)

  def reset(self, rng):
    rng = jnp.asarray(rng)
    # An env that batches natively derives its worlds' keys itself (`world_keys`; a multi-task batch:
    # per task, as a batch of per-task AutoResets would).
    world_keys = getattr(self.env, "world_keys", None)
    env_keys = world_keys(rng) if world_keys is not None else jax.random.split(rng, self.env.num_envs)
    state = self.env.reset(rng)
    info = {
      **state.info,
      "autoreset_key": jax.vmap(lambda k: jax.random.fold_in(k, 1))(env_keys),
      "final_obs": state.obs,
    }
    if self.final_info:
      info["final"] = {k: state.info[k] for k in self.final_info}
    if "goal_obs" in info:
      info["final_goal_obs"] = info["goal_obs"]
    if "truncation" not in info:
      info["truncation"] = jnp.zeros(state.done.shape)
    return state.replace(info=info)

  def step(self, state, action):
    keys = state.info["autoreset_key"]
    stepped = self.env.step(state, action)
    done = stepped.done > 0

    def do_reset(stepped):
      split = jax.vmap(jax.random.split)(keys)
      fresh = self.env.reset(split[:, 0])

      def pick(new, old):
        mask = done.reshape(done.shape + (1,) * (old.ndim - done.ndim))
        return jnp.where(mask, new, old)

      info = jax.tree.map(
        pick,
        {k: fresh.info[k] for k in stepped.info if k in fresh.info},
        {k: stepped.info[k] for k in stepped.info if k in fresh.info},
      )
      info = {**stepped.info, **info, "autoreset_key": jnp.where(done[:, None], split[:, 1], keys)}
      return stepped.replace(
        pipeline_state=jax.tree.map(pick, fresh.pipeline_state, stepped.pipeline_state),
        obs=jax.tree.map(pick, fresh.obs, stepped.obs),
        info=info,
      )

    def no_reset(stepped):
      return stepped.replace(info={**stepped.info, "autoreset_key": keys})

    out = jax.lax.cond(jnp.any(done), do_reset, no_reset, stepped)
    # Bookkeeping of the step that just finished survives the reset.
    info = {**out.info, "final_obs": stepped.obs}
    if self.final_info:
      info["final"] = {k: stepped.info[k] for k in self.final_info}
    if "goal_obs" in stepped.info:  # the goal dict behind a flattened final_obs (achieved goal for HER)
      info["final_goal_obs"] = stepped.info["goal_obs"]
    for k in ("truncation", "diverged", "steps_done"):
      if k in stepped.info:
        info[k] = stepped.info[k]
    info.setdefault("truncation", jnp.zeros(stepped.done.shape))  # for envs whose step drops it
    return out.replace(info=info)


def flatten_goal_obs(obs: Mapping[str, jax.Array]) -> jax.Array:
  """{observation [..., O], desired_goal [..., G...]} -> [..., O + prod(G)] for plain-array policies."""
  batch = obs["observation"].shape[:-1]
  goal = obs["desired_goal"].reshape(batch + (-1,))
  return jnp.concatenate([obs["observation"], goal], axis=-1)


class FlattenGoalObs(Wrapper):
  """Replaces a goal env's dict observation by `flatten_goal_obs(obs)`; keeps the dict in info."""

  def reset(self, rng):
    state = self.env.reset(rng)
    return state.replace(obs=flatten_goal_obs(state.obs), info={**state.info, "goal_obs": state.obs})

  def step(self, state, action):
    inner = state.replace(obs=state.info["goal_obs"])
    state = self.env.step(inner, action)
    return state.replace(obs=flatten_goal_obs(state.obs), info={**state.info, "goal_obs": state.obs})

  @property
  def observation_size(self):
    return jax.eval_shape(self.reset, jax.random.PRNGKey(0)).obs.shape[-1]


def batch(env: Env, num_envs: int, per_env=lambda e: e, batched=lambda e: e) -> Env:
  """`batched(Batch(per_env(env), num_envs))`: a batch of `num_envs` worlds with the per-world wrappers
  `per_env` inside the vmap and the batch-level ones `batched` outside it.

  A multi-task env (one with `with_members`, e.g. `mjx_envs.make("MT10", impl="jax")`) gets the same
  stack for each of its tasks, num_envs / num_tasks worlds each, stepped together; num_envs must be a
  multiple of its number of tasks. An env that batches natively (`batched_natively`: Meta-World's
  multi-task batch under C physics, `mjx_envs.metaworld.shared`) is resized to num_envs / num_tasks
  worlds per task and gets `per_env` and `batched` on the whole batch (the per-world wrappers are
  elementwise, so this is the same stack).
  """
  natively = getattr(env, "batched_natively", False)  # one env for the whole batch (metaworld.shared)
  if natively or hasattr(env, "with_members"):
    tasks = env.num_tasks
    if num_envs % tasks:
      raise ValueError(
        f"{type(env).__name__} has {tasks} tasks ({list(env.task_names)}): num_envs must be a "
        f"multiple of {tasks} (worlds per task x tasks), got {num_envs}"
      )
    n = num_envs // tasks
    if natively:
      return batched(per_env(env.resized(n)))
    return env.with_members(lambda e: batched(Batch(per_env(e), n)), n)
  return batched(Batch(per_env(env), num_envs))


def wrap_for_training(
  env: Env, num_envs: int, episode_length: int | None = None, flatten: bool = False
) -> Env:
  """EpisodeLimit -> EpisodeStats -> [FlattenGoalObs] -> Batch -> AutoReset (see `batch`; for a
  multi-task env, per task).

  `episode_length` defaults to the env's own `episode_length`.
  """
  if episode_length is None:
    episode_length = env.episode_length

  def per_env(e):
    e = EpisodeStats(EpisodeLimit(e, episode_length))
    return FlattenGoalObs(e) if flatten else e

  return batch(env, num_envs, per_env, AutoReset)
