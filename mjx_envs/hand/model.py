"""The Shadow Dexterous Hand as MJCF, built from the numbers of gymnasium-robotics 1.4.2's hand model.

`hand_xml()` is the hand's body tree (to place in a worldbody), `hand_parts_xml()` its tendons, contact
pairs and actuators, `scene_xml(...)` a whole model around them (HandReach's scene; the manipulate tasks
add their object through `worldbody_extra`). The numbers (body offsets, joint axes and ranges, inertials,
damping, armature, friction loss, actuator gains, control and force ranges, collision capsules and boxes,
fingertip sites, the coupling tendons and the self-collision pairs) are the reference's; the XML is our
own. Deliberate differences, each resting on a probe of gymnasium-robotics 1.4.2
(scripts/make_hand_reference.py: 1000 random-action steps of HandReach-v3, JSON `probe`); their joint
effect on the dynamics is measured in mjx_envs/hand/reach.py's docstring (joints within 5.2e-6 rad of
the reference's over 25 steps):

- No meshes: the reference's visual meshes are left out and its convex forearm collision mesh is a
  visual-only capsule. The collision geoms of the hand are the reference's primitives (capsules, boxes).
  Its two 1 mm "visual" boxes at the thumb base and hub (which could collide) are left out: they touched
  nothing in the reference's 1000 steps (12 of its 19 pairs did).
- Tendons: the reference has 44 limited fixed tendons; 40 of them bound single joints to ranges wider than
  the joints' own ranges and were never active (0 of 1000 steps). We keep the 4 that couple each finger's
  distal joint (J0) to its middle joint (J1): 0.00705 J0 - 0.00805 J1 in [-0.001, 0.001], active in
  42-47% of the steps. Under MJX-JAX every limited tendon costs a constraint row in every step, active
  or not.
- The floor does not collide with the hand: the bounding spheres of the hand's moving geoms stay 5 cm
  above it. In the manipulate scenes (`object_floor=True`) it collides with the object only (contact
  bit 2, OBJECT_CONTYPE), as the reference's floor catches a dropped object.
- No joint sensors. Touch sensors only where asked (`scene_xml(touch_sensors=True)`: the manipulate tasks'
  `..._BooleanTouchSensors` / `..._ContinuousTouchSensors`): TOUCH_SITES, the reference's 92 sites
  (robot_touch_sensors_92.xml's numbers: bodies, shapes, positions, sizes, order), a MuJoCo `touch`
  sensor on each, in the same order.
"""

from __future__ import annotations

from mjx_envs.core import camera_xml

# Joint names in the model's (and the observation's) order: wrist, fore-, middle, ring, little finger,
# thumb. Each finger's J0 (distal) follows its J1 through a tendon; the thumb's joints are all actuated.
JOINTS = (
  "WRJ1",
  "WRJ0",
  *(f"{f}J{i}" for f in ("FF", "MF", "RF") for i in (3, 2, 1, 0)),
  *(f"LFJ{i}" for i in (4, 3, 2, 1, 0)),
  *(f"THJ{i}" for i in (4, 3, 2, 1, 0)),
)
COUPLED = ("FFJ0", "MFJ0", "RFJ0", "LFJ0")  # unactuated distal joints
ACTUATED = tuple(j for j in JOINTS if j not in COUPLED)  # the 20 actuators' joints, in actuator order
FINGERTIPS = ("fftip", "mftip", "rftip", "lftip", "thtip")  # site names, the goal's order
# Coupling tendon: TENDON_J0 * J0 - TENDON_J1 * J1 in [-TENDON_SLACK, TENDON_SLACK].
TENDON_J0, TENDON_J1, TENDON_SLACK = 0.00705, 0.00805, 0.001

# Actuators (position servos): joint -> (kp, ctrl range, force limit).
ACTUATORS = {
  "WRJ1": (5.0, (-0.489, 0.14), 4.785),
  "WRJ0": (5.0, (-0.698, 0.489), 2.175),
  **{
    f"{f}J{i}": (1.0, rng, force)
    for f in ("FF", "MF", "RF")
    for i, rng, force in ((3, (-0.349, 0.349), 0.9), (2, (0.0, 1.571), 0.9), (1, (0.0, 1.571), 0.7245))
  },
  "LFJ4": (1.0, (0.0, 0.785), 0.9),
  "LFJ3": (1.0, (-0.349, 0.349), 0.9),
  "LFJ2": (1.0, (0.0, 1.571), 0.9),
  "LFJ1": (1.0, (0.0, 1.571), 0.7245),
  "THJ4": (1.0, (-1.047, 1.047), 2.3722),
  "THJ3": (1.0, (0.0, 1.222), 1.45),
  "THJ2": (1.0, (-0.209, 0.209), 0.99),
  "THJ1": (1.0, (-0.524, 0.524), 0.99),
  "THJ0": (1.0, (-1.571, 0.0), 0.81),
}
assert tuple(ACTUATORS) == ACTUATED

