"""Scripted experts for the Fetch tasks: `scripted_controller(env) -> mjx_envs.scripted.Controller`.

They read privileged state (the MJX qpos/qvel and `info['goal']`) of ONE env state and are pure,
jittable and vmappable; the wrappers' keys in `state.info` are ignored, so they also work on a wrapped
(or goal-flattened) env's states. Every object motion comes from the physics: the controllers only emit
actions in [-1, 1] (a gripper displacement of up to 0.05 m per step and a finger target).

- Reach: proportional move of the tcp to the goal.
- Push: lift, move behind the object (on the goal->object line), lower, push it to the goal while
  correcting sideways drift; re-approach if it slips off the line.
- PickAndPlace: open above the object, descend, close, then carry the object to the goal.
- Slide: lift, move behind the puck, lower, then give it the speed at which friction stops it at the
  goal (v = sqrt(2 * mu * g * D)): either carry it in contact up to that speed and stop (when the
  arm's reach leaves room), or run up and hit it (the contact's restitution adds ~20 %).
"""

from __future__ import annotations

from mjx_envs.fetch.env import FINGER_HALF, OBJECT_HALF, SLIDE_FRICTION, TIP_BELOW_TCP
from mjx_envs.scripted import Controller

import jax.numpy as jnp

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
    return q[self.g.free_qpos : self.g.free_qpos + 3]

  def obj(self, s):
    q = s.pipeline_state.qpos
    return q[self.env._obj_qpos : self.env._obj_qpos + 3]  # pylint: disable=protected-access

  def obj_vel(self, s):
    v = s.pipeline_state.qvel
    return v[self.env._obj_qvel : self.env._obj_qvel + 3]  # pylint: disable=protected-access

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
  grasp_z = r.table_z + OBJECT_HALF["FetchPickAndPlace"][2]  # tcp at the object's centre height
  hover = 0.07  # tcp height above the grasp height while aligning

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
    lost = (phase == 3) & (jnp.linalg.norm(obj - tcp) > 0.04)
    phase = jnp.where(lost, 0, phase)

    # While aligning, keep low once close (avoid a long descent), else move in xy first.
    move_above = jnp.where(
      xy_err > 0.02, jnp.concatenate([above[:2], jnp.maximum(tcp[2:], above[2:])]), above
    )
    target = jnp.where(
      phase == 0, move_above, jnp.where(phase == 1, grasp, jnp.where(phase == 2, tcp, tcp + (goal - obj)))
    )
    fingers = jnp.where(phase <= 1, 1.0, -1.0)
    a = jnp.concatenate([_move(target - tcp), fingers[None]])
    return a, {"phase": phase, "t": t}

  return Controller(init, act)


def push_controller(
  env,
  push_step: float = 0.03,
  touch_step: float = 0.012,
  done_radius: float = 0.015,
  undone_radius: float = 0.035,
  misalign: float = 0.02,
  lateral_gain: float = 1.0,
) -> Controller:
  """Phases: 0 lift, 1 move behind the object (high), 2 go down / across to the point behind it, 3 push,
  4 back off (low) after slipping off the line. Once the object is within `done_radius` of the goal the
  gripper holds still (until the object is more than `undone_radius` away)."""
  r = _Read(env)
  low = r.table_z + TIP_BELOW_TCP + 0.004  # tcp height when pushing: fingertips 4 mm above the table
  high = r.table_z + TIP_BELOW_TCP + 0.07  # fingertips clear the object (its top is table + 0.05)
  contact = 0.025 + FINGER_HALF[0] + 0.002  # tcp distance behind the object centre while pushing
  back = contact + 0.025  # tcp distance behind the object centre before pushing
  clear = contact + 0.017  # behind the object by this much, the gripper can move sideways

  def init(state):
    return {"phase": jnp.zeros((), jnp.int32), "done": jnp.zeros((), jnp.bool_)}

  def act(carry, state):
    phase = carry["phase"]
    tcp, obj, goal = r.tcp(state), r.obj(state), r.goal(state)
    to_goal = goal[:2] - obj[:2]
    dist = jnp.linalg.norm(to_goal)
    u = _unit(to_goal)
    perp = jnp.array([-u[1], u[0]])
    rel = tcp[:2] - obj[:2]
    s = rel @ u  # along the push line (negative: behind)
    e = rel @ perp  # sideways
    behind = obj[:2] - u * back
    near_xy = jnp.linalg.norm(tcp[:2] - behind) < 0.012
    done = (dist < done_radius) | (carry["done"] & (dist < undone_radius))
    # Pushing and slipped off the line: back off low if still behind the object, else lift.
    off_line = (phase == 3) & ~done & ((jnp.abs(e) > misalign) | (s > -0.02))
    phase = jnp.where(off_line, jnp.where(s < -0.025, 4, 0), phase)
    phase = jnp.where((phase == 4) & (s < -clear), 2, phase)
    phase = jnp.where((phase == 0) & (tcp[2] > high - 0.01), 1, phase)
    phase = jnp.where((phase == 1) & near_xy, 2, phase)
    phase = jnp.where((phase == 2) & (tcp[2] < low + 0.006) & near_xy, 3, phase)
    # From the start, skip the lift if already behind the object.
    phase = jnp.where(
      (phase == 0) & (s < -back + 0.015) & (jnp.abs(e) < 0.01) & (tcp[2] < low + 0.01), 3, phase
    )

    push_target = goal[:2] - u * contact  # where the tcp is when the object is at the goal
    lateral = -lateral_gain * e * perp  # steer back onto the line
    # Touch the object slowly (an impact can tip it over), then push.
    step_len = jnp.where(-s > contact + 0.004, touch_step, push_step)
    push_xy = (
      tcp[:2]
      + _unit(push_target - tcp[:2]) * jnp.minimum(jnp.linalg.norm(push_target - tcp[:2]), step_len)
      + lateral
    )
    target = jnp.where(
      phase == 0,
      jnp.concatenate([tcp[:2], jnp.array([high])]),
      jnp.where(
        phase == 1,
        jnp.concatenate([behind, jnp.array([high])]),
        jnp.where(
          phase == 2,
          jnp.concatenate([behind, jnp.array([low])]),
          jnp.where(
            phase == 3,
            jnp.concatenate([push_xy, jnp.array([low])]),
            jnp.concatenate([tcp[:2] - 0.03 * u, jnp.array([low])]),
          ),
        ),
      ),
    )
    target = jnp.where(done, tcp, target)
    a = jnp.concatenate([_move(target - tcp), jnp.zeros(1)])
    return a, {"phase": phase, "done": done}

  return Controller(init, act)


