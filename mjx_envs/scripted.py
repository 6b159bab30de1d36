"""Scripted (non-learning) controllers: the proof that each task is solvable in MJX with our models.

A controller is a pair of pure functions over ONE env's `State` (vmap them for a batch):

  init(state) -> carry                     controller memory (e.g. its phase), a pytree of arrays
  act(carry, state) -> (action, carry)     action [action_size]

Controllers may read privileged state (object poses, the goal) from `state`; they are experts, not
policies. Each env family provides `scripted_controller(env)`.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp


class Controller(NamedTuple):
  init: Callable[[Any], Any]
  act: Callable[[Any, Any], Any]


def rollout(env, controller: Controller, key: jax.Array, num_episodes: int,
            num_steps: int | None = None):
  """Runs `num_episodes` scripted episodes in parallel for `num_steps` (default `env.episode_length`).

  Returns (final State batch, per-step `metrics['is_success']` [num_steps, num_episodes]).
  """
  num_steps = int(num_steps or env.episode_length)
  state = jax.vmap(env.reset)(jax.random.split(key, num_episodes))
  carry = jax.vmap(controller.init)(state)

  def body(c, _):
    state, carry = c
    action, carry = jax.vmap(controller.act)(carry, state)
    state = jax.vmap(env.step)(state, action)
    return (state, carry), state.metrics["is_success"]

  (state, _), success = jax.lax.scan(body, (state, carry), (), num_steps)
  return state, success


def success_rate(env, controller: Controller, key: jax.Array, num_episodes: int,
                 num_steps: int | None = None) -> float:
  """Fraction of episodes whose LAST step is a success (the Fetch/robogym convention)."""
  run = jax.jit(lambda k: rollout(env, controller, k, num_episodes, num_steps)[1][-1])
  return float(jnp.mean(run(key)))
