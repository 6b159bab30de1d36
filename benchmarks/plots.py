"""The figures of BENCHMARKS.md, drawn from the raw results committed under benchmarks/results/.

  python -m benchmarks.plots                      # every figure, into benchmarks/results/plots/
  python -m benchmarks.plots --only her_fetch mt10 --out /tmp/plots

Each figure reads only committed files (metrics.jsonl of a run, the JSON summaries the benchmark scripts
write) and puts ours beside the paper's figure where the paper gives one (SPEC.md's condensed numbers):
a dashed horizontal line for a final figure, a point where the paper gives the env steps too. Nothing
here imports JAX or the project's code, so it runs in any Python with matplotlib.
"""

from __future__ import annotations

import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benchmarks", "results")
PAPER = dict(color="0.35", linestyle="--", linewidth=1.2)  # the paper's figures, on every plot alike


def _path(*parts: str) -> str:
  return os.path.join(RESULTS, *parts)


def _json(*parts: str):
  with open(_path(*parts)) as f:
    return json.load(f)


def _rows(*parts: str) -> list[dict]:
  with open(_path(*parts)) as f:
    return [json.loads(line) for line in f if line.strip()]


def _series(rows: list[dict], key: str, scale: float = 1.0) -> tuple[list[float], list[float]]:
  """(env steps in millions, values) of the rows that have `key`."""
  xs = [r["env_steps"] / 1e6 for r in rows if key in r]
  ys = [r[key] * scale for r in rows if key in r]
  return xs, ys


def _paper_line(ax, y: float, label: str) -> None:
  ax.axhline(y, **PAPER, label=label)


def _finish(fig, path: str, title: str, bottom: float = 0.0) -> None:
  """Title, lay out (keeping the lowest `bottom` of the figure free for a figure legend) and save."""
  fig.suptitle(title, fontsize=11)
  fig.tight_layout(rect=(0, bottom, 1, 1))
  fig.savefig(path, dpi=85)
  plt.close(fig)
  print(f"wrote {os.path.relpath(path, ROOT)} ({os.path.getsize(path) // 1024} KB)")


def her_fetch(out: str) -> None:
  """HER learners on the four Fetch tasks: eval success against env steps, with the HER paper's figures."""
  new = _json("her-fetch", "2026-11-24", "her_fetch.json")["runs"]
  slide = _json("her-fetch", "2026-11-24", "ddpg_slide.json")["runs"]
  old = _json("her-fetch", "2026-11-22", "her_fetch.json")["runs"]
  c_runs = _json("her-fetch", "2026-11-25", "her_fetch.json")["runs"]  # C physics; Slide's new physics
  sac_1m = _json("her-fetch", "2026-11-26", "sac_push_1m.json")["runs"]  # SAC+HER Push to 1M env steps
  # Slide, 140 minutes to 3.19M env steps
  slide_2h = _json("her-fetch", "2026-11-26", "slide_2h.json")["runs"]
  labels = {
    "pnp_ddpg": "DDPG+HER, her_fetch_pick_and_place_cpu (2026-11-25, C)",
    "slide_ddpg": "DDPG+HER, her_fetch_slide_cpu (2026-11-25, C, the strike-matched Slide)",
    "her_push_cpu_8w": "DDPG+HER, her_fetch_push_cpu (8 workers' batch)",
    "her_push_cpu": "DDPG+HER, 1 worker's ratio",
    "sac_her_fetch_push": "SAC+HER (batch 2,048)",
    "ppo_fetch_push": "PPO",
    "ppo_her_fetch_push": "PPO + hindsight",
    "ddpg_her_fetch_pick_and_place": "DDPG+HER (batch 2,048)",
    "ddpg_her_fetch_slide": "DDPG+HER (batch 2,048)",
    "ddpg_reach": "DDPG+HER, ddpg_her_fetch_reach",
    "sac_push": "SAC+HER, sac_her_fetch_push_cpu (2026-11-26, C, to 1M)",
    "slide": "DDPG+HER, her_fetch_slide_cpu (2026-11-26, C, 140 min)",
  }
  panels = {
    "FetchReach": ([r for r in old if r["env"] == "FetchReach" and r["algo"] == "ddpg_her"], 1.0, None),
    "FetchPush": ([r for r in new if r["env"] == "FetchPush"] + sac_1m, 0.99, 0.8),
    "FetchPickAndPlace": ([r for r in new + c_runs if r["env"] == "FetchPickAndPlace"], 0.9, None),
    "FetchSlide": (slide + [r for r in c_runs if r["env"] == "FetchSlide"] + slide_2h, 0.7, None),
  }
  fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
  for ax, (task, (runs, paper, paper_at)) in zip(axes.flat, panels.items()):
    for run in runs:
      xs = [p["env_steps"] / 1e6 for p in run["curve"]]
      ys = [p["success"] for p in run["curve"]]
      ax.plot(xs, ys, marker="." if len(xs) < 40 else None, label=labels[os.path.basename(run["run_dir"])])
    _paper_line(ax, paper, f"HER paper, DDPG+HER 8 workers: ~{paper}")
    if paper_at is not None:
      ax.plot([paper_at], [paper], "o", color=PAPER["color"], label=f"paper: ~{paper} at ~{paper_at}M steps")
    note = {
      "FetchReach": " (2026-11-22, Fetch's earlier physics)",
      "FetchPush": " (2026-11-24, SAC 2026-11-26)",
      "FetchSlide": " (2026-11-24 to 2026-11-26)",
    }.get(task, " (2026-11-24, 2026-11-25)")
    ax.set_title(task + note, fontsize=10)
    ax.set_xlabel("env steps (millions)")
    ax.set_ylabel("eval success rate")
    ax.set_ylim(-0.02, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="center right" if task == "FetchReach" else "upper left")
  _finish(fig, os.path.join(out, "her_fetch.png"), "HER on Fetch, 2-core CPU, one seed each")


def ppo_vs_brax(out: str) -> None:
  """Our PPO against Brax's PPO in one process: FetchReach success, and steps/s chunk by chunk."""
  base = ("ppo-vs-brax", "2026-11-22")
  reach = _json(*base, "ppo_vs_brax_fetch_reach_interleaved.json")
  stock = _json(*base, "ppo_vs_brax_fetch_reach_interleaved_stockreset.json")
  fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
  for data, who, label, style in (
    (reach, "ours", "ours", "-o"),
    (reach, "brax", "Brax PPO (fresh auto-reset)", "-s"),
    (stock, "brax", "Brax PPO (Brax's stock auto-reset)", ":^"),
  ):
    curve = data[who]["curve"]
    ax1.plot([p["env_steps"] / 1e3 for p in curve], [p["success_rate"] for p in curve], style, label=label)
  ax1.set_title("FetchReach: eval success (128 episodes, seed 0)", fontsize=10)
  ax1.set_xlabel("env steps (thousands)")
  ax1.set_ylabel("eval success rate")
  ax1.grid(alpha=0.3)
  ax1.legend(fontsize=8)
  for name, label, color in (
    ("fetch_reach_interleaved", "FetchReach #1", "C0"),
    ("fetch_reach_interleaved_rep2", "FetchReach #2", "C2"),
    ("blocks_push_interleaved", "BlocksPush", "C3"),
  ):
    data = _json(*base, f"ppo_vs_brax_{name}.json")
    for who, style in (("ours", "-o"), ("brax", "--s")):
      sps = [n / s for n, s in zip(data[who]["steps_per_chunk"], data[who]["chunk_s"])]
      ax2.plot(range(1, len(sps) + 1), sps, style, color=color, label=f"{label}, {who}")
  ax2.axvspan(0.5, 2.5, color="0.9", label="Brax compiles in chunks 1-2")
  ax2.set_title("training env steps/s per chunk (interleaved)", fontsize=10)
  ax2.set_xlabel("chunk")
  ax2.set_ylabel("env steps/s")
  ax2.grid(alpha=0.3)
  ax2.legend(fontsize=7, ncol=2)
  _finish(fig, os.path.join(out, "ppo_vs_brax.png"), "Our PPO against Brax PPO, 2-core CPU (2026-11-22)")


