"""The Meta-World wall of reach-wall-v3, push-wall-v3 and pick-place-wall-v3 (metaworld 3.1.1
`sawyer_xyz/sawyer_{reach,push,pick_place}_wall_v3.xml`, body `wall`): a fixed brick wall across the table
between the object's start (y 0.6 .. 0.65) and the goal (y 0.85 .. 0.9).

Reference facts kept: body `wall` at (0.1, 0.75, 0.06) (no joint: fixed, not moved by any reset), two
boxes of half-sizes (0.12, 0.01, 0.06) at its origin: the visible one (default class: contype 1,
conaffinity 1, condim 3, solref 0.02 1, solimp 0.9 0.95 0.001, friction 1 0.005 0.0001) and the group-4
`wall_col` one (contype 0, conaffinity 1, condim 3, solref 0.01 1, solimp 0.99 0.99 0.01). So the wall
spans x -0.02 .. 0.22, y 0.74 .. 0.76, z 0 .. 0.12.

Deliberate difference: ONE collision box (the two coincide; each contact pair in the reference is made
twice, once with each box's parameters); it takes `wall_col`'s solver parameters and collides both ways
(contype 1, conaffinity 1, as the visible box). No scripted controller here touches it on purpose.
"""

WALL_POS = (0.1, 0.75, 0.06)
WALL_HALF = (0.12, 0.01, 0.06)
WALL_TOP = WALL_POS[2] + WALL_HALF[2]  # 0.12
WALL_BACK_Y = WALL_POS[1] + WALL_HALF[1]  # 0.76: the goal side

WALL_XML = f"""
    <body name="wall" pos="{WALL_POS[0]} {WALL_POS[1]} {WALL_POS[2]}">
      <geom name="wall" type="box" size="{WALL_HALF[0]} {WALL_HALF[1]} {WALL_HALF[2]}" contype="1"
            conaffinity="1" condim="3" solref="0.01 1" solimp="0.99 0.99 0.01" friction="1 0.005 0.0001"
            rgba="0.65 0.3 0.25 1"/>
    </body>"""

# the three wall tasks' hand (hand_init_pos, hand_low, hand_high: also the mocap bounds) and puck ranges
HAND = {"hand_init_pos": (0.0, 0.6, 0.2), "hand_low": (-0.5, 0.40, 0.05), "hand_high": (0.5, 1.0, 0.5)}
PUCK_LOW, PUCK_HIGH = (-0.05, 0.6, 0.015), (0.05, 0.65, 0.015)
