"""button-press-topdown-wall-v3: button-press-topdown-v3 with a low wall in front of the box.

Reference: metaworld 3.1.1 `SawyerButtonPressTopdownWallEnvV3` (reward version v2), its model
`sawyer_xyz/sawyer_button_press_topdown_wall.xml` (`objects/assets/buttonbox.xml`, `objects/assets/wall.xml`).

Facts taken from the reference: those of button-press-topdown-v3 (`button_press_topdown.py`: the box
facing up at rand_vec from [(-0.1, 0.8, 0.115), (0.1, 0.9, 0.115)], the hand's start and bounds, target =
site `hole`, the observation, success |target z - obj z| <= 0.024), and
- the wall (`_button.wall_xml`) at body (0.1, 0.7, 0): x 0 .. 0.2, y 0.69 .. 0.71, z 0 .. 0.15, under the
  path of a hand that reaches the cap (its top 0.308 m up) from above;
- reward v2: 5 hamacher(max(obs[3], 0), near_button) + 5 button_pressed where |obj - tcp| <= 0.03: the
  topdown reward with the gripper's opening where button-press-topdown-v3 has 1 - opening.

Deliberate differences: the button box's (`_button.py`), the hand's (`sawyer.py`).

The scripted controller is button-press-topdown-v3's (the wall is below its path). Measured
(benchmarks/scripted_success.py, C backend, 100 episodes of 500 steps, 2026-11-26): 100/100; the
reference's own policy in the reference succeeds at steps 52-55 (the fixture's three scripted episodes).
Parity (fixture `metaworld_reference_press`): reward and info within the default 1e-4.
"""

from __future__ import annotations

from mjx_envs.metaworld.tasks import _button, button_press_topdown

import jax.numpy as jnp

READS = _button.READS
scripted = button_press_topdown.scripted


def reward(obs, action, reads):
  del action
  return button_press_topdown.reward_with(obs, reads, jnp.maximum(obs[..., 3], 0.0))


TASK = _button.task(
  "button-press-topdown-wall-v3",
  _button.FACING_UP,
  reward,
  rand_low=(-0.1, 0.8, 0.115),
  rand_high=(0.1, 0.9, 0.115),
  extra_xml=_button.wall_xml(0.7),
)
