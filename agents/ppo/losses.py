"""PPO's losses, shared by every on-policy learner here (PPO, asymmetric self-play, multi-agent PPO):
generalised advantage estimation, the clipped surrogate, the (optionally clipped) value loss, and the
behavioural-cloning objectives of Alice Behavioral Cloning (self-play) and PPO's hindsight term.

Behavioural cloning (Alice Behavioral Cloning in self-play; PPO's hindsight term, on-policy HER). ABC (SPEC section 1; paper section 3.3) is the PPO surrogate with the advantage set to 1: the likelihood of
the demonstrated action is pushed up, with the ratio r = pi(a|s,g) / pi_old(a|s,g) to the behaviour policy
at collection time. The paper writes it two ways, which differ once r < 1 - eps:

  "clip" (its equation):  L = -E[clip(r, 1 - eps, 1 + eps)]  -- zero gradient once r leaves the band on
                          either side, so a demonstration the policy has drifted away from is ignored;
  "min"  (its text: PPO's clipped surrogate with advantage 1, = -E[min(r A, clip(r) A)] at A = 1):
                          L = -E[min(r, 1 + eps)]  -- pulls on any r below 1 + eps, stops above it.
  "nll"  (the no-clipping ablation, plain behavioural cloning): L = -E[log pi(a|s,g)].

`bc_loss(..., form)` computes any of them.
The default of each learner (agents.selfplay.asp.ASPConfig.abc_form, agents.ppo.train.PPOConfig.hindsight_form) and
the comparison that chose it are recorded there.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

FORMS = ("min", "clip", "nll")


def bc_loss(log_prob, old_log_prob, clip_eps: float = 0.2, mask=None, form: str = "min"):
  """One of the FORMS (see the module docstring), averaged over the entries where mask is 1.

  log_prob, old_log_prob, mask: same shape (any). Returns (loss, fraction of masked entries outside the
  clip band: where "clip" gives no gradient; for "min", where r > 1 + eps; 0 for "nll"). With an all-zero
  mask the loss is 0 (and has zero gradient).
  """
  if form not in FORMS:
    raise ValueError(f"behavioural-cloning form must be one of {FORMS}, got {form!r}")
  ratio = jnp.exp(log_prob - old_log_prob)
  mask = jnp.ones_like(ratio) if mask is None else mask.astype(ratio.dtype)
  n = jnp.maximum(jnp.sum(mask), 1.0)
  if form == "clip":
    per = -jnp.clip(ratio, 1.0 - clip_eps, 1.0 + clip_eps)
    outside = jnp.abs(ratio - 1.0) > clip_eps
  elif form == "min":
    per = -jnp.minimum(ratio, 1.0 + clip_eps)
    outside = ratio > 1.0 + clip_eps
  else:
    per = -log_prob
    outside = jnp.zeros_like(ratio, bool)
  # where, not multiply: a masked-out entry's -log_prob may be inf, and inf * 0 is nan.
  loss = jnp.sum(jnp.where(mask > 0, per, 0.0)) / n
  return loss, jnp.sum(outside * mask) / n


def gae(rewards, values, next_values, dones, truncations, gamma: float, lam: float):
  """Generalised advantage estimation over [T, N] arrays.

  next_values[t] is V of the observation step t produced (the final observation of a finished episode,
  not the fresh reset), so a truncated step bootstraps from it; a terminated one (done, not truncated)
  does not. The recursion is cut at every episode end. Returns (advantages, returns), both [T, N].
  """
  terminations = dones * (1.0 - truncations)
  deltas = rewards + gamma * (1.0 - terminations) * next_values - values

  def body(next_adv, x):
    delta, done = x
    adv = delta + gamma * lam * (1.0 - done) * next_adv
    return adv, adv

  _, adv = jax.lax.scan(body, jnp.zeros_like(deltas[0]), (deltas, dones), reverse=True)
  return adv, adv + values


def masked_mean(x, mask=None):
  """mean(x), or the mean over entries where mask is 1 (0 when the mask is empty)."""
  if mask is None:
    return jnp.mean(x)
  return jnp.sum(x * mask) / jnp.maximum(jnp.sum(mask), 1.0)


def clipped_surrogate(log_prob, old_log_prob, advantages, clip_eps: float, mask=None):
  """PPO's clipped policy loss (to minimise) and the fraction of clipped ratios (over `mask`)."""
  ratio = jnp.exp(log_prob - old_log_prob)
  loss = -masked_mean(
    jnp.minimum(ratio * advantages, jnp.clip(ratio, 1 - clip_eps, 1 + clip_eps) * advantages), mask
  )
  clip_frac = masked_mean((jnp.abs(ratio - 1.0) > clip_eps).astype(jnp.float32), mask)
  return loss, clip_frac


def value_loss(values, old_values, returns, vf_clip: float | None, mask=None):
  if vf_clip is None:
    return 0.5 * masked_mean((values - returns) ** 2, mask)
  clipped = old_values + jnp.clip(values - old_values, -vf_clip, vf_clip)
  return 0.5 * masked_mean(jnp.maximum((values - returns) ** 2, (clipped - returns) ** 2), mask)
