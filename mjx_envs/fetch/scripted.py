"""Scripted experts for the Fetch tasks: `scripted_controller(env) -> mjx_envs.scripted.Controller`.

They read privileged state (the MJX qpos/qvel and `info['goal']`) of ONE env state and are pure,
jittable and vmappable; the wrappers' keys in `state.info` are ignored, so they also work on a wrapped
(or goal-flattened) env's states. Every object motion comes from the physics: the controllers only emit
actions in [-1, 1] (a gripper displacement of up to 0.05 m per step and a finger target).

- Reach: proportional move of the tcp to the goal.
- Push: lift, move behind the object (on the goal->object line), lower, push it to the goal while
  correcting sideways drift; re-approach if it slips off the line.
- PickAndPlace: open above the object, descend, close, then carry the object to the goal.
- Slide: lift, move behind the puck, lower, then strike it towards the goal: accelerate the puck while in
  contact until its speed is what friction needs to stop it at the goal (v = sqrt(2 * mu_eff * g * D)),
  then stop the gripper so the puck slides free.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from mjx_envs.scripted import Controller

_STEP = 0.05  # metres per unit action (env.MAX_POS_CHANGE)


def _unit(v, eps=1e-6):
  return v / jnp.maximum(jnp.linalg.norm(v), eps)


def _move(delta, gain=1.0):
  """Action [3] moving the tcp by `delta` metres (clipped to one step)."""
  return jnp.clip(gain * delta / _STEP, -1.0, 1.0)


class _Read:
  """Privileged reads of one env state."""

  def __init__(self, env):
    self.env = env
    self.g = env.gripper

  def tcp(self, s):
    q = s.pipeline_state.qpos
    return q[self.g.free_qpos:self.g.free_qpos + 3]

  def obj(self, s):
    q = s.pipeline_state.qpos
    return q[self.env._obj_qpos:self.env._obj_qpos + 3]  # pylint: disable=protected-access

  def obj_vel(self, s):
    v = s.pipeline_state.qvel
    return v[self.env._obj_qvel:self.env._obj_qvel + 3]  # pylint: disable=protected-access

  def goal(self, s):
    return s.info["goal"]

  @property
  def table_z(self):
    return self.env._table_z  # pylint: disable=protected-access


def reach_controller(env) -> Controller:
  r = _Read(env)

  def init(state):
    return jnp.zeros((), jnp.int32)

  def act(carry, state):
    a = _move(r.goal(state) - r.tcp(state))
    return jnp.concatenate([a, jnp.zeros(1)]), carry

  return Controller(init, act)


def pick_and_place_controller(env) -> Controller:
  """Phases: 0 above the object (open), 1 descend (open), 2 close, 3 carry to the goal (closed)."""
  r = _Read(env)
  grasp_z = r.table_z + 0.008        # tcp height for the grasp (fingertips just above the table)
  hover = 0.06                       # tcp height above the grasp height while aligning

  def init(state):
    return {"phase": jnp.zeros((), jnp.int32), "t": jnp.zeros((), jnp.int32)}

  def act(carry, state):
    phase, t = carry["phase"], carry["t"]
    tcp, obj, goal = r.tcp(state), r.obj(state), r.goal(state)
    above = jnp.concatenate([obj[:2], jnp.array([grasp_z + hover])])
    grasp = jnp.concatenate([obj[:2], jnp.array([grasp_z])])
    xy_err = jnp.linalg.norm(tcp[:2] - obj[:2])
    # phase transitions
    phase = jnp.where((phase == 0) & (xy_err < 0.01) & (tcp[2] < grasp_z + hover + 0.02), 1, phase)
    phase = jnp.where((phase == 1) & (tcp[2] < grasp_z + 0.006) & (xy_err < 0.01), 2, phase)
    t = jnp.where(phase == 2, t + 1, 0)
    phase = jnp.where((phase == 2) & (t > 3), 3, phase)
    # if the object slipped out during carry, start over
    lost = (phase == 3) & (jnp.linalg.norm(obj - tcp - jnp.array([0, 0, 0.025])) > 0.04)
    phase = jnp.where(lost, 0, phase)

    # While aligning, keep low once close (avoid a long descent), else move in xy first.
    move_above = jnp.where(xy_err > 0.02, jnp.concatenate([above[:2], jnp.maximum(tcp[2:], above[2:])]),
                           above)
    target = jnp.where(phase == 0, move_above,
             jnp.where(phase == 1, grasp,
             jnp.where(phase == 2, tcp,
                       tcp + (goal - obj))))
    fingers = jnp.where(phase <= 1, 1.0, -1.0)
    a = jnp.concatenate([_move(target - tcp), fingers[None]])
    return a, {"phase": phase, "t": t}

  return Controller(init, act)


def push_controller(env) -> Controller:
  """Phases: 0 lift, 1 move behind (high), 2 lower, 3 push."""
  r = _Read(env)
  low = r.table_z + 0.014            # tcp height when pushing (the reference's initial height)
  high = r.table_z + 0.075           # clears the object (its top is table + 0.05)
  back = 0.06                        # tcp distance behind the object centre before pushing
  contact = 0.04                     # tcp distance behind the object centre while pushing

  def init(state):
    return {"phase": jnp.zeros((), jnp.int32)}

  def act(carry, state):
    phase = carry["phase"]
    tcp, obj, goal = r.tcp(state), r.obj(state), r.goal(state)
    to_goal = goal[:2] - obj[:2]
    u = _unit(to_goal)
    rel = tcp[:2] - obj[:2]
    s = rel @ u                                  # along the push line (negative: behind)
    e = rel @ jnp.array([-u[1], u[0]])           # sideways
    behind = obj[:2] - u * back
    near_xy = jnp.linalg.norm(tcp[:2] - behind) < 0.012
    misaligned = (jnp.abs(e) > 0.02) | (s > -0.02)
    done = jnp.linalg.norm(to_goal) < 0.01
    # 3 (push) -> 0 (lift) when the object slipped off the line; 2 -> 3 when low enough.
    phase = jnp.where((phase == 3) & misaligned & ~done, 0, phase)
    phase = jnp.where((phase == 0) & (tcp[2] > high - 0.01), 1, phase)
    phase = jnp.where((phase == 1) & near_xy, 2, phase)
    phase = jnp.where((phase == 2) & (tcp[2] < low + 0.006), 3, phase)
    # From the start, skip the lift if already behind the object.
    phase = jnp.where((phase == 0) & (s < -back + 0.015) & (jnp.abs(e) < 0.01) & (tcp[2] < low + 0.01),
                      3, phase)

    push_target = goal[:2] - u * contact         # where the tcp is when the object is at the goal
    lateral = -e * jnp.array([-u[1], u[0]])      # steer back onto the line
    push_xy = tcp[:2] + _unit(push_target - tcp[:2]) * jnp.minimum(
        jnp.linalg.norm(push_target - tcp[:2]), _STEP) + lateral
    push_xy = jnp.where(done, tcp[:2], push_xy)
    target = jnp.where(phase == 0, jnp.concatenate([tcp[:2], jnp.array([high])]),
             jnp.where(phase == 1, jnp.concatenate([behind, jnp.array([high])]),
             jnp.where(phase == 2, jnp.concatenate([behind, jnp.array([low])]),
                       jnp.concatenate([push_xy, jnp.array([low])]))))
    a = jnp.concatenate([_move(target - tcp), jnp.zeros(1)])
    return a, {"phase": phase}

  return Controller(init, act)


def slide_controller(env, mu_eff: float = 0.1 * 9.81) -> Controller:
  """Phases: 0 lift, 1 move behind (high), 2 lower, 3 strike, 4 released (hold still)."""
  r = _Read(env)
  low = r.table_z + 0.012
  high = r.table_z + 0.065
  back = 0.07

  def init(state):
    return {"phase": jnp.zeros((), jnp.int32)}

  def act(carry, state):
    phase = carry["phase"]
    tcp, obj, goal = r.tcp(state), r.obj(state), r.goal(state)
    vel = r.obj_vel(state)
    to_goal = goal[:2] - obj[:2]
    dist = jnp.linalg.norm(to_goal)
    u = _unit(to_goal)
    rel = tcp[:2] - obj[:2]
    s = rel @ u
    e = rel @ jnp.array([-u[1], u[0]])
    behind = obj[:2] - u * back
    near_xy = jnp.linalg.norm(tcp[:2] - behind) < 0.012
    v_need = jnp.sqrt(2.0 * mu_eff * dist)
    v_now = vel[:2] @ u
    phase = jnp.where((phase == 0) & (tcp[2] > high - 0.01), 1, phase)
    phase = jnp.where((phase == 1) & near_xy, 2, phase)
    phase = jnp.where((phase == 2) & (tcp[2] < low + 0.006), 3, phase)
    phase = jnp.where((phase == 3) & (v_now >= v_need), 4, phase)
    lateral = -e * jnp.array([-u[1], u[0]])
    strike_xy = tcp[:2] + u * _STEP + lateral
    target = jnp.where(phase == 0, jnp.concatenate([tcp[:2], jnp.array([high])]),
             jnp.where(phase == 1, jnp.concatenate([behind, jnp.array([high])]),
             jnp.where(phase == 2, jnp.concatenate([behind, jnp.array([low])]),
             jnp.where(phase == 3, jnp.concatenate([strike_xy, jnp.array([low])]),
                       tcp))))
    a = jnp.concatenate([_move(target - tcp), jnp.zeros(1)])
    return a, {"phase": phase}

  return Controller(init, act)


def scripted_controller(env) -> Controller:
  """The scripted expert for a Fetch env (unwrapped or wrapped)."""
  inner = env.unwrapped
  task = inner.task
  return {"FetchReach": reach_controller, "FetchPush": push_controller,
          "FetchSlide": slide_controller, "FetchPickAndPlace": pick_and_place_controller}[task](inner)
