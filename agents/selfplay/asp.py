"""Asymmetric self-play (Alice sets goals, Bob reaches them) with Alice Behavioral Cloning, as one
compiled training step (SPEC section 1).

`train_step(ts) -> (ts, metrics)`:
  1. runs `num_envs` game slots of `mjx_envs` `BlocksSelfPlay` for `unroll_length` steps (a scan;
     default: the longest game). A finished game is replaced at once by a fresh one, so no slot idles
     after an early end (most early games end on Alice's first, invalid, goal). Each slot draws, with
     the probabilities that make `past_opponent_prob` of each agent's training games face a past
     opponent, a past Bob (for Alice) or a past Alice (for Bob) from the snapshot pool kept in the
     train state;
  2. builds Alice's PPO batch (her steps; her reward is credited to the last step of the turn that set
     the goal; a game is her episode) and Bob's (his steps; every turn is an episode), see
     `agent_steps`. Truncations: Bob's last step of the unroll (unless it ended his turn) and his step on
     which the physics diverged bootstrap on their value; Alice's turn whose outcome is unknown (the
     unroll ended, or the physics diverged, first) only lends its first value to her previous turn and is
     not trained on. A divergence is never an outcome;
  3. builds the ABC demonstrations: Alice's steps of goals Bob failed (or, without the filter, of every
     valid goal), relabelled with the goal her turn produced, scored by Bob's behaviour policy; games
     against a past Bob give none (`past_bob_demos=True` keeps them: "Bob failed" there is the old Bob);
  4. runs `update_epochs` x `num_minibatches` updates of both agents:
     L_Alice = L_PPO, L_Bob = L_PPO + abc_coef * L_abc (agents.losses.bc_loss, which PPO's hindsight term
     also uses). Values, behaviour log-probs and the loss all use the observation statistics the rollout
     acted with, so every ratio is exactly 1 before the first gradient step (`loss/*_ratio_dev_first`);
     the statistics updated with this batch serve the next rollout;
  5. scores the pool's opponents by the games just played and, every `pool_every` steps, snapshots both
     policies into the pool (agents.league.opponent_pool).

Opponents (OpenAI Five's rule): each agent's past selves sit in a quality-scored pool
(`agents.league.opponent_pool`); a past opponent i is drawn with probability proportional to exp(q_i), and each
game the current agent wins against it lowers q_i by eta / (N p_i), so opponents it has mastered are
drawn less. "Wins" (`game_outcomes`): Alice wins a game when Bob fails one of its goals; Bob wins it
otherwise (he reached every valid goal, or Alice set none); a game cut by diverged physics has no
outcome. `opponent_sampling="uniform"` draws the filled slots uniformly (the rule before 2026-11-24).

Memory (`lstm_size` > 0; the paper's policies have an LSTM, B.4; on in `asp_blocks`): policy and value
nets each get an LSTM cell after the torso. Games start inside `play`, so every unroll starts at zero
state and nothing is stored between train steps. Each agent's state advances on its own steps only (the
other's turn leaves it as it was) and is zeroed when the game ends, so it lasts the game: Alice's spans
her turns, and Bob's spans his turns, the goals of one game, which is how his multi-goal game is visible
to him. At a turn boundary the learner keeps the state but ends the episode: Bob's returns and GAE stop
at his turn's end (each goal is its own task, paid on its own), Alice's at the game's end. The losses
re-run both nets over the whole [T, G] unroll of their minibatch's games (`unroll`, backpropagating
through the unroll; minibatches split games, never time), so the behaviour log-probs are reproduced
exactly. ABC's demonstrations reach Bob as his own episodes: his state starts at zero with each of
Alice's turns and advances over her steps, relabelled with her turn's goal. Holdout episodes start Bob
at zero and keep his state over all their goals. Both agents also see `steps_left`, the fraction of their
turn still to come (the env's `steps_left_obs`), as Alice's reward depends on where the blocks are
when her turn ends.

ABC's form (`abc_form`, agents.ppo.losses): "min" = -min(r, 1 + eps), PPO's clipped surrogate at advantage 1 as
the paper's text describes it (default), or "clip" = -clip(r, 1 - eps, 1 + eps) as its equation writes it
(ours before 2026-11-23; no gradient once r < 1 - eps). The measured comparison is in BENCHMARKS.md
("ABC's form: `min` against `clip`").

Bob's hindsight (`bob_hindsight` > 0; not in the paper, off by default): each turn Bob failed, but in
which he still moved the blocks to a valid goal (Alice's rule: moved, none off the table; the game's
`bob_relabel` event), is relabelled with the poses he left them in (`bob_achieved`), which it reaches by
construction, and cloned with ABC's loss and form at weight `bob_hindsight`: HER's relabelling for an
on-policy learner, as ABC relabels Alice's turns. It aims at a Bob who does not follow the goal he is shown
(BENCHMARKS.md, "Bob's turn at the paper's 200 steps per object"): every turn teaches where his actions
take the blocks. Measured (BENCHMARKS.md, "Bob's hindsight"; one seed, w = 0.5, asp_blocks_cpu, 14.2M env
steps): Bob 0.4-1.0 points ahead on Alice's goals to 5.8M, 0.1-1.1 behind after 7.2M, push-1 no higher
(0.05-0.06 on 512 episodes); he moves the block further, not nearer his goal. Hence off by default.

Ablations: `abc=False` (no ABC), `abc_clip=None` (no clipping: plain behavioural cloning, -log pi),
`demo_filter=False`, `past_bob_demos=True`, and a single goal per game through the env's `max_goals=1`.
"""

from __future__ import annotations

