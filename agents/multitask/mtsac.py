"""MT-SAC: multi-task soft actor-critic (the Meta-World paper's baseline, Yu et al. 2019, seed 001; SAC of
Haarnoja et al. 2018 with a learned temperature per task), as one compiled training cycle.

One actor and one pair of critics serve every task: each reads the observation with the one-hot task id
that a multi-task env (`mjx_envs.make("MT10")`, `mjx_envs.metaworld.multitask.MultiTask`) appends as its
last `num_tasks` entries. What is per task is the temperature: log_alpha [num_tasks], and every
transition's alpha is its task's, the task read from its observation (argmax of the one-hot).

The cycle (collect, insert, normaliser update, `updates_per_cycle` updates, target update), the replay,
the normaliser, `grad_batches`, `train_many`, evaluation and checkpoints are the off-policy learners'
(`agents.her.ddpg.HERLearner`) on its plain-env path: the replay stores obs, action, the env's dense reward,
next obs and the done/truncation flags, and batches are drawn uniformly with no relabelling. The
discount is 1 - done (1 - truncation): Meta-World's episodes end by truncation at 500 steps, never by
termination, so every target bootstraps. The twin critics, the squashed-Gaussian actor and the losses
are SAC's (`agents.her.sac`); the whole update is `MTSAC.grads`:
  critics:      y = r + gamma d (min_j Q'_j(s', a') - alpha_k log pi(a'|s')),  a' ~ pi(.|s'), k the task
                of the transition; each of the two critics regressed on y; target critics polyak-averaged
                after every gradient step (tau = 1 - polyak = 5e-3);
  actor:        mean(alpha_k log pi(a|s) - min_j Q_j(s, a)), a reparameterised;
  temperature:  sum_k -log_alpha_k mean_{i in task k}(log pi(a_i|s_i) + target_entropy)
                (`per_task_temperature_loss`): each task's log alpha moves by its own transitions'
                entropy against the target (-action_size), independently of the other tasks.
`multihead=True` gives the actor and each critic one output layer per task on the shared trunk, the
one-hot selecting the task's layer (Meta-World+'s multi-head SAC baseline, McLean et al. 2025: ~75% on
MT10 at 2M env steps per task; `agents.common.networks.MultiHeadMLP`); the trunk still reads the one-hot.
On a single-task env (`mjx_envs.make("metaworld/reach-v3")`) num_tasks is 1 and this is plain SAC with
a learned temperature on dense rewards.

The paper's MT-SAC settings (seed 001, appendix D.5, table 7, MT10; garage's `mtsac_metaworld_mt10.py`,
its reference implementation, where the table is silent):
  policy and Q networks (400, 400), ReLU; policy and Q learning rates 3e-4 (the temperature's too:
  garage steps log alpha with the policy's rate); discount 0.99; soft target tau 5e-3 per gradient
  step; automatic entropy tuning (target entropy -|A|, log alpha starting at 0: alpha 1); min/max
  policy std e^-20 / e^2; 500-step paths; "batch size" 5,000 = env steps collected per iteration (one
  episode of each task), then 500 gradient steps per iteration on replay batches of 1,280 (garage's
  buffer_batch_size) from a 1e6-transition buffer; training starts after 1,500 (table) / 5,000 (garage)
  transitions.
`MTSACConfig`'s defaults are those, but for the collection shape that a batch of parallel worlds imposes.

Deliberate differences:
- Collection: `num_envs` worlds (num_tasks x worlds per task) step `unroll_length` steps per cycle,
  then `updates_per_cycle` updates; configs keep garage's ratio of 0.1 gradient steps per env step
  (configs/mtsac_mt10.py), not its whole-episode iterations. The first updates start after the first
  cycle's num_envs x unroll_length transitions, not after a minimum buffer size.
- The temperature loss averages over each task's transitions and sums over tasks; garage averages over
  the whole batch (so each task's gradient is scaled by its share of the batch, 1/num_tasks for a
  uniform batch). Under Adam the two differ only while shares fluctuate.
- The actor's log std is squashed smoothly into [-5, 2] (agents.her.sac), not clipped to [-20, 2]: a
  near-deterministic policy's log-density stays finite.
- Observations are normalised (running mean/std, std floored at `obs_std_min` = 1e-2, clipped to
  +-obs_clip), the one-hot task id excepted: it reaches the networks as it is. Garage feeds raw
  observations (`normalize_obs=False` does too).
- Evaluation: the deterministic policy (tanh of the mean) on fresh episodes, success = success at any
  step of the episode (`metrics["is_success"]`), per task on a multi-task env (eval/success_rate/<task>,
  `agents.common.evaluation`); garage's MT10 evaluation samples episodes of the train tasks likewise.

Library use is SAC's:
  algo = make_train(mjx_envs.make("MT10", envs_per_task=2), MTSACConfig(num_envs=20, ...))
  ts = algo.init(key); ts, m = algo.train_many(ts, n); act = algo.policy(ts.params, ts.obs_norm)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp

from agents.common import normalize as N
from agents.her.sac import SAC, SACConfig, actor_loss, critic_target, squash


@dataclasses.dataclass(frozen=True)
class MTSACConfig(SACConfig):
  num_envs: int = 10  # worlds, num_tasks x worlds per task (task-major)
  unroll_length: int = 50
  updates_per_cycle: int = 50  # 0.1 gradient steps per env step, as garage's 500 per 5,000 steps
  batch_size: int = 1280  # garage's buffer_batch_size
  buffer_size: int = 1_000_000
  total_env_steps: int = 10_000_000
  actor_lr: float = 3e-4
  critic_lr: float = 3e-4
  alpha_lr: float = 3e-4
  init_alpha: float = 1.0  # log alpha = 0
  gamma: float = 0.99
  polyak: float = 0.995  # tau = 5e-3
  polyak_every_update: bool = True
  hidden: Sequence[int] = (400, 400)
  obs_std_min: float = 1e-2
  clip_target: bool = False  # dense rewards: no sparse-return bounds
  replay_strategy: str = "none"  # a plain env: no relabelling
  num_tasks: int | None = None  # None: the env's num_tasks (a MultiTask), else 1
  normalize_obs: bool = True  # False: the networks read raw observations (garage)
  # True: the actor and both critics keep one output layer per task on a shared trunk (Meta-World+'s
  # multi-head SAC, McLean et al. 2025); the paper's MT-SAC (False) has one output layer for all tasks.
  # With a single task it changes nothing.
  multihead: bool = False

  def __post_init__(self):
    super().__post_init__()
    if self.replay_strategy != "none":
      raise ValueError(
        f"MT-SAC has no goal relabelling: replay_strategy must be 'none', got {self.replay_strategy!r}"
      )
    if self.bc_weight > 0:
      raise ValueError(f"MT-SAC has no behaviour cloning: bc_weight must be 0, got {self.bc_weight!r}")
    if self.num_tasks is not None and (
      isinstance(self.num_tasks, bool) or not isinstance(self.num_tasks, int) or self.num_tasks < 1
    ):
      raise ValueError(f"num_tasks must be None or an integer >= 1, got {self.num_tasks!r}")


def task_ids(obs, num_tasks: int):
  """[..., O] observations ending in a one-hot task id of `num_tasks` -> [...] int32 task indices
  (zeros when num_tasks is 1)."""
  if num_tasks == 1:
    return jnp.zeros(obs.shape[:-1], jnp.int32)
  return jnp.argmax(obs[..., -num_tasks:], axis=-1).astype(jnp.int32)


def per_task_temperature_loss(log_alpha, task, logp, target_entropy):
  """sum_k -log_alpha[k] mean_{i: task[i] = k}(logp[i] + target_entropy), logp held fixed; log_alpha
  [T], task [B] int, logp [B]. Its gradient in log_alpha[k] is task k's entropy (mean -logp over its
  transitions) minus the target, zero for a task with no transition in the batch: descent raises a task's
  alpha when its entropy is below the target, and touches no other task's."""
  one_hot = jax.nn.one_hot(task, log_alpha.shape[0], dtype=logp.dtype)  # [B, T]
  count = jnp.sum(one_hot, axis=0)
  gap = jnp.sum(one_hot * (jax.lax.stop_gradient(logp) + target_entropy)[:, None], axis=0)
  return -jnp.sum(log_alpha * gap / jnp.maximum(count, 1.0))


