"""Gymnasium (>= 1.0) adapter: our pure-function envs as `gymnasium.Env` and `gymnasium.vector.VectorEnv`.

    from mjx_envs.adapters.gymnasium import GymEnv, VectorEnv, register_gymnasium_envs
    envs = VectorEnv("FetchReach", num_envs=64, seed=0)     # one jitted call per reset / step, all 64 envs
    env = GymEnv("FetchReach", seed=0)                      # one env; passes gymnasium's check_env
    register_gymnasium_envs()                               # then gymnasium.make("mjx_envs/FetchReach-v0")
                                                            # and gymnasium.make_vec(..., num_envs=64)

The mapping:
- What runs: the env's `reset` / `step` under the project's wrappers, EpisodeLimit (the time limit, as a
  truncation) -> Batch (vmap over the envs) -> AutoReset (vector env only), each of `reset` and `step` ONE
  `jax.jit` call over the whole batch, which also computes terminated / truncated / success; the State
  stays a JAX pytree between calls and only the returned arrays cross to NumPy (copied, so writable).
  Compiled functions are cached per (env name, overrides, num_envs, time limit, auto-reset) and shared by
  instances: `make_vec(..., vectorization_mode="sync")` over 8 `GymEnv`s compiles once. Under the
  default `impl="auto"` on a CPU the physics is C MuJoCo through a host callback.
- Boundary: observations float32 (dict entries too), rewards float32 ([num_envs]; a Python float for
  `GymEnv`), terminated / truncated bool. Actions are NumPy (or anything `np.asarray` takes) of shape
  [num_envs, A] ([A] for `GymEnv`); a wrong shape, a non-numeric dtype or a NaN / inf entry raises
  ValueError here, before JAX sees it. Entries outside the action space are clipped by the env, as
  gymnasium-robotics clips them.
- Time limit: `truncated` is the time limit (`max_episode_steps`, default the env's `episode_length`) or
  a diverged physics state (the project's EpisodeLimit counts both as truncation); `terminated` is the
  env's own `done` (e.g. the block world's success or fall), never both for one step. Registered
  single-env ids leave the limit to Gymnasium's `TimeLimit` (spec `max_episode_steps` = the env's
  episode length), as gymnasium-robotics does, so `gymnasium.make(id, max_episode_steps=N)` works.
- Auto-reset (vector env): `metadata["autoreset_mode"] = AutoresetMode.SAME_STEP`: an env that ends is
  reset inside the same `step` (a fresh random start and goal, keyed from the env's own PRNG stream) and
  the returned observation is the new episode's first. As in Gymnasium's SyncVectorEnv in that mode, on a
  step where some env ended, `info["final_obs"]` is an object array [num_envs] holding each ended env's
  last observation (None elsewhere), `info["_final_obs"]` its mask, and `info["final_info"]` /
  `info["_final_info"]` the ended envs' step info (`is_success`) and mask. `GymEnv` never auto-resets.
- Goal envs (a `mjx_envs.GoalEnv` with a goal, e.g. the Fetch tasks): a `spaces.Dict` observation with
  `observation`, `achieved_goal` and `desired_goal`, as gymnasium-robotics; `compute_reward(achieved_goal,
  desired_goal, info)` in NumPy over any leading batch shape (the env's own JAX reward, so relabelled
  rewards equal the env's bit for bit; jitted on batches padded to a power of two, as HER's relabelled
  batches change size from call to call), `compute_terminated` / `compute_truncated` as gymnasium-robotics'
  GoalEnv has them, and `info["is_success"]` (float32, per env) after every step. The block world's reward
  (the change in placed objects) also reads `info["prev_achieved_goal"]`, which each step's info carries,
  as a dict of arrays or one dict per transition (Stable-Baselines3 HER). `GymEnv` of a goal env
  is a `GymGoalEnv`, a subclass of `gymnasium_robotics.core.GoalEnv` when that package is installed. The
  block world's extra observation entries (robot, objects, object_mask) are left out: `observation`
  already holds robot and objects, and the mask is constant for an env. Envs with array observations get
  a `spaces.Box`; the goal-free block world a `spaces.Dict` of its entries.
- Seeding: `reset(seed=s)` seeds the env's `np_random` (Gymnasium's rule), and each reset draws a 64-bit
  JAX PRNG key from it: the same seed gives the same episodes, bit for bit.
- Rendering: `render_mode="rgb_array"`; `render()` draws the current state(s) with `mjx_envs.render`
  (frames [height, width, 3] uint8; a tuple of num_envs frames for the vector env, as SyncVectorEnv).

Not supported, and why:
- Multi-agent envs (HideAndSeek, HideAndSeekQuadrant: dict actions per agent, per-agent rewards) and the
  Alice/Bob self-play game (BlocksSelfPlay: two players' worlds in one state, turns) are not single-agent
  Gymnasium envs: building one here raises ValueError naming why, and `register_gymnasium_envs` skips
  them. JaxMARL-style multi-agent use: `mjx_envs/adapters/jaxmarl.py`.
- MT10 (a batch of 10 tasks stepped together) only as a vector env with num_envs a multiple of 10; not
  renderable. `GymEnv("MT10")` raises, naming the vector alternative.
- `reset(options=...)`: no options; a vector `reset(seed=...)` takes one int (the envs' keys are split
  from it), not a list. `render_mode="human"`: Gymnasium's `make` wraps rgb_array in HumanRendering.
- `compute_terminated` covers termination on success only (the block world's fall needs the full state).

Stable-Baselines3 HER (SAC + HerReplayBuffer) learns FetchReach through `gymnasium.make` with observations
normalised (VecNormalize): tests/mjx_envs/test_sb3_her.py.

`gymnasium` is an optional extra (`pip install 'mjx-goal-rl[gymnasium]'`); nothing else in `mjx_envs`
imports this module.
"""