def selfplay(out: str) -> None:
  """The hour-long asymmetric self-play runs (asp_blocks_cpu): with ABC, without it, with an LSTM."""
  runs = {
    "with ABC": "asp_blocks_cpu_long_abc_metrics.jsonl",
    "without ABC": "asp_blocks_cpu_long_noabc_metrics.jsonl",
    "with ABC, LSTM 64": "asp_blocks_cpu_long_lstm_metrics.jsonl",
  }
  panels = (
    ("alice/valid_goal_rate", 1.0, "Alice's valid-goal rate"),
    ("bob/success_rate", 100.0, "Bob's success on Alice's goals (%)"),
    ("holdout/push-1", 1.0, "Bob's holdout push-1 success (zero-shot)"),
  )
  fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
  for label, name in runs.items():
    rows = _rows("selfplay", "2026-11-23", name)
    for ax, (key, scale, _) in zip(axes, panels):
      ax.plot(*_series(rows, key, scale), marker=".", label=label)
  for ax, (_, _, title) in zip(axes, panels):
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("env steps (millions)")
    ax.grid(alpha=0.3)
  axes[0].legend(fontsize=8)
  axes[2].text(
    0.02, 0.95, "the paper gives no CPU-scale figure", transform=axes[2].transAxes, fontsize=8, va="top"
  )
  _finish(
    fig,
    os.path.join(out, "selfplay.png"),
    "Asymmetric self-play, asp_blocks_cpu, 1.92M env steps each, 2-core CPU (2026-11-23)",
  )


def _holdout_lines(ax, table, color, label) -> None:
  """A holdout table (`agents.tournament payoff --holdout` JSON): each task's success over checkpoints."""
  steps = sorted(table["checkpoints"], key=int)
  for task, style in zip(table["tasks"], ("-o", "--s", ":^", "-.v", "-x", "--+", ":d")):
    ax.plot(
      [table["checkpoints"][c]["env_steps"] / 1e6 for c in steps],
      [table["checkpoints"][c][f"holdout/{task}"] for c in steps],
      style,
      color=color,
      label=f"{task}, {label}",
      markersize=4,
    )


_SELFPLAY_PANELS = (
  ("alice/valid_goal_rate", 1.0, "Alice's valid-goal rate"),
  ("bob/success_rate", 100.0, "Bob's success on Alice's goals (%)"),
  ("holdout/push-1", 1.0, "holdout push-1 during training (16 episodes)"),
)


def _selfplay_figure(series, path: str, title: str, smooth: bool) -> None:
  """Self-play runs side by side: `series` of ((results folder parts), color, label); three training
  curves (raw, or faint with a 10-point trailing mean when `smooth`) and each run's holdout table."""
  fig, axes = plt.subplots(1, 4, figsize=(17, 3.8))
  for where, color, label in series:
    if not os.path.exists(_path(*where, "metrics.jsonl")):
      continue
    rows = _rows(*where, "metrics.jsonl")
    for ax, (key, scale, _) in zip(axes, _SELFPLAY_PANELS):
      xs, ys = _series(rows, key, scale)
      if smooth:
        ax.plot(xs, ys, color=color, alpha=0.3, linewidth=0.8)
        ax.plot(xs, trailing_mean(ys, 10), color=color, label=label + " (10-point mean)")
      else:
        ax.plot(xs, ys, marker=".", color=color, label=label)
    if os.path.exists(_path(*where, "holdout.json")):
      _holdout_lines(axes[3], _json(*where, "holdout.json"), color, label)
  for ax, (_, _, panel) in zip(axes, _SELFPLAY_PANELS):
    ax.set_title(panel, fontsize=10)
  axes[3].set_title("holdout table on checkpoints (zero-shot)", fontsize=10)
  for ax in axes:
    ax.set_xlabel("env steps (millions)")
    ax.grid(alpha=0.3)
  axes[1].legend(fontsize=7)
  axes[3].legend(fontsize=6, ncol=2)
  _finish(fig, path, title)


def selfplay_c(out: str) -> None:
  """The two-hour asymmetric self-play runs on C physics (asp_blocks_cpu, 128 game slots, 2026-11-25),
  with and without ABC: the training curves and the zero-shot holdout table over the checkpoints."""
  _selfplay_figure(
    [
      (("selfplay", "2026-11-25", name), color, label)
      for name, color, label in (("abc", "C0", "with ABC"), ("noabc", "C1", "without ABC"))
    ],
    os.path.join(out, "selfplay_c.png"),
    "Asymmetric self-play on C physics, asp_blocks_cpu (128 game slots), 2 hours each, 2-core CPU (2026-11-25)",
    smooth=False,
  )


def selfplay_rows(out: str) -> None:
  """asp_blocks_cpu with ABC observing 1 object row (2026-11-28, ~2x the env steps per hour) beside the
  2026-11-25 ABC run (8 padded rows): the training curves and the zero-shot holdout table."""
  _selfplay_figure(
    (
      (("selfplay", "2026-11-25", "abc"), "0.6", "2026-11-25, 8 padded rows"),
      (("selfplay", "2026-11-28", "abc_rows"), "C0", "2026-11-28, 1 row"),
    ),
    os.path.join(out, "selfplay_rows.png"),
    "Asymmetric self-play with ABC, asp_blocks_cpu: 1 object row (2026-11-28) against 8 padded rows (2026-11-25)",
    smooth=True,
  )


def selfplay_budget(out: str) -> None:
  """asp_blocks_cpu with Bob's turn at the paper's 200 steps per object (2026-12-02) beside the config's 50
  (the 2026-11-28 run, the same seed): the training curves and the zero-shot holdout table, each run
  evaluated with its own turn's budget."""
  _selfplay_figure(
    (
      (("selfplay", "2026-11-28", "abc_rows"), "0.6", "Bob 50 steps (2026-11-28)"),
      (("selfplay", "2026-12-02", "bob200"), "C3", "Bob 200 steps (2026-12-02)"),
    ),
    os.path.join(out, "selfplay_budget.png"),
    "Asymmetric self-play with ABC, asp_blocks_cpu: Bob's turn 200 steps per object against 50",
    smooth=True,
  )


