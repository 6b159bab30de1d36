"""PPO as one compiled training step: rollout (scan over vmapped env.step), GAE, epochs x minibatches.

Library use:
  ppo = make_train(env, PPOConfig(...))      # env: a raw `mjx_envs.make(...)` env
  ts = ppo.init(key)                          # TrainState: params, optimiser, normalisers, envs, key
  ts, metrics = ppo.train_step(ts)            # ONE update; jittable
  ts, metrics = ppo.train_many(ts, n)         # n updates in one scan (what train.py calls)
  ts, metrics = make_train(env, cfg).train(key)   # the whole run; jittable and vmappable over seeds
  act = make_policy(ppo, ts.params, ts.obs_norm)  # act(obs, key) -> env action

Every leaf of the data path is [T, N, ...] (time, env). Minibatches split the ENV axis, so sequences
stay whole. GAE bootstraps on truncation (time limit, divergence) from the value of the episode's final
observation and never on termination.

Optimisation practice (agents.common.optim): `lr_schedule`/`lr_end_frac` and `ent_schedule`/`ent_coef_end`
change the learning rate (over gradient steps) and the entropy weight (over train steps) gradually;
`grad_clip_sqrt_v` = 5 adds OpenAI Five's per-parameter clip. Data quality: every train step logs
`data/sample_reuse` (gradient steps each sample is used in: update_epochs) and `data/staleness` (train
steps between the parameters that collected the data and those it trains: 0 here, synchronous).
`staleness` = k makes it k for an experiment: the rollout acts with the parameters (and observation
statistics) of k train steps ago, as an asynchronous rollout worker would; the loss's ratio is then
pi_current / pi_behaviour, and values are recomputed with the current parameters.

Recurrent policies (`lstm_size > 0`): policy and value nets each get an LSTM cell after the torso. The
LSTM state of every env is part of the TrainState and is zeroed when its episode ends. Each update
re-runs both nets over the whole [T, N] unroll from the state stored at its start (truncated BPTT over
`unroll_length` steps, resets at episode ends inside it); `make_policy` then returns
`act(obs, key, carry) -> (action, carry)` with `act.initial_carry(batch_shape)`.

RL² is this recurrent PPO on an env of trials (`mjx_envs.make("ML10", rl2_episodes=K)`, see
`mjx_envs.trials`): an episode of the env is K episodes of one task, so the LSTM state carries across them
and is zeroed between trials, and the previous action, reward and done are in the observation. Its
unroll must hold whole trials (unroll_length a multiple of the trial's K x episode steps; a warning
says so otherwise): BPTT then spans the trial, as in RL² and garage's RL2, and the LSTM learns to carry
what one episode taught into the next. Windows of a divisor of the episode length (the configs before
2026-11-28) always cut at the episodes' edges, so no gradient ever crossed one. An env
with an `evaluation_env` (a meta-learning benchmark's test split) is evaluated on that one.
"""

from __future__ import annotations

from mjx_envs import wrappers

import dataclasses
import math
import warnings
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import optax
from brax.training.acme import running_statistics as rs
from flax import struct

from agents.common import distributions as D
from agents.common import episodes, optim, relabel
from agents.common import normalize as N
from agents.common.evaluation import evaluate_policy
from agents.common.networks import PolicyNet, ValueNet, next_carry, zero_carry
from agents.ppo import losses


