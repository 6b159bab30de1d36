"""C MuJoCo physics inside jitted JAX programs (`impl="c"`): the CPU path of every family.

On a machine without an accelerator, MJX-JAX compiles for minutes and steps 20-200 times slower than C
MuJoCo (BENCHMARKS.md, "Throughput: the C backend, MJX-JAX and C MuJoCo stepped directly" and
"C MuJoCo on the host (`impl="c"`)"). Here `MjxEnv.physics_step` and `reset_forward` hand the whole
vmapped batch to C MuJoCo on the host through one `jax.pure_callback` (`vmap_method="broadcast_all"`), so
the learners, wrappers, rewards and observations keep their code and their single compiled program.

The state. Under "c" an env's `pipeline_state` is a `CData`: an `mjx.Data` whose fields the env reads
(qpos, qvel, mocap, ctrl, eq_active and the derived fields the family names in `c_fields`: body, site
and geom poses, sensors) are float32 copies filled from C after every step, and whose `_impl` is a
`CImpl` holding C MuJoCo's whole integration state (`mjSTATE_INTEGRATION`: time, qpos, qvel, act, warm
start, ctrl, applied forces, equality flags, mocap) at full precision, as the raw bits of its float64
values (`uint32`, twice the length: the project runs with x64 off). A trajectory stepped through here
therefore equals a plain C MuJoCo rollout of the same model, controls and mocap targets bit for bit
(tests/mjx_envs/test_cphysics.py). Derived fields the family does not list stay at zero.

What an env writes between steps. Envs edit the float32 fields (`data.replace(qpos=...)` at a reset,
`ctrl` and mocap targets every step, `eq_active` for grab welds). Before a step or a reset's kinematics,
every input field is merged into the exact state element by element: an entry whose float32 value
differs from the float32 rounding of the exact value was written by the env and is taken as written;
an entry the env left alone keeps its float64 value. (Writing back the rounding of the current value is
therefore "no change".)

Mocap interpolation (`interpolate_mocap`, Fetch and the block world) is done on the host in float64:
substep k of n sets p0 + (target - p0) * (k+1)/n (quaternions: the target normalised once, the nearer of
q and -q, each intermediate one normalised), and the last substep sets the (normalised) target itself.

Per-world model fields (hide-and-seek's walls, box sizes, joint ranges and weld frames) travel as
`model_fields` ({MjModel field name: [..., *shape]}) and are written into the worker's model copy before
that world steps. Contacts: a family that reads contacts names geom groups (`contact_pairs`); the
backend returns, per pair of groups, the smallest contact distance and the summed normal force of the
contacts between them (`CImpl.pair_dist`, `pair_force`), and `MjxEnv.pair_contacts` reads the same from
MJX's contact arrays under "jax". Rays (`rays`) run `mj_multiRay` on the step's geom poses.

Divergence: C MuJoCo resets a world whose accelerations blow up and raises a warning (mjWARN_BADQACC
and friends) instead of returning NaN; such a step sets `CImpl.warned`, which `MjxEnv.diverged` reads, so
the episode ends with `info['diverged']` as under MJX.

Agreement with MJX-JAX (the same model stepped by two engines; tests in each family's test file, 4 worlds
of random actions, measured 2026-11-25): Fetch within 5e-6 over 10 control steps, the block world 9e-5,
Meta-World drawer-open 1.2e-6; hide-and-seek: equal lidar and vision at the reset, then agents within
0.007 and boxes within 0.02 over 3 steps (a box placed at rest height settles differently). Where the two
engines' answers differ physically it is C MuJoCo's that is the reference; known: a block held at a
45-degree grasp creeps 7.1 mm over 4 s in C against under 6 mm in MJX (tests/mjx_envs/test_blocks.py).

What the backend does not do (yet): a multi-task set (MT10) calls it once per task's batch, all in one
compiled program (ten callbacks a step, not one); on a machine with several host devices the callback
takes the whole batch on device 0 (train.py therefore runs C physics on one host device); the per-world
Python calls cap a process near the per-core rate of a Python loop (an XLA FFI handler would lift it).

Threads: a batch of at least 2 x MIN_WORLDS_PER_THREAD worlds is split into one contiguous chunk per
worker (`threads`, default: the CPU count; the first chunk runs in the calling thread, smaller batches
run there whole); each worker owns an `MjData` and a copy of the `MjModel` (for per-world model fields).
`mj_step` releases the GIL, so the larger models scale with threads; the per-world Python calls do not.
Calls from several host devices at once take distinct workers.
"""

