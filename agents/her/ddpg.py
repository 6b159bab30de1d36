"""DDPG+HER (Andrychowicz et al. 2017, OpenAI baselines' settings) as one compiled training cycle.

A cycle: every env collects `unroll_length` steps with the exploration policy; the [N, L] segments go
into the on-device replay buffer; the observation normaliser is updated with HER-relabelled goals of
the new data; then `updates_per_cycle` updates each sample `grad_batches` batches of transitions, relabel
their goals (`agents.common.relabel`), re-score rewards with the env's `compute_reward`, and step actor and critic
on the gradient averaged over the batches; finally the target networks move by polyak averaging.
`train_many` scans many cycles inside one `jit`.

Baselines averages gradients over its MPI workers (each samples its own batch of 256), so its effective
batch is workers x 256: `grad_batches` = workers reproduces that (configs ddpg_her_fetch_push_1w / _8w).

Library use mirrors PPO:
  algo = make_train(env, DDPGConfig(...)); ts = algo.init(key); ts, m = algo.train_many(ts, n)
  act = algo.policy(ts.params, ts.obs_norm)   # act(obs, key) -> action
Goal envs: observations are {observation, achieved_goal, desired_goal} dicts, rewards recomputed with
`compute_reward` for the relabelled goals.

Plain envs (a flat observation array, e.g. Meta-World's; `replay_strategy="none"` only): the replay
stores each step's obs, action, env reward, next obs (the final one where the episode ended) and its
done/truncation flags; a batch is drawn uniformly with no relabelling and its stored rewards, and carries
an empty goal ([batch, 0]), so that every loss reads it as for a goal env. The discount is
1 - done (1 - truncation): episodes that end by truncation (a time limit) bootstrap. The normaliser sees
the observations. `agents.multitask.mtsac` (multi-task SAC) runs on this path.

`HERLearner` holds what every off-policy HER learner shares (rollout, replay, relabelled sampling,
normaliser, the compiled cycle, evaluation, checkpoints); `DDPG` adds its networks, exploration and
losses, and `agents.her.sac.SAC` SAC's.

Demonstrations (baselines' `demo_file`, `demo_batch_size`, `bc_loss`, `q_filter`; Nair et al. 2018):
`demo_episodes` episodes of the env family's scripted expert (`mjx_envs.scripted.expert_for`) are rolled
out inside `init` (part of the compiled program, no file to make first) into a buffer of their own, never
overwritten, and folded into the normaliser; every batch ends with `demo_batch_size` relabelled demo rows
(`sample`'s `demo` flag); DDPG's `bc_weight` adds behaviour cloning on those rows where the critic rates
the demonstrated action above the actor's. Deliberate differences from baselines: the demos come from our
experts at init rather than a recorded file, and a resume without buffers collects them again.

Optimisation and data quality (agents.common.optim): `lr_schedule`/`lr_end_frac` schedule every rate,
`grad_clip_sqrt_v` = 5 adds OpenAI Five's per-parameter clip. Every cycle logs `data/sample_reuse`, the
gradient steps a transition takes part in over its life in the buffer (batch_size x grad_batches x
updates_per_cycle / new transitions per cycle, once the buffer is full), and `data/staleness`, the mean
age in cycles (parameter versions) of the sampled transitions: off-policy learning trains on stale data
by design.
"""

from __future__ import annotations

from mjx_envs import scripted, wrappers

import dataclasses
import functools
import math
from collections.abc import Sequence
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from brax.training.acme import running_statistics as rs
from flax import struct

from agents.common import episodes, optim, relabel, replay
from agents.common import normalize as N
from agents.common.evaluation import evaluate_policy
from agents.common.networks import MLP, task_mlp