from __future__ import annotations

from mjx_envs import registry, render, wrappers
from mjx_envs.core import Env, GoalEnv

import inspect
import re
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

try:
  import gymnasium
  from gymnasium import spaces
  from gymnasium.vector import AutoresetMode
  from gymnasium.vector.utils import batch_space
except ImportError as _e:  # gymnasium missing, or older than 1.0 (no AutoresetMode)
  raise ImportError(
    "mjx_envs.adapters.gymnasium needs gymnasium >= 1.0, which is an optional extra: "
    "pip install 'mjx-goal-rl[gymnasium]' (or pip install 'gymnasium>=1.0')"
  ) from _e

try:  # gymnasium-robotics is not required: GymGoalEnv then provides the same methods itself
  from gymnasium_robotics.core import GoalEnv as _RoboticsGoalEnv
except ImportError:
  _RoboticsGoalEnv = None

__all__ = ["GymEnv", "GymGoalEnv", "VectorEnv", "register_gymnasium_envs", "gymnasium_id", "NAMESPACE"]

NAMESPACE = "mjx_envs"
GOAL_KEYS = ("achieved_goal", "desired_goal", "observation")
NO_LIMIT = -1  # max_episode_steps=-1: no time limit of ours (Gymnasium's TimeLimit, if any, does it)
_BIG = 2**31 - 1  # "no limit": an EpisodeLimit that is never reached, which still truncates a divergence
# Info keys of the pre-step state that an env's compute_reward reads (the block world's reward is the
# change in placed objects, so it needs the achieved goal before the step).
_REWARD_INFO_KEYS = ("prev_achieved_goal",)
_MULTI_AGENT_WHY = {  # the modules of the envs that are not plain single-agent envs, and why (first match)
  "mjx_envs.hide_and_seek.transfer": (
    "it is a hide-and-seek transfer task: one agent, but the game's dict actions (move bins, grab, lock) "
    "and an agent axis on its reward [1]; use the pure-function env or the project's multi-agent learner"
  ),
  "mjx_envs.hide_and_seek": (
    "it is a multi-agent game (hiders and seekers: per-agent dict actions move/grab/lock and per-agent "
    "rewards [A]); use the JaxMARL adapter (mjx_envs/adapters/jaxmarl.py) or the pure-function env"
  ),
  "mjx_envs.blocks.selfplay": (
    "it is the two-player Alice/Bob self-play game (one state holds both players' worlds and each step "
    "acts for whoever's turn it is); train it with the project's self-play learner on the pure-function env"
  ),
}


# --- building --------------------------------------------------------------------------------------
def _why_not_single_agent_name(name: str) -> str | None:
  """Why registry name `name` is not a single-agent env, judged by its factory's module (cheap: builds
  nothing); None if it is one."""
  factory = registry.lookup(name)[0]
  module = getattr(getattr(factory, "func", factory), "__module__", "") or ""
  for prefix, why in _MULTI_AGENT_WHY.items():
    if module == prefix or module.startswith(prefix + "."):
      return why
  return None


