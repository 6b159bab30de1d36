"""Multi-task batches: several tasks, each with its own MJX model, stepped together as one batch.

`MultiTask(tasks, envs_per_task)` runs T tasks x N worlds. `reset(key)` returns one State of T*N worlds in
task-major order (worlds [i*N, (i+1)*N) are task i); `step(state, action [T*N, A])` steps each task's
vmapped batch on its slice and concatenates. The observation of every world appends the one-hot task id
(`TaskId`), and `info['task_id']` holds the task index. Per-world arrays of `metrics` and `info` that all
tasks share (same key, same trailing shape) are concatenated; the members' own states live in
`pipeline_state` (a tuple, one State per task).

Wrappers apply per task, inside the batch: `mjx_envs.wrappers.wrap_for_training(mt, num_envs)` and the
evaluation build each task's EpisodeLimit -> EpisodeStats -> Batch -> AutoReset through
`with_members`, so a world's auto-reset draws a fresh episode of its own task.

On a CPU-only machine (C physics, `impl="c"`) `mjx_envs.make("MT10" | "MT50" | "MT")` builds a
`shared.SharedMultiTask` instead: the same numbers world for world, with the code all tasks share traced
once for the whole batch (MT50's step compiles 3.5x faster); `shared_code=False` builds this class.

Under C physics (`impl="c"`) the tasks' physics runs as ONE host callback per step and per reset
(`cphysics.fused`, `fuse_physics=True`, the default), all tasks' worlds over one thread pool, bit for bit
the result of one callback per task; `unfused` names the tasks that could not take part, and why.

    mt = mjx_envs.make("MT10", envs_per_task=8)   # 80 worlds
    mt = mjx_envs.make("MT50", envs_per_task=2)   # all 50 tasks, 100 worlds
    mt = mjx_envs.make("MT", tasks=["reach-v3", "push-wall-v3"], envs_per_task=4)   # your own set

`MT50_TASKS`, `ML10_TRAIN` / `ML10_TEST` and `ML45_TRAIN` / `ML45_TEST` are the reference's lists.
"""

from __future__ import annotations

from mjx_envs import cphysics, wrappers
from mjx_envs.core import ConfigError, Env, State
from mjx_envs.metaworld import sawyer
from mjx_envs.metaworld import tasks as _tasks
from mjx_envs.metaworld.shared import SharedMultiTask

import functools
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp

