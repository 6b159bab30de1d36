"""button-press-topdown-v3: press a button, mounted facing up in a box on the table, down from above.

Reference: metaworld 3.1.1 `SawyerButtonPressTopdownEnvV3` (reward version v2), its model
`sawyer_xyz/sawyer_button_press_topdown.xml` and `objects/assets/buttonbox.xml`.

Facts taken from the reference:
- The box (body `box`, euler (-1.57, 0, 0): its -y axis points up) stands at rand_vec = box position,
  drawn from [(-0.1, 0.8, 0.115), (0.1, 0.9, 0.115)]; no rejection rule. hand_init_pos (0, 0.4, 0.2),
  hand bounds (-0.5, 0.40, 0.05) .. (0.5, 1, 0.5) (also the mocap bounds and the goal space).
- The button box (`_button.py`, which holds its facts and its deliberate differences): the button
  slides along world +z; target_pos = site `hole`; `_obj_to_target_init` = maxDist = |hole z -
  buttonStart z| (0.0935). Observation: object position = the button's xpos + (0, 0, 0.193), the top of
  the cap; quaternion = the button's xquat ([w, x, y, z]).
- Reward v2 and `evaluate_state` as `reward` below; success when |target z - obj z| <= 0.024, which
  needs the button pushed 0.0695 m, beyond its 0.06 joint range: the reference's soft joint limit (and
  the soft contacts of the button's collar and cap with the box frame) give way under the hand's push.

Deliberate differences: the button box's (`_button.py`), and
- The hand's collision shape differs (see `sawyer.py`): the pads' bottoms are at the tcp, so the
  tcp rests on the cap's top (obj) while pressing; the reference's fingers rest ~2 cm lower.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.tasks import _button

import jax.numpy as jnp

BOX = _button.FACING_UP
SUCCESS_DIST = 0.024
HOLE_OFFSET, START_OFFSET = BOX.hole_offset, BOX.start_offset
OBJECTS_XML = BOX.xml
READS = _button.READS


def reward_with(obs, reads, grip):
  """The topdown tasks' v2 reward with `grip` as the hand term: 5 hamacher(grip, near_button) + 5
  button_pressed once the tcp is within 0.03 of the cap."""
  tcp_to_obj, obj_to_target, near_button, button_pressed = _button.press_terms(obs, reads, BOX, 0.01)
  rew = 5 * R.hamacher_product(grip, near_button)
  rew = rew + jnp.where(tcp_to_obj <= 0.03, 5 * button_pressed, 0.0)
  return rew, _button.info(obs, tcp_to_obj, obj_to_target, near_button, button_pressed, rew, SUCCESS_DIST)


def reward(obs, action, reads):
  del action
  return reward_with(obs, reads, 1 - obs[..., 3])  # the gripper closed


def scripted(obs):
  """Gripper closed; hover 5 cm above the cap until the hand is over it (xy within 1.2 cm), then lower
  the pads (their bottoms are at the tcp, 0.045 m below the hand) to 1.5 cm below the goal (the `hole`
  site, observed): the cap follows them down past the button's soft joint limit and stops near the
  goal."""
  hand, obj, goal = obs[..., 0:3], obs[..., 4:7], obs[..., 36:39]
  # with the gripper closed the tcp sits 5 mm to +y of the hand: centre the pads on the cap
  want_xy = obj[..., :2] - jnp.array([0.0, 0.005])
  err_xy = jnp.linalg.norm(hand[..., :2] - want_xy, axis=-1)
  above = obj[..., 2] + 0.045 + 0.05
  press = goal[..., 2] + 0.045 - 0.015
  low = hand[..., 2] < obj[..., 2] + 0.045 + 0.02
  descend = (err_xy < 0.012) | (low & (err_xy < 0.03))
  z = jnp.where(descend, press, jnp.maximum(above, hand[..., 2]))
  want = jnp.concatenate([want_xy, z[..., None]], -1)
  move = jnp.clip((want - hand) * 25.0, -1.0, 1.0)
  return jnp.concatenate([move, jnp.ones(move.shape[:-1] + (1,))], -1)


TASK = _button.task(
  "button-press-topdown-v3", BOX, reward, rand_low=(-0.1, 0.8, 0.115), rand_high=(0.1, 0.9, 0.115)
)
