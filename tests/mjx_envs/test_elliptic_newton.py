"""The block-wise elliptic Newton Hessian (mjx_envs/elliptic_newton.py) gives MJX's own solver result."""
import jax
import jax.numpy as jnp
import mujoco
from mujoco import mjx
import numpy as np

from mjx_envs import elliptic_newton
from mujoco.mjx._src import solver as mjx_solver

# Contacts of condim 3, 4 and 6 with mixed addresses, objects resting and sliding (cone middle zone).
XML = """
<mujoco>
  <option timestep="0.002" solver="Newton" cone="elliptic" iterations="6" ls_iterations="6"/>
  <worldbody>
    <geom type="plane" size="2 2 0.1" condim="3"/>
    <body pos="0 0 0.099"><freejoint/><geom type="box" size="0.1 0.1 0.1" condim="3" friction="0.6"/></body>
    <body pos="0.5 0 0.05"><freejoint/><geom type="box" size="0.05 0.08 0.05" condim="4"/></body>
    <body pos="0 0.5 0.048"><freejoint/><geom type="sphere" size="0.05" condim="6"/></body>
    <body pos="0.02 0.01 0.3"><freejoint/><geom type="box" size="0.05 0.05 0.05" condim="4"/></body>
  </worldbody>
</mujoco>"""


def _forward_both():
  mm = mujoco.MjModel.from_xml_string(XML)
  m = mjx.put_model(mm)
  d = mjx.make_data(m)
  rng = np.random.default_rng(0)
  qvel = np.zeros(mm.nv, np.float32)
  for b in range(4):  # lateral sliding velocities: friction in the cone's middle zone
    qvel[6 * b:6 * b + 2] = rng.normal(0, 0.5, 2)
  d = d.replace(qvel=jnp.asarray(qvel))
  d = jax.jit(lambda d: mjx.step(m, d))(d)  # settle contacts, fill the warm start

  def fwd(d):
    return mjx.forward(m, d)

  library = jax.jit(fwd).lower(d).compile()
  with elliptic_newton.fast_elliptic_newton():
    fast = jax.jit(lambda d: mjx.forward(m, d)).lower(d).compile()
  lib = library(d)

  def newton_directions(d):
    # one Newton direction M^-1 grad from the same solver context, by MJX's function and by ours
    ctx = mjx_solver._update_constraint(m, d, mjx_solver.Context.create(m, d.replace(qacc=d.qacc_smooth)))
    return (elliptic_newton._LIBRARY_UPDATE_GRADIENT(m, d, ctx).Mgrad,
            elliptic_newton._update_gradient(m, d, ctx).Mgrad, ctx.h)

  return lib, fast(d), jax.jit(newton_directions)(lib)


def test_same_hessian_and_solution_as_mjx_and_the_patch_is_scoped():
  lib, fast, (mgrad_lib, mgrad_fast, cone_h) = _forward_both()
  assert float(np.abs(np.asarray(cone_h)).max()) > 0            # some contact in the cone's middle zone
  np.testing.assert_allclose(np.asarray(mgrad_fast), np.asarray(mgrad_lib), rtol=1e-4, atol=1e-5)
  assert float(np.abs(np.asarray(mgrad_lib)).max()) > 1e-3
  assert int(np.sum(np.asarray(lib._impl.contact.dist) < 0)) >= 4     # several contacts in touch
  assert float(np.abs(np.asarray(lib._impl.efc_force)).max()) > 1.0    # real constraint forces
  np.testing.assert_allclose(np.asarray(fast.qacc), np.asarray(lib.qacc), rtol=2e-4, atol=2e-3)
  np.testing.assert_allclose(np.asarray(fast._impl.efc_force), np.asarray(lib._impl.efc_force),
                             rtol=2e-4, atol=2e-3)
  # outside the block MJX is the library's own
  assert mjx_solver._update_gradient is elliptic_newton._LIBRARY_UPDATE_GRADIENT


def test_block_rows_and_mask():
  rows, mask = elliptic_newton._cone_rows(np.array([3, 4, 6]), np.array([0, 3, 7]))
  assert rows.tolist() == [[0, 1, 2, 0, 0, 0], [3, 4, 5, 6, 0, 0], [7, 8, 9, 10, 11, 12]]
  assert mask.sum(1).tolist() == [3, 4, 6]
