"""Arrays an env computes from its code and config alone, kept on disk beside JAX's compilation cache.

Why: some envs build constant tables before they can be traced, and a warm start pays for them again in
every process although they never change. MT50's build (2026-12-04, the 2-core CPU, a warm compilation
cache, cProfile): 50 tasks x 50 fixed rand_vecs drawn by an eager `vmap` per task (2.5 s) and the
placement tables of those vectors (one program; tracing the 50 tasks' placement code, 2.0 s) were 4.5 of
the env's 7.1 s, which MT10 pays a fifth of. The persistent compilation cache keeps a program, but its
trace still runs; this module keeps the program's output instead.

    out = tables.cached("metaworld-fixed-rand-vecs", (task_name, sorted(config.items())), lambda: {"v": ...})

Where: `<jax_compilation_cache_dir>/mjx_envs_tables/<sha256>.npz`, and only while JAX's persistent cache is
on (`train.py` and the tests turn it on; a program that never sets it computes every table, as before).
`MJX_TABLE_CACHE=0` turns it off alone; `MJX_TABLE_CACHE=/some/folder` puts it there.

The key: sha256 of the table's name, the caller's key parts (their `repr`: pass plain values, tuples and
sorted items), every file of this package (its code and its models: any edit makes new entries), the
versions of jax, jaxlib and mujoco, and JAX's default backend. A computation that depends on anything
else (an input array) must put it in its key (`digest`).

Safety: an entry is written whole or not at all (a temporary file, then `os.replace`, so processes that
race write the same bytes in turn); an entry that cannot be read is computed again and rewritten; a
folder that cannot be written costs the computation only. Values are numpy arrays only (no pickles).
Entries of older sources are left in place (a few MB per edit of the package for MT50): deleting the
folder clears them.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import io
import os
import tempfile
from collections.abc import Callable, Mapping

import jax
import numpy as np

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
SUBDIR = "mjx_envs_tables"


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
  """sha256 of every file of the mjx_envs package (paths and bytes), read once per process (~1 MB)."""
  h = hashlib.sha256()
  for root, dirs, files in os.walk(_PACKAGE):
    dirs[:] = sorted(d for d in dirs if d != "__pycache__")
    for f in sorted(files):
      if f.endswith((".pyc", ".pyo")):
        continue
      path = os.path.join(root, f)
      h.update(os.path.relpath(path, _PACKAGE).encode() + b"\0")
      with open(path, "rb") as fh:
        h.update(fh.read())
  return h.hexdigest()


@functools.cache
def _version(dist: str) -> str:
  # Cached: importlib.metadata parses the package's METADATA on each call (MT50's 101 tables: 0.9 s).
  try:
    return importlib.metadata.version(dist)
  except importlib.metadata.PackageNotFoundError:
    return "-"


def digest(*arrays) -> str:
  """sha256 of arrays' dtypes, shapes and bytes: for key parts that are arrays."""
  h = hashlib.sha256()
  for a in arrays:
    a = np.ascontiguousarray(a)
    h.update(f"{a.dtype.str}{a.shape}".encode())
    h.update(a.tobytes())
  return h.hexdigest()


def directory() -> str | None:
  """The folder entries live in (`MJX_TABLE_CACHE`: "0" off, a path that folder; unset: beside JAX's
  compilation cache where that is on), or None where the cache is off."""
  env = os.environ.get("MJX_TABLE_CACHE", "")
  if env == "0":
    return None
  if env:
    return env
  root = _compilation_cache_dir()
  return os.path.join(root, SUBDIR) if root else None


def _compilation_cache_dir() -> str | None:
  return jax.config.jax_compilation_cache_dir


def entry_key(name: str, key) -> str:
  """The entry's file stem for `name` and the caller's `key` (module docstring)."""
  parts = (
    name,
    repr(key),
    source_digest(),
    _version("jax"),
    _version("jaxlib"),
    _version("mujoco"),
    jax.default_backend(),
  )
  return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _read(path: str) -> dict[str, np.ndarray] | None:
  try:
    with np.load(path, allow_pickle=False) as z:
      return {k: z[k] for k in z.files}
  except (OSError, ValueError, EOFError, KeyError):  # absent, cut short or not an npz
    return None


def _write(path: str, arrays: Mapping[str, np.ndarray]) -> None:
  buf = io.BytesIO()
  np.savez(buf, **arrays)
  tmp = None
  try:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
      f.write(buf.getvalue())
    os.replace(tmp, path)
  except OSError:  # a read-only or full disk costs the next start the computation, nothing else
    if tmp is not None and os.path.exists(tmp):
      os.remove(tmp)


def cached(name: str, key, compute: Callable[[], Mapping[str, np.ndarray]]) -> dict[str, np.ndarray]:
  """`compute()` ({array name: numpy array}), read from the cache where an entry for (name, key) exists,
  else computed and stored. The arrays come back as numpy arrays in either case."""
  folder = directory()
  path = os.path.join(folder, entry_key(name, key) + ".npz") if folder else None
  if path is not None:
    hit = _read(path)
    if hit is not None:
      return hit
  out = {k: np.asarray(v) for k, v in compute().items()}
  if path is not None:
    _write(path, out)
  return out
