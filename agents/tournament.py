"""A self-play run's checkpoints played against each other: TrueSkill ratings against fixed references,
Bob's payoff matrix, and Bob's holdout suite on a checkpoint; for a hide-and-seek run, the ratings of its
hiders and seekers across the arms race.

  python -m agents.tournament ratings RUN_DIR             # -> RUN_DIR/ratings.json, RUN_DIR/ratings.png
                                                          # (agent.algo 'asp' or 'mappo')
  python -m agents.tournament ratings RUN_DIR --references 6 --games-per-pair 256 --checkpoints 10 20 --seed 1
  python -m agents.tournament ratings RUN_DIR --reference-run OTHER_RUN_DIR
  python -m agents.tournament payoff RUN_DIR              # Bob success of every Bob checkpoint (columns)
                                                          # against every Alice checkpoint (rows)
                                                          # -> RUN_DIR/payoff.png/.json
  python -m agents.tournament payoff RUN_DIR --holdout    # Bob's holdout suite on the latest checkpoint
  python -m agents.tournament payoff RUN_DIR --holdout --tasks push-1 flip-1 push-2 --checkpoints 10 40
                                                          # a holdout table: every task on every named
                                                          # checkpoint -> RUN_DIR/holdout.json

Ratings. Who plays whom. A game is one game of the self-play env between an Alice and a Bob, played by
`AsymmetricSelfPlay.play` with no past opponents; `selfplay.game_outcomes` decides it (Alice wins when
Bob fails one of her goals, Bob wins otherwise; an unfinished or diverged game has no outcome, so there
are no draws). A Bob checkpoint is rated by its games against a fixed set of reference Alices, an Alice
checkpoint by its games against a fixed set of reference Bobs: the references are K checkpoints spread
evenly over the run (the earliest and the latest included), or over `--reference-run`'s checkpoints,
whose policies must have the same shapes and whose env must be the same. Every game is a 1-vs-1 TrueSkill
match, win or loss, between the rated checkpoint and the reference agent; Alices and Bobs share one scale.

Hide-and-seek (agent.algo='mappo'). The two sides are the hiders and the seekers: a game is one episode
of the run's env (its episode_length, agent.num_envs worlds per round) in which the hider agents act with
the policy of one checkpoint and the seeker agents with the policy of another (MAPPO shares one parameter
set across all agents, so the match runs both policies on every step and takes each agent's action from
its team's, by the env's hider flag), sampling their actions. `team_outcomes` decides it from the teams'
episode returns (each the mean over the team's present agents): the team with the higher return wins;
equal returns, or an episode that ended by diverging (or did not end), give no outcome. A hider checkpoint
is rated against a fixed set of reference seekers, a seeker checkpoint against reference hiders, exactly
as Alice and Bob above (the hiders take Alice's place: the side whose wins are counted first); the output
names the sides "hider" and "seeker" (ratings.json's "sides" lists them).

The rating logic (order independence, calibration, scales) is `agents.league.ratings`'s docstring.

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
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from agents import experiment
from agents.common.checkpoint import Checkpointer
from agents.league.ratings import (
  DEFAULT_REFERENCES,
  MAX_ROUNDS,
  compute_ratings,
  needed_pairs,
  spread,
  trueskill_env,
)
from agents.mappo.train import MAPPO
from agents.selfplay import asp as selfplay

# The two sides of each rated algorithm: (the first, whose wins `ratings` counts first (its "alice"),
# the second (its "bob")).
SIDES = {"asp": ("alice", "bob"), "mappo": ("hider", "seeker")}

# --- matches: compiled play of one Alice against one Bob (one hider team against one seeker team) -------

_MATCHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_ALGOS: dict[str, Any] = {}


def match_fn(algo):
  """The compiled match of `algo` (cached per algorithm object: compiled once, on the first call, for
  all pairs): match(pool, first, second, key) -> (the first side's wins, the second's), int32 scalars.

  Self-play (asp): first, second = Alice, Bob, over one `play` of algo.config.num_envs game slots [G] for
  unroll_length steps. alice / bob: {"policy": policy params, "obs_norm": observation statistics} of any
  checkpoint; pool: any train state's pool of the same shapes (`play` looks its past opponents up even
  when, as here, no slot uses one). Hide-and-seek (mappo): first, second = the hiders', the seekers'
  {"policy", "obs_norm"}; `mappo_match`; pool is unused (None)."""
  if algo not in _MATCHES and isinstance(algo, MAPPO):
    _MATCHES[algo] = jax.jit(mappo_match(algo))
  if algo not in _MATCHES:

    def match(pool, alice, bob, key):
      # Only the policies and their statistics play; the optimiser state is not needed.
      agents = {
        a: selfplay.AgentState({"policy": p["policy"]}, None, p["obs_norm"])
        for a, p in (("alice", alice), ("bob", bob))
      }
      ts = selfplay.TrainState(agents, pool, key, jnp.zeros((), jnp.int32))
      traj, _ = algo.play(ts, key, algo.no_past_opponents())
      alice_wins, bob_wins = selfplay.game_outcomes(traj)  # [G] each
      return jnp.sum(alice_wins).astype(jnp.int32), jnp.sum(bob_wins).astype(jnp.int32)

    _MATCHES[algo] = jax.jit(match)
  return _MATCHES[algo]


def team_outcomes(hider_return, seeker_return, decided=None):
  """The outcome rule of a hide-and-seek game: (hiders won, seekers won), boolean arrays of the returns'
  shape. The team with the higher episode return wins; equal returns, or a game not `decided` (it
  diverged or did not end), give neither (no draws: such a game is no game)."""
  h, s = jnp.asarray(hider_return), jnp.asarray(seeker_return)
  ok = jnp.ones(h.shape, bool) if decided is None else jnp.asarray(decided, bool)
  return (h > s) & ok, (s > h) & ok


def mappo_match(algo: MAPPO):
  """match(pool, hiders, seekers, key) -> (hider wins, seeker wins), int32 scalars, over one episode of
  algo.config.num_envs fresh worlds (`MAPPO.play_episodes`): every agent samples its action from its
  team's policy (hiders / seekers: {"policy": policy params, "obs_norm"} of any checkpoint; both networks
  run for every agent, each agent keeps its team's action and LSTM state); `team_outcomes` on the teams'
  returns decides each world's game. Not jitted (`match_fn` compiles and caches it)."""
  A = algo.num_agents
  hider = algo.hider > 0.5  # [A]

  def pick(h, s):  # leaves [n, A, ...]: each agent's from its team's
    return jnp.where(hider.reshape((A,) + (1,) * (h.ndim - 2)), h, s)

  def match(pool, hiders, seekers, key):
    del pool
    act_h = algo.policy({"policy": hiders["policy"]}, hiders["obs_norm"], deterministic=False)
    act_s = algo.policy({"policy": seekers["policy"]}, seekers["obs_norm"], deterministic=False)

    def act(obs, k, carry):
      # The same key for both: each agent's sample uses the noise it would in a game of one policy.
      (a_h, c_h), (a_s, c_s) = act_h(obs, k, carry), act_s(obs, k, carry)
      return jax.tree.map(pick, a_h, a_s), jax.tree.map(pick, c_h, c_s)

    act.initial_carry = act_h.initial_carry
    acc, finished = algo.play_episodes(
      act, key, algo.config.num_envs, ("hider_return", "seeker_return", "diverged")
    )
    hider_wins, seeker_wins = team_outcomes(
      acc["hider_return"], acc["seeker_return"], finished & (acc["diverged"] <= 0)
    )
    return jnp.sum(hider_wins).astype(jnp.int32), jnp.sum(seeker_wins).astype(jnp.int32)

  return match


