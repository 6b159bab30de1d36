"""The sliding window shared by window-open-v3 and window-close-v3 (the reference's
`sawyer_xyz/sawyer_window_horizontal.xml` with `objects/assets/window_horiz.xml`): one model, two tasks.

Facts taken from the reference (positions relative to the window body; class `window_base`: joints
armature 0.001, damping 2, limited; collision class `window_col`: condim 3, solimp (0.99, 0.99, 0.01),
solref (0.01, 1); masses from the collision geoms at density 1000, the reference's
`inertiagrouprange="4 5"` with its meshes in group 1):
- Frame (fixed): side posts (+-0.216, 0, 0) half (0.015, 0.03, 0.181); base (0, 0, -0.192) half
  (0.25, 0.06, 0.01); rails (0, 0, +-0.166) half (0.201, 0.03, 0.015).
- Sash `windowb_a` (moves): slide joint `window_slide` along x, range [0, 0.2]. Handle: two mounts
  (cylinders radius 0.012, half-length 0.003 along y) at (-0.014, -0.028, +-0.045), two arms (capsules
  radius 0.008, half-length 0.035 along y) at (-0.014, -0.06, +-0.045), the bar (capsule radius 0.008,
  half-length 0.045 along z) at (-0.014, -0.095, 0); sash posts (-0.014, -0.013, 0) half
  (0.014, 0.012, 0.15) and (-0.19, -0.013, 0) half (0.01, 0.012, 0.15); rails (-0.104, -0.013, +-0.14)
  half (0.076, 0.012, 0.01); glass (-0.104, -0.018, 0) half (0.076, 0.001, 0.13); mullion
  (-0.104, -0.022, 0) half (0.076, 0.003, 0.005). Sites `handleOpenStart` (-0.04, -0.095, 0) and
  `handleCloseStart` (0.01, -0.095, 0).
- Fixed sash `windowb_b` at (0.1, 0.013, 0): rails (0, 0, +-0.14) half (0.08, 0.012, 0.01); glass
  (0, -0.005, 0) half (0.08, 0.001, 0.13); mullion (0, -0.009, 0) half (0.08, 0.003, 0.005); posts
  (+-0.09, 0, 0) half (0.01, 0.012, 0.15).

Deliberate differences:
- The window is a mocap body placed through `data.mocap_pos` (the reference edits
  `model.body("window").pos`).
- Collision geometry, trimmed for MJX (which tests every candidate geom pair every substep, with no
  broad phase; the reference's 5 + 11 + 6 collision geoms give 80 box-box, 12 capsule-box and 15
  plane pairs with the hand, ours 12 box-box, 12 capsule-box and 4 plane-box):
  - the moving sash keeps the handle's bar and arms (capsules, as the reference's) and is one box for
    its posts, rails, glass and mullion (x -0.2 .. 0, y -0.025 .. -0.001, z +-0.15 around the sash: the
    outer size of its posts and rails; the glass, 6 mm recessed in the reference, is flush here); the
    handle's two mounts (cylinders radius 0.012 where the arms meet the sash, 4 mm wider than the arms)
    have no collision; its inertial is the reference's (mass 0.6378 from its collision geoms at density
    1000, set explicitly); its geoms have contype 2 so that they skip the table plane;
  - the frame and the fixed sash are one box behind the moving sash (x +-0.231, y 0.001 .. 0.03,
    z +-0.181): the frame's posts and rails, 5 mm proud of the sash in the reference, are flush with the
    fixed sash here; contype 0 / conaffinity 1 (touched by moving geoms only); the frame's base (below
    the sashes, at or under the table) has no collision.
  The reference's sash and frame never touch (1 mm gaps), so MuJoCo's parent-child filter (which applies
  under a mocap body and not under the world) changes nothing.
- Meshes are left out: visual-only boxes, capsules and cylinders at the reference's collision geoms'
  places stand in for them.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R

import jax.numpy as jnp

TARGET_RADIUS = 0.05  # success: the handle's x within this of the target's
HANDLE_RADIUS = 0.02

OPEN_SITE = (-0.04, -0.095, 0.0)  # handleOpenStart, relative to the window at slide 0
CLOSE_SITE = (0.01, -0.095, 0.0)  # handleCloseStart

_C = 'condim="3" solimp="0.99 0.99 0.01" solref="0.01 1"'
# moving sash: touched by the hand (contype 1) and not by the table plane (contype 2 shares no bit with
# the plane's conaffinity); fixed parts: touched by moving geoms only
_MOVE = f'contype="2" conaffinity="1" {_C}'
_FIX = f'contype="0" conaffinity="1" {_C}'
_VIS = 'contype="0" conaffinity="0" group="1" mass="0"'
_RED = 'rgba="0.36 0.26 0.27 1"'
_WHITE = 'rgba="0.65 0.65 0.65 1"'
_GLASS = 'rgba="0 0.3 0.4 0.25"'

WINDOW_XML = f"""
    <body name="window" mocap="true" pos="-0.1 0.785 0.202">
      <geom name="window_back_col" type="box" pos="0 0.0155 0" size="0.231 0.0145 0.181" {_FIX}
            rgba="0 0 0 0"/>
      <geom name="window_post_l" type="box" pos="-0.216 0 0" size="0.015 0.03 0.181" {_VIS} {_RED}/>
      <geom name="window_base" type="box" pos="0 0 -0.192" size="0.25 0.06 0.01" {_VIS} {_RED}/>
      <geom name="window_post_r" type="box" pos="0.216 0 0" size="0.015 0.03 0.181" {_VIS} {_RED}/>
      <geom name="window_rail_b" type="box" pos="0 0 -0.166" size="0.201 0.03 0.015" {_VIS} {_RED}/>
      <geom name="window_rail_t" type="box" pos="0 0 0.166" size="0.201 0.03 0.015" {_VIS} {_RED}/>
      <body name="windowb_a">
        <inertial pos="-0.08676913 -0.01886872 0" quat="0.7316986 0 0 0.6816283" mass="0.6377869"
                  diaginertia="0.00946201 0.0062119 0.00368036"/>
        <joint name="window_slide" type="slide" axis="1 0 0" limited="true" range="0 0.2" damping="2"
               armature="0.001"/>
        <geom name="handle_arm_t" type="capsule" euler="1.57 0 0" pos="-0.014 -0.06 0.045"
              size="0.008 0.035" {_MOVE} {_WHITE}/>
        <geom name="handle_arm_b" type="capsule" euler="1.57 0 0" pos="-0.014 -0.06 -0.045"
              size="0.008 0.035" {_MOVE} {_WHITE}/>
        <geom name="handle_bar" type="capsule" pos="-0.014 -0.095 0" size="0.008 0.045" {_MOVE} {_WHITE}/>
        <geom name="sasha_col" type="box" pos="-0.1 -0.013 0" size="0.1 0.012 0.15" {_MOVE} rgba="0 0 0 0"/>
        <geom name="handle_mount_t" type="cylinder" euler="1.57 0 0" pos="-0.014 -0.028 0.045"
              size="0.012 0.003" {_VIS} {_WHITE}/>
        <geom name="handle_mount_b" type="cylinder" euler="1.57 0 0" pos="-0.014 -0.028 -0.045"
              size="0.012 0.003" {_VIS} {_WHITE}/>
        <geom name="sasha_post_r" type="box" pos="-0.014 -0.013 0" size="0.014 0.012 0.15" {_VIS} {_RED}/>
        <geom name="sasha_post_l" type="box" pos="-0.19 -0.013 0" size="0.01 0.012 0.15" {_VIS} {_RED}/>
        <geom name="sasha_rail_t" type="box" pos="-0.104 -0.013 0.14" size="0.076 0.012 0.01" {_VIS} {_RED}/>
        <geom name="sasha_rail_b" type="box" pos="-0.104 -0.013 -0.14" size="0.076 0.012 0.01" {_VIS} {_RED}/>
        <geom name="sasha_glass" type="box" pos="-0.104 -0.018 0" size="0.076 0.001 0.13" {_VIS} {_GLASS}/>
        <geom name="sasha_mullion" type="box" pos="-0.104 -0.022 0" size="0.076 0.003 0.005" {_VIS} {_RED}/>
        <site name="handleOpenStart" pos="{OPEN_SITE[0]} {OPEN_SITE[1]} {OPEN_SITE[2]}" size="0.005"
              rgba="1 0 0 1"/>
        <site name="handleCloseStart" pos="{CLOSE_SITE[0]} {CLOSE_SITE[1]} {CLOSE_SITE[2]}" size="0.005"
              rgba="0 1 0 1"/>
      </body>
      <body name="windowb_b" pos="0.1 0.013 0">
        <geom name="sashb_rail_b" type="box" pos="0 0 -0.14" size="0.08 0.012 0.01" {_VIS} {_RED}/>
        <geom name="sashb_rail_t" type="box" pos="0 0 0.14" size="0.08 0.012 0.01" {_VIS} {_RED}/>
        <geom name="sashb_glass" type="box" pos="0 -0.005 0" size="0.08 0.001 0.13" {_VIS} {_GLASS}/>
        <geom name="sashb_mullion" type="box" pos="0 -0.009 0" size="0.08 0.003 0.005" {_VIS} {_RED}/>
        <geom name="sashb_post_l" type="box" pos="-0.09 0 0" size="0.01 0.012 0.15" {_VIS} {_RED}/>
        <geom name="sashb_post_r" type="box" pos="0.09 0 0" size="0.01 0.012 0.15" {_VIS} {_RED}/>
      </body>
    </body>"""


def place_window(env, d, pos, slide):
  """The window at `pos` [3] (mocap) with the sash at `slide`, at rest."""
  m = env.mj_model
  mocap = m.body("window").mocapid[0]
  j = m.joint("window_slide")
  a, v = int(j.qposadr[0]), int(j.dofadr[0])
  return d.replace(
    mocap_pos=d.mocap_pos.at[mocap].set(pos), qpos=d.qpos.at[a].set(slide), qvel=d.qvel.at[v].set(0.0)
  )


def reward(reads, site: str, x_init_key: str, reach_sigmoid: str):
  """The window tasks' reward: the handle's x within 0.05 of the target's (margin from its x at
  `reads[x_init_key]`, long_tail), times the tcp within 0.02 of the handle (margin from the initial tcp's
  distance to the handle's start, sigmoid `reach_sigmoid`), by the Hamacher product; info as the
  reference's. open and close differ only in those two arguments."""
  obj, tcp, target = reads["site:" + site], reads["tcp_center"], reads["target_pos"]
  target_to_obj = jnp.abs(obj[..., 0] - target[..., 0])
  in_place = R.within(target_to_obj, TARGET_RADIUS, jnp.abs(reads[x_init_key][..., 0] - target[..., 0]))
  tcp_to_obj = jnp.linalg.norm(obj - tcp, axis=-1)
  tcp_to_obj_init = jnp.linalg.norm(reads["window_handle_pos_init"] - reads["init_tcp"], axis=-1)
  reach = R.within(tcp_to_obj, HANDLE_RADIUS, tcp_to_obj_init, sigmoid=reach_sigmoid)
  rew = 10 * R.hamacher_product(reach, in_place)
  info = R.info(
    target_to_obj <= TARGET_RADIUS,
    tcp_to_obj <= 0.05,
    jnp.ones_like(rew),
    reach,
    in_place,
    target_to_obj,
    rew,
  )
  return rew, info


def site_reads(name):
  """A `Task.reads` that returns the world position of site `name` as "site:<name>"."""

  def reads(env, d, ctx):
    del ctx
    return {f"site:{name}": d.site_xpos[env.mj_model.site(name).id]}

  return reads


def objects_at(name):
  """A `Task.objects`: the site `name` and a zero quaternion (the reference's `np.zeros(4)`)."""

  def objects(env, d):
    return d.site_xpos[env.mj_model.site(name).id], jnp.zeros((4,), jnp.float32)

  return objects


def push_controller(obs, direction: float):
  """Shared scripted controller: push the handle's upper arm along x with the side of the closed
  gripper.

  Geometry (handle-relative, the handle being the obs's site): the bar and the arms sit at x +0.026
  (open site) / -0.024 (close site), radius 0.008; the upper arm runs along y from -0.008 to +0.078 at
  z +0.045. With the gripper closed the pads and claws form two 9 mm slabs at hand y -0.0085 and
  +0.0185, 3 cm wide in x and reaching 0.045 m above and below the hand. The hand goes to y = handle
  y + 0.03 (both slabs over the arm, clear of the bar and of the glass) and z = handle z + 0.045 (the
  slabs span the upper arm), first on the near side of the handle, then moves along x.

  direction +1 pushes towards +x (open), -1 towards -x (close)."""
  hand, obj, goal = obs[..., 0:3], obs[..., 4:7], obs[..., 36:39]
  # x of the hand when its slab touches the bar/arm, relative to the site; approach from 12 mm further
  touch = 0.003 if direction > 0 else -0.001
  approach_x = obj[..., 0] + touch - direction * 0.015
  want_y = obj[..., 1] + 0.03
  want_z = obj[..., 2] + 0.045
  rel_x = (hand[..., 0] - obj[..., 0]) * direction  # along the push direction, site-relative
  in_yz = (jnp.abs(hand[..., 1] - want_y) < 0.012) & (jnp.abs(hand[..., 2] - want_z) < 0.012)
  behind = (rel_x > -0.04) & (rel_x < touch * direction + 0.02)
  engaged = in_yz & behind
  in_xz = (jnp.abs(hand[..., 0] - approach_x) < 0.01) & (jnp.abs(hand[..., 2] - want_z) < 0.012)
  # push: the sash's site goes 5 mm past its end of travel (open: goal - 0.04 at slide 0.2; close: goal
  # + 0.01 at slide 0), pressing the sash against its joint limit and holding it there
  end_x = jnp.where(direction > 0, goal[..., 0] - 0.04 + 0.005, goal[..., 0] + 0.01 - 0.005) + touch
  # approach: line up in x and z while staying in front (y) of the handle, then come in along y
  y_front = jnp.minimum(hand[..., 1], obj[..., 1] - 0.04)
  ax = jnp.where(engaged, end_x, approach_x)
  ay = jnp.where(engaged | in_xz, want_y, y_front)
  want = jnp.stack([ax, ay, want_z], -1)
  move = jnp.clip((want - hand) * 25.0, -1.0, 1.0)
  return jnp.concatenate([move, jnp.ones(move.shape[:-1] + (1,))], -1)