@dataclasses.dataclass(frozen=True)
class HERConfig(episodes.StepBudget):
  """The settings every off-policy HER learner shares (DDPGConfig, agents.her.sac.SACConfig)."""

  num_envs: int = 16  # parallel envs; each contributes one segment per cycle
  unroll_length: int = 50  # steps per env per cycle (Fetch: one whole episode)
  updates_per_cycle: int = 40  # gradient steps per cycle (baselines: n_batches)
  batch_size: int = 256
  grad_batches: int = 1  # independent batches per gradient step, gradients averaged
  # (baselines: its MPI workers; effective batch = this x batch_size)
  buffer_size: int = 1_000_000  # transitions
  total_env_steps: int = 1_000_000
  actor_lr: float = 1e-3
  critic_lr: float = 1e-3
  lr_schedule: str = "constant"  # agents.common.optim SCHEDULES for every rate, over cycles
  lr_end_frac: float = 0.0  # where "linear"/"cosine" end, as a fraction of each rate
  grad_clip_sqrt_v: float = 0.0  # >0: per-parameter clip to +-this x sqrt(v) (OpenAI Five: 5)
  gamma: float = 0.98
  polyak: float = 0.95
  polyak_every_update: bool = False  # True: the targets move by polyak after every gradient step (SAC's
  # tau = 1 - polyak), not once per cycle (baselines' HER)
  hidden: Sequence[int] = (256, 256, 256)
  random_eps: float = 0.3  # probability of a uniformly random action
  obs_clip: float = 5.0
  obs_std_min: float = 1e-6  # floor of the normaliser std (baselines uses 1e-2; see BENCHMARKS.md)
  clip_target: bool = True  # clip critic targets to the range of sparse returns (r in [-1, 0])
  replay_strategy: str = "future"
  replay_k: float = 4.0  # future_p = 1 - 1/(1+k)
  checkpoint_buffer: bool = True  # False: checkpoints leave the replay buffer out (smaller; resume
  # then restarts from an empty buffer and is not exact)
  episode_length: int | None = None
  num_eval_envs: int = 128
  # Demonstrations (Nair et al. 2018; baselines' her `demo_file`, `demo_batch_size`): `demo_episodes`
  # episodes of the env family's scripted expert (`mjx_envs.scripted.expert_for`), collected once at
  # init into a buffer of their own that is never overwritten; each batch draws `demo_batch_size` of its
  # `batch_size` transitions from it, relabelled as the rest.
  demo_episodes: int = 0
  demo_batch_size: int = 0
  demo_successes_only: bool = False  # True: only the expert's successful episodes are drawn (baselines'
  # demonstration files hold successful episodes); the buffer keeps all demo_episodes, its size counts these
  # Names of the env's goal kinds (its GOAL_KINDS, e.g. HandReach's "ring") whose demo episodes are drawn;
  # () all. The expert's demonstrations can then teach only the goals that exploration never reaches.
  demo_goal_kinds: tuple[str, ...] = ()

  def __post_init__(self):
    if self.lr_schedule not in optim.SCHEDULES:
      raise ValueError(f"lr_schedule must be one of {optim.SCHEDULES}, got {self.lr_schedule!r}")
    if self.replay_strategy not in relabel.STRATEGIES:
      raise ValueError(f"replay_strategy must be one of {relabel.STRATEGIES}, got {self.replay_strategy!r}")
    # A bool is an int to Python; grad_batches=True is a mistake, not 1 batch.
    if isinstance(self.grad_batches, bool) or not isinstance(self.grad_batches, int) or self.grad_batches < 1:
      raise ValueError(
        f"grad_batches must be an integer >= 1 (batches of batch_size averaged per gradient "
        f"step), got {self.grad_batches!r}"
      )
    if self.num_envs * self.unroll_length > self.buffer_size:
      raise ValueError(
        f"buffer_size ({self.buffer_size}) must hold one cycle of num_envs x unroll_length "
        f"({self.num_envs * self.unroll_length}) transitions"
      )
    if (self.demo_episodes > 0) != (self.demo_batch_size > 0):
      raise ValueError(
        f"demo_episodes ({self.demo_episodes}) and demo_batch_size ({self.demo_batch_size}) go together: "
        f"both > 0 to learn from demonstrations, both 0 not to"
      )
    if self.demo_batch_size >= self.batch_size:
      raise ValueError(
        f"demo_batch_size ({self.demo_batch_size}) must be below batch_size ({self.batch_size}): the rest "
        f"of each batch is the agent's own data"
      )


@dataclasses.dataclass(frozen=True)
class CloningConfig(HERConfig):
  """HERConfig plus behaviour cloning of the demonstrations (DDPGConfig, agents.her.sac.SACConfig)."""

  # > 0: the actor also clones the batch's demonstrated actions where the critic rates them above its own
  # (the Q filter; Nair et al. 2018, baselines' `bc_loss`/`q_filter`): loss + bc_weight x the mean over
  # the demo rows of the masked squared action error (`q_filtered_cloning`). Baselines' 0.001 on -Q and
  # 0.0078 on the error summed over its demo rows are bc_weight = 7.8 x demo_batch_size here (DDPG).
  bc_weight: float = 0.0
  # The cloning weight's schedule in env steps: bc_weight until bc_until, then halving every bc_half_life
  # more (0: dropped at once). bc_until 0: bc_weight throughout. The demo rows stay in the batches either way.
  # Halving, not a linear fall: a tenth of the weight clones as the whole does (BENCHMARKS.md, HandReach).
  bc_until: int = 0
  bc_half_life: int = 0
  # True: clone only the demo rows that keep the goal the expert pursued. A relabelled goal is a point the
  # expert's fingers passed or reached, but its action there was aimed at the original goal.
  bc_original_goals: bool = False

  def __post_init__(self):
    super().__post_init__()
    if self.bc_weight > 0 and not self.demo_episodes:
      raise ValueError(
        f"bc_weight={self.bc_weight} clones demonstrations: set demo_episodes and demo_batch_size"
      )
    if self.bc_until < 0 or self.bc_half_life < 0 or (self.bc_half_life and not self.bc_until):
      raise ValueError(
        f"bc_until ({self.bc_until}) and bc_half_life ({self.bc_half_life}) are env steps >= 0, and "
        f"bc_half_life needs bc_until > 0 (where the decay starts)"
      )

  def bc_scale(self, env_steps):
    """The factor on bc_weight after `env_steps` env steps (a scalar; traced or not)."""
    if not self.bc_until:
      return jnp.ones(())
    past = jnp.asarray(env_steps, jnp.float32) - self.bc_until
    if not self.bc_half_life:
      return (past <= 0).astype(jnp.float32)
    return jnp.exp2(-jnp.maximum(past, 0.0) / self.bc_half_life)