# Joint defaults of the reference's hand class; the wrist's damping and armature are its own.
JOINT_DAMPING, JOINT_ARMATURE, JOINT_MARGIN, JOINT_FRICTIONLOSS = 0.1, 0.001, 0.01, 0.001
WRIST_DAMPING, WRIST_ARMATURE = 0.5, 0.005
# The self-collision pairs of the reference (frictionless, condim 1): the thumb's distal link against the
# fingers and the palm, and neighbouring fingers' links.
CONTACT_PAIRS = (
  *(("thdistal", g) for g in ("ffdistal", "ffmiddle", "ffproximal", "mfproximal", "mfdistal")),
  *(("thdistal", g) for g in ("rfdistal", "lfdistal", "palm0")),
  ("mfdistal", "ffdistal"),
  ("rfdistal", "mfdistal"),
  ("lfdistal", "rfdistal"),
  ("mfproximal", "ffproximal"),
  ("rfproximal", "mfproximal"),
  ("lfproximal", "rfproximal"),
  ("lfdistal", "rfdistal"),  # listed twice in the reference: two contacts, twice the stiffness
  ("lfdistal", "mfdistal"),
  ("lfdistal", "rfmiddle"),
  ("lfmiddle", "rfdistal"),
  ("lfmiddle", "rfmiddle"),
)
# The hand's mount in the world (the reference's reach and manipulate scenes).
MOUNT_POS = (1.0, 1.25, 0.15)
MOUNT_EULER = (1.5708, 0.0, 3.14159)
HAND_RGBA = "0.4 0.5 0.6 1"
# Contact bits of a manipulated object: bit 1 meets the hand (contype 1, conaffinity 0), bit 2 the floor
# of a manipulate scene (contype = conaffinity = 2), so the hand never meets the floor.
OBJECT_CONTYPE = 3
FLOOR_CONTYPE = 2


def _touch_segment(body: str, name: str, half: float, z: float, half_z: float, tip_z: float, tip_r: float):
  """A finger segment's 5 touch sites: 4 boxes (front/back x left/right, half-widths `half`) centred at
  height z, then a sphere of radius tip_r at tip_z."""
  boxes = tuple(
    (body, f"{name}_{fb}_{lr}", "box", (sx * half, sy * half, z), (half, half, half_z))
    for fb, sy in (("front", -1), ("back", 1))
    for lr, sx in (("left", -1), ("right", 1))
  )
  return (*boxes, (body, f"{name}_tip", "sphere", (0, 0, tip_z), (tip_r,)))


def _touch_finger(f: str):
  """A finger's 17 touch sites (proximal 7, middle 5, distal 5), the reference's order."""
  s, prox = 0.005, f"{f}proximal"
  proximal = (
    (prox, f"{prox}_front_left_bottom", "box", (-s, -s, 0.00625), (s, s, 0.01625)),
    (prox, f"{prox}_front_right_bottom", "box", (s, -s, 0.00625), (s, s, 0.01625)),
    (prox, f"{prox}_front_left_top", "box", (-s, -s, 0.03875), (s, s, 0.01625)),
    (prox, f"{prox}_front_right_top", "box", (s, -s, 0.03875), (s, s, 0.01625)),
    (prox, f"{prox}_back_left", "box", (-s, s, 0.0225), (s, s, 0.0325)),
    (prox, f"{prox}_back_right", "box", (s, s, 0.0225), (s, s, 0.0325)),
    (prox, f"{prox}_tip", "sphere", (0, 0, 0.045), (0.011,)),
  )
  return (
    *proximal,
    *_touch_segment(f"{f}middle", f"{f}middle", 0.00451, 0.0125, 0.02055, 0.025, 0.009),
    *_touch_segment(f"{f}distal", f"{f}tip", 0.00451, 0.012, 0.01905, 0.024, 0.008),
  )


