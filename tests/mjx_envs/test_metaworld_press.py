"""Meta-World part 2, the "press" group (button boxes, doors and locks, handle-press boxes): ONE batched
C-backend rollout of every task of the group whose module exists, each world following its task's scripted
controller; every task must meet the bar at this small count (`benchmarks/scripted_success.py` runs 100
episodes of 500 steps against 0.90). Reward parity with the reference: test_metaworld_parity.py (fixture
`metaworld_reference_press`)."""

from mjx_envs import metaworld
from mjx_envs.metaworld import tasks

import jax
from metaworld_group import check_scripted_bars

GROUP = (
  "button-press-v3",
  "button-press-wall-v3",
  "button-press-topdown-wall-v3",
  "door-close-v3",
  "door-lock-v3",
  "door-unlock-v3",
  "handle-press-v3",
  "handle-press-side-v3",
  "handle-pull-v3",
  "handle-pull-side-v3",
)
N_SCRIPTED = 4  # episodes per task (the benchmark runs 100)
# of the 500, measured in the arm's worlds (24 episodes per task, 2026-11-27): door-lock and door-unlock, the
# slowest, succeed by steps 313 and 299 (the free hand's slowest: handle-pull, 200-250)
STEPS = 350
BAR = 0.75  # per task at 4 episodes; the 0.90 bar is the benchmark's, over 100


def test_press_group_scripted_bars():
  names = [t for t in GROUP if t in tasks.available()]
  assert names, "no task of the press group is built"
  # (the checks: rewards in [0, 10]; every world starts a different episode, its box, door or handle where
  # its own rand_vec puts it; the bar; a successful episode's reward reaches the task's top band, > 5)
  check_scripted_bars("press", names, N_SCRIPTED, STEPS, jax.random.PRNGKey(5), BAR, 5.0)


# door-close-v3 in the reference (metaworld 3.1.1, door at (0.02989, 0.88009, 0.15), zero actions): its door,
# open at -1.5708 with the panel 0.5 mm into the safe's left wall, swings shut to these angles by these control
# steps (the contact ends near step 40). Ours (the explicit panel-wall pair of tasks/_door.py): -1.4463,
# -1.3623, -1.3030.
DOOR_CLOSE_SWING = {5: -1.4698, 10: -1.3985, 50: -1.3039}


def test_door_close_door_swings_back_as_reference():
  import mujoco  # pylint: disable=import-outside-toplevel

  env = metaworld.make_task("door-close-v3", impl="c")
  m = env.mj_model
  d = mujoco.MjData(m)
  d.qpos[:], d.mocap_pos[:], d.mocap_quat[:] = env._qpos0, env._mocap_pos0, env._mocap_quat0
  d.mocap_pos[m.body("door").mocapid[0]] = (0.02988706, 0.88008623, 0.15)
  d.qpos[m.joint("doorjoint").qposadr[0]] = -1.5708
  d.ctrl[:] = 0.0
  angles = {}
  for k in range(1, 51):
    mujoco.mj_step(m, d, env.n_substeps)
    angles[k] = float(d.qpos[m.joint("doorjoint").qposadr[0]])
  print(
    "door-close swing (ours, reference):", {k: (round(angles[k], 4), v) for k, v in DOOR_CLOSE_SWING.items()}
  )
  assert abs(angles[50] - DOOR_CLOSE_SWING[50]) < 0.01, angles[50]
  for k in (5, 10):
    assert abs(angles[k] - DOOR_CLOSE_SWING[k]) < 0.05, (k, angles[k])
