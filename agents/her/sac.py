"""SAC+HER: soft actor-critic (Haarnoja et al. 2018, with the learned temperature of Haarnoja et al.
2018b) on the HER replay of DDPG+HER, as one compiled training cycle.

The cycle (collect, insert, normaliser update, `updates_per_cycle` updates, target update), the replay,
the HER relabelling, the normaliser, `grad_batches` and `train_many` are DDPG's (`agents.her.ddpg.HERLearner`).
This module holds what is SAC's, its whole update in `SAC.grads`:
  critics:      two Q networks (clipped double-Q), each regressed on
                y = r + gamma d (min_j Q'_j(s', a') - alpha log pi(a'|s')),  a' ~ pi(.|s')  (`critic_target`)
                with polyak-averaged target critics Q'_j and no target actor;
  actor:        a = tanh(u), u ~ N(mu(s), sigma(s)) reparameterised, loss mean(alpha log pi(a|s) -
                min_j Q_j(s, a)) (`actor_loss`); log pi includes the tanh correction (`squash`);
  temperature:  alpha = exp(log_alpha), loss -mean(log_alpha (log pi(a|s) + target_entropy))
                (`temperature_loss`; target entropy -action_size by default): the policy's entropy below
                the target raises alpha, above it lowers alpha.
The three losses are taken at the same parameters and each part steps with its own Adam. An update's
randomness (the reparameterisation noise of a and a') is drawn in `sample`, so `grads` is a pure function
of (params, target, obs_norm, batch) and averaging over `grad_batches` is exact.

Target clipping (`clip_target`, sparse rewards r in [-1, 0]): a soft Q adds gamma alpha H per future step
to the return, H the policy's entropy there. H is at most action_size log 2 (the uniform distribution on
[-1, 1]^A) and the temperature holds it near target_entropy, so targets are clipped to
[(-1 + gamma alpha min(target_entropy, 0)) / (1 - gamma), gamma alpha action_size log 2 / (1 - gamma)]
(`target_bounds`): DDPG's [-1/(1-gamma), 0] widened by what the entropy bonus can add or take, the same
range as alpha goes to 0.

Exploration is the stochastic policy itself; `random_eps` > 0 mixes in uniform random actions as
DDPG+HER does. Evaluation and `policy(..., deterministic=True)` act with tanh(mu(s)).

Library use is DDPG's:
  algo = make_train(env, SACConfig(...)); ts = algo.init(key); ts, m = algo.train_many(ts, n)
  act = algo.policy(ts.params, ts.obs_norm, deterministic)   # act(obs, key) -> action
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp

from agents.common.distributions import TanhNormal
from agents.common.networks import task_mlp
from agents.her.ddpg import CloningConfig, Critic, HERLearner, cloning_info, q_filtered_cloning

# The actor's log std is squashed smoothly into this range (no dead gradient at a hard clip); -5 keeps a
# near-deterministic policy's log-density finite.
LOG_STD_MIN, LOG_STD_MAX = -5.0, 2.0


@dataclasses.dataclass(frozen=True)
class SACConfig(CloningConfig):
  random_eps: float = 0.0  # SAC explores with its own stochastic policy; > 0 mixes in uniform
  # random actions with this probability
  alpha_lr: float = 1e-3  # the temperature's Adam rate (log alpha)
  init_alpha: float = 0.1  # the temperature at the start
  target_entropy: float | None = None  # None: -action_size (Haarnoja et al. 2018b)

  def __post_init__(self):
    super().__post_init__()
    if not self.init_alpha > 0:
      raise ValueError(f"init_alpha must be > 0 (alpha is learned as log alpha), got {self.init_alpha!r}")


class GaussianActor(nn.Module):
  """feats [..., F] -> TanhNormal over [..., A] (mean and log std of the pre-tanh Gaussian)."""

  action_size: int
  hidden: Sequence[int]
  num_heads: int = 1  # > 1: one output layer per task, feats ending in its one-hot id (`Critic`)

  @nn.compact
  def __call__(self, feats):
    out = task_mlp(self.hidden, 2 * self.action_size, self.num_heads, "relu", feats, feats)
    mean, raw = jnp.split(out, 2, axis=-1)
    log_std = LOG_STD_MIN + 0.5 * (LOG_STD_MAX - LOG_STD_MIN) * (jnp.tanh(raw) + 1.0)
    return TanhNormal(mean, log_std)


class TwinCritic(nn.Module):
  """Two independent critics: (feats [B, F], action [B, A]) -> Q [2, B]."""

  hidden: Sequence[int]
  num_heads: int = 1

  @nn.compact
  def __call__(self, feats, action):
    # Two plain networks, not one vmapped over stacked weights: XLA:CPU runs the batched matmuls of a
    # vmapped 256-wide critic on its intra-op thread pool and, with one host device per core (train.py's
    # default), every pool thread can end up waiting on them: a hang (as the LAPACK rule in
    # agents/common/sharding.py).
    return jnp.stack([Critic(self.hidden, self.num_heads)(feats, action) for _ in range(2)])


# --- SAC's losses, as functions of arrays ------------------------------------------------------------
def squash(dist: TanhNormal, noise):
  """The reparameterised action a = tanh(mean + std noise) [..., A] and its log-density log pi(a) [...],
  with the change of variables: log N(u) - sum log(1 - tanh(u)^2)."""
  u = dist.mean + jnp.exp(dist.log_std) * noise
  return jnp.tanh(u), dist.log_prob(u)


def critic_target(reward, discount, next_q, next_logp, alpha, gamma):
  """y [B] = reward + gamma discount (min_j next_q[j] - alpha next_logp): the soft Bellman target of the
  twin target critics next_q [2, B] at a' ~ pi(s') with log-density next_logp [B]."""
  return reward + gamma * discount * (jnp.min(next_q, axis=0) - alpha * next_logp)


def target_bounds(gamma, alpha, action_size, target_entropy):
  """(low, high) of a soft Q under sparse rewards in [-1, 0] (see the module docstring)."""
  low = (-1.0 + gamma * alpha * min(target_entropy, 0.0)) / (1.0 - gamma)
  high = gamma * alpha * action_size * math.log(2.0) / (1.0 - gamma)
  return low, high


def actor_loss(q_pi, logp, alpha):
  """mean(alpha logp - min_j q_pi[j]); q_pi [2, B] the critics at the policy's actions, logp [B]."""
  return jnp.mean(alpha * logp - jnp.min(q_pi, axis=0))


