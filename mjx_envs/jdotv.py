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

How: within the block, MJX's `make_constraint` computes, after its own rows, J̇v of the connect and weld
rows as a forward-mode derivative, jax.jvp of qpos -> J(qpos) @ qvel along dq/dt (qvel for hinges and
slides, q * (0, w) / 2 for the quaternions of free and ball joints), and subtracts it from their efc_aref,
as C does. That is exact (C's `mj_jacDot` is the analytic time derivative of the same rows; the test
compares both with a finite difference) and costs one more forward-mode pass of the kinematics per substep,
traced only for models with a connect or weld.

The reference packages (gymnasium-robotics on MuJoCo 3.3.7, metaworld on 3.3.0) predate the term: on the
reference's own Sawyer model MuJoCo 4.0 moves the hand 0.20 mm (mean; max 1.30 mm) from where 3.3.0 does
over the parity fixture's 15 motion sequences, and 3.6 0.001 mm (BENCHMARKS.md). The project's physics is
the installed C MuJoCo's; this module keeps MJX-JAX with it. With a C MuJoCo older than 3.7, or an MJX
whose `make_constraint` already has the term or orders its rows otherwise, `c_jdotv()` leaves MJX as it is
(`compatibility_problem` says why).
"""

from __future__ import annotations

import contextlib
import inspect
import threading

import jax
import jax.numpy as jnp
import mujoco
import numpy as np

try:
  from mujoco.mjx._src import constraint as _constraint
  from mujoco.mjx._src import math as _math
  from mujoco.mjx._src import smooth as _smooth
  from mujoco.mjx._src.types import ConstraintType, DisableBit, EqType, JointType

  _IMPORT_ERROR = None
except ImportError as e:  # pragma: no cover - an MJX without these private modules
  _constraint = None
  _IMPORT_ERROR = e

C_JDOTV_VERSION = 370  # mujoco.mj_version() of the first C MuJoCo with the term (3.7.0)
_LOCK = threading.RLock()


def compatibility_problem() -> str | None:
  """Why `c_jdotv()` would leave MJX-JAX as it is, or None if it adds the term."""
  if mujoco.mj_version() < C_JDOTV_VERSION:
    return f"C MuJoCo {mujoco.mj_versionString()} has no J̇v term (added in 3.7.0): nothing to match"
  if _constraint is None:
    return f"MJX's private constraint module cannot be imported ({_IMPORT_ERROR})"
  target = getattr(_constraint, "make_constraint", None)
  if target is _make_constraint:
    return None
  try:
    src = inspect.getsource(target)
  except (OSError, TypeError) as e:
    return f"the source of mujoco.mjx._src.constraint.make_constraint cannot be read ({e})"
  if "jdot" in src.lower():
    return "MJX's make_constraint has a J̇v term of its own"
  # The rows this patch corrects must come first, connect then weld.
  order = [src.find(f"_efc_equality_{k}(m, d)") for k in ("connect", "weld", "joint", "tendon")]
  if min(order) < 0 or order != sorted(order):
    return "MJX's make_constraint no longer starts with the connect rows, then the weld rows"
  return None


def _qpos_rate(m, qpos: jax.Array, qvel: jax.Array) -> jax.Array:
  """dq/dt [nq] of qpos [nq] moving with qvel [nv] (free and ball quaternions: q * (0, w) / 2)."""
  parts, qi, vi = [], 0, 0
  for typ in np.asarray(m.jnt_type):
    if typ == JointType.FREE:
      parts += [qvel[vi : vi + 3], 0.5 * _math.quat_mul_axis(qpos[qi + 3 : qi + 7], qvel[vi + 3 : vi + 6])]
      qi, vi = qi + 7, vi + 6
    elif typ == JointType.BALL:
      parts.append(0.5 * _math.quat_mul_axis(qpos[qi : qi + 4], qvel[vi : vi + 3]))
      qi, vi = qi + 4, vi + 3
    else:  # hinge, slide
      parts.append(qvel[vi : vi + 1])
      qi, vi = qi + 1, vi + 1
  return jnp.concatenate(parts) if parts else jnp.zeros_like(qpos)


def jdotv(m, d) -> jax.Array | None:
  """J̇v [rows] of the connect rows then the weld rows of `d` (an mjx.Data after `mjx.kinematics` and
  `mjx.com_pos`), in MJX's row order; None if the model has neither (or equality is disabled)."""
  if m.opt.disableflags & (DisableBit.CONSTRAINT | DisableBit.EQUALITY):
    return None
  if not np.isin(np.asarray(m.eq_type), (EqType.CONNECT, EqType.WELD)).any():
    return None

  def jv(qpos):
    dq = _smooth.com_pos(m, _smooth.kinematics(m, d.replace(qpos=qpos)))
    rows = [f(m, dq) for f in (_constraint._efc_equality_connect, _constraint._efc_equality_weld)]  # pylint: disable=protected-access
    return jnp.concatenate([r.J for r in rows if r is not None]) @ d.qvel

  return jax.jvp(jv, (d.qpos,), (_qpos_rate(m, d.qpos, d.qvel),))[1]


_ORIGINAL = getattr(_constraint, "make_constraint", None) if _constraint is not None else None


def _make_constraint(m, d):
  """MJX's make_constraint, then C MuJoCo's J̇v subtracted from the connect and weld rows' efc_aref."""
  d = _ORIGINAL(m, d)
  jdv = jdotv(m, d)
  if jdv is None:
    return d
  n = jdv.shape[0]
  assert (np.asarray(_constraint.make_efc_type(m))[:n] == ConstraintType.EQUALITY).all()
  aref = d._impl.efc_aref  # pylint: disable=protected-access
  return d.tree_replace({"_impl.efc_aref": aref.at[:n].add(-jdv.astype(aref.dtype))})


@contextlib.contextmanager
def c_jdotv():
  """Within this block, tracing `mjx.step` / `mjx.forward` gives connect and weld rows C MuJoCo's J̇v term
  (when `compatibility_problem()` is None; otherwise MJX is left as it is)."""
  with _LOCK:
    if compatibility_problem() is not None:
      yield
      return
    previous = _constraint.make_constraint
    _constraint.make_constraint = _make_constraint
    try:
      yield
    finally:
      _constraint.make_constraint = previous
