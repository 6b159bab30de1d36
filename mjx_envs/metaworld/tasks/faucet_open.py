"""faucet-open-v3: turn a faucet's handle from pointing at the robot to pointing along +x.

Reference: metaworld 3.1.1 `SawyerFaucetOpenEnvV3` (reward version v2); the faucet model is shared with
faucet-close-v3 (`_faucet.py`, which lists its facts and differences).

Facts taken from the reference:
- rand_vec = the base's position, drawn from [(-0.05, 0.8, 0), (0.05, 0.85, 0)]; no rejection rule.
  obj_init_pos = rand_vec; target_pos = obj_init_pos + (0.175, 0, 0.125); maxPullDist = |target -
  obj_init_pos|. hand_init_pos (0, 0.4, 0.2); hand bounds (-0.5, 0.40, -0.15) .. (0.5, 1, 0.5) (also the
  mocap bounds and the goal space).
- Observation: object = site `handleStartOpen` + (0, 0, -0.01), quaternion = faucetBase's xquat.
- Reward v2: obj = obs[4:7] + (-0.04, 0, 0.03); in_place = tolerance(|obj - target|, (0, 0.07), margin
  | |obj_init_pos - target| - 0.07 |, long_tail); reach = tolerance(|obj - tcp|, (0, 0.01), margin
  | |obj_init_pos - init_tcp| - 0.01 |, gaussian); reward = 2 (2 reach + 3 in_place), 10 where
  |obj - target| <= 0.07 (success). near_object: |obj - tcp| <= 0.01; grasp_success 1; grasp_reward reach.

Parity (test_metaworld_parity.py, fixture `metaworld_reference_dials`): reward and info within the
default 1e-4; first observed pose within the default 1 mm.

Deliberate differences: the faucet's (`_faucet.py`) and the hand's (`sawyer.py`).

The scripted controller: `_faucet.turn_controller` (push the handle's tip along its arc with the closed
gripper). Measured (benchmarks/scripted_success.py, C backend, 100 episodes of 500 steps, 2026-11-26): 100/100,
first successes at steps 57-61 (8 episodes).
"""

from __future__ import annotations

from mjx_envs.metaworld.tasks import _faucet

READS = _faucet.READS
reward = _faucet.reward_at((-0.04, 0.0, 0.03))


def scripted(obs):
  return _faucet.turn_controller(obs, +1.0, _faucet.OPEN_SITE[0])


TASK = _faucet.task(
  "faucet-open-v3", +1.0, "handleStartOpen", (-0.04, 0.0, 0.03), (-0.05, 0.8, 0.0), (0.05, 0.85, 0.0)
)
