"""Fetch dynamics against gymnasium-robotics: the reference's open-loop sequences replayed in MJX, as a table.

Replays every sequence of tests/fixtures/fetch_dynamics_reference.npz (recorded in gymnasium-robotics 1.4.2
by scripts/make_fetch_dynamics_reference.py) from the reference's own start states (`env.reset_to`) and
prints, per task and sequence, how far our gripper and object end up from the reference's. The same
comparisons, with tolerances, are the parity tests of tests/mjx_envs/test_fetch.py.

    python benchmarks/fetch_parity.py                          # the four tasks, default physics
    python benchmarks/fetch_parity.py --tasks FetchPush --overrides '{"iterations": 4, "ls_iterations": 8}'
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import mjx_envs  # pylint: disable=wrong-import-position

import jax  # pylint: disable=wrong-import-position
import jax.numpy as jnp  # pylint: disable=wrong-import-position
import numpy as np  # pylint: disable=wrong-import-position

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "fetch_dynamics_reference.npz")
SEQS = {
  "FetchReach": ["zero", "free", "probe"],
  "FetchPush": ["zero", "free", "push", "edge", "probe"],
  "FetchSlide": ["zero", "free", "strike", "probe"],
  "FetchPickAndPlace": ["zero", "free", "grasp", "pnp_push", "probe"],
}
OBJECT_SEQS = ("push", "pnp_push", "edge", "strike", "grasp")


def replay(task: str, ref, overrides: dict):
  """{sequence: our observations [P, T + 1, D]} for every fixture sequence of `task`, and the seconds
  the compiled replay took (compile included)."""
  env = mjx_envs.make(task, **overrides)
  has_obj = env.has_object
  goals, objq, actions, sizes = [], [], [], []
  for seq in SEQS[task]:
    a = ref[f"{task}/{seq}/actions"]
    rows = np.zeros(len(a), int) if seq == "probe" else np.arange(len(a))  # probes start from seed 0
    goals.append(ref[f"{task}/start/dg"][rows])
    if has_obj:
      objq.append(ref[f"{task}/start/object_qpos"][rows])
    actions.append(np.pad(a, ((0, 0), (0, 50 - a.shape[1]), (0, 0))))
    sizes.append(a.shape[:2])

  def run(goals, objq, actions):
    s0 = jax.vmap(env.reset_to)(goals, objq) if has_obj else jax.vmap(env.reset_to)(goals)

    def body(s, a):
      s = jax.vmap(env.step)(s, a)
      return s, s.obs["observation"]

    _, obs = jax.lax.scan(body, s0, jnp.swapaxes(actions, 0, 1))
    return jnp.concatenate([s0.obs["observation"][None], obs], 0)

  t = time.time()
  obs = np.asarray(
    jax.jit(run)(
      jnp.asarray(np.concatenate(goals), jnp.float32),
      jnp.asarray(np.concatenate(objq), jnp.float32) if has_obj else None,
      jnp.asarray(np.concatenate(actions), jnp.float32),
    )
  ).swapaxes(0, 1)
  out, i = {}, 0
  for seq, (n, steps) in zip(SEQS[task], sizes):
    out[seq] = obs[i : i + n, : steps + 1]
    i += n
  return out, time.time() - t


def compare(task: str, seq: str, ours, ref) -> dict:
  """Headline comparisons of one sequence (metres)."""
  r = ref[f"{task}/{seq}/obs"]
  grip = np.linalg.norm(ours[..., 0:3] - r[..., 0:3], axis=-1)
  row = {
    "task": task,
    "sequence": seq,
    "episodes": len(r),
    "grip_err_mean": float(grip.mean()),
    "grip_err_final_median": float(np.median(grip[:, -1])),
  }
  if seq in OBJECT_SEQS:
    o, ro = ours[..., 3:6], r[..., 3:6]
    disp = np.linalg.norm(o[:, -1, :2] - o[:, 0, :2], axis=-1)
    rdisp = np.linalg.norm(ro[:, -1, :2] - ro[:, 0, :2], axis=-1)
    row.update(
      {
        "obj_disp_median": float(np.median(disp)),
        "ref_obj_disp_median": float(np.median(rdisp)),
        "obj_dz_median": float(np.median(o[:, -1, 2] - o[:, 0, 2])),
        "ref_obj_dz_median": float(np.median(ro[:, -1, 2] - ro[:, 0, 2])),
        "obj_err_final_median": float(np.median(np.linalg.norm(o[:, -1] - ro[:, -1], axis=-1))),
        "obj_err_final_max": float(np.max(np.linalg.norm(o[:, -1] - ro[:, -1], axis=-1))),
        "fell_off": int(np.sum(o[:, -1, 2] < 0.3)),
        "ref_fell_off": int(np.sum(ro[:, -1, 2] < 0.3)),
      }
    )
  return row


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument("--tasks", default=",".join(SEQS))
  p.add_argument("--overrides", default="{}", help="env config overrides (JSON), e.g. solver settings")
  p.add_argument("--json", default=None, help="also write the rows here")
  args = p.parse_args(argv)
  ref = np.load(FIXTURE)
  overrides = json.loads(args.overrides)
  rows = []
  for task in args.tasks.split(","):
    if task not in SEQS:
      p.error(f"unknown task {task!r}; one of {list(SEQS)}")
    ours, secs = replay(task, ref, overrides)
    print(
      f"[{task}] replayed {sum(len(v) for v in ours.values())} episodes in {secs:.0f} s (compile included)",
      flush=True,
    )
    rows += [compare(task, seq, ours[seq], ref) for seq in SEQS[task]]
  print(f"\noverrides: {overrides or 'none'}\n")
  print(
    "| task | sequence | episodes | gripper err mean / final median (m) | object moved, ours / ref (median m) "
    "| object dz, ours / ref | object final err median / max | fell off the table, ours / ref |"
  )
  print("|---|---|---:|---|---|---|---|---|")
  for r in rows:
    obj = (
      (
        "| {obj_disp_median:.3f} / {ref_obj_disp_median:.3f} | {obj_dz_median:+.3f} / {ref_obj_dz_median:+.3f} "
        "| {obj_err_final_median:.3f} / {obj_err_final_max:.3f} | {fell_off} / {ref_fell_off} |"
      ).format(**r)
      if "obj_disp_median" in r
      else "| | | | |"
    )
    print(
      f"| {r['task']} | {r['sequence']} | {r['episodes']} | {r['grip_err_mean']:.4f} / "
      f"{r['grip_err_final_median']:.4f} {obj}"
    )
  if args.json:
    with open(args.json, "w") as f:
      json.dump({"overrides": overrides, "rows": rows}, f, indent=1)


if __name__ == "__main__":
  main()