def slide_controller(
  env,
  mu_eff: float = SLIDE_FRICTION * 9.81,
  accel: float = 5.0,
  max_accel: float = 20.0,
  approach_speed: float = 0.1,
  lateral_gain: float = 5.0,
  hold_steps: int = 3,
  jerk_steps: int = 2,
  approach_frac: float = 0.6,
  room_per_speed: float = 0.14,
  bounce: float = 1.2,
  mode: str = "auto",
) -> Controller:
  """Strike the puck so that friction stops it at the goal.

  A puck released at speed v slides D = v**2 / (2 * mu_eff); v_need = sqrt(2 * mu_eff * D), D the puck's
  distance to the goal. Two ways to give it that speed, chosen per episode (`mode` 'auto'):

  - carry (enough room before the workspace edge): touch the puck gently, ramp the gripper's speed up
    to v_need with the puck in contact, hold it for `hold_steps` control steps, stop; the puck slides
    free at the gripper's speed. Needs about `room_per_speed * v_need` metres of travel.
  - hit (puck close to the edge of the arm's reach): run up from further behind at v_need / `bounce` and hit
    the puck, which leaves `bounce` times faster than the gripper (the contact's restitution).

  Phases: 0 lift, 1 move behind the puck (high), 2 lower, 3 approach / run up, 4 accelerate in contact,
  5 hold, 6 released (stop, back off). Phases 3-5 command the velocity of the mocap target (read from
  the privileged state), not of the lagging gripper.
  """
  r = _Read(env)
  low = r.table_z + TIP_BELOW_TCP + 0.004
  high = r.table_z + TIP_BELOW_TCP + 0.06
  back = 0.055
  dt = env.dt
  mocap = env.gripper.mocap
  ph, pw = 0.025, 0.025  # puck half extents (x, y)

  def init(state):
    zero = jnp.zeros((), jnp.float32)
    return {
      "phase": jnp.zeros((), jnp.int32),
      "v": zero,
      "acc": zero,
      "t": jnp.zeros((), jnp.int32),
      "hit": jnp.zeros((), jnp.bool_),
      "v_hit": zero,
    }

  def act(carry, state):
    phase, v_m, acc, t = carry["phase"], carry["v"], carry["acc"], carry["t"]
    hit, v_hit = carry["hit"], carry["v_hit"]
    tcp, obj, goal = r.tcp(state), r.obj(state), r.goal(state)
    mpos = state.pipeline_state.mocap_pos[mocap]
    x_max = env.reach_x_max(mpos[1], low)  # the arm's reach along x at the pushing height
    to_goal = goal[:2] - obj[:2]
    dist = jnp.linalg.norm(to_goal)
    u = _unit(to_goal)
    perp = jnp.array([-u[1], u[0]])
    rel = tcp[:2] - obj[:2]
    s = rel @ u
    e = rel @ perp
    contact = (
      ph * jnp.abs(u[0])
      + pw * jnp.abs(u[1])
      + FINGER_HALF[0] * jnp.abs(u[0])
      + 2 * FINGER_HALF[1] * jnp.abs(u[1])
    )
    # Speed that stops the puck at the goal if released one step from now, after moving v*dt more:
    # v = sqrt(2 mu (D - v dt))  =>  v = sqrt((mu dt)^2 + 2 mu D) - mu dt.
    v_need = jnp.sqrt((mu_eff * dt) ** 2 + 2.0 * mu_eff * dist) - mu_eff * dt
    room = (x_max - mpos[0]) / jnp.maximum(u[0], 1e-3)  # mocap travel left along u

    # Choose carry or hit while still positioning (the puck has not moved yet).
    puck_room = (x_max - (obj[0] - u[0] * contact)) / jnp.maximum(u[0], 1e-3)
    choose = phase <= 1
    hit = jnp.where(
      choose, {"auto": puck_room < room_per_speed * v_need, "carry": False, "hit": True}[mode], hit
    )
    v_hit = jnp.where(choose, v_need / bounce, v_hit)
    runup = 0.16 * v_hit + 0.01
    behind = obj[:2] - u * jnp.where(hit, contact + runup, back)

    phase = jnp.where((phase == 0) & (tcp[2] > high - 0.01), 1, phase)
    phase = jnp.where((phase == 1) & (jnp.linalg.norm(tcp[:2] - behind) < 0.01), 2, phase)
    phase = jnp.where((phase == 2) & (tcp[2] < low + 0.004), 3, phase)
    v_puck = r.obj_vel(state)[:2] @ u
    touching = (v_puck > 0.5 * approach_speed) & (s > -contact - 0.004)
    # hit: once the puck moves, hold one step, then stop.
    hit_now = (phase == 3) & hit & touching
    # carry: ramp only once the puck moves with the gripper (touching at the slow approach speed).
    start = (phase == 3) & ~hit & touching
    # Acceleration for the ramp: enough to reach v_need and hold it within the room left.
    hold_len = (hold_steps + 1.5) * v_need * dt
    need_acc = v_need**2 / (2.0 * jnp.maximum(room - hold_len, 0.005))
    acc = jnp.where(start, jnp.clip(need_acc, accel, max_accel), acc)
    t = jnp.where(start | hit_now, 0, t)
    phase = jnp.where(start, 4, jnp.where(hit_now, 5, phase))
    # Jerk-limited ramp (carry phase 4 and the hit's run-up in phase 3): the velocity increment grows
    # over `jerk_steps` steps and shrinks near the target speed.
    goal_v = jnp.where(phase == 3, v_hit, v_need)
    ramp_acc = jnp.where(phase == 3, accel, acc)
    inc = jnp.minimum(ramp_acc * dt, (goal_v - v_m) * approach_frac)
    inc = jnp.minimum(inc, (t + 1.0) / jnp.float32(jerk_steps) * ramp_acc * dt)
    v_next = jnp.minimum(v_m + jnp.maximum(inc, 0.0), goal_v)
    reached = (phase == 4) & (v_next >= 0.97 * v_need)
    t = jnp.where(((phase == 4) & ~reached) | ((phase == 3) & hit), t + 1, jnp.where(reached, 0, t))
    phase = jnp.where(reached, 5, phase)
    t = jnp.where(phase == 5, t + 1, t)
    release = ((phase == 5) & (t > jnp.where(hit, 1, hold_steps))) | (
      (phase >= 3) & (phase <= 5) & (room < 0.003)
    )
    phase = jnp.where(release, 6, phase)
    gap = -s - contact
    approach_v = jnp.where(gap > 0.012, 2.5 * approach_speed, approach_speed)
    v_m = jnp.where(
      phase == 3,
      jnp.where(hit, v_next, approach_v),
      jnp.where(phase == 4, v_next, jnp.where(phase == 5, jnp.where(hit, v_hit, v_need), 0.0)),
    )

    # Mocap velocity along u, plus a sideways correction keeping the tcp on the puck's goal line.
    lateral = jnp.clip(-lateral_gain * e, -0.3, 0.3) * perp
    drive_xy = mpos[:2] + (u * v_m + lateral) * dt
    target = jnp.where(
      phase == 0,
      jnp.concatenate([tcp[:2], jnp.array([high])]),
      jnp.where(
        phase == 1,
        jnp.concatenate([behind, jnp.array([high])]),
        jnp.where(
          phase == 2,
          jnp.concatenate([behind, jnp.array([low])]),
          jnp.where(
            phase <= 5,
            jnp.concatenate([drive_xy, jnp.array([low])]),
            jnp.concatenate([mpos[:2] - 0.01 * u, jnp.array([low])]),
          ),
        ),
      ),
    )
    a = jnp.concatenate([_move(target - tcp), jnp.zeros(1)])
    return a, {"phase": phase, "v": v_m, "acc": acc, "t": t, "hit": hit, "v_hit": v_hit}

  return Controller(init, act)


def scripted_controller(env) -> Controller:
  """The scripted expert for a Fetch env (unwrapped or wrapped)."""
  inner = env.unwrapped
  task = inner.task
  return {
    "FetchReach": reach_controller,
    "FetchPush": push_controller,
    "FetchSlide": slide_controller,
    "FetchPickAndPlace": pick_and_place_controller,
  }[task](inner)