def selfplay_abc_rows(out: str) -> None:
  """asp_blocks_cpu without ABC (2026-12-04) beside the 2026-11-28 run with it, both on 1 object row, the
  same seed and config otherwise: the training curves and each run's zero-shot holdout table."""
  _selfplay_figure(
    (
      (("selfplay", "2026-11-28", "abc_rows"), "C0", "with ABC (2026-11-28)"),
      (("selfplay", "2026-12-04", "noabc_rows"), "C1", "without ABC (2026-12-04)"),
    ),
    os.path.join(out, "selfplay_abc_rows.png"),
    "Asymmetric self-play, asp_blocks_cpu on 1 object row: with and without ABC, 105 minutes each",
    smooth=True,
  )


def selfplay_sym_direct(out: str) -> None:
  """asp_blocks_cpu with the cube-symmetric goal rule and the direct learner's network, learning rate and
  minibatches (2026-12-04) beside each change alone (2026-11-28 symmetric rule; 2026-12-03 direct
  settings) and the config (2026-11-28): training curves and holdout tables."""
  _selfplay_figure(
    (
      (("selfplay", "2026-11-28", "abc_rows"), "0.6", "config (2026-11-28)"),
      (("selfplay", "2026-11-28", "abc_symmetric"), "C2", "symmetric rule (2026-11-28)"),
      (("selfplay", "2026-12-03", "bob_direct_settings"), "C4", "direct learner's settings (2026-12-03)"),
      (("selfplay", "2026-12-04", "sym_direct"), "C3", "both (2026-12-04)"),
    ),
    os.path.join(out, "selfplay_sym_direct.png"),
    "Asymmetric self-play with ABC, asp_blocks_cpu: the symmetric goal rule and the direct learner's settings",
    smooth=True,
  )


def league(out: str) -> None:
  """OpenAI Five's practice: TrueSkill over a self-play run, surgery against its control, staleness."""
  fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(13, 3.8))
  for name, style in (("ratings.json", "-o"), (os.path.join("surgery", "ratings.json"), "--s")):
    data = _json("league", "2026-11-24", name)
    run = "pool run" if name == "ratings.json" else "surgery run"
    xs = [c["env_steps"] / 1e6 for c in data["checkpoints"]]
    for agent, color in (("alice", "C0"), ("bob", "C3")):
      ax1.plot(xs, [c[agent]["mu"] for c in data["checkpoints"]], style, color=color, label=f"{agent}, {run}")
  ax1.set_title("TrueSkill mu against fixed references", fontsize=10)
  ax1.set_xlabel("env steps (millions)")
  ax1.grid(alpha=0.3)
  ax1.legend(fontsize=7)
  for name, label in (
    ("metrics.jsonl", "surgery at 0.96M: wider + LSTM"),
    ("control_metrics.jsonl", "control"),
  ):
    rows = _rows("league", "2026-11-24", "surgery", name)
    ax2.plot(*_series(rows, "alice/reward_per_game"), label=label)
  ax2.axvline(0.96, color="0.5", linewidth=0.8)
  ax2.set_title("Alice's reward per game", fontsize=10)
  ax2.set_xlabel("env steps (millions)")
  ax2.grid(alpha=0.3)
  ax2.legend(fontsize=8)
  runs = _json("league", "2026-11-24", "staleness.json")["runs"]
  for k in sorted({r["k"] for r in runs.values()}):
    seeds = [r for r in runs.values() if r["k"] == k]
    steps = seeds[0]["steps"]
    mean = [sum(s["success"][i] for s in seeds) / len(seeds) for i in range(len(steps))]
    ax3.plot([s / 1e3 for s in steps], mean, label=f"staleness {k}")
  ax3.set_title("ppo_fetch_reach with stale data (mean of 2 seeds)", fontsize=10)
  ax3.set_xlabel("env steps (thousands)")
  ax3.set_ylabel("eval success rate")
  ax3.grid(alpha=0.3)
  ax3.legend(fontsize=7)
  _finish(fig, os.path.join(out, "league.png"), "Ratings, surgery and staleness, 2-core CPU (2026-11-24)")


def _world_steps_axes(axes) -> None:
  """The hide-and-seek figures' panels: world steps on x, a light grid, a small legend."""
  for ax in axes:
    ax.set_xlabel("world steps (millions)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)


def hide_and_seek(out: str) -> None:
  """The hns_quadrant_cpu run: the teams' returns, hiding, and tool use in the preparation phase."""
  rows = _rows("hide-and-seek", "2026-11-24-mappo", "metrics.jsonl")
  fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(13, 3.8))
  ax1.plot(*_series(rows, "train/seeker_return"), label="seekers, training episodes")
  ax1.plot(*_series(rows, "eval/seeker_return"), ":", label="seekers, evaluation")
  ax1.axhline(-34.2, color="0.35", linestyle="--", linewidth=1.2, label="random actions (ours, -34.2)")
  ax1.set_title("seekers' episode return (hiders: the negative)", fontsize=10)
  ax2.plot(*_series(rows, "train/hidden_fraction"), label="training")
  ax2.plot(*_series(rows, "eval/hidden_fraction"), ":", label="evaluation")
  ax2.set_title("hiders hidden, fraction of seeking steps", fontsize=10)
  for key, label in (
    ("train/max_box_move_prep", "largest box move in preparation (m)"),
    ("train/num_box_lock_prep", "boxes locked at the end of preparation"),
    ("train/max_ramp_move_prep", "largest ramp move in preparation (m)"),
  ):
    ax3.plot(*_series(rows, key), label=label)
  ax3.set_title("tool use (paper: forts at ~25M episodes; here 12.6k)", fontsize=10)
  _world_steps_axes((ax1, ax2, ax3))
  _finish(
    fig,
    os.path.join(out, "hide_and_seek.png"),
    "Hide-and-seek, hns_quadrant_cpu, 126 min on a 2-core CPU (2026-11-24)",
  )


def trailing_mean(ys, window: int = 5) -> list[float]:
  """[len(ys)] trailing means over `window` points (fewer at the start); hns_training.compare smooths
  with it too."""
  return [sum(ys[max(0, i + 1 - window) : i + 1]) / (i + 1 - max(0, i + 1 - window)) for i in range(len(ys))]


def hns_pool(out: str) -> None:
  """hns_quadrant_cpu with and without past opponents (agent.past_opponent_prob), per seed."""
  base = _path("hide-and-seek", "2026-11-27-pool")
  arms = sorted(d for d in os.listdir(base) if os.path.isfile(os.path.join(base, d, "metrics.jsonl")))
  fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
  panels = (
    ("train/seeker_return", "seekers' training return (hiders: the negative)"),
    ("eval/hidden_fraction", "hiders hidden, fraction of seeking steps (evaluation)"),
    ("train/num_box_lock_prep", "boxes locked at the end of preparation"),
  )
  for arm in arms:  # "<nopool|pool>_s<seed>"
    rows = _rows("hide-and-seek", "2026-11-27-pool", arm, "metrics.jsonl")
    pool = arm.startswith("pool")
    style = dict(color="C1" if pool else "C0", linestyle="-" if arm.endswith("s0") else "--")
    for ax, (key, _) in zip(axes, panels):
      xs, ys = _series(rows, key)
      ax.plot(
        xs,
        trailing_mean(ys),
        label=("past opponents 0.2, " if pool else "current only, ") + arm[-2:],
        **style,
      )
  axes[0].axhline(-34.2, **PAPER, label="random actions (-34.2)")
  for ax, (_, title) in zip(axes, panels):
    ax.set_title(title, fontsize=10)
  _world_steps_axes(axes)
  _finish(
    fig,
    os.path.join(out, "hns_pool.png"),
    "Hide-and-seek with and without the opponent pool, hns_quadrant_cpu (5-evaluation means, 2026-11-27)",
  )


