"""A multi-task batch under C physics whose shared code is traced once: MT50 compiles 3.5x faster.

`MultiTask` (multitask.py) builds each task's batch as its own env: every task's step, reset, packing
and wrappers are traced and compiled once per task, so a program holding MT50 is about five times
MT10's and compiles for minutes on the CPU (BENCHMARKS.md, "What MT50's compile time is not": the
tasks' rewards are a quarter of the program and cost nothing to compile; the code every task repeats
is what costs). `SharedMultiTask` holds all tasks' worlds in ONE padded batch instead:

- the state is one `CData` of all T*N worlds, each field padded at the end of its first axis to the
  largest task model's (`cphysics.Padded`); the C backend steps world w with its own task's model;
- traced once for the whole batch: the action's mocap target, the physics call (one host callback),
  the hand's observation, the observation clip (each world's bounds as data), the divergence test, the
  step's info and metrics, the one-hot task id, and the wrappers (`wrappers.batch` applies the per-world
  ones, EpisodeLimit and EpisodeStats, to the whole batch, and AutoReset once);
- traced once per task, on the task's own worlds (a static slice, task-major): what differs between
  tasks: the objects' observation, the reward and its reads, and a reset's placement.

Semantics are `MultiTask`'s under C physics, world for world: `reset(key)` draws task t's worlds from
the t-th split of the key as `MultiTask.reset` does, and a reset and every step give the same
observations, rewards, info and metrics bit for bit (tests/mjx_envs/test_mt_shared.py). What differs:
- `pipeline_state` is the padded batch (MultiTask: a tuple of per-task states); `info['ctx']` and
  `info['rand_vec']` are padded flat vectors (MultiTask drops them, their shapes differ by task);
- AutoReset draws its keys over the whole batch (MultiTask: per task), so the same seed gives other
  episode starts after the first auto-reset;
- C physics only (`impl="c"`): under MJX-JAX the models' own compiled code differs by task.

The meta-learning benchmarks (ML1, ML10, ML45; `meta.SharedMetaLearning`) build on this class with
`one_hot=False, goal_hidden=True`, RL²'s trials wrapping the whole batch.

    mt = mjx_envs.make("MT50", envs_per_task=2)               # on a CPU-only machine: this class
    mt = mjx_envs.make("MT50", envs_per_task=2, shared_code=False)   # MultiTask, as before 2026-11-28

Measured (benchmarks/mt_compile.py, 2 worlds per task, the training-wrapped step, the 2-core CPU idle,
2026-11-28): MT50's step compiles in 16.0 s against MultiTask's 56.2 (MT10: 4.3 against 10.7), its reset
in 10.1 against 27.4, and steps as fast; `train.py --config mtsac_mt50_cpu` is ready to train in 45.5 s
against 139.9 (BENCHMARKS.md, "One padded batch"). MT50 still compiles 3.7x MT10's time: what stays per
task is the tasks' own code, the rewards (two thirds of the bare step's compile) and the placements.

Start-up (2026-12-03, BENCHMARKS.md "MT50's start: each reset traced once"): the batch's reset and step
are jitted, so an algorithm's many traces of them (its shapes, init, init's lowering, auto-resets) run the
Python once per input shape; a batch resized to its own size is itself; per-task code reads only the
fields C physics writes as sliced rows. `mtsac_mt50_cpu` is ready in 19.7 s warm (37.9 before) and 53.4
cold (84.5), MT10 in 9.2 and 28.4: MT50 still takes 2.1x / 1.9x MT10's time.

Placements as tables (2026-12-03, BENCHMARKS.md "Resets read from tables"): with fixed rand_vecs (the
benchmarks' protocol) a reset's placement depends on (task, index) alone, so every task's placements of
its fixed vectors are computed once, in one program, when the batch is built (`_placements`), and a reset
gathers them: no task's own placement code is left in init, the train step's auto-reset or evaluation
(MT50's programs 8-19% fewer HLO ops; their cold XLA compiles 125 s -> 100 s on one core, the tables'
own program ~19 s). The context layouts are traced outside the compile-time-eval block (under it the
placements' ops on constants ran eagerly, each its own small XLA program). Same states bit for bit
(tests/mjx_envs/test_mt_shared.py, `fixed50`). On one core, side by side: `mtsac_mt50_cpu` ready in 21.8 s
warm against 28.5 (MT10 11.1 against 13.3: MT50 / MT10 1.96 against 2.14), 157.7 s cold against 169.6
(62.0 against 66.8). What is left per task: the rewards' and objects' code in the step, traced on every
start, and the 50 tasks' fixed rand_vecs drawn op by op at construction.

Evaluations (2026-12-03, BENCHMARKS.md "MT50's evaluation shares the training batch's step"): the jitted
step takes the batch's own info entries only (`_OWN_INFO_KEYS`), so a batch stepped under other wrappers
(an evaluation's, without AutoReset's entries) reuses its trace: with `mtsac_mt50_cpu`'s evaluation batch
now the training batch's size, its evaluation's trace fell from 7.5-8.6 s to 0.15 s (loaded core).

Tables on disk (2026-12-04, BENCHMARKS.md "MT50's constant tables on disk"): each task's fixed rand_vecs,
its context layout and the placement tables are kept beside the compilation cache (`mjx_envs.tables`) and
read back by the next process, bit for bit: MT50's build 6.7 s -> 1.9 s with a warm cache. What is left
per task on a warm start: the rewards' and objects' trace (step ~1.1 s, against MT10's 0.2), and the
larger program's lowering and cache load (train chunk 47k HLO ops against 17k: 3.1 s against 0.9).
"""

