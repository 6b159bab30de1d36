"""Hindsight experience replay: goal relabeling as a pure, jittable function over trajectory segments.

A batch of segments is [B, L]: `next_ag[b, t]` is the achieved goal after step t (of the episode's
final observation when step t ended it), `done[b, t]` marks the last step of an episode (terminated or
truncated alike), and `valid[b, t]` marks steps that hold data. A segment may hold several episodes,
or the tail of one and the head of the next; an episode is the run of valid steps between dones, so a
relabelled goal never crosses a done, an invalid step or the segment's edge (an episode cut by the
segment edge only relabels inside the part the segment holds).

Strategies (for the transition at step t of its episode, which ends at step e and started at s):
  future:  next_ag[j], j ~ U{t..e}, with probability future_p = 1 - 1/(1+k)
  final:   next_ag[e], with probability future_p
  episode: next_ag[j], j ~ U{s..e}, with probability future_p
  random:  next_ag of any valid step of any segment in the batch, with probability future_p
  none:    the original goal
Rewards are recomputed with the env's `compute_reward(next_ag[t], goal, info)` for every transition.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

STRATEGIES = ("future", "final", "episode", "random", "none")


def future_p(k: float) -> float:
  """The relabel probability of HER's `future` strategy with k relabelled goals per real one."""
  return 1.0 - 1.0 / (1.0 + k)


def episode_ids(done, valid):
  """[B, L] -> [B, L] int32 ids, equal exactly for steps of the same episode; -1 on invalid steps.

  A new episode starts after every done and after every invalid step."""
  start = jnp.concatenate(
    [jnp.ones_like(done[:, :1]), jnp.maximum(done[:, :-1], 1.0 - valid[:, :-1])], axis=1
  )
  ids = jnp.cumsum(start, axis=1).astype(jnp.int32) - 1
  return jnp.where(valid > 0, ids, -1)


def goal_indices(key, done, valid, t, strategy: str):
  """Which step's next achieved goal to use for the transitions at rows b, steps t[b].

  done, valid: [B, L]; t: [B] int. Returns j [B] int in the same segment (for 'random': also a row).
  Returns (rows [B], j [B])."""
  if strategy not in STRATEGIES:
    raise ValueError(f"unknown HER strategy {strategy!r}; valid: {STRATEGIES}")
  B, L = done.shape
  rows = jnp.arange(B)
  if strategy == "random":
    logits = jnp.where(valid.reshape(-1) > 0, 0.0, -jnp.inf)
    flat = jax.random.categorical(key, logits, shape=(B,))
    return flat // L, flat % L
  if strategy == "none":
    return rows, t
  ids = episode_ids(done, valid)
  steps = jnp.arange(L)[None, :]
  same = (ids == ids[rows, t][:, None]) & (valid > 0)
  if strategy == "future":
    allowed = same & (steps >= t[:, None])
  elif strategy == "episode":
    allowed = same
  else:  # final: the last step of the episode inside the segment
    allowed = same & (steps == jnp.max(jnp.where(same, steps, -1), axis=1, keepdims=True))
  j = jax.random.categorical(key, jnp.where(allowed, 0.0, -jnp.inf), axis=1)
  return rows, j


def relabel(key, next_ag, done, valid, t, goal, strategy: str = "future", p: float = future_p(4)):
  """Relabels the goals of transitions (b, t[b]) of a batch of segments.

  next_ag: [B, L, G...]; done, valid: [B, L]; t: [B] int; goal: [B, G...] the original goals.
  Returns (goal [B, G...], relabelled [B] bool). Rows are relabelled independently with probability p.
  """
  k_pick, k_coin = jax.random.split(key)
  rows, j = goal_indices(k_pick, done, valid, t, strategy)
  coin = jax.random.uniform(k_coin, t.shape) < p
  if strategy == "none":
    coin = jnp.zeros_like(coin)
  new = next_ag[rows, j]
  mask = coin.reshape(coin.shape + (1,) * (goal.ndim - 1))
  return jnp.where(mask, new, goal), coin


def relabel_all(key, next_ag, done, valid, goal, strategy: str = "future", p: float = future_p(4)):
  """`relabel` for every step of every segment: goal [B, L, G...] -> (goals [B, L, G...], flags [B, L])."""
  L = done.shape[1]
  t = jnp.broadcast_to(jnp.arange(L)[:, None], (L, done.shape[0]))
  goals, flags = jax.vmap(
    lambda k, tt, g: relabel(k, next_ag, done, valid, tt, g, strategy, p), in_axes=(0, 0, 1), out_axes=1
  )(jax.random.split(key, L), t, goal)
  return goals, flags


def at_episode_end(x, done, valid):
  """[B, L] -> [B, L]: the value of x at the last step of each step's episode within the segment
  (the step with done, the last valid step, or the segment's last step)."""
  last = jnp.concatenate([jnp.maximum(done[:, :-1], 1.0 - valid[:, 1:]), jnp.ones_like(done[:, :1])], 1)

  def body(nxt, xs):
    xt, lt = xs
    v = jnp.where(lt > 0, xt, nxt)
    return v, v

  _, out = jax.lax.scan(body, x[:, -1], (x.T, last.T), reverse=True)
  return out.T
