"""RL² trials: K episodes of one task, seen by a learner as one long episode.

`Trials(env, episodes=K)` wraps ONE world (it goes inside `Batch`, like `EpisodeLimit`), or an env that
batches natively (Meta-World's padded batch under C physics, `mjx_envs.metaworld.shared`): every array
it keeps leads with that env's own batch axes (those of its `done`). A trial starts
at `reset(key)`: the wrapped env draws its task and goal. Every later episode of the trial restarts the
world from the state the trial began in (kept in `info['trial_start']`), so the task and the goal stay
while the world resets. For Meta-World that is the reference's reset with its goal frozen (a reset is a
deterministic function of the goal vector); an env whose reset adds other noise would repeat the trial's
first draw of it. Keeping the start state costs one more world state per world; recomputing the reset
on every step instead (a `where` under `vmap` runs both branches) made ML1 push steps 3.6x slower on the
CPU (C physics, 8 worlds: 675 against 2,455 steps/s; 2026-11-26).

The learner's `done` is 1 only on the trial's last step: a recurrent policy's state (PPO with
`lstm_size`) carries across the episodes of a trial and is reset between trials; the auto-reset of the
training stack (`mjx_envs.wrappers.AutoReset`) draws a fresh key, hence a fresh task and goal, for the
next trial.

Observation [O + A + 2]: the wrapped env's observation, then RL²'s input: the previous action [A]
(sanitised: non-finite entries 0, clipped to [-1, 1]), the previous reward x `reward_scale` [1] and the
previous step's episode-done [1] (1 on the first step of every episode after the trial's first). At the
start of a trial the three are zeros.

An episode ends after `episode_length` steps (default: the wrapped env's) or when the wrapped env sets
`done`; the trial ends after `episodes` episodes, as a termination (no bootstrap beyond it: nothing of the
task comes after its last episode). A world whose physics diverged ends its trial through
`EpisodeLimit` (`info['diverged']`), as a truncation.

`success_bonus` = b > 0 (default 0: the wrapped env's reward unchanged) adds b to the reward of every step
of an episode from its first success on (the wrapped env's `metrics['is_success']`, success so far), so
the return rewards reaching success sooner, which is what a later episode of a trial can gain. A
shaping outside the benchmarks' protocol, for studying adaptation across episodes: Meta-World's dense
rewards are nearly flat across the success radius (reach: 10 x a long-tailed tolerance of 5 cm), so
without it a return-maximising learner gains little from being inside rather than just outside
(BENCHMARKS.md, "What RL2 adapts on ML1"). The RL² input's previous reward is the shaped one.

`info` adds trial_start (the inner env's State at the trial's start), trial_episode (index of the
current episode, int32), trial_steps (steps into the current episode) and trial_success [K] (per
episode index: its `is_success`, 0 for episodes not run yet).
`metrics['is_success']` is the current episode's own (so on the trial's last step: the last episode's,
success after adaptation), and `metrics['trial/success_first']`, `metrics['trial/success_last']` the first
and the latest episode's, for logs (read them where the trial is done).

Differences from the reference's practice (metaworld 3.1.1 `RNNBasedMetaRLWrapper` and its evaluation):
- The reference appends (action, reward / 10, terminated or truncated) the same way, but its trial is the
  learner's loop: it counts episodes outside the env. Here the trial is the env's episode.
- The reference's `metalearning_evaluation` runs 10 adaptation episodes and then 3 evaluation episodes
  (with terminate-on-success); here success after adaptation is that of a trial's last episode, which
  runs its full length.
"""

from __future__ import annotations

from mjx_envs.core import ConfigError, Env, sanitize_action
from mjx_envs.wrappers import Wrapper

import jax
import jax.numpy as jnp
import numpy as np