def play_pair(algo, pool, alice, bob, seed: int = 0, games: int | None = None) -> tuple[int, int]:
  """(Alice's wins, Bob's wins) of one pair (hide-and-seek: alice, bob = the hiders, the seekers): rounds
  of `match`, round r with key fold_in(PRNGKey(seed), r), until at least `games` games are decided (None:
  one round), at most MAX_ROUNDS rounds."""
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


def _read_config(run_dir, algos=tuple(SIDES)):
  cfg = experiment.run_config(run_dir)
  if cfg["agent"]["algo"] not in algos:
    raise ValueError(
      f"{run_dir} is not a self-play run (agent.algo={cfg['agent']['algo']!r}); this needs agent.algo "
      + " or ".join(repr(a) for a in algos)
    )
  return cfg


def algo_for(cfg):
  """The self-play (or hide-and-seek) algorithm of a resolved config, cached by its env and agent sections
  (what a match depends on), so that repeated ratings of a run reuse it and its compiled match."""
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


def _players(algo, state):
  """A train state's players, {side: {"policy", "obs_norm"}}, and the pool a match needs (asp's; None)."""
  if isinstance(algo, MAPPO):  # one parameter set for both teams
    p = {"policy": state.params["policy"], "obs_norm": state.obs_norm}
    return dict.fromkeys(SIDES["mappo"], p), None
  players = {
    a: {"policy": state.agents[a].params["policy"], "obs_norm": state.agents[a].obs_norm}
    for a in selfplay.AGENTS
  }
  return players, state.pool


