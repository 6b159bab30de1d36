"""Zero-shot holdout evaluation of a goal-conditioned block-world policy (Bob), SPEC section 1.

Each episode presents up to `max_goals` goals of one holdout task in a row, each with a budget of
`steps_per_object` x objects steps, and stops at the first failure; after a success the next goal is
drawn from where the blocks now are. success_rate = successes / goals attempted, over all episodes.

Tasks are named "TASK-N": push-1, flip-2, pick_and_place-1, stack-2, ...
"""

from __future__ import annotations

from typing import Callable, Dict, Sequence

import jax
import jax.numpy as jnp

from mjx_envs.blocks import env as block_env
from mjx_envs.blocks import goals as G

DEFAULT_TASKS = ("push-1", "flip-1", "pick_and_place-1", "push-2", "flip-2", "pick_and_place-2", "stack-2")


def parse_task(name: str):
  task, _, n = name.rpartition("-")
  if task not in [t for t in block_env.TASKS if t] or not n.isdigit():
    raise ValueError(f"holdout task must look like 'push-1' with a task in "
                     f"{[t for t in block_env.TASKS if t]}, got {name!r}")
  return task, int(n)


def make_holdout_env(name: str, world_config: Dict) -> block_env.BlocksEnv:
  task, n = parse_task(name)
  cfg = {k: v for k, v in world_config.items() if k in block_env.default_config()}
  cfg.update(task=task, num_objects=n, terminate_on_success=False, terminate_on_fall=False)
  return block_env.BlocksEnv(**cfg)


def evaluate_task(env: block_env.BlocksEnv, act: Callable, key, num_episodes: int,
                  steps_per_object: int = 200, max_goals: int = 5):
  """act(obs [E, ...] batched block-world obs, key) -> actions [E, 6]. Returns a dict of scalars:
  success_rate (successes / goals), goals_per_episode (successes per episode)."""
  n = env.num_objects
  budget = steps_per_object * n
  k_reset, k_run = jax.random.split(key)
  state = jax.vmap(env.reset)(jax.random.split(k_reset, num_episodes))
  zeros = jnp.zeros((num_episodes,))

  def new_goal(k, s):
    achieved = env._achieved(s.pipeline_state)  # pylint: disable=protected-access
    goal = G.pad(G.make_goal(k, env.task, achieved[:n], n, env.config["table_portion"]))
    obs = dict(s.obs, desired_goal=goal)
    return s.replace(obs=obs, info={**s.info, "goal": goal, "prev_achieved_goal": achieved})

  def body(carry, k):
    state, t, successes, failed = carry
    active = (failed == 0) & (successes < max_goals)
    k_act, k_goal = jax.random.split(k)
    nxt = jax.vmap(env.step)(state, act(state.obs, k_act))
    success = active & (nxt.metrics["is_success"] > 0)
    timeout = active & ~success & (t + 1 >= budget)
    regoal = jax.vmap(new_goal)(jax.random.split(k_goal, num_episodes), nxt)
    nxt = jax.tree.map(lambda a, b: jnp.where(success.reshape(success.shape + (1,) * (a.ndim - 1)), a, b),
                       regoal, nxt)
    return (nxt, jnp.where(success, 0, t + 1), successes + success, failed + timeout), None

  init = (state, jnp.zeros((num_episodes,), jnp.int32), zeros, zeros)
  (_, _, successes, failed), _ = jax.lax.scan(body, init, jax.random.split(k_run, max_goals * budget))
  goals = jnp.sum(successes + failed)
  return {"success_rate": jnp.sum(successes) / jnp.maximum(goals, 1.0),
          "goals_per_episode": jnp.mean(successes)}


def evaluate_suite(tasks: Sequence[str], world_config: Dict, act: Callable, key, num_episodes: int,
                   steps_per_object: int = 200, max_goals: int = 5):
  """{"holdout/TASK-N": success_rate, ..., "eval/success_rate": their mean,
  "eval/return": mean goals solved per episode}."""
  out, goals = {}, []
  for i, name in enumerate(tasks):
    r = evaluate_task(make_holdout_env(name, world_config), act, jax.random.fold_in(key, i), num_episodes,
                      steps_per_object, max_goals)
    out[f"holdout/{name}"] = r["success_rate"]
    goals.append(r["goals_per_episode"])
  out["eval/success_rate"] = jnp.mean(jnp.stack([out[f"holdout/{t}"] for t in tasks]))
  out["eval/return"] = jnp.mean(jnp.stack(goals))
  return out
