"""A fast cone Hessian for MJX's Newton solver with elliptic friction cones.

MJX-JAX (mujoco-mjx 3.17) builds the Newton Hessian of an elliptic-cone model as

    cm = diag(efc_D * active)                                  # [nefc, nefc], dense
    for each contact i:  cm[adr_i:adr_i+c_i, adr_i:adr_i+c_i] += H_i     # a Python loop of updates
    H = efc_J.T @ cm @ efc_J

in every solver iteration. Each of the per-contact updates rewrites the whole nefc x nefc matrix, so the cost
grows as ncon * nefc^2: negligible for a hand on a table (reach-v3: 52 contacts, 216 rows), but the
Meta-World drawer (216 contacts, 873 rows) spent 3.5 s in ONE vmapped step of 12 worlds on this CPU (against
17 ms with pyramidal cones), which made every furniture task and MT10 unusable.

`fast_elliptic_newton()` swaps in the same Hessian computed block by block,

    H = efc_J.T @ diag(efc_D * active) @ efc_J + sum_i J_i.T @ H_i @ J_i,   J_i = efc_J[adr_i:adr_i+c_i],

which is the same matrix (only the float summation order differs; tests/mjx_envs/test_elliptic_newton.py
checks solver outputs against MJX's own function) at a cost of ncon * 36 * nv^2. The swap is scoped: it is
active only while `MjxEnv.physics_step` traces `mjx.step`, so other MJX users in the same process see the
library unchanged, and every other solver / cone combination calls MJX's own function.
"""

from __future__ import annotations

import contextlib
import threading

import jax
import jax.numpy as jnp
import numpy as np
from mujoco.mjx._src import solver as _solver
from mujoco.mjx._src import support as _support
from mujoco.mjx._src.types import ConeType, SolverType

_LIBRARY_UPDATE_GRADIENT = _solver._update_gradient  # pylint: disable=protected-access
_LOCK = threading.RLock()


def _cone_rows(dim: np.ndarray, efc_address: np.ndarray):
  """Static row indices [ncone, 6] of each cone contact's constraint rows and their mask (rows past the
  contact's condim point at row 0 and are masked out)."""
  k = np.arange(6)
  mask = k[None, :] < dim[:, None]
  rows = np.where(mask, efc_address[:, None] + k[None, :], 0)
  return rows, mask


def _update_gradient(m, d, ctx):
  """MJX's `_update_gradient` with the elliptic Newton Hessian built block by block (module docstring)."""
  if m.opt.solver != SolverType.NEWTON or m.opt.cone != ConeType.ELLIPTIC:
    return _LIBRARY_UPDATE_GRADIENT(m, d, ctx)
  impl = d._impl  # pylint: disable=protected-access
  grad = ctx.Ma - d.qfrc_smooth - ctx.qfrc_constraint
  # contact dims and addresses are static (numpy) in MJX-JAX, as the library's own loop relies on
  cone = np.asarray(impl.contact.dim) > 1
  rows, mask = _cone_rows(np.asarray(impl.contact.dim)[cone], np.asarray(impl.contact.efc_address)[cone])
  j = impl.efc_J
  h = (j.T * (impl.efc_D * ctx.active)) @ j
  if rows.shape[0]:
    jc = j[rows] * jnp.asarray(mask, j.dtype)[..., None]             # [ncone, 6, nv]
    h = h + jnp.einsum("cak,cab,cbl->kl", jc, ctx.h, jc)
  h = _support.full_m(m, d) + h
  h_sym = (h + h.T) * 0.5          # as the library: symmetrise before the Cholesky factorisation
  mgrad = jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(h_sym), grad)
  return ctx.replace(grad=grad, Mgrad=mgrad)


@contextlib.contextmanager
def fast_elliptic_newton():
  """Within this block, tracing `mjx.step` / `mjx.forward` uses the block-wise elliptic Newton Hessian."""
  with _LOCK:
    previous = _solver._update_gradient  # pylint: disable=protected-access
    _solver._update_gradient = _update_gradient  # pylint: disable=protected-access
    try:
      yield
    finally:
      _solver._update_gradient = previous  # pylint: disable=protected-access