def load_players(algo, run_dir, steps):
  """{step: ({side: {"policy", "obs_norm"}}, pool, meta)} of the given checkpoints of a run, restored onto
  `algo`'s train state (sides: SIDES[agent.algo]; a hide-and-seek run's pool is None)."""
  cfg = _read_config(run_dir)
  out = {}
  # A checkpoint from before a surgery comes back migrated into the run's current architecture.
  for s, (state, meta) in experiment.restore_checkpoints(run_dir, cfg, algo, steps).items():
    players, pool = _players(algo, state)
    out[s] = (players, pool, meta)
  return out


def _player_shapes(algo):
  tree, _ = _players(algo, jax.eval_shape(algo.init, jax.random.PRNGKey(0)))
  return jax.tree.structure(tree), [(x.shape, x.dtype) for x in jax.tree.leaves(tree)]


def rate_run(
  run_dir: str,
  reference_run: str | None = None,
  references: int = DEFAULT_REFERENCES,
  games_per_pair: int | None = None,
  checkpoints: Sequence[int] | None = None,
  seed: int = 0,
  write: bool = True,
  algo=None,
) -> dict[str, Any]:
  """TrueSkill ratings of a self-play or hide-and-seek run's checkpoints (see the module docstring).

  run_dir: a train.py run directory of agent.algo='asp' or 'mappo'. reference_run: where the `references`
  reference checkpoints come from (default run_dir), spread evenly over its checkpoints. games_per_pair:
  at least this many decided games per (Alice, Bob) pair (None: one `play`, algo.config.num_envs slots;
  hide-and-seek: one episode of algo.config.num_envs worlds). checkpoints: the steps to rate (default
  all). write: also write RUN_DIR/ratings.json and ratings.png.
  algo: the run's algorithm if the caller has it (train.py), else built from config.json (cached).

  -> the ratings.json dict: {"run_dir", "reference_run", "seed", "games_per_pair", "num_envs", "sides",
  "trueskill", "references": {"run", "steps", "env_steps", "alice": [..], "bob": [..]} (one {"step",
  "env_steps", "mu", "sigma"} per reference), "checkpoints": [{"step", "env_steps", "bob": entry, "alice":
  entry}, sorted by step]} with entries as in `compute_ratings` (a "vs" item's "reference" is the
  reference's step). "sides" names the two sides, SIDES[agent.algo]: ["alice", "bob"], or for
  hide-and-seek ["hider", "seeker"], the keys that then stand for "alice" and "bob".
  Raises FileNotFoundError (no config.json, no checkpoints), ValueError (not self-play or hide-and-seek, an
  unknown checkpoint step, references of another algorithm, other shapes or another env, references < 1).
  """
  cfg = _read_config(run_dir)
  first, second = sides = SIDES[cfg["agent"]["algo"]]
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
    if ref_cfg["agent"]["algo"] != cfg["agent"]["algo"]:
      raise ValueError(
        f"--reference-run {ref_dir} is an agent.algo={ref_cfg['agent']['algo']!r} run, {run_dir} an "
        f"agent.algo={cfg['agent']['algo']!r} one"
      )
    if ref_cfg["env"] != cfg["env"]:
      raise ValueError(
        f"--reference-run {ref_dir} plays another env ({ref_cfg['env']}) than {run_dir} ({cfg['env']})"
      )
    ref_algo = algo_for(ref_cfg)
    if _player_shapes(ref_algo) != _player_shapes(algo):
      raise ValueError(
        f"--reference-run {ref_dir}: its policies have other shapes than {run_dir}'s (agent."
        f"hidden / the entity net's sizes, agent.lstm_size and the env must match)"
      )
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
    outcomes[(a, b)] = play_pair(
      algo, pool, players[a][0][first], players[b][0][second], seed, games_per_pair
    )
  env = trueskill_env()
  res = compute_ratings(outcomes, ref_ids, ref_ids, sorted(rated), env)

  env_steps = lambda pid: int(players[pid][2].get("env_steps", -1))
  entry = lambda e: {**e, "vs": [{**v, "reference": v["reference"][1]} for v in e["vs"]]}
  out = {
    "run_dir": os.path.abspath(run_dir),
    "reference_run": os.path.abspath(ref_dir),
    "seed": seed,
    "games_per_pair": games_per_pair,
    "num_envs": algo.config.num_envs,
    "sides": list(sides),
    "trueskill": {
      "mu": env.mu,
      "sigma": env.sigma,
      "beta": env.beta,
      "tau": env.tau,
      "draw_probability": env.draw_probability,
    },
    "references": {
      "run": os.path.abspath(ref_dir),
      "steps": [i[1] for i in ref_ids],
      "env_steps": [env_steps(i) for i in ref_ids],
      **{
        side: [
          {"step": i[1], "env_steps": env_steps(i), "mu": r.mu, "sigma": r.sigma}
          for i, r in sorted(res["references"][role].items())
        ]
        for side, role in ((first, "alice"), (second, "bob"))
      },
    },
    "checkpoints": [
      {"step": pid[1], "env_steps": env_steps(pid), second: entry(e["bob"]), first: entry(e["alice"])}
      for pid, e in sorted(res["checkpoints"].items())
    ],
  }
  if write:
    with open(os.path.join(run_dir, "ratings.json"), "w") as f:
      json.dump(out, f, indent=1)
    plot_ratings(out, os.path.join(run_dir, "ratings.png"))
  return out