from __future__ import annotations

from mjx_envs import cphysics, tables
from mjx_envs.core import ConfigError, Env, State
from mjx_envs.metaworld import sawyer

import contextlib
import dataclasses
import json
import weakref
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import config as jax_config

# The entries of a batch's info that its step reads (`SharedMultiTask.step`).
_OWN_INFO_KEYS = sawyer.STATE_INFO_KEYS + ("task_id",)

# Each task env's context layout, read once per env object (envs are immutable).
_CTX_LAYOUTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _ctx_layout(task: sawyer.SawyerEnv) -> tuple:
  """The layout of the context a reset of `task` leaves in info['ctx'] (`SawyerEnv.reset_to`'s: the
  placement's, then the start's), read off a trace of those two alone: a quarter of a whole reset's
  trace (MT50: 0.25 s against 1.0 s)."""

  def ctx(rand_vec):
    d, placed = task.placed(task.make_data(), rand_vec)
    return sawyer.start_ctx(d, placed, task.ids, task.hand_init_pos)

  def compute():
    layout = _flat_layout(jax.eval_shape(ctx, jax.ShapeDtypeStruct(task.rand_low.shape, jnp.float32)))
    return {"layout": np.asarray(json.dumps(layout))}

  # On disk for the next start (`tables`): MT50's 50 traces are ~0.5 s of its build.
  out = tables.cached("metaworld-ctx-layout", (task.name, sorted(task.config.items())), compute)
  return tuple((k, tuple(shape)) for k, shape in json.loads(str(out["layout"])))


def _flat_layout(ctx) -> tuple:
  """((key, shape), ...) of a context dict, in its order."""
  return tuple((k, tuple(np.shape(v))) for k, v in ctx.items())


def _flatten(ctx, width: int) -> jax.Array:
  """A context dict -> float32 [width] (its values in order, zeros after)."""
  flat = jnp.concatenate([jnp.ravel(jnp.asarray(v, jnp.float32)) for v in ctx.values()])
  return jnp.pad(flat, (0, width - flat.shape[0]))


def _unflatten(flat: jax.Array, layout) -> dict:
  """`_flatten`'s inverse for one task's layout."""
  out, off = {}, 0
  for k, shape in layout:
    size = int(np.prod(shape, dtype=int))
    out[k] = flat[off : off + size].reshape(shape)
    off += size
  return out


# Each task's placements of its fixed rand_vecs, computed once per task and padding (see `_placements`).
_PLACEMENTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclasses.dataclass(frozen=True)
class _Placed:
  """One task's reset placements of its n fixed rand_vecs, on a padded template: the fields the placement
  writes ({field: [n, ...]}), its context flattened in the reset's layout with zeros where the start's
  values go ([n, L]), and the goal ([n, 3]). numpy: constants of every program that resets."""

  written: dict
  ctx: np.ndarray
  target: np.ndarray


