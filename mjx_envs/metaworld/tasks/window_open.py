"""window-open-v3: slide a window's sash open (along +x) by pushing its handle.

Reference: metaworld 3.1.1 `SawyerWindowOpenEnvV3` (reward version v2); the window model is shared
with window-close-v3 (`_window.py`, which lists its facts and differences).

Facts taken from the reference:
- rand_vec = window position, drawn from [(-0.1, 0.7, 0.16), (0.1, 0.9, 0.16)]; no rejection rule.
  obj_init_pos = rand_vec; target_pos = obj_init_pos + (0.2, 0, 0); the sash starts closed
  (window_slide = 0); window_handle_pos_init = site `handleOpenStart` after placing
  (obj_init_pos + (-0.04, -0.095, 0)); maxPullDist 0.2. hand_init_pos (0, 0.4, 0.2); hand bounds
  (-0.5, 0.40, 0.05) .. (0.5, 1, 0.5) (also the mocap bounds and the goal space).
- Observation: object = site `handleOpenStart`, quaternion zeros(4).
- Reward v2 reads the site itself (not the observation): x distance of the handle to the target
  (success <= TARGET_RADIUS 0.05, so the sash must open at least 0.19 of its 0.2), in_place =
  tolerance(bounds (0, 0.05), margin |obj_init_pos x - target x| - 0.05, long_tail), reach =
  tolerance(|handle - tcp|, bounds (0, 0.02), margin | |window_handle_pos_init - init_tcp| - 0.02 |,
  long_tail); reward = 10 hamacher(reach, in_place); grasp_success is always 1.

Deliberate differences: those of the window model (`_window.py`) and the hand (`sawyer.py`).
"""

from __future__ import annotations

from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import _window

import jax.numpy as jnp

SITE = "handleOpenStart"
READS = (
  "site:handleOpenStart",
  "tcp_center",
  "target_pos",
  "obj_init_pos",
  "window_handle_pos_init",
  "init_tcp",
)


def place(env, d, rand_vec):
  pos = rand_vec[:3]
  d = _window.place_window(env, d, pos, 0.0)
  return d, {
    "target_pos": pos + jnp.array([0.2, 0.0, 0.0]),
    "obj_init_pos": pos,
    "window_handle_pos_init": pos + jnp.asarray(_window.OPEN_SITE),
    "maxPullDist": 0.2,
  }


def reward(obs, action, reads):
  del obs, action
  return _window.reward(reads, SITE, "obj_init_pos", "long_tail")


def scripted(obs):
  """Push the handle's upper arm towards +x with the side of the closed gripper
  (`_window.push_controller`)."""
  return _window.push_controller(obs, +1.0)


TASK = Task(
  name="window-open-v3",
  objects_xml=_window.WINDOW_XML,
  hand_init_pos=(0.0, 0.4, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.5, 0.40, 0.05),
  goal_high=(0.5, 1.0, 0.5),
  rand_low=(-0.1, 0.7, 0.16),
  rand_high=(0.1, 0.9, 0.16),
  place=place,
  objects=_window.objects_at(SITE),
  reward=reward,
  reads=_window.site_reads(SITE),
)
