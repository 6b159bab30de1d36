"""Meta-World's multi-task batch with its shared code traced once (`mjx_envs.metaworld.shared`): the same
numbers as `MultiTask`, world for world, bit for bit, through the training wrappers and auto-resets; and
the meta-learning batch built on it (`meta.SharedMetaLearning`, RL² trials) against `MetaLearning`."""

import mjx_envs
from mjx_envs import wrappers
from mjx_envs.metaworld import meta, sawyer, shared
from mjx_envs.metaworld.multitask import MultiTask
from mjx_envs.metaworld.shared import SharedMultiTask

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from compile_flags import USERS_EMITTERS

# Models of different sizes (bodies, joints, geoms, sites, contact pairs, context and rand_vec lengths),
# so that every padded field is padded somewhere.
TASKS = ["reach-v3", "pick-place-v3", "door-open-v3", "assembly-v3"]
N = 2
EPISODE = 12  # short episodes: 30 steps cross two auto-resets
STEPS = 30


def _rollout(shared_code: bool, fixed: int):
  mt = mjx_envs.make(
    "MT", tasks=TASKS, impl="c", episode_length=EPISODE, shared_code=shared_code, fixed_rand_vecs=fixed
  )
  env = wrappers.wrap_for_training(mt, N * len(TASKS))

  @functools.partial(jax.jit, compiler_options=USERS_EMITTERS)  # bit for bit: compile_flags.py
  def run(key):
    s = env.reset(key)

    def body(s, k):
      a = jax.random.uniform(k, (env.num_envs, 4), minval=-1.0, maxval=1.0)
      s = env.step(s, a)
      return s, s

    return s, jax.lax.scan(body, s, jax.random.split(jax.random.PRNGKey(1), STEPS))[1]

  return mt, run(jax.random.PRNGKey(0))


# Fresh rand_vecs drawn at every reset (the default), and the benchmarks' 50 fixed ones per task.
@pytest.fixture(scope="module", params=[0, 50], ids=["drawn", "fixed50"])
def both(request):
  return _rollout(False, request.param), _rollout(True, request.param)


def test_make_picks_the_shared_batch_under_c_physics(both):
  (plain, _), (shared, _) = both
  assert isinstance(plain, MultiTask) and isinstance(shared, SharedMultiTask)
  assert shared.observation_size == plain.observation_size == 39 + len(TASKS)


def test_shared_batch_equals_multitask_bit_for_bit(both):
  (_, (s0a, traj_a)), (_, (s0b, traj_b)) = both
  np.testing.assert_array_equal(np.asarray(s0a.obs), np.asarray(s0b.obs))
  done = np.asarray(traj_a.done)
  assert done.sum() == 2 * N * len(TASKS), done.sum(0)  # every world auto-reset twice
  for field in ("obs", "reward", "done"):
    np.testing.assert_array_equal(
      np.asarray(getattr(traj_a, field)), np.asarray(getattr(traj_b, field)), field
    )
  assert set(traj_a.metrics) == set(traj_b.metrics)
  for k in traj_a.metrics:
    np.testing.assert_array_equal(np.asarray(traj_a.metrics[k]), np.asarray(traj_b.metrics[k]), k)
  common = set(traj_a.info) & set(traj_b.info)
  assert {"final_obs", "truncation", "autoreset_key", "task_id", "success", "prev"} <= common
  for k in common:
    for x, y in zip(jax.tree.leaves(traj_a.info[k]), jax.tree.leaves(traj_b.info[k])):
      np.testing.assert_array_equal(np.asarray(x), np.asarray(y), k)
  # The physics too: each task's worlds, the padded fields' leading part.
  for t, member in enumerate(traj_a.pipeline_state):
    sl = slice(t * N, (t + 1) * N)
    qpos = np.asarray(member.pipeline_state.qpos)
    np.testing.assert_array_equal(qpos, np.asarray(traj_b.pipeline_state.qpos)[:, sl, : qpos.shape[-1]])


def test_shared_batch_refuses_bad_input():
  mt = mjx_envs.make("MT", tasks=TASKS[:2], impl="c")
  with pytest.raises(ValueError, match=r"actions must have shape \(2, 4\)"):
    mt.step(mt.reset(jax.random.PRNGKey(0)), jnp.zeros((3, 4)))
  with pytest.raises(ValueError, match="one PRNG key or 2 keys"):
    mt.reset(jnp.zeros((3, 2), jnp.uint32))
  with pytest.raises(ValueError, match="multiple of 2"):
    wrappers.wrap_for_training(mt, 3)
  jax_tasks = [mjx_envs.make(f"metaworld/{t}", impl="jax") for t in TASKS[:2]]
  with pytest.raises(mjx_envs.ConfigError, match="needs C physics"):
    SharedMultiTask(jax_tasks, TASKS[:2], 1)


