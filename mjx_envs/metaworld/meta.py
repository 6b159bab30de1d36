"""Meta-World's meta-learning benchmarks, ML1, ML10, ML45 and your own, as batched envs.

    ml = mjx_envs.make("ML1", task="push-v3", split="train")   # one task, its 50 train goals
    ml = mjx_envs.make("ML10", split="test", envs_per_task=4)    # the 5 held-out tasks, 4 worlds each
    ml = mjx_envs.make("ML", train_tasks=["reach-v3", "push-v3"], test_tasks=["pick-place-v3"])
    ml = mjx_envs.make("ML1", task="push-v3", rl2_episodes=10)  # RL²: trials of 10 episodes
    ml.evaluation_env                                            # the same benchmark's test split

As the reference (metaworld 3.1.1 `ML1`, `ML10`, `ML45`, `CustomML`, `_make_tasks`): the goal is hidden
(its `partially_observable`: observation entries 36:39 are zero), no task id enters the observation
(`info['task_id']` keeps the task's index for per-task logs), each task of a split has a fixed set of
`num_goals` (50) goals (`rand_vec`s) drawn once by a seed, and every episode draws one of them uniformly
(the reference's `RandomTaskSelectWrapper`). ML1 is one task with 50 train and 50 test goals; ML10
trains on 10 tasks and tests on 5 others, ML45 on 45 and 5 (`ML10_TRAIN`, ... in `multitask.py`, the
reference's lists in its order). Worlds are task-major, `envs_per_task` each (the reference's meta-batch
likewise gives every task the same number of sub-envs: meta_batch_size / number of tasks). A benchmark
whose tasks (train or test) are not all built yet is refused, naming them.

`rl2_episodes` = K > 0 wraps every world in `mjx_envs.trials.Trials`: an episode of the env is then a
trial of K episodes of one task and goal, with the previous action, reward / 10 and done appended to the
observation (RL²'s input; the reference's `RNNBasedMetaRLWrapper`). `rl2_success_bonus` = b adds b to
every step's reward from an episode's first success on (`Trials`' success_bonus; default 0, the
reference's reward): a shaping outside the protocol, for studying adaptation across a trial's episodes.

Two builds, the same episodes world for world (tests/mjx_envs/test_mt_shared.py, bit for bit):
- on a CPU-only machine (C physics, `shared_code=True`, the default) a `SharedMetaLearning`: all tasks'
  worlds in one padded batch (`shared.SharedMultiTask`, its goal hidden and no one-hot), the trials over
  the whole batch; the code every task shares is traced once, so `rl2_ml10_cpu` is ready to train in
  41 s instead of 102 and `rl2_ml45_cpu` in 74 s instead of 301 (BENCHMARKS.md, "ML10 and ML45 on the
  padded batch");
- under MJX-JAX, or with `shared_code=False`, a `MetaLearning`: each task's worlds a batch of their own
  (GoalHidden, Trials and TaskIndex per world), every task's code traced on its own.

The goals name themselves: a task's goal vector also places its objects (reach-v3: [object xyz, goal
xyz]), and the objects' start is in view while the goal is hidden, as in the reference. On a split's 50
fixed vectors a learner can therefore learn which object start means which goal instead of finding the
goal by the reward, a lookup that is worthless on the test goals. Measured (RL², ML1 reach, CPU,
2026-11-28, `benchmarks/rl2_adaptation.py`): trained on the 50 train goals, success 0.75 on them, 0.36
when the policy is shown another world's objects, 0.31 on the 50 test goals; trained on `num_goals=5000`
(a training setting outside ML1's protocol) 0.78 / 0.76 / 0.80. Evaluate such a run on the benchmark's
goals with `num_goals=50` (`restore_run(..., overrides=("env.num_goals=50",))`). A task whose vector has
few random entries (drawer-close: one) repeats a vector among a few thousand draws, which a build refuses.

Deliberate differences from the reference:
- Goals: the reference draws each task's 50 `rand_vec`s with numpy's global generator (unseeded by
  default, so there is no canonical set), through its env's reset and rejection loop; ML1's test goals
  come from seed + 1, ML10/ML45 draw train and test tasks from one stream. Here each task's goals are
  `SawyerEnv(fixed_rand_vecs=num_goals)` draws (JAX, the task's own rejection rule) from the seed
  100 * goal_seed + 2 * (the task's index in MT50_TASKS) for the train split and that + 1 for the test
  split: the vectors differ from any given reference draw, the protocol (fixed, per task, 50, test from
  seed + 1) is the same. A build refuses goal sets with repeated vectors (the reference asserts 50
  unique ones) and ML1 sets whose train and test goals share one.
- The task of a world is fixed (its slot in the task-major batch); the reference's sub-envs are fixed
  to one task class too, and both draw a goal of that task per episode (per trial under RL²).
- Goal draws: every world draws uniformly from all of its task's goals, with replacement (the
  reference's `RandomTaskSelectWrapper`). The reference's `make_ml_envs_train` / `_test` instead deal a
  task's goals out among its sub-envs and cycle through each share in a shuffled order
  (`PseudoRandomTaskSelectWrapper`), so an evaluation of 50 trials there sees every test goal once.
"""