from mjx_envs import wrappers
from mjx_envs.blocks import env as block_env
from mjx_envs.blocks import selfplay as game

import dataclasses
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import optax
from brax.training.acme import running_statistics as rs
from flax import struct

from agents.common import distributions as D
from agents.common import episodes, optim
from agents.common import normalize as N
from agents.common.networks import PolicyNet, ValueNet, next_carry, zero_carry
from agents.league import opponent_pool
from agents.ppo import losses
from agents.ppo.losses import clipped_surrogate, masked_mean, value_loss
from agents.selfplay import holdout

AGENTS = ("alice", "bob")
SAMPLING = opponent_pool.SAMPLING
_GOAL_KEYS = ("achieved_goal", "desired_goal")


@dataclasses.dataclass(frozen=True)
class ASPConfig(episodes.StepBudget):
  num_envs: int = 64  # games per train step
  unroll_length: int = 0  # steps per slot per train step; 0: the longest game
  total_env_steps: int = 20_000_000
  num_minibatches: int = 4
  update_epochs: int = 3  # "sample reuse" of Table 2
  learning_rate: float = 3e-4
  lr_schedule: str = "constant"  # agents.common.optim SCHEDULES, over gradient steps
  lr_end_frac: float = 0.0  # where "linear"/"cosine" end, as a fraction of learning_rate
  gamma: float = 0.998
  gae_lambda: float = 0.95
  clip_eps: float = 0.2
  vf_coef: float = 1.0
  ent_coef: float = 0.01
  ent_schedule: str = "constant"  # over train steps, to ent_coef_end ("entropy 0.01 annealed")
  ent_coef_end: float = 0.0
  max_grad_norm: float = 0.5
  grad_clip_sqrt_v: float = 0.0  # >0: per-parameter clip to +-this x sqrt(v) (OpenAI Five: 5)
  obs_clip: float = 5.0
  hidden: Sequence[int] = (256, 256)
  lstm_size: int = 0  # >0: policy and value nets get an LSTM core of this width (module docstring)
  abc: bool = True
  abc_coef: float = 0.5
  abc_clip: float | None = 0.2  # None: the no-clipping ablation, i.e. abc_form="nll"
  abc_form: str = "min"  # agents.ppo.losses FORMS: "min" (the paper's text), "clip" (its equation),
  # "nll" (plain behavioural cloning); see the module docstring
  demo_filter: bool = True  # False: every valid Alice goal is a demonstration
  past_bob_demos: bool = False  # True: also Alice's goals from games against a past Bob
  bob_hindsight: float = 0.0  # >0: Bob's failed turns relabelled with where he left the blocks, cloned
  # with ABC's loss at this weight (not in the paper; see the module docstring)
  past_opponent_prob: float = 0.2  # of each agent's training games
  pool_size: int = 8
  pool_every: int = 10  # train steps between snapshots
  opponent_sampling: str = "quality"  # "quality": p_i ~ exp(q_i) (OpenAI Five); "uniform": the old rule
  pool_eta: float = opponent_pool.ETA  # the quality scores' learning rate
  holdout_tasks: Sequence[str] = holdout.DEFAULT_TASKS
  holdout_max_goals: int = 5
  num_eval_envs: int = 32  # holdout episodes per task

  def __post_init__(self):
    if self.num_envs % self.num_minibatches:
      raise ValueError(
        f"num_envs ({self.num_envs}) must be divisible by num_minibatches ({self.num_minibatches})"
      )
    if not self.bob_hindsight >= 0.0:
      raise ValueError(f"bob_hindsight must be >= 0 (0: off), got {self.bob_hindsight}")
    if not 0.0 <= self.past_opponent_prob < 1.0:
      raise ValueError(f"past_opponent_prob must be in [0, 1), got {self.past_opponent_prob}")
    for t in self.holdout_tasks:
      holdout.parse_task(t)
    if self.abc_form not in losses.FORMS:
      raise ValueError(f"abc_form must be one of {losses.FORMS}, got {self.abc_form!r}")
    for name in ("lr_schedule", "ent_schedule"):
      if getattr(self, name) not in optim.SCHEDULES:
        raise ValueError(f"{name} must be one of {optim.SCHEDULES}, got {getattr(self, name)!r}")
    if self.opponent_sampling not in SAMPLING:
      raise ValueError(f"opponent_sampling must be one of {SAMPLING}, got {self.opponent_sampling!r}")

  @property
  def bc_form(self) -> str:
    """The ABC loss's form: abc_clip=None is the no-clipping ablation, plain behavioural cloning."""
    return "nll" if self.abc_clip is None else self.abc_form

  @property
  def game_past_prob(self) -> float:
    """P(a game uses a past Alice) = P(past Bob) = q / (1 + q): then among the games where an agent is
    current (and learns), a fraction q faces a past opponent."""
    q = self.past_opponent_prob
    return q / (1.0 + q)


@struct.dataclass
class AgentState:
  params: Any  # {"policy", "value"}
  opt_state: Any
  obs_norm: rs.RunningStatisticsState


@struct.dataclass
class TrainState:
  agents: Any  # {"alice": AgentState, "bob": AgentState}
  pool: Any  # {"alice"/"bob": opponent_pool.Pool of {"policy": params, "obs_norm": ...}}
  key: jax.Array
  updates: jax.Array

  @property
  def params(self):
    return {a: self.agents[a].params for a in AGENTS}

  @property
  def obs_norm(self):
    return {a: self.agents[a].obs_norm for a in AGENTS}


def alice_view(obs):
  """Alice sees no goal."""
  return {k: v for k, v in obs.items() if k not in _GOAL_KEYS + ("observation",)}


