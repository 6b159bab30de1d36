"""Multi-agent PPO for hide-and-seek (seed 004 sections 3-4, appendix B) as one compiled training step:
both teams at once, one set of parameters for every agent, an entity-attention policy with an LSTM and an
omniscient value function.

Library use:
  algo = make_train(mjx_envs.make("HideAndSeekQuadrant"), MAPPOConfig(...))
  ts = algo.init(key)
  ts, metrics = algo.train_step(ts)          # ONE update (rollout, GAE, epochs x minibatches); jittable
  ts, metrics = algo.train_many(ts, n)       # n updates in one scan (what train.py calls)
  act = algo.policy(ts.params, ts.obs_norm)  # act(obs [.., A, ...], key, carry) -> (env action, carry)
  algo.evaluate(ts.params, ts.obs_norm, key) # eval/* team returns and the emergence statistics

The agent axis is folded into the batch: every agent of every world is one PPO stream with its own
(team) reward and its own GAE. Data leaves are [T, N, A, ...] (time, world, agent). The policy reads
what its agent sees (`agents.mappo.entity_net.EntityPolicy`: lidar conv, per-type entity embeddings, masked
residual self-attention, pooling, dense, LSTM, three heads: move 3 x 11 bins, grab, lock); the value
function is the same architecture with its own parameters on the unmasked observation
(`omniscient_value=False`: on the masked one, the paper's ablation). The team flag is an input (`self`).

Truncated BPTT as in the paper: an unroll of `unroll_length` steps is cut into chunks of `bptt_length`
(10); each chunk is a sequence that the update re-runs from the LSTM state the rollout had at its start,
zeroing the state where an episode ended. Minibatches split the sequences (chunk x world x agent).

Team spirit (OpenAI Five; `team_spirit`, `team_spirit_end`): each agent's training reward is
(1 - tau) x its own reward + tau x the mean reward of its team's present agents
(`agents.league.team_spirit.team_rewards`, zero_sum=False: the env's rewards are already zero-sum between
the teams, apart from the per-agent out-of-bounds penalty), applied in the rollout before GAE. tau is
`team_spirit` throughout, or annealed linearly from it to `team_spirit_end` over the run's train steps
(reaching it on the last one; the paper anneals 0.3 -> 1). At the default 0 the env's rewards are used as
they are (the blend is not computed at all), logged as train/team_spirit.

Past opponents (OpenAI Five's opponent pool, agents.league.opponent_pool; `past_opponent_prob`, `pool_size`,
`pool_every`, `opponent_sampling`, `pool_eta`): in a fraction `past_opponent_prob` of the episodes, one team
(hiders or seekers, even odds, drawn per world at each episode start) is played by a past version of the
policy, snapshotted into the pool every `pool_every` train steps. The past team's steps are masked out of
every loss term (it does not learn; its LSTM state is the past network's). The past version is drawn
once per train step (p_i ~ exp(q_i), or uniformly) and plays in every world that has a past team, so the
rollout runs one extra policy network, not one per world; an episode longer than `unroll_length` may
therefore meet several past versions in turn. A win of the current team (a higher team return than the
past team's at the episode's end) lowers the quality of the version it beat (`update_quality`). The paper
trained against the current policy only: the default 0 leaves training bit for bit as it was (no pool is
built). Sampling shares the current policy's key, so a past version equal to the current one acts alike.

The transfer suite (mjx_envs.hide_and_seek.transfer: HnsLockAndReturn, HnsSequentialLock, HnsBlueprint,
HnsShelter; one agent) trains through the same learner: the episode statistics add the task's success
(`success`, at the episode's end), eval/success_rate is it, and the entity nets embed the task's own
entities (agents.mappo.entity_net). Fine-tuning from a hide-and-seek run is train.py's `run.init_from`
(the layers that match by name and shape carried over, the rest fresh). HnsObjectCounting is not one of
them: it has no reward to learn from (the paper trains a classifier on a frozen policy's memory).

Steps where an agent did not act (a seeker frozen in the preparation phase; an absent agent in random
rooms) are masked out of every loss term and of the advantage statistics: they give no gradient.

Deliberate differences from the paper's system (what it ran at 64k-chunk minibatches on a cluster):
  - The end of an episode is a termination: hide-and-seek's episode is the whole game (a fixed number of
    steps), so the value does not bootstrap past it.
  - Value targets are standardised by running statistics of the returns (`normalize_values`); the
    value head predicts the standardised return. Observations are not normalised: the entity features
    are in metres, m/s and flags, and every dense layer is layer-normalised.
  - The policy and the value function have separate Adam optimisers, each clipped to a global norm of
    `max_grad_norm` (5): their losses share no parameters.
  - Synchronous: the rollout acts with the current parameters (no rollout workers, staleness 0).
"""

