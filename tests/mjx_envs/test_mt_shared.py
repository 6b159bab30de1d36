"""Meta-World's multi-task batch with its shared code traced once (`mjx_envs.metaworld.shared`): the same
numbers as `MultiTask`, world for world, bit for bit, through the training wrappers and auto-resets."""

import mjx_envs
from mjx_envs import wrappers
from mjx_envs.metaworld.multitask import MultiTask
from mjx_envs.metaworld.shared import SharedMultiTask

import jax
import jax.numpy as jnp
import numpy as np
import pytest

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

  @jax.jit
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
