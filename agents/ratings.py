"""TrueSkill ratings of a self-play run's checkpoints against fixed reference agents (OpenAI Five's
practice: every checkpoint plays a fixed set of reference agents, and its TrueSkill rating is the curve
of progress).

  python -m agents.ratings RUN_DIR                       # -> RUN_DIR/ratings.json, RUN_DIR/ratings.png
  python -m agents.ratings RUN_DIR --references 6 --games-per-pair 256 --checkpoints 10 20 --seed 1
  python -m agents.ratings RUN_DIR --reference-run OTHER_RUN_DIR

Who plays whom. A game is one game of the self-play env between an Alice and a Bob, played by
`AsymmetricSelfPlay.play` with no past opponents; `selfplay.game_outcomes` decides it (Alice wins when
Bob fails one of her goals, Bob wins otherwise; an unfinished or diverged game has no outcome, so there
are no draws). A Bob checkpoint is rated by its games against a fixed set of reference Alices, an Alice
checkpoint by its games against a fixed set of reference Bobs: the references are K checkpoints spread
evenly over the run (the earliest and the latest included), or over `--reference-run`'s checkpoints,
whose policies must have the same shapes and whose env must be the same. Every game is a 1-vs-1 TrueSkill
match, win or loss, between the rated checkpoint and the reference agent; Alices and Bobs share one scale.

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

Randomness: round r of every pair uses the same key, fold_in(PRNGKey(seed), r) (common random numbers:
every pair meets the same initial states and sampling noise, which lowers the variance of comparisons
between checkpoints, and makes a pair's counts independent of when it is played).

In process: `rate_run(run_dir, ...)` (what the CLI calls) keeps the algorithm and its compiled match
function cached per config, so a training loop can call it periodically without recompiling.
"""

from __future__ import annotations

import mjx_envs  # noqa: F401  first: guards against the XLA:CPU scan stall before JAX starts

import argparse
import json
import os
import sys
import weakref
from typing import Any, Dict, Hashable, Mapping, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np
import trueskill

from agents import experiment
from agents import selfplay
from agents.checkpoint import Checkpointer

DEFAULT_REFERENCES = 4
MAX_ROUNDS = 64  # per pair, when `games_per_pair` asks for more games than the plays give


def trueskill_env() -> trueskill.TrueSkill:
  """TrueSkill's default scale (mu 25, sigma 25/3, beta 25/6, tau 25/300) with no draws: a game always
  has a winner (an undecided game is no game)."""
  return trueskill.TrueSkill(draw_probability=0.0)


# --- the rating logic (pure Python: counts in, ratings out) --------------------------------------------

def schedule(pairs: Sequence[Tuple[int, int]]):
  """The canonical order of the games of several pairs: pairs[i] = (wins, games) of the first side of
  pair i. Round robin: round r takes the r-th game of every pair that has one, in the order given, and a
  pair's wins are spread evenly over its games (its r-th game is a win when floor((r + 1) w / n) >
  floor(r w / n)), so no run of wins or losses comes first. Yields (pair index, first side won)."""
  most = max((n for _, n in pairs), default=0)
  for r in range(most):
    for i, (w, n) in enumerate(pairs):
      if r < n:
        yield i, (r + 1) * w // n > r * w // n


def calibrate(outcomes: Mapping[Tuple[Hashable, Hashable], Tuple[int, int]], alices: Sequence[Hashable],
              bobs: Sequence[Hashable], env: trueskill.TrueSkill | None = None):
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


def rate_against(counts: Sequence[Tuple[int, int]], references: Sequence[trueskill.Rating],
                 env: trueskill.TrueSkill | None = None) -> trueskill.Rating:
  """A player's rating from its games against references of fixed ratings: counts[j] = (wins, games)
  against references[j]. Starts from the prior; only the player's rating moves (rate_1vs1's update of
  the reference is dropped), in the canonical schedule."""
  env = env or trueskill_env()
  r = env.create_rating()
  for j, won in schedule(counts):
    r = (trueskill.rate_1vs1(r, references[j], env=env)[0] if won
         else trueskill.rate_1vs1(references[j], r, env=env)[1])
  return r


def compute_ratings(outcomes: Mapping[Tuple[Hashable, Hashable], Tuple[int, int]],
                    alice_refs: Sequence[Hashable], bob_refs: Sequence[Hashable],
                    checkpoints: Sequence[Hashable], env: trueskill.TrueSkill | None = None) -> Dict[str, Any]:
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
    return {"mu": r.mu, "sigma": r.sigma, "conservative": r.mu - 3 * r.sigma, "games": games, "wins": wins,
            "win_rate": _rate(wins, games), "vs": vs}

  out = {}
  for c in sorted(set(checkpoints)):
    out[c] = {"bob": entry(lambda ref, c=c: (ref, c), ref_a, 1),
              "alice": entry(lambda ref, c=c: (c, ref), ref_b, 0)}
  return {"references": {"alice": ref_a, "bob": ref_b}, "checkpoints": out}