def mt10(out: str) -> None:
  """Meta-World: MT-SAC on MT10 (the mean over time, each task at the end) with the paper's MT10 figures;
  the single-task runs."""
  rows = _rows("metaworld", "2026-11-25", "mtsac_mt10_cpu", "metrics.jsonl")
  tasks = sorted(k.split("/", 2)[2] for k in rows[-1] if k.startswith("eval/success_rate/"))
  fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(14, 4.2), gridspec_kw={"width_ratios": [1.3, 1.1, 1]})
  ax1.plot(*_series(rows, "eval/success_rate"), color="k", label="MT-SAC (ours), eval, mean of the ten tasks")
  ax1.plot(*_series(rows, "train/success_rate"), color="C1", label="the same, training episodes")
  _paper_line(ax1, 0.683, "paper, MT-SAC: 68.3%")
  ax1.axhline(0.305, color="0.6", linestyle=":", linewidth=1.2, label="paper, MT-PPO: 30.5%")
  ax1.set_title("MT10, mtsac_mt10_cpu, C physics (2026-11-25)", fontsize=9)
  ax1.set_xlabel("env steps (millions; ~0.5% of the paper's budget)")
  ax1.set_ylabel("success rate")
  ax1.legend(fontsize=7, loc="upper left")
  # the five evaluations the table in BENCHMARKS.md averages (1.02M-1.10M; the run logged one more after)
  last = [r for r in rows if "eval/success_rate" in r and r["env_steps"] <= 1_100_000][-5:]
  for i, (split, color) in enumerate((("eval", "k"), ("train", "C1"))):
    vals = [sum(r.get(f"{split}/success_rate/{t}", 0.0) for r in last) / len(last) for t in tasks]
    ax2.barh([j + 0.4 * i for j in range(len(tasks))], vals, height=0.4, color=color, label=split)
  ax2.set_yticks([j + 0.2 for j in range(len(tasks))], tasks, fontsize=7)
  ax2.invert_yaxis()
  ax2.set_title("per task, mean of five evaluations, 1.02-1.10M steps", fontsize=9)
  ax2.legend(fontsize=7)
  for name, label in (
    ("ppo_reach", "PPO, reach-v3"),
    ("sac_reach", "SAC, reach-v3"),
    ("ppo_push", "PPO, push-v3"),
  ):
    ax3.plot(
      *_series(_rows("metaworld", "2026-11-24", name, "metrics.jsonl"), "eval/success_rate"),
      "-o",
      label=label,
    )
  ax3.set_title("single task, MJX-JAX (2026-11-24)", fontsize=9)
  ax3.set_xlabel("env steps (millions)")
  ax3.legend(fontsize=8)
  for ax in (ax1, ax3):
    ax.set_ylim(-0.03, 1.05)
  for ax in (ax1, ax2, ax3):
    ax.grid(alpha=0.3)
  _finish(fig, os.path.join(out, "metaworld.png"), "Meta-World on a 2-core CPU, one seed each")


def transfer_figure(result: dict, path: str) -> None:
  """The transfer suite (benchmarks/hns_transfer.py's summary dict): per RL task, the evaluation return
  and success against env steps, from scratch against fine-tuned (one line per seed), and the object
  counting probe's held-out accuracies beside chance, when the dict has them."""
  tasks = list(result["tasks"])
  counting = result.get("counting")
  cols = len(tasks) + (1 if counting else 0)
  fig, axes = plt.subplots(2, cols, figsize=(3.6 * cols, 6.2), squeeze=False)
  colors = {"scratch": "C0", "finetuned": "C3"}
  for j, task in enumerate(tasks):
    entry = result["tasks"][task]
    for arm, color in colors.items():
      for k, run in enumerate(entry[arm]):
        xs = [p["env_steps"] / 1e6 for p in run["curve"]]
        label = f"{arm} (seed {run['seed']})" if len(entry[arm]) > 1 else arm
        style = dict(
          color=color, alpha=1.0 if k == 0 else 0.6, label=label, marker="." if len(xs) < 30 else None
        )
        axes[0, j].plot(xs, [p["return"] for p in run["curve"]], **style)
        axes[1, j].plot(xs, [p["success"] for p in run["curve"]], **style)
    axes[0, j].set_title(task.removeprefix("Hns"), fontsize=10)
    axes[0, j].set_ylabel("eval return")
    axes[1, j].set_ylabel("eval success rate")
    axes[1, j].set_ylim(-0.03, 1.03)
    axes[1, j].set_title(f"paper: {entry['paper']}", fontsize=6.5, wrap=True)
    for ax in axes[:, j]:
      ax.set_xlabel("env steps (millions)")
      ax.grid(alpha=0.3)
    axes[0, j].legend(fontsize=7)
  if counting:
    ax = axes[0, -1]
    names = ("pretrained", "random")
    ax.bar(names, [counting[n]["test_acc"] for n in names], color=[colors["finetuned"], colors["scratch"]])
    ax.axhline(
      counting["chance"],
      color="0.6",
      linestyle=":",
      label=f"chance (majority class): {counting['chance']:.2f}",
    )
    ax.set_ylim(0, 1)
    ax.set_ylabel("held-out accuracy, every valid step")
    ax.set_title(f"ObjectCounting probe ({counting['test_episodes']} held-out episodes)", fontsize=9)
    ax.legend(fontsize=7)
    ax2 = axes[1, -1]
    ax2.bar(
      names, [counting[n]["test_acc_last"] for n in names], color=[colors["finetuned"], colors["scratch"]]
    )
    ax2.axhline(counting["chance"], color="0.6", linestyle=":", label="chance")
    ax2.set_ylim(0, 1)
    ax2.set_ylabel("held-out accuracy, last step")
    ax2.set_title(f"paper: {counting.get('paper', '')}", fontsize=6.5)
  _finish(fig, path, result.get("title", "Hide-and-seek transfer suite: fine-tuned against scratch"))


def transfer(out: str) -> None:
  """The hide-and-seek transfer suite run of 2026-12-03 (benchmarks/hns_transfer.py's summary)."""
  transfer_figure(
    _json("hide-and-seek", "2026-12-03-transfer", "transfer.json"), os.path.join(out, "transfer.png")
  )


def _eval_curves(ax, series, paper: float, paper_label: str, ylabel: str, loc: str) -> None:
  """Each run's eval success (faint) and its 10-evaluation trailing mean against env steps, with the
  paper's figure; series: (rows, color, label) per run."""
  for rows, color, label in series:
    xs, ys = _series(rows, "eval/success_rate")
    ax.plot(xs, ys, color=color, alpha=0.25, linewidth=0.8)
    ax.plot(xs, trailing_mean(ys, 10), color=color, label=label + " (10-evaluation mean)")
  _paper_line(ax, paper, paper_label)
  ax.set_xlabel("env steps (millions)")
  ax.set_ylabel(ylabel)
  ax.set_ylim(-0.03, 1.05)
  ax.legend(fontsize=7, loc=loc)


