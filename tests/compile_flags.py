"""The test suite's XLA flags (applied in conftest.py), and the compile options of the tests that compare
two different programs bit for bit.

The default tier is compile-bound: in CI (a fresh clone) every program compiles cold once (C-physics
programs enter the persistent cache since `mjx_envs.host_ffi`, 2026-12-02; before, they compiled in every
test process). Two flags cut those compiles and leave the semantics alone; tests compare runs made under
the same flags:
- backend optimisation level 0 halves them (hide-and-seek's tiny training run in notebook 06: 132 s ->
  75 s, same returns);
- XLA:CPU's loop emitters instead of its fusion emitters halve them again (2026-11-29, at level 0, beside a
  training run: PPO FetchReach's init / train / evaluate 3.0 / 7.1-8.9 / 2.0 s -> 1.3 / 3.1-3.8 / 0.6 s;
  MJX-JAX FetchPush's 3-step rollout 39.3 -> 22.0 s). The whole cold default tier: BENCHMARKS.md, "The
  test suite".
MJX_TEST_FULL_OPT=1 (or an explicit level in XLA_FLAGS) tests at XLA's defaults.
"""

FAST_COMPILE = ("--xla_backend_optimization_level=0", "--xla_cpu_use_fusion_emitters=false")

# Two programs that compute the same numbers in a different arrangement (the padded batch against the
# per-task one, a loss with a term that must not reach some parameters) round alike under XLA:CPU's fusion
# emitters, which is what users run; the loop emitters can round them 1 ulp apart (1.8e-7 in a Meta-World
# reward, 2e-9 in a critic gradient). A test asserting such an equality compiles with the users' emitters:
# jax.jit(f, compiler_options=USERS_EMITTERS).
USERS_EMITTERS = {"xla_cpu_use_fusion_emitters": True}
