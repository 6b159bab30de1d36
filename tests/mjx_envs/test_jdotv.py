"""mjx_envs.jdotv: C MuJoCo (>= 3.7) subtracts J̇v from the reference acceleration of connect and weld rows,
and MJX-JAX does the same within `c_jdotv()`.

A small model has both kinds: a 3-joint arm whose end is welded to a moving mocap body (torque scale 5, as
the Meta-World arm's), and a free body hung from a fixed point by a connect. No contacts, so MJX compiles
it in seconds. Three checks: C's efc_aref is the textbook -B v - K I pos minus a finite difference of the
rows' Jacobian along the motion (the premise); `jdotv` gives that same finite difference; and ten control
steps of mjx.step within `c_jdotv()` stay with C's mj_step to float32 rounding, while MJX's own rows part
from it by over 10x more.
"""

from mjx_envs import jdotv

import contextlib

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest
from mujoco import mjx

XML = """
<mujoco>
  <option timestep="0.0025" iterations="10" ls_iterations="10"/>
  <worldbody>
    <body name="mocap" mocap="true" pos="0.25 0.15 0.45"/>
    <body name="l1" pos="0 0 0.2">
      <joint type="hinge" axis="0 0 1" damping="1"/>
      <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.03" mass="1" contype="0" conaffinity="0"/>
      <body name="l2" pos="0.2 0 0">
        <joint type="hinge" axis="0 1 0" damping="1"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.2" size="0.03" mass="1" contype="0" conaffinity="0"/>
        <body name="l3" pos="0 0 0.2">
          <joint type="hinge" axis="1 0 0" damping="1"/>
          <geom type="capsule" fromto="0 0 0 0.1 0 0.05" size="0.02" mass="0.5" contype="0" conaffinity="0"/>
          <body name="hand" pos="0.1 0 0.05">
            <geom type="box" size="0.02 0.02 0.02" mass="0.2" contype="0" conaffinity="0"/>
          </body>
        </body>
      </body>
    </body>
    <body name="bob" pos="-0.3 0 0.5">
      <freejoint/>
      <geom type="box" size="0.05 0.03 0.02" mass="0.3" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <equality>
    <connect body1="bob" body2="world" anchor="0.1 0 0.05"/>
    <weld body1="mocap" body2="hand" relpose="0 0 0 1 0 0 0" torquescale="5" solref="0.02 1"/>
  </equality>
</mujoco>
"""
STEPS, NSUB = 10, 5


@pytest.fixture(scope="module")
def model():
  return mujoco.MjModel.from_xml_string(XML)


def _moving(m):
  """A state in motion: a mocap path stepped 20 control steps in C, the bob given a spin."""
  d = mujoco.MjData(m)
  d.qvel[3:9] = (0.3, -0.2, 0.1, 2.0, -1.0, 0.5)
  mujoco.mj_forward(m, d)
  for k in range(20):
    d.mocap_pos[0] += 0.004 * np.array([np.cos(k / 4), np.sin(k / 3), -0.5])
    mujoco.mj_step(m, d, NSUB)
  mujoco.mj_forward(m, d)
  return d


def _jdotv_fd(m, d, h=1e-6):
  """J̇v of the equality rows by a central difference of their Jacobian along qvel, float64."""

  def rows_j(sign):
    dd = mujoco.MjData(m)
    dd.qpos[:] = d.qpos
    mujoco.mj_integratePos(m, dd.qpos, d.qvel, sign * h)
    dd.qvel[:], dd.mocap_pos[:], dd.mocap_quat[:] = d.qvel, d.mocap_pos, d.mocap_quat
    mujoco.mj_forward(m, dd)
    return dd.efc_J.reshape(dd.nefc, m.nv)[: d.ne]

  return (rows_j(1) - rows_j(-1)) @ d.qvel / (2 * h)


