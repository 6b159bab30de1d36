"""The README's and BENCHMARKS.md's links resolve: every `#anchor` names a heading, every relative path exists.

BENCHMARKS.md is a summary table of links into ~200 sections whose titles carry figures and dates; a
title edited to a new figure silently breaks the links to it (two were found broken by eye on
2026-12-02). GitHub's anchor rule: the heading's text without its markdown, lower-cased, every
character that is not a letter, mark, number, underscore, space or hyphen dropped, spaces made hyphens,
and a repeated anchor given -1, -2, ...
"""

from __future__ import annotations

import os
import re
import unicodedata

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ("README.md", "BENCHMARKS.md")
LINK = re.compile(r"\]\(([^)\s]+)\)")  # [text](target): the target up to ')' or a space


def slug(title: str) -> str:
  """GitHub's anchor for a heading's text."""
  text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link in a heading keeps its text
  text = text.replace("`", "").replace("*", "").strip().lower()
  kept = (c for c in text if c in " -_" or unicodedata.category(c)[0] in "LMN")
  return "".join(kept).replace(" ", "-")


def outside_fences(markdown: str) -> list[str]:
  """The lines outside fenced code blocks (a `# comment` in a bash block is no heading, its text no link)."""
  keep, fenced = [], False
  for line in markdown.splitlines():
    if line.lstrip().startswith("```"):
      fenced = not fenced
    elif not fenced:
      keep.append(line)
  return keep


def anchors(markdown: str) -> set[str]:
  """Every heading's anchor."""
  seen: dict[str, int] = {}
  out = set()
  for line in outside_fences(markdown):
    m = re.match(r"#{1,6}\s+(.*)", line)
    if not m:
      continue
    base = slug(m.group(1))
    n = seen.get(base, 0)
    seen[base] = n + 1
    out.add(base if n == 0 else f"{base}-{n}")
  return out


def links(markdown: str) -> list[str]:
  """The link targets."""
  return LINK.findall("\n".join(outside_fences(markdown)))


def test_slug_follows_githubs_rule():
  assert slug("MT10: a fourth seed (2026-11-27, 21:14-23:25 UTC, the free hand)") == (
    "mt10-a-fourth-seed-2026-11-27-2114-2325-utc-the-free-hand"
  )
  assert slug("RL² on `ML45`: **0.019**") == "rl²-on-ml45-0019"
  assert anchors("# A\n```\n# A\n```\n## A\n") == {"a", "a-1"}


@pytest.mark.parametrize("doc", DOCS)
def test_links_resolve(doc):
  with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
    text = f.read()
  own = anchors(text)
  broken = []
  for target in links(text):
    if re.match(r"[a-z]+:", target):  # http(s), mailto: not checked offline
      continue
    path, _, anchor = target.partition("#")
    if path:
      full = os.path.join(ROOT, os.path.dirname(doc), path)
      if not os.path.exists(full):
        broken.append(target)
      elif anchor and path.endswith(".md"):
        with open(full, encoding="utf-8") as f:
          if anchor not in anchors(f.read()):
            broken.append(target)
    elif anchor not in own:
      broken.append(target)
  assert not broken, f"{doc}: {len(broken)} broken links: {broken}"
