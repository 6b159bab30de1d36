"""The block-wise elliptic Newton Hessian (mjx_envs/elliptic_newton.py) gives MJX's own solver result, stays
finite where MJX's own goes NaN (a resting contact set), and steps aside when MJX's private code changes."""

import mjx_envs
from mjx_envs import elliptic_newton

import importlib.metadata
import os
import warnings

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest
from mujoco import mjx
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

# Two boxes resting on a plane (condim 3 and 4): 8 touching contacts.
REST_XML = """
<mujoco>
  <option timestep="0.002" solver="Newton" cone="elliptic" iterations="6" ls_iterations="6"/>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body pos="0 0 0.05"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="2" condim="3" friction="1"/></body>
    <body pos="0.3 0 0.05"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="2" condim="4" friction="1"/></body>
  </worldbody>
</mujoco>"""

# What the patch was validated against: mujoco-mjx 3.17.0 (the same sources from 3.4.0 on). A failure of
# test_mjx_private_functions_are_the_validated_ones means MJX changed the code the patch replaces or reads.
SIGNATURE = ("m", "d", "ctx")
SOURCE_SHA256 = {
  "_update_gradient": "47fd0bb3d3369dde3f611aef6b400b5a201bd4f35a05f615b9fa13a4b1e4221d",
  "_update_constraint": "fecda1b36c8f241c3c8f78f366a8d3187ed351ba5d8d7a3259d86eab8c23372b",
  "Context": "078cf3f75b76cc23165d42d356e31a0468240c8f5ff7419328250a9e3e3c66f9",
}
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")


def _forward_both():
  mm = mujoco.MjModel.from_xml_string(XML)
  m = mjx.put_model(mm)
  d = mjx.make_data(m)
  rng = np.random.default_rng(0)
  qvel = np.zeros(mm.nv, np.float32)
  for b in range(4):  # lateral sliding velocities: friction in the cone's middle zone
    qvel[6 * b : 6 * b + 2] = rng.normal(0, 0.5, 2)
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
    return (
      elliptic_newton._LIBRARY_UPDATE_GRADIENT(m, d, ctx).Mgrad,
      elliptic_newton._update_gradient(m, d, ctx).Mgrad,
      ctx.h,
    )

  return lib, fast(d), jax.jit(newton_directions)(lib)


def test_same_hessian_and_solution_as_mjx_and_the_patch_is_scoped():
  lib, fast, (mgrad_lib, mgrad_fast, cone_h) = _forward_both()
  assert float(np.abs(np.asarray(cone_h)).max()) > 0  # some contact in the cone's middle zone
  np.testing.assert_allclose(np.asarray(mgrad_fast), np.asarray(mgrad_lib), rtol=1e-4, atol=1e-5)
  assert float(np.abs(np.asarray(mgrad_lib)).max()) > 1e-3
  assert int(np.sum(np.asarray(lib._impl.contact.dist) < 0)) >= 4  # several contacts in touch
  assert float(np.abs(np.asarray(lib._impl.efc_force)).max()) > 1.0  # real constraint forces
  np.testing.assert_allclose(np.asarray(fast.qacc), np.asarray(lib.qacc), rtol=2e-4, atol=2e-3)
  np.testing.assert_allclose(
    np.asarray(fast._impl.efc_force), np.asarray(lib._impl.efc_force), rtol=2e-4, atol=2e-3
  )
  # outside the block MJX is the library's own
  assert mjx_solver._update_gradient is elliptic_newton._LIBRARY_UPDATE_GRADIENT


def test_block_rows_and_mask():
  rows, mask = elliptic_newton._cone_rows(np.array([3, 4, 6]), np.array([0, 3, 7]))
  assert rows.tolist() == [[0, 1, 2, 0, 0, 0], [3, 4, 5, 6, 0, 0], [7, 8, 9, 10, 11, 12]]
  assert mask.sum(1).tolist() == [3, 4, 6]


