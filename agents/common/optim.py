"""Optimiser practice shared by every learner (OpenAI Five, SPEC section 5), built from optax pieces.

- `clip_by_second_moment(k)`: per-parameter gradient clipping to +-k sqrt(v), v the running (bias-
  corrected) second moment of that parameter's gradient, as Adam keeps it (the paper: k = 5). A
  gradient spike on one parameter is cut to a few of its usual magnitudes without shrinking the
  others, which a global-norm clip would. It keeps its own v of the unclipped gradients (with Adam's
  b2), so it can sit in front of any optimiser; Adam's own v then sees the clipped ones.
- `schedule(start, end, kind, steps)`: "constant", "linear" or "cosine" from start to end over
  `steps` (optax schedules), so that a hyperparameter changes gradually, never in a jump. Learners use
  it for the learning rate (over gradient steps) and the entropy coefficient (over train steps).
- `make(...)`: global-norm clip, the optional per-parameter clip, then Adam with a scheduled rate.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

SCHEDULES = ("constant", "linear", "cosine")


class SecondMomentClipState(NamedTuple):
  count: jax.Array  # int32
  nu: optax.Updates  # running second moment of the raw gradients


def clip_by_second_moment(k: float = 5.0, b2: float = 0.999) -> optax.GradientTransformation:
  """Clips every gradient element g to +-k sqrt(v_hat), v_hat = the bias-corrected EMA (decay b2) of g^2
  including this step's g (so the first step, where v_hat = g^2, is never clipped)."""
  if k <= 0:
    raise ValueError(f"clip_by_second_moment: k must be > 0, got {k}")

  def init(params):
    return SecondMomentClipState(jnp.zeros((), jnp.int32), jax.tree.map(jnp.zeros_like, params))

  def update(updates, state, params=None):
    del params
    count = state.count + 1
    nu = jax.tree.map(lambda v, g: b2 * v + (1.0 - b2) * jnp.square(g), state.nu, updates)
    correction = 1.0 - b2 ** count.astype(jnp.float32)
    bound = jax.tree.map(lambda v: k * jnp.sqrt(v / correction), nu)
    clipped = jax.tree.map(lambda g, b: jnp.clip(g, -b, b), updates, bound)
    return clipped, SecondMomentClipState(count, nu)

  return optax.GradientTransformation(init, update)


def schedule(start: float, end: float, kind: str, steps: int) -> optax.Schedule:
  """start -> end over `steps` (then held): "constant" (start throughout), "linear" or "cosine"."""
  if kind not in SCHEDULES:
    raise ValueError(f"schedule kind must be one of {SCHEDULES}, got {kind!r}")
  steps = max(int(steps), 1)
  if kind == "constant":
    return optax.constant_schedule(start)
  if kind == "linear":
    return optax.linear_schedule(start, end, steps)
  return optax.cosine_decay_schedule(start, steps, alpha=end / start if start else 0.0)


def make(
  learning_rate: float,
  *,
  lr_schedule: str = "constant",
  lr_end: float = 0.0,
  steps: int = 1,
  max_grad_norm: float | None = None,
  clip_sqrt_v: float = 0.0,
  eps: float = 1e-8,
) -> optax.GradientTransformation:
  """[global-norm clip] -> [per-parameter +-clip_sqrt_v sqrt(v) clip, if > 0] -> Adam at `learning_rate`,
  scheduled to `lr_end` over `steps` gradient steps (`schedule`). A constant rate stays a plain float, so
  the optimiser state (and a checkpoint of it) is what it was before schedules existed."""
  lr = learning_rate if lr_schedule == "constant" else schedule(learning_rate, lr_end, lr_schedule, steps)
  parts = []
  if max_grad_norm:
    parts.append(optax.clip_by_global_norm(max_grad_norm))
  if clip_sqrt_v:
    parts.append(clip_by_second_moment(clip_sqrt_v))
  parts.append(optax.adam(lr, eps=eps))
  return optax.chain(*parts)