def _why_not_single_agent(env: Env, abstract) -> str | None:
  """The same for a built env, from its class and its abstract reset State `abstract`."""
  module = type(env.unwrapped).__module__
  for prefix, why in _MULTI_AGENT_WHY.items():
    if module == prefix or module.startswith(prefix + "."):
      return why
  if hasattr(env, "action_shapes") or abstract.reward.shape != ():
    return (
      f"its actions or rewards are per agent (reward shape {abstract.reward.shape}); it is not a "
      "single-agent env"
    )
  return None


def _is_goal_env(env: Env, obs) -> bool:
  """A GoalEnv with a goal (the goal-free block world is a GoalEnv class without one)."""
  return (
    isinstance(env.unwrapped, GoalEnv)
    and getattr(env.unwrapped, "is_goal_env", True)
    and isinstance(obs, Mapping)
    and all(k in obs for k in GOAL_KEYS)
  )


class _Core:
  """The jitted functions of one (env, num_envs, time limit, auto-reset) batch, shared by instances.

  reset(key) -> (state, out) and step(state, action [N, A]) -> (state, out), where `out` holds what
  crosses to NumPy: obs (the space's entries), reward [N], terminated [N], truncated [N], success [N],
  final_obs (with auto-reset) and the reward's info entries (`_REWARD_INFO_KEYS`) of the pre-step state.
  """

  def __init__(self, env: Env, name: str, num_envs: int, limit: int, autoreset: bool):
    self.env = env
    self.name = name
    self.num_envs = int(num_envs)
    if self.num_envs < 1:
      raise ValueError(f"num_envs must be >= 1, got {num_envs!r}")
    multitask = hasattr(env, "task_names")  # MT10: a batch of tasks stepped together
    if multitask and self.num_envs % env.num_tasks:
      raise ValueError(
        f"{name} is a multi-task batch of {env.num_tasks} tasks stepped together: num_envs must be a "
        f"multiple of {env.num_tasks} (so it has no single-env GymEnv: use VectorEnv or "
        f"gymnasium.make_vec), got {num_envs}"
      )
    probe = env.tasks[0] if multitask else env  # one world: its State has no batch axis
    abstract = jax.eval_shape(probe.reset, jax.random.PRNGKey(0))
    why = _why_not_single_agent(probe, abstract)
    if why:
      raise ValueError(f"{name} cannot be a Gymnasium env: {why}.")
    self.max_episode_steps = None if limit == _BIG else limit
    self.goal = _is_goal_env(probe, abstract.obs)
    if self.goal:
      self.obs_keys = GOAL_KEYS
    elif isinstance(abstract.obs, Mapping):
      self.obs_keys = tuple(sorted(abstract.obs))
    else:
      self.obs_keys = None
    self.reward_info_keys = tuple(k for k in _REWARD_INFO_KEYS if self.goal and k in abstract.info)
    # info["is_success"]: goal envs, and the others that report it (Meta-World: success so far).
    self.has_success = self.goal or "is_success" in abstract.metrics
    self.action_bins = _action_bins(env)
    per_env = lambda e: wrappers.EpisodeLimit(e, limit)
    self.stack = wrappers.batch(
      env, self.num_envs, per_env, wrappers.AutoReset if autoreset else (lambda e: e)
    )
    self.autoreset = autoreset
    self.reset = jax.jit(self._reset)
    self.step = jax.jit(self._step)
    self.compute_reward = jax.jit(env.unwrapped.compute_reward) if self.goal else None
    self.is_success = jax.jit(env.unwrapped.is_success) if self.goal else None
    # Per-env shapes of the observation entries (or of the array observation).
    shapes = jax.eval_shape(self.reset, jax.random.PRNGKey(0))[1]["obs"]
    self.obs_shapes = jax.tree.map(lambda x: tuple(x.shape[1:]), shapes)

  def _obs(self, obs):
    if self.obs_keys is None:
      return obs.astype(jnp.float32)
    return {k: obs[k].astype(jnp.float32) for k in self.obs_keys}

  def _out(self, state, prev_info=None):
    zeros = jnp.zeros(state.done.shape, jnp.float32)
    truncated = state.info.get("truncation", zeros) > 0
    out = {
      "obs": self._obs(state.obs),
      "reward": state.reward.astype(jnp.float32),
      "terminated": (state.done > 0) & ~truncated,
      "truncated": truncated,
      "success": state.metrics.get("is_success", zeros).astype(jnp.float32),
    }
    if self.autoreset:
      out["final_obs"] = self._obs(state.info["final_obs"])
    if prev_info is not None:
      out.update({k: prev_info[k].astype(jnp.float32) for k in self.reward_info_keys})
    return out

  def _reset(self, key):
    state = self.stack.reset(key)
    return state, self._out(state)

  def _step(self, state, action):
    prev_info = state.info
    state = self.stack.step(state, action)
    return state, self._out(state, prev_info)


