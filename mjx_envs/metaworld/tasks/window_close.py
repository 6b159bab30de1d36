"""window-close-v3: slide an open window's sash closed (along -x) by pushing its handle.

Reference: metaworld 3.1.1 `SawyerWindowCloseEnvV3` (reward version v2); the window model is shared
with window-open-v3 (`_window.py`, which lists its facts and differences).

Facts taken from the reference:
- rand_vec = window position, drawn from [(0, 0.75, 0.2), (0, 0.9, 0.2)]; no rejection rule.
  obj_init_pos = target_pos = rand_vec; the sash starts open (window_slide = 0.2);
  window_handle_pos_init = site `handleCloseStart` at slide 0 + (0.2, 0, 0) (= the site where the
  episode starts: obj_init_pos + (0.21, -0.095, 0)); maxPullDist 0.2. hand_init_pos (0, 0.4, 0.2);
  hand bounds (-0.5, 0.40, 0.05) .. (0.5, 1, 0.5) (also the mocap bounds and the goal space).
- Observation: object = site `handleCloseStart`, quaternion zeros(4).
- Reward v2 reads the site itself: x distance of the handle to the target (success <= 0.05: the sash
  must close to slide <= 0.04), in_place = tolerance(bounds (0, 0.05), margin
  |window_handle_pos_init x - target x| - 0.05, long_tail), reach = tolerance(|handle - tcp|, bounds
  (0, 0.02), margin | |window_handle_pos_init - init_tcp| - 0.02 |, gaussian); reward = 10
  hamacher(reach, in_place); grasp_success is always 1.

Deliberate differences: those of the window model (`_window.py`) and the hand (`sawyer.py`), and: the
reference's first observation after a reset shows the handle where the sash stood before the reset
sets window_slide = 0.2 (slide 0: it sets qpos without a forward pass); ours shows it where it is.
"""

from __future__ import annotations

from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import _window

import jax.numpy as jnp

SITE = "handleCloseStart"
READS = ("site:handleCloseStart", "tcp_center", "target_pos", "window_handle_pos_init", "init_tcp")


def place(env, d, rand_vec):
  pos = rand_vec[:3]
  d = _window.place_window(env, d, pos, 0.2)
  handle_init = pos + jnp.asarray(_window.CLOSE_SITE) + jnp.array([0.2, 0.0, 0.0])
  return d, {
    "target_pos": pos,
    "obj_init_pos": pos,
    "window_handle_pos_init": handle_init,
    "maxPullDist": 0.2,
  }


def reward(obs, action, reads):
  del obs, action
  return _window.reward(reads, SITE, "window_handle_pos_init", "gaussian")


def scripted(obs):
  """Push the handle's upper arm towards -x with the side of the closed gripper
  (`_window.push_controller`)."""
  return _window.push_controller(obs, -1.0)


TASK = Task(
  name="window-close-v3",
  objects_xml=_window.WINDOW_XML,
  hand_init_pos=(0.0, 0.4, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.5, 0.40, 0.05),
  goal_high=(0.5, 1.0, 0.5),
  rand_low=(0.0, 0.75, 0.2),
  rand_high=(0.0, 0.9, 0.2),
  place=place,
  objects=_window.objects_at(SITE),
  reward=reward,
  reads=_window.site_reads(SITE),
)