from __future__ import annotations

from mjx_envs import trials, wrappers
from mjx_envs.core import ConfigError, Env
from mjx_envs.metaworld import sawyer
from mjx_envs.metaworld import tasks as _tasks
from mjx_envs.metaworld.multitask import (
  ML10_TEST,
  ML10_TRAIN,
  ML45_TEST,
  ML45_TRAIN,
  MT50_TASKS,
  MultiTask,
  check_built,
  check_tasks,
)
from mjx_envs.metaworld.shared import SharedMultiTask

import dataclasses
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

SPLITS = ("train", "test")
GOAL_SLICE = sawyer.GOAL_SLICE  # the goal's entries of the 39-D observation


class GoalHidden(wrappers.Wrapper):
  """The reference's partially_observable setting: the goal entries (36:39) of the observation zero."""

  def _hide(self, state):
    return state.replace(obs=state.obs.at[..., GOAL_SLICE].set(0.0))

  def reset(self, rng):
    return self._hide(self.env.reset(rng))

  def step(self, state, action):
    return self._hide(self.env.step(state, action))


class TaskIndex(wrappers.Wrapper):
  """`info['task_id']` = `index` (for per-task logs); the observation stays as it is (no one-hot)."""

  def __init__(self, env: Env, index: int):
    super().__init__(env)
    self.index = int(index)

  def _tag(self, state):
    return state.replace(info={**state.info, "task_id": jnp.int32(self.index)})

  def reset(self, rng):
    return self._tag(self.env.reset(rng))

  def step(self, state, action):
    return self._tag(self.env.step(state, action))


@dataclasses.dataclass(frozen=True)
class Split:
  """Which benchmark and split a `MetaLearning` batch is: benchmark name, split ("train" or "test"), the
  benchmark's train and test task lists, and `build(split)`, which builds a split with the same settings."""

  benchmark: str
  split: str
  train_tasks: tuple[str, ...]
  test_tasks: tuple[str, ...]
  build: Callable[[str], Env] | None = None


class _SplitOf:
  """What both builds of a meta-learning batch hold: `spec` (a `Split`) and the held-out split."""

  def _set_spec(self, spec: Split, evaluation_env=None):
    self.spec = spec
    self.benchmark, self.train_tasks, self.test_tasks = spec.benchmark, spec.train_tasks, spec.test_tasks
    self._evaluation_env = self if spec.split == "test" else evaluation_env

  @property
  def evaluation_env(self):
    """The held-out split (test tasks, test goals) with the same settings, built once."""
    if self._evaluation_env is None:
      with jax.ensure_compile_time_eval():  # its goals are drawn with JAX: eagerly, even under a trace
        self._evaluation_env = self.spec.build("test")
    return self._evaluation_env


class MetaLearning(_SplitOf, MultiTask):
  """The tasks of one split of a meta-learning benchmark as one task-major batch (module docstring).

  `spec` (a `Split`) names the benchmark and split (`spec.split`; `split(x)` is MultiTask's per-task
  view); `evaluation_env` is the test split of the same
  benchmark and settings (itself for the test split).
  """

  def __init__(
    self, tasks: Sequence[Env], names: Sequence[str], envs_per_task: int, member=None, *, spec: Split
  ):
    super().__init__(tasks, names, envs_per_task, member)
    self.members = tuple(self._member(TaskIndex(t, i)) for i, t in enumerate(self.tasks))
    self._set_spec(spec)

  def with_members(self, wrap: Callable[[Env], Env], envs_per_task: int) -> MetaLearning:
    out = MetaLearning(self.tasks, self.task_names, envs_per_task, wrap, spec=self.spec)
    out.fuse_physics = self.fuse_physics
    out._evaluation_env = self._evaluation_env if self.spec.split == "train" else out
    return out

  @property
  def observation_size(self):
    return self.tasks[0].observation_size