from __future__ import annotations

import copy
import os
import queue
import threading
from collections.abc import Mapping, Sequence
from concurrent import futures

import flax.struct
import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from mujoco import mjx

SPEC = mujoco.mjtState.mjSTATE_INTEGRATION

# The derived fields a family may read after a step (MjData attribute names; also mjx.Data fields).
DERIVED = (
  "xpos",
  "xquat",
  "xmat",
  "xipos",
  "ximat",
  "site_xpos",
  "site_xmat",
  "geom_xpos",
  "geom_xmat",
  "sensordata",
  "subtree_com",
  "cvel",
  "actuator_force",
  "qfrc_constraint",
)
DEFAULT_FIELDS = (
  "xpos",
  "xquat",
  "xmat",
  "xipos",
  "site_xpos",
  "site_xmat",
  "geom_xpos",
  "geom_xmat",
  "sensordata",
)

# The parts of mjSTATE_INTEGRATION, in the order C MuJoCo lays them out (increasing bit), and the mjx.Data
# field each one is read from / written to (None: carried, never written by an env).
_PARTS = (
  ("mjSTATE_TIME", "time"),
  ("mjSTATE_QPOS", "qpos"),
  ("mjSTATE_QVEL", "qvel"),
  ("mjSTATE_ACT", "act"),
  ("mjSTATE_HISTORY", None),
  ("mjSTATE_WARMSTART", None),
  ("mjSTATE_CTRL", "ctrl"),
  ("mjSTATE_QFRC_APPLIED", "qfrc_applied"),
  ("mjSTATE_XFRC_APPLIED", "xfrc_applied"),
  ("mjSTATE_EQ_ACTIVE", "eq_active"),
  ("mjSTATE_MOCAP_POS", "mocap_pos"),
  ("mjSTATE_MOCAP_QUAT", "mocap_quat"),
  ("mjSTATE_USERDATA", None),
  ("mjSTATE_PLUGIN", None),
)
_BAD = ("mjWARN_BADQPOS", "mjWARN_BADQVEL", "mjWARN_BADQACC")
MIN_WORLDS_PER_THREAD = 8  # a pool thread gets at least this many worlds of a batch


def default_threads() -> int:
  """Workers per backend: the CPU count this process may use."""
  try:
    return max(1, len(os.sched_getaffinity(0)))
  except AttributeError:  # not Linux
    return max(1, os.cpu_count() or 1)


_EXECUTORS: dict[int, futures.ThreadPoolExecutor] = {}
_EXECUTORS_LOCK = threading.Lock()


def _executor(threads: int) -> futures.ThreadPoolExecutor:
  """The process's pool of `threads` workers, shared by every backend (envs are many; cores are few)."""
  with _EXECUTORS_LOCK:
    if threads not in _EXECUTORS:
      _EXECUTORS[threads] = futures.ThreadPoolExecutor(threads, thread_name_prefix="cphysics")
    return _EXECUTORS[threads]


@flax.struct.dataclass
class CImpl:
  """`CData._impl`: the exact C state and what C computed beyond mjx.Data's fields.

  state       uint32 [2 * nstate]  the float64 mjSTATE_INTEGRATION vector's raw bits
  warned      float32 []           1.0 when C MuJoCo flagged the last step unstable (it reset the world)
  pair_dist   float32 [P]          smallest contact distance per declared geom-group pair (1e6: none)
  pair_force  float32 [P]          summed normal force of those contacts
  """

  state: jax.Array
  warned: jax.Array
  pair_dist: jax.Array
  pair_force: jax.Array


class CData(mjx.Data):
  """An mjx.Data stepped by C MuJoCo (see the module docstring); `_impl` is a `CImpl`."""

  @property
  def impl(self):  # mjx.Data.impl knows MJX's own implementations only
    return "c"


