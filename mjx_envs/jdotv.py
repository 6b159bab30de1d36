"""C MuJoCo's J̇v term in MJX-JAX's connect and weld constraints, so the two engines step the same physics.

Since MuJoCo 3.7 C MuJoCo subtracts the centripetal / Coriolis acceleration J̇v from the reference
acceleration of connect and weld equality rows (`mj_Jdotv` in engine_core_constraint.c; its changelog:
"Added the centripetal/Coriolis acceleration term J̇v to the constraint solver bias for connect and weld
equality constraints"). MJX-JAX (mujoco-mjx up to 4.0 at least) does not. Where a weld's Jacobian turns
with the configuration, the two engines part: the Meta-World Sawyer arm's hand, welded to its mocap
target at the end of a 7-joint chain, by 5.8e-6 m after one control step and 6.5e-5 m after ten (float64
MJX as float32; 3e-8 for the free hand, whose weld Jacobian barely turns). With `c_jdotv()` MJX-JAX
carries the term too (tests/mjx_envs/test_jdotv.py; the arm's gap in BENCHMARKS.md, "The arm's
MJX-against-C gap").

How: within the block, MJX's `fwd_velocity` (which computes cvel and cdof_dot) is followed by C's
`mj_Jdotv` written in JAX: per connect or weld, the time derivative of the two anchor points' Jacobians
(MJX's `support.jac_dot`, C's `mj_jacDot`) times qvel, and for a weld's rotation rows the product rule over 0.5 * neg(q1) * (J0 - J1) v * q0 *
relpose; the result is subtracted from the rows' efc_aref: a few small products per equality (traced
only for models with a connect or weld). A
forward-mode derivative (jax.jvp of qpos -> J(qpos) qvel) gives the same numbers (the test compares both
with a finite difference) but made a drawer-open mjx.step 12x slower on the CPU (28 -> 344 ms): the
kinematics' tree scans under jvp.

The reference packages (gymnasium-robotics on MuJoCo 3.3.7, metaworld on 3.3.0) predate the term: on the
reference's own Sawyer model MuJoCo 4.0 moves the hand 0.20 mm (mean; max 1.30 mm) from where 3.3.0 does
over the parity fixture's 15 motion sequences, and 3.6 0.001 mm (BENCHMARKS.md). The project's physics is
the installed C MuJoCo's; this module keeps MJX-JAX with it. With a C MuJoCo older than 3.7, or an MJX
whose `make_constraint` already has the term or orders its rows otherwise, `c_jdotv()` leaves MJX as it is
(`compatibility_problem` says why).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
import warnings

import jax
import jax.numpy as jnp
import mujoco
import numpy as np

try:
  from mujoco.mjx._src import constraint as _constraint
  from mujoco.mjx._src import forward as _forward
  from mujoco.mjx._src import math as _math
  from mujoco.mjx._src import support as _support
  from mujoco.mjx._src.types import ConstraintType, DisableBit, EqType

  _IMPORT_ERROR = None
except ImportError as e:  # pragma: no cover - an MJX without these private modules
  _constraint = None
  _IMPORT_ERROR = e

C_JDOTV_VERSION = 370  # mujoco.mj_version() of the first C MuJoCo with the term (3.7.0)
_LOCK = threading.RLock()


def compatibility_problem() -> str | None:
  """Why `c_jdotv()` would leave MJX-JAX as it is, or None if it adds the term."""
  if _constraint is not None and getattr(_forward, "fwd_velocity", None) is _fwd_velocity:
    return None  # nested use
  return _problem(
    getattr(_constraint, "make_constraint", None),
    getattr(_forward, "fwd_velocity", None) if _constraint else None,
  )


@functools.lru_cache(maxsize=8)
def _problem(make_constraint, fwd_velocity) -> str | None:
  """compatibility_problem for these MJX functions: their sources read once, not at every trace (a
  swapped function is a new key, checked again)."""
  if mujoco.mj_version() < C_JDOTV_VERSION:
    return f"C MuJoCo {mujoco.mj_versionString()} has no J̇v term (added in 3.7.0): nothing to match"
  if _constraint is None:
    return f"MJX's private constraint module cannot be imported ({_IMPORT_ERROR})"
  if not callable(getattr(_support, "jac_dot", None)):
    return "MJX has no support.jac_dot"
  try:
    src = inspect.getsource(make_constraint)
  except (OSError, TypeError) as e:
    return f"the source of mujoco.mjx._src.constraint.make_constraint cannot be read ({e})"
  if "jdot" in src.lower():
    return "MJX's make_constraint has a J̇v term of its own"
  # The rows this patch corrects must come first, connect then weld.
  order = [src.find(f"_efc_equality_{k}(m, d)") for k in ("connect", "weld", "joint", "tendon")]
  if min(order) < 0 or order != sorted(order):
    return "MJX's make_constraint no longer starts with the connect rows, then the weld rows"
  try:
    fwd = inspect.getsource(_forward.forward)
  except (OSError, TypeError) as e:
    return f"the source of mujoco.mjx._src.forward.forward cannot be read ({e})"
  if "fwd_velocity(m, d)" not in fwd or "jdot" in inspect.getsource(fwd_velocity).lower():
    return "MJX's forward no longer calls fwd_velocity, or fwd_velocity has a J̇v term of its own"
  return None


def _jac_dot_v(m, d, point: jax.Array, body: int) -> tuple[jax.Array, jax.Array]:
  """(translational [3], rotational [3]) J̇v of `point` fixed to `body`: MJX's jac_dot (C's mj_jacDot)
  times qvel."""
  jacp, jacr = _support.jac_dot(m, d, point, body)
  return d.qvel @ jacp, d.qvel @ jacr


def _deriv_quat(q: jax.Array, omega: jax.Array) -> jax.Array:
  """dq/dt [4] of an orientation q turning at omega [3] given in the world frame (C's mju_derivQuat)."""
  return 0.5 * _math.quat_mul(jnp.concatenate([jnp.zeros(1, omega.dtype), omega]), q)


def jdotv(m, d) -> jax.Array | None:
  """J̇v [rows] of the connect rows then the weld rows of `d` (an mjx.Data after `fwd_position` and
  `fwd_velocity`: it reads cvel and cdof_dot), in MJX's row order; None if the model has neither (or
  equality is disabled)."""
  if m.opt.disableflags & (DisableBit.CONSTRAINT | DisableBit.EQUALITY):
    return None
  eq_type = np.asarray(m.eq_type)
  ids = [np.flatnonzero(eq_type == t) for t in (EqType.CONNECT, EqType.WELD)]
  if not sum(len(i) for i in ids):
    return None
  site_body = np.asarray(m.site_bodyid)
  out = []
  for kind, eq_ids in zip(("connect", "weld"), ids):
    for i in eq_ids:
      obj1, obj2 = int(m.eq_obj1id[i]), int(m.eq_obj2id[i])
      is_site = int(m.eq_objtype[i]) == int(mujoco.mjtObj.mjOBJ_SITE)
      b1, b2 = (int(site_body[obj1]), int(site_body[obj2])) if is_site else (obj1, obj2)
      data = m.eq_data[i]
      a1, a2 = (data[0:3], data[3:6]) if kind == "connect" else (data[3:6], data[0:3])
      if is_site:
        p1, p2 = d.site_xpos[obj1], d.site_xpos[obj2]
      else:
        p1, p2 = d.xmat[b1] @ a1 + d.xpos[b1], d.xmat[b2] @ a2 + d.xpos[b2]
      t1, r1 = _jac_dot_v(m, d, p1, b1)
      t2, r2 = _jac_dot_v(m, d, p2, b2)
      rows = [t1 - t2]
      if kind == "weld":
        q0, q1 = d.xquat[b1], d.xquat[b2]
        if is_site:
          q0, q1 = _math.quat_mul(q0, m.site_quat[obj1]), _math.quat_mul(q1, m.site_quat[obj2])
        relpose = jnp.array([1.0, 0.0, 0.0, 0.0]) if is_site else data[6:10]
        q0r, negq1 = _math.quat_mul(q0, relpose), _math.quat_inv(q1)
        w1, w2 = d.cvel[b1][:3], d.cvel[b2][:3]
        dw = w1 - w2
        qdot0r = _math.quat_mul(_deriv_quat(q0, w1), relpose)
        negqdot1 = _math.quat_inv(_deriv_quat(q1, w2))
        term = (
          _math.quat_mul(_math.quat_mul_axis(negqdot1, dw), q0r)
          + _math.quat_mul(_math.quat_mul_axis(negq1, r1 - r2), q0r)
          + _math.quat_mul(_math.quat_mul_axis(negq1, dw), qdot0r)
        )
        rows.append(0.5 * term[1:] * data[10])
      out.append(jnp.concatenate(rows) * d.eq_active[i])
  return jnp.concatenate(out)


_ORIGINAL = getattr(_forward, "fwd_velocity", None) if _constraint is not None else None


def _fwd_velocity(m, d):
  """MJX's fwd_velocity, then C MuJoCo's J̇v subtracted from the connect and weld rows' efc_aref."""
  d = _ORIGINAL(m, d)
  jdv = jdotv(m, d)
  if jdv is None:
    return d
  n = jdv.shape[0]
  assert (np.asarray(_constraint.make_efc_type(m))[:n] == ConstraintType.EQUALITY).all()
  aref = d._impl.efc_aref  # pylint: disable=protected-access
  return d.tree_replace({"_impl.efc_aref": aref.at[:n].add(-jdv.astype(aref.dtype))})


_WARNED = False


def _warn_once(problem: str) -> None:
  global _WARNED
  if _WARNED:
    return
  _WARNED = True
  warnings.warn(
    f"mjx_envs.jdotv: {problem}; MJX-JAX steps without C MuJoCo's J̇v term, so welded arms part from the "
    "C backend by ~1e-4 m in 10 steps (tests/mjx_envs/test_jdotv.py re-validates the patch)",
    RuntimeWarning,
    stacklevel=4,
  )


@contextlib.contextmanager
def c_jdotv():
  """Within this block, tracing `mjx.step` / `mjx.forward` gives connect and weld rows C MuJoCo's J̇v term
  (when `compatibility_problem()` is None; otherwise MJX is left as it is)."""
  with _LOCK:
    problem = compatibility_problem()
    if problem is not None:
      if mujoco.mj_version() >= C_JDOTV_VERSION:
        _warn_once(problem)
      yield
      return
    previous = _forward.fwd_velocity
    _forward.fwd_velocity = _fwd_velocity
    try:
      yield
    finally:
      _forward.fwd_velocity = previous
