"""Hide-and-seek as a JaxMARL `MultiAgentEnv` (the optional extra: `pip install 'mjx-goal-rl[jaxmarl]'`).

    env = HideAndSeekMARL("HideAndSeekQuadrant")              # or make_jaxmarl(name, **overrides)
    obs, state = env.reset(key)
    actions = {a: env.action_space(a).sample(k) for a, k in zip(env.agents, jax.random.split(key, 4))}
    obs, state, rewards, dones, infos = env.step(key, state, actions)   # auto-resets on dones["__all__"]

Mapping from `mjx_envs.hide_and_seek` (one world; every array here may carry vmapped world axes in front):

  agents          `hider_0 .. hider_{H-1}, seeker_0 .. seeker_{S-1}`: the env's agent slots in order
                  (slots [0, H) are hiders, H = max hiders of the config, S = max seekers).
  actions[a]      int [5] from `MultiDiscrete([11, 11, 11, 2, 2])`: movement bins x, y, yaw torque (0..10,
                  5 = none), grab, lock; stacked into the env's {"move" [A, 3], "grab" [A], "lock" [A]}.
  obs[a]          {key: the env's obs[key][i]}: self [11], agents [A, 10], boxes [B, 14], ramps [R, 11],
                  their *_mask, lidar [L], and the omniscient *_full / *_present (for a centralised critic;
                  `obs_keys` leaves them out of what policies see). `observation_space(a)`: a `spaces.Dict`
                  of float32 `spaces.Box`es (masks in [0, 1], lidar in [0, lidar_range], features unbounded).
  rewards[a]      float32 [], the env's `reward[i]` (team reward, out-of-area penalty; 0 for absent slots).
  dones[a]        bool [], `dones["__all__"]` or agent slot absent this episode (random-rooms team sizes);
  dones["__all__"] the time limit (`max_steps`, default the env's `episode_length`: the env itself never
                  ends an episode, `mjx_envs.wrappers.EpisodeLimit` does) or a diverged physics state.
  infos           JaxMARL's layout: {key: [A]} arrays (LogWrapper and the baselines reshape them per agent):
                  agent_on, truncated (1 at the time limit or divergence), diverged, bad_action.

`step` is JaxMARL's own `MultiAgentEnv.step`: it steps, resets with a split of the key, and selects the
fresh state and observations where `dones["__all__"]`, so a finished episode's last observation is not
returned (as in every JaxMARL env). The state is a pytree (`HideAndSeekMARLState`: JaxMARL's `State` with
the wrapped `mjx_envs` state), so `reset` / `step` jit, vmap over worlds and scan.
"""

from __future__ import annotations

from mjx_envs import registry, wrappers
from mjx_envs.core import State
from mjx_envs.hide_and_seek import NAMES
from mjx_envs.hide_and_seek.env import N_BINS

import io
import sys
from collections.abc import Mapping, Sequence
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct


def _import_jaxmarl():
  """Imports JaxMARL's base class and spaces, keeping the caller's sys.stdout / sys.stderr.

  jaxmarl 0.2.0's `environments/mabrax/mabrax_env.py` sets sys.stdout and sys.stderr to sys.__stdout__ /
  sys.__stderr__ after importing brax, which would leave a notebook's (or pytest's) streams replaced for
  the rest of the process, and `environments/__init__.py` then prints two lines about its optional
  submoduled envs on every import. So the import runs with all four streams pointed at buffers, they are
  restored after it, and what it wrote passes through except those two lines.
  """
  saved = sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__
  out, err = io.StringIO(), io.StringIO()
  try:
    sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__ = out, err, out, err
    from jaxmarl.environments import multi_agent_env  # pylint: disable=import-outside-toplevel
    from jaxmarl.environments import spaces as jaxmarl_spaces  # pylint: disable=import-outside-toplevel
  except ImportError as e:
    raise ImportError(
      "mjx_envs.adapters.jaxmarl needs the optional package jaxmarl (>= 0.2), which did not import "
      f"({e}); install it with `pip install 'mjx-goal-rl[jaxmarl]'` (or `pip install jaxmarl`)"
    ) from e
  finally:
    sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__ = saved
    for line in out.getvalue().splitlines(keepends=True):
      if not line.startswith(("Importing submoduled environments", "Submoduled environments")):
        sys.stdout.write(line)
    sys.stderr.write(err.getvalue())
  return jaxmarl_spaces, multi_agent_env