def test_c_mujoco_subtracts_jdotv_from_connect_and_weld_rows(model):
  d = _moving(model)
  assert d.ne == 3 + 6
  kbip = d.efc_KBIP[: d.ne]
  textbook = -kbip[:, 1] * d.efc_vel[: d.ne] - kbip[:, 0] * kbip[:, 2] * (
    d.efc_pos[: d.ne] - d.efc_margin[: d.ne]
  )
  fd = _jdotv_fd(model, d)
  assert np.abs(fd).max() > 0.05, fd  # the state moves: the term is not negligible here
  if mujoco.mj_version() < jdotv.C_JDOTV_VERSION:
    np.testing.assert_allclose(d.efc_aref[: d.ne], textbook, rtol=1e-12, atol=1e-12)
  else:
    np.testing.assert_allclose(textbook - d.efc_aref[: d.ne], fd, rtol=1e-6, atol=1e-8)


def test_jdotv_is_the_finite_difference(model):
  d = _moving(model)
  mx = mjx.put_model(model)
  dx = mjx.put_data(model, d)
  got = jax.jit(lambda dx: jdotv.jdotv(mx, mjx.forward(mx, dx)))(dx)
  np.testing.assert_allclose(np.asarray(got, np.float64), _jdotv_fd(model, d), rtol=2e-4, atol=2e-4)


def test_mjx_steps_with_c_within_c_jdotv(model):
  assert jdotv.compatibility_problem() is None or mujoco.mj_version() < jdotv.C_JDOTV_VERSION
  d0 = _moving(model)
  mx = mjx.put_model(model)
  path = d0.mocap_pos[0] + 0.006 * np.stack(
    [np.sin(np.arange(STEPS) / 2), np.cos(np.arange(STEPS) / 3), np.ones(STEPS)], 1
  )

  def c_rollout():
    d = mujoco.MjData(model)
    mujoco.mj_setState(model, d, _state(model, d0), mujoco.mjtState.mjSTATE_INTEGRATION)
    out = []
    for p in path:
      d.mocap_pos[0] = p
      mujoco.mj_step(model, d, NSUB)
      out.append(d.qpos.copy())
    return np.stack(out)

  def mjx_rollout(patched):
    def ctrl_step(dx, p):
      dx = dx.replace(mocap_pos=dx.mocap_pos.at[0].set(p))
      dx = jax.lax.fori_loop(0, NSUB, lambda _, x: mjx.step(mx, x), dx)
      return dx, dx.qpos

    with jdotv.c_jdotv() if patched else contextlib.nullcontext():
      run = jax.jit(lambda dx: jax.lax.scan(ctrl_step, dx, jnp.asarray(path, jnp.float32))[1])
      return np.asarray(run(mjx.put_data(model, d0)), np.float64)

  c = c_rollout()
  with_term = np.abs(mjx_rollout(True) - c).max()
  without = np.abs(mjx_rollout(False) - c).max()
  print(
    f"qpos gap to C over {STEPS} control steps: with the term {with_term:.2e}, MJX's own rows {without:.2e}"
  )
  assert with_term < 2e-6, with_term
  if mujoco.mj_version() >= jdotv.C_JDOTV_VERSION:
    assert without > 10 * with_term, (without, with_term)


def _state(m, d):
  s = np.empty(mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_INTEGRATION))
  mujoco.mj_getState(m, d, s, mujoco.mjtState.mjSTATE_INTEGRATION)
  return s


def test_c_jdotv_leaves_mjx_alone_and_warns_when_it_cannot_patch(monkeypatch):
  from mujoco.mjx._src import forward  # pylint: disable=import-outside-toplevel

  monkeypatch.setattr(jdotv, "compatibility_problem", lambda: "MJX changed")
  monkeypatch.setattr(jdotv, "_WARNED", False)
  before = forward.fwd_velocity
  if mujoco.mj_version() >= jdotv.C_JDOTV_VERSION:
    with pytest.warns(RuntimeWarning, match="MJX changed"), jdotv.c_jdotv():
      assert forward.fwd_velocity is before
  with jdotv.c_jdotv():  # once per process
    assert forward.fwd_velocity is before