def masked_gae(rewards, values, mask, terminal, gamma: float, lam: float, truncated=None):
  """GAE over one agent's own steps in an interleaved [T, N] timeline.

  mask[t] = 1 on the agent's steps. Rewards on other steps are credited to the agent's previous step
  (so Alice's reward, known when Bob's turn ends, lands on the last step of her turn). terminal[t] = 1
  ends the agent's episode with step t (on its own steps or not): later rewards and values belong to
  the next episode. truncated[t] = 1 on an own step whose outcome is unknown: it gets no advantage and
  only lends its value to the previous own step as a bootstrap. The timeline's end is terminal.
  Returns (advantages, returns), 0 off the mask and on truncated steps.
  """
  truncated = jnp.zeros_like(mask) if truncated is None else truncated

  def body(carry, x):
    r, v, m, term, tr = x
    next_v, next_adv, pending = (c * (1.0 - term) for c in carry)
    delta = r + pending + gamma * next_v - v
    adv = delta + gamma * lam * next_adv
    on = m > 0
    boot = on & (tr > 0)
    carry = (
      jnp.where(on, v, next_v),
      jnp.where(boot, 0.0, jnp.where(on, adv, next_adv)),
      jnp.where(on, 0.0, pending + r),
    )
    return carry, jnp.where(on & ~boot, adv, 0.0)

  zero = jnp.zeros_like(rewards[0])
  _, adv = jax.lax.scan(body, (zero, zero, zero), (rewards, values, mask, terminal, truncated), reverse=True)
  return adv, jnp.where((mask > 0) & (truncated <= 0), adv + values, 0.0)


def next_outcome(finished, failed, goal, reset=None):
  """For every step, the outcome of the next goal to finish at or after it, within its game (reverse
  scan over [T, N]; reset[t] = 1 where a game ended at step t, finished or not):
  (has_next [T, N], failed [T, N], goal [T, N, ...])."""
  reset = jnp.zeros_like(finished) if reset is None else reset

  def body(carry, x):
    f, fl, g, rs = x
    expand = lambda c, like: c.reshape(c.shape + (1,) * (like.ndim - c.ndim))
    carry = jax.tree.map(lambda z, old: jnp.where(expand(rs, old) > 0, z, old), init, carry)
    carry = jax.tree.map(
      lambda new, old: jnp.where(expand(f, old) > 0, new, old), (jnp.ones_like(f), fl, g), carry
    )
    return carry, carry

  init = (jnp.zeros_like(finished[0]), jnp.zeros_like(failed[0]), jnp.zeros_like(goal[0]))
  _, out = jax.lax.scan(body, init, (finished, failed, goal, reset), reverse=True)
  return out


def game_outcomes(traj):
  """Games won by each side in every slot of an interleaved [T, G] timeline -> (alice_wins [G],
  bob_wins [G]), float. Alice wins a game when Bob fails one of its goals (a skipped goal counts as
  failed); Bob wins a game that ends otherwise: he reached every valid goal, or Alice set none. Games
  still running at the unroll's end, or cut by diverged physics, have no outcome."""

  def body(carry, x):
    failed_so_far, a, b = carry
    failed, over, diverged = x
    failed_so_far = jnp.maximum(failed_so_far, failed)
    decided = over * (1.0 - diverged)
    return (
      failed_so_far * (1.0 - over),
      a + decided * failed_so_far,
      b + decided * (1.0 - failed_so_far),
    ), None

  zero = jnp.zeros_like(traj["game_over"][0], jnp.float32)
  f = lambda k: traj[k].astype(jnp.float32)
  (_, a, b), _ = jax.lax.scan(body, (zero, zero, zero), (f("goal_failed"), f("game_over"), f("diverged")))
  return a, b


def agent_steps(traj, past_alice, past_bob):
  """Which steps of the interleaved [T, G] timeline each agent learns from, where its episodes end, and
  which of its steps are truncations. -> (mask, terminal, cut): dicts {"alice", "bob"} of [T, G] float.

  mask: the agent's own steps in games where it is the current (learning) agent.
  terminal: Alice's episode is a game (ends at game_over); Bob's is a turn (ends at bob_turn_end or
    game_over).
  cut (truncated, in masked_gae's sense: no advantage, lends its value as a bootstrap): Alice's steps
    whose turn has no outcome, because the unroll ended or the game's physics diverged before Bob's turn
    (or the skip) decided it; Bob's last step of the unroll unless it ended his turn, and his step on
    which the physics diverged. A divergence is a truncation, not an outcome (the game pays nothing on
    it: mjx_envs.blocks.selfplay).
  """
  acted, over, diverged = traj["acted"], traj["game_over"], traj["diverged"]
  mask = {
    "alice": ((acted == game.ALICE) & ~past_alice[None]).astype(jnp.float32),
    "bob": ((acted == game.BOB) & ~past_bob[None]).astype(jnp.float32),
  }
  # What decides each step's turn, looking forward: 1 a real outcome (a goal finished, or the game ended
  # by its rules), 2 a divergence, 0 nothing before the unroll's end.
  real = (traj["goal_finished"] > 0) | ((over > 0) & (diverged <= 0))
  event = jnp.where(real, 1, jnp.where(diverged > 0, 2, 0)).astype(jnp.int32)

  def body(nxt, e):
    k = jnp.where(e > 0, e, nxt)
    return k, k

  _, decided_by = jax.lax.scan(body, jnp.zeros_like(event[0]), event, reverse=True)
  bob_term = jnp.maximum(traj["bob_turn_end"], over)
  cut_bob = jnp.zeros_like(over, bool).at[-1].set((acted[-1] == game.BOB) & (bob_term[-1] <= 0))
  cut = {
    "alice": (acted == game.ALICE) & (decided_by != 1),
    "bob": cut_bob | ((acted == game.BOB) & (diverged > 0)),
  }
  terminal = {"alice": over, "bob": bob_term}
  return mask, terminal, {a: v.astype(jnp.float32) for a, v in cut.items()}