@dataclasses.dataclass(frozen=True)
class PPOConfig(episodes.StepBudget):
  num_envs: int = 256
  unroll_length: int = 16
  num_minibatches: int = 4
  update_epochs: int = 4
  total_env_steps: int = 1_000_000
  learning_rate: float = 3e-4
  lr_schedule: str = "constant"  # agents.common.optim SCHEDULES: "constant" | "linear" | "cosine"
  lr_end_frac: float = 0.0  # where "linear"/"cosine" end, as a fraction of learning_rate
  gamma: float = 0.99
  gae_lambda: float = 0.95
  clip_eps: float = 0.2
  vf_coef: float = 0.5
  vf_clip: float | None = None  # clip the value update to +-vf_clip around the old value
  ent_coef: float = 0.0
  ent_schedule: str = "constant"  # the entropy coefficient's schedule over train steps, to ent_coef_end
  ent_coef_end: float = 0.0
  max_grad_norm: float = 0.5
  grad_clip_sqrt_v: float = 0.0  # >0: per-parameter clip to +-this x sqrt(v) (OpenAI Five: 5)
  staleness: int = 0  # >0: roll out with the parameters of this many train steps ago
  normalize_advantages: bool = True
  normalize_obs: bool = True
  obs_clip: float = 5.0
  normalize_reward: bool = False  # divide rewards by a running std of the discounted return
  policy_hidden: Sequence[int] = (256, 256)
  value_hidden: Sequence[int] = (256, 256)
  activation: str = "tanh"
  distribution: str = "normal"  # "normal" | "tanh_normal" | "categorical"
  init_log_std: float = -0.5
  # (min, max) of a Gaussian policy's std, or None: unbounded. garage's Gaussian policies, with which the
  # Meta-World paper trained MT-PPO and RL², keep it within (0.5, 1.5) (their min_std / max_std): a hard
  # clip of the log std, so the parameter gets no gradient while it sits outside the bounds.
  std_bounds: tuple[float, float] | None = None
  episode_length: int | None = None  # default: the env's own
  num_eval_envs: int = 128
  # Evaluation acts with the distribution's mode (True) or samples (False); None: the mode, but samples
  # under RL² (an env of trials), whose exploration within a trial is part of what it learned: garage's
  # meta-evaluator (Meta-World's RL²) samples its test trials.
  eval_deterministic: bool | None = None
  lstm_size: int = 0  # >0: an LSTM core of this width, trained by truncated BPTT
  # On-policy HER: failed episodes relabelled with goals they achieved, trained with the clipped-BC
  # (ABC) objective, advantage 1. Flat goal envs (Fetch) without an LSTM.
  hindsight: bool = False
  hindsight_coef: float = 0.5  # weight of the hindsight term (ABC's beta)
  hindsight_clip: float = 0.2  # its ratio clip (ABC's eps)
  hindsight_form: str = "clip"  # agents.ppo.losses FORMS; "clip": the form of its BENCHMARKS figures
  hindsight_strategy: str = "future"  # which achieved goal replaces the failed one (agents.common.relabel)
  # Judge success on whole episodes: the unroll must hold whole episodes (unroll_length a
  # multiple of the episode length; envs start together and Fetch never terminates early), so an episode
  # counts as failed by its real last step and its future goals come from the whole episode. False: any
  # unroll length; an episode cut by the unroll's edge is judged at its last step inside the unroll.
  hindsight_whole_episodes: bool = True

  def __post_init__(self):
    if self.num_envs % self.num_minibatches:
      raise ValueError(
        f"num_envs ({self.num_envs}) must be divisible by num_minibatches ({self.num_minibatches})"
      )
    if self.distribution not in ("normal", "tanh_normal", "categorical"):
      raise ValueError(f"distribution must be normal, tanh_normal or categorical, got {self.distribution!r}")
    if self.hindsight_strategy not in relabel.STRATEGIES:
      raise ValueError(
        f"hindsight_strategy must be one of {relabel.STRATEGIES}, got {self.hindsight_strategy!r}"
      )
    for name in ("lr_schedule", "ent_schedule"):
      if getattr(self, name) not in optim.SCHEDULES:
        raise ValueError(f"{name} must be one of {optim.SCHEDULES}, got {getattr(self, name)!r}")
    if self.std_bounds is not None:
      if self.distribution == "categorical":
        raise ValueError("std_bounds bounds a Gaussian's std; distribution='categorical' has none")
      lo, hi = self.std_bounds
      if not 0 < lo < hi:
        raise ValueError(f"std_bounds must be (min, max) with 0 < min < max, got {self.std_bounds!r}")
    if self.staleness < 0:
      raise ValueError(f"staleness must be >= 0, got {self.staleness}")
    if self.hindsight_form not in losses.FORMS:
      raise ValueError(f"hindsight_form must be one of {losses.FORMS}, got {self.hindsight_form!r}")


@struct.dataclass
class TrainState:
  params: Any  # {"policy": ..., "value": ...}
  opt_state: Any
  obs_norm: rs.RunningStatisticsState
  ret_norm: rs.RunningStatisticsState
  ret_acc: jax.Array  # [N] running discounted return, for reward normalisation
  core: Any  # {"policy", "value"}: LSTM states (c, h), each [N, lstm_size] ([N, 0] without)
  env_state: Any  # batched env State
  key: jax.Array
  updates: jax.Array  # int32 count of train steps done
  behaviour: Any = None  # staleness k > 0: {"params", "obs_norm"} of the last k versions, leaves [k, ...]


