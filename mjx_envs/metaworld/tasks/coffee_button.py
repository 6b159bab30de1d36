"""coffee-button-v3: press the coffee machine's button (along +y, into the machine).

Reference: metaworld 3.1.1 `SawyerCoffeeButtonEnvV3` (reward version v2); the machine and mug are shared
with coffee-push-v3 and coffee-pull-v3 (`_coffee.py`, which lists their facts and differences).

Facts taken from the reference:
- rand_vec = the machine's position, drawn from [(-0.1, 0.8, -0.001), (0.1, 0.9, 0.001)]; no rejection
  rule. obj_init_pos = rand_vec; the mug is placed at machine + (0, -0.22, 0) (under the spout); target_pos
  = machine + (0, -0.22, 0.3) + (0, max_dist 0.03, 0) (the button's face pressed fully in); maxDist = |site
  buttonStart y - target y|. hand_init_pos (0, 0.4, 0.2); hand bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5)
  (also the mocap bounds); goal space rand bounds + (-0.001, -0.19, 0.299) .. (+0.001, -0.19, 0.301).
- Observation: object = site `buttonStart`; quaternion (1, 0, 0, 0) (a constant in the reference).
- Reward v2: the button tasks' (`_button.press_terms` along y) with the pressed term's margin max_dist
  0.03: near_button = tolerance(|obj - tcp|, (0, 0.05), margin |obj - init_tcp|, long_tail);
  button_pressed = tolerance(|target y - obj y|, (0, 0.005), margin 0.03, long_tail); reward =
  2 hamacher(max(obs[3], 0), near_button), + 8 button_pressed where |obj - tcp| <= 0.05. Success:
  |target y - obj y| <= 0.02 (pressed 1 cm of its 3). near_object |obj - tcp| <= 0.05, grasp_success
  obs[3] > 0.

Deliberate differences: the machine's (`_coffee.py`) and the hand's (`sawyer.py`).

The scripted controller: `button_press.press_along_y` (the closed gripper in line with the button's face,
then along +y to 3 cm past the goal). Measured (benchmarks/scripted_success.py, C backend, 100 episodes of 500
steps, 2026-11-26): 100/100, first successes at steps 23-28 (8 episodes).
Parity (test_metaworld_parity.py, fixture `metaworld_reference_dials`): reward and info within the default
1e-4; first observed pose within the default 1 mm.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import _button, _coffee, button_press

import jax.numpy as jnp

MAX_DIST = 0.03
READS = ("tcp_center", "init_tcp", "target_pos")
Y = _button.FACING_ROBOT  # pressed along world y, as the button box facing the robot


def place(env, d, rand_vec):
  machine = rand_vec[:3]
  d = _coffee.place(env, d, machine, machine + jnp.asarray(_coffee.MUG_UNDER_SPOUT))
  start = machine + jnp.asarray(_coffee.BUTTON_START)
  target = start + jnp.array([0.0, MAX_DIST, 0.0])
  return d, {"target_pos": target, "obj_init_pos": machine, "maxDist": jnp.abs(start[1] - target[1])}


def objects(env, d):
  return d.site_xpos[env.mj_model.site("buttonStart").id], jnp.array([1.0, 0.0, 0.0, 0.0])


def reward(obs, action, reads):
  del action
  reads = {**reads, "_obj_to_target_init": MAX_DIST}
  tcp_to_obj, obj_to_target, near_button, button_pressed = _button.press_terms(obs, reads, Y, 0.05)
  rew = 2 * R.hamacher_product(jnp.maximum(obs[..., 3], 0.0), near_button)
  rew = rew + jnp.where(tcp_to_obj <= 0.05, 8 * button_pressed, 0.0)
  return rew, _button.info(obs, tcp_to_obj, obj_to_target, near_button, button_pressed, rew, 0.02)


def scripted(obs):
  return button_press.press_along_y(obs)


TASK = Task(
  name="coffee-button-v3",
  objects_xml=_coffee.XML,
  hand_init_pos=(0.0, 0.4, 0.2),
  hand_low=(-0.5, 0.4, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.101, 0.61, 0.298),
  goal_high=(0.101, 0.71, 0.302),
  rand_low=(-0.1, 0.8, -0.001),
  rand_high=(0.1, 0.9, 0.001),
  place=place,
  objects=objects,
  reward=reward,
)
