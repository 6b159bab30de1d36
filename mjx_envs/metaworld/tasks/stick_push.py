"""stick-push-v3: pick a stick up and push a thermos with it to a goal along +x.

Reference: metaworld 3.1.1 `SawyerStickPushEnvV3` (reward version v2), `sawyer_stick_obj.xml`; the stick and
the thermos (facts and the model's deliberate differences) are in `tasks/_stick.py`.

Reference facts used:
- rand_vec = [stick xyz, goal xyz] from (-0.08, 0.58, 0, 0.399, 0.55, 0.1319) .. (-0.03, 0.62, 0.001, 0.401,
  0.6, 0.1321); redrawn while the two are closer than 0.1 in xy (never, with these ranges). hand_init_pos
  (0, 0.6, 0.2), hand and mocap bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5).
- reset_model: stick_init_pos = (rand x, rand y, 0.02), the stick's position set there (orientation kept);
  the thermos's slides at (0, 0); target_pos = (goal x, goal y, the `insertion` site's z, 0.132);
  obj_init_pos = get_body_com("object") = (0.2, 0.6, 0), a constant.
- Observation: object 1 the stick (body position, scipy quaternion), object 2 the `insertion` site + (0,
  0.09, 0) (the thermos's axis at the loop's height) with a zero quaternion.
- Reward v2 (TARGET_RADIUS 0.12): stick = obs[4:7] + (0.015, 0, 0), container = obs[11:14]; stick_in_place =
  tolerance(|stick - target|, (0, 0.12), margin |stick_init_pos - target| - 0.12, long_tail);
  container_in_place likewise with margin |obj_init_pos - target| - 0.12; object_grasped = this env's own
  caging reward (the base one with stick_init_pos in place of obj_init_pos; obj_radius 0.04,
  pad_success_thresh 0.05, object_reach_radius 0.01, xz_thresh 0.01, high density); reward = grasped;
  where |tcp - stick| < 0.02, opening > 0 and stick z - 0.01 > stick_init z: grasped = 1, reward = 2 + 5
  stick_in_place + 3 container_in_place, 10 where |container - target| <= 0.12.
  Info: grasp_success = touching_main_object and opening > 0 and obs stick z - 0.01 > stick_init z; success
  = grasp_success and |container - target| <= 0.12; near_object |tcp - stick| <= 0.03; grasp_reward the
  (overridden) grasped; in_place_reward stick_in_place; obj_to_target |container - target|.

JAX equivalent of a contact check: touching_main_object (both pads press on `objGeom`) as push-v3's
(`push.touching`); it enters the info's grasp_success and so its success.

Checks (fixture `metaworld_reference_sticks`): reward and every info value on the reference's 40 recorded
states (10 successes) within the default 1e-4 (measured: reward 1.2e-6, success / grasp_success / near_object
exact); reset ranges and the rejection rule equal; the first observed stick and thermos within 1.9e-4 m.
`scripted` below (benchmarks/scripted_success.py, C backend, 100 episodes of 500 steps, 2026-11-26):
100/100; it succeeds near step 55. The reference's own policy in the reference: 10/10, near step 70.
MJX-JAX (tests/mjx_envs/test_metaworld_sticks.py, slow tier): the scripted loop follows C within 2.9e-3 m over 80 steps
and succeeds.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.tasks import _stick

import jax.numpy as jnp

TARGET_RADIUS = 0.12
CONTAINER_FROM_INSERTION = (0.0, 0.09, 0.0)
READS = _stick.READS


# target_pos's z: the `insertion` site's (the thermos does not move in z)
place = _stick.task_place((0.0, 0.0), target_z=_stick.INSERTION[2] + _stick.THERMOS_BASE[2])


def objects(env, d):
  return _stick.objects(env, d, CONTAINER_FROM_INSERTION)


def reward(obs, action, reads):
  tcp, target, opened = reads["tcp_center"], reads["target_pos"], obs[..., 3]
  stick_init = reads["stick_init_pos"]
  stick = obs[..., 4:7] + jnp.array([0.015, 0.0, 0.0])
  container = obs[..., 11:14]
  tcp_to_stick = jnp.linalg.norm(stick - tcp, axis=-1)
  stick_to_target = jnp.linalg.norm(stick - target, axis=-1)
  stick_margin = jnp.linalg.norm(stick_init - target, axis=-1) - TARGET_RADIUS
  stick_in_place = R.tolerance(stick_to_target, (0, TARGET_RADIUS), stick_margin, sigmoid="long_tail")
  container_to_target = jnp.linalg.norm(container - target, axis=-1)
  container_margin = jnp.linalg.norm(reads["obj_init_pos"] - target, axis=-1) - TARGET_RADIUS
  container_in_place = R.tolerance(
    container_to_target, (0, TARGET_RADIUS), container_margin, sigmoid="long_tail"
  )
  grasped = _stick.caging(action, stick, reads, 0.04, stick_init)
  lifted = (tcp_to_stick < 0.02) & (opened > 0) & (stick[..., 2] - 0.01 > stick_init[..., 2])
  grasped = jnp.where(lifted, 1.0, grasped)
  rew = jnp.where(lifted, 2.0 + 5.0 * stick_in_place + 3.0 * container_in_place, grasped)
  rew = jnp.where(lifted & (container_to_target <= TARGET_RADIUS), 10.0, rew)
  touching = reads["touching_main_object"] > 0
  grasp_success = touching & (opened > 0) & (obs[..., 6] - 0.01 > stick_init[..., 2])
  success = grasp_success & (container_to_target <= TARGET_RADIUS)
  info = R.info(
    success, tcp_to_stick <= 0.03, grasp_success, grasped, stick_in_place, container_to_target, rew
  )
  return rew, info


PUSH_Z = 0.12  # the stick's height while pushing: on the thermos's round side (0.10 .. 0.18)
GRIP_DX = 0.0  # (the stick settles 1.5 cm back in the closing grip: the tcp ends near the reward's stick point, + 0.015)
THERMOS_RADIUS = 0.06
STICK_HALF = 0.05


def scripted(obs):
  """Grip the stick (`_stick.grip_then`), raise it to PUSH_Z in line with the thermos (its end 3 cm short of
  the thermos's side), then push along +x until the thermos's axis is at the goal's x (the slide's end at
  x 0.4). Pushing 1.5 cm further (a first version) pressed the thermos against the slide's end after the
  success, and the round side, pressed off-centre, then slid it along y to its other end (0.2 m) over the
  episode's remaining steps; now it ends within 9 cm of its start in y (10 episodes of 300 steps)."""
  container, goal = obs[..., 11:14], obs[..., 36:39]

  def stick_to(o):
    stick = o[..., 4:7]
    lined = (jnp.abs(stick[..., 1:2] - container[..., 1:2]) < 0.01) & (
      jnp.abs(stick[..., 2:3] - PUSH_Z) < 0.01
    )
    behind = container[..., 0:1] - THERMOS_RADIUS - STICK_HALF - 0.03
    pushed = goal[..., 0:1] - THERMOS_RADIUS - STICK_HALF
    x = jnp.where(lined, pushed, behind)
    return jnp.concatenate([x, container[..., 1:2], jnp.full_like(x, PUSH_Z)], -1)

  return _stick.grip_then(obs, GRIP_DX, stick_to)


TASK = _stick.stick_task(
  "stick-push-v3",
  rand_low=(-0.08, 0.58, 0.0, 0.399, 0.55, 0.1319),
  rand_high=(-0.03, 0.62, 0.001, 0.401, 0.6, 0.1321),
  goal_low=(0.399, 0.55, 0.1319),
  goal_high=(0.401, 0.6, 0.1321),
  hand_low=(-0.5, 0.40, 0.05),
  place_=place,
  objects_=objects,
  reward_=reward,
  reads_=_stick.reads,
)