def needed_pairs(alice_refs: Sequence[Hashable], bob_refs: Sequence[Hashable],
                 checkpoints: Sequence[Hashable]):
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


# --- matches: compiled play of one Alice against one Bob ------------------------------------------------

_MATCHES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_ALGOS: Dict[str, Any] = {}


def match_fn(algo):
  """The compiled match of `algo` (cached per algorithm object: compiled once, on the first call, for
  all pairs): match(pool, alice, bob, key) -> (Alice's wins, Bob's wins), int32 scalars, over one `play`
  of algo.config.num_envs game slots [G] for unroll_length steps. alice / bob: {"policy": policy params,
  "obs_norm": observation statistics} of any checkpoint; pool: any train state's pool of the same shapes
  (`play` looks its past opponents up even when, as here, no slot uses one)."""
  if algo not in _MATCHES:
    G = algo.config.num_envs
    no = jnp.zeros((G,), bool)
    zero = jnp.zeros((G,), jnp.int32)

    def match(pool, alice, bob, key):
      # Only the policies and their statistics play; the optimiser state is not needed.
      agents = {a: selfplay.AgentState({"policy": p["policy"]}, None, p["obs_norm"])
                for a, p in (("alice", alice), ("bob", bob))}
      ts = selfplay.TrainState(agents, pool, key, jnp.zeros((), jnp.int32))
      traj, _ = algo.play(ts, key, (no, no, zero, zero))
      alice_wins, bob_wins = selfplay.game_outcomes(traj)  # [G] each
      return jnp.sum(alice_wins).astype(jnp.int32), jnp.sum(bob_wins).astype(jnp.int32)

    _MATCHES[algo] = jax.jit(match)
  return _MATCHES[algo]


def play_pair(algo, pool, alice, bob, seed: int = 0, games: int | None = None) -> Tuple[int, int]:
  """(Alice's wins, Bob's wins) of one pair: rounds of `match`, round r with key fold_in(PRNGKey(seed),
  r), until at least `games` games are decided (None: one round), at most MAX_ROUNDS rounds."""
  match = match_fn(algo)
  base = jax.random.PRNGKey(seed)
  wa = wb = 0
  for r in range(MAX_ROUNDS):
    a, b = jax.device_get(match(pool, alice, bob, jax.random.fold_in(base, r)))
    wa, wb = wa + int(a), wb + int(b)
    if games is None or wa + wb >= games:
      break
  return wa, wb


# --- run directories ------------------------------------------------------------------------------------

def _read_config(run_dir):
  cfg = experiment.run_config(run_dir)
  if cfg["agent"]["algo"] != "asp":
    raise ValueError(f"{run_dir} is not a self-play run (agent.algo={cfg['agent']['algo']!r}); ratings need "
                     f"agent.algo='asp'")
  return cfg


def algo_for(cfg):
  """The self-play algorithm of a resolved config, cached by its env and agent sections (what `play`
  depends on), so that repeated ratings of a run reuse it and its compiled match."""
  key = json.dumps({"env": cfg["env"], "agent": cfg["agent"]}, sort_keys=True, default=str)
  if key not in _ALGOS:
    _ALGOS[key] = experiment.build(cfg)[1]
  return _ALGOS[key]


def checkpoint_steps(run_dir) -> list:
  """The steps of a run's checkpoints, sorted; FileNotFoundError if it has none."""
  path = os.path.join(run_dir, "checkpoints")
  steps = []
  if os.path.isdir(path):  # (Checkpointer would create an empty one)
    ckpt = Checkpointer(run_dir, max_to_keep=None)
    steps = sorted(int(s) for s in ckpt.manager.all_steps())
    ckpt.close()
  if not steps:
    raise FileNotFoundError(f"no checkpoints in {run_dir}")
  return steps


def load_players(algo, run_dir, steps):
  """{step: ({"alice"/"bob": {"policy", "obs_norm"}}, pool, meta)} of the given checkpoints of a run,
  restored onto `algo`'s train state."""
  cfg = _read_config(run_dir)
  out = {}
  # A checkpoint from before a surgery comes back migrated into the run's current architecture.
  for s, (state, meta) in experiment.restore_checkpoints(run_dir, cfg, algo, steps).items():
    players = {a: {"policy": state.agents[a].params["policy"], "obs_norm": state.agents[a].obs_norm}
               for a in selfplay.AGENTS}
    out[s] = (players, state.pool, meta)
  return out


