"""The arm's cost on the C backend: MT10 (50 worlds per task) stepped with the arm and with the free hand,
interleaved A/B/A/B in one process (compile time, then control steps/s of a jitted 20-step scan).

    python benchmarks/results/metaworld/2026-11-27/arm/arm_cost.py
"""

import mjx_envs

import time

import jax

STEPS, PER_TASK = 20, 50


def build(arm):
  mt = mjx_envs.make("MT10", envs_per_task=PER_TASK, arm=arm, fixed_rand_vecs=50)

  @jax.jit
  def run(s, key):
    def body(s, k):
      a = jax.random.uniform(k, (mt.num_envs, mt.action_size), minval=-1, maxval=1)
      return mt.step(s, a), ()

    return jax.lax.scan(body, s, jax.random.split(key, STEPS))[0]

  t = time.time()
  s = jax.block_until_ready(jax.jit(mt.reset)(jax.random.PRNGKey(0)))
  s = jax.block_until_ready(run(s, jax.random.PRNGKey(1)))
  return mt, run, s, time.time() - t


def main():
  built = {arm: build(arm) for arm in (True, False)}
  for arm, (_, _, _, c) in built.items():
    print(f"arm={arm}: reset + first scan (compile) {c:.1f} s")
  for rep in range(2):
    for arm, (mt, run, s, _) in built.items():
      t = time.time()
      s = jax.block_until_ready(run(s, jax.random.PRNGKey(rep + 2)))
      dt = time.time() - t
      print(f"repeat {rep} arm={arm}: {mt.num_envs * STEPS / dt:,.0f} ctrl steps/s ({mt.num_envs} worlds)")


if __name__ == "__main__":
  main()
