"""button-press-v3: press a button, mounted in a box facing the robot, along +y.

Reference: metaworld 3.1.1 `SawyerButtonPressEnvV3` (reward version v2), its model
`sawyer_xyz/sawyer_button_press.xml` and `objects/assets/buttonbox.xml`.

Facts taken from the reference:
- The box (body `box`, not rotated: the button slides along world -y, towards the robot, and is pressed
  along +y) stands at rand_vec = box position, drawn from [(-0.1, 0.85, 0.115), (0.1, 0.9, 0.115)]; no
  rejection rule. hand_init_pos (0, 0.4, 0.2), hand bounds (-0.5, 0.40, 0.05) .. (0.5, 1, 0.5) (also the
  mocap bounds and the goal space).
- The button box (`_button.py`, which holds its facts and its deliberate differences): target_pos = site
  `hole` (box + (0, -0.1, 0)); `_obj_to_target_init` = maxDist = |hole y - buttonStart y| (0.0935).
  Observation: object position = the button's xpos + (0, -0.193, 0), the cap's face; quaternion = the
  button's xquat ([w, x, y, z]).
- Reward v2: near_button = tolerance(|obj - tcp|, (0, 0.05), margin |obj - init_tcp|, long_tail);
  button_pressed = tolerance(|target y - obj y|, (0, 0.005), margin _obj_to_target_init, long_tail);
  reward = 2 hamacher(max(obs[3], 0), near_button) + 8 button_pressed where |obj - tcp| <= 0.05.
  Success: |target y - obj y| <= 0.02, the button pushed 0.0735 m, past its 0.06 joint range (the soft
  limit gives way under the hand's push).

Deliberate differences: the button box's (`_button.py`), and the hand's (`sawyer.py`).

The scripted controller (written for this model): gripper closed; in front of the cap (8 cm towards the
robot, the hand 3 cm above the cap's centre so that the pads, which reach 4.5 cm below the hand, cover
the cap) until the hand is in line (x and z within 1 cm), then along +y to 3 cm past the goal. Measured
(benchmarks/scripted_success.py, C backend, 100 episodes of 500 steps, 2026-11-26): 100/100; the
reference's own policy in the reference succeeds at steps 59-61 (the fixture's three scripted episodes).
Parity (test_metaworld_parity.py, fixture `metaworld_reference_press`): reward and info within the
default 1e-4.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.tasks import _button

import jax.numpy as jnp

BOX = _button.FACING_ROBOT
SUCCESS_DIST = 0.02
READS = _button.READS


def reward(obs, action, reads):
  del action
  tcp_to_obj, obj_to_target, near_button, button_pressed = _button.press_terms(obs, reads, BOX, 0.05)
  tcp_open = jnp.maximum(obs[..., 3], 0.0)
  rew = 2 * R.hamacher_product(tcp_open, near_button)
  rew = rew + jnp.where(tcp_to_obj <= 0.05, 8 * button_pressed, 0.0)
  return rew, _button.info(obs, tcp_to_obj, obj_to_target, near_button, button_pressed, rew, SUCCESS_DIST)


def press_along_y(obs, lift: float = 0.03, back: float = 0.08, past: float = 0.03):
  """Closed gripper; in front of the cap (`back` towards the robot, the hand `lift` above the cap's
  centre) until x and z are within 1 cm, then along +y to `past` beyond the goal."""
  hand, obj, goal = obs[..., 0:3], obs[..., 4:7], obs[..., 36:39]
  err_xz = jnp.maximum(jnp.abs(hand[..., 0] - obj[..., 0]), jnp.abs(hand[..., 2] - obj[..., 2] - lift))
  aligned = err_xz < 0.01
  y = jnp.where(aligned, goal[..., 1] + past, obj[..., 1] - back)
  want = jnp.stack([obj[..., 0], y, obj[..., 2] + lift], -1)
  move = jnp.clip((want - hand) * 25.0, -1.0, 1.0)
  return jnp.concatenate([move, jnp.ones(move.shape[:-1] + (1,))], -1)


def scripted(obs):
  """`press_along_y` with its defaults."""
  return press_along_y(obs)


TASK = _button.task("button-press-v3", BOX, reward, rand_low=(-0.1, 0.85, 0.115), rand_high=(0.1, 0.9, 0.115))