def _placements(tasks, layouts, templates, fixed, slices) -> list[_Placed]:
  """Every task's `placed(template, rand_vec)` over its fixed rand_vecs, as numpy tables.

  With fixed rand_vecs (the benchmarks' protocol) a reset's placement is a function of (task, index)
  alone, so it is computed here once, in one program for all the tasks not yet cached, instead of being
  traced and compiled into every program that resets (init, the train step's auto-reset, evaluation).
  `layouts`: each task's context layout (`_ctx_layout`); `templates`: the padded per-task templates
  [T, ...]; `fixed`: [T, n, R_max]; `slices`: the fields
  a placement writes. Entries are cached per task and template shapes (a batch resized, the same tasks
  padded alike, reuses them)."""
  sig = tuple((f, np.shape(getattr(templates, f))[1:]) for f in slices)
  todo = [i for i, t in enumerate(tasks) if sig not in _PLACEMENTS.get(t, {})]
  if todo:

    def place_all(temps, fx):
      out = []
      for i in todo:
        t = tasks[i]
        template = jax.tree.map(lambda x, i=i: x[i], temps)
        d, ctx = jax.vmap(lambda r, t=t, template=template: t.placed(template, r))(
          fx[i, :, : t.rand_low.shape[0]]
        )
        # The start's values are written after the kinematics; zeros hold their places in the layout.
        full = {**ctx, **{k: jnp.zeros(d.qpos.shape[:1] + shp, jnp.float32) for k, shp in _START_SHAPES}}
        flat = jnp.concatenate([full[k].reshape(full[k].shape[0], -1) for k, _ in layouts[i]], -1)
        out.append(({f: getattr(d, f) for f in slices}, flat, ctx["target_pos"]))
      return out

    def compute():
      out = {}
      for j, (w, c, g) in enumerate(_run_now(place_all, templates, fixed)):
        out.update({f"{j}|w|{f}": v for f, v in w.items()})
        out.update({f"{j}|ctx": c, f"{j}|target": g})
      return out

    # On disk for the next start (`tables`): the program's trace is ~2 s of MT50's build. Its inputs are
    # the tasks (code and config) and the arrays below.
    key = (
      [(tasks[i].name, sorted(tasks[i].config.items())) for i in todo],
      sig,
      [layouts[i] for i in todo],
      tables.digest(fixed, *jax.tree.leaves(templates)),
    )
    out = tables.cached("metaworld-placements", key, compute)
    for j, i in enumerate(todo):
      written = {f: out[f"{j}|w|{f}"] for f in slices}
      entry = _Placed(written, out[f"{j}|ctx"], out[f"{j}|target"])
      _PLACEMENTS.setdefault(tasks[i], {})[sig] = entry
  return [_PLACEMENTS[t][sig] for t in tasks]


def _run_now(fn, *args):
  """`fn(*args)` compiled as one program and run now: concrete arrays even where the batch is built under
  an outer trace (an evaluation's batch inside a jitted function) or under `jax.ensure_compile_time_eval`
  (ML's held-out split), under which tracing `fn` would run each of its ops on constants eagerly, each
  its own small XLA program (MT50's tables: 129 of them, 22 s, none kept by the persistent cache)."""
  with _eager_constant_folding(False):
    compiled = jax.jit(fn).lower(*args).compile()
  return compiled(*args)


# The flag `jax.ensure_compile_time_eval` sets (private to JAX; without it, a no-op: the default is off).
_eager_constant_folding = getattr(jax_config, "eager_constant_folding", lambda _: contextlib.nullcontext())


# The keys and shapes a reset's start adds to the context after its kinematics (`sawyer.start_ctx`).
_START_SHAPES = (
  ("init_tcp", (3,)),
  ("init_left_pad", (3,)),
  ("init_right_pad", (3,)),
  ("hand_init_pos", (3,)),
)


# The model indices the shared code reads (the hand, its claws, pads and end-effector sites, the hand's
# and the goal's mocap bodies): the same in every task's model, which adds its objects after them.
_SHARED_IDS = (
  "hand",
  "rightclaw",
  "leftclaw",
  "rightpad",
  "leftpad",
  "right_ee",
  "left_ee",
  "hand_mocap",
  "goal_mocap",
)