def _task_bars(ax, rows: list[dict], label: str, by_value: bool = False, fontsize: int = 7) -> None:
  """Each task's eval success over a run's last ten evaluations, as horizontal bars (sorted by value, or
  by name); `label` starts the title (the run's date)."""
  last = [r for r in rows if "eval/success_rate" in r][-10:]
  tasks = sorted(k.split("/", 2)[2] for k in last[-1] if k.startswith("eval/success_rate/"))
  vals = {t: sum(r[f"eval/success_rate/{t}"] for r in last) / len(last) for t in tasks}
  if by_value:
    tasks.sort(key=lambda t: -vals[t])
  ax.barh(range(len(tasks)), [vals[t] for t in tasks], color="k")
  ax.set_yticks(range(len(tasks)), tasks, fontsize=fontsize)
  ax.invert_yaxis()
  ax.set_xlim(0, 1.05)
  ax.set_title(f"{label}, per task, last ten evaluations (to {last[-1]['env_steps'] / 1e6:.2f}M)", fontsize=9)


CHECKPOINTS = "its checkpoints, 10 episodes per task"  # _checkpoint_marks' legend entry


def _checkpoint_marks(ax, *run: str, fmt: str = "rD", label: str = CHECKPOINTS) -> None:
  """A run's checkpoints evaluated on 10 episodes per task (its checkpoint_evals.json under
  benchmarks/results/RUN...), one mark (`fmt`) per evaluation seed; drawn before _eval_curves, whose
  legend then lists them."""
  marks = _json(*run, "checkpoint_evals.json")["rows"]
  ax.plot([m["env_steps"] / 1e6 for m in marks], [m["success_rate"] for m in marks], fmt, ms=5, label=label)


def _mt_figure(
  out: str,
  name: str,
  title: str,
  series,
  paper: tuple,
  ylabel: str,
  bars: tuple,
  *,
  marks: tuple = (),
  other: tuple = (),
  loc: str = "upper left",
  height: float = 4.4,
  ratios: tuple = (1.5, 1),
  by_value: bool = False,
  fontsize: int = 7,
) -> None:
  """A multi-task run's figure, `out/name.png`: on the left each run of `series` against env steps
  (_eval_curves) with the paper's figure `paper` = (y, label), a second figure `other` = (y, label) dotted,
  and the checkpoint evaluations of each run of `marks` = ((path parts under benchmarks/results/, fmt,
  label), ...); on the right the tasks of `bars` = (rows, label) (_task_bars)."""
  fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12.5, height), gridspec_kw={"width_ratios": list(ratios)})
  for run, fmt, label in marks:
    _checkpoint_marks(ax1, *run, fmt=fmt, label=label)
  if other:
    ax1.axhline(other[0], color="0.6", linestyle=":", linewidth=1.2, label=other[1])
  _eval_curves(ax1, series, paper[0], paper[1], ylabel, loc)
  _task_bars(ax2, *bars, by_value=by_value, fontsize=fontsize)
  for ax in (ax1, ax2):
    ax.grid(alpha=0.3)
  _finish(fig, os.path.join(out, f"{name}.png"), title)


def mt10_long(out: str) -> None:
  """MT-SAC on MT10 for two hours: 2026-11-27's runs (the hand with the arm's sag and the wrist's collision;
  seeds 0-3, and the multi-head variant) beside 2026-11-26's (before both) and 2026-11-28's (the arm's
  worlds), eval mean against env steps (10-evaluation trailing mean), and each task at the end of the
  2026-11-27 seed-0 run."""
  new = _rows("metaworld", "2026-11-27", "mtsac_mt10_cpu_2h", "metrics.jsonl")
  old = _rows("metaworld", "2026-11-26", "mtsac_mt10_cpu_2h", "metrics.jsonl")
  series = [
    (new, "k", "2026-11-27: sag + wrist, seed 0, beside one other run"),
    (old, "C0", "2026-11-26: before them, a crowded CPU"),
  ]
  for run, color, label in (
    ("mtsac_mt10_cpu_seed1", "C3", "2026-11-27: sag + wrist, seed 1"),
    ("mtsac_mt10_cpu_seed2", "C2", "2026-11-27: sag + wrist, seed 2"),
    ("mtsac_mt10_cpu_seed3", "C4", "2026-11-27: sag + wrist, seed 3"),
    ("mtmhsac_mt10_cpu", "C1", "2026-11-27: multi-head (one output layer per task), seed 0"),
  ):
    if os.path.exists(_path("metaworld", "2026-11-27", run, "metrics.jsonl")):
      series.append((_rows("metaworld", "2026-11-27", run, "metrics.jsonl"), color, label))
  for seed, color in ((0, "C5"), (1, "C6")):
    run = f"mtsac_mt10_cpu_arm_seed{seed}"
    if os.path.exists(_path("metaworld", "2026-11-28", run, "metrics.jsonl")):
      arm = _rows("metaworld", "2026-11-28", run, "metrics.jsonl")
      series.append((arm, color, f"2026-11-28: the reference's arm (the default world), seed {seed}"))
  _mt_figure(
    out, "mt10_long", "MT-SAC on MT10 (mtsac_mt10_cpu), C physics", series, (0.683, "paper, MT-SAC: 68.3%"),
    "eval success, mean of the ten tasks", (new, "2026-11-27"), loc="lower right", height=4.2,
  )  # fmt: skip


def mt50(out: str) -> None:
  """MT-SAC on MT50: 2026-11-28's run on the arm's worlds at MT10's update budget (batches of 256, 2 worlds
  per task) and 2026-11-29's second and third seeds of it beside the two earlier runs (batches of 1,280, 1 world per
  task: 2026-11-26 before the arm's sag and wrist, 2026-11-27 with them), eval mean against env steps, both
  seeds' checkpoints on 10 episodes per task, and each task over the 2026-11-28 run's last ten evaluations."""
  new = _rows("metaworld", "2026-11-28", "mtsac_mt50_cpu_arm_b256", "metrics.jsonl")
  series = [
    (new, "k", "2026-11-28: the arm's worlds, batch 256, 2 worlds per task"),
    (_rows("metaworld", "2026-11-29", "mtsac_mt50_cpu_arm_seed1", "metrics.jsonl"), "C2", "2026-11-29: the same, seed 1"),
    (_rows("metaworld", "2026-11-29", "mtsac_mt50_cpu_arm_seed2", "metrics.jsonl"), "C1", "2026-11-29: the same, seed 2"),
    (_rows("metaworld", "2026-11-27", "mtsac_mt50_cpu_fixed", "metrics.jsonl"), "C3", "2026-11-27: sag + wrist, batch 1,280"),
    (_rows("metaworld", "2026-11-26", "mtsac_mt50_cpu_80min", "metrics.jsonl"), "C0", "2026-11-26: before them, batch 1,280"),
  ]  # fmt: skip
  _mt_figure(
    out, "mt50", "MT-SAC on MT50 (mtsac_mt50_cpu), C physics", series,
    (0.385, "paper, MT-SAC: 38.5%"), "eval success, mean of the 50 tasks", (new, "2026-11-28"),
    marks=(
      (("metaworld", "2026-11-28", "mtsac_mt50_cpu_arm_b256"), "rD", CHECKPOINTS),  # num_envs=500
      (("metaworld", "2026-11-29", "mtsac_mt50_cpu_arm_seed1"), "gD", "seed 1's checkpoints, 10 episodes per task"),
      (("metaworld", "2026-11-29", "mtsac_mt50_cpu_arm_seed2"), "C1D", "seed 2's checkpoint, 10 episodes per task"),
    ),
    height=7.5, ratios=(1.4, 1), by_value=True, fontsize=6,
  )  # fmt: skip


