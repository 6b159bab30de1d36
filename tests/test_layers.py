"""The layout's rule, checked on the source: data flows one way (env, wrappers, rollout, relabel, loss,
update), so a lower layer never imports an upper one. Parsed with `ast`: no JAX, milliseconds."""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# What each part of the tree may import from the project (besides itself). Learners sit on the shared
# parts and the league; PPO's losses serve self-play and multi-agent PPO; MT-SAC builds on SAC.
ALLOWED = {
  "mjx_envs": set(),
  "agents.common": {"mjx_envs"},
  "agents.league": {"mjx_envs", "agents.common"},
  "agents.ppo": {"mjx_envs", "agents.common", "agents.league"},
  "agents.her": {"mjx_envs", "agents.common", "agents.league"},
  "agents.multitask": {"mjx_envs", "agents.common", "agents.league", "agents.her"},
  "agents.selfplay": {"mjx_envs", "agents.common", "agents.league", "agents.ppo"},
  "agents.mappo": {"mjx_envs", "agents.common", "agents.league", "agents.ppo"},
  "agents.experiment": {
    "mjx_envs",
    "agents.common",
    "agents.league",
    "agents.ppo",
    "agents.her",
    "agents.multitask",
    "agents.selfplay",
    "agents.mappo",
  },
}
ALLOWED["agents.tournament"] = ALLOWED["agents.experiment"] | {"agents.experiment"}
# `python -m agents.ratings` is `agents.tournament ratings` under the name the hide-and-seek issue gives it.
ALLOWED["agents.ratings"] = {"agents.tournament"}
# agents/__init__.py names its public entry points lazily (PEP 562) and imports none of them.
ALLOWED["agents"] = set()


def _part(module: str) -> str:
  """The layer a dotted module name belongs to: 'agents.ppo.train' -> 'agents.ppo'."""
  parts = module.split(".")
  if parts[0] == "agents" and len(parts) > 1:
    return ".".join(parts[:2])
  return parts[0]


def _project_imports(path: pathlib.Path):
  """(line, imported dotted module) for every project import of a file (mjx_envs, agents, benchmarks,
  train, configs, tests)."""
  tree = ast.parse(path.read_text(), str(path))
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      names = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
      # `from agents import experiment` imports agents.experiment, not just the package.
      names = [node.module] + (
        [f"{node.module}.{a.name}" for a in node.names] if node.module == "agents" else []
      )
    else:
      continue
    for name in names:
      if name.split(".")[0] in ("mjx_envs", "agents", "benchmarks", "train", "configs", "tests"):
        yield node.lineno, name


def _sources():
  for package in ("mjx_envs", "agents"):
    for path in sorted((ROOT / package).rglob("*.py")):
      module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
      yield path, module.removesuffix(".__init__")


def test_every_part_has_a_rule():
  parts = {_part(m) for _, m in _sources()}
  assert parts <= set(ALLOWED), f"parts without a layering rule: {sorted(parts - set(ALLOWED))}"


@pytest.mark.parametrize("part", sorted(ALLOWED))
def test_lower_layers_never_import_upper_ones(part):
  bad = []
  for path, module in _sources():
    if _part(module) != part:
      continue
    for line, name in _project_imports(path):
      target = _part(name)
      if target == part or name == "agents":  # the package itself: lazy, imports nothing
        continue
      if target not in ALLOWED[part]:
        bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
  assert not bad, f"{part} may import only {sorted(ALLOWED[part])}:\n" + "\n".join(bad)


def test_agents_top_level_stays_small():
  """The package lists its roles, not its files: at most ten modules beside the subpackages."""
  modules = [p.name for p in (ROOT / "agents").glob("*.py")]
  assert len(modules) <= 10, sorted(modules)
