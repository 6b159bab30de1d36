"""drawer-open-v3: pull a drawer's handle out towards the robot until the handle reaches the goal.

Reference: metaworld 3.1.1 `SawyerDrawerOpenEnvV3` (reward version v2), model `sawyer_xyz/sawyer_drawer.xml`
(the drawer: `_drawer.py`). Facts used:
- rand_vec = the drawer body's position, uniform in x [-0.1, 0.1], y = 0.9, z = 0 (no rejection rule);
  obj_init_pos = rand_vec; the drawer starts closed (goal_slidey = 0).
- maxDist = 0.2; target_pos = obj_init_pos + (0, -0.16 - maxDist, 0.09).
- Observation object: `get_body_com("drawer_link")` (drawer_link's frame origin, gymnasium's body xpos) +
  (0, -0.16, 0); quaternion: drawer_link's xquat [w, x, y, z].
- hand_init_pos (0, 0.6, 0.2); hand bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5); goal bounds = hand bounds.
- Reward (v2): handle_error = |handle - target|; opening = tolerance(handle_error, (0, 0.02), margin
  maxDist, long_tail); caging = tolerance(|(handle - hand) (3, 3, 1)|, (0, 0.01), margin |(target + (0,
  maxDist, 0) - init_tcp) (3, 3, 1)|, long_tail); reward = 5 (caging + opening). Info: success
  handle_error <= 0.03, near_object |handle - hand| <= 0.03, grasp_success obs[3] > 0, grasp_reward
  caging, in_place_reward opening, obj_to_target handle_error.
- Success needs the joint slightly past its limit: the handle point is at drawer + (0, -0.17 + q, 0.09),
  the target at drawer + (0, -0.36, 0.09), so success is |q + 0.19| <= 0.03, i.e. q <= -0.16, the joint's
  lower limit. The reference reaches it because its hand pulls against the (soft) limit: its scripted
  policy holds the drawer at q = -0.20.

Deliberate differences: those of the drawer model (`_drawer.py`: no meshes, drawer parts do not collide
with each other) and of the family (`sawyer.py`). Measured effect of the armless hand: pulling against the
soft joint limit, it drags the drawer further past it than the reference's arm does (q reaches -0.256
here with the scripted controller, -0.20 in the reference under its policy); success comes at control
step 81..88 (reference: 85, 90 in two episodes).

The scripted controller is the reference policy (`SawyerDrawerOpenV3Policy`) in JAX with its gains:
above the handle (p 4), down in front of it (p 4), pull towards the robot (p 50), gripper open. Measured:
100/100 episodes solved (500 steps, fresh rand_vecs, C MuJoCo on this env's compiled model and solver
settings, mocap/ctrl/obs as `SawyerEnv.step`); the MJX batch measurement was not affordable on the shared
2-core CPU used.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import _drawer

import jax.numpy as jnp

MAX_DIST = 0.2
HANDLE_OFFSET = jnp.array([0.0, -0.16, 0.0])
READS = ("target_pos", "maxDist", "init_tcp")


def place(env, d, rand_vec):
  d = _drawer.place_drawer(env, d, rand_vec, 0.0)
  target = rand_vec + jnp.array([0.0, -0.16 - MAX_DIST, 0.09])
  return d, {"target_pos": target, "obj_init_pos": rand_vec, "maxDist": jnp.float32(MAX_DIST)}


def objects(env, d):
  return _drawer.link_xpos(env, d) + HANDLE_OFFSET, _drawer.link_xquat(env, d)


def reward(obs, action, reads):
  del action
  gripper, handle = obs[..., 0:3], obs[..., 4:7]
  target, max_dist = reads["target_pos"], reads["maxDist"]
  handle_error = jnp.linalg.norm(handle - target, axis=-1)
  opening = R.tolerance(handle_error, bounds=(0, 0.02), margin=max_dist, sigmoid="long_tail")
  handle_pos_init = target + jnp.stack([jnp.zeros_like(max_dist), max_dist, jnp.zeros_like(max_dist)], -1)
  scale = jnp.array([3.0, 3.0, 1.0])
  gripper_error = jnp.linalg.norm((handle - gripper) * scale, axis=-1)
  gripper_error_init = jnp.linalg.norm((handle_pos_init - reads["init_tcp"]) * scale, axis=-1)
  caging = R.tolerance(gripper_error, bounds=(0, 0.01), margin=gripper_error_init, sigmoid="long_tail")
  rew = 5.0 * (caging + opening)
  return rew, R.info(
    handle_error <= 0.03,
    jnp.linalg.norm(handle - gripper, axis=-1) <= 0.03,
    obs[..., 3] > 0,
    caging,
    opening,
    handle_error,
    rew,
  )


def scripted(obs):
  """Above the handle, down in front of it (hand 2 cm below the handle point, so the open fingers straddle
  the bar), then pull towards the robot past the goal with the gripper open."""
  hand, handle = obs[..., 0:3], obs[..., 4:7]
  drwr = handle + jnp.array([0.0, 0.0, -0.02])
  far = jnp.linalg.norm(hand[..., :2] - drwr[..., :2], axis=-1, keepdims=True) > 0.06
  high = jnp.abs(hand[..., 2:3] - drwr[..., 2:3]) > 0.04
  above = _drawer.move(hand, drwr + jnp.array([0.0, 0.0, 0.3]), 4.0)
  down = _drawer.move(hand, drwr, 4.0)
  pull = _drawer.move(hand, drwr + jnp.array([0.0, -0.06, 0.0]), 50.0)
  move = jnp.where(far, above, jnp.where(high, down, pull))
  return jnp.concatenate([move, -jnp.ones_like(move[..., :1])], -1)


TASK = Task(
  name="drawer-open-v3",
  objects_xml=_drawer.DRAWER_XML,
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.5, 0.40, 0.05),
  goal_high=(0.5, 1.0, 0.5),
  rand_low=(-0.1, 0.9, 0.0),
  rand_high=(0.1, 0.9, 0.0),
  place=place,
  objects=objects,
  reward=reward,
)
