"""sweep-v3: slide a wooden block along the table (+x) to a goal near the table's right edge.

Reference: metaworld 3.1.1 `SawyerSweepEnvV3` (reward version v2), `sawyer_sweep_v3.xml`.

Reference facts used:
- rand_vec = the block's xyz from (-0.1, 0.6, 0.02) .. (0.1, 0.7, 0.02); no rejection rule. goal_space
  (0.49, 0.6, 0) .. (0.51, 0.7, 0.02) (not drawn: the goal is (0.5, 0.65, 0.01) with its y replaced by the
  block's). hand_init_pos (0, 0.6, 0.2), hand and mocap bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5).
- reset_model: obj_init_pos = [rand x, rand y, 0.02] (init_config's z), `_set_obj_xyz` puts the body
  origin there (the block then drops 2 cm to the table), target_pos = (0.5, rand y, 0.01); maxPushDist (the v1
  reward's objHeight, heightTarget, maxReachDist and maxPlacingDist are left out: v2 reads none).
- The block, its observation and the reward: tasks/_block.py (caging: obj_radius 0.02, grip margin 0.03,
  x-z margin 0.005; the info's grasp_success has no lift condition).

JAX equivalent of a contact check: touching_main_object as push-v3's (`push.touching`), info only.

Deliberate differences: the visual mesh is left out (the collision box is the reference's); the table is
sawyer.py's plane (the reference's table box ends at x = 0.7, beyond the goal).

Checks: reward and info parity on the fixture `metaworld_reference_objects`. `scripted` below (push-v3's
grip on the block, then carry it low to the goal): success 100/100 episodes (benchmarks/scripted_success.py,
C backend, 500 steps).
"""

from __future__ import annotations

from mjx_envs.metaworld.sawyer import TCP_BELOW_HAND, Task
from mjx_envs.metaworld.tasks import _block, push

import jax.numpy as jnp

READS = _block.READS
GOAL = (0.5, 0.65, 0.01)


def place(env, d, rand_vec):
  obj_init = jnp.concatenate([rand_vec[:2], jnp.full((1,), 0.02, jnp.float32)])
  target = jnp.stack([jnp.float32(GOAL[0]), rand_vec[1], jnp.float32(GOAL[2])])
  d = push.set_free_pos(env, d, "objjoint", obj_init)
  ctx = {
    "target_pos": target,
    "obj_init_pos": obj_init,
    "maxPushDist": jnp.linalg.norm(obj_init[:2] - target[:2]),
  }
  return d, ctx


def objects(env, d):
  b = env.mj_model.body("obj").id
  return d.xpos[b], d.xquat[b]


def reads(env, d, ctx):
  return {"touching_main_object": push.touching(env, d, "objGeom")}


def reward(obs, action, reads):
  del action
  grasped = _block.caging(obs[..., 4:7], reads, _block.OBJ_RADIUS, _block.OBJ_RADIUS + 0.01, 0.005)
  return _block.sweep_reward(obs, reads, reads["target_pos"], grasped)


def scripted(obs):
  """push-v3's grip (`push.grip_then`) on the block's centre (0.02 above the observed body origin), then
  carry it, just above the table, to the goal."""
  centre = obs.at[..., 6].add(0.02)
  return push.grip_then(centre, obs[..., 36:39] + jnp.array([0.0, 0.0, TCP_BELOW_HAND + 0.015]))


TASK = Task(
  name="sweep-v3",
  objects_xml=_block.SWEEP_XML,
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(0.49, 0.6, 0.0),
  goal_high=(0.51, 0.7, 0.02),
  rand_low=(-0.1, 0.6, 0.02),
  rand_high=(0.1, 0.7, 0.02),
  place=place,
  objects=objects,
  reward=reward,
  reads=reads,
  touch_geoms=("objGeom",),
)