def _limit(env: Env, max_episode_steps) -> int:
  """The EpisodeLimit length: the env's episode_length for None, never reached for NO_LIMIT (-1)."""
  if max_episode_steps is None:
    return int(env.episode_length)
  if isinstance(max_episode_steps, (int, np.integer)) and not isinstance(max_episode_steps, bool):
    if max_episode_steps == NO_LIMIT:
      return _BIG
    if max_episode_steps >= 1:
      return int(max_episode_steps)
  raise ValueError(
    f"max_episode_steps must be an int >= 1, None (the env's episode_length) or -1 (no time limit), "
    f"got {max_episode_steps!r}"
  )


# Built envs and cores by name and config: instances of the same batch share one set of compiled
# functions. Bounded, oldest out: each core holds compiled executables.
_ENVS: dict[Any, Env] = {}
_CORES: dict[Any, _Core] = {}
_MAX_CACHED = 16


def _cached(cache: dict, key, make):
  if key not in cache:
    if len(cache) >= _MAX_CACHED:
      del cache[next(iter(cache))]
    cache[key] = make()
  return cache[key]


def _core(env, num_envs: int, max_episode_steps: int | None, autoreset: bool, overrides) -> _Core:
  """The `_Core` of `env` (a registry name, built with `overrides`, or an Env instance); cached by name."""
  if isinstance(env, str):
    name = env
    registry.lookup(name)  # an unknown name: ConfigError naming the registered ones
    why = _why_not_single_agent_name(name)
    if why:  # before building it
      raise ValueError(f"{name} cannot be a Gymnasium env: {why}.")
    config = repr(sorted(overrides.items()))
    built = _cached(_ENVS, (name, config), lambda: registry.make(name, **overrides))
    limit = _limit(built, max_episode_steps)
    key = (name, config, int(num_envs), limit, bool(autoreset))
    return _cached(_CORES, key, lambda: _Core(built, name, num_envs, limit, autoreset))
  if not isinstance(env, Env):
    raise TypeError(f"expected a registered env name (str) or an mjx_envs Env, got {type(env).__name__}")
  if overrides:
    raise TypeError(
      f"config overrides {sorted(overrides)} apply to an env built by name; "
      f"{type(env).__name__} is already built"
    )
  return _Core(env, type(env.unwrapped).__name__, num_envs, _limit(env, max_episode_steps), autoreset)


def _spaces(core: _Core):
  """(single observation space, single action space) of a core."""
  box = lambda shape: spaces.Box(-np.inf, np.inf, shape, np.float32)
  if core.obs_keys is None:
    obs_space = box(core.obs_shapes)
  else:
    obs_space = spaces.Dict({k: box(core.obs_shapes[k]) for k in core.obs_keys})
  a = int(core.env.action_size)
  if core.action_bins:  # the block world's discretised actions: integer bins 0..bins-1 per dimension
    act_space = spaces.MultiDiscrete(np.full(a, core.action_bins))
  else:
    act_space = spaces.Box(-1.0, 1.0, (a,), np.float32)
  return obs_space, act_space


def _action_bins(env: Env) -> int | None:
  """The number of bins of an env with discretised actions (the block world's `action_bins`), else None."""
  config = getattr(env.unwrapped, "config", None)
  bins = config.get("action_bins") if isinstance(config, Mapping) else None
  return int(bins) if bins else None


def _key(rng: np.random.Generator) -> jax.Array:
  """A JAX PRNG key from 64 bits of `rng` (PRNGKey alone keeps only 32 bits of its seed when x64 is off)."""
  hi, lo = (int(x) for x in rng.integers(0, 2**32, size=2, dtype=np.uint64))
  return jax.random.fold_in(jax.random.PRNGKey(hi), lo)


def _check_action(core: _Core, action, shape: tuple) -> np.ndarray:
  """Actions as a NumPy array of `shape` (float32, or int32 for discrete bins); ValueError if the shape
  is wrong, the dtype is not numeric or an entry is NaN / inf."""
  try:
    a = np.asarray(action)
  except Exception as e:  # ragged lists and the like
    raise ValueError(
      f"{core.name}: actions must be an array of shape {shape}, got {type(action).__name__}: {e}"
    ) from None
  if a.dtype.kind not in "biuf":
    raise ValueError(f"{core.name}: actions must be numeric, got dtype {a.dtype}")
  if a.shape != shape:
    raise ValueError(f"{core.name}: actions must have shape {shape}, got {a.shape}")
  if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
    rows = np.unique(np.nonzero(~np.isfinite(a))[0]).tolist() if a.ndim > 1 else []
    where = f" (envs {rows})" if rows else ""
    raise ValueError(f"{core.name}: actions contain NaN or inf{where}")
  return a.astype(np.int32 if core.action_bins else np.float32)