MT10_TASKS = _tasks.MT10
# metaworld 3.1.1's benchmark task lists (`metaworld.MT50().train_classes` in its order; ML10's and
# ML45's train and test classes), read from the reference package.
MT50_TASKS = (
  "assembly-v3", "basketball-v3", "bin-picking-v3", "box-close-v3", "button-press-topdown-v3",
  "button-press-topdown-wall-v3", "button-press-v3", "button-press-wall-v3", "coffee-button-v3",
  "coffee-pull-v3", "coffee-push-v3", "dial-turn-v3", "disassemble-v3", "door-close-v3", "door-lock-v3",
  "door-open-v3", "door-unlock-v3", "hand-insert-v3", "drawer-close-v3", "drawer-open-v3",
  "faucet-open-v3", "faucet-close-v3", "hammer-v3", "handle-press-side-v3", "handle-press-v3",
  "handle-pull-side-v3", "handle-pull-v3", "lever-pull-v3", "pick-place-wall-v3", "pick-out-of-hole-v3",
  "pick-place-v3", "plate-slide-v3", "plate-slide-side-v3", "plate-slide-back-v3",
  "plate-slide-back-side-v3", "peg-insert-side-v3", "peg-unplug-side-v3", "soccer-v3", "stick-push-v3",
  "stick-pull-v3", "push-v3", "push-wall-v3", "push-back-v3", "reach-v3", "reach-wall-v3",
  "shelf-place-v3", "sweep-into-v3", "sweep-v3", "window-open-v3", "window-close-v3",
)  # fmt: skip
ML10_TRAIN = (
  "reach-v3", "push-v3", "pick-place-v3", "door-open-v3", "drawer-close-v3", "button-press-topdown-v3",
  "peg-insert-side-v3", "window-open-v3", "sweep-v3", "basketball-v3",
)  # fmt: skip
ML10_TEST = ("drawer-open-v3", "door-close-v3", "shelf-place-v3", "sweep-into-v3", "lever-pull-v3")
ML45_TEST = ("bin-picking-v3", "box-close-v3", "hand-insert-v3", "door-lock-v3", "door-unlock-v3")
# The reference's ML45 train order (not MT50's: push-back before pick-place, push-wall before push).
ML45_TRAIN = (
  "assembly-v3", "basketball-v3", "button-press-topdown-v3", "button-press-topdown-wall-v3",
  "button-press-v3", "button-press-wall-v3", "coffee-button-v3", "coffee-pull-v3", "coffee-push-v3",
  "dial-turn-v3", "disassemble-v3", "door-close-v3", "door-open-v3", "drawer-close-v3", "drawer-open-v3",
  "faucet-open-v3", "faucet-close-v3", "hammer-v3", "handle-press-side-v3", "handle-press-v3",
  "handle-pull-side-v3", "handle-pull-v3", "lever-pull-v3", "pick-place-wall-v3", "pick-out-of-hole-v3",
  "push-back-v3", "pick-place-v3", "plate-slide-v3", "plate-slide-side-v3", "plate-slide-back-v3",
  "plate-slide-back-side-v3", "peg-insert-side-v3", "peg-unplug-side-v3", "soccer-v3", "stick-push-v3",
  "stick-pull-v3", "push-wall-v3", "push-v3", "reach-wall-v3", "reach-v3", "shelf-place-v3",
  "sweep-into-v3", "sweep-v3", "window-open-v3", "window-close-v3",
)  # fmt: skip


class TaskId(wrappers.Wrapper):
  """Appends the one-hot id of task `index` of `num_tasks` to the observation; `info['task_id']`."""

  def __init__(self, env: Env, index: int, num_tasks: int):
    super().__init__(env)
    self.index, self.num_tasks = int(index), int(num_tasks)

  def _tag(self, state):
    one_hot = jax.nn.one_hot(self.index, self.num_tasks, dtype=state.obs.dtype)
    return state.replace(
      obs=jnp.concatenate([state.obs, one_hot], -1), info={**state.info, "task_id": jnp.int32(self.index)}
    )

  def reset(self, rng):
    return self._tag(self.env.reset(rng))

  def step(self, state, action):
    inner = state.replace(obs=state.obs[..., : -self.num_tasks])
    return self._tag(self.env.step(inner, action))

  @property
  def observation_size(self):
    return self.env.observation_size + self.num_tasks


def _shared(trees, n):
  """The entries of dicts `trees` present in all of them with per-world leaves of equal trailing
  shape (leading axis n), concatenated along the world axis."""
  out = {}
  for k in trees[0]:
    vals = [t.get(k) for t in trees]
    if any(v is None for v in vals):
      continue
    structs = [jax.tree.structure(v) for v in vals]
    if any(s != structs[0] for s in structs):
      continue
    leaves = [jax.tree.leaves(v) for v in vals]
    if not all(
      getattr(l, "ndim", 0) >= 1 and l.shape[0] == n and l.shape[1:] == leaves[0][j].shape[1:]
      for ls in leaves
      for j, l in enumerate(ls)
    ):
      continue
    out[k] = jax.tree.map(lambda *xs: jnp.concatenate(xs, 0), *vals)
  return out