@struct.dataclass
class Transition:
  feats: Any
  action: jax.Array
  log_prob: jax.Array
  value: jax.Array
  reward: jax.Array
  done: jax.Array
  truncation: jax.Array
  next_feats: Any
  hindsight: Any = None  # with config.hindsight: {"next_ag" [.., G], "success" [..]}


@struct.dataclass
class Demos:
  """Hindsight demonstrations: rollout steps with the failed goal replaced by an achieved one."""

  feats: Any
  action: jax.Array
  old_log_prob: jax.Array  # under the behaviour policy, on the relabelled features
  mask: jax.Array  # 1 where the step belongs to an episode that failed its goal


class PPO:
  """The compiled pieces of one PPO setup (see the module docstring)."""

  env_axis_fields = ("env_state", "ret_acc", "core")  # TrainState fields split over devices

  def __init__(self, env, config: PPOConfig):
    self.config = c = config
    self.raw_env = env
    # Where `evaluate` runs: a meta-learning benchmark's held-out split (built here, outside any trace).
    self.eval_env = getattr(env, "evaluation_env", env)
    self.episode_length = int(c.episode_length or env.episode_length)
    obs = jax.eval_shape(env.reset, jax.random.PRNGKey(0)).obs
    # Block-world dicts keep their structure for the object encoder; other goal dicts are flattened.
    self.flatten = isinstance(obs, dict) and "objects" not in obs
    self.env = wrappers.wrap_for_training(env, c.num_envs, self.episode_length, flatten=self.flatten)
    bins = getattr(env, "config", {}).get("action_bins") if c.distribution == "categorical" else None
    if c.distribution == "categorical" and not bins:
      raise ValueError("distribution='categorical' needs an env with action_bins set")
    self.bins = bins
    if c.hindsight:
      if not self.flatten:
        raise ValueError(
          "hindsight needs a goal env with flat {observation, achieved_goal, desired_goal} "
          f"observations; {type(env).__name__} does not have them"
        )
      if c.lstm_size:
        raise ValueError("hindsight is not supported with an LSTM core (lstm_size > 0)")
      if c.hindsight_whole_episodes and c.unroll_length % self.episode_length:
        raise ValueError(
          f"hindsight_whole_episodes needs unroll_length ({c.unroll_length}) to be a multiple "
          f"of the episode length ({self.episode_length}); or set "
          f"hindsight_whole_episodes=False to judge episodes cut by the unroll's edge"
        )
      self.goal_size = math.prod(obs["desired_goal"].shape)
    self.recurrent = c.lstm_size > 0
    rl2 = bool(getattr(env, "rl2_episodes", 0))
    self.eval_deterministic = (not rl2) if c.eval_deterministic is None else bool(c.eval_deterministic)
    if self.recurrent and rl2 and c.unroll_length % self.episode_length:
      # Truncated BPTT: the loss re-runs the LSTM from the state stored at the window's start, with no
      # gradient into it. Windows that cut trials (the more so at episode edges, where equal windows of
      # an episode's divisor always cut) never train the LSTM to carry one episode into the next.
      warnings.warn(
        f"RL² with unroll_length={c.unroll_length}, not a multiple of its trials' {self.episode_length} "
        f"steps: the LSTM gets no gradient across the windows' edges, so it is not trained to carry "
        f"what one episode taught into the next; set agent.unroll_length={self.episode_length}",
        stacklevel=2,
      )
    self.policy_net = PolicyNet(
      env.action_size, tuple(c.policy_hidden), bins, c.activation, c.init_log_std, c.lstm_size
    )
    self.value_net = ValueNet(tuple(c.value_hidden), c.activation, c.lstm_size)
    self.dist_cls = {"normal": D.Normal, "tanh_normal": D.TanhNormal, "categorical": D.MultiCategorical}[
      c.distribution
    ]
    total_grad_steps = c.num_updates * c.update_epochs * c.num_minibatches
    lr = dict(lr_schedule=c.lr_schedule, lr_end=c.learning_rate * c.lr_end_frac, steps=total_grad_steps)
    self.optimizer = optim.make(
      c.learning_rate, **lr, max_grad_norm=c.max_grad_norm, clip_sqrt_v=c.grad_clip_sqrt_v, eps=1e-5
    )
    self.lr_at = optim.schedule(c.learning_rate, lr["lr_end"], c.lr_schedule, total_grad_steps)
    self.ent_coef = optim.schedule(c.ent_coef, c.ent_coef_end, c.ent_schedule, c.num_updates)

  # --- pieces ------------------------------------------------------------------------------------
  def learning_rate(self, ts: TrainState):
    """The scheduled learning rate of this train step's first gradient step."""
    c = self.config
    return self.lr_at(ts.updates * c.update_epochs * c.num_minibatches)

  def features(self, obs):
    return N.features(wrappers.flatten_goal_obs(obs) if self.flatten and isinstance(obs, dict) else obs)

  def _normed(self, obs_norm, feats):
    return N.normalize(obs_norm, feats, self.config.obs_clip) if self.config.normalize_obs else feats

  def _dist(self, out):
    if self.bins:
      return self.dist_cls(out)
    mean, log_std = out
    if self.config.std_bounds is not None:
      lo, hi = self.config.std_bounds
      log_std = jnp.clip(log_std, math.log(lo), math.log(hi))
    return self.dist_cls(mean, log_std)

  def distribution(self, policy_params, obs_norm, feats, carry=None):
    """The action distribution; with an LSTM, (distribution, new carry)."""
    out, carry = self.policy_net.apply(policy_params, self._normed(obs_norm, feats), carry)
    return (self._dist(out), carry) if self.recurrent else self._dist(out)

  def value(self, value_params, obs_norm, feats, carry=None):
    """V(obs); with an LSTM, (value, new carry)."""
    v, carry = self.value_net.apply(value_params, self._normed(obs_norm, feats), carry)
    return (v, carry) if self.recurrent else v

  def initial_core(self, batch_shape):
    z = zero_carry(batch_shape, self.config.lstm_size)
    return {"policy": z, "value": z}

  def unroll(self, params, obs_norm, feats, dones, core, next_feats=None):
    """Runs the recurrent nets over a [T, N] sequence from the LSTM state `core` ([N, H] leaves),
    zeroing the state after every done. -> (policy outputs [T, N, ...], values [T, N],
    V(next_feats) [T, N] or None, final core). V(next_feats[t]) uses the state after step t before any
    reset, which is what bootstrapping a truncated episode from its final observation needs."""

    def body(core, x):
      f, d, nf = x
      p_out, p_carry = self.policy_net.apply(params["policy"], self._normed(obs_norm, f), core["policy"])
      v, v_carry = self.value_net.apply(params["value"], self._normed(obs_norm, f), core["value"])
      nv = (
        None if nf is None else self.value_net.apply(params["value"], self._normed(obs_norm, nf), v_carry)[0]
      )
      core = next_carry(None, {"policy": p_carry, "value": v_carry}, d)
      return core, (p_out, v, nv)

    core, (p_out, values, next_values) = jax.lax.scan(body, core, (feats, dones, next_feats))
    return p_out, values, next_values, core

  # --- init --------------------------------------------------------------------------------------
  def init(self, key) -> TrainState:
    k_env, k_pi, k_v, key = jax.random.split(key, 4)
    env_state = self.env.reset(k_env)
    feats = self.features(env_state.obs)
    one = jax.tree.map(lambda x: x[0], feats)
    one_core = self.initial_core(()) if self.recurrent else None
    params = {
      "policy": self.policy_net.init(k_pi, one, one_core and one_core["policy"]),
      "value": self.value_net.init(k_v, one, one_core and one_core["value"]),
    }
    obs_norm = N.init(one)
    k = self.config.staleness
    behaviour = (
      jax.tree.map(
        lambda x: jnp.broadcast_to(x, (k,) + jnp.shape(x)), {"params": params, "obs_norm": obs_norm}
      )
      if k
      else None
    )
    return TrainState(
      params=params,
      opt_state=self.optimizer.init(params),
      obs_norm=obs_norm,
      ret_norm=rs.init_state(jax.ShapeDtypeStruct((), jnp.float32)),
      ret_acc=jnp.zeros((self.config.num_envs,)),
      core=self.initial_core((self.config.num_envs,)),
      env_state=env_state,
      key=key,
      updates=jnp.zeros((), jnp.int32),
      behaviour=behaviour,
    )

  def behaviour_policy(self, ts: TrainState):
    """(params, obs_norm) the rollout acts with: the current ones, or with `staleness` k those of k train
    steps ago (fewer in the first k steps: the initial ones), kept in a ring of k versions."""
    if not self.config.staleness:
      return ts.params, ts.obs_norm
    slot = ts.updates % self.config.staleness
    old = jax.tree.map(lambda x: x[slot], ts.behaviour)
    return old["params"], old["obs_norm"]

  def _push_behaviour(self, ts: TrainState):
    """The ring with this step's (pre-update) version in the slot just read: read again k steps later."""
    if not self.config.staleness:
      return None
    slot = ts.updates % self.config.staleness
    now = {"params": ts.params, "obs_norm": ts.obs_norm}
    return jax.tree.map(lambda ring, x: ring.at[slot].set(x), ts.behaviour, now)

  # --- rollout -----------------------------------------------------------------------------------
  def rollout(self, ts: TrainState, key):
    """T steps of all envs under the behaviour policy (the current one unless `staleness`) ->
    (env_state, Transition [T, N], episode stats)."""
    params, obs_norm = self.behaviour_policy(ts)

    def body(carry, k):
      env_state, core = carry
      feats = self.features(env_state.obs)
      if self.recurrent:
        # Values are recomputed over the whole unroll in train_step; only the policy state advances here.
        dist, p_carry = self.distribution(params["policy"], obs_norm, feats, core["policy"])
        value = None
      else:
        dist, p_carry = self.distribution(params["policy"], obs_norm, feats), None
        value = self.value(params["value"], obs_norm, feats)
      action = dist.sample(k)
      nxt = self.env.step(env_state, self.dist_cls.to_env(action))
      if self.recurrent:
        core = {**core, "policy": next_carry(None, p_carry, nxt.done)}
      if value is None:
        value = jnp.zeros_like(nxt.reward)
      hs = None
      if self.config.hindsight:
        hs = {"next_ag": nxt.info["final_goal_obs"]["achieved_goal"], "success": nxt.metrics["is_success"]}
      tr = Transition(
        feats,
        action,
        dist.log_prob(action),
        value,
        nxt.reward,
        nxt.done,
        nxt.info["truncation"],
        self.features(nxt.info["final_obs"]),
        hs,
      )
      return (nxt, core), (tr, episodes.step_stats(nxt))

    keys = jax.random.split(key, self.config.unroll_length)
    (env_state, core), (traj, stats) = jax.lax.scan(body, (ts.env_state, ts.core), keys)
    return env_state, core, traj, stats

  # --- loss and update ---------------------------------------------------------------------------
  def hindsight_demos(self, params, obs_norm, traj: Transition, key) -> Demos:
    """Relabels the steps of episodes that failed (not successful at their last step inside the
    unroll) with goals those episodes achieved, and scores the taken actions under `params`."""
    c = self.config
    seg = jax.tree.map(lambda x: jnp.swapaxes(x, 0, 1), (traj.hindsight, traj.done, traj.feats))
    hs, done, feats = seg
    valid = jnp.ones_like(done)
    goals, _ = relabel.relabel_all(
      key, hs["next_ag"], done, valid, feats[..., -self.goal_size :], c.hindsight_strategy, 1.0
    )
    failed = 1.0 - relabel.at_episode_end(hs["success"], done, valid)
    demo_feats = jnp.swapaxes(feats.at[..., -self.goal_size :].set(goals), 0, 1)
    old = self.distribution(params["policy"], obs_norm, demo_feats).log_prob(traj.action)
    return Demos(demo_feats, traj.action, jax.lax.stop_gradient(old), jnp.swapaxes(failed, 0, 1))

  def loss(
    self,
    params,
    obs_norm,
    batch: Transition,
    adv,
    returns,
    core=None,
    demos: Demos | None = None,
    ent_coef=None,
  ):
    """PPO loss on a [T, n] minibatch; `core` is the LSTM state at the start of the unroll; `demos`
    adds the hindsight term; `ent_coef` (default config.ent_coef) is the scheduled entropy weight."""
    c = self.config
    ent_coef = c.ent_coef if ent_coef is None else ent_coef
    if self.recurrent:
      p_out, values, _, _ = self.unroll(params, obs_norm, batch.feats, batch.done, core)
      dist = self._dist(p_out)
    else:
      dist = self.distribution(params["policy"], obs_norm, batch.feats)
      values = self.value(params["value"], obs_norm, batch.feats)
    log_prob = dist.log_prob(batch.action)
    if c.normalize_advantages:
      adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    pg_loss, clip_frac = losses.clipped_surrogate(log_prob, batch.log_prob, adv, c.clip_eps)
    v_loss = losses.value_loss(values, batch.value, returns, c.vf_clip)
    entropy = jnp.mean(dist.entropy())
    total = pg_loss + c.vf_coef * v_loss - ent_coef * entropy
    approx_kl = jnp.mean(batch.log_prob - log_prob)
    info = {
      "loss/policy": pg_loss,
      "loss/value": v_loss,
      "loss/entropy": entropy,
      "loss/approx_kl": approx_kl,
      "loss/clip_frac": clip_frac,
      "loss/ratio_dev": jnp.max(jnp.abs(jnp.exp(log_prob - batch.log_prob) - 1.0)),
    }
    if demos is not None:
      demo_lp = self.distribution(params["policy"], obs_norm, demos.feats).log_prob(demos.action)
      h_loss, h_clip = losses.bc_loss(
        demo_lp, demos.old_log_prob, c.hindsight_clip, demos.mask, c.hindsight_form
      )
      total = total + c.hindsight_coef * h_loss
      info.update(
        {"loss/hindsight": h_loss, "hindsight/clip_frac": h_clip, "hindsight/demo_frac": jnp.mean(demos.mask)}
      )
    return total, info

  def train_step(self, ts: TrainState):
    """One PPO update: rollout, normaliser updates, GAE, epochs x minibatches. -> (ts, metrics)."""
    c = self.config
    key, k_roll, k_upd = jax.random.split(ts.key, 3)
    env_state, rollout_core, traj, stats = self.rollout(ts, k_roll)

    # Values, demonstrations and the loss use the statistics the rollout acted with, so the PPO ratio is
    # exactly 1 before the first gradient step; the statistics updated with this batch serve the next
    # rollout. (Brax's PPO, and ours before 2026-11-23, updated them first: behaviour log-probs under the
    # old statistics, the loss under the new, a ratio off 1 before any update.)
    obs_norm = ts.obs_norm
    new_obs_norm = N.update(ts.obs_norm, traj.feats) if c.normalize_obs else ts.obs_norm
    reward = traj.reward
    ret_norm, ret_acc = ts.ret_norm, ts.ret_acc
    if c.normalize_reward:

      def acc(r_acc, x):
        r, d = x
        r_acc = r_acc * c.gamma + r
        return r_acc * (1.0 - d), r_acc

      ret_acc, returns_seen = jax.lax.scan(acc, ret_acc, (reward, traj.done))
      ret_norm = rs.update(ret_norm, returns_seen)
      reward = reward / (ret_norm.std + 1e-8)

    if self.recurrent:
      _, values, next_values, end_core = self.unroll(
        ts.params, obs_norm, traj.feats, traj.done, ts.core, traj.next_feats
      )
      core = {"policy": rollout_core["policy"], "value": end_core["value"]}
    else:
      next_values = self.value(ts.params["value"], obs_norm, traj.next_feats)
      values = self.value(ts.params["value"], obs_norm, traj.feats)
      core = ts.core
    traj = traj.replace(value=values)
    demos = (
      self.hindsight_demos(ts.params, obs_norm, traj, jax.random.fold_in(k_upd, 1)) if c.hindsight else None
    )
    adv, returns = losses.gae(reward, values, next_values, traj.done, traj.truncation, c.gamma, c.gae_lambda)

    ent_coef = self.ent_coef(ts.updates)
    grad_fn = jax.grad(lambda *a: self.loss(*a, ent_coef=ent_coef), has_aux=True)
    mb = c.num_envs // c.num_minibatches

    def epoch(carry, k):
      params, opt_state = carry
      perm = jax.random.permutation(k, c.num_envs)

      def split(x):  # [T, N, ...] -> [num_minibatches, T, N / num_minibatches, ...]
        x = jnp.take(x, perm, axis=1)
        return jnp.swapaxes(x.reshape((x.shape[0], c.num_minibatches, mb) + x.shape[2:]), 0, 1)

      def split_env(x):  # [N, ...] -> [num_minibatches, N / num_minibatches, ...]
        return jnp.take(x, perm, axis=0).reshape((c.num_minibatches, mb) + x.shape[1:])

      batches = (
        jax.tree.map(split, (traj, adv, returns))
        + (jax.tree.map(split_env, ts.core),)
        + (jax.tree.map(split, demos),)
      )

      def minibatch(carry, b):
        params, opt_state = carry
        grads, info = grad_fn(params, obs_norm, *b)
        updates, opt_state = self.optimizer.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), info

      return jax.lax.scan(minibatch, (params, opt_state), batches)

    (params, opt_state), info = jax.lax.scan(
      epoch, (ts.params, ts.opt_state), jax.random.split(k_upd, c.update_epochs)
    )

    metrics = {k: jnp.mean(v) for k, v in info.items()}
    metrics["loss/ratio_dev_first"] = info["loss/ratio_dev"][0, 0]
    metrics.update(
      episodes.summarize(stats, getattr(self.raw_env, "task_names", ())),
      **{"train/reward_mean": jnp.mean(traj.reward)},
    )
    metrics.update(episodes.data_quality(c.update_epochs, jnp.minimum(ts.updates, c.staleness)))
    metrics.update({"train/ent_coef": ent_coef, "train/learning_rate": self.learning_rate(ts)})
    ts = ts.replace(
      params=params,
      opt_state=opt_state,
      obs_norm=new_obs_norm,
      ret_norm=ret_norm,
      ret_acc=ret_acc,
      core=core,
      env_state=env_state,
      key=key,
      updates=ts.updates + 1,
      behaviour=self._push_behaviour(ts),
    )
    return ts, metrics

  def train_many(self, ts: TrainState, num_updates: int):
    """`num_updates` train steps in one scan; metrics are averaged over them (episode stats weighted
    by the episodes that finished)."""
    ts, m = jax.lax.scan(lambda t, _: self.train_step(t), ts, (), num_updates)
    return ts, episodes.average_chunk(m)

  def train(self, key):
    """The whole run (config.num_updates updates) as one pure function: jit it, vmap it over seeds."""
    return self.train_many(self.init(key), self.config.num_updates)

  # --- evaluation --------------------------------------------------------------------------------
  def evaluate(self, params, obs_norm, key, num_envs: int | None = None):
    """The policy (its mode, or sampled: `eval_deterministic`) on fresh evaluation envs, one episode each: those
    of the env's `evaluation_env` where it has one (a meta-learning benchmark's held-out test split:
    under RL² an episode is a trial, and eval/success_rate is the success of its last episode, after
    adaptation), else of the env itself.

    Returns {eval/success_rate, eval/return, eval/episode_length} (`evaluate_policy`: + per task, trials).
    """
    n = int(num_envs or self.config.num_eval_envs)
    act = make_policy(self, params, obs_norm, deterministic=self.eval_deterministic)
    carry = act.initial_carry((n,)) if self.recurrent else None
    return evaluate_policy(self.eval_env, self.episode_length, self.flatten, act, key, n, carry)

  def policy(self, params, obs_norm, deterministic: bool = True):
    """See `make_policy`."""
    return make_policy(self, params, obs_norm, deterministic)


def make_train(env, config: PPOConfig | None = None) -> PPO:
  """Builds the PPO pieces for a raw env (see the module docstring)."""
  return PPO(env, config or PPOConfig())


def make_policy(ppo: PPO, params, obs_norm, deterministic: bool = True):
  """act(obs, key) -> env action, for a single obs or a batch; `key` is unused when deterministic.

  With an LSTM core: act(obs, key, carry) -> (env action, carry), starting each episode from
  `act.initial_carry(batch_shape)`; zero the carry of an env whose episode ended.
  """

  def pick(dist, key):
    return ppo.dist_cls.to_env(dist.mode() if deterministic else dist.sample(key))

  if not ppo.recurrent:

    def act(obs, key):
      return pick(ppo.distribution(params["policy"], obs_norm, ppo.features(obs)), key)

    return act

  def act_recurrent(obs, key, carry):
    dist, carry = ppo.distribution(params["policy"], obs_norm, ppo.features(obs), carry)
    return pick(dist, key), carry

  act_recurrent.initial_carry = lambda batch_shape=(): ppo.initial_core(batch_shape)["policy"]
  return act_recurrent
