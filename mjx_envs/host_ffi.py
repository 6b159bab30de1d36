"""Python host functions called from jitted programs as named XLA FFI targets, so that the programs
enter JAX's persistent compilation cache.

Why not `jax.pure_callback` or `buffer_callback`: JAX bakes a callback into the compiled program by its
index in a per-executable list, and refuses to store any program that has one in the persistent cache
(`jax._src.compiler._cache_write`: "uses host callbacks"). Every program that steps C MuJoCo (`cphysics`)
was therefore compiled afresh in every process: a second `train.py` run of a config, every test file,
every xdist worker. Here each host function is an XLA FFI handler registered under a stable target name
(a ctypes function that calls back into Python: the FFI's C interface, `jaxlib/include/xla/ffi/api/c_api.h`,
is ABI-stable), so the program refers to it by name only and its executable can be stored and loaded.

Naming (`call(..., name=...)`): the name must be the same for the same program in every process (that is
what makes a cache hit), and may stand for one host computation only: a cached executable holds nothing
of the function but its name, and at run time the name is looked up in this process's registry. So a
name is a hash of everything the host function computes with (`cphysics.Backend.key`: the model, as
saved by mj_saveModel, and the backend's settings; then the call's mode and layouts). Two live functions
under one name compute the same, so the later one to be traced serves both.

Lifetime: the registry holds each name's function for the life of the process, as a compiled program
may outlive the env it was traced from (an evaluation env built inside a traced function is garbage once
the trace ends; the buffer callback's program held it). It grows with the distinct models and layouts a
process traces, not with the envs it builds.

The handler runs on an XLA thread and takes the GIL (as the callbacks did); inputs are read-only numpy
views of XLA's buffers, results are written into XLA's output buffers (no copies either way). An
exception in the host function fails the program's execution with its type and message.
"""

from __future__ import annotations

import ctypes
import hashlib
import threading
from collections.abc import Callable

import jax
import numpy as np
from jax.experimental import buffer_callback

TARGET_PREFIX = "mjx_goal_rl_host_"
# The FFI API version the handlers declare (XLA_FFI_API_MAJOR / a minor every jaxlib we support accepts).
_API_MAJOR, _API_MINOR = 0, 1
_METADATA_EXTENSION = 1  # XLA_FFI_Extension_Metadata
_ERROR_INTERNAL = 13  # XLA_FFI_Error_Code_INTERNAL
_BUFFER = 1  # XLA_FFI_ArgType_BUFFER / XLA_FFI_RetType_BUFFER
# XLA_FFI_DataType -> numpy dtype (the ones a host function may see).
_DTYPES = {
  1: np.dtype(np.bool_),
  2: np.dtype(np.int8),
  3: np.dtype(np.int16),
  4: np.dtype(np.int32),
  5: np.dtype(np.int64),
  6: np.dtype(np.uint8),
  7: np.dtype(np.uint16),
  8: np.dtype(np.uint32),
  9: np.dtype(np.uint64),
  10: np.dtype(np.float16),
  11: np.dtype(np.float32),
  12: np.dtype(np.float64),
}


# ------------------------------------------------------------------ the FFI's C structs (c_api.h)
class _ExtensionBase(ctypes.Structure):
  pass


_ExtensionBase._fields_ = [  # pylint: disable=protected-access
  ("struct_size", ctypes.c_size_t),
  ("type", ctypes.c_int),
  ("next", ctypes.POINTER(_ExtensionBase)),
]


class _ApiVersion(ctypes.Structure):
  _fields_ = [
    ("struct_size", ctypes.c_size_t),
    ("extension_start", ctypes.c_void_p),
    ("major_version", ctypes.c_int),
    ("minor_version", ctypes.c_int),
  ]


class _Metadata(ctypes.Structure):
  _fields_ = [
    ("struct_size", ctypes.c_size_t),
    ("api_version", _ApiVersion),
    ("traits", ctypes.c_uint32),
    ("state_type_id", ctypes.c_int64),
  ]