def mtppo(out: str) -> None:
  """MT-PPO on MT10: 2026-11-29's run on the arm's worlds (200 worlds, 4 epochs, no entropy term; the
  same with entropy 5e-3, stopped at 2.1M env steps) beside 2026-11-26's hour
  on the free hand (40 worlds, 8 epochs, a crowded CPU), eval mean against env steps with the paper's
  MT-PPO and MT-SAC figures, its checkpoints on 10 episodes per task, and each task at the end."""
  run = ("metaworld", "2026-11-29", "mtppo_mt10_cpu_arm")
  new = _rows(*run, "metrics.jsonl")
  series = [
    (new, "k", "2026-11-29: the arm's worlds, 200 worlds x 50 steps, 4 epochs, no entropy term"),
    (_rows(*run, "ent_coef_5e-3", "metrics.jsonl"), "C3", "2026-11-29: the same with entropy 5e-3, stopped at 2.1M"),
    (_rows("metaworld", "2026-11-26", "mtppo_mt10_cpu_1h", "metrics.jsonl"), "C0", "2026-11-26: the free hand, 40 worlds, 8 epochs"),
  ]  # fmt: skip
  _mt_figure(
    out, "mtppo", "MT-PPO on MT10 (mtppo_mt10_cpu), C physics, one seed each", series,
    (0.305, "paper, MT-PPO: 30.5%"), "eval success, mean of the ten tasks", (new, "2026-11-29"),
    marks=((run, "rD", CHECKPOINTS),), other=(0.683, "paper, MT-SAC: 68.3%"),
  )  # fmt: skip


def mtppo_mt50(out: str) -> None:
  """MT-PPO on MT50: 2026-11-29's runs on the arm's worlds (mtppo_mt10_cpu's recipe: 5 worlds per task, 4
  epochs, no entropy term; the same with the std within [0.5, 1.5] as garage bounds it; and bounded with 20
  worlds per task) beside 2026-11-28's MT-SAC run on the same worlds: eval mean against env steps with the
  paper's MT-PPO and MT-SAC figures, the runs' checkpoints on 10 episodes per task, and each task over the
  20-worlds run's last ten evaluations."""
  run = ("metaworld", "2026-11-29", "mtppo_mt50_cpu_arm")
  new, std = _rows(*run, "metrics.jsonl"), _rows(*run, "std_bounds", "metrics.jsonl")
  wide = _rows(*run, "worlds_1000_std_bounds", "metrics.jsonl")
  series = [
    (new, "k", "2026-11-29: MT-PPO, the arm's worlds, 250 worlds x 50 steps, 4 epochs"),
    (std, "C3", "2026-11-29: the same, std within [0.5, 1.5]"),
    (wide, "C2", "2026-11-29: std within [0.5, 1.5], 1,000 worlds (20 per task)"),
    (_rows("metaworld", "2026-11-28", "mtsac_mt50_cpu_arm_b256", "metrics.jsonl"), "C0", "2026-11-28: MT-SAC, the same worlds"),
  ]  # fmt: skip
  _mt_figure(
    out, "mtppo_mt50", "MT-PPO on MT50 (mtppo_mt50_cpu), C physics, one seed each", series,
    (0.354, "paper, MT-PPO: 35.4%"), "eval success, mean of the 50 tasks", (wide, "2026-11-29, 1,000 worlds"),
    marks=(
      (run, "kD", "the recipe's checkpoints, 10 episodes per task"),
      ((*run, "std_bounds"), "rD", "the std-bounded run's checkpoints, 10 episodes per task"),
      ((*run, "worlds_1000_std_bounds"), "gD", "the 1,000 worlds' checkpoints, 10 episodes per task"),
    ),
    other=(0.385, "paper, MT-SAC: 38.5%"), height=7.5, ratios=(1.4, 1), by_value=True, fontsize=6,
  )  # fmt: skip


