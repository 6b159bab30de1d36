"""drawer-close-v3: push an open drawer closed.

Reference: metaworld 3.1.1 `SawyerDrawerCloseEnvV3` (reward version v2), model `sawyer_xyz/sawyer_drawer.xml`
(the drawer: `_drawer.py`, the same model as drawer-open-v3). Facts used:
- rand_vec = the drawer body's position, uniform in x [-0.1, 0.1], y = 0.9, z = 0 (no rejection rule).
- maxDist = 0.15; target_pos = drawer position + (0, -0.16, 0.09); the drawer starts pulled out to
  goal_slidey = -maxDist, and obj_init_pos is then the observation's object point (drawer + (0, -0.32,
  0.14)).
- Observation object: `get_body_com("drawer_link")` (drawer_link's frame origin, gymnasium's body xpos) +
  (0, -0.16, 0.05); quaternion: zeros.
- hand_init_pos (0, 0.6, 0.2); hand bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5); goal bounds = hand bounds.
- Reward (v2), TARGET_RADIUS 0.05 (the reward reads `self.TARGET_RADIUS`, the base class's 0.05; the
  class's own `_TARGET_RADIUS = 0.04` is unused): in_place = tolerance(|obj - target|, (0, 0.05), margin
  ||obj_init - target| - 0.05|, long_tail); reach = tolerance(|obj - tcp|, (0, 0.005), margin ||obj_init -
  init_tcp| - 0.005|, gaussian) Hamacher min(max(0, action[3]), 1); reward = 10 (reach Hamacher
  in_place), 10 once |obj - target| <= 0.065 (success). Info: near_object |obj - tcp| <= 0.01,
  grasp_success 1, grasp_reward reach, in_place_reward in_place, obj_to_target |obj - target|.
- Success needs the drawer nearly shut: the object point is at drawer + (0, -0.17 + q, 0.14), the target
  at drawer + (0, -0.16, 0.09), so |obj - target| <= 0.065 is q >= -0.0315.

Deliberate differences: those of the drawer model (`_drawer.py`: no meshes, drawer parts do not collide
with each other) and of the family (`sawyer.py`).

The scripted controller is the reference policy (`SawyerDrawerCloseV3Policy`) in JAX with its gain (p 25,
gripper closed): rise, pass over the drawer to in front of its handle, drop, push it shut. Measured:
100/100 episodes solved, first success at control step 75 (reference: 77) (500 steps, fresh rand_vecs,
C MuJoCo on this env's compiled model and solver settings, mocap/ctrl/obs as `SawyerEnv.step`); the MJX
batch measurement was not affordable on the shared 2-core CPU used.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import _drawer

import jax.numpy as jnp

MAX_DIST = 0.15
TARGET_RADIUS = (
  0.05  # the base class's TARGET_RADIUS, which the reward reads (not the class's _TARGET_RADIUS 0.04)
)
OBJ_OFFSET = jnp.array([0.0, -0.16, 0.05])
READS = ("tcp_center", "target_pos", "obj_init_pos", "init_tcp")


def place(env, d, rand_vec):
  d = _drawer.place_drawer(env, d, rand_vec, -MAX_DIST)
  target = rand_vec + jnp.array([0.0, -0.16, 0.09])
  link = rand_vec + jnp.array(_drawer.LINK_OFFSET) + jnp.array([0.0, -MAX_DIST, 0.0])
  return d, {"target_pos": target, "obj_init_pos": link + OBJ_OFFSET, "maxDist": jnp.float32(MAX_DIST)}


def objects(env, d):
  return _drawer.link_xpos(env, d) + OBJ_OFFSET, jnp.zeros((4,))


def reward(obs, action, reads):
  obj = obs[..., 4:7]
  tcp, target, obj_init = reads["tcp_center"], reads["target_pos"], reads["obj_init_pos"]
  target_to_obj = jnp.linalg.norm(obj - target, axis=-1)
  target_to_obj_init = jnp.linalg.norm(obj_init - target, axis=-1)
  in_place = R.tolerance(
    target_to_obj,
    bounds=(0, TARGET_RADIUS),
    margin=jnp.abs(target_to_obj_init - TARGET_RADIUS),
    sigmoid="long_tail",
  )
  handle_reach_radius = 0.005
  tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
  tcp_to_obj_init = jnp.linalg.norm(obj_init - reads["init_tcp"], axis=-1)
  reach = R.tolerance(
    tcp_to_obj,
    bounds=(0, handle_reach_radius),
    margin=jnp.abs(tcp_to_obj_init - handle_reach_radius),
    sigmoid="gaussian",
  )
  gripper_closed = jnp.clip(action[..., -1], 0.0, 1.0)
  reach = R.hamacher_product(reach, gripper_closed)
  success = target_to_obj <= TARGET_RADIUS + 0.015
  rew = 10.0 * jnp.where(success, 1.0, R.hamacher_product(reach, in_place))
  return rew, R.info(success, tcp_to_obj <= 0.01, jnp.ones_like(rew), reach, in_place, target_to_obj, rew)


def scripted(obs):
  """Rise, pass over the drawer to in front of its handle, drop to handle height, push it shut."""
  hand, handle = obs[..., 0:3], obs[..., 4:7]
  drwr = handle + jnp.array([0.0, 0.0, -0.02])
  x, y, z = hand[..., 0:1], hand[..., 1:2], hand[..., 2:3]
  beyond = y > drwr[..., 1:2]  # the hand is further forward than the handle
  low = z < drwr[..., 2:3] + 0.23
  rise = jnp.concatenate([x, y, drwr[..., 2:3] + 0.5], -1)
  over = drwr + jnp.array([0.0, -0.075, 0.23])
  drop = drwr + jnp.array([0.0, -0.075, 0.0])
  high = jnp.abs(z - drwr[..., 2:3]) > 0.04
  to = jnp.where(beyond, jnp.where(low, rise, over), jnp.where(high, drop, drwr))
  move = _drawer.move(hand, to, 25.0)
  return jnp.concatenate([move, jnp.ones_like(move[..., :1])], -1)


TASK = Task(
  name="drawer-close-v3",
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