# The reference's 92 touch sites (robot_touch_sensors_92.xml), its order: (body, name without the "T_"
# prefix, type, pos, size). Palm 8, fore/middle/ring finger 17 each, little finger 18 (metacarpal 1),
# thumb 15.
_PALM_BOX = (0.011, 0.007, 0.016)
TOUCH_SITES = (
  ("palm", "palm_b0", "box", (0.011, -0.005, 0.006), (0.033, 0.007, 0.019)),
  ("palm", "palm_bl", "box", (-0.011, -0.005, 0.041), _PALM_BOX),
  ("palm", "palm_bm", "box", (0.011, -0.005, 0.041), _PALM_BOX),
  ("palm", "palm_br", "box", (0.033, -0.005, 0.041), _PALM_BOX),
  ("palm", "palm_fl", "box", (-0.011, -0.005, 0.073), _PALM_BOX),
  ("palm", "palm_fm", "box", (0.011, -0.005, 0.073), _PALM_BOX),
  ("palm", "palm_fr", "box", (0.033, -0.005, 0.073), _PALM_BOX),
  ("palm", "palm_b1", "box", (-0.0325, -0.005, 0.014), (0.012, 0.007, 0.027)),
  *_touch_finger("ff"),
  *_touch_finger("mf"),
  *_touch_finger("rf"),
  ("lfmetacarpal", "lfmetacarpal_front", "box", (-0.0165, -0.005, 0.00975), (0.01, 0.007, 0.026)),
  *_touch_finger("lf"),
  *_touch_segment("thproximal", "thproximal", 0.007, 0.019, 0.032, 0.038, 0.014),
  *_touch_segment("thmiddle", "thmiddle", 0.006, 0.016, 0.027, 0.032, 0.012),
  *_touch_segment("thdistal", "thtip", 0.0056, 0.013, 0.02218, 0.026, 0.01),
)
assert len(TOUCH_SITES) == 92


def with_touch_sites(xml: str) -> str:
  """`xml` (holding hand_xml's bodies) with TOUCH_SITES inserted at the top of their bodies."""
  for body in dict.fromkeys(b for b, *_ in TOUCH_SITES):
    sites = "".join(
      f'\n  <site name="T_{n}" type="{t}" pos="{_v(p)}" size="{_v(z)}" rgba="0 0.5 0 0.2" group="4"/>'
      for b, n, t, p, z in TOUCH_SITES
      if b == body
    )
    head = f'<body name="{body}"'
    i = xml.index(head)
    j = xml.index(">", i) + 1
    xml = xml[:j] + sites + xml[j:]
  return xml


def touch_sensors_xml() -> str:
  """A `touch` sensor on each of TOUCH_SITES, in their order (MJCF sensor section)."""
  rows = "".join(f'\n  <touch name="TS_{n}" site="T_{n}"/>' for _, n, *_ in TOUCH_SITES)
  return f"<sensor>{rows}\n</sensor>"


def _v(x) -> str:
  return " ".join(f"{float(c):.6g}" for c in x)


def _inertial(pos, mass, diag=(1e-5, 1e-5, 1e-5), quat=None) -> str:
  q = f' quat="{_v(quat)}"' if quat is not None else ""
  return f'<inertial pos="{_v(pos)}"{q} mass="{mass}" diaginertia="{_v(diag)}"/>'


def _joint(name, axis, rng, wrist=False) -> str:
  damping, armature = (WRIST_DAMPING, WRIST_ARMATURE) if wrist else (JOINT_DAMPING, JOINT_ARMATURE)
  return (
    f'<joint name="{name}" type="hinge" axis="{_v(axis)}" range="{_v(rng)}" damping="{damping}" '
    f'armature="{armature}" margin="{JOINT_MARGIN}" frictionloss="{JOINT_FRICTIONLOSS}"/>'
  )


def _capsule(name, half_len, radius, condim=3) -> str:
  """A capsule along the body's z axis from its origin (the reference's link capsules)."""
  return (
    f'<geom name="{name}" type="capsule" pos="0 0 {half_len}" size="{radius} {half_len}" '
    f'condim="{condim}" class="hand_collision"/>'
  )


