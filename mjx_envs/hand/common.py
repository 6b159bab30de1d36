"""What the Shadow hand tasks share: the hand's servo control and joint indices (`HandServos`) and the
checks of their common config keys (`validate_common`).

Control is gymnasium-robotics 1.4.2's `MujocoHandEnv._set_action`: an action [20] in [-1, 1] sets the 20
position servos' targets to the control range's centre + a * its half width (absolute control), or, with
`relative_control`, centred on the servo's joint position (J1's centre being J1 + J0, the distal joint
it drives through the coupling tendon), clipped to the control range.
"""

from __future__ import annotations

from mjx_envs.core import ConfigError, check_impl, sanitize_action
from mjx_envs.hand import model as hand_model

import math
from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import mujoco
import numpy as np


def _number_in(name: str, cfg: Mapping[str, Any], key: str, low: float, high: float) -> None:
  v = cfg[key]
  ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
  if not (ok and math.isfinite(float(v)) and low < float(v) <= high):
    raise ConfigError(f"{name}: config {key!r} must be a number in ({low}, {high}], got {v!r}")


def validate_common(name: str, cfg: Mapping[str, Any], thresholds=("distance_threshold",)) -> None:
  """Raises ConfigError naming the key for an invalid value of the keys every hand task has:
  reward_type, the `thresholds` (numbers in (0, 1]), sim_dt, episode_length, n_substeps, iterations,
  ls_iterations, relative_control, cone, impl."""
  if cfg["reward_type"] not in ("sparse", "dense"):
    raise ConfigError(f"{name}: config 'reward_type' must be 'sparse' or 'dense', got {cfg['reward_type']!r}")
  for key in thresholds:
    _number_in(name, cfg, key, 0.0, 1.0)
  _number_in(name, cfg, "sim_dt", 0.0, 0.04)
  for key in ("episode_length", "n_substeps", "iterations", "ls_iterations"):
    v = cfg[key]
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
      raise ConfigError(f"{name}: config {key!r} must be an integer >= 1, got {v!r}")
  if not isinstance(cfg["relative_control"], (bool, np.bool_)):
    raise ConfigError(
      f"{name}: config 'relative_control' must be True or False, got {cfg['relative_control']!r}"
    )
  if cfg["cone"] not in ("pyramidal", "elliptic"):
    raise ConfigError(f"{name}: config 'cone' must be 'pyramidal' or 'elliptic', got {cfg['cone']!r}")
  try:
    check_impl(cfg["impl"])
  except ConfigError as e:
    raise ConfigError(f"{name}: config 'impl': {e}") from None


def check_keys(name: str, cfg: Mapping[str, Any], defaults: Mapping[str, Any]) -> None:
  """Raises ConfigError listing the keys of `cfg` that `defaults` does not have."""
  unknown = sorted(set(cfg) - set(defaults))
  if unknown:
    raise ConfigError(f"{name}: unknown config key(s) {unknown}; valid keys are {sorted(defaults)}")


class HandServos:
  """Mixin of the hand envs (before their GoalEnv base): `_setup_servos(model)` reads the joint and servo
  indices, `ctrl_for` maps an action to servo targets, `step` steps. Expects `self.relative_control`
  and `self._obs(data, goal)`."""

  relative_control: bool = False

  def _setup_servos(self, m: mujoco.MjModel) -> None:
    self._qpos_idx = np.array([m.joint(j).qposadr[0] for j in hand_model.JOINTS])
    self._qvel_idx = np.array([m.joint(j).dofadr[0] for j in hand_model.JOINTS])
    act_joints = [m.joint(m.actuator_trnid[i, 0]).name for i in range(m.nu)]
    self._act_qpos = np.array([m.joint(j).qposadr[0] for j in act_joints])
    # Relative control: J1's centre is J1 + J0 (the reference's `_set_action`); -1 where nothing is added.
    self._act_coupled = np.array(
      [
        m.joint(j.replace("J1", "J0")).qposadr[0] if j in ("FFJ1", "MFJ1", "RFJ1", "LFJ1") else -1
        for j in act_joints
      ]
    )
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    self._ctrl_lo, self._ctrl_hi = lo.astype(np.float32), hi.astype(np.float32)
    self._ctrl_centre = ((lo + hi) / 2).astype(np.float32)
    self._ctrl_half = ((hi - lo) / 2).astype(np.float32)

  def ctrl_for(self, qpos: jax.Array, action: jax.Array) -> jax.Array:
    """Servo targets [20] for a clean action [20] in the state with joint positions `qpos` (full qpos)."""
    if self.relative_control:
      coupled = jnp.where(self._act_coupled >= 0, qpos[jnp.maximum(self._act_coupled, 0)], 0.0)
      centre = qpos[self._act_qpos] + coupled
    else:
      centre = jnp.asarray(self._ctrl_centre)
    ctrl = centre + action * jnp.asarray(self._ctrl_half)
    return jnp.clip(ctrl, self._ctrl_lo, self._ctrl_hi).astype(jnp.float32)

  def step(self, state, action: jax.Array):
    """One control step: the sanitised action's servo targets, `n_substeps` of physics, the env's
    observation (`_obs(data, goal)`), reward and success (GoalEnv.next_state)."""
    action, bad = sanitize_action(action)
    d = state.pipeline_state
    d = self.physics_step(d, ctrl=self.ctrl_for(d.qpos, action))
    return self.next_state(state, d, self._obs(d, state.info["goal"]), bad)

  def hand_obs(self, d) -> jax.Array:
    """The hand's joint positions [24] then velocities [24] (JOINTS order), the observations' head."""
    return jnp.concatenate([d.qpos[self._qpos_idx], d.qvel[self._qvel_idx]])