@dataclasses.dataclass(frozen=True)
class DDPGConfig(CloningConfig):
  noise_eps: float = 0.2  # std of the Gaussian action noise
  action_l2: float = 1.0


def q_filtered_cloning(config: CloningConfig, action, b, q_demo, q_pi):
  """The Q-filtered cloning error: (bc [], clone [B]). action [B, A] the actor's (differentiated), b the
  batch (its action, demo and relabelled flags [B]), q_demo / q_pi [B] the critic at the batch's action
  and at the actor's. bc = sum over the demo rows (with bc_original_goals, those not relabelled) whose
  q_demo > q_pi of the squared action error (summed over A), over the number of demo rows."""
  demo, demo_action = b["demo"], b["action"]
  rows = demo * (1.0 - b["relabelled"]) if config.bc_original_goals else demo
  clone = jax.lax.stop_gradient(rows * (q_demo > q_pi))
  bc = jnp.sum(clone * jnp.sum((action - demo_action) ** 2, -1)) / jnp.maximum(jnp.sum(demo), 1.0)
  return bc, clone


def cloning_info(config: CloningConfig, b, bc, clone, env_steps) -> dict:
  """The demonstration metrics of one batch (empty without demonstrations)."""
  info = {}
  n_demo = jnp.maximum(jnp.sum(b["demo"]), 1.0)
  if config.demo_batch_size:
    info["demo/relabelled_reward"] = jnp.sum(b["demo"] * b["reward"]) / n_demo
  if config.bc_weight > 0:
    info["loss/bc"] = bc
    info["demo/q_filter_pass"] = jnp.sum(clone) / n_demo
    info["demo/bc_scale"] = config.bc_scale(env_steps)
  return info


def kept_first(buf: replay.SegmentBuffer, keep) -> replay.SegmentBuffer:
  """A full buffer of one segment per episode with the episodes of `keep` [S] bool first (in their
  order) and its size their count (at least 1, so that sampling has a row): draws see only them."""
  order = jnp.argsort(~keep, stable=True)
  data = jax.tree.map(lambda x: x[order], buf.data)
  return buf.replace(data=data, size=jnp.maximum(jnp.sum(keep), 1).astype(buf.size.dtype))


@struct.dataclass
class TrainState:
  params: Any  # DDPG: {"actor", "critic"}; SAC: {"actor", "critic", "log_alpha"}
  target: Any  # polyak-averaged copies of `target_params(params)`
  opt_state: Any  # one optimiser state per key of params
  obs_norm: rs.RunningStatisticsState
  buffer: Any  # replay.SegmentBuffer (None in a checkpoint saved without it)
  env_state: Any
  key: jax.Array
  updates: jax.Array  # cycles done
  demos: Any = None  # replay.SegmentBuffer of the expert's episodes (config.demo_episodes), else None


class Actor(nn.Module):
  action_size: int
  hidden: Sequence[int]

  @nn.compact
  def __call__(self, feats):
    return jnp.tanh(MLP(self.hidden, out=self.action_size, activation="relu")(feats))


class Critic(nn.Module):
  """(feats [..., F], action [..., A]) -> Q [...]. With num_heads > 1, feats end in a one-hot task id of
  num_heads entries and each task has its own output layer (`MultiHeadMLP`)."""

  hidden: Sequence[int]
  num_heads: int = 1

  @nn.compact
  def __call__(self, feats, action):
    x = jnp.concatenate([feats, action], -1)
    return task_mlp(self.hidden, 1, self.num_heads, "relu", x, feats)[..., 0]


