"""Meta-World's reward building blocks in JAX (the reference's `reward_utils` and the Sawyer
`_gripper_caging_reward`), as pure functions of arrays with any leading batch shape.

Semantics follow metaworld 3.1.1 (dm_control's `tolerance`): every function returns values in [0, 1].
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp

_DEFAULT_VALUE_AT_MARGIN = 0.1


def _sigmoid(x, value_at_1: float, sigmoid: str):
  """Maps x >= 0 to (0, 1], 1 at 0 and `value_at_1` at 1 (dm_control's `_sigmoids`)."""
  if sigmoid == "gaussian":
    scale = math.sqrt(-2 * math.log(value_at_1))
    return jnp.exp(-0.5 * (x * scale) ** 2)
  if sigmoid == "hyperbolic":
    scale = math.acosh(1 / value_at_1)
    return 1 / jnp.cosh(x * scale)
  if sigmoid == "long_tail":
    scale = math.sqrt(1 / value_at_1 - 1)
    return 1 / ((x * scale) ** 2 + 1)
  if sigmoid == "reciprocal":
    scale = 1 / value_at_1 - 1
    return 1 / (jnp.abs(x) * scale + 1)
  if sigmoid == "cosine":
    scale = math.acos(2 * value_at_1 - 1) / math.pi
    sx = x * scale
    return jnp.where(jnp.abs(sx) < 1, (1 + jnp.cos(jnp.pi * sx)) / 2, 0.0)
  if sigmoid == "linear":
    sx = x * (1 - value_at_1)
    return jnp.where(jnp.abs(sx) < 1, 1 - sx, 0.0)
  if sigmoid == "quadratic":
    sx = x * math.sqrt(1 - value_at_1)
    return jnp.where(jnp.abs(sx) < 1, 1 - sx**2, 0.0)
  if sigmoid == "tanh_squared":
    scale = math.atanh(math.sqrt(1 - value_at_1))
    return 1 - jnp.tanh(x * scale) ** 2
  raise ValueError(f"unknown sigmoid {sigmoid!r}")


# Jitted so that its trace is made once per argument signature and shared by every call site: the 50
# tasks' rewards call it ~150 times in one MT50 step, and tracing it at each was ~a quarter of the step's
# trace. Inside another trace it enters as a call that XLA inlines: the same program.
@functools.partial(jax.jit, static_argnames=("sigmoid", "value_at_margin"))
def tolerance(
  x,
  bounds=(0.0, 0.0),
  margin=0.0,
  sigmoid: str = "gaussian",
  value_at_margin: float = _DEFAULT_VALUE_AT_MARGIN,
):
  """1 where lower <= x <= upper, else a sigmoid of the distance to the nearer bound over `margin`
  (0 outside the bounds when margin is 0). `margin` may be an array (the reference computes it from the
  state); it must be >= 0."""
  lower, upper = bounds
  x = jnp.asarray(x, jnp.float32)
  in_bounds = (lower <= x) & (x <= upper)
  margin = jnp.asarray(margin, jnp.float32)
  safe = jnp.where(margin == 0, 1.0, margin)
  d = jnp.where(x < lower, lower - x, x - upper) / safe
  soft = jnp.where(in_bounds, 1.0, _sigmoid(d, value_at_margin, sigmoid))
  hard = jnp.where(in_bounds, 1.0, 0.0)
  return jnp.where(margin == 0, hard, soft)


def inverse_tolerance(x, bounds=(0.0, 0.0), margin=0.0, sigmoid: str = "reciprocal"):
  """0 inside the bounds, rising towards 1 outside (the reference's `inverse_tolerance`)."""
  return 1 - tolerance(x, bounds=bounds, margin=margin, sigmoid=sigmoid, value_at_margin=0)


def within(x, radius: float, x_init, sigmoid: str = "long_tail"):
  """tolerance(x, (0, radius), margin |x_init - radius|): the reference's usual "distance within a radius,
  its margin the initial distance" term."""
  return tolerance(x, bounds=(0.0, radius), margin=jnp.abs(x_init - radius), sigmoid=sigmoid)


def info(success, near_object, grasp_success, grasp_reward, in_place_reward, obj_to_target, unscaled_reward):
  """The reference's `evaluate_state` info dict (sawyer.INFO_KEYS), booleans as float32."""
  vals = (success, near_object, grasp_success, grasp_reward, in_place_reward, obj_to_target, unscaled_reward)
  keys = ("success", "near_object", "grasp_success", "grasp_reward", "in_place_reward", "obj_to_target")
  return {k: jnp.asarray(v, jnp.float32) for k, v in zip(keys + ("unscaled_reward",), vals)}


def hamacher_product(a, b):
  """The Hamacher t-norm a b / (a + b - a b), 0 where a + b - a b is 0."""
  den = a + b - a * b
  return jnp.where(den > 0, a * b / jnp.where(den > 0, den, 1.0), 0.0)


def rect_prism_tolerance(curr, zero, one):
  """Product of the per-axis fractions of `curr` between the corners `zero` (reward 0) and `one`
  (reward 1) inside the prism; 1 outside it (the reference's `rect_prism_tolerance`)."""
  lo, hi = jnp.minimum(zero, one), jnp.maximum(zero, one)
  inside = jnp.all((lo <= curr) & (curr <= hi), axis=-1)
  frac = jnp.prod((curr - zero) / (one - zero), axis=-1)
  return jnp.where(inside, frac, 1.0)


def gripper_caging_reward(
  action,
  obj_pos,
  reads,
  obj_radius: float,
  pad_success_thresh: float,
  object_reach_radius: float,
  xz_thresh: float,
  desired_gripper_effort: float = 1.0,
  high_density: bool = False,
  medium_density: bool = False,
):
  """The Sawyer envs' `_gripper_caging_reward`: how well the pads cage `obj_pos` [..., 3] in y, the tcp's
  x-z distance to it, and (once caged) the closing effort action[..., 3].

  `reads` holds the state it needs: left_pad, right_pad (pad body centres), tcp_center, obj_init_pos,
  init_tcp ([..., 3] each).
  """
  if high_density and medium_density:
    raise ValueError("can only be either high_density or medium_density")
  pad_y = jnp.stack([reads["left_pad"][..., 1], reads["right_pad"][..., 1]], -1)
  obj_init = reads["obj_init_pos"]
  pad_to_obj = jnp.abs(pad_y - obj_pos[..., 1:2])
  pad_to_objinit = jnp.abs(pad_y - obj_init[..., 1:2])
  caging_margin = jnp.abs(pad_to_objinit - pad_success_thresh)
  caging_lr = tolerance(
    pad_to_obj, bounds=(obj_radius, pad_success_thresh), margin=caging_margin, sigmoid="long_tail"
  )
  caging_y = hamacher_product(caging_lr[..., 0], caging_lr[..., 1])
  tcp = reads["tcp_center"]
  xz = jnp.array([0, 2])
  xz_margin = jnp.linalg.norm(obj_init[..., xz] - reads["init_tcp"][..., xz], axis=-1) - xz_thresh
  caging_xz = tolerance(
    jnp.linalg.norm(tcp[..., xz] - obj_pos[..., xz], axis=-1),
    bounds=(0, xz_thresh),
    margin=xz_margin,
    sigmoid="long_tail",
  )
  gripper_closed = (
    jnp.minimum(jnp.maximum(0.0, action[..., -1]), desired_gripper_effort) / desired_gripper_effort
  )
  caging = hamacher_product(caging_y, caging_xz)
  gripping = jnp.where(caging > 0.97, gripper_closed, 0.0)
  out = hamacher_product(caging, gripping)
  if high_density:
    out = (out + caging) / 2
  if medium_density:
    tcp_to_obj = jnp.linalg.norm(obj_pos - tcp, axis=-1)
    tcp_to_obj_init = jnp.linalg.norm(obj_init - reads["init_tcp"], axis=-1)
    reach_margin = jnp.abs(tcp_to_obj_init - object_reach_radius)
    reach = tolerance(tcp_to_obj, bounds=(0, object_reach_radius), margin=reach_margin, sigmoid="long_tail")
    out = (out + reach) / 2
  return out