from __future__ import annotations

from mjx_envs import wrappers

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import optax
from brax.training.acme import running_statistics as rs
from flax import struct

from agents.common import distributions as D
from agents.common import episodes, optim, sharding
from agents.common.networks import next_carry, zero_carry
from agents.league import opponent_pool
from agents.league.team_spirit import team_rewards
from agents.mappo.entity_net import EntityPolicy, EntityValue
from agents.ppo.losses import clipped_surrogate, gae, masked_mean, value_loss

# Per-episode statistics of the environment (seed 004 figure 3), logged as train/* and eval/*.
EMERGENCE = (
  "max_box_move_prep",
  "max_box_move",
  "max_ramp_move_prep",
  "max_ramp_move",
  "num_box_lock_prep",
  "num_box_lock",
  "num_ramp_lock_prep",
  "num_ramp_lock",
  "hidden_fraction",
)
EPISODE_STATS = ("hider_return", "seeker_return") + EMERGENCE  # per finished episode


@dataclasses.dataclass(frozen=True)
class MAPPOConfig(episodes.StepBudget):
  num_envs: int = 64  # worlds; each of their agents is a PPO stream
  unroll_length: int = 80  # steps per world per train step; a multiple of bptt_length
  bptt_length: int = 10  # truncated BPTT: the LSTM is re-run over chunks of this many steps
  num_minibatches: int = 4  # over the chunk x world x agent sequences
  update_epochs: int = 4
  total_env_steps: int = 10_000_000  # world steps (each holds num_agents agent steps)
  learning_rate: float = 3e-4
  lr_schedule: str = "constant"
  lr_end_frac: float = 0.0
  gamma: float = 0.998
  gae_lambda: float = 0.95
  clip_eps: float = 0.2
  vf_coef: float = 0.5
  ent_coef: float = 0.01
  max_grad_norm: float = 5.0
  normalize_advantages: bool = True
  normalize_values: bool = True
  embed: int = 128  # per-type entity embedding
  heads: int = 4
  head_dim: int = 32
  dense: int = 256
  lstm_size: int = 256
  omniscient_value: bool = True  # False: the value function sees only what the agent sees
  episode_length: int | None = None  # default: the env's own
  num_eval_envs: int = 64
  team_spirit: float = 0.0  # tau: 0 each agent's own reward, 1 its team's mean (at the start if annealed)
  team_spirit_end: float | None = None  # None: constant; else tau annealed linearly to it over the run
  past_opponent_prob: float = 0.0  # of the episodes: one team is a past policy from the pool (0: none)
  pool_size: int = 8
  pool_every: int = 10  # train steps between snapshots
  opponent_sampling: str = "quality"  # "quality": p_i ~ exp(q_i) (OpenAI Five); "uniform"
  pool_eta: float = opponent_pool.ETA  # the quality scores' learning rate

  def __post_init__(self):
    if not 0.0 <= self.past_opponent_prob <= 1.0:
      raise ValueError(f"past_opponent_prob must be in [0, 1], got {self.past_opponent_prob!r}")
    if self.pool_size < 1 or self.pool_every < 1:
      raise ValueError(f"pool_size and pool_every must be >= 1, got {self.pool_size}, {self.pool_every}")
    if self.opponent_sampling not in opponent_pool.SAMPLING:
      raise ValueError(
        f"opponent_sampling must be one of {opponent_pool.SAMPLING}, got {self.opponent_sampling!r}"
      )
    for name in ("team_spirit", "team_spirit_end"):
      v = getattr(self, name)
      if v is not None and not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} must be in [0, 1] (0: own reward, 1: the team's mean), got {v!r}")
    if self.bptt_length < 1 or self.unroll_length % self.bptt_length:
      raise ValueError(
        f"unroll_length ({self.unroll_length}) must be a multiple of bptt_length ({self.bptt_length})"
      )
    if self.lr_schedule not in optim.SCHEDULES:
      raise ValueError(f"lr_schedule must be one of {optim.SCHEDULES}, got {self.lr_schedule!r}")
    if self.lstm_size < 1:
      raise ValueError(f"lstm_size must be >= 1 (the policy is recurrent), got {self.lstm_size}")


@struct.dataclass
class TrainState:
  params: Any  # {"policy": ..., "value": ...}
  opt_state: Any  # {"policy": ..., "value": ...}: one Adam per network
  obs_norm: Any  # None: observations are used as they are (train.py's interface slot)
  ret_norm: rs.RunningStatisticsState  # statistics of the value targets
  core: Any  # {"policy", "value"}: LSTM states (c, h), leaves [N, A, lstm_size]
  env_state: Any  # batched env State
  key: jax.Array
  updates: jax.Array  # int32 count of train steps done
  pool: Any = None  # with past_opponent_prob > 0: opponent_pool.Pool of {"policy": params}
  opponents: Any = None  # with past_opponent_prob > 0: [N] int32, the team a past version plays (-1: none)


@struct.dataclass
class Transition:
  obs: Any  # leaves [.., A, ...]
  action: Any  # {"move" [.., A, 3], "grab" [.., A, 1], "lock" [.., A, 1]}
  log_prob: jax.Array  # [.., A]
  value: jax.Array  # [.., A], in return units
  reward: jax.Array  # [.., A] the training reward (team spirit applied)
  done: jax.Array  # [.., A] (the world's done, per agent)
  active: jax.Array  # [.., A] 1 where the agent acted
  core: Any  # from a rollout: the LSTM states each chunk of bptt_length steps starts
  # from, leaves [T / bptt_length, N, A, H] (not one per step: memory)


def _to_env(action):
  """The policy's sample -> the env's action dict (grab and lock lose their unit axis)."""
  return {
    "move": action["move"].astype(jnp.int32),
    "grab": action["grab"][..., 0].astype(jnp.int32),
    "lock": action["lock"][..., 0].astype(jnp.int32),
  }


def _distribution(logits):
  return D.Product({k: D.MultiCategorical(v) for k, v in logits.items()})


class MAPPO:
  """The compiled pieces of one multi-agent PPO setup (see the module docstring)."""

  env_axis_fields = ("env_state", "core", "opponents")  # TrainState fields split over devices
  # On CPU, one host device: on two (train.py's default on a 2-core machine) the compiled evaluation
  # hangs for good, every pool thread blocked in jaxlib's LAPACK ParallelBatchMap (seen with gdb; the
  # deadlock agents.common.sharding.LAPACK_SPLIT_WORK describes, at a batch its estimate does not flag).
  # Only MJX-JAX calls LAPACK (C physics has no LAPACK call, and runs on one device anyway); jaxlib after
  # 0.11.0 no longer splits LAPACK batches in open-source builds (BENCHMARKS.md, "One CPU device").
  cpu_max_devices = 1
  supports_surgery = (
    False  # agents.league.surgery knows the MLP learners' parameter trees, not the entity nets
  )
  # train.py's progress line and learning curve: the two teams' evaluation returns.
  headline = (("eval/seeker_return", "seeker return"), ("eval/hider_return", "hider return"))

  def __init__(self, env, config: MAPPOConfig):
    self.config = c = config
    if not hasattr(env, "hider_flag"):
      raise ValueError(
        f"agent.algo='mappo' needs a hide-and-seek env (HideAndSeekQuadrant, HideAndSeek); "
        f"{type(env).__name__} is not one"
      )
    self.raw_env = env
    if not getattr(env, "has_reward", True):
      raise ValueError(
        f"{type(env).__name__} has no reward to learn from (its label is for a supervised probe of a "
        "trained policy's memory, the paper's classifier head); mappo trains the other transfer tasks"
      )
    # A transfer task: its success joins the episode statistics, and leads the progress line.
    self.transfer = bool(getattr(env, "is_transfer_task", False))
    self.episode_stats = EPISODE_STATS + (("success",) if self.transfer else ())
    if self.transfer:
      self.headline = (("eval/success_rate", "success"), ("eval/hider_return", "return"))
    self.num_agents = env.num_agents
    self.hider = jnp.asarray(env.hider_flag, jnp.float32)  # [A]
    self.team = jnp.asarray(env.hider_flag, jnp.int32)  # [A] team ids for team spirit: 1 hiders, 0 seekers
    self.prep_steps = env.prep_steps
    self.episode_length = int(c.episode_length or env.episode_length)
    sequences = c.num_envs * self.num_agents * (c.unroll_length // c.bptt_length)
    if sequences % c.num_minibatches:
      raise ValueError(
        f"num_minibatches ({c.num_minibatches}) must divide the sequences of a train step: "
        f"num_envs x agents x unroll_length / bptt_length = {sequences}"
      )
    self.num_sequences = sequences
    self.env = wrappers.wrap_for_training(env, c.num_envs, self.episode_length)
    net = dict(embed=c.embed, heads=c.heads, head_dim=c.head_dim, dense=c.dense, lstm=c.lstm_size)
    self.policy_net = EntityPolicy(**net)
    self.value_net = EntityValue(**net, omniscient=c.omniscient_value)
    grad_steps = c.num_updates * c.update_epochs * c.num_minibatches
    self.optimizer = optim.make(
      c.learning_rate,
      lr_schedule=c.lr_schedule,
      lr_end=c.learning_rate * c.lr_end_frac,
      steps=grad_steps,
      max_grad_norm=c.max_grad_norm,
      eps=1e-5,
    )

  # --- pieces ------------------------------------------------------------------------------------
  @property
  def uses_team_spirit(self) -> bool:
    """False where tau is 0 throughout (the default): the env's rewards are then used untouched."""
    c = self.config
    return bool(c.team_spirit) or bool(c.team_spirit_end)

  def team_spirit_at(self, updates):
    """tau at train step `updates` (0-based): constant, or linear from team_spirit to team_spirit_end,
    reaching it on the run's last train step (then held). A float32 scalar."""
    c = self.config
    if c.team_spirit_end is None:
      return jnp.asarray(c.team_spirit, jnp.float32)
    tau = optim.schedule(c.team_spirit, c.team_spirit_end, "linear", c.num_updates - 1)(updates)
    return jnp.asarray(tau, jnp.float32)

  def training_rewards(self, reward, present, tau):
    """The rewards PPO learns from: the env's per-agent `reward` [..., A] blended by team spirit `tau`
    over the agents `present` [..., A] (1: in this episode), each team separately (module docstring).
    Where the config's tau is 0 throughout, `reward` itself."""
    if not self.uses_team_spirit:
      return reward
    return team_rewards(reward, self.team, tau, zero_sum=False, mask=present)

  @property
  def uses_pool(self) -> bool:
    """True where some episodes meet past versions (past_opponent_prob > 0)."""
    return self.config.past_opponent_prob > 0.0

  def draw_opponents(self, key, n: int):
    """[n] int32 per world: the team a past version plays this episode (0 seekers, 1 hiders; -1: none)."""
    k_past, k_team = jax.random.split(key)
    past = jax.random.uniform(k_past, (n,)) < self.config.past_opponent_prob
    return jnp.where(past, jax.random.bernoulli(k_team, 0.5, (n,)).astype(jnp.int32), -1)

  def initial_core(self, batch_shape):
    """Zero LSTM states for worlds of `batch_shape`: leaves [*batch_shape, A, lstm_size]."""
    z = zero_carry(tuple(batch_shape) + (self.num_agents,), self.config.lstm_size)
    return {"policy": z, "value": z}

  def _value_units(self, ret_norm, v):
    return v * ret_norm.std + ret_norm.mean if self.config.normalize_values else v

  def active(self, env_state):
    """[N, A] 1 where the agent acts on this step: present, and not a seeker in the preparation phase."""
    info = env_state.info
    prep = (info["t"] < self.prep_steps)[..., None]
    frozen = prep & (self.hider[None] < 0.5)
    return (info["agent_on"] > 0) & ~frozen

  def step_nets(self, params, obs, core):
    """Both networks on one step: -> (policy logits, value [.., A] (standardised), new core)."""
    logits, p_carry = self.policy_net.apply(params["policy"], obs, core["policy"])
    v, v_carry = self.value_net.apply(params["value"], obs, core["value"])
    return logits, v, {"policy": p_carry, "value": v_carry}

  # --- init --------------------------------------------------------------------------------------
  def init(self, key) -> TrainState:
    k_env, k_pi, k_v, key = jax.random.split(key, 4)
    env_state = self.env.reset(k_env)
    one = jax.tree.map(lambda x: x[0], env_state.obs)  # one world: leaves [A, ...]
    core = self.initial_core(())
    params = {
      "policy": self.policy_net.init(k_pi, one, core["policy"]),
      "value": self.value_net.init(k_v, one, core["value"]),
    }
    pool = opponents = None
    if self.uses_pool:  # (no extra key split otherwise: the default run is as before, bit for bit)
      key, k_opp = jax.random.split(key)
      pool = opponent_pool.init({"policy": params["policy"]}, self.config.pool_size)
      opponents = self.draw_opponents(k_opp, self.config.num_envs)
    return TrainState(
      params=params,
      opt_state={k: self.optimizer.init(p) for k, p in params.items()},
      obs_norm=None,
      ret_norm=rs.init_state(jax.ShapeDtypeStruct((), jnp.float32)),
      core=self.initial_core((self.config.num_envs,)),
      env_state=env_state,
      key=key,
      updates=jnp.zeros((), jnp.int32),
      pool=pool,
      opponents=opponents,
    )

  # --- rollout -----------------------------------------------------------------------------------
  def rollout(self, ts: TrainState, key, pool_key=None):
    """unroll_length steps of every world -> (env_state, core, Transition [T, N, A, ...] (its `core`: the
    chunk starts), stats [T, N], the value of the state after the last step [N, A], past), where `past`
    is None, or with past opponents (`pool_key` then draws the version and the next episodes' teams)
    {"opponents": [N] the teams past versions play after the rollout, "slot": the pool slot that
    played, "p": [pool_size] the probabilities it was drawn with}; stats then add "past_episode" and
    "past_win" (the current team won) per finished episode with a past team."""
    A = self.num_agents
    tau = self.team_spirit_at(ts.updates)
    c = self.config
    T, L = c.unroll_length, c.bptt_length
    past = None
    if self.uses_pool:
      k_slot, k_opp = jax.random.split(pool_key)
      uniform = c.opponent_sampling == "uniform"
      slot = opponent_pool.sample(ts.pool, k_slot, (), uniform=uniform)
      past = {"slot": slot, "p": opponent_pool.probs(ts.pool, uniform)}
      past_params = opponent_pool.get(ts.pool, slot)["policy"]
      opp_keys = jax.random.split(k_opp, T)

    def play_past(env_state, core, opp, k, action, new_core, active):
      """The agents of the team `opp` [N] names act with the past version (same key: where the versions
      agree, so do the actions) and are masked out of the update."""
      logits, carry = self.policy_net.apply(past_params, env_state.obs, core["policy"])
      on = self.team[None, :] == opp[:, None]  # [N, A]
      pick = lambda p, q: jnp.where(on.reshape(on.shape + (1,) * (p.ndim - 2)), p, q)
      action = jax.tree.map(pick, _distribution(logits).sample(k), action)
      new_core = {**new_core, "policy": jax.tree.map(pick, carry, new_core["policy"])}
      return action, new_core, active & ~on

    def past_results(stats, opp):
      """Per finished episode with a past team: did the current team (the other one) score more?"""
      ended = stats["done"] * (opp >= 0)
      mine = jnp.where(opp == 0, stats["hider_return"], stats["seeker_return"])
      theirs = jnp.where(opp == 0, stats["seeker_return"], stats["hider_return"])
      return {**stats, "past_episode": ended, "past_win": ended * (mine > theirs)}

    def body(carry, xs):
      env_state, core, opp = carry
      k, k_opp = xs
      logits, v, new_core = self.step_nets(ts.params, env_state.obs, core)
      dist = _distribution(logits)
      action = dist.sample(k)
      active = self.active(env_state)
      if past is not None:
        action, new_core, active = play_past(env_state, core, opp, k, action, new_core, active)
      nxt = self.env.step(env_state, _to_env(action))
      done = jnp.broadcast_to(nxt.done[:, None], (nxt.done.shape[0], A))
      tr = Transition(
        env_state.obs,
        action,
        dist.log_prob(action),
        self._value_units(ts.ret_norm, v),
        self.training_rewards(nxt.reward, env_state.info["agent_on"], tau),
        done,
        active.astype(jnp.float32),
        None,
      )
      stats = self._step_stats(env_state, nxt)
      if past is not None:
        stats = past_results(stats, opp)
        opp = jnp.where(nxt.done > 0, self.draw_opponents(k_opp, opp.shape[0]), opp)
      return (nxt, next_carry(None, new_core, nxt.done[:, None]), opp), (tr, stats)

    def chunk(carry, xs):  # bptt_length steps; keeps only the LSTM state the chunk starts from
      start = carry[1]
      carry, out = jax.lax.scan(body, carry, xs)
      return carry, (out, start)

    xs = (jax.random.split(key, T), opp_keys if past is not None else None)
    xs = jax.tree.map(lambda x: x.reshape((T // L, L) + x.shape[1:]), xs)
    (env_state, core, opp), ((traj, stats), starts) = jax.lax.scan(
      chunk, (ts.env_state, ts.core, ts.opponents), xs
    )
    traj, stats = jax.tree.map(lambda x: x.reshape((T,) + x.shape[2:]), (traj, stats))
    traj = traj.replace(core=starts)
    _, last_v, _ = self.step_nets(ts.params, env_state.obs, core)
    if past is not None:
      past["opponents"] = opp
    return env_state, core, traj, stats, self._value_units(ts.ret_norm, last_v), past

  def _step_stats(self, before, after):
    """Per-world statistics of the episodes that ended with this step ([N] leaves, zero elsewhere)."""
    done = after.metrics["episode_done"]
    on = before.info["agent_on"].astype(jnp.float32)  # this episode's agents
    ret = after.metrics["episode_return"]  # [N, A]
    team = lambda flag: jnp.sum(ret * flag * on, -1) / jnp.maximum(jnp.sum(flag * on, -1), 1.0)
    out = {
      "done": done,
      "hider_return": team(self.hider) * done,
      "seeker_return": team(1 - self.hider) * done,
      "bad_action": after.metrics.get("bad_action", jnp.zeros_like(done)),
      "diverged": after.info.get("diverged", jnp.zeros_like(done)),
    }
    out.update({k: after.metrics[k] * done for k in EMERGENCE})
    if self.transfer:
      out["success"] = after.metrics["is_success"] * done
    return out

  def summarize(self, stats):
    """Stacked _step_stats -> train/* metrics: means over the episodes that ended."""
    n = jnp.sum(stats["done"])
    out = {
      "train/episodes": n,
      "train/bad_actions": jnp.sum(stats["bad_action"]),
      "train/physics_resets": jnp.sum(stats["diverged"]),
    }
    for k in self.episode_stats:
      out[f"train/{k}"] = jnp.sum(stats[k]) / jnp.maximum(n, 1.0)
    return out

  # --- loss and update ---------------------------------------------------------------------------
  def _sequences(self, traj: Transition, adv, targets):
    """[T, N, A, ...] leaves -> sequences [L, S, ...] (S = T/L x N x A), and the LSTM states at the
    chunk starts -> [S, H]."""
    c = self.config
    L, C = c.bptt_length, c.unroll_length // c.bptt_length

    # (Sizes spelt out, no -1: a transfer task's lone agent sees zero other agents, a zero-size leaf.)
    def seq(x):
      NA = x.shape[1] * x.shape[2]
      x = x.reshape((C, L, NA) + x.shape[3:])
      return jnp.swapaxes(x, 0, 1).reshape((L, C * NA) + x.shape[3:])

    # [C, N, A, H] -> [S, H]
    starts = jax.tree.map(
      lambda x: x.reshape((x.shape[0] * x.shape[1] * x.shape[2],) + x.shape[3:]), traj.core
    )
    body = jax.tree.map(seq, (traj.replace(core=None), adv, targets))
    return body, starts

  def loss(self, params, batch: Transition, adv, targets, core, ent_coef):
    """PPO loss on a minibatch of sequences: leaves [L, n, ...], `core` the LSTM states [n, H] they start
    from, `targets` the standardised value targets. Inactive steps are masked out of every term."""
    c = self.config

    def body(core, x):
      obs, done = x
      logits, v, new_core = self.step_nets(params, obs, core)
      return next_carry(None, new_core, done), (logits, v)

    _, (logits, values) = jax.lax.scan(body, core, (batch.obs, batch.done))
    dist = _distribution(logits)
    log_prob = dist.log_prob(batch.action)
    mask = batch.active
    pg_loss, clip_frac = clipped_surrogate(log_prob, batch.log_prob, adv, c.clip_eps, mask)
    v_loss = value_loss(values, None, targets, None, mask)
    entropy = masked_mean(dist.entropy(), mask)
    total = pg_loss + c.vf_coef * v_loss - ent_coef * entropy
    info = {
      "loss/policy": pg_loss,
      "loss/value": v_loss,
      "loss/entropy": entropy,
      "loss/approx_kl": masked_mean(batch.log_prob - log_prob, mask),
      "loss/clip_frac": clip_frac,
    }
    return total, info

  def train_step(self, ts: TrainState):
    """One update: rollout, GAE per agent, value statistics, epochs x minibatches. -> (ts, metrics)."""
    c = self.config
    key, k_roll, k_upd = jax.random.split(ts.key, 3)
    k_pool = None
    if self.uses_pool:  # (no extra split otherwise: the default run is as before, bit for bit)
      key, k_pool = jax.random.split(key)
    env_state, core, traj, stats, last_v, past = self.rollout(ts, k_roll, k_pool)

    next_values = jnp.concatenate([traj.value[1:], last_v[None]])
    adv, returns = gae(
      traj.reward, traj.value, next_values, traj.done, jnp.zeros_like(traj.done), c.gamma, c.gae_lambda
    )
    mask = traj.active
    ret_norm = rs.update(ts.ret_norm, returns, weights=mask) if c.normalize_values else ts.ret_norm
    targets = (returns - ret_norm.mean) / ret_norm.std if c.normalize_values else returns
    if c.normalize_advantages:
      mean = masked_mean(adv, mask)
      adv = (adv - mean) / (jnp.sqrt(masked_mean((adv - mean) ** 2, mask)) + 1e-8)
    (seq, adv_s, targets_s), starts = self._sequences(traj, adv, targets)

    grad_fn = jax.grad(self.loss, has_aux=True)
    n_mb = c.num_minibatches
    mb = self.num_sequences // n_mb

    def epoch(carry, k):
      perm = jax.random.permutation(k, self.num_sequences)
      split = lambda x: jnp.swapaxes(
        jnp.take(x, perm, axis=1).reshape((x.shape[0], n_mb, mb) + x.shape[2:]), 0, 1
      )
      split_start = lambda x: jnp.take(x, perm, axis=0).reshape((n_mb, mb) + x.shape[1:])
      batches = (jax.tree.map(split, (seq, adv_s, targets_s)), jax.tree.map(split_start, starts))

      def minibatch(carry, b):
        params, opt_state = carry
        (batch, a, t), start = b
        grads, info = grad_fn(params, batch, a, t, start, c.ent_coef)
        new_params, new_opt = {}, {}
        for name in params:
          updates, new_opt[name] = self.optimizer.update(grads[name], opt_state[name], params[name])
          new_params[name] = optax.apply_updates(params[name], updates)
          info[f"grad_norm/{name}"] = optax.global_norm(grads[name])
        return (new_params, new_opt), info

      return jax.lax.scan(minibatch, carry, batches)

    (params, opt_state), info = jax.lax.scan(
      epoch, (ts.params, ts.opt_state), jax.random.split(k_upd, c.update_epochs)
    )
    metrics = {k: jnp.mean(v) for k, v in info.items()}
    metrics.update(self.summarize(stats))
    metrics.update(
      {
        "train/reward_mean": masked_mean(traj.reward, mask),
        "train/active_frac": jnp.mean(mask),
        "train/value_mean": masked_mean(traj.value, mask),
        "train/return_std": ret_norm.std,
        "train/team_spirit": self.team_spirit_at(ts.updates),
      }
    )
    metrics.update(episodes.data_quality(c.update_epochs, 0))
    pool, opponents = ts.pool, ts.opponents
    if past is not None:
      wins = jnp.sum(stats["past_win"])
      pool = opponent_pool.update_quality(pool, past["slot"], wins, c.pool_eta, p=past["p"])
      step = ts.updates + 1
      pool = opponent_pool.add(pool, {"policy": params["policy"]}, step, take=step % c.pool_every == 0)
      opponents = past["opponents"]
      metrics.update(opponent_pool.metrics(pool, "pool", c.opponent_sampling == "uniform"))
      # Counts, not a rate: train_many averages over train steps, and a ratio of the averages is the
      # win rate over the chunk.
      metrics["train/past_episodes"] = jnp.sum(stats["past_episode"])
      metrics["train/past_wins"] = wins
    ts = ts.replace(
      pool=pool,
      opponents=opponents,
      params=params,
      opt_state=opt_state,
      ret_norm=ret_norm,
      core=core,
      env_state=env_state,
      key=key,
      updates=ts.updates + 1,
    )
    return ts, metrics

  def train_many(self, ts: TrainState, num_updates: int):
    """`num_updates` train steps in one scan; metrics averaged over them (episode statistics weighted by
    the episodes each step finished)."""
    ts, m = jax.lax.scan(lambda t, _: self.train_step(t), ts, (), num_updates)
    return ts, episodes.average_chunk(m, tuple(f"train/{k}" for k in self.episode_stats))

  def train(self, key):
    """The whole run as one pure function: jit it, vmap it over seeds."""
    return self.train_many(self.init(key), self.config.num_updates)

  # --- evaluation --------------------------------------------------------------------------------
  def evaluate(self, params, obs_norm, key, num_envs: int | None = None):
    """One episode in each of `num_envs` fresh worlds under the sampling policy (a game's policies are
    stochastic; the key fixes the numbers) -> eval/hider_return, eval/seeker_return (per agent, mean
    over the team), eval/success_rate (the fraction of episodes where the hiders stayed hidden on every
    step after the preparation phase; a transfer task: where it succeeded at the end), and
    eval/<statistic> for the EMERGENCE statistics."""
    n = int(num_envs or self.config.num_eval_envs)
    acc, _ = self.play_episodes(self.policy(params, obs_norm, deterministic=False), key, n)
    out = {f"eval/{k}": jnp.mean(v) for k, v in acc.items()}
    won = acc["success"] > 0 if self.transfer else acc["hidden_fraction"] >= 1.0
    out["eval/success_rate"] = jnp.mean(won)
    return out

  def play_episodes(self, act, key, num_envs: int, stats=None):
    """One episode in each of `num_envs` fresh worlds under act(obs, key, carry) -> (action, carry) (with
    `act.initial_carry`) -> ({name: [num_envs]} of `stats` (any keys of the step statistics) at each
    world's first episode end, finished [num_envs] bool). What `evaluate` and the tournament's matches of
    hiders against seekers (agents.tournament) play."""
    n = num_envs
    stats = self.episode_stats if stats is None else stats
    env = wrappers.Batch(wrappers.EpisodeStats(wrappers.EpisodeLimit(self.raw_env, self.episode_length)), n)
    k_reset, k_act = jax.random.split(key)
    state = sharding.constrain_env_axis(env.reset(k_reset))

    def body(loop, k):
      state, carry, finished, acc = loop
      action, carry = act(state.obs, k, carry)
      nxt = env.step(state, action)
      s = self._step_stats(state, nxt)
      first = (nxt.done > 0) & ~finished
      acc = {name: jnp.where(first, s[name], v) for name, v in acc.items()}
      return (nxt, carry, finished | first, acc), None

    acc0 = {k: jnp.zeros((n,)) for k in stats}
    loop = (state, act.initial_carry((n,)), jnp.zeros((n,), bool), acc0)
    (_, _, finished, acc), _ = jax.lax.scan(body, loop, jax.random.split(k_act, self.episode_length))
    return acc, finished

  def policy(self, params, obs_norm=None, deterministic: bool = True):
    """act(obs, key, carry) -> (env action dict, carry) for one world's observation (leaves [A, ...]) or
    a batch of them ([n, A, ...]); `act.initial_carry(batch_shape)` starts an episode (leaves
    [*batch_shape, A, lstm_size]). `key` is unused when deterministic (each head's most likely bin)."""
    del obs_norm

    def act(obs, key, carry):
      logits, carry = self.policy_net.apply(params["policy"], obs, carry)
      dist = _distribution(logits)
      return _to_env(dist.mode() if deterministic else dist.sample(key)), carry

    act.initial_carry = lambda batch_shape=(): self.initial_core(batch_shape)["policy"]
    return act


def make_train(env, config: MAPPOConfig | None = None) -> MAPPO:
  """Builds the multi-agent PPO pieces for a raw hide-and-seek env (see the module docstring)."""
  return MAPPO(env, config or MAPPOConfig())
