"""Hide-and-seek training figures: the random-policy level of each team's reward, the training
throughput of a config, and a summary of a run directory's emergence.

  python benchmarks/hns_training.py baseline [--episodes 256] [--config hns_full_cpu]  # random teams' level
  python benchmarks/hns_training.py throughput [--config hns_quadrant_cpu] [--set k=v ...] [--chunks 3]
  python benchmarks/hns_training.py summary RUN_DIR                   # phases seen in metrics.jsonl
  python benchmarks/hns_training.py compare NAME=RUN_DIR NAME=RUN_DIR [--every 512000] [--json OUT]

`baseline` plays whole episodes of the config's game (default the quadrant) (a) with uniformly random
actions for every agent, and (b) with the config's untrained policy (agents.mappo.train's evaluation), and
prints each team's mean episode return (the mean over the team's agents present in the episode): the
level the seekers' reward must rise above. `throughput` times compiled train chunks (train_many of
run.eval_every updates) after a warm-up chunk: world steps/s and agent steps/s (world steps x agents).
`summary` smooths the evaluation returns (window 5) and reports the first, peak and last levels.
`compare` puts runs side by side at equal world steps (e.g. with and without `agent.past_opponent_prob`):
each run's 5-evaluation means at every `--every` world steps (both teams' training returns, the hidden
fraction, box moves and locks in preparation), the phase timing (the world steps at which the seekers'
5-evaluation mean training return first reaches -25, -20 and -15; random play: about -34) and the
hiders' largest recovery (the largest fall of that mean from a peak to a later trough, beside the spread
of the five evaluations there).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mjx_envs import wrappers

import jax
import jax.numpy as jnp
import numpy as np

import train
from agents import experiment
from agents.mappo import train as mappo
from benchmarks import plots


def _cfg(name, sets=()):
  cfg = experiment.resolve(train.load_config(name))
  return experiment.set_dotted(cfg, *sets) if sets else cfg


def baseline(episodes: int, seed: int = 0, name: str = "hns_quadrant_cpu"):
  cfg = _cfg(name)
  env, algo = experiment.build(cfg)
  batched = wrappers.Batch(wrappers.EpisodeStats(wrappers.EpisodeLimit(env, env.episode_length)), episodes)

  @jax.jit
  def random_play(key):
    k0, k1 = jax.random.split(key)
    state = batched.reset(k0)
    # The episode's agents (the full game draws 1-3 a team): a team's return is its present agents' mean,
    # as mappo's metrics take it. From the reset, as the last step's auto-reset starts a new episode.
    on = state.info["agent_on"] > 0  # [E, A]

    def body(state, k):
      action = jax.vmap(env.random_action)(jax.random.split(k, episodes))
      return batched.step(state, action), None

    state, _ = jax.lax.scan(body, state, jax.random.split(k1, env.episode_length))
    ret = state.metrics["episode_return"]  # [E, A]
    hider = np.asarray(env.hider_flag, bool)
    team_mean = lambda m: jnp.mean(jnp.sum(ret * m, -1) / jnp.maximum(jnp.sum(m, -1), 1))
    return {
      "hider_return": team_mean(on & hider),
      "seeker_return": team_mean(on & ~hider),
      "hidden_fraction": jnp.mean(state.metrics["hidden_fraction"]),
    }

  t = time.time()
  rnd = jax.device_get(random_play(jax.random.PRNGKey(seed)))
  ts = jax.jit(algo.init)(jax.random.PRNGKey(seed))
  init = jax.device_get(
    jax.jit(lambda p, k: algo.evaluate(p, None, k, episodes))(ts.params, jax.random.PRNGKey(seed + 1))
  )
  out = {
    "config": name,
    "episodes": episodes,
    "uniform_random": {k: float(v) for k, v in rnd.items()},
    "untrained_policy": {
      k.split("/", 1)[1]: float(init[k])
      for k in ("eval/hider_return", "eval/seeker_return", "eval/hidden_fraction")
    },
    "seconds": round(time.time() - t, 1),
  }
  print(json.dumps(out, indent=1))
  return out


def throughput(name: str, sets, chunks: int):
  cfg = _cfg(name, sets)
  _, algo = experiment.build(cfg)
  n = cfg["run"]["eval_every"]
  ts = jax.jit(algo.init)(jax.random.PRNGKey(0))
  t = time.time()
  step = jax.jit(lambda s: algo.train_many(s, n), donate_argnums=0).lower(ts).compile()
  compile_s = time.time() - t
  ts, m = step(ts)
  jax.block_until_ready(m)
  times = []
  for _ in range(chunks):
    t = time.time()
    ts, m = step(ts)
    jax.block_until_ready(m)
    times.append(time.time() - t)
  world = n * algo.config.steps_per_update / np.median(times)
  out = {
    "config": name,
    "sets": list(sets),
    "device": str(jax.devices()[0]),
    "compile_s": round(compile_s, 1),
    "updates_per_chunk": n,
    "chunk_s": [round(x, 2) for x in times],
    "world_steps_per_s": round(world, 1),
    "agent_steps_per_s": round(world * algo.num_agents, 1),
  }
  print(json.dumps(out))
  return out


def summary(run_dir: str, window: int = 5):
  rows = [json.loads(l) for l in open(os.path.join(run_dir, "metrics.jsonl"))]
  steps = np.array([r["env_steps"] for r in rows])
  out = {
    "run": run_dir,
    "evaluations": len(rows),
    "env_steps": int(steps[-1]),
    "wall_min": round(rows[-1]["wall_s"] / 60, 1),
    "episodes": int(sum(r["train/episodes"] for r in rows)),
  }
  for src in ("eval", "train"):
    seeker = np.array([r[f"{src}/seeker_return"] for r in rows])
    smooth = np.convolve(seeker, np.ones(window) / window, mode="valid")
    peak = int(np.argmax(smooth))
    out[src] = {
      "seeker_first": round(float(smooth[0]), 2),
      "seeker_peak": round(float(smooth[peak]), 2),
      "seeker_peak_at_steps": int(steps[peak + window - 1]),
      "seeker_last": round(float(smooth[-1]), 2),
      "hider_last": round(float(-smooth[-1]), 2),
    }
  for k in mappo.EMERGENCE:
    out[f"last_{k}"] = round(float(np.mean([r[f"train/{k}"] for r in rows[-window:]])), 3)
  print(json.dumps(out, indent=1))
  return out


PHASE_LEVELS = (-25.0, -20.0, -15.0)  # the seekers' training return on the way up from random (-34)


def compare(runs: dict[str, str], every: int = 512_000, window: int = 5, out: str | None = None):
  """Runs side by side at equal world steps: {name: run_dir} -> {name: {"rows": [...], "timing": {...}}}."""
  keys = ("train/seeker_return", "train/hider_return", "eval/hidden_fraction")
  keys += ("train/max_box_move_prep", "train/num_box_lock_prep")
  result = {}
  for name, run_dir in runs.items():
    rows = [json.loads(line) for line in open(os.path.join(run_dir, "metrics.jsonl")) if line.strip()]
    steps = np.array([r["env_steps"] for r in rows])
    smooth = {k: np.array(plots.trailing_mean([r[k] for r in rows], window)) for k in keys}
    marks = list(range(every, int(steps[-1]) + 1, every))
    if not marks or marks[-1] != steps[-1]:
      marks.append(int(steps[-1]))
    table = []
    for m in marks:
      i = int(np.searchsorted(steps, m, side="right")) - 1  # the last evaluation at or before m
      table.append({"world_steps": int(steps[i]), **{k: round(float(smooth[k][i]), 3) for k in keys}})
    seeker = smooth["train/seeker_return"]
    timing = {}
    for level in PHASE_LEVELS:
      hit = np.nonzero(seeker >= level)[0]
      timing[f"seekers_reach_{level:g}"] = int(steps[hit[0]]) if hit.size else None
    # The measure of the hiders' recovery: the largest fall of the seekers' 5-evaluation mean from
    # a peak to a later trough (the hiders' return rises by as much), against the spread (sd) of the five
    # training returns at the peak and at the trough.
    raw = np.array([r["train/seeker_return"] for r in rows], np.float64)
    drop = np.maximum.accumulate(seeker) - seeker
    j = int(np.argmax(drop))
    i = int(np.argmax(seeker[: j + 1]))
    spread = [float(np.std(raw[max(0, k + 1 - window) : k + 1], ddof=1)) if k > 0 else 0.0 for k in (i, j)]
    recovery = {
      "seekers_peak": round(float(seeker[i]), 2),
      "peak_at": int(steps[i]),
      "seekers_trough": round(float(seeker[j]), 2),
      "trough_at": int(steps[j]),
      "hiders_rise": round(float(drop[j]), 2),
      "spread": round(max(spread), 2),
    }
    past = [r for r in rows if "train/past_episodes" in r]
    extra = {}
    if past:  # the pool arm: how often the current team beat the past one, over the whole run
      eps = sum(r["train/past_episodes"] for r in past)
      extra["past_win_rate"] = round(sum(r["train/past_wins"] for r in past) / max(eps, 1e-9), 3)
      extra["past_episodes"] = int(round(eps))
    result[name] = {
      "run": run_dir,
      "world_steps": int(steps[-1]),
      "wall_min": round(rows[-1]["wall_s"] / 60, 1),
      "rows": table,
      "timing": timing,
      "hider_recovery": recovery,
      **extra,
    }
  print("| world steps | " + " | ".join(f"{n}: seekers / hidden / box locks prep" for n in runs) + " |")
  print("|---|" + "---|" * len(runs))
  n_rows = max(len(r["rows"]) for r in result.values())
  for j in range(n_rows):
    cells, at = [], None
    for name in runs:
      rr = result[name]["rows"]
      if j < len(rr):
        r = rr[j]
        at = at or r["world_steps"]
        cell = f"{r['train/seeker_return']:.1f} / {r['eval/hidden_fraction']:.2f} / {r['train/num_box_lock_prep']:.2f}"
        # A run's last row is at its own last evaluation, which may not be the row's mark.
        cells.append(cell if r["world_steps"] == at else f"{cell} (at {r['world_steps'] / 1e6:.2f}M)")
      else:
        cells.append("")
    print(f"| {at / 1e6:.2f}M | " + " | ".join(cells) + " |")
  for name, r in result.items():
    print(name, json.dumps(r["timing"]), json.dumps(r["hider_recovery"]))
    print(" ", {k: r[k] for k in ("world_steps", "wall_min", "past_win_rate", "past_episodes") if k in r})
  if out:
    with open(out, "w") as f:
      json.dump({"every": every, "window": window, "runs": result}, f, indent=1)
  return result


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  sub = p.add_subparsers(dest="cmd", required=True)
  b = sub.add_parser("baseline")
  b.add_argument("--episodes", type=int, default=256)
  b.add_argument("--config", default="hns_quadrant_cpu", help="hns_full_cpu: the full game's level")
  tp = sub.add_parser("throughput")
  tp.add_argument("--config", default="hns_quadrant_cpu")
  tp.add_argument("--set", action="append", default=[])
  tp.add_argument("--chunks", type=int, default=3)
  s = sub.add_parser("summary")
  s.add_argument("run_dir")
  c = sub.add_parser("compare")
  c.add_argument("runs", nargs="+", help="NAME=RUN_DIR, two or more")
  c.add_argument("--every", type=int, default=512_000, help="world steps between table rows")
  c.add_argument("--json", default=None, help="also write the comparison here")
  a = p.parse_args(argv)
  if a.cmd == "baseline":
    baseline(a.episodes, name=a.config)
  elif a.cmd == "throughput":
    throughput(a.config, a.set, a.chunks)
  elif a.cmd == "compare":
    bad = [r for r in a.runs if "=" not in r]
    if bad:
      p.error(f"compare takes NAME=RUN_DIR, got {bad}")
    compare(dict(r.split("=", 1) for r in a.runs), a.every, out=a.json)
  else:
    summary(a.run_dir)


if __name__ == "__main__":
  main()