def _bits(x64: np.ndarray) -> np.ndarray:
  return np.ascontiguousarray(x64, np.float64).view(np.uint32)


def _f64(bits: np.ndarray) -> np.ndarray:
  return np.ascontiguousarray(bits, np.uint32).view(np.float64)


class _Worker:
  """One thread's MjModel copy (for per-world model fields) and MjData."""

  def __init__(self, m: mujoco.MjModel):
    self.pristine = m
    self.m = copy.copy(m)
    self.d = mujoco.MjData(self.m)
    self.dirty: set = set()

  def set_fields(self, fields: Mapping[str, np.ndarray], i: int):
    for name in self.dirty - set(fields):  # a field an earlier call overrode and this one does not
      getattr(self.m, name)[...] = getattr(self.pristine, name)
    self.dirty = set(fields)
    if any(name.startswith("geom_") for name in fields):
      # C's midphase culls the geom pairs of a multi-geom body with boxes compiled from the model's geom
      # poses and sizes; per-world geoms (hide-and-seek's walls) would slip through it. MJX has none.
      self.m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_MIDPHASE)
    for name, value in fields.items():
      getattr(self.m, name)[...] = value[i].reshape(getattr(self.m, name).shape)


class Backend:
  """C MuJoCo for one model: the host functions behind `step`, `forward` and `rays` (see module doc)."""

  def __init__(
    self,
    mj_model: mujoco.MjModel,
    n_substeps: int,
    fields: Sequence[str] = DEFAULT_FIELDS,
    pair_masks: Sequence[tuple[np.ndarray, np.ndarray]] = (),
    threads: int | None = None,
    name: str = "env",
  ):
    unknown = sorted(set(fields) - set(DERIVED))
    if unknown:
      raise ValueError(
        f"{name}: c_fields {unknown} are not derived fields the C backend fills; choose from {DERIVED}"
      )
    self.m = mj_model
    self.n_substeps = int(n_substeps)
    self.fields = tuple(fields)
    self.nstate = int(mujoco.mj_stateSize(mj_model, SPEC))
    self.threads = int(threads or default_threads())
    self.slices: dict[str, slice] = {}
    start = 0
    for part, field in _PARTS:
      size = int(mujoco.mj_stateSize(mj_model, getattr(mujoco.mjtState, part)))
      if field is not None:
        self.slices[field] = slice(start, start + size)
      start += size
    assert start == self.nstate, (start, self.nstate)
    self._bad = np.array([int(getattr(mujoco.mjtWarning, w)) for w in _BAD])
    self.pairs = list(pair_masks)  # (in group a [ngeom (+1)], in group b) per contact pair, by geom id
    self._pool: queue.SimpleQueue = queue.SimpleQueue()
    for _ in range(self.threads):
      self._pool.put(_Worker(mj_model))
    self._executor = _executor(self.threads) if self.threads > 1 else None
    # The template state: mj_resetData's (qpos0, zero velocities, warm start and controls).
    d = mujoco.MjData(mj_model)
    try:
      mujoco.mj_forward(mj_model, d)
      mujoco.mj_step(mj_model, d)
    except Exception as e:  # pylint: disable=broad-except
      raise ValueError(f"{name}: C MuJoCo cannot step this model: {e}") from None
    mujoco.mj_resetData(mj_model, d)
    self.template = np.zeros(self.nstate)
    mujoco.mj_getState(mj_model, d, self.template, SPEC)
    self._cshape = {f: np.asarray(getattr(d, f)).shape for f in DERIVED}  # C's layout (xmat [n, 9])
    self._shape = dict(self._cshape)  # mjx.Data's (xmat [n, 3, 3]); set by make_data

  # -------------------------------------------------------------------------------- JAX side
  def make_data(self, template: mjx.Data) -> CData:
    """`template` (an MJX-JAX mjx.Data of the model) as a CData at the model's reset state."""
    names = [f.name for f in mjx.Data.fields() if f.name != "_impl"]
    self._shape = {f: tuple(np.shape(getattr(template, f))) for f in DERIVED}
    kw = {n: getattr(template, n) for n in names}
    p = len(self.pairs)
    impl = CImpl(
      state=jnp.asarray(_bits(self.template)),
      warned=jnp.zeros((), jnp.float32),
      pair_dist=jnp.full((p,), 1e6, jnp.float32),
      pair_force=jnp.zeros((p,), jnp.float32),
    )
    return CData(**kw, _impl=impl)

  def _finish(self, data: mjx.Data, out) -> CData:
    """The CData of the host's outputs: exact state, its float32 views, derived fields."""
    state = out["state"]
    updates = {f: out[f] for f in self.fields}
    for f in self.slices:
      updates[f] = out["view_" + f].astype(getattr(data, f).dtype)
    impl = CImpl(state=state, warned=out["warned"], pair_dist=out["pair_dist"], pair_force=out["pair_force"])
    return data.replace(**updates, _impl=impl)

  def _call(
    self,
    mode: str,
    data: mjx.Data,
    extra: Mapping[str, jax.Array],
    model_fields,
    interpolate: tuple[bool, bool],
  ):
    p = len(self.pairs)
    specs = {
      "state": jax.ShapeDtypeStruct((2 * self.nstate,), jnp.uint32),
      "warned": jax.ShapeDtypeStruct((), jnp.float32),
      "pair_dist": jax.ShapeDtypeStruct((p,), jnp.float32),
      "pair_force": jax.ShapeDtypeStruct((p,), jnp.float32),
      **{f: jax.ShapeDtypeStruct(self._shape[f], jnp.float32) for f in self.fields},
      **{"view_" + f: jax.ShapeDtypeStruct(jnp.shape(getattr(data, f)), jnp.float32) for f in self.slices},
    }
    inputs = {f: getattr(data, f) for f in self.slices}
    args = (data._impl.state, inputs, dict(extra), dict(model_fields or {}))  # pylint: disable=protected-access

    def host(state, inputs, extra, mfields):
      return self._host(mode, state, inputs, extra, mfields, interpolate, specs)

    out = jax.pure_callback(host, specs, *args, vmap_method="broadcast_all")
    return self._finish(data, out)

  def step(
    self,
    data: mjx.Data,
    mocap_pos=None,
    mocap_quat=None,
    interpolate_mocap: bool = False,
    model_fields: Mapping[str, jax.Array] | None = None,
  ) -> CData:
    """`n_substeps` of mj_step from `data` (inputs already written into its fields); with
    `interpolate_mocap`, the mocap bodies move to `mocap_pos` / `mocap_quat` over the substeps."""
    extra = {}
    if interpolate_mocap and mocap_pos is not None:
      extra["mocap_pos"] = jnp.asarray(mocap_pos, jnp.float32)
    if interpolate_mocap and mocap_quat is not None:
      extra["mocap_quat"] = jnp.asarray(mocap_quat, jnp.float32)
    return self._call("step", data, extra, model_fields, ("mocap_pos" in extra, "mocap_quat" in extra))

  def forward(self, data: mjx.Data, model_fields: Mapping[str, jax.Array] | None = None) -> CData:
    """The reset's kinematics (mj_kinematics) of `data`'s written fields merged into its exact state."""
    return self._call("kinematics", data, {}, model_fields, (False, False))

  def rays(
    self,
    data: mjx.Data,
    origins: jax.Array,
    dirs: jax.Array,
    geomgroup: Sequence[int],
    bodyexclude: Sequence[int],
    model_fields: Mapping[str, jax.Array] | None = None,
  ):
    """mj_multiRay per origin on `data`'s geom poses (read after the step: `geom_xpos`, `geom_xmat` and
    `xipos`, which mj_multiRay's body culling reads, must be in the family's c_fields). origins [K, 3],
    dirs [K, R, 3] (unit), bodyexclude: K ints.
    Returns (dist [K, R] float32, -1 for no hit; geom id [K, R] int32, -1 for no hit)."""
    if not {"geom_xpos", "geom_xmat", "xipos"} <= set(self.fields):
      raise ValueError("rays need geom_xpos, geom_xmat and xipos in the env's c_fields")
    k, r = dirs.shape[-3], dirs.shape[-2]
    specs = (jax.ShapeDtypeStruct((k, r), jnp.float32), jax.ShapeDtypeStruct((k, r), jnp.int32))
    group = np.zeros(6, np.uint8)
    group[list(geomgroup)] = 1
    exclude = tuple(int(b) for b in bodyexclude)

    def host(gx, gm, xi, o, dv, mf):
      return self._host_rays(gx, gm, xi, o, dv, mf, group, exclude)

    return jax.pure_callback(
      host,
      specs,
      data.geom_xpos,
      data.geom_xmat,
      data.xipos,
      origins,
      dirs,
      dict(model_fields or {}),
      vmap_method="broadcast_all",
    )

  # -------------------------------------------------------------------------------- host side
  def _run(self, n: int, fn):
    """fn(worker, lo, hi) over contiguous chunks of n worlds, one chunk per worker thread."""
    # Small batches run in the calling thread: a hand-off to the pool costs more than their physics
    # (MT10's per-task batches of a few worlds; measured: 6 reach worlds waited ~3 ms on pool threads of a
    # loaded machine, for ~0.2 ms of physics).
    chunks = min(self.threads, n // MIN_WORLDS_PER_THREAD)

    def task(lo, hi):
      w = self._pool.get()
      try:
        fn(w, lo, hi)
      finally:
        self._pool.put(w)

    if self._executor is None or chunks <= 1:
      task(0, n)
      return
    bounds = np.linspace(0, n, chunks + 1).astype(int)
    jobs = [self._executor.submit(task, lo, hi) for lo, hi in zip(bounds[1:-1], bounds[2:])]
    task(bounds[0], bounds[1])  # the first chunk in the calling thread: one hand-off fewer
    for j in jobs:
      j.result()

  def merge(self, exact: np.ndarray, inputs: Mapping[str, np.ndarray]) -> np.ndarray:
    """[B, nstate] float64 states with the env's float32 writes merged in (see the module docstring)."""
    exact = exact.copy()
    for f, s in self.slices.items():
      new = np.asarray(inputs[f]).reshape(exact.shape[0], -1)
      old = exact[:, s]
      if new.dtype == np.bool_:
        changed = new != (old != 0)
      else:
        changed = new != old.astype(np.float32)
      exact[:, s] = np.where(changed, new.astype(np.float64), old)
    return exact

  def _host(self, mode, state, inputs, extra, mfields, interpolate, specs):
    state = np.asarray(state)
    lead = state.shape[:-1]
    n = int(np.prod(lead, dtype=int))
    exact = _f64(state.reshape(n, -1))
    inputs = {k: np.asarray(v).reshape((n,) + np.shape(v)[len(lead) :]) for k, v in inputs.items()}
    extra = {k: np.asarray(v, np.float64).reshape((n,) + np.shape(v)[len(lead) :]) for k, v in extra.items()}
    mfields = {
      k: np.asarray(v, np.float64).reshape((n,) + np.shape(v)[len(lead) :]) for k, v in mfields.items()
    }
    exact = self.merge(exact, inputs)
    out_state = np.empty_like(exact)
    warned = np.zeros(n, np.float32)
    derived = {f: np.empty((n,) + self._cshape[f], np.float32) for f in self.fields}
    npair = len(self.pairs)
    pair_dist = np.full((n, npair), 1e6, np.float32)
    pair_force = np.zeros((n, npair), np.float32)
    nsub = self.n_substeps
    interp_pos, interp_quat = interpolate
    mp, mq = self.slices["mocap_pos"], self.slices["mocap_quat"]

    fracs = (np.arange(1, nsub + 1) / nsub)[:, None, None]
    bad = self._bad

    def chunk(w: _Worker, lo: int, hi: int):
      m, d = w.m, w.d
      warn = d.warning.number  # numpy views into the MjData, valid for its lifetime
      views = [(derived[f], getattr(d, f)) for f in self.fields]
      d_mpos, d_mquat = d.mocap_pos, d.mocap_quat
      for i in range(lo, hi):
        if mfields or w.dirty:
          w.set_fields(mfields, i)
        mujoco.mj_setState(m, d, exact[i], SPEC)
        warn[:] = 0
        if mode == "kinematics":
          mujoco.mj_kinematics(m, d)
        elif interp_pos or interp_quat:
          if interp_pos:  # [nsub, nmocap, 3]: the path in float64, ending on the target itself
            p0, pt = exact[i, mp].reshape(-1, 3), extra["mocap_pos"][i]
            path_p = p0 + (pt - p0) * fracs
            path_p[-1] = pt
          if interp_quat:
            q0, qt = exact[i, mq].reshape(-1, 4), extra["mocap_quat"][i]
            qt = qt / np.linalg.norm(qt, axis=-1, keepdims=True)
            qt = np.where(np.sum(q0 * qt, -1, keepdims=True) < 0, -qt, qt)
            path_q = q0 + (qt - q0) * fracs
            path_q /= np.linalg.norm(path_q, axis=-1, keepdims=True)
            path_q[-1] = qt
          for k in range(nsub):
            if interp_pos:
              d_mpos[:] = path_p[k]
            if interp_quat:
              d_mquat[:] = path_q[k]
            mujoco.mj_step(m, d)
        else:
          mujoco.mj_step(m, d, nsub)
        mujoco.mj_getState(m, d, out_state[i], SPEC)
        warned[i] = warn[bad].any()
        for dst, src in views:
          dst[i] = src
        if npair and d.ncon:
          con = d.contact
          g = con.geom
          force = np.where(con.efc_address >= 0, d.efc_force[np.maximum(con.efc_address, 0)], 0.0)
          for p, (a, b) in enumerate(self.pairs):
            hit = (a[g[:, 0]] & b[g[:, 1]]) | (a[g[:, 1]] & b[g[:, 0]])
            if hit.any():
              pair_dist[i, p] = np.min(con.dist[hit])
              pair_force[i, p] = np.sum(force[hit])

    self._run(n, chunk)
    out = {
      "state": _bits(out_state).reshape(lead + (2 * self.nstate,)),
      "warned": warned.reshape(lead),
      "pair_dist": pair_dist.reshape(lead + (npair,)),
      "pair_force": pair_force.reshape(lead + (npair,)),
    }
    for f in self.fields:
      out[f] = derived[f].reshape(lead + self._shape[f])
    for f, s in self.slices.items():
      out["view_" + f] = out_state[:, s].astype(np.float32).reshape(lead + specs["view_" + f].shape)
    return {k: np.asarray(out[k], specs[k].dtype) for k in specs}

  def _host_rays(self, gx, gm, xi, origins, dirs, mfields, group, exclude):
    gx, gm = np.asarray(gx), np.asarray(gm)
    lead = gx.shape[:-2]
    n = int(np.prod(lead, dtype=int))
    gx = gx.reshape(n, -1, 3).astype(np.float64)
    gm = gm.reshape(n, -1, 9).astype(np.float64)
    xi = np.asarray(xi, np.float64).reshape(n, -1, 3)
    origins = np.asarray(origins, np.float64).reshape((n,) + np.shape(origins)[len(lead) :])
    dirs = np.asarray(dirs, np.float64).reshape((n,) + np.shape(dirs)[len(lead) :])
    mfields = {
      k: np.asarray(v, np.float64).reshape((n,) + np.shape(v)[len(lead) :]) for k, v in mfields.items()
    }
    k, r = dirs.shape[1], dirs.shape[2]
    dist = np.empty((n, k, r), np.float64)
    geom = np.empty((n, k, r), np.int32)

    def chunk(w: _Worker, lo: int, hi: int):
      m, d = w.m, w.d
      g1 = np.empty(r, np.int32)
      d1 = np.empty(r, np.float64)
      for i in range(lo, hi):
        if mfields or w.dirty:
          w.set_fields(mfields, i)
        d.geom_xpos[:] = gx[i]
        d.geom_xmat[:] = gm[i]
        d.xipos[:] = xi[i]
        for j in range(k):
          mujoco.mj_multiRay(
            m,
            d,
            origins[i, j],
            dirs[i, j].reshape(-1),
            group,
            True,
            exclude[j],
            g1,
            d1,
            None,
            r,
            mujoco.mjMAXVAL,
          )
          dist[i, j], geom[i, j] = d1, g1

    self._run(n, chunk)
    return (dist.astype(np.float32).reshape(lead + (k, r)), geom.reshape(lead + (k, r)))