def _player_shapes(algo):
  state = jax.eval_shape(algo.init, jax.random.PRNGKey(0))
  tree = {a: {"policy": state.agents[a].params["policy"], "obs_norm": state.agents[a].obs_norm}
          for a in selfplay.AGENTS}
  return jax.tree.structure(tree), [(x.shape, x.dtype) for x in jax.tree.leaves(tree)]


def rate_run(run_dir: str, reference_run: str | None = None, references: int = DEFAULT_REFERENCES,
             games_per_pair: int | None = None, checkpoints: Sequence[int] | None = None, seed: int = 0,
             write: bool = True, algo=None) -> Dict[str, Any]:
  """TrueSkill ratings of a self-play run's checkpoints (see the module docstring).

  run_dir: a train.py run directory of agent.algo='asp'. reference_run: where the `references` reference
  checkpoints come from (default run_dir), spread evenly over its checkpoints. games_per_pair: at least
  this many decided games per (Alice, Bob) pair (None: one `play`, algo.config.num_envs slots).
  checkpoints: the steps to rate (default all). write: also write RUN_DIR/ratings.json and ratings.png.
  algo: the run's algorithm if the caller has it (train.py), else built from config.json (cached).

  -> the ratings.json dict: {"run_dir", "reference_run", "seed", "games_per_pair", "trueskill",
  "references": {"run", "steps", "env_steps", "alice": [..], "bob": [..]} (one {"step", "env_steps", "mu",
  "sigma"} per reference), "checkpoints": [{"step", "env_steps", "bob": entry, "alice": entry}, sorted by
  step]} with entries as in `compute_ratings` (a "vs" item's "reference" is the reference's step).
  Raises FileNotFoundError (no config.json, no checkpoints), ValueError (not self-play, an unknown
  checkpoint step, references of other shapes or another env, references < 1).
  """
  cfg = _read_config(run_dir)
  algo = algo or algo_for(cfg)
  steps = checkpoint_steps(run_dir)
  if checkpoints is not None:
    missing = sorted(set(int(s) for s in checkpoints) - set(steps))
    if missing:
      raise ValueError(f"no checkpoint(s) {missing} in {run_dir}; available: {steps}")
    steps = sorted(set(int(s) for s in checkpoints))
  if not steps:
    raise ValueError("no checkpoints to rate (--checkpoints is empty)")
  if games_per_pair is not None and games_per_pair < 1:
    raise ValueError(f"games_per_pair must be at least 1, got {games_per_pair}")

  same = reference_run is None or os.path.abspath(reference_run) == os.path.abspath(run_dir)
  ref_dir = run_dir if same else reference_run
  if same:
    ref_algo = algo
    ref_steps = spread(checkpoint_steps(run_dir), references)
  else:
    ref_cfg = _read_config(ref_dir)
    if ref_cfg["env"] != cfg["env"]:
      raise ValueError(f"--reference-run {ref_dir} plays another env ({ref_cfg['env']}) than {run_dir} "
                       f"({cfg['env']})")
    ref_algo = algo_for(ref_cfg)
    if _player_shapes(ref_algo) != _player_shapes(algo):
      raise ValueError(f"--reference-run {ref_dir}: its policies have other shapes than {run_dir}'s (agent."
                       f"hidden, agent.lstm_size and the env must match)")
    ref_steps = spread(checkpoint_steps(ref_dir), references)

  # Player ids: (0, step) for run_dir's checkpoints, (1, step) for another run's references; a checkpoint
  # that is also a reference is one player, and its pairs are played once.
  rated = {(0, s): p for s, p in load_players(algo, run_dir, steps).items()}
  refs = {(0 if same else 1, s): p for s, p in load_players(ref_algo, ref_dir, ref_steps).items()}
  players = {**refs, **rated}
  ref_ids = sorted(refs)
  pool = players[min(rated)][1]
  outcomes = {}
  for a, b in needed_pairs(ref_ids, ref_ids, sorted(rated)):
    outcomes[(a, b)] = play_pair(algo, pool, players[a][0]["alice"], players[b][0]["bob"], seed, games_per_pair)
  env = trueskill_env()
  res = compute_ratings(outcomes, ref_ids, ref_ids, sorted(rated), env)

  env_steps = lambda pid: int(players[pid][2].get("env_steps", -1))
  entry = lambda e: {**e, "vs": [{**v, "reference": v["reference"][1]} for v in e["vs"]]}
  out = {
      "run_dir": os.path.abspath(run_dir), "reference_run": os.path.abspath(ref_dir), "seed": seed,
      "games_per_pair": games_per_pair, "num_envs": algo.config.num_envs,
      "trueskill": {"mu": env.mu, "sigma": env.sigma, "beta": env.beta, "tau": env.tau,
                    "draw_probability": env.draw_probability},
      "references": {
          "run": os.path.abspath(ref_dir), "steps": [i[1] for i in ref_ids],
          "env_steps": [env_steps(i) for i in ref_ids],
          **{side: [{"step": i[1], "env_steps": env_steps(i), "mu": r.mu, "sigma": r.sigma}
                    for i, r in sorted(res["references"][side].items())] for side in selfplay.AGENTS}},
      "checkpoints": [{"step": pid[1], "env_steps": env_steps(pid), "bob": entry(e["bob"]),
                       "alice": entry(e["alice"])} for pid, e in sorted(res["checkpoints"].items())],
  }
  if write:
    with open(os.path.join(run_dir, "ratings.json"), "w") as f:
      json.dump(out, f, indent=1)
    plot_ratings(out, os.path.join(run_dir, "ratings.png"))
  return out


