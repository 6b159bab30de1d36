"""C MuJoCo physics inside jitted JAX programs (`impl="c"`): the CPU path of every family.

On a machine without an accelerator, MJX-JAX compiles for minutes and steps 20-200 times slower than C
MuJoCo (BENCHMARKS.md, "Throughput: the C backend, MJX-JAX and C MuJoCo stepped directly" and
"C MuJoCo on the host (`impl="c"`)"). Here `MjxEnv.physics_step` and `reset_forward` hand the whole
vmapped batch to C MuJoCo on the host through one host call (`host_ffi.call`: a Python function behind a
named XLA FFI target, `vmap_method="broadcast_all"`), so the learners, wrappers, rewards and observations
keep their code and their single compiled program, and that program enters JAX's persistent compilation
cache (a callback's would not: `host_ffi`).

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
0.007 and boxes within 0.02 over 3 steps (a box placed at rest height settles differently). C MuJoCo
>= 3.7 gives connect and weld rows a J̇v term that MJX-JAX lacks; `MjxEnv.physics_step` adds it to MJX
(`mjx_envs.jdotv`), without which the Meta-World arm's hand parts by 6.5e-5 m in 10 steps. Where the two
engines' answers differ physically it is C MuJoCo's that is the reference; known: a block held at a
45-degree grasp creeps 7.1 mm over 4 s in C against under 6 mm in MJX (tests/mjx_envs/test_blocks.py).

Multi-task batches (MT10, MT50, ML): `fused` makes ONE host callback per step (and per reset) for all
tasks of a `MultiTask`, each task's worlds stepped with its own model, all worlds spread together over the
thread pool: each member's step is traced twice, pass 1 recording its physics inputs (taken out of the
member's vmap by a `custom_vmap` rule), pass 2 handing it its slice of the fused outputs; bit for bit the
per-task callbacks' result (tests/mjx_envs/test_mt_fused.py). A member that calls the physics zero or
several times, or inside a lax.cond or scan of its own, runs its own callback (AutoReset's reset, in a
lax.cond, keeps one callback per task: it runs only on steps where a world finished).
Every callback takes one packed uint32 array and returns one: a pure_callback cost ~0.05-0.1 ms per
array on the 2-core CPU, and a Meta-World step had 33 (measured 2026-11-26, BENCHMARKS.md "MT50 against
MT10 on the C backend"). The host calls read and write XLA's own buffers (no copy of the inputs; a
pure_callback's device_put of them deadlocked over two host devices, tests/test_train.py).

What the backend does not do (yet): over several host devices XLA cannot partition the callback, so it
gathers the batch and every device steps all of it (correct, the work repeated; train.py therefore runs
C physics on one host device); the per-world Python calls cap a process near the per-core rate of a
Python loop (a handler written in C would lift it); MT50's program holds its 50 tasks' own code (rewards,
placements, objects' reads; the code they share is traced once for a padded batch), so on a cold cache it
compiles ~2.5x longer than MT10's (BENCHMARKS.md, "One padded batch").

Threads: a batch (a fused call: all tasks' worlds together) of at least 2 x MIN_WORLDS_PER_THREAD worlds
is split into one contiguous chunk per worker (`threads`, default: the CPU count; the first chunk runs in
the calling thread, smaller batches run there whole); each worker owns an `MjData` and a copy of the `MjModel` (for per-world model fields).
`mj_step` releases the GIL, so the larger models scale with threads; the per-world Python calls do not.
Calls from several host devices at once take distinct workers.
"""

from __future__ import annotations

from mjx_envs import host_ffi

import copy
import os
import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent import futures

import flax.struct
import jax
import jax.custom_batching
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


def _as_u32(x: jax.Array) -> tuple[jax.Array, np.dtype]:
  """x as uint32 of the same shape (32-bit values bit for bit) and the dtype the host restores (`_Call.column`)."""
  x = jnp.asarray(x)
  if x.dtype == jnp.bool_:
    return x.astype(jnp.uint32), np.dtype(np.bool_)
  if jnp.issubdtype(x.dtype, jnp.floating):
    x, dt = x.astype(jnp.float32), np.dtype(np.float32)
  elif x.dtype != jnp.uint32:
    x, dt = x.astype(jnp.int32), np.dtype(np.int32)
  else:
    return x, np.dtype(np.uint32)
  return jax.lax.bitcast_convert_type(x, jnp.uint32), dt


