"""dial-turn-v3: turn a dial by about a quarter turn or more.

Reference: metaworld 3.1.1 `SawyerDialTurnEnvV3` (reward version v2), its model `sawyer_xyz/sawyer_dial.xml`
with `objects/assets/dial.xml`.

Facts taken from the reference:
- The dial: body `dial` (fixed) at rand_vec, drawn from [(-0.1, 0.7, 0), (0.1, 0.8, 0)] (no rejection
  rule); inside it the knob body (class `dial_base`): hinge `knob_Joint_1` about z, range [-3.14, 3.14],
  damping 1, armature 0.001, starting at 0; collision (class `dial_col`: contype 0, conaffinity 1, condim 3,
  solimp (0.99, 0.99, 0.01), solref (0.01, 1)): a disk (cylinder radius 0.05, half-height 0.018 at
  (0, 0, 0.018)) and the grip bar (box half-sizes (0.015, 0.046, 0.015) at (0, 0, 0.051), along y). The
  knob's compiled inertial (read off the reference's model): mass 0.365543 at (0, 0, 0.0254749), quat
  (0.5, 0.5, -0.5, 0.5), diaginertia (4.1804e-4, 3.4161e-4, 2.8942e-4).
- obj_init_pos = rand_vec; target_pos = obj_init_pos + (0, 0.03, 0.03); dial_push_position = the first
  observed object + (0.05, 0.02, 0.09). hand_init_pos (0, 0.6, 0.2); hand bounds (-0.5, 0.40, 0.05) ..
  (0.5, 1, 0.5) (also the mocap bounds); goal space (-0.1, 0.73, 0.0299) .. (0.1, 0.83, 0.0301).
- Observation: object = `dial`'s position + 0.05 (sin a, -cos a, 0) with a the knob's angle (the pointer's
  end, at the table's height); quaternion = `dial`'s xquat (the fixed body: (1, 0, 0, 0)).
- Reward v2: obj = the object; push = obj + (0.05, 0.02, 0.09); in_place = tolerance(|obj - target|,
  (0, 0.07), margin | |dial_push_position - target| - 0.07 |, long_tail); reach = tolerance(|push - tcp|,
  (0, 0.005), margin | |dial_push_position - init_tcp| - 0.005 |, gaussian), then
  hamacher(reach, clip(action[3], 0, 1)); reward = 10 hamacher(reach, in_place). Success:
  |obj - target| <= 0.07 (the dial turned 1.37 rad or more either way). near_object |push - tcp| <= 0.01,
  grasp_success 1, grasp_reward reach.

Deliberate differences:
- The dial body is a mocap body placed through `data.mocap_pos` (the reference edits `model.body_pos`).
- The disk's collision is a box of the cylinder's half-sizes (MJX has no box-cylinder collision; the
  hand's pads and claws are boxes): the same top face (z 0.036), its corners 2 cm beyond the round rim.
  The knob's geoms get contype 2 (they skip the table plane; the reference's have contype 0 and meet the
  hand through its conaffinity).
- Meshes are left out: visual-only geoms at the collision geoms' places stand in for them.

The scripted controller (written for this model): `_faucet.arc_push` on the grip bar, 3.5 cm from the axis,
turning clockwise seen from above (the pointer's end first towards -x), the tcp 4.5 cm above the table
(the pads' bottom on the bar's lower half). Measured (benchmarks/scripted_success.py, C backend, 100
episodes of 500 steps, 2026-11-26): 100/100, first successes at steps 32-40 (8 episodes); the reference's
own policy in the reference: steps 64-162 (the fixture's scripted episodes).
Parity (test_metaworld_parity.py, fixture `metaworld_reference_dials`): reward and info within the default
1e-4; first observed pose within the default 1 mm.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task
from mjx_envs.metaworld.tasks import _faucet

import jax.numpy as jnp

TARGET_RADIUS = 0.07
DIAL_RADIUS = 0.05
PUSH_OFFSET = (0.05, 0.02, 0.09)
TARGET_OFFSET = (0.0, 0.03, 0.03)
READS = ("tcp_center", "target_pos", "init_tcp", "dial_push_position")

_COL = 'contype="2" conaffinity="1" condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" group="4" rgba="0.3 0.3 1 0"'
_VIS = 'contype="0" conaffinity="0" group="1" mass="0"'

DIAL_XML = f"""
    <body name="dial" mocap="true" pos="0 0.7 0">
      <body name="dial_knob">
        <inertial pos="0 0 0.0254749" quat="0.5 0.5 -0.5 0.5" mass="0.36554334"
                  diaginertia="4.1804e-4 3.4161e-4 2.8942e-4"/>
        <joint name="knob_Joint_1" type="hinge" axis="0 0 1" range="-3.14 3.14" limited="true" damping="1"
               armature="0.001"/>
        <geom name="dial_disk" type="cylinder" pos="0 0 0.018" size="0.05 0.018" {_VIS} rgba="0.35 0.35 0.35 1"/>
        <geom name="dial_bar" type="box" pos="0 0 0.051" size="0.015 0.046 0.015" {_VIS} rgba="0.35 0.35 0.35 1"/>
        <geom name="dial_pointer" type="box" pos="0 -0.038 0.062" size="0.004 0.01 0.006" {_VIS} rgba="0.6 0 0 1"/>
        <geom name="dial_disk_col" type="box" pos="0 0 0.018" size="0.05 0.05 0.018" {_COL}/>
        <geom name="dial_bar_col" type="box" pos="0 0 0.051" size="0.015 0.046 0.015" {_COL}/>
      </body>
      <site name="dialStart" pos="0 -0.05 0.035" size="0.005" rgba="0 0 1 1"/>
    </body>"""


def _joint(env):
  j = env.mj_model.joint("knob_Joint_1")
  return int(j.qposadr[0]), int(j.dofadr[0])


def objects(env, d):
  m = env.mj_model
  a = d.qpos[_joint(env)[0]]
  centre = d.xpos[m.body("dial").id]
  return centre + DIAL_RADIUS * jnp.stack([jnp.sin(a), -jnp.cos(a), 0.0 * a]), d.xquat[m.body("dial").id]


def place(env, d, rand_vec):
  m = env.mj_model
  pos = rand_vec[:3]
  qa, va = _joint(env)
  d = d.replace(
    mocap_pos=d.mocap_pos.at[m.body("dial").mocapid[0]].set(pos),
    qpos=d.qpos.at[qa].set(0.0),
    qvel=d.qvel.at[va].set(0.0),
  )
  target = pos + jnp.array(TARGET_OFFSET)
  first = pos + jnp.array([0.0, -DIAL_RADIUS, 0.0])
  return d, {
    "target_pos": target,
    "obj_init_pos": pos,
    "dial_push_position": first + jnp.array(PUSH_OFFSET),
    "maxPullDist": jnp.abs(target[1] - pos[1]),
  }


def reward(obs, action, reads):
  obj, tcp, target = obs[..., 4:7], reads["tcp_center"], reads["target_pos"]
  push0 = reads["dial_push_position"]
  target_to_obj = jnp.linalg.norm(obj - target, axis=-1)
  in_place = R.within(target_to_obj, TARGET_RADIUS, jnp.linalg.norm(push0 - target, axis=-1))
  tcp_to_obj = jnp.linalg.norm(obj + jnp.array(PUSH_OFFSET) - tcp, axis=-1)
  reach = R.within(tcp_to_obj, 0.005, jnp.linalg.norm(push0 - reads["init_tcp"], axis=-1), "gaussian")
  reach = R.hamacher_product(reach, jnp.clip(action[..., 3], 0.0, 1.0))
  rew = 10 * R.hamacher_product(reach, in_place)
  ok = target_to_obj <= TARGET_RADIUS
  return rew, R.info(ok, tcp_to_obj <= 0.01, jnp.ones_like(rew), reach, in_place, target_to_obj, rew)


def scripted(obs):
  """Push the grip bar's end along its arc (`_faucet.arc_push`), turning the pointer clockwise."""
  hand, obj, goal = obs[..., 0:3], obs[..., 4:7], obs[..., 36:39]
  centre = goal - jnp.array(TARGET_OFFSET)
  u = (obj[..., :2] - centre[..., :2]) / DIAL_RADIUS
  return _faucet.arc_push(hand, centre[..., :2], u, -1.0, 0.035, centre[..., 2] + 0.045 + 0.045, inward=0.0)


TASK = Task(
  name="dial-turn-v3",
  objects_xml=DIAL_XML,
  hand_init_pos=(0.0, 0.6, 0.2),
  hand_low=(-0.5, 0.40, 0.05),
  hand_high=(0.5, 1.0, 0.5),
  goal_low=(-0.1, 0.73, 0.0299),
  goal_high=(0.1, 0.83, 0.0301),
  rand_low=(-0.1, 0.7, 0.0),
  rand_high=(0.1, 0.8, 0.0),
  place=place,
  objects=objects,
  reward=reward,
)