# --- output ---------------------------------------------------------------------------------------------

def plot_ratings(ratings, path):
  """Rating mu with a +-sigma band against training env steps, one line for Bob, one for Alice."""
  # A bare Figure: no pyplot, so the caller's backend (a notebook's inline one) is left alone.
  from matplotlib.figure import Figure  # pylint: disable=import-outside-toplevel
  rows = ratings["checkpoints"]
  x = [r["env_steps"] for r in rows]
  fig = Figure(figsize=(6, 3.5))
  ax = fig.subplots()
  for side, color in (("bob", "C0"), ("alice", "C1")):
    mu = np.array([r[side]["mu"] for r in rows])
    sigma = np.array([r[side]["sigma"] for r in rows])
    ax.plot(x, mu, marker=".", color=color, label=side.capitalize())
    ax.fill_between(x, mu - sigma, mu + sigma, color=color, alpha=0.2)
  refs = ratings["references"]
  ref_label = ("references" if refs["run"] == ratings["run_dir"]
               else f"references: {os.path.basename(os.path.normpath(refs['run']))}")
  ax.set(xlabel="env steps", ylabel="TrueSkill mu (+-sigma)",
         title=f"{os.path.basename(os.path.normpath(ratings['run_dir']))}: TrueSkill "
               f"({len(refs['steps'])} {ref_label})")
  ax.legend(fontsize=8)
  fig.tight_layout()
  fig.savefig(path, dpi=100)


def format_table(ratings) -> str:
  """One line per checkpoint: its env steps, and for Bob and Alice mu +- sigma, mu - 3 sigma, games and
  win rate against the references."""
  wr = lambda e: "  -  " if e["win_rate"] is None else f"{e['win_rate']:.2f}"
  side = lambda e: f"{e['mu']:6.2f} +- {e['sigma']:4.2f} {e['conservative']:7.2f} {e['games']:6d} {wr(e):>5}"
  head = f"{'mu':>6} +- {'sd':>4} {'mu-3sd':>7} {'games':>6} {'win':>5}"
  lines = [f"{'step':>6} {'env_steps':>10} | Bob {head} | Alice {head}"]
  for r in ratings["checkpoints"]:
    lines.append(f"{r['step']:>6} {r['env_steps']:>10} |     {side(r['bob'])} |       {side(r['alice'])}")
  return "\n".join(lines)


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("run_dir")
  p.add_argument("--reference-run", metavar="DIR", default=None,
                 help="take the reference agents from this run's checkpoints (default: RUN_DIR's)")
  p.add_argument("--references", type=int, default=DEFAULT_REFERENCES, metavar="K",
                 help="reference checkpoints, spread evenly over the reference run (default %(default)s)")
  p.add_argument("--games-per-pair", type=int, default=None, metavar="N",
                 help="at least N decided games per (Alice, Bob) pair (default: one play, agent.num_envs "
                      "game slots)")
  p.add_argument("--checkpoints", type=int, nargs="*", default=None, help="steps to rate (default: all)")
  p.add_argument("--seed", type=int, default=0)
  args = p.parse_args(argv)
  try:
    out = rate_run(args.run_dir, args.reference_run, args.references, args.games_per_pair, args.checkpoints,
                   args.seed)
  except (FileNotFoundError, ValueError) as e:
    raise SystemExit(f"error: {e}") from None
  print(format_table(out))
  print(f"references ({out['references']['run']}): steps {out['references']['steps']}; wrote "
        f"{os.path.join(args.run_dir, 'ratings.json')} and ratings.png")
  return 0


if __name__ == "__main__":
  sys.exit(main())
