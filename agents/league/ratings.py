"""TrueSkill ratings from game counts (OpenAI Five's practice): the rating logic, pure Python, counts
in and ratings out. Playing a run's checkpoints to get the counts is `agents.tournament`'s job.

Order independence (the choice made here). TrueSkill updates one game at a time, so its result depends
on the order of the games; we fix that order instead of inheriting the one the games happened to be
played or stored in:
  1. calibration: the reference Alices and Bobs are rated together (both sides updated) from their
     K x K games, in a canonical schedule (`schedule`): round robin over the pairs in sorted order, each
     pair's wins spread evenly over its games;
  2. rating: each checkpoint starts from the default prior and is rated against the references' now
     fixed ratings (`trueskill.rate_1vs1`, keeping the checkpoint's new rating only, the reference's
     dropped), over its games in the same canonical schedule.
So each rating is a function of the win/loss counts alone: the same whatever order the checkpoints,
pairs or games are processed in, and a checkpoint's rating does not change when others are added or
removed (with the same references). Different reference sets give different, incomparable scales; in
particular the default set of a run that is still growing moves with it: pass a finished run as
`--reference-run` for a fixed scale.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import trueskill

DEFAULT_REFERENCES = 4
MAX_ROUNDS = 64  # per pair, when `games_per_pair` asks for more games than the plays give


def trueskill_env() -> trueskill.TrueSkill:
  """TrueSkill's default scale (mu 25, sigma 25/3, beta 25/6, tau 25/300) with no draws: a game always
  has a winner (an undecided game is no game)."""
  return trueskill.TrueSkill(draw_probability=0.0)


# --- the rating logic (pure Python: counts in, ratings out) --------------------------------------------


def schedule(pairs: Sequence[tuple[int, int]]):
  """The canonical order of the games of several pairs: pairs[i] = (wins, games) of the first side of
  pair i. Round robin: round r takes the r-th game of every pair that has one, in the order given, and a
  pair's wins are spread evenly over its games (its r-th game is a win when floor((r + 1) w / n) >
  floor(r w / n)), so no run of wins or losses comes first. Yields (pair index, first side won)."""
  most = max((n for _, n in pairs), default=0)
  for r in range(most):
    for i, (w, n) in enumerate(pairs):
      if r < n:
        yield i, (r + 1) * w // n > r * w // n


def calibrate(
  outcomes: Mapping[tuple[Hashable, Hashable], tuple[int, int]],
  alices: Sequence[Hashable],
  bobs: Sequence[Hashable],
  env: trueskill.TrueSkill | None = None,
):
  """Ratings of the reference agents from their games with each other, both sides updated, in the
  canonical schedule over the pairs (alice, bob) sorted by id. outcomes[(alice id, bob id)] = (Alice's
  wins, Bob's wins). -> ({alice id: Rating}, {bob id: Rating})."""
  env = env or trueskill_env()
  alices, bobs = sorted(set(alices)), sorted(set(bobs))
  pairs = [(a, b) for a in alices for b in bobs]
  ra = {a: env.create_rating() for a in alices}
  rb = {b: env.create_rating() for b in bobs}
  counts = [_counts(outcomes, p) for p in pairs]
  for i, alice_won in schedule([(wa, wa + wb) for wa, wb in counts]):
    a, b = pairs[i]
    if alice_won:
      ra[a], rb[b] = trueskill.rate_1vs1(ra[a], rb[b], env=env)
    else:
      rb[b], ra[a] = trueskill.rate_1vs1(rb[b], ra[a], env=env)
  return ra, rb


def rate_against(
  counts: Sequence[tuple[int, int]],
  references: Sequence[trueskill.Rating],
  env: trueskill.TrueSkill | None = None,
) -> trueskill.Rating:
  """A player's rating from its games against references of fixed ratings: counts[j] = (wins, games)
  against references[j]. Starts from the prior; only the player's rating moves (rate_1vs1's update of
  the reference is dropped), in the canonical schedule."""
  env = env or trueskill_env()
  r = env.create_rating()
  for j, won in schedule(counts):
    r = (
      trueskill.rate_1vs1(r, references[j], env=env)[0]
      if won
      else trueskill.rate_1vs1(references[j], r, env=env)[1]
    )
  return r


def compute_ratings(
  outcomes: Mapping[tuple[Hashable, Hashable], tuple[int, int]],
  alice_refs: Sequence[Hashable],
  bob_refs: Sequence[Hashable],
  checkpoints: Sequence[Hashable],
  env: trueskill.TrueSkill | None = None,
) -> dict[str, Any]:
  """Every checkpoint's rating as a Bob (against the reference Alices) and as an Alice (against the
  reference Bobs), from game counts: outcomes[(alice id, bob id)] = (Alice's wins, Bob's wins), for every
  pair of `needed_pairs`. Ids are any sortable hashables (a checkpoint that is also a reference has the
  same id in both roles).

  -> {"references": {"alice": {id: Rating}, "bob": {id: Rating}},
      "checkpoints": {id: {"bob": entry, "alice": entry}}}, an entry being {"mu", "sigma",
      "conservative" (mu - 3 sigma), "games", "wins", "win_rate", "vs": [{"reference", "games", "wins",
      "win_rate"} per reference, sorted by id]}; win rates are None without games.
  """
  env = env or trueskill_env()
  ref_a, ref_b = calibrate(outcomes, alice_refs, bob_refs, env)

  def entry(pair_of, refs, side):
    ids = sorted(refs)
    counts = []
    vs = []
    for ref in ids:
      wa, wb = _counts(outcomes, pair_of(ref))
      wins = (wa, wb)[side]
      counts.append((wins, wa + wb))
      vs.append({"reference": ref, "games": wa + wb, "wins": wins, "win_rate": _rate(wins, wa + wb)})
    r = rate_against(counts, [refs[i] for i in ids], env)
    games, wins = sum(n for _, n in counts), sum(w for w, _ in counts)
    return {
      "mu": r.mu,
      "sigma": r.sigma,
      "conservative": r.mu - 3 * r.sigma,
      "games": games,
      "wins": wins,
      "win_rate": _rate(wins, games),
      "vs": vs,
    }

  out = {}
  for c in sorted(set(checkpoints)):
    out[c] = {
      "bob": entry(lambda ref, c=c: (ref, c), ref_a, 1),
      "alice": entry(lambda ref, c=c: (c, ref), ref_b, 0),
    }
  return {"references": {"alice": ref_a, "bob": ref_b}, "checkpoints": out}


def needed_pairs(
  alice_refs: Sequence[Hashable], bob_refs: Sequence[Hashable], checkpoints: Sequence[Hashable]
):
  """The (alice id, bob id) pairs `compute_ratings` needs, sorted: references against each other, every
  checkpoint's Bob against the reference Alices and its Alice against the reference Bobs."""
  pairs = {(a, b) for a in alice_refs for b in bob_refs}
  for c in checkpoints:
    pairs |= {(a, c) for a in alice_refs} | {(c, b) for b in bob_refs}
  return sorted(pairs)


def spread(steps: Sequence[int], k: int):
  """k of the sorted steps spread evenly, the first and (k > 1) the last included; all if k >= len."""
  steps = sorted(steps)
  if k < 1:
    raise ValueError(f"the number of references must be at least 1, got {k}")
  if k >= len(steps):
    return steps
  return sorted({steps[int(round(i))] for i in np.linspace(0, len(steps) - 1, k)})


def _counts(outcomes, pair):
  if pair not in outcomes:
    raise KeyError(f"no game outcomes for (alice, bob) = {pair}")
  wa, wb = outcomes[pair]
  return int(wa), int(wb)


def _rate(wins, games):
  return wins / games if games else None