class SharedMetaLearning(_SplitOf, wrappers.Wrapper):
  """`MetaLearning` under C physics as one padded batch (`shared.SharedMultiTask`, its goal hidden and no
  one-hot), with RL²'s trials (`rl2_episodes` > 0) over the whole batch: the code all tasks share traced
  once. The same observations, rewards and episodes as `MetaLearning`, world for world
  (tests/mjx_envs/test_mt_shared.py); `tasks` are the bare Sawyer envs."""

  batched_natively = True  # `wrappers.batch` resizes it and wraps the whole batch

  def __init__(
    self, tasks: Sequence[sawyer.SawyerEnv], names: Sequence[str], envs_per_task: int, *, spec: Split,
    rl2_episodes: int = 0, rl2_success_bonus: float = 0.0,
  ):  # fmt: skip
    core = SharedMultiTask(tasks, names, envs_per_task, one_hot=False, goal_hidden=True)
    trial = trials.Trials(core, rl2_episodes, success_bonus=rl2_success_bonus) if rl2_episodes else core
    super().__init__(trial)
    self.rl2_episodes = int(rl2_episodes)
    self.rl2_success_bonus = float(rl2_success_bonus)
    self._set_spec(spec)

  def resized(self, envs_per_task: int) -> SharedMetaLearning:
    """The same split with `envs_per_task` worlds per task (this batch itself where that is its size)."""
    if int(envs_per_task) == self.envs_per_task:
      return self
    out = SharedMetaLearning(
      self.tasks, self.task_names, envs_per_task, spec=self.spec, rl2_episodes=self.rl2_episodes,
      rl2_success_bonus=self.rl2_success_bonus,
    )  # fmt: skip
    out._evaluation_env = self._evaluation_env if self.spec.split == "train" else out
    return out


def task_goal_seed(seed: int, task: str, split: str) -> int:
  """The seed of `task`'s fixed goals in `split`: 100 * seed + 2 * MT50 index (+ 1 for "test")."""
  return 100 * int(seed) + 2 * MT50_TASKS.index(task) + (split == "test")


def _task_env(name: str, split: str, num_goals: int, seed: int, task_config) -> sawyer.SawyerEnv:
  env = sawyer.SawyerEnv(
    _tasks.module(name).TASK,
    fixed_rand_vecs=num_goals,
    rand_vec_seed=task_goal_seed(seed, name, split),
    **task_config,
  )
  if len(np.unique(env.fixed_rand_vecs, axis=0)) != num_goals:
    raise ConfigError(
      f"{name}: its {num_goals} {split} goals repeat a vector (seed {seed}); pick another goal_seed"
    )
  return env