# Meta-learning (`meta.SharedMetaLearning`): the goal hidden, no one-hot, RL² trials over the whole batch.
ML_TRAIN, ML_TEST = ["reach-v3", "pick-place-v3", "door-open-v3"], ["assembly-v3"]
TRIAL = (2, 6)  # episodes per trial, steps per episode: 30 steps cross two trials and a half


def _ml_rollout(shared_code: bool):
  ml = mjx_envs.make(
    "ML",
    train_tasks=ML_TRAIN,
    test_tasks=ML_TEST,
    impl="c",
    rl2_episodes=TRIAL[0],
    episode_length=TRIAL[1],
    shared_code=shared_code,
  )
  env = wrappers.wrap_for_training(ml, N * len(ML_TRAIN))

  @functools.partial(jax.jit, compiler_options=USERS_EMITTERS)  # bit for bit: compile_flags.py
  def run(key):
    s = env.reset(key)

    def body(s, k):
      s = env.step(s, jax.random.uniform(k, (env.num_envs, 4), minval=-1.0, maxval=1.0))
      return s, s

    return jax.lax.scan(body, s, jax.random.split(jax.random.PRNGKey(1), STEPS))[1]

  return ml, run(jax.random.PRNGKey(0))


@pytest.fixture(scope="module")
def ml_both():
  return _ml_rollout(False), _ml_rollout(True)


def test_shared_meta_learning_equals_metalearning_bit_for_bit(ml_both):
  (plain, a), (shared, b) = ml_both
  assert isinstance(plain, meta.MetaLearning) and isinstance(shared, meta.SharedMetaLearning)
  assert shared.observation_size == plain.observation_size == 39 + 4 + 2
  assert shared.episode_length == plain.episode_length == TRIAL[0] * TRIAL[1]
  done = np.asarray(a.done)
  assert done.sum() == 2 * N * len(ML_TRAIN), done.sum(0)  # every world ended two trials
  np.testing.assert_array_equal(np.asarray(b.obs)[..., meta.GOAL_SLICE], 0.0)
  for field in ("obs", "reward", "done"):
    np.testing.assert_array_equal(np.asarray(getattr(a, field)), np.asarray(getattr(b, field)), field)
  assert set(a.metrics) == set(b.metrics) and "trial/success_first" in a.metrics
  for k in a.metrics:
    np.testing.assert_array_equal(np.asarray(a.metrics[k]), np.asarray(b.metrics[k]), k)
  # trial_start is each task's own State in MetaLearning (not shared across tasks): compared by its obs.
  common = (set(a.info) & set(b.info)) - {"trial_start"}
  assert {"trial_success", "trial_episode", "trial_steps", "final_obs", "task_id", "target"} <= common
  for k in common:
    for x, y in zip(jax.tree.leaves(a.info[k]), jax.tree.leaves(b.info[k])):
      np.testing.assert_array_equal(np.asarray(x), np.asarray(y), k)
  starts = [np.asarray(m.info["trial_start"].obs) for m in a.pipeline_state]
  np.testing.assert_array_equal(np.concatenate(starts, 1), np.asarray(b.info["trial_start"].obs))


def test_shared_meta_learning_splits(ml_both):
  """The held-out split is the same kind of batch with the test tasks; a resize keeps the split and its
  held-out env; the test split is its own."""
  _, (shared, _) = ml_both
  test = shared.evaluation_env
  assert isinstance(test, meta.SharedMetaLearning) and test.task_names == tuple(ML_TEST)
  assert test.evaluation_env is test and test.resized(3).evaluation_env.envs_per_task == 3
  assert test.observation_size == 39 + 4 + 2 and test.rl2_episodes == TRIAL[0]
  bigger = shared.resized(4)
  assert bigger.num_envs == 4 * len(ML_TRAIN) and bigger.evaluation_env is test
  # An evaluation resizes its batch inside a jitted function (agents/common/evaluation.py): the padded
  # tables (two models of different sizes) are still built as constants, not traced.
  two = mjx_envs.make(
    "ML", train_tasks=ML_TRAIN, test_tasks=[*ML_TEST, "drawer-close-v3"], split="test", impl="c"
  )
  obs = jax.jit(lambda k: wrappers.batch(two, 4).reset(k).obs)(jax.random.PRNGKey(0))
  assert obs.shape == (4, 39)
  plain = mjx_envs.make("ML1", task="push-v3", impl="c")  # no trials: the bare batch, goal hidden
  assert isinstance(plain, meta.SharedMetaLearning) and plain.observation_size == 39