def hand_reach(out: str) -> None:
  """HandReach on the CPU: DDPG+HER (2026-11-26), SAC+HER (2026-11-27, batches of 256 and 2,048) and the
  demonstration runs (2026-11-27: cloning held, dropped or halved from 920k; ring demos only), SAC+HER with the
  ring pair read apart (2026-11-29 after 1M plain steps; 2026-12-02 from scratch, seed 1 after 352k plain, and
  seed 2 in one run, `run.changes`, with and without smaller learning rates after the change, trained on to
  1M, and each seed with the ring goals drawn 47.5% of the time in a last phase, `env.goal_kind_probs`;
  seeds 3 and 4 the whole schedule of `sac_her_hand_reach_cpu` as one command from scratch)
  eval success against env steps, and each policy's success by the finger the thumb is sent to meet
  (benchmarks/hand_reach_by_finger.py)."""
  runs = (
    (("2026-11-26", "her_hand_reach_cpu"), "by_finger_ddpg_936k.json", "C0", "DDPG+HER, batch 2,048"),
    (("2026-11-27", "sac_her_b256"), "by_finger_sac_b256_1m.json", "C3", "SAC+HER, batch 256"),
    (("2026-11-27", "sac_her_b2048"), "by_finger_sac_b2048.json", "C2", "SAC+HER, batch 2,048"),
    (("2026-11-27", "ddpg_her_demos_bc"), "by_finger_ddpg_demos_bc_920k.json", "C1", "DDPG+HER, demos + BC"),
    (("2026-11-27", "ddpg_her_demos"), "by_finger_ddpg_demos.json", "C4", "DDPG+HER, demos, no BC"),
    (
      ("2026-11-27", "ddpg_her_demos_bc200"),
      "by_finger_ddpg_demos_bc200.json",
      "C5",
      "DDPG+HER, demos + BC/10",
    ),
    (
      ("2026-11-27", "ddpg_her_demos_bc_then_none"),
      "by_finger_ddpg_demos_bc_then_none_1080k.json",
      "C7",
      "demos + BC to 920k, then none",
    ),
    (
      ("2026-11-27", "ddpg_her_demos_bc_halving"),
      "by_finger_ddpg_demos_bc_halving_1720k.json",
      "C8",
      "demos + BC to 920k, then halved every 100k",
    ),
    (("2026-11-27", "sac_her_demos_bc"), "by_finger_sac_demos_bc_568k.json", "C9", "SAC+HER, demos + BC"),
    (
      ("2026-11-27", "ddpg_her_demos_bc_successes"),
      "by_finger_ddpg_demos_bc_successes_560k.json",
      "olive",
      "DDPG+HER, successful demos + BC",
    ),
    (
      ("2026-11-27", "ddpg_her_demos_bc_original_goals"),
      "by_finger_ddpg_demos_bc_original_goals_1656k.json",
      "black",
      "DDPG+HER, demos + BC on original goals",
    ),
    (
      ("2026-11-27", "ddpg_her_ring_demos_scratch"),
      "by_finger_ddpg_ring_demos_scratch_560k.json",
      "teal",
      "DDPG+HER, ring demos + BC on original goals",
    ),
    (
      ("2026-11-27", "ddpg_her_demos_then_ring_bc"),
      "by_finger_ddpg_demos_then_ring_bc_3000k.json",
      "magenta",
      "demos to 480k, then ring demos + BC on original goals",
    ),
    (
      ("2026-11-29", "sac_her_seen_ring15"),
      "by_finger_sac_seen_ring15.json",
      "lime",
      "SAC+HER 2,048 from its 1M, ring goals read 15 mm apart",
    ),
    (
      ("2026-12-02", "sac_her_seen_ring15_scratch"),
      "by_finger_sac_seen_ring15_scratch.json",
      "darkgreen",
      "SAC+HER 2,048, ring goals read 15 mm apart, from scratch",
    ),
    (("2026-12-02", "sac_her_plain_s1"), "by_finger_sac_plain_s1_352k.json", "tan", "SAC+HER 2,048, seed 1"),
    (
      ("2026-12-02", "sac_her_seen_ring15_s1"),
      "by_finger_sac_seen_ring15_s1.json",
      "gold",
      "seed 1 from its 352k, ring goals read 15 mm apart",
    ),
    (
      ("2026-12-02", "sac_her_one_run_s2"),
      "by_finger_sac_one_run_s2.json",
      "saddlebrown",
      "seed 2, one run: ring read 15 mm apart from 352k",
    ),
    (
      ("2026-12-02", "sac_her_one_run_s2_lr3e-4"),
      "by_finger_sac_one_run_s2_lr.json",
      "purple",
      "seed 2, one run, learning rates 3e-4 from 352k",
    ),
    (
      ("2026-12-02", "sac_her_one_run_s2_1m"),
      "by_finger_sac_one_run_s2_1m.json",
      "deepskyblue",
      "seed 2, one run, trained on to 1M",
    ),
    (
      ("2026-12-02", "sac_her_one_run_s2_ring_heavy_1m"),
      "by_finger_sac_one_run_s2_ring_heavy_1m.json",
      "crimson",
      "seed 2 from 632k, ring goals 47.5% of draws",
    ),
    (
      ("2026-12-02", "sac_her_seen_ring15_s1_ring_heavy"),
      "by_finger_sac_seen_ring15_s1_ring_heavy.json",
      "darkorange",
      "seed 1 from its 552k, ring goals 47.5% of draws",
    ),
    (
      ("2026-12-02", "sac_her_seen_ring15_s0_ring_heavy"),
      "by_finger_sac_seen_ring15_s0_ring_heavy.json",
      "olive",
      "seed 0 from its 1.38M policy, ring goals 47.5% of draws",
    ),
    (
      ("2026-12-02", "sac_her_one_run_s2_fore_ring"),
      "by_finger_sac_one_run_s2_fore_ring.json",
      "navy",
      "seed 2 from 632k, fore and ring goals 35% each",
    ),
    (
      ("2026-12-02", "sac_her_one_cmd_s3"),
      "by_finger_sac_one_cmd_s3.json",
      "hotpink",
      "seed 3, sac_her_hand_reach_cpu as one command, 832k",
    ),
    (
      ("2026-12-02", "sac_her_one_cmd_s4"),
      "by_finger_sac_one_cmd_s4.json",
      "darkviolet",
      "seed 4, sac_her_hand_reach_cpu as one command, 832k",
    ),
  )
  # Warm-started runs count their steps from their start: drawn after the run they started from.
  offsets = {
    "sac_her_seen_ring15": 1.0,
    "sac_her_seen_ring15_s1": 0.352,
    "sac_her_seen_ring15_s1_ring_heavy": 0.352,
    "sac_her_seen_ring15_s0_ring_heavy": 1.384,  # from the 2026-11-29 run's policy (1M + 384k)
  }
  runs = [r for r in runs if os.path.exists(_path("her-hand", *r[0], "metrics.jsonl"))]
  fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12.5, 8.4), gridspec_kw={"width_ratios": [1.5, 1]})
  for (date, name), _, color, label in runs:
    xs, ys = _series(_rows("her-hand", date, name, "metrics.jsonl"), "eval/success_rate")
    xs = [x + offsets.get(name, 0.0) for x in xs]
    ax1.plot(xs, ys, color=color, alpha=0.25, linewidth=0.8)
    ax1.plot(
      xs, trailing_mean(ys, 5), color=color, label=label + ("" if date == "2026-11-27" else f" ({date})")
    )
  ax1.axhline(
    0.948, color="0.5", linestyle="--", linewidth=1, label="reachable at all (IK, contacts ignored): 0.948"
  )
  _paper_line(ax1, 0.9, "issue 28's target: 0.9")
  ax1.set_xlabel("env steps (millions)")
  ax1.set_ylabel("eval success (64 episodes)")
  ax1.set_title("5-evaluation means; runs of 2026-11-27 unless dated", fontsize=9)
  ax1.set_ylim(-0.03, 1.05)
  kinds = ("initial", "fore", "middle", "ring", "little")
  # Each table beside its run, or with the by-finger tables of 2026-11-27 (the first ones).
  tables = [
    (d, t, color, label)
    for (date, _), t, color, label in runs
    for d in [next((d for d in (date, "2026-11-27") if os.path.exists(_path("her-hand", d, t))), None)]
    if d
  ]
  width = 0.8 / (len(tables) + 1)
  for i, (date, name, color, _) in enumerate(tables):
    with open(_path("her-hand", date, name)) as f:
      table = json.load(f)
    ax2.bar(
      [j + width * i for j in range(len(kinds))],
      [table[k]["success"] for k in kinds],
      width,
      color=color,
    )
  ax2.bar(
    [j + width * len(tables) for j in range(len(kinds))],
    [1, 1, 1, 0.75, 1],
    width,
    color="0.7",
    label="reachable (IK, contacts ignored)",
  )
  held = _path("her-hand", "2026-11-27", "hold", "ours_hold.json")  # reachability_hold: ff and rf only
  if os.path.exists(held):
    with open(held) as f:
      hold = json.load(f)
    names = {"fore": "ff", "ring": "rf"}
    ax2.scatter(
      [j + width * len(tables) for j, k in enumerate(kinds) if names.get(k) in hold],
      [hold[names[k]]["reachable"] for k in kinds if names.get(k) in hold],
      marker="_",
      s=200,
      color="k",
      zorder=3,
      label="a constant action, contacts included",
    )
  ax2.set_xticks([j + 0.4 - width / 2 for j in range(len(kinds))], kinds, fontsize=8)
  ax2.set_title("success by the goal's finger (1,024 episodes each, at each run's end)", fontsize=9)
  # One legend for both panels: each run's bars take its curve's colour.
  handles, labels = ax1.get_legend_handles_labels()
  more, more_labels = ax2.get_legend_handles_labels()  # the reachability bars and marks
  fig.legend(handles + more, labels + more_labels, fontsize=7, ncol=3, loc="lower center")
  for ax in (ax1, ax2):
    ax.grid(alpha=0.3)
  _finish(
    fig, os.path.join(out, "hand_reach.png"), "HandReach on a 2-core CPU, C physics, one seed each", 0.2
  )


