"""Compile time and StableHLO size of the training-wrapped MT step (auto-reset inside), C physics.

python wrapped_step_compile.py MT10|MT50 TREE_LABEL     # run from the source tree to measure
"""

import mjx_envs
from mjx_envs import wrappers

import json
import sys
import time

import jax
import jax.numpy as jnp

bench = sys.argv[1]
mt = mjx_envs.make(bench, envs_per_task=10, impl="c")
w = wrappers.wrap_for_training(mt, mt.num_envs)
ws0 = jax.eval_shape(w.reset, jax.random.PRNGKey(0))
a = jnp.zeros((mt.num_envs, mt.action_size))
low = jax.jit(w.step).lower(ws0, a)
n = len(low.as_text().splitlines())
t0 = time.time()
low.compile()
t = time.time() - t0
print(json.dumps({"bench": bench, "tree": sys.argv[2], "hlo_lines": n, "compile_s": round(t, 1)}))