class Trials(Wrapper):
  """K episodes of one task as one episode of the learner (see the module docstring)."""

  def __init__(
    self, env: Env, episodes: int, episode_length: int | None = None, reward_scale: float = 0.1,
    success_bonus: float = 0.0,
  ):  # fmt: skip
    super().__init__(env)
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
      raise ConfigError(f"RL² trials: episodes per trial must be an integer >= 1, got {episodes!r}")
    inner = episode_length if episode_length is not None else getattr(env, "episode_length", None)
    if inner is None or int(inner) < 1:
      raise ConfigError(f"RL² trials: the episode length must be >= 1, got {inner!r}")
    self.episodes = int(episodes)
    self.inner_length = int(inner)
    self.episode_length = self.episodes * self.inner_length  # the learner's episode: the whole trial
    self.reward_scale = float(reward_scale)
    bonus = float(success_bonus)
    if not np.isfinite(bonus) or bonus < 0:
      raise ConfigError(f"RL² trials: success_bonus must be a finite number >= 0, got {success_bonus!r}")
    self.success_bonus = bonus

  @property
  def observation_size(self):
    return self.env.observation_size + self.env.action_size + 2

  def _obs(self, obs, action, reward, done):
    extra = [action, (reward * self.reward_scale)[..., None], done[..., None]]
    return jnp.concatenate([obs, *(x.astype(obs.dtype) for x in extra)], -1)

  def reset(self, rng):
    """One key -> the first episode of a trial; obs [..., O + A + 2] with the RL² entries zero."""
    s = self.env.reset(rng)
    shape = jnp.shape(s.done)  # () for one world, the batch's for a natively batched env
    zero = jnp.zeros(shape, jnp.float32)
    info = {
      **s.info,
      "trial_start": s,
      "trial_episode": jnp.zeros(shape, jnp.int32),
      "trial_steps": jnp.zeros(shape, jnp.int32),
      "trial_success": jnp.zeros(shape + (self.episodes,), jnp.float32),
    }
    metrics = {**s.metrics, "trial/success_first": zero, "trial/success_last": zero}
    metrics.setdefault("is_success", zero)
    obs = self._obs(s.obs, jnp.zeros(shape + (self.env.action_size,), s.obs.dtype), zero, zero)
    return s.replace(obs=obs, info=info, metrics=metrics)

  def step(self, state, action):
    """One step; at an episode's end (not the trial's) the world restarts from the trial's key."""
    a = self.env.action_size
    info = state.info
    inner = state.replace(
      obs=state.obs[..., : -(a + 2)],
      info={k: v for k, v in info.items() if not k.startswith("trial_")},
      metrics={k: v for k, v in state.metrics.items() if not k.startswith("trial/")},
    )
    s = self.env.step(inner, action)
    steps = info["trial_steps"] + 1
    ep = info["trial_episode"]
    episode_end = (steps >= self.inner_length) | (s.done > 0)
    success = s.metrics.get("is_success", jnp.zeros(jnp.shape(s.done)))
    slot = jax.nn.one_hot(ep, self.episodes) > 0  # [..., K]: this episode's entry (`.at[ep]` per world)
    trial_success = jnp.where(slot, success[..., None], info["trial_success"])
    trial_done = episode_end & (ep >= self.episodes - 1)
    restart = episode_end & ~trial_done
    fresh = info["trial_start"]

    def pick(new, old):
      return jnp.where(restart.reshape(restart.shape + (1,) * (old.ndim - restart.ndim)), new, old)

    # The next step continues from the fresh world (its state, observation and episode constants); this
    # step's own facts (metrics, divergence) stay the stepped world's.
    nxt = s.replace(
      pipeline_state=jax.tree.map(pick, fresh.pipeline_state, s.pipeline_state),
      obs=pick(fresh.obs, s.obs),
      info={
        **s.info,
        **jax.tree.map(
          pick,
          {k: fresh.info[k] for k in s.info if k in fresh.info},
          {k: s.info[k] for k in s.info if k in fresh.info},
        ),
      },
    )
    if "diverged" in s.info:
      nxt = nxt.replace(info={**nxt.info, "diverged": s.info["diverged"]})
    clean, _ = sanitize_action(action)
    reward = s.reward + self.success_bonus * success if self.success_bonus else s.reward
    obs = self._obs(nxt.obs, clean, reward, episode_end.astype(jnp.float32))
    metrics = {
      **s.metrics,
      "is_success": jnp.where(restart, 0.0, success),
      "trial/success_first": trial_success[..., 0],
      "trial/success_last": success,
    }
    info = {
      **nxt.info,
      "trial_start": fresh,
      "trial_episode": ep + restart.astype(jnp.int32),
      "trial_steps": jnp.where(episode_end, 0, steps).astype(jnp.int32),
      "trial_success": trial_success,
    }
    return nxt.replace(
      obs=obs, reward=reward, done=trial_done.astype(jnp.float32), info=info, metrics=metrics
    )