def _finger(prefix: str, middle_com_z: float) -> str:
  """Knuckle, proximal, middle and distal links of a finger (joints J3..J0), from the knuckle down."""
  p, lo = prefix.upper(), prefix.lower()
  return f"""
  <body name="{lo}knuckle">
    {_inertial((0, 0, 0), 0.008, quat=(0.52, 0.854, 0.006, -0.003))}
    {_joint(f"{p}J3", (0, 1, 0), (-0.349, 0.349))}
    <body name="{lo}proximal">
      {_inertial((0, 0, 0.023), 0.014, quat=(0.707, -0.004, 0.004, 0.707))}
      {_joint(f"{p}J2", (1, 0, 0), (0.0, 1.571))}
      {_capsule(f"{lo}proximal", 0.0225, 0.01)}
      <body name="{lo}middle" pos="0 0 0.045">
        {_inertial((0, 0, middle_com_z), 0.012, quat=(0.707, 0, 0, 0.707))}
        {_joint(f"{p}J1", (1, 0, 0), (0.0, 1.571))}
        {_capsule(f"{lo}middle", 0.0125, 0.00805)}
        <body name="{lo}distal" pos="0 0 0.025">
          {_inertial((0, 0, 0.015), 0.01, quat=(0.707, -0.003, 0.003, 0.707))}
          {_joint(f"{p}J0", (1, 0, 0), (0.0, 1.571))}
          {_capsule(f"{lo}distal", 0.012, 0.00705, condim=4)}
          <site name="{lo}tip" pos="0 0 0.026" size="0.005" rgba="0.4 0.9 0.4 1" group="3"/>
        </body>
      </body>
    </body>
  </body>"""


def _with_pos(body_xml: str, pos) -> str:
  """`body_xml` (starting with `<body name=...>`) placed at `pos` in its parent."""
  head, rest = body_xml.split(">", 1)
  return f'{head} pos="{_v(pos)}">{rest}'


def hand_xml(mount_pos=MOUNT_POS, mount_euler=MOUNT_EULER) -> str:
  """The hand's body tree (mount, forearm, wrist, palm, five fingers): MJCF for a worldbody.

  The mount and forearm are fixed; WRJ1 and WRJ0 move the wrist and palm. Geom class `hand_collision`
  (defined by `defaults_xml`) has the reference's collision settings: contype 1, conaffinity 0 (the hand
  meets objects, and itself only through CONTACT_PAIRS).
  """
  thumb = f"""
  <body name="thbase" pos="0.034 -0.009 0.029" axisangle="0 1 0 0.785">
    {_inertial((0, 0, 0), 0.01)}
    {_joint("THJ4", (0, 0, -1), (-1.047, 1.047))}
    <body name="thproximal">
      {_inertial((0, 0, 0.017), 0.016, quat=(0.982, 0, 0.001, 0.191))}
      {_joint("THJ3", (1, 0, 0), (0.0, 1.222))}
      {_capsule("thproximal", 0.019, 0.013)}
      <body name="thhub" pos="0 0 0.038">
        {_inertial((0, 0, 0), 0.002)}
        {_joint("THJ2", (1, 0, 0), (-0.209, 0.209))}
        <body name="thmiddle">
          {_inertial((0, 0, 0.016), 0.016, quat=(1, -0.001, -0.007, 0.003))}
          {_joint("THJ1", (0, 1, 0), (-0.524, 0.524))}
          {_capsule("thmiddle", 0.016, 0.011)}
          <body name="thdistal" pos="0 0 0.032">
            {_inertial((0, 0, 0.016), 0.016, quat=(0.999, -0.005, -0.047, 0.005))}
            {_joint("THJ0", (0, 1, 0), (-1.571, 0.0))}
            {_capsule("thdistal", 0.013, 0.00918, condim=4)}
            <site name="thtip" pos="0 0 0.0275" size="0.005" rgba="0.4 0.9 0.4 1" group="3"/>
          </body>
        </body>
      </body>
    </body>
  </body>"""
  little = f"""
  <body name="lfmetacarpal" pos="-0.017 0 0.044">
    {_inertial((-0.014, 0.001, 0.014), 0.075, quat=(0.709, -0.092, -0.063, 0.696))}
    {_joint("LFJ4", (0.571, 0, 0.821), (0.0, 0.785))}
    <geom name="lfmetacarpal" type="box" pos="-0.0165 0 0.01" size="0.0095 0.0111 0.025" class="hand_collision"/>
    {_with_pos(_finger("lf", 0.012), (-0.017, 0, 0.044))}
  </body>"""
  return f"""
<body name="hand_mount" pos="{_v(mount_pos)}" euler="{_v(mount_euler)}">
  {_inertial((0, 0, 0), 0.1, diag=(0.001, 0.001, 0.001))}
  <body name="forearm" pos="0 0.01 0">
    {_inertial((0.001, -0.002, 0.29), 4.0, diag=(0.01, 0.01, 0.0075), quat=(0.982, -0.016, 0, -0.188))}
    <geom name="forearm_visual" type="capsule" fromto="0 0.01 0.06 0 0.01 0.2" size="0.035"
          contype="0" conaffinity="0" rgba="0.3 0.35 0.4 1"/>
    <body name="wrist" pos="0 0 0.256">
      {_inertial((0.003, 0, 0.016), 0.3, diag=(0.001, 0.001, 0.001), quat=(0.504, 0.496, 0.495, 0.504))}
      {_joint("WRJ1", (0, 1, 0), (-0.489, 0.14), wrist=True)}
      <geom name="wrist" type="capsule" quat="0.707 0.707 0 0" size="0.015 0.01" class="hand_collision"/>
      <body name="palm" pos="0 0 0.034">
        {_inertial((0.006, 0, 0.036), 0.3, diag=(0.001, 0.001, 0.001), quat=(0.716, 0.044, 0.075, 0.693))}
        {_joint("WRJ0", (1, 0, 0), (-0.698, 0.489), wrist=True)}
        <geom name="palm0" type="box" pos="0.011 0 0.038" size="0.032 0.0111 0.049" class="hand_collision"/>
        <geom name="palm1" type="box" pos="-0.032 0 0.014" size="0.011 0.0111 0.025" class="hand_collision"/>
        {_with_pos(_finger("ff", 0.011), (0.033, 0, 0.095))}
        {_with_pos(_finger("mf", 0.012), (0.011, 0, 0.099))}
        {_with_pos(_finger("rf", 0.012), (-0.011, 0, 0.095))}
        {little}
        {thumb}
      </body>
    </body>
  </body>
</body>"""


