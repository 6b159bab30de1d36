"""pick-place-wall-v3: pick a puck up from the table and bring it over a wall to a goal in the air.

Reference: metaworld 3.1.1 `SawyerPickPlaceWallEnvV3` (reward version v2), `sawyer_pick_place_wall_v3.xml`.

Reference facts used:
- rand_vec = [puck xyz, goal xyz] from (-0.05, 0.6, 0.015, -0.05, 0.85, 0.05) .. (0.05, 0.65, 0.015, 0.05,
  0.9, 0.3), redrawn while puck and goal are within 0.15 m in xy (never, with these ranges: kept).
  reset_model as pick-place-v3's: obj_init_pos = rand_vec[:3] (z = 0.015 as drawn: the puck is put 5 mm
  into the table and pops up), target_pos = rand_vec[3:]. hand_init_pos (0, 0.6, 0.2), hand and mocap
  bounds (-0.5, 0.4, 0.05) .. (0.5, 1, 0.5).
- The puck: pick-place-v3's (cylinder radius 0.02, half-height 0.02, mass 0.75); observation: the geom's
  xpos and scipy's `as_quat` of its xmat. The wall: `_wall.py`.
- Reward v2: midpoint = (target x, 0.77, 0.25) (over the wall); in_place_part1 = tolerance(|(obj -
  midpoint) * (1, 1, 3)|, (0, 0.05), margin |(obj_init - midpoint) * (1, 1, 3)|, long_tail); part2 =
  tolerance(|obj - target|, (0, 0.05), margin |obj_init - target|, long_tail); object_grasped = the base
  `_gripper_caging_reward` (obj_radius 0.015, pad_success_thresh 0.05, object_reach_radius 0.01,
  xz_thresh 0.005, no density option: pick-place-v3 uses its own); reward = hamacher(grasped, part1);
  when |tcp - obj| < 0.02, opening > 0 and obj z - 0.015 > obj_init z: that + 1 + 4 part1, and if obj y >
  0.75: that + 5 + 3 part2; 10 when |obj - target| < 0.05. Info as push-wall-v3's (success <= 0.07).

JAX equivalent of a contact check: touching_main_object as push-v3's (`push.touching`), info only.

Deliberate differences: the puck is a box of the cylinder's half-sizes (push-v3's); the wall one box.

Checks: reward and info parity on the fixture `metaworld_reference_walls`: 40 records (27 with
grasp_success 1: there the reference's contact flag is fed in), max |difference| 9.5e-7 in the reward. `scripted` below (push-wall-v3's:
lift, carry over the wall, then to the goal): success 100/100 episodes (benchmarks/scripted_success.py, C
backend, 500 steps); the reference's own policy in the reference: 10/10.
"""

from __future__ import annotations

from mjx_envs.metaworld import rewards as R
from mjx_envs.metaworld.tasks import pick_place, push
from mjx_envs.metaworld.tasks.push_wall import (
  TARGET_RADIUS,
  over_the_wall,
  puck_wall_task,
  wall_terms,
)

import jax.numpy as jnp

READS = push.READS


def reward(obs, action, reads):
  target, z = reads["target_pos"], obs[..., 6]
  midpoint = jnp.stack([target[..., 0], jnp.full_like(z, 0.77), jnp.full_like(z, 0.25)], -1)
  obj, opened, tcp_to_obj, obj_to_target, part1, part2, grasped = wall_terms(
    obs, action, reads, midpoint, (1.0, 1.0, 3.0), high_density=False
  )
  init = reads["obj_init_pos"]
  both = R.hamacher_product(grasped, part1)
  lifted = (tcp_to_obj < 0.02) & (opened > 0) & (obj[..., 2] - 0.015 > init[..., 2])
  rew = jnp.where(
    lifted, jnp.where(obj[..., 1] > 0.75, both + 5.0 + 3.0 * part2, both + 1.0 + 4.0 * part1), both
  )
  rew = jnp.where(obj_to_target < TARGET_RADIUS, 10.0, rew)
  return rew, push.puck_info(obs, reads, tcp_to_obj, obj_to_target, grasped, part2, rew, 0.07)


scripted = over_the_wall

TASK = puck_wall_task("pick-place-wall-v3", (-0.05, 0.85, 0.05), (0.05, 0.9, 0.3), pick_place.place, reward)
