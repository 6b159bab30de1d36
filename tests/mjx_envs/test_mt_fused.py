"""The fused C physics of a multi-task batch (`cphysics.fused`, `MultiTask.fuse_physics`): one host
callback for all tasks equals the per-task callbacks bit for bit, auto-resets included."""

import mjx_envs
from mjx_envs import host_ffi, wrappers

import jax
import jax.numpy as jnp
import numpy as np
import pytest

# Default tier: two tasks (push reads contacts); the slow tier adds a third.
SETS = [
  ["reach-v3", "push-v3"],
  pytest.param(["reach-v3", "push-v3", "window-open-v3"], marks=pytest.mark.slow),
]


def _callbacks(compiled) -> int:
  """The host calls in a compiled program (`host_ffi` targets; JAX's own callbacks, should any appear)."""
  hlo = compiled.as_text()
  return sum(
    hlo.count(t)
    for t in (
      f'custom_call_target="{host_ffi.TARGET_PREFIX}',
      "xla_python_cpu_callback",
      "xla_ffi_python_cpu_callback",
      "xla_buffer_python_cpu_callback",
    )
  )


@pytest.fixture(scope="module", params=SETS)
def runs(request):
  """Both paths, T tasks x 2 worlds under the training wrappers, episodes of 3 steps so that the 6 steps
  hold two auto-resets of every world; per path: (env, host callbacks in the program, reset, states)."""
  tasks = request.param
  out = {}
  mt = mjx_envs.make("MT", tasks=tasks, envs_per_task=2, impl="c", shared_code=False)  # MultiTask's path
  for fuse in (False, True):
    mt.fuse_physics = fuse  # wrap_for_training's members share the tasks' models and C backends
    env = wrappers.wrap_for_training(mt, 2 * len(tasks), episode_length=3)
    assert env.fuse_physics is fuse  # with_members keeps the switch

    def run(key, env=env):
      s0 = env.reset(key)

      def body(s, k):
        s = env.step(s, jax.random.uniform(k, (env.num_envs, 4), minval=-1.0, maxval=1.0))
        return s, s

      return s0, jax.lax.scan(body, s0, jax.random.split(jax.random.PRNGKey(1), 6))[1]

    key = jax.random.PRNGKey(0)
    compiled = jax.jit(run).lower(key).compile()
    out[fuse] = (env, _callbacks(compiled), *compiled(key))
  return out


def test_fused_equals_per_task_callbacks_bit_for_bit(runs):
  env, n_fused, s0, traj = runs[True]
  _, n_plain, r0, ref = runs[False]
  assert env.unfused == {}  # every task went through the fused callback
  # Per task: a reset's kinematics, a step, the auto-reset's kinematics (inside its lax.cond, per task
  # also when fused). Fused: one reset and one step callback for the three tasks.
  t = env.num_tasks
  assert (n_plain, n_fused) == (3 * t, 2 + t)
  assert float(jnp.sum(ref.done)) == 2 * env.num_envs  # every world finished (and was reset) twice
  for a, b in ((s0, r0), (traj, ref)):
    assert jax.tree.structure(a) == jax.tree.structure(b)
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
      np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  for p0, p in zip(r0.pipeline_state, ref.pipeline_state):  # the exact C states moved: no trivial zeros
    assert not np.array_equal(
      np.asarray(p0.pipeline_state._impl.state), np.asarray(p.pipeline_state._impl.state[-1])
    )