class _MetadataExtension(ctypes.Structure):
  _fields_ = [("extension_base", _ExtensionBase), ("metadata", ctypes.POINTER(_Metadata))]


class _Buffer(ctypes.Structure):
  _fields_ = [
    ("struct_size", ctypes.c_size_t),
    ("extension_start", ctypes.c_void_p),
    ("dtype", ctypes.c_int),
    ("data", ctypes.c_void_p),
    ("rank", ctypes.c_int64),
    ("dims", ctypes.POINTER(ctypes.c_int64)),
  ]


class _Buffers(ctypes.Structure):  # XLA_FFI_Args and XLA_FFI_Rets share this layout
  _fields_ = [
    ("struct_size", ctypes.c_size_t),
    ("extension_start", ctypes.c_void_p),
    ("size", ctypes.c_int64),
    ("types", ctypes.POINTER(ctypes.c_int)),
    ("buffers", ctypes.POINTER(ctypes.POINTER(_Buffer))),
  ]


class _Attrs(ctypes.Structure):
  _fields_ = [
    ("struct_size", ctypes.c_size_t),
    ("extension_start", ctypes.c_void_p),
    ("size", ctypes.c_int64),
    ("types", ctypes.c_void_p),
    ("names", ctypes.c_void_p),
    ("attrs", ctypes.c_void_p),
  ]


class _CallFrame(ctypes.Structure):
  _fields_ = [
    ("struct_size", ctypes.c_size_t),
    ("extension_start", ctypes.POINTER(_ExtensionBase)),
    ("api", ctypes.c_void_p),
    ("ctx", ctypes.c_void_p),
    ("stage", ctypes.c_int),
    ("args", _Buffers),
    ("rets", _Buffers),
    ("attrs", _Attrs),
    ("future", ctypes.c_void_p),
  ]


class _ErrorCreateArgs(ctypes.Structure):
  _fields_ = [
    ("struct_size", ctypes.c_size_t),
    ("extension_start", ctypes.c_void_p),
    ("message", ctypes.c_char_p),
    ("errc", ctypes.c_int),
  ]


_HANDLER = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.POINTER(_CallFrame))
_ERROR_CREATE = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.POINTER(_ErrorCreateArgs))
# XLA_FFI_Api: struct_size, extension_start, api_version (24 bytes), internal_api, then the function
# pointers, XLA_FFI_Error_Create first.
_ERROR_CREATE_OFFSET = (
  2 * ctypes.sizeof(ctypes.c_void_p) + ctypes.sizeof(_ApiVersion) + ctypes.sizeof(ctypes.c_void_p)
)


# ------------------------------------------------------------------ the registry
class _Target:
  """What a name stands for in this process: the host function and its arguments' tree structure."""

  def __init__(self, fn: Callable, in_tree, out_tree):
    self.fn, self.in_tree, self.out_tree = fn, in_tree, out_tree


_TARGETS: dict[str, _Target] = {}  # name -> the latest _Target traced under it
_HANDLERS: dict[str, object] = {}  # name -> its ctypes handler, alive for the process (XLA holds it)
_LOCK = threading.Lock()


def _view(ptr, writeable: bool) -> np.ndarray:
  b = ptr.contents
  shape = tuple(int(b.dims[i]) for i in range(b.rank))
  dtype = _DTYPES.get(b.dtype)
  if dtype is None:
    raise TypeError(f"host_ffi: XLA FFI data type {b.dtype} is not one a host function takes")
  nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
  if nbytes == 0 or not b.data:
    return np.zeros(shape, dtype)
  x = np.frombuffer((ctypes.c_char * nbytes).from_address(b.data), dtype).reshape(shape)
  x.flags.writeable = writeable
  return x


