"""Zero-shot holdout evaluation of a goal-conditioned block-world policy (Bob), SPEC section 1.

Each episode presents up to `max_goals` goals of one holdout task in a row, each with a budget of
`steps_per_object` x objects steps, and stops at the first failure; after a success the next goal is
drawn from where the blocks now are. success_rate = successes / goals attempted, over all episodes.

Tasks are named "TASK-N": push-1, flip-2, pick_and_place-1, stack-2, ...
"""

from __future__ import annotations

from mjx_envs.blocks import env as block_env
from mjx_envs.blocks import goals as G

from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp

from agents.common import sharding

DEFAULT_TASKS = ("push-1", "flip-1", "pick_and_place-1", "push-2", "flip-2", "pick_and_place-2", "stack-2")


def parse_task(name: str):
  task, _, n = name.rpartition("-")
  if task not in [t for t in block_env.TASKS if t] or not n.isdigit():
    raise ValueError(
      f"holdout task must look like 'push-1' with a task in {[t for t in block_env.TASKS if t]}, got {name!r}"
    )
  return task, int(n)


def make_holdout_env(name: str, world_config: dict) -> block_env.BlocksEnv:
  task, n = parse_task(name)
  cfg = {k: v for k, v in world_config.items() if k in block_env.default_config()}
  # rotation=None: each holdout task compares rotations its own way (flip full, the others modulo the
  # cube's symmetries), whatever the training game used.
  cfg.update(task=task, num_objects=n, terminate_on_success=False, terminate_on_fall=False, rotation=None)
  return block_env.BlocksEnv(**cfg)


def evaluate_task(
  env: block_env.BlocksEnv,
  act: Callable,
  key,
  num_episodes: int,
  steps_per_object: int = 200,
  max_goals: int = 5,
  steps_left: bool = False,
):
  """act(obs [E, ...] batched block-world obs, key) -> actions [E, 6] (a recurrent act: see
  evaluate_group). Returns a dict of scalars: success_rate (successes / goals), goals_per_episode
  (successes per episode)."""
  rates, goals = evaluate_group(
    env, (env.task,), act, key[None], num_episodes, steps_per_object, max_goals, steps_left
  )
  return {"success_rate": rates[0], "goals_per_episode": goals[0]}


def evaluate_group(
  env: block_env.BlocksEnv,
  tasks: Sequence[str],
  act: Callable,
  keys,
  num_episodes: int,
  steps_per_object: int = 200,
  max_goals: int = 5,
  steps_left: bool = False,
):
  """Holdout tasks that share one world (`env`: same block count) evaluated in ONE batch, so the MJX
  step is compiled once for all of them rather than once per task (the tasks differ only in their goals
  and in whether rotations compare modulo the cube's symmetries, not in physics).

  tasks: K task names without the block count ("push", "flip", ...); keys [K, 2]: task k's episodes use
  keys[k] exactly as a batch of that task alone would. steps_left: give `act` the obs key "steps_left",
  the fraction of the goal's budget still to come (as the self-play game shows Bob his turn's).
  A recurrent `act` (one with `act.initial_carry(batch_shape)`) is called act(obs, key, carry) ->
  (actions, carry); its state starts with the episode and lasts all its goals, as Bob's lasts his turns
  in a game.
  Returns (success_rate [K], goals_per_episode [K]).
  """
  n, k_tasks, e = env.num_objects, len(tasks), num_episodes
  budget = steps_per_object * n
  cfg = env.config
  task_of = jnp.repeat(jnp.arange(k_tasks), e)  # [K * E]
  symmetric = jnp.array([t != "flip" for t in tasks])[task_of]  # [K * E]
  k_reset, k_run = jax.vmap(jax.random.split, out_axes=1)(keys)  # [K, 2] each

  def goal_for(k, i, s):
    """Goal of task `i` drawn from where the blocks are in state `s`."""
    achieved = env._achieved(s.pipeline_state)  # pylint: disable=protected-access
    branches = [lambda k, a, t=t: G.pad(G.make_goal(k, t, a[:n], n, cfg["table_portion"])) for t in tasks]
    goal = jax.lax.switch(i, branches, k, achieved)
    return s.replace(
      obs=dict(s.obs, desired_goal=goal), info={**s.info, "goal": goal, "prev_achieved_goal": achieved}
    )

  def episode_keys(k):  # [K, 2] -> [K * E, 2], task-major, as K separate batches would split them
    return jax.vmap(lambda kk: jax.random.split(kk, e))(k).reshape(k_tasks * e, -1)

  starts = jax.vmap(env.reset)(episode_keys(k_reset))
  # Each task's first goal comes from the same key its own env's reset would draw it with.
  goal_keys = jax.vmap(lambda k: jax.random.split(k, 4)[3])(episode_keys(k_reset))
  state = jax.vmap(goal_for)(goal_keys, task_of, starts)
  state = sharding.constrain_env_axis(state)
  zeros = jnp.zeros((k_tasks * e,))

  def success_of(s, sym):  # one episode
    achieved = env._achieved(s.pipeline_state)  # pylint: disable=protected-access
    goal = s.info["goal"]
    placed = jnp.where(
      sym,
      G.object_success(achieved, goal, cfg["pos_threshold"], cfg["rot_threshold"], True),
      G.object_success(achieved, goal, cfg["pos_threshold"], cfg["rot_threshold"], False),
    )
    return jnp.all(placed, -1)

  recurrent = hasattr(act, "initial_carry")

  def body(carry, k):
    state, t, successes, failed, memory = carry
    active = (failed == 0) & (successes < max_goals)
    k_act, k_goal = jax.vmap(jax.random.split, out_axes=1)(k)  # [K, 2] each
    obs = dict(state.obs, steps_left=1.0 - t / budget) if steps_left else state.obs
    if recurrent:
      action, memory = act(obs, k_act[0], memory)
    else:
      action = act(obs, k_act[0])
    nxt = jax.vmap(env.step)(state, action)
    success = active & jax.vmap(success_of)(nxt, symmetric)
    timeout = active & ~success & (t + 1 >= budget)
    regoal = jax.vmap(goal_for)(episode_keys(k_goal), task_of, nxt)
    nxt = jax.tree.map(
      lambda a, b: jnp.where(success.reshape(success.shape + (1,) * (a.ndim - 1)), a, b), regoal, nxt
    )
    return (nxt, jnp.where(success, 0, t + 1), successes + success, failed + timeout, memory), None

  memory = act.initial_carry((k_tasks * e,)) if recurrent else None
  init = (state, jnp.zeros((k_tasks * e,), jnp.int32), zeros, zeros, memory)
  step_keys = jnp.swapaxes(jax.vmap(lambda k: jax.random.split(k, max_goals * budget))(k_run), 0, 1)
  (_, _, successes, failed, _), _ = jax.lax.scan(body, init, step_keys)
  successes, failed = successes.reshape(k_tasks, e), failed.reshape(k_tasks, e)
  rates = jnp.sum(successes, 1) / jnp.maximum(jnp.sum(successes + failed, 1), 1.0)
  return rates, jnp.mean(successes, 1)