# --- output ---------------------------------------------------------------------------------------------


def plot_ratings(ratings, path):
  """Rating mu with a +-sigma band against training env steps, one line for Bob, one for Alice (the
  seekers and the hiders)."""
  # A bare Figure: no pyplot, so the caller's backend (a notebook's inline one) is left alone.
  from matplotlib.figure import Figure  # pylint: disable=import-outside-toplevel

  rows = ratings["checkpoints"]
  x = [r["env_steps"] for r in rows]
  fig = Figure(figsize=(6, 3.5))
  ax = fig.subplots()
  first, second = ratings.get("sides", SIDES["asp"])
  for side, color in ((second, "C0"), (first, "C1")):
    mu = np.array([r[side]["mu"] for r in rows])
    sigma = np.array([r[side]["sigma"] for r in rows])
    ax.plot(x, mu, marker=".", color=color, label=side.capitalize())
    ax.fill_between(x, mu - sigma, mu + sigma, color=color, alpha=0.2)
  refs = ratings["references"]
  ref_label = (
    "references"
    if refs["run"] == ratings["run_dir"]
    else f"references: {os.path.basename(os.path.normpath(refs['run']))}"
  )
  ax.set(
    xlabel="env steps",
    ylabel="TrueSkill mu (+-sigma)",
    title=f"{os.path.basename(os.path.normpath(ratings['run_dir']))}: TrueSkill "
    f"({len(refs['steps'])} {ref_label})",
  )
  ax.legend(fontsize=8)
  fig.tight_layout()
  fig.savefig(path, dpi=100)


def format_table(ratings) -> str:
  """One line per checkpoint: its env steps, and for Bob and Alice (the seekers and the hiders) mu +- sigma,
  mu - 3 sigma, games and win rate against the references."""
  wr = lambda e: "  -  " if e["win_rate"] is None else f"{e['win_rate']:.2f}"
  side = lambda e: f"{e['mu']:6.2f} +- {e['sigma']:4.2f} {e['conservative']:7.2f} {e['games']:6d} {wr(e):>5}"
  head = f"{'mu':>6} +- {'sd':>4} {'mu-3sd':>7} {'games':>6} {'win':>5}"
  first, second = ratings.get("sides", SIDES["asp"])
  w1, w2 = len(second) + 1, len(first) + 1
  lines = [f"{'step':>6} {'env_steps':>10} | {second.capitalize()} {head} | {first.capitalize()} {head}"]
  for r in ratings["checkpoints"]:
    lines.append(
      f"{r['step']:>6} {r['env_steps']:>10} | {'':{w1}}{side(r[second])} | {'':{w2}}{side(r[first])}"
    )
  return "\n".join(lines)


# --- payoff matrix -------------------------------------------------------------------------------------


def load_run(run_dir: str, with_meta: bool = False):
  """(algo, {step: TrainState}) for every checkpoint of a self-play run directory; with_meta: (algo,
  states, {step: the checkpoint's metadata, e.g. "env_steps"})."""
  cfg = _read_config(run_dir, ("asp",))
  algo = algo_for(cfg)
  # A checkpoint from before a surgery comes back migrated into the run's current architecture.
  restored = experiment.restore_checkpoints(run_dir, cfg, algo, checkpoint_steps(run_dir))
  states = {s: st for s, (st, _) in restored.items()}
  return (algo, states, {s: meta for s, (_, meta) in restored.items()}) if with_meta else (algo, states)