def _error(frame: _CallFrame, message: str):
  create = _ERROR_CREATE(ctypes.c_void_p.from_address(frame.api + _ERROR_CREATE_OFFSET).value)
  args = _ErrorCreateArgs(ctypes.sizeof(_ErrorCreateArgs), None, message.encode(), _ERROR_INTERNAL)
  return create(ctypes.byref(args))


def _make_handler(name: str):
  def handler(frame_ptr):
    frame = frame_ptr.contents
    if frame.extension_start:  # XLA asks the handler's API version when the target is registered
      ext = frame.extension_start.contents
      if ext.type == _METADATA_EXTENSION:
        md = ctypes.cast(frame.extension_start, ctypes.POINTER(_MetadataExtension)).contents.metadata.contents
        md.api_version.major_version, md.api_version.minor_version = _API_MAJOR, _API_MINOR
        md.traits = 0
        return None
    try:
      target = _TARGETS.get(name)
      if target is None:  # a program that only its own process can trace never gets here
        raise RuntimeError(f"host_ffi: no host function was traced under FFI target {name!r} in this process")
      ins = [_view(frame.args.buffers[i], False) for i in range(frame.args.size)]
      outs = [_view(frame.rets.buffers[i], True) for i in range(frame.rets.size)]
      args, kwargs = jax.tree.unflatten(target.in_tree, ins)
      results = jax.tree.leaves(target.fn(*args, **kwargs))
      if len(results) != len(outs):
        raise ValueError(
          f"host_ffi: {name!r} returned {len(results)} arrays, the program expects {len(outs)}"
        )
      for o, r in zip(outs, results):
        o[...] = r
      return None
    except BaseException as e:  # pylint: disable=broad-except  (an exception must not cross into C)
      return _error(frame, f"{type(e).__name__}: {e}")

  return _HANDLER(handler)


def target_name(*parts) -> str:
  """A stable FFI target name from `parts` (strings, numbers, numpy arrays, nested tuples of them)."""
  h = hashlib.sha256()
  for p in parts:
    h.update(np.ascontiguousarray(p).tobytes() if isinstance(p, np.ndarray) else repr(p).encode())
    h.update(b"\0")
  return TARGET_PREFIX + h.hexdigest()[:32]


def call(fn: Callable, specs, *args, name: str):
  """fn(*args as numpy) on the host while XLA runs, under the FFI target `name` (`target_name`).

  specs: a pytree of jax.ShapeDtypeStruct, the results' shapes; fn returns arrays in that structure.
  Batched as `vmap_method="broadcast_all"`: under vmap, fn sees the extra leading axes on every input
  and returns them on every output.
  Returns the results as jax arrays in the structure of `specs`. When JAX's default backend is not the
  CPU, fn runs through JAX's buffer callback instead (not cached; an accelerator's buffers are not host
  memory)."""
  if jax.default_backend() != "cpu":
    # An accelerator's buffers are not host memory the handler could read: JAX's buffer callback copies
    # them (and keeps its programs out of the persistent cache).
    return _buffer_call(fn, specs, *args)
  flat, in_tree = jax.tree.flatten((args, {}))
  out_flat, out_tree = jax.tree.flatten(specs)
  target = _Target(fn, in_tree, out_tree)
  with _LOCK:
    _TARGETS[name] = target
    if name not in _HANDLERS:
      handler = _make_handler(name)
      jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(handler), platform="cpu")
      _HANDLERS[name] = handler
  out = jax.ffi.ffi_call(name, out_flat, vmap_method="broadcast_all")(*flat)
  return jax.tree.unflatten(out_tree, out)


def _buffer_call(fn: Callable, specs, *args):
  """`call` through JAX's buffer callback (`vmap_method="broadcast_all"`): for programs on an accelerator."""

  def host(ctx, out, *bufs):
    del ctx
    results = fn(*jax.tree.map(np.asarray, bufs))
    for o, r in zip(jax.tree.leaves(out), jax.tree.leaves(results), strict=True):
      np.asarray(o)[...] = r

  return buffer_callback.buffer_callback(host, specs, vmap_method="broadcast_all")(*args)