def _numpy(tree):
  """Device arrays -> writable NumPy copies (device_get may hand out read-only views)."""
  return jax.tree.map(np.array, jax.device_get(tree))


def _reward_info(core: _Core, info, batch_shape: tuple) -> dict[str, np.ndarray]:
  """The info entries `core`'s compute_reward reads, each flattened to [n, ...] (n: the batch's size),
  from a dict of arrays [*batch_shape, ...] or a sequence of per-transition dicts (gymnasium-robotics and
  Stable-Baselines3 HER pass either)."""
  n = int(np.prod(batch_shape, dtype=np.int64))
  out = {}
  for k in core.reward_info_keys:
    if isinstance(info, Mapping):
      if k not in info:
        raise KeyError(f"{core.name}: compute_reward needs info[{k!r}] (the step info holds it)")
      v = np.asarray(info[k], np.float32)
      v = v.reshape((n,) + v.shape[len(batch_shape) :])
    else:
      rows = list(np.asarray(info, dtype=object).reshape(-1))
      if len(rows) != n or any(not isinstance(r, Mapping) or k not in r for r in rows):
        raise KeyError(f"{core.name}: compute_reward needs info[{k!r}] in each of the {n} info dicts")
      v = np.stack([np.asarray(r[k], np.float32) for r in rows])
    out[k] = v
  return out


def _padded_call(fn, n: int, *arrays):
  """fn(*arrays) for arrays (and dicts of arrays) of n rows, called on rows padded to a power of two and
  cut back: the jitted function compiles once per bucket, not once per batch size (HER's relabelled
  batches vary in size from call to call)."""
  size = 1 << max(n - 1, 0).bit_length()
  pad = lambda x: np.concatenate([x, np.zeros((size - n,) + x.shape[1:], x.dtype)]) if size > n else x
  return np.array(fn(*jax.tree.map(pad, arrays)))[:n]


class _GoalMethods:
  """gymnasium-robotics' GoalEnv methods in NumPy over any leading batch shape (needs `self._core`)."""

  def _goal_core(self) -> _Core:
    if not self._core.goal:
      raise AttributeError(
        f"{self._core.name} is not a goal env (no achieved / desired goal): it has no "
        "compute_reward / compute_terminated / compute_truncated"
      )
    return self._core

  def _goals(self, achieved_goal, desired_goal):
    """(core, achieved [n, *G], desired [n, *G], batch shape) with a clear error for mismatched shapes."""
    core = self._goal_core()
    ag = np.asarray(achieved_goal, np.float32)
    dg = np.asarray(desired_goal, np.float32)
    goal_shape = core.obs_shapes["achieved_goal"]
    batch_shape = ag.shape[: ag.ndim - len(goal_shape)]
    if ag.shape[len(batch_shape) :] != goal_shape or dg.shape != ag.shape:
      raise ValueError(
        f"{core.name}: achieved_goal and desired_goal must both have shape "
        f"[..., {', '.join(map(str, goal_shape))}], got {ag.shape} and {dg.shape}"
      )
    n = int(np.prod(batch_shape, dtype=np.int64))
    return core, ag.reshape((n,) + goal_shape), dg.reshape((n,) + goal_shape), batch_shape

  def compute_reward(self, achieved_goal, desired_goal, info=None):
    """achieved_goal, desired_goal [..., G] -> reward [...] float32 (the env's own reward function).

    `info`: None, a dict of arrays, or a sequence of per-transition info dicts; only the entries the
    env's reward reads are used (none for Fetch; the block world reads `prev_achieved_goal`)."""
    core, ag, dg, batch_shape = self._goals(achieved_goal, desired_goal)
    extra = _reward_info(core, {} if info is None else info, batch_shape)
    r = _padded_call(core.compute_reward, len(ag), ag, dg, extra).reshape(batch_shape)
    return r[()] if r.ndim == 0 else r

  def compute_terminated(self, achieved_goal, desired_goal, info=None):
    """[..., G] x2 -> bool [...]: True where the env ends its episode on reaching the goal (the block
    world's `terminate_on_success`); Fetch and the others never terminate on their goal."""
    core, ag, dg, batch_shape = self._goals(achieved_goal, desired_goal)
    config = getattr(core.env.unwrapped, "config", {})
    if isinstance(config, Mapping) and config.get("terminate_on_success", False):
      out = (_padded_call(core.is_success, len(ag), ag, dg) > 0).reshape(batch_shape)
    else:
      out = np.zeros(batch_shape, bool)
    return out[()] if out.ndim == 0 else out

  def compute_truncated(self, achieved_goal, desired_goal, info=None):
    """[..., G] x2 -> bool [...], all False: truncation is the time limit, not a function of the goal."""
    _, _, _, batch_shape = self._goals(achieved_goal, desired_goal)
    out = np.zeros(batch_shape, bool)
    return out[()] if out.ndim == 0 else out


