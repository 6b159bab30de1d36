"""Team spirit (OpenAI Five, SPEC section 5): how much each agent's reward is its own and how much its
team's, for team games (hide-and-seek's teams; asymmetric self-play's two one-agent "teams").

  r_i = (1 - tau) rho_i + tau mean_{j in team(i)} rho_j            (tau 0: selfish; 1: the team's mean)
  zero_sum: r_i <- r_i - mean over the agents of the other teams of their (blended) rewards

The paper anneals tau from 0.3 to 1 over training; pass a scheduled tau (agents.common.optim.schedule). Agents
missing from an episode (mask 0) take no part in any mean, and get 0.
"""

from __future__ import annotations

import jax.numpy as jnp


def team_rewards(rho, team, tau, zero_sum: bool = True, mask=None):
  """rho [..., A] per-agent rewards, team [A] int team ids, tau in [0, 1], mask [..., A] (1: present)
  -> blended rewards [..., A]."""
  rho = jnp.asarray(rho, jnp.float32)
  team = jnp.asarray(team)
  if team.ndim != 1 or team.shape[0] != rho.shape[-1]:
    raise ValueError(f"team must be [A] with A = rho's last axis ({rho.shape[-1]}), got shape {team.shape}")
  mask = jnp.ones_like(rho) if mask is None else jnp.asarray(mask, jnp.float32)
  same = (team[:, None] == team[None, :]).astype(jnp.float32)  # [A, A]: j in team(i)

  def mean_over(weights, x):  # for each agent i, the masked mean of x over the agents j weights[i, j] picks
    w = weights * mask[..., None, :]  # [..., A, A]
    return jnp.sum(w * x[..., None, :], -1) / jnp.maximum(jnp.sum(w, -1), 1.0)

  r = (1.0 - tau) * rho + tau * mean_over(same, rho)
  if zero_sum:
    r = r - mean_over(1.0 - same, r)
  return r * mask
