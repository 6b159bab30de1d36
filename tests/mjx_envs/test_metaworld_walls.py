"""Meta-World part 2, the walls group (reach-wall, push-wall, pick-place-wall, push-back, plate-slide and its
three variants): every task's scripted controller in ONE batched rollout (`MultiTask`, C backend), at a
small count; the 90% bar over 100 episodes is `benchmarks/scripted_success.py`'s. Reward, reset and pose
parity with the reference: tests/mjx_envs/test_metaworld_parity.py (fixture metaworld_reference_walls).
Slow tier: MJX-JAX against C on the plate-and-cage and the wall, closed-loop."""

import mjx_envs
from mjx_envs.metaworld import scripted_policy
from mjx_envs.metaworld import tasks as mw_tasks
from mjx_envs.metaworld.multitask import MultiTask
from mjx_envs.metaworld.sawyer import INFO_KEYS

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from metaworld_group import mjx_jax_against_c

WALLS = (
  "reach-wall-v3",
  "push-wall-v3",
  "pick-place-wall-v3",
  "push-back-v3",
  "plate-slide-v3",
  "plate-slide-back-v3",
  "plate-slide-side-v3",
  "plate-slide-back-side-v3",
)
N = 4  # scripted episodes per task
# Measured first successes in the arm's worlds (24 episodes per task, 2026-11-27): steps 25 .. 368
# (plate-slide-back the slowest, its controller travelling at half speed); the free hand's: 23 .. 93.
STEPS = 400
BAR = 0.75  # per task at N episodes: 3 of 4


def test_walls_scripted_controllers_succeed_in_one_batch():
  assert set(WALLS) <= set(mw_tasks.available())
  mt = MultiTask([mjx_envs.make(f"metaworld/{t}") for t in WALLS], WALLS, envs_per_task=N)
  ctrls = [scripted_policy(t) for t in WALLS]

  @jax.jit
  def run(key):
    def body(s, _):
      acts = jnp.concatenate([c(o) for c, o in zip(ctrls, mt.split(s.obs[:, :39]))], 0)
      s = mt.step(s, acts)
      return s, s.reward

    return jax.lax.scan(body, mt.reset(key), (), STEPS)

  s, rew = run(jax.random.PRNGKey(3))
  rew = np.asarray(rew)
  assert np.all(np.isfinite(rew)) and np.all((rew >= 0) & (rew <= 10))
  assert set(INFO_KEYS) <= set(s.info)
  ok = np.asarray(mt.split(s.metrics["is_success"]))
  rates = dict(zip(WALLS, ok.mean(-1)))
  print(f"walls scripted success ({N} episodes of {STEPS} steps):", rates)
  assert all(r >= BAR for r in rates.values()), rates


# MJX-JAX (slow tier: one multi-minute CPU compile per task): the plate in its cage (the cage's geoms pair
# with the table plane in MJX-JAX unless their contype is 0: with the reference's contype 1 the first step
# blew the hand up, _plate.py) and the puck lifted over the wall, closed-loop from the same resets as C.
MJX_TASKS = ("plate-slide-back-side-v3", "push-wall-v3")
MJX_STEPS = 100
MJX_OBS_ATOL = 0.02  # m, hand and object positions, C against MJX-JAX over the closed loop: measured
# 2026-11-26 2.9e-3 (plate-slide-back-side) and 4.9e-3 (push-wall); 374 s for both on the crowded CPU;
# 2026-11-28 8.7e-3 and 1.6e-2 (the controllers changed for the arm: MJX-JAX's puck sags 5 mm lower in
# the grip than C's, and the lift to the wall's height now follows the puck, not the tcp)


@pytest.mark.slow
@pytest.mark.parametrize("task", MJX_TASKS)
def test_walls_mjx_jax_follows_c(task):
  gap, success = mjx_jax_against_c(task, MJX_STEPS, jax.random.PRNGKey(5))
  assert gap < MJX_OBS_ATOL, (task, gap)
  assert np.all(success["c"] == 1) and np.all(success["jax"] == 1), (task, success)