def test_resting_contacts_with_a_tiny_tangential_residual_no_nan_and_mjx_direction():
  """The NaN of FetchPush at rest, built directly: touching contacts in the cone's middle zone with a tangential
  residual T = 2e-6, where MJX clamps T^3 to 1e-15 and its cone blocks turn indefinite: MJX's own function
  (plain cho_factor) returns NaN. Ours is finite and equals MJX's own direction for the same contacts with
  (N, U) scaled by 1e4, where MJX's clamp is inactive (the cone Hessian depends on U only through U/T)."""
  mm = mujoco.MjModel.from_xml_string(REST_XML)
  dd = mujoco.MjData(mm)
  for _ in range(500):  # settle in C MuJoCo
    mujoco.mj_step(mm, dd)
  assert np.abs(dd.qvel).max() < 1e-6
  m = mjx.put_model(mm)
  d = mjx.make_data(m).replace(qpos=jnp.asarray(dd.qpos, jnp.float32), qvel=jnp.asarray(dd.qvel, jnp.float32))
  d = jax.jit(lambda d: mjx.forward(m, d))(d)
  con = d._impl.contact
  touching = np.where((np.asarray(con.dim) > 1) & (np.asarray(con.dist) < 0))[0]
  assert len(touching) == 8

  def context(t):
    ctx = mjx_solver.Context.create(m, d)
    jaref = ctx.Jaref
    for k in touching:  # u = (N, U) = Jaref * (mu, friction): N / T = 0.5 (mu = 1), U / T = (0.6, 0.8)
      a, f = int(con.efc_address[k]), con.friction[k, 0]
      jaref = jaref.at[a].set(0.5 * t).at[a + 1].set(0.6 * t / f).at[a + 2].set(0.8 * t / f)
    return mjx_solver._update_constraint(m, d, ctx.replace(Jaref=jaref))

  @jax.jit
  def directions():
    small, big = context(2e-6), context(2e-2)
    big = big.replace(Ma=small.Ma, qfrc_constraint=small.qfrc_constraint)  # the same gradient
    return (
      elliptic_newton._LIBRARY_UPDATE_GRADIENT(m, d, small).Mgrad,
      elliptic_newton._update_gradient(m, d, small).Mgrad,
      elliptic_newton._LIBRARY_UPDATE_GRADIENT(m, d, big).Mgrad,
      elliptic_newton._update_gradient(m, d, big).Mgrad,
      small.h,
    )

  lib_small, ours_small, lib_big, ours_big, h_small = (np.asarray(x) for x in directions())
  assert int(np.sum(h_small[:, 0, 0] > 0)) == 8  # all eight in the middle zone
  assert np.linalg.eigvalsh(h_small.astype(np.float64)).min() < -1.0  # MJX's clamped blocks: indefinite
  assert np.isnan(lib_small).all()  # MJX's own function: NaN
  assert np.isfinite(ours_small).all()
  scale = np.abs(lib_big).max()
  assert scale > 1.0
  np.testing.assert_allclose(ours_small, lib_big, rtol=1e-4, atol=1e-5 * scale)
  np.testing.assert_allclose(ours_big, lib_big, rtol=1e-4, atol=1e-5 * scale)


def test_clamped_cholesky():
  """As C MuJoCo's mju_cholFactor: LAPACK's factor on a positive definite matrix; on a numerically singular
  one (float32: [[1, 1], [1, 1 - 6e-8]], the second pivot -6e-8), a finite factor of H + E, E diagonal,
  small and >= 0, where plain cho_factor gives NaN."""
  rng = np.random.default_rng(1)
  b = rng.normal(size=(14, 14)).astype(np.float32)
  spd = jnp.asarray(b @ b.T + 0.1 * np.eye(14, dtype=np.float32))
  chol = jax.jit(elliptic_newton._cholesky_clamped)
  np.testing.assert_allclose(
    np.asarray(chol(spd)), np.asarray(jnp.linalg.cholesky(spd)), rtol=1e-4, atol=1e-4
  )
  singular = jnp.asarray([[1.0, 1.0], [1.0, np.nextafter(np.float32(1), np.float32(0))]], jnp.float32)
  assert np.isnan(np.asarray(jax.scipy.linalg.cho_factor(singular)[0])).any()
  low = np.asarray(chol(singular), np.float64)
  assert np.isfinite(low).all()
  e = low @ low.T - np.asarray(singular, np.float64)
  assert np.abs(e - np.diag(np.diag(e))).max() < 1e-6
  assert 0 <= np.diag(e).min() and np.diag(e).max() < 1e-6
  assert np.isfinite(np.asarray(jax.scipy.linalg.cho_solve((chol(singular), True), jnp.ones(2)))).all()


