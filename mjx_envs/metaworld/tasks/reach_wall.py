"""reach-wall-v3: move the tcp within 0.05 m of a goal in the air behind a wall; a puck lies on the table
as a distractor.

Reference: metaworld 3.1.1 `SawyerReachWallEnvV3` (reward version v2), `sawyer_reach_wall_v3.xml`.

Reference facts used:
- rand_vec = [puck xyz, goal xyz] from (-0.05, 0.6, 0.015, -0.05, 0.85, 0.05) .. (0.05, 0.65, 0.015, 0.05,
  0.9, 0.3), redrawn while puck and goal are within 0.15 m in xy (never, with these ranges: the rule is
  kept); obj_init_pos = rand_vec[:3], target_pos = rand_vec[3:]. hand_init_pos (0, 0.6, 0.2), hand and
  mocap bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5).
- The wall (`_wall.py`) between the hand's start and the goal.
- Puck: body `obj` (mass 0.75, diaginertia 8.80012e-4), geom `objGeom` a cylinder of radius 0.03 and
  half-height 0.015, friction 1 / 0.1 / 0.002, condim 4, solref 0.01 1, solimp 0.99 0.99 0.01.
  Observation: `get_body_com("obj")` and scipy's `as_quat` of the geom's xmat ([x, y, z, w]).
- Reward v2: reach-v3's (10 x tolerance(|tcp - target|, (0, 0.05), margin |hand_init_pos - target|,
  long_tail)); info: success |tcp - target| <= 0.05, obj_to_target |tcp - target|, in_place_reward,
  unscaled_reward = the reward; near_object, grasp_success and grasp_reward are 0 (reach-v3's differ).

Deliberate differences: the puck is a BOX of the cylinder's half-sizes (0.03 x 0.03 x 0.015; MJX has no
box-cylinder collision and the pads are boxes; nothing here touches it on purpose); the wall is one box
(`_wall.py`).

Checks: reward and info parity on the fixture `metaworld_reference_walls` (tests/mjx_envs/
test_metaworld_parity.py): 40 records, max |difference| 2.4e-6 in the reward, success exact. `scripted` below: success 100/100 episodes (benchmarks/scripted_success.py,
C backend, 500 steps); the reference's own policy in the reference: 10/10.
"""

from __future__ import annotations

from mjx_envs.metaworld.sawyer import TCP_BELOW_HAND, Task
from mjx_envs.metaworld.tasks import reach
from mjx_envs.metaworld.tasks._wall import HAND, PUCK_HIGH, PUCK_LOW, WALL_BACK_Y, WALL_TOP, WALL_XML
from mjx_envs.metaworld.tasks.push import move

import jax.numpy as jnp

READS = reach.READS
GOAL_LOW, GOAL_HIGH = (-0.05, 0.85, 0.05), (0.05, 0.9, 0.3)

OBJECTS_XML = (
  """
    <body name="obj" pos="0 0.6 0.02">
      <freejoint name="objjoint"/>
      <inertial pos="0 0 0" mass="0.75" diaginertia="8.80012e-04 8.80012e-04 8.80012e-04"/>
      <geom name="objGeom" type="box" size="0.03 0.03 0.015" rgba="1 0 0 1" solimp="0.99 0.99 0.01"
            solref="0.01 1" friction="1 0.1 0.002" condim="4"/>
    </body>"""
  + WALL_XML
)

# the fingers reach 0.053 m along y on either side of the hand: clear of the wall once the hand is past this
CLEAR_Y = WALL_BACK_Y + 0.065
CLEAR_Z = WALL_TOP + 0.04  # the tcp (the pads' bottom) this far up while crossing


def reward(obs, action, reads):
  rew, info = reach.reward(obs, action, reads)
  zero = jnp.zeros_like(info["near_object"])
  return rew, {**info, "near_object": zero, "grasp_success": zero, "grasp_reward": zero}


def scripted(obs):
  """Up over the wall, then to the goal: until the hand is past the wall (y > CLEAR_Y) the tcp's target
  height is at least CLEAR_Z; then the tcp goes straight to the goal. A proportional step, gripper 0."""
  hand, goal = obs[..., 0:3], obs[..., 36:39]
  below = jnp.array([0.0, 0.0, TCP_BELOW_HAND])
  crossing = hand[..., 1:2] < CLEAR_Y
  high = jnp.concatenate([goal[..., :2], jnp.maximum(goal[..., 2:3], CLEAR_Z)], -1)
  # still low and before the wall: rise first, then move on
  rising = crossing & (hand[..., 2:3] - TCP_BELOW_HAND < CLEAR_Z - 0.02)
  to = jnp.where(crossing, high, goal) + below
  to = jnp.where(rising, jnp.concatenate([hand[..., :2], to[..., 2:3]], -1), to)
  delta = move(hand, to, 50.0)
  return jnp.concatenate([delta, jnp.zeros(delta.shape[:-1] + (1,))], -1)


TASK = Task(
  name="reach-wall-v3",
  objects_xml=OBJECTS_XML,
  **HAND,
  goal_low=GOAL_LOW,
  goal_high=GOAL_HIGH,
  rand_low=PUCK_LOW + GOAL_LOW,
  rand_high=PUCK_HIGH + GOAL_HIGH,
  place=reach.place,
  objects=reach.objects,
  reward=reward,
  valid=reach.valid,
)