# --- the single env --------------------------------------------------------------------------------
class GymEnv(gymnasium.Env):
  """One env as a `gymnasium.Env` (no auto-reset: call `reset` after `terminated or truncated`).

  env: a registered name (`mjx_envs.registered()`) built with `overrides`, or a built mjx_envs Env.
  seed: seeds `np_random` for the first `reset()` without a seed. max_episode_steps: None (the env's
  `episode_length`), an int, or -1 (no time limit: what the registered ids use, Gymnasium's TimeLimit
  does it). render_mode: None or "rgb_array"; width, height: the frames' size.
  Observations: [O] float32 or a dict of them; actions [A]. A goal env gives a `GymGoalEnv`.
  """

  metadata = {"render_modes": ["rgb_array"], "render_fps": 25}

  def __new__(cls, *args, **kwargs):
    # GymEnv(...) of a goal env returns a GymGoalEnv: the env (and its jitted functions) are built here,
    # where its kind is known, and handed to __init__. (No arguments: unpickling or copying.)
    if cls is not GymEnv or not (args or kwargs):
      return super().__new__(cls)
    bound = inspect.signature(GymEnv.__init__).bind(None, *args, **kwargs)
    bound.apply_defaults()
    a = bound.arguments
    core = _core(a["env"], 1, a["max_episode_steps"], False, a["overrides"])
    obj = super().__new__(GymGoalEnv if core.goal else GymEnv)
    obj._prebuilt_core = core
    return obj

  def __init__(
    self,
    env: str | Env,
    seed: int | None = None,
    render_mode: str | None = None,
    max_episode_steps: int | None = None,
    width: int = 480,
    height: int = 360,
    **overrides,
  ):
    core = self.__dict__.pop("_prebuilt_core", None)
    self._core = core or _core(env, 1, max_episode_steps, False, overrides)
    self.observation_space, self.action_space = _spaces(self._core)
    _check_render_mode(render_mode)
    self.render_mode = render_mode
    self.width, self.height = int(width), int(height)
    self.metadata = {**self.metadata, "render_fps": _fps(self._core.env)}
    self.max_episode_steps = self._core.max_episode_steps
    self._state = None
    if seed is not None:
      self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)

  def reset(self, *, seed: int | None = None, options: dict | None = None):
    """-> (obs [O] float32 or dict, info {"is_success": float32} for goal envs)."""
    super().reset(seed=seed)
    _check_options(options)
    self._state, out = self._core.reset(_key(self.np_random))
    out = _numpy(out)
    return _first(out["obs"]), self._info(out)

  def step(self, action):
    """action [A] -> (obs, reward float, terminated bool, truncated bool, info)."""
    if self._state is None:
      raise gymnasium.error.ResetNeeded(f"{self._core.name}: call reset() before step()")
    a = _check_action(self._core, action, (int(self._core.env.action_size),))
    self._state, out = self._core.step(self._state, a[None])
    out = _numpy(out)
    return (
      _first(out["obs"]),
      float(out["reward"][0]),
      bool(out["terminated"][0]),
      bool(out["truncated"][0]),
      self._info(out),
    )

  def _info(self, out) -> dict[str, Any]:
    info = {"is_success": out["success"][0]} if self._core.has_success else {}
    info.update({k: out[k][0] for k in self._core.reward_info_keys if k in out})
    return info

  def render(self):
    """The current state as a frame [height, width, 3] uint8 (render_mode="rgb_array"), else None."""
    if self.render_mode is None:
      gymnasium.logger.warn("GymEnv.render() called without render_mode; pass render_mode='rgb_array'")
      return None
    if self._state is None:
      raise gymnasium.error.ResetNeeded(f"{self._core.name}: call reset() before render()")
    return _frames(self._core, self._state, self.width, self.height)[0]

  def close(self):
    self._state = None
    super().close()