def _width(layout) -> int:
  return sum(int(np.prod(shape, dtype=int)) for _, shape, _ in layout)


def _pack(args: Mapping[str, jax.Array], nlead: int) -> tuple[jax.Array, tuple]:
  """{name: [*lead, ...]} -> (uint32 [*lead, K], layout ((name, trailing shape, dtype), ...))."""
  parts, layout = [], []
  for k, v in args.items():
    u, dt = _as_u32(v)
    lead, shape = u.shape[:nlead], u.shape[nlead:]
    parts.append(u.reshape(lead + (-1,)))
    layout.append((k, tuple(shape), dt))
  return jnp.concatenate(parts, -1), tuple(layout)


def _unpack(packed: jax.Array, layout, nlead: int) -> dict[str, jax.Array]:
  """`_pack`'s inverse on the JAX side (32-bit dtypes only: uint32, float32)."""
  lead, out, off = packed.shape[:nlead], {}, 0
  for k, shape, dt in layout:
    size = int(np.prod(shape, dtype=int))
    v = packed[..., off : off + size].reshape(lead + shape)
    out[k] = v if dt == np.uint32 else jax.lax.bitcast_convert_type(v, jnp.dtype(dt))
    off += size
  return out


def _columns(layout) -> dict[str, tuple[int, int, tuple, np.dtype]]:
  """{name: (first column, end column, shape, dtype)} of a packed layout."""
  cols, off = {}, 0
  for k, shape, dt in layout:
    size = int(np.prod(shape, dtype=int))
    cols[k] = (off, off + size, shape, dt)
    off += size
  return cols


def _block(cols, keys) -> tuple[int, int]:
  """The column range that the entries `keys` fill together, in this order (`_call` packs them so)."""
  for k0, k1 in zip(keys, keys[1:]):
    assert cols[k0][1] == cols[k1][0], (k0, k1)
  return cols[keys[0]][0], cols[keys[-1]][1]


class _Call:
  """One `Backend._call` as the host sees it: the backend, the mode, the packed layouts and where each
  entry sits in them (computed once per trace: the host's per-call Python is per task per step)."""

  def __init__(self, backend, mode, layout, out_layout, interpolate):
    self.backend, self.mode = backend, mode
    self.layout, self.out_layout, self.interpolate = layout, out_layout, interpolate
    self.cols, self.out_cols = _columns(layout), _columns(out_layout)
    self.out_width = _width(out_layout)
    inputs = ["in/" + f for f in backend.slices]
    self.in_block = _block(self.cols, inputs)
    self.in_bool = np.concatenate(
      [np.full(self.cols[k][1] - self.cols[k][0], self.cols[k][3] == np.bool_) for k in inputs]
    )
    self.view_block = _block(self.out_cols, ["view_" + f for f in backend.slices])

  def column(self, packed: np.ndarray, key: str, dtype=None) -> np.ndarray:
    """Entry `key` of packed uint32 [n, K] as [n, *shape] in its dtype (or `dtype`)."""
    lo, hi, shape, dt = self.cols[key]
    v = packed[:, lo:hi]
    v = v != 0 if dt == np.bool_ else v.view(dt)
    v = v.reshape((packed.shape[0],) + shape)
    return v if dtype is None else np.asarray(v, dtype)

  def prepare(self, packed: np.ndarray):
    """packed uint32 [n, K] -> (n, chunk, finish) (`Backend._prepare`)."""
    return self.backend._prepare(self, np.asarray(packed, np.uint32))  # pylint: disable=protected-access

  @property
  def name(self) -> str:
    """The FFI target name of this call (`host_ffi`): the same for the same backend and layouts."""
    return host_ffi.target_name(
      "call", self.backend.key, self.mode, self.layout, self.out_layout, self.interpolate
    )

  def __call__(self, packed):
    packed = np.asarray(packed)
    lead = packed.shape[:-1]
    n, chunk, finish = self.prepare(packed.reshape(-1, packed.shape[-1]))
    _run_jobs([(self.backend, n, chunk)])
    return finish().reshape(lead + (-1,))