class HERLearner:
  """The compiled pieces an off-policy HER learner shares. A subclass sets `self.opts` ({name: optax
  transformation}, one per key of its params) and defines `init_params`, `explore`, `grads`, `policy`
  and, if its target is not a copy of all params, `target_params`."""

  env_axis_fields = ("env_state",)
  # The settings that decide which demonstrations the state holds: a `--resume` that changes one of
  # them collects the demos afresh (`recollect_demos`) instead of keeping the checkpoint's.
  demo_fields = ("demo_episodes", "demo_successes_only", "demo_goal_kinds")

  def __init__(self, env, config: HERConfig):
    self.config = c = config
    self.raw_env = env
    obs = jax.eval_shape(env.reset, jax.random.PRNGKey(0)).obs
    self.goal_env = isinstance(obs, dict) and "achieved_goal" in obs and "observation" in obs
    if not self.goal_env and (isinstance(obs, dict) or c.replay_strategy != "none"):
      raise ValueError(
        f"{type(self).__name__} with replay_strategy={c.replay_strategy!r} needs a goal env with "
        f"{{observation, achieved_goal, desired_goal}} observations; {type(env).__name__} has "
        f"{jax.tree.map(lambda x: x.shape, obs)} (a plain env with a flat observation takes "
        f"replay_strategy='none')"
      )
    if not self.goal_env and c.clip_target:
      raise ValueError(
        f"clip_target=True clips critic targets to the returns of sparse rewards in [-1, 0]; "
        f"{type(env).__name__} is a plain env with its own rewards: set clip_target=False"
      )
    self.flatten = self.goal_env  # evaluation hands the policy flattened goal observations
    # The goal as the networks read it (an env's `policy_goal`, e.g. HandReach's
    # `seen_goal_min_separation`); rewards are always computed on the real goal. None: the goal as it is.
    self.goal_view = getattr(env.unwrapped, "policy_goal", None) if self.goal_env else None
    self.action_size = env.action_size
    self.episode_length = int(c.episode_length or env.episode_length)
    self.env = wrappers.wrap_for_training(env, c.num_envs, self.episode_length, flatten=False)
    # One world's observation (the training batch's, leading axis dropped: a multi-task env's raw reset
    # is itself a batch).
    self.obs_example = jax.tree.map(
      lambda x: jax.ShapeDtypeStruct(x.shape[1:], x.dtype),
      jax.eval_shape(self.env.reset, jax.random.PRNGKey(0)).obs,
    )
    # One world's flattened goal: the last entries of a flattened observation (0: a plain env).
    self.goal_size = math.prod(self.obs_example["desired_goal"].shape) if self.goal_env else 0
    self.p = relabel.future_p(c.replay_k)
    self.opts = {}
    if c.demo_episodes:
      if not self.goal_env:
        raise ValueError(f"demo_episodes needs a goal env; {type(env).__name__} has flat observations")
      self.expert = scripted.expert_for(env)  # a clear error now, where the env's family has none
    if c.demo_goal_kinds:
      kinds = getattr(env.unwrapped, "GOAL_KINDS", None)
      if not c.demo_episodes or kinds is None:
        raise ValueError(
          f"demo_goal_kinds={c.demo_goal_kinds!r} filters demo episodes by their goal's kind: it needs "
          f"demo_episodes and an env with GOAL_KINDS and goal_kind() (HandReach); "
          f"{type(env.unwrapped).__name__} has {'none' if kinds is None else kinds}"
        )
      unknown = [k for k in c.demo_goal_kinds if k not in kinds]
      if unknown:
        raise ValueError(
          f"demo_goal_kinds: unknown goal kind(s) {unknown}; {type(env.unwrapped).__name__} has {kinds}"
        )
      self.demo_kind_ids = jnp.array([kinds.index(k) for k in c.demo_goal_kinds], jnp.int32)

  def make_opt(self, lr):
    """Adam at `lr` with the config's schedule (over every gradient step of the run) and clipping."""
    c = self.config
    return optim.make(
      lr,
      lr_schedule=c.lr_schedule,
      lr_end=lr * c.lr_end_frac,
      steps=c.num_updates * c.updates_per_cycle,
      clip_sqrt_v=c.grad_clip_sqrt_v,
    )

  # --- pieces ------------------------------------------------------------------------------------
  def normalize(self, obs_norm, feats):
    """Network input from features [..., F] (`features`): standardised and clipped."""
    return N.normalize(obs_norm, feats, self.config.obs_clip)

  def _feats(self, obs_norm, observation, goal):
    """Network input from stored observations [..., O] and goals [..., G] (G = 0 on a plain env)."""
    return self.normalize(obs_norm, self._inputs(observation, goal))

  def _inputs(self, observation, goal):
    """[..., O + G]: an observation and the goal as the networks read it (`goal_view`)."""
    if self.goal_view is not None:
      goal = self.goal_view(goal)
    return jnp.concatenate([observation, goal], -1)

  def features(self, obs):
    """[..., O + G] from a dict goal observation or a flattened one (the goal its last G entries); a plain
    env's observation as it is."""
    if not self.goal_env:
      return obs
    if isinstance(obs, dict):
      batch = obs["observation"].shape[:-1]
      return self._inputs(obs["observation"], obs["desired_goal"].reshape(batch + (-1,)))
    return self._inputs(obs[..., : -self.goal_size], obs[..., -self.goal_size :])

  def segment_example(self, obs_example):
    """One stored step's fields (shapes without the [L] axis added by the caller)."""
    f32 = jnp.float32
    scalar = jax.ShapeDtypeStruct((), f32)
    action = jax.ShapeDtypeStruct((self.raw_env.action_size,), f32)
    if not self.goal_env:
      return {
        "obs": obs_example,
        "action": action,
        "reward": scalar,
        "next_obs": obs_example,
        "done": scalar,
        "truncation": scalar,
        "valid": scalar,
      }
    o, g = obs_example["observation"], obs_example["desired_goal"]
    return {
      "obs": o,
      "goal": g,
      "action": action,
      "next_obs": o,
      "next_ag": g,
      "done": scalar,
      "truncation": scalar,
      "valid": scalar,
    }

  def empty_buffer(self):
    L = self.config.unroll_length
    seg = jax.tree.map(
      lambda x: jax.ShapeDtypeStruct((L,) + tuple(x.shape), jnp.float32),
      self.segment_example(self.obs_example),
    )
    return replay.init(seg, self.config.buffer_size)

  def target_params(self, params):
    """The part of params that has polyak-averaged target copies (DDPG: all of them)."""
    return params

  # --- init --------------------------------------------------------------------------------------
  def init(self, key) -> TrainState:
    k_env, k_actor, k_critic, key = jax.random.split(key, 4)
    env_state = self.env.reset(k_env)
    feats = self.features(jax.tree.map(lambda x: x[0], env_state.obs))
    params = self.init_params(k_actor, k_critic, feats)
    opt_state = {k: opt.init(params[k]) for k, opt in self.opts.items()}
    obs_norm, demos = N.init(feats), None
    if self.config.demo_episodes:  # (no extra key split without demos: runs without them stay as they were)
      key, k_demo, k_norm = jax.random.split(key, 3)
      demos = self.collect_demos(k_demo)
      obs_norm = self.update_normalizer(obs_norm, demos.data, k_norm)  # baselines folds demos in too
    return TrainState(
      params=params,
      target=self.target_params(params),
      opt_state=opt_state,
      obs_norm=obs_norm,
      buffer=self.empty_buffer(),
      env_state=env_state,
      key=key,
      updates=jnp.zeros((), jnp.int32),
      demos=demos,
    )

  def collect_demos(self, key) -> replay.SegmentBuffer:
    """`demo_episodes` episodes of the scripted expert from fresh resets, stored as the rollout stores
    the agent's (one segment [L] per episode, the last step done and truncated: a time limit)."""
    c, env, expert = self.config, self.raw_env, self.expert
    n, L = c.demo_episodes, self.episode_length
    state = jax.vmap(env.reset)(jax.random.split(key, n))

    def body(carry, t):
      s, mem = carry
      action, mem = jax.vmap(expert.act)(mem, s)
      nxt = jax.vmap(env.step)(s, action)
      last = jnp.full((n,), t == L - 1, jnp.float32)
      flags = {"done": jnp.maximum(last, nxt.done), "truncation": last * (1.0 - nxt.done)}
      return (nxt, mem), self.goal_step(s.obs, action, nxt.obs, flags)

    (final, _), steps = jax.lax.scan(body, (state, jax.vmap(expert.init)(state)), jnp.arange(L))
    segments = jax.tree.map(lambda x: jnp.swapaxes(x, 0, 1), steps)
    example = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape[1:], jnp.float32), segments)
    buf = replay.add(replay.init(example, n * L), segments)
    if not (c.demo_successes_only or c.demo_goal_kinds):
      return buf
    keep = jnp.ones((n,), bool)
    if c.demo_successes_only:  # success as the env scores an episode: at its last step
      keep = final.metrics["is_success"] > 0
    if c.demo_goal_kinds:
      keep = keep & jnp.isin(env.unwrapped.goal_kind(segments["goal"][:, 0]), self.demo_kind_ids)
    return kept_first(buf, keep)

  # --- collection --------------------------------------------------------------------------------
  @staticmethod
  def goal_step(obs, action, next_obs, flags):
    """One stored step of a goal env (the fields of `segment_example`) from the goal observations before
    and after it, the action [N, A] and its {done, truncation} flags [N]."""
    return {
      "obs": obs["observation"],
      "goal": obs["desired_goal"],
      "action": action,
      "next_obs": next_obs["observation"],
      "next_ag": next_obs["achieved_goal"],
      **flags,
      "valid": jnp.ones_like(flags["done"]),
    }

  def with_random_actions(self, action, k_coin, k_rand):
    """`action` [N, A], replaced by a uniform random action with probability random_eps per row."""
    rand = jax.random.uniform(k_rand, action.shape, minval=-1.0, maxval=1.0)
    coin = jax.random.uniform(k_coin, action.shape[:-1] + (1,)) < self.config.random_eps
    return jnp.where(coin, rand, action)

  def rollout(self, ts: TrainState, key):
    """unroll_length exploration steps of every env -> (env_state, segments [N, L, ...], stats)."""

    def body(env_state, k):
      obs = env_state.obs
      action = self.explore(ts.params, ts.obs_norm, obs, k)
      nxt = self.env.step(env_state, action)
      final = nxt.info["final_obs"]
      flags = {"done": nxt.done, "truncation": nxt.info["truncation"]}
      if self.goal_env:
        step = self.goal_step(obs, action, final, flags)
      else:
        step = {"obs": obs, "action": action, "reward": nxt.reward, "next_obs": final, **flags}
        step["valid"] = jnp.ones_like(nxt.done)
      return nxt, (step, episodes.step_stats(nxt))

    keys = jax.random.split(key, self.config.unroll_length)
    env_state, (steps, stats) = jax.lax.scan(body, ts.env_state, keys)
    return env_state, jax.tree.map(lambda x: jnp.swapaxes(x, 0, 1), steps), stats

  def update_normalizer(self, obs_norm, seg, key):
    """Folds the new data into the statistics with HER-relabelled goals, as baselines does (a plain
    env: its observations)."""
    if not self.goal_env:
      return N.update(obs_norm, seg["obs"], std_min=self.config.obs_std_min)
    goals, _ = relabel.relabel_all(
      key, seg["next_ag"], seg["done"], seg["valid"], seg["goal"], self.config.replay_strategy, self.p
    )
    return N.update(obs_norm, self._inputs(seg["obs"], goals), std_min=self.config.obs_std_min)

  # --- learning ----------------------------------------------------------------------------------
  def sample(self, buf: replay.SegmentBuffer, key, demos: replay.SegmentBuffer | None = None):
    """A relabelled batch: dict of [batch_size, ...] with obs, goal, action, reward, next_obs, discount,
    age (cycles since collection), relabelled (1 where HER replaced the goal) and demo (1 on the rows
    drawn from `demos`, the last demo_batch_size; their age is the agent rows' mean, so that staleness
    stays the agent's data's)."""
    c = self.config
    if demos is None or not c.demo_batch_size:
      return {**self._draw(buf, key, c.batch_size), "demo": jnp.zeros((c.batch_size,), jnp.float32)}
    k_own, k_demo = jax.random.split(key)
    own = self._draw(buf, k_own, c.batch_size - c.demo_batch_size)
    demo = self._draw(demos, k_demo, c.demo_batch_size)
    demo["age"] = jnp.full_like(demo["age"], jnp.mean(own["age"]))
    batch = jax.tree.map(lambda a, b: jnp.concatenate([a, b]), own, demo)
    flag = jnp.arange(c.batch_size) >= c.batch_size - c.demo_batch_size
    return {**batch, "demo": flag.astype(jnp.float32)}

  def _draw(self, buf: replay.SegmentBuffer, key, n: int):
    """`n` relabelled transitions of `buf` (see `sample`), without the demo flag."""
    c = self.config
    k_slot, k_t, k_her = jax.random.split(key, 3)
    slots = replay.sample_slots(buf, k_slot, n)
    valid = buf.data["valid"][slots]
    t = jax.random.categorical(k_t, jnp.where(valid > 0, 0.0, -jnp.inf), axis=1)
    tr = jax.tree.map(lambda x: x[slots, t], buf.data)
    if self.goal_env:
      seg = {k: buf.data[k][slots] for k in ("next_ag", "done")}
      goal, relabelled = relabel.relabel(
        k_her, seg["next_ag"], seg["done"], valid, t, tr["goal"], c.replay_strategy, self.p
      )
      reward = self.raw_env.compute_reward(tr["next_ag"], goal, {})
    else:  # the stored reward; an empty goal, so that losses concatenate obs and goal as for a goal env
      goal, reward, relabelled = jnp.zeros((n, 0), tr["obs"].dtype), tr["reward"], jnp.zeros((n,), bool)
    discount = 1.0 - tr["done"] * (1.0 - tr["truncation"])  # bootstrap unless terminated
    # Staleness: how many cycles (parameter versions) ago each sampled segment was collected; each
    # cycle writes num_envs segments just before the insert position.
    age = ((buf.insert - 1 - slots) % buf.num_segments) // c.num_envs
    return {
      "obs": tr["obs"],
      "goal": goal,
      "action": tr["action"],
      "reward": reward,
      "next_obs": tr["next_obs"],
      "discount": discount,
      "age": age.astype(jnp.float32),
      "relabelled": relabelled.astype(jnp.float32),
    }

  def sample_many(self, buf: replay.SegmentBuffer, key, demos: replay.SegmentBuffer | None = None):
    """grad_batches independent `sample`s, stacked: leaves [grad_batches, batch_size, ...]."""
    k = self.config.grad_batches
    if k == 1:  # the key as one batch would use it: one batch per step draws what it always drew
      return jax.tree.map(lambda x: x[None], self.sample(buf, key, demos))
    return jax.vmap(lambda kk: self.sample(buf, kk, demos))(jax.random.split(key, k))

  def mean_grads(self, params, target, obs_norm, batches, env_steps=0):
    """`grads` averaged over the leading axis of `batches` ([k, batch, ...]): baselines' average over k
    workers. A scan holds one batch's activations at a time; every loss is a batch mean, so this equals
    the gradient of the k batches concatenated. env_steps: the run's env steps so far (schedules)."""
    k = jax.tree.leaves(batches)[0].shape[0]
    grads = functools.partial(self.grads, env_steps=env_steps)
    if k == 1:
      return grads(params, target, obs_norm, jax.tree.map(lambda x: x[0], batches))

    def body(acc, b):
      return jax.tree.map(jnp.add, acc, grads(params, target, obs_norm, b)), None

    first = jax.tree.map(lambda x: x[0], batches)
    zeros = jax.tree.map(
      lambda s: jnp.zeros(s.shape, s.dtype), jax.eval_shape(grads, params, target, obs_norm, first)
    )
    total, _ = jax.lax.scan(body, zeros, batches)
    return jax.tree.map(lambda x: x / k, total)

  def update(self, params, opt_state, target, obs_norm, batches, env_steps=0):
    """One gradient step on `batches` (leaves [grad_batches, batch_size, ...], `sample_many`): every
    part of params steps with its own optimiser on the averaged `grads` -> (params, opt_state, metrics)."""
    grads, info = self.mean_grads(params, target, obs_norm, batches, env_steps)
    new_params, new_opt = dict(params), dict(opt_state)
    for name, opt in self.opts.items():
      u, new_opt[name] = opt.update(grads[name], opt_state[name], params[name])
      new_params[name] = optax.apply_updates(params[name], u)
    return new_params, new_opt, info

  def train_step(self, ts: TrainState):
    """One cycle: collect, insert, normaliser update, updates_per_cycle updates, target update (or one
    after every update: `polyak_every_update`)."""
    c = self.config
    key, k_roll, k_norm, k_upd = jax.random.split(ts.key, 4)
    env_state, seg, stats = self.rollout(ts, k_roll)
    buffer = replay.add(ts.buffer, seg)
    obs_norm = self.update_normalizer(ts.obs_norm, seg, k_norm)
    env_steps = (ts.updates + 1) * (c.num_envs * c.unroll_length)  # this cycle's included

    def update(carry, k):
      params, opt_state, target = carry
      batches = self.sample_many(buffer, k, ts.demos)
      params, opt_state, info = self.update(params, opt_state, target, obs_norm, batches, env_steps)
      if c.polyak_every_update:
        target = optax.incremental_update(self.target_params(params), target, 1.0 - c.polyak)
      return (params, opt_state, target), info

    (params, opt_state, target), info = jax.lax.scan(
      update, (ts.params, ts.opt_state, ts.target), jax.random.split(k_upd, c.updates_per_cycle)
    )
    if not c.polyak_every_update:
      target = optax.incremental_update(self.target_params(params), target, 1.0 - c.polyak)
    metrics = {k: jnp.mean(v) for k, v in info.items()}
    metrics.update(episodes.summarize(stats, getattr(self.raw_env, "task_names", ())))
    # Sample reuse: the gradient steps a transition takes part in over its life in the buffer (expected,
    # once the buffer is full: batch_size x grad_batches sampled per update, of the cycle's new ones).
    reuse = c.batch_size * c.grad_batches * c.updates_per_cycle / (c.num_envs * c.unroll_length)
    metrics.update(episodes.data_quality(reuse, metrics.pop("data/staleness")))
    ts = ts.replace(
      params=params,
      target=target,
      opt_state=opt_state,
      obs_norm=obs_norm,
      buffer=buffer,
      env_state=env_state,
      key=key,
      updates=ts.updates + 1,
    )
    return ts, metrics

  def train_many(self, ts: TrainState, num_updates: int):
    """`num_updates` cycles in one scan; metrics averaged as in PPO."""
    ts, m = jax.lax.scan(lambda t, _: self.train_step(t), ts, (), num_updates)
    return ts, episodes.average_chunk(m)

  def train(self, key):
    """The whole run as one pure function: jit it, vmap it over seeds."""
    return self.train_many(self.init(key), self.config.num_updates)

  # --- evaluation, checkpoints -------------------------------------------------------------------
  def evaluate(self, params, obs_norm, key, num_envs: int | None = None):
    """The deterministic policy on fresh envs, one episode each -> {eval/success_rate, ...}."""
    n = int(num_envs or self.config.num_eval_envs)
    return evaluate_policy(
      self.raw_env, self.episode_length, self.flatten, self.policy(params, obs_norm), key, n
    )

  def checkpoint_view(self, ts: TrainState) -> TrainState:
    """What a checkpoint holds: everything, or everything but the replay buffer."""
    return ts if self.config.checkpoint_buffer else ts.replace(buffer=None, demos=None)

  def recollect_demos(self, ts: TrainState) -> TrainState:
    """`ts` with the demonstrations this config asks for, collected from its key (None without demos)."""
    return ts.replace(demos=jax.jit(self.collect_demos)(ts.key) if self.config.demo_episodes else None)

  def from_checkpoint(self, restored: TrainState) -> TrainState:
    """A restored state made whole: an empty replay buffer where the checkpoint left it out, and the
    demonstrations collected afresh (from the state's key) where they were left out with it."""
    if restored.buffer is None:
      restored = restored.replace(buffer=self.empty_buffer())
    if self.config.demo_episodes and restored.demos is None:
      restored = restored.replace(demos=jax.jit(self.collect_demos)(restored.key))
    return restored


