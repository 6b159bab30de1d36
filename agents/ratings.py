"""`python -m agents.ratings RUN_DIR [...]`: TrueSkill ratings of a run's checkpoints against fixed
references, both sides of a self-play (Alice, Bob) or hide-and-seek (hiders, seekers) run, against training
steps -> RUN_DIR/ratings.json and RUN_DIR/ratings.png.

The command the hide-and-seek issue names; it is `python -m agents.tournament ratings` (same options:
`--references`, `--games-per-pair`, `--checkpoints`, `--reference-run`, `--seed`), whose module docstring
says who plays whom. The rating itself is `agents.league.ratings`.

  python -m agents.ratings runs/hns_quadrant_cpu --checkpoints 1 5 10 15 20
"""

from __future__ import annotations

import sys

from agents import tournament


def main(argv=None) -> int:
  """Runs `agents.tournament ratings` with `argv` (default: the command line); returns the exit status."""
  return tournament.main(["ratings", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
  sys.exit(main())