def bob_success(algo, alice_state, bob_state, key):
  """Bob's success rate over the goals he attempted, current Alice of one state vs Bob of another."""
  ts = alice_state.replace(agents={"alice": alice_state.agents["alice"], "bob": bob_state.agents["bob"]})
  traj, _ = algo.play(ts, key, algo.no_past_opponents())
  return jnp.sum(traj["bob_success"]) / jnp.maximum(jnp.sum(traj["bob_turn_end"]), 1.0)


def payoff_matrix(algo, states, key):
  """[alice i, bob j] -> Bob's success rate; states is a list of TrainStates."""
  play = jax.jit(lambda a, b, k: bob_success(algo, a, b, k))
  return np.array(
    [
      [float(play(a, b, jax.random.fold_in(key, i * len(states) + j))) for j, b in enumerate(states)]
      for i, a in enumerate(states)
    ]
  )


def plot_payoff(matrix, steps, path):
  # A bare Figure: no pyplot, so the caller's backend (a notebook's inline one) is left alone.
  from matplotlib.figure import Figure  # pylint: disable=import-outside-toplevel

  fig = Figure(figsize=(5, 4))
  ax = fig.subplots()
  im = ax.imshow(matrix, vmin=0, vmax=1, cmap="viridis", origin="lower")
  ax.set(
    xticks=range(len(steps)),
    yticks=range(len(steps)),
    xticklabels=steps,
    yticklabels=steps,
    xlabel="Bob checkpoint",
    ylabel="Alice checkpoint",
    title="Bob success rate",
  )
  fig.colorbar(im)
  fig.tight_layout()
  fig.savefig(path, dpi=100)


def _ratings_main(argv):
  p = argparse.ArgumentParser(
    prog="python -m agents.tournament ratings",
    description="TrueSkill ratings of a self-play (or hide-and-seek) run's checkpoints against fixed "
    "references.",
  )
  p.add_argument("run_dir")
  p.add_argument(
    "--reference-run",
    metavar="DIR",
    default=None,
    help="take the reference agents from this run's checkpoints (default: RUN_DIR's)",
  )
  p.add_argument(
    "--references",
    type=int,
    default=DEFAULT_REFERENCES,
    metavar="K",
    help="reference checkpoints, spread evenly over the reference run (default %(default)s)",
  )
  p.add_argument(
    "--games-per-pair",
    type=int,
    default=None,
    metavar="N",
    help="at least N decided games per (Alice, Bob) or (hiders, seekers) pair (default: one play, "
    "agent.num_envs game slots or worlds)",
  )
  p.add_argument("--checkpoints", type=int, nargs="*", default=None, help="steps to rate (default: all)")
  p.add_argument("--seed", type=int, default=0)
  args = p.parse_args(argv)
  try:
    out = rate_run(
      args.run_dir, args.reference_run, args.references, args.games_per_pair, args.checkpoints, args.seed
    )
  except (FileNotFoundError, ValueError) as e:
    raise SystemExit(f"error: {e}") from None
  print(format_table(out))
  print(
    f"references ({out['references']['run']}): steps {out['references']['steps']}; wrote "
    f"{os.path.join(args.run_dir, 'ratings.json')} and ratings.png"
  )
  return 0


def holdout_table(
  algo, states, tasks=None, episodes=None, max_goals=None, key=None, table_portion=None, steps_per_object=None
):
  """Bob's zero-shot holdout suite (`AsymmetricSelfPlay.evaluate` with its overrides: `tasks`, `episodes`
  per task, up to `max_goals` goals per episode, `table_portion`, a goal's budget `steps_per_object`) on
  each of `states` ({step: TrainState}). Every checkpoint meets the same episodes (one key); one compile
  serves them all.
  Returns {step: {"holdout/TASK-N": rate, ..., "eval/success_rate": their mean, "eval/return": ...}}."""
  key = jax.random.PRNGKey(0) if key is None else key
  suite = dict(
    tasks=tasks, max_goals=max_goals, table_portion=table_portion, steps_per_object=steps_per_object
  )
  algo.evaluation_parts(episodes, **suite)  # a bad task name or world fails here, before the compile
  run = jax.jit(lambda params, obs_norm, k: algo.evaluate(params, obs_norm, k, episodes, **suite))
  return {s: {k: float(v) for k, v in run(st.params, st.obs_norm, key).items()} for s, st in states.items()}