def temperature_loss(log_alpha, logp, target_entropy):
  """-mean(log_alpha (logp + target_entropy)), logp [B] held fixed: its gradient in log_alpha is
  mean(-logp) - target_entropy = entropy - target, so descent raises alpha when the entropy is low."""
  return -jnp.mean(log_alpha * (jax.lax.stop_gradient(logp) + target_entropy))


class SAC(HERLearner):
  """The compiled pieces of one SAC+HER setup (see the module docstring)."""

  def __init__(self, env, config: SACConfig):
    super().__init__(env, config)
    c = config
    heads = self.output_heads()
    self.actor = GaussianActor(env.action_size, tuple(c.hidden), heads)
    self.critic = TwinCritic(tuple(c.hidden), heads)
    self.target_entropy = float(-env.action_size if c.target_entropy is None else c.target_entropy)
    self.opts = {
      "actor": self.make_opt(c.actor_lr),
      "critic": self.make_opt(c.critic_lr),
      "log_alpha": self.make_opt(c.alpha_lr),
    }

  def output_heads(self) -> int:
    """Output layers of the actor and critics, one per task when > 1 (a multi-task learner's option)."""
    return 1

  def init_params(self, k_a, k_c, feats):
    """{"actor", "critic" (both critics), "log_alpha" []} for one (unbatched) feature vector [F]."""
    return {
      "actor": self.actor.init(k_a, feats),
      "critic": self.critic.init(k_c, feats, jnp.zeros((self.action_size,))),
      "log_alpha": jnp.asarray(math.log(self.config.init_alpha), jnp.float32),
    }

  def target_params(self, params):
    """Only the critics have target copies."""
    return {"critic": params["critic"]}

  def explore(self, params, obs_norm, obs, key):
    """An action of the stochastic policy (uniform with probability random_eps): obs leaves [N, ...] ->
    [N, A]."""
    k_pi, k_coin, k_rand = jax.random.split(key, 3)
    dist = self.actor.apply(params["actor"], self.normalize(obs_norm, self.features(obs)))
    return self.with_random_actions(jnp.tanh(dist.sample(k_pi)), k_coin, k_rand)

  def sample(self, buf, key, demos=None):
    """DDPG's relabelled batch plus the update's reparameterisation noise: `noise` for a ~ pi(s) and
    `next_noise` for a' ~ pi(s'), each [batch_size, A] standard normal."""
    k_batch, k_pi, k_next = jax.random.split(key, 3)
    shape = (self.config.batch_size, self.action_size)
    return {
      **super().sample(buf, k_batch, demos),
      "noise": jax.random.normal(k_pi, shape),
      "next_noise": jax.random.normal(k_next, shape),
    }

  def grads(self, params, target, obs_norm, b, env_steps=0):
    """SAC's update on one batch `b` (leaves [batch, ...], `sample`) after `env_steps` env steps (the
    cloning schedule): gradients of the twin critics' soft TD loss, the actor's loss (with the Q-filtered
    cloning of the demo rows when bc_weight > 0) and the temperature's loss, all at `params` ->
    ({"actor", "critic", "log_alpha"} gradients, scalar metrics)."""
    c = self.config
    alpha = jnp.exp(params["log_alpha"])
    feats = self._feats(obs_norm, b["obs"], b["goal"])
    next_feats = self._feats(obs_norm, b["next_obs"], b["goal"])
    next_a, next_logp = squash(self.actor.apply(params["actor"], next_feats), b["next_noise"])
    next_q = self.critic.apply(target["critic"], next_feats, next_a)
    y = critic_target(b["reward"], b["discount"], next_q, next_logp, alpha, c.gamma)
    if c.clip_target:
      y = jnp.clip(y, *target_bounds(c.gamma, alpha, self.action_size, self.target_entropy))
    y = jax.lax.stop_gradient(y)

    def critic_loss(cp):
      q = self.critic.apply(cp, feats, b["action"])
      return jnp.sum(jnp.mean((q - y) ** 2, axis=-1)), q  # each critic regressed on its own

    (lc, q), g_c = jax.value_and_grad(critic_loss, has_aux=True)(params["critic"])

    def policy_loss(ap):
      dist = self.actor.apply(ap, feats)
      a, logp = squash(dist, b["noise"])
      q_pi = self.critic.apply(params["critic"], feats, a)
      loss = actor_loss(q_pi, logp, jax.lax.stop_gradient(alpha))
      if c.bc_weight <= 0:
        return loss, (logp, jnp.zeros(()), jnp.zeros_like(logp))
      # The deterministic action tanh(mean) clones; the filter compares the twin minimum at the batch's
      # action (the critics' loss) with that at the sampled action (this loss): no extra forward pass.
      bc, clone = q_filtered_cloning(c, jnp.tanh(dist.mean), b, jnp.min(q, 0), jnp.min(q_pi, 0))
      return loss + c.bc_weight * c.bc_scale(env_steps) * bc, (logp, bc, clone)

    (la, (logp, bc, clone)), g_a = jax.value_and_grad(policy_loss, has_aux=True)(params["actor"])
    lt, g_t = jax.value_and_grad(temperature_loss)(params["log_alpha"], logp, self.target_entropy)
    info = {
      "loss/critic": lc,
      "loss/actor": la,
      "loss/alpha": lt,
      "sac/alpha": alpha,
      "sac/entropy": -jnp.mean(logp),
      "q/mean": jnp.mean(q),
      "q/target": jnp.mean(y),
      "train/relabelled_reward": jnp.mean(b["reward"]),
      "data/staleness": jnp.mean(b["age"]),
      **cloning_info(c, b, bc, clone, env_steps),
    }
    return {"actor": g_a, "critic": g_c, "log_alpha": g_t}, info

  def policy(self, params, obs_norm, deterministic: bool = True):
    """act(obs, key) -> action in [-1, 1] for dict or flattened goal observations (single or batched):
    tanh of the Gaussian's mean, or a sample of the squashed Gaussian when not deterministic."""

    def act(obs, key):
      dist = self.actor.apply(params["actor"], self.normalize(obs_norm, self.features(obs)))
      return jnp.tanh(dist.mean if deterministic else dist.sample(key))

    return act


def make_train(env, config: SACConfig | None = None) -> SAC:
  """Builds the SAC+HER pieces for a raw goal env (see the module docstring)."""
  return SAC(env, config or SACConfig())