def hand_reach_seeds(out: str) -> None:
  """`sac_her_hand_reach_cpu`'s recipe over training seeds: the 64-episode evaluations of the runs made on
  its whole schedule (plain SAC+HER, the ring pair read 15 mm apart from 352k, ring goals drawn 47.5% of the
  time from 632k, a tenth of the learning rate from 832k, 1.032M in all), and every seed's success on two
  sets of 1,024 fresh episodes at the reference's goal mix (benchmarks/hand_reach_by_finger.py) at 832k
  (light) and after the last phase (dark), against 0.9; in grey, seeds 3 and 4 trained on for the same
  200k at the learning rates kept (the controls)."""
  day = "2026-12-02"
  # (run directory for the curve, by-finger table at 832k, after the last phase, label, on the config's
  # schedule from scratch, colour)
  seeds = (
    (
      "sac_her_seen_ring15_s0_ring_heavy",
      "by_finger_sac_seen_ring15_s0_ring_heavy",
      None,
      "seed 0 (warm starts)",
      False,
      "olive",
    ),
    (
      "sac_her_seen_ring15_s1_ring_heavy",
      "by_finger_sac_seen_ring15_s1_ring_heavy",
      "by_finger_sac_polish_s1_warm",
      "seed 1 (warm starts)",
      False,
      "darkorange",
    ),
    (
      "sac_her_one_run_s2_ring_heavy",
      "by_finger_sac_one_run_s2_ring_heavy",
      "by_finger_sac_polish_s2_warm",
      "seed 2 (resumes; last: warm)",
      True,
      "crimson",
    ),
    (
      "sac_her_polish_s3",
      "by_finger_sac_one_cmd_s3",
      "by_finger_sac_polish_s3",
      "seed 3 (one command)",
      True,
      "hotpink",
    ),
    (
      "sac_her_lr1e-3_s3",
      "by_finger_sac_one_cmd_s3",
      "by_finger_sac_lr1e-3_s3",
      "seed 3, rates kept (control)",
      False,
      "gray",
    ),
    (
      "sac_her_polish_s4",
      "by_finger_sac_one_cmd_s4",
      "by_finger_sac_polish_s4",
      "seed 4 (one command)",
      True,
      "darkviolet",
    ),
    (
      "sac_her_lr1e-3_s4",
      "by_finger_sac_one_cmd_s4",
      "by_finger_sac_lr1e-3_s4",
      "seed 4, rates kept (control)",
      False,
      "gray",
    ),
  )

  def have(table):
    return table is not None and os.path.exists(_path("her-hand", day, table + ".json"))

  seeds = [r for r in seeds if have(r[1])]
  fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12.5, 4.6), gridspec_kw={"width_ratios": [1.3, 1.1]})
  for run, _, _, label, whole, color in seeds:
    if not whole or not os.path.exists(_path("her-hand", day, run, "metrics.jsonl")):
      continue  # warm starts from other runs: their steps do not line up with the schedule's
    xs, ys = _series(_rows("her-hand", day, run, "metrics.jsonl"), "eval/success_rate")
    ax1.plot(xs, ys, color=color, alpha=0.25, linewidth=0.8)
    ax1.plot(xs, trailing_mean(ys, 5), color=color, label=label)
  marks = (
    (0.352, "ring read 15 mm apart"),
    (0.632, "ring goals 47.5% of draws"),
    (0.832, "learning rates / 10"),
  )
  for x, what in marks:
    ax1.axvline(x, color="0.4", linestyle=":", linewidth=1)
    ax1.text(x + 0.01, 0.05, what, fontsize=7, rotation=90, color="0.3")
  _paper_line(ax1, 0.9, "issue 28's target: 0.9")
  ax1.set_xlabel("env steps (millions)")
  ax1.set_ylabel("eval success, 64 episodes (from 632k: the training mix)", fontsize=8)
  ax1.set_ylim(-0.03, 1.05)
  ax1.legend(fontsize=8, loc="upper left")
  width = 0.2
  for i, (_, before, after, _, _, color) in enumerate(seeds):
    for j, table in enumerate((before, after)):
      if not have(table):
        continue
      sets = [_json("her-hand", day, table + suffix + ".json") for suffix in ("", "_seed1")]
      for k, t in enumerate(sets):
        x = i + (2 * j + k) * width - 1.5 * width
        ax2.bar(x, t["all"]["success"], width, color=color, alpha=0.35 + 0.65 * j, hatch="//" if k else "")
      mean = sum(t["all"]["success"] for t in sets) / 2
      ax2.text(i + (2 * j - 1) * width, 0.965 - 0.035 * j, f"{mean:.3f}", ha="center", fontsize=7)
  _paper_line(ax2, 0.9, "0.9")
  ax2.set_xticks(range(len(seeds)), [r[3] for r in seeds], fontsize=7, rotation=15)
  ax2.set_ylim(0.8, 1.0)
  ax2.set_ylabel("success, all goals, 1,024 episodes (hatched: a second set)", fontsize=8)
  ax2.set_title(
    "per seed: at 832k (light), after 200k at learning rates / 10 (dark); the sets' mean", fontsize=8
  )
  ax2.grid(alpha=0.3, axis="y")
  ax1.grid(alpha=0.3)
  _finish(
    fig, os.path.join(out, "hand_reach_seeds.png"), "HandReach, sac_her_hand_reach_cpu's recipe, by seed"
  )


FIGURES = {
  "her_fetch": her_fetch,
  "ppo_vs_brax": ppo_vs_brax,
  "selfplay": selfplay,
  "selfplay_c": selfplay_c,
  "league": league,
  "hide_and_seek": hide_and_seek,
  "hns_pool": hns_pool,
  "mt10": mt10,
  "mt10_long": mt10_long,
  "mt50": mt50,
  "mtppo": mtppo,
  "mtppo_mt50": mtppo_mt50,
  "selfplay_rows": selfplay_rows,
  "selfplay_budget": selfplay_budget,
  "selfplay_abc_rows": selfplay_abc_rows,
  "selfplay_sym_direct": selfplay_sym_direct,
  "hand_reach": hand_reach,
  "hand_reach_seeds": hand_reach_seeds,
  "transfer": transfer,
}


def main(argv=None) -> None:
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--out", default=os.path.join(RESULTS, "plots"), help="directory for the PNGs")
  p.add_argument("--only", nargs="+", choices=sorted(FIGURES), help="draw only these figures")
  args = p.parse_args(argv)
  os.makedirs(args.out, exist_ok=True)
  for name in args.only or FIGURES:
    FIGURES[name](args.out)


if __name__ == "__main__":
  main()