# gymnasium-robotics' GoalEnv when installed (its `reset` checks the dict space), else the same methods.
_GOAL_BASES = (GymEnv, _GoalMethods) + ((_RoboticsGoalEnv,) if _RoboticsGoalEnv is not None else ())


class GymGoalEnv(*_GOAL_BASES):
  """`GymEnv` of a goal env: dict observations {observation, achieved_goal, desired_goal} and NumPy
  `compute_reward` / `compute_terminated` / `compute_truncated`, as gymnasium-robotics' GoalEnv."""

  def __init__(self, *args, **kwargs):
    GymEnv.__init__(self, *args, **kwargs)
    if not self._core.goal:
      raise ValueError(f"{self._core.name} is not a goal env (no achieved / desired goal): use GymEnv")


# --- the vector env --------------------------------------------------------------------------------
class VectorEnv(gymnasium.vector.VectorEnv, _GoalMethods):
  """`num_envs` envs as a `gymnasium.vector.VectorEnv`, stepped by one jitted call, auto-reset in the
  same step (see the module docstring for `info["final_obs"]`).

  env: a registered name built with `env_overrides`, or a built mjx_envs Env. seed: seeds `np_random`
  for the first `reset()` without a seed. max_episode_steps: None (the env's `episode_length`) or an int.
  Observations [num_envs, O] float32 (or a dict of such); actions [num_envs, A]; rewards [num_envs]
  float32; terminated, truncated [num_envs] bool. Goal envs: `compute_reward` etc. (NumPy, batched).
  """

  metadata = {"render_modes": ["rgb_array"], "render_fps": 25, "autoreset_mode": AutoresetMode.SAME_STEP}

  def __init__(
    self,
    env: str | Env,
    num_envs: int,
    seed: int | None = None,
    max_episode_steps: int | None = None,
    render_mode: str | None = None,
    width: int = 480,
    height: int = 360,
    **env_overrides,
  ):
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
      raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
    self._core = _core(env, int(num_envs), max_episode_steps, True, env_overrides)
    self.num_envs = int(num_envs)
    self.single_observation_space, self.single_action_space = _spaces(self._core)
    self.observation_space = batch_space(self.single_observation_space, self.num_envs)
    self.action_space = batch_space(self.single_action_space, self.num_envs)
    _check_render_mode(render_mode)
    self.render_mode = render_mode
    self.width, self.height = int(width), int(height)
    self.metadata = {**self.metadata, "render_fps": _fps(self._core.env)}
    self.max_episode_steps = self._core.max_episode_steps
    self.is_goal_env = self._core.goal
    self._state = None
    if seed is not None:
      self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)

  def reset(self, *, seed: int | None = None, options: dict | None = None):
    """-> (obs [num_envs, ...] float32 (or dict), info {"is_success": [num_envs]} for goal envs)."""
    if seed is not None and not isinstance(seed, (int, np.integer)):
      raise TypeError(
        f"{self._core.name}: reset(seed=...) takes one int (each env's key is split from "
        f"it), got {type(seed).__name__}"
      )
    super().reset(seed=None if seed is None else int(seed))
    _check_options(options)
    self._state, out = self._core.reset(_key(self.np_random))
    out = _numpy(out)
    return out["obs"], self._info(out, done=None)

  def step(self, actions):
    """actions [num_envs, A] -> (obs, reward [num_envs] float32, terminated, truncated [num_envs] bool,
    info). Ended envs are already reset in `obs`; their last observation is in info["final_obs"]."""
    if self._state is None:
      raise gymnasium.error.ResetNeeded(f"{self._core.name}: call reset() before step()")
    a = _check_action(self._core, actions, (self.num_envs, int(self._core.env.action_size)))
    self._state, out = self._core.step(self._state, a)
    out = _numpy(out)
    done = out["terminated"] | out["truncated"]
    return out["obs"], out["reward"], out["terminated"], out["truncated"], self._info(out, done)

  def _info(self, out, done) -> dict[str, Any]:
    n = self.num_envs
    info: dict[str, Any] = {}
    if self._core.has_success:
      info.update(is_success=out["success"], _is_success=np.ones(n, bool))
    for k in self._core.reward_info_keys:
      if k in out:
        info.update({k: out[k], f"_{k}": np.ones(n, bool)})
    if done is not None and done.any():
      # Gymnasium's SAME_STEP layout (SyncVectorEnv): an object array of per-env observations, the mask,
      # and the ended envs' step info under final_info.
      final_obs = np.full(n, None, dtype=object)
      for i in np.nonzero(done)[0]:
        final_obs[i] = jax.tree.map(lambda x, i=i: x[i], out["final_obs"])
      info.update(final_obs=final_obs, _final_obs=done.copy())
      final_info = {}
      if self._core.has_success:
        final_info = {
          "is_success": np.where(done, out["success"], 0.0).astype(np.float32),
          "_is_success": done.copy(),
        }
      info.update(final_info=final_info, _final_info=done.copy())
    return info

  def render(self):
    """Frames of every env, a tuple of num_envs [height, width, 3] uint8 (render_mode="rgb_array")."""
    if self.render_mode is None:
      gymnasium.logger.warn("VectorEnv.render() called without render_mode; pass render_mode='rgb_array'")
      return None
    if self._state is None:
      raise gymnasium.error.ResetNeeded(f"{self._core.name}: call reset() before render()")
    return tuple(_frames(self._core, self._state, self.width, self.height))

  def close_extras(self, **kwargs):
    self._state = None


