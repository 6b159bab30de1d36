"""`mjx_envs.tables`: constant tables kept on disk between processes, keyed by name, key, the package's
source and the software; computed again where the entry is missing, unreadable or the cache is off."""

from mjx_envs import tables

import os

import numpy as np
import pytest


class Counter:
  def __init__(self, value):
    self.calls, self.value = 0, value

  def __call__(self):
    self.calls += 1
    return self.value


@pytest.fixture
def folder(monkeypatch, tmp_path):
  monkeypatch.setenv("MJX_TABLE_CACHE", str(tmp_path))
  return tmp_path


def _entries(folder):
  return sorted(p for p in os.listdir(folder) if p.endswith(".npz"))


def test_an_entry_is_computed_once_then_read(folder):
  value = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.asarray(7, np.int64)}
  compute = Counter(value)
  first = tables.cached("t", ("x", 1), compute)
  second = tables.cached("t", ("x", 1), compute)
  assert compute.calls == 1 and len(_entries(folder)) == 1
  for out in (first, second):
    assert set(out) == {"a", "b"}
    for k in value:
      assert out[k].dtype == value[k].dtype and np.array_equal(out[k], value[k])
  # Another key or name is another entry.
  tables.cached("t", ("x", 2), compute)
  tables.cached("u", ("x", 1), compute)
  assert compute.calls == 3 and len(_entries(folder)) == 3


def test_an_unreadable_entry_is_computed_again_and_rewritten(folder):
  compute = Counter({"a": np.ones(3)})
  tables.cached("t", "k", compute)
  (entry,) = _entries(folder)
  with open(folder / entry, "wb") as f:
    f.write(b"not an npz")
  out = tables.cached("t", "k", compute)
  assert compute.calls == 2 and np.array_equal(out["a"], np.ones(3))
  tables.cached("t", "k", compute)
  assert compute.calls == 2  # the rewritten entry serves again
  assert not [p for p in os.listdir(folder) if p.endswith(".tmp")]


def test_the_package_source_and_the_key_make_the_entry(monkeypatch, folder):
  compute = Counter({"a": np.zeros(2)})
  tables.cached("t", "k", compute)
  monkeypatch.setattr(tables, "source_digest", lambda: "an edited package")
  tables.cached("t", "k", compute)
  assert compute.calls == 2  # an edit of mjx_envs invalidates every table
  assert tables.digest(np.zeros(2, np.float32)) != tables.digest(np.zeros(2, np.float64))
  assert tables.digest(np.zeros((2, 1))) != tables.digest(np.zeros((1, 2)))


def test_off_or_without_a_compilation_cache_every_call_computes(monkeypatch, tmp_path):
  compute = Counter({"a": np.zeros(1)})
  monkeypatch.setenv("MJX_TABLE_CACHE", "0")
  assert tables.directory() is None
  tables.cached("t", "k", compute)
  tables.cached("t", "k", compute)
  assert compute.calls == 2
  monkeypatch.delenv("MJX_TABLE_CACHE")
  monkeypatch.setattr(tables, "_compilation_cache_dir", lambda: None)
  assert tables.directory() is None
  monkeypatch.setattr(tables, "_compilation_cache_dir", lambda: str(tmp_path))
  assert tables.directory() == os.path.join(str(tmp_path), tables.SUBDIR)


def test_a_folder_that_cannot_be_written_only_costs_the_computation(monkeypatch, tmp_path):
  blocker = tmp_path / "a file"
  blocker.write_text("")
  monkeypatch.setenv("MJX_TABLE_CACHE", str(blocker / "tables"))  # a folder under a file: not creatable
  compute = Counter({"a": np.arange(3)})
  for _ in range(2):
    assert np.array_equal(tables.cached("t", "k", compute)["a"], np.arange(3))
  assert compute.calls == 2
