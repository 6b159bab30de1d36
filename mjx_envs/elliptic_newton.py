"""A fast, guarded cone Hessian for MJX's Newton solver with elliptic friction cones.

MJX-JAX (mujoco-mjx 3.17) builds the Newton Hessian of an elliptic-cone model as

    cm = diag(efc_D * active)                                  # [nefc, nefc], dense
    for each contact i:  cm[adr_i:adr_i+c_i, adr_i:adr_i+c_i] += H_i     # a Python loop of updates
    H = efc_J.T @ cm @ efc_J

in every solver iteration. Each of the per-contact updates rewrites the whole nefc x nefc matrix, so the cost
grows as ncon * nefc^2: negligible for a hand on a table (reach-v3: 52 contacts, 216 rows), but the
Meta-World drawer (216 contacts, 873 rows) spent 3.5 s in ONE vmapped step of 12 worlds on this CPU (against
17 ms with pyramidal cones), which made every furniture task and MT10 unusable.

`fast_elliptic_newton()` swaps in the same Hessian computed block by block,

    H = M + efc_J.T @ diag(efc_D * active) @ efc_J + sum_i J_i.T @ H_i @ J_i,   J_i = efc_J[adr_i:adr_i+c_i],

which is the same matrix (only the float summation order differs; tests/mjx_envs/test_elliptic_newton.py
checks solver outputs against MJX's own function) at a cost of ncon * 36 * nv^2. The swap is scoped: it is
active only while `MjxEnv.physics_step` traces `mjx.step`, so other MJX users in the same process see the
library unchanged, and every other solver / cone combination calls MJX's own function.

Fixes against MJX's own function (both do what C MuJoCo does; neither changes a well-posed Newton step):

1. The cone Hessian of a resting contact: the NaN of FetchPush's zero-action rows on some CPUs. MJX's
   `_update_constraint` builds the middle-zone cone Hessian as C MuJoCo's,
   H_i = Dm F [[1, -mu U'/T], [-mu U/T, mu N U U'/T^3 + (mu^2 - mu N/T) I]] F,  F = diag(mu, friction),
   but with T^3 clamped to mjMINVAL = 1e-15 (C: mu*N/(T*T*T) unclamped, in float64). For a contact at rest
   the tangential residual T falls to 1e-8..1e-5, the clamp drops the U U'/T^3 term while the first row
   keeps -mu U/T, and H_i is indefinite: blocks with eigenvalue -20 and a total Hessian with eigenvalue -60
   for the FetchPush object resting on the table (not a float32 rounding of a positive definite matrix:
   MJX's own dense sum is the same indefinite matrix). `jax.scipy.linalg.cho_factor` returns NaN and the NaN
   reaches qpos. Whether a trajectory meets such a state depends on float32 rounding, hence on the CPU's
   vector ISA (reproduced on an AVX-512 machine with XLA_FLAGS=--xla_cpu_max_isa=SSE4_2: FetchPush row 7 NaN
   at step 15 with the old patch). For the contacts with T < 1e-4 (`_T_EXACT`) the patch uses C MuJoCo's
   block written with u = U/T, Dm F [[1, -mu u'], [-mu u, (mu N/T) u u' + (mu^2 - mu N/T) I]] F: no 1/T^3,
   positive semi-definite (= Dm F (v v' + s (I - u u')) F with v = (1, -mu u), s = mu^2 - mu N/T >= 0 in
   the middle zone). It depends on U only through U/T, so it equals MJX's block for the same contact scaled
   to a T where MJX's clamp is inactive; from T = 1e-4 up MJX's block is kept as is.
2. A guarded factorisation, as C MuJoCo's `mju_cholFactor(H, nv, mjMINVAL)`: a Cholesky whose pivots are
   clamped to a minimum instead of going NaN. C clamps at mjMINVAL in float64; here the floor is
   max(mjMINVAL, nv * eps * H_jj) (eps of the Hessian's dtype, 1.2e-7 in float32: a pivot below it is
   rounding noise). On a positive definite Hessian the floor is inactive and the factor is LAPACK's up to
   rounding (pivots >= 0.15 H_jj in FetchPush rest rollouts); a numerically singular or indefinite one
   gives L L' = H + E, E diagonal >= 0, a descent direction instead of NaN. Its cost: a loop over nv columns
   of O(nv^2) each, about as fast as LAPACK's `potrf` for nv = 9..40 (12 worlds, CPU; unmeasured on GPU).

Version safety: the patch rewrites a private MJX function and reads what `_update_constraint` leaves in the
solver context. `fast_elliptic_newton()` checks, once per target, that `_update_gradient` exists, has the
signature (m, d, ctx) and that the sources of `_update_gradient`, `_update_constraint` and `Context` are the
ones this patch was validated against (sha256 below; the same in the mujoco-mjx 3.4.0, 3.5.0, 3.8.0, 3.12.0,
3.16.0 and 3.17.0 wheels, not in 3.3.0). Otherwise it leaves MJX's function in place and warns once per process.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import threading
import warnings

import jax
import jax.numpy as jnp
import mujoco
import numpy as np

try:
  from mujoco.mjx._src import solver as _solver
  from mujoco.mjx._src import support as _support
  from mujoco.mjx._src.types import ConeType, DataJAX, ModelJAX, SolverType
except ImportError as _e:  # MJX's private layout changed: the context manager falls back (and says why)
  _solver = None
  _IMPORT_ERROR = f"{type(_e).__name__}: {_e}"
else:
  _IMPORT_ERROR = None

_LIBRARY_UPDATE_GRADIENT = getattr(_solver, "_update_gradient", None)  # pylint: disable=protected-access
_LOCK = threading.RLock()
_WARNED = False

# What the patch was written and validated against (mujoco-mjx 3.17.0; the three sources are identical in the
# 3.4.0, 3.5.0, 3.8.0, 3.12.0 and 3.16.0 wheels). After an MJX upgrade that changes any of them, re-validate
# the patch (tests/mjx_envs/test_elliptic_newton.py) and record the new values here.
VALIDATED_MJX = "3.17.0"
SIGNATURE = (
  ("m", inspect.Parameter.POSITIONAL_OR_KEYWORD),
  ("d", inspect.Parameter.POSITIONAL_OR_KEYWORD),
  ("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD),
)
SOURCE_SHA256 = {
  "_update_gradient": "47fd0bb3d3369dde3f611aef6b400b5a201bd4f35a05f615b9fa13a4b1e4221d",
  "_update_constraint": "fecda1b36c8f241c3c8f78f366a8d3187ed351ba5d8d7a3259d86eab8c23372b",
  "Context": "078cf3f75b76cc23165d42d356e31a0468240c8f5ff7419328250a9e3e3c66f9",
}


def source_sha256(obj) -> str:
  return hashlib.sha256(inspect.getsource(obj).encode()).hexdigest()


def signature_of(fn):
  return tuple((p.name, p.kind) for p in inspect.signature(fn).parameters.values())


@functools.lru_cache(maxsize=16)
def _problem_with(target, constraint, context) -> str | None:
  """Why the patch must not replace `target` (MJX's current `_update_gradient`), or None."""
  if target is None:
    return "mujoco.mjx._src.solver._update_gradient is missing"
  try:
    sig = signature_of(target)
  except (TypeError, ValueError) as e:
    return f"the signature of mujoco.mjx._src.solver._update_gradient cannot be read ({e})"
  if sig != SIGNATURE:
    return (
      f"mujoco.mjx._src.solver._update_gradient has the parameters {[p for p, _ in sig]}, "
      f"the patch was written for {[p for p, _ in SIGNATURE]}"
    )
  for name, obj in (("_update_gradient", target), ("_update_constraint", constraint), ("Context", context)):
    try:
      digest = source_sha256(obj)
    except (OSError, TypeError) as e:
      return f"the source of mujoco.mjx._src.solver.{name} cannot be read ({e})"
    if digest != SOURCE_SHA256[name]:
      return f"the source of mujoco.mjx._src.solver.{name} changed (sha256 {digest[:12]})"
  return None


def compatibility_problem() -> str | None:
  """Why `fast_elliptic_newton()` would leave MJX's `_update_gradient` in place, or None if it patches."""
  if _solver is None:
    return f"mujoco.mjx._src.solver cannot be imported ({_IMPORT_ERROR})"
  target = getattr(_solver, "_update_gradient", None)
  if target is _update_gradient:  # nested use
    return None
  return _problem_with(
    target, getattr(_solver, "_update_constraint", None), getattr(_solver, "Context", None)
  )


def _warn_once(problem: str) -> None:
  global _WARNED
  with _LOCK:
    if _WARNED:
      return
    _WARNED = True
  warnings.warn(
    f"mjx_envs.elliptic_newton: {problem}; using MJX's own _update_gradient (correct, but its elliptic-cone "
    f"Newton Hessian costs O(ncon * nefc^2) per solver iteration, and it lacks the cone Hessian and "
    f"factorisation guards). The patch was validated with mujoco-mjx {VALIDATED_MJX}: re-validate it "
    f"against the installed mujoco-mjx (tests/mjx_envs/test_elliptic_newton.py) and update its recorded "
    f"signature / source hashes.",
    RuntimeWarning,
    stacklevel=4,
  )


def _cone_rows(dim: np.ndarray, efc_address: np.ndarray):
  """Static row indices [ncone, 6] of each cone contact's constraint rows and their mask (rows past the
  contact's condim point at row 0 and are masked out)."""
  k = np.arange(6)
  mask = k[None, :] < dim[:, None]
  rows = np.where(mask, efc_address[:, None] + k[None, :], 0)
  return rows, mask


# Below this tangential residual T the cone blocks are C MuJoCo's (fix 1): MJX's T^3 clamp (mjMINVAL = 1e-15)
# acts at T < 1e-5; from T = 1e-4 up MJX's own block is kept, which it equals there up to rounding.
_T_EXACT = 1e-4


def _cone_hessian(ctx):
  """[ncone, 6, 6] middle-zone cone Hessians H_i (zero outside the middle zone): MJX's `ctx.h`, except for
  contacts with a tangential residual T < _T_EXACT, whose block is C MuJoCo's written with u = U/T (fix 1):
  Dm F [[1, -mu u'], [-mu u, (mu N/T) u u' + (mu^2 - mu N/T) I]] F, free of MJX's clamped 1/T^3."""
  fri, u = ctx.fri, ctx.u
  mu, n, ut = fri[:, 0], u[:, 0], u[:, 1:]
  middle = ctx.h[:, 0, 0] > 0  # MJX's own zone decision: H_00 = Dm * mu^2 inside, 0 outside
  t = jnp.sqrt(jnp.sum(ut * ut, axis=1))
  exact = middle & (t < _T_EXACT)
  t = jnp.where(t > 0, t, 1.0)
  uhat = ut / t[:, None]  # unit tangent direction
  ratio = jnp.clip(n / t, -1.0 / jnp.maximum(mu, mujoco.mjMINVAL), mu)  # middle zone: -1/mu < N/T < mu
  eye = jnp.eye(5, dtype=u.dtype)
  h_tt = (mu * ratio)[:, None, None] * uhat[:, :, None] * uhat[:, None, :] + (mu * mu - mu * ratio)[
    :, None, None
  ] * eye  # [c, 5, 5]
  h_0 = jnp.concatenate([jnp.ones_like(mu)[:, None], -mu[:, None] * uhat], axis=1)  # [c, 6]
  h_c = jnp.concatenate([h_0[:, None, :], jnp.concatenate([h_0[:, 1:, None], h_tt], axis=2)], axis=1)
  h_c = h_c * (ctx.dm[:, None, None] * fri[:, :, None] * fri[:, None, :])
  return jnp.where(exact[:, None, None], h_c, ctx.h)


def _cholesky_clamped(a):
  """Lower Cholesky factor of symmetric `a` [n, n] with C MuJoCo's pivot clamp (`mju_cholFactor`; fix 2):
  pivots below max(mjMINVAL, n * eps * a_jj) are raised to it instead of giving NaN."""
  n = a.shape[-1]
  floor = jnp.maximum(n * jnp.finfo(a.dtype).eps * jnp.abs(jnp.diagonal(a)), mujoco.mjMINVAL)
  idx = jnp.arange(n)

  def column(j, low):
    # left-looking, as C: column j = (a[:, j] - L[:, :j] @ L[j, :j]) / L_jj; L's columns >= j are still 0
    col = a[:, j] - low @ low[j]
    root = jnp.sqrt(jnp.maximum(col[j], floor[j]))
    col = jnp.where(idx > j, col / root, jnp.where(idx == j, root, 0.0))
    return jax.lax.dynamic_update_slice_in_dim(low, col[:, None].astype(low.dtype), j, axis=1)

  return jax.lax.fori_loop(0, n, column, jnp.zeros_like(a))


def _update_gradient(m, d, ctx):
  """MJX's `_update_gradient` with the elliptic Newton Hessian built block by block and factored with
  clamped pivots (module docstring)."""
  if (
    m.opt.solver != SolverType.NEWTON
    or m.opt.cone != ConeType.ELLIPTIC
    or not isinstance(m._impl, ModelJAX)
    or not isinstance(d._impl, DataJAX)
  ):  # pylint: disable=protected-access
    return _LIBRARY_UPDATE_GRADIENT(m, d, ctx)
  impl = d._impl  # pylint: disable=protected-access
  grad = ctx.Ma - d.qfrc_smooth - ctx.qfrc_constraint
  # contact dims and addresses are static (numpy) in MJX-JAX, as the library's own loop relies on
  cone = np.asarray(impl.contact.dim) > 1
  rows, mask = _cone_rows(np.asarray(impl.contact.dim)[cone], np.asarray(impl.contact.efc_address)[cone])
  j = impl.efc_J
  h = (j.T * (impl.efc_D * ctx.active)) @ j
  if rows.shape[0]:
    jc = j[rows] * jnp.asarray(mask, j.dtype)[..., None]  # [ncone, 6, nv]
    h = h + jnp.einsum("cak,cab,cbl->kl", jc, _cone_hessian(ctx), jc)
  h = _support.full_m(m, d) + h
  h_sym = (h + h.T) * 0.5  # as the library: symmetrise before the Cholesky factorisation
  mgrad = jax.scipy.linalg.cho_solve((_cholesky_clamped(h_sym), True), grad)
  return ctx.replace(grad=grad, Mgrad=mgrad)


@contextlib.contextmanager
def fast_elliptic_newton():
  """Within this block, tracing `mjx.step` / `mjx.forward` uses the block-wise elliptic Newton Hessian, if
  MJX's `_update_gradient` is the one the patch was validated against; otherwise MJX's own (one warning)."""
  with _LOCK:
    problem = compatibility_problem()
    if problem is not None:
      _warn_once(problem)
      yield
      return
    previous = _solver._update_gradient  # pylint: disable=protected-access
    _solver._update_gradient = _update_gradient  # pylint: disable=protected-access
    try:
      yield
    finally:
      _solver._update_gradient = previous  # pylint: disable=protected-access
