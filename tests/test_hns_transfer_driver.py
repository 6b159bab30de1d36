"""benchmarks/hns_transfer.py: the summary of run directories written by hand (both arms compared at the
env steps they share), the train.py command lines, and the object-counting probe on a tiny batch of a tiny
network (no RL training)."""

import mjx_envs

import json
import os
import runpy

import jax
import numpy as np
import pytest

from agents.common.networks import zero_carry
from agents.mappo.entity_net import EntityPolicy
from benchmarks import hns_transfer as ht


def _run(root, task, arm, seed, returns, successes):
  path = root / ht.run_name(task, arm, seed)
  path.mkdir(parents=True)
  (path / "config.json").write_text(json.dumps({"env": {"name": task}, "run": {"seed": seed}}))
  rows = [
    {"env_steps": 1000 * (i + 1), "wall_s": 10.0 * (i + 1), "eval/hider_return": r, "eval/success_rate": s}
    for i, (r, s) in enumerate(zip(returns, successes))
  ]
  (path / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
  if arm == "finetuned":
    record = {"from": "/x/hns", "checkpoint": "latest", "carried": ["a", "b"], "fresh": ["c"]}
    (path / "init_from.json").write_text(json.dumps(record))
  return path


def test_summary_compares_the_arms_at_shared_env_steps(tmp_path):
  root = tmp_path / "runs"
  # Scratch got one evaluation further (a max_minutes cap cut the fine-tuned run): it is left out.
  _run(root, "HnsShelter", "scratch", 0, [-9.0, -7.0, -5.0, -4.0, 50.0], [0.0, 0.0, 0.5, 0.5, 1.0])
  _run(root, "HnsShelter", "finetuned", 0, [-8.0, -2.0, -3.0, -1.0], [0.0, 1.0, 0.25, 0.75])
  _run(root, "HnsBlueprint", "scratch", 0, [1.0], [0.0])  # no fine-tuned arm: not in the summary
  result = ht.summary(str(root), str(tmp_path / "out"))
  assert list(result["tasks"]) == ["HnsShelter"]
  entry = result["tasks"]["HnsShelter"]
  assert entry["compared_at"] == 4000
  scratch, tuned = entry["scratch"][0], entry["finetuned"][0]
  assert scratch["env_steps"] == tuned["env_steps"] == 4000
  assert scratch["final_return"] == pytest.approx((-7.0 - 5.0 - 4.0) / 3, abs=1e-3)
  assert scratch["best_return"] == -4.0 and scratch["best_success"] == 0.5 and scratch["last_success"] == 0.5
  assert tuned["best_return"] == -1.0 and tuned["final_success"] == pytest.approx(2 / 3, abs=1e-3)
  assert tuned["carried"] == 2 and tuned["fresh"] == ["c"] and "init_from" not in scratch
  assert len(scratch["curve"]) == 4
  written = json.load(open(tmp_path / "out" / "transfer.json"))
  assert written["tasks"]["HnsShelter"]["compared_at"] == 4000
  assert os.path.getsize(tmp_path / "out" / "transfer.png") > 10_000
  assert "| HnsShelter | finetuned | 1 | 4,000 | -2.00 | -1.00 | 0.67 | 1.00 |" in ht.table(result)


def test_train_commands_differ_only_in_the_warm_start(tmp_path):
  d = str(tmp_path / "r")
  scratch = ht.train_command("HnsBlueprint", "scratch", 1, 5000, d, "/p@3", 7)
  tuned = ht.train_command("HnsBlueprint", "finetuned", 1, 5000, d, "/p@3", 7)
  assert [a for a in tuned if a not in scratch] == ["run.init_from=/p@3"]
  assert len(tuned) == len(scratch) + 2
  for want in ("env.name=HnsBlueprint", "run.max_minutes=7", "5000", "--no-progress"):
    assert want in scratch
  # --carry-all: the fine-tuned arm also carries the config's run.init_fresh layers.
  carry = ht.train_command("HnsBlueprint", "finetuned", 1, 5000, d, "/p@3", 7, carry_all=True)
  assert [a for a in carry if a not in tuned] == ["run.init_fresh=[]"]
  assert ht.train_command("HnsBlueprint", "scratch", 1, 5000, d, "/p@3", 7, carry_all=True) == scratch
  resume = ht.train_command("HnsBlueprint", "finetuned", 1, 5000, d, "/p", 7, resume=True)
  assert resume[-3:] == ["--resume", d, "--no-progress"]


def test_counting_heads_read_a_memory_that_holds_the_count():
  # Features that hold the label (one-hot, plus noise) against pure noise: the head learns the first
  # (held-out accuracy near 1) and not the second (near chance); every accuracy is a fraction.
  rng = np.random.default_rng(0)
  episodes, steps = 60, 4
  label = np.arange(episodes) % 7  # every count in both splits (Binomial(6, 0.5) leaves 0 and 6 rare)
  y = np.repeat(label, steps).astype(np.int32)
  ep = np.repeat(np.arange(episodes), steps)
  noise = rng.normal(size=(len(y), 16)).astype(np.float32)
  signal = noise.copy()
  signal[:, :7] += 4.0 * np.eye(7, dtype=np.float32)[y]
  out = ht.fit_heads({"signal": signal, "noise": noise}, y, ep, jax.random.PRNGKey(0), 0.25, head_steps=300)
  assert out["episodes"] == episodes and out["test_episodes"] == 15 and out["valid_steps"] == steps
  assert out["label_counts"] == np.bincount(label, minlength=7).tolist()
  assert out["signal"]["test_acc"] > 0.9 and out["signal"]["test_acc_last"] > 0.9
  assert out["noise"]["test_acc"] < 0.6 and out["noise"]["train_acc"] > out["noise"]["test_acc"]
  for k in ("test_acc", "test_acc_last", "train_acc"):
    assert 0.0 <= out["noise"][k] <= 1.0


@pytest.mark.slow
def test_counting_probe_on_a_tiny_batch():
  # (slow tier: compiling HnsObjectCounting's batched rollout takes ~30 s of a core)
  env = mjx_envs.make("HnsObjectCounting")
  net = EntityPolicy(embed=8, heads=1, head_dim=4, dense=8, lstm=8)
  obs = jax.eval_shape(env.reset, jax.random.PRNGKey(0)).obs
  obs = jax.tree.map(lambda s: np.zeros((1,) + s.shape, s.dtype), obs)
  init = jax.jit(net.init)
  params = {name: init(jax.random.PRNGKey(i), obs, zero_carry((1, 1), 8)) for i, name in enumerate("ab")}
  steps = env.all_hidden_step + 3  # 3 valid steps per episode, not the whole 120
  feats, labels, ep = ht.counting_features(env, net, params, jax.random.PRNGKey(1), 6, 4, steps)
  assert feats["a"].shape == feats["b"].shape == (6 * 3, 8)
  assert not np.allclose(feats["a"], feats["b"])  # two networks, their own memories
  assert ep.tolist() == [e for e in range(6) for _ in range(3)]
  assert labels.min() >= 0 and labels.max() <= 6
  assert np.all(labels.reshape(6, 3) == labels.reshape(6, 3)[:, :1])  # one label per episode
  out = ht.fit_heads(feats, labels, ep, jax.random.PRNGKey(2), 0.5, head_steps=3)
  assert out["test_episodes"] == 3 and out["valid_steps"] == 3 and sum(out["label_counts"]) == 6
  for name in ("a", "b"):
    for k in ("test_acc", "test_acc_last", "train_acc"):
      assert 0.0 <= out[name][k] <= 1.0


def test_per_task_values():
  tasks = ("HnsBlueprint", "HnsShelter")
  assert ht.per_task(["5e4"], tasks) == {"HnsBlueprint": 50000, "HnsShelter": 50000}
  assert ht.per_task(["HnsShelter=7", "3"], tasks) == {"HnsBlueprint": 3, "HnsShelter": 7}
  with pytest.raises(SystemExit, match="no value"):
    ht.per_task(["HnsShelter=7"], tasks)
  with pytest.raises(SystemExit, match="HnsLock"):
    ht.per_task(["HnsLock=7", "1"], tasks)


def test_both_arms_take_the_pretrained_runs_network(tmp_path):
  # A run of the paper's network (hns_quadrant, e.g. from a GPU) warm-starts that network, and the scratch
  # arm trains the same one: hns_transfer_cpu's own sizes would not take its layers.
  cfg = runpy.run_path(os.path.join(ht.ROOT, "configs", "hns_quadrant.py"))["get_config"]()
  cfg["agent"]["lstm_size"] = 512  # resumed at chunk 5 with a wider LSTM: checkpoints before it had 256
  pre = tmp_path / "pre"
  pre.mkdir()
  (pre / "config.json").write_text(json.dumps(cfg))
  change = {"env_steps": 5, "chunks": 5, "changed": {"agent.lstm_size": [256, 512]}}
  (pre / "changes.jsonl").write_text(json.dumps(change) + "\n")
  sets = ht.network_sets(f"{pre}@4")
  paper = ["agent.embed=128", "agent.heads=4", "agent.head_dim=32", "agent.dense=256"]
  assert sets == [*paper, "agent.lstm_size=256"]
  assert ht.network_sets(str(pre)) == [*paper, "agent.lstm_size=512"]  # the latest checkpoint's
  policy = tmp_path / "policy.msgpack"
  policy.write_bytes(b"")
  assert ht.network_sets(str(policy)) == []  # an exported policy: the config's sizes
  with pytest.raises(SystemExit, match="checkpoint number"):
    ht.network_sets(f"{pre}@last")
  with pytest.raises(FileNotFoundError, match="no config.json"):
    ht.network_sets(str(tmp_path / "typo"))
  d = str(tmp_path / "r")
  extra = [*sets, "agent.learning_rate=5e-4"]
  for arm in ht.ARMS:
    cmd = ht.train_command("HnsSequentialLock", arm, 0, 5000, d, f"{pre}@4", 7, extra_sets=extra)
    assert [cmd[i + 1] for i, a in enumerate(cmd) if a == "--set" and cmd[i + 1] in extra] == extra