class MultiTask(Env):
  """T tasks x `envs_per_task` worlds stepped as one batch (see the module docstring)."""

  def __init__(
    self,
    tasks: Sequence[Env],
    names: Sequence[str],
    envs_per_task: int,
    member: Callable[[Env], Env] | None = None,
    fuse_physics: bool = True,
  ):
    if len(tasks) != len(names) or not tasks:
      raise ValueError("MultiTask needs one name per task and at least one task")
    if int(envs_per_task) < 1:
      raise ConfigError(f"envs_per_task must be >= 1, got {envs_per_task!r}")
    sizes = {t.action_size for t in tasks}
    if len(sizes) != 1:
      raise ValueError(f"every task must have the same action size, got {sizes}")
    self.tasks = tuple(tasks)
    self.task_names = tuple(names)
    self.num_tasks = len(tasks)
    self.envs_per_task = int(envs_per_task)
    self.num_envs = self.num_tasks * self.envs_per_task
    self._member = member or (lambda env: wrappers.Batch(env, self.envs_per_task))
    self.members = tuple(self._member(TaskId(t, i, self.num_tasks)) for i, t in enumerate(self.tasks))
    self.episode_length = min(getattr(t, "episode_length", sawyer.MAX_PATH_LENGTH) for t in tasks)
    # Under impl="c", one host callback for all tasks' physics per step and reset (`cphysics.fused`).
    self.fuse_physics = bool(fuse_physics) and all(getattr(t, "impl", None) == "c" for t in tasks)
    self.unfused: dict[str, str] = {}  # task name -> why its physics ran its own callback (last trace)

  def with_members(self, wrap: Callable[[Env], Env], envs_per_task: int) -> MultiTask:
    """The same tasks with `envs_per_task` worlds each, every task's batch built as wrap(TaskId(task))."""
    return MultiTask(self.tasks, self.task_names, envs_per_task, wrap, self.fuse_physics)

  @property
  def action_size(self):
    return self.tasks[0].action_size

  @property
  def observation_size(self):
    return self.tasks[0].observation_size + self.num_tasks

  @property
  def unwrapped(self):
    return self

  def check_action(self, action) -> None:
    if getattr(action, "shape", None) is None or tuple(action.shape) != (self.num_envs, self.action_size):
      raise ValueError(
        f"MultiTask: actions must have shape ({self.num_envs}, {self.action_size}) "
        f"(num_tasks x envs_per_task, action_size), got {getattr(action, 'shape', type(action))}"
      )

  def _combine(self, states) -> State:
    n = self.envs_per_task
    info = _shared([s.info for s in states], n)
    info["task_id"] = jnp.repeat(jnp.arange(self.num_tasks, dtype=jnp.int32), n)
    return State(
      pipeline_state=tuple(states),
      obs=jnp.concatenate([s.obs for s in states], 0),
      reward=jnp.concatenate([s.reward for s in states], 0),
      done=jnp.concatenate([s.done for s in states], 0),
      metrics=_shared([s.metrics for s in states], n),
      info=info,
    )

  def reset(self, rng) -> State:
    """One key -> T*N fresh worlds (task i's from the i-th split of the key)."""
    rng = jnp.asarray(rng)
    if rng.shape not in ((2,), ()):
      raise ValueError(f"MultiTask.reset takes one PRNG key, got shape {rng.shape}")
    keys = jax.random.split(rng, self.num_tasks)
    fns = [functools.partial(m.reset, k) for m, k in zip(self.members, keys)]
    return self._combine(self._run(fns, keys, "kinematics"))

  def step(self, state: State, action: jax.Array) -> State:
    self.check_action(action)
    n = self.envs_per_task
    fns = [
      functools.partial(m.step, s, action[i * n : (i + 1) * n])
      for i, (m, s) in enumerate(zip(self.members, state.pipeline_state))
    ]
    return self._combine(self._run(fns, action, "step"))

  def _run(self, fns, ref, mode: str) -> list:
    """[fn() for fn in fns], the members' C physics calls of `mode` fused into one (`fuse_physics`)."""
    if not self.fuse_physics:
      return [fn() for fn in fns]
    out, reasons = cphysics.fused(fns, ref, mode)
    self.unfused = {n: r for n, r in zip(self.task_names, reasons) if r is not None}
    return out

  def split(self, x):
    """[T*N, ...] -> [T, N, ...] (per-task views of a per-world array)."""
    return x.reshape((self.num_tasks, self.envs_per_task) + x.shape[1:])


def mt10_default_config():
  # shared_code: under C physics, trace the code all tasks share once for the whole batch
  # (`shared.SharedMultiTask`: the same numbers, a shorter compile); MJX-JAX runs `MultiTask` either way.
  return {"envs_per_task": 1, "shared_code": True, **sawyer.default_config()}