# --- shared helpers --------------------------------------------------------------------------------
def _first(obs):
  return jax.tree.map(lambda x: x[0], obs)


def _fps(env: Env) -> int:
  dt = getattr(env.unwrapped, "dt", None)
  return int(round(1.0 / dt)) if dt else 25


def _check_render_mode(render_mode):
  if render_mode not in (None, "rgb_array"):
    raise ValueError(
      f"render_mode must be None or 'rgb_array', got {render_mode!r} (gymnasium.make wraps "
      "'human' around rgb_array)"
    )


def _check_options(options):
  if options:
    raise ValueError(f"reset(options=...) takes no options here, got {sorted(options)}")


def _frames(core: _Core, state, width: int, height: int) -> np.ndarray:
  """[num_envs, height, width, 3] uint8: the batch axis of `state` drawn as if it were time."""
  if hasattr(core.env, "with_members"):
    raise ValueError(f"{core.name}: a multi-task batch is not renderable; render one of its tasks")
  return render.render_rollout(core.env, state, width=width, height=height)


# --- registration ----------------------------------------------------------------------------------
def gymnasium_id(name: str, namespace: str = NAMESPACE) -> str:
  """The Gymnasium id of registry name `name`: "FetchReach" -> "mjx_envs/FetchReach-v0",
  "metaworld/reach-v3" -> "mjx_envs/metaworld-reach-v3" (a name's own -vN is the id's version)."""
  base = name.replace("/", "-")
  return f"{namespace}/{base}" if re.search(r"-v\d+$", base) else f"{namespace}/{base}-v0"


def _single_entry_point(env: str, **kwargs) -> GymEnv:
  """`gymnasium.make`'s entry point: a GymEnv without a time limit of its own (TimeLimit does it)."""
  kwargs.setdefault("max_episode_steps", NO_LIMIT)
  return GymEnv(env, **kwargs)


def _episode_length(name: str) -> int | None:
  length = registry.default_config(name).get("episode_length")
  if isinstance(length, (int, np.integer)) and not isinstance(length, bool):
    return int(length)
  built = _cached(_ENVS, (name, repr([])), lambda: registry.make(name))  # kept for a later make
  return getattr(built, "episode_length", None)  # e.g. the block world: 200 steps per object


def register_gymnasium_envs(names: Sequence[str] | None = None, namespace: str = NAMESPACE) -> list[str]:
  """Registers each single-agent registry name (default: all of `mjx_envs.registered()`) with
  `gymnasium.register` as `gymnasium_id(name)`: `gymnasium.make(id)` gives a GymEnv under Gymnasium's
  TimeLimit (the env's episode length), `gymnasium.make_vec(id, num_envs=N)` a VectorEnv. Multi-agent
  envs and the self-play game are skipped. Idempotent. Returns the ids registered."""
  ids = []
  for name in names if names is not None else registry.registered():
    registry.lookup(name)  # an unknown name: ConfigError naming the registered ones
    if _why_not_single_agent_name(name):
      continue
    env_id = gymnasium_id(name, namespace)
    if env_id not in gymnasium.registry:
      gymnasium.register(
        id=env_id,
        entry_point=f"{__name__}:_single_entry_point",
        vector_entry_point=f"{__name__}:VectorEnv",
        max_episode_steps=_episode_length(name),
        kwargs={"env": name},
      )
    ids.append(env_id)
  return ids
