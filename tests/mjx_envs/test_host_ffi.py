"""Host functions behind named XLA FFI targets (`mjx_envs.host_ffi`): the C-physics programs that call them
enter the persistent compilation cache and, loaded in another process, step that process's own worlds."""

from mjx_envs import host_ffi

import gc
import json
import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest


def _affine(scale):
  def fn(x, extra):
    return {
      "y": np.asarray(x) * scale + np.asarray(extra["b"])[..., None],
      "n": np.full(np.shape(x)[:-1], x.shape[-1], np.int32),
    }

  return fn


def test_call_returns_the_host_results_batched_as_broadcast_all():
  specs = {"y": jax.ShapeDtypeStruct((3,), jnp.float32), "n": jax.ShapeDtypeStruct((), jnp.int32)}
  name = host_ffi.target_name("test", "affine", 2.0)

  @jax.jit
  def f(x, b):
    return host_ffi.call(_affine(2.0), specs, x, {"b": b}, name=name)

  x = jnp.arange(3.0, dtype=jnp.float32)
  out = f(x, jnp.float32(0.5))
  np.testing.assert_array_equal(out["y"], [0.5, 2.5, 4.5])
  assert out["n"] == 3 and out["n"].dtype == jnp.int32
  xs = jnp.arange(12.0, dtype=jnp.float32).reshape(4, 3)
  outs = jax.vmap(f, in_axes=(0, None))(xs, jnp.float32(1.0))  # the host sees the batch axis
  np.testing.assert_array_equal(outs["y"], np.asarray(xs) * 2 + 1)
  np.testing.assert_array_equal(outs["n"], [3, 3, 3, 3])


def test_the_accelerator_fallback_computes_the_same():
  """On an accelerator `call` goes through JAX's buffer callback (`_buffer_call`); the same results."""
  specs = {"y": jax.ShapeDtypeStruct((3,), jnp.float32), "n": jax.ShapeDtypeStruct((), jnp.int32)}
  xs = jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)
  b = jnp.float32(0.25)
  ffi = jax.vmap(
    lambda x: host_ffi.call(_affine(3.0), specs, x, {"b": b}, name=host_ffi.target_name("t", 3.0))
  )(xs)
  fallback = jax.vmap(lambda x: host_ffi._buffer_call(_affine(3.0), specs, x, {"b": b}))(xs)  # pylint: disable=protected-access
  for k in specs:
    np.testing.assert_array_equal(ffi[k], fallback[k])


def test_an_exception_on_the_host_fails_the_program_with_its_message():

  def bad(x):
    raise ValueError("the host function saw a NaN action")

  spec = jax.ShapeDtypeStruct((2,), jnp.float32)
  name = host_ffi.target_name("test", "bad")
  f = jax.jit(lambda x: host_ffi.call(bad, spec, x, name=name))
  with pytest.raises(Exception, match="ValueError: the host function saw a NaN action"):
    jax.block_until_ready(f(jnp.zeros(2)))


def test_a_program_outlives_the_env_it_was_traced_from():
  """An env built inside a traced function is garbage after the trace; its compiled program still
  steps (notebook 04's evaluation builds its holdout env so)."""
  import mjx_envs

  def rollout(key):
    env = mjx_envs.make("FetchReach", impl="c")
    s = env.reset(key)
    return env.step(s, jnp.full((4,), 0.5, jnp.float32)).obs["observation"]

  f = jax.jit(rollout)
  first = f(jax.random.PRNGKey(0))
  gc.collect()
  np.testing.assert_array_equal(f(jax.random.PRNGKey(0)), first)


def test_equal_backends_share_a_name_and_others_do_not():
  from mjx_envs import cphysics

  import mujoco

  xml = "<mujoco><worldbody><body><freejoint/><geom size='.1'/></body></worldbody></mujoco>"
  a = cphysics.Backend(mujoco.MjModel.from_xml_string(xml), 2, threads=1)
  b = cphysics.Backend(mujoco.MjModel.from_xml_string(xml), 2, threads=2)
  c = cphysics.Backend(mujoco.MjModel.from_xml_string(xml), 3, threads=1)
  m = mujoco.MjModel.from_xml_string(xml)
  m.geom_friction[0, 0] = 0.5
  d = cphysics.Backend(m, 2, threads=1)
  assert a.key == b.key  # the same computation: either serves a program traced with the other
  assert len({a.key, c.key, d.key}) == 3  # substeps, a model value: another name


_SCRIPT = textwrap.dedent(
  """
  import json, sys
  import jax, jax.numpy as jnp, numpy as np
  import mjx_envs
  from mjx_envs import wrappers
  jax.config.update("jax_compilation_cache_dir", sys.argv[1])
  jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
  hits = []
  jax.monitoring.register_event_listener(
    lambda e, **k: hits.append(e) if e == "/jax/compilation_cache/cache_hits" else None)
  env = wrappers.Batch(mjx_envs.make("FetchReach", impl="c"), 4)
  step = jax.jit(env.step)
  s = env.reset(jax.random.PRNGKey(0))
  actions = [jnp.full((4, 4), 0.3 * (i + 1), jnp.float32) for i in range(3)]
  n0 = len(hits)  # from here on only the step compiles (or loads)
  for a in actions:
    s = step(s, a)
  print(json.dumps({"step_hit": len(hits) > n0, "obs": np.asarray(s.obs["observation"]).tolist()}))
  """
)


def test_a_c_physics_step_is_cached_and_loaded_by_another_process(tmp_path):
  """The C step's program is written to the persistent cache by one process and loaded by the next,
  which steps its own worlds through it to the same numbers."""
  cache = str(tmp_path / "cache")
  env = dict(os.environ, JAX_PLATFORMS="cpu")
  runs = []
  for _ in range(2):
    r = subprocess.run(
      [sys.executable, "-c", _SCRIPT, cache], capture_output=True, text=True, env=env, timeout=600
    )
    assert r.returncode == 0, r.stderr[-3000:]
    runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    if len(runs) == 1:
      assert any(f.startswith("jit_step") for f in os.listdir(cache)), os.listdir(cache)
  assert not runs[0]["step_hit"] and runs[1]["step_hit"]
  assert runs[0]["obs"] == runs[1]["obs"]