class MTSAC(SAC):
  """The compiled pieces of one MT-SAC setup (see the module docstring)."""

  supports_surgery = False  # agents.league.surgery knows DDPG's single critic, not the twins and temperatures

  def __init__(self, env, config: MTSACConfig):
    env_tasks = env.num_tasks if hasattr(env, "task_names") else None  # a multi-task batch (MultiTask)
    n = int(config.num_tasks or env_tasks or 1)
    if env_tasks is not None and n != env_tasks:
      raise ValueError(
        f"num_tasks={config.num_tasks} but {type(env).__name__} has {env_tasks} tasks "
        f"({list(getattr(env, 'task_names', []))})"
      )
    if env_tasks is not None and config.num_envs % env_tasks:
      raise ValueError(
        f"num_envs ({config.num_envs}) must be a multiple of the env's {env_tasks} tasks "
        f"(worlds per task x tasks)"
      )
    self.num_tasks = n
    self.task_names = tuple(getattr(env, "task_names", ()))
    super().__init__(env, config)
    size = self.obs_example.shape[-1]
    if n > 1 and size <= n:
      raise ValueError(
        f"num_tasks={n}: the observation ({size} entries) must end in a one-hot task id of {n} entries"
      )

  def output_heads(self) -> int:
    """num_tasks output layers with `multihead` (one task: one layer either way), else 1."""
    return self.num_tasks if self.config.multihead else 1

  # --- the one-hot stays as it is -----------------------------------------------------------------
  def normalize(self, obs_norm, feats):
    """Standardised, clipped features, but for the one-hot task id (the last num_tasks entries of a
    multi-task observation), which the networks read unchanged."""
    if not self.config.normalize_obs:
      return feats
    out = N.normalize(obs_norm, feats, self.config.obs_clip)
    if self.num_tasks > 1:
      out = jnp.concatenate([out[..., : -self.num_tasks], feats[..., -self.num_tasks :]], -1)
    return out

  def init_params(self, k_a, k_c, feats):
    """{"actor", "critic" (both critics), "log_alpha" [num_tasks]} for one feature vector [F]."""
    params = super().init_params(k_a, k_c, feats)
    params["log_alpha"] = jnp.full((self.num_tasks,), math.log(self.config.init_alpha), jnp.float32)
    return params

  def grads(self, params, target, obs_norm, b, env_steps=0):  # env_steps: unused (no cloning here)
    """MT-SAC's update on one batch `b` (leaves [batch, ...], `sample`): gradients of the twin critics'
    soft TD loss, the actor's loss and the per-task temperatures' loss, each transition with its own
    task's alpha, all at `params` -> ({"actor", "critic", "log_alpha"} gradients, scalar metrics)."""
    c = self.config
    task = task_ids(b["obs"], self.num_tasks)
    alpha = jax.lax.stop_gradient(jnp.exp(params["log_alpha"]))  # [T]
    alpha_b = alpha[task]  # [B]
    feats = self._feats(obs_norm, b["obs"], b["goal"])
    next_feats = self._feats(obs_norm, b["next_obs"], b["goal"])
    next_a, next_logp = squash(self.actor.apply(params["actor"], next_feats), b["next_noise"])
    next_q = self.critic.apply(target["critic"], next_feats, next_a)
    y = jax.lax.stop_gradient(critic_target(b["reward"], b["discount"], next_q, next_logp, alpha_b, c.gamma))

    def critic_loss(cp):
      q = self.critic.apply(cp, feats, b["action"])
      return jnp.sum(jnp.mean((q - y) ** 2, axis=-1)), q  # each critic regressed on its own

    def policy_loss(ap):
      a, logp = squash(self.actor.apply(ap, feats), b["noise"])
      q_pi = self.critic.apply(params["critic"], feats, a)
      return actor_loss(q_pi, logp, alpha_b), logp

    (lc, q), g_c = jax.value_and_grad(critic_loss, has_aux=True)(params["critic"])
    (la, logp), g_a = jax.value_and_grad(policy_loss, has_aux=True)(params["actor"])
    lt, g_t = jax.value_and_grad(per_task_temperature_loss)(
      params["log_alpha"], task, logp, self.target_entropy
    )
    info = {
      "loss/critic": lc,
      "loss/actor": la,
      "loss/alpha": lt,
      "sac/alpha": jnp.mean(alpha),
      "sac/entropy": -jnp.mean(logp),
      "q/mean": jnp.mean(q),
      "q/target": jnp.mean(y),
      "train/reward": jnp.mean(b["reward"]),
      "data/staleness": jnp.mean(b["age"]),
    }
    if self.num_tasks > 1:
      one_hot = jax.nn.one_hot(task, self.num_tasks)
      entropy = -jnp.sum(one_hot * logp[:, None], 0) / jnp.maximum(jnp.sum(one_hot, 0), 1.0)
      for i, name in enumerate(self.task_names):
        info[f"sac/alpha/{name}"] = alpha[i]
        info[f"sac/entropy/{name}"] = entropy[i]
    return {"actor": g_a, "critic": g_c, "log_alpha": g_t}, info


def make_train(env, config: MTSACConfig | None = None) -> MTSAC:
  """Builds the MT-SAC pieces for a raw env: a multi-task batch (`mjx_envs.make("MT10")`) or one plain
  env (see the module docstring)."""
  return MTSAC(env, config or MTSACConfig())