def block_counts(tasks: Sequence[str]) -> list:
  """The distinct block counts of `tasks`, in order of first appearance: one world (and one compiled
  MJX step) each."""
  return list(dict.fromkeys(parse_task(t)[1] for t in tasks))


def evaluate_suite_part(
  tasks: Sequence[str],
  num_objects: int,
  world_config: dict,
  act: Callable,
  key,
  num_episodes: int,
  steps_per_object: int = 200,
  max_goals: int = 5,
  steps_left: bool = False,
):
  """The tasks of `tasks` with `num_objects` blocks, in one batch in one world (`evaluate_group`):
  {"holdout/TASK-N": success_rate, "holdout_goals/TASK-N": goals solved per episode}. Task i (its index
  in `tasks`) uses `fold_in(key, i)` whatever the grouping. `combine_suite` merges the parts."""
  members = [
    (i, name, parse_task(name)[0]) for i, name in enumerate(tasks) if parse_task(name)[1] == num_objects
  ]
  # The physics world of these tasks; "push" so that no flip face markers are compiled in (visual only).
  world = make_holdout_env(f"push-{num_objects}", world_config)
  keys = jnp.stack([jax.random.fold_in(key, i) for i, _, _ in members])
  rates, per_ep = evaluate_group(
    world, [t for _, _, t in members], act, keys, num_episodes, steps_per_object, max_goals, steps_left
  )
  out = {}
  for j, (_, name, _) in enumerate(members):
    out[f"holdout/{name}"] = rates[j]
    out[f"holdout_goals/{name}"] = per_ep[j]
  return out


def combine_suite(tasks: Sequence[str], parts: Sequence[dict]) -> dict:
  """The suite's metrics from its parts (jax or host values): every "holdout/TASK-N", "eval/success_rate"
  (their mean) and "eval/return" (mean goals solved per episode)."""
  merged = {k: v for part in parts for k, v in part.items()}
  out = {f"holdout/{t}": merged[f"holdout/{t}"] for t in tasks}
  out["eval/success_rate"] = jnp.mean(jnp.stack([jnp.asarray(out[f"holdout/{t}"]) for t in tasks]))
  out["eval/return"] = jnp.mean(jnp.stack([jnp.asarray(merged[f"holdout_goals/{t}"]) for t in tasks]))
  return out


def evaluate_suite(
  tasks: Sequence[str],
  world_config: dict,
  act: Callable,
  key,
  num_episodes: int,
  steps_per_object: int = 200,
  max_goals: int = 5,
  steps_left: bool = False,
):
  """{"holdout/TASK-N": success_rate, ..., "eval/success_rate": their mean,
  "eval/return": mean goals solved per episode}.

  Tasks with the same block count run as one batch in one world (`evaluate_suite_part`), so the MJX
  step is compiled once per block count; task i's episodes use `fold_in(key, i)` whatever the grouping.
  """
  return combine_suite(
    tasks,
    [
      evaluate_suite_part(
        tasks, n, world_config, act, key, num_episodes, steps_per_object, max_goals, steps_left
      )
      for n in block_counts(tasks)
    ],
  )