def make_ml(
  train_tasks: Sequence[str],
  test_tasks: Sequence[str],
  split: str = "train",
  envs_per_task: int = 1,
  num_goals: int = 50,
  goal_seed: int = 0,
  rl2_episodes: int = 0,
  benchmark: str = "ML",
  shared_code: bool = True,
  rl2_success_bonus: float = 0.0,
  **task_config,
) -> MetaLearning | SharedMetaLearning:
  """A meta-learning benchmark of your own: `split` ("train" or "test") of train_tasks / test_tasks, each
  with `num_goals` fixed hidden goals (seeded by `goal_seed`), `envs_per_task` worlds each; with
  `rl2_episodes` = K > 0, RL² trials of K episodes (obs [39 + 4 + 2], else [39]), and
  `rl2_success_bonus` (`Trials`' success_bonus: a shaping outside the protocol, default 0). The same
  task in both lists is ML1's setting (train and test goals of one task). Under C physics with `shared_code` a
  `SharedMetaLearning` (one padded batch), else a `MetaLearning` (the same episodes). Refuses unknown
  names, repeats, tasks not built yet, a bad split, num_goals < 1 and rl2_episodes < 0 (ConfigError)."""
  train = check_tasks(benchmark, train_tasks, "train_tasks")
  test = check_tasks(benchmark, test_tasks, "test_tasks")
  if split not in SPLITS:
    raise ConfigError(f"{benchmark}: split must be one of {SPLITS}, got {split!r}")
  if int(num_goals) < 1:
    raise ConfigError(f"{benchmark}: num_goals must be >= 1, got {num_goals!r}")
  if int(rl2_episodes) < 0:
    raise ConfigError(
      f"{benchmark}: rl2_episodes must be >= 0 (0: plain episodes; K: trials of K), got {rl2_episodes!r}"
    )
  if rl2_success_bonus and not rl2_episodes:
    raise ConfigError(f"{benchmark}: rl2_success_bonus shapes RL²'s trials; set rl2_episodes > 0 with it")
  check_built(benchmark, train + test)
  for key in ("fixed_rand_vecs", "rand_vec_seed"):
    if key in task_config:
      raise ConfigError(f"{benchmark}: {key} is the benchmark's own (num_goals, goal_seed set the goals)")
  names = train if split == "train" else test
  envs = [_task_env(n, split, int(num_goals), int(goal_seed), task_config) for n in names]
  if set(train) & set(test):  # ML1's setting: one task's train and test goals must differ
    other = "test" if split == "train" else "train"
    for n, env in zip(names, envs):
      if n in train and n in test:
        theirs = draw_goals(env, int(num_goals), task_goal_seed(goal_seed, n, other))
        if (env.fixed_rand_vecs[:, None, :] == theirs[None, :, :]).all(-1).any():
          raise ConfigError(f"{benchmark}: {n}'s train and test goals share a vector; pick another goal_seed")

  def build_split(s):
    return make_ml(
      train, test, s, envs_per_task, num_goals, goal_seed, rl2_episodes, benchmark, shared_code,
      rl2_success_bonus, **task_config,
    )  # fmt: skip

  spec = Split(benchmark, split, train, test, build_split)
  if shared_code and all(e.impl == "c" for e in envs):
    return SharedMetaLearning(envs, names, envs_per_task, spec=spec, rl2_episodes=int(rl2_episodes),
                              rl2_success_bonus=rl2_success_bonus)  # fmt: skip
  members = [GoalHidden(e) for e in envs]
  if rl2_episodes:
    members = [trials.Trials(e, int(rl2_episodes), success_bonus=rl2_success_bonus) for e in members]
  return MetaLearning(members, names, envs_per_task, spec=spec)


def draw_goals(env: sawyer.SawyerEnv, n: int, seed: int) -> np.ndarray:
  """The n goals [n, R] that `SawyerEnv(fixed_rand_vecs=n, rand_vec_seed=seed)` of `env`'s task holds."""
  return np.asarray(jax.vmap(env.sample_rand_vec)(jax.random.split(jax.random.PRNGKey(seed), n)))


def make_ml1(task: str = "push-v3", **config) -> MetaLearning | SharedMetaLearning:
  """ML1: one task (the paper's: reach-v3, push-v3, pick-place-v3; any of the 50), 50 train and 50 test
  goals. See `make_ml` for the other settings."""
  if not isinstance(task, str):
    raise ConfigError(f"ML1: task must be one Meta-World task name such as 'push-v3', got {task!r}")
  return make_ml([task], [task], benchmark="ML1", **config)


def make_ml10(**config) -> MetaLearning | SharedMetaLearning:
  """ML10: train on the reference's 10 train tasks, test on its 5 test tasks (`ML10_TRAIN`, `ML10_TEST`)."""
  return make_ml(ML10_TRAIN, ML10_TEST, benchmark="ML10", **config)


def make_ml45(**config) -> MetaLearning | SharedMetaLearning:
  """ML45: train on the reference's 45 train tasks, test on its 5 test tasks (`ML45_TRAIN`, `ML45_TEST`)."""
  return make_ml(ML45_TRAIN, ML45_TEST, benchmark="ML45", **config)


def ml_default_config():
  """The keys of ML10 / ML45 (and of ML1 and ML with their task keys)."""
  cfg = {k: v for k, v in sawyer.default_config().items() if k not in ("fixed_rand_vecs", "rand_vec_seed")}
  # shared_code: under C physics, one padded batch with the code all tasks share traced once
  # (`SharedMetaLearning`: the same episodes, a shorter compile); MJX-JAX runs `MetaLearning` either way.
  return {
    "split": "train", "envs_per_task": 1, "num_goals": 50, "goal_seed": 0, "rl2_episodes": 0,
    "rl2_success_bonus": 0.0, "shared_code": True, **cfg,
  }  # fmt: skip


def ml1_default_config():
  return {"task": "push-v3", **ml_default_config()}


def custom_ml_default_config():
  return {"train_tasks": ["reach-v3", "push-v3"], "test_tasks": ["pick-place-v3"], **ml_default_config()}