def _run_jobs(jobs) -> None:
  """Runs jobs [(backend, n, chunk(worker, lo, hi))] over contiguous chunks of all their worlds together,
  one chunk per pool thread (each piece on a worker of its own backend)."""
  total = sum(n for _, n, _ in jobs)
  threads = max(b.threads for b, _, _ in jobs)
  # Small batches run in the calling thread: a hand-off to the pool costs more than their physics
  # (MT10's per-task batches of a few worlds; measured: 6 reach worlds waited ~3 ms on pool threads of a
  # loaded machine, for ~0.2 ms of physics).
  chunks = min(threads, total // MIN_WORLDS_PER_THREAD)
  starts = np.cumsum([0] + [n for _, n, _ in jobs])

  def task(lo, hi):
    for (b, _, chunk), s0, s1 in zip(jobs, starts[:-1], starts[1:]):
      a, z = max(lo, s0), min(hi, s1)
      if a >= z:
        continue
      w = b._pool.get()  # pylint: disable=protected-access
      try:
        chunk(w, a - s0, z - s0)
      finally:
        b._pool.put(w)  # pylint: disable=protected-access

  if threads <= 1 or chunks <= 1:
    task(0, total)
    return
  bounds = np.linspace(0, total, chunks + 1).astype(int)
  executor = _executor(threads)
  jobs_ = [executor.submit(task, lo, hi) for lo, hi in zip(bounds[1:-1], bounds[2:])]
  task(bounds[0], bounds[1])  # the first chunk in the calling thread: one hand-off fewer
  for j in jobs_:
    j.result()


# ------------------------------------------------------------------------------------ fused callbacks
_FUSE = threading.local()  # .hook: the _Record / _Deliver of the member being traced, else absent


def _trace_of(x):
  return getattr(x, "_trace", None)  # a Tracer's trace; None for a concrete array


class _Stop(Exception):
  """Ends pass 1 of a member at its recorded call: the rest of its step need not be traced."""


class _Hook:
  """Stands in for the host callback of every `mode` call a member's trace makes (see `fused`).

  A call inside the member's `jax.vmap` (wrappers.Batch) sees per-world values; a `custom_vmap` function
  takes them out: its batching rule receives the batched values one vmap level up, and calls it again
  until they are at the level of `ref` (the multi-task step's own trace), where `at_top` answers. A call
  that never gets there (inside a lax.cond or scan of the member) is the plain callback, the primal."""

  def __init__(self, mode: str, ref):
    self.mode, self.ref = mode, _trace_of(ref)
    self.top = []

  def __call__(self, call: _Call, packed: jax.Array, out_spec: jax.ShapeDtypeStruct) -> jax.Array:
    width = out_spec.shape[-1]

    def plain(x):
      spec = jax.ShapeDtypeStruct(x.shape[:-1] + (width,), jnp.uint32)
      return host_ffi.call(call, spec, x, name=call.name)

    if _trace_of(packed) is self.ref:
      return self.at_top(call, packed, plain)

    @jax.custom_batching.custom_vmap
    def lift(x):
      return plain(x)

    @lift.def_vmap
    def rule(axis_size, in_batched, x):
      if not in_batched[0]:
        x = jnp.broadcast_to(x, (axis_size,) + x.shape)
      if _trace_of(x) is self.ref:
        return self.at_top(call, x, plain), True
      return lift(x), True

    return lift(packed)


class _Record(_Hook):
  """Pass 1: records the member's first call that reaches the top level, then stops its trace."""

  def at_top(self, call, packed, plain):
    self.top.append((call, packed))
    raise _Stop


class _Deliver(_Hook):
  """Pass 2: the recorded call returns the member's slice of the fused outputs; any later call at the
  top level is a plain callback of its own."""

  def __init__(self, mode, ref, recorded: _Call, out: jax.Array):
    super().__init__(mode, ref)
    self.recorded, self.out = recorded, out

  def at_top(self, call, packed, plain):
    if self.top:
      return plain(packed)
    r = self.recorded
    if (call.backend, call.layout, call.out_layout) != (r.backend, r.layout, r.out_layout):
      raise RuntimeError("cphysics.fused: a member's second trace made another C physics call")
    if self.out.shape != packed.shape[:-1] + (self.out.shape[-1],):
      raise RuntimeError(f"cphysics.fused: outputs {self.out.shape} for inputs {packed.shape}")
    self.top.append(call)
    return self.out


def _traced(hook: _Hook, fn: Callable[[], object]):
  _FUSE.hook = hook
  try:
    return fn()
  finally:
    _FUSE.hook = None


def fused(fns: Sequence[Callable[[], object]], ref, mode: str = "step") -> tuple[list, list]:
  """[fn() for fn in fns] (each a member's step or reset of a multi-task batch), with the C physics
  calls of `mode` ("step" or "kinematics") of all members made by ONE host callback instead of one each.

  Each fn is traced twice: pass 1 up to its first `mode` call at the caller's level, recording that
  call's inputs (the trace stops there); one host callback then runs every member's worlds, each with
  its own model, spread together over the thread pool; pass 2 traces fn again, that call returning its
  slice of the fused outputs (its own pre-physics code is then dead and removed). Both traces are of the
  same pure code, so the result equals the per-member callbacks' bit for bit. Further calls of a member
  (and calls inside a lax.cond or scan of its own, such as AutoReset's reset) are callbacks of their own;
  a member with no call at the caller's level runs plainly. `ref`: an array of the caller's trace (the
  step's actions).
  Returns (outputs, reasons): reasons[i] is None for a fused member, else why it was not.
  """
  records = []
  for fn in fns:
    rec = _Record(mode, ref)
    try:
      _traced(rec, fn)
    except _Stop:
      pass
    records.append(rec)
  reasons = [
    None if r.top else f"no C physics '{mode}' call at the step's own level (none, or in a cond or scan)"
    for r in records
  ]
  ok = [i for i, r in enumerate(reasons) if r is None]
  if len(ok) < 2:  # one member's callback is already one callback
    return [fn() for fn in fns], [r or "fewer than two members to fuse" for r in reasons]
  calls = [records[i].top[0][0] for i in ok]
  packed = [records[i].top[0][1] for i in ok]
  sizes = [int(np.prod(p.shape, dtype=int)) for p in packed]
  out_sizes = [int(np.prod(p.shape[:-1], dtype=int)) * _width(c.out_layout) for c, p in zip(calls, packed)]
  spec = jax.ShapeDtypeStruct((sum(out_sizes),), jnp.uint32)
  flat = jnp.concatenate([p.reshape(-1) for p in packed])
  host = _FusedHost(calls, packed, sizes)
  out = host_ffi.call(host, spec, flat, name=host.name)
  bounds = np.cumsum([0] + out_sizes)
  results = []
  for i, fn in enumerate(fns):
    if i not in ok:
      results.append(fn())
      continue
    j = ok.index(i)
    mine = out[bounds[j] : bounds[j + 1]].reshape(packed[j].shape[:-1] + (-1,))
    dl = _Deliver(mode, ref, calls[j], mine)
    results.append(_traced(dl, fn))
    if not dl.top:
      raise RuntimeError("cphysics.fused: a member's second trace differs from its first")
  return results, reasons


class _FusedHost:
  """The host side of `fused`: splits the flat inputs per member, runs every member's worlds in one
  thread pool (`_run_jobs`), concatenates their packed outputs."""

  def __init__(self, calls, packed, sizes):
    self.calls, self.sizes = calls, sizes
    self.ks = [p.shape[-1] for p in packed]
    self.name = host_ffi.target_name("fused", tuple(c.name for c in calls), tuple(sizes), tuple(self.ks))

  def __call__(self, flat):
    flat = np.asarray(flat)
    lead = flat.shape[:-1]  # an outer vmap's axes (broadcast_all), usually none
    rows = flat.reshape(-1, flat.shape[-1])
    r = rows.shape[0]
    jobs, finishes, off = [], [], 0
    for c, size, k in zip(self.calls, self.sizes, self.ks):
      n, chunk, finish = c.prepare(rows[:, off : off + size].reshape(-1, k))
      jobs.append((c.backend, n, chunk))
      finishes.append(finish)
      off += size
    _run_jobs(jobs)
    out = np.concatenate([f().reshape(r, -1) for f in finishes], 1)
    return out.reshape(lead + (-1,))


def _out_specs(nstate: int, npairs: int, derived: Mapping[str, tuple], views: Mapping[str, tuple]) -> dict:
  """The entries a C physics call returns for one world: the exact state, the warning, the pair contacts,
  the derived fields (shapes `derived`) and the float32 views of the state's fields (shapes `views`)."""
  return {
    "state": jax.ShapeDtypeStruct((2 * nstate,), jnp.uint32),
    "warned": jax.ShapeDtypeStruct((), jnp.float32),
    "pair_dist": jax.ShapeDtypeStruct((npairs,), jnp.float32),
    "pair_force": jax.ShapeDtypeStruct((npairs,), jnp.float32),
    **{f: jax.ShapeDtypeStruct(shape, jnp.float32) for f, shape in derived.items()},
    **{"view_" + f: jax.ShapeDtypeStruct(shape, jnp.float32) for f, shape in views.items()},
  }


def _finish(data: mjx.Data, out, fields, slices) -> CData:
  """The CData of a call's outputs: exact state, its float32 views, derived fields."""
  updates = {f: out[f] for f in fields}
  for f in slices:
    updates[f] = out["view_" + f].astype(getattr(data, f).dtype)
  impl = CImpl(
    state=out["state"], warned=out["warned"], pair_dist=out["pair_dist"], pair_force=out["pair_force"]
  )
  return data.replace(**updates, _impl=impl)


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
    # The state entries the env's fields map to, in `slices` order (the merge and the float32 views).
    self._merge_idx = np.concatenate([np.arange(s.start, s.stop) for s in self.slices.values()])
    self._bad = np.array([int(getattr(mujoco.mjtWarning, w)) for w in _BAD])
    self.pairs = list(pair_masks)  # (in group a [ngeom (+1)], in group b) per contact pair, by geom id
    self._pool: queue.SimpleQueue = queue.SimpleQueue()
    for _ in range(self.threads):
      self._pool.put(_Worker(mj_model))
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
    # The name of this backend's host functions (`host_ffi`): a hash of what they compute with, the same
    # in every process (a program compiled in another one, from the persistent cache, finds it). The
    # model is read here: changing it after the backend is built is not supported.
    model = np.zeros(mujoco.mj_sizeModel(mj_model), np.uint8)
    mujoco.mj_saveModel(mj_model, None, model)
    pairs = [np.asarray(m) for p in self.pairs for m in p]
    self.key = host_ffi.target_name(model, self.n_substeps, self.fields, *pairs)

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
    return _finish(data, out, self.fields, self.slices)

  def _call(
    self,
    mode: str,
    data: mjx.Data,
    extra: Mapping[str, jax.Array],
    model_fields,
    interpolate: tuple[bool, bool],
  ):
    views = {f: jnp.shape(getattr(data, f)) for f in self.slices}
    specs = _out_specs(self.nstate, len(self.pairs), {f: self._shape[f] for f in self.fields}, views)
    state = data._impl.state  # pylint: disable=protected-access
    lead = state.shape[:-1]
    args = {
      "state": state,
      **{"in/" + f: getattr(data, f) for f in self.slices},
      **{"extra/" + k: v for k, v in extra.items()},
      **{"mf/" + k: v for k, v in (model_fields or {}).items()},
    }
    # One uint32 array in and one out: a callback's cost grew with its number of arrays (~0.1 ms
    # each on the 2-core CPU, 33 arrays for a Meta-World step), the packing is a few XLA copies.
    packed, layout = _pack(args, len(lead))
    out_layout = tuple((k, tuple(v.shape), np.dtype(v.dtype)) for k, v in specs.items())
    call = _Call(self, mode, layout, out_layout, interpolate)
    out_spec = jax.ShapeDtypeStruct(lead + (_width(out_layout),), jnp.uint32)
    hook = getattr(_FUSE, "hook", None)
    if hook is not None and mode == hook.mode:
      packed_out = hook(call, packed, out_spec)
    else:
      packed_out = host_ffi.call(call, out_spec, packed, name=call.name)
    return self._finish(data, _unpack(packed_out, out_layout, len(lead)))

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
    host = _Rays(self, geomgroup, bodyexclude)
    mf = dict(model_fields or {})
    name = host_ffi.target_name("rays", self.key, tuple(host.group), host.exclude, tuple(sorted(mf)))
    return host_ffi.call(
      host, specs, data.geom_xpos, data.geom_xmat, data.xipos, origins, dirs, mf, name=name
    )

  # -------------------------------------------------------------------------------- host side
  def _run(self, n: int, fn):
    """fn(worker, lo, hi) over contiguous chunks of n worlds, one chunk per worker thread."""
    _run_jobs([(self, n, fn)])

  def merge(self, exact: np.ndarray, inputs: Mapping[str, np.ndarray]) -> np.ndarray:
    """[B, nstate] float64 states with the env's float32 writes merged in (see the module docstring)."""
    n = exact.shape[0]
    new = np.concatenate([np.asarray(inputs[f], np.float32).reshape(n, -1) for f in self.slices], 1)
    return self._merge(exact.copy(), new)

  def _merge(self, exact: np.ndarray, new: np.ndarray) -> np.ndarray:
    """`merge` in place, the inputs as one float32 [B, M] block in `slices` order (booleans as 0 / 1:
    the exact state holds eq_active as 0.0 / 1.0)."""
    idx = self._merge_idx
    old = exact[:, idx]
    exact[:, idx] = np.where(new != old.astype(np.float32), new.astype(np.float64), old)
    return exact

  def _prepare(self, call: _Call, packed: np.ndarray):
    """The work of one call on the n worlds of `packed` (uint32 [n, K], `call`'s layout): (n,
    chunk(worker, lo, hi), finish() -> uint32 [n, K_out])."""
    n, mode, interpolate = packed.shape[0], call.mode, call.interpolate
    lo, hi = call.cols["state"][:2]
    exact = np.array(packed[:, lo:hi]).view(np.float64)  # a copy: merged in place
    lo, hi = call.in_block
    raw = packed[:, lo:hi]
    exact = self._merge(exact, np.where(call.in_bool, raw.astype(np.float32), raw.view(np.float32)))
    extra = {k[6:]: call.column(packed, k, np.float64) for k in call.cols if k.startswith("extra/")}
    mfields = {k[3:]: call.column(packed, k, np.float64) for k in call.cols if k.startswith("mf/")}
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

    def finish():
      out = np.empty((n, call.out_width), np.uint32)
      parts = {"state": _bits(out_state), "warned": warned, "pair_dist": pair_dist, "pair_force": pair_force}
      for k, v in {**parts, **derived}.items():
        lo, hi = call.out_cols[k][:2]
        out[:, lo:hi] = v.reshape(n, hi - lo).view(np.uint32)
      lo, hi = call.view_block
      out[:, lo:hi] = out_state[:, self._merge_idx].astype(np.float32).view(np.uint32)
      return out

    return n, chunk, finish

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


class _Rays:
  """The host side of `Backend.rays` for one geom group and exclusion list."""

  def __init__(self, backend: Backend, geomgroup: Sequence[int], bodyexclude: Sequence[int]):
    self.backend = backend
    self.group = np.zeros(6, np.uint8)
    self.group[list(geomgroup)] = 1
    self.exclude = tuple(int(b) for b in bodyexclude)

  def __call__(self, gx, gm, xi, origins, dirs, mfields):
    return self.backend._host_rays(gx, gm, xi, origins, dirs, mfields, self.group, self.exclude)  # pylint: disable=protected-access


# ------------------------------------------------------------------------------------ padded batches
def _padded_shape(shapes) -> tuple:
  """The elementwise largest of equal-rank shapes."""
  return tuple(int(max(d)) for d in zip(*shapes)) if shapes and shapes[0] else ()


def pad_to(x, shape, value=0) -> np.ndarray:
  """`x` as a numpy array padded at the end of each axis to `shape` with `value` (on the host: a
  template's ~60 fields padded as JAX ops one by one cost ~30 ms a model, 1.5 s of MT50's start)."""
  x = np.asarray(x)
  if x.shape == tuple(shape):
    return x
  return np.pad(x, [(0, t - s) for s, t in zip(x.shape, shape)], constant_values=value)


class Padded:
  """C physics for one batch of worlds of several models: `counts[t]` consecutive worlds of
  `backends[t]`'s model each, in that order (a multi-task batch, task-major). Every mjx.Data field is padded at the end of its axes to
  the largest model's shape (`template(t)`), so that the code all models share (a multi-task batch's
  observation, wrappers, packing) is traced once for the whole batch instead of once per model
  (`mjx_envs.metaworld.shared`). One host callback per call: world w is stepped with its own model, from
  the leading part of each padded field (the padding is at the end of axis 0, where models differ).
  The result equals each model's own `Backend` call bit for bit; padding reads as zero (pair
  distances as 1e6)."""

  def __init__(self, backends: Sequence[Backend], templates: Sequence[CData], counts: Sequence[int]):
    if len({b.fields for b in backends}) != 1 or len({tuple(b.slices) for b in backends}) != 1:
      raise ValueError("cphysics.Padded: every model must have the same c_fields and state parts")
    self.backends, self.counts = tuple(backends), tuple(int(c) for c in counts)
    self.num_worlds = sum(self.counts)
    self.fields, self.slices = backends[0].fields, tuple(backends[0].slices)
    self.nstate = max(b.nstate for b in backends)
    self.npairs = max(len(b.pairs) for b in backends)
    names = [f.name for f in mjx.Data.fields() if f.name != "_impl"]
    self._shapes = {n: _padded_shape([np.shape(getattr(t, n)) for t in templates]) for n in names}
    self._templates = tuple(templates)
    self._own = [{n: np.shape(getattr(t, n)) for n in names} for t in templates]  # each model's shapes

  def template(self, t: int) -> CData:
    """Model t's reset-state CData (`Backend.make_data`) padded to the batch's shapes (one world), as
    numpy arrays."""
    tmpl = self._templates[t]
    impl = tmpl._impl  # pylint: disable=protected-access
    kw = {n: pad_to(getattr(tmpl, n), shape) for n, shape in self._shapes.items()}
    return CData(
      **kw,
      _impl=CImpl(
        state=pad_to(impl.state, (2 * self.nstate,)),
        warned=np.asarray(impl.warned),
        pair_dist=pad_to(impl.pair_dist, (self.npairs,), 1e6),
        pair_force=pad_to(impl.pair_force, (self.npairs,)),
      ),
    )

  def unpadded(self, data: CData, t: int) -> CData:
    """Model t's worlds of the padded batch `data` [num_worlds, ...] as its own CData [counts[t], ...]."""
    lo = sum(self.counts[:t])
    rows = slice(lo, lo + self.counts[t])
    b, own = self.backends[t], self._own[t]
    cut = lambda x, shape: x[(rows,) + tuple(slice(0, n) for n in shape)]
    impl = data._impl  # pylint: disable=protected-access
    return CData(
      **{n: cut(getattr(data, n), shape) for n, shape in own.items()},
      _impl=CImpl(
        state=cut(impl.state, (2 * b.nstate,)),
        warned=impl.warned[rows],
        pair_dist=cut(impl.pair_dist, (len(b.pairs),)),
        pair_force=cut(impl.pair_force, (len(b.pairs),)),
      ),
    )

  def step(self, data: CData) -> CData:
    """`n_substeps` of mj_step of every world of `data` [num_worlds, ...] (inputs written into its
    fields; no mocap interpolation)."""
    return self._call("step", data)

  def forward(self, data: CData) -> CData:
    """A reset's kinematics of every world of `data` [num_worlds, ...] (`Backend.forward`)."""
    return self._call("kinematics", data)

  def _layouts(self, t: int, mode: str, layout, out_layout):
    """Model t's own (layout, out_layout) and the columns of the padded ones its entries fill."""
    b, own = self.backends[t], self._own[t]

    def true_shape(key, shape):
      if key == "state":
        return (2 * b.nstate,)
      if key in ("pair_dist", "pair_force"):
        return (len(b.pairs),)
      field = key.split("/", 1)[1] if key.startswith("in/") else key.removeprefix("view_")
      if field in own:
        return own[field] if key.startswith(("in/", "view_")) else b._cshape[field]  # pylint: disable=protected-access
      return shape

    def mapped(lay):
      mine, cols, off = [], [], 0
      for key, shape, dt in lay:
        size, ts = int(np.prod(shape, dtype=int)), true_shape(key, shape)
        mine.append((key, tuple(ts), dt))
        cols.append(off + np.arange(int(np.prod(ts, dtype=int))))  # the leading part: padding is at the end
        off += size
      return tuple(mine), np.concatenate(cols).astype(np.intp)

    (lay, cols), (out_lay, out_cols) = mapped(layout), mapped(out_layout)
    return _Call(b, mode, lay, out_lay, (False, False)), cols, out_cols

  def _call(self, mode: str, data: CData) -> CData:
    state = data._impl.state  # pylint: disable=protected-access
    if state.shape[:-1] != (self.num_worlds,):
      raise ValueError(
        f"cphysics.Padded: expected a batch of {self.num_worlds} worlds, got {state.shape[:-1]}"
      )
    derived = {f: self._shapes[f] for f in self.fields}
    # C's derived layout (xmat [n, 9]) for the host; mjx.Data's ([n, 3, 3]) on the JAX side: same sizes.
    views = {f: self._shapes[f] for f in self.slices}
    specs = _out_specs(self.nstate, self.npairs, derived, views)
    args = {"state": state, **{"in/" + f: getattr(data, f) for f in self.slices}}
    packed, layout = _pack(args, 1)
    out_layout = tuple((k, tuple(v.shape), np.dtype(v.dtype)) for k, v in specs.items())
    calls = [self._layouts(t, mode, layout, out_layout) for t in range(len(self.backends))]
    host = _PaddedHost(calls, self.counts, _width(out_layout))
    out_spec = jax.ShapeDtypeStruct(packed.shape[:-1] + (_width(out_layout),), jnp.uint32)
    out = host_ffi.call(host, out_spec, packed, name=host.name)
    out = _unpack(out, out_layout, 1)
    return _finish(data, out, self.fields, self.slices)


class _PaddedHost:
  """The host side of `Padded._call`: each model's worlds and columns taken out of the padded rows, all
  models' worlds run in one thread pool (`_run_jobs`), their outputs written back into padded rows."""

  def __init__(self, calls, counts, out_width):
    self.calls, self.out_width = calls, out_width
    self.bounds = np.cumsum([0] + list(counts))
    self.name = host_ffi.target_name(
      "padded",
      tuple(c.name for c, _, _ in calls),
      *[a for _, *cols in calls for a in cols],
      self.bounds,
      out_width,
    )

  def __call__(self, packed):
    packed = np.asarray(packed)
    lead, (w, k) = packed.shape[:-2], packed.shape[-2:]
    rows = packed.reshape(-1, w, k)
    out = np.zeros((rows.shape[0], w, self.out_width), np.uint32)
    for r in range(rows.shape[0]):  # an outer vmap's axes (broadcast_all), usually none
      jobs, finishes = [], []
      for (call, cols, _), lo, hi in zip(self.calls, self.bounds[:-1], self.bounds[1:]):
        n, chunk, finish = call.prepare(np.ascontiguousarray(rows[r, lo:hi][:, cols]))
        jobs.append((call.backend, n, chunk))
        finishes.append(finish)
      _run_jobs(jobs)
      for (_, _, out_cols), lo, hi, finish in zip(self.calls, self.bounds[:-1], self.bounds[1:], finishes):
        out[r][lo:hi, out_cols] = finish()
    return out.reshape(lead + (w, self.out_width))