def test_reset_and_step_are_traced_once_per_shape(monkeypatch):
  """An algorithm traces its env's reset several times before training (shapes, init, init's lowering,
  auto-resets): the batch's reset and step are jitted, so their Python runs once per input shape, and a
  start's reset (one key) shares its trace with an auto-reset's (per-world keys); a resized batch (other
  shapes) traces its own, and reuses each task's context layout."""
  calls = {"reset": 0, "step": 0}
  for name in calls:
    original = getattr(SharedMultiTask, "_" + name)

    def counted(self, *args, name=name, original=original):
      calls[name] += 1
      return original(self, *args)

    monkeypatch.setattr(SharedMultiTask, "_" + name, counted)
  mt = mjx_envs.make("MT", tasks=TASKS[:2], impl="c", envs_per_task=N)
  key = jax.random.PRNGKey(0)
  s = jax.eval_shape(mt.reset, key)
  jax.eval_shape(mt.reset, key)
  jax.eval_shape(mt.reset, mt.world_keys(key))
  jax.eval_shape(jax.jit(lambda k: mt.reset(k).obs), key)
  a = jax.ShapeDtypeStruct((mt.num_envs, 4), jnp.float32)
  jax.eval_shape(mt.step, s, a)
  jax.eval_shape(mt.step, s, a)
  assert set(s.info) == set(shared._OWN_INFO_KEYS)  # pylint: disable=protected-access
  # Wrappers' entries (AutoReset's in training, EpisodeStats' metrics, none in an evaluation) do not
  # make the step trace again: MT50's evaluation re-traced the 50 tasks' step code for them.
  extra = s.replace(info={**s.info, "final_obs": s.obs}, metrics={**s.metrics, "episode_return": s.reward})
  out = jax.eval_shape(mt.step, extra, a)
  assert calls == {"reset": 1, "step": 1}
  assert jax.tree.structure(out) == jax.tree.structure(jax.eval_shape(mt.step, s, a))
  with pytest.raises(ValueError, match=r"lacks \['target'\]"):
    mt.step(s.replace(info={k: v for k, v in s.info.items() if k != "target"}), a)
  bigger = mt.resized(N + 1)
  assert all(a is b for a, b in zip(bigger._ctx, mt._ctx))  # pylint: disable=protected-access
  for t, layout in zip(mt.tasks, mt._ctx):  # pylint: disable=protected-access
    own = jax.eval_shape(t.reset, key).info["ctx"]  # the layout of the task's own reset
    assert layout == tuple((k, v.shape) for k, v in own.items())
  jax.eval_shape(bigger.reset, key)
  assert calls == {"reset": 2, "step": 1}
  with pytest.raises(ValueError, match="one PRNG key or 4 keys"):
    mt.reset(jnp.zeros((3, 2), jnp.uint32))


def test_fixed_resets_read_their_placements_from_tables(monkeypatch, tmp_path):
  """With fixed rand_vecs (the benchmarks' protocol) a reset's placement depends on (task, index) alone:
  each task's placements are computed once when the batch is built, a reset's program holds no task's
  placement code, and a resized batch of the same tasks reuses the tables. (That the states are the same
  bit for bit is `test_shared_batch_equals_multitask_bit_for_bit[fixed50]`.) The next build of the same
  tasks, as a new process's, reads the fixed rand_vecs, the context layouts and the tables from disk
  (`mjx_envs.tables`): nothing drawn, traced or placed, and the same arrays bit for bit."""
  monkeypatch.setenv("MJX_TABLE_CACHE", str(tmp_path))  # empty: this build computes every table
  placed, drawn_vecs, layouts = [], [], []
  for cls, name, log in (
    (sawyer.SawyerEnv, "placed", placed),
    (sawyer.SawyerEnv, "sample_rand_vec", drawn_vecs),
    (shared, "_flat_layout", layouts),
  ):
    original = getattr(cls, name)

    def counted(*args, original=original, log=log, **kw):
      log.append(1)
      return original(*args, **kw)

    monkeypatch.setattr(cls, name, counted)
  key = jax.random.PRNGKey(0)
  fixed = mjx_envs.make("MT", tasks=TASKS[:2], impl="c", envs_per_task=N, fixed_rand_vecs=5)
  assert fixed._placed["ctx"].shape[:2] == (2, 5)  # pylint: disable=protected-access
  built = len(placed)
  assert built >= 2  # each task's placements traced for its table
  jax.eval_shape(fixed.reset, key)
  bigger = fixed.resized(N + 1)
  jax.eval_shape(bigger.reset, key)
  assert len(placed) == built  # neither reset nor the resized batch's build traced a placement
  assert drawn_vecs and layouts
  counts = len(placed), len(drawn_vecs), len(layouts)
  again = mjx_envs.make("MT", tasks=TASKS[:2], impl="c", envs_per_task=N, fixed_rand_vecs=5)
  assert (len(placed), len(drawn_vecs), len(layouts)) == counts  # all read from tmp_path
  assert again.tasks[0] is not fixed.tasks[0]  # new task envs: no in-process cache served them
  pairs = [(getattr(fixed, k), getattr(again, k)) for k in ("_fixed", "_placed", "_ctx")]
  for a, b in pairs:
    assert jax.tree.structure(a) == jax.tree.structure(b)
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
      assert np.asarray(x).dtype == np.asarray(y).dtype and np.array_equal(x, y)
  drawn = mjx_envs.make("MT", tasks=TASKS[:2], impl="c", envs_per_task=N)  # fresh draws: placed per reset
  before = len(placed)
  jax.eval_shape(drawn.reset, key)
  assert len(placed) > before