class SharedMultiTask(Env):
  """T Sawyer tasks x `envs_per_task` worlds under C physics as one padded batch (module docstring)."""

  batched_natively = True  # `wrappers.batch` wraps the whole batch, not each world or task

  def __init__(
    self,
    tasks: Sequence[sawyer.SawyerEnv],
    names: Sequence[str],
    envs_per_task: int,
    *,
    one_hot: bool = True,
    goal_hidden: bool = False,
  ):
    if len(tasks) != len(names) or not tasks:
      raise ValueError("SharedMultiTask needs one name per task and at least one task")
    if int(envs_per_task) < 1:
      raise ConfigError(f"envs_per_task must be >= 1, got {envs_per_task!r}")
    not_c = [n for n, t in zip(names, tasks) if getattr(t, "impl", None) != "c"]
    if not_c:
      raise ConfigError(f"shared_code needs C physics (impl='c'); tasks {not_c} run under another impl")
    if len({tuple(getattr(t.ids, k) for k in _SHARED_IDS) for t in tasks}) != 1:
      raise ValueError(f"SharedMultiTask: {_SHARED_IDS} must be the same ids in every task's model")
    self.tasks, self.task_names = tuple(tasks), tuple(names)
    self.num_tasks, self.envs_per_task = len(tasks), int(envs_per_task)
    self.num_envs = self.num_tasks * self.envs_per_task
    # The multi-task benchmarks append the one-hot task id; the meta-learning ones (meta.py) hide the
    # goal (observation entries 36:39 zero) and show no task id.
    self.one_hot, self.goal_hidden = bool(one_hot), bool(goal_hidden)
    self.episode_length = min(t.episode_length for t in tasks)
    # Built eagerly even under a trace (an evaluation's `wrappers.batch` inside a jitted function): the
    # tables below are numpy constants of the program, and a task's data template may be built here first.
    with jax.ensure_compile_time_eval():
      self._build(tasks)
    # Each task's context layout (the keys and shapes its reset leaves in info['ctx']), read off an
    # abstract trace, outside the block above: under it the placement's ops on the template's constants
    # ran eagerly, each a small XLA program compiled per process (MT50: 2 s of the env's build, not 0.25).
    self._ctx = []
    for t in tasks:
      if t not in _CTX_LAYOUTS:  # `resized` batches of the same tasks reuse it
        _CTX_LAYOUTS[t] = _ctx_layout(t)
      self._ctx.append(_CTX_LAYOUTS[t])
    self._ctx_width = max(sum(int(np.prod(sh, dtype=int)) for _, sh in lay) for lay in self._ctx)
    self._placed = None
    if self._fixed is not None:
      self._placed = self._placement_tables()
    # Jitted, so that each is traced once per input shape in a process: an algorithm traces its env's
    # reset four times on its way to training (its shapes, its state's, init and init's lowering), at
    # ~1.3 s each for MT50 on this CPU. Inside another trace they enter as calls that XLA inlines.
    self._reset_traced = jax.jit(self._reset)
    self._step_traced = jax.jit(self._step)

  def _build(self, tasks) -> None:
    self.ids = tasks[0].ids
    n = self.envs_per_task
    self.physics = cphysics.Padded(
      [t.cphysics for t in tasks], [t.make_data() for t in tasks], [n] * self.num_tasks
    )
    per_world = lambda xs: np.repeat(np.stack([np.asarray(x, np.float32) for x in xs]), n, axis=0)
    self._mocap_low = per_world([t.mocap_low for t in tasks])
    self._mocap_high = per_world([t.mocap_high for t in tasks])
    self._obs_low = per_world([t.obs_low for t in tasks])
    self._obs_high = per_world([t.obs_high for t in tasks])
    self._task_id = np.repeat(np.arange(self.num_tasks, dtype=np.int32), n)
    self._rand_width = max(int(np.shape(t.rand_low)[0]) for t in tasks)
    # Every task's padded reset-state data, stacked [T, ...] (numpy: gathered per world in `reset`).
    self._templates = jax.tree.map(
      lambda *xs: np.stack(xs), *[self.physics.template(i) for i in range(self.num_tasks)]
    )
    # The fields C physics writes (the state's parts, the derived fields, the contacts): every other
    # field of a world holds its task template's value (resets start from it, steps never write it).
    self._live = set(self.physics.fields) | set(self.physics.slices) | {"_impl"}
    self._rand_sizes = sorted({int(t.rand_low.shape[0]) for t in tasks})
    # The fixed rand_vecs of every task as one padded table [T, n, R_max], where all tasks have n of them.
    fixed = [t.fixed_rand_vecs for t in tasks]
    self._fixed = None
    if all(f is not None for f in fixed) and len({f.shape[0] for f in fixed}) == 1:
      pad = lambda f: np.pad(np.asarray(f, np.float32), ((0, 0), (0, self._rand_width - f.shape[1])))
      self._fixed = np.stack([pad(f) for f in fixed])
    elif any(f is not None for f in fixed):
      raise ConfigError("SharedMultiTask: either every task or none has fixed rand_vecs, all of one count")

  def _placement_tables(self) -> dict:
    """The placements of every task's fixed rand_vecs as [T, n, ...] tables (`_placements`): the fields
    written, the flat context (zeros at the start's places, padded to the batch's width), the goal, and
    where each task's layout puts the start's values ([T, 12])."""
    placed = _placements(self.tasks, self._ctx, self._templates, self._fixed, self.physics.slices)
    start_pos = []
    for p, layout in zip(placed, self._ctx):
      offsets, off = {}, 0
      for k, shape in layout:
        size = int(np.prod(shape, dtype=int))
        offsets[k] = np.arange(off, off + size)
        off += size
      if off != p.ctx.shape[1] or any(k not in offsets for k, _ in _START_SHAPES):
        raise ValueError("SharedMultiTask: a placement's context does not match its reset's layout")
      start_pos.append(np.concatenate([offsets[k] for k, _ in _START_SHAPES]))
    pad = lambda c: np.pad(c, ((0, 0), (0, self._ctx_width - c.shape[1])))
    return {
      "written": {f: np.stack([p.written[f] for p in placed]) for f in self.physics.slices},
      "ctx": np.stack([pad(p.ctx) for p in placed]),
      "target": np.stack([p.target for p in placed]),
      "start_pos": np.stack(start_pos).astype(np.int32),
    }

  def resized(self, envs_per_task: int) -> SharedMultiTask:
    """The same tasks with `envs_per_task` worlds each (this batch itself where that is its size: its
    compiled reset and step are then shared)."""
    if int(envs_per_task) == self.envs_per_task:
      return self
    return SharedMultiTask(
      self.tasks, self.task_names, envs_per_task, one_hot=self.one_hot, goal_hidden=self.goal_hidden
    )

  @property
  def action_size(self):
    return 4

  @property
  def observation_size(self):
    return 39 + self.num_tasks * self.one_hot

  @property
  def unwrapped(self):
    return self

  def check_action(self, action) -> None:
    if getattr(action, "shape", None) is None or tuple(action.shape) != (self.num_envs, 4):
      raise ValueError(
        f"SharedMultiTask: actions must have shape ({self.num_envs}, 4) "
        f"(num_tasks x envs_per_task, action_size), got {getattr(action, 'shape', type(action))}"
      )

  def split(self, x):
    """[T*N, ...] -> [T, N, ...] (per-task views of a per-world array)."""
    return x.reshape((self.num_tasks, self.envs_per_task) + x.shape[1:])

  def task_data(self, data, t: int):
    """Task t's worlds of the padded physics state `data` (a state's `pipeline_state`) as that task's
    own CData [envs_per_task, ...] (what `MultiTask` holds for it)."""
    return self.physics.unpadded(data, t)

  def world_keys(self, rng) -> jax.Array:
    """One key -> the T*N worlds' keys: task t's N from the t-th split of it (`MultiTask`'s derivation,
    which `wrappers.AutoReset` also uses for its keys)."""
    tasks = jax.random.split(rng, self.num_tasks)
    return jnp.concatenate([jax.random.split(k, self.envs_per_task) for k in tasks])

  def _slices(self):
    n = self.envs_per_task
    return [slice(t * n, (t + 1) * n) for t in range(self.num_tasks)]

  def _tag(self, obs):
    """obs [W, 39] -> [W, 39 + T] with each world's one-hot task id (`one_hot`); the goal's entries
    zero (`goal_hidden`)."""
    if self.goal_hidden:
      obs = obs.at[:, sawyer.GOAL_SLICE].set(0.0)
    if not self.one_hot:
      return obs
    one_hot = jax.nn.one_hot(self._task_id, self.num_tasks, dtype=obs.dtype)
    return jnp.concatenate([obs, one_hot], -1)

  def _objects(self, d):
    """The objects' 14 current values of every world [W, 14]: each task's code on its own worlds."""
    return jnp.concatenate([self._per_world(t.objects_obs, i, d) for i, t in enumerate(self.tasks)])

  def _per_world(self, fn, t: int, d, *args):
    """`fn(world's data, *world's args)` vmapped over task t's worlds of the padded batch `d` (and of
    `args`, already task t's rows). Only the fields C physics writes (`_live`) are sliced to those rows;
    every other field enters unmapped, as the task template's row, which is what it holds there: slicing
    all ~60 fields for each of MT50's tasks was 40% of a reset's trace."""
    rows = self._slices()[t]
    view, axes = {}, {}
    for f in dataclasses.fields(d):
      live = f.name in self._live
      x = getattr(d, f.name) if live else getattr(self._templates, f.name)
      view[f.name] = jax.tree.map(lambda v, live=live: v[rows] if live else v[t], x)
      axes[f.name] = 0 if live else None
    return jax.vmap(fn, in_axes=(d.replace(**axes),) + (0,) * len(args))(d.replace(**view), *args)

  def task_reward(self, i: int, d, ctx, obs, action):
    """Task i's own step code, on its worlds: (reward [N], info) from the padded batch `d` and task i's rows
    of the flat contexts `ctx`, observations `obs` [N, 39] and actions `action` [N, 4]. The step traces it
    once per task (`benchmarks/mt_compile.py --per-task` lowers it alone)."""
    t, layout = self.tasks[i], self._ctx[i]

    def reward(dd, flat, o, a):
      return t.task.reward(o, a, t.reward_reads(dd, _unflatten(flat, layout)))

    return self._per_world(reward, i, d, ctx, obs, action)

  def _current(self, d):
    return jnp.concatenate([jax.vmap(self.tasks[0].hand_obs)(d), self._objects(d)], -1).astype(jnp.float32)

  def reset(self, rng) -> State:
    """One key -> T*N fresh worlds (task t's worlds from the t-th split of the key, as MultiTask's), or
    per-world keys [T*N, 2] (an auto-reset's)."""
    rng = jnp.asarray(rng)
    if rng.shape not in ((2,), ()) and rng.shape[:1] != (self.num_envs,):
      raise ValueError(
        f"SharedMultiTask.reset takes one PRNG key or {self.num_envs} keys, got shape {rng.shape}"
      )
    # Per-world keys in, whichever way it is called: a start's reset and an auto-reset's share one trace.
    return self._reset_traced(self.world_keys(rng) if rng.shape in ((2,), ()) else rng)

  def _reset(self, keys) -> State:
    if self._placed is not None:
      written, rand_vecs, context = self._placed_from_tables(keys)
    else:
      written, rand_vecs, context = self._placed_by_tasks(keys)
    # A placement writes the state's input fields only (what the kinematics call reads); every other
    # field is its task's template, gathered per world from one table rather than built per task.
    base = jax.tree.map(lambda x: jnp.asarray(x)[self._task_id], self._templates)
    d = self.physics.forward(base.replace(**written))
    hand_init = jnp.asarray(np.repeat(np.stack([t.hand_init_pos for t in self.tasks]), self.envs_per_task, 0))
    start = jax.vmap(lambda dd, h: sawyer.start_ctx(dd, {}, self.ids, h))(d, hand_init)
    flat, target = context(start)
    cur = self._current(d)
    obs = jax.vmap(sawyer.observe)(cur, cur, target, self._obs_low, self._obs_high)
    state = jax.vmap(sawyer.start_state)(d, flat, target, cur, obs, rand_vecs)
    return self._finish(state)

  def _placed_by_tasks(self, keys):
    """A reset's placements by each task's own code on its worlds: (the fields written [W, ...], the
    rand_vecs [W, R_max], start's context dict -> (flat contexts [W, width], goals [W, 3]))."""
    written, ctxs = [], []
    rand_vecs = self._rand_vecs(keys)
    for i, (t, s) in enumerate(zip(self.tasks, self._slices())):
      template = jax.tree.map(lambda x, i=i: jnp.asarray(x[i]), self._templates)
      rv = rand_vecs[s, : t.rand_low.shape[0]]
      d, ctx = jax.vmap(lambda r, t=t, template=template: t.placed(template, r))(rv)
      written.append({f: getattr(d, f) for f in self.physics.slices})
      ctxs.append(ctx)

    def context(start):
      flat, starts = [], []
      for c, s in zip(ctxs, self._slices()):
        ctx = {**c, **{k: v[s] for k, v in start.items()}}
        flat.append(jax.vmap(lambda c: _flatten(c, self._ctx_width))(ctx))
        starts.append(ctx["target_pos"])
      return jnp.concatenate(flat), jnp.concatenate(starts)

    return jax.tree.map(lambda *xs: jnp.concatenate(xs), *written), rand_vecs, context

  def _placed_from_tables(self, keys):
    """`_placed_by_tasks` where every task has fixed rand_vecs: each world's placement read from the
    tables (`_placements`), so no task's own code is in the program; the same values bit for bit."""
    idx = jax.vmap(lambda k: sawyer.fixed_index(k, self._fixed.shape[1]))(keys)
    row = lambda table: jnp.asarray(table)[self._task_id, idx]

    def context(start):
      if {k: v.shape[1:] for k, v in start.items()} != dict(_START_SHAPES):
        raise ValueError(f"SharedMultiTask: the start's context changed: {jax.tree.map(jnp.shape, start)}")
      values = jnp.concatenate([start[k].astype(jnp.float32) for k, _ in _START_SHAPES], -1)
      pos = jnp.asarray(self._placed["start_pos"])[self._task_id]
      flat = row(self._placed["ctx"]).at[jnp.arange(self.num_envs)[:, None], pos].set(values)
      return flat, row(self._placed["target"])

    return {f: row(v) for f, v in self._placed["written"].items()}, row(self._fixed), context

  def _rand_vecs(self, keys: jax.Array) -> jax.Array:
    """Every world's reset rand_vec [W, R_max] (zeros after a task's own length), each drawn as its task's
    `rand_vec_of` draws it, bit for bit. The random draws, the larger part of a reset's program, are
    made once for all worlds (per rand_vec length), not once per task."""
    if self._fixed is not None:  # the benchmarks' protocol: one index per world into its task's table
      idx = jax.vmap(lambda k: sawyer.fixed_index(k, self._fixed.shape[1]))(keys)
      return jnp.asarray(self._fixed)[self._task_id, idx]
    units = {r: jax.vmap(lambda k, r=r: sawyer.unit_candidates(k, r))(keys) for r in self._rand_sizes}
    out = []
    for t, s in zip(self.tasks, self._slices()):
      rv = jax.vmap(t.rand_vec_from)(units[t.rand_low.shape[0]][s])
      out.append(jnp.pad(rv, ((0, 0), (0, self._rand_width - rv.shape[-1]))))
    return jnp.concatenate(out)

  def _finish(self, state: State) -> State:
    return state.replace(obs=self._tag(state.obs), info={**state.info, "task_id": jnp.asarray(self._task_id)})

  def step(self, state: State, action: jax.Array) -> State:
    self.check_action(action)
    # The jitted step gets the batch's own entries only: its output holds no others either way, and
    # wrappers' entries (AutoReset's in training, none in an evaluation) would make each wrapper stack
    # trace the 50 tasks' step code again (MT50: ~3.7 s of every evaluation's first trace).
    missing = [k for k in _OWN_INFO_KEYS if k not in state.info]
    if missing:
      raise ValueError(f"SharedMultiTask.step: the state's info lacks {missing}: not a state of this batch")
    own = {k: state.info[k] for k in _OWN_INFO_KEYS}
    return self._step_traced(state.replace(info=own, metrics={}), action)

  def _step(self, state: State, action: jax.Array) -> State:
    d0 = state.pipeline_state
    inputs = lambda d, a, lo, hi: sawyer.step_inputs(d, a, self.ids.hand_mocap, lo, hi)
    action, bad, mocap_pos, ctrl = jax.vmap(inputs)(d0, action, self._mocap_low, self._mocap_high)
    d = self.physics.step(d0.replace(ctrl=ctrl, mocap_pos=mocap_pos))
    cur = self._current(d)
    target = state.info["target"]
    obs = jax.vmap(sawyer.observe)(cur, state.info["prev"], target, self._obs_low, self._obs_high)
    rewards, infos = [], []
    for i, s in enumerate(self._slices()):
      r, info = self.task_reward(i, d, state.info["ctx"][s], obs[s], action[s])
      rewards.append(r)
      infos.append({k: jnp.asarray(info[k], jnp.float32) for k in sawyer.INFO_KEYS})
    reward = jnp.concatenate(rewards)
    info = jax.tree.map(lambda *xs: jnp.concatenate(xs), *infos)
    diverged = jax.vmap(self.tasks[0].diverged)(d)
    inner = state.replace(obs=state.obs[:, :39])
    out = jax.vmap(sawyer.step_state)(inner, d, cur, obs, reward, info, bad, diverged)
    return self._finish(out)