spaces, _mae = _import_jaxmarl()
MultiAgentEnv, _MARLState = _mae.MultiAgentEnv, _mae.State

__all__ = ["HideAndSeekMARL", "HideAndSeekMARLState", "make_jaxmarl", "ACTION_NVEC"]

# Per agent: 3 movement bins (x force, y force, yaw torque), grab, lock.
ACTION_NVEC = (N_BINS, N_BINS, N_BINS, 2, 2)
_UNIT_KEYS = ("_mask", "_present")  # observation keys whose entries are 0 / 1


@struct.dataclass
class HideAndSeekMARLState(_MARLState):
  """JaxMARL's `State` (done: bool [], step: int32 [] of the current episode) with the `mjx_envs` state
  of the time-limited env (`env_state.reward` [A], `.obs` {key: [A, ...]}, `.info`, `.metrics`)."""

  env_state: State


class HideAndSeekMARL(MultiAgentEnv):
  """A hide-and-seek variant of the registry as a JaxMARL env; see the module docstring.

  name: a hide-and-seek registry name (`mjx_envs.hide_and_seek.NAMES`); max_steps: the episode's time
  limit (None: the env's `episode_length`); obs_keys: the observation keys each agent gets (None: all of
  the env's); env_overrides: config overrides for `mjx_envs.make(name, ...)`.
  """

  def __init__(
    self,
    name: str = "HideAndSeekQuadrant",
    max_steps: int | None = None,
    obs_keys: Sequence[str] | None = None,
    **env_overrides,
  ):
    if name not in NAMES:
      raise ValueError(
        f"HideAndSeekMARL: {name!r} is not a hide-and-seek env; the multi-agent envs of the "
        f"registry are {sorted(NAMES)}"
      )
    self.env = registry.make(name, **env_overrides)
    self.env_name = name
    self.max_steps = int(self.env.episode_length if max_steps is None else max_steps)
    # EpisodeLimit: the env has no horizon of its own (its `done` is only a diverged physics state).
    self._limited = wrappers.EpisodeLimit(self.env, self.max_steps)
    super().__init__(num_agents=self.env.num_agents)
    self.hider_agents = [f"hider_{i}" for i in range(self.env.n_hiders)]
    self.seeker_agents = [f"seeker_{i}" for i in range(self.env.n_seekers)]
    self.agents = self.hider_agents + self.seeker_agents

    # Observation shapes from a trace of reset (nothing runs): {key: [A, ...]}.
    full = jax.eval_shape(self.env.reset, jax.random.PRNGKey(0)).obs
    keys = tuple(full) if obs_keys is None else tuple(obs_keys)
    unknown = sorted(set(keys) - set(full))
    if unknown:
      raise ValueError(f"HideAndSeekMARL: unknown obs_keys {unknown}; the env's are {sorted(full)}")
    self.obs_keys = keys
    lidar_range = float(self.env.config["lidar_range"])

    def box(key, shape):
      if key.endswith(_UNIT_KEYS):
        return spaces.Box(0.0, 1.0, shape, jnp.float32)
      if key == "lidar":
        return spaces.Box(0.0, lidar_range, shape, jnp.float32)
      return spaces.Box(-jnp.inf, jnp.inf, shape, jnp.float32)

    obs_space = spaces.Dict({k: box(k, full[k].shape[1:]) for k in keys})
    self.observation_spaces = {a: obs_space for a in self.agents}
    self.action_spaces = {a: spaces.MultiDiscrete(list(ACTION_NVEC)) for a in self.agents}

  @property
  def agent_classes(self) -> dict[str, list]:
    """{"hider": [...], "seeker": [...]}: the teams (agents of a team share a reward)."""
    return {"hider": list(self.hider_agents), "seeker": list(self.seeker_agents)}

  @property
  def name(self) -> str:
    return self.env_name

  @partial(jax.jit, static_argnums=(0,))
  def reset(self, key: jax.Array) -> tuple[dict[str, dict[str, jax.Array]], HideAndSeekMARLState]:
    """A fresh episode: ({agent: {key: [...]}}, state)."""
    env_state = self._limited.reset(key)
    state = HideAndSeekMARLState(done=jnp.zeros((), bool), step=jnp.zeros((), jnp.int32), env_state=env_state)
    return self.get_obs(state), state

  def step_env(self, key: jax.Array, state: HideAndSeekMARLState, actions: Mapping[str, jax.Array]):
    """One control step without auto-reset: (obs, state, rewards {agent: []}, dones {agent, "__all__": []},
    infos {key: [A]}). Actions: {agent: int [5]} for every agent (see `check_actions`)."""
    del key  # the physics and the game are deterministic given the state
    env_state = self._limited.step(state.env_state, self.env_action(actions))
    info = env_state.info
    done = env_state.done > 0
    on = info["agent_on"] > 0
    rewards = {a: env_state.reward[i] for i, a in enumerate(self.agents)}
    # An agent slot absent for the episode (random-rooms team sizes) is done from the start, as a dead
    # unit is in JaxMARL's SMAX; it gets zero reward.
    dones = {a: done | ~on[i] for i, a in enumerate(self.agents)}
    dones["__all__"] = done
    A = self.num_agents
    per_agent = lambda x: jnp.broadcast_to(jnp.asarray(x, jnp.float32), (A,))
    infos = {
      "agent_on": per_agent(info["agent_on"]),
      "truncated": per_agent(info["truncation"]),
      "diverged": per_agent(info["diverged"]),
      "bad_action": per_agent(env_state.metrics["bad_action"]),
    }
    new = HideAndSeekMARLState(done=done, step=info["steps"], env_state=env_state)
    return self.get_obs(new), new, rewards, dones, infos

  def get_obs(self, state: HideAndSeekMARLState) -> dict[str, dict[str, jax.Array]]:
    """{agent: {key: the env's obs[key][i]}} for the keys in `obs_keys`."""
    obs = state.env_state.obs
    return {a: {k: obs[k][i] for k in self.obs_keys} for i, a in enumerate(self.agents)}

  @partial(jax.jit, static_argnums=(0,))
  def get_avail_actions(self, state: HideAndSeekMARLState) -> dict[str, jax.Array]:
    """{agent: bool [sum(ACTION_NVEC)] = [37]}: every bin of every component; all are always allowed
    (seekers' actions during the preparation phase are accepted and ignored by the game)."""
    del state
    return {a: jnp.ones(sum(ACTION_NVEC), bool) for a in self.agents}

  def check_actions(self, actions) -> None:
    """ValueError unless `actions` maps exactly `self.agents` to arrays of shape [5] (one world: vmap for
    several). Shapes are static, so this runs while tracing, also under jit."""
    if not isinstance(actions, Mapping):
      raise ValueError(
        f"{self.name}: actions must be a dict {{agent: int [5]}} over agents {self.agents}, "
        f"got {type(actions).__name__}"
      )
    missing, unknown = [a for a in self.agents if a not in actions], sorted(set(actions) - set(self.agents))
    if missing or unknown:
      raise ValueError(
        f"{self.name}: actions must have exactly the agents {self.agents}; missing {missing}, "
        f"unknown {unknown}"
      )
    for a in self.agents:
      shape = tuple(np.shape(actions[a]))
      if shape != (len(ACTION_NVEC),):
        raise ValueError(
          f"{self.name}: actions[{a!r}] must have shape ({len(ACTION_NVEC)},) (move x, y, yaw "
          f"bins in 0..{N_BINS - 1}, grab, lock), got {shape}; for a batch of worlds, "
          "jax.vmap the step"
        )

  def env_action(self, actions: Mapping[str, jax.Array]) -> dict[str, jax.Array]:
    """{agent: [5]} -> the env's {"move": [A, 3], "grab": [A], "lock": [A]} (agents in `self.agents` order)."""
    self.check_actions(actions)
    a = jnp.stack([jnp.asarray(actions[k]) for k in self.agents])
    return {"move": a[:, :3], "grab": a[:, 3], "lock": a[:, 4]}


def make_jaxmarl(name: str, **kwargs) -> HideAndSeekMARL:
  """The JaxMARL env of a multi-agent registry name (hide-and-seek: `NAMES`); kwargs: `HideAndSeekMARL`'s
  max_steps, obs_keys and env config overrides."""
  return HideAndSeekMARL(name, **kwargs)
