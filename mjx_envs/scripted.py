"""Scripted (non-learning) controllers: the proof that each task is solvable in MJX with our models.

A controller is a pair of pure functions over ONE env's `State` (vmap them for a batch):

  init(state) -> carry                     controller memory (e.g. its phase), a pytree of arrays
  act(carry, state) -> (action, carry)     action [action_size]

Controllers may read privileged state (object poses, the goal) from `state`; they are experts, not
policies. Each env family provides `scripted_controller(env)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp


class Controller(NamedTuple):
  init: Callable[[Any], Any]
  act: Callable[[Any, Any], Any]


def expert_for(env) -> Controller:
  """The scripted expert of `env`'s family (the `scripted_controller` of `mjx_envs.<family>`: blocks,
  fetch, hand, metaworld), e.g. for demonstrations; a ValueError naming the env where it has none."""
  import importlib  # pylint: disable=import-outside-toplevel

  base = getattr(env, "unwrapped", env)
  parts = type(base).__module__.split(".")
  family = parts[1] if len(parts) > 1 and parts[0] == "mjx_envs" else None
  make = (
    getattr(importlib.import_module(f"mjx_envs.{family}"), "scripted_controller", None) if family else None
  )
  if make is None:
    raise ValueError(
      f"{type(base).__name__} has no scripted expert (families with one: blocks, fetch, hand, metaworld)"
    )
  return make(env)  # a family's maker raises ValueError for its envs without one (the hand's manipulate)


def rollout(
  env,
  controller: Controller,
  key: jax.Array,
  num_episodes: int,
  num_steps: int | None = None,
  keep_states: bool = False,
):
  """Runs `num_episodes` scripted episodes in parallel for `num_steps` (default `env.episode_length`).

  Returns (final State batch, trace): trace holds per-step `is_success`, `reward` and `done`, each
  [num_steps, num_episodes], the controller's `action` [num_steps, num_episodes, A], and with
  `keep_states` every State ([num_steps, num_episodes, ...]) under
  "state", for rendering (`mjx_envs.render.render_rollout(env, trace["state"], index=i)`).
  """
  num_steps = int(num_steps or env.episode_length)
  state = jax.vmap(env.reset)(jax.random.split(key, num_episodes))
  carry = jax.vmap(controller.init)(state)

  def body(c, _):
    state, carry = c
    action, carry = jax.vmap(controller.act)(carry, state)
    state = jax.vmap(env.step)(state, action)
    trace = {
      "is_success": state.metrics["is_success"],
      "reward": state.reward,
      "done": state.done,
      "action": action,
    }
    if keep_states:
      trace["state"] = state
    return (state, carry), trace

  (state, _), trace = jax.lax.scan(body, (state, carry), (), num_steps)
  return state, trace


def episode_success(env, trace) -> jax.Array:
  """[num_episodes] success per episode. Envs that end an episode on success (the block world) count a
  success at any step; the others (Fetch) count the last step, as gymnasium-robotics does."""
  if getattr(env, "config", {}).get("terminate_on_success", False):
    return jnp.max(trace["is_success"], axis=0)
  return trace["is_success"][-1]


def success_rate(
  env, controller: Controller, key: jax.Array, num_episodes: int, num_steps: int | None = None
) -> float:
  """Fraction of `num_episodes` scripted episodes that succeed (see `episode_success`)."""
  run = jax.jit(lambda k: episode_success(env, rollout(env, controller, k, num_episodes, num_steps)[1]))
  return float(jnp.mean(run(key)))