def _payoff_main(argv):
  p = argparse.ArgumentParser(
    prog="python -m agents.tournament payoff",
    description="Bob's payoff matrix over a self-play run's checkpoints, or his holdout suite on the latest.",
  )
  p.add_argument("run_dir")
  p.add_argument("--holdout", action="store_true", help="run Bob's holdout suite on the latest checkpoint")
  p.add_argument("--episodes", type=int, default=None, help="holdout episodes per task")
  p.add_argument(
    "--tasks", nargs="+", default=None, help="holdout tasks, e.g. push-1 flip-2 (default: the run's)"
  )
  p.add_argument("--max-goals", type=int, default=None, help="goals per holdout episode (default: the run's)")
  p.add_argument(
    "--table-portion", type=float, default=None, help="holdout table portion (default: the run's)"
  )
  p.add_argument(
    "--steps-per-object",
    type=int,
    default=None,
    help="a holdout goal's budget in steps per block (default: the run's bob_steps_per_object)",
  )
  p.add_argument("--out", default=None, help="the holdout table's JSON (default RUN_DIR/holdout.json)")
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--checkpoints", type=int, nargs="*", default=None, help="steps to use (default: all)")
  args = p.parse_args(argv)
  try:
    algo, states, meta = load_run(args.run_dir, with_meta=True)
  except (FileNotFoundError, ValueError) as e:
    raise SystemExit(f"error: {e}") from None
  steps = sorted(states) if args.checkpoints is None else sorted(args.checkpoints)
  missing = sorted(set(steps) - set(states))
  if missing:
    raise SystemExit(f"no checkpoint(s) {missing} in {args.run_dir}; available: {sorted(states)}")
  key = jax.random.PRNGKey(args.seed)
  table_args = (args.tasks, args.max_goals, args.table_portion, args.steps_per_object, args.out)
  if any(a is not None for a in table_args) and not args.holdout:
    raise SystemExit(
      "error: --tasks, --max-goals, --table-portion, --steps-per-object and --out go with --holdout"
    )
  if args.holdout:
    # Without --checkpoints: the latest only. With them: a table, one row per checkpoint.
    rows = [steps[-1]] if args.checkpoints is None else steps
    try:
      table = holdout_table(
        algo,
        {s: states[s] for s in rows},
        args.tasks,
        args.episodes,
        args.max_goals,
        key,
        args.table_portion,
        args.steps_per_object,
      )
    except ValueError as e:  # a bad task name, or a world with too few placement cells
      raise SystemExit(f"error: {e}") from None
    if all(a is None for a in table_args) and args.checkpoints is None:
      print(json.dumps({"checkpoint": rows[-1], **table[rows[-1]]}, indent=1))
      return 0
    out = {
      "tasks": list(args.tasks or algo.config.holdout_tasks),
      "episodes_per_task": int(args.episodes or algo.config.num_eval_envs),
      "max_goals": int(args.max_goals or algo.config.holdout_max_goals),
      "table_portion": float(args.table_portion or algo.holdout_world["table_portion"]),
      "steps_per_object": int(args.steps_per_object or algo.raw_env.config["bob_steps_per_object"]),
      "seed": args.seed,
      "checkpoints": {str(s): {"env_steps": int(meta[s].get("env_steps", -1)), **table[s]} for s in rows},
    }
    with open(args.out or os.path.join(args.run_dir, "holdout.json"), "w") as f:
      json.dump(out, f, indent=1)
    print(json.dumps(out, indent=1))
    return 0
  matrix = payoff_matrix(algo, [states[s] for s in steps], key)
  with open(os.path.join(args.run_dir, "payoff.json"), "w") as f:
    json.dump({"checkpoints": steps, "bob_success": matrix.tolist()}, f)
  plot_payoff(matrix, steps, os.path.join(args.run_dir, "payoff.png"))
  print(np.array2string(matrix, precision=2))
  return 0


COMMANDS = {"ratings": _ratings_main, "payoff": _payoff_main}


def main(argv=None):
  """`python -m agents.tournament {ratings,payoff} RUN_DIR ...`; returns the exit status."""
  argv = sys.argv[1:] if argv is None else list(argv)
  if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
    print(__doc__)
    if argv and argv[0] not in ("-h", "--help"):
      raise SystemExit(f"error: unknown command {argv[0]!r}; one of {sorted(COMMANDS)}")
    return 0 if argv else 2
  return COMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
  sys.exit(main())