class DDPG(HERLearner):
  """The compiled pieces of one DDPG+HER setup (see the module docstring)."""

  def __init__(self, env, config: DDPGConfig):
    super().__init__(env, config)
    self.actor = Actor(env.action_size, tuple(config.hidden))
    self.critic = Critic(tuple(config.hidden))
    self.opts = {"actor": self.make_opt(config.actor_lr), "critic": self.make_opt(config.critic_lr)}

  def init_params(self, k_a, k_c, feats):
    """{"actor", "critic"} variables for one (unbatched) feature vector `feats` [F]."""
    action = jnp.zeros((self.action_size,))
    return {"actor": self.actor.init(k_a, feats), "critic": self.critic.init(k_c, feats, action)}

  def explore(self, params, obs_norm, obs, key):
    """Baselines' exploration: tanh policy + N(0, noise_eps) noise, clipped; with probability
    random_eps a uniform random action instead. obs: dict with leaves [N, ...] -> [N, A]."""
    k_noise, k_coin, k_rand = jax.random.split(key, 3)
    mu = self.actor.apply(params["actor"], self.normalize(obs_norm, self.features(obs)))
    a = jnp.clip(mu + self.config.noise_eps * jax.random.normal(k_noise, mu.shape), -1.0, 1.0)
    return self.with_random_actions(a, k_coin, k_rand)

  def grads(self, params, target, obs_norm, b, env_steps=0):
    """Gradients of the critic's TD loss and the actor's loss on one relabelled batch `b` (leaves
    [batch, ...], see `sample`) after `env_steps` env steps (the cloning schedule) -> ({"actor",
    "critic"} gradients, scalar metrics)."""
    c = self.config
    feats = self._feats(obs_norm, b["obs"], b["goal"])
    next_feats = self._feats(obs_norm, b["next_obs"], b["goal"])
    next_q = self.critic.apply(target["critic"], next_feats, self.actor.apply(target["actor"], next_feats))
    y = b["reward"] + c.gamma * b["discount"] * next_q
    if c.clip_target:
      y = jnp.clip(y, -1.0 / (1.0 - c.gamma), 0.0)
    y = jax.lax.stop_gradient(y)

    def critic_loss(cp):
      q = self.critic.apply(cp, feats, b["action"])
      return jnp.mean((q - y) ** 2), q

    (lc, q), g_c = jax.value_and_grad(critic_loss, has_aux=True)(params["critic"])

    def actor_loss(ap):
      pi = self.actor.apply(ap, feats)
      q_pi = self.critic.apply(params["critic"], feats, pi)
      loss = -jnp.mean(q_pi) + c.action_l2 * jnp.mean(pi**2)
      if c.bc_weight <= 0:
        return loss, (jnp.zeros(()), jnp.zeros_like(q_pi))
      # q is Q(s, a_demo) from the critic's loss, q_pi is Q(s, pi(s)): no extra forward pass.
      bc, clone = q_filtered_cloning(c, pi, b, q, q_pi)
      return loss + c.bc_weight * c.bc_scale(env_steps) * bc, (bc, clone)

    (la, (bc, clone)), g_a = jax.value_and_grad(actor_loss, has_aux=True)(params["actor"])
    info = {
      "loss/critic": lc,
      "loss/actor": la,
      "q/mean": jnp.mean(q),
      "q/target": jnp.mean(y),
      "train/relabelled_reward": jnp.mean(b["reward"]),
      "data/staleness": jnp.mean(b["age"]),
    }
    info.update(cloning_info(c, b, bc, clone, env_steps))
    return {"actor": g_a, "critic": g_c}, info

  def policy(self, params, obs_norm, deterministic: bool = True):
    """act(obs, key) -> action for dict or flattened goal observations (single or batched); the
    exploration noise is applied when not deterministic."""

    def act(obs, key):
      mu = self.actor.apply(params["actor"], self.normalize(obs_norm, self.features(obs)))
      if deterministic:
        return mu
      return jnp.clip(mu + self.config.noise_eps * jax.random.normal(key, mu.shape), -1.0, 1.0)

    return act


def make_train(env, config: DDPGConfig | None = None) -> DDPG:
  """Builds the DDPG+HER pieces for a raw goal env (see the module docstring)."""
  return DDPG(env, config or DDPGConfig())