class AsymmetricSelfPlay:
  """The compiled pieces of one self-play setup (see the module docstring)."""

  env_axis_fields = ()

  def __init__(self, env: game.BlocksSelfPlay, config: ASPConfig):
    if not isinstance(env, game.BlocksSelfPlay):
      raise ValueError(f"asymmetric self-play needs the BlocksSelfPlay env, got {type(env).__name__}")
    self.config = c = dataclasses.replace(config, unroll_length=config.unroll_length or env.episode_length)
    self.raw_env = env
    self.env = wrappers.AutoReset(wrappers.Batch(env, c.num_envs), final_info=game.EVENTS)
    bins = env.config["action_bins"]
    if not bins:
      raise ValueError("asymmetric self-play uses the binned action space; set env.action_bins (11)")
    self.recurrent = c.lstm_size > 0
    self.policy_net = PolicyNet(env.action_size, tuple(c.hidden), bins, lstm=c.lstm_size)
    self.value_net = ValueNet(tuple(c.hidden), lstm=c.lstm_size)
    grad_steps = c.num_updates * c.update_epochs * c.num_minibatches
    self.optimizer = optim.make(
      c.learning_rate,
      lr_schedule=c.lr_schedule,
      lr_end=c.learning_rate * c.lr_end_frac,
      steps=grad_steps,
      max_grad_norm=c.max_grad_norm,
      clip_sqrt_v=c.grad_clip_sqrt_v,
    )
    self.ent_coef = optim.schedule(c.ent_coef, c.ent_coef_end, c.ent_schedule, c.num_updates)
    self.uniform_opponents = c.opponent_sampling == "uniform"
    self.holdout_world = dict(env.world.config, action_bins=bins)

  # --- features and heads ------------------------------------------------------------------------
  def features(self, agent: str, obs):
    return N.features(alice_view(obs) if agent == "alice" else obs)

  def _normed(self, norm, feats):
    return N.normalize(norm, feats, self.config.obs_clip)

  def initial_carry(self, batch_shape):
    """The LSTM state (c, h) a game (or a holdout episode) starts from, leaves [*batch_shape, lstm_size]
    (width 0 without an LSTM: the nets pass it through)."""
    return zero_carry(batch_shape, self.config.lstm_size)

  def dist(self, policy_params, norm, feats, carry):
    """One step: (action distribution, next LSTM state)."""
    logits, carry = self.policy_net.apply(policy_params, self._normed(norm, feats), carry)
    return D.MultiCategorical(logits), carry

  def unroll(self, net, params, norm, feats, own, reset):
    """`net` (policy_net or value_net) over an interleaved [T, G] timeline -> its outputs [T, G, ...],
    exactly as `play` computed them: the LSTM state starts at zero, advances only on the agent's own
    steps (own [T, G]) and is zeroed after the steps that end its episode (reset [T, G]). Without an
    LSTM every step stands alone."""
    x = self._normed(norm, feats)
    if not self.recurrent:
      return net.apply(params, x)[0]

    def body(carry, inp):
      f, o, r = inp
      out, new = net.apply(params, f, carry)
      return next_carry(carry, new, r, o), out

    return jax.lax.scan(body, self.initial_carry(own.shape[1:]), (x, own, reset))[1]

  def unroll_dist(self, policy_params, norm, feats, own, reset):
    """The action distributions [T, G] of `unroll` of the policy net."""
    return D.MultiCategorical(self.unroll(self.policy_net, policy_params, norm, feats, own, reset))

  # --- init --------------------------------------------------------------------------------------
  def init(self, key) -> TrainState:
    k_obs, key = jax.random.split(key)
    obs = jax.eval_shape(self.raw_env.reset, k_obs).obs
    agents, pool = {}, {}
    carry = self.initial_carry(())
    for i, a in enumerate(AGENTS):
      one = self.features(a, jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), obs[a]))
      kp, kv = jax.random.split(jax.random.fold_in(key, i))
      params = {"policy": self.policy_net.init(kp, one, carry), "value": self.value_net.init(kv, one, carry)}
      agents[a] = AgentState(params, self.optimizer.init(params), N.init(one))
      pool[a] = opponent_pool.init(
        {"policy": params["policy"], "obs_norm": agents[a].obs_norm}, self.config.pool_size
      )
    return TrainState(agents, pool, jax.random.fold_in(key, 7), jnp.zeros((), jnp.int32))

  # --- opponents ---------------------------------------------------------------------------------
  def no_past_opponents(self):
    """`play`'s opponents for games of the current Alice against the current Bob in every slot (no
    pool draw): (past_alice, past_bob, slots), each [G]."""
    no = jnp.zeros((self.config.num_envs,), bool)
    zero = jnp.zeros((self.config.num_envs,), jnp.int32)
    return (no, no, zero, zero)

  def draw_opponents(self, ts: TrainState, key):
    """Per game: (past_alice [G] bool, past_bob [G] bool, pool slot for each [G]); the slots are drawn
    from each agent's pool by quality (or uniformly, `opponent_sampling`)."""
    G = self.config.num_envs
    p = self.config.game_past_prob
    uniform = self.uniform_opponents
    k_u, k_a, k_b = jax.random.split(key, 3)
    u = jax.random.uniform(k_u, (G,))
    return (
      u < p,
      (u >= p) & (u < 2 * p),
      opponent_pool.sample(ts.pool["alice"], k_a, (G,), uniform),
      opponent_pool.sample(ts.pool["bob"], k_b, (G,), uniform),
    )

  def score_pool(self, ts: TrainState, traj, opp):
    """The pools after the games of `traj`: every game the current agent won against a past opponent
    lowers that opponent's quality (agents.league.opponent_pool.update_quality, with the probabilities it was
    drawn with). -> (pools, metrics)."""
    past_alice, past_bob, idx_a, idx_b = opp
    alice_wins, bob_wins = game_outcomes(traj)
    uniform = self.uniform_opponents
    eta = self.config.pool_eta
    upd = lambda pool, idx, wins: opponent_pool.update_quality(
      pool, idx, wins, eta, opponent_pool.probs(pool, uniform)
    )
    pools = {
      "alice": upd(ts.pool["alice"], idx_a, bob_wins * past_alice),  # the current Bob beat her
      "bob": upd(ts.pool["bob"], idx_b, alice_wins * past_bob),
    }  # the current Alice beat him
    games = alice_wins + bob_wins
    rate = lambda wins, past: jnp.sum(wins * past) / jnp.maximum(jnp.sum(games * past), 1.0)
    m = {
      "opponents/alice_win_rate_vs_past_bob": rate(alice_wins, past_bob),
      "opponents/bob_win_rate_vs_past_alice": rate(bob_wins, past_alice),
      "opponents/alice_win_rate_vs_current": rate(alice_wins, ~past_alice & ~past_bob),
    }
    return pools, m

  def _act(self, ts, agent, past, idx, feats, carry, key):
    """Actions [G, 6] of the current agent, or of its pool snapshot where `past`, their log-probs under
    the current agent, and the next LSTM state (of whichever acted)."""
    cur, cur_carry = self.dist(ts.agents[agent].params["policy"], ts.agents[agent].obs_norm, feats, carry)
    snap = opponent_pool.get(ts.pool[agent], idx)
    old, old_carry = jax.vmap(lambda s, f, cr: self.dist(s["policy"], s["obs_norm"], f, cr))(
      snap, feats, carry
    )
    logits = jnp.where(past[:, None, None], old.logits, cur.logits)
    carry = jax.tree.map(lambda o, n: jnp.where(past[:, None], o, n), old_carry, cur_carry)
    action = D.MultiCategorical(logits).sample(key)
    return action, cur.log_prob(action), carry

  # --- rollout -----------------------------------------------------------------------------------
  def play(self, ts: TrainState, key, opponents=None):
    """`unroll_length` steps of every slot -> (trajectory dict of [T, G, ...], opponents). `opponents`
    (see draw_opponents) defaults to a fresh draw; pass all-False flags to play the current Alice against
    the current Bob. Every slot starts a fresh game, and each agent's LSTM state starts at zero."""
    k_reset, k_opp, k_run = jax.random.split(key, 3)
    opp = self.draw_opponents(ts, k_opp) if opponents is None else opponents
    past_alice, past_bob, idx_a, idx_b = opp
    state = self.env.reset(k_reset)
    carry0 = {a: self.initial_carry((self.config.num_envs,)) for a in AGENTS}

    def body(loop, k):
      state, carry = loop
      ka, kb = jax.random.split(k)
      fa = self.features("alice", state.obs["alice"])
      fb = self.features("bob", state.obs["bob"])
      act_a, lp_a, new_a = self._act(ts, "alice", past_alice, idx_a, fa, carry["alice"], ka)
      act_b, lp_b, new_b = self._act(ts, "bob", past_bob, idx_b, fb, carry["bob"], kb)
      phase = state.info["phase"]
      nxt = self.env.step(state, jnp.where((phase == game.BOB)[:, None], act_b, act_a))
      # Each agent's memory advances on its own steps only and lasts the game: Bob's carries over his
      # turns (the goals of one game), and both start afresh with the next game.
      carry = {
        "alice": next_carry(carry["alice"], new_a, nxt.done, phase == game.ALICE),
        "bob": next_carry(carry["bob"], new_b, nxt.done, phase == game.BOB),
      }
      ev = nxt.info["final"]  # this step's events, kept through an auto-reset
      step = {
        "fa": fa,
        "fb": fb,
        "alice_ag": state.obs["alice"]["achieved_goal"],
        "act_a": act_a,
        "act_b": act_b,
        "lp_a": lp_a,
        "lp_b": lp_b,
        **{k: ev[k] for k in game.EVENTS if k != "out_of_zone"},
        "ooz": ev["out_of_zone"] * ev["goal_valid"],
        "game_over": nxt.done,
        "bad_action": nxt.metrics["bad_action"],
        "diverged": nxt.metrics["diverged"],
      }
      return (nxt, carry), step

    _, traj = jax.lax.scan(body, (state, carry0), jax.random.split(k_run, self.config.unroll_length))
    return traj, opp

  # --- batches -----------------------------------------------------------------------------------
  def batches(self, ts: TrainState, traj, opp):
    """GAE for both agents and the ABC demonstrations, under the observation statistics the rollout
    acted with (so each PPO ratio is exactly 1 before the first gradient step), and the statistics
    updated with this batch, for the next rollout. -> (data, new norms)."""
    c = self.config
    past_alice, past_bob, _, _ = opp
    mask, terminal, cut = agent_steps(traj, past_alice, past_bob)
    feats = {"alice": traj["fa"], "bob": traj["fb"]}
    # Where each agent's LSTM state advances (its own steps) and where it restarts (after a game).
    own = {a: (traj["acted"] == code).astype(jnp.float32) for a, code in zip(AGENTS, (game.ALICE, game.BOB))}
    over = traj["game_over"]
    norms = ts.obs_norm
    new_norms = {a: N.update(norms[a], feats[a], weights=mask[a]) for a in AGENTS}
    values = {
      a: self.unroll(self.value_net, ts.agents[a].params["value"], norms[a], feats[a], own[a], over)
      for a in AGENTS
    }
    adv_a, ret_a = masked_gae(
      traj["alice_reward"],
      values["alice"],
      mask["alice"],
      terminal["alice"],
      c.gamma,
      c.gae_lambda,
      cut["alice"],
    )
    adv_b, ret_b = masked_gae(
      traj["bob_reward"], values["bob"], mask["bob"], terminal["bob"], c.gamma, c.gae_lambda, cut["bob"]
    )
    mask = {a: mask[a] * (1.0 - cut[a]) for a in AGENTS}
    # ABC: Alice's steps, relabelled with the goal her turn set, if Bob failed it (or always, unfiltered).
    # A past Bob's failure says nothing about the current Bob: those games give none unless asked.
    has_next, failed, goal = next_outcome(
      traj["goal_finished"], traj["goal_failed"], traj["goal"], traj["game_over"]
    )
    keep = failed if c.demo_filter else jnp.ones_like(failed)
    if not c.past_bob_demos:
      keep = keep * ~past_bob[None]
    demo_mask = (traj["acted"] == game.ALICE) * has_next * keep
    demo_obs = {**traj["fa"], "achieved_goal": traj["alice_ag"], "desired_goal": goal}
    if self.raw_env.config["steps_left_obs"]:
      # Alice's clock in Bob's units: as if Bob had spent the steps of her turn so far on this goal. (N.features
      # put steps_left last in `robot`.)
      cfg = self.raw_env.config
      spent = (1.0 - traj["fa"]["robot"][..., -1]) * cfg["alice_steps"]
      demo_obs["robot"] = traj["fa"]["robot"].at[..., -1].set(1.0 - spent / self.raw_env.bob_steps)
    # With an LSTM, Bob reads each of Alice's turns as a fresh episode of his own: his state starts at
    # zero with her turn and advances over her steps.
    demo_seq = {"own": own["alice"], "reset": jnp.maximum(traj["alice_turn_end"], over)}
    data = {
      "alice": {
        "feats": feats["alice"],
        "action": traj["act_a"],
        "old_lp": traj["lp_a"],
        "adv": adv_a,
        "ret": ret_a,
        "old_v": values["alice"],
        "mask": mask["alice"],
        "own": own["alice"],
        "reset": over,
      },
      "bob": {
        "feats": feats["bob"],
        "action": traj["act_b"],
        "old_lp": traj["lp_b"],
        "adv": adv_b,
        "ret": ret_b,
        "old_v": values["bob"],
        "mask": mask["bob"],
        "own": own["bob"],
        "reset": over,
      },
      "demo": self.demo_batch(ts, norms, demo_obs, traj["act_a"], demo_mask, **demo_seq),
    }
    if c.bob_hindsight > 0:
      data["hindsight"] = self.hindsight_demos(ts, traj, norms, own["bob"], over)
    return data, new_norms

  def demo_batch(self, ts: TrainState, norms, obs, action, mask, own, reset):
    """Demonstrations for Bob's cloning losses (ABC's, hindsight's), [T, G]: `obs` in his input format
    with the relabelled goal, the demonstrated actions, and their log-probs under the current Bob and the
    rollout's statistics (the clip's reference ratio)."""
    feats = N.features(obs)
    old = self.unroll_dist(ts.agents["bob"].params["policy"], norms["bob"], feats, own, reset)
    return {
      "feats": feats,
      "action": action,
      "old_lp": jax.lax.stop_gradient(old.log_prob(action)),
      "mask": mask.astype(jnp.float32),
      "own": own,
      "reset": reset,
    }

  def hindsight_demos(self, ts: TrainState, traj, norms, own_bob, over):
    """Bob's own steps of the turns he failed but left at a valid goal, relabelled with that goal (the
    module docstring). -> demo_batch's [T, G] batch. A past Bob's turns count too: a turn that reached a
    goal demonstrates it, whoever played it (its log-probs are the current Bob's)."""
    has_end, keep, final = next_outcome(
      traj["bob_turn_end"], traj["bob_relabel"], traj["bob_achieved"], traj["game_over"]
    )
    fb = traj["fb"]
    objects = fb["objects"][..., : -block_env.GOAL_FEATURES]  # his inputs without the goal's
    # A block row starts with its pose (position, quaternion): the achieved goal's row.
    obs = {**fb, "objects": objects, "achieved_goal": objects[..., : final.shape[-1]], "desired_goal": final}
    # Each relabelled turn is an episode of its own: the state starts at zero with it, as in ABC's.
    reset = jnp.maximum(traj["bob_turn_end"], over)
    return self.demo_batch(
      ts, norms, obs, traj["act_b"], (traj["acted"] == game.BOB) * has_end * keep, own_bob, reset
    )

  # --- losses ------------------------------------------------------------------------------------
  def agent_loss(self, params, norm, d, ent_coef):
    c = self.config
    seq = (d["own"], d["reset"])
    dist = self.unroll_dist(params["policy"], norm, d["feats"], *seq)
    lp = dist.log_prob(d["action"])
    m = d["mask"]
    mean = masked_mean(d["adv"], m)
    std = jnp.sqrt(masked_mean((d["adv"] - mean) ** 2, m))
    adv = (d["adv"] - mean) / (std + 1e-8)
    pg, clip_frac = clipped_surrogate(lp, d["old_lp"], adv, c.clip_eps, m)
    v = value_loss(
      self.unroll(self.value_net, params["value"], norm, d["feats"], *seq), d["old_v"], d["ret"], None, m
    )
    ent = masked_mean(dist.entropy(), m)
    # |ratio - 1| at its largest: 0 up to float noise (~1e-6) on the first minibatch, where behaviour and
    # loss use the same parameters and observation statistics.
    ratio_dev = jnp.max(jnp.abs(jnp.exp(lp - d["old_lp"]) - 1.0) * m)
    return pg + c.vf_coef * v - ent_coef * ent, {
      "policy": pg,
      "value": v,
      "entropy": ent,
      "clip_frac": clip_frac,
      "ratio_dev": ratio_dev,
    }

  def abc_loss(self, bob_params, norm, demo):
    c = self.config
    lp = self.unroll_dist(bob_params["policy"], norm, demo["feats"], demo["own"], demo["reset"]).log_prob(
      demo["action"]
    )
    return losses.bc_loss(lp, demo["old_lp"], c.abc_clip or 0.0, demo["mask"], c.bc_form)

  def loss(self, params, norms, data, ent_coef=None):
    c = self.config
    ent_coef = c.ent_coef if ent_coef is None else ent_coef
    la, ia = self.agent_loss(params["alice"], norms["alice"], data["alice"], ent_coef)
    lb, ib = self.agent_loss(params["bob"], norms["bob"], data["bob"], ent_coef)
    l_abc, abc_clip = self.abc_loss(params["bob"], norms["bob"], data["demo"])
    total = la + lb + (c.abc_coef * l_abc if c.abc else 0.0)
    info = {
      **{f"loss/alice_{k}": v for k, v in ia.items()},
      **{f"loss/bob_{k}": v for k, v in ib.items()},
      "loss/abc": l_abc,
      "abc/clip_frac": abc_clip,
    }
    if c.bob_hindsight > 0:
      l_hs, hs_clip = self.abc_loss(params["bob"], norms["bob"], data["hindsight"])
      total = total + c.bob_hindsight * l_hs
      info.update({"loss/bob_hindsight": l_hs, "hindsight/clip_frac": hs_clip})
    return total, info

  # --- the train step ----------------------------------------------------------------------------
  def train_step(self, ts: TrainState):
    c = self.config
    key, k_play, k_upd = jax.random.split(ts.key, 3)
    traj, opp = self.play(ts, k_play)
    data, new_norms = self.batches(ts, traj, opp)
    norms = ts.obs_norm  # the statistics the rollout acted with (see batches)
    ent_coef = self.ent_coef(ts.updates)
    grad_fn = jax.grad(lambda *a: self.loss(*a, ent_coef=ent_coef), has_aux=True)
    mb = c.num_envs // c.num_minibatches

    def epoch(carry, k):
      perm = jax.random.permutation(k, c.num_envs)

      def split(x):  # [T, G, ...] -> [num_minibatches, T, G / num_minibatches, ...]
        x = jnp.take(x, perm, axis=1)
        return jnp.swapaxes(x.reshape((x.shape[0], c.num_minibatches, mb) + x.shape[2:]), 0, 1)

      def minibatch(carry, b):
        params, opt = carry
        grads, info = grad_fn(params, norms, b)
        new_p, new_o = {}, {}
        for a in AGENTS:
          upd, new_o[a] = self.optimizer.update(grads[a], opt[a], params[a])
          new_p[a] = optax.apply_updates(params[a], upd)
        return (new_p, new_o), info

      return jax.lax.scan(minibatch, carry, jax.tree.map(split, data))

    params0 = {a: ts.agents[a].params for a in AGENTS}
    opt0 = {a: ts.agents[a].opt_state for a in AGENTS}
    (params, opt), info = jax.lax.scan(epoch, (params0, opt0), jax.random.split(k_upd, c.update_epochs))
    agents = {a: AgentState(params[a], opt[a], new_norms[a]) for a in AGENTS}

    # Score the pool by these games, then snapshot both policies into it every `pool_every` steps.
    pool, pool_m = self.score_pool(ts, traj, opp)
    take = (ts.updates + 1) % c.pool_every == 0
    pool = {
      a: opponent_pool.add(
        pool[a], {"policy": params[a]["policy"], "obs_norm": new_norms[a]}, ts.updates + 1, take
      )
      for a in AGENTS
    }
    ts = ts.replace(agents=agents, pool=pool, key=key, updates=ts.updates + 1)
    metrics = {k: jnp.mean(v) for k, v in info.items()}
    metrics.update({f"{k}_first": v[0, 0] for k, v in info.items() if k.endswith("ratio_dev")})
    metrics.update(pool_m)
    metrics.update(episodes.data_quality(c.update_epochs, 0.0))  # synchronous: staleness 0
    metrics["train/ent_coef"] = ent_coef
    for a in AGENTS:
      metrics.update(opponent_pool.metrics(pool[a], f"pool/{a}", self.uniform_opponents))
    metrics.update(self.game_metrics(traj, data, opp))
    return ts, metrics

  def game_metrics(self, traj, data, opp):
    s = lambda x: jnp.sum(x)
    goals_set = s(traj["goal_valid"]) + s(traj["goal_invalid"])
    bob_turns = traj["bob_turn_end"]
    out = {
      "alice/valid_goal_rate": s(traj["goal_valid"]) / jnp.maximum(goals_set, 1.0),
      "alice/out_of_zone_rate": s(traj["ooz"]) / jnp.maximum(s(traj["goal_valid"]), 1.0),
      "alice/goal_distance": s(traj["goal_distance"] * traj["goal_valid"])
      / jnp.maximum(s(traj["goal_valid"]), 1.0),
      "alice/reward_per_game": s(traj["alice_reward"]) / jnp.maximum(s(traj["game_over"]), 1.0),
      "bob/success_rate": s(traj["bob_success"]) / jnp.maximum(s(bob_turns), 1.0),
      "abc/demos": s(data["demo"]["mask"]),
      "abc/demo_frac": s(data["demo"]["mask"]) / jnp.maximum(s(traj["acted"] == game.ALICE), 1.0),
      "hindsight/relabelled_turns": s(traj["bob_relabel"]) / jnp.maximum(s(bob_turns), 1.0),
      "opponents/past_alice_frac": jnp.mean(opp[0]),
      "opponents/past_bob_frac": jnp.mean(opp[1]),
      "train/bad_actions": s(traj["bad_action"]),
      "train/physics_resets": s(traj["diverged"]),
    }
    for k in range(self.raw_env.max_goals):
      at_k = bob_turns * (traj["goal_index"] == k)
      out[f"bob/success_goal_{k + 1}"] = s(traj["bob_success"] * at_k) / jnp.maximum(s(at_k), 1.0)
    # For train.py's progress line and episode-weighted averaging.
    games = s(traj["game_over"])
    out.update(
      {
        "train/episodes": games,
        "train/success_rate": out["bob/success_rate"],
        "train/return": out["alice/reward_per_game"],
        "train/episode_length": s(traj["acted"] >= 0) / jnp.maximum(games, 1.0),
      }
    )
    return out

  def train_many(self, ts: TrainState, num_updates: int):
    ts, m = jax.lax.scan(lambda t, _: self.train_step(t), ts, (), num_updates)
    return ts, episodes.average_chunk(m)

  def train(self, key):
    return self.train_many(self.init(key), self.config.num_updates)

  # --- policies and evaluation -------------------------------------------------------------------
  def policy(self, params, obs_norm, deterministic: bool = True, agent: str = "bob"):
    """act(obs, key) -> integer action bins, for Bob (goal obs) or Alice (her view of the world).

    With an LSTM: act(obs, key, carry) -> (action bins, carry), each episode (a game, or a holdout
    episode with all its goals) starting from `act.initial_carry(batch_shape)`."""

    def step(obs, key, carry):
      d, carry = self.dist(params[agent]["policy"], obs_norm[agent], self.features(agent, obs), carry)
      return (d.mode() if deterministic else d.sample(key)), carry

    if self.recurrent:
      step.initial_carry = self.initial_carry
      return step
    return lambda obs, key: step(obs, key, self.initial_carry(()))[0]

  def evaluate(self, params, obs_norm, key, num_envs: int | None = None, **suite):
    """Bob's zero-shot holdout suite (agents.selfplay.holdout); `suite`: evaluation_parts' overrides."""
    parts = self.evaluation_parts(num_envs, **suite)
    return self.combine_evaluation(
      {k: f(params, obs_norm, key) for k, f in parts.items()}, suite.get("tasks")
    )

  def evaluation_parts(
    self,
    num_envs: int | None = None,
    tasks: Sequence[str] | None = None,
    max_goals: int | None = None,
    table_portion: float | None = None,
    steps_per_object: int | None = None,
  ):
    """`evaluate` as independent pieces, {name: fn(params, obs_norm, key) -> metrics}, one per block
    count of the holdout tasks (each its own world and MJX step), for a caller that compiles them in
    parallel (train.py); `combine_evaluation` of their results is `evaluate`'s. Defaults: the config's
    holdout tasks, episodes (num_eval_envs) and goals per episode, the game's table portion (a small one
    has too few placement cells for more blocks: a ConfigError names it before anything compiles) and
    the game's turn budget, Bob's `bob_steps_per_object` (a goal's budget in evaluation; his
    `steps_left` input counts it down as a fraction, as in his turns)."""
    c = self.config
    n_eval = int(num_envs or c.num_eval_envs)
    budget = self.raw_env.config["bob_steps_per_object"] if steps_per_object is None else steps_per_object
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
      raise ValueError(f"steps_per_object must be a positive integer, got {steps_per_object!r}")
    tasks = tuple(tasks or c.holdout_tasks)
    world = dict(self.holdout_world)
    if table_portion is not None:
      world["table_portion"] = float(table_portion)
    for n in holdout.block_counts(tasks):  # a bad task name or world fails here, not inside a trace
      holdout.make_holdout_env(f"push-{n}", world)

    def part(n):
      def fn(params, obs_norm, key):
        return holdout.evaluate_suite_part(
          tasks,
          n,
          world,
          self.policy(params, obs_norm),
          key,
          n_eval,
          budget,
          int(max_goals or c.holdout_max_goals),
          self.raw_env.config["steps_left_obs"],
        )

      return fn

    return {f"evaluate_{n}block": part(n) for n in holdout.block_counts(tasks)}

  def combine_evaluation(self, outs, tasks: Sequence[str] | None = None):
    """`evaluate`'s metrics from the results of `evaluation_parts` ({name: metrics}) for `tasks`
    (default: the config's holdout tasks)."""
    return holdout.combine_suite(tuple(tasks or self.config.holdout_tasks), list(outs.values()))


def make_train(env, config: ASPConfig | None = None) -> AsymmetricSelfPlay:
  return AsymmetricSelfPlay(env, config or ASPConfig())
