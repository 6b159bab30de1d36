"""Every notebook in notebooks/ runs top to bottom at its tiny budget (NOTEBOOK_BUDGET=tiny), in a
scratch directory, on a fresh kernel: a notebook that breaks fails here."""

import glob
import os

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOKS = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))


def test_the_notebooks_are_all_here():
  names = [os.path.basename(p) for p in NOTEBOOKS]
  assert names == [
    "01_environments.ipynb",
    "02_ppo_fetch.ipynb",
    "03_her.ipynb",
    "04_asymmetric_self_play.ipynb",
    "05_metaworld.ipynb",
    "06_hide_and_seek.ipynb",
  ], names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_notebook_runs_top_to_bottom(path, tmp_path, monkeypatch):
  # The kernel inherits this environment: the tiny budget, the repository on the path (train.py,
  # configs/), and the test suite's persistent compilation cache.
  monkeypatch.setenv("NOTEBOOK_BUDGET", "tiny")
  monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
  monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", os.path.join(ROOT, ".jax_cache"))
  monkeypatch.setenv("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "1")
  nb = nbformat.read(path, as_version=4)
  NotebookClient(
    nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
  ).execute()
  errors = [
    o
    for c in nb.cells
    if c.cell_type == "code"
    for o in c.get("outputs", [])
    if o.get("output_type") == "error"
  ]
  assert not errors
  # Every notebook shows something: a figure or a video.
  shown = [
    o
    for c in nb.cells
    if c.cell_type == "code"
    for o in c.get("outputs", [])
    if o.get("output_type") in ("display_data", "execute_result")
  ]
  assert shown, os.path.basename(path)
