"""The XLA:CPU stall (a scan over vmapped mjx.step with >= 512 envs) must not reach users.

Runs in a fresh interpreter WITHOUT XLA_FLAGS, as a user would: importing mjx_envs must be enough.
"""

import os
import subprocess
import sys
import textwrap
import time

SCRIPT = textwrap.dedent("""
    import os, time
    import mjx_envs
    import jax, jax.numpy as jnp
    assert "xla_cpu_enable_concurrency_optimized_scheduler=false" in os.environ["XLA_FLAGS"]
    env = mjx_envs.wrappers.Batch(mjx_envs.make("BlocksPush"))
    n = 1024
    def run(key):
        state = env.reset(jax.random.split(key, n))
        def body(s, _):
            return env.step(s, jnp.zeros((n, env.action_size))), None
        return jax.lax.scan(body, state, (), 10)[0].obs["robot"]
    out = jax.jit(run)(jax.random.PRNGKey(0))
    out.block_until_ready()
    print("OK", out.shape)
""")


def test_scan_over_1024_vmapped_envs_does_not_stall():
  env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
  env["JAX_PLATFORMS"] = "cpu"
  start = time.time()
  proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=420)
  assert proc.returncode == 0, proc.stderr[-3000:]
  assert "OK (1024, 17)" in proc.stdout
  # Compile (~20-40 s) plus 10 steps of 1024 envs; a stall would hit the timeout above instead.
  assert time.time() - start < 420


def test_device_split_keeps_a_core_free_where_the_solver_would_deadlock(monkeypatch):
  """jaxlib's CPU Cholesky splits a large batch over the intra-op pool and blocks its caller; one device
  per core then hangs for good (BlocksPush-1, 2 devices x 256 envs, measured). The split keeps one core
  free exactly when a device's share is large enough to split."""
  import types  # pylint: disable=import-outside-toplevel

  from agents.common import sharding  # pylint: disable=import-outside-toplevel

  monkeypatch.setattr(sharding, "usable_cores", lambda: 2)
  cpus = [types.SimpleNamespace(platform="cpu", id=i) for i in range(2)]
  assert sharding.lapack_splits(256, 14) and not sharding.lapack_splits(128, 14)
  assert len(sharding.usable_devices(256, cpus, nv=14)) == 2  # 128 per device: no split
  assert len(sharding.usable_devices(512, cpus, nv=14)) == 1  # 256 per device would hang
  assert len(sharding.usable_devices(256, cpus, nv=14, largest_batch=512)) == 1  # evaluation's batch
  assert len(sharding.usable_devices(512, cpus, nv=8)) == 2  # FetchReach: small matrices
  assert len(sharding.usable_devices(512, cpus)) == 2  # no model given: as before
  gpus = [types.SimpleNamespace(platform="gpu", id=i) for i in range(2)]
  assert len(sharding.usable_devices(512, gpus, nv=14)) == 2  # not a CPU thread-pool matter
