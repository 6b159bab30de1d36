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