def defaults_xml() -> str:
  """The `hand_collision` geom class (MuJoCo's default friction and solver settings, no margin)."""
  return f"""
<default>
  <default class="hand_collision">
    <geom contype="1" conaffinity="0" condim="3" friction="1 0.005 0.0001" rgba="{HAND_RGBA}"/>
  </default>
</default>"""


def hand_parts_xml() -> str:
  """The hand's coupling tendons, self-collision pairs and 20 position actuators (MJCF sections)."""
  tendons = "".join(
    f"""
  <fixed name="T_{f}J1c" limited="true" range="{-TENDON_SLACK} {TENDON_SLACK}">
    <joint joint="{f}J0" coef="{TENDON_J0}"/>
    <joint joint="{f}J1" coef="{-TENDON_J1}"/>
  </fixed>"""
    for f in ("FF", "MF", "RF", "LF")
  )
  pairs = "".join(f'\n  <pair geom1="{a}" geom2="{b}" condim="1"/>' for a, b in CONTACT_PAIRS)
  actuators = "".join(
    f'\n  <position name="A_{j}" joint="{j}" kp="{kp}" ctrlrange="{lo} {hi}" forcerange="{-f} {f}"/>'
    for j, (kp, (lo, hi), f) in ACTUATORS.items()
  )
  return f"<tendon>{tendons}\n</tendon>\n<contact>{pairs}\n</contact>\n<actuator>{actuators}\n</actuator>"


def scene_xml(
  model_name: str,
  sim_dt: float = 0.002,
  iterations: int = 20,
  ls_iterations: int = 50,
  cone: str = "pyramidal",
  worldbody_extra: str = "",
  object_floor: bool = False,
  floor_z: float = 0.0,
  touch_sensors: bool = False,
) -> str:
  """A whole model: the hand on its mount above a floor, a light and a camera, with the reference's
  solver settings (0.002 s, Newton, 20 iterations, pyramidal cones, Euler) by default. The floor collides
  with nothing, or with `worldbody_extra`'s objects (contype OBJECT_CONTYPE) when `object_floor`; its
  height is `floor_z` (the reference's pen scene: -0.2). `touch_sensors` adds TOUCH_SITES and their
  sensors."""
  floor_bits = FLOOR_CONTYPE if object_floor else 0
  # A camera in front of the fingertips, above the side the fingers curl to, looking at the palm.
  eye, look = (1.22, 0.72, 0.36), (1.0, 0.9, 0.16)
  return f"""
<mujoco model="{model_name}">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="{sim_dt}" iterations="{iterations}" ls_iterations="{ls_iterations}" cone="{cone}"
          solver="Newton" integrator="Euler"/>
  <visual><global offwidth="640" offheight="480"/></visual>
  {defaults_xml()}
  <worldbody>
    <light pos="1 1 4" dir="0 0 -1" directional="true"/>
    {camera_xml("overview", eye, look)}
    <geom name="floor" type="plane" size="1 1 1" pos="1 1 {floor_z}" rgba="0.2 0.2 0.2 1"
          contype="{floor_bits}" conaffinity="{floor_bits}"/>
    {with_touch_sites(hand_xml()) if touch_sensors else hand_xml()}
    {worldbody_extra}
  </worldbody>
  {hand_parts_xml()}
  {touch_sensors_xml() if touch_sensors else ""}
</mujoco>"""