def test_fetch_push_resting_object_stays_finite_and_on_the_reference():
  """FetchPush in MJX-JAX, zero actions from the dynamics fixture's start states (object resting on the
  table; the rows that went NaN on some CPUs): finite, not diverged, gripper and object on C MuJoCo's path."""
  dyn = np.load(os.path.join(FIXTURES, "fetch_dynamics_reference.npz"))
  env = mjx_envs.make("FetchPush", impl="jax")
  goals = dyn["FetchPush/start/dg"][:16].astype(np.float32)
  objq = dyn["FetchPush/start/object_qpos"][:16].astype(np.float32)
  s0 = jax.jit(jax.vmap(env.reset_to))(goals, objq)
  n = 40

  @jax.jit
  def run(s0):
    def body(s, _):
      s = jax.vmap(env.step)(s, jnp.zeros((goals.shape[0], 4)))
      return s, (s.pipeline_state.qpos, s.obs["observation"], s.info["diverged"])

    return jax.lax.scan(body, s0, None, length=n)[1]

  qpos, obs, diverged = (np.asarray(x) for x in run(s0))
  assert np.isfinite(qpos).all() and not diverged.any()
  ours = np.concatenate([np.asarray(s0.obs["observation"])[None], obs]).swapaxes(0, 1)  # [P, n + 1, D]
  ref = dyn["FetchPush/zero/obs"][:, : n + 1]
  assert np.linalg.norm(ours[..., 0:3] - ref[..., 0:3], axis=-1).max() < 0.003  # gripper
  assert np.linalg.norm(ours[..., 3:6] - ref[..., 3:6], axis=-1).max() < 0.003  # object


def test_mjx_private_functions_are_the_validated_ones():
  """Fails when mujoco-mjx changes the code the patch replaces (`_update_gradient`) or reads
  (`_update_constraint`, `Context`): the patch must then be re-validated before it is used again (until then
  `fast_elliptic_newton` leaves MJX's own function in place, with a warning)."""
  version = importlib.metadata.version("mujoco-mjx")
  redo = (
    f"mujoco-mjx {version} changed MJX's private solver code that mjx_envs/elliptic_newton.py replaces "
    f"(validated with {elliptic_newton.VALIDATED_MJX}): re-validate the patch against it (this file's tests, "
    f"the Meta-World drawer step time, FetchPush at rest), then record the new signature / sha256 here and "
    f"in elliptic_newton.SIGNATURE / SOURCE_SHA256, and the mujoco-mjx cap in pyproject.toml"
  )
  assert tuple(p for p, _ in elliptic_newton.signature_of(mjx_solver._update_gradient)) == SIGNATURE, redo
  for name, sha in SOURCE_SHA256.items():
    assert elliptic_newton.source_sha256(getattr(mjx_solver, name)) == sha, f"{name}: {redo}"
  assert tuple(p for p, _ in elliptic_newton.SIGNATURE) == SIGNATURE
  assert elliptic_newton.SOURCE_SHA256 == SOURCE_SHA256
  assert elliptic_newton.compatibility_problem() is None


@pytest.mark.parametrize("change", ["signature", "source", "missing"])
def test_changed_mjx_falls_back_to_mjx_with_one_warning(monkeypatch, change):
  library = mjx_solver._update_gradient
  calls = []

  if change == "signature":

    def replacement(m, d, ctx, extra=None):
      del extra
      calls.append(1)
      return library(m, d, ctx)
  else:

    def replacement(m, d, ctx):  # same signature, other source
      calls.append(1)
      return library(m, d, ctx)

  if change == "missing":
    monkeypatch.delattr(mjx_solver, "_update_gradient")
  else:
    monkeypatch.setattr(mjx_solver, "_update_gradient", replacement)
  monkeypatch.setattr(elliptic_newton, "_WARNED", False)
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _ in range(3):
      with elliptic_newton.fast_elliptic_newton():  # no crash, nothing patched
        if change == "missing":
          assert not hasattr(mjx_solver, "_update_gradient")
        else:
          assert mjx_solver._update_gradient is replacement
  ours = [w for w in caught if "elliptic_newton" in str(w.message)]
  assert len(ours) == 1, [str(w.message) for w in ours]
  assert issubclass(ours[0].category, RuntimeWarning)
  assert "re-validate" in str(ours[0].message)
  assert {"signature": "parameters", "source": "source", "missing": "missing"}[change] in str(ours[0].message)
  if change == "signature":  # a step traced in the block runs MJX's (here: the changed) function
    m = mjx.put_model(mujoco.MjModel.from_xml_string(REST_XML))
    with elliptic_newton.fast_elliptic_newton():
      out = jax.jit(lambda d: mjx.forward(m, d))(mjx.make_data(m))
    assert calls and np.isfinite(np.asarray(out.qacc)).all()
    assert mjx_solver._update_gradient is replacement