def mt_default_config():
  return {"tasks": list(MT10_TASKS), **mt10_default_config()}


def check_tasks(benchmark: str, names, what: str = "tasks") -> tuple[str, ...]:
  """`names` as a tuple; ConfigError for a non-list or empty one, unknown names and repeats."""
  if isinstance(names, str) or not isinstance(names, Sequence) or not names:
    raise ConfigError(f"{benchmark}: {what} must be a non-empty list of task names, got {names!r}")
  names = tuple(names)
  unknown = [n for n in names if n not in MT50_TASKS]
  if unknown:
    raise ConfigError(f"{benchmark}: unknown Meta-World tasks {unknown}; known: {list(MT50_TASKS)}")
  if len(set(names)) != len(names):
    raise ConfigError(f"{benchmark}: {what} repeat: {list(names)}")
  return names


def check_built(benchmark: str, names) -> None:
  """ConfigError naming the tasks of `names` whose module is not built yet."""
  missing = [n for n in dict.fromkeys(names) if n not in _tasks.available()]
  if missing:
    raise ConfigError(f"{benchmark}: tasks {missing} are not built yet")


def make_mt(
  tasks: Sequence[str], envs_per_task: int = 1, benchmark: str = "MT", shared_code: bool = True, **task_config
) -> Env:
  """A multi-task batch of any Meta-World tasks (`tasks`: names such as "reach-v3", no repeats),
  `envs_per_task` worlds each, the one-hot id over len(tasks). Unknown names and tasks whose module is not
  built yet are refused by name. Under C physics with `shared_code` a `shared.SharedMultiTask`, else a
  `MultiTask` (the same observations, rewards and episodes)."""
  tasks = check_tasks(benchmark, tasks)
  check_built(benchmark, tasks)
  return _batch(tasks, envs_per_task, shared_code, task_config)


def _batch(names, envs_per_task: int, shared_code: bool, task_config) -> Env:
  """The tasks `names` as a SharedMultiTask (C physics and `shared_code`) or a MultiTask."""
  envs = [sawyer.SawyerEnv(_tasks.module(n).TASK, **task_config) for n in names]
  if shared_code and all(e.impl == "c" for e in envs):
    return SharedMultiTask(envs, names, envs_per_task)
  return MultiTask(envs, names, envs_per_task)


def make_mt10(envs_per_task: int = 1, **task_config) -> Env:
  """MT10: reach, push, pick-place, door-open, drawer-open, drawer-close, button-press-topdown,
  peg-insert-side, window-open, window-close (each `-v3`), `envs_per_task` worlds each."""
  return make_mt(MT10_TASKS, envs_per_task, benchmark="MT10", **task_config)


def make_mt50(envs_per_task: int = 1, **task_config) -> Env:
  """MT50: all 50 tasks of metaworld 3.1.1's MT50, in its order, `envs_per_task` worlds each."""
  return make_mt(MT50_TASKS, envs_per_task, benchmark="MT50", **task_config)


def scripted_rollout(names: Sequence[str], envs_per_task: int, steps: int, key, **task_config):
  """ONE batched rollout of tasks `names` (`envs_per_task` worlds each, as `make_mt` builds them),
  every world following its task's scripted controller (`tasks.<module>.scripted`) for `steps` steps
  from `reset(key)`. Returns (the batch, first State, last State, rewards [steps, T*N]); `mt.split(...)`
  gives per-task views."""
  mt = _batch(tuple(names), envs_per_task, task_config.pop("shared_code", True), task_config)
  ctrls = [_tasks.module(n).scripted for n in names]

  @jax.jit
  def run(key):
    s0 = mt.reset(key)

    def body(s, _):
      acts = jnp.concatenate([c(o) for c, o in zip(ctrls, mt.split(s.obs[:, :39]))], 0)
      s = mt.step(s, acts)
      return s, s.reward

    s, rew = jax.lax.scan(body, s0, None, length=steps)
    return s0, s, rew

  return (mt, *run(key))
