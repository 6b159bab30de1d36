"""The coffee machine and its mug, shared by coffee-button-v3, coffee-push-v3 and coffee-pull-v3 (the
reference's `sawyer_xyz/sawyer_coffee.xml` with `objects/assets/coffeemachine.xml` and `mug.xml`): one
model, three tasks.

Facts taken from the reference (positions relative to the machine's body `coffee_machine`, or to the mug's
body `obj`; class `cm_base`: joints armature 0.001, damping 2, limited; collision class `cm_col`: contype 1,
conaffinity 1, condim 3, solimp (0.99, 0.99, 0.01), solref (0.01, 1), default friction (1, 0.005, 1e-4)):
- Machine (fixed): collision boxes (+-0.069, -0.133, 0.3) half (0.031, 0.05, 0.035) (the button housing's
  sides), (0, -0.133, 0.352) and (0, -0.133, 0.248) half (0.1, 0.05, 0.018) (its top and bottom),
  (0, 0, 0.115) half (0.1, 0.098, 0.115) (the body), (0, 0, 0.3) half (0.1, 0.098, 0.07) (the head);
  the spout: cylinders radius 0.009 half-length 0.018 along y at (0, -0.109, 0.135) and radius 0.016
  half-height 0.041 at (0, -0.141, 0.152). Site `coffee_goal` (0, -0.22, 0).
- Button `cmbutton` (child of the machine): slide joint `goal_slidey` along +y (into the machine), range
  [0, 0.03], damping 1, armature 0.001; collision: a cylinder radius 0.032 half-length 0.03 along y at
  (0, -0.19, 0.3), mass 0.1 (compiled inertia (5.56e-5, 5.56e-5, 5.12e-5)); site `buttonStart`
  (0, -0.22, 0.3), its face.
- Mug `obj`: a free body (no joint damping), its child `mug`; collision: the cup, a cylinder radius 0.028
  half-height 0.033 at (0, 0, 0.035), mass 0.1, and the handle, a cylinder radius 0.02 half-length 0.005
  along y at (0.034, 0, 0.042), mass 0.01; compiled inertial: mass 0.11 at (0.00309091, 0, 0.03563636),
  quat (0.6997468, 0.10177588, 0.10180402, 0.69973711), diaginertia (6.8854545e-5, 5.8071875e-5,
  5.0149338e-5). The geom `mug` (the mesh, the reference's "main object") collides with nothing: its
  `touching_main_object` is always false.

Deliberate differences:
- The machine is a mocap body placed through `data.mocap_pos` (the reference edits `model.body_pos`); the
  button hangs from it directly (the reference's button and machine parts are siblings under a static
  body; they never touch: the button clears its housing's opening by 2 mm or more).
- Collision geometry for MJX (no box-cylinder collision; the hand's pads and claws are boxes): every
  cylinder above is a box of its half-sizes (the button's face a 6.4 cm square instead of a 6.4 cm disc;
  the mug's cup a 5.6 cm square box, its corners 1.2 cm beyond the round wall; the handle a 4 x 1 x 4 cm
  slab). The machine's geoms have contype 0 / conaffinity 1 (touched by moving geoms only), the button
  contype 2 (it skips the table plane).
- Meshes are left out: visual-only geoms at the collision geoms' places stand in for them.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.sawyer import Task, mat_to_quat_xyzw
from mjx_envs.metaworld.tasks import push

import jax.numpy as jnp

BUTTON_START = (0.0, -0.22, 0.3)  # site buttonStart at rest, machine frame
MUG_UNDER_SPOUT = (0.0, -0.22, 0.0)  # the mug's place under the spout, machine frame
BUTTON_TRAVEL = 0.03

_C = 'condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" group="4" rgba="0.3 0.3 1 0"'
_FIX = f'contype="0" conaffinity="1" {_C}'
_VIS = 'contype="0" conaffinity="0" group="1" mass="0"'
_RED = 'rgba="0.38 0.19 0.2 1"'
_BLACK = 'rgba="0.2 0.2 0.2 1"'
_WHITE = 'rgba="0.85 0.85 0.85 1"'

MACHINE_XML = f"""
    <body name="coffee_machine" mocap="true" pos="0 0.9 0">
      <geom name="cm_body" type="box" pos="0 0 0.115" size="0.1 0.098 0.115" {_VIS} {_RED}/>
      <geom name="cm_head" type="box" pos="0 0 0.3" size="0.1 0.098 0.07" {_VIS} {_RED}/>
      <geom name="cm_housing" type="box" pos="0 -0.133 0.3" size="0.1 0.05 0.07" {_VIS} {_BLACK}/>
      <geom name="cm_spout" type="cylinder" pos="0 -0.141 0.152" size="0.016 0.041" {_VIS} {_BLACK}/>
      <geom name="cm_spout_arm" type="cylinder" euler="1.57 0 0" pos="0 -0.109 0.135" size="0.009 0.018"
            {_VIS} {_BLACK}/>
      <geom name="cm_col_side_r" type="box" pos="0.069 -0.133 0.3" size="0.031 0.05 0.035" {_FIX}/>
      <geom name="cm_col_side_l" type="box" pos="-0.069 -0.133 0.3" size="0.031 0.05 0.035" {_FIX}/>
      <geom name="cm_col_top" type="box" pos="0 -0.133 0.352" size="0.1 0.05 0.018" {_FIX}/>
      <geom name="cm_col_bottom" type="box" pos="0 -0.133 0.248" size="0.1 0.05 0.018" {_FIX}/>
      <geom name="cm_col_body" type="box" pos="0 0 0.115" size="0.1 0.098 0.115" {_FIX}/>
      <geom name="cm_col_arm" type="box" pos="0 -0.109 0.135" size="0.009 0.018 0.009" {_FIX}/>
      <geom name="cm_col_spout" type="box" pos="0 -0.141 0.152" size="0.016 0.016 0.041" {_FIX}/>
      <geom name="cm_col_head" type="box" pos="0 0 0.3" size="0.1 0.098 0.07" {_FIX}/>
      <site name="coffee_goal" pos="0 -0.22 0" size="0.01" rgba="1 0 0 1"/>
      <body name="cmbutton">
        <inertial pos="0 -0.19 0.3" quat="0.70738827 0.70682518 0 0" mass="0.1"
                  diaginertia="5.56e-5 5.56e-5 5.12e-5"/>
        <joint name="goal_slidey" type="slide" axis="0 1 0" range="0 {BUTTON_TRAVEL}" limited="true" damping="1"
               armature="0.001"/>
        <geom name="cm_button" type="cylinder" euler="1.57 0 0" pos="0 -0.19 0.3" size="0.032 0.03" {_VIS}
              rgba="0.65 0.65 0.65 1"/>
        <geom name="cm_button_col" type="box" pos="0 -0.19 0.3" size="0.032 0.03 0.032" contype="2"
              conaffinity="1" {_C}/>
        <site name="buttonStart" pos="{BUTTON_START[0]} {BUTTON_START[1]} {BUTTON_START[2]}" size="0.005"
              rgba="0 0.8 0 1"/>
      </body>
    </body>"""

_MUG_COL = 'contype="1" conaffinity="1" condim="3" solimp="0.99 0.99 0.01" solref="0.01 1" group="4" rgba="0.3 0.3 1 0"'
MUG_XML = f"""
    <body name="obj" pos="0 0.6 0.1">
      <freejoint name="mug_free"/>
      <body name="mug">
        <inertial pos="0.00309091 0 0.03563636" quat="0.6997468 0.10177588 0.10180402 0.69973711" mass="0.11"
                  diaginertia="6.88545449e-5 5.80718752e-5 5.01493375e-5"/>
        <geom name="mug" type="cylinder" pos="0 0 0.035" size="0.028 0.033" {_VIS} {_WHITE}/>
        <geom name="mug_handle" type="cylinder" euler="1.57 0 0" pos="0.034 0 0.042" size="0.02 0.005" {_VIS}
              {_WHITE}/>
        <geom name="mug_col" type="box" pos="0 0 0.035" size="0.028 0.028 0.033" {_MUG_COL}/>
        <geom name="mug_handle_col" type="box" pos="0.034 0 0.042" size="0.02 0.005 0.02" {_MUG_COL}/>
        <site name="objSite" size="0.01" rgba="0 0 0 0"/>
      </body>
    </body>"""

XML = MACHINE_XML + MUG_XML


def place(env, d, machine, mug):
  """The machine at `machine` [3] (mocap), the button out (at rest), the mug at `mug` [3], upright, at
  rest."""
  m = env.mj_model
  j = m.joint("goal_slidey")
  free = m.joint("mug_free")
  a, v = int(free.qposadr[0]), int(free.dofadr[0])
  qpos = d.qpos.at[int(j.qposadr[0])].set(0.0)
  qpos = qpos.at[a : a + 3].set(mug).at[a + 3 : a + 7].set(jnp.array([1.0, 0.0, 0.0, 0.0]))
  qvel = d.qvel.at[int(j.dofadr[0])].set(0.0).at[v : v + 6].set(0.0)
  return d.replace(
    mocap_pos=d.mocap_pos.at[m.body("coffee_machine").mocapid[0]].set(machine), qpos=qpos, qvel=qvel
  )


# -- the mug tasks (coffee-push-v3, coffee-pull-v3) ---------------------------------------------------------
# Reference facts shared by both: rand_vec = (mug start [3], mug goal [3]), redrawn while the two are closer
# than 0.15 in x-y; the mug starts upright at the start, the machine stands 0.22 behind (+y) the goal (push)
# or the start (pull); target_pos = the goal, obj_init_pos = the start. hand_init_pos (0, 0.4, 0.2), hand
# bounds (-0.5, 0.40, 0.05) .. (0.5, 1, 0.5) (also the mocap bounds). Observation: object = the mug body's
# position (its base), quaternion = geom `mug`'s as scipy's [x, y, z, w]. Reward v2 (the same code in both):
# scale (2, 2, 1); in_place = tolerance(|(obj - target) scale|, (0, 0.05), margin |(obj_init_pos - target)
# scale|, long_tail); caging = the Sawyer gripper caging reward (obj_radius 0.02, pad_success_thresh 0.05,
# object_reach_radius 0.04, xz_thresh 0.05, desired effort 0.7, medium density); reward = hamacher(caging,
# in_place), + 1 + 5 in_place where |obj - tcp| < 0.04 and obs[3] > 0, 10 where the scaled distance < 0.05.
# Success |obj - target| <= 0.07; near_object |obj - tcp| <= 0.03; grasp_success touching_main_object
# (always false, see `mug_reads`) and obs[3] > 0.

MUG_READS = (
  "tcp_center",
  "target_pos",
  "obj_init_pos",
  "left_pad",
  "right_pad",
  "init_tcp",
  "touching_main_object",
)


def mug_place(machine_from: str):
  """A mug task's `place`: rand_vec = (mug start [3], mug goal [3]); the machine at (the goal if
  `machine_from` == "goal" (push), the start (pull)) + (0, 0.22, 0); target_pos = the goal."""

  def place_(env, d, rand_vec):
    start, goal = rand_vec[:3], rand_vec[3:6]
    machine = (goal if machine_from == "goal" else start) + jnp.array([0.0, 0.22, 0.0])
    d = place(env, d, machine, start)
    return d, {
      "target_pos": goal,
      "obj_init_pos": start,
      "maxPushDist": jnp.linalg.norm(start[:2] - goal[:2]),
      "maxPullDist": jnp.linalg.norm(start[:2] - goal[:2]),
    }

  return place_


def mug_objects(env, d):
  """(the mug body `obj`'s position, geom `mug`'s orientation as scipy's [x, y, z, w])."""
  m = env.mj_model
  return d.xpos[m.body("obj").id], mat_to_quat_xyzw(d.geom_xmat[m.geom("mug").id])


def mug_reads(env, d, ctx):
  """The reference's main object is the mug's mesh geom, which collides with nothing: its
  `touching_main_object` is always 0 (the fixture records 0 on every step)."""
  del env, ctx
  return {"touching_main_object": jnp.zeros((), jnp.float32) * d.time}


def mug_reward(obs, action, reads):
  """coffee-push-v3's and coffee-pull-v3's reward v2 (the same code in the reference)."""
  obj, target, tcp = obs[..., 4:7], reads["target_pos"], reads["tcp_center"]
  scale = jnp.array([2.0, 2.0, 1.0])
  target_to_obj = jnp.linalg.norm((obj - target) * scale, axis=-1)
  target_to_obj_init = jnp.linalg.norm((reads["obj_init_pos"] - target) * scale, axis=-1)
  in_place = R.tolerance(target_to_obj, bounds=(0, 0.05), margin=target_to_obj_init, sigmoid="long_tail")
  opened = obs[..., 3]
  tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
  grasped = R.gripper_caging_reward(
    action,
    obj,
    reads,
    obj_radius=0.02,
    pad_success_thresh=0.05,
    object_reach_radius=0.04,
    xz_thresh=0.05,
    desired_gripper_effort=0.7,
    medium_density=True,
  )
  rew = R.hamacher_product(grasped, in_place)
  rew = jnp.where((tcp_to_obj < 0.04) & (opened > 0), rew + 1.0 + 5.0 * in_place, rew)
  rew = jnp.where(target_to_obj < 0.05, 10.0, rew)
  obj_to_target = jnp.linalg.norm(obj - target, axis=-1)
  grasp_success = (reads["touching_main_object"] > 0) & (opened > 0)
  info = R.info(
    obj_to_target <= 0.07, tcp_to_obj <= 0.03, grasp_success, grasped, in_place, obj_to_target, rew
  )
  return rew, info


def mug_valid(rand_vec):
  """The reference's rule: start and goal at least 0.15 apart in x-y."""
  return jnp.linalg.norm(rand_vec[:2] - rand_vec[3:5]) >= 0.15


def mug_scripted(obs):
  """Scripted controller (written for this model): push-v3's grip (`push.grip_then`: above the mug, down,
  close) with the tcp 1.5 cm above the mug's base, then carry it along the table to the goal."""
  lift = jnp.array([0.0, 0.0, 0.015])
  obs = obs.at[..., 4:7].add(lift)
  return push.grip_then(obs, obs[..., 36:39] + lift + jnp.array([0.0, 0.0, 0.045]))


def mug_task(name, machine_from, rand_low, rand_high, goal_low, goal_high) -> Task:
  return Task(
    name=name,
    objects_xml=XML,
    hand_init_pos=(0.0, 0.4, 0.2),
    hand_low=(-0.5, 0.40, 0.05),
    hand_high=(0.5, 1.0, 0.5),
    goal_low=goal_low,
    goal_high=goal_high,
    rand_low=rand_low,
    rand_high=rand_high,
    place=mug_place(machine_from),
    objects=mug_objects,
    reward=mug_reward,
    reads=mug_reads,
    valid=mug_valid,
  )
